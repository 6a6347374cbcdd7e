//! Shared building blocks of every parser: the [`Format`] trait, content
//! sniffing, [`Parsed`] results with line-numbered [`Diagnostic`]s, the
//! [`Stamp`] a record's time is given as, and byte-level helpers (line
//! stepping, numbers with a decimal comma, ANSI stripping, gzip, the sysstat
//! banner and its locale dates, pt-stalk `TS` framing).

pub mod decode;
pub mod lines;
pub mod names;
pub mod number;
pub mod pt_stalk;
pub mod scrub;
pub mod series;
pub mod stamp_log;
pub mod sysstat;
pub mod time;
pub mod ts;

use std::collections::BTreeMap;
use std::fmt;

pub use lines::{Line, LineSource, Lines, SliceSource, SourceLine};
pub use time::Stamp;

/// How many bytes of a file sniffing looks at.
pub const SNIFF_BYTES: usize = 1024;

/// The answer of a format's content sniffer for the first KiB of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Sniff {
    /// The content is certainly not this format.
    No,
    /// It might be: parse it to find out.
    Unsure,
    /// A signature of this format was seen.
    Yes,
}

/// What went wrong on one input line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiagKind {
    /// The line does not have the shape of any line of this format.
    Malformed,
    /// A field that must be a number is not one (or overflows).
    BadNumber,
    /// A row has more or fewer fields than its header.
    FieldCount,
    /// A row appears before any header that would explain it.
    NoHeader,
    /// A time stamp could not be read.
    BadTime,
    /// The file ends in the middle of a report or block.
    Truncated,
    /// The line is valid for the tool but not interpreted by iosift (kept for the record).
    Unsupported,
    /// The line was expected noise from the tool (an error message it printed, a warning).
    ToolMessage,
}

impl DiagKind {
    /// The snake_case name used in JSON and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            DiagKind::Malformed => "malformed",
            DiagKind::BadNumber => "bad_number",
            DiagKind::FieldCount => "field_count",
            DiagKind::NoHeader => "no_header",
            DiagKind::BadTime => "bad_time",
            DiagKind::Truncated => "truncated",
            DiagKind::Unsupported => "unsupported",
            DiagKind::ToolMessage => "tool_message",
        }
    }
}

impl fmt::Display for DiagKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem found in the input, tied to a 1-based line number.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Diagnostic {
    /// 1-based line number in the (decompressed) input.
    pub line: usize,
    /// What kind of problem.
    pub kind: DiagKind,
    /// The offending text (truncated to [`Diagnostic::MAX_TEXT`] chars) or an explanation.
    pub text: String,
}

impl Diagnostic {
    /// Longest text a diagnostic keeps.
    pub const MAX_TEXT: usize = 200;

    /// A diagnostic quoting `text` (lossily decoded, truncated).
    pub fn new(line: usize, kind: DiagKind, text: impl AsRef<str>) -> Self {
        let t = text.as_ref();
        let text = if t.chars().count() > Self::MAX_TEXT {
            let mut s: String = t.chars().take(Self::MAX_TEXT).collect();
            s.push('…');
            s
        } else {
            t.to_string()
        };
        Diagnostic { line, kind, text }
    }
}

/// A parser's result: the typed value plus what could not be used.
#[derive(Debug, Clone)]
pub struct Parsed<R> {
    /// The parsed content.
    pub value: R,
    /// Problems, each with its line number, in input order.
    pub diagnostics: Vec<Diagnostic>,
    /// Lines in the input.
    pub lines: usize,
    /// Lines that held content but could not be used (each has a diagnostic).
    pub skipped_lines: usize,
}

impl<R> Parsed<R> {
    /// Wraps a value with no diagnostics.
    pub fn new(value: R, lines: usize) -> Self {
        Parsed { value, diagnostics: Vec::new(), lines, skipped_lines: 0 }
    }

    /// Maps the value, keeping the bookkeeping.
    pub fn map<S>(self, f: impl FnOnce(R) -> S) -> Parsed<S> {
        Parsed {
            value: f(self.value),
            diagnostics: self.diagnostics,
            lines: self.lines,
            skipped_lines: self.skipped_lines,
        }
    }
}

