//! Where a replica's lag is born: the source's binlog, the link, the replica's IO
//! thread, its SQL thread. Read from both ends once their clocks agree
//! ([`super::offset`]):
//!
//! * **not yet received** = the source's binlog end at a moment (its `SHOW MASTER
//!   STATUS`, interpolated, on the common axis) minus the replica's `Read_Master_Log_Pos`
//!   then: the debt of the link and the IO thread;
//! * **received, not executed** = `Read_Master_Log_Pos - Exec_Master_Log_Pos`: the debt of
//!   the SQL thread.
//!
//! The debt that grows says which side holds the lag. On the receiving side, the IO
//! thread's own state tells the link from the IO thread: waiting for the source to send
//! while bytes are owed (`Waiting for master to send event`) is the link; writing what it
//! got (`Queueing master event to the relay log`, its flushes with `sync_relay_log`) is
//! the IO thread.

use crate::analysis::shared::{OwnPos, Received, Shared};
use serde::Serialize;

/// The link of the chain that holds the lag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bottleneck {
    /// Bytes owed grow while the IO thread waits for the source to send them.
    Link,
    /// Bytes owed grow while the IO thread is busy writing (and flushing) the relay log.
    IoThread,
    /// Bytes owed grow; the IO thread's state does not say which (or was not read).
    Receiving,
    /// Received bytes wait for the SQL thread.
    SqlThread,
    /// Neither debt grows.
    KeepsUp,
}

impl Bottleneck {
    /// A few words for the page.
    pub fn words(self) -> &'static str {
        match self {
            Bottleneck::Link => "the link between source and replica",
            Bottleneck::IoThread => "the replica's IO thread (writing and flushing the relay log)",
            Bottleneck::Receiving => {
                "the receiving side (link or IO thread: the IO thread's state does not tell)"
            }
            Bottleneck::SqlThread => "the replica's SQL thread (applying)",
            Bottleneck::KeepsUp => "none: the replica keeps up",
        }
    }

    /// What to change at that link.
    pub fn remedies(self) -> Vec<String> {
        let r: &[&str] = match self {
            Bottleneck::Link => &[
                "Give the replication link more bandwidth (or less latency): the source produces faster than the link carries.",
                "Compress the replication stream (slave_compressed_protocol=ON in MariaDB, replica_compressed_protocol / source_compression_algorithms in MySQL 8).",
                "Lower the bytes per transaction on the source (binlog_row_image=MINIMAL, smaller batches).",
            ],
            Bottleneck::IoThread => &[
                "Stop flushing the relay log per event: sync_relay_log=0 (with relay_log_recovery=ON the replica stays crash safe), sync_relay_log_info / sync_master_info=0 or large.",
                "Put the relay log on a device with low flush latency.",
            ],
            Bottleneck::Receiving => &[
                "Capture the IO thread's state (SHOW SLAVE STATUS every second) or its stacks (collect.sh -G) to tell the link from the relay-log flushes.",
            ],
            Bottleneck::SqlThread => &[
                "Apply in parallel: slave_parallel_threads / slave_parallel_mode=optimistic (MariaDB), replica_parallel_workers with WRITESET (MySQL 8).",
                "Give every replicated table a primary key: row-based apply without one scans the table per row.",
            ],
            Bottleneck::KeepsUp => &[],
        };
        r.iter().map(|s| s.to_string()).collect()
    }
}

/// One source-to-replica chain, measured from both ends.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chain {
    /// The source node.
    pub source: String,
    /// The replica node.
    pub replica: String,
    /// Readings of the replica used (both ends known).
    pub readings: usize,
    /// The source's binlog growth over the common window (bytes/s).
    pub produced_bytes_s: Option<f64>,
    /// The replica's `Read_Master_Log_Pos` growth (bytes/s).
    pub received_bytes_s: Option<f64>,
    /// Its `Exec_Master_Log_Pos` growth (bytes/s).
    pub executed_bytes_s: Option<f64>,
    /// Growth of the bytes not yet received (bytes/s, least squares).
    pub unreceived_growth_bytes_s: Option<f64>,
    /// Largest debt not yet received (bytes).
    pub unreceived_max_bytes: Option<f64>,
    /// Growth of the bytes received and not executed (bytes/s).
    pub unexecuted_growth_bytes_s: Option<f64>,
    /// Largest debt received and not executed (bytes).
    pub unexecuted_max_bytes: Option<f64>,
    /// Share of readings owing bytes where the IO thread waited for the source to send.
    pub io_waiting_share: Option<f64>,
    /// Share of those where it was queueing events to the relay log.
    pub io_queueing_share: Option<f64>,
    /// The replica's `sync_relay_log`, when known.
    pub sync_relay_log: Option<String>,
    /// Where the lag is born.
    pub bottleneck: Bottleneck,
    /// One sentence with the numbers.
    pub why: String,
    /// What to change.
    pub remedies: Vec<String>,
    /// The two debts over time: (seconds on the common axis, not yet received, received
    /// and not executed) in bytes, for the page's chart.
    #[serde(skip)]
    pub debts: Vec<(f64, f64, Option<f64>)>,
}

