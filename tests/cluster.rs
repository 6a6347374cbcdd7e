//! `iosift analyze --node NAME=PATH ...` / `--nodes DIR`: one report per node and the
//! cluster page, on real captures; names checked before any work; a node holding several
//! captures is refused by name while the others are analyzed.

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_iosift");

fn sample(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(rel)
}

fn run(args: &[&str]) -> std::process::Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn fired(findings: &serde_json::Value) -> Vec<String> {
    findings["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap().to_string()).collect()
}

/// Two unrelated real captures as nodes: each node's findings are those of its own analysis,
/// the matrix says so, and the page warns that the captures do not overlap and that no
/// shared event placed their clocks.
#[test]
fn each_node_is_analyzed_as_on_its_own_and_the_page_says_what_was_not_measured() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("cl");
    let (a, b) = (sample("replica_io_bound/capture"), sample("mariadb_relaxed/capture"));
    let o = run(&[
        "analyze",
        "--node",
        &format!("io={}", a.display()),
        "--node",
        &format!("relaxed={}", b.display()),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc = json(&out.join("cluster.json"));
    assert_eq!(doc["cluster_version"], 1);
    let names: Vec<&str> =
        doc["nodes"].as_array().unwrap().iter().map(|n| n["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["io", "relaxed"]);
    // The same findings as `iosift analyze` of the node alone.
    let alone = tmp.path().join("alone");
    assert!(run(&["analyze", a.to_str().unwrap(), "-o", alone.to_str().unwrap(), "-q"]).status.success());
    let node = json(&out.join("nodes/io/findings.json"));
    assert_eq!(fired(&node), fired(&json(&alone.join("findings.json"))));
    assert!(fired(&node).contains(&"fsync_bound_small_transactions".to_string()), "{:?}", fired(&node));
    // The matrix row of that rule: a warning on io, not on relaxed.
    let row = doc["matrix"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["rule"] == "fsync_bound_small_transactions")
        .expect("matrix row");
    let states: Vec<&str> =
        row["cells"].as_array().unwrap().iter().map(|c| c["state"].as_str().unwrap()).collect();
    assert_eq!(states[0], fired_severity(&node, "fsync_bound_small_transactions"));
    assert_ne!(states[1], states[0]);
    // Two days apart, no shared event: said, not hidden.
    let warnings = doc["warnings"].to_string();
    assert!(warnings.contains("overlaps no other node"), "{warnings}");
    assert!(warnings.contains("relaxed shares no event"), "{warnings}");
    assert_eq!(doc["offsets"][0]["method"], "host_clocks");
    assert!(doc["offsets"][0]["uncertainty_s"].is_null());
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        page.contains("href=\"nodes/io/index.html\"") && page.contains("not measured"),
        "links and the unmeasured clock"
    );
    assert!(
        out.join("nodes/relaxed/index.html").is_file()
            && out.join("charts/cluster-device-writes.svg").is_file()
    );
}

fn fired_severity<'a>(findings: &'a serde_json::Value, rule: &str) -> &'a str {
    findings["findings"].as_array().unwrap().iter().find(|f| f["rule"] == rule).unwrap()["severity"]
        .as_str()
        .unwrap()
}

/// Names are folder names given by the user: a path, a hidden name or the same name twice
/// is a usage error before any work, and nothing is written.
#[test]
fn node_names_are_checked_before_any_work() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("cl");
    let a = sample("mariadb_relaxed/capture");
    for (x, y) in [("a", "A"), ("../up", "b"), (".hidden", "b"), ("a/b", "c")] {
        let o = run(&[
            "analyze",
            "--node",
            &format!("{x}={}", a.display()),
            "--node",
            &format!("{y}={}", a.display()),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{x} {y}: {}", String::from_utf8_lossy(&o.stderr));
        assert!(!out.exists());
    }
    let o = run(&["analyze", "--node", &format!("a={}", a.display()), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("at least two nodes"));
}

/// `--nodes DIR`: each subfolder a node, named after it. A node whose folder holds two
/// captures is not merged: it is refused by name, the others are analyzed, and `--strict`
/// makes that exit 1.
#[test]
fn a_node_of_two_captures_is_refused_by_name_and_the_others_analyzed() {
    let tmp = tempfile::tempdir().unwrap();
    let nodes = tmp.path().join("nodes");
    std::fs::create_dir_all(nodes.join("mixed")).unwrap();
    copy_dir(&sample("replica_io_bound/capture"), &nodes.join("mixed/first"));
    copy_dir(&sample("replica_sql_bound/capture"), &nodes.join("mixed/second"));
    copy_dir(&sample("replica_keeps_up/capture"), &nodes.join("good"));
    let out = tmp.path().join("cl");
    let o = run(&["analyze", "--nodes", nodes.to_str().unwrap(), "-o", out.to_str().unwrap(), "--strict"]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("node mixed not analyzed") && stderr.contains("holds 2 captures"), "{stderr}");
    let doc = json(&out.join("cluster.json"));
    let by_name =
        |n: &str| doc["nodes"].as_array().unwrap().iter().find(|x| x["name"] == n).cloned().unwrap();
    assert!(
        by_name("mixed")["report"].is_null()
            && by_name("mixed")["error"].as_str().unwrap().contains("2 captures")
    );
    assert_eq!(by_name("good")["report"], "nodes/good/index.html");
    assert!(!out.join("nodes/mixed").exists());
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// The chain's verdict a truth's `bottleneck` (measured on the servers during the run) means.
fn expected_bottleneck(truth: &str) -> Option<&'static str> {
    match truth {
        "link" => Some("link"),
        "replica_io_thread_flushes" => Some("io_thread"),
        "sql_thread" => Some("sql_thread"),
        "io_thread_unexplained" => Some("receiving"),
        // the replica keeps up: the source's own pace is the only limit (samples/pair_replica_keeps_up)
        "source_production" => Some("keeps_up"),
        _ => None,
    }
}

/// Every real multi-node sample (a truth.json with `nodes`): the cluster analysis recovers the
/// clock offset the truth gives within its own stated uncertainty, and, for a source and its
/// replica, says the lag is born where the servers' own numbers put it.
#[test]
fn every_multi_node_sample_recovers_its_offset_and_where_the_lag_is_born() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let case = e.unwrap().path();
        let Ok(text) = std::fs::read_to_string(case.join("truth.json")) else { continue };
        let truth: serde_json::Value = serde_json::from_str(&text).unwrap();
        let Some(nodes) = truth["nodes"].as_object() else { continue };
        seen += 1;
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("cl");
        let mut args = vec!["analyze".to_string(), "-q".into(), "-o".into(), out.display().to_string()];
        for (name, node) in nodes {
            // A node's folder: the truth's path (pairs), else capture/<node> (Galera).
            let rel = node.as_str().map_or_else(|| format!("capture/{name}"), str::to_string);
            args.push("--node".into());
            args.push(format!("{name}={}", case.join(rel).display()));
        }
        let o = Command::new(BIN).args(&args).output().unwrap();
        let label = case.file_name().unwrap().to_string_lossy().into_owned();
        assert!(o.status.success(), "{label}: {}", String::from_utf8_lossy(&o.stderr));
        let doc = json(&out.join("cluster.json"));
        if let Some(want) = truth["clock_offset_s"]["replica_minus_primary"].as_f64() {
            let e = doc["offsets"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["node"] == "replica")
                .expect("replica offset");
            let (got, u) = (e["offset_s"].as_f64().unwrap(), e["uncertainty_s"].as_f64().expect("measured"));
            assert_eq!(e["reference"], "primary", "{label}");
            assert!((got - want).abs() <= u + 0.05, "{label}: offset {got} +- {u}, truth {want}");
            assert!(u <= 1.5, "{label}: uncertainty {u}");
        }
        // Galera: the nodes whose wsrep_flow_control_sent rose, as the servers counted them.
        if let Some(senders) = truth["flow_control_sent_by"].as_array() {
            assert_eq!(doc["flow_control"]["senders"].as_array().unwrap(), senders, "{label}");
            for e in doc["offsets"].as_array().unwrap() {
                assert_eq!(e["method"], "galera_seqno", "{label}: {e}");
                // One host, one clock: 0 within the stated uncertainty.
                assert!(
                    e["offset_s"].as_f64().unwrap().abs() <= e["uncertainty_s"].as_f64().unwrap(),
                    "{label}: {e}"
                );
            }
            // The node whose profiler spun (the sampler's own figure above perf's 20 % budget)
            // carries its capture-quality note onto the cluster page.
            for c in truth["collector_cpu"].as_array().into_iter().flatten() {
                let args = c["args"].as_str().unwrap_or("");
                let Some(node) = args.split('/').find(|p| p.starts_with("node") && p.len() == 5) else {
                    continue;
                };
                if args.contains("perf record") && c["cpu_pct_max_10s"].as_f64().unwrap_or(0.0) > 20.0 {
                    let w = doc["warnings"].to_string();
                    assert!(
                        w.contains(&format!("{node}: Capture quality: the profiler")),
                        "{label}: {node}: {w}"
                    );
                }
            }
            // The gcache's large-folio finding fires on every node (the truth's `expect_fire`);
            // each cell carries the severity of that node's own analysis (what its bursts cost
            // there: in the capture of issue 41, node3's two burst episodes cost nothing, info).
            for row in
                doc["matrix"].as_array().unwrap().iter().filter(|r| r["rule"] == "mmap_large_folio_writeback")
            {
                let names = doc["nodes"].as_array().unwrap().iter().map(|n| n["name"].as_str().unwrap());
                for (c, name) in row["cells"].as_array().unwrap().iter().zip(names) {
                    let own = json(&out.join("nodes").join(name).join("findings.json"));
                    assert!(
                        fired(&own).contains(&"mmap_large_folio_writeback".to_string()),
                        "{label}: {name}"
                    );
                    assert_eq!(
                        c["state"],
                        fired_severity(&own, "mmap_large_folio_writeback"),
                        "{label}: {name}: {row}"
                    );
                }
            }
        }
        if let Some(b) = truth["bottleneck"].as_str() {
            let chain = &doc["chains"][0];
            assert_eq!(chain["source"], "primary", "{label}");
            assert_eq!(
                chain["bottleneck"].as_str(),
                expected_bottleneck(b),
                "{label}: truth {b}, chain {chain}"
            );
        }
    }
    // Three pairs (flush bound, link shaped, its shifted copy) and the Galera cluster.
    assert!(seen >= 4, "multi-node samples found: {seen}");
}

/// `iosift diff` between two nodes of one cluster: the primary and its replica of a real pair,
/// captured at once; the settings that make the replica's IO thread flush per event differ.
#[test]
fn diff_compares_two_nodes_of_one_cluster() {
    let tmp = tempfile::tempdir().unwrap();
    let case = sample("pair_replica_flush_bound/capture");
    let o = run(&[
        "diff",
        case.join("primary").to_str().unwrap(),
        case.join("replica").to_str().unwrap(),
        "-o",
        tmp.path().join("d").to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("sync_relay_log") && text.contains("10000"),
        "the replica's sync_relay_log=1 against the primary's default"
    );
}

/// Without `--node`, a folder holding a primary's and its replica's captures made on one host
/// at the same time (the real pair) is two captures, told apart by their servers: refused,
/// naming both and the `--node` command, never merged into one report.
#[test]
fn two_servers_captured_at_once_on_one_host_are_never_merged() {
    let tmp = tempfile::tempdir().unwrap();
    let case = sample("pair_replica_flush_bound/capture");
    let o = run(&["analyze", case.to_str().unwrap(), "-o", tmp.path().join("r").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    for want in [
        "holds 2 captures",
        "other database servers",
        "port 3440, server_id 1",
        "port 3441, server_id 2",
        "--node",
    ] {
        assert!(err.contains(want), "{want}: {err}");
    }
    assert!(!tmp.path().join("r").exists());
}
