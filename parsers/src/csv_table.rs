//! `csv_table`: any headered CSV or tab-separated table (workload logs,
//! per-second summaries, `mysql -B` results the specific formats do not
//! cover), read generically: column names, rows, and an epoch column when
//! there is one.
//!
//! Real samples (`bundles/s1_mmap_writeback/redo_sim_ops.csv`,
//! `bundles/s2a_mariadb_durable/binlog-mariadb-bin.000002.per_second.csv`,
//! `samples/mariadb_fsync_durable/capture/mysql-binary-logs-end.tsv`; `→` is a TAB):
//!
//! ```text
//! epoch_start,bytes,write_us,fsync_us
//! 1795981049.681113,2048,13,4205
//! ts_utc,epoch,transactions,bytes,bytes_per_trx,rows,group_commits,...
//! 2026-11-29 19:42:16,1795981336,187,62165,332.4,197,126,...
//! Log_name→File_size
//! mariadb-bin.000003→24281170
//! ```
//!
//! The sniffer only says [`Sniff::Unsure`]: a specific format that also
//! explains the file wins. Fields may be `"quoted"` (RFC 4180, `""` escapes);
//! a row with another field count than the header is reported.

use crate::clock_reference::epoch_token;
use crate::common::lines::count_lines;
use crate::common::scrub::Identifiers;
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};

/// A parsed table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CsvTable {
    /// `,` or `\t`.
    pub delimiter: char,
    /// Header names.
    pub columns: Vec<String>,
    /// Data rows (fields as text).
    pub rows: Vec<Vec<String>>,
    /// Index of the first column whose name and values say epoch seconds
    /// (`epoch`, `epoch_start`, `ts`, `time`, `timestamp`).
    pub epoch_column: Option<usize>,
}

impl CsvTable {
    /// Index of a column by name.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }

    /// The values of a column as numbers (`None` for empty or non-numeric cells).
    pub fn numbers(&self, name: &str) -> Option<Vec<Option<f64>>> {
        let i = self.column_index(name)?;
        Some(self.rows.iter().map(|r| r.get(i).and_then(|v| v.trim().parse().ok())).collect())
    }
}

/// Splits one line, honouring double quotes.
fn split(line: &str, delim: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_q = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if in_q && chars.peek() == Some(&'"') => {
                chars.next();
                cur.push('"');
            }
            '"' if in_q => in_q = false,
            '"' if cur.is_empty() => in_q = true,
            c if c == delim && !in_q => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}

fn header_ok(fields: &[String]) -> bool {
    fields.len() >= 2
        && fields.iter().all(|f| {
            let f = f.trim();
            !f.is_empty()
                && f.len() <= 64
                && f.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_' || c == '%')
                && f.chars().all(|c| c.is_alphanumeric() || " _-./%()[]:#@".contains(c))
        })
}

const EPOCH_NAMES: &[&str] = &["epoch", "epoch_start", "epoch_s", "ts", "time", "timestamp", "unix_time"];

/// The reader.
#[derive(Debug, Clone, Copy)]
pub struct Fmt;

impl Format for Fmt {
    type Output = CsvTable;
    const ID: &'static str = "csv_table";
    const SAMPLE: &'static str = "epoch_start,bytes,write_us,fsync_us";
    const DESCRIPTION: &'static str = "generic headered CSV / TSV table (column names, rows, epoch column)";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let mut it = Lines::new(head).filter(|l| !l.is_blank());
        let Some(first) = it.next() else { return Sniff::No };
        let t = first.text();
        let delim = if t.contains('\t') {
            '\t'
        } else if t.contains(',') {
            ','
        } else {
            return Sniff::No;
        };
        let h = split(t.trim_end(), delim);
        if !header_ok(&h) {
            return Sniff::No;
        }
        match it.next() {
            Some(second) if split(second.text().trim_end(), delim).len() == h.len() => Sniff::Unsure,
            Some(_) => Sniff::No,
            None => Sniff::Unsure,
        }
    }

    fn parse(input: &[u8]) -> Parsed<CsvTable> {
        let mut out = CsvTable { delimiter: ',', ..CsvTable::default() };
        let mut d = Diags::default();
        for l in Lines::new(input) {
            if l.is_blank() {
                continue;
            }
            let text = l.text();
            let t = text.trim_end_matches('\r');
            if out.columns.is_empty() {
                out.delimiter = if t.contains('\t') { '\t' } else { ',' };
                let h = split(t, out.delimiter);
                if header_ok(&h) {
                    out.columns = h.into_iter().map(|s| s.trim().to_string()).collect();
                } else {
                    d.skip(l.no, DiagKind::NoHeader, t);
                }
                continue;
            }
            let f = split(t, out.delimiter);
            if f.len() != out.columns.len() {
                d.skip(l.no, DiagKind::FieldCount, t);
                continue;
            }
            out.rows.push(f);
        }
        out.epoch_column = out.columns.iter().enumerate().find_map(|(i, c)| {
            let named = EPOCH_NAMES.contains(&c.to_ascii_lowercase().as_str());
            let all = !out.rows.is_empty()
                && out.rows.iter().all(|r| r.get(i).is_some_and(|v| epoch_token(v.trim()).is_some()));
            (named && all).then_some(i)
        });
        d.finish(out, count_lines(input))
    }
}

impl Summary for CsvTable {
    fn records(&self) -> usize {
        self.rows.len()
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        v.insert("layout", if self.delimiter == '\t' { "tsv" } else { "csv" }.to_string());
        v.insert("columns", self.columns.join(","));
        if let Some(i) = self.epoch_column
            && let Some(c) = self.columns.get(i)
        {
            v.insert("epoch_column", c.clone());
        }
        v
    }

    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        let i = self.epoch_column?;
        let mut it = self.rows.iter().filter_map(|r| r.get(i).and_then(|v| epoch_token(v.trim())));
        let first = it.next()?;
        let (lo, hi) = it.fold((first, first), |(lo, hi), e| (lo.min(e), hi.max(e)));
        Some((Stamp::Epoch(lo), Stamp::Epoch(hi)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_rows_epoch() {
        let s = b"epoch_start,bytes,write_us,fsync_us\n1795981049.681113,2048,13,4205\n1795981049.701253,6656,29,1311\n1,2\n";
        assert_eq!(Fmt::sniff(s), Sniff::Unsure);
        let p = Fmt::parse(s);
        assert_eq!(p.value.rows.len(), 2);
        assert_eq!(p.skipped_lines, 1);
        assert_eq!(p.value.numbers("bytes").unwrap(), [Some(2048.0), Some(6656.0)]);
        assert_eq!(p.value.epoch_column, Some(0));
        assert_eq!(split("a,\"b,\"\"c\"\"\",d", ','), ["a", "b,\"c\"", "d"]);
        assert_eq!(Fmt::sniff(b"1,2,3\n"), Sniff::No);
        let _ = Fmt::parse(b"\"\n\xff,\xfe\n");
    }
}
