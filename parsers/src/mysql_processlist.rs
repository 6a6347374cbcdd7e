//! `mysql_processlist`: `SHOW FULL PROCESSLIST` as the `mysql` client prints
//! it in batch mode (`-B`, tab-separated, with or without the header line
//! of `-N`) or as a `|`-boxed table.
//!
//! Real sample (`bundles/s2a_mariadb_durable/processlist.tsv`, MariaDB 10.11, `-B -N`; `→` is a TAB):
//!
//! ```text
//! 21→root→localhost→NULL→Sleep→0→→NULL→0.000
//! 22→bench→localhost→bench→Query→0→Commit→UPDATE accounts SET balance = balance + 5, updated = NOW(6) WHERE id = 147→0.000
//! 27→root→localhost→NULL→Query→0→starting→SHOW FULL PROCESSLIST→0.000
//! ```
//!
//! pt-stalk 3.2 (`-processlist`) appends `SHOW FULL PROCESSLIST\G` every
//! second without a `TS` line (`samples/pt_stalk_mariadb/capture/2026_12_01_19_14_22-processlist`):
//!
//! ```text
//! *************************** 1. row ***************************
//!       Id: 8
//!     User: bench
//!  Command: Query
//!    State: Commit
//! ```
//!
//! Each `1. row` starts a new snapshot ([`MysqlProcesslist::snapshots`]).
//!
//! Columns: `Id User Host db Command Time State Info` plus MariaDB's
//! `Progress`; with a header they are mapped by name, without one in this
//! order. `NULL` is an absent value.

use crate::common::lines::count_lines;
use crate::common::scrub::{Ident, Identifiers};
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};

/// One connection.
#[derive(Debug, Clone, PartialEq)]
pub struct Process {
    /// 1-based line number.
    pub line: usize,
    /// Connection id.
    pub id: u64,
    /// User.
    pub user: String,
    /// Client host.
    pub host: String,
    /// Default database.
    pub db: Option<String>,
    /// Command (`Query`, `Sleep`, `Binlog Dump`).
    pub command: String,
    /// Seconds in the current state.
    pub time: Option<i64>,
    /// Thread state (`Commit`, `Waiting for ...`).
    pub state: Option<String>,
    /// Statement text.
    pub info: Option<String>,
    /// MariaDB `Progress` (percent).
    pub progress: Option<f64>,
}

/// A parsed processlist.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MysqlProcesslist {
    /// Connections in order.
    pub processes: Vec<Process>,
    /// `"tsv"`, `"tsv headerless"`, `"table"` or `"vertical"` (`\G`).
    pub layout: &'static str,
    /// Snapshots (`\G` output appended once per sample: each `1. row` starts one).
    pub snapshots: usize,
}

impl MysqlProcesslist {
    /// Connections running a statement (`Command` = `Query` or `Execute`).
    pub fn active(&self) -> impl Iterator<Item = &Process> {
        self.processes.iter().filter(|p| p.command == "Query" || p.command == "Execute")
    }
}

const DEFAULT_COLS: &[&str] = &["Id", "User", "Host", "db", "Command", "Time", "State", "Info", "Progress"];

const COMMANDS: &[&str] = &[
    "Sleep",
    "Query",
    "Connect",
    "Daemon",
    "Binlog Dump",
    "Binlog Dump GTID",
    "Killed",
    "Field List",
    "Init DB",
    "Prepare",
    "Execute",
    "Close stmt",
    "Reset stmt",
    "Quit",
    "Statistics",
    "Processlist",
    "Refresh",
    "Shutdown",
    "Connect Out",
    "Register Slave",
    "Slave_IO",
    "Slave_SQL",
    "Slave_worker",
    "Table Dump",
    "Change user",
    "Long Data",
    "Set option",
    "Fetch",
    "Ping",
    "Time",
    "Debug",
    "Delayed insert",
    "Error",
    "Create DB",
    "Drop DB",
    "Reset connection",
    "Group Replication Data Stream subscription",
];

fn is_header(fields: &[&str]) -> bool {
    fields.len() >= 5
        && fields.first().is_some_and(|f| f.trim().eq_ignore_ascii_case("Id"))
        && fields.iter().any(|f| f.trim() == "Command")
        && fields.iter().any(|f| f.trim() == "User")
}

