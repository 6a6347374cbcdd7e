//! `replication_lag` (case 3's symptom): a replica falls behind during the
//! capture. The lag is measured from every witness the capture holds
//! ([`crate::analysis::lag_witness`]: pt-heartbeat rows, the source's times in
//! the replica's binlog, `Seconds_Behind_Master`), told from the best of them,
//! and where `Seconds_Behind_Master` read 0 while the source's side measured
//! the replica behind, the finding says so: it counts the SQL thread only.
//! The bound thread and its class come from the replica's rates, thread states
//! and perf stacks ([`crate::analysis::replica_bound`]): `io_thread` when the
//! SQL thread executes all the IO thread receives (waiting on the source or the
//! link, or on its own flushes: seed 003), `sql_thread` when the relay log
//! backlog grows (row lookups on a CPU, or commits). The remedy follows the
//! class: relaxing durability only where the replica's own flushes bound it.

use super::evidence::{ctx_evidence, line_evidence};
use super::inputs::{Available, Missing};
use super::{Decision, Outcome};
use crate::analysis::lag_witness::{LagSeries, Witness, Witnesses};
use crate::analysis::measures::LagMeasure;
use crate::analysis::replica_bound::{BoundClass, IO_FSYNC_SHARE, Side};
use crate::analysis::replication::{EventLag, ReplicaView, ThreadFsync};
use crate::model::{Evidence, Finding, Severity};
use crate::pipeline::{ParsedFile, Sourced};
use crate::verdict::{Actor, Actors, IssuerClass, Metric, Role, Unit};
use std::collections::BTreeMap;

/// Rule id.
pub(crate) const ID: &str = "replication_lag";

/// The rule's declaration to the report: title and key charts.
pub(crate) const SPEC: crate::verdict::RuleSpec = crate::verdict::RuleSpec {
    id: ID,
    title: "Replication lag",
    key_charts: &["replication"],
    headline: Some(("lag_max_s", "lag up to")),
    measure: Some("replication.lag_max"),
    decisive: &["bound_by"],
};

/// Lag growth below this (s per s) is noise of 1 s readings.
pub(crate) const MIN_GROWTH: f64 = 0.05;
/// The lag must grow by at least this many seconds over the capture.
pub(crate) const MIN_RISE_S: f64 = 5.0;
/// A `Seconds_Behind_Master` reading of 0 contradicts a source-side witness measuring at least this lag.
pub(crate) const SBM_CONTRADICTED_S: f64 = 5.0;

/// The replica's settings reported, each under the first of its names the capture has.
const SETTINGS: [&[&str]; 5] = [
    &["sync_binlog"],
    &["innodb_flush_log_at_trx_commit"],
    &["sync_relay_log"],
    &["sync_master_info", "sync_source_info"],
    &["slave_parallel_threads", "replica_parallel_workers", "slave_parallel_workers"],
];

/// What the rule reads.
#[derive(Debug, Clone)]
pub(crate) struct Inputs<'a> {
    /// The replica's connections (not empty), with their lag witnesses and bound.
    pub replicas: &'a [ReplicaView],
    /// The status file the connections were read from (for quotes).
    pub status_file: Option<&'a ParsedFile>,
    /// The files the witnesses' readings are in (for quotes), by bundle index.
    pub files: BTreeMap<usize, &'a ParsedFile>,
    /// perf samples of the replication threads.
    pub threads: Option<ThreadFsync>,
    /// How late the replica wrote the source's transactions.
    pub event_lag: Option<EventLag>,
    /// The settings found: (name, value).
    pub settings: Vec<(&'static str, &'a Sourced<String>)>,
    /// No connection, because the capture shows the server is not a replica: why.
    pub not_a_replica: Option<String>,
}

/// Picks the inputs.
pub(crate) fn gather<'a>(a: &Available<'a>) -> Result<Inputs<'a>, Vec<Missing>> {
    let replicas = a.replicas();
    let empty = a.not_a_replica();
    let not_a_replica = (replicas.is_empty() && !empty.is_empty()).then(|| {
        let runs: usize = empty.iter().map(|(_, n)| n).sum();
        let names: Vec<&str> = empty.iter().filter_map(|(i, _)| Some(a.file(*i)?.name.as_str())).collect();
        format!(
            "not a replica: SHOW SLAVE STATUS returned no row in any of its {runs} runs ({})",
            names.join(", ")
        )
    });
    if replicas.is_empty() && not_a_replica.is_none() {
        return Err(vec![Missing::ReplicaStatus]);
    }
    let settings =
        SETTINGS.iter().filter_map(|names| names.iter().find_map(|n| Some((*n, a.variable(n)?)))).collect();
    let files = replicas
        .iter()
        .flat_map(|v| v.witnesses.series.iter().map(|s| s.file))
        .filter_map(|i| Some((i, a.file(i)?)))
        .collect();
    Ok(Inputs {
        replicas,
        status_file: replicas.first().and_then(|r| a.file(r.file)),
        files,
        threads: a.replica_threads(),
        event_lag: a.event_lag(),
        settings,
        not_a_replica,
    })
}

