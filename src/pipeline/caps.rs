//! The caps and selections the range pass and the fill share: how many devices and
//! per-thread columns the timeline keeps, which processes the capture was pointed at,
//! and which stated intervals are usable.

use super::ParsedFile;
use crate::table::Col;
use crate::table::timeline::MAX_FILL_S;
use std::collections::BTreeSet;

/// Per-thread columns the timeline keeps after the fill: the busiest writers by bytes.
pub const KEPT_THREADS: usize = 8;

/// Per-thread columns filled at all: the busiest by the first pass's bytes. Only the
/// [`KEPT_THREADS`] busiest by the fill's own totals stay, so filling the columns of
/// every thread a `pidstat -t` of days names (109 threads of 4 days: 660 MB of cells,
/// each dropped after the fill) is not needed; the margin covers a ranking that the
/// cadence of unstated intervals shifts between the passes (a thread of the final top
/// [`KEPT_THREADS`] outside the candidates is named in a warning). Each candidate is a
/// column of the whole timeline while the fill runs: 32 of them were 190 MB of the 4.4-day
/// bench bundle's peak, 16 are half that, and staged at 8 bytes a cell
/// ([`Timeline::staged`]) a quarter.
pub const THREAD_CANDIDATES: usize = 16;

/// Per-thread columns kept beyond [`KEPT_THREADS`] for the processes the collector was
/// pointed at ([`target_pids`]).
pub const KEPT_TARGET_THREADS: usize = 8;

/// The processes a capture was pointed at: `collect.sh -p PID` writes
/// `smaps-PID-COMM.txt`, `smaps_rollup-PID-COMM.txt` and `threads-PID-COMM.txt` for each.
pub fn target_pids(files: &[ParsedFile]) -> BTreeSet<u32> {
    files
        .iter()
        .filter_map(|f| {
            let rest = ["smaps-", "smaps_rollup-", "threads-"].iter().find_map(|p| f.base.strip_prefix(p))?;
            let (pid, _comm) = rest.split_once('-')?;
            pid.parse().ok()
        })
        .collect()
}

/// Most devices the timeline keeps columns for: the busiest by bytes read and
/// written. The others are left out of the timeline (and said so in a warning);
/// `iosift tables` keeps every device. An iostat of 200,000 devices made a
/// timeline (and a Parquet file) of 4 million columns.
pub const MAX_DEVICES: usize = 64;

/// Sorts (key, bytes) pairs busiest first, ties by key (the order every cap keeps).
pub(crate) fn busiest_first<K: Ord>(v: &mut [(K, f64)]) {
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
}

/// The device of a per-device column.
pub(crate) fn device_of(col: &Col) -> Option<&str> {
    let (Col::Dev(d, _) | Col::Ds(d, _)) = col else { return None };
    Some(d)
}

/// An interval a file states, when it is usable.
pub(crate) fn usable(known: Option<f64>) -> Option<f64> {
    known.filter(|k| k.is_finite() && *k > 0.0 && *k <= MAX_FILL_S)
}
