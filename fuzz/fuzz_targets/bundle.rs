//! Fuzz target: bundle discovery on hostile archives. The first byte picks
//! the file name (`.tar`, `.zip`, `.gz`, `.tar.gz`, `.zst`, `.tar.zst`, `.xz`,
//! `.tar.xz`, `.bz2`, `.tar.bz2`), the rest is loaded as that file with small
//! limits (`archive_load.rs` says what must hold).
//!
//! It compiles the root crate's `src/bundle/` sources directly (`#[path]`)
//! instead of depending on the `iosift` crate, whose polars dependency would
//! make every instrumented build take a very long time on a small machine;
//! the code fuzzed is the same `iosift::bundle::load`. Seeds: `fuzz/seed_archives.sh`.
//!
//! Run: `cargo +nightly fuzz run bundle corpus/bundle -- -max_total_time=600`.

#![no_main]

#[path = "archive_load.rs"]
mod archive_load;
#[allow(dead_code, unused_imports)]
#[path = "../../src/bundle/mod.rs"]
mod bundle;

use archive_load::{load_checked, outdir};
use libfuzzer_sys::fuzz_target;

/// The names the first byte picks from.
const NAMES: [&str; 10] = ["tar", "zip", "gz", "tar.gz", "zst", "tar.zst", "xz", "tar.xz", "bz2", "tar.bz2"];

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else { return };
    load_checked(NAMES[usize::from(sel) % NAMES.len()], rest);
});
