//! Clock offsets between nodes, from the events their captures share
//! ([`crate::analysis::shared::Shared`]), each with its uncertainty and method.
//!
//! Replication is one-way: a replica learns of a source's event some delay after it
//! happened, so one event bounds `offset + delay` from both sides (the event was made
//! at a time the source's capture brackets, and received between two of the replica's
//! readings), never the offset alone. The estimate is taken at the event with the
//! smallest upper bound, the moment the replica was closest to the source: there the
//! delay is taken as zero, and the offset is the middle of that event's bracket, give or
//! take half its width. Said with it: if the replica never caught up during the capture,
//! the offset is smaller than that (the upper bound always holds).
//!
//! Methods, best first: pt-heartbeat rows (the source's clock to the microsecond in
//! `ts`, read on the replica each second), the source's binlog end (`SHOW MASTER STATUS`)
//! against the replica's `Read_Master_Log_Pos`, Galera's `wsrep_last_committed` (the same
//! seqno committed on every node within milliseconds: the median difference), and, when
//! the nodes share nothing, their own clocks (offset taken as 0, uncertainty unknown).
//!
//! Sign: `offset_s` is the node's clock minus the reference's (a node whose clock runs
//! 37 s ahead has +37); a node's time on the common axis is its own time minus it.

use crate::analysis::shared::Shared;
use serde::Serialize;

/// How an offset was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// pt-heartbeat rows stamped on the source, read on the replica.
    Heartbeat,
    /// The source's `SHOW MASTER STATUS` against the replica's `Read_Master_Log_Pos`.
    BinlogPosition,
    /// Galera's `wsrep_last_committed` on both nodes.
    GaleraSeqno,
    /// No shared event: the hosts' own clocks, taken as they are.
    HostClocks,
}

impl Method {
    /// How the page says it.
    pub fn words(self) -> &'static str {
        match self {
            Method::Heartbeat => "pt-heartbeat rows (the source's stamp against the replica's reading)",
            Method::BinlogPosition => {
                "binlog positions (the source's SHOW MASTER STATUS against the replica's Read_Master_Log_Pos)"
            }
            Method::GaleraSeqno => "Galera seqnos (wsrep_last_committed on both nodes)",
            Method::HostClocks => {
                "not measured: the nodes share no event; their own clocks are taken as they are"
            }
        }
    }
}

/// One estimate of `clock(node) - clock(reference)`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    /// The node whose clock is placed.
    pub node: String,
    /// The node it is placed against.
    pub reference: String,
    /// Seconds (node minus reference).
    pub offset_s: f64,
    /// Half-width of the interval the offset lies in; `None` when not measured.
    pub uncertainty_s: Option<f64>,
    /// How.
    pub method: Method,
    /// Shared events used.
    pub events: usize,
    /// The bound that always holds, for one-way methods: the offset is at most this.
    pub at_most_s: Option<f64>,
    /// When (the node's clock) the events were closest, for one-way methods.
    pub closest_at: Option<f64>,
}

/// One event's bracket of `offset + delay`: made at a time the sender brackets, received
/// between two of the receiver's readings.
#[derive(Debug, Clone, Copy)]
struct Bracket {
    low: f64,
    high: f64,
    at: f64,
}

/// The estimate from one-way events: at the bracket with the smallest upper bound.
fn one_way(brackets: &[Bracket]) -> Option<(f64, f64, f64, f64)> {
    let best = brackets.iter().filter(|b| b.high >= b.low).min_by(|a, b| a.high.total_cmp(&b.high))?;
    Some(((best.low + best.high) / 2.0, (best.high - best.low) / 2.0, best.high, best.at))
}

/// Heartbeat brackets: rows stamped by `source` read on `replica`. A row read at `t` whose
/// stamp differs from the row read before (at `t_prev`) arrived in `(t_prev, t]`.
fn heartbeat_brackets(source: &Shared, replica: &Shared) -> Vec<Bracket> {
    let Some(id) = source.server_id else { return Vec::new() };
    // The stamp is the source's local time: its zone (its capture's), else the reader's.
    let beats: Vec<_> = replica.beats.iter().filter(|b| b.server_id == id).collect();
    let mut out = Vec::new();
    for w in beats.windows(2) {
        let (prev, cur) = (w[0], w[1]);
        if cur.stamp_naive_s == prev.stamp_naive_s {
            continue;
        }
        let zone =
            source.zone_offset_s.map(f64::from).or(cur.reader_offset_s.map(|o| o as f64)).unwrap_or(0.0);
        let stamp = cur.stamp_naive_s - zone;
        out.push(Bracket { low: prev.read_epoch - stamp, high: cur.read_epoch - stamp, at: cur.read_epoch });
    }
    out
}

