//! A replica's own view of its replication, from the `SHOW SLAVE STATUS`
//! series (`mysql_replica_status`) on the replica's clock: the lag, how fast
//! the IO thread receives and the SQL thread executes the source's binlog,
//! the relay log backlog, what the threads' states say they wait on, and which
//! thread the perf samples catch in fsync. The lag's other witnesses are in
//! [`super::lag_witness`], the side that bounds it in [`super::replica_bound`].

use super::{BinlogInput, PerfInput, StatusInput};
use crate::clock::Zone;
use iosift_parsers::mysql_replica_status::{Connection, ReplicaStatus};
use std::collections::BTreeMap;

/// Received-but-not-executed bytes under which the SQL thread counts as caught up with the IO thread
/// (a few tiny transactions).
pub(crate) const NEAR_BYTES: u64 = 4096;

/// One connection's series.
#[derive(Debug, Clone, Default)]
pub struct ReplicaView {
    /// Index of the status file (in the bundle's file order).
    pub file: usize,
    /// Connection name (`""` for the default one).
    pub name: String,
    /// Lag readings used: (epoch, seconds, input line).
    pub lag: Vec<(f64, f64, usize)>,
    /// `Seconds_Behind_Master: 0` readings left out: the SQL thread was within [`NEAR_BYTES`] of what the
    /// IO thread had read, so the server printed 0 although the series around them shows the replica far behind.
    pub zeros_dropped: usize,
    /// Readings with a lag value at all.
    pub readings: usize,
    /// Least-squares slope of the lag (s per s), when there are 5 readings or more.
    pub slope: Option<f64>,
    /// Source-binlog bytes received per second (IO thread), over the series.
    pub received_bytes_s: Option<f64>,
    /// Source-binlog bytes executed per second (SQL thread), over the series.
    pub executed_bytes_s: Option<f64>,
    /// Received but not executed bytes at the first and last reading.
    pub backlog: (Option<u64>, Option<u64>),
    /// `Relay_Log_Space` at the first and last reading.
    pub relay_log_space: (Option<u64>, Option<u64>),
    /// Share of readings where the SQL thread was within [`NEAR_BYTES`] of what the IO thread had read.
    pub sql_caught_up_share: f64,
    /// `Master_Host:Master_Port`.
    pub source: Option<String>,
    /// `Master_Server_Id`.
    pub source_server_id: Option<u64>,
    /// Every `Seconds_Behind_Master` reading as printed: (epoch, seconds, input line).
    pub sbm_raw: Vec<(f64, f64, usize)>,
    /// What the threads' states say, over the readings.
    pub states: StateShares,
    /// The lag from every witness of the capture (filled by [`super::Views::compute`]).
    pub witnesses: super::lag_witness::Witnesses,
    /// The side that bounds it (filled by [`super::Views::compute`]).
    pub bound: super::replica_bound::BoundView,
}

/// Shares of the readings whose thread states say where the threads wait (`None` without states).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StateShares {
    /// Readings with a `Slave_IO_State`.
    pub io_readings: usize,
    /// `Slave_IO_State: Waiting for master to send event` (MySQL 8: `source`): the IO thread waits on the
    /// source or the link.
    pub io_waiting: Option<f64>,
    /// `Queueing master event to the relay log`: the IO thread writes what it received.
    pub io_queueing: Option<f64>,
    /// Readings with a `Slave_SQL_Running_State`.
    pub sql_readings: usize,
    /// `Slave has read all relay log; waiting for more updates`: the SQL thread idles.
    pub sql_idle: Option<f64>,
    /// `Update_rows_log_event::find_row()` and the like (MariaDB): the SQL thread looks rows up.
    pub sql_find_row: Option<f64>,
}

impl StateShares {
    /// The shares over a connection's readings.
    pub fn of(rows: &[&Connection]) -> StateShares {
        let io: Vec<&str> = rows.iter().filter_map(|c| c.io_state.as_deref()).collect();
        let sql: Vec<&str> = rows.iter().filter_map(|c| c.sql_state.as_deref()).collect();
        let share = |v: &[&str], f: &dyn Fn(&str) -> bool| {
            (!v.is_empty()).then(|| v.iter().filter(|s| f(s)).count() as f64 / v.len() as f64)
        };
        StateShares {
            io_readings: io.len(),
            // `Waiting for master to send event` / `Waiting for source to send event`
            io_waiting: share(&io, &|s| s.starts_with("Waiting for") && s.ends_with("to send event")),
            // `Queueing master event to the relay log` / `Queueing source event to the relay log`
            io_queueing: share(&io, &|s| s.starts_with("Queueing")),
            sql_readings: sql.len(),
            // `Slave has read all relay log; waiting for more updates` / `Replica has read all relay log; ...`
            sql_idle: share(&sql, &|s| s.contains("read all relay log")),
            // `Update_rows_log_event::find_row()`, `Delete_rows_log_event::find_row()`
            sql_find_row: share(&sql, &|s| s.contains("find_row")),
        }
    }
}