/// Evidence for a lag reading: the `Seconds_Behind_Master:` line of a `\G` record (within the record that
/// starts at `line`), or the table row itself.
fn quote_row(pf: &ParsedFile, line: usize, metric: &str, value: f64) -> Evidence {
    let line = iosift_parsers::common::Lines::new(&pf.raw)
        .skip(line.saturating_sub(1))
        .take(120)
        .take_while(|l| l.no == line || !l.text().trim_start().starts_with("***"))
        .find(|l| {
            let t = l.text();
            t.contains("Seconds_Behind_Master:") || t.contains("Seconds_Behind_Source:")
        })
        .map_or(line, |l| l.no);
    line_evidence(pf, line, metric, value)
}

/// The status series' span of a connection, seconds.
fn status_span(v: &ReplicaView) -> f64 {
    match (v.sbm_raw.first(), v.sbm_raw.last()) {
        (Some(a), Some(b)) => b.0 - a.0,
        _ => 0.0,
    }
}

/// The series a connection's lag is told from, with its growth.
fn judged(v: &ReplicaView) -> Option<(&LagSeries, f64)> {
    let best = v.witnesses.best(status_span(v))?;
    Some((best, best.growth()?))
}

/// The remedies of a bound class.
fn remedies(class: BoundClass) -> Vec<String> {
    let sql_parallel = "Parallel replication: MariaDB slave_parallel_threads=N with slave_parallel_mode=optimistic; MySQL replica_parallel_workers=N with replica_parallel_type=LOGICAL_CLOCK (and binlog_transaction_dependency_tracking=WRITESET on the source).";
    let row_lookups = "Look for tables without a primary key under binlog_format=ROW (every row event scans the table) and for long transactions on the source.";
    match class {
        BoundClass::LinkOrSource => vec![
            "The IO thread waits for the source to send events: the link or the source's binlog dump bounds the replica, not its disk. Do not relax the replica's durability (sync_binlog, innodb_flush_log_at_trx_commit, sync_relay_log): its flushes are not the bottleneck.".into(),
            "Measure the link between the hosts (iperf3, or the source port's traffic with tc -s / ss -ti on the source) and what shapes it (a WAN, a VPN, a rate limit, a busy NIC).".into(),
            "Send less: compress the stream (MariaDB slave_compressed_protocol=1; MySQL 8.0.18+ SOURCE_COMPRESSION_ALGORITHMS='zstd'), binlog_row_image=MINIMAL on the source; move the replica nearer to the source.".into(),
            "If the link is fast, look at the source: its binlog dump thread (SHOW PROCESSLIST 'Binlog Dump'), its CPU and its binlog reads.".into(),
        ],
        BoundClass::IoThreadWrites | BoundClass::IoThread => vec![
            "The IO thread pays a flush per received event or transaction: on the replica set sync_relay_log=0 (or 10000) and sync_master_info=10000, and relax sync_binlog (0) and innodb_flush_log_at_trx_commit (2 or 0) where the replica can be rebuilt; the received rate then rises to what the network and disk can stream.".into(),
            "MySQL 5.7/8.0 with master_info_repository/relay_log_info_repository=TABLE commits to InnoDB per received transaction: relaxed innodb_flush_log_at_trx_commit lifts that too.".into(),
            "Test the network (mysqlbinlog --read-from-remote-server, scp) only after the flushes: an IO thread that flushes per event can receive ~100 KiB/s over a link that streams hundreds of MiB/s.".into(),
            "Or batch the source's tiny transactions into larger ones.".into(),
        ],
        BoundClass::SqlApplyCpu => vec![
            row_lookups.replace("Look for", "The SQL thread spends its time looking rows up: look for"),
            sql_parallel.into(),
            "Its durability is not what bounds it: relaxing sync_binlog / innodb_flush_log_at_trx_commit will not help.".into(),
        ],
        BoundClass::SqlCommit | BoundClass::SqlThread | BoundClass::Unknown => vec![
            sql_parallel.into(),
            "Relax the replica's durability (sync_binlog=0, innodb_flush_log_at_trx_commit=2) if it still flushes per transaction.".into(),
            row_lookups.into(),
        ],
    }
}

/// Evidence of a witness reading.
fn reading(i: &Inputs<'_>, s: &LagSeries, first: bool) -> Option<Evidence> {
    let p = if first { s.first()? } else { s.last()? };
    let pf = i.files.get(&s.file)?;
    let which = if first { "first reading" } else { "last reading" };
    Some(line_evidence(pf, p.line, &format!("lag by {} ({which})", s.witness.id()), p.lag_s))
}

/// The bound thread as a typed actor, or "not measured" with what is missing.
fn bound_actor(v: &ReplicaView) -> Actor {
    let b = &v.bound;
    match b.side {
        Some(side) => Actor {
            class: Role::Bound,
            comm: Some(side.thread().to_string()),
            tid: b.tid,
            share: None,
            source: b.source,
            measured: true,
            note: Some(match &b.missing {
                None => format!("{}: {}", b.class.id(), b.why),
                Some(m) => format!("{}: {} (what it waits on not measured: {m})", b.class.id(), b.why),
            }),
        },
        None => {
            Actor::not_measured(Role::Bound, b.missing.clone().unwrap_or_else(|| "no thread states".into()))
        }
    }
}

