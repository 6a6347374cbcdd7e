//! Findings in the order every view of the report shows them, and the words of
//! their severities (a leaf: the page, the story, the summaries and Markdown use it).

use crate::model::{Finding, Severity};

/// Findings ranked by severity (worst first), then confidence (highest first); stable.
pub(super) fn ranked(findings: &[Finding]) -> Vec<&Finding> {
    let mut v: Vec<&Finding> = findings.iter().collect();
    v.sort_by(|a, b| b.severity.cmp(&a.severity).then_with(|| b.confidence.total_cmp(&a.confidence)));
    v
}

/// The severity as its JSON word.
pub fn sev_word(s: Severity) -> &'static str {
    match s {
        Severity::Info => "info",
        Severity::Warning => "warning",
        Severity::Critical => "critical",
    }
}
