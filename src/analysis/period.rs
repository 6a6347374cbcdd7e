//! Periodicity: the period of a per-second series from its autocorrelation
//! (the first strong peak after the zero crossing) checked against a
//! periodogram, with a confidence; and the period of a train of write episodes
//! ([`train_period`]), from the episodes alone: no kernel tunable is looked at
//! here (they are tested against the period afterwards, [`super::writeback::Tunables`]).

use crate::table::Cell;
use rayon::prelude::*;

use super::stats::{mean, median};

/// A detected period.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Period {
    /// Period in seconds.
    pub period_s: f64,
    /// 0..1: how clearly the series repeats with this period.
    pub confidence: f64,
    /// How it was found (`burst-intervals`, `autocorrelation`).
    pub method: &'static str,
}

/// Autocorrelation of a series for lags 0..=max_lag (gaps filled with the mean).
pub(crate) fn autocorrelation(series: &[Cell], max_lag: usize) -> Vec<f64> {
    let vals: Vec<f64> = series.iter().flatten().collect();
    let m = mean(&vals).unwrap_or(0.0);
    let x: Vec<f64> = series.iter().map(|v| v.unwrap_or(m) - m).collect();
    let var: f64 = x.iter().map(|v| v * v).sum();
    let n = x.len();
    // Each lag on its own (on every core): the same sums in the same order as one by one.
    (0..=max_lag.min(n.saturating_sub(1)))
        .into_par_iter()
        .map(|lag| {
            if var <= 0.0 {
                return 0.0;
            }
            dot(&x[..n - lag], &x[lag..]) / var
        })
        .collect()
}

/// The dot product of two equally long slices, in 8 running sums (which the compiler
/// keeps in vector registers: an autocorrelation of 600 lags over 4 days of seconds is
/// 2·10⁸ products). It differs from one running sum by rounding only.
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f64 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    acc.iter().sum::<f64>() + tail
}

/// Samples between exact angles in [`periodogram`].
const ROTATION_BLOCK: usize = 1024;

/// Power of the series at each period in `periods` (seconds), a discrete Fourier
/// periodogram normalised so that the values sum to 1 over the periods scanned.
pub(crate) fn periodogram(series: &[Cell], periods: &[f64]) -> Vec<f64> {
    let vals: Vec<f64> = series.iter().flatten().collect();
    let m = mean(&vals).unwrap_or(0.0);
    let x: Vec<f64> = series.iter().map(|v| v.unwrap_or(m) - m).collect();
    // [`LANES`] periods per pass over the series, the groups on every core.
    let p: Vec<f64> = periods.par_chunks(LANES).flat_map_iter(|group| powers(&x, group)).collect();
    let total: f64 = p.iter().sum();
    if total > 0.0 { p.iter().map(|v| v / total).collect() } else { p }
}

/// Periods whose sums one pass over the series carries side by side: each period's
/// rotation is a chain of dependent products, several chains keep the core busy.
const LANES: usize = 8;

/// The power of `x` at each period of `group` (at most [`LANES`]): for each, the same
/// products and sums, in the same order, as one period alone.
fn powers(x: &[f64], group: &[f64]) -> Vec<f64> {
    let k = group.len();
    let mut w = [0.0f64; LANES];
    for (w, per) in w.iter_mut().zip(group) {
        *w = std::f64::consts::TAU / per;
    }
    let (mut re, mut im) = ([0.0f64; LANES], [0.0f64; LANES]);
    // cos/sin of w·i by rotating one step at a time (a complex product instead of a
    // sincos per sample: 10 % of a 4-day bundle's analysis), taken exactly again every
    // block so that rounding cannot build up.
    let (mut step_s, mut step_c) = ([0.0f64; LANES], [0.0f64; LANES]);
    for j in 0..LANES {
        (step_s[j], step_c[j]) = w[j].sin_cos();
    }
    for (b, block) in x.chunks(ROTATION_BLOCK).enumerate() {
        let (mut s, mut c) = ([0.0f64; LANES], [0.0f64; LANES]);
        for j in 0..LANES {
            (s[j], c[j]) = (w[j] * (b * ROTATION_BLOCK) as f64).sin_cos();
        }
        for v in block {
            for j in 0..LANES {
                re[j] += v * c[j];
                im[j] += v * s[j];
                (c[j], s[j]) = (c[j] * step_c[j] - s[j] * step_s[j], s[j] * step_c[j] + c[j] * step_s[j]);
            }
        }
    }
    (0..k).map(|j| re[j] * re[j] + im[j] * im[j]).collect()
}