/// A debt grows when it rises faster than this (bytes/s) ...
const GROWTH_MIN_BYTES_S: f64 = 1024.0;
/// ... and reaches this much (bytes).
const DEBT_MIN_BYTES: f64 = 1024.0 * 1024.0;

/// The source's binlog end at `t` (its clock), interpolated in `file`.
fn source_pos(own: &[OwnPos], file: &str, t: f64) -> Option<f64> {
    let i = own.partition_point(|o| o.epoch <= t);
    let (a, b) = (own.get(i.checked_sub(1)?)?, own.get(i)?);
    if a.file != file || b.file != file || b.epoch <= a.epoch {
        return None;
    }
    Some(a.pos as f64 + (b.pos as f64 - a.pos as f64) * (t - a.epoch) / (b.epoch - a.epoch))
}

/// Least-squares slope of `(t, y)`.
fn slope(points: &[(f64, f64)]) -> Option<f64> {
    let n = points.len() as f64;
    if points.len() < 3 {
        return None;
    }
    let (mx, my) = (points.iter().map(|p| p.0).sum::<f64>() / n, points.iter().map(|p| p.1).sum::<f64>() / n);
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    (sxx > 0.0).then(|| points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>() / sxx)
}

/// Growth of a position over readings in one file (bytes/s), first to last.
fn rate(points: &[(f64, f64)]) -> Option<f64> {
    let (a, b) = (points.first()?, points.last()?);
    (b.0 > a.0).then(|| (b.1 - a.1) / (b.0 - a.0))
}

/// The chain from `source` to `replica`, the replica's clock running `offset_s` ahead.
pub(crate) fn measure(
    source: (&str, &Shared),
    replica: (&str, &Shared),
    offset_s: f64,
    sync_relay_log: Option<String>,
) -> Option<Chain> {
    let (sname, s) = source;
    let (rname, r) = replica;
    let rows: Vec<&Received> = r.received.iter().filter(|x| super::offset::feeds(s, x)).collect();
    let mut unreceived = Vec::new();
    let mut unexecuted = Vec::new();
    let mut debts = Vec::new();
    let (mut read, mut exec, mut produced) = (Vec::new(), Vec::new(), Vec::new());
    let (mut owing, mut waiting, mut queueing) = (0usize, 0usize, 0usize);
    let file = rows.last().map(|x| x.file.clone())?;
    for x in rows.iter().filter(|x| x.file == file) {
        let t = x.epoch - offset_s;
        read.push((t, x.read_pos as f64));
        let mut behind = None;
        if let Some((ef, ep)) = &x.exec
            && *ef == file
        {
            exec.push((t, *ep as f64));
            behind = Some(x.read_pos as f64 - *ep as f64);
            unexecuted.push((t, x.read_pos as f64 - *ep as f64));
        }
        if let Some(p) = source_pos(&s.own, &file, t) {
            produced.push((t, p));
            let owed = (p - x.read_pos as f64).max(0.0);
            unreceived.push((t, owed));
            debts.push((t, owed, behind));
            if owed >= 64.0 * 1024.0 {
                owing += 1;
                let st = x.io_state.as_deref().unwrap_or("").to_ascii_lowercase();
                waiting += usize::from(
                    st.contains("waiting for master to send") || st.contains("waiting for source to send"),
                );
                queueing += usize::from(st.contains("queueing"));
            }
        }
    }
    if unreceived.len() < 3 {
        return None;
    }
    let max = |v: &[(f64, f64)]| {
        v.iter().map(|p| p.1).fold(None, |m: Option<f64>, y| Some(m.map_or(y, |m| m.max(y))))
    };
    let grows = |v: &[(f64, f64)]| {
        slope(v).is_some_and(|g| g > GROWTH_MIN_BYTES_S) && max(v).is_some_and(|m| m >= DEBT_MIN_BYTES)
    };
    let share = |k: usize| (owing > 0).then(|| k as f64 / owing as f64);
    let (ws, qs) = (share(waiting), share(queueing));
    let bottleneck = if grows(&unreceived) {
        match (ws, qs) {
            (Some(w), _) if w >= 0.5 => Bottleneck::Link,
            (_, Some(q)) if q >= 0.5 => Bottleneck::IoThread,
            _ => Bottleneck::Receiving,
        }
    } else if grows(&unexecuted) {
        Bottleneck::SqlThread
    } else {
        Bottleneck::KeepsUp
    };
    let mut c = Chain {
        source: sname.to_string(),
        replica: rname.to_string(),
        readings: unreceived.len(),
        produced_bytes_s: rate(&produced),
        received_bytes_s: rate(&read),
        executed_bytes_s: rate(&exec),
        unreceived_growth_bytes_s: slope(&unreceived),
        unreceived_max_bytes: max(&unreceived),
        unexecuted_growth_bytes_s: slope(&unexecuted),
        unexecuted_max_bytes: max(&unexecuted),
        io_waiting_share: ws,
        io_queueing_share: qs,
        sync_relay_log,
        bottleneck,
        why: String::new(),
        remedies: bottleneck.remedies(),
        debts,
    };
    c.why = why(&c);
    Some(c)
}

