//! `iosift inspect`: per file, the detected format, its variant, records,
//! time range and diagnostics (the JSON contract of DESIGN.md).

use crate::bundle::InputFile;
use iosift_parsers::{Detected, Diagnostic, detect};
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
    /// First time stamp (RFC 3339 when the file gives an instant).
    pub first: Option<String>,
    /// Last time stamp.
    pub last: Option<String>,
    /// True when the file was gzip-compressed.
    pub gzipped: bool,
}

/// Tools whose output may be empty (a run killed before its first line, or whose
/// stdout went to `--output`): an empty file with such a name is that tool's output.
const NAME_HINTS: &[(&str, &str)] = &[
    ("dstat", "dstat_text"),
    ("dool", "dstat_text"),
    ("iostat", "iostat"),
    ("pidstat", "pidstat"),
    ("vmstat", "vmstat"),
    ("perf", "perf_script"),
    ("binlog", "mysqlbinlog"),
    ("sysctl", "sysctl"),
];

/// Detects a file's format from its content; an empty (or whitespace and
/// ANSI-only) file falls back to a hint in its name.
pub fn detect_file(f: &InputFile) -> Option<(Detected, bool)> {
    if let Some(d) = detect(&f.data) {
        return Some((d, false));
    }
    let text = String::from_utf8_lossy(&f.data);
    let clean = iosift_parsers::common::lines::strip_ansi(text);
    if !clean.trim().is_empty() {
        return None;
    }
    let base = f.base_name().to_ascii_lowercase();
    let (_, id) = NAME_HINTS.iter().find(|(hint, _)| base.contains(hint))?;
    let format = iosift_parsers::by_id(id)?;
    Some((Detected { format, parsed: format.parse(&f.data) }, true))
}

/// Inspects one file (a large streamed one through the pipeline's streaming parse).
pub fn inspect_file(f: &InputFile) -> FileReport {
    if f.stream.is_some() {
        let p = crate::pipeline::parse_file(f);
        let range = p.data.as_ref().and_then(|d| d.summary().time_range());
        let total = p.diagnostics.len();
        let mut diagnostics = p.diagnostics;
        diagnostics.truncate(MAX_DIAGNOSTICS);
        return FileReport {
            path: p.name,
            format: p.format,
            variant: p.variant,
            records: p.records,
            lines: p.lines,
            skipped_lines: p.skipped_lines,
            diagnostics,
            diagnostics_total: total,
            first: range.map(|r| r.0.display()),
            last: range.map(|r| r.1.display()),
            gzipped: f.gzipped,
        };
    }
    inspect_in_memory(f)
}

fn inspect_in_memory(f: &InputFile) -> FileReport {
    let lines = iosift_parsers::common::lines::count_lines(&f.data);
    match detect_file(f) {
        Some((d, by_name)) => {
            let s = d.parsed.value.summary();
            let mut variant = s.variant();
            if by_name {
                variant.insert("detected_by", "file name (the file has no content)".into());
            }
            let range = s.time_range();
            let total = d.parsed.diagnostics.len();
            let mut diagnostics = d.parsed.diagnostics;
            diagnostics.truncate(MAX_DIAGNOSTICS);
            FileReport {
                path: f.name.clone(),
                format: Some(d.format.id),
                variant,
                records: s.records(),
                lines: d.parsed.lines,
                skipped_lines: d.parsed.skipped_lines,
                diagnostics,
                diagnostics_total: total,
                first: range.map(|r| r.0.display()),
                last: range.map(|r| r.1.display()),
                gzipped: f.gzipped,
            }
        }
        None => FileReport {
            path: f.name.clone(),
            format: None,
            variant: Default::default(),
            records: 0,
            lines,
            skipped_lines: 0,
            diagnostics: Vec::new(),
            diagnostics_total: 0,
            first: None,
            last: None,
            gzipped: f.gzipped,
        },
    }
}

/// Renders reports as the human-readable listing.
pub fn render_text(reports: &[FileReport]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for r in reports {
        let fmt = r.format.unwrap_or("not recognised");
        let _ = writeln!(out, "{}\n  format: {fmt}", r.path);
        if !r.variant.is_empty() {
            let v: Vec<String> = r.variant.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let _ = writeln!(out, "  variant: {}", v.join(", "));
        }
        let _ = writeln!(
            out,
            "  records: {}, lines: {}, skipped: {}{}",
            r.records,
            r.lines,
            r.skipped_lines,
            if r.gzipped { " (gzip)" } else { "" }
        );
        if let (Some(a), Some(b)) = (&r.first, &r.last) {
            let _ = writeln!(out, "  time: {a} .. {b}");
        }
        for d in r.diagnostics.iter().take(5) {
            let _ = writeln!(out, "  line {}: {}: {}", d.line, d.kind, d.text);
        }
        if r.diagnostics_total > 5 {
            let _ = writeln!(out, "  ... {} more diagnostics", r.diagnostics_total - 5);
        }
    }
    out
}