/// Position brackets: the source's binlog passed `read_pos` between two of its readings
/// (`t_k` before, `t_j` at or after); the replica received it between its reading before
/// (a smaller position) and this one.
fn position_brackets(
    source: &Shared,
    replica: &Shared,
    source_name_ok: impl Fn(&crate::analysis::shared::Received) -> bool,
) -> Vec<Bracket> {
    let rows: Vec<_> = replica.received.iter().filter(|r| source_name_ok(r)).collect();
    let mut out = Vec::new();
    for w in rows.windows(2) {
        let (prev, cur) = (w[0], w[1]);
        if prev.file != cur.file || prev.read_pos >= cur.read_pos {
            continue;
        }
        let in_file: Vec<_> = source.own.iter().filter(|o| o.file == cur.file).collect();
        let before = in_file.iter().rev().find(|o| o.pos < cur.read_pos);
        let after = in_file.iter().find(|o| o.pos >= cur.read_pos);
        if let (Some(k), Some(j)) = (before, after) {
            out.push(Bracket { low: prev.epoch - j.epoch, high: cur.epoch - k.epoch, at: cur.epoch });
        }
    }
    out
}

/// Whether `replica` replicates from `source`: its connection names the source's server id
/// or, when it does not print it, the source's port.
pub(crate) fn replicates_from(source: &Shared, replica: &Shared) -> bool {
    replica.received.iter().any(|r| feeds(source, r))
}

/// Whether the replica connection read in `r` is fed by `source`.
pub(crate) fn feeds(source: &Shared, r: &crate::analysis::shared::Received) -> bool {
    // Server ids repeat across unrelated setups (1 is everyone's default): the port must
    // agree too when both sides print it.
    let port = match (r.source_port, source.port) {
        (Some(a), Some(b)) => Some(a == b),
        _ => None,
    };
    match (r.source_server_id, source.server_id, port) {
        (Some(a), Some(b), p) => a == b && p != Some(false),
        (_, _, Some(p)) => p,
        _ => false,
    }
}

/// The offset of `replica`'s clock against `source`'s, from the events they share.
pub(crate) fn between(source: (&str, &Shared), replica: (&str, &Shared)) -> Option<Estimate> {
    let (sname, s) = source;
    let (rname, r) = replica;
    let candidates = [
        (Method::Heartbeat, heartbeat_brackets(s, r)),
        (Method::BinlogPosition, position_brackets(s, r, |x| feeds(s, x))),
    ];
    let (method, brackets) = candidates.into_iter().find(|(_, b)| !b.is_empty())?;
    let (offset_s, half, at_most, at) = one_way(&brackets)?;
    Some(Estimate {
        node: rname.to_string(),
        reference: sname.to_string(),
        offset_s,
        uncertainty_s: Some(half),
        method,
        events: brackets.len(),
        at_most_s: Some(at_most),
        closest_at: Some(at),
    })
}

/// Galera: the same seqno committed on both nodes. `a` and `b` are (epoch, last committed)
/// per reading; the offset of `b` against `a` is the median of `t_b - t_a(seqno_b)`, with
/// `t_a` interpolated, give or take half the readings' interval or the spread (IQR/2),
/// whichever is larger.
pub(crate) fn galera(a: (&str, &[(f64, f64)]), b: (&str, &[(f64, f64)])) -> Option<Estimate> {
    let (aname, sa) = a;
    let (bname, sb) = b;
    let mut d = Vec::new();
    for &(tb, seq) in sb {
        let i = sa.partition_point(|&(_, s)| s < seq);
        if i == 0 || i >= sa.len() {
            continue;
        }
        let ((t0, s0), (t1, s1)) = (sa[i - 1], sa[i]);
        if s1 <= s0 || t1 <= t0 {
            continue;
        }
        let ta = t0 + (seq - s0) / (s1 - s0) * (t1 - t0);
        d.push(tb - ta);
    }
    if d.len() < 3 {
        return None;
    }
    d.sort_by(f64::total_cmp);
    let q = |p: f64| d[((d.len() - 1) as f64 * p).round() as usize];
    let interval = sa.windows(2).map(|w| w[1].0 - w[0].0).fold(f64::INFINITY, f64::min);
    let half = ((q(0.75) - q(0.25)) / 2.0).max(if interval.is_finite() { interval / 2.0 } else { 0.5 });
    Some(Estimate {
        node: bname.to_string(),
        reference: aname.to_string(),
        offset_s: q(0.5),
        uncertainty_s: Some(half),
        method: Method::GaleraSeqno,
        events: d.len(),
        at_most_s: None,
        closest_at: None,
    })
}