/// Period from the autocorrelation: the local maximum after the first zero crossing,
/// at `min_lag` or more, with the most autocorrelation over it and its two neighbours (a
/// period between two whole seconds, 15.5 s, splits its peak over 15 and 16 s, where its
/// double, 31 s, has it whole). The period is the centroid of those three lags (of their
/// positive values); confidence the autocorrelation at the maximum (clamped to 0..1).
pub(crate) fn acf_period(acf: &[f64], min_lag: usize) -> Option<Period> {
    let zero = acf.iter().position(|&v| v <= 0.0)?;
    let area = |lag: usize| (lag - 1..=lag + 1).map(|k| acf[k].max(0.0)).sum::<f64>();
    let mut best: Option<(usize, f64)> = None;
    for lag in zero.max(min_lag).max(1)..acf.len().saturating_sub(1) {
        if acf[lag] >= acf[lag - 1]
            && acf[lag] >= acf[lag + 1]
            && best.is_none_or(|(_, a)| area(lag) > a + 1e-12)
        {
            best = Some((lag, area(lag)));
        }
    }
    let (lag, a) = best?;
    let centroid = if a > 0.0 {
        (lag - 1..=lag + 1).map(|k| k as f64 * acf[k].max(0.0)).sum::<f64>() / a
    } else {
        lag as f64
    };
    Some(Period { period_s: centroid, confidence: acf[lag].clamp(0.0, 1.0), method: "autocorrelation" })
}

/// Period from burst onsets: the median interval between successive bursts,
/// with a confidence from how regular the intervals are (1 - relative MAD),
/// scaled down when there are few intervals.
pub(crate) fn onset_period(onsets: &[f64]) -> Option<Period> {
    if onsets.len() < 3 {
        return None;
    }
    let iv: Vec<f64> = onsets.windows(2).map(|w| w[1] - w[0]).collect();
    let med = median(&iv)?;
    if med <= 0.0 {
        return None;
    }
    let within = iv.iter().filter(|d| (*d - med).abs() <= 0.1 * med + 1.5).count() as f64 / iv.len() as f64;
    let few = (iv.len() as f64 / 5.0).min(1.0);
    Some(Period {
        period_s: med,
        confidence: (within * (0.6 + 0.4 * few)).clamp(0.0, 1.0),
        method: "burst-intervals",
    })
}

/// One write episode as the period search sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Event {
    /// Where its bytes begin, seconds from the series start.
    pub onset: f64,
    /// Its bytes (above the baseline): heavier episodes weigh more in the choice.
    pub mass: f64,
    /// How long it lasts, seconds: a beat of a period lasts at most half of it.
    pub len: f64,
}

/// A period carried by some (or all) of a train of events.
#[derive(Debug, Clone)]
pub(crate) struct Train {
    /// The period, its confidence and method.
    pub period: Period,
    /// The first member's onset, seconds from the series start.
    pub first_s: f64,
    /// Indices of the events that carry the period, in time order.
    pub members: Vec<usize>,
    /// Beats of the period inside the series with no event: skipped between members,
    /// or before the first and after the last where a whole beat fits.
    #[cfg_attr(
        not(test),
        allow(dead_code, reason = "the train's shape, checked by its tests; no caller reads it yet")
    )]
    pub missing: usize,
}

