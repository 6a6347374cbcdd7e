//! `mysqladmin_ext`: `mysqladmin extended-status` series (`ext -i1 -c N`,
//! absolute, or `-r` relative: first table absolute, later ones deltas),
//! pt-stalk `-mysqladmin` files (repeated tables, optionally `TS`-framed) and
//! `SHOW GLOBAL STATUS` tables.
//!
//! Real sample (`bundles/s2a_mariadb_durable/2026_11_29_19_42_06-mysqladmin.gz`,
//! `mariadb-admin ext -i1 -c 150`):
//!
//! ```text
//! +--------------------------------------------------+--------------------------------------------------+
//! | Variable_name                                    | Value                                            |
//! +--------------------------------------------------+--------------------------------------------------+
//! | Aborted_clients                                  | 0                                                |
//! | Binlog_commits                                   | 70177                                            |
//! | Binlog_snapshot_file                             | mariadb-bin.000002                               |
//! | Busy_time                                        | 0.000000                                         |
//! +--------------------------------------------------+--------------------------------------------------+
//!
//! +--------------------------------------------------+--------------------------------------------------+
//! ```
//!
//! Each `Variable_name | Value` header starts a sample. Numeric values go to
//! [`Sample::values`]; the few text ones (`Binlog_snapshot_file`, `ON`) to
//! [`Sample::text`]. Samples have no time of their own: pt-stalk's is the file
//! name prefix plus index x interval (the root crate anchors them), unless a
//! `TS` line precedes the table. Tab-separated `Variable_name<TAB>Value`
//! batch output is read as well.

use crate::common::number::parse_f64;
use crate::common::scrub::Identifiers;
use crate::common::ts::{TsLine, parse_ts_line};
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};
use crate::mysql_variables::{is_border, is_client_noise, pipe_cells};

/// One `extended-status` table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sample {
    /// 1-based line of the table's header.
    pub line: usize,
    /// The pt-stalk `TS` line before the table, if any.
    pub ts: Option<TsLine>,
    /// Numeric counters and gauges in table order.
    pub values: Vec<(String, f64)>,
    /// Non-numeric values (`Binlog_snapshot_file` -> `mariadb-bin.000002`).
    pub text: Vec<(String, String)>,
}

impl Sample {
    /// A numeric value by exact name (`get("Binlog_commits")`).
    pub fn get(&self, name: &str) -> Option<f64> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    /// A value by name as text (numeric ones are formatted).
    pub fn get_text(&self, name: &str) -> Option<String> {
        self.text
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .or_else(|| self.get(name).map(|v| v.to_string()))
    }
}

/// The parsed series.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MysqladminExt {
    /// Samples in file order.
    pub samples: Vec<Sample>,
    /// True when the tables after the first hold deltas (`mysqladmin -r`),
    /// detected from `Uptime` (or most counters) dropping after the first table.
    pub relative: bool,
}

impl MysqladminExt {
    /// The value of a variable in the first sample that has it.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.samples.iter().find_map(|s| s.get(name))
    }

    /// `(sample index, value)` of one variable over the series, as printed.
    pub fn series(&self, name: &str) -> Vec<(usize, f64)> {
        self.samples.iter().enumerate().filter_map(|(i, s)| Some((i, s.get(name)?))).collect()
    }

    /// Per-sample increments of a counter: the difference between consecutive
    /// absolute samples, or the printed values of a `-r` series (from the second table on).
    pub fn deltas(&self, name: &str) -> Vec<(usize, f64)> {
        let s = self.series(name);
        if self.relative {
            return s.into_iter().skip(1).collect();
        }
        s.windows(2).filter_map(|w| Some((w.get(1)?.0, w.get(1)?.1 - w.first()?.1))).collect()
    }
}

/// Decides `-r` from the first two samples.
fn detect_relative(samples: &[Sample]) -> bool {
    let (Some(a), Some(b)) = (samples.first(), samples.get(1)) else { return false };
    if let (Some(u0), Some(u1)) = (a.get("Uptime"), b.get("Uptime")) {
        return u1 < u0;
    }
    let (mut down, mut up) = (0, 0);
    for (n, v0) in &a.values {
        if let Some(v1) = b.get(n) {
            if v1 < *v0 {
                down += 1;
            } else if v1 > *v0 {
                up += 1;
            }
        }
    }
    down > up
}