impl ReplicaView {
    /// True when the SQL thread keeps up with what the IO thread receives (the IO thread is the bottleneck).
    pub fn io_bound(&self) -> Option<bool> {
        let (r, e) = (self.received_bytes_s?, self.executed_bytes_s?);
        Some(e >= 0.9 * r)
    }

    /// True when the source runs on this host (`127.0.0.1`, `localhost`, `::1`): its disk traffic is in this
    /// capture's device counters too.
    pub fn source_is_local(&self) -> bool {
        self.source.as_deref().is_some_and(|s| {
            let h = s.rsplit_once(':').map_or(s, |(h, _)| h);
            matches!(h, "127.0.0.1" | "localhost" | "::1")
        })
    }
}

/// Least-squares slope of (x, y) points.
pub(crate) fn slope(points: &[(f64, f64)]) -> Option<f64> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// Bytes per second of a position series, summed over the intervals that stay in one file.
fn position_rate<'c>(
    rows: &[&'c Connection],
    pos: impl Fn(&'c Connection) -> Option<(&'c str, u64)>,
) -> Option<f64> {
    let (mut bytes, mut secs) = (0.0, 0.0);
    for w in rows.windows(2) {
        let (Some(t0), Some(t1)) = (w[0].ts, w[1].ts) else { continue };
        let (Some((f0, p0)), Some((f1, p1))) = (pos(w[0]), pos(w[1])) else { continue };
        let dt = t1.epoch - t0.epoch;
        if f0 == f1 && p1 >= p0 && dt > 0.0 && dt <= 60.0 {
            bytes += (p1 - p0) as f64;
            secs += dt;
        }
    }
    (secs > 0.0).then(|| bytes / secs)
}

fn view(file: usize, s: &ReplicaStatus, name: &str) -> ReplicaView {
    let rows: Vec<&Connection> = s.series(name).filter(|c| c.ts.is_some()).collect();
    let with_lag: Vec<&Connection> = rows.iter().copied().filter(|c| c.seconds_behind.is_some()).collect();
    let positive = with_lag.iter().filter(|c| c.seconds_behind > Some(0)).count();
    // A replica whose IO thread is the bottleneck has its SQL thread waiting on the relay log most of the
    // time; whenever it is within a transaction or two of what was read the server prints 0, whatever the
    // real lag (MariaDB 10.11: `Seconds_Behind_Master: 0` with 234-362 bytes read but not executed, amid
    // readings of 15-60 s).
    let artefact =
        |c: &Connection| c.seconds_behind == Some(0) && c.backlog_bytes().is_some_and(|b| b <= NEAR_BYTES);
    let drop_zeros = positive >= 5 && positive * 3 >= with_lag.len();
    let mut lag = Vec::new();
    let mut zeros_dropped = 0;
    for c in &with_lag {
        if drop_zeros && artefact(c) {
            zeros_dropped += 1;
            continue;
        }
        if let (Some(t), Some(v)) = (c.ts, c.seconds_behind) {
            lag.push((t.epoch, v as f64, c.line));
        }
    }
    let pts: Vec<(f64, f64)> = lag.iter().map(|&(t, v, _)| (t - lag[0].0, v)).collect();
    let caught = rows.iter().filter(|c| c.backlog_bytes().is_some_and(|b| b <= NEAR_BYTES)).count();
    let first = rows.first();
    let last = rows.last();
    ReplicaView {
        file,
        name: name.to_string(),
        readings: with_lag.len(),
        zeros_dropped,
        slope: if pts.len() >= 5 { slope(&pts) } else { None },
        lag,
        received_bytes_s: position_rate(&rows, |c| Some((c.source_log_file.as_deref()?, c.read_pos?))),
        executed_bytes_s: position_rate(&rows, |c| Some((c.exec_source_log_file.as_deref()?, c.exec_pos?))),
        backlog: (first.and_then(|c| c.backlog_bytes()), last.and_then(|c| c.backlog_bytes())),
        relay_log_space: (first.and_then(|c| c.relay_log_space), last.and_then(|c| c.relay_log_space)),
        sql_caught_up_share: if rows.is_empty() { 0.0 } else { caught as f64 / rows.len() as f64 },
        source: last.and_then(|c| {
            let h = c.source_host.as_deref()?;
            Some(c.source_port.map_or(h.to_string(), |p| format!("{h}:{p}")))
        }),
        source_server_id: last.and_then(|c| c.source_server_id),
        sbm_raw: with_lag
            .iter()
            .filter_map(|c| Some((c.ts?.epoch, c.seconds_behind? as f64, c.line)))
            .collect(),
        states: StateShares::of(&rows),
        witnesses: Default::default(),
        bound: Default::default(),
    }
}

