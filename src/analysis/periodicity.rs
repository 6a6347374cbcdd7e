//! Periodicity of the main device's writes: bursts of the dominant size
//! class, their period (burst onsets, autocorrelation, or a chain of bursts
//! spaced by the writeback window), the periodogram, and the other series
//! (dirty memory, threads, write-source categories) sharing the period.

use crate::table::Cell;

use super::bursts::{self, Burst};
use super::period::{self, Period};
use super::stats;
use super::writeback::WritebackWindow;
use crate::table::Timeline;
use crate::table::columns::{Col, MemMetric};
use serde::Serialize;

/// Periodicity results for the report.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PeriodicityView {
    /// The series analysed (timeline column name).
    pub series: String,
    /// Bursts found on it.
    pub bursts: Vec<Burst>,
    /// Burst threshold used.
    pub threshold: f64,
    /// Detected period, seconds.
    pub period_s: Option<f64>,
    /// Confidence 0..1.
    pub confidence: Option<f64>,
    /// Autocorrelation by lag (index = lag in seconds).
    pub acf: Vec<f64>,
    /// Periodogram: (period seconds, normalised power).
    pub periodogram: Vec<(f64, f64)>,
    /// Expected writeback window: dirty_expire + dirty_writeback, seconds, and whether from the capture.
    pub writeback_window_s: Option<(f64, bool)>,
    /// Other series sharing the period: (column, period_s, confidence).
    pub shared_with: Vec<(String, f64, f64)>,
    /// When the period is that of flushes one writeback window apart among other bursts
    /// ([`window_chain`]): the indices in `bursts` of those flushes; empty when every burst
    /// carries the period.
    pub chain: Vec<usize>,
}

impl PeriodicityView {
    /// True when the writes carry the writeback period: a period matching `window` at a
    /// confidence of 0.5 or more.
    pub fn is_writeback(&self, window: WritebackWindow) -> bool {
        matches!((self.period_s, self.confidence), (Some(p), Some(c)) if writeback_period(p, c, window))
    }

    /// The bursts that carry the period: the chain's when there is one, else all.
    pub fn periodic_bursts(&self) -> Vec<&Burst> {
        if self.chain.is_empty() {
            self.bursts.iter().collect()
        } else {
            self.chain.iter().filter_map(|&i| self.bursts.get(i)).collect()
        }
    }
}

