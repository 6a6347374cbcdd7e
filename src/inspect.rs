//! `iosift inspect`: per file, the detected format, its variant, records,
//! time range and diagnostics (the JSON contract of DESIGN.md).
//!
//! `first`/`last` are RFC 3339 instants or null: each file's times go through
//! the same clock as `analyze` (banner dates, `Date:` lines, the zone evidence
//! of the bundle), and `time_basis` says how they were anchored. A file whose
//! times cannot be placed alone (a time of day without a date, perf's
//! boot-relative clock without a reference) has null there and its times as
//! printed in `as_printed`.

use crate::bundle::Bundle;
use crate::pipeline::{FileClock, ParsedFile};
use iosift_parsers::Diagnostic;
use serde::Serialize;

/// How many diagnostics per file the report lists (the total is always given).
pub const MAX_DIAGNOSTICS: usize = 200;

/// One file's inspection result (contract: `iosift inspect --json`).
#[derive(Debug, Serialize)]
pub struct FileReport {
    /// Path as given (or `archive!member`).
    pub path: String,
    /// Format id, or null when not recognised.
    pub format: Option<&'static str>,
    /// Variant facts (layout, locale, units, ...).
    pub variant: std::collections::BTreeMap<&'static str, String>,
    /// Records parsed.
    pub records: usize,
    /// Lines in the file.
    pub lines: usize,
    /// Lines that could not be used.
    pub skipped_lines: usize,
    /// The first diagnostics (see `diagnostics_total`).
    pub diagnostics: Vec<Diagnostic>,
    /// All diagnostics, counted.
    pub diagnostics_total: usize,
    /// First instant (RFC 3339, UTC), or null when the file's times cannot be placed.
    pub first: Option<String>,
    /// Last instant (RFC 3339, UTC), or null.
    pub last: Option<String>,
    /// How `first`/`last` were anchored (`epoch`, `banner-date+time-of-day`,
    /// `local-date-time+tz`, `bundle-start+interval` = inferred, ...), null without times.
    pub time_basis: Option<&'static str>,
    /// True when the times are inferred (no time in the file: placed at the bundle's start,
    /// or at midnight of its banner date).
    pub inferred_times: bool,
    /// The zone local times were read in, when the file's times are local.
    pub zone: Option<String>,
    /// The file's first and last times exactly as printed (`10:55:29`, `boot+1093.2s`,
    /// `--08-22T23:04:21`), when it has times.
    pub as_printed: Option<[String; 2]>,
    /// True when the file was gzip-compressed.
    pub gzipped: bool,
}

/// Inspects every file of a bundle, with its times on the bundle's clock.
pub fn inspect_bundle(b: &Bundle, opts: &crate::pipeline::Options) -> Vec<FileReport> {
    let a = crate::pipeline::anchor(b, opts);
    let zone = if a.zone.assumed {
        format!("{} (assumed: no zone in the capture; set --tz)", a.zone.name)
    } else {
        format!("{} (from {})", a.zone.name, a.zone.source)
    };
    a.files
        .into_iter()
        .zip(a.clocks)
        .zip(b.files.iter())
        .map(|((p, clock), f)| file_report(p, clock, f.gzipped, &zone))
        .collect()
}

fn file_report(p: ParsedFile, clock: Option<FileClock>, gzipped: bool, zone: &str) -> FileReport {
    use crate::clock::Anchoring;
    let range = p.data.as_ref().and_then(|d| d.summary().time_range());
    let total = p.diagnostics.len();
    let mut diagnostics = p.diagnostics;
    diagnostics.truncate(MAX_DIAGNOSTICS);
    let rfc = crate::clock::epoch_rfc3339;
    let local = clock.is_some_and(|c| {
        matches!(
            c.anchoring,
            Anchoring::LocalDateTime
                | Anchoring::BannerDateTimeOfDay
                | Anchoring::DateLineYear
                | Anchoring::DateLineRun
                | Anchoring::BannerDateInterval
                | Anchoring::PtStalkPrefixInterval
        )
    });
    FileReport {
        path: p.name,
        format: p.format,
        variant: p.variant,
        records: p.records,
        lines: p.lines,
        skipped_lines: p.skipped_lines,
        diagnostics,
        diagnostics_total: total,
        first: clock.and_then(|c| rfc(c.first)),
        last: clock.and_then(|c| rfc(c.last)),
        time_basis: clock.map(|c| c.anchoring.as_str()),
        inferred_times: clock.is_some_and(|c| c.anchoring.is_inferred()),
        zone: local.then(|| zone.to_string()),
        as_printed: range.map(|r| [r.0.display(), r.1.display()]),
        gzipped,
    }
}

/// Renders reports as the human-readable listing: one line per fact, so a name or a
/// value from the capture is written on one line (a newline in an archive member's name
/// would forge lines of the listing: [`crate::term::one_line`]).
pub fn render_text(reports: &[FileReport]) -> String {
    use crate::term::one_line;
    use std::fmt::Write;
    let mut out = String::new();
    for r in reports {
        let fmt = r.format.unwrap_or("not recognised");
        let _ = writeln!(out, "{}\n  format: {fmt}", one_line(&r.path));
        if !r.variant.is_empty() {
            let v: Vec<String> = r.variant.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let _ = writeln!(out, "  variant: {}", one_line(&v.join(", ")));
        }
        let _ = writeln!(
            out,
            "  records: {}, lines: {}, skipped: {}{}",
            r.records,
            r.lines,
            r.skipped_lines,
            if r.gzipped { " (gzip)" } else { "" }
        );
        match (&r.first, &r.last, &r.as_printed) {
            (Some(a), Some(b), _) => {
                let basis = r.time_basis.unwrap_or("?");
                let inferred = if r.inferred_times { ", INFERRED: the file has no times" } else { "" };
                let _ = writeln!(out, "  time: {a} .. {b} ({basis}{inferred})");
            }
            (_, _, Some([a, b])) => {
                let _ = writeln!(out, "  time as printed: {a} .. {b} (cannot be placed on the clock alone)");
            }
            _ => {}
        }
        for d in r.diagnostics.iter().take(5) {
            let _ = writeln!(out, "  line {}: {}: {}", d.line, d.kind, one_line(&d.text));
        }
        if r.diagnostics_total > 5 {
            let _ = writeln!(out, "  ... {} more diagnostics", r.diagnostics_total - 5);
        }
    }
    out
}
pub use crate::source::detect_file;
