//! Which side bounds a lagging replica, measured (issue 34, EVIDENCE.md
//! section 4): the IO thread when the SQL thread executes all that arrives
//! (then what the IO thread waits on: the source or the link when its state
//! is `Waiting for master to send event`, its own writes when it is
//! `Queueing master event to the relay log` or in fsync), the SQL thread when
//! the relay-log backlog grows (then what its perf stacks do: row lookups on
//! a CPU, or commits). The remedy follows the class: relaxing durability
//! helps only where the replica's own flushes bound it.

use super::PerfInput;
use super::replication::{ReplicaView, ThreadFsync};

/// The replication thread a lag is bound by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The IO (receiver) thread.
    Io,
    /// The SQL (applier) thread.
    Sql,
}

impl Side {
    /// `io_thread` / `sql_thread` (the rule's `bound_by`).
    pub fn id(self) -> &'static str {
        match self {
            Side::Io => "io_thread",
            Side::Sql => "sql_thread",
        }
    }

    /// The thread as the page names it.
    pub fn thread(self) -> &'static str {
        match self {
            Side::Io => "replica IO thread",
            Side::Sql => "replica SQL thread",
        }
    }
}

/// What bounds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BoundClass {
    /// The IO thread waits on the source or the link.
    LinkOrSource,
    /// The IO thread's own relay-log (and master-info) writes and flushes.
    IoThreadWrites,
    /// The IO thread, what it waits on not told apart.
    IoThread,
    /// The SQL thread's row apply on a CPU (row lookups, table scans).
    SqlApplyCpu,
    /// The SQL thread's commits (log writes and flushes).
    SqlCommit,
    /// The SQL thread, what it spends its time on not told apart.
    SqlThread,
    /// Not measured.
    #[default]
    Unknown,
}

impl BoundClass {
    /// Stable id (findings.json `bound_class`, truth.json `expect_bound_class`).
    pub fn id(self) -> &'static str {
        match self {
            BoundClass::LinkOrSource => "link_or_source",
            BoundClass::IoThreadWrites => "io_thread_writes",
            BoundClass::IoThread => "io_thread",
            BoundClass::SqlApplyCpu => "sql_apply_cpu",
            BoundClass::SqlCommit => "sql_commit",
            BoundClass::SqlThread => "sql_thread",
            BoundClass::Unknown => "unknown",
        }
    }
}

/// Where the replication threads' perf stacks are (weights of the folded stacks, by their entry frame).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StackProfile {
    /// SQL thread stacks (`handle_slave_sql`, parallel workers).
    pub sql: u64,
    /// ... under a row lookup (`Rows_log_event::find_row`, MySQL's `do_*_scan_and_update`).
    pub sql_row_search: u64,
    /// ... of which table scans (`ha_rnd_next`, `rnd_next`).
    pub sql_scan: u64,
    /// ... under a commit (`ha_commit_trans`, `trans_commit`).
    pub sql_commit: u64,
    /// IO thread stacks (`handle_slave_io`).
    pub io: u64,
    /// ... in fsync paths.
    pub io_fsync: u64,
}

impl StackProfile {
    /// Share of the SQL thread's stacks in row lookups.
    pub fn row_search_share(&self) -> Option<f64> {
        (self.sql > 0).then(|| self.sql_row_search as f64 / self.sql as f64)
    }

    /// Share of the SQL thread's stacks in commits.
    pub fn commit_share(&self) -> Option<f64> {
        (self.sql > 0).then(|| self.sql_commit as f64 / self.sql as f64)
    }
}

/// Entry frames of the SQL thread and its parallel workers (MariaDB, MySQL).
const SQL_ENTRY: [&str; 4] =
    ["handle_slave_sql", "handle_slave_worker", "handle_rpl_parallel_thread", "handle_sql_thread"];
/// Frames of a row lookup while applying a row event.
const ROW_SEARCH: [&str; 4] = [
    "Rows_log_event::find_row",
    "Rows_log_event::do_index_scan_and_update",
    "Rows_log_event::do_table_scan_and_update",
    "Rows_log_event::do_hash_scan_and_update",
];
/// Frames of a table scan.
const SCAN: [&str; 3] = ["handler::ha_rnd_next", "ha_rnd_next", "Rows_log_event::do_table_scan_and_update"];
/// Frames of a commit.
const COMMIT: [&str; 3] = ["ha_commit_trans", "trans_commit", "Xid_log_event::do_commit"];
/// fsync-like frames.
const FSYNC: [&str; 6] =
    ["fsync", "fdatasync", "do_fsync", "ext4_sync_file", "xfs_file_fsync", "blkdev_issue_flush"];

