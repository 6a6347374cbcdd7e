//! MySQL/MariaDB sources: the decoded binlog (`binlog.*`), `mysqladmin
//! extended-status` counters (`mysql.*_s`), `SHOW SLAVE STATUS` /
//! `SHOW MASTER STATUS` series (`repl.*`, `binlog.local_bytes_s`), and the
//! context files: variables, performance_schema threads, option files,
//! InnoDB status and the processlist.

use super::{Adapter, Context, Measure, Offer, RawRow, Sink, Sourced, State, Visit};
use crate::clock::{Anchoring, Zone, ZoneEvidence};
use crate::table::Col;
use crate::table::columns::{BinlogMetric, GaleraMetric, MysqlCounter, ReplMetric};

/// A decoded binary log.
pub(super) struct Binlog<'d>(pub &'d iosift_parsers::mysqlbinlog::Binlog);

impl<'d> Adapter<'d> for Binlog<'d> {
    fn offers(&self) -> Vec<Offer> {
        let n = self.0.transactions.len() as i64;
        let why = "more transactions";
        if n > 0 { vec![Offer { measure: Measure::Binlog, tier: 3, score: n, why }] } else { Vec::new() }
    }

    fn binlog(&self) -> Option<&'d iosift_parsers::mysqlbinlog::Binlog> {
        Some(self.0)
    }

    /// Transactions, bytes and rows of every second of the binlog (all server ids).
    fn raw_rows(&self, zone: &Zone) -> Option<Vec<RawRow>> {
        let mut out = Vec::new();
        for s in self.0.per_second() {
            let e = match s.sec {
                iosift_parsers::mysqlbinlog::SecondKey::Epoch(e) => e as f64,
                iosift_parsers::mysqlbinlog::SecondKey::Local(n) => zone.local_to_epoch(n),
            };
            for (metric, value) in
                [("transactions", s.transactions as f64), ("bytes", s.bytes as f64), ("rows", s.rows as f64)]
            {
                out.push(RawRow {
                    end: e + 1.0,
                    interval: 1.0,
                    entity: "binlog",
                    metric: metric.into(),
                    value,
                });
            }
        }
        Some(out)
    }

    fn visit(&self, v: &mut Visit<'_>, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        if !v.uses(Measure::Binlog) {
            return None;
        }
        let b = self.0;
        let mut first = f64::INFINITY;
        let mut last = f64::NEG_INFINITY;
        let mut anchoring = None;
        // On a replica (log_slave_updates) the events of the source keep the source's server id and
        // times: they say when the source committed, not when this server wrote them.
        let local_id = v.ctx.variable("server_id").and_then(|x| x.value.trim().parse::<u32>().ok());
        let mut foreign = 0usize;
        let cols = [BinlogMetric::TrxS, BinlogMetric::BytesS, BinlogMetric::RowsS].map(Col::Binlog);
        for t in &b.transactions {
            if let (Some(own), Some(id)) = (local_id, t.server_id)
                && own != id
            {
                foreign += 1;
                continue;
            }
            let (e, a) = match (t.epoch, t.local) {
                (Some(e), _) => (e as f64, Anchoring::Epoch),
                (None, Some(n)) => (v.zone.local_to_epoch(n), Anchoring::LocalDateTime),
                _ => continue,
            };
            anchoring.get_or_insert(a);
            first = first.min(e);
            last = last.max(e);
            sink.event(&cols[0], e, 1.0);
            sink.event(&cols[1], e, t.bytes as f64);
            sink.event(&cols[2], e, t.rows as f64);
        }
        if first.is_finite() {
            for c in &cols {
                sink.dense(c, first, last);
            }
        }
        if foreign > 0 {
            v.note(format!(
                "{foreign} of {} transactions carry another server's id (replicated from the source, \
                 stamped with the source's commit times, not this server's): left out of this server's \
                 binlog rate",
                b.transactions.len()
            ));
        }
        anchoring.map(|a| (a, 1.0))
    }
}

/// `mysqladmin extended-status` samples (absolute or `-r` relative).
pub(super) struct Mysqladmin<'d>(pub &'d iosift_parsers::mysqladmin_ext::MysqladminExt);

/// The counters read, with their status variable names.
const COUNTERS: [(MysqlCounter, &str); 8] = [
    (MysqlCounter::InnodbDataFsyncsS, "Innodb_data_fsyncs"),
    (MysqlCounter::InnodbOsLogFsyncsS, "Innodb_os_log_fsyncs"),
    (MysqlCounter::BinlogCommitsS, "Binlog_commits"),
    (MysqlCounter::BinlogGroupCommitsS, "Binlog_group_commits"),
    (MysqlCounter::ComCommitS, "Com_commit"),
    (MysqlCounter::HandlerCommitS, "Handler_commit"),
    (MysqlCounter::QuestionsS, "Questions"),
    (MysqlCounter::InnodbDataWrittenS, "Innodb_data_written"),
];

