//! `summary.md` beside `index.html`: what a consultant pastes into a ticket
//! (Jira, GitHub, GitLab, Confluence). GitHub-flavoured Markdown with the
//! verdict, then per finding its title, when, who wrote, who issued, what to
//! change and its key chart as a relative PNG link (`charts/NAME.png`), then
//! what was not checked. `iosift analyze --md` prints it.
//!
//! Everything from the capture (names, paths, summaries) is escaped: Markdown
//! punctuation with a backslash, `<` and `>` as entities (ticket systems render
//! inline HTML), control characters as visible escapes, so a capture can
//! neither format the ticket nor inject into it.

use super::charts::Chart;
use super::findings::{ranked, sev_word};
use crate::model::Report;
use std::fmt::Write as _;

/// Capture text made inert in Markdown (one line: newlines become spaces): the inline
/// punctuation of CommonMark and GFM escaped, `<`, `>` and `&` as entities, autolinks broken
/// (`http\://`, `www\.`), a line-start marker escaped, control characters made visible.
pub(crate) fn esc(s: &str) -> String {
    let s = crate::term::safe(s);
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' | '\t' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' => {
                out.push('\\');
                out.push(c);
            }
            ':' if next == Some('/') => out.push_str("\\:"),
            '.' if i >= 3 && chars[i - 3..i].iter().collect::<String>().eq_ignore_ascii_case("www") => {
                out.push_str("\\.")
            }
            '#' | '-' | '+' | '=' | '!' if i == 0 => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// The severity in capitals (`WARNING`).
fn sev(s: crate::model::Severity) -> String {
    sev_word(s).to_uppercase()
}

/// The summary of `report`, its key charts among `charts` (written under `charts/`).
pub(crate) fn summary_md(report: &Report, charts: &[Chart]) -> String {
    let doc = &report.doc;
    let mut s = String::new();
    let start = doc.clock.start.as_deref().unwrap_or("?");
    let end = doc.clock.end.as_deref().unwrap_or("?");
    let host = report.host().map(|h| format!("{}, ", esc(h))).unwrap_or_default();
    let _ = writeln!(s, "# iosift: {host}{} ({})\n", esc(start), esc(&doc.bundle.name));
    let fs = ranked(&doc.findings);
    match fs.first() {
        Some(f) => {
            let title = super::story::rule_title(f.rule);
            let number = super::fmt::headline(f).map(|n| format!(" ({})", esc(&n))).unwrap_or_default();
            let _ = writeln!(
                s,
                "**Verdict: {} {}**{number}; {} finding(s) in all.\n",
                sev(f.severity),
                esc(&title),
                fs.len()
            );
        }
        None => {
            let _ = writeln!(s, "**Verdict: no rule fired.**\n");
        }
    }
    if let Some(n) = super::story::collector_note(report) {
        let _ = writeln!(s, "**{}**\n", esc(n));
    }
    if let Some(n) = super::story::cpu_note(report) {
        let _ = writeln!(s, "{}\n", esc(&n));
    }
    let _ = writeln!(s, "| capture | |\n|---|---|");
    let _ = writeln!(s, "| from | {} |", esc(start));
    let _ = writeln!(s, "| to | {} |", esc(end));
    if let Some(h) = report.host() {
        let _ = writeln!(s, "| host | {} |", esc(h));
    }
    let _ = writeln!(s, "| input files | {} |", doc.bundle.inputs.len());
    let _ = writeln!(s, "| iosift | {} |", esc(&doc.iosift_version));
    let _ = writeln!(s, "| sizes | binary units: 1 MiB = 1024 KiB (the tools' kB) |\n");
    for f in &fs {
        let title = super::story::rule_title(f.rule);
        let _ = writeln!(s, "## {} {} (`{}`)\n", sev(f.severity), esc(&title), f.rule);
        let _ = writeln!(s, "{}\n", esc(&f.summary));
        let _ = writeln!(s, "- **When:** {}", esc(&super::story::when(f, report)));
        let _ = writeln!(s, "- **Who wrote:** {}", esc(&super::story::who_wrote(f)));
        let _ = writeln!(s, "- **Who issued:** {}", esc(&super::story::who_issued(f)));
        for (i, r) in f.remedies.iter().enumerate() {
            let lead = if i == 0 { "- **What to change:** " } else { "  - " };
            let _ = writeln!(s, "{lead}{}", esc(r));
        }
        if let Some(c) = super::story::key_chart(f, charts) {
            // Chart names are fixed identifiers of iosift's, never capture text.
            let _ = writeln!(s, "\n![{}](charts/{}.png)", esc(&c.title), c.name);
        }
        s.push('\n');
    }
    let skipped: Vec<String> = doc
        .checked
        .iter()
        .filter(|c| c.outcome == "skipped")
        .map(|c| format!("`{}` ({})", c.rule, esc(&c.missing.join(", "))))
        .collect();
    if !skipped.is_empty() {
        let _ = writeln!(s, "Not checked (missing inputs): {}.\n", skipped.join("; "));
    }
    let _ = writeln!(s, "Full report: `index.html`; every number: `findings.json`.");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_text_cannot_format_nor_inject() {
        assert_eq!(esc("a|b"), "a\\|b");
        assert_eq!(esc("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert(1)&gt;");
        assert_eq!(
            esc("**bold** [link](http://x) www.x.io"),
            "\\*\\*bold\\*\\* \\[link\\](http\\://x) www\\.x.io"
        );
        assert_eq!(esc("# title"), "\\# title");
        assert_eq!(esc("line\nbreak 21:05:49 vda-1.5"), "line break 21:05:49 vda-1.5");
        assert!(!esc("a\u{1b}[2Jb").contains('\u{1b}'));
    }
}