/// When Seconds_Behind_Master is the only witness: what it cannot see, and its positive readings between zeros.
fn sbm_only_caveat(v: &ReplicaView) -> String {
    if v.witnesses.series.iter().any(|s| s.witness != Witness::SecondsBehind) {
        return String::new();
    }
    let positive: Vec<f64> = v.sbm_raw.iter().map(|r| r.1).filter(|&x| x > 0.0).collect();
    let zeros = v.sbm_raw.len() - positive.len();
    let top = positive.iter().copied().fold(0.0, f64::max);
    let spikes = if zeros > 0 && positive.len() >= 3 && top >= MIN_RISE_S {
        format!(
            " {} of its readings were positive, up to {top:.0} s, between {zeros} readings of 0.",
            positive.len()
        )
    } else {
        String::new()
    };
    format!(
        "; Seconds_Behind_Master is the only witness and sees the SQL thread only: a lag of the IO thread (a slow link or source) is not measured (pt-heartbeat rows or the replica's decoded binlog would measure it).{spikes}"
    )
}

/// The issuer of the bound side's writes when they are its story: the IO thread's flushes (`io_thread_writes`
/// with its perf samples in fsync paths), under the comm the kernel gives MariaDB's and MySQL's threads. The
/// other classes name no issuer of their own (the window's write episodes may).
fn issuers(v: &ReplicaView, threads: Option<ThreadFsync>) -> Vec<Actor> {
    let share = threads.filter(|t| t.io_samples > 0).map(|t| t.io_fsync as f64 / t.io_samples as f64);
    match (v.bound.class, share) {
        (BoundClass::IoThreadWrites, Some(s)) if s >= IO_FSYNC_SHARE => vec![
            Actor::measured(Role::Issuer(IssuerClass::ApplicationFlush), "mariadbd", v.bound.tid, Some(s), "perf")
                .with_note(
                    "the replica IO thread: its share of perf samples in fsync paths, a flush per received event (relay log, master info)",
                ),
        ],
        _ => Vec::new(),
    }
}

/// Another witness's last reading, beside the best one.
#[derive(Debug, Clone)]
pub(crate) struct OtherWitness {
    /// Which.
    pub witness: Witness,
    /// Its last lag, s.
    pub lag_s: f64,
    /// How long before the best witness's last reading it was, s.
    pub before_end_s: f64,
}

