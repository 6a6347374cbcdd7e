//! Formats that are recognised (inventory, inspect, format detection) but
//! feed nothing to the timeline or the rules yet, each with the reason.

use super::Adapter;

/// A format that feeds nothing; the text says why.
pub(super) struct Inert(pub &'static str);

impl Adapter<'_> for Inert {
    fn inert(&self) -> Option<&'static str> {
        Some(self.0)
    }
}

/// `ps`: a process list without I/O figures (top -b carries the D states).
pub(super) const PS: &str = "ps lists processes without I/O figures; top -b gives the D states";
/// `df`: free space; no rule concerns a full filesystem yet.
pub(super) const DF: &str = "df gives free space; no rule concerns a full filesystem yet";
/// binlog summaries.
pub(super) const BINLOGSUM: &str =
    "a per-table binlog summary has no times; the decoded binlog feeds the binlog series";
/// `perf report`.
pub(super) const PERF_REPORT: &str =
    "perf report is an aggregate without times; perf script feeds the perf series";
/// Thread lists.
pub(super) const THREAD_LIST: &str =
    "a workload's thread list names threads the taxonomy already categorises";
/// Error logs.
pub(super) const ERROR_LOG: &str = "the MySQL error log is not read for events yet";
/// dd summaries.
pub(super) const DD_SUMMARY: &str =
    "a dd summary gives one total; device metrics show the same writes per second";
/// Checksums.
pub(super) const CHECKSUMS: &str = "a checksum list verifies the bundle; it measures nothing";
/// perf record logs.
pub(super) const PERF_RECORD_LOG: &str =
    "perf record's log says what was recorded; perf script has the samples";
/// Generic CSV tables.
pub(super) const CSV_TABLE: &str = "a CSV table of unknown columns: nothing is known to measure";
