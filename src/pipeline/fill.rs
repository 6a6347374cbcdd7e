//! The fill: every file's adapter ([`crate::source`]) emits its points through a
//! [`Sink`] into the timeline the plan sized ([`super::plan`]), after the range pass
//! ([`super::range`]) anchored them; then only the busiest writers keep their
//! per-thread columns.

use super::caps::{KEPT_TARGET_THREADS, KEPT_THREADS, THREAD_CANDIDATES, busiest_first, device_of, usable};
use super::input::Input;
use super::plan::Planned;
use super::range::Ranged;
use super::{LineIndex, ParsedFile};
use crate::clock::perf::PerfOffset;
use crate::source::{Measure, Sink, ThreadTotal};
use crate::table::timeline::Cadence;
use crate::table::{Col, Timeline};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Second pass: into the timeline, tagging columns with their file.
struct Fill<'t> {
    tl: &'t mut Timeline,
    /// The devices kept when there are more than [`super::caps::MAX_DEVICES`].
    keep: Option<&'t BTreeSet<String>>,
    /// The threads filled when there are more than [`THREAD_CANDIDATES`].
    threads: Option<&'t BTreeSet<u32>>,
    cadence: Option<&'t Cadence>,
    source: String,
    file: usize,
    line: usize,
    lines: &'t mut LineIndex,
}

impl Fill<'_> {
    /// False for a column of a device beyond [`super::caps::MAX_DEVICES`].
    fn kept(&self, col: &Col) -> bool {
        if let (Some(k), Col::Thread(t)) = (self.threads, col) {
            return k.contains(t);
        }
        match (self.keep, device_of(col)) {
            (Some(k), Some(d)) => k.contains(d),
            _ => true,
        }
    }

    fn mark(&mut self, col: &Col, epoch: f64) {
        if self.line > 0 && !matches!(col, Col::Seen(_)) {
            // Keyed by its row's first second: the second itself in 1 s rows; in wider rows the
            // line stands for its row.
            let at = self.tl.row(epoch).map_or(epoch.floor() as i64, |r| self.tl.epoch(r));
            self.lines.insert(col, at, self.file, self.line);
        }
    }
}

impl Sink for Fill<'_> {
    fn gauge(&mut self, col: &Col, e: f64, v: f64) {
        if !self.kept(col) {
            return;
        }
        self.mark(col, e);
        self.tl.set_gauge(col, &self.source, e, v);
    }
    fn rate(&mut self, col: &Col, end: f64, interval: f64, v: f64) {
        if !self.kept(col) {
            return;
        }
        self.mark(col, end - 1.0);
        if let Col::Thread(_) = col {
            // Kept or dropped once the fill is over ([`keep_busiest_threads`]).
            self.tl.set_rate_staged(col, &self.source, end, interval, v);
        } else {
            self.tl.set_rate(col, &self.source, end, interval, v);
        }
    }
    fn event(&mut self, col: &Col, e: f64, v: f64) {
        if self.kept(col) {
            self.tl.add_event(col, &self.source, e, v);
        }
    }
    fn dense(&mut self, col: &Col, from: f64, to: f64) {
        if self.kept(col) {
            self.tl.zero_fill(col, from, to);
        }
    }
    fn at(&mut self, line: usize) {
        self.line = line;
    }
    fn interval(&mut self, end: f64, known: Option<f64>) -> f64 {
        usable(known).unwrap_or_else(|| self.cadence.map_or(1.0, |c| c.interval_before(end)))
    }
}

/// The bundle after the fill: its files (the records `release` accepted freed), what was
/// learnt of each, the filled timeline and what the fill found.
#[derive(Debug)]
pub(crate) struct Filled {
    /// Parsed files in bundle order.
    pub files: Vec<ParsedFile>,
    /// What the passes learnt of each file (notes of the fill included).
    pub inputs: Vec<Input>,
    /// The timeline.
    pub timeline: Timeline,
    /// Clock warnings of the range pass, the plan and the fill, in that order.
    pub warnings: Vec<String>,
    /// pidstat write totals per thread id.
    pub threads: BTreeMap<u32, ThreadTotal>,
    /// Input lines behind the evidence-bearing timeline cells.
    pub lines: LineIndex,
    /// perf time -> epoch offset.
    pub perf_offset: Option<PerfOffset>,
    /// The captures the input holds.
    pub captures: Vec<super::captures::Capture>,
    /// Why `--from`/`--to` could not be applied.
    pub window_error: Option<String>,
    /// The zone's offset at the timeline's start.
    pub offset_at_start: i32,
}

