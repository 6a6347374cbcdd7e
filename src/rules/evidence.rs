//! Evidence and metric values of findings: JSON numbers, quoted input lines,
//! context values, mounts.

use crate::model::Evidence;
use crate::pipeline::{ParsedFile, Sourced};
use iosift_parsers::mounts::Mount;
use serde_json::Value;

/// A number as JSON (rounded to 3 decimals; null when not finite).
pub(crate) fn num(v: f64) -> Value {
    crate::verdict::number(v)
}

/// An optional number as JSON.
pub(crate) fn opt(v: Option<f64>) -> Value {
    v.map_or(Value::Null, num)
}

/// Evidence for one input line of a file, quoted.
pub(crate) fn line_evidence(pf: &ParsedFile, line: usize, metric: &str, value: f64) -> Evidence {
    Evidence {
        file: pf.name.clone(),
        lines: Some([line, line]),
        metric: metric.to_string(),
        value: num(value),
        quote: pf.quote(line, line),
    }
}

/// Evidence from a sourced context value.
pub(crate) fn ctx_evidence<T: ToString>(s: &Sourced<T>, metric: &str) -> Evidence {
    Evidence {
        file: s.file.clone(),
        lines: (s.line > 0).then_some([s.line, s.line]),
        metric: metric.to_string(),
        value: Value::String(s.value.to_string()),
        quote: None,
    }
}

/// Evidence for a mount: `source on target type fstype (options)`.
pub(crate) fn mount_evidence(m: &Sourced<Mount>, metric: &str) -> Evidence {
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

pub(crate) use crate::verdict::MIB;

/// Human bytes (MiB with one decimal).
pub(crate) fn mib(bytes: f64) -> String {
    format!("{:.1} MiB", bytes / MIB)
}
