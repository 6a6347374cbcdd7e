//! `perf_record_log`: what `perf record` prints on stderr when it stops.
//!
//! Real sample (`bundles/s1_mmap_writeback/perf-trace.record.log`, perf 6.1):
//!
//! ```text
//! [ perf record: Woken up 127 times to write data ]
//! [ perf record: Captured and wrote 31.924 MB /srv/captures/s1_mmap_writeback/perf-trace.data (245176 samples) ]
//! ```
//!
//! The sample count tells whether the `perf script` next to it is complete;
//! `Processed N events and lost M chunks!` / `Check IO/CPU overload!`
//! warnings mean perf dropped events. Other lines (warnings, errors) are
//! kept as messages.

use crate::common::lines::count_lines;
use crate::common::scrub::Identifiers;
use crate::common::{Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};

/// A parsed `perf record` log.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PerfRecordLog {
    /// `Woken up N times`.
    pub wakeups: Option<u64>,
    /// `Captured and wrote X MB`.
    pub written_mb: Option<f64>,
    /// The perf.data path.
    pub data_path: Option<String>,
    /// `(N samples)`.
    pub samples: Option<u64>,
    /// `lost M chunks` from a `Processed N events and lost M chunks!` warning.
    pub lost_chunks: Option<u64>,
    /// Every line that is not one of the two summary lines, with its line number.
    pub messages: Vec<(usize, String)>,
}

fn bracketed(t: &str) -> Option<&str> {
    t.strip_prefix("[ perf record:")?.trim_end().strip_suffix(']').map(str::trim)
}

/// The reader.
#[derive(Debug, Clone, Copy)]
pub struct Fmt;

impl Format for Fmt {
    type Output = PerfRecordLog;
    const ID: &'static str = "perf_record_log";
    const SAMPLE: &'static str =
        "[ perf record: Captured and wrote 0.079 MB perf-workload.data (480 samples) ]";
    const DESCRIPTION: &'static str =
        "perf record's stderr summary (wake-ups, MB written, samples, lost chunks)";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let text = String::from_utf8_lossy(head);
        let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
        match lines.next() {
            Some(l) if bracketed(l).is_some() => Sniff::Yes,
            Some(l) if l.starts_with("Warning:") || l.starts_with("WARNING:") || l.starts_with("Error:") => {
                if text.lines().any(|l| bracketed(l.trim()).is_some()) {
                    Sniff::Yes
                } else {
                    Sniff::No
                }
            }
            _ => Sniff::No,
        }
    }

    fn parse(input: &[u8]) -> Parsed<PerfRecordLog> {
        let mut out = PerfRecordLog::default();
        for (l, text) in Lines::new(input).content() {
            let t = text.trim();
            if let Some(b) = bracketed(t) {
                if let Some(r) = b.strip_prefix("Woken up ") {
                    out.wakeups = r.split_whitespace().next().and_then(|n| n.parse().ok());
                    continue;
                }
                if let Some(r) = b.strip_prefix("Captured and wrote ") {
                    // `31.924 MB /path/perf-trace.data (245176 samples)`
                    let mut it = r.splitn(3, ' ');
                    out.written_mb = it.next().and_then(|n| n.parse().ok());
                    let _unit = it.next();
                    let rest = it.next().unwrap_or("");
                    let (path, samples) = match rest.rsplit_once(" (") {
                        Some((p, s)) => (p, s.split_whitespace().next().and_then(|n| n.parse().ok())),
                        None => (rest, None),
                    };
                    out.data_path = (!path.is_empty()).then(|| path.to_string());
                    out.samples = samples;
                    continue;
                }
            }
            // `Processed 1234 events and lost 5 chunks!`
            if let Some(r) = t.strip_prefix("Processed ")
                && let Some((_, lost)) = r.split_once("and lost ")
            {
                out.lost_chunks = lost.split_whitespace().next().and_then(|n| n.parse().ok());
            }
            out.messages.push((l.no, t.to_string()));
        }
        Parsed::new(out, count_lines(input))
    }
}

impl Summary for PerfRecordLog {
    fn records(&self) -> usize {
        usize::from(self.samples.is_some() || self.wakeups.is_some()) + self.messages.len()
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        if let Some(s) = self.samples {
            v.insert("samples", s.to_string());
        }
        if let Some(m) = self.written_mb {
            v.insert("written_mb", m.to_string());
        }
        if let Some(c) = self.lost_chunks {
            v.insert("lost_chunks", c.to_string());
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
    fn summary_lines() {
        let s = b"[ perf record: Woken up 127 times to write data ]\n[ perf record: Captured and wrote 31.924 MB /srv/c/perf trace.data (245176 samples) ]\n";
        assert_eq!(Fmt::sniff(s), Sniff::Yes);
        let p = Fmt::parse(s);
        assert_eq!(p.value.wakeups, Some(127));
        assert_eq!(p.value.samples, Some(245176));
        assert_eq!(p.value.written_mb, Some(31.924));
        assert_eq!(p.value.data_path.as_deref(), Some("/srv/c/perf trace.data"));
        assert!(p.value.messages.is_empty());
        let p = Fmt::parse(b"Warning:\nProcessed 100 events and lost 3 chunks!\n[ perf record: x");
        assert_eq!(p.value.lost_chunks, Some(3));
    }
}
