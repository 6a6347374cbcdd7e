//! The numbers a capture measures whatever its rules decide ([`Measures`]), each computed by
//! one function that the rule and `iosift diff` share: the load window and its commit and
//! flush rates ([`LoadRates::over`]), the lag of the replica falling behind fastest
//! ([`LagMeasure`]). The report carries them; the diff compares them, so the two never state
//! different numbers for the same capture.

use super::lag_witness::LagSeries;
use crate::table::Cell;
use crate::table::Col;

/// The numbers a capture measures whatever its rules decide, computed by the rules' own
/// functions (`crate::rules::measure`): the report states them and `iosift diff` compares
/// them, so the two never disagree.
#[derive(Debug, Clone, Default)]
pub struct Measures {
    /// Commit and flush rates over the load window (fsync_bound_small_transactions' numbers).
    pub load: Option<LoadRates>,
    /// The lag of the replica connection falling behind fastest (replication_lag's numbers).
    pub lag: Option<LagMeasure>,
    /// Share of perf samples in fsync paths, 0..1.
    pub fsync_sample_share: Option<f64>,
    /// Mean bytes per transaction of the chosen decoded binlog.
    pub bytes_per_transaction: Option<(f64, String)>,
}

/// Commit and flush rates over the load window: the seconds with at least
/// [`LoadRates::ACTIVE_TRX_S`] commits.
#[derive(Debug, Clone)]
pub struct LoadRates {
    /// The timeline column of the commit rate (`binlog.trx_s`, `mysql.Binlog_commits_s`).
    pub commit_column: Col,
    /// The timeline column of the flush rate (the device's `f_s`, else `Innodb_data_fsyncs`).
    pub flush_column: Col,
    /// The load window: timeline rows.
    pub rows: Vec<usize>,
    /// Its length in seconds (rows times the row width).
    pub seconds: f64,
    /// Mean commits per second over it.
    pub transactions_per_s: f64,
    /// Mean flushes per second over it.
    pub flushes_per_s: f64,
}

impl LoadRates {
    /// A row with at least this many commits per second is in the load window.
    pub const ACTIVE_TRX_S: f64 = 10.0;

    /// The load window among `rows` of the two columns' values (rows of `bin_s` seconds) and
    /// the mean rates over it: the one function behind the finding's numbers and the diff's.
    pub fn over(
        (commit_column, commits): (&Col, &[Cell]),
        (flush_column, flushes): (&Col, &[Cell]),
        rows: std::ops::Range<usize>,
        bin_s: i64,
    ) -> LoadRates {
        use crate::table::cell::at;
        let rows: Vec<usize> =
            rows.filter(|&r| at(commits, r).is_some_and(|v| v >= Self::ACTIVE_TRX_S)).collect();
        let over =
            |v: &[Cell]| super::stats::mean(&rows.iter().filter_map(|&r| at(v, r)).collect::<Vec<_>>());
        LoadRates {
            commit_column: commit_column.clone(),
            flush_column: flush_column.clone(),
            // A wider row holds its seconds' mean rate.
            seconds: (rows.len() as i64 * bin_s) as f64,
            transactions_per_s: over(commits).unwrap_or(0.0),
            flushes_per_s: over(flushes).unwrap_or(0.0),
            rows,
        }
    }

    /// Flushes per commit (`None` without commits).
    pub fn flushes_per_transaction(&self) -> Option<f64> {
        (self.transactions_per_s > 0.0).then(|| self.flushes_per_s / self.transactions_per_s)
    }
}

/// A replica connection's lag by its best witness, and the side that bounds it.
#[derive(Debug, Clone)]
pub struct LagMeasure {
    /// The readings of the best witness.
    pub series: LagSeries,
    /// The side that bounds it (`io_thread`, `sql_thread`), when measured.
    pub bound_by: Option<&'static str>,
}

impl LagMeasure {
    /// The readings from `from` to `to` (epoch seconds, inclusive): the whole series when the
    /// range holds it, so the diff of a whole capture reads the finding's numbers.
    pub fn within(&self, from: f64, to: f64) -> LagSeries {
        let mut s = self.series.clone();
        s.points.retain(|p| p.epoch >= from && p.epoch <= to);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::columns::{BinlogMetric, MysqlCounter};

    #[test]
    fn the_load_window_is_the_seconds_with_commits() {
        // mysqladmin Binlog_commits per second of mariadb_fsync_durable, start and end of the
        // benchmark: idle, a partial first second (282), the load, idle; flushes beside them.
        let commits =
            [0.0, 0.0, 3.0, 282.0, 1798.0, 1422.0, 1622.0, 1088.0, 1307.0, 969.0, 1324.0, 862.0, 0.0];
        let commits: Vec<Cell> = commits.iter().map(|&x| Cell::some(x)).collect();
        let flushes: Vec<Cell> = (0..commits.len()).map(|r| Cell::some(2.0 * r as f64)).collect();
        let (c, f) = (Col::Binlog(BinlogMetric::TrxS), Col::Mysql(MysqlCounter::InnodbDataFsyncsS));
        let l = LoadRates::over((&c, &commits), (&f, &flushes), 0..commits.len(), 1);
        assert_eq!(l.rows, (3..12).collect::<Vec<_>>());
        assert_eq!(l.seconds, 9.0);
        assert_eq!(l.transactions_per_s, 10674.0 / 9.0);
        assert_eq!(l.flushes_per_s, 2.0 * 63.0 / 9.0);
        // Only the rows asked: a compared span that starts later.
        let late = LoadRates::over((&c, &commits), (&f, &flushes), 8..13, 2);
        assert_eq!((late.rows, late.seconds), (vec![8, 9, 10, 11], 8.0));
        let idle = LoadRates::over((&c, &commits[..3]), (&f, &flushes), 0..3, 1);
        assert_eq!(
            (idle.rows.len(), idle.transactions_per_s, idle.flushes_per_transaction()),
            (0, 0.0, None)
        );
    }
}
