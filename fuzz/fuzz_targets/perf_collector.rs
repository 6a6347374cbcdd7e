//! Fuzz target: arbitrary bytes fed line by line to the streaming
//! `perf script` collector (the path the root crate uses for big and
//! gzip-streamed perf output), then finished.

#![no_main]

use iosift_parsers::perf_script::Collector;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut c = Collector::new();
    for (i, line) in data.split(|&b| b == b'\n').enumerate() {
        c.feed_line(i + 1, line);
    }
    let p = c.finish();
    let _ = p.diagnostics.len();
});
