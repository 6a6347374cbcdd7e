//! Anchoring every source on the bundle clock and binning it onto the 1 s
//! timeline. Each format has one visitor that emits points through a
//! [`Sink`]; the first pass only measures time ranges, the second fills.

mod host;
mod sar;

use super::{Context, FileClock, ParsedFile};

use super::window::{Window, main_window};
use crate::clock::{self, Anchoring, DayRoller, Zone};
use crate::table::Timeline;
use crate::table::timeline::{Cadence, MAX_FILL_S};
use iosift_parsers::{Data, Stamp};
use std::collections::BTreeMap;

/// Where a visitor's points go.
trait Sink {
    fn gauge(&mut self, name: &str, unit: &'static str, epoch: f64, v: f64);
    fn rate(&mut self, name: &str, unit: &'static str, end: f64, interval: f64, v: f64);
    fn event(&mut self, name: &str, unit: &'static str, epoch: f64, v: f64);
    fn dense(&mut self, _name: &str, _from: f64, _to: f64) {}
    /// The seconds a rate stamped `end` covers: `known` (the interval the file
    /// states) when given, else the gap since the file's previous sample
    /// ([`Cadence`]). Every sample instant of a file goes through here, rated or not.
    fn interval(&mut self, end: f64, known: Option<f64>) -> f64;
    /// A sample instant without a rate (a since-boot row: it starts the next interval).
    fn sample(&mut self, _end: f64) {}
    /// The input line the next points come from (for evidence).
    fn at(&mut self, _line: usize) {}
}

/// First pass: only the range of instants (and the sample instants, for the cadence).
#[derive(Default)]
struct Range {
    first: f64,
    last: f64,
    any: bool,
    instants: Vec<f64>,
    /// The earliest sample whose interval is not stated (its start is known after the pass).
    open_first: Option<f64>,
}

/// An interval a file states, when it is usable.
fn usable(known: Option<f64>) -> Option<f64> {
    known.filter(|k| k.is_finite() && *k > 0.0 && *k <= MAX_FILL_S)
}

impl Range {
    fn see(&mut self, t: f64) {
        if !t.is_finite() {
            return;
        }
        if !self.any {
            self.first = t;
            self.last = t;
            self.any = true;
        } else {
            self.first = self.first.min(t);
            self.last = self.last.max(t);
        }
    }
}

impl Sink for Range {
    fn gauge(&mut self, _: &str, _: &'static str, e: f64, _: f64) {
        self.see(e);
    }
    fn rate(&mut self, _: &str, _: &'static str, end: f64, interval: f64, _: f64) {
        self.see(end - interval.clamp(0.0, MAX_FILL_S));
        self.see(end);
    }
    fn event(&mut self, _: &str, _: &'static str, e: f64, _: f64) {
        self.see(e);
    }
    fn sample(&mut self, end: f64) {
        if end.is_finite() {
            self.instants.push(end);
        }
    }
    fn interval(&mut self, end: f64, known: Option<f64>) -> f64 {
        self.sample(end);
        usable(known).unwrap_or_else(|| {
            if end.is_finite() && self.open_first.is_none_or(|f| end < f) {
                self.open_first = Some(end);
            }
            1.0
        })
    }
}

/// Second pass: into the timeline, tagging columns with their file.
struct Fill<'t> {
    tl: &'t mut Timeline,
    cadence: Option<&'t Cadence>,
    source: String,
    file: usize,
    line: usize,
    lines: &'t mut LineIndex,
}

/// Input line of each (column, second) of the evidence-bearing columns
/// (`dev.*`, `mem.*`): column -> epoch second -> (file index, line).
pub type LineIndex = BTreeMap<String, BTreeMap<i64, (usize, usize)>>;

impl Fill<'_> {
    fn mark(&mut self, name: &str, epoch: f64) {
        if self.line > 0 && ["dev.", "mem.", "thr.", "repl."].iter().any(|p| name.starts_with(p)) {
            self.lines
                .entry(name.to_string())
                .or_default()
                .insert(epoch.floor() as i64, (self.file, self.line));
        }
    }
}

impl Sink for Fill<'_> {
    fn gauge(&mut self, name: &str, unit: &'static str, e: f64, v: f64) {
        self.mark(name, e);
        self.tl.set_gauge(name, unit, &self.source, e, v);
    }
    fn rate(&mut self, name: &str, unit: &'static str, end: f64, interval: f64, v: f64) {
        self.mark(name, end - 1.0);
        self.tl.set_rate(name, unit, &self.source, end, interval, v);
    }
    fn event(&mut self, name: &str, unit: &'static str, e: f64, v: f64) {
        self.tl.add_event(name, unit, &self.source, e, v);
    }
    fn dense(&mut self, name: &str, from: f64, to: f64) {
        self.tl.zero_fill(name, from, to);
    }
    fn at(&mut self, line: usize) {
        self.line = line;
    }
    fn interval(&mut self, end: f64, known: Option<f64>) -> f64 {
        usable(known).unwrap_or_else(|| self.cadence.map_or(1.0, |c| c.interval_before(end)))
    }
}

/// Every point a visitor emits, as (epoch, timeline name, value, interval seconds).
struct Collect<'o> {
    out: &'o mut Vec<(f64, String, f64, f64)>,
    cadence: Option<&'o Cadence>,
}

impl Sink for Collect<'_> {
    fn gauge(&mut self, name: &str, _: &'static str, e: f64, v: f64) {
        self.out.push((e, name.to_string(), v, 0.0));
    }
    fn rate(&mut self, name: &str, _: &'static str, end: f64, interval: f64, v: f64) {
        self.out.push((end, name.to_string(), v, interval));
    }
    fn event(&mut self, name: &str, _: &'static str, e: f64, v: f64) {
        self.out.push((e, name.to_string(), v, 0.0));
    }
    fn interval(&mut self, end: f64, known: Option<f64>) -> f64 {
        usable(known).unwrap_or_else(|| self.cadence.map_or(1.0, |c| c.interval_before(end)))
    }
}

