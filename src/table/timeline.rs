//! The timeline every source is binned onto: one row per UTC second (or per bin of
//! [`Timeline::bin`] seconds, for a capture of days sampled coarsely) from the bundle's
//! first to its last anchored second, one column per metric. Missing data stays a gap
//! ([`Cell::GAP`]), never zero, and nothing is interpolated.
//!
//! A row of a wider bin holds what a one-second row would, averaged over its seconds: a
//! rate is the mean rate over the bin (each rate counts for the seconds of the bin it
//! covers), an event count is per second, and a gauge is its last sample in the bin.

use super::Cell;
use super::columns::{Col, Unit};
use std::collections::BTreeMap;

/// Longest interval (seconds) whose rate is spread over every second it covers
/// (an hour: `pidstat 1800` reports a rate over 30 minutes, and it covers them).
pub const MAX_FILL_S: f64 = 3600.0;

/// Most rows of a timeline (one week of seconds).
pub const MAX_LEN: usize = 7 * 24 * 3600;

/// Most cells (rows x columns) a timeline is planned for: 32 Mi, 256 MiB at 8 bytes a
/// [`Cell`] (512 MiB when cells were 16-byte `Option<f64>`). A 40-device iostat with one file 6 days later made a 6-day timeline of 800
/// columns (8 GB).
pub const MAX_CELLS: usize = 32 << 20;

/// Shortest cap [`max_len`] gives (six hours).
pub const MIN_CAP: usize = 6 * 3600;

/// The longest timeline for about `columns` columns: [`MAX_CELLS`] / `columns`,
/// between [`MIN_CAP`] and [`MAX_LEN`].
pub fn max_len(columns: usize) -> usize {
    (MAX_CELLS / columns.max(1)).clamp(MIN_CAP, MAX_LEN)
}

/// One metric column.
#[derive(Debug, Clone)]
pub struct Series {
    /// Values per second (a gap where no data).
    pub values: Vec<Cell>,
    /// Unit of the values.
    pub unit: Unit,
    /// The input file it came from.
    pub source: String,
}

impl Series {
    /// A column of `len` gaps in `unit`, from `source`.
    pub fn gaps(len: usize, unit: Unit, source: &str) -> Self {
        Series { values: vec![Cell::GAP; len], unit, source: source.to_string() }
    }
}

/// Per-second metrics on one UTC clock.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// Epoch second of row 0.
    pub t0: i64,
    /// Number of rows.
    pub len: usize,
    /// Seconds per row; 0 and 1 both mean one-second rows (see [`Timeline::bin`]).
    pub bin_s: u32,
    /// The columns (`dev.vda.w_bytes_s`, `mem.dirty_bytes`, ...); read them in name
    /// order with [`Timeline::iter`].
    columns: BTreeMap<Col, Series>,
    /// Values the setters refused as not finite or implausible for their unit, per column.
    rejected: BTreeMap<Col, Rejected>,
    /// Columns being filled whose survival is decided once the fill is over (the per-thread
    /// candidates, of which only the busiest stay); [`Timeline::unstage`] turns the kept
    /// ones into columns.
    staged: BTreeMap<Col, Series>,
}

/// Values of one column left out as implausible (they stay gaps).
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    /// The input file.
    pub source: String,
    /// The column's unit.
    pub unit: Unit,
    /// How many values.
    pub count: usize,
    /// The first one, and the epoch second it was for.
    pub first: (f64, f64),
}

/// The range a value of a unit can take on any real machine. A value outside it (or
/// not finite) is a counter wrap, a damaged line or a parser's overflow: it becomes a
/// gap, with a warning, so no chart or rule ever sees it (an `await` of 1.7e308 made
/// the chart library loop forever; a `wkB/s` of 1.8e19 from a wrap made a 1.8e22-byte burst).
pub fn plausible(unit: Unit, v: f64) -> bool {
    let (lo, hi) = match unit {
        // 1 TB/s: more than any host's storage or network.
        Unit::BytesPerS => (0.0, 1e12),
        // 10 PB: more than any page cache, log or backlog.
        Unit::Bytes => (0.0, 1e16),
        // Ten thousand million events a second.
        Unit::PerS => (0.0, 1e10),
        // Eleven days of latency.
        Unit::Ms => (0.0, 1e9),
        // Per-thread CPU on 10,000 cores; slightly negative rounding of deltas is kept.
        Unit::Pct => (-1.0, 1e6),
        // Thirty years (replica lag; negative with clock skew).
        Unit::S => (-1e9, 1e9),
        Unit::One => (-1e12, 1e12),
    };
    v.is_finite() && (lo..=hi).contains(&v)
}

