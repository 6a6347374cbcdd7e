//! The Galera view of one node: flow control (how much of the capture replication was
//! paused, whether this node sent the pause requests and when), its receive and send queues
//! and its replication rates, from the `galera.*` columns that `mysqladmin extended-status`
//! feeds (`wsrep_flow_control_paused_ns`, `_sent`, `_recv`, `wsrep_local_recv_queue`, ...).
//!
//! One capture is one node: which node paused the cluster is the node whose own
//! `wsrep_flow_control_sent` rose (a node that only received pauses was paused by another).

use crate::source::Context;
use crate::table::Timeline;
use crate::table::columns::{Col, GaleraMetric};

/// One node's Galera status over the capture.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GaleraView {
    /// `wsrep_node_name` (SHOW GLOBAL VARIABLES), when captured.
    pub node_name: Option<String>,
    /// Seconds with Galera status.
    pub seconds: usize,
    /// Share of the status seconds replication was paused by flow control, percent
    /// (rate of `wsrep_flow_control_paused_ns`).
    pub fc_paused_pct: Option<f64>,
    /// Seconds paused in total (the same, summed).
    pub fc_paused_s: Option<f64>,
    /// `wsrep_flow_control_sent` at the first and last reading.
    pub fc_sent: Option<(f64, f64)>,
    /// `wsrep_flow_control_recv` at the first and last reading.
    pub fc_recv: Option<(f64, f64)>,
    /// The seconds this node sent pause requests: (epoch second, requests).
    pub fc_sent_at: Vec<(i64, f64)>,
    /// The seconds this node received pause requests: (epoch second, requests).
    pub fc_recv_at: Vec<(i64, f64)>,
    /// Largest `wsrep_local_recv_queue` read.
    pub recv_queue_max: Option<f64>,
    /// Largest `wsrep_local_send_queue` read.
    pub send_queue_max: Option<f64>,
    /// `wsrep_last_committed` at the first and last reading.
    pub last_committed: Option<(f64, f64)>,
    /// Mean write sets committed per second (the cluster's, as this node applied them).
    pub committed_s: Option<f64>,
    /// Mean write sets this node replicated per second (its own transactions).
    pub replicated_s: Option<f64>,
    /// Mean write sets this node received per second.
    pub received_s: Option<f64>,
    /// Local transactions that failed certification.
    pub cert_failures: Option<f64>,
}

impl GaleraView {
    /// This node sent flow control: its `wsrep_flow_control_sent` rose during the capture.
    pub fn sent_flow_control(&self) -> bool {
        self.fc_sent.is_some_and(|(a, b)| b > a)
    }

    /// Pause requests this node sent during the capture.
    pub fn sent(&self) -> f64 {
        self.fc_sent.map_or(0.0, |(a, b)| (b - a).max(0.0))
    }

    /// Pause requests this node received during the capture.
    pub fn received(&self) -> f64 {
        self.fc_recv.map_or(0.0, |(a, b)| (b - a).max(0.0))
    }
}

/// The values of one Galera column with their epoch seconds.
fn points(tl: &Timeline, m: GaleraMetric) -> Vec<(i64, f64)> {
    tl.get(&Col::Galera(m))
        .map(|v| v.iter().enumerate().filter_map(|(r, c)| c.get().map(|x| (tl.epoch(r), x))).collect())
        .unwrap_or_default()
}

/// First and last value.
fn ends(p: &[(i64, f64)]) -> Option<(f64, f64)> {
    Some((p.first()?.1, p.last()?.1))
}

/// Mean of the values.
fn mean(p: &[(i64, f64)]) -> Option<f64> {
    (!p.is_empty()).then(|| p.iter().map(|x| x.1).sum::<f64>() / p.len() as f64)
}

/// Largest value.
fn max(p: &[(i64, f64)]) -> Option<f64> {
    p.iter().map(|x| x.1).reduce(f64::max)
}

/// The Galera view, when the capture has Galera status.
pub(crate) fn view(tl: &Timeline, ctx: &Context) -> Option<GaleraView> {
    let committed = points(tl, GaleraMetric::LastCommitted);
    let sent = points(tl, GaleraMetric::FcSent);
    if committed.is_empty() && sent.is_empty() {
        return None;
    }
    let paused = points(tl, GaleraMetric::FcPausedPct);
    let nonzero = |m| points(tl, m).into_iter().filter(|x| x.1 > 0.0).collect::<Vec<_>>();
    let cert = points(tl, GaleraMetric::CertFailuresS);
    Some(GaleraView {
        node_name: ctx.variable("wsrep_node_name").map(|v| v.value.trim().to_string()),
        seconds: committed.len().max(sent.len()),
        fc_paused_pct: mean(&paused),
        fc_paused_s: (!paused.is_empty()).then(|| paused.iter().map(|x| x.1 / 100.0).sum()),
        fc_sent: ends(&sent),
        fc_recv: ends(&points(tl, GaleraMetric::FcRecv)),
        fc_sent_at: nonzero(GaleraMetric::FcSentS),
        fc_recv_at: nonzero(GaleraMetric::FcRecvS),
        recv_queue_max: max(&points(tl, GaleraMetric::RecvQueue)),
        send_queue_max: max(&points(tl, GaleraMetric::SendQueue)),
        last_committed: ends(&committed),
        committed_s: mean(&points(tl, GaleraMetric::CommittedS)),
        replicated_s: mean(&points(tl, GaleraMetric::ReplicatedS)),
        received_s: mean(&points(tl, GaleraMetric::ReceivedS)),
        cert_failures: (!cert.is_empty()).then(|| cert.iter().map(|x| x.1).sum()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_that_sent_flow_control_and_one_that_only_received_it() {
        let mut tl = Timeline::new(100.0, 104.0);
        for (t, sent, recv) in [(100.0, 2.0, 6.0), (101.0, 2.0, 6.0), (102.0, 5.0, 11.0), (103.0, 5.0, 11.0)]
        {
            tl.set_gauge(&Col::Galera(GaleraMetric::FcSent), "m", t, sent);
            tl.set_gauge(&Col::Galera(GaleraMetric::FcRecv), "m", t, recv);
            tl.set_gauge(&Col::Galera(GaleraMetric::LastCommitted), "m", t, 1000.0 + t);
        }
        tl.set_rate(&Col::Galera(GaleraMetric::FcSentS), "m", 102.0, 1.0, 3.0);
        tl.set_rate(&Col::Galera(GaleraMetric::FcPausedPct), "m", 102.0, 1.0, 4.0);
        tl.set_rate(&Col::Galera(GaleraMetric::FcPausedPct), "m", 103.0, 1.0, 0.0);
        let v = view(&tl, &Context::default()).expect("galera status");
        assert!(v.sent_flow_control());
        assert_eq!((v.sent(), v.received()), (3.0, 5.0));
        // A rate read at 102 covers the second (101, 102]: row 101.
        assert_eq!(v.fc_sent_at, vec![(101, 3.0)]);
        assert_eq!(v.fc_paused_pct, Some(2.0));
        assert_eq!(v.last_committed, Some((1100.0, 1103.0)));
        assert_eq!(view(&Timeline::new(0.0, 3.0), &Context::default()), None);
    }
}
