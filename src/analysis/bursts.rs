//! Burst detection on a per-second series with robust thresholds: a second
//! is "hot" when it exceeds median + k x MAD (and a floor relative to the
//! median); adjacent hot seconds (allowing a 1 s gap) form one burst.

use crate::table::Cell;

use super::stats::{mad, median, present};

/// One burst: a run of hot seconds.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Burst {
    /// Index of the first hot second.
    pub start: usize,
    /// Index of the last hot second (inclusive).
    pub end: usize,
    /// Index of the peak second.
    pub peak: usize,
    /// Peak value.
    pub peak_value: f64,
    /// Sum of the series over the burst (e.g. bytes when the series is bytes/s).
    pub total: f64,
}

/// The threshold used and the bursts found.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BurstScan {
    /// Median of the series.
    pub baseline: f64,
    /// MAD (scaled) of the series.
    pub spread: f64,
    /// The value a second had to exceed.
    pub threshold: f64,
    /// The bursts, in time order.
    pub bursts: Vec<Burst>,
}

/// Finds bursts. `k` is the MAD multiplier (8 is strict); `min_ratio` the
/// factor over the median a hot second must also reach; `min_abs` an absolute floor.
pub fn detect(series: &[Cell], k: f64, min_ratio: f64, min_abs: f64) -> BurstScan {
    let vals = present(series);
    let baseline = median(&vals).unwrap_or(0.0);
    let spread = mad(&vals).unwrap_or(0.0);
    let threshold = (baseline + k * spread).max(baseline * min_ratio).max(min_abs);
    let mut bursts: Vec<Burst> = Vec::new();
    for (i, v) in series.iter().enumerate() {
        let Some(v) = v.get() else { continue };
        if v <= threshold {
            continue;
        }
        match bursts.last_mut() {
            Some(b) if i <= b.end + 2 => {
                b.end = i;
                b.total += v;
                if v > b.peak_value {
                    b.peak = i;
                    b.peak_value = v;
                }
            }
            _ => bursts.push(Burst { start: i, end: i, peak: i, peak_value: v, total: v }),
        }
    }
    // Include the shoulders: neighbouring seconds above the baseline belong to the burst's volume.
    for b in &mut bursts {
        for j in [b.start.checked_sub(1), Some(b.end + 1)].into_iter().flatten() {
            if let Some(v) = series.get(j).and_then(Cell::get)
                && v > baseline + 3.0 * spread
                && v > baseline * 2.0
            {
                b.total += v;
                if j < b.start {
                    b.start = j;
                } else {
                    b.end = j;
                }
            }
        }
    }
    BurstScan { baseline, spread, threshold, bursts }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_periodic_bursts() {
        let s: Vec<Cell> = (0..200)
            .map(|i| Cell::some(if i % 31 == 5 { 100e6 } else { 0.6e6 + (i % 3) as f64 * 1e4 }))
            .collect();
        let r = detect(&s, 8.0, 5.0, 0.0);
        assert_eq!(r.bursts.len(), 7);
        assert_eq!(r.bursts[1].start, 36);
        assert!((r.bursts[0].total - 100e6).abs() < 1.0);
    }

    #[test]
    fn gaps_are_not_bursts() {
        let s = vec![Cell::GAP; 50];
        assert!(detect(&s, 8.0, 5.0, 0.0).bursts.is_empty());
    }
}
