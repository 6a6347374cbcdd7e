//! Per-source tables of `iosift tables`: one long table per input file, on
//! the bundle's clock. A source's own rows when its adapter has them (every
//! counter as read, every binlog second), else every point it emits onto the
//! timeline, with every entity (all devices and threads, not only those the
//! timeline keeps).

use super::LongTable;
use crate::clock::Zone;
use crate::source::{self, ParsedFile};

/// The long table of one file; `emitted` gives its timeline points as
/// (epoch, column name, value, interval seconds) when the adapter has no rows of its own.
pub fn source_table(
    f: &ParsedFile,
    zone: &Zone,
    time_inferred: bool,
    emitted: impl FnOnce() -> Vec<(f64, String, f64, f64)>,
) -> Option<LongTable> {
    let d = f.data.as_ref()?;
    let mut t = LongTable { time_inferred, ..Default::default() };
    match source::of(d).raw_rows(zone) {
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
    Some(t)
}
