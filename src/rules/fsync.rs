//! `fsync_bound_small_transactions` (case 3): the commit rate is bound by
//! device flushes of tiny transactions under `sync_binlog=1` /
//! `innodb_flush_log_at_trx_commit=1`.

use crate::table::cell::at;

use super::evidence::{ctx_evidence, opt};
use super::inputs::{Available, BinlogFacts, DeviceWrites, Missing, Series};
use super::{Decision, Outcome};
use crate::analysis::measures::LoadRates;
use crate::analysis::replica_bound::Side;
use crate::analysis::replication::{ReplicaView, ThreadFsync};
use crate::analysis::stats::present;
use crate::analysis::waits::{StacksView, ThreadWaits};
use crate::model::{Evidence, Finding, Severity};
use crate::pipeline::Sourced;
use crate::table::columns::{BinlogMetric, Col, DevMetric, DsMetric, MysqlCounter};
use crate::verdict::{Device, Metric, Unit};
use iosift_parsers::gdb_stacks::Wait;

/// Rule id.
pub(crate) const ID: &str = "fsync_bound_small_transactions";

/// The rule's declaration to the report: title and key charts.
pub(crate) const SPEC: crate::verdict::RuleSpec = crate::verdict::RuleSpec {
    id: ID,
    title: "Commits bound by fsync of small transactions",
    key_charts: &["mysql-status", "binlog-rate", "latency-queue"],
    headline: Some(("transactions_per_s", "commits")),
    measure: Some("db.commit_rate"),
    decisive: &["replica_thread"],
};

/// A second with at least this many commits is in the load window.
pub(crate) const ACTIVE_TRX_S: f64 = LoadRates::ACTIVE_TRX_S;
/// The load window must have at least this many seconds.
pub(crate) const MIN_ACTIVE_S: usize = 5;
/// Commits and flushes per second must both reach this ...
pub(crate) const MIN_RATE: f64 = 50.0;
/// ... with at least this many flushes per commit ...
pub(crate) const MIN_FLUSHES_PER_TRX: f64 = 0.3;
/// ... for transactions smaller than this (bytes), when their size is known.
pub(crate) const SMALL_TRX_BYTES: f64 = 16.0 * 1024.0;

/// The commit rate and the counter it comes from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Commits<'a> {
    /// `binlog.trx_s`, `mysql.Binlog_commits_s` or `mysql.Com_commit_s`.
    pub counter: BinlogOrStatus,
    /// Its series.
    pub series: Series<'a>,
}

/// Which counter gave the commit rate, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BinlogOrStatus {
    /// Transactions of the decoded binlog.
    BinlogTrx,
    /// `Binlog_commits`: one per transaction written to the binary log.
    BinlogCommits,
    /// `Com_commit`: explicit COMMIT statements only.
    ComCommit,
}

impl BinlogOrStatus {
    /// The timeline column.
    pub(crate) fn col(self) -> Col {
        match self {
            BinlogOrStatus::BinlogTrx => Col::Binlog(BinlogMetric::TrxS),
            BinlogOrStatus::BinlogCommits => Col::Mysql(MysqlCounter::BinlogCommitsS),
            BinlogOrStatus::ComCommit => Col::Mysql(MysqlCounter::ComCommitS),
        }
    }

    /// What it counts, for the finding.
    pub(crate) fn meaning(self) -> &'static str {
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
pub(crate) struct Inputs<'a> {
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
    /// Thread stacks (gdb snapshots or pt-pmp's aggregate), when the capture has them.
    pub stacks: Option<&'a StacksView>,
    /// The device the server writes (its datadir's, else the most written) with its stack,
    /// named in the finding.
    pub device: Option<DeviceWrites<'a>>,
}

