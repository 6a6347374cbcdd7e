//! Robust statistics on series with gaps (`None` = no data, never zero):
//! median, MAD, quantiles, Pearson correlation over the shared points.

use crate::table::Cell;

/// Median of the present values (`None` when there are none).
pub(crate) fn median(v: &[f64]) -> Option<f64> {
    quantile(v, 0.5)
}

/// Quantile `q` in [0, 1] with linear interpolation.
pub(crate) fn quantile(v: &[f64], q: f64) -> Option<f64> {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return None;
    }
    s.sort_by(f64::total_cmp);
    let pos = q.clamp(0.0, 1.0) * (s.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    Some(s[lo] + (s[hi] - s[lo]) * (pos - lo as f64))
}

/// Median absolute deviation, scaled to estimate a standard deviation (x 1.4826).
pub(crate) fn mad(v: &[f64]) -> Option<f64> {
    let m = median(v)?;
    let dev: Vec<f64> = v.iter().filter(|x| x.is_finite()).map(|x| (x - m).abs()).collect();
    median(&dev).map(|d| d * 1.4826)
}

/// Mean of the present values.
pub(crate) fn mean(v: &[f64]) -> Option<f64> {
    let (s, n) = v.iter().filter(|x| x.is_finite()).fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    (n > 0).then(|| s / n as f64)
}

/// The present values of an optional series.
pub(crate) fn present(v: &[Cell]) -> Vec<f64> {
    v.iter().flatten().filter(|x| x.is_finite()).collect()
}

/// Pearson correlation of `a[i]` and `b[i + lag]` over indices where both are present.
/// Returns the coefficient and the number of pairs (`None` below 8 pairs or zero variance).
pub(crate) fn lagged_pearson(a: &[Cell], b: &[Cell], lag: isize) -> Option<(f64, usize)> {
    let mut n = 0usize;
    let (mut sa, mut sb, mut saa, mut sbb, mut sab) = (0.0, 0.0, 0.0, 0.0, 0.0);
    // The rows where both exist: a[i] with b[i + lag].
    let from = (-lag).max(0) as usize;
    let to = (b.len() as isize - lag).clamp(0, a.len() as isize) as usize;
    let shift = |i: usize| (i as isize + lag) as usize;
    let (a, b) = if from < to { (&a[from..to], &b[shift(from)..shift(to)]) } else { (&a[..0], &b[..0]) };
    for (x, y) in a.iter().zip(b) {
        if let (Some(x), Some(y)) = (x.get(), y.get()) {
            if !x.is_finite() || !y.is_finite() {
                continue;
            }
            n += 1;
            sa += x;
            sb += y;
            saa += x * x;
            sbb += y * y;
            sab += x * y;
        }
    }
    if n < 8 {
        return None;
    }
    let nf = n as f64;
    let cov = sab - sa * sb / nf;
    let va = saa - sa * sa / nf;
    let vb = sbb - sb * sb / nf;
    if va <= 1e-12 || vb <= 1e-12 {
        return None;
    }
    Some(((cov / (va.sqrt() * vb.sqrt())).clamp(-1.0, 1.0), n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lagged_pearson_pairs_the_rows_that_exist_at_every_lag() {
        let a: Vec<Cell> = (0..50).map(|i| Cell::new((i % 7 != 3).then(|| ((i * 13) % 11) as f64))).collect();
        let b: Vec<Cell> = (0..40).map(|i| Cell::new((i % 5 != 1).then(|| ((i * 7) % 9) as f64))).collect();
        for lag in [-60, -45, -39, -10, -1, 0, 1, 10, 39, 40, 49, 60] {
            // The pairs one index at a time, as the definition reads.
            let pairs: Vec<(f64, f64)> = (0..a.len() as isize)
                .filter_map(|i| Some((a[i as usize].get()?, b.get(usize::try_from(i + lag).ok()?)?.get()?)))
                .collect();
            let got = lagged_pearson(&a, &b, lag);
            assert_eq!(got.is_some(), pairs.len() >= 8, "lag {lag}: {} pairs", pairs.len());
            if let Some((r, n)) = got {
                let x: Vec<f64> = pairs.iter().map(|p| p.0).collect();
                let y: Vec<f64> = pairs.iter().map(|p| p.1).collect();
                let (mx, my) = (x.iter().sum::<f64>() / n as f64, y.iter().sum::<f64>() / n as f64);
                let cov: f64 = x.iter().zip(&y).map(|(p, q)| (p - mx) * (q - my)).sum();
                let vx: f64 = x.iter().map(|p| (p - mx).powi(2)).sum();
                let vy: f64 = y.iter().map(|q| (q - my).powi(2)).sum();
                assert!((r - cov / (vx * vy).sqrt()).abs() < 1e-9, "lag {lag}");
                assert_eq!(n, pairs.len(), "lag {lag}");
            }
        }
    }

    #[test]
    fn robust_stats() {
        let v = [1.0, 2.0, 3.0, 4.0, 100.0];
        assert_eq!(median(&v), Some(3.0));
        assert!((mad(&v).unwrap() - 1.4826).abs() < 1e-9);
        assert_eq!(quantile(&v, 1.0), Some(100.0));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn lag_finds_shift() {
        let a: Vec<Cell> = (0..100).map(|i| Cell::some(((i * 7919) % 13) as f64)).collect();
        let mut b = vec![Cell::some(0.0); 3];
        b.extend(a.iter().copied());
        let (r, _) = lagged_pearson(&a, &b, 3).unwrap();
        assert!(r > 0.999);
        let (r0, _) = lagged_pearson(&a, &b, 0).unwrap();
        assert!(r0 < 0.5);
    }
}
