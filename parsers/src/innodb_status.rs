//! `innodb_status`: `SHOW ENGINE INNODB STATUS` output (the InnoDB monitor),
//! plain, `\G` or `-B` escaped, one or several monitor outputs.
//!
//! Real sample (`bundles/s2a_mariadb_durable/innodb-status-end.txt`, MariaDB 10.11):
//!
//! ```text
//! *************************** 1. row ***************************
//! InnoDB
//!
//! =====================================
//! 2026-11-29 19:44:36 0x7fa3d41516c0 INNODB MONITOR OUTPUT
//! =====================================
//! --------
//! FILE I/O
//! --------
//! Pending flushes (fsync): 0
//! 174 OS file reads, 157 OS file writes, 176762 OS fsyncs
//! ---
//! LOG
//! ---
//! Log sequence number 84174596
//! Log flushed up to   84174596
//! Buffer pool size   32448
//! Modified db pages  942
//! ```
//!
//! Sections are `----`/`NAME`/`----` triples. Numbers are read generically:
//! `Label  123` (label then one number) and comma lists `174 OS file reads,
//! 157 OS file writes` (number then label) become `(section, label, value)`
//! metrics; every line is kept in its section, so nothing is dropped.

use crate::common::lines::count_lines;
use crate::common::scrub::{Identifiers, SqlLines};
use crate::common::time::{full_year, ymd};
use crate::common::{Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};
use chrono::NaiveTime;

/// One `----`/`NAME`/`----` section.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Section {
    /// Section title (`FILE I/O`, `LOG`, `BUFFER POOL AND MEMORY`).
    pub name: String,
    /// 1-based line of the title.
    pub line: usize,
    /// The lines of the section, as printed.
    pub lines: Vec<String>,
}

/// One number read from the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    /// Section title.
    pub section: String,
    /// Label as printed (`Log sequence number`, `OS fsyncs`).
    pub label: String,
    /// The value.
    pub value: f64,
    /// 1-based line.
    pub line: usize,
}

/// One `INNODB MONITOR OUTPUT`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Monitor {
    /// 1-based line of the `... INNODB MONITOR OUTPUT` line.
    pub line: usize,
    /// Its time stamp (server local time).
    pub stamp: Option<Stamp>,
    /// `Per second averages calculated from the last N seconds`.
    pub averages_over_s: Option<f64>,
    /// Sections in order.
    pub sections: Vec<Section>,
    /// Numbers found in the sections.
    pub metrics: Vec<Metric>,
}

impl Monitor {
    /// The first metric with this label (exact, as printed).
    pub fn get(&self, label: &str) -> Option<f64> {
        self.metrics.iter().find(|m| m.label == label).map(|m| m.value)
    }

    /// `Log sequence number`.
    pub fn log_sequence_number(&self) -> Option<f64> {
        self.get("Log sequence number")
    }

    /// `OS fsyncs` (since server start).
    pub fn os_fsyncs(&self) -> Option<f64> {
        self.get("OS fsyncs")
    }

    /// `Modified db pages` (dirty pages of the buffer pool).
    pub fn modified_db_pages(&self) -> Option<f64> {
        self.get("Modified db pages")
    }

    /// `History list length`.
    pub fn history_list_length(&self) -> Option<f64> {
        self.get("History list length")
    }
}

/// A parsed status file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InnodbStatus {
    /// Monitor outputs in file order.
    pub monitors: Vec<Monitor>,
    /// Lines before the first monitor output (`\G` row banner, `InnoDB`).
    pub preamble: Vec<String>,
}

const MARK: &str = "INNODB MONITOR OUTPUT";

/// `2026-11-29 19:44:36 0x7fa3d41516c0 INNODB MONITOR OUTPUT` or `161129 19:44:36 INNODB MONITOR OUTPUT`.
fn monitor_stamp(t: &str) -> Option<Stamp> {
    let mut it = t.split_whitespace();
    let d = it.next()?;
    let tm = NaiveTime::parse_from_str(it.next()?, "%H:%M:%S").ok()?;
    let date = if d.len() == 10 {
        let mut p = d.split('-');
        ymd(p.next()?.parse().ok()?, p.next()?.parse().ok()?, p.next()?.parse().ok()?)?
    } else if d.len() == 6 && d.bytes().all(|b| b.is_ascii_digit()) {
        ymd(full_year(d.get(..2)?.parse().ok()?), d.get(2..4)?.parse().ok()?, d.get(4..)?.parse().ok()?)?
    } else {
        return None;
    };
    Some(Stamp::Local(date.and_time(tm)))
}

fn is_rule(t: &str, c: char) -> bool {
    t.len() >= 3 && t.chars().all(|x| x == c)
}

