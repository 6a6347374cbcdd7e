//! Fuzz target: bundle discovery on hostile archives. The first byte picks
//! the file name (`.tar`, `.zip`, `.gz`, `.tar.gz`), the rest is written to a
//! temp file of that name and loaded with small limits. Loading must return a
//! bundle (with problems) or a limit error, never panic, never write.
//!
//! It compiles the root crate's `src/bundle/` sources directly (`#[path]`)
//! instead of depending on the `iosift` crate, whose polars dependency would
//! make every instrumented build take a very long time on a small machine;
//! the code fuzzed is the same `iosift::bundle::load`.

#![no_main]

#[allow(dead_code, unused_imports)]
#[path = "../../src/bundle/mod.rs"]
mod bundle;

use bundle::{BundleError, Limits, load};
use libfuzzer_sys::fuzz_target;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else { return };
    let ext = ["tar", "zip", "gz", "tar.gz"][usize::from(sel % 4)];
    let Ok(dir) = tempfile::tempdir() else { return };
    let path = dir.path().join(format!("input.{ext}"));
    let Ok(mut f) = std::fs::File::create(&path) else { return };
    if f.write_all(rest).is_err() {
        return;
    }
    drop(f);
    let limits = Limits { max_total_bytes: 256 * 1024, max_files: 64, max_depth: 3 };
    match load(std::slice::from_ref(&path), &limits) {
        Ok(b) => {
            let total: usize = b.files.iter().map(|f| f.data.len()).sum();
            assert!(total as u64 <= limits.max_total_bytes);
            assert!(b.files.len() <= limits.max_files);
        }
        Err(BundleError::Limit(m)) => assert!(m.contains("raise with --max-"), "{m}"),
        Err(BundleError::Unreadable { .. }) => {}
    }
    // Nothing may have been written beside the input (links, `../` paths).
    let n = std::fs::read_dir(dir.path()).map(|d| d.count()).unwrap_or(1);
    assert_eq!(n, 1, "bundle loading wrote into the input's folder");
});
