//! The short terminal summary `iosift analyze` prints: what was read, the top
//! findings in whole sentences with one confidence and the first remedy each,
//! and where the report is. Wrapped to the terminal's width; severities in
//! colour only on a terminal and never when `NO_COLOR` is set. Deterministic.
//!
//! ```text
//! iosift: mmap_large_folio, 2026-11-29 21:05:21 to 21:07:43 UTC (142 s)
//! read 29 files: 24 recognised (iostat 1, pidstat 1, ...), 5 not recognised; 0 lines skipped
//! findings:
//!   CRITICAL mmap_large_folio_writeback, confidence 85 %
//!     Periodic writeback bursts of 799.3 MB with 2782.5 kB requests while ...
//!     Change: mount the filesystem without large folios, or ...
//! report: reports/mmap_large_folio/index.html
//! ```

use super::findings::{ranked, sev_word};
use crate::model::{Report, Severity};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// Findings listed in the summary.
const TOP: usize = 5;

/// How the summary is laid out.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    /// Columns to wrap at.
    pub width: usize,
    /// ANSI colours for severities.
    pub color: bool,
}

impl Default for Style {
    /// 100 columns, no colour (files, pipes, tests).
    fn default() -> Self {
        Style { width: 100, color: false }
    }
}

impl Style {
    /// For standard output: the terminal's width (or `$COLUMNS`, else 100), colour on
    /// a terminal unless `NO_COLOR` is set (<https://no-color.org>).
    pub fn for_stdout() -> Self {
        use std::io::IsTerminal;
        let tty = std::io::stdout().is_terminal();
        let width = std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.trim().parse::<usize>().ok())
            .or_else(
                || if tty { console::Term::stdout().size_checked().map(|(_, w)| w as usize) } else { None },
            )
            .unwrap_or(100)
            .clamp(40, 200);
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style { width, color: tty && !no_color }
    }
}

