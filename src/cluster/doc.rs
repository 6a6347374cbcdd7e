//! `cluster.json`: the cluster report as data (versioned by [`CLUSTER_VERSION`], like
//! `findings.json`; documented in docs/cluster.md). Each node's own `findings.json` is
//! beside it under `nodes/<name>/`; this file says what holds them together: the nodes,
//! their clock offsets, the chains of replication and the node x finding matrix, whose
//! windows are also given on the common axis (each node's own time minus its offset).

use super::chain::Chain;
use super::offset::Estimate;
use super::{Cluster, offset_of};
use crate::model::{Report, Severity, Window};
use serde::Serialize;

/// Version of the `cluster.json` layout; raised when a field changes meaning or goes.
pub const CLUSTER_VERSION: u32 = 1;

/// The document.
#[derive(Debug, Clone, Serialize)]
pub struct ClusterDoc {
    /// [`CLUSTER_VERSION`].
    pub cluster_version: u32,
    /// The iosift that wrote it.
    pub iosift_version: String,
    /// The node every offset is placed against.
    pub reference: Option<String>,
    /// The nodes in the order given.
    pub nodes: Vec<NodeDoc>,
    /// Clock offsets (one per node but the reference).
    pub offsets: Vec<Estimate>,
    /// Replication chains measured from both ends.
    pub chains: Vec<Chain>,
    /// Rules by node: fired rules first (worst first), then the rules no node fired.
    pub matrix: Vec<MatrixRow>,
    /// What the reader must know before comparing the nodes.
    pub warnings: Vec<String>,
    /// Galera flow control across the nodes (null when no node has Galera status).
    pub flow_control: Option<super::galera::FlowControl>,
}

/// One node.
#[derive(Debug, Clone, Serialize)]
pub struct NodeDoc {
    /// Name (its folder under `nodes/`).
    pub name: String,
    /// The capture as given.
    pub input: String,
    /// Its report page, relative to `cluster.json`.
    pub report: Option<String>,
    /// Its `findings.json`.
    pub findings: Option<String>,
    /// Why it has no report.
    pub error: Option<String>,
    /// The capturing host, when a file names it.
    pub host: Option<String>,
    /// `server_id`, when known.
    pub server_id: Option<u64>,
    /// `port`, when known.
    pub port: Option<u64>,
    /// The capture's span on its own clock.
    pub span: Option<Window>,
    /// Its offset against the reference (seconds; 0 for the reference).
    pub offset_s: f64,
}

/// One rule across the nodes.
#[derive(Debug, Clone, Serialize)]
pub struct MatrixRow {
    /// Rule id.
    pub rule: String,
    /// One cell per node, in the nodes' order.
    pub cells: Vec<MatrixCell>,
}

/// One rule on one node.
#[derive(Debug, Clone, Serialize)]
pub struct MatrixCell {
    /// The node.
    pub node: String,
    /// `critical`, `warning`, `info` (fired), `passed`, `skipped`, or `not analyzed`.
    pub state: &'static str,
    /// The finding's window on the node's clock.
    pub window: Option<Window>,
    /// The same on the common axis.
    pub window_common: Option<Window>,
    /// The finding's sentence.
    pub summary: Option<String>,
}

fn severity_word(s: Severity) -> &'static str {
    crate::report::findings::sev_word(s)
}

fn shifted(w: &Window, by: f64) -> Option<Window> {
    let p = |t: &str| chrono::DateTime::parse_from_rfc3339(t).ok().map(|d| d.timestamp());
    let by = by.round() as i64;
    Some(Window::epochs(p(&w.start)? - by, p(&w.end)? - by))
}

fn cell(name: &str, report: Option<&Report>, rule: &str, offset: f64) -> MatrixCell {
    let mut c = MatrixCell {
        node: name.to_string(),
        state: "not analyzed",
        window: None,
        window_common: None,
        summary: None,
    };
    let Some(r) = report else { return c };
    if let Some(f) = r.doc.findings.iter().find(|f| f.rule == rule) {
        c.state = severity_word(f.severity);
        c.window = f.window.clone();
        c.window_common = f.window.as_ref().and_then(|w| shifted(w, offset));
        c.summary = Some(f.summary.clone());
    } else if let Some(k) = r.doc.checked.iter().find(|k| k.rule == rule) {
        c.state = k.outcome;
    }
    c
}

/// The matrix: every rule any node fired or checked.
fn matrix(cluster: &Cluster) -> Vec<MatrixRow> {
    let mut rules: Vec<(u8, String)> = Vec::new();
    for r in cluster.nodes.iter().filter_map(|n| n.report.as_ref()) {
        let fired = r.doc.findings.iter().map(|f| (f.severity as u8 + 1, f.rule.to_string()));
        let checked = r.doc.checked.iter().map(|k| (0u8, k.rule.to_string()));
        for (rank, rule) in fired.chain(checked) {
            match rules.iter_mut().find(|(_, x)| *x == rule) {
                Some(e) => e.0 = e.0.max(rank),
                None => rules.push((rank, rule)),
            }
        }
    }
    rules.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    rules
        .into_iter()
        .map(|(_, rule)| MatrixRow {
            cells: cluster
                .nodes
                .iter()
                .map(|n| cell(&n.name, n.report.as_ref(), &rule, offset_of(&cluster.offsets, &n.name)))
                .collect(),
            rule,
        })
        .collect()
}

impl ClusterDoc {
    /// The document of a cluster.
    pub fn of(cluster: &Cluster) -> ClusterDoc {
        let nodes = cluster
            .nodes
            .iter()
            .map(|n| {
                let r = n.report.as_ref();
                let span = r.and_then(|r| {
                    Some(Window { start: r.doc.clock.start.clone()?, end: r.doc.clock.end.clone()? })
                });
                NodeDoc {
                    name: n.name.clone(),
                    input: n.path.display().to_string(),
                    report: r.map(|_| format!("nodes/{}/index.html", n.name)),
                    findings: r.map(|_| format!("nodes/{}/findings.json", n.name)),
                    error: n.error.clone(),
                    host: r.and_then(|r| r.host().map(str::to_string)),
                    server_id: r.and_then(|r| r.shared.server_id),
                    port: r.and_then(|r| r.shared.port),
                    span,
                    offset_s: offset_of(&cluster.offsets, &n.name),
                }
            })
            .collect();
        ClusterDoc {
            cluster_version: CLUSTER_VERSION,
            iosift_version: env!("CARGO_PKG_VERSION").to_string(),
            reference: cluster.reference.clone(),
            nodes,
            offsets: cluster.offsets.clone(),
            chains: cluster.chains.clone(),
            matrix: matrix(cluster),
            warnings: cluster.warnings.clone(),
            flow_control: cluster.flow.clone(),
        }
    }
}
