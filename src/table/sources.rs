//! Per-source tables of `iosift tables`: one long table per input file, on
//! the bundle's clock. A source's own rows when its adapter has them (every
//! counter as read, every binlog second), else every point it emits onto the
//! timeline, with every entity (all devices and threads, not only those the
//! timeline keeps). The caller asks the adapter; this module only shapes the
//! table (table does not depend on source).

use super::LongTable;

/// One row of a per-source table: a value measured over `(end - interval, end]`
/// (interval 0: sampled at `end`).
#[derive(Debug, Clone, PartialEq)]
pub struct RawRow {
    /// Epoch seconds.
    pub end: f64,
    /// Seconds covered (0 for snapshots).
    pub interval: f64,
    /// What the value is about (`mysql`, `binlog`, empty for host-wide).
    pub entity: &'static str,
    /// Metric as the file names it.
    pub metric: String,
    /// Value.
    pub value: f64,
}

/// The long table of one file: its own `raw` rows when its adapter has them, else
/// `emitted` (its timeline points as (epoch, column name, value, interval seconds)).
pub(crate) fn source_table(
    raw: Option<Vec<RawRow>>,
    time_inferred: bool,
    emitted: impl FnOnce() -> Vec<(f64, String, f64, f64)>,
) -> LongTable {
    let mut t = LongTable { time_inferred, ..Default::default() };
    match raw {
        Some(rows) => {
            for r in rows {
                if r.interval > 0.0 {
                    t.push_over(r.end, r.interval, r.entity, &r.metric, Some(r.value));
                } else {
                    t.push(r.end, r.entity, &r.metric, Some(r.value));
                }
            }
        }
        None => {
            for (e, name, v, interval) in emitted() {
                t.push_named(e, interval, &name, Some(v));
            }
        }
    }
    t
}