/// Picks the inputs.
pub(crate) fn gather<'a>(a: &Available<'a>) -> Result<Inputs<'a>, Vec<Missing>> {
    // The commit rate: transactions of the decoded binlog, else `Binlog_commits` (one per
    // transaction). Never `Handler_commit` (one per engine taking part, plus read-only statements:
    // 2.4 per transaction in samples/pt_stalk_mariadb) nor a sum of `Com_*` (statements).
    // `Com_commit` counts explicit COMMITs only (autocommit transactions are missed): last resort.
    // A column of zeros (binary log off: `Binlog_commits` stays 0) is no rate.
    // Of the two counters of every transaction, the one covering more seconds of load: a
    // decoded binlog may hold 18 s of a 60 s benchmark that mysqladmin saw whole
    // (samples/mariadb_fsync_durable); on a tie the decoded binlog.
    let found = |counter: BinlogOrStatus| {
        let series = a.series(&counter.col()).filter(|s| s.values.iter().flatten().any(|x| x > 0.0))?;
        Some(Commits { counter, series })
    };
    let active =
        |c: &Commits<'_>| c.series.values.iter().filter(|x| x.is_some_and(|x| x >= ACTIVE_TRX_S)).count();
    let exact = [BinlogOrStatus::BinlogTrx, BinlogOrStatus::BinlogCommits].into_iter().filter_map(found);
    let commits = exact
        .fold(None, |best: Option<Commits<'_>>, c| match best {
            Some(b) if active(&b) >= active(&c) => Some(b),
            _ => Some(c),
        })
        .or_else(|| found(BinlogOrStatus::ComCommit));
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
        stacks: a.stacks(),
        device: a.device_writes(),
    })
}

/// One thread's stacks in fsync (gdb snapshots or pt-pmp's aggregate): the witness seed 003 used.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StackFsync {
    /// The thread (`thread/sql/slave_io`).
    pub thread: String,
    /// Its Linux thread id (gdb).
    pub lwp: Option<u32>,
    /// Its stacks in fsync.
    pub in_fsync: u64,
    /// Its stacks.
    pub stacks: u64,
    /// The stacks' file and the lines of its first and last stack in fsync.
    pub file: String,
    /// Lines of its first and last stack in fsync.
    pub lines: Option<[usize; 2]>,
    /// What the stacks are (`16 gdb snapshots`).
    pub described: String,
}

impl StackFsync {
    fn of(t: &ThreadWaits, v: &StacksView) -> StackFsync {
        StackFsync {
            thread: t.thread.clone(),
            lwp: t.lwp,
            in_fsync: t.count(Wait::Fsync),
            stacks: t.stacks,
            file: t.file.clone(),
            lines: t.fsync_lines,
            described: v.described(),
        }
    }

    /// Share of its stacks in fsync, 0..1.
    pub(crate) fn share(&self) -> f64 {
        if self.stacks == 0 { 0.0 } else { self.in_fsync as f64 / self.stacks as f64 }
    }

    /// `thread/sql/slave_io, LWP 13881`.
    pub(crate) fn named(&self) -> String {
        match self.lwp {
            Some(l) => format!("{}, LWP {l}", self.thread),
            None => self.thread.clone(),
        }
    }

    /// `15 of 16 (94 %)`.
    pub(crate) fn counted(&self) -> String {
        format!("{} of {} ({:.0} %)", self.in_fsync, self.stacks, self.share() * 100.0)
    }

    /// The finding's evidence: the share, citing the stacks' file.
    fn evidence(&self, who: &str) -> Evidence {
        Evidence {
            file: self.file.clone(),
            lines: self.lines,
            metric: format!("{who} ({}): share of its stacks in fsync ({})", self.named(), self.described),
            value: opt(Some(self.share())),
            quote: None,
        }
    }
}

/// This server as a replica, when it is one.
#[derive(Debug, Clone)]
pub(crate) struct OnReplica {
    /// Its source (`host:port`), when known.
    pub source: Option<String>,
    /// The source's server id, when known.
    pub source_server_id: Option<u64>,
    /// The source runs on this host (it flushes the same device).
    pub source_on_this_host: bool,
    /// The thread the flushes stall.
    pub thread: Side,
    /// Share of the IO thread's perf samples in fsync paths, 0..1.
    pub io_thread_fsync_share: Option<f64>,
    /// Share of the SQL thread's, 0..1.
    pub sql_thread_fsync_share: Option<f64>,
    /// The IO thread's stacks in fsync.
    pub io_stacks: Option<StackFsync>,
    /// The SQL thread's stacks in fsync.
    pub sql_stacks: Option<StackFsync>,
}

