//! `dd_summary`: the summary `dd` prints on stderr, and the command line a
//! capture note may quote.
//!
//! Real samples (`bundles/s3_buffered_dd/dd.stderr`, GNU coreutils 9.1, `LC_ALL=C`;
//! `samples/ext4_dioread_nolock_derived/capture/dd.txt`):
//!
//! ```text
//! 300+0 records in
//! 300+0 records out
//! 3145728000 bytes (3.1 GB, 2.9 GiB) copied, 12.4194 s, 253 MB/s
//! [ perf record: Woken up 1 times to write data ]
//! $ dd if=/dev/zero of=/data/badfile bs=10M count=1000
//! ```
//!
//! `N+M records in/out` counts full and partial blocks; the byte line gives
//! the bytes, the elapsed seconds and dd's rounded rate (coreutils < 8.24
//! prints `(3.1 GB) copied, 12.4194 s, 253 MB/s`; `status=progress` lines
//! look alike). Lines of a tool run under the same stderr (`[ perf record:
//! ...]`) and `dd: ...` error messages are kept as messages.

use crate::common::lines::count_lines;
use crate::common::number::parse_f64;
use crate::common::scrub::Identifiers;
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};

/// One dd run (its `records in`/`records out`/bytes lines).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DdRun {
    /// 1-based line of the first line of the run.
    pub line: usize,
    /// Full and partial blocks read.
    pub records_in: Option<(u64, u64)>,
    /// Full and partial blocks written.
    pub records_out: Option<(u64, u64)>,
    /// Bytes copied.
    pub bytes: Option<u64>,
    /// Elapsed seconds.
    pub seconds: Option<f64>,
    /// dd's own rate text (`253 MB/s`).
    pub rate: Option<String>,
}

impl DdRun {
    /// Bytes per second computed from bytes and seconds (more precise than dd's rounded rate).
    pub fn bytes_per_s(&self) -> Option<f64> {
        match (self.bytes, self.seconds) {
            (Some(b), Some(s)) if s > 0.0 => Some(b as f64 / s),
            _ => None,
        }
    }
}

/// A parsed dd stderr / note.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DdSummary {
    /// Runs in order.
    pub runs: Vec<DdRun>,
    /// Quoted command lines (`dd if=/dev/zero of=/data/badfile bs=10M count=1000`).
    pub commands: Vec<String>,
    /// Other tool messages on the same stream (`dd: error writing ...`, `[ perf record: ...]`), with lines.
    pub messages: Vec<(usize, String)>,
}

fn records(t: &str, what: &str) -> Option<(u64, u64)> {
    let n = t.strip_suffix(what)?.trim();
    let (a, b) = n.split_once('+')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// `3145728000 bytes (3.1 GB, 2.9 GiB) copied, 12.4194 s, 253 MB/s`.
fn bytes_line(t: &str) -> Option<(u64, Option<f64>, Option<String>)> {
    let (n, rest) = t.split_once(' ')?;
    let bytes: u64 = n.parse().ok()?;
    if !(rest.starts_with("bytes") || rest.starts_with("byte")) || !rest.contains("copied") {
        return None;
    }
    let after = rest.split_once("copied,")?.1;
    let mut parts = after.split(',');
    let secs = parts.next().and_then(|s| s.trim().strip_suffix(" s")).and_then(parse_f64);
    let rate = parts.next().map(|s| s.trim().to_string());
    Some((bytes, secs, rate))
}

fn command(t: &str) -> Option<&str> {
    let c = t.strip_prefix("$ ").or_else(|| t.strip_prefix("# ")).unwrap_or(t).trim();
    (c.starts_with("dd ") && c.contains('=')).then_some(c)
}

/// The reader.
#[derive(Debug, Clone, Copy)]
pub struct Fmt;

impl Format for Fmt {
    type Output = DdSummary;
    const ID: &'static str = "dd_summary";
    const SAMPLE: &'static str = "3145728000 bytes (3.1 GB, 2.9 GiB) copied, 12.4194 s, 253 MB/s";
    const DESCRIPTION: &'static str =
        "dd's stderr summary (records in/out, bytes, seconds, rate) or a quoted dd command";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let Some(first) = Lines::new(head).find(|l| !l.is_blank()) else { return Sniff::No };
        let t = first.text();
        let t = t.trim();
        if records(t, "records in").is_some() || bytes_line(t).is_some() || command(t).is_some() {
            Sniff::Yes
        } else {
            Sniff::No
        }
    }

    fn parse(input: &[u8]) -> Parsed<DdSummary> {
        let mut out = DdSummary::default();
        let mut d = Diags::default();
        for (l, text) in Lines::new(input).content() {
            // status=progress rewrites its line with `\r`: keep the last state.
            let t = text.rsplit('\r').next().unwrap_or("").trim();
            if let Some(r) = records(t, "records in") {
                out.runs.push(DdRun { line: l.no, records_in: Some(r), ..DdRun::default() });
            } else if let Some(r) = records(t, "records out") {
                match out.runs.last_mut() {
                    Some(run) if run.records_out.is_none() => run.records_out = Some(r),
                    _ => out.runs.push(DdRun { line: l.no, records_out: Some(r), ..DdRun::default() }),
                }
            } else if let Some((b, s, rate)) = bytes_line(t) {
                match out.runs.last_mut() {
                    Some(run) if run.bytes.is_none() => {
                        run.bytes = Some(b);
                        run.seconds = s;
                        run.rate = rate;
                    }
                    _ => out.runs.push(DdRun {
                        line: l.no,
                        bytes: Some(b),
                        seconds: s,
                        rate,
                        ..DdRun::default()
                    }),
                }
            } else if let Some(c) = command(t) {
                out.commands.push(c.to_string());
            } else if t.starts_with("dd: ") || t.starts_with("[ perf ") {
                out.messages.push((l.no, t.to_string()));
            } else {
                d.skip(l.no, DiagKind::Malformed, t);
            }
        }
        d.finish(out, count_lines(input))
    }
}

impl Summary for DdSummary {
    fn records(&self) -> usize {
        self.runs.len() + self.commands.len()
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        v.insert("layout", if self.runs.is_empty() { "dd command" } else { "dd stderr" }.to_string());
        if let Some(r) = self.runs.first() {
            if let Some(b) = r.bytes {
                v.insert("bytes", b.to_string());
            }
            if let Some(x) = r.bytes_per_s() {
                v.insert("bytes_per_s", format!("{x:.0}"));
            }
        }
        v
    }

    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_and_commands() {
        let s = b"512+0 records in\n512+0 records out\n536870912 bytes (537 MB, 512 MiB) copied, 0.814796 s, 659 MB/s\n";
        assert_eq!(Fmt::sniff(s), Sniff::Yes);
        let p = Fmt::parse(s);
        assert!(p.diagnostics.is_empty());
        let r = &p.value.runs[0];
        assert_eq!(r.records_out, Some((512, 0)));
        assert_eq!(r.bytes, Some(536870912));
        assert_eq!(r.seconds, Some(0.814796));
        assert_eq!(r.rate.as_deref(), Some("659 MB/s"));
        let p = Fmt::parse(b"$ dd if=/dev/zero of=/data/badfile bs=10M count=1000\n");
        assert_eq!(p.value.commands.len(), 1);
        assert_eq!(Fmt::sniff(b"dd\n"), Sniff::No);
        let _ = Fmt::parse(b"+ records in\n\xff bytes copied,\n");
    }
}