/// What the rule concluded: the lag from its best witness, what the other witnesses read,
/// the bound thread and what bounds it, the replica's rates, states and settings.
#[derive(Debug, Clone)]
pub(crate) struct Verdict {
    /// The connection's name (empty for the default one).
    pub connection: String,
    /// The witness the lag is told from.
    pub witness: Witness,
    /// Its readings.
    pub lag_readings: usize,
    /// First lag, s.
    pub lag_start_s: f64,
    /// Last lag, s.
    pub lag_end_s: f64,
    /// Least-squares growth, s per s.
    pub lag_growth_s_per_s: f64,
    /// Largest lag, s.
    pub lag_max_s: Option<f64>,
    /// Epoch of the last reading.
    pub lag_end_epoch: Option<f64>,
    /// The witness's uncertainty, s.
    pub lag_uncertainty_s: f64,
    /// The bound thread, when told.
    pub bound_side: Option<Side>,
    /// What bounds it.
    pub bound_class: BoundClass,
    /// Why, in words.
    pub bound_why: String,
    /// What was missing to tell it (or what it waits on) apart.
    pub bound_missing: Option<String>,
    /// `Seconds_Behind_Master`'s first reading, s.
    pub sbm_start_s: Option<f64>,
    /// Its last, s.
    pub sbm_end_s: Option<f64>,
    /// Its growth, s per s.
    pub sbm_growth_s_per_s: Option<f64>,
    /// Its readings of 0 while the source's side measured the replica behind.
    pub sbm_zero_while_behind_readings: usize,
    /// Its readings of 0 in all.
    pub sbm_zeros: usize,
    /// The worst lag the source's side measured at such a zero, s.
    pub sbm_worst_s: Option<f64>,
    /// pt-heartbeat's last lag, s.
    pub heartbeat_lag_end_s: Option<f64>,
    /// Its growth, s per s.
    pub heartbeat_growth_s_per_s: Option<f64>,
    /// The decoded binlog's last event lag, s.
    pub binlog_event_lag_end_s: Option<f64>,
    /// Its growth, s per s.
    pub binlog_event_growth_s_per_s: Option<f64>,
    /// The other witnesses' last readings.
    pub other_witnesses: Vec<OtherWitness>,
    /// The witnesses not used, with why.
    pub rejected: Vec<(Witness, String)>,
    /// IO thread waiting on the source, 0..1.
    pub io_waiting_share: Option<f64>,
    /// IO thread queueing events, 0..1.
    pub io_queueing_share: Option<f64>,
    /// SQL thread idle, 0..1.
    pub sql_idle_share: Option<f64>,
    /// SQL thread's perf stacks in row lookups, 0..1.
    pub sql_row_search_share: Option<f64>,
    /// ... in commits, 0..1.
    pub sql_commit_share: Option<f64>,
    /// SQL thread on CPU, 0..1.
    pub sql_on_cpu_share: Option<f64>,
    /// Bytes received per second.
    pub received_bytes_per_s: Option<f64>,
    /// Bytes executed per second.
    pub executed_bytes_per_s: Option<f64>,
    /// Relay log space at the start and the end, bytes.
    pub relay_log_space_bytes: (Option<f64>, Option<f64>),
    /// Relay log backlog at the start and the end, bytes.
    pub backlog_bytes: (Option<f64>, Option<f64>),
    /// Share of readings with the SQL thread caught up with the IO thread, 0..1.
    pub sql_caught_up_share: f64,
    /// Readings of 0 left out (SQL thread within 4 KiB of the IO thread).
    pub zero_readings_dropped: usize,
    /// How late the replica wrote the source's transactions.
    pub event_lag: Option<EventLag>,
    /// perf samples of the replication threads.
    pub threads: Option<ThreadFsync>,
    /// Share of the IO thread's perf samples in fsync paths, 0..1.
    pub io_thread_fsync_share: Option<f64>,
    /// Share of the SQL thread's, 0..1.
    pub sql_thread_fsync_share: Option<f64>,
    /// The replica's settings found, (name, value as read).
    pub settings: Vec<(&'static str, String)>,
    /// Severity, confidence, window, evidence, the bound thread and issuer.
    pub basis: super::Basis,
}

/// The connection falling behind fastest, by its best witness, with that witness's growth.
fn fastest(views: &[ReplicaView]) -> Option<(&ReplicaView, &LagSeries, f64)> {
    views.iter().filter_map(|v| judged(v).map(|(s, g)| (v, s, g))).max_by(|a, b| a.2.total_cmp(&b.2))
}

/// The lag of the connection falling behind fastest: the finding's numbers, and those of
/// `iosift diff` whether or not the rule fires ([`crate::analysis::measures::Measures`]).
pub(crate) fn lag(i: &Inputs<'_>) -> Option<LagMeasure> {
    let (v, best, _) = fastest(i.replicas)?;
    Some(LagMeasure { series: best.clone(), bound_by: v.bound.side.map(Side::id) })
}

/// Decides: fires when the connection falling behind fastest grows its lag by at least
/// [`MIN_RISE_S`] at [`MIN_GROWTH`] s per s or more.
pub(crate) fn decide(i: &Inputs<'_>) -> Decision<Verdict> {
    if let Some(why) = &i.not_a_replica {
        return Decision::Pass(why.clone());
    }
    let views = i.replicas;
    let Some((v, best, growth)) = fastest(views) else {
        return Decision::Pass(format!(
            "fewer than 5 lag readings (Seconds_Behind_Master) in {} connection(s)",
            views.len()
        ));
    };
    let (start, end) = (best.first().map_or(0.0, |x| x.lag_s), best.last().map_or(0.0, |x| x.lag_s));
    if growth < MIN_GROWTH || end - start < MIN_RISE_S {
        let conn = if v.name.is_empty() { String::new() } else { format!(" (connection '{}')", v.name) };
        let by = if best.witness == Witness::SecondsBehind {
            String::new()
        } else {
            format!(" ({})", best.witness.words())
        };
        return Decision::Pass(format!(
            "the replica keeps up{conn}: lag {start:.0} s -> {end:.0} s, {growth:+.3} s per s over {} readings{by}{}",
            best.points.len(),
            sbm_only_caveat(v)
        ));
    }
    let b = &v.bound;
    let w = &v.witnesses;
    let sbm = w.get(Witness::SecondsBehind);
    let (sbm_behind, sbm_zeros, sbm_worst) = if best.witness == Witness::SecondsBehind {
        (0, 0, None)
    } else {
        Witnesses::sbm_zero_while_behind(v, best, SBM_CONTRADICTED_S)
    };
    let series_end = |x: Witness| w.get(x).and_then(|s| s.last()).map(|p| p.lag_s);
    let series_growth = |x: Witness| w.get(x).and_then(LagSeries::growth);
    let threads = i.threads;
    let other_witnesses = other_witnesses(w, best);
    let evidence = evidence(i, v, best);
    let window =
        (best.first().zip(best.last())).map(|(a, z)| (a.epoch.floor() as i64, z.epoch.floor() as i64));
    let bytes = |x: Option<u64>| x.map(|x| x as f64);
    Decision::Fire(Verdict {
        connection: v.name.clone(),
        witness: best.witness,
        lag_readings: best.points.len(),
        lag_start_s: start,
        lag_end_s: end,
        lag_growth_s_per_s: growth,
        lag_max_s: best.max_s(),
        lag_end_epoch: best.last().map(|p| p.epoch),
        lag_uncertainty_s: best.uncertainty_s,
        bound_side: b.side,
        bound_class: b.class,
        bound_why: b.why.clone(),
        bound_missing: b.missing.clone(),
        sbm_start_s: sbm.and_then(|s| s.first()).map(|p| p.lag_s),
        sbm_end_s: series_end(Witness::SecondsBehind),
        sbm_growth_s_per_s: series_growth(Witness::SecondsBehind),
        sbm_zero_while_behind_readings: sbm_behind,
        sbm_zeros,
        sbm_worst_s: sbm_worst,
        heartbeat_lag_end_s: series_end(Witness::Heartbeat),
        heartbeat_growth_s_per_s: series_growth(Witness::Heartbeat),
        binlog_event_lag_end_s: series_end(Witness::BinlogEvents),
        binlog_event_growth_s_per_s: series_growth(Witness::BinlogEvents),
        other_witnesses,
        rejected: w.rejected.clone(),
        io_waiting_share: v.states.io_waiting,
        io_queueing_share: v.states.io_queueing,
        sql_idle_share: v.states.sql_idle,
        sql_row_search_share: b.stacks.and_then(|p| p.row_search_share()),
        sql_commit_share: b.stacks.and_then(|p| p.commit_share()),
        sql_on_cpu_share: threads.and_then(|t| t.sql_on_cpu()),
        received_bytes_per_s: v.received_bytes_s,
        executed_bytes_per_s: v.executed_bytes_s,
        relay_log_space_bytes: (bytes(v.relay_log_space.0), bytes(v.relay_log_space.1)),
        backlog_bytes: (bytes(v.backlog.0), bytes(v.backlog.1)),
        sql_caught_up_share: v.sql_caught_up_share,
        zero_readings_dropped: v.zeros_dropped,
        event_lag: i.event_lag,
        threads,
        io_thread_fsync_share: threads
            .filter(|t| t.io_samples > 0)
            .map(|t| t.io_fsync as f64 / t.io_samples as f64),
        sql_thread_fsync_share: threads
            .filter(|t| t.sql_samples > 0)
            .map(|t| t.sql_fsync as f64 / t.sql_samples as f64),
        settings: i.settings.iter().map(|(n, s)| (*n, s.value.trim().to_string())).collect(),
        basis: super::Basis {
            severity: Severity::Warning,
            confidence: if b.side.is_some() { 0.85 } else { 0.6 },
            window,
            evidence,
            // The writers (and the issuer, when not the IO thread's flushes) come from the window's write episodes.
            actors: Actors { bound: vec![bound_actor(v)], issuers: issuers(v, threads), writers: Vec::new() },
        },
    })
}

/// The witnesses other than the one measured, with their last reading.
fn other_witnesses(w: &Witnesses, best: &LagSeries) -> Vec<OtherWitness> {
    w.series
        .iter()
        .filter(|s| s.witness != best.witness)
        .filter_map(|s| {
            let (last, end) = (s.last()?, best.last()?.epoch);
            Some(OtherWitness { witness: s.witness, lag_s: last.lag_s, before_end_s: end - last.epoch })
        })
        .collect()
}

/// The finding's evidence: the first and last Seconds_Behind_Master rows, the measured
/// witness's readings, the replication settings.
fn evidence(i: &Inputs<'_>, v: &ReplicaView, best: &LagSeries) -> Vec<Evidence> {
    let mut evidence = Vec::new();
    if let (Some(a), Some(z), Some(pf)) = (v.lag.first(), v.lag.last(), i.status_file) {
        evidence.push(quote_row(pf, a.2, "Seconds_Behind_Master (first reading)", a.1));
        evidence.push(quote_row(pf, z.2, "Seconds_Behind_Master (last reading)", z.1));
    }
    if best.witness != Witness::SecondsBehind {
        evidence.extend([reading(i, best, true), reading(i, best, false)].into_iter().flatten());
    }
    for (k, s) in &i.settings {
        evidence.push(ctx_evidence(s, k));
    }
    evidence
}

/// The verdict's numbers as the finding's metrics.
fn metrics(v: &Verdict) -> BTreeMap<&'static str, Metric> {
    let mut metrics = BTreeMap::new();
    metrics.insert("lag_start_s", Metric::num(v.lag_start_s, Unit::Seconds));
    metrics.insert("lag_end_s", Metric::num(v.lag_end_s, Unit::Seconds));
    metrics.insert("lag_growth_s_per_s", Metric::num(v.lag_growth_s_per_s, Unit::SecondsPerSecond));
    metrics.insert("lag_max_s", Metric::opt(v.lag_max_s, Unit::Seconds));
    metrics.insert("lag_end_epoch", Metric::opt(v.lag_end_epoch, Unit::EpochSeconds));
    metrics.insert("lag_witness", Metric::text(v.witness.id()));
    metrics.insert("lag_uncertainty_s", Metric::num(v.lag_uncertainty_s, Unit::Seconds));
    metrics.insert("bound_by", Metric::text(v.bound_side.map_or("unknown", Side::id)));
    metrics.insert("bound_class", Metric::text(v.bound_class.id()));
    metrics.insert("sbm_start_s", Metric::opt(v.sbm_start_s, Unit::Seconds));
    metrics.insert("sbm_end_s", Metric::opt(v.sbm_end_s, Unit::Seconds));
    metrics.insert("sbm_growth_s_per_s", Metric::opt(v.sbm_growth_s_per_s, Unit::SecondsPerSecond));
    metrics.insert(
        "sbm_zero_while_behind_readings",
        Metric::num(v.sbm_zero_while_behind_readings as f64, Unit::Count),
    );
    metrics.insert("heartbeat_lag_end_s", Metric::opt(v.heartbeat_lag_end_s, Unit::Seconds));
    metrics
        .insert("heartbeat_growth_s_per_s", Metric::opt(v.heartbeat_growth_s_per_s, Unit::SecondsPerSecond));
    metrics.insert("binlog_event_lag_end_s", Metric::opt(v.binlog_event_lag_end_s, Unit::Seconds));
    metrics.insert(
        "binlog_event_growth_s_per_s",
        Metric::opt(v.binlog_event_growth_s_per_s, Unit::SecondsPerSecond),
    );
    metrics.insert("io_waiting_share", Metric::opt(v.io_waiting_share, Unit::Fraction));
    metrics.insert("io_queueing_share", Metric::opt(v.io_queueing_share, Unit::Fraction));
    metrics.insert("sql_idle_share", Metric::opt(v.sql_idle_share, Unit::Fraction));
    metrics.insert("sql_row_search_share", Metric::opt(v.sql_row_search_share, Unit::Fraction));
    metrics.insert("sql_commit_share", Metric::opt(v.sql_commit_share, Unit::Fraction));
    metrics.insert("sql_on_cpu_share", Metric::opt(v.sql_on_cpu_share, Unit::Fraction));
    metrics.insert("received_bytes_per_s", Metric::opt(v.received_bytes_per_s, Unit::BytesPerSecond));
    metrics.insert("executed_bytes_per_s", Metric::opt(v.executed_bytes_per_s, Unit::BytesPerSecond));
    metrics.insert("relay_log_space_start_bytes", Metric::opt(v.relay_log_space_bytes.0, Unit::Bytes));
    metrics.insert("relay_log_space_end_bytes", Metric::opt(v.relay_log_space_bytes.1, Unit::Bytes));
    metrics.insert("backlog_start_bytes", Metric::opt(v.backlog_bytes.0, Unit::Bytes));
    metrics.insert("backlog_end_bytes", Metric::opt(v.backlog_bytes.1, Unit::Bytes));
    metrics.insert("sql_caught_up_share", Metric::num(v.sql_caught_up_share, Unit::Fraction));
    metrics.insert("lag_readings", Metric::num(v.lag_readings as f64, Unit::Count));
    metrics.insert("zero_readings_dropped", Metric::num(v.zero_readings_dropped as f64, Unit::Count));
    metrics.insert("binlog_event_lag_median_s", Metric::opt(v.event_lag.map(|e| e.median_s), Unit::Seconds));
    metrics.insert("binlog_event_lag_max_s", Metric::opt(v.event_lag.map(|e| e.max_s), Unit::Seconds));
    metrics
        .insert("binlog_events_timed", Metric::opt(v.event_lag.map(|e| e.transactions as f64), Unit::Count));
    metrics.insert("io_thread_fsync_share", Metric::opt(v.io_thread_fsync_share, Unit::Fraction));
    metrics.insert("sql_thread_fsync_share", Metric::opt(v.sql_thread_fsync_share, Unit::Fraction));
    for (k, val) in &v.settings {
        if ["sync_binlog", "innodb_flush_log_at_trx_commit", "sync_relay_log"].contains(k) {
            metrics.insert(k, Metric::setting(val));
        }
    }
    metrics
}

