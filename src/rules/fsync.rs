//! `fsync_bound_small_transactions` (case 3): the commit rate is bound by
//! device flushes of tiny transactions under `sync_binlog=1` /
//! `innodb_flush_log_at_trx_commit=1`.

use super::Outcome;
use super::evidence::{ctx_evidence, num, opt};
use super::inputs::{Available, BinlogFacts, Missing, Series};
use crate::analysis::replication::{ReplicaView, ThreadFsync};
use crate::analysis::stats::{mean, present};
use crate::model::{Evidence, Finding, Severity, Window};
use crate::pipeline::Sourced;
use crate::table::columns::{BinlogMetric, Col, DevMetric, DsMetric, MysqlCounter};

/// Rule id.
pub const ID: &str = "fsync_bound_small_transactions";

/// A second with at least this many commits is in the load window.
pub const ACTIVE_TRX_S: f64 = 10.0;
/// The load window must have at least this many seconds.
pub const MIN_ACTIVE_S: usize = 5;
/// Commits and flushes per second must both reach this ...
pub const MIN_RATE: f64 = 50.0;
/// ... with at least this many flushes per commit ...
pub const MIN_FLUSHES_PER_TRX: f64 = 0.3;
/// ... for transactions smaller than this (bytes), when their size is known.
pub const SMALL_TRX_BYTES: f64 = 16.0 * 1024.0;

/// The commit rate and the counter it comes from.
#[derive(Debug, Clone, Copy)]
pub struct Commits<'a> {
    /// `binlog.trx_s`, `mysql.Binlog_commits_s` or `mysql.Com_commit_s`.
    pub counter: BinlogOrStatus,
    /// Its series.
    pub series: Series<'a>,
}

/// Which counter gave the commit rate, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinlogOrStatus {
    /// Transactions of the decoded binlog.
    BinlogTrx,
    /// `Binlog_commits`: one per transaction written to the binary log.
    BinlogCommits,
    /// `Com_commit`: explicit COMMIT statements only.
    ComCommit,
}

impl BinlogOrStatus {
    /// The timeline column.
    pub fn col(self) -> Col {
        match self {
            BinlogOrStatus::BinlogTrx => Col::Binlog(BinlogMetric::TrxS),
            BinlogOrStatus::BinlogCommits => Col::Mysql(MysqlCounter::BinlogCommitsS),
            BinlogOrStatus::ComCommit => Col::Mysql(MysqlCounter::ComCommitS),
        }
    }

    /// What it counts, for the finding.
    pub fn meaning(self) -> &'static str {
        match self {
            BinlogOrStatus::BinlogTrx => "transactions of the decoded binary log",
            BinlogOrStatus::BinlogCommits => "Binlog_commits (one per transaction written to the binary log)",
            BinlogOrStatus::ComCommit => {
                "Com_commit (explicit COMMIT statements only: autocommit transactions are not counted)"
            }
        }
    }
}

/// What the rule reads.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// Commits per second.
    pub commits: Commits<'a>,
    /// Flushes per second: the device's, else InnoDB's fsyncs, else /proc/diskstats'.
    pub flushes: Series<'a>,
    /// The flushes are this server's `Innodb_data_fsyncs` because its source shares the device.
    pub own_fsyncs: bool,
    /// The chosen binlog (transaction sizes).
    pub binlog: Option<BinlogFacts<'a>>,
    /// `sync_binlog`.
    pub sync_binlog: Option<&'a Sourced<String>>,
    /// `innodb_flush_log_at_trx_commit`.
    pub flush_log: Option<&'a Sourced<String>>,
    /// `sync_relay_log`.
    pub sync_relay_log: Option<&'a Sourced<String>>,
    /// Share of perf samples in fsync paths.
    pub fsync_share: Option<f64>,
    /// This server's replication connection, when it is a replica.
    pub replica: Option<&'a ReplicaView>,
    /// perf samples of its replication threads.
    pub replica_threads: Option<ThreadFsync>,
}

