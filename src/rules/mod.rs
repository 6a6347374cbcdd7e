//! Rules: each declares its inputs, then fires (a [`Finding`]), passes
//! (with the reason) or is skipped (with the missing inputs).

mod ext4;
mod fsync;
mod mmap;
mod periodic;
mod replication;
mod saturation;

use crate::analyze::Facts;
use crate::model::{Checked, Evidence, Finding};
use serde_json::Value;

/// What a rule concluded.
pub enum Outcome {
    /// The rule fired.
    Fire(Box<Finding>),
    /// The inputs were there and the condition does not hold.
    Pass(String),
    /// Inputs missing.
    Skip(Vec<String>),
}

/// Runs every rule.
pub fn evaluate(f: &Facts<'_>) -> (Vec<Finding>, Vec<Checked>) {
    type Rule = fn(&Facts<'_>) -> Outcome;
    let rules: [(&'static str, Rule); 6] = [
        ("periodic_write_bursts", periodic::check),
        ("mmap_large_folio_writeback", mmap::check),
        ("ext4_dioread_nolock_nodelalloc", ext4::check),
        ("fsync_bound_small_transactions", fsync::check),
        ("device_saturation", saturation::check),
        ("replication_lag", replication::check),
    ];
    let mut findings = Vec::new();
    let mut checked = Vec::new();
    for (id, rule) in rules {
        match rule(f) {
            Outcome::Fire(x) => findings.push(*x),
            Outcome::Pass(reason) => {
                checked.push(Checked { rule: id, outcome: "passed", reason: Some(reason), missing: vec![] })
            }
            Outcome::Skip(missing) => {
                checked.push(Checked { rule: id, outcome: "skipped", reason: None, missing })
            }
        }
    }
    (findings, checked)
}

/// A number as JSON (null when not finite).
pub fn num(v: f64) -> Value {
    serde_json::Number::from_f64((v * 1000.0).round() / 1000.0).map_or(Value::Null, Value::Number)
}

/// An optional number as JSON.
pub fn opt(v: Option<f64>) -> Value {
    v.map_or(Value::Null, num)
}

/// Evidence for a timeline cell, with the input line behind it when known.
pub fn cell_evidence(f: &Facts<'_>, column: &str, row: usize, metric: &str, value: f64) -> Evidence {
    let epoch = f.p.timeline.epoch(row);
    let hit = f.p.lines.get(column).and_then(|m| m.get(&epoch).or_else(|| m.get(&(epoch + 1))));
    match hit {
        Some(&(file, line)) => line_evidence(&f.p.files[file], line, metric, value),
        None => Evidence {
            file: f.p.timeline.columns.get(column).map(|s| s.source.clone()).unwrap_or_default(),
            lines: None,
            metric: metric.to_string(),
            value: num(value),
            quote: None,
        },
    }
}

/// Evidence for one input line of a file, quoted.
pub fn line_evidence(pf: &crate::pipeline::ParsedFile, line: usize, metric: &str, value: f64) -> Evidence {
    Evidence {
        file: pf.name.clone(),
        lines: Some([line, line]),
        metric: metric.to_string(),
        value: num(value),
        quote: pf.quote(line, line),
    }
}

/// Evidence from a sourced context value.
pub fn ctx_evidence<T: ToString>(s: &crate::pipeline::Sourced<T>, metric: &str) -> Evidence {
    Evidence {
        file: s.file.clone(),
        lines: (s.line > 0).then_some([s.line, s.line]),
        metric: metric.to_string(),
        value: Value::String(s.value.to_string()),
        quote: None,
    }
}

/// Evidence for a mount: `source on target type fstype (options)`.
pub fn mount_evidence(m: &crate::pipeline::Sourced<iosift_parsers::mounts::Mount>, metric: &str) -> Evidence {
    let v = &m.value;
    Evidence {
        file: m.file.clone(),
        lines: (m.line > 0).then_some([m.line, m.line]),
        metric: metric.to_string(),
        value: Value::String(format!(
            "{} on {} type {} ({})",
            v.source,
            v.target,
            v.fstype,
            v.options.join(",")
        )),
        quote: None,
    }
}

/// Human bytes (MB with one decimal).
pub fn mb(bytes: f64) -> String {
    format!("{:.1} MB", bytes / 1e6)
}