/// Shortest period a train may have, seconds (one-second samples cannot show less).
pub(crate) const MIN_TRAIN_PERIOD_S: f64 = 3.0;
/// Longest period looked for, seconds.
pub(crate) const MAX_TRAIN_PERIOD_S: f64 = 600.0;
/// At most this many beats may be skipped between two members (missing bursts).
const MAX_SKIP: usize = 3;
/// Only the heaviest this many events take part (a capture of days has thousands of bursts).
const MAX_EVENTS: usize = 300;
/// The lightest member of a chain holds at least this share of the heaviest's bytes: the
/// flushes of one source are of one size class.
pub(crate) const SIZE_CLASS: f64 = 0.15;
/// How much the share of the bytes a chain holds weighs against its confidence: the chain
/// chosen has the highest `share ^ HELD_WEIGHT x confidence`. A regular train of a file's
/// flushes among a flusher's smaller, gappy wake-ups is the period, though the wake-ups
/// hold more of the bytes; between a period and its multiples (alike in confidence) the
/// share decides.
const HELD_WEIGHT: f64 = 0.25;
/// Candidate periods come from the spacing of each event to its next this many.
const CANDIDATE_SPAN: usize = 8;

/// How far an event may be from its beat and still carry it, seconds: 15 % of the period
/// plus a second (the flusher's and a timer's own jitter, one-second samples).
pub(crate) fn beat_tolerance(period_s: f64) -> f64 {
    0.15 * period_s + 1.0
}