fn num(tok: &str) -> Option<f64> {
    let t = tok.trim_end_matches([',', ';']);
    if !t.bytes().next().is_some_and(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok().filter(|v: &f64| v.is_finite())
}

/// Reads the numbers of one line into `out`.
fn metrics_of(section: &str, no: usize, t: &str, out: &mut Vec<Metric>) {
    for part in t.split(", ") {
        let part = part.trim();
        let toks: Vec<&str> = part.split_whitespace().collect();
        let (label, value) = match toks.as_slice() {
            // `174 OS file reads`
            [first, rest @ ..]
                if !rest.is_empty() && num(first).is_some() && rest.iter().all(|w| num(w).is_none()) =>
            {
                (rest.join(" "), num(first))
            }
            // `Log sequence number 84174596`, `Pending flushes (fsync): 0`
            [words @ .., last]
                if !words.is_empty() && num(last).is_some() && words.iter().all(|w| num(w).is_none()) =>
            {
                (words.join(" ").trim_end_matches(':').to_string(), num(last))
            }
            _ => continue,
        };
        if let Some(value) = value {
            out.push(Metric { section: section.to_string(), label, value, line: no });
        }
    }
}

/// The reader.
#[derive(Debug, Clone, Copy)]
pub struct Fmt;

impl Format for Fmt {
    type Output = InnodbStatus;
    const ID: &'static str = "innodb_status";
    const SAMPLE: &'static str = "2026-11-29 19:44:36 0x7fa3d41516c0 INNODB MONITOR OUTPUT";
    const DESCRIPTION: &'static str = "SHOW ENGINE INNODB STATUS (InnoDB monitor output)";

    const IDENTIFIERS: Identifiers = Identifiers::Sql(SqlLines::InnodbStatus);
    fn sniff(head: &[u8]) -> Sniff {
        let text = String::from_utf8_lossy(head);
        if text
            .lines()
            .any(|l| l.contains(MARK) && monitor_stamp(l.trim_start_matches(['|', ' ', '\t'])).is_some())
        {
            Sniff::Yes
        } else {
            Sniff::No
        }
    }

    fn parse(input: &[u8]) -> Parsed<InnodbStatus> {
        let mut out = InnodbStatus::default();
        let lines: Vec<_> = Lines::new(input).collect();
        let mut i = 0;
        while i < lines.len() {
            let Some(l) = lines.get(i) else { break };
            i += 1;
            if l.is_blank() {
                continue;
            }
            let text = l.clean_text();
            let t = text.trim();
            if t.contains(MARK) && !t.starts_with("END OF") {
                let stamp = monitor_stamp(t);
                out.monitors.push(Monitor { line: l.no, stamp, ..Monitor::default() });
                continue;
            }
            let Some(m) = out.monitors.last_mut() else {
                out.preamble.push(t.to_string());
                continue;
            };
            // `--------` / `FILE I/O` / `--------`
            if is_rule(t, '-')
                && let (Some(title), Some(close)) = (lines.get(i), lines.get(i + 1))
                && is_rule(close.text().trim(), '-')
                && !title.text().trim().is_empty()
            {
                m.sections.push(Section {
                    name: title.text().trim().to_string(),
                    line: title.no,
                    lines: Vec::new(),
                });
                i += 2;
                continue;
            }
            // `=====================================` frames the title line: layout only.
            if is_rule(t, '=') {
                continue;
            }
            if let Some(r) = t.strip_prefix("Per second averages calculated from the last ") {
                m.averages_over_s = r.split_whitespace().next().and_then(num);
            }
            let name = m.sections.last().map(|s| s.name.clone()).unwrap_or_default();
            metrics_of(&name, l.no, t, &mut m.metrics);
            match m.sections.last_mut() {
                Some(s) => s.lines.push(t.to_string()),
                None => {
                    m.sections.push(Section { name: String::new(), line: l.no, lines: vec![t.to_string()] })
                }
            }
        }
        Parsed::new(out, count_lines(input))
    }
}

impl Summary for InnodbStatus {
    fn records(&self) -> usize {
        self.monitors.len()
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        v.insert("layout", "SHOW ENGINE INNODB STATUS".to_string());
        if let Some(m) = self.monitors.first() {
            v.insert("sections", m.sections.iter().filter(|s| !s.name.is_empty()).count().to_string());
            if let Some(x) = m.log_sequence_number() {
                v.insert("log_sequence_number", format!("{x}"));
            }
        }
        v
    }

    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        let first = self.monitors.iter().find_map(|m| m.stamp)?;
        let last = self.monitors.iter().rev().find_map(|m| m.stamp)?;
        Some((first, last))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_and_metrics() {
        let s = "InnoDB\n=====\n2026-11-29 19:44:36 0x7fa3d41516c0 INNODB MONITOR OUTPUT\n=====\n--------\nFILE I/O\n--------\n174 OS file reads, 157 OS file writes, 176762 OS fsyncs\n---\nLOG\n---\nLog sequence number 84174596\n";
        assert_eq!(Fmt::sniff(s.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(s.as_bytes());
        let m = &p.value.monitors[0];
        assert_eq!(m.os_fsyncs(), Some(176762.0));
        assert_eq!(m.log_sequence_number(), Some(84174596.0));
        assert_eq!(m.sections.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["FILE I/O", "LOG"]);
        assert_eq!(m.stamp.unwrap().display(), "2026-11-29T19:44:36");
        let _ = Fmt::parse(b"INNODB MONITOR OUTPUT\n---\n");
    }
}