/// True for a status variable name (`Binlog_commits`): capitalised.
fn is_status_name(s: &str) -> bool {
    s.bytes().next().is_some_and(|b| b.is_ascii_uppercase())
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

impl Summary for MysqladminExt {
    fn records(&self) -> usize {
        self.samples.len()
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        if let Some(s) = self.samples.first() {
            v.insert("mode", if self.relative { "relative (-r)" } else { "absolute" }.to_string());
            v.insert("variables", (s.values.len() + s.text.len()).to_string());
            v.insert("ts_framed", self.samples.iter().any(|s| s.ts.is_some()).to_string());
        }
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        let first = self.samples.iter().find_map(|s| s.ts)?;
        let last = self.samples.iter().rev().find_map(|s| s.ts)?;
        Some((Stamp::Epoch(first.epoch), Stamp::Epoch(last.epoch)))
    }
}

/// The `mysqladmin_ext` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = MysqladminExt;
    const ID: &'static str = "mysqladmin_ext";
    const SAMPLE: &'static str = "| Binlog_commits                                   | 70177                                            |";
    const DESCRIPTION: &'static str =
        "mysqladmin extended-status series (absolute or -r), pt-stalk -mysqladmin";

    /// Yes when a `Variable_name | Value` header is followed by a capitalised
    /// (status) name.
    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let mut saw_header = false;
        for l in Lines::new(head).filter(|l| !l.is_blank()).take(8) {
            let t = l.text();
            let t = t.trim_end();
            if parse_ts_line(t).is_some() || is_border(t) {
                continue;
            }
            let cells = match pipe_cells(t, 2) {
                Some(c) => c,
                None => t.split('\t').collect(),
            };
            match cells.as_slice() {
                ["Variable_name", "Value"] => saw_header = true,
                [n, _] if saw_header && is_status_name(n) => return Sniff::Yes,
                _ => return Sniff::No,
            }
        }
        Sniff::No
    }

    fn parse(input: &[u8]) -> Parsed<MysqladminExt> {
        let mut d = Diags::default();
        let mut out = MysqladminExt::default();
        let mut lines = 0;
        let mut ts: Option<TsLine> = None;
        let mut cur: Option<Sample> = None;
        for l in Lines::new(input) {
            lines = l.no;
            if l.is_blank() {
                continue;
            }
            let text = l.clean_text();
            let t = text.trim_end();
            if let Some(tsl) = parse_ts_line(t) {
                out.samples.extend(cur.take());
                ts = Some(tsl);
                continue;
            }
            if is_border(t) || is_client_noise(t) {
                continue;
            }
            let cells = match pipe_cells(t, 2) {
                Some(c) => c,
                None => t.splitn(2, '\t').collect(),
            };
            match cells.as_slice() {
                ["Variable_name", "Value"] => {
                    out.samples.extend(cur.take());
                    cur = Some(Sample { line: l.no, ts: ts.take(), ..Sample::default() });
                }
                [n, v] if !n.is_empty() && !n.contains(' ') => match cur.as_mut() {
                    Some(s) => match parse_f64(v).filter(|_| !v.contains(',')) {
                        Some(x) => s.values.push(((*n).to_string(), x)),
                        None => s.text.push(((*n).to_string(), (*v).to_string())),
                    },
                    None => d.skip(l.no, DiagKind::NoHeader, t),
                },
                _ => d.skip(l.no, DiagKind::Malformed, t),
            }
        }
        out.samples.extend(cur.take());
        out.relative = detect_relative(&out.samples);
        d.finish(out, lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: &[(&str, &str)]) -> String {
        let mut s = String::from("+------+------+\n| Variable_name | Value |\n+------+------+\n");
        for (n, v) in rows {
            s.push_str(&format!("| {n} | {v} |\n"));
        }
        s.push_str("+------+------+\n\n");
        s
    }

    #[test]
    fn absolute_series_and_deltas() {
        let s = table(&[("Binlog_commits", "10"), ("Uptime", "100"), ("Binlog_snapshot_file", "b.000002")])
            + &table(&[("Binlog_commits", "25"), ("Uptime", "101")]);
        assert_eq!(Fmt::sniff(s.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(s.as_bytes());
        assert!(p.diagnostics.is_empty());
        assert!(!p.value.relative);
        assert_eq!(p.value.deltas("Binlog_commits"), vec![(1, 15.0)]);
        assert_eq!(p.value.samples[0].get_text("Binlog_snapshot_file").as_deref(), Some("b.000002"));
        assert_eq!(p.value.samples[1].line, 10);
    }

    #[test]
    fn relative_series() {
        let s = table(&[("Binlog_commits", "1000"), ("Uptime", "100")])
            + &table(&[("Binlog_commits", "15"), ("Uptime", "1")])
            + &table(&[("Binlog_commits", "16"), ("Uptime", "1")]);
        let p = Fmt::parse(s.as_bytes());
        assert!(p.value.relative);
        assert_eq!(p.value.deltas("Binlog_commits"), vec![(1, 15.0), (2, 16.0)]);
    }

    #[test]
    fn variables_tables_are_not_status() {
        let s = table(&[("sync_binlog", "1")]);
        assert_eq!(Fmt::sniff(s.as_bytes()), Sniff::No);
        let p = Fmt::parse(b"| Uptime | 5 |\n");
        assert_eq!(p.diagnostics[0].kind, DiagKind::NoHeader);
    }
}
