//! Streaming parse of a large perf script or decoded binlog from disk: lines
//! are fed to the parsers' collectors one by one, so memory depends on the
//! distinct stacks (perf) or the transactions kept (binlog), not on the size
//! of the file.

use crate::bundle::Streamed;
use iosift_parsers::{Data, DiagKind, Diagnostic, Parsed};
use std::io::{BufRead, BufReader, Read};

/// Feeds every line of the file to `feed`; returns the line count and a read error, if any.
fn for_each_line(st: &Streamed, mut feed: impl FnMut(usize, &[u8])) -> (usize, Option<String>) {
    let file = match std::fs::File::open(&st.path) {
        Ok(f) => f,
        Err(e) => return (0, Some(e.to_string())),
    };
    let reader: Box<dyn Read> =
        if st.gz { Box::new(flate2::read::MultiGzDecoder::new(file)) } else { Box::new(file) };
    let mut r = BufReader::with_capacity(1 << 20, reader);
    let mut buf = Vec::with_capacity(4096);
    let mut no = 0;
    loop {
        buf.clear();
        match r.read_until(b'\n', &mut buf) {
            Ok(0) => return (no, None),
            Ok(_) => {
                no += 1;
                let mut line = buf.as_slice();
                if let [head @ .., b'\n'] = line {
                    line = head;
                }
                if let [head @ .., b'\r'] = line {
                    line = head;
                }
                feed(no, line);
            }
            Err(e) => return (no, Some(e.to_string())),
        }
    }
}

/// Parses a streamed file with its format's line collector; returns its format id and
/// the parse. The bundle streams only formats that have a collector ([`STREAMED`]);
/// any other id is reported, never parsed as something else.
pub fn parse(st: &Streamed) -> Option<(&'static str, Parsed<Data>)> {
    let (parsed, err, lines): (Parsed<Data>, Option<String>, usize) = match st.format {
        "perf_script" => {
            let mut c = iosift_parsers::perf_script::Collector::new();
            let (n, err) = for_each_line(st, |no, l| c.feed_line(no, l));
            (c.finish().map(|v| Data::PerfScript(Box::new(v))), err, n)
        }
        "mysqlbinlog" => {
            let mut c = iosift_parsers::mysqlbinlog::Collector::new();
            let (n, err) = for_each_line(st, |no, l| c.feed_line(no, l));
            (c.finish().map(Data::Mysqlbinlog), err, n)
        }
        _ => return None,
    };
    let mut parsed = parsed;
    parsed.lines = parsed.lines.max(lines);
    if let Some(e) = err {
        parsed.diagnostics.push(Diagnostic::new(
            lines + 1,
            DiagKind::Truncated,
            format!("reading stopped: {e}"),
        ));
    }
    Some((st.format, parsed))
}

/// Formats parsed line by line from disk when large (they have a line collector).
pub const STREAMED: [&str; 2] = ["perf_script", "mysqlbinlog"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streaming_equals_in_memory_parse() {
        let path = std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/samples/mariadb_fsync_durable/capture/perf-profile.script.txt.gz"
        ));
        let st = Streamed { path: path.clone(), gz: true, format: "perf_script" };
        let (id, streamed) = parse(&st).unwrap();
        assert_eq!(id, "perf_script");
        let raw = std::fs::read(&path).unwrap();
        let bytes = iosift_parsers::common::decode::maybe_gunzip(&raw, 1 << 30).unwrap();
        let whole = iosift_parsers::by_id("perf_script").unwrap().parse(&bytes);
        let (Data::PerfScript(a), Data::PerfScript(b)) = (&streamed.value, &whole.value) else { panic!() };
        assert!(a.samples > 500, "{}", a.samples);
        assert_eq!(a.samples, b.samples);
        assert_eq!(a.collapsed, b.collapsed);
        assert_eq!(streamed.lines, whole.lines);
        assert_eq!(streamed.diagnostics, whole.diagnostics);
    }
}