/// Per-thread write totals from pidstat (for the write-source table).
#[derive(Debug, Clone, Default)]
pub struct ThreadTotal {
    /// Command name.
    pub comm: String,
    /// Category.
    pub category: &'static str,
    /// Bytes charged over the capture.
    pub bytes: f64,
    /// Process id.
    pub tgid: Option<u32>,
}

/// Anchors and fills all files of a bundle.
pub struct Filler<'a> {
    files: &'a [ParsedFile],
    zone: &'a Zone,
    ctx: &'a Context,
    /// Clock warnings.
    pub warnings: Vec<String>,
    /// Notes per file.
    pub notes: Vec<Option<String>>,
    /// Files whose device metrics are used (one iostat source) and attribution (one pidstat source).
    chosen_iostat: Option<usize>,
    chosen_pidstat: Option<usize>,
    /// The binlog used (a bundle may hold the full decode and an excerpt of it).
    pub chosen_binlog: Option<usize>,
    /// perf time -> epoch offset and how it was found.
    pub perf_offset: Option<(f64, Anchoring, f64)>,
    /// Start of the bundle (for untimed reports), set after the first pass.
    bundle_start: Option<f64>,
    /// Files left out of the timeline: their times do not meet the bundle's main window.
    pub excluded: Vec<bool>,
    /// Per-thread totals (tid -> total), counted on the fill pass.
    pub threads: BTreeMap<u32, ThreadTotal>,
    /// True during the fill pass.
    filling: bool,
    /// Evidence lines.
    pub lines: LineIndex,
    /// Sample cadence per file (from the first pass), for rates whose interval the file does not state.
    cadences: Vec<Option<Cadence>>,
    /// Counter decreases seen per file on the fill pass (reboot, reset or wrap).
    resets: std::cell::RefCell<BTreeMap<usize, usize>>,
    /// What each sar / sadf / sa / mpstat file feeds (one source per measurement).
    sar_uses: BTreeMap<usize, sar::Uses>,
}

fn stamp_epoch(stamp: &Stamp, zone: &Zone, date: Option<&mut DayRoller>) -> Option<(f64, Anchoring)> {
    if let Some(x) = clock::simple_epoch(stamp, zone) {
        return Some(x);
    }
    match (stamp, date) {
        (Stamp::TimeOfDay(t), Some(r)) => {
            Some((zone.local_to_epoch(r.next(*t)), Anchoring::BannerDateTimeOfDay))
        }
        _ => None,
    }
}

impl<'a> Filler<'a> {
    /// A filler over parsed files.
    pub fn new(files: &'a [ParsedFile], zone: &'a Zone, ctx: &'a Context) -> Self {
        let mut f = Filler {
            files,
            zone,
            ctx,
            warnings: Vec::new(),
            notes: vec![None; files.len()],
            chosen_iostat: None,
            chosen_pidstat: None,
            chosen_binlog: None,
            perf_offset: None,
            bundle_start: None,
            excluded: vec![false; files.len()],
            threads: BTreeMap::new(),
            filling: false,
            lines: LineIndex::new(),
            cadences: vec![None; files.len()],
            resets: Default::default(),
            sar_uses: BTreeMap::new(),
        };
        f.choose_sources();
        f
    }

    /// Several files may carry the same measurements (iostat as text, as MB
    /// and as JSON; pidstat with and without -t). One of each is used so
    /// nothing is counted twice; the others are noted.
    fn choose_sources(&mut self) {
        let best = |score: &dyn Fn(&ParsedFile) -> Option<i64>| best(self.files, &self.excluded, score);
        let score_iostat = |f: &ParsedFile| -> Option<i64> {
            let (Some(Data::Iostat(i)) | Some(Data::IostatJson(i))) = &f.data else { return None };
            let rows: usize = i.reports.iter().map(|r| r.devices.len()).sum();
            if rows == 0 {
                return None;
            }
            let precise = i.unit.is_none_or(|u| !u.contains('M')) as i64;
            Some(rows as i64 * 4 + precise * 2 + (!i.json) as i64)
        };
        let chosen_iostat = best(&score_iostat);
        let score_pidstat = |f: &ParsedFile| -> Option<i64> {
            let (Some(Data::Pidstat(p)) | Some(Data::PidstatJson(p))) = &f.data else { return None };
            if !p.rows.iter().any(|r| r.kb_wr_s.is_some()) {
                return None;
            }
            Some(p.rows.len() as i64 + if p.layout.threads { 1 << 40 } else { 0 })
        };
        let chosen_pidstat = best(&score_pidstat);
        let score_binlog = |f: &ParsedFile| -> Option<i64> {
            let Some(Data::Mysqlbinlog(b)) = &f.data else { return None };
            (!b.transactions.is_empty()).then_some(b.transactions.len() as i64)
        };
        let chosen_binlog = best(&score_binlog);
        (self.chosen_iostat, self.chosen_pidstat, self.chosen_binlog) =
            (chosen_iostat, chosen_pidstat, chosen_binlog);
        self.choose_sar();
        for (i, f) in self.files.iter().enumerate() {
            if self.excluded[i] {
                continue;
            }
            if score_iostat(f).is_some() && Some(i) != self.chosen_iostat {
                let used = self.chosen_iostat.map(|c| self.files[c].name.clone()).unwrap_or_default();
                self.notes[i] =
                    Some(format!("device metrics taken from {used} (same measurements; not counted twice)"));
            }
            if score_binlog(f).is_some() && Some(i) != self.chosen_binlog {
                let used = self.chosen_binlog.map(|c| self.files[c].name.clone()).unwrap_or_default();
                self.notes[i] =
                    Some(format!("binlog series taken from {used} (more transactions; not counted twice)"));
            }
            if score_pidstat(f).is_some() && Some(i) != self.chosen_pidstat {
                let used = self.chosen_pidstat.map(|c| self.files[c].name.clone()).unwrap_or_default();
                self.notes[i] =
                    Some(format!("write attribution taken from {used} (per-thread; not counted twice)"));
            }
        }
    }

