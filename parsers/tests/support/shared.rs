//! The one place tests find `shared/`: the reference bundles, corpus and field files
//! that live beside the repository (`../shared`) or wherever `IOSIFT_SHARED` points.
//!
//! The project must pass its tests alone, on a clean clone with nothing beside it, so a
//! test that needs `shared/` calls [`available`] (or the `need_shared!` macro) first:
//! without the folder it prints one visible `skipped: ...` line and returns early.
//! The line goes straight to the process's stderr, past the test harness's capture,
//! so `cargo test` shows it.
//!
//! Included by path (`#[path = ".../support/shared.rs"]`) into the test crates of both
//! workspace members, so it depends on nothing but `std`.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};

/// The repository's root: the nearest folder above this crate holding a `Cargo.toml`
/// with a `[workspace]` table (the crate's own folder when none is found).
pub fn repo_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .find(|d| std::fs::read_to_string(d.join("Cargo.toml")).is_ok_and(|t| t.contains("[workspace]")))
        .unwrap_or(here)
        .to_path_buf()
}

/// The shared folder: `$IOSIFT_SHARED` when set, else `shared/` beside the repository.
///
/// Every test that looks for the folder comes through here; with `$IOSIFT_SHARED_ASKED`
/// set, the asking test's name is appended to that file (see [`note_asker`]).
pub fn root() -> PathBuf {
    note_asker();
    match std::env::var_os("IOSIFT_SHARED") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => repo_root().parent().map(|p| p.join("shared")).unwrap_or_else(|| PathBuf::from("../shared")),
    }
}

/// Appends the running test's name (its thread's name under the harness) to the file
/// `$IOSIFT_SHARED_ASKED`, or `*` when the caller runs on a thread with no test's name.
///
/// CI (`.ci/run`) runs the whole suite once on a clean clone with nothing beside it,
/// recording here which tests looked for the shared folder, then runs only those again
/// with the folder: the others cannot tell the two runs apart.
fn note_asker() {
    let Some(file) = std::env::var_os("IOSIFT_SHARED_ASKED").filter(|f| !f.is_empty()) else {
        return;
    };
    let t = std::thread::current();
    let name = match t.name() {
        Some(n) if n != "main" => n,
        _ => "*",
    };
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(file) {
        let _ = writeln!(f, "{name}");
    }
}

/// `rel` inside the shared folder.
pub fn path(rel: &str) -> PathBuf {
    root().join(rel)
}

/// True when the shared folder exists; otherwise prints the visible skip line.
pub fn available() -> bool {
    let r = root();
    if r.is_dir() {
        return true;
    }
    skip(&format!("{} not found", r.display()));
    false
}

/// True when `rel` exists inside the shared folder; otherwise prints the visible skip line.
pub fn has(rel: &str) -> bool {
    let p = path(rel);
    if p.exists() {
        return true;
    }
    skip(&format!("{} not found", p.display()));
    false
}

/// Prints `skipped: <test>: <why>` on the real stderr (not captured by the harness).
pub fn skip(why: &str) {
    let t = std::thread::current();
    let name = t.name().unwrap_or("test");
    let _ = writeln!(
        std::io::stderr(),
        "skipped: {name}: {why} (the shared folder: ../shared or $IOSIFT_SHARED)"
    );
}

/// Returns from the calling test, after one visible skip line, when the shared folder
/// is absent.
#[allow(unused_macros)]
macro_rules! need_shared {
    () => {
        if !support::available() {
            return;
        }
    };
}
