//! `mysql_threads`: `performance_schema.threads` dumps, the map from an OS
//! thread id (`THREAD_OS_ID`, what pidstat/perf show as TID) to the server's
//! thread name (`thread/sql/one_connection`, `thread/innodb/page_cleaner_thread`).
//!
//! Real sample (`bundles/s2a_mariadb_durable/mariadb-threads.tsv`, made by
//! `SELECT THREAD_ID, NAME, TYPE, PROCESSLIST_ID, PROCESSLIST_USER,
//! PROCESSLIST_COMMAND, THREAD_OS_ID FROM performance_schema.threads` in batch
//! mode without column names, after a pt-stalk `TS` line; `\t` marks a TAB):
//!
//! ```text
//! TS 1795981346.272971029 2026-11-29 19:42:26
//! 38\tthread/sql/one_connection\tFOREGROUND\t22\tbench\tSleep\t19879
//! 4\tthread/innodb/page_cleaner_thread\tBACKGROUND\tNULL\tNULL\tNULL\t30199
//! ```
//!
//! Also read: the same with a header line (`THREAD_ID<TAB>NAME<TAB>...`), the
//! client's `| THREAD_ID | NAME | ... |` tables and `\G` records. Columns are
//! mapped by header name; without a header, a 7-column row is read in the
//! order above and a row of 17 or more columns in the table's own order
//! (`SELECT *`: THREAD_ID, NAME, TYPE, PROCESSLIST_ID, PROCESSLIST_USER,
//! PROCESSLIST_HOST, PROCESSLIST_DB, PROCESSLIST_COMMAND, ..., THREAD_OS_ID at
//! the 17th place in MySQL 5.7/8.x and MariaDB 10.x). `NULL` cells are `None`.

use crate::common::number::parse_u64;
use crate::common::scrub::{Ident, Identifiers};
use crate::common::ts::{TsLine, parse_ts_line};
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};
use crate::mysql_variables::{is_border, is_client_noise, is_row_marker, pipe_cells};

/// One server thread.
#[derive(Debug, Clone, PartialEq)]
pub struct Thread {
    /// 1-based line (of the row, or of the `\G` record's first field).
    pub line: usize,
    /// The pt-stalk `TS` line before the snapshot, if any.
    pub ts: Option<TsLine>,
    /// `THREAD_ID` (performance_schema's own id).
    pub thread_id: Option<u64>,
    /// `NAME` (`thread/sql/one_connection`).
    pub name: String,
    /// `TYPE` (`FOREGROUND` / `BACKGROUND`).
    pub kind: Option<String>,
    /// `PROCESSLIST_ID` (the connection id of SHOW PROCESSLIST).
    pub processlist_id: Option<u64>,
    /// `PROCESSLIST_USER`.
    pub user: Option<String>,
    /// `PROCESSLIST_COMMAND` (`Query`, `Sleep`, ...).
    pub command: Option<String>,
    /// `THREAD_OS_ID`: the Linux TID.
    pub os_id: Option<u32>,
}

/// The parsed dump.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Threads {
    /// Rows in file order (all snapshots of a TS-framed file).
    pub rows: Vec<Thread>,
}

impl Threads {
    /// The thread with OS thread id `tid` (the last snapshot's row when there are several).
    pub fn by_os_id(&self, tid: u32) -> Option<&Thread> {
        self.rows.iter().rev().find(|t| t.os_id == Some(tid))
    }

    /// The `THREAD_OS_ID -> NAME` map.
    pub fn os_map(&self) -> std::collections::HashMap<u32, &str> {
        self.rows.iter().filter_map(|t| Some((t.os_id?, t.name.as_str()))).collect()
    }
}

/// Column order of the capture script's `SELECT` (no header printed).
const SHORT_ORDER: [&str; 7] = [
    "THREAD_ID",
    "NAME",
    "TYPE",
    "PROCESSLIST_ID",
    "PROCESSLIST_USER",
    "PROCESSLIST_COMMAND",
    "THREAD_OS_ID",
];