/// The period of a train of events (time order) in a series of `len` seconds, from the
/// events alone. Each candidate period (the spacing of an event to one of its next few, or
/// their mean spacing) chains events one period apart from each event on: the heaviest event
/// of the chain's size class (the lightest at least [`SIZE_CLASS`] of the heaviest) near each
/// next beat, up to [`MAX_SKIP`] beats in a row may be empty. A chain's confidence is
///
/// `members / (members + empty beats)` x `distinctness` x `weight of its number` x `regularity`,
///
/// counting as empty the beats skipped inside it and those before its first and after its
/// last member that fit whole inside the series; distinct when every other event between its
/// first and last member is lighter than its lightest ([`distinctness`]); weighing 0.6 for
/// two members, rising to 1 from five ([`few`]); regular when its spacings are alike
/// ([`regularity`]). The chain chosen has the highest `share of all events' bytes it holds` x
/// `confidence`. So events a constant T apart are "every T": every 3T holds a third of the
/// bytes, every T/2 leaves half its beats empty; a missing event costs one empty beat,
/// jitter up to [`beat_tolerance`] nothing.
///
/// A chain counts only if its own spacing (the median of its members', a spacing over
/// skipped beats divided by their number) is the candidate's within half a
/// [`beat_tolerance`] (a loose candidate cannot chain bursts of another spacing by skipping
/// beats), a chain of two spans at most half the series and leaves none of its beats empty,
/// holds at least half of the bytes, and `valid` accepts it (its members' indices). The period is that median spacing.
pub(crate) fn train_period(events: &[Event], len: f64, valid: &dyn Fn(&[usize]) -> bool) -> Option<Train> {
    if events.len() < 2 {
        return None;
    }
    // The heaviest events, back in time order, with their original indices.
    let mut idx: Vec<usize> = (0..events.len()).collect();
    if idx.len() > MAX_EVENTS {
        idx.sort_by(|&a, &b| events[b].mass.total_cmp(&events[a].mass));
        idx.truncate(MAX_EVENTS);
        idx.sort_unstable();
    }
    let ev: Vec<Event> = idx.iter().map(|&i| events[i]).collect();
    let total: f64 = ev.iter().map(|e| e.mass.max(0.0)).sum();
    let weight = |e: &Event| if total > 0.0 { e.mass.max(0.0) / total } else { 1.0 / ev.len() as f64 };
    // Candidate periods, on a half-second grid.
    let mut cands: Vec<f64> = Vec::new();
    for i in 0..ev.len() {
        for j in i + 1..(i + 1 + CANDIDATE_SPAN).min(ev.len()) {
            // The spacing of the two, and the mean spacing of the events between them.
            let d = ev[j].onset - ev[i].onset;
            for c in [d, d / (j - i) as f64] {
                let c = (c * 2.0).round() / 2.0;
                if (MIN_TRAIN_PERIOD_S..=MAX_TRAIN_PERIOD_S).contains(&c) {
                    cands.push(c);
                }
            }
        }
    }
    cands.sort_by(f64::total_cmp);
    cands.dedup();
    let mut best: Option<(f64, Vec<usize>, usize, f64)> = None;
    for &t in &cands {
        let tol = beat_tolerance(t);
        // A chain from a member of an earlier chain is part of it: fewer bytes, more empty beats.
        let mut used = vec![false; ev.len()];
        for start in 0..ev.len() {
            if used[start] {
                continue;
            }
            let (members, skipped) = chain_from(&ev, start, t, tol);
            members.iter().for_each(|&m| used[m] = true);
            if members.len() < 2 || spacing(&ev, &members, t).is_none_or(|p| (p - t).abs() > tol / 2.0) {
                continue;
            }
            if !valid(&members.iter().map(|&m| idx[m]).collect::<Vec<_>>()) {
                continue;
            }
            let (first, last) = (ev[members[0]].onset, ev[*members.last().unwrap()].onset);
            // Whole beats before the first and after the last member inside the series.
            let before = ((first - tol) / t).floor().max(0.0) as usize;
            let after = ((len - 1.0 - tol - last) / t).floor().max(0.0) as usize;
            let missing = skipped + before + after;
            // Two events are one spacing: a period only when the series spans two of it and
            // has no room for a third.
            if members.len() == 2 && (missing > 0 || 2.0 * t > len) {
                continue;
            }
            let held: f64 = members.iter().map(|&m| weight(&ev[m])).sum();
            // Two events among more are a period only when they hold most of the bytes.
            if members.len() == 2 && held < 0.5 {
                continue;
            }
            let score = held.powf(HELD_WEIGHT) * confidence(&ev, &members, missing, t);
            let better = best.as_ref().is_none_or(|(s, m, miss, _)| {
                score > *s + 1e-9
                    || ((score - *s).abs() <= 1e-9 && (missing, members.len()) < (*miss, m.len()))
            });
            if better {
                best = Some((score, members, missing, t));
            }
        }
    }
    let (_, members, missing, t) = best?;
    let period_s = spacing(&ev, &members, t)?;
    let confidence = confidence(&ev, &members, missing, t);
    Some(Train {
        period: Period { period_s, confidence: confidence.clamp(0.0, 1.0), method: "burst-intervals" },
        first_s: ev[members[0]].onset,
        members: members.iter().map(|&m| idx[m]).collect(),
        missing,
    })
}

/// How sure a chain of `members` (candidate period `t`) with `missing` empty beats is a
/// period: the share of its beats that hold an event, times its members' [`distinctness`],
/// the weight of their number ([`few`]) and the [`regularity`] of their spacing.
fn confidence(ev: &[Event], members: &[usize], missing: usize, t: f64) -> f64 {
    let coverage = members.len() as f64 / (members.len() + missing) as f64;
    coverage * distinctness(ev, members) * few(members.len()) * regularity(ev, members, t)
}

/// How regular a chain's spacings are: 1 while they stray from their median by at most a
/// quarter of a [`beat_tolerance`] on average (a second of sampling, a timer's own jitter),
/// down to 0.5 when they stray by a whole one.
fn regularity(ev: &[Event], members: &[usize], t: f64) -> f64 {
    let steps = steps(ev, members, t);
    let Some(p) = median(&steps) else { return 0.0 };
    let off = steps.iter().map(|s| (s - p).abs()).sum::<f64>() / steps.len() as f64;
    let stray = (off / beat_tolerance(p) - 0.25).clamp(0.0, 0.75) / 0.75;
    1.0 - 0.5 * stray
}

