//! Fuzz target: arbitrary bytes through content detection and through
//! EVERY format's sniffer and parser directly (not only the one `detect`
//! picks), so a parser is exercised on text that looks like another format.
//!
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run parse_all -- -max_total_time=600`.

#![no_main]

use iosift_parsers::{FORMATS, detect};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(d) = detect(data) {
        let s = d.parsed.value.summary();
        let _ = (s.records(), s.time_range());
    }
    for f in FORMATS {
        let _ = f.sniff(data);
        let p = f.parse(data);
        let s = p.value.summary();
        let _ = (s.records(), s.time_range(), s.variant());
        assert!(
            p.skipped_lines <= p.lines.max(1) + 1,
            "{}: skipped {} of {} lines",
            f.id,
            p.skipped_lines,
            p.lines
        );
    }
});
