//! Fuzz target: the streamed line reader (`src/source/stream.rs`, `FileSource`) and
//! the streamed parse of every streamed format. The first byte picks the format, the
//! second the read size (1..=256 bytes, so lines are cut at every kind of boundary),
//! the third the line cap (16..=4096 bytes, so long lines are skipped often); the rest
//! is written to a temp file (gzip-compressed when bit 7 of the first byte is set) and
//! read. What must hold: no panic; line numbers go up (a skipped line keeps its
//! number); no line handed on is longer than the cap; the streamed parse finishes
//! (issue 33).
//!
//! It compiles `src/bundle/` and `src/source/stream.rs` directly (`#[path]`), as the
//! `bundle` target does, instead of linking the polars-heavy root crate.
//!
//! Run: `cargo +nightly fuzz run stream_reader -- -max_total_time=600`.

#![no_main]

#[path = "archive_load.rs"]
#[allow(dead_code)]
mod archive_load;
#[allow(dead_code, unused_imports)]
#[path = "../../src/bundle/mod.rs"]
mod bundle;
#[allow(dead_code, unused_imports)]
#[path = "../../src/source/stream.rs"]
mod stream;

use archive_load::outdir;
use iosift_parsers::common::LineSource;
use libfuzzer_sys::fuzz_target;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let [sel, chunk, cap, rest @ ..] = data else { return };
    let streamed: Vec<&'static str> =
        iosift_parsers::FORMATS.iter().filter(|f| f.extra.stream.is_some()).map(|f| f.id).collect();
    let format = streamed[usize::from(sel & 0x7f) % streamed.len()];
    let gz = sel & 0x80 != 0;
    let Ok(dir) = tempfile::tempdir() else { return };
    let path = dir.path().join("input");
    let bytes = if gz {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        if e.write_all(rest).is_err() {
            return;
        }
        let Ok(b) = e.finish() else { return };
        b
    } else {
        rest.to_vec()
    };
    if std::fs::write(&path, &bytes).is_err() {
        return;
    }
    let st = bundle::Streamed { path, gz, format, len: bytes.len() as u64 };
    let max_line = (usize::from(*cap) + 1) * 16;
    let Ok(mut src) = stream::FileSource::with_limits(&st, usize::from(*chunk) + 1, max_line) else { return };
    let mut last = 0;
    while let Some(l) = src.next_line() {
        // A line over the cap is skipped but keeps its number, so numbers may jump.
        assert!(l.line.no > last, "line numbers go up");
        assert!(l.line.bytes.len() <= max_line, "a line past the cap was handed on");
        last = l.line.no;
    }
    let _ = stream::parse(&st);
});