/// The entries of `map` in name order (the order of the tables and snapshots: `Col`'s own
/// order is by family, then entity).
fn by_name<V>(map: &BTreeMap<Col, V>) -> Vec<(&Col, &V)> {
    let mut v: Vec<(&Col, &V)> = map.iter().collect();
    v.sort_by_cached_key(|(c, _)| c.name());
    v
}

impl Timeline {
    /// A timeline of one-second rows covering epoch seconds `[start, end]` (capped at [`MAX_LEN`]).
    pub fn new(start: f64, end: f64) -> Self {
        Self::binned(start, end, 1)
    }

    /// A timeline of rows of `bin` seconds covering epoch seconds `[start, end]` (capped
    /// at [`MAX_LEN`] rows); row 0 starts at `start`'s second.
    pub fn binned(start: f64, end: f64, bin: u32) -> Self {
        let bin = bin.max(1);
        let t0 = start.floor() as i64;
        let seconds = (end.ceil() as i64 - t0 + 1).max(1) as u64;
        let len = seconds.div_ceil(u64::from(bin)) as usize;
        Timeline { t0, len: len.min(MAX_LEN), bin_s: bin, ..Timeline::default() }
    }

    /// An empty timeline of `len` one-second rows from epoch second `t0`.
    pub fn rows(t0: i64, len: usize) -> Self {
        Timeline { t0, len, ..Timeline::default() }
    }

    /// Seconds per row (1 unless the capture was binned wider).
    pub fn bin(&self) -> i64 {
        i64::from(self.bin_s.max(1))
    }

    /// Seconds the timeline covers (rows x [`Timeline::bin`]).
    pub fn seconds(&self) -> i64 {
        self.len as i64 * self.bin()
    }

    /// Row of an epoch time, if inside.
    pub fn row(&self, epoch: f64) -> Option<usize> {
        let s = epoch.floor() as i64 - self.t0;
        if s < 0 {
            return None;
        }
        let r = (s / self.bin()) as usize;
        (r < self.len).then_some(r)
    }

    /// Epoch second of a row (the first second of its bin).
    pub fn epoch(&self, row: usize) -> i64 {
        // Saturating: a damaged stamp near the end of time must not overflow a chart's axis.
        self.t0.saturating_add((row as i64).saturating_mul(self.bin()))
    }

    /// The column, created empty (in the column's unit) on first use.
    pub fn column_mut(&mut self, col: &Col, source: &str) -> &mut Series {
        column_in(&mut self.columns, self.len, col, source)
    }

    /// A column's values.
    pub fn get(&self, col: &Col) -> Option<&[Cell]> {
        self.columns.get(col).map(|s| s.values.as_slice())
    }

    /// A column with its unit and source.
    pub fn series(&self, col: &Col) -> Option<&Series> {
        self.columns.get(col)
    }

    /// A column with its key as stored (borrowed for as long as the timeline).
    pub fn entry(&self, col: &Col) -> Option<(&Col, &Series)> {
        self.columns.get_key_value(col)
    }

    /// Adds (or replaces) a whole column.
    pub fn insert(&mut self, col: Col, series: Series) {
        self.columns.insert(col, series);
    }