/// Column order of `SELECT * FROM performance_schema.threads` (first 17 columns, all versions).
const FULL_ORDER: [&str; 17] = [
    "THREAD_ID",
    "NAME",
    "TYPE",
    "PROCESSLIST_ID",
    "PROCESSLIST_USER",
    "PROCESSLIST_HOST",
    "PROCESSLIST_DB",
    "PROCESSLIST_COMMAND",
    "PROCESSLIST_TIME",
    "PROCESSLIST_STATE",
    "PROCESSLIST_INFO",
    "PARENT_THREAD_ID",
    "ROLE",
    "INSTRUMENTED",
    "HISTORY",
    "CONNECTION_TYPE",
    "THREAD_OS_ID",
];

/// Indices of the columns a [`Thread`] is built from.
#[derive(Debug, Clone, Default)]
struct ColMap {
    n: usize,
    thread_id: Option<usize>,
    name: Option<usize>,
    kind: Option<usize>,
    pl_id: Option<usize>,
    user: Option<usize>,
    command: Option<usize>,
    os_id: Option<usize>,
}

impl ColMap {
    fn new<S: AsRef<str>>(names: &[S]) -> Option<ColMap> {
        let pos = |n: &str| names.iter().position(|c| c.as_ref().eq_ignore_ascii_case(n));
        let m = ColMap {
            n: names.len(),
            thread_id: pos("THREAD_ID"),
            name: pos("NAME"),
            kind: pos("TYPE"),
            pl_id: pos("PROCESSLIST_ID"),
            user: pos("PROCESSLIST_USER"),
            command: pos("PROCESSLIST_COMMAND"),
            os_id: pos("THREAD_OS_ID"),
        };
        m.name.is_some().then_some(m)
    }

    /// Builds a row; `Err` with the diagnostic kind when a cell is bad.
    fn row(&self, line: usize, ts: Option<TsLine>, cells: &[&str]) -> Result<Thread, DiagKind> {
        let cell = |i: Option<usize>| -> Option<&str> {
            let c = cells.get(i?)?.trim();
            (c != "NULL" && !c.is_empty()).then_some(c)
        };
        let num = |i: Option<usize>| -> Result<Option<u64>, DiagKind> {
            match cell(i) {
                None => Ok(None),
                Some(c) => parse_u64(c).map(Some).ok_or(DiagKind::BadNumber),
            }
        };
        let name = cell(self.name).ok_or(DiagKind::Malformed)?;
        let os_id = match num(self.os_id)? {
            None => None,
            Some(v) => Some(u32::try_from(v).map_err(|_| DiagKind::BadNumber)?),
        };
        Ok(Thread {
            line,
            ts,
            thread_id: num(self.thread_id)?,
            name: name.to_string(),
            kind: cell(self.kind).map(str::to_string),
            processlist_id: num(self.pl_id)?,
            user: cell(self.user).map(str::to_string),
            command: cell(self.command).map(str::to_string),
            os_id,
        })
    }
}

/// True for a header line naming the threads columns.
fn is_header_cells(cells: &[&str]) -> bool {
    cells.iter().any(|c| c.eq_ignore_ascii_case("NAME"))
        && cells.iter().any(|c| c.eq_ignore_ascii_case("THREAD_ID") || c.eq_ignore_ascii_case("THREAD_OS_ID"))
}

/// A headerless tab-separated row: `38<TAB>thread/sql/one_connection<TAB>...`.
fn headerless_map(cells: &[&str]) -> Option<ColMap> {
    let looks = cells.first().is_some_and(|c| parse_u64(c).is_some())
        && cells.get(1).is_some_and(|c| c.starts_with("thread/"));
    if !looks {
        return None;
    }
    match cells.len() {
        7 => ColMap::new(&SHORT_ORDER),
        n if n >= 17 => ColMap::new(&FULL_ORDER),
        _ => None,
    }
}