    /// First pass: the anchoring and time range of every file.
    pub fn anchor_all(&mut self) -> Vec<Option<FileClock>> {
        let mut out = vec![None; self.files.len()];
        let is_perf = |f: &ParsedFile| matches!(f.data, Some(Data::PerfScript(_)));
        // Everything but perf first: perf may need the others to be aligned.
        self.anchor_pass(&mut out, |f, _| !is_perf(f));
        // The main window of the files with wall-clock times (else of all): files outside it
        // are another capture; files with inferred times are kept when their day meets it.
        let timed = main_window(&out, |_, c| !c.anchoring.is_inferred());
        let window = timed.clone().or_else(|| main_window(&out, |_, _| true));
        if let Some(w) = &window {
            for (i, c) in out.iter().enumerate() {
                if let Some(c) = c {
                    let kept = w.members.contains(&i) || (c.anchoring.is_inferred() && w.meets(c));
                    self.excluded[i] = !kept;
                }
            }
        }
        if let Some(w) = &timed {
            self.bundle_start = Some(w.start);
            // Untimed reports start with the bundle, not at their banner's midnight.
            self.anchor_pass(&mut out, |_, c| {
                c.is_some_and(|c| c.anchoring == Anchoring::BannerDateInterval)
            });
        }
        // The sources are chosen among the files kept.
        self.notes = vec![None; self.files.len()];
        self.choose_sources();
        if let Some(w) = &window {
            self.note_excluded(&out, w);
        }
        self.perf_offset = self.find_perf_offset();
        self.anchor_pass(&mut out, |f, _| is_perf(f));
        for (i, c) in out.iter().enumerate() {
            let Some(c) = c.filter(|c| c.anchoring.is_inferred() && !self.excluded[i]) else { continue };
            let at = match c.anchoring {
                Anchoring::BundleStartInterval => "at the bundle's start",
                _ => "at midnight of its banner date",
            };
            self.warnings.push(format!(
                "{}: no time stamps in the file (iostat without -t): its reports were placed {at}, one interval apart (1 s when unknown); these times are inferred, not read (tables mark them in a time_inferred column)",
                self.files[i].name
            ));
        }
        out
    }

    /// Notes and one warning for the files left out of the timeline.
    fn note_excluded(&mut self, clocks: &[Option<FileClock>], w: &Window) {
        let t = |e: f64| crate::analyze::rfc3339(e.floor() as i64);
        let mut names = Vec::new();
        for (i, c) in clocks.iter().enumerate() {
            let Some(c) = c.filter(|_| self.excluded[i]) else { continue };
            self.notes[i] = Some(format!(
                "left out of the timeline: its times ({} .. {}) do not overlap the bundle's main window ({} .. {}); analyze it on its own",
                t(c.first),
                t(c.last),
                t(w.start),
                t(w.end)
            ));
            names.push(self.files[i].name.clone());
        }
        if !names.is_empty() {
            self.warnings.push(format!(
                "{} file(s) left out: their times do not overlap the bundle's main window ({} .. {}, {} file(s)); they look like other captures, analyze them on their own: {}",
                names.len(),
                t(w.start),
                t(w.end),
                w.members.len(),
                names.join(", ")
            ));
        }
    }

    /// Anchors the files `which` selects (by file and current clock).
    fn anchor_pass(
        &mut self,
        out: &mut [Option<FileClock>],
        which: impl Fn(&ParsedFile, Option<&FileClock>) -> bool,
    ) {
        for (i, slot) in out.iter_mut().enumerate() {
            if self.excluded[i] || !which(&self.files[i], slot.as_ref()) {
                continue;
            }
            let mut r = Range::default();
            let anchored = self.visit(i, &mut r);
            let cadence = Cadence::new(std::mem::take(&mut r.instants));
            if let Some(f) = r.open_first {
                // The first sample covers the gap before it.
                r.see(f - cadence.interval_before(f));
            }
            self.cadences[i] = cadence.typical().map(|_| cadence);
            if let Some((a, u)) = anchored
                && r.any
            {
                *slot = Some(FileClock { anchoring: a, uncertainty_s: u, first: r.first, last: r.last });
            }
        }
    }

    /// Second pass: fill the timeline.
    pub fn fill_all(&mut self, tl: &mut Timeline) {
        self.filling = true;
        let mut lines = std::mem::take(&mut self.lines);
        let cadences = std::mem::take(&mut self.cadences);
        for (i, cadence) in cadences.iter().enumerate() {
            if self.excluded[i] {
                continue;
            }
            let mut sink = Fill {
                tl,
                cadence: cadence.as_ref(),
                source: self.files[i].name.clone(),
                file: i,
                line: 0,
                lines: &mut lines,
            };
            self.visit(i, &mut sink);
        }
        self.cadences = cadences;
        self.lines = lines;
        for (i, n) in self.resets.borrow().iter() {
            let msg =
                format!("{n} counter decrease(s) (reset, reboot or wrap): those intervals are left as gaps");
            self.notes[*i] = Some(match self.notes[*i].take() {
                Some(old) => format!("{old}; {msg}"),
                None => msg,
            });
        }
        // Keep per-thread columns only for the 8 busiest writers.
        let mut by_bytes: Vec<(u32, f64)> = self.threads.iter().map(|(t, x)| (*t, x.bytes)).collect();
        by_bytes.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let keep: std::collections::BTreeSet<String> =
            by_bytes.iter().take(8).map(|(t, _)| format!("thr.{t}.w_bytes_s")).collect();
        tl.columns.retain(|k, _| !k.starts_with("thr.") || keep.contains(k));
    }