/// The periodicity of timeline column `col` against the writeback `window`.
pub fn periodicity(tl: &Timeline, col: &str, window: WritebackWindow) -> PeriodicityView {
    let series = tl.get(col).unwrap_or(&[]);
    let mut scan = bursts::detect(series, 8.0, 5.0, 4.0 * 1024.0 * 1024.0);
    // Keep the bursts of the dominant size class: small spikes of other
    // writers (a build, a log rotation) would blur the period. A burst counts
    // when it holds at least a quarter of the typical large burst.
    let mut totals: Vec<f64> = scan.bursts.iter().map(|b| b.total).collect();
    totals.sort_by(|a, b| b.total_cmp(a));
    if let Some(typical) = stats::median(&totals[..totals.len().min(5)]) {
        scan.bursts.retain(|b| b.total >= 0.25 * typical);
    }
    let onsets: Vec<f64> = scan.bursts.iter().map(|b| b.start as f64).collect();
    let max_lag = (series.len() / 2).min(600);
    let acf = period::autocorrelation(series, max_lag);
    let by_onset = period::onset_period(&onsets);
    let by_acf = period::acf_period(&acf, 3);
    let chosen = match (by_onset, by_acf) {
        (Some(o), _) if scan.bursts.len() >= 3 => Some(o),
        (_, Some(a)) => Some(a),
        (o, None) => o,
    };
    // Periodic writeback hides among other writers' bursts (a job every 5 s):
    // when the period found does not match the writeback window, look for a
    // chain of bursts spaced by the window itself.
    let chosen = match chosen {
        Some(c) if writeback_period(c.period_s, c.confidence, window) => Some(c),
        other => match comb_period(&onsets, window.seconds()) {
            Some(comb) if other.as_ref().is_none_or(|o| comb.confidence >= 0.5 || o.confidence < 0.5) => {
                Some(comb)
            }
            _ => other,
        },
    };
    // One writeback of expired pages can take several flusher wake-ups (one
    // `dirty_writeback_centisecs` apart) when the device or the flusher's time
    // slice cannot write it at once: bursts closer than that are one flush episode,
    // and the episodes carry the writeback period.
    //
    // Failing that, periodic writeback of a steadily dirtied file in a capture of only a
    // few windows, among other writers' bursts (a foreign flush, a copy): flush episodes one
    // window apart, each draining dirty memory, with no window of the capture left without one.
    let mut chosen = chosen;
    let mut chain = Vec::new();
    if !chosen.as_ref().is_some_and(|c| writeback_period(c.period_s, c.confidence, window)) {
        let eps = episodes(&scan.bursts, window.interval_s + 1.0);
        let starts: Vec<f64> = eps.iter().map(|b| b.start as f64).collect();
        let dirty = tl.col(&Col::Mem(MemMetric::DirtyBytes));
        if eps.len() >= 3
            && eps.len() < scan.bursts.len()
            && let Some(p) = period::onset_period(&starts)
            && writeback_period(p.period_s, p.confidence, window)
        {
            chosen = Some(Period { method: "flush episodes (bursts within a flusher wake-up merged)", ..p });
            scan.bursts = eps;
        } else if let Some((members, p)) = window_chain(&eps, window, series, dirty, scan.baseline) {
            chosen = Some(p);
            scan.bursts = eps;
            chain = members;
        }
    }
    let max_p = (series.len() as f64 / 2.0).clamp(10.0, 600.0) as usize;
    let periods: Vec<f64> = (4..=max_p).map(|x| x as f64).collect();
    let pg = period::periodogram(series, &periods);
    let shared = match &chosen {
        Some(c) => sharing(tl, c, max_lag),
        None => Vec::new(),
    };
    PeriodicityView {
        series: col.to_string(),
        bursts: scan.bursts,
        threshold: scan.threshold,
        period_s: chosen.as_ref().map(|c| c.period_s),
        confidence: chosen.as_ref().map(|c| c.confidence),
        acf,
        periodogram: periods.into_iter().zip(pg).collect(),
        writeback_window_s: Some((window.seconds(), window.from_capture)),
        shared_with: shared,
        chain,
    }
}

/// True when a period of `period_s` found at `confidence` is the writeback period: it matches
/// `window` at a confidence of 0.5 or more.
fn writeback_period(period_s: f64, confidence: f64, window: WritebackWindow) -> bool {
    window.matches(period_s) && confidence >= 0.5
}

/// An episode's bytes begin where this share of its bytes above the baseline is written.
const MASS_ONSET: f64 = 0.1;

/// A chain member must hold at least this share of the largest member's bytes (and the
/// largest at most 1 / this of the smallest): flushes of one file are of one size class.
const CHAIN_SIZE_RATIO: f64 = 0.25;

/// Dirty memory must fall by at least this share of a flush's bytes above the baseline
/// for the flush to count as writeback of the page cache (the writers keep dirtying during
/// the flush, so the net drop is smaller than what was written).
const CHAIN_DIRTY_DROP: f64 = 0.25;