/// What the rule concluded: the commit and flush rates, the transactions' size, the
/// durability settings, the replica's side and the device.
#[derive(Debug, Clone)]
pub(crate) struct Verdict {
    /// Commits per second in the load window.
    pub transactions_per_s: f64,
    /// Flushes per second then.
    pub flushes_per_s: f64,
    /// Flushes per commit (0 without commits).
    pub flushes_per_transaction: f64,
    /// Mean bytes per transaction, from the decoded binlog.
    pub bytes_per_transaction: Option<f64>,
    /// `sync_binlog` as read.
    pub sync_binlog: Option<String>,
    /// `innodb_flush_log_at_trx_commit` as read.
    pub flush_log: Option<String>,
    /// `sync_relay_log` as read.
    pub sync_relay_log: Option<String>,
    /// Share of perf samples in fsync paths, 0..1.
    pub fsync_sample_share: Option<f64>,
    /// Thread stacks were in the capture (the stack metrics are reported, `null` when not measured).
    pub stacks_present: bool,
    /// The thread with the most stacks in fsync (not on a replica: there the IO and SQL threads').
    pub stack_fsync: Option<StackFsync>,
    /// What the commit counter counts.
    pub commit_counter: &'static str,
    /// The timeline column of the commit rate.
    pub commit_column: String,
    /// The flushes are this server's `Innodb_data_fsyncs` (the source on this host shares the device).
    pub own_fsyncs: bool,
    /// This server as a replica.
    pub replica: Option<OnReplica>,
    /// The device the server writes.
    pub device: Option<Device>,
    /// Severity, confidence, window, evidence.
    pub basis: super::Basis,
}

/// The load window and the mean commit and flush rates over it ([`LoadRates::over`]): the
/// numbers of the finding, and of `iosift diff` whether or not the rule fires.
pub(crate) fn load_rates(i: &Inputs<'_>) -> LoadRates {
    let (c, f) = (&i.commits.series, &i.flushes);
    LoadRates::over((c.col, c.values), (f.col, f.values), 0..c.values.len(), c.bin())
}

