//! The short terminal summary `iosift analyze` prints: what was read, the top
//! findings, and where the report is. Plain text, no colours, deterministic.
//!
//! ```text
//! iosift: bundle seed-000 (UTC 2024-05-01T10:00:00Z to 2024-05-01T10:20:00Z)
//! read 9 files: 8 recognised (iostat 1, meminfo 1, pidstat 2, ...), 1 not recognised; 3 lines skipped
//! findings:
//!   [critical] mmap_large_folio_writeback (90 %): ...
//! report: reports/seed-000/index.html
//! ```

use super::html::{ranked, sev_word};
use crate::model::Report;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// Findings listed in the summary.
const TOP: usize = 5;

/// Longest summary sentence printed (characters).
const MAX_SUMMARY: usize = 300;

/// Terminal control characters removed from capture text before printing.
fn clean(s: &str) -> String {
    let t: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    if t.chars().count() > MAX_SUMMARY {
        let mut u: String = t.chars().take(MAX_SUMMARY - 1).collect();
        u.push('…');
        u
    } else {
        t
    }
}

/// The summary text (ends with a newline).
pub fn terminal_summary(report: &Report, dir: &Path) -> String {
    let doc = &report.doc;
    let mut s = String::new();
    let _ = write!(s, "iosift: bundle {}", clean(&doc.bundle.name));
    if let (Some(a), Some(b)) = (&doc.clock.start, &doc.clock.end) {
        let _ = write!(s, " (UTC {a} to {b})");
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
    let _ = write!(s, "read {} files: {recognised} recognised", inputs.len());
    if !formats.is_empty() {
        let _ = write!(s, " ({})", formats.join(", "));
    }
    let unrec = inputs.len() - recognised;
    if unrec > 0 {
        let _ = write!(s, ", {unrec} not recognised");
    }
    let _ = writeln!(s, "; {skipped} lines skipped");
    for p in &report.problems {
        let _ = writeln!(s, "problem: {}: {}", clean(&p.name), clean(&p.message));
    }
    for w in &doc.clock.warnings {
        let _ = writeln!(s, "clock: {}", clean(w));
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
                "  [{}] {} ({:.0} %): {}",
                sev_word(f.severity),
                f.rule,
                f.confidence * 100.0,
                clean(&f.summary)
            );
        }
        if fs.len() > TOP {
            let _ = writeln!(s, "  and {} more", fs.len() - TOP);
        }
        let skipped: Vec<&str> =
            doc.checked.iter().filter(|c| c.outcome == "skipped").map(|c| c.rule).collect();
        if !skipped.is_empty() {
            let _ = writeln!(s, "skipped (missing inputs): {}", skipped.join(", "));
        }
    }
    let _ = writeln!(s, "report: {}", dir.join("index.html").display());
    s
}