fn opt(v: &str) -> Option<String> {
    let v = v.trim();
    (v != "NULL" && !v.is_empty()).then(|| v.to_string())
}

fn row(no: usize, cols: &[String], fields: &[&str]) -> Option<Process> {
    let mut p = Process {
        line: no,
        id: 0,
        user: String::new(),
        host: String::new(),
        db: None,
        command: String::new(),
        time: None,
        state: None,
        info: None,
        progress: None,
    };
    let mut have_id = false;
    for (c, f) in cols.iter().zip(fields) {
        let f = f.trim();
        match c.as_str() {
            "Id" | "ID" | "id" => {
                p.id = f.parse().ok()?;
                have_id = true;
            }
            "User" => p.user = f.to_string(),
            "Host" => p.host = f.to_string(),
            "db" => p.db = opt(f),
            "Command" => p.command = f.to_string(),
            "Time" => p.time = if f == "NULL" { None } else { Some(f.parse().ok()?) },
            "State" => p.state = opt(f),
            "Info" => p.info = opt(f),
            "Progress" => p.progress = f.parse().ok(),
            _ => {}
        }
    }
    (have_id && !p.command.is_empty()).then_some(p)
}

/// Splits a `| a | b |` table row.
fn boxed(t: &str) -> Option<Vec<&str>> {
    let inner = t.strip_prefix('|')?.strip_suffix('|')?;
    Some(inner.split('|').map(str::trim).collect())
}

/// The reader.
#[derive(Debug, Clone, Copy)]
pub struct Fmt;

impl Format for Fmt {
    type Output = MysqlProcesslist;
    const ID: &'static str = "mysql_processlist";
    const SAMPLE: &'static str =
        "27\troot\tlocalhost\tNULL\tQuery\t0\tstarting\tSHOW FULL PROCESSLIST\t0.000";
    const DESCRIPTION: &'static str = "SHOW FULL PROCESSLIST (mysql -B tab-separated, headerless or boxed)";

    const IDENTIFIERS: Identifiers = Identifiers::Fields(&[
        ("User", Ident::User),
        ("Host", Ident::Host),
        ("db", Ident::Schema),
        ("Info", Ident::Sql),
    ]);
    fn sniff(head: &[u8]) -> Sniff {
        let mut vertical = false;
        for l in Lines::new(head).filter(|l| !l.is_blank()) {
            let t = l.text();
            let t = t.trim_end();
            if crate::mysql_variables::is_row_marker(t) {
                vertical = true;
                continue;
            }
            if vertical {
                let ok = t.trim_start().strip_prefix("Id:").is_some_and(|v| v.trim().parse::<u64>().is_ok());
                return if ok { Sniff::Yes } else { Sniff::No };
            }
            if t.starts_with("+-") {
                continue;
            }
            let fields: Vec<&str> = match boxed(t) {
                Some(f) => f,
                None => t.split('\t').collect(),
            };
            if is_header(&fields) {
                return Sniff::Yes;
            }
            // Headerless: `21	root	localhost	NULL	Sleep	0		NULL	0.000`
            let ok = (8..=9).contains(&fields.len())
                && fields.first().is_some_and(|f| f.parse::<u64>().is_ok())
                && fields.get(4).is_some_and(|c| COMMANDS.contains(c))
                && fields.get(5).is_some_and(|f| f.parse::<i64>().is_ok());
            return if ok { Sniff::Yes } else { Sniff::No };
        }
        Sniff::No
    }

