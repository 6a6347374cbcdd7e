//! The headline of a diff: what changed the verdict, in words, before any measure.
//!
//! One line per finding whose verdict changed (it appeared, vanished, changed its
//! severity or a decisive text metric such as the side bounding a replica), each with
//! its rule's measure in both captures ([`crate::verdict::RuleSpec::measure`]); then
//! one line with the settings that differ (MySQL durability first, then kernel, mounts,
//! sysctls). Without any of those, the largest measured change.
//!
//! ```text
//! Commits bound by fsync of small transactions: vanished; commit rate 1302 /s -> 2772 /s
//! Replication lag: bound by io thread -> sql thread; lag max 68 s -> 51 s
//! settings: innodb_flush_log_at_trx_commit 1 -> 2, sync_binlog 1 -> 0
//! ```

use super::context::ContextChange;
use super::{Change, FindingChange, html};
use crate::model::Severity;

/// Settings named in the headline, at most.
const SETTINGS: usize = 4;

/// A severity's word, `none` when the finding did not fire.
fn severity(s: Option<Severity>) -> &'static str {
    s.map_or("none", crate::report::sev_word)
}

/// `label a -> b` of a measured change.
pub(super) fn moved(c: &Change) -> String {
    format!("{} {} -> {}", c.label, html::value(c.a, &c.unit), html::value(c.b, &c.unit))
}

/// What changed the verdict of one finding.
fn verdict(f: &FindingChange) -> String {
    let mut what: Vec<String> = Vec::new();
    if f.change != "persists" {
        what.push(f.change.to_string());
    } else if f.severity_a != f.severity_b {
        what.push(format!("{} -> {}", severity(f.severity_a), severity(f.severity_b)));
    }
    for t in &f.verdict_changes {
        let words = |v: &str| v.replace('_', " ");
        what.push(format!("{} {} -> {}", words(&t.key), words(&t.a), words(&t.b)));
    }
    what.join("; ")
}

/// The settings that differ, as one line (`None` when none differs).
fn settings(context: &[ContextChange]) -> Option<String> {
    let telling: Vec<&ContextChange> =
        context.iter().filter(|c| ["mysql", "kernel", "mount", "sysctl"].contains(&c.group)).collect();
    let items: Vec<String> = telling
        .iter()
        .take(SETTINGS)
        .map(|c| {
            let name =
                c.key.strip_prefix("mysql ").or_else(|| c.key.strip_prefix("sysctl ")).unwrap_or(&c.key);
            match &c.detail {
                Some(d) => format!("{name} {d}"),
                None => format!(
                    "{name} {} -> {}",
                    c.a.as_deref().unwrap_or("(absent)"),
                    c.b.as_deref().unwrap_or("(absent)")
                ),
            }
        })
        .collect();
    let more = telling.len().saturating_sub(SETTINGS);
    (!items.is_empty()).then(|| {
        let tail = if more > 0 { format!(" (and {more} more)") } else { String::new() };
        format!("settings: {}{tail}", items.join(", "))
    })
}

/// The headline lines of a diff (see the module doc).
pub(super) fn of(findings: &[FindingChange], changes: &[Change], context: &[ContextChange]) -> Vec<String> {
    let mut out: Vec<String> = findings
        .iter()
        .filter(|f| f.decides())
        .map(|f| {
            let spec = crate::rules::spec(f.rule);
            let measure = spec
                .and_then(|s| s.measure)
                .and_then(|k| changes.iter().find(|c| c.key == k && (c.a.is_some() || c.b.is_some())));
            let title = crate::report::rule_title(f.rule);
            match measure {
                Some(c) => format!("{title}: {}; {}", verdict(f), moved(c)),
                None => format!("{title}: {}", verdict(f)),
            }
        })
        .collect();
    if out.is_empty()
        && let Some(c) = changes.iter().find(|c| c.change != "same" && c.score >= 1.0)
    {
        out.push(format!("no finding changed; the largest change: {}", moved(c)));
    }
    out.extend(settings(context));
    out
}