impl Summary for Threads {
    fn records(&self) -> usize {
        self.rows.len()
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        if !self.rows.is_empty() {
            let snaps = {
                let mut n = 0;
                let mut last = None;
                for r in &self.rows {
                    let e = r.ts.map(|t| t.epoch.to_bits());
                    if n == 0 || e != last {
                        n += 1;
                        last = e;
                    }
                }
                n
            };
            v.insert("snapshots", snaps.to_string());
            v.insert("with_os_id", self.rows.iter().filter(|r| r.os_id.is_some()).count().to_string());
        }
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        crate::common::ts::ts_range(self.rows.iter().map(|r| r.ts))
    }
}

/// The `mysql_threads` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Threads;
    const ID: &'static str = "mysql_threads";
    const SAMPLE: &'static str = "38\tthread/sql/one_connection\tFOREGROUND\t22\tbench\tSleep\t19879";
    const DESCRIPTION: &'static str =
        "performance_schema.threads dumps (THREAD_OS_ID -> NAME), tab-separated, tabular or \\G";

    /// Yes on a header naming `NAME` and `THREAD_ID`/`THREAD_OS_ID`, a `\G`
    /// `THREAD_ID:` field, or a headerless `<id><TAB>thread/...` row.
    const IDENTIFIERS: Identifiers = Identifiers::Fields(&[
        ("PROCESSLIST_USER", Ident::User),
        ("PROCESSLIST_HOST", Ident::Host),
        ("PROCESSLIST_DB", Ident::Schema),
        ("PROCESSLIST_INFO", Ident::Sql),
        ("User", Ident::User),
        ("Host", Ident::Host),
        ("db", Ident::Schema),
        ("Info", Ident::Sql),
    ]);
    fn sniff(head: &[u8]) -> Sniff {
        for l in Lines::new(head).filter(|l| !l.is_blank()).take(6) {
            let t = l.text();
            let t = t.trim_end();
            if parse_ts_line(t).is_some() || is_border(t) || is_row_marker(t) {
                continue;
            }
            if let Some(cells) = pipe_cells(t, 0) {
                return if is_header_cells(&cells) { Sniff::Yes } else { Sniff::No };
            }
            let cells: Vec<&str> = t.split('\t').collect();
            if is_header_cells(&cells) || headerless_map(&cells).is_some() {
                return Sniff::Yes;
            }
            if t.trim_start().starts_with("THREAD_ID:") {
                return Sniff::Yes;
            }
            return Sniff::No;
        }
        Sniff::No
    }

    fn parse(input: &[u8]) -> Parsed<Threads> {
        let mut d = Diags::default();
        let mut out = Threads::default();
        let mut lines = 0;
        let mut ts: Option<TsLine> = None;
        let mut map: Option<ColMap> = None;
        // `\G` record being collected: (first line, names, values).
        let mut rec: Option<(usize, Vec<String>, Vec<String>)> = None;
        let flush = |rec: &mut Option<(usize, Vec<String>, Vec<String>)>,
                     ts: Option<TsLine>,
                     out: &mut Threads,
                     d: &mut Diags| {
            if let Some((no, names, vals)) = rec.take()
                && !names.is_empty()
            {
                let cells: Vec<&str> = vals.iter().map(String::as_str).collect();
                match ColMap::new(&names).map(|m| m.row(no, ts, &cells)) {
                    Some(Ok(t)) => out.rows.push(t),
                    Some(Err(k)) => d.skip(no, k, format!("record: {}", vals.join(" | "))),
                    None => d.skip(no, DiagKind::Malformed, "record without NAME"),
                }
            }
        };
        for l in Lines::new(input) {
            lines = l.no;
            if l.is_blank() {
                continue;
            }
            let text = l.clean_text();
            let t = text.trim_end();
            if let Some(tsl) = parse_ts_line(t) {
                flush(&mut rec, ts, &mut out, &mut d);
                ts = Some(tsl);
                continue;
            }
            if is_row_marker(t) {
                flush(&mut rec, ts, &mut out, &mut d);
                rec = Some((l.no + 1, Vec::new(), Vec::new()));
                continue;
            }
            if is_border(t) || is_client_noise(t) {
                continue;
            }
            if let Some((_, names, vals)) = rec.as_mut() {
                // `   THREAD_OS_ID: 19879`
                if let Some((k, v)) = t.split_once(':')
                    && !k.trim().is_empty()
                    && k.trim().bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
                {
                    names.push(k.trim().to_string());
                    vals.push(v.trim().to_string());
                } else {
                    d.skip(l.no, DiagKind::Malformed, t);
                }
                continue;
            }
            let piped = pipe_cells(t, map.as_ref().map_or(0, |m| m.n));
            let cells: Vec<&str> = match &piped {
                Some(c) => c.clone(),
                None => t.split('\t').collect(),
            };
            if is_header_cells(&cells) {
                map = ColMap::new(&cells);
                continue;
            }
            if (map.is_none() || piped.is_none() && map.as_ref().is_some_and(|m| m.n != cells.len()))
                && let Some(m) = headerless_map(&cells)
            {
                map = Some(m);
            }
            let Some(m) = &map else {
                d.skip(l.no, DiagKind::NoHeader, t);
                continue;
            };
            if cells.len() != m.n {
                d.skip(l.no, DiagKind::FieldCount, t);
                continue;
            }
            match m.row(l.no, ts, &cells) {
                Ok(r) => out.rows.push(r),
                Err(k) => d.skip(l.no, k, t),
            }
        }
        flush(&mut rec, ts, &mut out, &mut d);
        d.finish(out, lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headerless_ts_framed() {
        let s = "TS 1795981346.272971029 2026-11-29 19:42:26\n\
38\tthread/sql/one_connection\tFOREGROUND\t22\tbench\tSleep\t19879\n\
4\tthread/innodb/page_cleaner_thread\tBACKGROUND\tNULL\tNULL\tNULL\t30199\n";
        assert_eq!(Fmt::sniff(s.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(s.as_bytes());
        assert!(p.diagnostics.is_empty());
        let t = p.value.by_os_id(19879).unwrap();
        assert_eq!(t.name, "thread/sql/one_connection");
        assert_eq!(t.processlist_id, Some(22));
        assert_eq!(t.line, 2);
        assert!(t.ts.is_some());
        assert_eq!(p.value.by_os_id(30199).unwrap().user, None);
    }

    #[test]
    fn tabular_and_vertical() {
        let s = "+-----------+---------------------------+--------------+\n\
| THREAD_ID | NAME                      | THREAD_OS_ID |\n\
+-----------+---------------------------+--------------+\n\
|         1 | thread/sql/main           |        30194 |\n\
|        38 | thread/sql/one_connection |        19879 |\n\
+-----------+---------------------------+--------------+\n2 rows in set (0.001 sec)\n";
        assert_eq!(Fmt::sniff(s.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(s.as_bytes());
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        assert_eq!(p.value.os_map().get(&30194), Some(&"thread/sql/main"));

        let g = "*************************** 1. row ***************************\n\
   THREAD_ID: 38\n        NAME: thread/sql/one_connection\nTHREAD_OS_ID: 19879\n\
*************************** 2. row ***************************\n   THREAD_ID: 1\n        NAME: thread/sql/main\nTHREAD_OS_ID: 30194\n";
        assert_eq!(Fmt::sniff(g.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(g.as_bytes());
        assert_eq!(p.value.rows.len(), 2);
        assert_eq!(p.value.by_os_id(30194).unwrap().thread_id, Some(1));
    }

    #[test]
    fn bad_cells_are_reported() {
        let p = Fmt::parse(b"THREAD_ID\tNAME\tTHREAD_OS_ID\nx\tthread/sql/main\t1\n1\tthread/sql/main\n");
        assert_eq!(p.skipped_lines, 2);
        assert_eq!(p.diagnostics[0].kind, DiagKind::BadNumber);
    }
}
