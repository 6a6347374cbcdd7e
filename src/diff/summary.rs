//! The terminal summary of `iosift diff`: findings that appeared or vanished,
//! the top changes, the context that differs, and where the page is.

use super::{DiffDoc, html};

/// The terminal summary: findings that changed, the top changes, the context diff.
pub fn summary(doc: &DiffDoc, dir: &std::path::Path) -> String {
    let mut s =
        format!("iosift diff: A {} -> B {} ({} s compared)\n", doc.a.name, doc.b.name, doc.compared_s);
    for f in doc.findings.iter().filter(|f| f.change != "persists") {
        s.push_str(&format!("  finding {} {}\n", f.rule, f.change));
    }
    for c in doc.changes.iter().filter(|c| c.change != "same").take(12) {
        s.push_str(&format!(
            "  {:<55} {:>14} -> {:<14} {}\n",
            c.label,
            html::value(c.a, &c.unit),
            html::value(c.b, &c.unit),
            c.change
        ));
    }
    for c in doc.context.iter().take(12) {
        let what = match &c.detail {
            Some(d) => d.clone(),
            None => format!(
                "{} -> {}",
                c.a.as_deref().unwrap_or("(absent)"),
                c.b.as_deref().unwrap_or("(absent)")
            ),
        };
        s.push_str(&format!("  context {}: {what}\n", c.key));
    }
    s.push_str(&format!("report: {}\n", dir.join("index.html").display()));
    s
}
