//! One incident, several nodes: `iosift analyze --node NAME=PATH ...` (or `--nodes DIR`,
//! whose subfolders and archives are the nodes). Each node is analyzed on its own, as
//! `iosift analyze` would (one full report each, under `nodes/<NAME>/`); then the nodes'
//! clocks are placed against one reference from the events their captures share
//! ([`offset`]), each replica's chain is measured from both ends ([`chain`]), and one
//! cluster page and `cluster.json` ([`doc`]) put the nodes side by side ([`page`]).
//!
//! A node is never merged with another: a node whose input holds several captures is
//! refused (named, with its captures), and so is a name given twice.

pub mod chain;
pub mod doc;
pub mod galera;
pub mod offset;
pub mod page;

use crate::bundle::{self, Limits};
use crate::model::Report;
use crate::pipeline::Options;
use std::path::{Path, PathBuf};

/// Why a cluster cannot be analyzed (a usage error: nothing is written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClusterError {
    /// `--node` not of the form NAME=PATH, or a name that cannot be a folder name.
    BadNode(String),
    /// The same name twice.
    DuplicateName(String),
    /// Fewer than two nodes.
    TooFew(usize),
}

impl std::fmt::Display for ClusterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClusterError::BadNode(s) => write!(
                f,
                "--node {s}: expected NAME=PATH, NAME of letters, digits, '-', '_' or '.' (not starting with '.'), at most 64"
            ),
            ClusterError::DuplicateName(n) => write!(f, "node name {n} given twice"),
            ClusterError::TooFew(n) => {
                write!(
                    f,
                    "a cluster needs at least two nodes ({n} given); analyze one capture without --node"
                )
            }
        }
    }
}

impl std::error::Error for ClusterError {}

/// One node as the user named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeSpec {
    /// Its name (a folder name under `nodes/`).
    pub name: String,
    /// Its capture: a folder or an archive.
    pub path: PathBuf,
}

/// Whether `name` can name a node's folder as given (no renaming behind the user's back).
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

impl NodeSpec {
    /// `NAME=PATH` of `--node`.
    pub fn parse(arg: &str) -> Result<NodeSpec, ClusterError> {
        let (name, path) = arg.split_once('=').ok_or_else(|| ClusterError::BadNode(arg.to_string()))?;
        if !valid_name(name) || path.is_empty() {
            return Err(ClusterError::BadNode(arg.to_string()));
        }
        Ok(NodeSpec { name: name.to_string(), path: PathBuf::from(path) })
    }

    /// The nodes of `--nodes DIR`: each subfolder and archive ([`crate::batch::discover`]),
    /// named after it (made a safe folder name; a second node of the same name gets `-2`).
    pub fn from_folder(dir: &Path) -> Vec<NodeSpec> {
        let mut out: Vec<NodeSpec> = Vec::new();
        for p in crate::batch::discover(dir) {
            let raw =
                p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "node".into());
            let stem = bundle::sanitize_file_name(archive_stem(&raw));
            let stem = stem.trim_start_matches('.').chars().take(60).collect::<String>();
            let stem = if stem.is_empty() { "node".to_string() } else { stem };
            let mut name = stem.clone();
            let mut k = 2;
            while out.iter().any(|n| n.name == name) {
                name = format!("{stem}-{k}");
                k += 1;
            }
            out.push(NodeSpec { name, path: p });
        }
        out
    }
}

/// `node1.tar.gz` -> `node1`.
fn archive_stem(name: &str) -> &str {
    let lower = name.to_ascii_lowercase();
    match crate::batch::ARCHIVE_EXTENSIONS.iter().find(|e| name.len() > e.len() && lower.ends_with(*e)) {
        Some(e) => &name[..name.len() - e.len()],
        None => name,
    }
}

/// Checks the nodes before any work: names unique, at least two.
pub fn check(specs: &[NodeSpec]) -> Result<(), ClusterError> {
    if specs.len() < 2 {
        return Err(ClusterError::TooFew(specs.len()));
    }
    for (i, s) in specs.iter().enumerate() {
        if specs[..i].iter().any(|o| o.name.eq_ignore_ascii_case(&s.name)) {
            return Err(ClusterError::DuplicateName(s.name.clone()));
        }
    }
    Ok(())
}

/// One node analyzed, or why it could not be.
pub struct Node {
    /// Its name.
    pub name: String,
    /// Its capture as given.
    pub path: PathBuf,
    /// Its report.
    pub report: Option<Report>,
    /// Why there is no report (unreadable, nothing readable, several captures).
    pub error: Option<String>,
}