impl<'d> Adapter<'d> for Mysqladmin<'d> {
    /// Every counter of every timed sample (the timeline keeps a few rates); `None`
    /// without times (the emitted rates, placed by the pt-stalk prefix, are the table).
    fn raw_rows(&self, _zone: &Zone) -> Option<Vec<RawRow>> {
        let mut out = Vec::new();
        for s in &self.0.samples {
            let Some(ts) = &s.ts else { continue };
            for (k, v) in &s.values {
                out.push(RawRow {
                    end: ts.epoch,
                    interval: 0.0,
                    entity: "mysql",
                    metric: k.clone(),
                    value: *v,
                });
            }
        }
        (!out.is_empty()).then_some(out)
    }

    fn zone_evidence(&self, _file: &str, ev: &mut ZoneEvidence) {
        ev.note_ts(self.0.samples.iter().filter_map(|x| x.ts));
    }

    fn visit(&self, v: &mut Visit<'_>, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        let m = self.0;
        let mut anchoring = None;
        let mut prev: Option<(f64, &iosift_parsers::mysqladmin_ext::Sample)> = None;
        for (k, s) in m.samples.iter().enumerate() {
            let timed = s.ts.map(|ts| (ts.epoch, Anchoring::Epoch));
            let Some((e, a)) = v.fallback.prefix_only().place(timed, k as f64) else { continue };
            anchoring.get_or_insert(a);
            for (col, key) in COUNTERS {
                let Some(cur) = s.get(key) else { continue };
                let col = Col::Mysql(col);
                if m.relative {
                    if k > 0 {
                        sink.rate(&col, e, 1.0, cur);
                    }
                } else if let Some((t0, p)) = prev
                    && let Some(old) = p.get(key)
                {
                    let dt = e - t0;
                    if dt > 0.0
                        && dt <= 60.0
                        && let Some(d) = v.delta(old, cur)
                    {
                        sink.rate(&col, e, dt, d / dt);
                    }
                }
            }
            galera(v, sink, m.relative, e, s, prev);
            prev = Some((e, s));
        }
        anchoring.map(|a| (a, if a == Anchoring::Epoch { 0.01 } else { 1.0 }))
    }
}

/// Galera status read as it is printed, absolute series only. Real lines (MariaDB 10.11 with
/// galera-4 26.4.23, `mariadb-admin ext -i1`, samples/galera_gcache_xfs, padding shortened):
///
/// ```text
/// | wsrep_last_committed                             | 22                                                 |
/// | wsrep_local_recv_queue                           | 0                                                  |
/// | wsrep_flow_control_paused_ns                     | 13834696                                           |
/// | wsrep_flow_control_paused                        | 0.000572865                                        |
/// | wsrep_flow_control_sent                          | 1                                                  |
/// ```
const GALERA_GAUGES: [(GaleraMetric, &str); 6] = [
    (GaleraMetric::FcPaused, "wsrep_flow_control_paused"),
    (GaleraMetric::FcSent, "wsrep_flow_control_sent"),
    (GaleraMetric::FcRecv, "wsrep_flow_control_recv"),
    (GaleraMetric::RecvQueue, "wsrep_local_recv_queue"),
    (GaleraMetric::SendQueue, "wsrep_local_send_queue"),
    (GaleraMetric::LastCommitted, "wsrep_last_committed"),
];

/// Galera counters read as rates, with the factor from the counter's unit to the column's
/// (`wsrep_flow_control_paused_ns`: nanoseconds paused -> percent of the second).
const GALERA_COUNTERS: [(GaleraMetric, &str, f64); 10] = [
    (GaleraMetric::FcPausedPct, "wsrep_flow_control_paused_ns", 1e-7),
    (GaleraMetric::FcSentS, "wsrep_flow_control_sent", 1.0),
    (GaleraMetric::FcRecvS, "wsrep_flow_control_recv", 1.0),
    (GaleraMetric::CommittedS, "wsrep_last_committed", 1.0),
    (GaleraMetric::ReplicatedS, "wsrep_replicated", 1.0),
    (GaleraMetric::ReplicatedBytesS, "wsrep_replicated_bytes", 1.0),
    (GaleraMetric::ReceivedS, "wsrep_received", 1.0),
    (GaleraMetric::ReceivedBytesS, "wsrep_received_bytes", 1.0),
    (GaleraMetric::LocalCommitsS, "wsrep_local_commits", 1.0),
    (GaleraMetric::CertFailuresS, "wsrep_local_cert_failures", 1.0),
];