/// Flushes one writeback window apart: the longest chain of flush episodes (bursts within
/// one flusher wake-up merged) whose onsets are each one window apart
/// ([`WritebackWindow::matches`]), of one size class, each with a drop of `dirty` memory
/// when it is known, and complete: no window of the capture (`len` seconds) before the
/// first or after the last is left without a flush. Two flushes are enough when the
/// capture holds no third window, and need dirty memory to confirm them.
///
/// This is what periodic writeback of a steadily dirtied file shows in a capture of a few
/// windows next to other writers: the held-out order-0 capture on XFS over loop flushed the
/// file at 28, 43 (split), 74 and 105 s while an appender's writeback and other tenants'
/// bursts came in between.
///
/// Returns the chain (indices into `eps`) and its period (median spacing) with a confidence
/// of 0.5 for two flushes, 0.1 more per further flush (at most 0.8).
pub fn window_chain(
    eps: &[Burst],
    window: WritebackWindow,
    series: &[Cell],
    dirty: Option<&[Cell]>,
    baseline: f64,
) -> Option<(Vec<usize>, Period)> {
    let len = series.len();
    let hi = window.longest_match();
    // Where an episode's bytes begin: the second its bytes above the baseline reach
    // [`MASS_ONSET`] of their total. With a median rate of 0, every second over the floor
    // joins a burst, and another writer's small writes can start one long before the flush.
    let onset = |b: &Burst| -> f64 {
        let above = |r: usize| series.get(r).and_then(Cell::get).map_or(0.0, |v| (v - baseline).max(0.0));
        let total: f64 = (b.start..=b.end).map(above).sum();
        let mut sum = 0.0;
        for r in b.start..=b.end {
            sum += above(r);
            if sum >= MASS_ONSET * total {
                return r as f64;
            }
        }
        b.start as f64
    };
    let onsets: Vec<f64> = eps.iter().map(onset).collect();
    // The spacing of two episodes when it is one window: between their starts, else
    // between where their bytes begin.
    let spacing = |a: usize, b: usize| -> Option<f64> {
        let by_start = (eps[b].start - eps[a].start) as f64;
        let by_mass = onsets[b] - onsets[a];
        [by_start, by_mass].into_iter().find(|&d| window.matches(d))
    };
    let dirty = dirty.filter(|d| stats::present(d).len() * 2 >= d.len().max(1));
    let drains = |b: &Burst| -> bool {
        let Some(d) = dirty else { return true };
        let excess = b.total - baseline * (b.end - b.start + 1) as f64;
        // The largest fall of Dirty from its running maximum over the episode: writers
        // may keep raising it after the onset, until the flush itself brings it down.
        let mut top: Option<f64> = None;
        let mut fall: Option<f64> = None;
        for v in (b.start.saturating_sub(2)..=(b.end + 2).min(d.len().saturating_sub(1)))
            .filter_map(|r| d.get(r).and_then(Cell::get))
        {
            let t = top.map_or(v, |t| t.max(v));
            top = Some(t);
            fall = Some(fall.map_or(t - v, |f| f.max(t - v)));
        }
        fall.is_some_and(|f| f > 0.0 && f >= CHAIN_DIRTY_DROP * excess.max(0.0))
    };
    let ok: Vec<bool> = eps.iter().map(drains).collect();
    let mut best: Option<Vec<usize>> = None;
    for start in 0..eps.len() {
        if !ok[start] {
            continue;
        }
        let mut chain = vec![start];
        let (mut lo_size, mut hi_size) = (eps[start].total, eps[start].total);
        loop {
            let last = *chain.last().unwrap();
            // The largest flush one window after the last, of the chain's size class.
            let next = (last + 1..eps.len())
                .filter(|&j| ok[j] && spacing(last, j).is_some())
                .filter(|&j| {
                    eps[j].total >= CHAIN_SIZE_RATIO * hi_size && eps[j].total * CHAIN_SIZE_RATIO <= lo_size
                })
                .max_by(|&a, &b| eps[a].total.total_cmp(&eps[b].total));
            let Some(j) = next else { break };
            lo_size = lo_size.min(eps[j].total);
            hi_size = hi_size.max(eps[j].total);
            chain.push(j);
        }
        let (first, last) = (eps[chain[0]].start as f64, eps[*chain.last().unwrap()].start as f64);
        // A whole window before the first or after the last flush inside the capture
        // should have held one more.
        let complete = first < hi && last + hi > len.saturating_sub(1) as f64;
        let enough = chain.len() >= 3 || (chain.len() == 2 && dirty.is_some());
        // The flushes are the dominant pattern: no other burst between them is larger than
        // the smallest (two flushes picked around a larger one are no period).
        let mut between = (chain[0]..=*chain.last().unwrap()).filter(|k| !chain.contains(k));
        let dominant = between.all(|k| eps[k].total < lo_size);
        if complete && enough && dominant && best.as_ref().is_none_or(|b| chain.len() > b.len()) {
            best = Some(chain);
        }
    }
    let chain = best?;
    let gaps: Vec<f64> = chain.windows(2).filter_map(|w| spacing(w[0], w[1])).collect();
    let period_s = stats::median(&gaps)?;
    let confidence = (0.5 + 0.1 * (chain.len() - 2) as f64).min(0.8);
    Some((chain, Period { period_s, confidence, method: "flushes one writeback window apart" }))
}