/// The profile of the replication threads' folded stacks, when perf caught them by name.
pub(crate) fn stack_profile(perf: &[PerfInput<'_>]) -> Option<StackProfile> {
    let mut p = StackProfile::default();
    for f in perf {
        for (stack, &w) in &f.script.collapsed {
            let frames: Vec<&str> = stack.split(';').collect();
            let has = |set: &[&str]| frames.iter().any(|fr| set.contains(fr));
            if has(&SQL_ENTRY) {
                p.sql += w;
                if has(&ROW_SEARCH) {
                    p.sql_row_search += w;
                    if has(&SCAN) {
                        p.sql_scan += w;
                    }
                }
                if has(&COMMIT) {
                    p.sql_commit += w;
                }
            } else if has(&["handle_slave_io"]) {
                p.io += w;
                if has(&FSYNC) {
                    p.io_fsync += w;
                }
            }
        }
    }
    (p.sql + p.io > 0).then_some(p)
}

/// The side and class a connection's lag is bound by, with the measurement that says so.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BoundView {
    /// The thread.
    pub side: Option<Side>,
    /// What bounds it.
    pub class: BoundClass,
    /// The measurement, in a sentence.
    pub why: String,
    /// The witness of the class (`SHOW SLAVE STATUS`, `perf`).
    pub source: &'static str,
    /// What would have told the class apart, when it is not.
    pub missing: Option<String>,
    /// The perf stacks of the replication threads.
    pub stacks: Option<StackProfile>,
    /// The bound thread's OS thread id (performance_schema.threads).
    pub tid: Option<u32>,
}

/// A share as `N %`.
fn pct(x: f64) -> String {
    format!("{:.0} %", x * 100.0)
}

/// Share of readings at or above this tells a thread state.
pub(crate) const STATE_SHARE: f64 = 0.5;
/// Share of a thread's perf samples (or stacks) at or above this tells what it does.
pub(crate) const STACK_SHARE: f64 = 0.5;
/// IO thread samples in fsync paths at or above this share: its own flushes.
pub(crate) const IO_FSYNC_SHARE: f64 = 0.3;

fn io_class(v: &ReplicaView, threads: Option<ThreadFsync>, b: &mut BoundView) {
    let s = v.states;
    let io_fsync = threads.filter(|t| t.io_samples >= 20).map(|t| t.io_fsync as f64 / t.io_samples as f64);
    let states = |x: Option<f64>, what: &str| {
        x.map(|x| format!("Slave_IO_State '{what}' in {} of {} readings", pct(x), s.io_readings))
    };
    if s.io_queueing.is_some_and(|x| x >= STATE_SHARE) || io_fsync.is_some_and(|x| x >= IO_FSYNC_SHARE) {
        b.class = BoundClass::IoThreadWrites;
        b.source = if io_fsync.is_some_and(|x| x >= IO_FSYNC_SHARE) { "perf" } else { "SHOW SLAVE STATUS" };
        let parts: Vec<String> = [
            states(s.io_queueing, "Queueing master event to the relay log"),
            io_fsync.map(|x| format!("{} of its perf samples in fsync paths", pct(x))),
        ]
        .into_iter()
        .flatten()
        .collect();
        b.why = format!("the IO thread writes what it receives: {}", parts.join(", "));
    } else if s.io_waiting.is_some_and(|x| x >= STATE_SHARE) {
        b.class = BoundClass::LinkOrSource;
        b.source = "SHOW SLAVE STATUS";
        b.why = format!(
            "the IO thread waits for the source to send events: {}{}",
            states(s.io_waiting, "Waiting for master to send event").unwrap_or_default(),
            io_fsync.map(|x| format!(", {} of its perf samples in fsync paths", pct(x))).unwrap_or_default()
        );
    } else {
        b.class = BoundClass::IoThread;
        b.missing = Some(if s.io_readings == 0 {
            "Slave_IO_State is not in the status series".into()
        } else {
            format!(
                "Slave_IO_State is split (waiting {}, queueing {})",
                s.io_waiting.map_or("?".into(), pct),
                s.io_queueing.map_or("?".into(), pct)
            )
        });
    }
}

