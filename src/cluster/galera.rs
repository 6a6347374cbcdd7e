//! Galera flow control across the nodes: which node sent the pauses (its
//! `wsrep_flow_control_sent` rose), when on the common axis, and how long each node's
//! replication stood paused (`wsrep_flow_control_paused_ns`). A node's own page has its
//! own view; only the cluster sees who paused whom.

use crate::model::Report;
use crate::table::Col;
use crate::table::columns::GaleraMetric;
use serde::Serialize;

/// One node's flow control.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowNode {
    /// The node.
    pub node: String,
    /// Pause requests it sent during the capture (rise of `wsrep_flow_control_sent`).
    pub sent: Option<f64>,
    /// Pause requests it received (rise of `wsrep_flow_control_recv`).
    pub received: Option<f64>,
    /// Mean share of the capture its replication was paused (%).
    pub paused_pct: Option<f64>,
    /// First and last second it sent a pause, on the common axis (epoch seconds).
    pub sending: Option<(f64, f64)>,
}

/// Flow control in the cluster.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowControl {
    /// Per node with Galera status, in the nodes' order.
    pub nodes: Vec<FlowNode>,
    /// The nodes that sent pauses.
    pub senders: Vec<String>,
    /// One sentence for the page.
    pub sentence: String,
}

/// The present values of a node's column with their rows.
fn values(r: &Report, m: GaleraMetric) -> Vec<(usize, f64)> {
    let Some(v) = r.timeline.get(&Col::Galera(m)) else { return Vec::new() };
    v.iter().enumerate().filter_map(|(i, c)| c.get().filter(|x| x.is_finite()).map(|x| (i, x))).collect()
}

/// Rise of a counter over the capture.
fn rise(v: &[(usize, f64)]) -> Option<f64> {
    let (lo, hi) = v.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &(_, x)| (a.min(x), b.max(x)));
    let first = v.first()?.1;
    let last = v.last()?.1;
    // A counter that went down was reset (FLUSH STATUS): the largest rise seen then.
    Some(if last >= first { last - first } else { hi - lo })
}

/// Flow control of `nodes` (name, report, clock offset), when any has Galera status.
pub(crate) fn flow(nodes: &[(&str, &Report, f64)]) -> Option<FlowControl> {
    let mut out = Vec::new();
    for &(name, r, off) in nodes {
        let sent = values(r, GaleraMetric::FcSent);
        let recv = values(r, GaleraMetric::FcRecv);
        let paused = values(r, GaleraMetric::FcPausedPct);
        if sent.is_empty() && recv.is_empty() && paused.is_empty() {
            continue;
        }
        let at = |row: usize| r.timeline.epoch(row) as f64 - off;
        let sends: Vec<f64> = sent.windows(2).filter(|w| w[1].1 > w[0].1).map(|w| at(w[1].0)).collect();
        out.push(FlowNode {
            node: name.to_string(),
            sent: rise(&sent),
            received: rise(&recv),
            paused_pct: (!paused.is_empty())
                .then(|| paused.iter().map(|p| p.1).sum::<f64>() / paused.len() as f64),
            sending: sends.first().zip(sends.last()).map(|(a, b)| (*a, *b)),
        });
    }
    if out.is_empty() {
        return None;
    }
    let senders: Vec<String> =
        out.iter().filter(|n| n.sent.is_some_and(|s| s > 0.0)).map(|n| n.node.clone()).collect();
    let sentence = sentence(&out, &senders);
    Some(FlowControl { nodes: out, senders, sentence })
}

fn sentence(nodes: &[FlowNode], senders: &[String]) -> String {
    let paused: Vec<String> =
        nodes.iter().filter_map(|n| n.paused_pct.map(|p| format!("{} {p:.1} %", n.node))).collect();
    let paused = if paused.is_empty() {
        String::new()
    } else {
        format!(" Replication stood paused: {}.", paused.join(", "))
    };
    if senders.is_empty() {
        return format!(
            "No node sent flow control during the capture (wsrep_flow_control_sent did not rise on any).{paused}"
        );
    }
    let who: Vec<String> = nodes
        .iter()
        .filter(|n| senders.contains(&n.node))
        .map(|n| {
            let when = n
                .sending
                .map_or(String::new(), |(a, b)| format!(" from {} to {}", super::at(a), super::at(b)));
            format!("{} sent {:.0} pauses{when}", n.node, n.sent.unwrap_or(0.0))
        })
        .collect();
    format!(
        "{}: {} paused the cluster (a node asks for a pause when its receive queue passes gcs.fc_limit; every node waits for it).{paused}",
        who.join("; "),
        senders.join(" and ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_counter_rise_survives_a_reset() {
        assert_eq!(rise(&[(0, 3.0), (1, 5.0), (2, 9.0)]), Some(6.0));
        assert_eq!(rise(&[(0, 30.0), (1, 0.0), (2, 4.0)]), Some(30.0));
        assert_eq!(rise(&[]), None);
    }
}
