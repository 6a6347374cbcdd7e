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
    /// Each second's floor when the scan was against a local floor
    /// ([`detect_over_floor`]); empty: the baseline is every second's.
    #[serde(skip)]
    pub floors: Vec<f64>,
}

impl BurstScan {
    /// The floor of second `i`: its local one, else the baseline.
    pub fn floor(&self, i: usize) -> f64 {
        self.floors.get(i).copied().unwrap_or(self.baseline)
    }
}

/// Finds bursts. `k` is the MAD multiplier (8 is strict); `min_ratio` the
/// factor over the median a hot second must also reach; `min_abs` an absolute floor.
pub fn detect(series: &[Cell], k: f64, min_ratio: f64, min_abs: f64) -> BurstScan {
    let vals = present(series);
    let baseline = median(&vals).unwrap_or(0.0);
    let spread = mad(&vals).unwrap_or(0.0);
    scan(series, baseline, spread, &[], k, min_ratio, min_abs)
}

/// [`detect`] over a device that writes steadily, against its local floor: the median of
/// the [`FLOOR_WINDOW`] seconds around each second, so that a flush over a database's
/// floor of tens of MB/s and one in the idle seconds before the load starts both stand
/// out. The spread is that of the seconds' distance to their floor.
pub fn detect_over_floor(series: &[Cell], k: f64, min_ratio: f64, min_abs: f64) -> BurstScan {
    let vals = present(series);
    let baseline = median(&vals).unwrap_or(0.0);
    let half = FLOOR_WINDOW / 2;
    let floors: Vec<f64> = (0..series.len())
        .map(|i| {
            let w = present(&series[i.saturating_sub(half)..(i + half + 1).min(series.len())]);
            median(&w).unwrap_or(baseline)
        })
        .collect();
    let residual: Vec<f64> = series.iter().zip(&floors).filter_map(|(v, f)| v.get().map(|v| v - f)).collect();
    let spread = mad(&residual).unwrap_or(0.0);
    scan(series, baseline, spread, &floors, k, min_ratio, min_abs)
}

/// A device whose median second writes at least this much (bytes/s) has a busy floor:
/// when [`detect`] finds fewer than [`FEW_BURSTS`] bursts on it, the bursts over its floor
/// ([`detect_over_floor`]) are read too.
pub const FLOOR_MIN_BYTES_S: f64 = 4.0 * 1024.0 * 1024.0;
/// See [`FLOOR_MIN_BYTES_S`].
pub const FEW_BURSTS: usize = 3;
/// A burst over a busy floor stands out by this many times the floor ...
pub const FLOOR_RATIO: f64 = 2.0;
/// ... and this many times the floor's own spread above it.
pub const FLOOR_K: f64 = 5.0;

/// The scan over the floor ([`detect_over_floor`] with [`FLOOR_K`] and [`FLOOR_RATIO`])
/// when `strict` found fewer than [`FEW_BURSTS`] bursts on a busy device, else None.
pub fn over_busy_floor(series: &[Cell], strict: &BurstScan, min_abs: f64) -> Option<BurstScan> {
    (strict.bursts.len() < FEW_BURSTS && strict.baseline >= FLOOR_MIN_BYTES_S)
        .then(|| detect_over_floor(series, FLOOR_K, FLOOR_RATIO, min_abs))
}

/// The seconds around each second whose median is its floor in [`detect_over_floor`].
pub const FLOOR_WINDOW: usize = 15;

/// The hot seconds of `series` over their floor (`floors[i]`, else `baseline`) and `spread`,
/// grouped into bursts.
fn scan(
    series: &[Cell],
    baseline: f64,
    spread: f64,
    floors: &[f64],
    k: f64,
    min_ratio: f64,
    min_abs: f64,
) -> BurstScan {
    let hot = |i: usize| {
        let f = floors.get(i).copied().unwrap_or(baseline);
        (f + k * spread).max(f * min_ratio).max(min_abs)
    };
    let threshold = (baseline + k * spread).max(baseline * min_ratio).max(min_abs);
    let mut bursts: Vec<Burst> = Vec::new();
    for (i, v) in series.iter().enumerate() {
        let Some(v) = v.get() else { continue };
        if v <= hot(i) {
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
    // Include the shoulders: neighbouring seconds above the floor belong to the burst's volume.
    for b in &mut bursts {
        for j in [b.start.checked_sub(1), Some(b.end + 1)].into_iter().flatten() {
            let f = floors.get(j).copied().unwrap_or(baseline);
            if let Some(v) = series.get(j).and_then(Cell::get)
                && v > f + 3.0 * spread
                && v > f * 2.0
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
    BurstScan { baseline, spread, threshold, bursts, floors: floors.to_vec() }
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
