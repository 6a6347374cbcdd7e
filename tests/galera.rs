//! The Galera sample (issue 38, seed 000 reproduced): three MariaDB Galera nodes on one
//! host, each with its gcache on XFS over its own loop device, a write load on node1, a
//! collector on every node. Each node's capture is analyzed alone: the large-folio writeback
//! finding names that node's gcache and its Galera threads, the Galera view reads the
//! node's own flow-control values exactly as mysqladmin printed them, and no page carries a
//! capture-quality note (the collector stayed under its budgets: issue 41).

use iosift::analyze::analyze;
use iosift::bundle::{Limits, load};
use iosift::model::Report;
use iosift::pipeline::Options;
use iosift::table::columns::{Col, GaleraMetric};
use iosift_parsers::common::Format;
use iosift_parsers::mysqladmin_ext::{Fmt, MysqladminExt};
use serde_json::Value;
use std::path::{Path, PathBuf};

const NODES: [&str; 3] = ["node1", "node2", "node3"];

fn case() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("samples/galera_gcache_xfs")
}

fn truth() -> Value {
    serde_json::from_str(&std::fs::read_to_string(case().join("truth.json")).unwrap()).unwrap()
}

fn report(node: &str) -> Report {
    let b = load(&[case().join("capture").join(node)], &Limits::default()).expect("node capture loads");
    analyze(&b, &Options::default())
}

/// The node's `mariadb-admin ext -i1` file, parsed as the parsers crate does.
fn mysqladmin(node: &str) -> MysqladminExt {
    let dir = case().join("capture").join(node);
    let path = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().contains("-mysqladmin"))
        .expect("a mysqladmin file");
    Fmt::parse(&read(&path)).value
}

fn read(path: &Path) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap();
    if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(raw.as_slice()), &mut out).unwrap();
        out
    } else {
        raw
    }
}

#[test]
fn every_node_fires_the_large_folio_finding_on_its_own_gcache_with_galera_threads() {
    let truth = truth();
    for node in NODES {
        let r = report(node);
        let f = r
            .doc
            .findings
            .iter()
            .find(|f| f.rule == "mmap_large_folio_writeback")
            .unwrap_or_else(|| panic!("{node}: no large-folio finding: {:?}", r.doc.checked));
        let file = f.metrics["mapped_file"].value.as_str().unwrap_or_default().to_string();
        assert!(file.ends_with(&format!("/{node}/gcache/galera.cache")), "{node}: {file}");
        // The device analysed is this node's gcache device (its own loop device).
        let dev = truth["nodes"][node]["gcache_device"].as_str().unwrap();
        assert_eq!(r.main_device.as_deref(), Some(dev), "{node}");
        assert_eq!(f.metrics["evidence_large_folios"].value, "strong", "{node}: {}", f.summary);
        // The dirtiers are this node's threads, Galera's own among them, by name.
        let pid = truth["nodes"][node]["pid"].as_u64().unwrap() as u32;
        let tids: Vec<u32> = truth["nodes"][node]["dirtiers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["tid"].as_u64().unwrap() as u32)
            .collect();
        assert!(!f.actors.writers.is_empty(), "{node}");
        for w in &f.actors.writers {
            assert!(
                tids.contains(&w.tid.unwrap()) || w.tid == Some(pid),
                "{node}: {w:?} is not a thread of {pid}"
            );
        }
        let top = &f.actors.writers[0];
        assert_eq!(top.tid, truth["nodes"][node]["dirtiers"][0]["tid"].as_u64().map(|t| t as u32), "{node}");
        assert!(
            top.note.as_deref().is_some_and(|n| n.starts_with("Galera provider thread")),
            "{node}: {top:?}"
        );
        assert!(f.summary.contains("Galera provider thread"), "{node}: {}", f.summary);
        // The periodic bursts of the same device: dirtied by this node's threads only (the
        // other nodes' receivers dirty the same volume between bursts, on their own devices).
        if let Some(p) = r.doc.findings.iter().find(|f| f.rule == "periodic_write_bursts") {
            for w in p.actors.writers.iter().filter(|w| w.measured) {
                assert!(tids.contains(&w.tid.unwrap()), "{node}: periodic writer {w:?} is not this node's");
            }
        }
    }
}

#[test]
fn flow_control_values_are_the_raw_mysqladmin_values() {
    let truth = truth();
    for node in NODES {
        let r = report(node);
        let raw = mysqladmin(node);
        let g = r.doc.galera.as_ref().unwrap_or_else(|| panic!("{node}: no Galera view"));
        for (key, got, m) in [
            ("wsrep_flow_control_sent", g.fc_sent, GaleraMetric::FcSent),
            ("wsrep_flow_control_recv", g.fc_recv, GaleraMetric::FcRecv),
            ("wsrep_last_committed", g.last_committed, GaleraMetric::LastCommitted),
        ] {
            let series: Vec<f64> = raw.series(key).into_iter().map(|(_, v)| v).collect();
            assert!(!series.is_empty(), "{node}: {key} missing");
            assert_eq!(got, Some((series[0], *series.last().unwrap())), "{node}: {key}");
            // Every value of the timeline column is one mysqladmin printed.
            let col = r.timeline.get(&Col::Galera(m)).unwrap();
            for v in col.iter().flatten() {
                assert!(series.contains(&v), "{node}: {key} {v} was not read");
            }
        }
        let queue: Vec<f64> = raw.series("wsrep_local_recv_queue").into_iter().map(|(_, v)| v).collect();
        assert_eq!(g.recv_queue_max, queue.iter().copied().reduce(f64::max), "{node}");
        // The node that sent flow control is the node whose own counter rose, as the sampler saw.
        let sent = truth["nodes"][node]["flow_control"]["sent_delta"].as_f64().unwrap();
        assert_eq!(g.sent_flow_control(), sent > 0.0, "{node}: sent {} vs truth {sent}", g.sent());
        assert_eq!(g.node_name.as_deref(), Some(node));
    }
}

#[test]
fn each_node_page_says_whether_it_sent_flow_control_with_its_chart() {
    let truth = truth();
    for node in NODES {
        let r = report(node);
        let dir = tempfile::tempdir().unwrap();
        iosift::report::write_report(&r, dir.path()).unwrap();
        let html = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
        assert!(html.contains("id=\"galera\""), "{node}: no Galera section");
        assert!(dir.path().join("charts/galera.png").is_file(), "{node}: no Galera chart");
        let sent = truth["nodes"][node]["flow_control"]["sent_delta"].as_f64().unwrap();
        let words = if sent > 0.0 { "it paused the cluster" } else { "another node paused the cluster" };
        assert!(html.contains(words), "{node}: the page does not say {words:?}");
        let summary = iosift::report::terminal_summary(&r, dir.path());
        assert!(summary.contains(&format!("galera: This node ({node})")), "{summary}");
        // Issue 41: the node's collector (perf system-wide) stayed under its budgets, so the
        // page carries no capture-quality note (tests/collector.rs checks the record itself).
        let c = r.doc.bundle.collector.as_ref().expect("the capture records the collector's cost");
        assert!(c.note.is_none() && c.spun_from.is_none(), "{node}: {:?}", c.note);
        assert!(!html.contains("Capture quality"), "{node}: a capture-quality note on the page");
        assert!(!summary.contains("Capture quality"), "{node}: {summary}");
    }
}
