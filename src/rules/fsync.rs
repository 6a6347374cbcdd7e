//! `fsync_bound_small_transactions` (case 3): the commit rate is bound by
//! device flushes of tiny transactions under `sync_binlog=1` /
//! `innodb_flush_log_at_trx_commit=1`.

use super::{Outcome, num, opt};
use crate::analysis::stats::{mean, present};
use crate::analyze::Facts;
use crate::model::{Evidence, Finding, Severity};

/// Evaluates the rule.
pub fn check(f: &Facts<'_>) -> Outcome {
    let tl = &f.p.timeline;
    // The commit rate: transactions of the decoded binlog, else `Binlog_commits` (one per
    // transaction). Never `Handler_commit` (one per engine taking part, plus read-only statements:
    // 2.4 per transaction in samples/pt_stalk_mariadb) nor a sum of `Com_*` (statements).
    // `Com_commit` counts explicit COMMITs only (autocommit transactions are missed): last resort.
    // A column of zeros (binary log off: `Binlog_commits` stays 0) is no rate.
    let trx_col = ["binlog.trx_s", "mysql.Binlog_commits_s", "mysql.Com_commit_s"]
        .into_iter()
        .find(|c| tl.get(c).is_some_and(|v| v.iter().flatten().any(|x| *x > 0.0)));
    let replica = crate::analysis::replication::views(f.p).into_iter().next();
    // A source on the same host flushes the same device: the device's f/s is not this server's.
    let own_fsyncs = replica.as_ref().is_some_and(|r| r.source_is_local())
        && tl.get("mysql.Innodb_data_fsyncs_s").is_some();
    let flush_col = f
        .device
        .as_ref()
        .map(|d| format!("dev.{d}.f_s"))
        .filter(|c| !own_fsyncs && tl.get(c).is_some_and(|v| present(v).iter().any(|x| *x > 0.0)))
        .or_else(|| {
            ["mysql.Innodb_data_fsyncs_s"].into_iter().map(String::from).find(|c| tl.get(c).is_some())
        })
        .or_else(|| tl.names_with_prefix("ds.").find(|k| k.ends_with(".f_s")).cloned());
    let mut missing = Vec::new();
    if trx_col.is_none() {
        missing.push("commit rate (decoded binlog or mysqladmin extended-status)".to_string());
    }
    if flush_col.is_none() {
        missing.push("flush rate (iostat -x f/s, /proc/diskstats or Innodb_data_fsyncs)".to_string());
    }
    let (Some(trx_col), Some(flush_col)) = (trx_col, flush_col) else { return Outcome::Skip(missing) };
    let trx = tl.get(trx_col).unwrap_or(&[]);
    let flush = tl.get(&flush_col).unwrap_or(&[]);
    // Seconds with commits: the load window.
    let active: Vec<usize> = (0..tl.len).filter(|&i| trx[i].is_some_and(|v| v >= 10.0)).collect();
    if active.len() < 5 {
        return Outcome::Pass(format!("fewer than 5 seconds with commits ({} found)", active.len()));
    }
    let tps = mean(&active.iter().filter_map(|&i| trx[i]).collect::<Vec<_>>()).unwrap_or(0.0);
    let fps = mean(&active.iter().filter_map(|&i| flush[i]).collect::<Vec<_>>()).unwrap_or(0.0);
    let binlog_file = f.p.binlog.map(|i| &f.p.files[i]);
    let bytes_per_trx = binlog_file.and_then(|pf| match &pf.data {
        Some(iosift_parsers::Data::Mysqlbinlog(b)) => Some(b.size_stats().mean),
        _ => None,
    });
    let var = |n: &str| f.p.ctx.variable(n).map(|s| s.value.trim().to_string());
    let sync_binlog = var("sync_binlog");
    let flush_log = var("innodb_flush_log_at_trx_commit");
    let durable = |v: &Option<String>| v.as_deref().map(|s| s == "1");
    let fsync_share = {
        let (mut s, mut fs) = (0u64, 0u64);
        for pf in &f.p.files {
            if let Some(iosift_parsers::Data::PerfScript(p)) = &pf.data {
                for t in &p.threads {
                    s += t.samples;
                    fs += t.fsync_samples;
                }
            }
        }
        (s > 0).then(|| fs as f64 / s as f64)
    };
    let relaxed = durable(&sync_binlog) == Some(false) && durable(&flush_log) == Some(false);
    let small = bytes_per_trx.is_none_or(|b| b < 16.0 * 1024.0);
    let flush_bound = tps >= 50.0 && fps >= 50.0 && fps >= 0.3 * tps;
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
    let sync_relay = var("sync_relay_log");
    let on_replica = replica.as_ref().map(|r| {
        let t = crate::analysis::replication::thread_fsync(f.p);
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
    metrics.insert(
        "commit_counter",
        serde_json::Value::String(
            match trx_col {
                "binlog.trx_s" => "transactions of the decoded binary log",
                "mysql.Binlog_commits_s" => "Binlog_commits (one per transaction written to the binary log)",
                _ => "Com_commit (explicit COMMIT statements only: autocommit transactions are not counted)",
            }
            .to_string(),
        ),
    );
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
    for (name, metric) in
        [("sync_binlog", "sync_binlog"), ("innodb_flush_log_at_trx_commit", "innodb_flush_log_at_trx_commit")]
    {
        if let Some(s) = f.p.ctx.variable(name) {
            evidence.push(super::ctx_evidence(s, metric));
        }
    }
    if let Some(&row) =
        active.iter().max_by(|a, b| flush[**a].unwrap_or(0.0).total_cmp(&flush[**b].unwrap_or(0.0)))
    {
        evidence.push(super::cell_evidence(f, &flush_col, row, "f/s", flush[row].unwrap_or(0.0)));
    }
    if let Some(pf) =
        f.p.files.iter().find(|pf| matches!(pf.data, Some(iosift_parsers::Data::Mysqlbinlog(_))))
    {
        evidence.push(Evidence {
            file: pf.name.clone(),
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
        rule: "fsync_bound_small_transactions",
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
        window: Some(crate::model::Window { start: crate::analyze::rfc3339(tl.epoch(first)), end: crate::analyze::rfc3339(tl.epoch(last)) }),
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
