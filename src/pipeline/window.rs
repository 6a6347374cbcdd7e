//! The bundle's main time window. Files given together may come from
//! different captures (a folder of iostat logs from nine machines and nine
//! years): merging them would make one timeline of years, capped at a week,
//! which is empty but slow to analyze. The files whose anchored times overlap
//! (within [`GAP_S`]) form groups; the group with the most files (then the
//! longest, then the earliest) is the main window, and the files outside it
//! are left out of the timeline and named in the report.

use super::FileClock;

/// Files whose time ranges are closer than this belong to the same capture. The
/// collectors of one capture start within seconds of each other, and pt-stalk's
/// samples of one incident follow within its `--sleep` (300 s by default); two
/// captures taken apart (an hour, or 40 minutes) are not one incident, and one
/// capture's threads must never be named as the other's writers.
pub(crate) const GAP_S: f64 = 300.0;

/// The main window and the files in it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Window {
    /// First anchored instant of the group.
    pub start: f64,
    /// Last anchored instant of the group.
    pub end: f64,
    /// Indexes (into the bundle's files) of the group's members.
    pub members: Vec<usize>,
}

impl Window {
    /// True when a range, widened by its uncertainty, meets the window (within [`GAP_S`]).
    pub(crate) fn meets(&self, c: &FileClock) -> bool {
        let u = c.uncertainty_s.max(0.0);
        c.first - u <= self.end + GAP_S && c.last + u >= self.start - GAP_S
    }
}

/// Groups the files with a clock (`take` selects which count) and returns the main window.
pub(crate) fn main_window(
    clocks: &[Option<FileClock>],
    take: impl Fn(usize, &FileClock) -> bool,
) -> Option<Window> {
    let mut ranges: Vec<(usize, f64, f64)> = clocks
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.as_ref().filter(|c| take(i, c)).map(|c| (i, c.first, c.last)))
        .filter(|(_, a, b)| a.is_finite() && b.is_finite())
        .collect();
    ranges.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let mut groups: Vec<Window> = Vec::new();
    for (i, a, b) in ranges {
        match groups.last_mut() {
            Some(g) if a <= g.end + GAP_S => {
                g.end = g.end.max(b);
                g.members.push(i);
            }
            _ => groups.push(Window { start: a, end: b, members: vec![i] }),
        }
    }
    // Most files, then the longest, then the earliest (max_by keeps the last of equals).
    groups.into_iter().rev().max_by(|x, y| {
        x.members.len().cmp(&y.members.len()).then((x.end - x.start).total_cmp(&(y.end - y.start)))
    })
}

/// The part of a capture too long for one timeline that the timeline keeps: the
/// `len` seconds holding the most sample instants (`instants` sorted; the latest
/// such part on ties, as the incident is usually what was captured last), as its
/// first and last instants and how many samples it holds. A stray file or an
/// old run appended to a log then never pushes the incident out of the timeline.
pub(crate) fn densest(instants: &[f64], len: f64) -> Option<(f64, f64, usize)> {
    let mut best: Option<(usize, usize)> = None;
    let mut i = 0;
    for j in 0..instants.len() {
        while instants[j] - instants[i] > len {
            i += 1;
        }
        if best.is_none_or(|(a, b)| j - i >= b - a) {
            best = Some((i, j));
        }
    }
    let (a, b) = best?;
    Some((instants[a], instants[b], b - a + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Anchoring;

    fn clock(first: f64, last: f64) -> Option<FileClock> {
        Some(FileClock { anchoring: Anchoring::BannerDateTimeOfDay, uncertainty_s: 1.0, first, last })
    }

    #[test]
    fn the_group_with_most_files_wins() {
        // Times of the field iostat folder: 2016-03-15 09:34 (3 min), 20:54 (15 s), 2022-01-25.
        let c = vec![
            clock(1643093274.0, 1643093284.0),
            None,
            clock(1458034440.0, 1458034619.0),
            clock(1458075275.0, 1458075290.0),
        ];
        let w = main_window(&c, |_, _| true).unwrap();
        assert_eq!(w.members, vec![2]);
        assert!(!w.meets(c[0].as_ref().unwrap()) && !w.meets(c[3].as_ref().unwrap()));
        // Two files of the same capture outweigh a longer single one.
        let c = vec![clock(0.0, 100.0), clock(50.0, 60.0), clock(10_000.0, 90_000.0)];
        assert_eq!(main_window(&c, |_, _| true).unwrap().members, vec![0, 1]);
        // Equal groups: the earliest.
        let c = vec![clock(10_000.0, 10_010.0), clock(0.0, 10.0)];
        assert_eq!(main_window(&c, |_, _| true).unwrap().members, vec![1]);
        assert!(main_window(&[None], |_, _| true).is_none());
    }

    #[test]
    fn the_densest_part_of_a_long_span_is_kept() {
        // A 240 s run 30 days before a 240 s incident with twice the samples (0.5 s apart).
        let old: Vec<f64> = (0..240).map(|k| 1_000.0 + k as f64).collect();
        let new: Vec<f64> = (0..480).map(|k| 2_593_000.0 + k as f64 / 2.0).collect();
        let all: Vec<f64> = old.iter().chain(&new).copied().collect();
        assert_eq!(densest(&all, 86_400.0), Some((2_593_000.0, 2_593_239.5, 480)));
        // Equal runs: the later one.
        let later: Vec<f64> = (0..240).map(|k| 2_593_000.0 + k as f64).collect();
        let all: Vec<f64> = old.iter().chain(&later).copied().collect();
        assert_eq!(densest(&all, 86_400.0), Some((2_593_000.0, 2_593_239.0, 240)));
        assert_eq!(densest(&[], 10.0), None);
    }
}
