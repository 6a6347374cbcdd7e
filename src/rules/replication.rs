//! `replication_lag` (case 3's symptom): a replica falls behind during the
//! capture. The lag and its growth come from the replica's own `SHOW SLAVE
//! STATUS` series; the bound thread from the positions: `io_thread` when the
//! SQL thread executes all the IO thread receives (seed 003: the receiver
//! starved by a flush per event or transaction), `sql_thread` when the relay
//! log backlog grows (a single applier slower than the source).

use super::Outcome;
use super::evidence::{ctx_evidence, line_evidence, num, opt};
use super::inputs::{Available, Missing};
use crate::analysis::replication::{EventLag, ReplicaView, ThreadFsync};
use crate::model::{Evidence, Finding, Severity, Window};
use crate::pipeline::{ParsedFile, Sourced};
use serde_json::Value;

/// Rule id.
pub const ID: &str = "replication_lag";

/// The rule's declaration to the report: title and key charts.
pub const SPEC: crate::verdict::RuleSpec =
    crate::verdict::RuleSpec { id: ID, title: "Replication lag", key_charts: &["replication"] };

/// Lag growth below this (s per s) is noise of 1 s readings.
pub const MIN_GROWTH: f64 = 0.05;
/// The lag must grow by at least this many seconds over the capture.
pub const MIN_RISE_S: f64 = 5.0;

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
pub struct Inputs<'a> {
    /// The replica's connections (not empty).
    pub replicas: &'a [ReplicaView],
    /// The status file the connections were read from (for quotes).
    pub status_file: Option<&'a ParsedFile>,
    /// perf samples of the replication threads.
    pub threads: Option<ThreadFsync>,
    /// How late the replica wrote the source's transactions.
    pub event_lag: Option<EventLag>,
    /// The settings found: (name, value).
    pub settings: Vec<(&'static str, &'a Sourced<String>)>,
}

