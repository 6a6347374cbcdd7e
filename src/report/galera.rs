//! The Galera section of a node's page: how much of the capture flow control paused
//! replication, whether this node sent the pause requests (and when) or only received them,
//! its queues and rates. Rendered from findings.json's `galera`; absent on other servers.

use super::fmt::{full, num};
use crate::analysis::galera::GaleraView;
use crate::model::Report;
use maud::{Markup, html};

/// At most this many seconds with pause requests are listed.
const LISTED: usize = 12;

/// The one-line verdict on flow control for this node.
pub(crate) fn verdict(g: &GaleraView, zone: &crate::clock::DisplayZone) -> String {
    let node = g.node_name.as_deref().map_or("This node".to_string(), |n| format!("This node ({n})"));
    let paused = match (g.fc_paused_pct, g.fc_paused_s) {
        (Some(p), Some(s)) => {
            format!("replication was paused by flow control {p:.2} % of the capture ({s:.2} s)")
        }
        _ => "the paused time is not measured (no wsrep_flow_control_paused_ns)".to_string(),
    };
    let when = |at: &[(i64, f64)]| match (at.first(), at.last()) {
        (Some(a), Some(b)) if a.0 == b.0 => format!(" at {}", full(zone, a.0)),
        (Some(a), Some(b)) => format!(", first at {}, last at {}", full(zone, a.0), full(zone, b.0)),
        _ => String::new(),
    };
    if g.sent_flow_control() {
        format!(
            "{node} sent {} flow-control pause request(s){}: it paused the cluster (its receive queue reached {}). Across the cluster, {paused}.",
            num(g.sent()),
            when(&g.fc_sent_at),
            g.recv_queue_max.map_or("?".into(), num)
        )
    } else if g.received() > 0.0 {
        format!(
            "{node} sent no flow control; it received {} pause request(s){}: another node paused the cluster, and {paused}.",
            num(g.received()),
            when(&g.fc_recv_at),
        )
    } else {
        format!("{node} sent and received no flow control; {paused}.")
    }
}

/// The Galera section (nothing when the capture is not of a Galera node).
pub(super) fn section(report: &Report) -> Markup {
    let Some(g) = &report.doc.galera else { return html! {} };
    let z = &report.display;
    let opt = |v: Option<f64>| v.map_or("-".to_string(), num);
    html! {
        section #galera {
            h2 { "Galera" }
            p { (verdict(g, z)) }
            table {
                tr { th { "flow control" } th { "sent" } th { "received" } th { "paused" } th { "recv queue max" } th { "send queue max" } }
                tr {
                    td { "wsrep_flow_control_* (first → last reading)" }
                    td.n { (g.fc_sent.map_or("-".into(), |(a, b)| format!("{} → {}", num(a), num(b)))) }
                    td.n { (g.fc_recv.map_or("-".into(), |(a, b)| format!("{} → {}", num(a), num(b)))) }
                    td.n { (g.fc_paused_pct.map_or("-".into(), |p| format!("{p:.2} %"))) }
                    td.n { (opt(g.recv_queue_max)) }
                    td.n { (opt(g.send_queue_max)) }
                }
            }
            p {
                "Write sets per second: committed " (opt(g.committed_s)) ", replicated from this node " (opt(g.replicated_s))
                ", received " (opt(g.received_s)) "; certification failures " (opt(g.cert_failures))
                "; wsrep_last_committed " (g.last_committed.map_or("-".into(), |(a, b)| format!("{} → {}", num(a), num(b)))) "."
            }
            @if !g.fc_sent_at.is_empty() {
                p.src {
                    "Pause requests sent (" (z.label) "): "
                    @for (i, (t, n)) in g.fc_sent_at.iter().take(LISTED).enumerate() {
                        @if i > 0 { ", " } (full(z, *t)) " ×" (num(*n))
                    }
                    @if g.fc_sent_at.len() > LISTED { ", …" }
                }
            }
        }
    }
}