    /// A counter's increase, or `None` (and a recorded reset) when it went down.
    fn delta(&self, file: usize, old: f64, new: f64) -> Option<f64> {
        if new >= old {
            return Some(new - old);
        }
        if self.filling {
            *self.resets.borrow_mut().entry(file).or_default() += 1;
        }
        None
    }

    /// Every point file `i` contributes, at its own time and interval, with every
    /// entity (all devices and threads, not only those the timeline keeps): the
    /// per-source tables of `iosift tables`. Call after [`Filler::anchor_all`].
    pub fn emitted(&mut self, i: usize) -> Vec<(f64, String, f64, f64)> {
        let mut out = Vec::new();
        let cadence = self.cadences.get_mut(i).and_then(Option::take);
        self.visit(i, &mut Collect { out: &mut out, cadence: cadence.as_ref() });
        self.cadences[i] = cadence;
        out.retain(|(_, n, _, _)| !n.ends_with(".seen"));
        out
    }

    /// The perf time offset: from clock data in any perf file, else by matching
    /// block-request bursts (tracepoints) against the iostat writes.
    fn find_perf_offset(&mut self) -> Option<(f64, Anchoring, f64)> {
        // No perf file, nothing to anchor and nothing to warn about.
        if !self.files.iter().any(|f| matches!(&f.data, Some(Data::PerfScript(_)))) {
            return None;
        }
        for f in self.files {
            if let Some(Data::PerfScript(p)) = &f.data
                && let Some(off) = p.wall_offset
            {
                return Some((off, Anchoring::PerfClockData, 0.001));
            }
        }
        // A collector's clock reference (epoch - CLOCK_MONOTONIC, the perf clock).
        for f in self.files {
            if let Some(Data::ClockReference(c)) = &f.data
                && let Some(off) = c.offset()
            {
                let drift = c.drift().unwrap_or(0.0).abs();
                self.warnings.push(format!(
                    "perf times were mapped to the wall clock with the collector's clock reference in {} (epoch - CLOCK_MONOTONIC = {off:.3} s)",
                    f.name
                ));
                return Some((off, Anchoring::ClockReference, drift.max(0.01)));
            }
        }
        // Matching: perf per-second W bytes issued vs iostat device write bytes.
        let io = self.iostat_write_series()?;
        for f in self.files {
            let Some(Data::PerfScript(p)) = &f.data else { continue };
            let mut per: BTreeMap<i64, f64> = BTreeMap::new();
            for t in &p.tracepoints {
                if t.event.ends_with("block_rq_issue") && t.rwbs.contains('W') {
                    *per.entry(t.sec).or_default() += t.bytes as f64;
                }
            }
            if per.len() < 10 {
                continue;
            }
            if let Some((off, r)) = align(&per, &io) {
                self.warnings.push(format!(
                    "perf times of this bundle were aligned to the wall clock by matching block-request bursts in {} against iostat device writes (offset {off:.2} s, r = {r:.2})",
                    f.name
                ));
                return Some((off, Anchoring::PerfAligned, 1.0));
            }
        }
        self.warnings.push("perf times could not be anchored (no clock data, no block tracepoints to match): perf series are left out of the timeline".into());
        None
    }