/// Picks the inputs.
pub fn gather<'a>(a: &Available<'a>) -> Result<Inputs<'a>, Vec<Missing>> {
    // The commit rate: transactions of the decoded binlog, else `Binlog_commits` (one per
    // transaction). Never `Handler_commit` (one per engine taking part, plus read-only statements:
    // 2.4 per transaction in samples/pt_stalk_mariadb) nor a sum of `Com_*` (statements).
    // `Com_commit` counts explicit COMMITs only (autocommit transactions are missed): last resort.
    // A column of zeros (binary log off: `Binlog_commits` stays 0) is no rate.
    let commits = [BinlogOrStatus::BinlogTrx, BinlogOrStatus::BinlogCommits, BinlogOrStatus::ComCommit]
        .into_iter()
        .find_map(|counter| {
            let series = a.series(&counter.col()).filter(|s| s.values.iter().flatten().any(|x| *x > 0.0))?;
            Some(Commits { counter, series })
        });
    let replica = a.replicas().first();
    let fsyncs = a.series(&Col::Mysql(MysqlCounter::InnodbDataFsyncsS));
    // A source on the same host flushes the same device: the device's f/s is not this server's.
    let own_fsyncs = replica.is_some_and(|r| r.source_is_local()) && fsyncs.is_some();
    let flushes = a
        .device()
        .and_then(|d| a.series(&Col::Dev(d.name.clone(), DevMetric::FS)))
        .filter(|s| !own_fsyncs && present(s.values).iter().any(|x| *x > 0.0))
        .or(fsyncs)
        .or_else(|| a.first_column(|c| matches!(c, Col::Ds(_, DsMetric::FS))));
    let mut missing = Vec::new();
    if commits.is_none() {
        missing.push(Missing::CommitRate);
    }
    if flushes.is_none() {
        missing.push(Missing::FlushRate);
    }
    let (Some(commits), Some(flushes)) = (commits, flushes) else { return Err(missing) };
    Ok(Inputs {
        commits,
        flushes,
        own_fsyncs,
        binlog: a.binlog(),
        sync_binlog: a.variable("sync_binlog"),
        flush_log: a.variable("innodb_flush_log_at_trx_commit"),
        sync_relay_log: a.variable("sync_relay_log"),
        fsync_share: a.fsync_sample_share(),
        replica,
        replica_threads: a.replica_threads(),
    })
}

