//! FlameScope's sub-second heat map of perf samples: for each perf file with call
//! stacks, how many samples fell in each 100 ms of each second of the capture's
//! clock (columns of 1 s, rows of 100 ms), and which stacks they were, so that the
//! page can draw the flame graph of any range of it.
//!
//! Times: the parser counts samples per 100 ms of perf time (`floor(ts * 10)`);
//! the bundle's perf offset (epoch = perf time + offset), rounded to 100 ms, moves
//! those buckets to the wall clock, so a sample lands at most 50 ms from its exact
//! instant. Columns are the timeline's seconds (the clock of every other chart);
//! at most [`MAX_COLS`] of them, the first with samples, when the capture is longer.
//!
//! The stacks of the samples are kept as one call tree ([`tree`]); when it is too
//! large for the page its lightest nodes are cut (the samples count at their
//! nearest kept caller) and the note says so.

pub(crate) mod tree;

use super::PerfInput;
use crate::table::Timeline;
use std::collections::BTreeMap;

/// Rows of a column: 100 ms each.
pub(crate) const ROWS: usize = 10;
/// Most columns (seconds) on the map.
pub(crate) const MAX_COLS: usize = 600;

/// The heat map of one perf file.
#[derive(Debug, Clone, Default)]
pub struct PerfHeat {
    /// The perf file (name within the bundle; capture text).
    pub file: String,
    /// The event counted (`cpu-clock:pppH`), when perf named one.
    pub event: Option<String>,
    /// Epoch second of column 0.
    pub t0: i64,
    /// Columns (seconds).
    pub cols: usize,
    /// Samples per cell, `counts[col * ROWS + row]`, row 0 = the first 100 ms of the second.
    pub counts: Vec<u32>,
    /// Samples on the map (the sum of `counts`).
    pub samples: u64,
    /// Samples on the map without a call stack in `tree` (perf recorded none, or the
    /// parser's cap left it out).
    pub no_stack: u64,
    /// Samples with a time stamp outside the map's columns.
    pub outside: u64,
    /// Why the map shows only part of the capture, when it does.
    pub clip_note: Option<String>,
    /// Samples per command (perf's comm, the root frame of their stacks), most first.
    pub processes: Vec<(String, u64)>,
    /// The call tree of the samples on the map, for the flame graph of a range.
    pub tree: tree::CallTree,
}

/// The heat maps of every perf file with timed call stacks; none when perf was not anchored
/// to the wall clock (`perf_offset`).
pub(crate) fn of_perf(perf: &[PerfInput<'_>], perf_offset: Option<f64>, tl: &Timeline) -> Vec<PerfHeat> {
    let Some(off) = perf_offset.filter(|o| o.is_finite()) else { return Vec::new() };
    perf.iter().filter_map(|f| one(f, off, tl)).collect()
}

/// The wall-clock 100 ms bucket of a perf-time bucket.
fn wall(bucket: i64, shift: i64) -> i64 {
    bucket.saturating_add(shift)
}

fn one(f: &PerfInput<'_>, off: f64, tl: &Timeline) -> Option<PerfHeat> {
    let ps = f.script;
    // No call stacks (a tracepoint file): no flame graphs, no map.
    if ps.sample_buckets.is_empty() || ps.collapsed.is_empty() {
        return None;
    }
    let shift = (off * 10.0).round() as i64;
    let first = wall(*ps.sample_buckets.keys().next()?, shift).div_euclid(ROWS as i64);
    let last = wall(*ps.sample_buckets.keys().next_back()?, shift).div_euclid(ROWS as i64);
    let (t0, end, clip_note) = columns(tl, first, last);
    let cols = usize::try_from(end - t0).ok()?;
    let cell = |b: i64| -> Option<usize> {
        let w = wall(b, shift);
        let col = w.div_euclid(ROWS as i64) - t0;
        (0..cols as i64).contains(&col).then(|| col as usize * ROWS + w.rem_euclid(ROWS as i64) as usize)
    };
    let mut counts = vec![0u32; cols * ROWS];
    let (mut samples, mut outside) = (0u64, 0u64);
    for (&b, &n) in &ps.sample_buckets {
        match cell(b) {
            Some(c) => {
                counts[c] = counts[c].saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
                samples += n;
            }
            None => outside += n,
        }
    }
    let stacks: Vec<&str> = ps.collapsed.keys().map(String::as_str).collect();
    let cells = ps.stack_buckets.iter().filter_map(|&(b, s, n)| Some((cell(b)?, s, n)));
    let tree = tree::CallTree::build(&stacks, cells);
    let with_stack: u64 = tree.cells.iter().flat_map(|(_, v)| v.iter().map(|&(_, n)| u64::from(n))).sum();
    // Per command from every stack on the map (the tree may have cut rare ones).
    let mut processes: BTreeMap<String, u64> = BTreeMap::new();
    for &(b, s, n) in &ps.stack_buckets {
        if let (Some(_), Some(stack)) = (cell(b), stacks.get(s as usize)) {
            *processes.entry(stack.split(';').next().unwrap_or("").to_string()).or_default() += n;
        }
    }
    let mut processes: Vec<(String, u64)> = processes.into_iter().collect();
    processes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Some(PerfHeat {
        file: f.name.to_string(),
        event: ps.collapse_event.clone(),
        t0,
        cols,
        counts,
        samples,
        no_stack: samples.saturating_sub(with_stack),
        outside,
        clip_note,
        processes,
        tree,
    })
}

/// The columns `[t0, end)`: the timeline's seconds (the samples' own when there is no
/// timeline), the first [`MAX_COLS`] with samples when that is more, and why it was cut.
fn columns(tl: &Timeline, first: i64, last: i64) -> (i64, i64, Option<String>) {
    let (a, b) = if tl.len > 0 { (tl.t0, tl.t0.saturating_add(tl.seconds())) } else { (first, last + 1) };
    if b - a <= MAX_COLS as i64 {
        return (a, b, None);
    }
    // Too long: from the first sample inside the span (or its start).
    let from = first.clamp(a, b - 1);
    let to = (last + 1).clamp(from + 1, b);
    if to - from <= MAX_COLS as i64 {
        return (from, to, None);
    }
    let note = format!(
        "the map shows the first {MAX_COLS} s of the {} s with perf samples (use --from/--to for another part)",
        to - from
    );
    (from, from + MAX_COLS as i64, Some(note))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_captures_show_the_first_seconds_with_samples() {
        let tl = Timeline::rows(1000, 5000);
        assert_eq!(columns(&tl, 1200, 1300), (1200, 1301, None));
        let (a, b, note) = columns(&tl, 1200, 4000);
        assert_eq!((a, b), (1200, 1200 + MAX_COLS as i64));
        assert!(note.unwrap().contains("first 600 s of the 2801 s"));
        let short = Timeline::rows(1000, 60);
        assert_eq!(columns(&short, 990, 1100), (1000, 1060, None));
        assert_eq!(columns(&Timeline::default(), 990, 1100), (990, 1101, None));
    }
}
