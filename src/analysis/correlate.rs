//! Lagged correlations between timeline columns: pages dirtied, pidstat's
//! writers and binlog bytes against the device writes; the commit rate
//! against perf's fsync samples.

use crate::table::Cell;
use rayon::prelude::*;

use super::stats;
use crate::table::Timeline;
use crate::table::columns::{BinlogMetric, Col, PerfMetric, VmCounter};
use serde::Serialize;

/// A lagged correlation between two timeline columns.
#[derive(Debug, Clone, Serialize)]
pub struct Correlation {
    /// Leading series (column name).
    pub a: String,
    /// Following series.
    pub b: String,
    /// Human label of the pair.
    pub label: String,
    /// Lag of the best correlation (seconds; positive = b follows a).
    pub best_lag_s: i64,
    /// Pearson r at that lag.
    pub best_r: f64,
    /// Pairs used.
    pub n: usize,
    /// r by lag: (lag seconds, r).
    pub curve: Vec<(i64, f64)>,
    /// The largest |r| the same lag search finds when the leading series is shuffled
    /// ([`SHUFFLES`] fixed permutations of its values, gaps kept in place): what noise
    /// alone reaches. A best |r| not above it is no evidence of a relation.
    pub shuffled_r: f64,
}

/// Permutations of the leading series tried for [`Correlation::shuffled_r`].
pub(crate) const SHUFFLES: usize = 8;

/// Lags searched, in rows (seconds, unless the timeline's rows are wider) either way.
const MAX_LAG: i64 = 60;

/// The best (lag, r) by |r| over -[`MAX_LAG`]..=[`MAX_LAG`] and the curve.
fn lag_search(a: &[Cell], b: &[Cell]) -> Vec<(i64, f64)> {
    // Each lag on its own (on every core), in this order.
    (-MAX_LAG..=MAX_LAG)
        .into_par_iter()
        .filter_map(|lag| stats::lagged_pearson(a, b, lag as isize).map(|(r, _)| (lag, r)))
        .collect()
}

/// The largest |r| of the lag search over [`SHUFFLES`] deterministic shuffles of `a`'s
/// present values (xorshift seeded by the permutation number: reruns agree).
fn shuffled_max(a: &[Cell], b: &[Cell]) -> f64 {
    let slots: Vec<usize> = (0..a.len()).filter(|&i| a[i].is_some_and(f64::is_finite)).collect();
    // Each permutation on its own (on every core); the largest is the same in any order.
    let best_of = |k: usize| {
        let mut vals: Vec<f64> = slots.iter().filter_map(|&i| a[i].get()).collect();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15 ^ (k as u64 + 1).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        for i in (1..vals.len()).rev() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            vals.swap(i, (x % (i as u64 + 1)) as usize);
        }
        let mut s: Vec<Cell> = vec![Cell::GAP; a.len()];
        for (slot, v) in slots.iter().zip(vals) {
            s[*slot] = Cell::some(v);
        }
        lag_search(&s, b).into_iter().fold(0.0f64, |best, (_, r)| best.max(r.abs()))
    };
    (0..SHUFFLES).into_par_iter().map(best_of).reduce(|| 0.0, f64::max)
}

/// The name of the sum of every write-source category (not a timeline column).
pub(crate) const PIDSTAT_TOTAL: &str = "pidstat.total";

/// The pairs of series correlated: (leading, following, label); a leading `None` is the sum
/// of every write-source category ([`PIDSTAT_TOTAL`]).
fn pairs(tl: &Timeline, write_col: Option<&Col>) -> Vec<(Option<Col>, Col, String)> {
    let has = |c: &Col| tl.get(c).is_some();
    let mut pairs: Vec<(Option<Col>, Col, String)> = Vec::new();
    if let Some(w) = write_col {
        let leads = [
            (
                Some(Col::Vm(VmCounter::NrDirtiedS)),
                "pages dirtied (/proc/vmstat nr_dirtied) vs device writes",
            ),
            (None, "bytes dirtied per pidstat (all threads) vs device writes"),
            (Some(Col::Binlog(BinlogMetric::BytesS)), "binlog bytes vs device writes"),
        ];
        for (lead, label) in leads {
            let present = match &lead {
                Some(c) => has(c),
                None => tl.iter().any(|(c, _)| matches!(c, Col::Category(_))),
            };
            if present {
                pairs.push((lead, w.clone(), label.into()));
            }
        }
    }
    let (trx, fsyncs) = (Col::Binlog(BinlogMetric::TrxS), Col::Perf(PerfMetric::FsyncSamplesS));
    if has(&fsyncs) && has(&trx) {
        pairs.push((Some(trx), fsyncs, "commit rate vs fsync samples (perf)".into()));
    }
    pairs
}

/// Correlations at lags of -60..=60 s of the pairs present; `write_col` is the main device's writes.
pub(crate) fn correlations(tl: &Timeline, write_col: Option<&Col>) -> Vec<Correlation> {
    let pairs = pairs(tl, write_col);
    let total: Vec<Cell> = {
        let cats: Vec<&[Cell]> = tl
            .iter()
            .filter(|(c, _)| matches!(c, Col::Category(_)))
            .map(|(_, s)| s.values.as_slice())
            .collect();
        (0..tl.len)
            .map(|i| {
                let vals: Vec<f64> = cats.iter().filter_map(|c| c[i].get()).collect();
                Cell::new((!vals.is_empty()).then(|| vals.iter().sum()))
            })
            .collect()
    };
    let mut out = Vec::new();
    for (a, b, label) in pairs {
        let av: &[Cell] = match &a {
            Some(a) => tl.get(a).unwrap_or(&[]),
            None => &total,
        };
        let bv = tl.get(&b).unwrap_or(&[]);
        let (a, b) = (a.map_or_else(|| PIDSTAT_TOTAL.to_string(), |a| a.name()), b.name());
        let curve = lag_search(av, bv);
        let Some(&(best_lag_s, best_r)) = curve.iter().max_by(|x, y| x.1.abs().total_cmp(&y.1.abs())) else {
            continue;
        };
        let n = stats::lagged_pearson(av, bv, best_lag_s as isize).map_or(0, |x| x.1);
        let shuffled_r = shuffled_max(av, bv);
        // Lags are in rows: seconds in rows wider than one.
        let bin = tl.bin();
        let curve = curve.into_iter().map(|(lag, r)| (lag * bin, r)).collect();
        out.push(Correlation { a, b, label, best_lag_s: best_lag_s * bin, best_r, n, curve, shuffled_r });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::columns::DevMetric;

    #[test]
    fn dirtied_pages_lead_the_device_by_their_lag() {
        let mut tl = Timeline::new(0.0, 99.0);
        for t in 0..100 {
            let dirtied = ((t * t * 37 + t * 11) % 101) as f64;
            tl.set_gauge(&Col::Vm(VmCounter::NrDirtiedS), "vmstat", t as f64, dirtied);
            tl.set_gauge(
                &Col::Dev("vda".into(), DevMetric::WBytesS),
                "iostat",
                (t + 3) as f64,
                dirtied * 4096.0,
            );
        }
        let c = correlations(&tl, Some(&Col::Dev("vda".into(), DevMetric::WBytesS)));
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].best_lag_s, (c[0].best_r * 1000.0).round()), (3, 1000.0));
        assert!(
            c[0].shuffled_r < 0.6,
            "shuffled dirtied pages no longer predict the device: {}",
            c[0].shuffled_r
        );
        assert!(correlations(&tl, None).is_empty());
    }
}