/// Writes the verdict as the finding.
pub(crate) fn explain(v: &Verdict) -> Finding {
    let conn =
        if v.connection.is_empty() { String::new() } else { format!(" (connection '{}')", v.connection) };
    let set_text = if v.settings.is_empty() {
        "settings not in the capture".to_string()
    } else {
        v.settings.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
    };
    let thread_text = v
        .threads
        .map(|t| {
            format!(
                "; perf: IO thread {} of {} samples in fsync paths, SQL thread {} of {}",
                t.io_fsync, t.io_samples, t.sql_fsync, t.sql_samples
            )
        })
        .unwrap_or_default();
    let event_text = v
        .event_lag
        .map(|e| {
            format!(
                "; its binlog's {} replicated transactions (stamped with the source's commit times) were written a median {:.0} s (max {:.0} s) after the source committed them",
                e.transactions, e.median_s, e.max_s
            )
        })
        .unwrap_or_default();
    let sbm_text = match v.sbm_worst_s {
        Some(worst) if v.sbm_zero_while_behind_readings > 0 => format!(
            " Seconds_Behind_Master read 0 in {} of its readings (of {} zeros) while the source's side measured the replica up to {worst:.0} s behind: it counts the SQL thread only, which had executed all the IO thread had received.",
            v.sbm_zero_while_behind_readings, v.sbm_zeros
        ),
        _ => String::new(),
    };
    let others: Vec<String> = v
        .other_witnesses
        .iter()
        .map(|o| {
            let when = if o.before_end_s > 5.0 {
                format!(" ({:.0} s before the end)", o.before_end_s)
            } else {
                String::new()
            };
            format!("{} {:.0} s at its last reading{when}", o.witness.id(), o.lag_s)
        })
        .chain(v.rejected.iter().map(|(x, why)| format!("{} not used: {why}", x.id())))
        .collect();
    let others_text =
        if others.is_empty() { String::new() } else { format!(" Other witnesses: {}.", others.join("; ")) };
    let bound_text = match v.bound_side {
        Some(side) => format!(
            "bound by the {} ({}): {}{}",
            side.thread(),
            v.bound_class.id(),
            v.bound_why,
            v.bound_missing.as_ref().map(|m| format!(" (not told apart: {m})")).unwrap_or_default()
        ),
        None => format!(
            "the bound thread is unknown ({})",
            v.bound_missing.as_deref().unwrap_or("the read and executed positions are not in the series")
        ),
    };
    let summary = format!(
        "The replica falls behind{conn}: lag {:.0} s -> {:.0} s ({:.2} s per s, least squares over {} readings of {}, +-{:.1} s{}); {bound_text}.{sbm_text}{others_text} Replica: {set_text}{thread_text}{event_text}.",
        v.lag_start_s,
        v.lag_end_s,
        v.lag_growth_s_per_s,
        v.lag_readings,
        v.witness.words(),
        v.lag_uncertainty_s,
        if v.zero_readings_dropped > 0 && v.witness == Witness::SecondsBehind {
            format!(
                ", {} readings of 0 printed while the SQL thread was within 4 KiB of the IO thread left out",
                v.zero_readings_dropped
            )
        } else {
            String::new()
        },
    );
    v.basis.finding(ID, summary, metrics(v), remedies(v.bound_class))
}