/// No shared event: the node's clock taken as the reference's.
pub(crate) fn unmeasured(node: &str, reference: &str) -> Estimate {
    Estimate {
        node: node.to_string(),
        reference: reference.to_string(),
        offset_s: 0.0,
        uncertainty_s: None,
        method: Method::HostClocks,
        events: 0,
        at_most_s: None,
        closest_at: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::shared::{Beat, OwnPos, Received};

    fn received(epoch: f64, pos: u64) -> Received {
        Received {
            epoch,
            source_server_id: Some(1),
            source_port: None,
            file: "b.000001".into(),
            read_pos: pos,
            exec: None,
            seconds_behind: None,
            io_state: None,
        }
    }

    /// A source writing 1000 bytes a second read every second on its clock; a replica
    /// whose clock runs `shift` ahead receiving with `delay`, read every second at `phase`.
    fn pair(shift: f64, delay: impl Fn(f64) -> f64) -> (Shared, Shared) {
        let source = Shared {
            server_id: Some(1),
            own: (0..100)
                .map(|i| OwnPos { epoch: 1000.0 + i as f64, file: "b.000001".into(), pos: 1000 * i })
                .collect(),
            ..Shared::default()
        };
        let mut replica = Shared { server_id: Some(2), ..Shared::default() };
        for i in 0..100 {
            let t_true = 1000.3 + i as f64;
            // What the source had written `delay` before.
            let sent = t_true - delay(t_true);
            let pos = ((sent - 1000.0).max(0.0) * 1000.0) as u64;
            replica.received.push(received(t_true + shift, pos));
            let stamp = sent.floor();
            replica.beats.push(Beat {
                read_epoch: t_true + shift,
                server_id: 1,
                stamp_naive_s: stamp,
                reader_offset_s: Some(0),
            });
        }
        (source, replica)
    }

    #[test]
    fn a_shifted_replica_is_found_within_the_stated_uncertainty() {
        for shift in [0.0, 37.0, -12.5] {
            // Caught up early on, then 20 s behind.
            let (s, r) = pair(shift, |t| if t < 1030.0 { 0.01 } else { 20.0 });
            let e = between(("src", &s), ("rep", &r)).unwrap();
            let u = e.uncertainty_s.unwrap();
            assert!((e.offset_s - shift).abs() <= u + 0.02, "{shift}: {e:?}");
            assert!(u <= 1.0, "{e:?}");
            assert!(e.at_most_s.unwrap() >= shift, "{e:?}");
        }
    }

    #[test]
    fn positions_alone_bound_the_offset() {
        let (s, mut r) = pair(37.0, |_| 0.05);
        r.beats.clear();
        let e = between(("src", &s), ("rep", &r)).unwrap();
        assert_eq!(e.method, Method::BinlogPosition);
        assert!((e.offset_s - 37.0).abs() <= e.uncertainty_s.unwrap() + 0.06, "{e:?}");
    }

    #[test]
    fn a_replica_of_another_source_shares_nothing() {
        let (mut s, r) = pair(0.0, |_| 0.05);
        s.server_id = Some(9);
        assert!(between(("src", &s), ("rep", &r)).is_none());
        assert!(!replicates_from(&s, &r));
    }

    #[test]
    fn galera_seqnos_give_the_median_difference() {
        let a: Vec<(f64, f64)> = (0..60).map(|i| (100.0 + i as f64, 50.0 * i as f64)).collect();
        // b's clock 5 s ahead, its readings half a second later in the second.
        let b: Vec<(f64, f64)> = (0..60).map(|i| (105.5 + i as f64, 50.0 * i as f64 + 25.0)).collect();
        let e = galera(("a", &a), ("b", &b)).unwrap();
        assert!((e.offset_s - 5.0).abs() <= e.uncertainty_s.unwrap(), "{e:?}");
    }
}