/// The weight of a chain of `n` members as evidence: 0.6 for two, rising to 1 from five.
fn few(n: usize) -> f64 {
    0.6 + 0.4 * (n.saturating_sub(2) as f64 / 3.0).min(1.0)
}

/// The spacings of a chain's members, a spacing over skipped beats of the candidate period
/// `t` divided by their number.
fn steps(ev: &[Event], members: &[usize], t: f64) -> Vec<f64> {
    members
        .windows(2)
        .map(|w| {
            let d = ev[w[1]].onset - ev[w[0]].onset;
            d / (d / t).round().max(1.0)
        })
        .collect()
}

/// The median of a chain's [`steps`].
fn spacing(ev: &[Event], members: &[usize], t: f64) -> Option<f64> {
    median(&steps(ev, members, t))
}

/// How distinct a chain's members are from the other events between its first and last:
/// each of them at least as heavy as its lightest member cancels one member (1 when all the
/// others are lighter, 0 when as many as its members are that heavy). A chain picked among
/// events as heavy as its own is no more a period than theirs; one foreign flush among six
/// beats of a timer leaves it 5/6.
fn distinctness(ev: &[Event], members: &[usize]) -> f64 {
    let (Some(&first), Some(&last)) = (members.first(), members.last()) else { return 0.0 };
    let lightest = members.iter().map(|&m| ev[m].mass).fold(f64::INFINITY, f64::min);
    let heavier = (first..=last).filter(|k| !members.contains(k) && ev[*k].mass >= lightest).count();
    (1.0 - heavier as f64 / members.len() as f64).max(0.0)
}