/// Picks the inputs.
pub fn gather<'a>(a: &Available<'a>) -> Result<Inputs<'a>, Vec<Missing>> {
    let replicas = a.replicas();
    if replicas.is_empty() {
        return Err(vec![Missing::ReplicaStatus]);
    }
    let settings =
        SETTINGS.iter().filter_map(|names| names.iter().find_map(|n| Some((*n, a.variable(n)?)))).collect();
    Ok(Inputs {
        replicas,
        status_file: a.file(replicas[0].file),
        threads: a.replica_threads(),
        event_lag: a.event_lag(),
        settings,
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

/// Evaluates the rule.
pub fn check(i: &Inputs<'_>) -> Outcome {
    let views = i.replicas;
    // The connection falling behind fastest.
    let Some(v) = views
        .iter()
        .filter(|v| v.slope.is_some())
        .max_by(|a, b| a.slope.unwrap_or(0.0).total_cmp(&b.slope.unwrap_or(0.0)))
    else {
        return Outcome::Pass(format!(
            "fewer than 5 lag readings (Seconds_Behind_Master) in {} connection(s)",
            views.len()
        ));
    };
    let growth = v.slope.unwrap_or(0.0);
    let (start, end) = (v.lag.first().map_or(0.0, |x| x.1), v.lag.last().map_or(0.0, |x| x.1));
    let conn = if v.name.is_empty() { String::new() } else { format!(" (connection '{}')", v.name) };
    if growth < MIN_GROWTH || end - start < MIN_RISE_S {
        return Outcome::Pass(format!(
            "the replica keeps up{conn}: lag {start:.0} s -> {end:.0} s, {growth:+.3} s per s over {} readings",
            v.lag.len()
        ));
    }
    let io_bound = v.io_bound();
    let bound_by = match io_bound {
        Some(true) => "io_thread",
        Some(false) => "sql_thread",
        None => "unknown",
    };
    let (threads, event_lag) = (i.threads, i.event_lag);
    let mut metrics = std::collections::BTreeMap::new();
    metrics.insert("lag_start_s", num(start));
    metrics.insert("lag_end_s", num(end));
    metrics.insert("lag_growth_s_per_s", num(growth));
    metrics.insert("bound_by", Value::String(bound_by.into()));
    metrics.insert("received_bytes_per_s", opt(v.received_bytes_s));
    metrics.insert("executed_bytes_per_s", opt(v.executed_bytes_s));
    metrics.insert("relay_log_space_start_bytes", opt(v.relay_log_space.0.map(|x| x as f64)));
    metrics.insert("relay_log_space_end_bytes", opt(v.relay_log_space.1.map(|x| x as f64)));
    metrics.insert("backlog_start_bytes", opt(v.backlog.0.map(|x| x as f64)));
    metrics.insert("backlog_end_bytes", opt(v.backlog.1.map(|x| x as f64)));
    metrics.insert("sql_caught_up_share", num(v.sql_caught_up_share));
    metrics.insert("lag_readings", num(v.lag.len() as f64));
    metrics.insert("zero_readings_dropped", num(v.zeros_dropped as f64));
    metrics.insert("binlog_event_lag_median_s", opt(event_lag.map(|e| e.median_s)));
    metrics.insert("binlog_event_lag_max_s", opt(event_lag.map(|e| e.max_s)));
    metrics.insert("binlog_events_timed", opt(event_lag.map(|e| e.transactions as f64)));
    metrics.insert(
        "io_thread_fsync_share",
        opt(threads.filter(|t| t.io_samples > 0).map(|t| t.io_fsync as f64 / t.io_samples as f64)),
    );
    metrics.insert(
        "sql_thread_fsync_share",
        opt(threads.filter(|t| t.sql_samples > 0).map(|t| t.sql_fsync as f64 / t.sql_samples as f64)),
    );
    let settings: Vec<(String, String)> =
        i.settings.iter().map(|(n, s)| (n.to_string(), s.value.trim().to_string())).collect();
    for (k, val) in &settings {
        if let Some(key) =
            ["sync_binlog", "innodb_flush_log_at_trx_commit", "sync_relay_log"].iter().find(|x| *x == k)
        {
            metrics.insert(key, val.parse::<f64>().map_or(Value::String(val.clone()), num));
        }
    }
    let kb = |x: Option<f64>| x.map_or("?".to_string(), |b| format!("{:.0} kB/s", b / 1e3));
    let set_text = if settings.is_empty() {
        "settings not in the capture".to_string()
    } else {
        settings.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
    };
    let thread_text = threads
        .map(|t| {
            format!(
                "; perf: IO thread {} of {} samples in fsync paths, SQL thread {} of {}",
                t.io_fsync, t.io_samples, t.sql_fsync, t.sql_samples
            )
        })
        .unwrap_or_default();
    let event_text = event_lag
        .map(|e| {
            format!(
                "; its binlog's {} replicated transactions (stamped with the source's commit times) were written a median {:.0} s (max {:.0} s) after the source committed them",
                e.transactions, e.median_s, e.max_s
            )
        })
        .unwrap_or_default();
    let why = match bound_by {
        "io_thread" => format!(
            "the SQL thread executes all the IO thread receives ({} vs {} received; it was within 4 kB of the IO thread in {:.0} % of the readings): the IO thread is the bottleneck",
            kb(v.executed_bytes_s),
            kb(v.received_bytes_s),
            v.sql_caught_up_share * 100.0
        ),
        "sql_thread" => format!(
            "the relay log backlog grows: {} received but only {} executed (backlog {} -> {} bytes): the SQL thread is the bottleneck",
            kb(v.received_bytes_s),
            kb(v.executed_bytes_s),
            v.backlog.0.map_or("?".into(), |b| b.to_string()),
            v.backlog.1.map_or("?".into(), |b| b.to_string())
        ),
        _ => "the read and executed positions are not in the series: the bound thread is unknown".into(),
    };
    let remedies: Vec<String> = match bound_by {
        "io_thread" => vec![
            "The IO thread pays a flush per received event or transaction: on the replica set sync_relay_log=0 (or 10000) and sync_master_info=10000, and relax sync_binlog (0) and innodb_flush_log_at_trx_commit (2 or 0) where the replica can be rebuilt; the received rate then rises to what the network and disk can stream.".into(),
            "MySQL 5.7/8.0 with master_info_repository/relay_log_info_repository=TABLE commits to InnoDB per received transaction: relaxed innodb_flush_log_at_trx_commit lifts that too.".into(),
            "Test the network (mysqlbinlog --read-from-remote-server, scp) only after the flushes: seed 003 saw ~100 kB/s on a link that streams hundreds of MB/s.".into(),
            "Or batch the source's tiny transactions into larger ones.".into(),
        ],
        _ => vec![
            "Parallel replication: MariaDB slave_parallel_threads=N with slave_parallel_mode=optimistic; MySQL replica_parallel_workers=N with replica_parallel_type=LOGICAL_CLOCK (and binlog_transaction_dependency_tracking=WRITESET on the source).".into(),
            "Relax the replica's durability (sync_binlog=0, innodb_flush_log_at_trx_commit=2) if it still flushes per transaction.".into(),
            "Look for tables without a primary key under binlog_format=ROW (every row event scans the table) and for long transactions on the source.".into(),
        ],
    };
    let mut evidence = Vec::new();
    if let (Some(a), Some(b), Some(pf)) = (v.lag.first(), v.lag.last(), i.status_file) {
        evidence.push(quote_row(pf, a.2, "Seconds_Behind_Master (first reading)", a.1));
        evidence.push(quote_row(pf, b.2, "Seconds_Behind_Master (last reading)", b.1));
    }
    for (k, s) in &i.settings {
        evidence.push(ctx_evidence(s, k));
    }
    let window = (v.lag.first().zip(v.lag.last()))
        .map(|(a, b)| Window::epochs(a.0.floor() as i64, b.0.floor() as i64));
    Outcome::Fire(Box::new(Finding {
        rule: ID,
        severity: Severity::Warning,
        confidence: if io_bound.is_some() { 0.85 } else { 0.6 },
        summary: format!(
            "The replica falls behind{conn}: lag {start:.0} s -> {end:.0} s ({growth:.2} s per s, least squares over {} readings{}); {why}. Replica: {set_text}{thread_text}{event_text}.",
            v.lag.len(),
            if v.zeros_dropped > 0 {
                format!(
                    ", {} readings of 0 printed while the SQL thread was within 4 kB of the IO thread left out",
                    v.zeros_dropped
                )
            } else {
                String::new()
            },
        ),
        window,
        metrics,
        evidence,
        remedies,
        actors: Default::default(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Views;
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

    /// A connection whose lag rises from `start` by `rise` s over 10 readings, growing `slope` s per s.
    fn replica(start: f64, rise: f64, slope: Option<f64>) -> ReplicaView {
        ReplicaView {
            file: 0,
            name: String::new(),
            lag: (0..10)
                .map(|k| ((T0 + k) as f64, start + rise * k as f64 / 9.0, 1 + 3 * k as usize))
                .collect(),
            zeros_dropped: 0,
            readings: 10,
            slope,
            received_bytes_s: Some(100e3),
            executed_bytes_s: Some(99e3),
            backlog: (Some(10), Some(20)),
            relay_log_space: (Some(1000), Some(2000)),
            sql_caught_up_share: 0.9,
            source: Some("10.0.0.1:3306".into()),
            source_server_id: Some(1),
        }
    }

    fn run(
        views: &[ReplicaView],
        f: &ParsedFile,
        settings: Vec<(&'static str, &Sourced<String>)>,
    ) -> Outcome {
        check(&Inputs { replicas: views, status_file: Some(f), threads: None, event_lag: None, settings })
    }

    #[test]
    fn a_growing_lag_fires_and_quotes_the_lag_lines() {
        let f = status(10);
        let relay = sourced("1".to_string());
        let out =
            fired(run(&[replica(3.0, MIN_RISE_S, Some(MIN_GROWTH))], &f, vec![("sync_relay_log", &relay)]));
        assert_eq!((out.rule, out.confidence), (ID, 0.85));
        assert_eq!(out.metrics["bound_by"], "io_thread");
        assert_eq!(out.metrics["sync_relay_log"], 1.0);
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
    }

    #[test]
    fn growth_and_rise_edges() {
        let f = status(10);
        let r = passed(run(&[replica(3.0, MIN_RISE_S, Some(MIN_GROWTH - 0.001))], &f, vec![]));
        assert_eq!(r, "the replica keeps up: lag 3 s -> 8 s, +0.049 s per s over 10 readings");
        passed(run(&[replica(3.0, MIN_RISE_S - 0.01, Some(1.0))], &f, vec![]));
        assert_eq!(
            passed(run(&[replica(3.0, 50.0, None)], &f, vec![])),
            "fewer than 5 lag readings (Seconds_Behind_Master) in 1 connection(s)"
        );
    }

    #[test]
    fn the_fastest_growing_connection_is_judged_and_its_thread_named() {
        let f = status(10);
        let mut sql = replica(0.0, 40.0, Some(4.0));
        sql.name = "b".into();
        sql.executed_bytes_s = Some(10e3);
        let out = fired(run(&[replica(3.0, 6.0, Some(0.6)), sql], &f, vec![]));
        assert_eq!(out.metrics["bound_by"], "sql_thread");
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