/// Bursts merged into flush episodes: a burst starting at most `gap_s` after the
/// previous one ended continues it.
pub fn episodes(bursts: &[Burst], gap_s: f64) -> Vec<Burst> {
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
    let dirty = Col::Mem(MemMetric::DirtyBytes).name();
    let mut others: Vec<String> = vec![dirty.clone()];
    let of = |want: fn(&Col) -> bool| tl.typed().filter(move |(c, _)| want(c)).map(|(c, _)| c.name());
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
            shared.push((o, pp.period_s, pp.confidence));
        }
    }
    shared
}

/// The longest chain of burst onsets spaced by a period near the writeback
/// window (window - 6 s .. window + 2 s, +- 2 s each step); at least 4 bursts.
pub fn comb_period(onsets: &[f64], window: f64) -> Option<Period> {
    let mut best: Option<Vec<f64>> = None;
    let lo = (window - 6.0).max(3.0).round() as i64;
    let hi = (window + 2.0).round() as i64;
    for per in lo..=hi {
        let per = per as f64;
        for (i, &start) in onsets.iter().enumerate() {
            let mut chain = vec![start];
            let mut last = start;
            for &o in &onsets[i + 1..] {
                if (o - last - per).abs() <= 2.0 {
                    chain.push(o);
                    last = o;
                }
            }
            if chain.len() >= 4 && best.as_ref().is_none_or(|b| chain.len() > b.len()) {
                best = Some(chain);
            }
        }
    }
    let chain = best?;
    let gaps: Vec<f64> = chain.windows(2).map(|w| w[1] - w[0]).collect();
    let per = stats::median(&gaps)?;
    let span = chain.last()? - chain.first()?;
    // Confidence: how many of the expected steps were found, scaled for few steps.
    let expected = (span / per).round().max(1.0);
    let found = (chain.len() - 1) as f64 / expected;
    let few = ((chain.len() - 1) as f64 / 4.0).min(1.0);
    Some(Period {
        period_s: per,
        confidence: (found * (0.6 + 0.4 * few)).clamp(0.0, 1.0),
        method: "burst-chain at the writeback window",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comb_finds_the_window_among_other_bursts() {
        // Bursts every 35 s at 0, 35, 70, 105, plus a job at 5 s steps in between.
        let onsets = [0.0, 5.0, 10.0, 35.0, 40.0, 70.0, 105.0];
        let p = comb_period(&onsets, 35.0).unwrap();
        assert_eq!(p.period_s, 35.0);
        // Every expected step found (3 of 3), scaled for 3 steps of the 4 that give full weight.
        assert!((p.confidence - 0.9).abs() < 1e-9);
        // Three bursts are no chain.
        assert!(comb_period(&[0.0, 35.0, 70.0], 35.0).is_none());
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
            tl.set_gauge("dev.loop0.w_bytes_s", "B/s", "iostat", t as f64, v);
        }
        let w = WritebackWindow::from_centisecs(Some(3000.0), Some(500.0));
        let v = periodicity(&tl, "dev.loop0.w_bytes_s", w);
        assert_eq!(v.period_s, Some(33.5));
        assert_eq!(
            v.bursts.iter().map(|b| (b.start, b.end)).collect::<Vec<_>>(),
            [(3, 8), (34, 39), (70, 75)]
        );
        assert!((v.bursts[0].total - 750e6).abs() < 1.0);
        // Unmerged, the wake-ups alternate 5 s and 26-31 s apart: the 5 s would win.
        let split = bursts::detect(tl.get("dev.loop0.w_bytes_s").unwrap(), 8.0, 5.0, 4e6);
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
            tl.set_gauge("dev.vda.w_bytes_s", "B/s", "iostat", t as f64, 10e6 + b);
            tl.set_gauge("mem.dirty_bytes", "B", "meminfo", t as f64, dirty);
        }
        tl
    }

    /// The held-out ext4 capture with an appender next to a database: the appender's file
    /// flushed at 32 and 63 s (window 35 s), a smaller burst between, two more near the
    /// end of a 92 s capture: two flushes one window apart, and no third window fits.
    #[test]
    fn two_flushes_one_window_apart_in_a_short_capture() {
        let w = WritebackWindow::from_centisecs(Some(3000.0), Some(500.0));
        let tl = flushes(92, &[(32, 190.0), (43, 55.0), (63, 200.0), (84, 116.0), (89, 119.0)], 0.7);
        let v = periodicity(&tl, "dev.vda.w_bytes_s", w);
        assert_eq!(v.period_s, Some(31.0));
        assert_eq!(v.confidence, Some(0.5));
        let starts: Vec<usize> = v.periodic_bursts().iter().map(|b| b.start).collect();
        assert_eq!(starts, [32, 63]);
        assert!(v.is_writeback(w));
        // Without dirty memory falling at the flushes, two are not enough.
        let dry = flushes(92, &[(32, 190.0), (43, 55.0), (63, 200.0), (84, 116.0), (89, 119.0)], 0.0);
        assert!(periodicity(&dry, "dev.vda.w_bytes_s", w).chain.is_empty());
    }

    /// No chain: a larger burst between the two (the durable database's capture: flushes at
    /// 32, 47 and 73 s), or a window of the capture left without a flush.
    #[test]
    fn a_chain_must_dominate_and_be_complete() {
        let w = WritebackWindow::from_centisecs(Some(3000.0), Some(500.0));
        let tl = flushes(77, &[(32, 84.0), (47, 166.0), (73, 154.0)], 0.8);
        assert!(periodicity(&tl, "dev.vda.w_bytes_s", w).chain.is_empty());
        // Flushes at 5 and 52 s (window 50 s) in a 121 s capture: the window 90-114 s is empty.
        let w = WritebackWindow::from_centisecs(Some(4500.0), Some(500.0));
        let tl = flushes(121, &[(5, 137.0), (52, 73.0)], 0.5);
        assert!(periodicity(&tl, "dev.vda.w_bytes_s", w).chain.is_empty());
        // The same two flushes in a 100 s capture: no third window fits, a chain.
        let tl = flushes(100, &[(5, 137.0), (52, 73.0)], 0.5);
        assert_eq!(periodicity(&tl, "dev.vda.w_bytes_s", w).period_s, Some(47.0));
    }

    /// The held-out ext4 capture with 2 MiB folios and an appender (window 50 s), its vda
    /// writes and Dirty in MB per second (samples/mh_ext4_mmap_2m_expire4500_appender; -1:
    /// no sample): the median rate is 0, so a tenant's small writes from 34 s chain up to
    /// the file's flush at 54 s into one episode, while Dirty keeps rising until that flush.
    /// The flushes are spaced where their bytes begin (47 s: a tenth of the episode's bytes)
    /// and drain Dirty from its running maximum inside the episode.
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
                tl.set_gauge("dev.vda.w_bytes_s", "B/s", "iostat", t as f64, f64::from(v) * 1e6);
            }
            if d >= 0 {
                tl.set_gauge("mem.dirty_bytes", "B", "meminfo", t as f64, f64::from(d) * 1e6);
            }
        }
        let v = periodicity(&tl, "dev.vda.w_bytes_s", w);
        assert!(v.is_writeback(w), "{:?} {:?}", v.period_s, v.confidence);
        assert_eq!(v.period_s, Some(47.0));
        assert_eq!(v.chain.len(), 4);
        let peaks: Vec<usize> = v.periodic_bursts().iter().map(|b| b.peak).collect();
        assert_eq!(peaks, [5, 54, 101, 148]);
    }

    #[test]
    fn square_wave_period_is_found() {
        let mut tl = Timeline::new(0.0, 299.0);
        for t in 0..300 {
            let v = if t % 30 < 3 { 200e6 } else { 1e5 };
            tl.set_gauge("dev.vda.w_bytes_s", "B/s", "iostat", t as f64, v);
        }
        let v =
            periodicity(&tl, "dev.vda.w_bytes_s", WritebackWindow::from_centisecs(Some(2500.0), Some(500.0)));
        assert_eq!(v.bursts.len(), 10);
        assert_eq!(v.period_s, Some(30.0));
        assert_eq!(v.writeback_window_s, Some((30.0, true)));
    }
}