    /// Per-epoch-second write bytes of the busiest device of the chosen iostat file.
    fn iostat_write_series(&self) -> Option<BTreeMap<i64, f64>> {
        let i = self.chosen_iostat?;
        let Some(Data::Iostat(io) | Data::IostatJson(io)) = &self.files[i].data else { return None };
        let mut totals: BTreeMap<&str, f64> = BTreeMap::new();
        for r in &io.reports {
            for d in &r.devices {
                *totals.entry(d.device.as_str()).or_default() += d.m.w_bytes_s.unwrap_or(0.0);
            }
        }
        let dev = totals.iter().max_by(|a, b| a.1.total_cmp(b.1))?.0.to_string();
        let mut out = BTreeMap::new();
        let mut roller = io.banner.as_ref().and_then(|b| b.date).map(DayRoller::new);
        for rep in io.reports.iter().filter(|r| !r.since_boot) {
            let Some((e, _)) = rep.stamp.as_ref().and_then(|s| stamp_epoch(s, self.zone, roller.as_mut()))
            else {
                continue;
            };
            for d in rep.devices.iter().filter(|d| d.device == dev) {
                if let Some(w) = d.m.w_bytes_s {
                    out.insert(e.round() as i64 - 1, w);
                }
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// Visits one file, emitting its points; returns how it was anchored.
    fn visit(&mut self, i: usize, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        let f = &self.files[i];
        let zone = self.zone;
        let prefix = clock::pt_stalk_prefix(&f.base).map(|n| zone.local_to_epoch(n));
        match f.data.as_ref()? {
            Data::Iostat(io) | Data::IostatJson(io) => {
                let used = self.chosen_iostat == Some(i);
                let mut roller = io.banner.as_ref().and_then(|b| b.date).map(DayRoller::new);
                let interval = io.interval_s.unwrap_or(1.0);
                let mut anchoring = None;
                let mut prev: Option<f64> = None;
                for rep in &io.reports {
                    let timed = rep.stamp.as_ref().and_then(|s| stamp_epoch(s, zone, roller.as_mut()));
                    // Without a time: the pt-stalk prefix, else the bundle's start, else the
                    // banner date at midnight (a day of uncertainty), plus index x interval.
                    let banner_midnight = io
                        .banner
                        .as_ref()
                        .and_then(|b| b.date)
                        .and_then(|d| d.and_hms_opt(0, 0, 0))
                        .map(|n| zone.local_to_epoch(n));
                    let (end, a) = match (timed, prefix, self.bundle_start, banner_midnight) {
                        (Some(x), ..) => x,
                        (None, Some(p), ..) => {
                            (p + interval * rep.index as f64, Anchoring::PtStalkPrefixInterval)
                        }
                        (None, None, Some(b), _) => {
                            (b + interval * rep.index as f64, Anchoring::BundleStartInterval)
                        }
                        (None, None, None, Some(m)) => {
                            (m + interval * rep.index as f64, Anchoring::BannerDateInterval)
                        }
                        (None, None, None, None) => continue,
                    };
                    anchoring.get_or_insert(a);
                    let dt = prev.map(|p| end - p).filter(|d| *d > 0.0 && *d <= 60.0).unwrap_or(interval);
                    prev = Some(end);
                    if rep.since_boot {
                        continue;
                    }
                    if used && let Some(c) = &rep.cpu {
                        for (k, v) in [
                            ("cpu.user_pct", c.user),
                            ("cpu.system_pct", c.system),
                            ("cpu.iowait_pct", c.iowait),
                            ("cpu.idle_pct", c.idle),
                        ] {
                            if let Some(v) = v {
                                sink.rate(k, "%", end, dt, v);
                            }
                        }
                    }
                    for d in &rep.devices {
                        sink.at(d.line);
                        let m = &d.m;
                        let dev = d.device.trim();
                        if !used {
                            sink.rate("iostat.seen", "1", end, dt, 0.0);
                            continue;
                        }
                        for (k, unit, v) in [
                            ("w_bytes_s", "B/s", m.w_bytes_s),
                            ("r_bytes_s", "B/s", m.r_bytes_s),
                            ("w_s", "1/s", m.w_s),
                            ("r_s", "1/s", m.r_s),
                            ("f_s", "1/s", m.f_s),
                            ("wrqm_s", "1/s", m.wrqm_s),
                            ("w_await_ms", "ms", m.w_await_ms),
                            ("r_await_ms", "ms", m.r_await_ms),
                            ("f_await_ms", "ms", m.f_await_ms),
                            ("await_ms", "ms", m.await_ms),
                            ("aqu_sz", "1", m.aqu_sz),
                            ("util_pct", "%", m.util_pct),
                            ("w_req_bytes", "B", m.w_req_bytes),
                            ("tps", "1/s", m.tps),
                        ] {
                            if let Some(v) = v {
                                sink.rate(&format!("dev.{dev}.{k}"), unit, end, dt, v);
                            }
                        }
                    }
                }
                Some((
                    anchoring?,
                    match anchoring {
                        Some(Anchoring::BannerDateInterval) => 86_400.0,
                        Some(Anchoring::BundleStartInterval) => 60.0,
                        _ => 1.0,
                    },
                ))
            }
            Data::Pidstat(p) | Data::PidstatJson(p) => {
                let used = self.chosen_pidstat == Some(i);
                let mut roller = p.banner.as_ref().and_then(|b| b.date).map(DayRoller::new);
                let mut anchoring = None;
                let threads_mode = p.layout.threads;
                let mut run = 0;
                for row in &p.rows {
                    if row.run != run {
                        // Appended runs (a cron loop): each starts on its own banner's date, or on
                        // the date of the `date` line before it.
                        run = row.run;
                        let date_line =
                            p.date_lines.iter().rev().find(|d| d.line < row.line).map(|d| d.local.date());
                        if let Some(d) = p.banners.get(run).and_then(|b| b.date).or(date_line) {
                            roller = Some(DayRoller::new(d));
                        }
                    }
                    let Some((end, a)) =
                        row.stamp.as_ref().and_then(|s| stamp_epoch(s, zone, roller.as_mut()))
                    else {
                        continue;
                    };
                    anchoring.get_or_insert(a);
                    let mut prev_roller = roller.clone();
                    // The header's time starts the interval; `-h` has none (the cadence tells).
                    let stated = row
                        .prev_stamp
                        .as_ref()
                        .and_then(|s| stamp_epoch(s, zone, prev_roller.as_mut()))
                        .map(|(p, _)| end - p);
                    if row.since_boot {
                        sink.sample(end);
                        continue;
                    }
                    let dt = sink.interval(end, stated);
                    if !used {
                        sink.gauge("pidstat.seen", "1", end, 0.0);
                        continue;
                    }
                    if threads_mode && row.tid.is_none() {
                        continue;
                    }
                    let Some(kb) = row.kb_wr_s.filter(|v| *v >= 0.0) else { continue };
                    sink.at(row.line);
                    let tid = row.tid.or(row.tgid);
                    let cat = self.ctx.taxonomy.category(tid, &row.command, &self.ctx.thread_map);
                    sink.rate(&format!("cat.{cat}.w_bytes_s"), "B/s", end, dt, kb * 1024.0);
                    if let Some(t) = tid
                        && kb > 0.0
                    {
                        sink.rate(&format!("thr.{t}.w_bytes_s"), "B/s", end, dt, kb * 1024.0);
                    }
                    if let Some(t) = tid {
                        // Totals are counted on the fill pass only, so once.
                        if self.filling {
                            let e = self.threads.entry(t).or_insert_with(|| ThreadTotal {
                                comm: row.command.clone(),
                                category: cat,
                                bytes: 0.0,
                                tgid: row.tgid,
                            });
                            e.bytes += kb * 1024.0 * dt;
                        }
                    }
                }
                anchoring.map(|a| (a, 1.0))
            }
            Data::Vmstat(v) => {
                let mut anchoring = None;
                let mut run_first = 0;
                let mut run_len = 0usize;
                for (k, row) in v.rows.iter().enumerate() {
                    if row.since_boot {
                        run_first = k;
                    }
                    // `Wed Aug 28 16:02:01 IST 2019` before this run (cron `date; vmstat 1 7`).
                    let dated = v.run_dates.iter().find(|(first, _)| *first == run_first).map(|(_, d)| {
                        let off = d.zone.as_deref().and_then(clock::zone_abbreviation_offset);
                        let base = match off {
                            Some(o) => d.local.and_utc().timestamp() as f64 - f64::from(o),
                            None => zone.local_to_epoch(d.local),
                        };
                        (base + (k - run_first) as f64, Anchoring::DateLineRun)
                    });
                    let timed = row.stamp.as_ref().and_then(|s| stamp_epoch(s, zone, None));
                    let (end, a) = match (timed, prefix, dated) {
                        (Some(x), ..) => x,
                        (None, Some(p), _) => (p + k as f64, Anchoring::PtStalkPrefixInterval),
                        (None, None, Some(x)) => x,
                        _ => continue,
                    };
                    run_len = run_len.max(k - run_first);
                    anchoring.get_or_insert(a);
                    if row.since_boot {
                        sink.sample(end);
                        continue;
                    }
                    let dt = sink.interval(end, None);
                    for key in ["r", "b", "us", "sy", "id", "wa", "bo", "bi"] {
                        if let Some(x) = row.get(key) {
                            sink.rate(&format!("vmstat.{key}"), "1", end, dt, x);
                        }
                    }
                }
                // Rows after a date line are assumed 1 s apart: up to the run's length off.
                anchoring.map(|a| (a, if a == Anchoring::DateLineRun { run_len.max(1) as f64 } else { 1.0 }))
            }
            Data::ProcMeminfo(s) => {
                let mut any = false;
                for snap in &s.snapshots {
                    let Some(ts) = snap.ts else { continue };
                    any = true;
                    sink.at(snap.line);
                    if let Some(v) = snap.get("Dirty") {
                        sink.gauge("mem.dirty_bytes", "B", ts.epoch, v as f64 * 1024.0);
                    }
                    if let Some(v) = snap.get("Writeback") {
                        sink.gauge("mem.writeback_bytes", "B", ts.epoch, v as f64 * 1024.0);
                    }
                    if let Some(v) = snap.get("FilePmdMapped") {
                        sink.gauge("mem.file_pmd_mapped_bytes", "B", ts.epoch, v as f64 * 1024.0);
                    }
                }
                any.then_some((Anchoring::Epoch, 0.01))
            }
            Data::ProcVmstat(s) => {
                for (p, snap, t, dt) in snapshot_pairs(&s.snapshots, |x| x.ts.map(|t| t.epoch)) {
                    for key in ["nr_dirtied", "nr_written", "pgpgout", "thp_file_mapped", "thp_fault_alloc"] {
                        if let (Some(a), Some(b)) = (p.get(key), snap.get(key))
                            && let Some(d) = self.delta(i, a as f64, b as f64)
                        {
                            sink.rate(&format!("vm.{key}_s"), "1/s", t, dt, d / dt);
                        }
                    }
                }
                s.snapshots.iter().any(|x| x.ts.is_some()).then_some((Anchoring::Epoch, 0.01))
            }
            Data::ProcDiskstats(s) => {
                for (p, snap, t, dt) in snapshot_pairs(&s.snapshots, |x| x.ts.map(|t| t.epoch)) {
                    for d in &snap.devices {
                        let Some(o) = p.devices.iter().find(|x| x.name == d.name) else { continue };
                        if let Some(w) = self.delta(i, o.sectors_written as f64, d.sectors_written as f64) {
                            sink.rate(&format!("ds.{}.w_bytes_s", d.name), "B/s", t, dt, w * 512.0 / dt);
                        }
                        if let (Some(a), Some(b)) = (o.flushes, d.flushes)
                            && let Some(fl) = self.delta(i, a as f64, b as f64)
                        {
                            sink.rate(&format!("ds.{}.f_s", d.name), "1/s", t, dt, fl / dt);
                        }
                    }
                }
                s.snapshots.iter().any(|x| x.ts.is_some()).then_some((Anchoring::Epoch, 0.01))
            }
            Data::PerfScript(p) => {
                let (off, a, u) = self.perf_offset?;
                for (sec, n) in &p.fsync_per_sec {
                    sink.event("perf.fsync_samples_s", "1/s", *sec as f64 + off, *n as f64);
                }
                let mut any = !p.fsync_per_sec.is_empty();
                for t in &p.tracepoints {
                    if t.event.ends_with("block_rq_issue") && t.rwbs.contains('W') {
                        sink.event("perf.rq_issue_w_bytes_s", "B/s", t.sec as f64 + off, t.bytes as f64);
                        any = true;
                    }
                }
                if let (Some(a0), Some(b0)) = (p.first_ts, p.last_ts) {
                    sink.dense("perf.fsync_samples_s", a0 + off, b0 + off);
                    sink.dense("perf.rq_issue_w_bytes_s", a0 + off, b0 + off);
                    sink.event("perf.samples_seen", "1", a0 + off, 0.0);
                    sink.event("perf.samples_seen", "1", b0 + off, 0.0);
                    any = true;
                }
                any.then_some((a, u))
            }
            Data::Mysqlbinlog(b) => {
                if self.chosen_binlog != Some(i) {
                    return None;
                }
                let mut first = f64::INFINITY;
                let mut last = f64::NEG_INFINITY;
                let mut anchoring = None;
                // On a replica (log_slave_updates) the events of the source keep the source's server id and
                // times: they say when the source committed, not when this server wrote them.
                let local_id =
                    self.ctx.variable("server_id").and_then(|v| v.value.trim().parse::<u32>().ok());
                let mut foreign = 0usize;
                for t in &b.transactions {
                    if let (Some(own), Some(id)) = (local_id, t.server_id)
                        && own != id
                    {
                        foreign += 1;
                        continue;
                    }
                    let (e, a) = match (t.epoch, t.local) {
                        (Some(e), _) => (e as f64, Anchoring::Epoch),
                        (None, Some(n)) => (zone.local_to_epoch(n), Anchoring::LocalDateTime),
                        _ => continue,
                    };
                    anchoring.get_or_insert(a);
                    first = first.min(e);
                    last = last.max(e);
                    sink.event("binlog.trx_s", "1/s", e, 1.0);
                    sink.event("binlog.bytes_s", "B/s", e, t.bytes as f64);
                    sink.event("binlog.rows_s", "1/s", e, t.rows as f64);
                }
                if first.is_finite() {
                    for k in ["binlog.trx_s", "binlog.bytes_s", "binlog.rows_s"] {
                        sink.dense(k, first, last);
                    }
                }
                if foreign > 0 && self.filling {
                    self.notes[i] = Some(format!(
                        "{foreign} of {} transactions carry another server's id (replicated from the source, \
                         stamped with the source's commit times, not this server's): left out of this server's \
                         binlog rate",
                        b.transactions.len()
                    ));
                }
                anchoring.map(|a| (a, 1.0))
            }
            Data::MysqladminExt(m) => {
                let mut anchoring = None;
                let mut prev: Option<(f64, &iosift_parsers::mysqladmin_ext::Sample)> = None;
                for (k, s) in m.samples.iter().enumerate() {
                    let (e, a) = match (s.ts, prefix) {
                        (Some(ts), _) => (ts.epoch, Anchoring::Epoch),
                        (None, Some(p)) => (p + k as f64, Anchoring::PtStalkPrefixInterval),
                        _ => continue,
                    };
                    anchoring.get_or_insert(a);
                    for key in [
                        "Innodb_data_fsyncs",
                        "Innodb_os_log_fsyncs",
                        "Binlog_commits",
                        "Binlog_group_commits",
                        "Com_commit",
                        "Handler_commit",
                        "Questions",
                        "Innodb_data_written",
                    ] {
                        let Some(cur) = s.get(key) else { continue };
                        if m.relative {
                            if k > 0 {
                                sink.rate(&format!("mysql.{key}_s"), "1/s", e, 1.0, cur);
                            }
                        } else if let Some((t0, p)) = prev
                            && let Some(old) = p.get(key)
                        {
                            let dt = e - t0;
                            if dt > 0.0
                                && dt <= 60.0
                                && let Some(d) = self.delta(i, old, cur)
                            {
                                sink.rate(&format!("mysql.{key}_s"), "1/s", e, dt, d / dt);
                            }
                        }
                    }
                    prev = Some((e, s));
                }
                anchoring.map(|a| (a, if a == Anchoring::Epoch { 0.01 } else { 1.0 }))
            }
            Data::MysqlReplicaStatus(r) => self.visit_replica_status(i, r, sink),
            d @ (Data::Sar(_) | Data::Sadf(_) | Data::Mpstat(_) | Data::SaBinary(_)) => {
                self.visit_sar(i, sar::sar_of(d)?, sink)
            }
            d @ (Data::Top(_) | Data::Interrupts(_) | Data::Netstat(_)) => self.visit_host(i, d, sink),
            Data::DstatCsv(d) | Data::DstatText(d) => {
                let mut anchoring = None;
                let mut yearless = 0usize;
                for run in &d.runs {
                    let run_zone = run.meta.zone.as_deref().and_then(clock::zone_abbreviation_offset);
                    for row in &run.rows {
                        let e = match row.stamp.map(|s| (s, run.dated(s))) {
                            Some((_, Stamp::Epoch(e))) => Some((e, Anchoring::Epoch)),
                            Some((Stamp::NoYear { .. }, Stamp::Local(n))) => {
                                let e = match run_zone {
                                    Some(off) => n.and_utc().timestamp() as f64 - f64::from(off),
                                    None => zone.local_to_epoch(n),
                                };
                                Some((e, Anchoring::DateLineYear))
                            }
                            Some((_, Stamp::NoYear { .. })) => {
                                yearless += 1;
                                None
                            }
                            Some((_, ref s)) => stamp_epoch(s, zone, None),
                            None => None,
                        };
                        let Some((e, a)) = e else { continue };
                        anchoring.get_or_insert(a);
                        if row.since_boot {
                            sink.sample(e);
                            continue;
                        }
                        let dt = sink.interval(e, None);
                        for (ci, c) in run.columns.iter().enumerate() {
                            if c.key.starts_with("dsk/")
                                && (c.name == "writ" || c.name == "read")
                                && let Some(Some(v)) = row.values.get(ci)
                            {
                                sink.rate(&format!("dstat.{}", c.key), "B/s", e, dt, *v);
                            }
                        }
                    }
                }
                if yearless > 0 && !self.filling {
                    self.warnings.push(format!(
                        "{}: {yearless} rows have a day and month but no year (dstat -t terminal output has no Date: line) and are left out of the timeline; the CSV of dstat --output has the year",
                        f.name
                    ));
                }
                anchoring.map(|a| (a, 1.0))
            }
            _ => None,
        }
    }
}

impl Filler<'_> {
    /// `SHOW SLAVE STATUS` / `SHOW MASTER STATUS` series on the replica's own clock: lag, received and
    /// executed source-binlog bytes per second, relay log space, and the local binlog's growth.
    /// Columns of the default connection are `repl.*`, of a named one `repl.NAME.*`.
    fn visit_replica_status(
        &self,
        i: usize,
        r: &iosift_parsers::mysql_replica_status::ReplicaStatus,
        sink: &mut dyn Sink,
    ) -> Option<(Anchoring, f64)> {
        let mut any = false;
        for name in r.connections() {
            let pre = if name.is_empty() { "repl".to_string() } else { format!("repl.{name}") };
            let rows: Vec<_> = r.series(name).filter(|c| c.ts.is_some()).collect();
            for (k, c) in rows.iter().enumerate() {
                let Some(t) = c.ts.map(|t| t.epoch) else { continue };
                any = true;
                sink.at(c.line);
                if let Some(v) = c.seconds_behind {
                    sink.gauge(&format!("{pre}.seconds_behind_s"), "s", t, v as f64);
                }
                if let Some(v) = c.relay_log_space {
                    sink.gauge(&format!("{pre}.relay_log_space_bytes"), "B", t, v as f64);
                }
                if let Some(v) = c.backlog_bytes() {
                    sink.gauge(&format!("{pre}.backlog_bytes"), "B", t, v as f64);
                }
                let Some(p) = k.checked_sub(1).map(|j| rows[j]) else { continue };
                let dt = t - p.ts.map_or(t, |x| x.epoch);
                if !(dt > 0.0 && dt <= 60.0) {
                    continue;
                }
                let same = |a: &Option<String>, b: &Option<String>| a.is_some() && a == b;
                if same(&p.source_log_file, &c.source_log_file)
                    && let (Some(a), Some(b)) = (p.read_pos, c.read_pos)
                    && let Some(d) = self.delta(i, a as f64, b as f64)
                {
                    sink.rate(&format!("{pre}.received_bytes_s"), "B/s", t, dt, d / dt);
                }
                if same(&p.exec_source_log_file, &c.exec_source_log_file)
                    && let (Some(a), Some(b)) = (p.exec_pos, c.exec_pos)
                    && let Some(d) = self.delta(i, a as f64, b as f64)
                {
                    sink.rate(&format!("{pre}.executed_bytes_s"), "B/s", t, dt, d / dt);
                }
            }
        }
        for w in r.binlog.windows(2) {
            let (Some(t0), Some(t1)) = (w[0].ts.map(|t| t.epoch), w[1].ts.map(|t| t.epoch)) else { continue };
            any = true;
            let dt = t1 - t0;
            if w[0].file == w[1].file
                && dt > 0.0
                && dt <= 60.0
                && let Some(d) = self.delta(i, w[0].position as f64, w[1].position as f64)
            {
                sink.at(w[1].line);
                sink.rate("binlog.local_bytes_s", "B/s", t1, dt, d / dt);
            }
        }
        any.then_some((Anchoring::Epoch, 0.01))
    }
}

/// Successive TS-stamped snapshots as (previous, current, epoch, seconds between),
/// for counters; pairs more than a minute apart are skipped (a gap, not a rate).
fn snapshot_pairs<'s, S>(
    snaps: &'s [S],
    ts: impl Fn(&S) -> Option<f64> + 's,
) -> impl Iterator<Item = (&'s S, &'s S, f64, f64)> + 's {
    snaps
        .iter()
        .filter_map(move |x| ts(x).map(|t| (x, t)))
        .collect::<Vec<_>>()
        .windows(2)
        .filter_map(|w| {
            let ((p, t0), (c, t1)) = (w[0], w[1]);
            let dt = t1 - t0;
            (dt > 0.0 && dt <= 60.0).then_some((p, c, t1, dt))
        })
        .collect::<Vec<_>>()
        .into_iter()
}