/// Every replication connection with a TS-framed series, from the status file with the most rows.
pub(crate) fn views(status: &[StatusInput<'_>]) -> Vec<ReplicaView> {
    let best = status
        .iter()
        .filter(|f| f.status.rows.iter().any(|r| r.ts.is_some()))
        .max_by_key(|f| (f.status.rows.len(), std::cmp::Reverse(f.file)));
    let Some(f) = best else { return Vec::new() };
    f.status.connections().into_iter().map(|n| view(f.file, f.status, n)).collect()
}

/// perf samples and fsync-path samples of the replication threads (IO / SQL), through the
/// `performance_schema.threads` map (`thread/sql/slave_io`, `thread/sql/slave_sql`, MySQL 8's
/// `replica_io` / `replica_sql` and parallel `slave_worker` / `replica_worker`).
#[derive(Debug, Clone, Copy, Default)]
pub struct ThreadFsync {
    /// IO thread samples.
    pub io_samples: u64,
    /// IO thread samples in fsync paths.
    pub io_fsync: u64,
    /// SQL/applier thread samples.
    pub sql_samples: u64,
    /// SQL/applier samples in fsync paths.
    pub sql_fsync: u64,
    /// The samples one thread on a CPU all the time would have: frequency x sampled seconds, when the perf
    /// header gives the frequency (`{ sample_period, sample_freq } = 49` with `freq = 1`, or `-F 49`).
    pub full_cpu_samples: Option<f64>,
}

impl ThreadFsync {
    /// Share of the time the SQL thread was on a CPU (its samples over [`ThreadFsync::full_cpu_samples`]).
    pub fn sql_on_cpu(&self) -> Option<f64> {
        self.full_cpu_samples.filter(|&f| f > 0.0).map(|f| (self.sql_samples as f64 / f).min(1.0))
    }
}

/// The sampling frequency of a perf script from its header: the event line's
/// `{ sample_period, sample_freq } = 49` (with `freq = 1`), else `-F 49` / `--freq=49` of the command line.
pub(crate) fn perf_hz(p: &iosift_parsers::perf_script::PerfScript) -> Option<f64> {
    let from_event = p.header.events.iter().find_map(|e| {
        let rest = e.split_once("sample_freq } = ")?.1;
        e.contains("freq = 1").then_some(())?;
        rest.split(|c: char| !c.is_ascii_digit()).next()?.parse::<f64>().ok()
    });
    let from_cmd = || {
        let words: Vec<&str> = p.header.cmdline.as_deref()?.split_whitespace().collect();
        words.iter().enumerate().find_map(|(i, w)| match *w {
            "-F" | "--freq" => words.get(i + 1)?.parse::<f64>().ok(),
            w => w.strip_prefix("--freq=")?.parse::<f64>().ok(),
        })
    };
    from_event.or_else(from_cmd).filter(|&hz| hz > 0.0 && hz <= 100_000.0)
}

/// Which replication thread a performance_schema thread name is.
pub(crate) fn role(name: &str) -> Option<&'static str> {
    let n = name.rsplit('/').next().unwrap_or(name);
    match n {
        "slave_io" | "replica_io" => Some("io"),
        "slave_sql" | "replica_sql" | "slave_worker" | "replica_worker" | "coordinator" => Some("sql"),
        _ => None,
    }
}

/// The OS thread id of the first replication thread of `r` (`io` / `sql`) in the thread map.
pub(crate) fn thread_tid(thread_map: &BTreeMap<u32, String>, r: &str) -> Option<u32> {
    thread_map.iter().find(|(_, n)| role(n) == Some(r)).map(|(t, _)| *t)
}

