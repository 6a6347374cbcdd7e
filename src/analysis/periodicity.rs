//! Periodicity of the main device's writes: bursts of the dominant size class,
//! their period, phase and confidence found from the series alone (the spacing of
//! their onsets, [`period::train_period`]; the autocorrelation when there are too few),
//! the periodogram, and the other series (dirty memory, threads, write-source
//! categories) sharing the period. Only once the period is found is it tested
//! against the kernel's intervals ([`Tunables::classify`]): the flusher's wake-up,
//! the writeback window, the journal's commit, or none (an application's timer).
//! The tunables never choose the period: bursts a constant 12 s apart are "every
//! 12 s" even when 36 s is the writeback window.

use crate::table::Cell;

use super::bursts::{self, Burst};
use super::period::{self, Event, Period, Train};
use super::stats;
use super::writeback::{PeriodMatch, Tunables, WritebackWindow};
use crate::table::Timeline;
use crate::table::columns::{Col, MemMetric};
use serde::Serialize;

/// Periodicity results for the report.
#[derive(Debug, Clone, Serialize)]
pub struct PeriodicityView {
    /// The series analysed.
    pub series: Col,
    /// Bursts found on it (merged into episodes when the period was found on those).
    pub bursts: Vec<Burst>,
    /// Burst threshold used; NaN when the bursts were found over the series' local floor
    /// ([`crate::analysis::bursts::detect_over_floor`]), which has one per second.
    pub threshold: f64,
    /// Detected period, seconds.
    pub period_s: Option<f64>,
    /// Confidence 0..1.
    pub confidence: Option<f64>,
    /// Where the period's beats fall: the first periodic burst's onset modulo the period,
    /// seconds from the series start.
    pub phase_s: Option<f64>,
    /// How the period was found (`burst-intervals`, `flush episodes`, `autocorrelation`).
    pub method: Option<String>,
    /// Autocorrelation by lag (index = lag in seconds).
    pub acf: Vec<f64>,
    /// Periodogram: (period seconds, normalised power).
    pub periodogram: Vec<(f64, f64)>,
    /// Expected writeback window: dirty_expire + dirty_writeback, seconds, and whether from the capture.
    pub writeback_window_s: Option<(f64, bool)>,
    /// The flusher's wake-up interval (dirty_writeback), seconds.
    pub flusher_interval_s: Option<f64>,
    /// The journal's commit interval of the device's file system, seconds, and whether the
    /// capture's mount table gave it; `None` when its file system has none.
    pub journal_commit_s: Option<(f64, bool)>,
    /// The kernel interval the period matches, tested after it was found: the nearest of
    /// those it matches, or [`PeriodMatch::None`] (an application's timer); `None` without
    /// a period.
    pub period_match: Option<PeriodMatch>,
    /// The other kernel intervals the period matches as well (the flusher's interval and
    /// the journal's commit are both 5 s by default).
    pub also_matches: Vec<PeriodMatch>,
    /// Other series sharing the period: (column, period_s, confidence).
    pub shared_with: Vec<(String, f64, f64)>,
    /// When the period is carried by some of the bursts only (a timer's flushes among
    /// other writers' bursts): the indices in `bursts` of those; empty when every burst
    /// carries the period.
    pub chain: Vec<usize>,
}

impl PeriodicityView {
    /// The view of `series` before any analysis: no bursts, no period.
    pub fn of(series: Col) -> Self {
        PeriodicityView {
            series,
            bursts: Vec::new(),
            threshold: 0.0,
            period_s: None,
            confidence: None,
            phase_s: None,
            method: None,
            acf: Vec::new(),
            periodogram: Vec::new(),
            writeback_window_s: None,
            flusher_interval_s: None,
            journal_commit_s: None,
            period_match: None,
            also_matches: Vec::new(),
            shared_with: Vec::new(),
            chain: Vec::new(),
        }
    }

    /// True when the writes carry the writeback period: a period matching `window` at a
    /// confidence of 0.5 or more.
    pub fn is_writeback(&self, window: WritebackWindow) -> bool {
        matches!((self.period_s, self.confidence), (Some(p), Some(c)) if window.matches(p) && c >= 0.5)
    }

    /// True when a period was found with the confidence the rules act on (0.5), whatever
    /// it matches.
    pub fn is_periodic(&self) -> bool {
        matches!((self.period_s, self.confidence), (Some(_), Some(c)) if c >= 0.5)
    }