/// Evaluates the rule.
pub fn check(i: &Inputs<'_>) -> Outcome {
    let (trx, flush) = (i.commits.series.values, i.flushes.values);
    let trx_col = i.commits.series.name;
    let own_fsyncs = i.own_fsyncs;
    let replica = i.replica;
    let at = |v: &[Option<f64>], r: usize| v.get(r).copied().flatten();
    // Seconds with commits: the load window.
    let active: Vec<usize> =
        (0..trx.len()).filter(|&r| at(trx, r).is_some_and(|v| v >= ACTIVE_TRX_S)).collect();
    if active.len() < MIN_ACTIVE_S {
        return Outcome::Pass(format!("fewer than 5 seconds with commits ({} found)", active.len()));
    }
    let tps = mean(&active.iter().filter_map(|&r| at(trx, r)).collect::<Vec<_>>()).unwrap_or(0.0);
    let fps = mean(&active.iter().filter_map(|&r| at(flush, r)).collect::<Vec<_>>()).unwrap_or(0.0);
    let bytes_per_trx = i.binlog.map(|b| b.mean_bytes);
    let var = |s: Option<&Sourced<String>>| s.map(|s| s.value.trim().to_string());
    let sync_binlog = var(i.sync_binlog);
    let flush_log = var(i.flush_log);
    let durable = |v: &Option<String>| v.as_deref().map(|s| s == "1");
    let fsync_share = i.fsync_share;
    let relaxed = durable(&sync_binlog) == Some(false) && durable(&flush_log) == Some(false);
    let small = bytes_per_trx.is_none_or(|b| b < SMALL_TRX_BYTES);
    let flush_bound = tps >= MIN_RATE && fps >= MIN_RATE && fps >= MIN_FLUSHES_PER_TRX * tps;
    let mut metrics = std::collections::BTreeMap::new();
    metrics.insert("transactions_per_s", num(tps));
    metrics.insert("flushes_per_s", num(fps));
    metrics.insert("bytes_per_transaction", opt(bytes_per_trx));
    metrics.insert(
        "sync_binlog",
        sync_binlog.as_deref().and_then(|v| v.parse::<f64>().ok()).map_or(serde_json::Value::Null, num),
    );
    metrics.insert(
        "innodb_flush_log_at_trx_commit",
        flush_log.as_deref().and_then(|v| v.parse::<f64>().ok()).map_or(serde_json::Value::Null, num),
    );
    metrics.insert("flushes_per_transaction", num(if tps > 0.0 { fps / tps } else { 0.0 }));
    metrics.insert("fsync_sample_share", opt(fsync_share));
    let sync_relay = var(i.sync_relay_log);
    let on_replica = replica.map(|r| {
        let t = i.replica_threads;
        let share = |n: u64, d: u64| (d > 0).then(|| n as f64 / d as f64);
        let io = t.and_then(|t| share(t.io_fsync, t.io_samples));
        let sql = t.and_then(|t| share(t.sql_fsync, t.sql_samples));
        // The thread the flushes stall: by perf when both threads were sampled, else by the settings
        // (sync_relay_log=1 syncs the relay log after every event the IO thread writes).
        let thread = match (io, sql) {
            (Some(a), Some(b)) if a >= b => "io_thread",
            (Some(_), Some(_)) => "sql_thread",
            _ if sync_relay.as_deref() == Some("1") => "io_thread",
            _ => "sql_thread",
        };
        (r, thread, io, sql)
    });
    if let Some((r, thread, io, sql)) = &on_replica {
        metrics.insert("replica", serde_json::Value::Bool(true));
        metrics.insert("replica_thread", serde_json::Value::String(thread.to_string()));
        metrics.insert("io_thread_fsync_share", opt(*io));
        metrics.insert("sql_thread_fsync_share", opt(*sql));
        metrics.insert("source_on_this_host", serde_json::Value::Bool(r.source_is_local()));
    }
    let replica_note = on_replica.as_ref().map_or(String::new(), |(r, ..)| {
        format!(
            " on this replica (source {}): commits counted on its own clock ({trx_col}), flushes {}",
            r.source.as_deref().unwrap_or("?"),
            if own_fsyncs {
                "of this server (Innodb_data_fsyncs: the source on the same host flushes the same device)"
            } else {
                "of the device"
            }
        )
    });
    metrics.insert("commit_counter", serde_json::Value::String(i.commits.counter.meaning().to_string()));
    if relaxed || !flush_bound || !small {
        return Outcome::Pass(format!(
            "{tps:.0} transactions/s with {fps:.1} flushes/s{}{}{replica_note}: commits are not paying a flush each",
            bytes_per_trx.map_or(String::new(), |b| format!(", {b:.0} bytes each")),
            if relaxed {
                " (durability relaxed: sync_binlog and innodb_flush_log_at_trx_commit not 1)"
            } else {
                ""
            }
        ));
    }
    let mut evidence = Vec::new();
    for (s, metric) in [(i.sync_binlog, "sync_binlog"), (i.flush_log, "innodb_flush_log_at_trx_commit")] {
        if let Some(s) = s {
            evidence.push(ctx_evidence(s, metric));
        }
    }
    let f_at = |r: usize| at(flush, r).unwrap_or(0.0);
    if let Some(&row) = active.iter().max_by(|a, b| f_at(**a).total_cmp(&f_at(**b))) {
        evidence.push(i.flushes.evidence(row, "f/s", f_at(row)));
    }
    // The binlog the number came from.
    if let Some(b) = i.binlog {
        evidence.push(Evidence {
            file: b.file.to_string(),
            lines: None,
            metric: "mean bytes per transaction".into(),
            value: opt(bytes_per_trx),
            quote: None,
        });
    }
    let first = active.first().copied().unwrap_or(0);
    let last = active.last().copied().unwrap_or(0);
    let durability_known = sync_binlog.is_some() || flush_log.is_some();
    Outcome::Fire(Box::new(Finding {
        rule: ID,
        severity: Severity::Warning,
        confidence: if durability_known { 0.85 } else { 0.65 },
        summary: format!(
            "{tps:.0} small transactions/s{} each force a device flush: {fps:.0} flushes/s ({:.2} per transaction){}{}.",
            bytes_per_trx.map_or(String::new(), |b| format!(" of {b:.0} bytes")),
            fps / tps.max(1e-9),
            match (&sync_binlog, &flush_log) {
                (Some(a), Some(b)) => format!(" with sync_binlog={a}, innodb_flush_log_at_trx_commit={b}"),
                _ => " (durability settings not in the capture)".to_string(),
            },
            fsync_share.map_or(String::new(), |s| format!("; {:.0} % of perf samples are in fsync paths", s * 100.0)),
        ) + &on_replica.as_ref().map_or(String::new(), |(r, thread, io, sql)| {
            format!(
                " This is a replica (source {}{}): the rates are on the replica's own clock ({trx_col}; its binlog's events carry the source's times), the flushes are {}, and they stall its {}{}{}.",
                r.source.as_deref().unwrap_or("?"),
                r.source_server_id.map_or(String::new(), |id| format!(", server id {id}")),
                if own_fsyncs { "this server's (Innodb_data_fsyncs; the device also serves the source on this host)" } else { "the device's" },
                if *thread == "io_thread" { "IO thread" } else { "SQL thread" },
                match (io, sql) {
                    (Some(a), Some(b)) => format!(" (perf: {:.0} % of the IO thread's samples in fsync paths, {:.0} % of the SQL thread's)", a * 100.0, b * 100.0),
                    _ => String::new(),
                },
                match sync_relay.as_deref() {
                    Some("1") => ", sync_relay_log=1 syncs the relay log after every received event",
                    _ => "",
                }
            )
        }),
        window: Some(Window::epochs(i.commits.series.epoch(first), i.commits.series.epoch(last))),
        metrics,
        evidence,
        remedies: on_replica.as_ref().map_or_else(Vec::new, |_| vec![
            "On this replica: sync_relay_log=0 (or 10000) and sync_master_info=10000 free the IO thread; sync_binlog=0 and innodb_flush_log_at_trx_commit=2 free the SQL thread's commits (a replica can be rebuilt from its source).".to_string(),
        ]).into_iter().chain([
            "On a replica (or where losing the last second is acceptable): sync_binlog=0 and innodb_flush_log_at_trx_commit=2 (or 0).".into(),
            "Batch small transactions into larger ones sized to the disk's sweet spot.".into(),
            "Use a device with a power-loss-protected write cache (cheap flushes).".into(),
        ]).collect(),
    }))
}
