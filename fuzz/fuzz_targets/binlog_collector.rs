//! Fuzz target: arbitrary bytes fed line by line to the streaming
//! `mysqlbinlog` collector, then finished.

#![no_main]

use iosift_parsers::mysqlbinlog::Collector;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut c = Collector::new();
    for (i, line) in data.split(|&b| b == b'\n').enumerate() {
        c.feed_line(i + 1, line);
    }
    let p = c.finish();
    let _ = p.diagnostics.len();
});