    /// Keeps the columns `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(&Col) -> bool) {
        self.columns.retain(|c, _| keep(c));
    }

    /// Every column, in name order (`cpu.0.busy_pct` before `cpu.idle_pct`, `thr.15575`
    /// before `thr.2`): the order of the tables, the snapshots and "the first column".
    pub fn iter(&self) -> impl Iterator<Item = (&Col, &Series)> {
        by_name(&self.columns).into_iter()
    }

    /// Every column in no particular order (sums and searches over all columns).
    pub fn series_any_order(&self) -> impl Iterator<Item = &Series> {
        self.columns.values()
    }

    /// Number of columns.
    pub fn column_count(&self) -> usize {
        self.columns.len()
    }

    /// The values refused as implausible, per column, in name order.
    pub fn rejected(&self) -> Vec<(&Col, &Rejected)> {
        by_name(&self.rejected)
    }

    /// True while columns are staged (see [`Timeline::set_rate_staged`]).
    pub fn has_staged(&self) -> bool {
        !self.staged.is_empty()
    }

    /// False (and the value counted in [`Timeline::rejected`]) when `v` is not
    /// [`plausible`] for `col`'s unit.
    fn accept(&mut self, col: &Col, source: &str, epoch: f64, v: f64) -> bool {
        let unit = col.unit();
        if plausible(unit, v) {
            return true;
        }
        if !self.rejected.contains_key(col) {
            let r = Rejected { source: source.to_string(), unit, count: 0, first: (v, epoch) };
            self.rejected.insert(col.clone(), r);
        }
        if let Some(r) = self.rejected.get_mut(col) {
            r.count += 1;
        }
        false
    }

    /// One warning per column with values left out as implausible.
    pub fn rejected_warnings(&self) -> Vec<String> {
        self.rejected()
            .into_iter()
            .map(|(col, r)| {
                let at = chrono::DateTime::from_timestamp(r.first.1.floor() as i64, 0)
                    .map(|d| format!(" at {}", d.format("%Y-%m-%dT%H:%M:%SZ")))
                    .unwrap_or_default();
                format!(
                    "{}: {} value{} of {col} left out as impossible for {} (first {:e}{at}): a counter wrap or a damaged line; they are gaps",
                    r.source,
                    r.count,
                    if r.count == 1 { "" } else { "s" },
                    r.unit,
                    r.first.0
                )
            })
            .collect()
    }

    /// Sets a gauge sampled at `epoch`.
    pub fn set_gauge(&mut self, col: &Col, source: &str, epoch: f64, v: f64) {
        if !self.accept(col, source, epoch, v) {
            return;
        }
        if let Some(r) = self.row(epoch) {
            self.column_mut(col, source).values[r] = Cell::some(v);
        }
    }

    /// Spreads a rate measured over `(end - interval, end]` onto the seconds it
    /// covers (a 1 s report stamped 19:37:20 describes second 19:37:19).
    pub fn set_rate(&mut self, col: &Col, source: &str, end: f64, interval: f64, v: f64) {
        if !self.accept(col, source, end, v) {
            return;
        }
        let secs = self.rate_seconds(end, interval);
        if secs.is_empty() {
            return;
        }
        let (t0, bin) = (self.t0, self.bin());
        spread(&mut self.column_mut(col, source).values, t0, bin, secs, v);
    }

    /// The epoch seconds a rate stamped `end` over `interval` seconds covers:
    /// `(end - interval, end]`, at most [`MAX_FILL_S`], 1 s when the interval is unusable,
    /// clipped to the timeline.
    fn rate_seconds(&self, end: f64, interval: f64) -> std::ops::Range<i64> {
        if !end.is_finite() {
            return 0..0;
        }
        let interval = if interval.is_finite() && interval > 0.0 { interval.min(MAX_FILL_S) } else { 1.0 };
        let first = (end - interval).round() as i64;
        let last = end.round() as i64 - 1;
        let end_s = self.t0.saturating_add(self.seconds());
        let lo = first.clamp(self.t0, end_s);
        let hi = last.saturating_add(1).clamp(self.t0, end_s);
        lo..hi.max(lo)
    }

    /// [`Timeline::set_rate`] into a staged column (see [`Timeline::staged`]).
    pub fn set_rate_staged(&mut self, col: &Col, source: &str, end: f64, interval: f64, v: f64) {
        if !self.accept(col, source, end, v) {
            return;
        }
        let secs = self.rate_seconds(end, interval);
        if secs.is_empty() {
            return;
        }
        let (t0, bin) = (self.t0, self.bin());
        spread(&mut column_in(&mut self.staged, self.len, col, source).values, t0, bin, secs, v);
    }

    /// Ends staging: the staged columns `keep` accepts become columns, the others are dropped.
    pub fn unstage(&mut self, keep: impl Fn(&Col) -> bool) {
        for (col, s) in std::mem::take(&mut self.staged) {
            if keep(&col) {
                self.columns.insert(col, s);
            }
        }
    }

    /// Adds `v` to the second containing `epoch` (event counts and sums); in a wider bin,
    /// `v` over the bin's seconds, so that a row stays a count per second.
    pub fn add_event(&mut self, col: &Col, source: &str, epoch: f64, v: f64) {
        if !self.accept(col, source, epoch, v) {
            return;
        }
        if let Some(r) = self.row(epoch) {
            let per_second = v / self.bin() as f64;
            self.column_mut(col, source).values[r].add(per_second);
        }
    }

    /// Makes an event-count column dense (0 where no event) between the first and last
    /// seconds the source covered: for events, absence within coverage means zero.
    pub fn zero_fill(&mut self, col: &Col, from: f64, to: f64) {
        let (Some(a), Some(b)) = (self.row(from), self.row(to)) else { return };
        if let Some(col) = self.columns.get_mut(col) {
            for v in &mut col.values[a..=b] {
                if v.is_none() {
                    *v = Cell::some(0.0);
                }
            }
        }
    }

    /// Number of seconds holding a value in any column of `source` (coverage checks): its
    /// rows times [`Timeline::bin`].
    pub fn seconds_covered(&self, source: &str) -> usize {
        let rows = (0..self.len)
            .filter(|&r| self.columns.values().any(|s| s.source == source && s.values[r].is_some()))
            .count();
        rows * self.bin() as usize
    }
}

