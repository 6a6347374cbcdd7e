//! Fuzz target: the compressed-stream decoders of `src/bundle/` (gzip, zstd, xz,
//! bzip2), their dictionary and window checks, and what they decode to (a tar,
//! a zip, text). The first byte picks the codec; its magic bytes are put in front
//! when the input does not start with them, so the fuzzer spends its time inside
//! the stream rather than finding the magic. What must hold: `archive_load.rs`.
//!
//! Run: `cargo +nightly fuzz run archive_streams corpus/archive_streams -- -max_total_time=600`.

#![no_main]

#[path = "archive_load.rs"]
mod archive_load;
#[allow(dead_code, unused_imports)]
#[path = "../../src/bundle/mod.rs"]
mod bundle;

use archive_load::{load_checked, outdir};
use libfuzzer_sys::fuzz_target;

/// Name and magic of each codec (bzip2's with the block magic its sniffer wants).
const CODECS: [(&str, &[u8]); 4] =
    [("gz", b"\x1f\x8b"), ("zst", b"\x28\xB5\x2F\xFD"), ("xz", b"\xFD7zXZ\x00"), ("bz2", b"BZh91AY&SY")];

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else { return };
    let (ext, magic) = CODECS[usize::from(sel) % CODECS.len()];
    let mut bytes = Vec::with_capacity(magic.len() + rest.len());
    if !rest.starts_with(&magic[..magic.len().min(3)]) {
        bytes.extend_from_slice(magic);
    }
    bytes.extend_from_slice(rest);
    load_checked(ext, &bytes);
});
