//! The per-file record of the pipeline: one input file, detected and
//! parsed (streamed from disk when it is large), with its diagnostics and the
//! bytes evidence quotes come from.

use crate::bundle::InputFile;
use iosift_parsers::{Data, Detected, Diagnostic, detect};
use std::collections::BTreeMap;

/// One parsed input file.
#[derive(Debug)]
pub struct ParsedFile {
    /// Name within the bundle.
    pub name: String,
    /// Base name (for pt-stalk prefixes and hints).
    pub base: String,
    /// Format id, or `None` when not recognised.
    pub format: Option<&'static str>,
    /// The typed content.
    pub data: Option<Data>,
    /// Lines in the file.
    pub lines: usize,
    /// Lines skipped.
    pub skipped_lines: usize,
    /// All diagnostics.
    pub diagnostics: Vec<Diagnostic>,
    /// Variant facts.
    pub variant: BTreeMap<&'static str, String>,
    /// Records.
    pub records: usize,
    /// The decompressed bytes, shared with the bundle (for evidence quotes); only the
    /// head of a streamed file.
    pub raw: std::sync::Arc<[u8]>,
    /// Where a streamed file is (its quotes are read from disk).
    pub stream: Option<crate::bundle::Streamed>,
}

impl ParsedFile {
    /// Quotes lines `[a, b]` (1-based, at most 3 lines, each cut to 240 chars).
    /// A table row is quoted under its column header (the nearest `Device` or
    /// `... Command` line above it) so the numbers can be read.
    pub fn quote(&self, a: usize, b: usize) -> Option<String> {
        let cut =
            |l: iosift_parsers::common::Line<'_>| -> String { l.clean_text().chars().take(240).collect() };
        let from = a.saturating_sub(60).max(1);
        // A streamed file's lines are read again from disk (only its head is in memory).
        let reread;
        let (bytes, first_no): (&[u8], usize) = match &self.stream {
            Some(st) => {
                reread = super::stream::line_range(st, from, b);
                (&reread, from)
            }
            None => (&self.raw, 1),
        };
        let window: Vec<iosift_parsers::common::Line<'_>> = iosift_parsers::common::Lines::new(bytes)
            .map(|mut l| {
                l.no += first_no - 1;
                l
            })
            .skip_while(|l| l.no < from)
            .take_while(|l| l.no <= b)
            .collect();
        let lines: Vec<String> =
            window.iter().filter(|l| l.no >= a && l.no <= b).take(3).map(|l| cut(*l)).collect();
        if lines.is_empty() {
            return None;
        }
        let is_header = |t: &str| {
            let first = t.split_whitespace().next().unwrap_or("");
            first == "Device" || first == "Device:" || t.trim_end().ends_with(" Command")
        };
        let header = window.iter().rev().filter(|l| l.no < a).map(|l| cut(*l)).find(|t| is_header(t));
        Some(match header {
            Some(h) => format!("{h}\n{}", lines.join("\n")),
            None => lines.join("\n"),
        })
    }
}

/// Parses one file (streaming it from disk when it is large).
pub fn parse_file(f: &InputFile) -> ParsedFile {
    let base = f.base_name().to_string();
    if let Some((id, parsed)) = f.stream.as_ref().and_then(super::stream::parse) {
        let s = parsed.value.summary();
        let mut variant = s.variant();
        variant.insert("streamed", "yes (large file, parsed from disk without loading it)".into());
        return ParsedFile {
            name: f.name.clone(),
            base,
            format: Some(id),
            variant,
            records: s.records(),
            lines: parsed.lines,
            skipped_lines: parsed.skipped_lines,
            diagnostics: parsed.diagnostics,
            data: Some(parsed.value),
            raw: f.data.clone(),
            stream: f.stream.clone(),
        };
    }
    match detect_file(f) {
        Some((d, _)) => {
            let s = d.parsed.value.summary();
            ParsedFile {
                name: f.name.clone(),
                base,
                format: Some(d.format.id),
                variant: s.variant(),
                records: s.records(),
                lines: d.parsed.lines,
                skipped_lines: d.parsed.skipped_lines,
                diagnostics: d.parsed.diagnostics,
                data: Some(d.parsed.value),
                raw: f.data.clone(),
                stream: None,
            }
        }
        None => ParsedFile {
            name: f.name.clone(),
            base,
            format: None,
            data: None,
            lines: iosift_parsers::common::lines::count_lines(&f.data),
            skipped_lines: 0,
            diagnostics: Vec::new(),
            variant: BTreeMap::new(),
            records: 0,
            raw: f.data.clone(),
            stream: None,
        },
    }
}

/// Detects a file's format from its content; an empty (or whitespace and
/// ANSI-only) file falls back to a hint in its name.
pub fn detect_file(f: &InputFile) -> Option<(Detected, bool)> {
    if let Some(mut d) = detect(&f.data) {
        // A binary sa file is read through the sadf on PATH (the parsers do no I/O).
        if let iosift_parsers::Data::SaBinary(sa) = &mut d.parsed.value {
            let diags = crate::sadf::decode(sa, &f.data);
            d.parsed.diagnostics.extend(diags);
        }
        return Some((d, false));
    }
    let text = String::from_utf8_lossy(&f.data);
    let clean = iosift_parsers::common::lines::strip_ansi(text);
    if !clean.trim().is_empty() {
        return None;
    }
    let base = f.base_name().to_ascii_lowercase();
    // Tools whose output may be empty (a run killed before its first line, or whose
    // stdout went to `--output`): the registry's name hints.
    let format = iosift_parsers::by_name_hint(&base)?;
    Some((Detected { format, parsed: format.parse(&f.data) }, true))
}