/// The cluster: its nodes, their clocks and their chains.
pub struct Cluster {
    /// Nodes in the order given.
    pub nodes: Vec<Node>,
    /// The node every offset is placed against.
    pub reference: Option<String>,
    /// One estimate per other analyzed node (clock(node) - clock(reference)).
    pub offsets: Vec<offset::Estimate>,
    /// Every source-to-replica chain both of whose ends were captured.
    pub chains: Vec<chain::Chain>,
    /// What the reader must know before comparing the nodes (captures that do not
    /// overlap, clocks not measured, nodes of different clusters).
    pub warnings: Vec<String>,
    /// Galera flow control across the nodes, when any node has Galera status.
    pub flow: Option<galera::FlowControl>,
}

/// Analyzes one node; `Err` says why it has no report.
fn node(spec: &NodeSpec, opts: &Options, limits: &Limits) -> Result<Report, String> {
    let b = bundle::load(std::slice::from_ref(&spec.path), limits).map_err(|e| e.to_string())?;
    let report = crate::analyze::analyze(&b, opts);
    if report.captures.len() > 1 {
        return Err(crate::pipeline::captures::refusal(
            &report.captures,
            &spec.path.display().to_string(),
            None,
        ));
    }
    if let Some(e) = crate::analyze::nothing_readable(&report, &spec.path.display().to_string()) {
        return Err(e);
    }
    Ok(report)
}

/// Analyzes every node, then places their clocks and measures their chains.
/// `progress` is told each node as it starts.
pub fn analyze(specs: &[NodeSpec], opts: &Options, limits: &Limits, progress: &dyn Fn(&str)) -> Cluster {
    let nodes: Vec<Node> = specs
        .iter()
        .map(|s| {
            progress(&s.name);
            let (report, error) = match node(s, opts, limits) {
                Ok(r) => (Some(r), None),
                Err(e) => (None, Some(e)),
            };
            Node { name: s.name.clone(), path: s.path.clone(), report, error }
        })
        .collect();
    let (reference, offsets) = place(&nodes);
    let chains = chains(&nodes, &offsets);
    let warnings = warnings(&nodes, &offsets);
    let placed: Vec<(&str, &Report, f64)> =
        analyzed(&nodes).into_iter().map(|(n, r)| (n, r, offset_of(&offsets, n))).collect();
    let flow = galera::flow(&placed);
    Cluster { nodes, reference, offsets, chains, warnings, flow }
}

/// A node's span on the common axis (epoch seconds).
fn span(r: &Report, offset: f64) -> Option<(f64, f64)> {
    let t = &r.timeline;
    (t.len > 0).then(|| ((t.t0 as f64) - offset, (t.epoch(t.len - 1) + t.bin()) as f64 - offset))
}

/// Captures that do not overlap the others, clocks taken as they are, cluster names that differ.
fn warnings(nodes: &[Node], offsets: &[offset::Estimate]) -> Vec<String> {
    let done = analyzed(nodes);
    let mut out = Vec::new();
    let spans: Vec<(&str, Option<(f64, f64)>)> =
        done.iter().map(|&(n, r)| (n, span(r, offset_of(offsets, n)))).collect();
    for &(n, sp) in &spans {
        let Some((a, b)) = sp else { continue };
        let overlaps = spans.iter().any(|&(m, o)| m != n && o.is_some_and(|(c, d)| a < d && c < b));
        if !overlaps {
            out.push(format!(
                "{n}'s capture ({} to {} on the common axis) overlaps no other node's: not one incident, or a clock far off that no shared event corrects",
                at(a),
                at(b)
            ));
        }
    }
    for e in offsets.iter().filter(|e| e.method == offset::Method::HostClocks) {
        out.push(format!(
            "{} shares no event with the others: its clock is taken as it is (offset not measured)",
            e.node
        ));
    }
    // A node whose collector spun: its CPU figures after that are the collector's.
    for &(n, r) in &done {
        if let Some(note) = r.doc.bundle.collector.as_ref().and_then(|c| c.note.as_deref()) {
            out.push(format!("{n}: {note}"));
        }
    }
    let clusters: Vec<(&str, String)> = done
        .iter()
        .filter_map(|&(n, r)| {
            r.context.variable("wsrep_cluster_name").map(|v| (n, v.value.trim().to_string()))
        })
        .filter(|(_, c)| !c.is_empty())
        .collect();
    if clusters.iter().any(|(_, c)| *c != clusters[0].1) {
        let list: Vec<String> = clusters.iter().map(|(n, c)| format!("{n}: {c}")).collect();
        out.push(format!(
            "the nodes belong to different Galera clusters (wsrep_cluster_name {})",
            list.join(", ")
        ));
    }
    out
}

/// The analyzed nodes with their shared events.
fn analyzed(nodes: &[Node]) -> Vec<(&str, &Report)> {
    nodes.iter().filter_map(|n| n.report.as_ref().map(|r| (n.name.as_str(), r))).collect()
}