/// Per-thread fsync evidence of the replication threads, when perf and the thread map
/// (OS thread id -> performance_schema name) are in the capture.
pub(crate) fn thread_fsync(
    perf: &[PerfInput<'_>],
    thread_map: &BTreeMap<u32, String>,
) -> Option<ThreadFsync> {
    let mut out = ThreadFsync::default();
    let mut any = false;
    let mut full = 0.0;
    for f in perf {
        if let (Some(hz), Some(a), Some(b)) = (perf_hz(f.script), f.script.first_ts, f.script.last_ts) {
            full += hz * (b - a).max(0.0);
        }
        for t in &f.script.threads {
            let Some(r) = t.tid.and_then(|tid| thread_map.get(&tid)).and_then(|n| role(n)) else {
                continue;
            };
            any = true;
            if r == "io" {
                out.io_samples += t.samples;
                out.io_fsync += t.fsync_samples;
            } else {
                out.sql_samples += t.samples;
                out.sql_fsync += t.fsync_samples;
            }
        }
    }
    out.full_cpu_samples = (full > 0.0).then_some(full);
    any.then_some(out)
}

/// How long after the source committed them the replica wrote the replicated transactions of its
/// decoded binlog: each event keeps the source's time (`SET TIMESTAMP`, or the header time), and the replica's own
/// `SHOW MASTER STATUS` series says when its binlog passed the event's end position.
#[derive(Debug, Clone, Copy)]
pub struct EventLag {
    /// Transactions timed (written during the position series).
    pub transactions: usize,
    /// Median lag, seconds (source times are whole seconds: +-0.5 s).
    pub median_s: f64,
    /// Largest lag, seconds.
    pub max_s: f64,
}

/// One replicated transaction of the replica's binlog, timed on both clocks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct TimedEvent {
    /// When the replica wrote it (epoch, interpolated in its `SHOW MASTER STATUS` series).
    pub written: f64,
    /// When the source committed it: `SET TIMESTAMP`, or the event header's time (whole seconds).
    pub source: f64,
    /// 1-based line of its first event in the decoded binlog.
    pub line: u32,
}

/// The replicated transactions of the chosen binlog, when it is this server's (`server_id` = `own`)
/// binlog and the capture has the server's `SHOW MASTER STATUS` series over the same file: those of
/// `source` (a server id), or of any other server. Header times without `SET TIMESTAMP` are local times of `zone`.
pub(crate) fn timed_events(
    own: Option<u32>,
    source: Option<u64>,
    binlog: Option<&BinlogInput<'_>>,
    status: &[StatusInput<'_>],
    zone: &Zone,
) -> Option<Vec<TimedEvent>> {
    let own = own?;
    let bl = binlog?;
    let (b, base) = (bl.binlog, bl.base);
    // (epoch, position) of the local binlog file the decoded one is named after.
    let series: Vec<(f64, u64)> = status
        .iter()
        .flat_map(|s| s.status.binlog.iter())
        .filter(|x| base.contains(x.file.as_str()))
        .filter_map(|x| Some((x.ts?.epoch, x.position)))
        .collect();
    if series.len() < 2 {
        return None;
    }
    let mut out = Vec::new();
    for t in &b.transactions {
        // `SET TIMESTAMP` when there is one, else the header's time in the capture's zone.
        let src = t.epoch.map(|e| e as f64).or_else(|| t.local.map(|n| zone.local_to_epoch(n)));
        let (Some(id), Some(src)) = (t.server_id, src) else { continue };
        if id == own || source.is_some_and(|s| s != u64::from(id)) {
            continue;
        }
        // The first snapshot at or past the event's end: it was written between that one and the one before.
        let Some(k) = series.iter().position(|&(_, pos)| pos >= t.end_pos).filter(|&k| k > 0) else {
            continue;
        };
        let ((t0, p0), (t1, p1)) = (series[k - 1], series[k]);
        let frac = if p1 > p0 { (t.end_pos.saturating_sub(p0)) as f64 / (p1 - p0) as f64 } else { 1.0 };
        out.push(TimedEvent { written: t0 + frac * (t1 - t0), source: src, line: t.start_line });
    }
    (!out.is_empty()).then_some(out)
}

/// [`EventLag`] of the chosen binlog's replicated transactions ([`timed_events`] of any other server).
pub(crate) fn event_lag(
    own: Option<u32>,
    binlog: Option<&BinlogInput<'_>>,
    status: &[StatusInput<'_>],
    zone: &Zone,
) -> Option<EventLag> {
    let mut lags: Vec<f64> =
        timed_events(own, None, binlog, status, zone)?.iter().map(|e| e.written - e.source).collect();
    lags.sort_by(f64::total_cmp);
    Some(EventLag {
        transactions: lags.len(),
        median_s: lags[lags.len() / 2],
        max_s: *lags.last().unwrap_or(&0.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slope_of_a_line() {
        let pts: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, 3.0 + 0.5 * i as f64)).collect();
        assert!((slope(&pts).unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(slope(&[(1.0, 1.0)]), None);
        assert_eq!(slope(&[(1.0, 1.0), (1.0, 2.0)]), None);
    }

    #[test]
    fn thread_roles() {
        assert_eq!(role("thread/sql/slave_io"), Some("io"));
        assert_eq!(role("thread/sql/replica_sql"), Some("sql"));
        assert_eq!(role("thread/sql/one_connection"), None);
    }
}
