//! The column catalogue (`src/table/columns.rs`) against what the analysis
//! really produces: every timeline column of every stored snapshot
//! (tests/snapshots/analysis) is a catalogue column whose name round-trips,
//! and `docs/columns.md` is the catalogue as generated.

use iosift::table::Col;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_snapshot_column_is_in_the_catalogue() {
    let mut seen = 0;
    let mut unknown = Vec::new();
    for e in std::fs::read_dir(root().join("tests/snapshots/analysis")).unwrap().flatten() {
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(e.path()).unwrap()).unwrap();
        for c in v["timeline_columns"].as_array().unwrap() {
            let (name, unit) = (c[0].as_str().unwrap(), c[1].as_str().unwrap());
            seen += 1;
            match Col::parse(name) {
                Some(col) if col.name() == name && col.unit() == unit => {}
                other => unknown.push(format!("{name} ({unit}): {other:?}")),
            }
        }
    }
    assert!(seen > 1000, "columns seen: {seen}");
    assert!(unknown.is_empty(), "not in the catalogue:\n{}", unknown.join("\n"));
}

#[test]
fn docs_columns_md_is_generated() {
    let path = root().join("docs/columns.md");
    let want = iosift::table::columns::markdown();
    if std::env::var_os("IOSIFT_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/columns.md is stale: run IOSIFT_UPDATE_DOCS=1 cargo test --test suite columns_doc"
    );
}