/// Second pass: fills the timeline file by file, and drops the records of each file
/// `release` accepts as soon as that file is in the timeline (`analyze` reads the series of
/// iostat, pidstat and the `/proc` snapshots only through the timeline): the timeline grows
/// while the records shrink, instead of both being held at their largest.
pub(crate) fn fill(planned: Planned<'_>, release: impl Fn(&ParsedFile) -> bool) -> Filled {
    let Planned { mut ranged, mut timeline, captures, window_error, offset_at_start, mut warnings } = planned;
    ranged.shared.filling = true;
    let candidates = thread_candidates(&ranged);
    let keep = ranged.keep_devices.take();
    let mut lines = LineIndex::new();
    let Ranged { files, inputs, shared, effects, targets, .. } = &mut ranged;
    for (i, (f, x)) in files.iter_mut().zip(inputs.iter_mut()).enumerate() {
        if !x.excluded {
            let cadence = x.cadence.take();
            let mut sink = Fill {
                tl: &mut timeline,
                keep: keep.as_ref(),
                threads: candidates.as_ref(),
                cadence: cadence.as_ref(),
                source: f.name.clone(),
                file: i,
                line: 0,
                lines: &mut lines,
            };
            x.visit(i, f, shared, effects, &mut warnings, &mut sink);
            x.cadence = cadence;
        }
        if f.data.is_some() && release(f) {
            f.data = None;
            // Freed on the parsers' threads: back to the system, for the timeline to grow into.
            crate::memory::give_back();
        }
    }
    for (i, msg) in std::mem::take(&mut effects.notes) {
        add_note(&mut inputs[i].note, msg);
    }
    for (i, n) in &effects.resets {
        let msg =
            format!("{n} counter decrease(s) (reset, reboot or wrap): those intervals are left as gaps");
        add_note(&mut inputs[*i].note, msg);
    }
    warnings.append(&mut effects.warnings);
    let threads = std::mem::take(&mut effects.threads);
    let targets = std::mem::take(targets);
    keep_busiest_threads(&threads, &targets, candidates.as_ref(), &mut timeline, &mut lines, &mut warnings);
    let perf_offset = ranged.shared.perf_offset;
    let Ranged { files, inputs, .. } = ranged;
    Filled {
        files,
        inputs,
        timeline,
        warnings,
        threads,
        lines,
        perf_offset,
        captures,
        window_error,
        offset_at_start,
    }
}

/// Appends `msg` to a file's note.
fn add_note(note: &mut Option<String>, msg: String) {
    *note = Some(match note.take() {
        Some(old) => format!("{old}; {msg}"),
        None => msg,
    });
}

/// Keeps the per-thread columns of the busiest writers only (and of the threads of the
/// processes the collector was pointed at, `targets`), in the timeline and the evidence lines.
fn keep_busiest_threads(
    threads: &BTreeMap<u32, ThreadTotal>,
    targets: &BTreeSet<u32>,
    candidates: Option<&BTreeSet<u32>>,
    tl: &mut Timeline,
    lines: &mut LineIndex,
    warnings: &mut Vec<String>,
) {
    let mut by_bytes: Vec<(u32, f64)> = threads.iter().map(|(t, x)| (*t, x.bytes)).collect();
    busiest_first(&mut by_bytes);
    // The threads of the processes the collector was pointed at (`collect.sh -p`) keep
    // theirs too, however little they wrote beside the host's busiest writers.
    let targeted = |t: &u32| {
        targets.contains(t) || threads.get(t).and_then(|x| x.tgid).is_some_and(|g| targets.contains(&g))
    };
    let mut top: Vec<u32> =
        by_bytes.iter().take(KEPT_THREADS).filter(|(_, b)| *b > 0.0).map(|(t, _)| *t).collect();
    let extra: Vec<u32> = by_bytes
        .iter()
        // Only those given a column in the fill (a candidate): the others have none to keep.
        .filter(|(t, b)| {
            *b > 0.0 && targeted(t) && !top.contains(t) && candidates.is_none_or(|c| c.contains(t))
        })
        .take(KEPT_TARGET_THREADS)
        .map(|(t, _)| *t)
        .collect();
    top.extend(extra);
    if let Some(c) = candidates {
        let missed: Vec<String> = top.iter().filter(|t| !c.contains(t)).map(u32::to_string).collect();
        if !missed.is_empty() {
            warnings.push(format!(
                "thread(s) {} are among the {KEPT_THREADS} busiest writers but were not among the {THREAD_CANDIDATES} busiest of the first pass: they have no per-thread column",
                missed.join(", ")
            ));
        }
    }
    let kept = |c: &Col| !matches!(c, Col::Thread(t) if !top.contains(t));
    tl.retain(kept);
    tl.unstage(kept);
    lines.retain(kept);
}

/// The threads given columns in the fill: the [`THREAD_CANDIDATES`] busiest by the first
/// pass's bytes, or every thread (`None`) when there are no more than that, or when a file
/// that feeds the thread writes did not count them in its first pass.
fn thread_candidates(r: &Ranged<'_>) -> Option<BTreeSet<u32>> {
    let mut total: HashMap<u32, f64> = HashMap::new();
    for x in &r.inputs {
        if x.excluded || !x.uses.contains(&Measure::ThreadWrites) {
            continue;
        }
        if x.seen.threads.is_empty() {
            return None;
        }
        for (tid, b) in &x.seen.threads {
            *total.entry(*tid).or_default() += b;
        }
    }
    if total.len() <= THREAD_CANDIDATES {
        return None;
    }
    let mut by: Vec<(u32, f64)> = total.into_iter().collect();
    busiest_first(&mut by);
    let targets = &r.targets;
    let mut picked: BTreeSet<u32> = by.iter().take(THREAD_CANDIDATES).map(|(t, _)| *t).collect();
    // A target process's main thread (its tid is its pid) is a candidate whatever its rank;
    // its other threads are among the busiest or are caught by the warning of `end_fill`.
    picked.extend(by.iter().filter(|(t, _)| targets.contains(t)).take(KEPT_TARGET_THREADS).map(|(t, _)| *t));
    Some(picked)
}