/// One sample's Galera columns: the gauges as read, the counters as rates since the previous
/// sample (a `-r` series prints the increments themselves; its gauges are not kept).
/// Nothing on a server without wsrep status.
fn galera(
    v: &mut Visit<'_>,
    sink: &mut dyn Sink,
    relative: bool,
    e: f64,
    s: &iosift_parsers::mysqladmin_ext::Sample,
    prev: Option<(f64, &iosift_parsers::mysqladmin_ext::Sample)>,
) {
    if s.get("wsrep_last_committed").is_none() && s.get("wsrep_flow_control_sent").is_none() {
        return;
    }
    // Evidence of these points: the table's header line (the other counters of this file keep
    // none, so the line is cleared again below).
    sink.at(s.line);
    galera_points(v, sink, relative, e, s, prev);
    sink.at(0);
}

/// See [`galera`].
fn galera_points(
    v: &mut Visit<'_>,
    sink: &mut dyn Sink,
    relative: bool,
    e: f64,
    s: &iosift_parsers::mysqladmin_ext::Sample,
    prev: Option<(f64, &iosift_parsers::mysqladmin_ext::Sample)>,
) {
    if !relative || prev.is_none() {
        for (m, key) in GALERA_GAUGES {
            if let Some(x) = s.get(key) {
                sink.gauge(&Col::Galera(m), e, x);
            }
        }
    }
    let Some((t0, p)) = prev else { return };
    let dt = e - t0;
    if !(dt > 0.0 && dt <= 60.0) {
        return;
    }
    for (m, key, scale) in GALERA_COUNTERS {
        let Some(cur) = s.get(key) else { continue };
        let d = if relative { Some(cur) } else { p.get(key).and_then(|old| v.delta(old, cur)) };
        if let Some(d) = d {
            sink.rate(&Col::Galera(m), e, dt, scale * d / dt);
        }
    }
}

/// `SHOW SLAVE STATUS` / `SHOW MASTER STATUS` series.
pub(super) struct ReplicaStatus<'d>(pub &'d iosift_parsers::mysql_replica_status::ReplicaStatus);

impl<'d> Adapter<'d> for ReplicaStatus<'d> {
    fn replica_status(&self) -> Option<&'d iosift_parsers::mysql_replica_status::ReplicaStatus> {
        Some(self.0)
    }

    /// Lag, received and executed source-binlog bytes per second, relay log space, and the
    /// local binlog's growth, on the replica's own clock. Columns of the default connection
    /// are `repl.*`, of a named one `repl.NAME.*`.
    fn visit(&self, v: &mut Visit<'_>, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        let r = self.0;
        let mut any = false;
        for name in r.connections() {
            let conn = (!name.is_empty()).then(|| name.to_string());
            let col = |m| Col::Repl(conn.clone(), m);
            let rows: Vec<_> = r.series(name).filter(|c| c.ts.is_some()).collect();
            for (k, c) in rows.iter().enumerate() {
                let Some(t) = c.ts.map(|t| t.epoch) else { continue };
                any = true;
                sink.at(c.line);
                if let Some(x) = c.seconds_behind {
                    sink.gauge(&col(ReplMetric::SecondsBehindS), t, x as f64);
                }
                if let Some(x) = c.relay_log_space {
                    sink.gauge(&col(ReplMetric::RelayLogSpaceBytes), t, x as f64);
                }
                if let Some(x) = c.backlog_bytes() {
                    sink.gauge(&col(ReplMetric::BacklogBytes), t, x as f64);
                }
                let Some(p) = k.checked_sub(1).map(|j| rows[j]) else { continue };
                let dt = t - p.ts.map_or(t, |x| x.epoch);
                if !(dt > 0.0 && dt <= 60.0) {
                    continue;
                }
                let same = |a: &Option<String>, b: &Option<String>| a.is_some() && a == b;
                if same(&p.source_log_file, &c.source_log_file)
                    && let (Some(a), Some(b)) = (p.read_pos, c.read_pos)
                    && let Some(d) = v.delta(a as f64, b as f64)
                {
                    sink.rate(&col(ReplMetric::ReceivedBytesS), t, dt, d / dt);
                }
                if same(&p.exec_source_log_file, &c.exec_source_log_file)
                    && let (Some(a), Some(b)) = (p.exec_pos, c.exec_pos)
                    && let Some(d) = v.delta(a as f64, b as f64)
                {
                    sink.rate(&col(ReplMetric::ExecutedBytesS), t, dt, d / dt);
                }
            }
        }
        for w in r.binlog.windows(2) {
            let (Some(t0), Some(t1)) = (w[0].ts.map(|t| t.epoch), w[1].ts.map(|t| t.epoch)) else { continue };
            any = true;
            let dt = t1 - t0;
            if w[0].file == w[1].file
                && dt > 0.0
                && dt <= 60.0
                && let Some(d) = v.delta(w[0].position as f64, w[1].position as f64)
            {
                sink.at(w[1].line);
                sink.rate(&Col::Binlog(BinlogMetric::LocalBytesS), t1, dt, d / dt);
            }
        }
        any.then_some((Anchoring::Epoch, 0.01))
    }
}

