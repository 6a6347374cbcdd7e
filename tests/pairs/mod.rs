//! The primary/replica pair samples of issue 38 (`samples/pair_*`, made by `samples/tools/run_pair.sh`): their
//! truth.json against the raw capture files ([`truth`]) and the shifted copy against the original, stamp by stamp
//! ([`shift`]). Each reads the files with its own small parsers, independent of the Python that wrote them.

mod shift;
mod truth;

use std::io::Read;
use std::path::{Path, PathBuf};

/// The three pair samples, each with the offset its replica capture's clock has (seconds, replica minus primary).
const PAIRS: &[(&str, i64)] = &[
    ("pair_replica_flush_bound", 0),
    ("pair_link_shaped", 0),
    ("pair_link_shaped_shift37", 37),
    ("pair_replica_keeps_up", 0),
];

fn samples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("samples")
}

/// A file's text, gunzipped when it ends in `.gz`.
fn text(path: &Path) -> String {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if path.extension().is_some_and(|x| x == "gz") {
        let mut s = String::new();
        flate2::read::GzDecoder::new(&raw[..])
            .read_to_string(&mut s)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        s
    } else {
        String::from_utf8_lossy(&raw).into_owned()
    }
}

/// The one file of `dir` whose name contains `part` (`-master-status`, `pidstat-`).
fn find(dir: &Path, part: &str) -> PathBuf {
    let mut hits: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.contains(part)))
        .collect();
    hits.sort();
    assert_eq!(hits.len(), 1, "{}: one file named *{part}*: {hits:?}", dir.display());
    hits.remove(0)
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&text(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