    /// True when the period found matches kernel interval `m` (first or as well).
    pub fn matches(&self, m: PeriodMatch) -> bool {
        self.period_match == Some(m) || self.also_matches.contains(&m)
    }

    /// The bursts that carry the period: the chain's when there is one, else all.
    pub fn periodic_bursts(&self) -> Vec<&Burst> {
        if self.chain.is_empty() {
            self.bursts.iter().collect()
        } else {
            self.chain.iter().filter_map(|&i| self.bursts.get(i)).collect()
        }
    }

    /// The share of the bursts' bytes the [`Self::periodic_bursts`] hold (1 without bytes).
    pub fn periodic_share(&self) -> f64 {
        let all: f64 = self.bursts.iter().map(|b| b.total).sum();
        let held: f64 = self.periodic_bursts().iter().map(|b| b.total).sum();
        if all > 0.0 { held / all } else { 1.0 }
    }
}

/// The kernel intervals the period matches, for the report: "the writeback window (35 s)",
/// "the flusher's wake-up interval (5 s), the journal's commit interval (5 s)", "no kernel
/// interval (an application's timer)"; "-" without a period.
pub(crate) fn match_text(v: &PeriodicityView) -> String {
    let Some(first) = v.period_match else { return "-".into() };
    let seconds = |m: PeriodMatch| match m {
        PeriodMatch::FlusherInterval => v.flusher_interval_s,
        PeriodMatch::WritebackWindow => v.writeback_window_s.map(|w| w.0),
        PeriodMatch::JournalCommit => v.journal_commit_s.map(|j| j.0),
        PeriodMatch::None => None,
    };
    std::iter::once(first)
        .chain(v.also_matches.iter().copied())
        .map(|m| match seconds(m) {
            Some(s) => format!("{} ({s:.0} s)", m.label()),
            None => m.label().to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A burst counts when it holds at least this share of the typical large burst (the
/// median of the five largest): small spikes of other writers (a build, a log rotation)
/// would blur the period.
const DOMINANT_SHARE: f64 = 0.25;

/// Bursts merge into one episode where the gaps between them break: the gaps below the
/// largest jump between consecutive sorted gaps, when that jump is at least this factor.
/// One flush of expired pages can take several flusher wake-ups (a few seconds apart)
/// when the device cannot write it at once; the flushes themselves are much further apart.
const MERGE_BREAK: f64 = 2.5;

/// An episode's bytes begin where this share of its bytes above the baseline is written.
const MASS_ONSET: f64 = 0.1;

/// Two episodes make a period only when the smaller holds at least this share of the
/// larger: flushes of one file are of one size class.
const PAIR_SIZE_RATIO: f64 = 0.25;

/// Dirty memory must fall by at least this share of an episode's bytes above the baseline
/// for the episode to count as writeback of the page cache (the writers keep dirtying
/// during the flush, so the net drop is smaller than what was written).
const DIRTY_DROP: f64 = 0.25;

/// The smallest second a burst of the main device must write (bytes): a host's own
/// small writes (logs, journal commits of the root file system) are no burst.
pub(crate) const MIN_BURST_BYTES_S: f64 = 4.0 * 1024.0 * 1024.0;

/// The periodicity of timeline column `col`, its period tested against `tunables`.
pub(crate) fn periodicity(tl: &Timeline, col: &Col, tunables: &Tunables) -> PeriodicityView {
    periodicity_over(tl, col, tunables, MIN_BURST_BYTES_S)
}

/// [`periodicity`] with bursts of at least `min_abs` bytes in a second.
pub(crate) fn periodicity_over(
    tl: &Timeline,
    col: &Col,
    tunables: &Tunables,
    min_abs: f64,
) -> PeriodicityView {
    let series = tl.get(col).unwrap_or(&[]);
    let scan = bursts::detect(series, 8.0, 5.0, min_abs);
    let dirty = tl.get(&Col::Mem(MemMetric::DirtyBytes));
    let max_lag = (series.len() / 2).min(600);
    let acf = period::autocorrelation(series, max_lag);
    // A device that writes steadily (a database's floor of tens of MB/s) hides a flush of
    // twice its floor under the five-fold test; when that test finds too few bursts for a
    // period, the seconds standing out of their local floor are read too
    // ([`bursts::over_busy_floor`]).
    let floor = bursts::over_busy_floor(series, &scan, min_abs);
    let scans: Vec<bursts::BurstScan> = std::iter::once(scan).chain(floor).collect();
    // Up to four readings of each scan's bursts: merged into episodes where their gaps
    // break (when that merges any) or as detected, each starting where it starts or where
    // its bytes begin. The period is the most confident reading's; on a tie the first in
    // this order (a flush begins where its first wake-up writes).
    let mut sets = Vec::new();
    for (k, scan) in scans.iter().enumerate() {
        let raw = dominant(scan.bursts.clone());
        let merged = dominant(merge_at_break(&scan.bursts));
        if !same_spans(&merged, &raw) {
            sets.push((merged, "flush episodes (bursts at a break in their gaps merged)", k));
        }
        let how = if k == 0 { "burst-intervals" } else { "burst-intervals over a busy floor" };
        sets.push((raw, how, k));
    }
    let mut best: Option<(usize, Train)> = None;
    for (k, (set, how, scan)) in sets.iter().enumerate() {
        for onset in [Onset::Start, Onset::Mass] {
            let Some(t) = train(set, series, &scans[*scan], dirty, onset) else { continue };
            // Over a busy floor, a pair is no period: the floor's own swings make pairs.
            if *scan > 0 && t.members.len() < 3 {
                continue;
            }
            if best.as_ref().is_none_or(|(_, b)| t.period.confidence > b.period.confidence + 1e-9) {
                best = Some((k, Train { period: Period { method: how, ..t.period }, ..t }));
            }
        }
    }
    // Without a period, the strict scan's last reading (its bursts as detected).
    let fallback = sets.iter().rposition(|s| s.2 == 0).unwrap_or(0);
    let (k, chosen) = best.map_or((fallback, None), |(k, t)| (k, Some(t)));
    let (bursts, _, scan_k) = sets.swap_remove(k);
    let scan = &scans[scan_k];
    let (period, chain, phase) = match chosen {
        Some(t) => {
            let chain = if t.members.len() < bursts.len() { t.members.clone() } else { Vec::new() };
            let phase = t.first_s.rem_euclid(t.period.period_s);
            (Some(t.period), chain, Some(phase))
        }
        // Fewer than two bursts (writes too small to stand out): the autocorrelation. Two
        // bursts that make no period have none: the autocorrelation would only see their spacing.
        None if bursts.len() < 2 => (period::acf_period(&acf, 3), Vec::new(), None),
        None => (None, Vec::new(), None),
    };
    let max_p = (series.len() as f64 / 2.0).clamp(10.0, 600.0) as usize;
    let periods: Vec<f64> = (4..=max_p).map(|x| x as f64).collect();
    let pg = period::periodogram(series, &periods);
    let shared = match &period {
        Some(c) => sharing(tl, c, max_lag),
        None => Vec::new(),
    };
    let matched = period.as_ref().map(|p| tunables.classify(p.period_s)).unwrap_or_default();
    let w = tunables.window;
    PeriodicityView {
        series: col.clone(),
        bursts,
        // Bursts found over a local floor have a threshold per second, none to draw.
        threshold: if scan.floors.is_empty() { scan.threshold } else { f64::NAN },
        period_s: period.as_ref().map(|c| c.period_s),
        confidence: period.as_ref().map(|c| c.confidence),
        phase_s: phase,
        method: period.as_ref().map(|c| c.method.to_string()),
        acf,
        periodogram: periods.into_iter().zip(pg).collect(),
        writeback_window_s: Some((w.seconds(), w.from_capture)),
        flusher_interval_s: Some(w.interval_s),
        journal_commit_s: tunables.journal_commit,
        period_match: matched.first().copied(),
        also_matches: matched.iter().skip(1).copied().collect(),
        shared_with: shared,
        chain,
    }
}

/// The bursts of the dominant size class ([`DOMINANT_SHARE`]).
fn dominant(mut bursts: Vec<Burst>) -> Vec<Burst> {
    let mut totals: Vec<f64> = bursts.iter().map(|b| b.total).collect();
    totals.sort_by(|a, b| b.total_cmp(a));
    if let Some(typical) = stats::median(&totals[..totals.len().min(5)]) {
        bursts.retain(|b| b.total >= DOMINANT_SHARE * typical);
    }
    bursts
}

/// Bursts merged into episodes at the natural break of their gaps ([`MERGE_BREAK`]):
/// bursts 5 s apart in pairs 30 s apart are 3 episodes; bursts evenly spaced stay apart.
pub(crate) fn merge_at_break(bursts: &[Burst]) -> Vec<Burst> {
    if bursts.len() < 3 {
        return bursts.to_vec();
    }
    let mut gaps: Vec<f64> = bursts.windows(2).map(|w| w[1].start.saturating_sub(w[0].end) as f64).collect();
    gaps.sort_by(f64::total_cmp);
    let mut cut: Option<(f64, f64)> = None;
    for g in gaps.windows(2) {
        let ratio = g[1] / g[0].max(1.0);
        if ratio >= MERGE_BREAK && cut.is_none_or(|(r, _)| ratio > r) {
            cut = Some((ratio, g[0]));
        }
    }
    match cut {
        Some((_, gap)) => episodes(bursts, gap),
        None => bursts.to_vec(),
    }
}

/// Where a burst begins for the period search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Onset {
    /// Its first second above the burst threshold.
    Start,
    /// Where [`MASS_ONSET`] of its bytes above the baseline are written: another writer's
    /// small writes chained in before a flush (a disk whose median rate is 0) do not move it.
    Mass,
}

/// True when two burst lists hold the same spans.
fn same_spans(a: &[Burst], b: &[Burst]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x.start, x.end) == (y.start, y.end))
}

/// The train of `bursts` (time order) and its period ([`period::train_period`]): each burst
/// starts at its `onset` and weighs its bytes above the floor (the baseline, or the local floor of a scan over one). Two bursts make a period
/// only when they are of one size class ([`PAIR_SIZE_RATIO`]), each drains dirty memory when
/// the capture has it, and no burst between them is as large; else the spacing of all the
/// bursts when there are three or more ([`period::onset_period`]).
fn train(
    bursts: &[Burst],
    series: &[Cell],
    scan: &bursts::BurstScan,
    dirty: Option<&[Cell]>,
    onset: Onset,
) -> Option<Train> {
    let baseline = scan.baseline;
    let above = |r: usize| series.get(r).and_then(Cell::get).map_or(0.0, |v| (v - scan.floor(r)).max(0.0));
    let events: Vec<Event> = bursts
        .iter()
        .map(|b| {
            let mass = (b.start..=b.end).map(above).sum::<f64>();
            let at = match onset {
                Onset::Start => b.start,
                Onset::Mass => {
                    let mut sum = 0.0;
                    (b.start..=b.end)
                        .find(|&r| {
                            sum += above(r);
                            sum >= MASS_ONSET * mass
                        })
                        .unwrap_or(b.start)
                }
            };
            Event { onset: at as f64, mass, len: (b.end + 1 - at) as f64 }
        })
        .collect();
    // Two bursts stand out as a period only when they are alike and the only such pair.
    let valid = |m: &[usize]| match *m {
        [a, b] => {
            let (x, y) = (bursts[a].total, bursts[b].total);
            x.min(y) >= PAIR_SIZE_RATIO * x.max(y)
                && [a, b].iter().all(|&k| drains(&bursts[k], dirty, baseline))
                && bursts[a + 1..b].iter().all(|o| o.total < x.min(y))
        }
        _ => true,
    };
    match period::train_period(&events, series.len() as f64, &valid) {
        Some(t) => Some(t),
        // No train stands out: the spacing of all the bursts (at a low confidence).
        None if bursts.len() >= 3 => {
            let onsets: Vec<f64> = events.iter().map(|e| e.onset).collect();
            let period = period::onset_period(&onsets)?;
            Some(Train { first_s: onsets[0], members: (0..bursts.len()).collect(), missing: 0, period })
        }
        None => None,
    }
}

/// True when dirty memory falls at burst `b` by [`DIRTY_DROP`] of its bytes above the
/// baseline (from its running maximum over the burst and 2 s around), or when the
/// capture has too little of it to tell.
fn drains(b: &Burst, dirty: Option<&[Cell]>, baseline: f64) -> bool {
    let Some(d) = dirty.filter(|d| stats::present(d).len() * 2 >= d.len().max(1)) else { return true };
    let excess = b.total - baseline * (b.end - b.start + 1) as f64;
    // The largest fall of Dirty from its running maximum over the episode: writers may
    // keep raising it after the onset, until the flush itself brings it down.
    let mut top: Option<f64> = None;
    let mut fall: Option<f64> = None;
    for v in (b.start.saturating_sub(2)..=(b.end + 2).min(d.len().saturating_sub(1)))
        .filter_map(|r| d.get(r).and_then(Cell::get))
    {
        let t = top.map_or(v, |t| t.max(v));
        top = Some(t);
        fall = Some(fall.map_or(t - v, |f| f.max(t - v)));
    }
    fall.is_some_and(|f| f > 0.0 && f >= DIRTY_DROP * excess.max(0.0))
}

/// Bursts merged into flush episodes: a burst starting at most `gap_s` after the
/// previous one ended continues it.
pub(crate) fn episodes(bursts: &[Burst], gap_s: f64) -> Vec<Burst> {
    let mut out: Vec<Burst> = Vec::new();
    for b in bursts {
        match out.last_mut() {
            Some(e) if (b.start as f64) <= e.end as f64 + gap_s => {
                e.end = e.end.max(b.end);
                e.total += b.total;
                if b.peak_value > e.peak_value {
                    e.peak = b.peak;
                    e.peak_value = b.peak_value;
                }
            }
            _ => out.push(b.clone()),
        }
    }
    out
}

/// The series with the same period (within 10 % + 1 s, confidence above 0.3):
/// dirty memory (its drops), then every thread and write-source category.
fn sharing(tl: &Timeline, c: &Period, max_lag: usize) -> Vec<(String, f64, f64)> {
    let dirty = Col::Mem(MemMetric::DirtyBytes);
    let mut others: Vec<Col> = vec![dirty.clone()];
    let of = |want: fn(&Col) -> bool| tl.iter().filter(move |(c, _)| want(c)).map(|(c, _)| c.clone());
    others.extend(of(|c| matches!(c, Col::Thread(_))));
    others.extend(of(|c| matches!(c, Col::Category(_))));
    let mut shared = Vec::new();
    for o in others {
        let Some(v) = tl.get(&o) else { continue };
        // Dirty is a sawtooth: its drops carry the period.
        let s: Vec<Cell> = if o == dirty {
            let mut d = vec![Cell::GAP; v.len()];
            for i in 1..v.len() {
                if let (Some(a), Some(b)) = (v[i - 1].get(), v[i].get()) {
                    d[i] = Cell::some((a - b).max(0.0));
                }
            }
            d
        } else {
            v.to_vec()
        };
        if stats::present(&s).len() < 30 {
            continue;
        }
        let a = period::autocorrelation(&s, max_lag);
        if let Some(pp) = period::acf_period(&a, 3)
            && (pp.period_s - c.period_s).abs() <= 0.1 * c.period_s + 1.0
            && pp.confidence > 0.3
        {
            shared.push((o.name(), pp.period_s, pp.confidence));
        }
    }
    shared
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::columns::DevMetric;

    /// The tunables of `w`, with the ext4 journal's default commit interval.
    fn tun(w: WritebackWindow) -> Tunables {
        Tunables { window: w, journal_commit: Some((5.0, false)) }
    }

    /// A flush of expired pages written over two flusher wake-ups 5 s apart (as the
    /// held-out ext4-over-loop capture shows: 194 MB, then 562 MB 5 s later), every 33 s:
    /// the wake-ups are one episode, and the episodes carry the period.
    #[test]
    fn flushes_over_two_wakeups_are_one_episode() {
        // Three flushes in a 100 s capture, at 3, 34 and 70 s (31 and 36 s apart, the
        // held-out capture's), each over two wake-ups: too few for a chain of four.
        let mut tl = Timeline::new(0.0, 99.0);
        for t in 0..100 {
            let v = match t {
                3 | 34 | 70 => 190e6,
                8 | 39 | 75 => 560e6,
                _ => 2e6,
            };
            tl.set_gauge(&Col::Dev("loop0".into(), DevMetric::WBytesS), "iostat", t as f64, v);
        }
        let w = WritebackWindow::from_centisecs(Some(3000.0), Some(500.0));
        let v = periodicity(&tl, &Col::Dev("loop0".into(), DevMetric::WBytesS), &tun(w));
        assert_eq!(v.period_s, Some(33.5));
        assert_eq!(
            v.bursts.iter().map(|b| (b.start, b.end)).collect::<Vec<_>>(),
            [(3, 8), (34, 39), (70, 75)]
        );
        assert!((v.bursts[0].total - 750e6).abs() < 1.0);
        // Unmerged, the wake-ups alternate 5 s and 26-31 s apart: the 5 s would win.
        let split =
            bursts::detect(tl.get(&Col::Dev("loop0".into(), DevMetric::WBytesS)).unwrap(), 8.0, 5.0, 4e6);
        assert_eq!(split.bursts.len(), 6);
        assert_eq!(episodes(&split.bursts, 6.0).len(), 3);
        assert_eq!(episodes(&split.bursts, 3.0).len(), 6);
    }

    /// A timeline of `len` seconds: device writes of 10 MB/s with `(second, MB)` bursts, and
    /// Dirty rising 5 MB/s, falling by `drop` of each burst's bytes at it.
    fn flushes(len: usize, bursts: &[(usize, f64)], drop: f64) -> Timeline {
        let mut tl = Timeline::new(0.0, (len - 1) as f64);
        let mut dirty = 300e6;
        for t in 0..len {
            let b = bursts.iter().find(|b| b.0 == t).map_or(0.0, |b| b.1 * 1e6);
            dirty += 5e6 - drop * b;
            tl.set_gauge(&Col::Dev("vda".into(), DevMetric::WBytesS), "iostat", t as f64, 10e6 + b);
            tl.set_gauge(&Col::Mem(MemMetric::DirtyBytes), "meminfo", t as f64, dirty);
        }
        tl
    }

    /// Two alike flushes alone in a short capture, each draining Dirty (the held-out ext4
    /// capture with an appender next to a database: 32 and 63 s, window 35 s, 75 s long): a
    /// period at the lowest weight, matching the writeback window.
    #[test]
    fn two_alike_flushes_in_a_short_capture() {
        let w = WritebackWindow::from_centisecs(Some(3000.0), Some(500.0));
        let tl = flushes(75, &[(32, 190.0), (63, 200.0)], 0.7);
        let v = periodicity(&tl, &Col::Dev("vda".into(), DevMetric::WBytesS), &tun(w));
        assert_eq!((v.period_s, v.confidence), (Some(31.0), Some(0.6)));
        assert_eq!(v.period_match, Some(PeriodMatch::WritebackWindow));
        assert!(v.is_writeback(w));
        // Without dirty memory falling at them they may be anything (a copy and its tail).
        let dry = flushes(75, &[(32, 190.0), (63, 200.0)], 0.0);
        assert_eq!(periodicity(&dry, &Col::Dev("vda".into(), DevMetric::WBytesS), &tun(w)).period_s, None);
        // In a capture with room for a third beat (110 s: one at 94 s) two are no period.
        let long = flushes(110, &[(32, 190.0), (63, 200.0)], 0.7);
        assert_eq!(periodicity(&long, &Col::Dev("vda".into(), DevMetric::WBytesS), &tun(w)).period_s, None);
    }

    /// Three flushes with a smaller one after the second (the appender's capture: 32, 63 and
    /// 89 s, a 55 MB burst at 43 s and 116 MB at 84 s): the three carry the period, the
    /// median of their spacings.
    #[test]
    fn a_chain_skips_the_smaller_bursts_between() {
        let w = WritebackWindow::from_centisecs(Some(3000.0), Some(500.0));
        let tl = flushes(92, &[(32, 190.0), (43, 55.0), (63, 200.0), (84, 116.0), (89, 119.0)], 0.7);
        let v = periodicity(&tl, &Col::Dev("vda".into(), DevMetric::WBytesS), &tun(w));
        assert_eq!(v.period_s, Some(28.5));
        let starts: Vec<usize> = v.periodic_bursts().iter().map(|b| b.start).collect();
        assert_eq!(starts, [32, 63, 89]);
        assert_eq!(v.chain.len(), 3);
    }

    /// A pair is no period when a larger burst lies between (the durable database's
    /// capture: flushes at 32, 47 and 73 s), nor when it spans more than half the capture.
    #[test]
    fn a_pair_must_stand_out() {
        let w = WritebackWindow::from_centisecs(Some(3000.0), Some(500.0));
        let tl = flushes(77, &[(32, 84.0), (47, 166.0), (73, 154.0)], 0.8);
        let v = periodicity(&tl, &Col::Dev("vda".into(), DevMetric::WBytesS), &tun(w));
        assert!(v.chain.is_empty());
        // The spacing of all three then, 15 and 26 s: not regular.
        assert_eq!((v.period_s, v.confidence), (Some(20.5), Some(0.0)));
        // Two flushes 47 s apart in a 100 s capture: a period; in a 90 s one, 47 s is more than half.
        let w = WritebackWindow::from_centisecs(Some(4500.0), Some(500.0));
        let tl = flushes(100, &[(5, 137.0), (52, 73.0)], 0.5);
        assert_eq!(
            periodicity(&tl, &Col::Dev("vda".into(), DevMetric::WBytesS), &tun(w)).period_s,
            Some(47.0)
        );
        let tl = flushes(90, &[(5, 137.0), (52, 73.0)], 0.5);
        assert_eq!(periodicity(&tl, &Col::Dev("vda".into(), DevMetric::WBytesS), &tun(w)).period_s, None);
    }

    /// The defect of issue 34: an application fsync()ing a 64 MiB checkpoint every 12 s with
    /// the default tunables (window 35 s) is "every 12 s", no kernel interval: its own timer.
    /// Bursts every 36 s are the writeback window's.
    #[test]
    fn a_12_s_timer_is_not_the_35_s_window() {
        let w = WritebackWindow::from_centisecs(Some(3000.0), Some(500.0));
        let every =
            |p: usize| -> Vec<(usize, f64)> { (0..120).filter(|t| t % p == 4).map(|t| (t, 67.0)).collect() };
        let v =
            periodicity(&flushes(120, &every(12), 0.9), &Col::Dev("vda".into(), DevMetric::WBytesS), &tun(w));
        assert_eq!(v.period_s, Some(12.0));
        assert_eq!(v.phase_s, Some(4.0));
        assert_eq!(v.period_match, Some(PeriodMatch::None));
        assert_eq!(match_text(&v), "no kernel interval (an application's timer)");
        assert!(v.chain.is_empty() && !v.is_writeback(w));
        assert!(v.confidence.unwrap() > 0.9, "{:?}", v.confidence);
        let v =
            periodicity(&flushes(120, &every(36), 0.9), &Col::Dev("vda".into(), DevMetric::WBytesS), &tun(w));
        assert_eq!(v.period_s, Some(36.0));
        assert_eq!(v.period_match, Some(PeriodMatch::WritebackWindow));
        // Every 5 s: the flusher's interval, and the ext4 journal's default commit as well.
        let v =
            periodicity(&flushes(120, &every(5), 0.9), &Col::Dev("vda".into(), DevMetric::WBytesS), &tun(w));
        assert_eq!(v.period_s, Some(5.0));
        assert_eq!(
            (v.period_match, &v.also_matches[..]),
            (Some(PeriodMatch::FlusherInterval), &[PeriodMatch::JournalCommit][..])
        );
        assert_eq!(
            match_text(&v),
            "the flusher's wake-up interval (5 s), the journal's commit interval (5 s)"
        );
    }

    /// Gaps that break (5 s inside pairs, 25 s between) merge the pairs; even gaps do not.
    #[test]
    fn bursts_merge_at_a_break_in_their_gaps() {
        let b = |start: usize| Burst { start, end: start, peak: start, peak_value: 1e8, total: 1e8 };
        let pairs: Vec<Burst> = [3, 8, 34, 39, 70, 75].into_iter().map(b).collect();
        let m = merge_at_break(&pairs);
        assert_eq!(m.iter().map(|e| (e.start, e.end)).collect::<Vec<_>>(), [(3, 8), (34, 39), (70, 75)]);
        assert_eq!(m[0].total, 2e8);
        // Gaps of 5 and 12 s: a ratio of 2.4, under the break.
        let even: Vec<Burst> = [3, 8, 20, 25, 37].into_iter().map(b).collect();
        assert_eq!(merge_at_break(&even).len(), 5);
        // 5 and 13 s: 2.6, a break.
        let uneven: Vec<Burst> = [3, 8, 21, 26, 39].into_iter().map(b).collect();
        assert_eq!(merge_at_break(&uneven).len(), 3);
    }

    /// The held-out ext4 capture with 2 MiB folios and an appender (window 50 s), its vda
    /// writes and Dirty in MB per second (samples/mh_ext4_mmap_2m_expire4500_appender; -1:
    /// no sample): a tenant's small writes from 34 s come just before the file's flush at
    /// 49-55 s, a burst of their own: the flushes carry the period, the tenant's burst does not.
    #[test]
    fn a_flush_behind_small_writes_is_found_where_its_bytes_begin() {
        #[rustfmt::skip]
        const VDA: [i32; 153] = [
            1, 0, 0, 57, 14, 1113, 0, 0, 0, 0, 40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 108, 7, 0, 17, 0, 10, 0, 10, 13, 8, 0, 12, 6, 232, 4, 4, 10, 251, 13, 0, 1508, 9, 0,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 169, 0, 0, 0, 0, 0, 1739, 378, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1087, 0,
            -1, -1, -1,
        ];
        #[rustfmt::skip]
        const DIRTY: [i32; 153] = [
            1307, 1317, 1284, 1329, 1346, 1391, 306, 352, 396, 442, 482, 479, 513, 538, 572, 609, 637, 668,
            -1, 700, 728, 755, 780, 808, 837, 858, 881, 908, 942, 974, 991, 1012, 1026, 1039, 1083, 1178,
            1189, 1199, 1485, 1502, 1773, 1784, 1876, 1909, 1989, 2094, 2207, 2255, 2170, 2235, 2285, 2390,
            2227, 2296, 2353, 1121, 1076, 1248, 1290, 1330, 1370, 1405, 1441, 1479, 1517, 1548, 1580, 1615,
            1636, 1664, 1695, 1727, 1748, 1775, 1800, 1829, 1851, 1871, 1890, 1922, 1943, 1957, 1979, 1998,
            2026, 2044, 2065, 2078, 2095, 2110, 2122, 2133, 2152, 2160, 2185, 2198, -1, 2040, 2052, 2063,
            2078, 2095, 1756, 22, 65, 106, 141, 183, 223, 267, 305, 343, 376, 412, 444, 469, 502, 519, 549,
            580, 600, 626, 647, 672, 694, 711, 727, 755, 776, 804, 818, 846, 859, 880, 899, 914, 924, 932,
            951, 967, 982, 994, 1005, 1013, 1028, 1045, 1052, 1064, 1077, 17, 64, 100, -1,
        ];
        let w = WritebackWindow::from_centisecs(Some(4500.0), Some(500.0));
        let mut tl = Timeline::new(0.0, (VDA.len() - 1) as f64);
        for (t, (&v, &d)) in VDA.iter().zip(DIRTY.iter()).enumerate() {
            if v >= 0 {
                tl.set_gauge(
                    &Col::Dev("vda".into(), DevMetric::WBytesS),
                    "iostat",
                    t as f64,
                    f64::from(v) * 1e6,
                );
            }
            if d >= 0 {
                tl.set_gauge(&Col::Mem(MemMetric::DirtyBytes), "meminfo", t as f64, f64::from(d) * 1e6);
            }
        }
        let v = periodicity(&tl, &Col::Dev("vda".into(), DevMetric::WBytesS), &tun(w));
        assert!(v.is_writeback(w), "{:?} {:?}", v.period_s, v.confidence);
        // They start at 3, 49, 101 and 148 s: 46, 52 and 47 s apart.
        assert_eq!(v.period_s, Some(47.0));
        assert_eq!(v.chain, [0, 2, 3, 4]);
        let peaks: Vec<usize> = v.periodic_bursts().iter().map(|b| b.peak).collect();
        assert_eq!(peaks, [5, 54, 101, 148]);
        assert_eq!(v.phase_s, Some(3.0));
    }

    #[test]
    fn square_wave_period_is_found() {
        let mut tl = Timeline::new(0.0, 299.0);
        for t in 0..300 {
            let v = if t % 30 < 3 { 200e6 } else { 1e5 };
            tl.set_gauge(&Col::Dev("vda".into(), DevMetric::WBytesS), "iostat", t as f64, v);
        }
        let v = periodicity(
            &tl,
            &Col::Dev("vda".into(), DevMetric::WBytesS),
            &tun(WritebackWindow::from_centisecs(Some(2500.0), Some(500.0))),
        );
        assert_eq!(v.bursts.len(), 10);
        assert_eq!(v.period_s, Some(30.0));
        assert_eq!(v.writeback_window_s, Some((30.0, true)));
    }
}