/// Collects diagnostics while a parser runs.
#[derive(Debug, Default, Clone)]
pub struct Diags {
    /// The diagnostics so far.
    pub list: Vec<Diagnostic>,
    /// Lines skipped so far.
    pub skipped: usize,
    /// Diagnostics not kept (past [`Diags::MAX_KEPT`]).
    pub dropped: usize,
}

impl Diags {
    /// Diagnostics kept per file: past this, lines are still counted as skipped,
    /// and one closing diagnostic says how many more there were (memory stays
    /// bounded on a file of millions of bad lines).
    pub const MAX_KEPT: usize = 10_000;

    fn push(&mut self, d: Diagnostic) {
        if self.list.len() < Self::MAX_KEPT {
            self.list.push(d);
        } else {
            self.dropped += 1;
        }
    }

    /// Records a skipped line with its diagnostic.
    pub fn skip(&mut self, line: usize, kind: DiagKind, text: impl AsRef<str>) {
        self.skipped += 1;
        self.push(Diagnostic::new(line, kind, text));
    }

    /// Records a diagnostic about a line that was still (partly) used.
    pub fn note(&mut self, line: usize, kind: DiagKind, text: impl AsRef<str>) {
        self.push(Diagnostic::new(line, kind, text));
    }

    /// Appends the diagnostics of `later` (as if they had been recorded here after these).
    pub fn append(&mut self, later: Diags) {
        for d in later.list {
            self.push(d);
        }
        self.skipped += later.skipped;
        self.dropped += later.dropped;
    }

    /// Finishes a parse.
    pub fn finish<R>(mut self, value: R, lines: usize) -> Parsed<R> {
        if self.dropped > 0 {
            let last = self.list.last().map_or(lines, |d| d.line);
            self.list.push(Diagnostic::new(
                last,
                DiagKind::Malformed,
                format!("{} more diagnostics not listed (the first {} are)", self.dropped, Self::MAX_KEPT),
            ));
        }
        Parsed { value, diagnostics: self.list, lines, skipped_lines: self.skipped }
    }
}

/// Key/value description of the variant of a file (layout, locale, interval, ...).
pub type Variant = BTreeMap<&'static str, String>;

/// What every parsed format can say about itself, for `iosift inspect`.
pub trait Summary {
    /// Number of records (reports, rows, snapshots, samples, transactions: the format's unit).
    fn records(&self) -> usize;
    /// The variant detected (layout, locale, units, ...).
    fn variant(&self) -> Variant;
    /// The first and last time stamps, as the file gives them.
    fn time_range(&self) -> Option<(Stamp, Stamp)>;
}

/// One input format: an id of the contract, a sample line, a sniffer and a parser.
///
/// Adding a format is one module implementing this trait plus one line in
/// [`crate::registry`].
pub trait Format {
    /// The typed result of a parse.
    type Output: Summary;
    /// Format id of the contract (DESIGN.md), e.g. `"iostat"`.
    const ID: &'static str;
    /// One real line of this format, for `iosift formats`.
    const SAMPLE: &'static str;
    /// One-line description.
    const DESCRIPTION: &'static str;
    /// Which of its fields identify a customer (hosts, users, schemas, SQL text): what
    /// `iosift scrub` replaces beyond the generic text patterns.
    const IDENTIFIERS: scrub::Identifiers;
    /// Looks at the first [`SNIFF_BYTES`] of a (decompressed) file.
    fn sniff(head: &[u8]) -> Sniff;
    /// Parses a whole (decompressed) file. Never panics; bad lines become diagnostics.
    fn parse(input: &[u8]) -> Parsed<Self::Output>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_are_capped_but_lines_counted() {
        let mut d = Diags::default();
        for i in 0..Diags::MAX_KEPT + 5 {
            d.skip(i + 1, DiagKind::Malformed, "x");
        }
        let p = d.finish((), Diags::MAX_KEPT + 5);
        assert_eq!(p.skipped_lines, Diags::MAX_KEPT + 5);
        assert_eq!(p.diagnostics.len(), Diags::MAX_KEPT + 1);
        assert!(p.diagnostics.last().unwrap().text.starts_with("5 more diagnostics"));
    }
}
