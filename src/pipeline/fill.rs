//! Anchoring every source on the bundle clock and binning it onto the 1 s
//! timeline. Each file's adapter ([`crate::source`]) emits its points
//! through a [`Sink`]; the first pass only measures time ranges, the second
//! fills.

use super::{Context, FileClock, LineIndex, ParsedFile};

use super::window::{Window, main_window};
use crate::clock::{Anchoring, DayRoller, Zone};
use crate::source::{self, Effects, Measure, Sink, ThreadTotal, Visit};
use crate::table::timeline::{Cadence, MAX_FILL_S};
use crate::table::{Cell, Col, Timeline};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// First pass: only the range of instants (and the sample instants, for the cadence).
#[derive(Default)]
struct Range {
    first: f64,
    last: f64,
    any: bool,
    instants: Vec<f64>,
    /// The earliest sample whose interval is not stated (its start is known after the pass).
    open_first: Option<f64>,
    /// Bytes read and written per device (iostat and diskstats columns), for [`MAX_DEVICES`].
    devices: BTreeMap<String, f64>,
    /// The instants of the points, one per run of points in the same second (for the densest window).
    times: Vec<f64>,
    /// Bytes written per thread (`thr.*` columns), for [`THREAD_CANDIDATES`].
    threads: HashMap<u32, f64>,
    /// The device of the last point, already in `devices`.
    last_device: Option<String>,
}

/// Per-thread columns the timeline keeps after the fill: the busiest writers by bytes.
pub const KEPT_THREADS: usize = 8;

/// Per-thread columns filled at all: the busiest by the first pass's bytes. Only the
/// [`KEPT_THREADS`] busiest by the fill's own totals stay, so filling the columns of
/// every thread a `pidstat -t` of days names (109 threads of 4 days: 660 MB of cells,
/// each dropped after the fill) is not needed; the margin covers a ranking that the
/// cadence of unstated intervals shifts between the passes (a thread of the final top
/// [`KEPT_THREADS`] outside the candidates is named in a warning). Each candidate is a
/// column of the whole timeline while the fill runs: 32 of them were 190 MB of the 4.4-day
/// bench bundle's peak, 16 are half that, and staged at 8 bytes a cell
/// ([`Timeline::staged`]) a quarter.
pub const THREAD_CANDIDATES: usize = 16;

/// Per-thread columns kept beyond [`KEPT_THREADS`] for the processes the collector was
/// pointed at ([`target_pids`]).
pub const KEPT_TARGET_THREADS: usize = 8;

/// The processes a capture was pointed at: `collect.sh -p PID` writes
/// `smaps-PID-COMM.txt`, `smaps_rollup-PID-COMM.txt` and `threads-PID-COMM.txt` for each.
pub fn target_pids(files: &[ParsedFile]) -> BTreeSet<u32> {
    files
        .iter()
        .filter_map(|f| {
            let rest = ["smaps-", "smaps_rollup-", "threads-"].iter().find_map(|p| f.base.strip_prefix(p))?;
            let (pid, _comm) = rest.split_once('-')?;
            pid.parse().ok()
        })
        .collect()
}

/// Most devices the timeline keeps columns for: the busiest by bytes read and
/// written. The others are left out of the timeline (and said so in a warning);
/// `iosift tables` keeps every device. An iostat of 200,000 devices made a
/// timeline (and a Parquet file) of 4 million columns.
pub const MAX_DEVICES: usize = 64;

/// Sorts (key, bytes) pairs busiest first, ties by key (the order every cap keeps).
fn busiest_first<K: Ord>(v: &mut [(K, f64)]) {
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
}