/// The reference (a source none of the others feeds, else the first analyzed node) and
/// every other node's offset against it: directly, reversed, or through one node between.
fn place(nodes: &[Node]) -> (Option<String>, Vec<offset::Estimate>) {
    let done = analyzed(nodes);
    let Some(&(first, _)) = done.first() else { return (None, Vec::new()) };
    let feeds_other = |s: &Report| done.iter().any(|(_, r)| offset::replicates_from(&s.shared, &r.shared));
    let fed = |s: &Report| done.iter().any(|(_, r)| offset::replicates_from(&r.shared, &s.shared));
    let reference = done.iter().find(|(_, r)| feeds_other(r) && !fed(r)).map_or(first, |(n, _)| *n);
    let pair = |a: &str, b: &str| -> Option<offset::Estimate> {
        let (ra, rb) = (report_of(&done, a)?, report_of(&done, b)?);
        offset::between((a, &ra.shared), (b, &rb.shared))
            .or_else(|| offset::between((b, &rb.shared), (a, &ra.shared)).map(|e| reversed(e, a, b)))
            .or_else(|| offset::galera((a, &ra.shared.seqnos), (b, &rb.shared.seqnos)))
    };
    let mut out = Vec::new();
    for &(name, _) in done.iter().filter(|(n, _)| *n != reference) {
        let direct = pair(reference, name);
        let via = || {
            done.iter().filter(|(m, _)| *m != reference && *m != name).find_map(|&(m, _)| {
                let (a, b) = (pair(reference, m)?, pair(m, name)?);
                Some(offset::Estimate {
                    node: name.to_string(),
                    reference: reference.to_string(),
                    offset_s: a.offset_s + b.offset_s,
                    uncertainty_s: a.uncertainty_s.zip(b.uncertainty_s).map(|(x, y)| x + y),
                    method: b.method,
                    events: a.events.min(b.events),
                    at_most_s: None,
                    closest_at: None,
                })
            })
        };
        out.push(direct.or_else(via).unwrap_or_else(|| offset::unmeasured(name, reference)));
    }
    (Some(reference.to_string()), out)
}

fn report_of<'a>(done: &[(&str, &'a Report)], name: &str) -> Option<&'a Report> {
    done.iter().find(|(n, _)| *n == name).map(|(_, r)| *r)
}

/// `e` placed `a` against `b`; the same estimate for `b` against `a`.
fn reversed(e: offset::Estimate, a: &str, b: &str) -> offset::Estimate {
    offset::Estimate {
        node: b.to_string(),
        reference: a.to_string(),
        offset_s: -e.offset_s,
        at_most_s: None,
        closest_at: None,
        ..e
    }
}

/// Seconds as RFC 3339 (UTC), for the page.
pub(crate) fn at(epoch: f64) -> String {
    crate::model::rfc3339(epoch.floor() as i64)
}

/// A node's offset against the reference (0 for the reference itself).
pub fn offset_of(offsets: &[offset::Estimate], name: &str) -> f64 {
    offsets.iter().find(|e| e.node == name).map_or(0.0, |e| e.offset_s)
}

/// Every source-to-replica chain among the analyzed nodes.
fn chains(nodes: &[Node], offsets: &[offset::Estimate]) -> Vec<chain::Chain> {
    let done = analyzed(nodes);
    let mut out = Vec::new();
    for &(s, rs) in &done {
        for &(r, rr) in done.iter().filter(|(r, _)| *r != s) {
            if !offset::replicates_from(&rs.shared, &rr.shared) {
                continue;
            }
            let off = offset_of(offsets, r) - offset_of(offsets, s);
            let relay = rr.context.variable("sync_relay_log").map(|v| v.value.trim().to_string());
            if let Some(c) = chain::measure((s, &rs.shared), (r, &rr.shared), off, relay) {
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_names_are_folder_names_as_given() {
        assert_eq!(NodeSpec::parse("db1=/x/y.tar.gz").unwrap().name, "db1");
        for bad in ["=/x", "../a=/x", ".a=/x", "a/b=/x", "a", "a=", "a b=/x"] {
            assert!(NodeSpec::parse(bad).is_err(), "{bad}");
        }
        let two = [NodeSpec::parse("a=/x").unwrap(), NodeSpec::parse("A=/y").unwrap()];
        assert_eq!(check(&two), Err(ClusterError::DuplicateName("A".into())));
        assert_eq!(check(&two[..1]), Err(ClusterError::TooFew(1)));
    }

    #[test]
    fn archive_names_lose_their_extension() {
        assert_eq!(archive_stem("node1.tar.gz"), "node1");
        assert_eq!(archive_stem("n.ZIP"), "n");
        assert_eq!(archive_stem(".tar.gz"), ".tar.gz");
    }
}