fn sql_class(v: &ReplicaView, threads: Option<ThreadFsync>, stacks: Option<StackProfile>, b: &mut BoundView) {
    let on_cpu = threads.and_then(|t| t.sql_on_cpu());
    let cpu_text = on_cpu.map(|c| format!(", on a CPU {} of the time", pct(c))).unwrap_or_default();
    let enough = stacks.filter(|p| threads.is_none_or(|t| t.sql_samples >= 30) && p.sql > 0);
    let row = enough.and_then(|p| p.row_search_share());
    let commit = enough.and_then(|p| p.commit_share());
    if let (Some(r), Some(p)) = (row.filter(|&r| r >= STACK_SHARE), enough) {
        b.class = BoundClass::SqlApplyCpu;
        b.source = "perf";
        b.why = format!(
            "the SQL thread looks rows up: {} of its perf stacks under Rows_log_event::find_row ({} table scans){cpu_text}",
            pct(r),
            pct(p.sql_scan as f64 / p.sql as f64)
        );
    } else if let Some(c) = commit.filter(|&c| c >= STACK_SHARE) {
        b.class = BoundClass::SqlCommit;
        b.source = "perf";
        b.why =
            format!("the SQL thread commits: {} of its perf stacks under ha_commit_trans{cpu_text}", pct(c));
    } else if enough.is_none() && v.states.sql_find_row.is_some_and(|x| x >= STATE_SHARE) {
        b.class = BoundClass::SqlApplyCpu;
        b.source = "SHOW SLAVE STATUS";
        b.why = format!(
            "the SQL thread looks rows up: Slave_SQL_Running_State '...find_row()' in {} of {} readings",
            pct(v.states.sql_find_row.unwrap_or(0.0)),
            v.states.sql_readings
        );
    } else {
        b.class = BoundClass::SqlThread;
        b.missing = Some(match enough {
            None => "no perf stacks of the SQL thread (collect.sh -P with the server's symbols)".into(),
            Some(_) => format!(
                "its perf stacks are split (row lookups {}, commits {})",
                row.map_or("?".into(), pct),
                commit.map_or("?".into(), pct)
            ),
        });
    }
}

/// The bound of `v`'s lag, from its rates and states and the replication threads' perf samples.
pub(crate) fn bound(
    v: &ReplicaView,
    threads: Option<ThreadFsync>,
    stacks: Option<StackProfile>,
) -> BoundView {
    let mut b = BoundView { stacks, source: "SHOW SLAVE STATUS", ..Default::default() };
    let kb = |x: Option<f64>| x.map_or("?".to_string(), |b| format!("{:.0} KiB/s", b / 1024.0));
    let side = match v.io_bound() {
        Some(io) => Some(if io { Side::Io } else { Side::Sql }),
        None => v.states.sql_idle.map(|x| if x >= STATE_SHARE { Side::Io } else { Side::Sql }),
    };
    b.side = side;
    match side {
        Some(Side::Io) => io_class(v, threads, &mut b),
        Some(Side::Sql) => sql_class(v, threads, stacks, &mut b),
        None => {
            b.missing =
                Some("the read and executed positions and the thread states are not in the series".into());
            return b;
        }
    }
    let side_text = match side {
        Some(Side::Io) => format!(
            "the SQL thread executes all the IO thread receives ({} of {}{})",
            kb(v.executed_bytes_s),
            kb(v.received_bytes_s),
            v.states
                .sql_idle
                .map(|x| format!(", idle at the end of the relay log in {} of the readings", pct(x)))
                .unwrap_or_default()
        ),
        Some(Side::Sql) | None => format!(
            "the relay-log backlog grows ({} received, {} executed)",
            kb(v.received_bytes_s),
            kb(v.executed_bytes_s)
        ),
    };
    b.why = if b.why.is_empty() { side_text } else { format!("{side_text}; {}", b.why) };
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_ids_are_stable() {
        assert_eq!(BoundClass::LinkOrSource.id(), "link_or_source");
        assert_eq!(BoundClass::default().id(), "unknown");
        assert_eq!(Side::Io.thread(), "replica IO thread");
    }
}