/// The device of a per-device column.
fn device_of(col: &Col) -> Option<&str> {
    match col {
        Col::Dev(d, _) | Col::Ds(d, _) => Some(d),
        _ => None,
    }
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

impl Range {
    /// Notes the instant of a point (once per run of points in the same second).
    fn mark(&mut self, t: f64) {
        if t.is_finite() && self.times.last().is_none_or(|l| l.floor() != t.floor()) {
            self.times.push(t);
        }
    }

    /// Counts a device's bytes (`bytes`: a byte rate times its interval, else 0).
    fn device(&mut self, col: &Col, bytes: f64) {
        let Some(d) = device_of(col) else { return };
        let bytes = if bytes.is_finite() && bytes > 0.0 { bytes } else { 0.0 };
        match &mut self.last_device {
            // Most points add nothing to a device already listed (a row's other metrics): no lookup.
            Some(last) if last == d => {
                if bytes == 0.0 {
                    return;
                }
            }
            Some(last) => d.clone_into(last),
            None => self.last_device = Some(d.to_string()),
        }
        match self.devices.get_mut(d) {
            Some(b) => *b += bytes,
            None => {
                self.devices.insert(d.to_string(), bytes);
            }
        }
    }
}

impl Sink for Range {
    fn gauge(&mut self, col: &Col, e: f64, _: f64) {
        self.see(e);
        self.mark(e);
        self.device(col, 0.0);
    }
    fn rate(&mut self, col: &Col, end: f64, interval: f64, v: f64) {
        self.see(end - interval.clamp(0.0, MAX_FILL_S));
        self.see(end);
        self.mark(end);
        use crate::table::columns::{DevMetric, DsMetric};
        let bytes = matches!(
            col,
            Col::Dev(_, DevMetric::WBytesS | DevMetric::RBytesS) | Col::Ds(_, DsMetric::WBytesS)
        );
        let amount = v * interval.clamp(0.0, MAX_FILL_S);
        self.device(col, if bytes { amount } else { 0.0 });
        if let Col::Thread(t) = col
            && v.is_finite()
            && v > 0.0
        {
            *self.threads.entry(*t).or_default() += amount;
        }
    }
    fn event(&mut self, _: &Col, e: f64, _: f64) {
        self.see(e);
        self.mark(e);
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
    /// The devices kept when there are more than [`MAX_DEVICES`].
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
    /// False for a column of a device beyond [`MAX_DEVICES`].
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
            // Kept or dropped once the fill is over (`Filler::end_fill`).
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

/// Every point a visitor emits, as (epoch, timeline name, value, interval seconds).
struct Collect<'o> {
    out: &'o mut Vec<(f64, String, f64, f64)>,
    cadence: Option<&'o Cadence>,
}

impl Sink for Collect<'_> {
    fn gauge(&mut self, col: &Col, e: f64, v: f64) {
        self.out.push((e, col.name(), v, 0.0));
    }
    fn rate(&mut self, col: &Col, end: f64, interval: f64, v: f64) {
        self.out.push((end, col.name(), v, interval));
    }
    fn event(&mut self, col: &Col, e: f64, v: f64) {
        self.out.push((e, col.name(), v, 0.0));
    }
    fn interval(&mut self, end: f64, known: Option<f64>) -> f64 {
        usable(known).unwrap_or_else(|| self.cadence.map_or(1.0, |c| c.interval_before(end)))
    }
}

/// Anchors and fills all files of a bundle.
pub struct Filler<'a, 'f> {
    files: &'f [ParsedFile],
    zone: &'a Zone,
    ctx: &'a Context,
    /// Clock warnings.
    pub warnings: Vec<String>,
    /// Notes per file.
    pub notes: Vec<Option<String>>,
    /// What each file feeds ([`source::choose`]).
    uses: Vec<BTreeSet<Measure>>,
    /// perf time -> epoch offset and how it was found.
    pub perf_offset: Option<(f64, Anchoring, f64)>,
    /// Start of the bundle (for untimed reports), set after the first pass.
    bundle_start: Option<f64>,
    /// Files left out of the timeline: their times do not meet the bundle's main window.
    pub excluded: Vec<bool>,
    /// True during the fill pass.
    filling: bool,
    /// Evidence lines.
    pub lines: LineIndex,
    /// Sample cadence per file (from the first pass), for rates whose interval the file does not state.
    cadences: Vec<Option<Cadence>>,
    /// What the adapters' visits changed (thread totals, resets, notes, warnings).
    effects: Effects,
    /// Bytes per device of each file (from the first pass).
    devices: Vec<BTreeMap<String, f64>>,
    /// Instants of each file's points (from the first pass).
    times: Vec<Vec<f64>>,
    /// Bytes per thread of each file (from the first pass).
    thread_bytes: Vec<HashMap<u32, f64>>,
    /// The devices the timeline keeps when the files name more than [`MAX_DEVICES`].
    keep_devices: Option<BTreeSet<String>>,
    /// Files whose own zone disagreement was already warned about.
    zone_noted: BTreeSet<usize>,
    /// What the fill pass holds while it runs ([`Filler::begin_fill`] to [`Filler::end_fill`]).
    pass: Option<FillPass>,
    /// The processes the capture was pointed at ([`target_pids`]).
    targets: BTreeSet<u32>,
}

/// The state of a fill pass between its files.
struct FillPass {
    lines: LineIndex,
    cadences: Vec<Option<Cadence>>,
    keep: Option<BTreeSet<String>>,
    candidates: Option<BTreeSet<u32>>,
}

impl<'a, 'f> Filler<'a, 'f> {
    /// A filler over parsed files.
    pub fn new(files: &'f [ParsedFile], zone: &'a Zone, ctx: &'a Context) -> Self {
        let mut f = Filler {
            files,
            zone,
            ctx,
            warnings: Vec::new(),
            notes: vec![None; files.len()],
            uses: vec![BTreeSet::new(); files.len()],
            perf_offset: None,
            bundle_start: None,
            excluded: vec![false; files.len()],
            filling: false,
            lines: LineIndex::new(),
            cadences: vec![None; files.len()],
            effects: Effects::default(),
            devices: vec![BTreeMap::new(); files.len()],
            times: vec![Vec::new(); files.len()],
            thread_bytes: vec![HashMap::new(); files.len()],
            keep_devices: None,
            zone_noted: BTreeSet::new(),
            targets: target_pids(files),
            pass: None,
        };
        f.choose_sources(&[]);
        f
    }

    /// Several files may carry the same measurements (iostat as text, as MB
    /// and as JSON; pidstat with and without -t; sar -d and iostat): one
    /// source per measurement and span of seconds is used so nothing is
    /// counted twice; the others are noted.
    fn choose_sources(&mut self, clocks: &[Option<FileClock>]) {
        let spans: Vec<Option<(f64, f64)>> = clocks.iter().map(|c| c.map(|c| (c.first, c.last))).collect();
        let (uses, notes) = source::choose(self.files, &self.excluded, &spans);
        self.uses = uses;
        for (i, n) in notes {
            self.notes[i] = Some(n);
        }
    }

    /// The file whose binlog feeds the binlog series.
    pub fn chosen_binlog(&self) -> Option<usize> {
        self.uses.iter().position(|u| u.contains(&Measure::Binlog))
    }

    /// Per-thread write totals (after the fill pass).
    pub fn take_threads(&mut self) -> BTreeMap<u32, ThreadTotal> {
        std::mem::take(&mut self.effects.threads)
    }

    /// First pass: the anchoring and time range of every file.
    pub fn anchor_all(&mut self) -> Vec<Option<FileClock>> {
        let mut out = vec![None; self.files.len()];
        let is_perf = |f: &ParsedFile| source::perf(f).is_some();
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
        // The sources are chosen among the files kept, knowing their spans.
        self.notes = vec![None; self.files.len()];
        self.choose_sources(&out);
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
        self.warnings.append(&mut self.effects.warnings);
        self.bound_devices();
        out
    }

    /// More than [`MAX_DEVICES`] devices in the files kept: only the busiest are
    /// given timeline columns, and a warning names how many were left out.
    fn bound_devices(&mut self) {
        let mut total: BTreeMap<&str, f64> = BTreeMap::new();
        for (_, d) in self.devices.iter().enumerate().filter(|(i, _)| !self.excluded[*i]) {
            for (name, b) in d {
                *total.entry(name.as_str()).or_default() += b;
            }
        }
        if total.len() <= MAX_DEVICES {
            self.keep_devices = None;
            return;
        }
        let mut by: Vec<(&str, f64)> = total.into_iter().collect();
        busiest_first(&mut by);
        let (kept, left) = by.split_at(MAX_DEVICES);
        let left_bytes: f64 = left.iter().map(|(_, b)| b).sum();
        let names: Vec<&str> = left.iter().take(5).map(|(n, _)| *n).collect();
        self.warnings.push(format!(
            "{} devices: the timeline and charts keep the {MAX_DEVICES} busiest (by bytes read and written); the other {} ({}{}) are grouped out of them, {:.0} bytes read and written in all ({:.2} % of all devices' bytes); `iosift tables` keeps every device",
            by.len(),
            left.len(),
            names.join(", "),
            if left.len() > names.len() { ", ..." } else { "" },
            left_bytes,
            100.0 * left_bytes / by.iter().map(|(_, b)| b).sum::<f64>().max(1.0),
        ));
        self.keep_devices = Some(kept.iter().map(|(n, _)| n.to_string()).collect());
    }

    /// Devices of the files kept (at most [`MAX_DEVICES`] once bounded).
    pub fn device_count(&self) -> usize {
        match &self.keep_devices {
            Some(k) => k.len(),
            None => {
                let mut all: BTreeSet<&str> = BTreeSet::new();
                for (i, d) in self.devices.iter().enumerate() {
                    if !self.excluded[i] {
                        all.extend(d.keys().map(String::as_str));
                    }
                }
                all.len()
            }
        }
    }

    /// The instants of the points of the files kept (for the densest window of a long span).
    pub fn sample_instants(&self, clocks: &[Option<FileClock>]) -> Vec<f64> {
        let mut out = Vec::new();
        for (i, c) in clocks.iter().enumerate() {
            if c.is_some() && !self.excluded[i] {
                out.extend_from_slice(&self.times[i]);
            }
        }
        out.sort_by(f64::total_cmp);
        out
    }

    /// The finest sampling of the files kept: the smallest, over the files with at least
    /// 20 samples, of the gap that 95 % of a file's consecutive samples are at least apart.
    /// A file whose fine run is 5 % of its samples or more counts as fine (an hour at 1 s
    /// next to a month at 10 minutes: 3,600 of 7,920 samples); a few short gaps (a
    /// collector restarted) do not. `None` when no file has that many samples.
    pub fn finest_cadence(&self, clocks: &[Option<FileClock>]) -> Option<f64> {
        let mut finest: Option<f64> = None;
        for (i, c) in clocks.iter().enumerate() {
            if c.is_none() || self.excluded[i] || self.times[i].len() < 20 {
                continue;
            }
            let mut t = self.times[i].clone();
            t.sort_by(f64::total_cmp);
            let mut gaps: Vec<f64> =
                t.windows(2).map(|w| w[1].floor() - w[0].floor()).filter(|g| *g > 0.0).collect();
            gaps.sort_by(f64::total_cmp);
            if let Some(g) = gaps.get(gaps.len() / 20) {
                finest = Some(finest.map_or(*g, |f| f.min(*g)));
            }
        }
        finest
    }

    /// Notes and one warning for the files left out of the timeline.
    fn note_excluded(&mut self, clocks: &[Option<FileClock>], w: &Window) {
        let t = |e: f64| crate::clock::epoch_rfc3339(e.floor()).unwrap_or_default();
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
            self.devices[i] = std::mem::take(&mut r.devices);
            self.times[i] = std::mem::take(&mut r.times);
            self.thread_bytes[i] = std::mem::take(&mut r.threads);
            if let Some((a, u)) = anchored
                && r.any
            {
                *slot = Some(FileClock { anchoring: a, uncertainty_s: u, first: r.first, last: r.last });
            }
        }
    }

    /// The same filler over `files`: the same files, or none while they are changed
    /// between the steps of a fill ([`fill_releasing`]). Only the steps of the fill and the
    /// getters of its results may be called on a filler over no files.
    pub fn rebind<'g>(self, files: &'g [ParsedFile]) -> Filler<'a, 'g> {
        Filler {
            files,
            zone: self.zone,
            ctx: self.ctx,
            warnings: self.warnings,
            notes: self.notes,
            uses: self.uses,
            perf_offset: self.perf_offset,
            bundle_start: self.bundle_start,
            excluded: self.excluded,
            filling: self.filling,
            lines: self.lines,
            cadences: self.cadences,
            effects: self.effects,
            devices: self.devices,
            times: self.times,
            thread_bytes: self.thread_bytes,
            keep_devices: self.keep_devices,
            zone_noted: self.zone_noted,
            pass: self.pass,
            targets: self.targets,
        }
    }

    /// Starts the fill pass (after [`Filler::anchor_all`]).
    pub fn begin_fill(&mut self) {
        self.filling = true;
        let candidates = self.thread_candidates();
        self.pass = Some(FillPass {
            lines: std::mem::take(&mut self.lines),
            cadences: std::mem::take(&mut self.cadences),
            keep: self.keep_devices.take(),
            candidates,
        });
    }

    /// Fills file `i` into the timeline (between [`Filler::begin_fill`] and [`Filler::end_fill`]).
    pub fn fill_file(&mut self, i: usize, tl: &mut Timeline) {
        let Some(mut pass) = self.pass.take() else { return };
        if !self.excluded[i] {
            let mut sink = Fill {
                tl,
                keep: pass.keep.as_ref(),
                threads: pass.candidates.as_ref(),
                cadence: pass.cadences[i].as_ref(),
                source: self.files[i].name.clone(),
                file: i,
                line: 0,
                lines: &mut pass.lines,
            };
            self.visit(i, &mut sink);
        }
        self.pass = Some(pass);
    }

    /// Ends the fill pass: notes, and the per-thread columns of the busiest writers only.
    pub fn end_fill(&mut self, tl: &mut Timeline) {
        let Some(FillPass { lines, cadences, keep, candidates }) = self.pass.take() else { return };
        self.cadences = cadences;
        self.keep_devices = keep;
        self.lines = lines;
        let add = |notes: &mut Vec<Option<String>>, i: usize, msg: String| {
            notes[i] = Some(match notes[i].take() {
                Some(old) => format!("{old}; {msg}"),
                None => msg,
            });
        };
        for (i, msg) in std::mem::take(&mut self.effects.notes) {
            add(&mut self.notes, i, msg);
        }
        for (i, n) in &self.effects.resets {
            let msg =
                format!("{n} counter decrease(s) (reset, reboot or wrap): those intervals are left as gaps");
            add(&mut self.notes, *i, msg);
        }
        self.warnings.append(&mut self.effects.warnings);
        // Keep per-thread columns only for the busiest writers.
        let mut by_bytes: Vec<(u32, f64)> = self.effects.threads.iter().map(|(t, x)| (*t, x.bytes)).collect();
        busiest_first(&mut by_bytes);
        // The threads of the processes the collector was pointed at (`collect.sh -p`) keep
        // theirs too, however little they wrote beside the host's busiest writers.
        let targets = &self.targets;
        let targeted = |t: &u32| {
            targets.contains(t)
                || self.effects.threads.get(t).and_then(|x| x.tgid).is_some_and(|g| targets.contains(&g))
        };
        let mut top: Vec<u32> =
            by_bytes.iter().take(KEPT_THREADS).filter(|(_, b)| *b > 0.0).map(|(t, _)| *t).collect();
        let extra: Vec<u32> = by_bytes
            .iter()
            // Only those given a column in the fill (a candidate): the others have none to keep.
            .filter(|(t, b)| {
                *b > 0.0
                    && targeted(t)
                    && !top.contains(t)
                    && candidates.as_ref().is_none_or(|c| c.contains(t))
            })
            .take(KEPT_TARGET_THREADS)
            .map(|(t, _)| *t)
            .collect();
        top.extend(extra);
        if let Some(c) = &candidates {
            let missed: Vec<String> = top.iter().filter(|t| !c.contains(t)).map(u32::to_string).collect();
            if !missed.is_empty() {
                self.warnings.push(format!(
                    "thread(s) {} are among the {KEPT_THREADS} busiest writers but were not among the {THREAD_CANDIDATES} busiest of the first pass: they have no per-thread column",
                    missed.join(", ")
                ));
            }
        }
        let kept = |c: &Col| !matches!(c, Col::Thread(t) if !top.contains(t));
        tl.retain(kept);
        tl.unstage(kept);
        self.lines.retain(kept);
    }

    /// The threads given columns in the fill: the [`THREAD_CANDIDATES`] busiest by the first
    /// pass's bytes, or every thread (`None`) when there are no more than that, or when a file
    /// that feeds the thread writes did not count them in its first pass.
    fn thread_candidates(&self) -> Option<BTreeSet<u32>> {
        let mut total: HashMap<u32, f64> = HashMap::new();
        for (i, t) in self.thread_bytes.iter().enumerate() {
            if self.excluded[i] || !self.uses[i].contains(&Measure::ThreadWrites) {
                continue;
            }
            if t.is_empty() {
                return None;
            }
            for (tid, b) in t {
                *total.entry(*tid).or_default() += b;
            }
        }
        if total.len() <= THREAD_CANDIDATES {
            return None;
        }
        let mut by: Vec<(u32, f64)> = total.into_iter().collect();
        busiest_first(&mut by);
        let targets = &self.targets;
        let mut picked: BTreeSet<u32> = by.iter().take(THREAD_CANDIDATES).map(|(t, _)| *t).collect();
        // A target process's main thread (its tid is its pid) is a candidate whatever its rank;
        // its other threads are among the busiest or are caught by the warning of `end_fill`.
        picked.extend(
            by.iter().filter(|(t, _)| targets.contains(t)).take(KEPT_TARGET_THREADS).map(|(t, _)| *t),
        );
        Some(picked)
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

    /// The perf time offset: from clock data in any perf file, else a collector's
    /// clock reference, else by matching block-request bursts (tracepoints) against
    /// the iostat writes.
    fn find_perf_offset(&mut self) -> Option<(f64, Anchoring, f64)> {
        // No perf file, nothing to anchor and nothing to warn about.
        let perfs: Vec<(&ParsedFile, &iosift_parsers::perf_script::PerfScript)> =
            self.files.iter().filter_map(|f| source::perf(f).map(|p| (f, p))).collect();
        if perfs.is_empty() {
            return None;
        }
        if let Some(off) = perfs.iter().find_map(|(_, p)| p.wall_offset) {
            return Some((off, Anchoring::PerfClockData, 0.001));
        }
        // A collector's clock reference (epoch - CLOCK_MONOTONIC, the perf clock).
        for f in self.files {
            if let Some(c) = source::clock_reference(f)
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
        for (f, p) in &perfs {
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
        let io = (0..self.files.len())
            .filter(|i| self.uses[*i].contains(&Measure::DeviceIo))
            .find_map(|i| source::iostat(&self.files[i]))?;
        let mut totals: BTreeMap<&str, f64> = BTreeMap::new();
        for r in &io.reports {
            for d in &r.devices {
                *totals.entry(&*d.device).or_default() += d.m.w_bytes_s().unwrap_or(0.0);
            }
        }
        let dev = totals.iter().max_by(|a, b| a.1.total_cmp(b.1))?.0.to_string();
        let mut out = BTreeMap::new();
        let mut roller = Some(DayRoller::maybe(io.banner.as_ref().and_then(|b| b.date)));
        for rep in io.reports.iter().filter(|r| !r.since_boot) {
            let Some((e, _)) =
                rep.stamp.as_ref().and_then(|s| source::stamp_epoch(s, self.zone, roller.as_mut()))
            else {
                continue;
            };
            for d in rep.devices.iter().filter(|d| *d.device == *dev) {
                if let Some(w) = d.m.w_bytes_s() {
                    out.insert(e.round() as i64 - 1, w);
                }
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// The zone file `i` states for itself when it differs from the bundle's fixed offset
    /// (the file's own word wins; the disagreement is a warning, given once). An IANA
    /// bundle zone (`--tz Europe/Berlin`) already follows the CET/CEST a file prints.
    fn own_zone(&mut self, i: usize, stated: Option<(i32, String)>) -> Option<Zone> {
        let (off, name) = stated?;
        let crate::clock::ZoneRule::Fixed(bundle) = self.zone.rule else { return None };
        if bundle == off {
            return None;
        }
        if !self.filling && self.zone_noted.insert(i) {
            let hours = f64::from((off - bundle).abs()) / 3600.0;
            self.warnings.push(format!(
                "{}: the file says its times are {name} ({}), the bundle's zone is {} ({}): its times are read in its own zone; the two are {hours} h apart (check the capturing hosts' TZ settings)",
                self.files[i].name,
                Zone::offset_text(off),
                self.zone.name,
                self.zone.source
            ));
        }
        Some(Zone {
            offset_s: off,
            rule: crate::clock::ZoneRule::Fixed(off),
            name,
            source: format!("its own header ({})", self.files[i].name),
            assumed: false,
        })
    }

    /// Visits one file through its adapter; returns how it was anchored.
    fn visit(&mut self, i: usize, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        let f = &self.files[i];
        let adapter = source::of(f.data.as_ref()?);
        let own = self.own_zone(i, adapter.own_zone());
        let mut v = Visit {
            index: i,
            file: f,
            zone: own.as_ref().unwrap_or(self.zone),
            ctx: self.ctx,
            prefix: crate::clock::pt_stalk_prefix(&f.base).map(|n| self.zone.local_to_epoch(n)),
            bundle_start: self.bundle_start,
            perf_offset: self.perf_offset,
            uses: &self.uses[i],
            filling: self.filling,
            out: &mut self.effects,
        };
        adapter.visit(&mut v, sink)
    }
}

/// Second pass: fills the timeline file by file, and drops the records of each file
/// `release` accepts as soon as that file is in the timeline (`analyze` reads the series of
/// iostat, pidstat and the `/proc` snapshots only through the timeline): the timeline grows
/// while the records shrink, instead of both being held at their largest. `filler` is
/// detached from the files ([`Filler::rebind`] to `&[]`) so they can be changed between the
/// files.
pub fn fill_releasing<'a>(
    mut filler: Filler<'a, 'static>,
    files: &mut [ParsedFile],
    tl: &mut Timeline,
    release: impl Fn(&ParsedFile) -> bool,
) -> Filler<'a, 'static> {
    filler.begin_fill();
    for i in 0..files.len() {
        let mut bound = filler.rebind(files);
        bound.fill_file(i, tl);
        filler = bound.rebind(&[]);
        if files[i].data.is_some() && release(&files[i]) {
            files[i].data = None;
            // Freed on the parsers' threads: back to the system, for the timeline to grow into.
            crate::memory::give_back();
        }
    }
    filler.end_fill(tl);
    filler
}

/// Finds the offset (epoch - perf seconds) that best matches two per-second
/// series, with sub-second refinement on the correlation peak.
fn align(perf: &BTreeMap<i64, f64>, io: &BTreeMap<i64, f64>) -> Option<(f64, f64)> {
    let (&p0, &p1) = (perf.keys().next()?, perf.keys().next_back()?);
    let (&i0, &i1) = (io.keys().next()?, io.keys().next_back()?);
    let pv: Vec<Cell> = (p0..=p1).map(|k| Cell::some(perf.get(&k).copied().unwrap_or(0.0))).collect();
    let iv: Vec<Cell> = (i0..=i1).map(|k| Cell::new(io.get(&k).copied())).collect();
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