    fn parse(input: &[u8]) -> Parsed<MysqlProcesslist> {
        let mut out = MysqlProcesslist { processes: Vec::new(), layout: "tsv headerless", snapshots: 0 };
        let mut d = Diags::default();
        let mut cols: Vec<String> = DEFAULT_COLS.iter().map(|s| s.to_string()).collect();
        // `\G`: the row being read (its marker line, field names, values).
        let mut vert: Option<(usize, Vec<String>, Vec<String>)> = None;
        let flush = |vert: &mut Option<(usize, Vec<String>, Vec<String>)>,
                     out: &mut MysqlProcesslist,
                     d: &mut Diags| {
            if let Some((no, names, vals)) = vert.take() {
                let f: Vec<&str> = vals.iter().map(String::as_str).collect();
                match row(no, &names, &f) {
                    Some(p) => out.processes.push(p),
                    None => d.skip(no, DiagKind::Malformed, "row without Id or Command"),
                }
            }
        };
        for (l, text) in Lines::new(input).content() {
            let t = text.trim_end_matches(['\r', '\n']);
            if crate::mysql_variables::is_row_marker(t) {
                flush(&mut vert, &mut out, &mut d);
                out.layout = "vertical";
                if t.contains(" 1. row ") {
                    out.snapshots += 1;
                }
                vert = Some((l.no, Vec::new(), Vec::new()));
                continue;
            }
            if let Some((_, names, vals)) = vert.as_mut() {
                match t.trim_start().split_once(':') {
                    Some((k, v)) if !k.contains(' ') => {
                        names.push(k.to_string());
                        vals.push(v.trim().to_string());
                    }
                    // A multi-line Info continues the last value.
                    _ => {
                        if let Some(last) = vals.last_mut() {
                            last.push('\n');
                            last.push_str(t);
                        }
                    }
                }
                continue;
            }
            if t.starts_with("+-") {
                out.layout = "table";
                continue;
            }
            let is_box = t.starts_with('|');
            let fields: Vec<&str> = match boxed(t.trim_end()) {
                Some(f) => f,
                None => t.split('\t').collect(),
            };
            if is_header(&fields) {
                cols = fields.iter().map(|f| f.trim().to_string()).collect();
                if !is_box {
                    out.layout = "tsv";
                }
                continue;
            }
            if fields.len() != cols.len() && !(cols.len() == DEFAULT_COLS.len() && fields.len() == 8) {
                d.skip(l.no, DiagKind::FieldCount, t);
                continue;
            }
            match row(l.no, &cols, &fields) {
                Some(p) => out.processes.push(p),
                None => d.skip(l.no, DiagKind::Malformed, t),
            }
        }
        flush(&mut vert, &mut out, &mut d);
        if out.snapshots == 0 && !out.processes.is_empty() {
            out.snapshots = 1;
        }
        d.finish(out, count_lines(input))
    }
}

impl Summary for MysqlProcesslist {
    fn records(&self) -> usize {
        self.processes.len()
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        v.insert("layout", self.layout.to_string());
        v.insert("active", self.active().count().to_string());
        if self.snapshots > 1 {
            v.insert("snapshots", self.snapshots.to_string());
        }
        v
    }

    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headerless_and_boxed() {
        let s = "21\troot\tlocalhost\tNULL\tSleep\t0\t\tNULL\t0.000\n22\tbench\tlocalhost\tbench\tQuery\t0\tCommit\tUPDATE t SET a = 1\t0.000\n";
        assert_eq!(Fmt::sniff(s.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(s.as_bytes());
        assert!(p.diagnostics.is_empty());
        assert_eq!(p.value.processes[1].state.as_deref(), Some("Commit"));
        assert_eq!(p.value.processes[0].db, None);
        let b = "+----+\n| Id | User | Host | db | Command | Time | State | Info |\n+--+\n| 5 | root | localhost | NULL | Query | 0 | starting | SHOW PROCESSLIST |\n";
        let p = Fmt::parse(b.as_bytes());
        assert_eq!(p.value.processes[0].info.as_deref(), Some("SHOW PROCESSLIST"));
        assert_eq!(p.value.layout, "table");
        let _ = Fmt::parse(b"x\ty\n\xff\n|\n");
        let g = "*************************** 1. row ***************************\n      Id: 8\n    User: bench\n    Host: localhost\n\
      db: bench\n Command: Query\n    Time: 0\n   State: Commit\n    Info: INSERT INTO t\nVALUES (1)\nProgress: 0.000\n\
*************************** 1. row ***************************\n      Id: 9\n    User: root\n Command: Sleep\n    Time: 3\n";
        assert_eq!(Fmt::sniff(g.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(g.as_bytes());
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        assert_eq!((p.value.snapshots, p.value.processes.len(), p.value.layout), (2, 2, "vertical"));
        assert_eq!(p.value.processes[0].info.as_deref(), Some("INSERT INTO t\nVALUES (1)"));
        assert_eq!(p.value.processes[0].state.as_deref(), Some("Commit"));
    }
}