fn best(
    files: &[ParsedFile],
    excluded: &[bool],
    score: impl Fn(&ParsedFile) -> Option<i64>,
) -> Option<usize> {
    files
        .iter()
        .enumerate()
        .filter(|(i, _)| !excluded[*i])
        .filter_map(|(i, f)| score(f).map(|s| (i, s)))
        .max_by_key(|(i, s)| (*s, std::cmp::Reverse(*i)))
        .map(|(i, _)| i)
}

/// Finds the offset (epoch - perf seconds) that best matches two per-second
/// series, with sub-second refinement on the correlation peak.
fn align(perf: &BTreeMap<i64, f64>, io: &BTreeMap<i64, f64>) -> Option<(f64, f64)> {
    let (&p0, &p1) = (perf.keys().next()?, perf.keys().next_back()?);
    let (&i0, &i1) = (io.keys().next()?, io.keys().next_back()?);
    let pv: Vec<Option<f64>> = (p0..=p1).map(|k| Some(perf.get(&k).copied().unwrap_or(0.0))).collect();
    let iv: Vec<Option<f64>> = (i0..=i1).map(|k| io.get(&k).copied()).collect();
    // offset = epoch - perf; lag index: iv[j] vs pv[j + shift]  => epoch i0 + j = perf p0 + j + shift + off
    let n = pv.len() as isize;
    let m = iv.len() as isize;
    let mut best: Option<(isize, f64)> = None;
    let mut curve = BTreeMap::new();
    for shift in -(m - 10)..(n - 10) {
        if let Some((r, k)) = crate::analysis::stats::lagged_pearson(&iv, &pv, shift)
            && k >= 20
        {
            curve.insert(shift, r);
            if best.is_none_or(|(_, b)| r > b) {
                best = Some((shift, r));
            }
        }
    }
    let (shift, r) = best?;
    if r < 0.5 {
        return None;
    }
    let a = curve.get(&(shift - 1)).copied().unwrap_or(r);
    let c = curve.get(&(shift + 1)).copied().unwrap_or(r);
    let denom = a - 2.0 * r + c;
    let frac = if denom.abs() > 1e-9 { (0.5 * (a - c) / denom).clamp(-0.5, 0.5) } else { 0.0 };
    // iv index j <-> pv index j + shift: epoch (i0 + j) + 1 (iostat second j covers (i0+j, i0+j+1]) ...
    // iostat series is keyed by the start of its second; perf by floor(perf ts): both start-of-second.
    let off = (i0 as f64) - (p0 as f64 + shift as f64 + frac);
    Some((off, r))
}