/// Decides: fires when small transactions each pay a device flush under durable settings.
pub(crate) fn decide(i: &Inputs<'_>) -> Decision<Verdict> {
    let trx_col = i.commits.series.col;
    let own_fsyncs = i.own_fsyncs;
    let load = load_rates(i);
    let (active, active_s) = (&load.rows, load.seconds);
    if active_s < MIN_ACTIVE_S as f64 {
        return Decision::Pass(format!("fewer than 5 seconds with commits ({active_s:.0} found)"));
    }
    let (tps, fps) = (load.transactions_per_s, load.flushes_per_s);
    let bytes_per_trx = i.binlog.map(|b| b.mean_bytes);
    let var = |s: Option<&Sourced<String>>| s.map(|s| s.value.trim().to_string());
    let sync_binlog = var(i.sync_binlog);
    let flush_log = var(i.flush_log);
    let durable = |v: &Option<String>| v.as_deref().map(|s| s == "1");
    let relaxed = durable(&sync_binlog) == Some(false) && durable(&flush_log) == Some(false);
    let small = bytes_per_trx.is_none_or(|b| b < SMALL_TRX_BYTES);
    let flush_bound = tps >= MIN_RATE && fps >= MIN_RATE && fps >= MIN_FLUSHES_PER_TRX * tps;
    let sync_relay = var(i.sync_relay_log);
    let on_replica = on_replica(i, sync_relay.as_deref());
    let stack_fsync = match &on_replica {
        Some(_) => None,
        None => i.stacks.and_then(|v| v.top_fsync().map(|t| StackFsync::of(t, v))),
    };
    if relaxed || !flush_bound || !small {
        let replica_note = on_replica.as_ref().map_or(String::new(), |r| {
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
        return Decision::Pass(format!(
            "{tps:.0} transactions/s with {fps:.1} flushes/s{}{}{replica_note}: commits are not paying a flush each",
            bytes_per_trx.map_or(String::new(), |b| format!(", {b:.0} bytes each")),
            if relaxed {
                " (durability relaxed: sync_binlog and innodb_flush_log_at_trx_commit not 1)"
            } else {
                ""
            }
        ));
    }
    let evidence = evidence(i, active, on_replica.as_ref(), stack_fsync.as_ref(), bytes_per_trx);
    let first = active.first().copied().unwrap_or(0);
    let last = active.last().copied().unwrap_or(0);
    let durability_known = sync_binlog.is_some() || flush_log.is_some();
    Decision::Fire(Verdict {
        transactions_per_s: tps,
        flushes_per_s: fps,
        flushes_per_transaction: if tps > 0.0 { fps / tps } else { 0.0 },
        bytes_per_transaction: bytes_per_trx,
        sync_binlog,
        flush_log,
        sync_relay_log: sync_relay,
        fsync_sample_share: i.fsync_share,
        stacks_present: i.stacks.is_some(),
        stack_fsync,
        commit_counter: i.commits.counter.meaning(),
        commit_column: trx_col.to_string(),
        own_fsyncs,
        replica: on_replica,
        device: i.device.as_ref().map(DeviceWrites::named),
        basis: super::Basis {
            severity: Severity::Warning,
            confidence: if durability_known { 0.85 } else { 0.65 },
            window: Some((
                i.commits.series.epoch(first),
                i.commits.series.epoch(last) + i.commits.series.bin() - 1,
            )),
            evidence,
            actors: Default::default(),
        },
    })
}

/// On a replica: which replication thread the flushes stall, by perf, stacks or settings.
fn on_replica(i: &Inputs<'_>, sync_relay: Option<&str>) -> Option<OnReplica> {
    i.replica.map(|r| {
        let t = i.replica_threads;
        let share = |n: u64, d: u64| (d > 0).then(|| n as f64 / d as f64);
        let io = t.and_then(|t| share(t.io_fsync, t.io_samples));
        let sql = t.and_then(|t| share(t.sql_fsync, t.sql_samples));
        let stack = |r: &str| i.stacks.and_then(|v| v.role(r).map(|t| StackFsync::of(t, v)));
        let (io_stacks, sql_stacks) = (stack("io"), stack("sql"));
        // The thread the flushes stall: by perf when both threads were sampled, else by their stacks
        // (gdb, pt-pmp), else by the settings (sync_relay_log=1 syncs the relay log after every event
        // the IO thread writes).
        let thread = match (io, sql, &io_stacks, &sql_stacks) {
            (Some(a), Some(b), _, _) if a >= b => Side::Io,
            (Some(_), Some(_), _, _) => Side::Sql,
            (_, _, Some(a), Some(b)) if a.share() >= b.share() => Side::Io,
            (_, _, Some(_), Some(_)) => Side::Sql,
            _ if sync_relay == Some("1") => Side::Io,
            _ => Side::Sql,
        };
        OnReplica {
            source: r.source.clone(),
            source_server_id: r.source_server_id,
            source_on_this_host: r.source_is_local(),
            thread,
            io_thread_fsync_share: io,
            sql_thread_fsync_share: sql,
            io_stacks,
            sql_stacks,
        }
    })
}

/// The finding's evidence: the durability settings, the busiest flush second, the stacks in
/// fsync, the binlog's bytes per transaction.
fn evidence(
    i: &Inputs<'_>,
    active: &[usize],
    on_replica: Option<&OnReplica>,
    stack_fsync: Option<&StackFsync>,
    bytes_per_trx: Option<f64>,
) -> Vec<Evidence> {
    let flush = i.flushes.values;
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
    // The stacks: the replication threads' on a replica, else the thread most often in fsync.
    if let Some(r) = on_replica {
        for (st, who) in [(&r.io_stacks, "IO thread"), (&r.sql_stacks, "SQL thread")] {
            if let Some(st) = st {
                evidence.push(st.evidence(who));
            }
        }
    }
    if let Some(st) = stack_fsync {
        evidence.push(st.evidence("thread"));
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
    evidence
}

/// Writes the verdict as the finding.
pub(crate) fn explain(v: &Verdict) -> Finding {
    let (tps, fps) = (v.transactions_per_s, v.flushes_per_s);
    let setting = |v: &Option<String>| v.as_deref().and_then(|v| v.parse::<f64>().ok());
    let mut metrics = std::collections::BTreeMap::new();
    metrics.insert("transactions_per_s", Metric::num(tps, Unit::PerSecond));
    metrics.insert("flushes_per_s", Metric::num(fps, Unit::PerSecond));
    metrics.insert("bytes_per_transaction", Metric::opt(v.bytes_per_transaction, Unit::Bytes));
    metrics.insert("sync_binlog", Metric::opt(setting(&v.sync_binlog), Unit::Setting));
    metrics.insert("innodb_flush_log_at_trx_commit", Metric::opt(setting(&v.flush_log), Unit::Setting));
    metrics.insert("flushes_per_transaction", Metric::num(v.flushes_per_transaction, Unit::Ratio));
    metrics.insert("fsync_sample_share", Metric::opt(v.fsync_sample_share, Unit::Fraction));
    if let Some(r) = &v.replica {
        metrics.insert("replica", Metric::flag(true));
        metrics.insert("replica_thread", Metric::text(r.thread.id()));
        metrics.insert("io_thread_fsync_share", Metric::opt(r.io_thread_fsync_share, Unit::Fraction));
        metrics.insert("sql_thread_fsync_share", Metric::opt(r.sql_thread_fsync_share, Unit::Fraction));
        metrics.insert("source_on_this_host", Metric::flag(r.source_on_this_host));
        if v.stacks_present {
            let sh = |s: &Option<StackFsync>| s.as_ref().map(StackFsync::share);
            metrics.insert("io_thread_fsync_stack_share", Metric::opt(sh(&r.io_stacks), Unit::Fraction));
            metrics.insert("sql_thread_fsync_stack_share", Metric::opt(sh(&r.sql_stacks), Unit::Fraction));
        }
    } else if v.stacks_present {
        metrics.insert(
            "fsync_stack_share",
            Metric::opt(v.stack_fsync.as_ref().map(StackFsync::share), Unit::Fraction),
        );
    }
    metrics.insert("commit_counter", Metric::text(v.commit_counter));
    if let Some(d) = &v.device {
        d.metrics(&mut metrics);
    }
    let summary = format!(
        "{tps:.0} small transactions/s{} each force a device flush{}: {fps:.0} flushes/s ({:.2} per transaction){}{}.",
        v.bytes_per_transaction.map_or(String::new(), |b| format!(" of {b:.0} bytes")),
        v.device.as_ref().map_or(String::new(), |d| format!(" of {}", d.described)),
        v.flushes_per_transaction,
        match (&v.sync_binlog, &v.flush_log) {
            (Some(a), Some(b)) => format!(" with sync_binlog={a}, innodb_flush_log_at_trx_commit={b}"),
            _ => " (durability settings not in the capture)".to_string(),
        },
        v.fsync_sample_share.map_or(String::new(), |s| format!("; {:.0} % of perf samples are in fsync paths", s * 100.0)),
    ) + &v.replica.as_ref().map_or(String::new(), |r| {
        format!(
            " This is a replica (source {}{}): the rates are on the replica's own clock ({}; its binlog's events carry the source's times), the flushes are {}, and they stall its {}{}{}.",
            r.source.as_deref().unwrap_or("?"),
            r.source_server_id.map_or(String::new(), |id| format!(", server id {id}")),
            v.commit_column,
            if v.own_fsyncs { "this server's (Innodb_data_fsyncs; the device also serves the source on this host)" } else { "the device's" },
            match r.thread { Side::Io => "IO thread", Side::Sql => "SQL thread" },
            match (r.io_thread_fsync_share, r.sql_thread_fsync_share) {
                (Some(a), Some(b)) => format!(" (perf: {:.0} % of the IO thread's samples in fsync paths, {:.0} % of the SQL thread's)", a * 100.0, b * 100.0),
                _ => String::new(),
            },
            match v.sync_relay_log.as_deref() {
                Some("1") => ", sync_relay_log=1 syncs the relay log after every received event",
                _ => "",
            }
        )
    }) + &stacks_sentence(v);
    let remedies = v.replica.as_ref().map_or_else(Vec::new, |_| vec![
        "On this replica: sync_relay_log=0 (or 10000) and sync_master_info=10000 free the IO thread; sync_binlog=0 and innodb_flush_log_at_trx_commit=2 free the SQL thread's commits (a replica can be rebuilt from its source).".to_string(),
    ]).into_iter().chain([
        "On a replica (or where losing the last second is acceptable): sync_binlog=0 and innodb_flush_log_at_trx_commit=2 (or 0).".into(),
        "Batch small transactions into larger ones sized to the disk's sweet spot.".into(),
        "Use a device with a power-loss-protected write cache (cheap flushes).".into(),
    ]).collect();
    v.basis.finding(ID, summary, metrics, remedies)
}

/// What the thread stacks say: ` Thread stacks (16 gdb snapshots): the IO thread (thread/sql/slave_io,
/// LWP 13881) in fsync in 15 of 16 (94 %), the SQL thread (...) in 6 of 16 (38 %).`; empty without stacks.
fn stacks_sentence(v: &Verdict) -> String {
    let one = |who: &str, s: &StackFsync| format!("{who} ({}) in fsync in {}", s.named(), s.counted());
    let (parts, described): (Vec<String>, Option<&str>) = match &v.replica {
        Some(r) => {
            let p: Vec<String> = [(&r.io_stacks, "the IO thread"), (&r.sql_stacks, "the SQL thread")]
                .into_iter()
                .filter_map(|(s, who)| s.as_ref().map(|s| one(who, s)))
                .collect();
            let d = r.io_stacks.as_ref().or(r.sql_stacks.as_ref()).map(|s| s.described.as_str());
            (p, d)
        }
        None => (
            v.stack_fsync.iter().map(|s| one("the thread", s)).collect(),
            v.stack_fsync.as_ref().map(|s| s.described.as_str()),
        ),
    };
    match described {
        Some(d) if !parts.is_empty() => format!(" Thread stacks ({d}): {}.", parts.join(", ")),
        _ => String::new(),
    }
}

/// Evaluates the rule: [`decide`], then [`explain`].
pub(crate) fn check(i: &Inputs<'_>) -> Outcome {
    super::outcome(decide(i), explain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Views;
    use crate::analysis::device::MainDevice;
    use crate::rules::testkit::{fired, passed, series, skipped, sourced, vals};
    use crate::table::Timeline;

    struct Case {
        trx: Vec<f64>,
        flush: Vec<f64>,
        bytes: Option<f64>,
        sync_binlog: Option<&'static str>,
        flush_log: Option<&'static str>,
        stacks: Option<StacksView>,
    }

    impl Case {
        /// 8 seconds of 200 commits/s of 340 bytes, 200 flushes/s, both durable settings 1.
        fn durable() -> Case {
            Case {
                trx: vec![200.0; 8],
                flush: vec![200.0; 8],
                bytes: Some(340.0),
                sync_binlog: Some("1"),
                flush_log: Some("1"),
                stacks: None,
            }
        }

        fn run(&self) -> Outcome {
            let (t, f) = (vals(&self.trx), vals(&self.flush));
            let sb = self.sync_binlog.map(|v| sourced(v.to_string()));
            let fl = self.flush_log.map(|v| sourced(v.to_string()));
            check(&Inputs {
                commits: Commits { counter: BinlogOrStatus::BinlogTrx, series: series("binlog.trx_s", &t) },
                flushes: series("dev.vda.f_s", &f),
                own_fsyncs: false,
                binlog: self.bytes.map(|b| BinlogFacts { file: "binlog-chosen.txt", mean_bytes: b }),
                sync_binlog: sb.as_ref(),
                flush_log: fl.as_ref(),
                sync_relay_log: None,
                fsync_share: Some(0.25),
                replica: None,
                replica_threads: None,
                stacks: self.stacks.as_ref(),
                device: None,
            })
        }
    }

    #[test]
    fn fires_on_a_flush_per_small_commit_and_cites_the_chosen_binlog() {
        let f = fired(Case::durable().run());
        assert_eq!((f.rule, f.confidence), (ID, 0.85));
        assert_eq!(f.metrics["flushes_per_transaction"].value, 1.0);
        assert_eq!(f.metrics["commit_counter"].value, "transactions of the decoded binary log");
        let cited: Vec<(&str, &str)> =
            f.evidence.iter().map(|e| (e.file.as_str(), e.metric.as_str())).collect();
        assert_eq!(
            cited,
            [
                ("ctx.txt", "sync_binlog"),
                ("ctx.txt", "innodb_flush_log_at_trx_commit"),
                ("test.txt", "f/s"),
                ("binlog-chosen.txt", "mean bytes per transaction"),
            ]
        );
        assert!(f.summary.contains("; 25 % of perf samples are in fsync paths."), "{}", f.summary);
    }

    #[test]
    fn cites_the_thread_most_often_in_fsync_and_says_nothing_without_stacks() {
        use crate::analysis::waits::ThreadWaits;
        let f = fired(Case::durable().run());
        assert!(!f.metrics.contains_key("fsync_stack_share"), "no stacks, no stack metric");
        assert!(!f.summary.contains("Thread stacks"));
        let mut waits = [0; Wait::ALL.len()];
        waits[0] = 3; // fsync
        waits[2] = 1; // cond
        let mut c = Case::durable();
        c.stacks = Some(StacksView {
            files: vec![("x-stacktrace".into(), "gdb")],
            snapshots: 4,
            threads: vec![ThreadWaits {
                thread: "thread/sql/one_connection".into(),
                named_by: "performance_schema.threads",
                lwp: Some(77),
                role: None,
                stacks: 4,
                waits,
                file: "x-stacktrace".into(),
                fsync_lines: Some([12, 90]),
            }],
            ..Default::default()
        });
        let f = fired(c.run());
        assert_eq!(f.metrics["fsync_stack_share"].value, 0.75);
        assert!(
            f.summary.ends_with(
                " Thread stacks (4 gdb snapshots): the thread (thread/sql/one_connection, LWP 77) in fsync in 3 of 4 (75 %)."
            ),
            "{}",
            f.summary
        );
        let e = f.evidence.iter().find(|e| e.file == "x-stacktrace").unwrap();
        assert_eq!(e.lines, Some([12, 90]));
        assert_eq!(
            e.metric,
            "thread (thread/sql/one_connection, LWP 77): share of its stacks in fsync (4 gdb snapshots)"
        );
    }

    #[test]
    fn load_window_edges() {
        // Five seconds of commits (>= 10/s each) are enough, four are not.
        let mut c = Case::durable();
        c.trx = vec![200.0, 200.0, 200.0, 200.0, 200.0, ACTIVE_TRX_S - 0.1, 0.0];
        fired(c.run());
        c.trx[4] = ACTIVE_TRX_S - 0.1;
        assert_eq!(passed(c.run()), "fewer than 5 seconds with commits (4 found)");
    }

    #[test]
    fn rate_edges() {
        let at = |trx: f64, flush: f64| {
            let mut c = Case::durable();
            c.trx = vec![trx; 8];
            c.flush = vec![flush; 8];
            c.run()
        };
        fired(at(MIN_RATE, MIN_RATE));
        passed(at(MIN_RATE - 0.1, MIN_RATE));
        passed(at(MIN_RATE, MIN_RATE - 0.1));
        // At least 0.3 flushes per commit.
        fired(at(200.0, 60.0));
        assert!(
            passed(at(200.0, 59.9)).starts_with("200 transactions/s with 59.9 flushes/s, 340 bytes each:")
        );
    }

    #[test]
    fn transaction_size_edge() {
        let mut c = Case::durable();
        c.bytes = Some(SMALL_TRX_BYTES - 0.5);
        fired(c.run());
        c.bytes = Some(SMALL_TRX_BYTES);
        passed(c.run());
        // Without a decoded binlog the size is unknown: not held against the rule.
        c.bytes = None;
        let f = fired(c.run());
        assert_eq!(f.evidence.len(), 3, "no binlog to cite");
    }

    #[test]
    fn relaxed_durability_passes_and_unknown_lowers_confidence() {
        let mut c = Case::durable();
        c.sync_binlog = Some("0");
        c.flush_log = Some("2");
        assert!(
            passed(c.run())
                .contains("(durability relaxed: sync_binlog and innodb_flush_log_at_trx_commit not 1)")
        );
        c.flush_log = Some("1");
        fired(c.run());
        c.sync_binlog = None;
        c.flush_log = None;
        assert_eq!(fired(c.run()).confidence, 0.65);
    }

    #[test]
    fn gathers_the_first_counter_with_commits_and_the_device_flushes() {
        let mut tl = Timeline::new(0.0, 3.0);
        for t in 0..3 {
            tl.set_gauge(&Col::Binlog(BinlogMetric::TrxS), "binlog.txt", t as f64, 0.0);
            tl.set_gauge(&Col::Mysql(MysqlCounter::BinlogCommitsS), "mysqladmin.txt", t as f64, 120.0);
            tl.set_gauge(&Col::Dev("vda".into(), DevMetric::FS), "iostat.txt", t as f64, 110.0);
            tl.set_gauge(&Col::Ds("vda".into(), DsMetric::FS), "diskstats.txt", t as f64, 100.0);
        }
        let views = Views {
            device: Some(MainDevice::plain("vda", Col::Dev("vda".into(), DevMetric::WBytesS))),
            ..Default::default()
        };
        let a = Available::bare(&tl, &views);
        let i = gather(&a).unwrap();
        // binlog.trx_s is all zeros (binary log off): no rate.
        assert_eq!(
            (i.commits.counter, i.commits.series.col),
            (BinlogOrStatus::BinlogCommits, &Col::Mysql(MysqlCounter::BinlogCommitsS))
        );
        assert_eq!(i.flushes.col, &Col::Dev("vda".into(), DevMetric::FS));
        // Without the main device, /proc/diskstats' flushes.
        let none = Views::default();
        assert_eq!(
            gather(&Available::bare(&tl, &none)).unwrap().flushes.col,
            &Col::Ds("vda".into(), DsMetric::FS)
        );
    }

    #[test]
    fn skips_without_commit_or_flush_rates() {
        let (tl, views) = (Timeline::default(), Views::default());
        assert_eq!(
            skipped(ID, &Available::bare(&tl, &views)),
            [
                "commit rate (decoded binlog or mysqladmin extended-status)",
                "flush rate (iostat -x f/s, /proc/diskstats or Innodb_data_fsyncs)"
            ]
        );
        let mut tl = Timeline::new(0.0, 3.0);
        tl.set_gauge(&Col::Ds("vda".into(), DsMetric::FS), "diskstats.txt", 1.0, 100.0);
        assert_eq!(gather(&Available::bare(&tl, &views)).err(), Some(vec![Missing::CommitRate]));
    }
}