fn kib(v: Option<f64>) -> String {
    v.map_or("not measured".into(), |b| format!("{:.0} KiB/s", b / 1024.0))
}

fn mib(v: Option<f64>) -> String {
    v.map_or("not measured".into(), |b| format!("{:.1} MiB", b / 1048576.0))
}

fn pct(v: Option<f64>) -> String {
    v.map_or("not read".into(), |s| format!("{:.0} %", s * 100.0))
}

/// The sentence of the page.
fn why(c: &Chain) -> String {
    let rates = format!(
        "the source produced {}, the replica received {} and executed {}",
        kib(c.produced_bytes_s),
        kib(c.received_bytes_s),
        kib(c.executed_bytes_s)
    );
    let io = format!(
        "while bytes were owed the IO thread was waiting for the source to send in {} of the readings and queueing to the relay log in {}{}",
        pct(c.io_waiting_share),
        pct(c.io_queueing_share),
        c.sync_relay_log.as_deref().map_or(String::new(), |v| format!(" (sync_relay_log={v})"))
    );
    match c.bottleneck {
        Bottleneck::Link | Bottleneck::IoThread | Bottleneck::Receiving => format!(
            "Not yet received grew by {} to {}: {rates}; {io}.",
            kib(c.unreceived_growth_bytes_s),
            mib(c.unreceived_max_bytes)
        ),
        Bottleneck::SqlThread => format!(
            "Received but not executed grew by {} to {} while everything the source wrote arrived: {rates}.",
            kib(c.unexecuted_growth_bytes_s),
            mib(c.unexecuted_max_bytes)
        ),
        Bottleneck::KeepsUp => format!(
            "Neither debt grew (at most {} not yet received, {} not executed): {rates}.",
            mib(c.unreceived_max_bytes),
            mib(c.unexecuted_max_bytes)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(recv_rate: f64, exec_rate: f64, state: &str) -> (Shared, Shared) {
        let s = Shared {
            server_id: Some(1),
            own: (0..60)
                .map(|i| OwnPos { epoch: 100.0 + i as f64, file: "b.1".into(), pos: 100_000 * i })
                .collect(),
            ..Shared::default()
        };
        let r = Shared {
            server_id: Some(2),
            received: (0..60)
                .map(|i| Received {
                    epoch: 137.5 + i as f64,
                    source_server_id: Some(1),
                    source_port: None,
                    file: "b.1".into(),
                    read_pos: (recv_rate * (i as f64 + 0.5)) as u64,
                    exec: Some(("b.1".into(), (exec_rate * (i as f64 + 0.5)) as u64)),
                    seconds_behind: Some(0),
                    io_state: Some(state.into()),
                })
                .collect(),
            ..Shared::default()
        };
        (s, r)
    }

    #[test]
    fn the_growing_debt_names_the_link() {
        let (s, r) = pair(40_000.0, 40_000.0, "Waiting for master to send event");
        let c = measure(("p", &s), ("r", &r), 37.0, None).unwrap();
        assert_eq!(c.bottleneck, Bottleneck::Link, "{c:?}");
        let (s, r) = pair(40_000.0, 40_000.0, "Queueing master event to the relay log");
        assert_eq!(
            measure(("p", &s), ("r", &r), 37.0, Some("1".into())).unwrap().bottleneck,
            Bottleneck::IoThread
        );
        let (s, r) = pair(100_000.0, 30_000.0, "Waiting for master to send event");
        assert_eq!(measure(("p", &s), ("r", &r), 37.0, None).unwrap().bottleneck, Bottleneck::SqlThread);
        let (s, r) = pair(100_000.0, 100_000.0, "Waiting for master to send event");
        let c = measure(("p", &s), ("r", &r), 37.0, None).unwrap();
        assert_eq!(c.bottleneck, Bottleneck::KeepsUp, "{c:?}");
        // The wrong offset makes a healthy pair look behind: the axis matters.
        let c = measure(("p", &s), ("r", &r), 0.0, None).unwrap();
        assert!(c.unreceived_max_bytes.unwrap() > 3e6, "{c:?}");
    }
}