/// Capture text made safe for a terminal: control characters and the bidirectional
/// overrides (which could reorder what the user reads) become spaces.
fn clean(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// A rule's sentence without the confidence it may quote (the summary prints one).
fn without_confidence(s: &str) -> String {
    let mut out = s.to_string();
    while let Some(i) = out.find(" (confidence ") {
        match out[i..].find(')') {
            Some(j) => out.replace_range(i..i + j + 1, ""),
            None => break,
        }
    }
    out
}

/// Wraps `text` at `width` columns, every line starting with `indent` spaces.
pub(crate) fn wrap(text: &str, indent: usize, width: usize) -> String {
    let room = width.saturating_sub(indent).max(20);
    let pad = " ".repeat(indent);
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let needed = if line.is_empty() {
            word.chars().count()
        } else {
            line.chars().count() + 1 + word.chars().count()
        };
        if needed > room && !line.is_empty() {
            let _ = writeln!(out, "{pad}{line}");
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        let _ = writeln!(out, "{pad}{line}");
    }
    out
}

fn severity_label(s: Severity, color: bool) -> String {
    let word = sev_word(s).to_ascii_uppercase();
    if !color {
        return word;
    }
    let code = match s {
        Severity::Critical => "1;31",
        Severity::Warning => "1;33",
        Severity::Info => "1;36",
    };
    format!("\x1b[{code}m{word}\x1b[0m")
}

/// The summary text with the default style (ends with a newline).
pub fn terminal_summary(report: &Report, dir: &Path) -> String {
    terminal_summary_styled(report, dir, Style::default())
}

/// The summary text laid out with `style` (ends with a newline).
pub fn terminal_summary_styled(report: &Report, dir: &Path, style: Style) -> String {
    let doc = &report.doc;
    let z = &report.display;
    let mut s = String::new();
    let _ = write!(s, "iosift: {}", clean(&doc.bundle.name));
    if let Some(h) = report.host() {
        let _ = write!(s, " (host {})", clean(h));
    }
    let parse = |t: &Option<String>| t.as_deref().and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok());
    if let (Some(a), Some(b)) = (parse(&doc.clock.start), parse(&doc.clock.end)) {
        let (a, b) = (a.timestamp(), b.timestamp());
        let day = |e| z.format(e, "%Y-%m-%d");
        let end = if day(a) == day(b) { z.format(b, "%H:%M:%S") } else { z.format(b, "%Y-%m-%d %H:%M:%S") };
        let label = if z.is_utc() { "UTC".to_string() } else { format!("{} {}", z.label, z.offset_text(a)) };
        let _ = write!(s, ", {} to {end} {label} ({} s)", z.format(a, "%Y-%m-%d %H:%M:%S"), b - a + 1);
    }
    s.push('\n');
    let inputs = &doc.bundle.inputs;
    let mut by_format: BTreeMap<&str, usize> = BTreeMap::new();
    for i in inputs.iter() {
        if let Some(f) = i.format {
            *by_format.entry(f).or_default() += 1;
        }
    }
    let recognised: usize = by_format.values().sum();
    let skipped: usize = inputs.iter().map(|i| i.skipped_lines).sum();
    let formats: Vec<String> = by_format.iter().map(|(f, n)| format!("{f} {n}")).collect();
    let mut read = format!("read {} files: {recognised} recognised", inputs.len());
    if !formats.is_empty() {
        let _ = write!(read, " ({})", formats.join(", "));
    }
    // pt-stalk collector files iosift does not read are listed with what they hold, not "unknown".
    let listed = inputs
        .iter()
        .filter(|i| {
            i.format.is_none() && i.note.as_deref().is_some_and(|n| n.starts_with("pt-stalk collector file:"))
        })
        .count();
    let unrec = inputs.len() - recognised - listed;
    if listed > 0 {
        let _ = write!(read, ", {listed} known but not read (pt-stalk collector files, see the inventory)");
    }
    if unrec > 0 {
        let _ = write!(read, ", {unrec} not recognised");
    }
    let _ = write!(read, "; {skipped} lines skipped");
    s.push_str(&wrap(&read, 0, style.width));
    for p in &report.problems {
        s.push_str(&wrap(&format!("problem: {}: {}", clean(&p.name), clean(&p.message)), 0, style.width));
    }
    for w in &doc.clock.warnings {
        s.push_str(&wrap(&format!("clock: {}", clean(w)), 0, style.width));
    }
    let fs = ranked(&doc.findings);
    if fs.is_empty() {
        let passed = doc.checked.iter().filter(|c| c.outcome == "passed").count();
        let _ = writeln!(
            s,
            "findings: none ({} rules checked: {passed} passed, {} skipped)",
            doc.checked.len(),
            doc.checked.len() - passed
        );
    } else {
        let _ = writeln!(s, "findings:");
        for f in fs.iter().take(TOP) {
            let _ = writeln!(
                s,
                "  {} {}, confidence {:.0} %",
                severity_label(f.severity, style.color),
                f.rule,
                f.confidence * 100.0
            );
            s.push_str(&wrap(&clean(&without_confidence(&f.summary)), 4, style.width));
            if let Some(r) = f.remedies.first() {
                s.push_str(&wrap(&format!("Change: {}", clean(r)), 4, style.width));
            }
        }
        if fs.len() > TOP {
            let _ = writeln!(s, "  and {} more in the report", fs.len() - TOP);
        }
        let skipped: Vec<&str> =
            doc.checked.iter().filter(|c| c.outcome == "skipped").map(|c| c.rule).collect();
        if !skipped.is_empty() {
            s.push_str(&wrap(&format!("skipped (missing inputs): {}", skipped.join(", ")), 0, style.width));
        }
    }
    if let Some(g) = &doc.galera {
        s.push_str(&wrap(&format!("galera: {}", clean(&super::galera::verdict(g, z))), 0, style.width));
    }
    let _ = writeln!(s, "report: {}", dir.join("index.html").display());
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_whole_words_with_indent() {
        let w = wrap("one two three four five six seven", 4, 24);
        assert_eq!(w, "    one two three four\n    five six seven\n");
        let long = wrap(&"x".repeat(50), 2, 30);
        assert_eq!(long, format!("  {}\n", "x".repeat(50)));
    }

    #[test]
    fn one_confidence_and_no_terminal_tricks() {
        assert_eq!(
            without_confidence("bursts every 31.0 s (confidence 0.84), median 762.2 MiB"),
            "bursts every 31.0 s, median 762.2 MiB"
        );
        assert_eq!(clean("a\u{202e}b\x1b[31mc\n"), "a b [31mc ");
    }
}