/// Evaluates the rule: [`decide`], then [`explain`].
pub(crate) fn check(i: &Inputs<'_>) -> Outcome {
    super::outcome(decide(i), explain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Views;
    use crate::analysis::lag_witness::{LagPoint, sbm_series};
    use crate::analysis::replica_bound::bound;
    use crate::rules::testkit::{T0, file, fired, passed, skipped, sourced};
    use crate::table::Timeline;

    /// A `\G` status file: record k starts at line 1 + 3k, its lag on the line after.
    fn status(readings: usize) -> ParsedFile {
        let mut text = String::new();
        for k in 0..readings {
            text.push_str(&format!(
                "*************************** 1. row ***************************\n  Seconds_Behind_Master: {k}\n  Slave_IO_Running: Yes\n"
            ));
        }
        file("slave-status.txt", &text)
    }

    /// A connection whose lag rises from `start` by `rise` s over 10 readings, growing `slope` s per s
    /// (4 readings without a slope).
    fn replica(start: f64, rise: f64, slope: Option<f64>) -> ReplicaView {
        let (n, dt) = match slope {
            Some(g) if g > 0.0 => (10, rise / 9.0 / g),
            _ => (4, 1.0),
        };
        let lag: Vec<(f64, f64, usize)> = (0..n)
            .map(|k| (T0 as f64 + k as f64 * dt, start + rise * k as f64 / (n - 1) as f64, 1 + 3 * k))
            .collect();
        ReplicaView {
            file: 0,
            name: String::new(),
            lag: lag.clone(),
            zeros_dropped: 0,
            readings: n,
            slope,
            received_bytes_s: Some(100e3),
            executed_bytes_s: Some(99e3),
            backlog: (Some(10), Some(20)),
            relay_log_space: (Some(1000), Some(2000)),
            sql_caught_up_share: 0.9,
            source: Some("10.0.0.1:3306".into()),
            source_server_id: Some(1),
            sbm_raw: lag,
            states: Default::default(),
            witnesses: Default::default(),
            bound: Default::default(),
        }
    }

    /// The views as the analysis leaves them: the Seconds_Behind_Master witness added, the bound measured.
    fn run(
        views: &[ReplicaView],
        f: &ParsedFile,
        settings: Vec<(&'static str, &Sourced<String>)>,
    ) -> Outcome {
        let views: Vec<ReplicaView> = views
            .iter()
            .cloned()
            .map(|mut v| {
                if v.witnesses.get(Witness::SecondsBehind).is_none() {
                    v.witnesses.series.extend(sbm_series(&v));
                }
                v.bound = bound(&v, None, None);
                v
            })
            .collect();
        let files = BTreeMap::from([(0, f)]);
        check(&Inputs {
            replicas: &views,
            status_file: Some(f),
            files,
            threads: None,
            event_lag: None,
            settings,
            not_a_replica: None,
        })
    }

    #[test]
    fn a_growing_lag_fires_and_quotes_the_lag_lines() {
        let f = status(10);
        let relay = sourced("1".to_string());
        let out = fired(run(
            &[replica(3.0, MIN_RISE_S, Some(MIN_GROWTH * 1.0001))],
            &f,
            vec![("sync_relay_log", &relay)],
        ));
        assert_eq!((out.rule, out.confidence), (ID, 0.85));
        assert_eq!(out.metrics["bound_by"].value, "io_thread");
        assert_eq!(out.metrics["sync_relay_log"].value, 1.0);
        // The Seconds_Behind_Master line of the first and last records, not their `***` line.
        let first = &out.evidence[0];
        assert_eq!((first.file.as_str(), first.lines), ("slave-status.txt", Some([2, 2])));
        assert_eq!(first.quote.as_deref(), Some("  Seconds_Behind_Master: 0"));
        assert_eq!(out.evidence[1].lines, Some([29, 29]));
        assert_eq!(
            (out.evidence[2].file.as_str(), out.evidence[2].metric.as_str()),
            ("ctx.txt", "sync_relay_log")
        );
        assert!(out.summary.contains("Replica: sync_relay_log=1."), "{}", out.summary);
        // The IO side without thread states: the thread is named, what it waits on is not.
        assert_eq!(out.metrics["bound_class"].value, "io_thread");
        let a = &out.actors.bound[0];
        assert_eq!((a.comm.as_deref(), a.measured), (Some("replica IO thread"), true));
        assert!(a.note.as_deref().unwrap().contains("not measured: Slave_IO_State"), "{:?}", a.note);
    }

    /// A replica whose source-side witness grows while Seconds_Behind_Master reads 0 (`rx_link_800kbit`'s
    /// shape): the heartbeat is told, the zeros are called out, and the link gets no durability remedy.
    #[test]
    fn a_source_side_witness_overrules_zeros_and_the_link_keeps_durability() {
        let f = status(10);
        let mut v = replica(0.0, 0.0, None);
        v.lag = (0..10).map(|k| ((T0 + 10 * k) as f64, 0.0, 1 + 3 * k as usize)).collect();
        v.sbm_raw = v.lag.clone();
        v.executed_bytes_s = Some(100e3);
        v.states.io_readings = 10;
        v.states.io_waiting = Some(0.9);
        v.states.sql_idle = Some(0.8);
        let points = (0..10)
            .map(|k| LagPoint {
                epoch: T0 as f64 + k as f64 * 10.0,
                lag_s: 0.9 * k as f64 * 10.0,
                line: 2 + k,
            })
            .collect();
        v.witnesses.series.push(LagSeries {
            witness: Witness::Heartbeat,
            file: 0,
            points,
            uncertainty_s: 1.0,
            how: String::new(),
        });
        let out = fired(run(&[v.clone()], &f, vec![]));
        assert_eq!(out.metrics["lag_witness"].value, "pt_heartbeat");
        assert_eq!(
            (out.metrics["lag_end_s"].value.as_f64(), out.metrics["lag_growth_s_per_s"].value.as_f64()),
            (Some(81.0), Some(0.9))
        );
        assert_eq!(out.metrics["sbm_end_s"].value, 0.0);
        assert_eq!(out.metrics["bound_class"].value, "link_or_source");
        // 9 of the 10 zeros were read while the heartbeat measured 5 s or more (9 s to 81 s).
        assert_eq!(out.metrics["sbm_zero_while_behind_readings"].value, 9.0);
        assert!(out.summary.contains("Seconds_Behind_Master read 0 in 9 of its readings"), "{}", out.summary);
        assert!(out.remedies[0].contains("Do not relax"));
        assert!(
            !out.remedies.iter().any(|r| r.contains("sync_relay_log=0") || r.contains("=2")),
            "{:?}",
            out.remedies
        );
        assert_eq!(out.actors.bound[0].comm.as_deref(), Some("replica IO thread"));
        // The heartbeat's first and last readings are quoted after the status lines.
        assert_eq!(out.evidence[2].metric, "lag by pt_heartbeat (first reading)");
        // Without the heartbeat, Seconds_Behind_Master alone: the replica seems to keep up.
        v.witnesses.series.clear();
        let why = passed(run(&[v], &f, vec![]));
        assert!(why.starts_with("the replica keeps up: lag 0 s -> 0 s"), "{why}");
        assert!(why.contains("a lag of the IO thread (a slow link or source) is not measured"), "{why}");
    }

    #[test]
    fn growth_and_rise_edges() {
        let f = status(10);
        let r = passed(run(&[replica(3.0, MIN_RISE_S, Some(MIN_GROWTH - 0.001))], &f, vec![]));
        assert!(
            r.starts_with("the replica keeps up: lag 3 s -> 8 s, +0.049 s per s over 10 readings; "),
            "{r}"
        );
        passed(run(&[replica(3.0, MIN_RISE_S - 0.01, Some(1.0))], &f, vec![]));
        assert_eq!(
            passed(run(&[replica(3.0, 50.0, None)], &f, vec![])),
            "fewer than 5 lag readings (Seconds_Behind_Master) in 1 connection(s)"
        );
    }

    /// Seconds_Behind_Master alone, mostly 0 with rising readings between (`rx_link_800kbit` without its binlog):
    /// the rule cannot measure the IO side and says so, with the positive readings.
    #[test]
    fn zeros_with_rising_readings_between_are_named_when_sbm_is_alone() {
        let f = status(10);
        let mut v = replica(0.0, 0.0, None);
        let lag = |k: usize| if k % 3 == 2 { 10.0 * k as f64 } else { 0.0 };
        v.lag = (0..10).map(|k| ((T0 + 10 * k as i64) as f64, lag(k), 1 + 3 * k)).collect();
        v.sbm_raw = v.lag.clone();
        let why = passed(run(&[v], &f, vec![]));
        assert!(
            why.ends_with("3 of its readings were positive, up to 80 s, between 7 readings of 0."),
            "{why}"
        );
    }

    #[test]
    fn the_fastest_growing_connection_is_judged_and_its_thread_named() {
        let f = status(10);
        let mut sql = replica(0.0, 40.0, Some(4.0));
        sql.name = "b".into();
        sql.executed_bytes_s = Some(10e3);
        let out = fired(run(&[replica(3.0, 6.0, Some(0.6)), sql], &f, vec![]));
        assert_eq!(out.metrics["bound_by"].value, "sql_thread");
        assert_eq!(out.metrics["bound_class"].value, "sql_thread");
        assert!(out.actors.bound[0].note.as_deref().unwrap().contains("no perf stacks"));
        assert!(
            out.summary.starts_with("The replica falls behind (connection 'b'): lag 0 s -> 40 s"),
            "{}",
            out.summary
        );
    }

    #[test]
    fn skips_without_a_status_series() {
        let (tl, views) = (Timeline::default(), Views::default());
        assert_eq!(
            skipped(ID, &Available::bare(&tl, &views)),
            ["replica status series (SHOW SLAVE STATUS / SHOW REPLICA STATUS every interval, TS-framed)"]
        );
    }
}
