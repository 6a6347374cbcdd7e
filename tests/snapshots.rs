//! Snapshots of what the analysis produces, so a refactoring of the middle
//! (sources, timeline, rules) is checked: for every `samples/*/capture` and
//! every `../shared/bundles/*` capture, `findings.json` (without the version)
//! and the timeline's column list (name, unit, source file) are compared with
//! `tests/snapshots/analysis/<name>.json`.
//!
//! A change is reviewed, not silently accepted: run with
//! `IOSIFT_UPDATE_SNAPSHOTS=1` to rewrite the stored files, then read the
//! `git diff` and say in the commit why each change is right. On a mismatch
//! the new output is written to `target/snapshots-new/<name>.json`.

use crate::common;

use iosift::analyze::analyze;
use iosift::bundle::{Limits, load};
use iosift::pipeline::Options;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The snapshot of one capture folder.
fn snapshot(dir: &Path) -> Value {
    let b = load(&[dir.to_path_buf()], &Limits::default()).expect("bundle loads");
    let r = analyze(&b, &Options::default());
    let mut doc = serde_json::to_value(&r.doc).expect("findings.json serialises");
    if let Some(o) = doc.as_object_mut() {
        o.remove("iosift_version");
    }
    let columns: Vec<Value> = r
        .timeline
        .iter()
        .map(|(col, s)| json!([col.name(), s.unit.as_str(), s.source, s.values.iter().flatten().count()]))
        .collect();
    json!({ "findings": doc, "timeline_columns": columns })
}

/// Compares (or, with `IOSIFT_UPDATE_SNAPSHOTS=1`, stores) one snapshot; returns the mismatch.
fn check(name: &str, dir: &Path) -> Option<String> {
    let got = snapshot(dir);
    let text = serde_json::to_string_pretty(&got).unwrap() + "\n";
    let stored = root().join("tests/snapshots/analysis").join(format!("{name}.json"));
    if std::env::var_os("IOSIFT_UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(stored.parent().unwrap()).unwrap();
        std::fs::write(&stored, &text).unwrap();
        return None;
    }
    let want = match std::fs::read_to_string(&stored) {
        Ok(w) => w,
        Err(e) => return Some(format!("{name}: no stored snapshot {} ({e})", stored.display())),
    };
    if want == text {
        return None;
    }
    let new = root().join("target/snapshots-new");
    std::fs::create_dir_all(&new).unwrap();
    let path = new.join(format!("{name}.json"));
    std::fs::write(&path, &text).unwrap();
    let first = want
        .lines()
        .zip(text.lines())
        .enumerate()
        .find(|(_, (a, b))| a != b)
        .map(|(i, (a, b))| format!("line {}:\n  stored: {a}\n  now:    {b}", i + 1))
        .unwrap_or_else(|| {
            format!("lengths differ ({} vs {} lines)", want.lines().count(), text.lines().count())
        });
    Some(format!("{name}: snapshot changed ({first}); new output in {}", path.display()))
}

#[test]
fn sample_snapshots_unchanged() {
    let cases = common::sample_snapshot_cases();
    assert!(cases.len() >= 30, "samples/*/capture found: {}", cases.len());
    // One case per core: the samples are analyzed independently.
    use rayon::prelude::*;
    let bad: Vec<String> = cases.par_iter().filter_map(|(n, d)| check(n, d)).collect();
    assert!(bad.is_empty(), "{} of {} snapshots changed:\n{}", bad.len(), cases.len(), bad.join("\n"));
}

#[test]
fn shared_bundle_snapshots_unchanged() {
    let bundles = common::support::path("bundles");
    if !bundles.is_dir() {
        common::support::skip(&format!("{} not found", bundles.display()));
        return;
    }
    let mut cases: Vec<(String, PathBuf)> = std::fs::read_dir(&bundles)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && p.file_name().is_some_and(|n| n != "tools"))
        .map(|p| (format!("shared_{}", p.file_name().unwrap().to_string_lossy()), p))
        .collect();
    cases.sort();
    assert!(cases.len() >= 4, "bundles found: {}", cases.len());
    let bad: Vec<String> = cases.iter().filter_map(|(n, d)| check(n, d)).collect();
    assert!(bad.is_empty(), "{} of {} snapshots changed:\n{}", bad.len(), cases.len(), bad.join("\n"));
}
