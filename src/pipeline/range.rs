//! The range pass: every file's adapter visited once (twice for the files placed
//! at the bundle's start) to learn when its times are ([`FileClock`]), which files
//! belong to the bundle's main window, what each file feeds ([`source::choose`]),
//! where perf's clock is, and the devices, threads and sample instants the plan
//! and the fill size themselves by. Nothing is filled.

use super::caps::{MAX_DEVICES, busiest_first, device_of, target_pids, usable};
use super::input::{Input, Seen, Shared};
use super::window::{Window, main_window};
use super::{Context, ParsedFile};
use crate::clock::{Anchoring, DayRoller, FileClock, Zone};
use crate::source::{self, Effects, Measure, Sink};
use crate::table::Col;
use crate::table::timeline::{Cadence, MAX_FILL_S};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The bundle after the range pass: its files, what was learnt of each (same order),
/// and what the fill needs.
#[derive(Debug)]
pub(crate) struct Ranged<'a> {
    /// Parsed files in bundle order.
    pub files: Vec<ParsedFile>,
    /// What the pass learnt of each file.
    pub inputs: Vec<Input>,
    /// Clock warnings of the pass.
    pub warnings: Vec<String>,
    pub(crate) shared: Shared<'a>,
    /// What the visits changed (warnings of the pass already taken).
    pub(crate) effects: Effects,
    /// The devices the timeline keeps when the files name more than [`MAX_DEVICES`].
    pub(crate) keep_devices: Option<BTreeSet<String>>,
    /// The processes the capture was pointed at ([`target_pids`]).
    pub(crate) targets: BTreeSet<u32>,
}