/// pt-heartbeat rows read every interval (the rules read them; nothing on the timeline).
pub(super) struct Heartbeat<'d>(pub &'d iosift_parsers::pt_heartbeat::Heartbeat);

impl<'d> Adapter<'d> for Heartbeat<'d> {
    fn heartbeat(&self) -> Option<&'d iosift_parsers::pt_heartbeat::Heartbeat> {
        Some(self.0)
    }
}

/// `SHOW GLOBAL VARIABLES`.
pub(super) struct Variables<'d>(pub &'d iosift_parsers::mysql_variables::Variables);

impl<'d> Adapter<'d> for Variables<'d> {
    /// `port 3320, server_id 1, wsrep_node_name node1` (those printed).
    fn server(&self) -> Option<String> {
        let galera = self.0.get("wsrep_on").is_some_and(|v| v.trim().eq_ignore_ascii_case("ON"));
        let keys: &[&str] =
            if galera { &["port", "server_id", "wsrep_node_name"] } else { &["port", "server_id"] };
        let parts: Vec<String> = keys
            .iter()
            .filter_map(|k| {
                self.0.get(k).map(str::trim).filter(|v| !v.is_empty()).map(|v| format!("{k} {v}"))
            })
            .collect();
        (!parts.is_empty()).then(|| parts.join(", "))
    }

    fn context(&self, file: &str, ctx: &mut Context) {
        for (line, k, val) in &self.0.vars {
            ctx.variables.entry(k.to_ascii_lowercase()).or_insert_with(|| Sourced {
                value: val.clone(),
                file: file.to_string(),
                line: *line,
            });
        }
    }
}

/// performance_schema.threads (OS thread id -> thread name).
pub(super) struct Threads<'d>(pub &'d iosift_parsers::mysql_threads::Threads);

impl<'d> Adapter<'d> for Threads<'d> {
    fn context(&self, _file: &str, ctx: &mut Context) {
        for th in &self.0.rows {
            if let Some(os) = th.os_id {
                ctx.thread_map.insert(os, th.name.clone());
            }
        }
    }

    fn zone_evidence(&self, _file: &str, ev: &mut ZoneEvidence) {
        ev.note_ts(self.0.rows.iter().filter_map(|x| x.ts));
    }
}

/// A my.cnf option file: configured values; SHOW VARIABLES (the running values) wins.
pub(super) struct OptionFile<'d>(pub &'d iosift_parsers::mysql_option_file::MysqlOptionFile);

impl<'d> Adapter<'d> for OptionFile<'d> {
    fn late_context(&self) -> bool {
        true
    }

    fn context(&self, file: &str, ctx: &mut Context) {
        for name in ["sync_binlog", "innodb_flush_log_at_trx_commit", "innodb_flush_method", "binlog_format"]
        {
            if let Some(v) = self.0.get(name) {
                ctx.variables.entry(name.to_string()).or_insert_with(|| Sourced {
                    value: v.to_string(),
                    file: file.to_string(),
                    line: 0,
                });
            }
        }
    }
}

/// `SHOW ENGINE INNODB STATUS`.
pub(super) struct InnodbStatus<'d>(pub &'d iosift_parsers::innodb_status::InnodbStatus);

impl<'d> Adapter<'d> for InnodbStatus<'d> {
    fn state(&self) -> Option<State<'d>> {
        Some(State::Innodb(self.0))
    }
}

/// `SHOW FULL PROCESSLIST`.
pub(super) struct Processlist<'d>(pub &'d iosift_parsers::mysql_processlist::MysqlProcesslist);

impl<'d> Adapter<'d> for Processlist<'d> {
    fn state(&self) -> Option<State<'d>> {
        Some(State::Processlist(self.0))
    }
}