/// The chain of events one period `t` apart from `start`: at each step the heaviest event of
/// the chain's size class ([`SIZE_CLASS`]) within `tol` of the next beat, else of the one
/// after (up to [`MAX_SKIP`] skipped); an event lasting more than half of `t` is none (a
/// writer busy most of the period writes steadily, it does not burst on it).
/// Returns the members and the beats skipped between them.
fn chain_from(ev: &[Event], start: usize, t: f64, tol: f64) -> (Vec<usize>, usize) {
    // A burst lasting more than half the period leaves no quiet between beats: no beat.
    let short = |j: usize| ev[j].len <= t / 2.0;
    let mut members = vec![start];
    let mut skipped = 0;
    if !short(start) {
        return (members, skipped);
    }
    let (mut lo, mut hi) = (ev[start].mass, ev[start].mass);
    loop {
        let last = *members.last().unwrap();
        let o = ev[last].onset;
        let next = (1..=MAX_SKIP + 1).find_map(|k| {
            let beat = o + k as f64 * t;
            (last + 1..ev.len())
                .take_while(|&j| ev[j].onset <= beat + tol)
                .filter(|&j| (ev[j].onset - beat).abs() <= tol)
                .filter(|&j| short(j) && lo.min(ev[j].mass) >= SIZE_CLASS * hi.max(ev[j].mass))
                .max_by(|&a, &b| ev[a].mass.total_cmp(&ev[b].mass))
                .map(|j| (j, k - 1))
        });
        let Some((j, skip)) = next else { break };
        skipped += skip;
        (lo, hi) = (lo.min(ev[j].mass), hi.max(ev[j].mass));
        members.push(j);
    }
    (members, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spikes(period: usize, n: usize) -> Vec<Cell> {
        (0..n).map(|i| Cell::some(if i % period == 3 { 100.0 } else { 1.0 + (i % 5) as f64 * 0.1 })).collect()
    }

    #[test]
    fn acf_and_periodogram_find_31s() {
        let s = spikes(31, 240);
        let acf = autocorrelation(&s, 120);
        let p = acf_period(&acf, 5).unwrap();
        assert!((p.period_s - 31.0).abs() < 0.6, "{p:?}");
        assert!(p.confidence > 0.5);
        let periods: Vec<f64> = (10..=60).map(f64::from).collect();
        let pg = periodogram(&s, &periods);
        let best = periods[pg.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).unwrap().0];
        assert!((best - 31.0).abs() <= 1.0, "{best}");
    }

    #[test]
    fn rotated_angles_give_the_direct_periodogram() {
        // Four days of seconds with gaps: the rotation must match a sincos per sample.
        let s: Vec<Cell> =
            (0..345_600u64).map(|i| Cell::new((i % 977 != 5).then(|| ((i * 7919) % 613) as f64))).collect();
        let periods = [2.5, 30.0, 31.7, 600.0, 86_400.0];
        let vals: Vec<f64> = s.iter().flatten().collect();
        let m = vals.iter().sum::<f64>() / vals.len() as f64;
        let direct: Vec<f64> = periods
            .iter()
            .map(|&per| {
                let w = std::f64::consts::TAU / per;
                let (mut re, mut im) = (0.0, 0.0);
                for (i, v) in s.iter().enumerate() {
                    let x = v.unwrap_or(m) - m;
                    re += x * (w * i as f64).cos();
                    im += x * (w * i as f64).sin();
                }
                re * re + im * im
            })
            .collect();
        let total: f64 = direct.iter().sum();
        let fast = periodogram(&s, &periods);
        for (k, (a, b)) in fast.iter().zip(&direct).enumerate() {
            assert!((a - b / total).abs() < 1e-9, "period {}: {a} vs {}", periods[k], b / total);
        }
    }

    #[test]
    fn periods_in_groups_give_each_period_alone_bit_for_bit() {
        // A day of seconds; 19 periods: two full groups of LANES and a partial one.
        let s: Vec<Cell> =
            (0..86_400u64).map(|i| Cell::new((i % 501 != 7).then(|| ((i * 104_729) % 997) as f64))).collect();
        let periods: Vec<f64> = (0..19).map(|k| 4.0 + k as f64 * 7.3).collect();
        let vals: Vec<f64> = s.iter().flatten().collect();
        let m = vals.iter().sum::<f64>() / vals.len() as f64;
        let x: Vec<f64> = s.iter().map(|v| v.unwrap_or(m) - m).collect();
        let grouped: Vec<f64> = periods.chunks(LANES).flat_map(|g| powers(&x, g)).collect();
        let alone: Vec<f64> = periods.iter().flat_map(|p| powers(&x, &[*p])).collect();
        assert_eq!(grouped.len(), periods.len());
        for (k, (a, b)) in grouped.iter().zip(&alone).enumerate() {
            assert_eq!(a.to_bits(), b.to_bits(), "period {}: {a} vs {b}", periods[k]);
        }
        // And the same through the parallel periodogram, whatever the split of the work.
        let total: f64 = alone.iter().sum();
        let pg = periodogram(&s, &periods);
        for (a, b) in pg.iter().zip(&alone) {
            assert_eq!(a.to_bits(), (b / total).to_bits());
        }
    }

    #[test]
    fn onsets_give_period_and_confidence() {
        let p = onset_period(&[34.0, 65.0, 97.0, 128.0, 159.0, 191.0, 222.0]).unwrap();
        assert_eq!(p.period_s, 31.0);
        assert!(p.confidence > 0.9);
        let irregular = onset_period(&[0.0, 5.0, 40.0, 42.0, 90.0]).unwrap();
        assert!(irregular.confidence < 0.5);
    }

    /// Events at `onsets`, each of `mass`.
    fn events(onsets: &[f64], mass: f64) -> Vec<Event> {
        onsets.iter().map(|&onset| Event { onset, mass, len: 1.0 }).collect()
    }

    fn any(_: &[usize]) -> bool {
        true
    }

    /// Events a constant 12 s apart are every 12 s: not 24 or 36 (a third of the bytes),
    /// not 6 (half the beats empty).
    #[test]
    fn a_period_not_its_multiples_or_half() {
        let ev = events(&[4.0, 16.0, 28.0, 40.0, 52.0, 64.0, 76.0, 88.0, 100.0, 112.0], 64.0);
        let t = train_period(&ev, 120.0, &any).unwrap();
        assert_eq!(t.period.period_s, 12.0);
        assert_eq!((t.members.len(), t.missing, t.first_s), (10, 0, 4.0));
        assert_eq!(t.period.confidence, 1.0);
        // Every 24 s: the same events, a period of 24.
        let ev = events(&[4.0, 28.0, 52.0, 76.0, 100.0], 64.0);
        assert_eq!(train_period(&ev, 120.0, &any).unwrap().period.period_s, 24.0);
    }

    /// A missing event costs one empty beat, not the period: 12 s with one of 10 gone, at a
    /// confidence of 9 / 10.
    #[test]
    fn a_missing_event_is_an_empty_beat() {
        let ev = events(&[4.0, 16.0, 28.0, 52.0, 64.0, 76.0, 88.0, 100.0, 112.0], 64.0);
        let t = train_period(&ev, 120.0, &any).unwrap();
        assert_eq!((t.period.period_s, t.members.len(), t.missing), (12.0, 9, 1));
        assert!((t.period.confidence - 0.9).abs() < 1e-9);
        // Three gone in a row are three empty beats; four break the chain: no confident period.
        let ev = events(&[4.0, 16.0, 28.0, 76.0, 88.0, 100.0, 112.0], 64.0);
        let t = train_period(&ev, 120.0, &any).unwrap();
        assert_eq!((t.period.period_s, t.members.len(), t.missing), (12.0, 7, 3));
        let ev = events(&[4.0, 16.0, 76.0, 88.0, 100.0, 112.0], 64.0);
        let t = train_period(&ev, 120.0, &any).unwrap();
        assert!(t.period.confidence < 0.5, "{t:?}");
    }

    /// Jitter within [`beat_tolerance`] (12 s: 2.8 s) keeps the chain; beyond, it breaks.
    #[test]
    fn jitter_within_the_tolerance_is_one_period() {
        let ev = events(&[4.0, 18.5, 29.0, 42.5, 52.0, 66.0, 76.5, 89.0], 64.0);
        let t = train_period(&ev, 95.0, &any).unwrap();
        assert_eq!(t.members.len(), 8);
        assert!((t.period.period_s - 12.0).abs() <= 1.0, "{}", t.period.period_s);
        // One spacing of 20 s among 12 s ones is no beat: no train holds all six, none is sure.
        let ev = events(&[4.0, 16.0, 28.0, 48.0, 60.0, 72.0], 64.0);
        let t = train_period(&ev, 80.0, &any).unwrap();
        assert!(t.members.len() < 6 && t.period.confidence < 0.5, "{t:?}");
    }

    /// The bursts of samples/mmap_periodic_4k (onset s, MB): the file's flushes every 31-32 s
    /// among other writers' smaller ones at the flusher's wake-ups (5 s, with holes). The
    /// heavy ones carry the period; when a heavier burst sits between them they are not
    /// distinct, and no train of them stands out.
    #[test]
    fn a_distinct_heavy_train_among_small_bursts() {
        #[rustfmt::skip]
        let bursts = [
            (27.0, 117.0), (49.0, 44.0), (54.0, 36.0), (59.0, 89.0), (65.0, 36.0), (70.0, 33.0), (85.0, 33.0),
            (90.0, 76.0), (95.0, 49.0), (101.0, 52.0), (115.0, 57.0), (122.0, 82.0), (127.0, 45.0),
            (132.0, 43.0), (137.0, 49.0),
        ];
        let ev: Vec<Event> = bursts.iter().map(|&(onset, mass)| Event { onset, mass, len: 1.0 }).collect();
        let t = train_period(&ev, 140.0, &any).unwrap();
        assert_eq!(t.members.iter().map(|&m| ev[m].onset).collect::<Vec<_>>(), [27.0, 59.0, 90.0, 122.0]);
        assert_eq!(t.period.period_s, 32.0);
        assert!(t.period.confidence > 0.8);
        // A 100 MB burst at 70 s (another writer's flush): one of four members cancelled,
        // the period stands at three quarters of its confidence.
        let mut with = ev.clone();
        with[5].mass = 100.0;
        let t = train_period(&with, 140.0, &any).unwrap();
        assert_eq!(t.period.period_s, 32.0);
        let four = 0.6 + 0.4 * 2.0 / 3.0;
        assert!((t.period.confidence - 0.75 * four).abs() < 1e-9, "{t:?}");
        // As many as heavy between them as the train has members: no period of theirs.
        for k in [1, 4, 9] {
            with[k].mass = 100.0;
        }
        let t = train_period(&with, 140.0, &any).unwrap();
        assert_ne!(t.period.period_s, 32.0);
    }

    /// An event of another size class on the beat is not a member (a tenth of the others).
    #[test]
    fn members_are_of_one_size_class() {
        let mut ev = events(&[4.0, 16.0, 28.0, 40.0, 52.0], 100.0);
        ev[2].mass = 10.0;
        let t = train_period(&ev, 60.0, &any).unwrap();
        assert_eq!((t.members.clone(), t.missing), (vec![0, 1, 3, 4], 1));
        ev[2].mass = 20.0;
        assert_eq!(train_period(&ev, 60.0, &any).unwrap().members.len(), 5);
    }

    /// Two events: a period only when the series spans two of it with no room for a third,
    /// and `valid` accepts the pair.
    #[test]
    fn two_events_need_the_whole_series() {
        let ev = events(&[32.0, 63.0], 100.0);
        let t = train_period(&ev, 75.0, &any).unwrap();
        assert_eq!((t.period.period_s, t.period.confidence), (31.0, 0.6));
        assert!(train_period(&ev, 75.0, &|_| false).is_none());
        // Room for a beat at 94 s (and its tolerance, 5.65 s) in 105 s.
        assert!(train_period(&ev, 105.0, &any).is_none());
        // 31 s is more than half of 60 s.
        assert!(train_period(&events(&[20.0, 51.0], 100.0), 60.0, &any).is_none());
        assert!(train_period(&events(&[20.0], 100.0), 60.0, &any).is_none());
    }

    /// A peak split over two lags (a 15.5 s period) is found whole, not at its double.
    #[test]
    fn acf_finds_a_period_between_two_seconds() {
        let s: Vec<Cell> = (0..120)
            .map(|i| Cell::some(if [14, 30, 45, 61, 76, 92, 107].contains(&i) { 1e6 } else { 0.0 }))
            .collect();
        let acf = autocorrelation(&s, 60);
        let p = acf_period(&acf, 3).unwrap();
        assert!((p.period_s - 15.5).abs() <= 0.3, "{p:?}");
    }

    /// A burst lasting more than half the period is no beat of it (a copy's writeback passes
    /// of 1, 17, 1 and 2 s starting 20, 22 and 24 s apart: the long one breaks the chain).
    #[test]
    fn a_beat_leaves_quiet_after_it() {
        let mut ev = events(&[14.0, 34.0, 56.0, 80.0], 90.0);
        ev[1].len = 17.0;
        let t = train_period(&ev, 93.0, &any);
        assert!(t.as_ref().is_none_or(|t| t.members.len() < 4), "{t:?}");
        ev[1].len = 11.0;
        let t = train_period(&ev, 93.0, &any).unwrap();
        assert_eq!((t.members.len(), t.period.period_s), (4, 22.0));
    }
}
