//! Periodicity: the period of a per-second series from its autocorrelation
//! (the first strong peak after the zero crossing) checked against a
//! periodogram, with a confidence; and the period of burst onsets.

use crate::table::Cell;

use super::stats::{mean, median};

/// A detected period.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Period {
    /// Period in seconds.
    pub period_s: f64,
    /// 0..1: how clearly the series repeats with this period.
    pub confidence: f64,
    /// How it was found (`burst-intervals`, `autocorrelation`).
    pub method: &'static str,
}

/// Autocorrelation of a series for lags 0..=max_lag (gaps filled with the mean).
pub fn autocorrelation(series: &[Cell], max_lag: usize) -> Vec<f64> {
    let vals: Vec<f64> = series.iter().flatten().collect();
    let m = mean(&vals).unwrap_or(0.0);
    let x: Vec<f64> = series.iter().map(|v| v.unwrap_or(m) - m).collect();
    let var: f64 = x.iter().map(|v| v * v).sum();
    let n = x.len();
    (0..=max_lag.min(n.saturating_sub(1)))
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
pub fn periodogram(series: &[Cell], periods: &[f64]) -> Vec<f64> {
    let vals: Vec<f64> = series.iter().flatten().collect();
    let m = mean(&vals).unwrap_or(0.0);
    let x: Vec<f64> = series.iter().map(|v| v.unwrap_or(m) - m).collect();
    let p: Vec<f64> = periods
        .iter()
        .map(|&per| {
            let w = std::f64::consts::TAU / per;
            let (mut re, mut im) = (0.0, 0.0);
            // cos/sin of w·i by rotating one step at a time (a complex product instead of a
            // sincos per sample: 10 % of a 4-day bundle's analysis), taken exactly again every
            // block so that rounding cannot build up.
            let (step_s, step_c) = w.sin_cos();
            for (b, block) in x.chunks(ROTATION_BLOCK).enumerate() {
                let (mut s, mut c) = (w * (b * ROTATION_BLOCK) as f64).sin_cos();
                for v in block {
                    re += v * c;
                    im += v * s;
                    (c, s) = (c * step_c - s * step_s, s * step_c + c * step_s);
                }
            }
            re * re + im * im
        })
        .collect();
    let total: f64 = p.iter().sum();
    if total > 0.0 { p.iter().map(|v| v / total).collect() } else { p }
}

/// Period from the autocorrelation: the highest local maximum after the first
/// zero crossing, between `min_lag` and `max_lag`. Confidence is the
/// autocorrelation value there (clamped to 0..1).
pub fn acf_period(acf: &[f64], min_lag: usize) -> Option<Period> {
    let zero = acf.iter().position(|&v| v <= 0.0)?;
    let mut best: Option<(usize, f64)> = None;
    for lag in zero.max(min_lag).max(1)..acf.len().saturating_sub(1) {
        if acf[lag] >= acf[lag - 1] && acf[lag] >= acf[lag + 1] && best.is_none_or(|(_, v)| acf[lag] > v) {
            best = Some((lag, acf[lag]));
        }
    }
    let (lag, v) = best?;
    // Refine with a parabola through the neighbours.
    let (a, b, c) = (acf[lag - 1], acf[lag], acf[lag + 1]);
    let denom = a - 2.0 * b + c;
    let shift = if denom.abs() > 1e-12 { 0.5 * (a - c) / denom } else { 0.0 };
    Some(Period {
        period_s: lag as f64 + shift.clamp(-0.5, 0.5),
        confidence: v.clamp(0.0, 1.0),
        method: "autocorrelation",
    })
}

/// Period from burst onsets: the median interval between successive bursts,
/// with a confidence from how regular the intervals are (1 - relative MAD),
/// scaled down when there are few intervals.
pub fn onset_period(onsets: &[f64]) -> Option<Period> {
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
    fn onsets_give_period_and_confidence() {
        let p = onset_period(&[34.0, 65.0, 97.0, 128.0, 159.0, 191.0, 222.0]).unwrap();
        assert_eq!(p.period_s, 31.0);
        assert!(p.confidence > 0.9);
        let irregular = onset_period(&[0.0, 5.0, 40.0, 42.0, 90.0]).unwrap();
        assert!(irregular.confidence < 0.5);
    }
}