/// Adds a rate `v` over the epoch seconds `secs` (from [`Timeline::rate_seconds`]) to the
/// cells `col` of a timeline starting at `t0` with rows of `bin` seconds: each row gets `v`
/// times the share of its bin the seconds cover (`v` itself for one-second rows).
fn spread(col: &mut [Cell], t0: i64, bin: i64, secs: std::ops::Range<i64>, v: f64) {
    if bin == 1 {
        let (lo, hi) = ((secs.start - t0) as usize, (secs.end - t0) as usize);
        for x in &mut col[lo..hi] {
            x.add(v);
        }
        return;
    }
    let mut s = secs.start;
    while s < secs.end {
        let r = (s - t0) / bin;
        let next = (t0 + (r + 1) * bin).min(secs.end);
        col[r as usize].add(v * (next - s) as f64 / bin as f64);
        s = next;
    }
}

/// The column `col` of `map`, made of `len` gaps in the column's unit when absent: the key
/// is cloned only then (the setters run once per value of every file).
fn column_in<'m>(map: &'m mut BTreeMap<Col, Series>, len: usize, col: &Col, source: &str) -> &'m mut Series {
    if !map.contains_key(col) {
        map.insert(col.clone(), Series::gaps(len, col.unit(), source));
    }
    map.get_mut(col).expect("inserted above")
}

/// The sampling cadence of one source: its distinct sample instants. A rate
/// stamped at an instant was measured since the previous one, so it covers
/// that gap; the first sample of a run (and one after a pause) covers the
/// source's typical gap instead.
///
/// This is what spreads a `pidstat -h` row or a `dstat 5` row over its whole
/// interval: those formats print only the end of each interval.
#[derive(Debug, Clone, Default)]
pub struct Cadence {
    instants: Vec<f64>,
    typical: Option<f64>,
}

impl Cadence {
    /// The cadence of sample instants in any order (duplicates are one sample).
    pub fn new(mut instants: Vec<f64>) -> Self {
        instants.retain(|t| t.is_finite());
        instants.sort_by(f64::total_cmp);
        instants.dedup();
        let mut gaps: Vec<f64> = instants.windows(2).map(|w| w[1] - w[0]).filter(|g| *g > 0.0).collect();
        gaps.sort_by(f64::total_cmp);
        let typical = gaps.get(gaps.len().saturating_sub(1) / 2).copied().filter(|g| *g <= MAX_FILL_S);
        Cadence { instants, typical }
    }

    /// The median gap between samples (`None` with fewer than two samples).
    pub fn typical(&self) -> Option<f64> {
        self.typical
    }

    /// The first sample instant.
    pub fn first(&self) -> Option<f64> {
        self.instants.first().copied()
    }