/// First pass: the range of instants (and the sample instants, for the cadence).
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
    /// Bytes written per thread (`thr.*` columns), for [`super::caps::THREAD_CANDIDATES`].
    threads: HashMap<u32, f64>,
    /// The device of the last point, already in `devices`.
    last_device: Option<String>,
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
        // The rows of one report share their instant: one is enough (the cadence dedups).
        if end.is_finite() && self.instants.last() != Some(&end) {
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

/// The range pass over a bundle's files: their clocks, the main window (files outside it
/// are excluded and noted), the sources chosen, perf's clock, and the devices kept.
pub(crate) fn range_pass<'a>(files: Vec<ParsedFile>, zone: &'a Zone, ctx: &'a Context) -> Ranged<'a> {
    let shared = Shared { zone, ctx, bundle_start: None, perf_offset: None, filling: false };
    let mut r = Ranged {
        inputs: vec![Input::default(); files.len()],
        targets: target_pids(&files),
        files,
        warnings: Vec::new(),
        shared,
        effects: Effects::default(),
        keep_devices: None,
    };
    r.choose_sources();
    let is_perf = |f: &ParsedFile| source::perf(f).is_some();
    // Everything but perf first: perf may need the others to be aligned.
    r.anchor_pass(|f, _| !is_perf(f));
    let window = r.exclude_outside_window();
    // The sources are chosen among the files kept, knowing their spans.
    r.inputs.iter_mut().for_each(|x| x.note = None);
    r.choose_sources();
    if let Some(w) = &window {
        r.note_excluded(w);
    }
    r.shared.perf_offset = r.find_perf_offset();
    r.anchor_pass(|f, _| is_perf(f));
    r.warn_inferred();
    r.warnings.append(&mut r.effects.warnings);
    r.bound_devices();
    r
}

impl<'a> Ranged<'a> {
    /// The clocks of the files (same order).
    pub(crate) fn clocks(&self) -> Vec<Option<FileClock>> {
        self.inputs.iter().map(|x| x.clock).collect()
    }

    /// Which files are left out of the timeline (same order).
    pub(crate) fn excluded(&self) -> Vec<bool> {
        self.inputs.iter().map(|x| x.excluded).collect()
    }

    /// Several files may carry the same measurements (iostat as text, as MB
    /// and as JSON; pidstat with and without -t; sar -d and iostat): one
    /// source per measurement and span of seconds is used so nothing is
    /// counted twice; the others are noted.
    fn choose_sources(&mut self) {
        let spans: Vec<Option<(f64, f64)>> =
            self.inputs.iter().map(|x| x.clock.map(|c| (c.first, c.last))).collect();
        let (uses, notes) = source::choose(&self.files, &self.excluded(), &spans);
        for (x, u) in self.inputs.iter_mut().zip(uses) {
            x.uses = u;
        }
        for (i, n) in notes {
            self.inputs[i].note = Some(n);
        }
        // A recognised format that feeds nothing says why (ps, df, perf report, ...).
        for (x, f) in self.inputs.iter_mut().zip(&self.files) {
            if x.note.is_none()
                && let Some(why) = f.data.as_ref().and_then(|d| source::of(d).inert())
            {
                x.note = Some(format!("not used: {why}"));
            }
        }
    }

    /// The main window of the files with wall-clock times (else of all): files outside it
    /// are another capture; files with inferred times are kept when their day meets it.
    /// The untimed reports are then placed at the window's start.
    fn exclude_outside_window(&mut self) -> Option<Window> {
        let clocks = self.clocks();
        let timed = main_window(&clocks, |_, c| !c.anchoring.is_inferred());
        let window = timed.clone().or_else(|| main_window(&clocks, |_, _| true));
        if let Some(w) = &window {
            for (i, x) in self.inputs.iter_mut().enumerate() {
                if let Some(c) = &x.clock {
                    x.excluded = !(w.members.contains(&i) || (c.anchoring.is_inferred() && w.meets(c)));
                }
            }
        }
        if let Some(w) = &timed {
            self.shared.bundle_start = Some(w.start);
            // Untimed reports start with the bundle, not at their banner's midnight.
            self.anchor_pass(|_, c| c.is_some_and(|c| c.anchoring == Anchoring::BannerDateInterval));
        }
        window
    }

    /// Anchors the files `which` selects (by file and current clock).
    fn anchor_pass(&mut self, which: impl Fn(&ParsedFile, Option<&FileClock>) -> bool) {
        for (i, (f, x)) in self.files.iter().zip(self.inputs.iter_mut()).enumerate() {
            if x.excluded || !which(f, x.clock.as_ref()) {
                continue;
            }
            let mut r = Range::default();
            let anchored = x.visit(i, f, &self.shared, &mut self.effects, &mut self.warnings, &mut r);
            let cadence = Cadence::new(std::mem::take(&mut r.instants));
            if let Some(f) = r.open_first {
                // The first sample covers the gap before it.
                r.see(f - cadence.interval_before(f));
            }
            x.cadence = cadence.typical().map(|_| cadence);
            x.seen = Seen {
                devices: std::mem::take(&mut r.devices),
                times: std::mem::take(&mut r.times),
                threads: std::mem::take(&mut r.threads),
            };
            if let Some((a, u)) = anchored
                && r.any
            {
                x.clock = Some(FileClock { anchoring: a, uncertainty_s: u, first: r.first, last: r.last });
            }
        }
    }

    /// A warning for each kept file whose times were inferred.
    fn warn_inferred(&mut self) {
        for (f, x) in self.files.iter().zip(&self.inputs) {
            let Some(c) = x.clock.filter(|c| c.anchoring.is_inferred() && !x.excluded) else { continue };
            // Inferred: placed at the bundle's start or at its banner's midnight.
            let at = if c.anchoring == Anchoring::BundleStartInterval {
                "at the bundle's start"
            } else {
                "at midnight of its banner date"
            };
            self.warnings.push(format!(
                "{}: no time stamps in the file (iostat without -t): its reports were placed {at}, one interval apart (1 s when unknown); these times are inferred, not read (tables mark them in a time_inferred column)",
                f.name
            ));
        }
    }

    /// The perf time offset ([`crate::clock::perf::offset`]) from the bundle's perf files,
    /// clock references and chosen iostat.
    fn find_perf_offset(&mut self) -> Option<crate::clock::perf::PerfOffset> {
        let perfs: Vec<(&str, &iosift_parsers::perf_script::PerfScript)> =
            self.files.iter().filter_map(|f| source::perf(f).map(|p| (f.name.as_str(), p))).collect();
        let refs: Vec<(&str, &iosift_parsers::clock_reference::ClockReference)> = self
            .files
            .iter()
            .filter_map(|f| source::clock_reference(f).map(|c| (f.name.as_str(), c)))
            .collect();
        let io = || self.iostat_write_series();
        let mut warnings = Vec::new();
        let found = crate::clock::perf::offset(&perfs, &refs, io, &mut warnings);
        self.warnings.append(&mut warnings);
        found
    }

    /// Per-epoch-second write bytes of the busiest device of the chosen iostat file.
    fn iostat_write_series(&self) -> Option<BTreeMap<i64, f64>> {
        let (f, io) = (0..self.files.len())
            .filter(|i| self.inputs[*i].uses.contains(&Measure::DeviceIo))
            .find_map(|i| source::iostat(&self.files[i]).map(|io| (&self.files[i], io)))?;
        // The busiest device: from the summary of a file read without keeping its reports
        // (no second reading), else from the reports kept.
        let mut totals: BTreeMap<std::sync::Arc<str>, f64> = BTreeMap::new();
        match &io.drained {
            Some(d) => totals.clone_from(&d.write_sums),
            None => {
                for r in &io.reports {
                    r.add_write_sums(&mut totals);
                }
            }
        }
        let dev = totals.iter().max_by(|a, b| a.1.total_cmp(b.1))?.0.clone();
        let mut out = BTreeMap::new();
        let mut roller = Some(DayRoller::maybe(io.banner.as_ref().and_then(|b| b.date)));
        source::each_iostat_report(f, io, |rep| {
            if rep.since_boot {
                return;
            }
            let Some((e, _)) =
                rep.stamp.as_ref().and_then(|s| source::stamp_epoch(s, self.shared.zone, roller.as_mut()))
            else {
                return;
            };
            for d in rep.devices.iter().filter(|d| *d.device == *dev) {
                if let Some(w) = d.m.w_bytes_s() {
                    out.insert(e.round() as i64 - 1, w);
                }
            }
        });
        (!out.is_empty()).then_some(out)
    }

    /// More than [`MAX_DEVICES`] devices in the files kept: only the busiest are
    /// given timeline columns, and a warning names how many were left out.
    fn bound_devices(&mut self) {
        let mut total: BTreeMap<&str, f64> = BTreeMap::new();
        for x in self.inputs.iter().filter(|x| !x.excluded) {
            for (name, b) in &x.seen.devices {
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
    pub(crate) fn device_count(&self) -> usize {
        match &self.keep_devices {
            Some(k) => k.len(),
            None => {
                let mut all: BTreeSet<&str> = BTreeSet::new();
                for x in self.inputs.iter().filter(|x| !x.excluded) {
                    all.extend(x.seen.devices.keys().map(String::as_str));
                }
                all.len()
            }
        }
    }

    /// The instants of the points of the files kept (for the densest window of a long span).
    pub(crate) fn sample_instants(&self) -> Vec<f64> {
        let mut out = Vec::new();
        for x in self.inputs.iter().filter(|x| x.clock.is_some() && !x.excluded) {
            out.extend_from_slice(&x.seen.times);
        }
        out.sort_by(f64::total_cmp);
        out
    }

    /// The finest sampling of the files kept: the smallest, over the files with at least
    /// 20 samples, of the gap that 95 % of a file's consecutive samples are at least apart.
    /// A file whose fine run is 5 % of its samples or more counts as fine (an hour at 1 s
    /// next to a month at 10 minutes: 3,600 of 7,920 samples); a few short gaps (a
    /// collector restarted) do not. `None` when no file has that many samples.
    pub(crate) fn finest_cadence(&self) -> Option<f64> {
        let mut finest: Option<f64> = None;
        for x in &self.inputs {
            if x.clock.is_none() || x.excluded || x.seen.times.len() < 20 {
                continue;
            }
            let mut t = x.seen.times.clone();
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
    fn note_excluded(&mut self, w: &Window) {
        let t = |e: f64| crate::clock::epoch_rfc3339(e.floor()).unwrap_or_default();
        let mut names = Vec::new();
        for (f, x) in self.files.iter().zip(self.inputs.iter_mut()) {
            let Some(c) = x.clock.filter(|_| x.excluded) else { continue };
            x.note = Some(format!(
                "left out of the timeline: its times ({} .. {}) do not overlap the bundle's main window ({} .. {}); analyze it on its own",
                t(c.first),
                t(c.last),
                t(w.start),
                t(w.end)
            ));
            names.push(f.name.clone());
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

    /// Every point file `i` contributes, at its own time and interval, with every
    /// entity (all devices and threads, not only those the timeline keeps): the
    /// per-source tables of `iosift tables`.
    pub(crate) fn emitted(&mut self, i: usize) -> Vec<(f64, String, f64, f64)> {
        let mut out = Vec::new();
        let x = &mut self.inputs[i];
        let cadence = x.cadence.take();
        let mut sink = Collect { out: &mut out, cadence: cadence.as_ref() };
        x.visit(i, &self.files[i], &self.shared, &mut self.effects, &mut self.warnings, &mut sink);
        x.cadence = cadence;
        out.retain(|(_, n, _, _)| !n.ends_with(".seen"));
        out
    }
}
