//! The cluster folder: `index.html` (the node x finding matrix first, then the clocks,
//! the replication chains and the overlaid charts, then links to each node's page),
//! `cluster.json`, `charts/cluster-*.png|svg`, and one full report per node under
//! `nodes/<name>/`. Rendered with maud, which escapes every interpolated string; capture
//! text also goes through [`crate::term::safe_doc`]. Node folder names are the names the
//! user gave, checked by [`super::NodeSpec`] (never a name read from a capture).

use super::Cluster;
use super::at;
use super::doc::{ClusterDoc, MatrixRow};
use crate::report::charts::{self, Chart};
use anyhow::Context as _;
use base64::Engine;
use maud::{DOCTYPE, Markup, html};
use std::path::{Path, PathBuf};

const CSS: &str = r#"
body{font-family:"DejaVu Sans",Verdana,Arial,sans-serif;font-size:14px;color:#1d1d1f;margin:0}
main{max-width:1200px;margin:0 auto;padding:12px 24px 48px}
h1{font-size:22px;margin:14px 0 4px} h2{font-size:18px;border-bottom:2px solid #d0d7de;padding-bottom:3px;margin-top:30px}
table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}
th,td{border:1px solid #d0d7de;padding:3px 7px;text-align:left;vertical-align:top} th{background:#f3f5f7}
td.n{text-align:right;font-variant-numeric:tabular-nums}
td.critical{background:#ffebe9;color:#cf222e;font-weight:bold} td.warning{background:#fff8c5;color:#9a6700;font-weight:bold}
td.info{background:#ddf4ff;color:#0969da} td.passed{color:#1a7f37} td.skipped,td.na{color:#8c959f}
.muted{color:#6e7781} .bad{color:#cf222e} .w{font-size:11px;color:#57606a;display:block}
figure{margin:14px 0} figure img{max-width:100%;height:auto;border:1px solid #eaeef2} figcaption{color:#57606a;font-size:13px}
"#;

const CSP: &str =
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/// Writes the cluster folder into `dir` (a fresh staging folder); the files written.
pub fn write_into(cluster: &Cluster, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    let nodes_dir = dir.join("nodes");
    std::fs::create_dir(&nodes_dir).with_context(|| format!("cannot create {}", nodes_dir.display()))?;
    for n in &cluster.nodes {
        if let Some(r) = &n.report {
            written.extend(crate::output::write_all_into(r, &nodes_dir.join(&n.name))?);
        }
    }
    let doc = ClusterDoc::of(cluster);
    let path = dir.join("cluster.json");
    std::fs::write(&path, serde_json::to_string_pretty(&doc)? + "\n")
        .with_context(|| format!("cannot write {}", path.display()))?;
    written.push(path);
    let series: Vec<_> = cluster
        .nodes
        .iter()
        .filter_map(|n| {
            n.report.as_ref().map(|r| (n.name.as_str(), r, super::offset_of(&cluster.offsets, &n.name)))
        })
        .collect();
    let zone = series.first().map(|(_, r, _)| r.display.clone()).unwrap_or_default();
    let (mut drawn, mut problems) = (Vec::new(), Vec::new());
    let debts: Vec<charts::cluster::ChainDebts<'_>> = cluster
        .chains
        .iter()
        .map(|c| charts::cluster::ChainDebts {
            source: &c.source,
            replica: &c.replica,
            verdict: c.bottleneck.words(),
            debts: &c.debts,
        })
        .collect();
    let specs = charts::cluster::chains(&series, &debts, &zone)
        .into_iter()
        .chain(charts::cluster::overlays(&series, &zone));
    for spec in specs {
        match charts::render(&spec) {
            Ok(c) => drawn.push(c),
            Err(e) => problems.push(format!("chart {}: {e}", spec.name)),
        }
    }
    let cdir = dir.join("charts");
    if !drawn.is_empty() {
        std::fs::create_dir(&cdir).with_context(|| format!("cannot create {}", cdir.display()))?;
    }
    for c in &drawn {
        for (ext, bytes) in [("png", &c.png[..]), ("svg", c.svg.as_bytes())] {
            let p = cdir.join(format!("{}.{ext}", c.name));
            std::fs::write(&p, bytes).with_context(|| format!("cannot write {}", p.display()))?;
            written.push(p);
        }
    }
    let page = crate::term::safe_doc(render(&doc, &drawn, &problems).into_string());
    let path = dir.join("index.html");
    std::fs::write(&path, page).with_context(|| format!("cannot write {}", path.display()))?;
    written.push(path);
    Ok(written)
}

fn title(rule: &str) -> String {
    crate::rules::spec(rule).map_or_else(|| rule.replace('_', " "), |s| s.title.to_string())
}

fn matrix(doc: &ClusterDoc, rows: &[MatrixRow]) -> Markup {
    html! {
        table {
            tr { th { "rule" } @for n in &doc.nodes { th { (n.name) } } }
            @for r in rows {
                tr {
                    td { (title(&r.rule)) br; span.w { (r.rule) } }
                    @for c in &r.cells {
                        @let class = if c.state == "not analyzed" { "na" } else { c.state };
                        td class=(class) title=[c.summary.as_deref()] {
                            (c.state)
                            @if let Some(w) = &c.window_common { span.w { (w.start) " – " (w.end) } }
                        }
                    }
                }
            }
        }
    }
}

fn nodes(doc: &ClusterDoc) -> Markup {
    html! {
        table {
            tr { th { "node" } th { "capture" } th { "host" } th { "server_id" } th { "port" } th { "span (own clock)" }
                 th { "offset" } th { "how" } }
            @for n in &doc.nodes {
                @let est = doc.offsets.iter().find(|e| e.node == n.name);
                tr {
                    td { @if let Some(r) = &n.report { a href=(r) { (n.name) } } @else { (n.name) } }
                    td { (n.input) @if let Some(e) = &n.error { br; span.bad { "not analyzed: " (e) } } }
                    td { (n.host.as_deref().unwrap_or("-")) }
                    td.n { (n.server_id.map_or("-".into(), |v| v.to_string())) }
                    td.n { (n.port.map_or("-".into(), |v| v.to_string())) }
                    td { @if let Some(s) = &n.span { (s.start) " – " (s.end) } @else { "-" } }
                    td.n { (offset_text(doc, &n.name, est)) }
                    td { (est.map_or("the reference", |e| e.method.words())) }
                }
            }
        }
    }
}

fn offset_text(doc: &ClusterDoc, name: &str, e: Option<&super::offset::Estimate>) -> String {
    match e {
        None if doc.reference.as_deref() == Some(name) => "0 (reference)".into(),
        None => "-".into(),
        Some(e) => match (e.uncertainty_s, e.at_most_s) {
            (None, _) => format!("{:+.1} s (assumed)", e.offset_s),
            (Some(u), Some(m)) => format!("{:+.1} s ± {u:.1} s (at most {m:+.1} s)", e.offset_s),
            (Some(u), None) => format!("{:+.1} s ± {u:.1} s", e.offset_s),
        },
    }
}

fn chains(doc: &ClusterDoc, charts: &[&Chart]) -> Markup {
    html! {
        @for (i, c) in doc.chains.iter().enumerate() {
            h3 { (c.source) " → " (c.replica) ": lag born at " (c.bottleneck.words()) }
            p { (c.why) }
            @if !c.remedies.is_empty() { ul { @for r in &c.remedies { li { (r) } } } }
            @if let Some(ch) = charts.get(i) { (figure(ch)) }
        }
    }
}

fn figure(c: &Chart) -> Markup {
    html! {
        figure {
            img src=(format!("data:image/svg+xml;base64,{}", base64::engine::general_purpose::STANDARD.encode(&c.svg))) alt=(c.title);
            figcaption { b { (c.title) } ". " (c.caption) }
        }
    }
}

/// Nodes captured on one host share its devices and page cache: their lines are one machine's.
fn one_host_note(doc: &ClusterDoc) -> Option<String> {
    let hosts: Vec<&str> = doc.nodes.iter().filter_map(|n| n.host.as_deref()).collect();
    (hosts.len() > 1 && hosts.iter().all(|h| *h == hosts[0])).then(|| {
        format!(
            "Every node was captured on host {}: they share its devices, memory and page cache, so their device and Dirty lines are the same machine's seen {} times.",
            hosts[0],
            hosts.len()
        )
    })
}

fn render(doc: &ClusterDoc, charts: &[Chart], problems: &[String]) -> Markup {
    let names: Vec<&str> = doc.nodes.iter().map(|n| n.name.as_str()).collect();
    let (chain_charts, side): (Vec<&Chart>, Vec<&Chart>) =
        charts.iter().partition(|c| c.name.starts_with("cluster-chain-"));
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(CSP);
                title { "iosift cluster report: " (names.join(", ")) }
                style { (maud::PreEscaped(CSS)) }
            }
            body { main {
                h1 { "Cluster: " (names.join(", ")) }
                p.muted { (doc.nodes.len()) " nodes, each analyzed on its own (its page is linked below); times on this page are on the common axis: each node's own time minus its offset against "
                    (doc.reference.as_deref().unwrap_or("the first node")) "." }
                @if !doc.warnings.is_empty() { ul.bad { @for w in &doc.warnings { li { (w) } } } }
                h2 { "Findings by node" }
                (matrix(doc, &doc.matrix))
                h2 { "Nodes and their clocks" }
                (nodes(doc))
                @for e in doc.offsets.iter().filter(|e| e.closest_at.is_some()) {
                    p.muted { (e.node) ": the events were closest at " (at(e.closest_at.unwrap_or(0.0))) " (its clock); the offset is taken there with the delay as zero. If "
                        (e.node) " never caught up with " (e.reference) " during the capture, the offset is smaller than that (the bound always holds)." }
                }
                @if let Some(f) = &doc.flow_control {
                    h2 { "Galera flow control" }
                    p { (f.sentence) }
                    table {
                        tr { th { "node" } th { "pauses sent" } th { "pauses received" } th { "paused (mean %)" } th { "sending (common axis)" } }
                        @for n in &f.nodes {
                            tr {
                                td { (n.node) }
                                td.n { (n.sent.map_or("-".into(), |v| format!("{v:.0}"))) }
                                td.n { (n.received.map_or("-".into(), |v| format!("{v:.0}"))) }
                                td.n { (n.paused_pct.map_or("-".into(), |v| format!("{v:.1}"))) }
                                td { (n.sending.map_or("-".into(), |(a, b)| format!("{} – {}", at(a), at(b)))) }
                            }
                        }
                    }
                }
                @if !doc.chains.is_empty() { h2 { "Replication: where the lag is born" } (chains(doc, &chain_charts)) }
                @if !side.is_empty() {
                    h2 { "Side by side on the common axis" }
                    @if let Some(n) = one_host_note(doc) { p.muted { (n) } }
                    @for c in &side { (figure(c)) }
                }
                h2 { "Compare two nodes" }
                p { "What differs between two nodes (findings, rates, latency, settings): " code { "iosift diff <capture of one> <capture of the other>" } ", e.g. "
                    @if let [a, b, ..] = &doc.nodes[..] { code { "iosift diff " (a.input) " " (b.input) } } "." }
                @if !problems.is_empty() { h2 { "Problems" } ul { @for p in problems { li { (p) } } } }
            } }
        }
    }
}

/// The terminal summary: each node's worst finding, the offsets, the chains, the page.
pub fn terminal(cluster: &Cluster, dir: &Path) -> String {
    let doc = ClusterDoc::of(cluster);
    let mut out = format!(
        "cluster of {} nodes (reference {})\n",
        doc.nodes.len(),
        doc.reference.as_deref().unwrap_or("-")
    );
    for n in &doc.nodes {
        let worst = cluster
            .nodes
            .iter()
            .find(|x| x.name == n.name)
            .and_then(|x| x.report.as_ref())
            .and_then(|r| r.doc.findings.first())
            .map(|f| format!("{} {}", crate::report::findings::sev_word(f.severity), f.rule));
        let est = doc.offsets.iter().find(|e| e.node == n.name);
        match &n.error {
            Some(e) => out.push_str(&format!("  {}: not analyzed: {e}\n", n.name)),
            None => out.push_str(&format!(
                "  {}: {}; clock {}\n",
                n.name,
                worst.unwrap_or_else(|| "no finding".into()),
                offset_text(&doc, &n.name, est)
            )),
        }
    }
    for w in &doc.warnings {
        out.push_str(&format!("  note: {w}\n"));
    }
    for c in &doc.chains {
        out.push_str(&format!("  {} -> {}: lag born at {}\n", c.source, c.replica, c.bottleneck.words()));
    }
    out.push_str(&format!("report: {}\n", dir.join("index.html").display()));
    out
}