    /// The seconds a rate stamped `end` covers: the gap since the previous
    /// sample when it is at most twice the typical gap (pidstat and dstat wake
    /// late under load, and their rates are over the real elapsed time), else the
    /// typical gap (a run's first sample, or the sample after a pause); 1 s when
    /// the source has a single sample.
    ///
    /// Samples less than a tenth of the typical gap apart are one report whose
    /// printing crossed a second (`pidstat -h` of the mw2q capture prints 37 rows
    /// at `1448483788` and the other 78 of the same report at `1448483789`).
    pub fn interval_before(&self, end: f64) -> f64 {
        let Some(typical) = self.typical else { return 1.0 };
        let jitter = typical / 10.0;
        let i = self.instants.partition_point(|t| *t < end - jitter);
        match i.checked_sub(1).and_then(|k| self.instants.get(k)) {
            Some(prev) if end - prev <= 2.0 * typical => end - prev,
            _ => typical,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::columns::{DevMetric, MemMetric, PerfMetric, VmCounter};

    /// Columns of the tests: rates in `1/s` and `B/s`, a gauge in `B`.
    fn x() -> Col {
        Col::Vm(VmCounter::NrDirtiedS)
    }
    fn y() -> Col {
        Col::Vm(VmCounter::NrWrittenS)
    }
    fn e() -> Col {
        Col::Perf(PerfMetric::FsyncSamplesS)
    }
    fn w(d: &str) -> Col {
        Col::Dev(d.into(), DevMetric::WBytesS)
    }
    fn g() -> Col {
        Col::Mem(MemMetric::DirtyBytes)
    }

    #[test]
    fn rates_cover_their_interval() {
        let mut t = Timeline::new(100.0, 110.0);
        t.set_rate(&x(), "f", 103.0, 1.0, 5.0);
        assert_eq!(t.get(&x()).unwrap()[2], Some(5.0));
        assert_eq!(t.get(&x()).unwrap()[3], None);
        t.set_rate(&y(), "f", 106.0, 3.0, 2.0);
        assert_eq!(&t.get(&y()).unwrap()[3..7], &[Some(2.0), Some(2.0), Some(2.0), None]);
        t.add_event(&e(), "f", 101.5, 1.0);
        t.zero_fill(&e(), 100.0, 102.0);
        assert_eq!(&t.get(&e()).unwrap()[..4], &[Some(0.0), Some(1.0), Some(0.0), None]);
    }

    #[test]
    fn a_wider_bin_holds_the_mean_rate_the_events_per_second_and_the_last_gauge() {
        // Rows of 60 s from 1000: [1000, 1060), [1060, 1120), [1120, 1180).
        let mut t = Timeline::binned(1000.0, 1170.0, 60);
        assert_eq!((t.len, t.bin(), t.seconds()), (3, 60, 180));
        assert_eq!(
            (t.row(999.0), t.row(1000.0), t.row(1059.9), t.row(1060.0), t.row(1180.0)),
            (None, Some(0), Some(0), Some(1), None)
        );
        assert_eq!(t.epoch(2), 1120);
        // A 60 s rate stamped 1090 covers (1030, 1090]: half of row 0, half of row 1.
        t.set_rate(&w("w"), "f", 1090.0, 60.0, 10.0);
        // The next one covers (1090, 1150]: the other half of row 1, half of row 2.
        t.set_rate(&w("w"), "f", 1150.0, 60.0, 30.0);
        assert_eq!(t.get(&w("w")).unwrap(), &[Cell::some(5.0), Cell::some(20.0), Cell::some(15.0)]);
        t.set_rate_staged(&w("s"), "f", 1150.0, 60.0, 30.0);
        t.unstage(|_| true);
        assert_eq!(t.get(&w("s")).unwrap(), &[Cell::GAP, Cell::some(15.0), Cell::some(15.0)]);
        // Three events in row 1 are 3/60 per second; a gauge keeps its last sample.
        for at in [1061.0, 1100.0, 1119.5] {
            t.add_event(&e(), "f", at, 1.0);
        }
        assert_eq!(t.get(&e()).unwrap()[1], Cell::some(0.05));
        t.set_gauge(&g(), "f", 1065.0, 7.0);
        t.set_gauge(&g(), "f", 1110.0, 9.0);
        assert_eq!(t.get(&g()).unwrap()[1], Cell::some(9.0));
        assert_eq!(t.seconds_covered("f"), 180);
        // A rate before the timeline counts only for the seconds inside it.
        let mut t = Timeline::binned(1000.0, 1119.0, 60);
        t.set_rate(&w("w"), "f", 1030.0, 60.0, 8.0);
        assert_eq!(t.get(&w("w")).unwrap(), &[Cell::some(4.0), Cell::GAP]);
        // One-second rows are the default.
        assert_eq!((Timeline::new(5.0, 9.0).bin(), Timeline::default().bin()), (1, 1));
    }

    #[test]
    fn staged_rates_match_set_rate_and_only_kept_columns_stay() {
        let mut t = Timeline::new(100.0, 110.0);
        for (end, interval, v) in [
            (103.0, 1.0, 5.0),
            (106.0, 3.0, 2.0),
            (106.0, 2.0, 1.0),
            (101.5, 2.0, 7.0),
            (98.0, 1.0, 4.0),
            (130.0, 1.0, 1.0),
        ] {
            t.set_rate(&w("a"), "f", end, interval, v);
            t.set_rate_staged(&w("b"), "f", end, interval, v);
            t.set_rate_staged(&w("c"), "f", end, interval, v);
        }
        t.set_rate_staged(&w("b"), "f", 104.0, 1.0, f64::INFINITY);
        t.unstage(|c| *c == w("b"));
        assert!(!t.has_staged() && t.get(&w("c")).is_none());
        assert_eq!(t.get(&w("a")), t.get(&w("b")));
        assert_eq!(
            &t.get(&w("b")).unwrap()[..7],
            &[Some(7.0), Some(7.0), Some(5.0), Some(2.0), Some(3.0), Some(3.0), None]
        );
        assert_eq!(t.rejected()[0].1.count, 1);
    }

    #[test]
    fn impossible_values_become_gaps_with_a_warning() {
        let mut t = Timeline::new(100.0, 110.0);
        t.set_rate(&w("vda"), "iostat.txt", 103.0, 1.0, 1.8e19);
        t.set_rate(&w("vda"), "iostat.txt", 104.0, 1.0, 5e6);
        t.set_gauge(&Col::Dev("vda".into(), DevMetric::WAwaitMs), "iostat.txt", 104.0, 1.7e308);
        t.set_gauge(&Col::Dev("vda".into(), DevMetric::WAwaitMs), "iostat.txt", 105.0, f64::NAN);
        t.add_event(&x(), "perf", 105.0, f64::INFINITY);
        assert_eq!(&t.get(&w("vda")).unwrap()[2..4], &[None, Some(5e6)]);
        assert!(t.get(&Col::Dev("vda".into(), DevMetric::WAwaitMs)).is_none() && t.get(&x()).is_none());
        let w = t.rejected_warnings();
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(
            w[0].starts_with("iostat.txt: 2 values of dev.vda.w_await_ms") && w[0].contains("1.7e308"),
            "{w:?}"
        );
        assert!(
            w[1].contains("dev.vda.w_bytes_s") && w[1].contains("1.8e19 at 1970-01-01T00:01:43Z"),
            "{w:?}"
        );
        assert!(
            plausible(Unit::Pct, 1600.0)
                && plausible(Unit::BytesPerS, 3e9)
                && !plausible(Unit::BytesPerS, -5.0)
        );
    }

    #[test]
    fn cadence_covers_gaps_and_first_samples() {
        // pidstat -h epochs of the mw2q capture: 61, 77 and 45 s apart, then a pause.
        let c = Cadence::new(vec![
            1448481565.0,
            1448481504.0,
            1448481642.0,
            1448481687.0,
            1448481687.0,
            1448490000.0,
        ]);
        assert_eq!(c.typical(), Some(61.0));
        assert_eq!(c.interval_before(1448481504.0), 61.0);
        assert_eq!(c.interval_before(1448481642.0), 77.0);
        assert_eq!(c.interval_before(1448481687.0), 45.0);
        assert_eq!(c.interval_before(1448490000.0), 61.0);
        // Printed one second late: still the interval since the previous report.
        assert_eq!(c.interval_before(1448481643.0), 78.0);
        assert_eq!(Cadence::new(vec![5.0]).interval_before(5.0), 1.0);
        let mut t = Timeline::new(1448481443.0, 1448481504.0);
        t.set_rate(&w("w"), "f", 1448481504.0, c.interval_before(1448481504.0), 1.0);
        assert_eq!(t.seconds_covered("f"), 61);
    }
}
