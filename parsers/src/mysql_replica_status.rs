//! `mysql_replica_status`: a replica's `SHOW SLAVE STATUS` / `SHOW REPLICA
//! STATUS` / `SHOW ALL SLAVES STATUS` (one row per source connection), single
//! or as a series framed by pt-stalk `TS` lines (pt-stalk `-slave-status`,
//! `collect.sh -M` `PREFIX-slave-status`), plus the local binary-log position
//! of `SHOW MASTER STATUS` / `SHOW BINARY LOG STATUS` series
//! (`PREFIX-master-status`): the same file family tells how far a replica has
//! read and executed and how far its own binary log has grown.
//!
//! Real sample (MariaDB 10.11 replica of `samples/replica_io_bound`, `mariadb -B -e 'SHOW ALL SLAVES STATUS\G'`):
//!
//! ```text
//! TS 1796152351.459708904 2026-12-01 19:12:31
//! *************************** 1. row ***************************
//!                Connection_name:
//!                Slave_SQL_State: Slave has read all relay log; waiting for more updates
//!                 Slave_IO_State: Waiting for master to send event
//!                Master_Log_File: primary-bin.000001
//!            Read_Master_Log_Pos: 125131
//!            Exec_Master_Log_Pos: 124555
//!                Relay_Log_Space: 126044
//!          Seconds_Behind_Master: 1
//! ```
//!
//! MySQL 8.0.22+ and 8.4 name the same columns with `Source`/`Replica`
//! (`Read_Source_Log_Pos`, `Seconds_Behind_Source`, `Replica_IO_Running`);
//! names are read in both spellings and kept in the `Master`/`Slave` one
//! ([`canonical`]). Layouts: `\G` records (a value may continue on the next
//! lines, as a long `Executed_Gtid_Set` does), `| a | b |` client tables and
//! tab-separated batch output with its header line. `NULL` and empty cells
//! are absent values. The `File Position Binlog_Do_DB ...` rows of `SHOW
//! MASTER STATUS` go to [`ReplicaStatus::binlog`].

use crate::common::number::parse_u64;
use crate::common::scrub::{Ident, Identifiers};
use crate::common::ts::{TsLine, parse_ts_line};
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};
use crate::mysql_variables::{is_border, is_client_noise, is_row_marker, pipe_cells};

/// One replication connection at one instant.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Connection {
    /// 1-based line (of the row, or of the `\G` record's first field).
    pub line: usize,
    /// The `TS` line before the snapshot, if any.
    pub ts: Option<TsLine>,
    /// `Connection_name` (MariaDB multi-source) or `Channel_Name` (MySQL); empty for the default.
    pub name: String,
    /// `Slave_IO_State` (`Waiting for master to send event`).
    pub io_state: Option<String>,
    /// `Slave_SQL_Running_State` (or MariaDB's `Slave_SQL_State`).
    pub sql_state: Option<String>,
    /// `Master_Host`.
    pub source_host: Option<String>,
    /// `Master_Port`.
    pub source_port: Option<u64>,
    /// `Master_Log_File`: the source binlog the IO thread reads.
    pub source_log_file: Option<String>,
    /// `Read_Master_Log_Pos`: how far the IO thread has received.
    pub read_pos: Option<u64>,
    /// `Relay_Log_File`.
    pub relay_log_file: Option<String>,
    /// `Relay_Log_Pos`.
    pub relay_log_pos: Option<u64>,
    /// `Relay_Master_Log_File`: the source binlog of the last executed event.
    pub exec_source_log_file: Option<String>,
    /// `Exec_Master_Log_Pos`: how far the SQL thread has executed.
    pub exec_pos: Option<u64>,
    /// `Slave_IO_Running` (`Yes`, `No`, `Connecting`).
    pub io_running: Option<String>,
    /// `Slave_SQL_Running`.
    pub sql_running: Option<String>,
    /// `Relay_Log_Space`: bytes of all relay logs.
    pub relay_log_space: Option<u64>,
    /// `Seconds_Behind_Master` (`None` for `NULL`: a thread not running).
    pub seconds_behind: Option<u64>,
    /// `Master_Server_Id`.
    pub source_server_id: Option<u64>,
    /// `Last_IO_Errno`.
    pub last_io_errno: Option<u64>,
    /// `Last_SQL_Errno`.
    pub last_sql_errno: Option<u64>,
    /// Every column as printed, names in [`canonical`] spelling, values trimmed.
    pub fields: Vec<(String, String)>,
}

impl Connection {
    /// A column by (canonical or `Source`/`Replica`) name.
    pub fn get(&self, name: &str) -> Option<&str> {
        let n = canonical(name);
        self.fields.iter().find(|(k, _)| k.eq_ignore_ascii_case(&n)).map(|(_, v)| v.as_str())
    }

    /// Received but not yet executed bytes of the source binlog, when both
    /// positions are in the same source file.
    pub fn backlog_bytes(&self) -> Option<u64> {
        (self.source_log_file.is_some() && self.source_log_file == self.exec_source_log_file)
            .then(|| self.read_pos?.checked_sub(self.exec_pos?))
            .flatten()
    }

    /// True when the SQL thread has executed everything the IO thread read
    /// (the servers then print `Seconds_Behind_Master: 0` however far the IO thread is behind).
    pub fn sql_caught_up(&self) -> bool {
        self.backlog_bytes() == Some(0)
    }
}

/// One `SHOW MASTER STATUS` row: the local binary log's end.
#[derive(Debug, Clone, PartialEq)]
pub struct BinlogPos {
    /// 1-based line.
    pub line: usize,
    /// The `TS` line before it.
    pub ts: Option<TsLine>,
    /// `File`.
    pub file: String,
    /// `Position`.
    pub position: u64,
}

/// A parsed file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReplicaStatus {
    /// Replica rows in file order (every connection of every snapshot).
    pub rows: Vec<Connection>,
    /// `SHOW MASTER STATUS` rows in file order.
    pub binlog: Vec<BinlogPos>,
    /// `"vertical"`, `"table"` or `"tsv"` (of the first row seen).
    pub layout: &'static str,
    /// `"source"` when the file spelled the columns `Source`/`Replica` (MySQL 8.0.22+), else `"master"`.
    pub naming: &'static str,
    /// pt-stalk's echoed `SHOW SLAVE STATUS\G` statements (one per collection loop).
    pub statements: usize,
    /// Those of them that returned no row: the server was not a replica then.
    pub empty_answers: usize,
    /// performance_schema replication tables pt-stalk adds for MySQL > 5.6 (not read; their rows repeat
    /// SHOW SLAVE STATUS).
    pub other_statements: usize,
}

impl ReplicaStatus {
    /// True when the file shows a server that is not a replica: every `SHOW SLAVE STATUS`
    /// pt-stalk ran returned nothing.
    pub fn not_a_replica(&self) -> bool {
        self.rows.is_empty() && self.empty_answers > 0 && self.empty_answers == self.statements
    }

    /// The connection names, in order of first appearance.
    pub fn connections(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for r in &self.rows {
            if !out.contains(&r.name.as_str()) {
                out.push(&r.name);
            }
        }
        out
    }

    /// The rows of one connection, in file order.
    pub fn series<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s Connection> + 's {
        self.rows.iter().filter(move |r| r.name == name)
    }
}

/// The `Master`/`Slave` spelling of a column name: MySQL 8.0.22+ `Source`
/// and `Replica` words are mapped back (`Read_Source_Log_Pos` ->
/// `Read_Master_Log_Pos`, `Replica_IO_Running` -> `Slave_IO_Running`), and
/// MariaDB's `Slave_SQL_State` of `SHOW ALL SLAVES STATUS` is kept as is.
pub fn canonical(name: &str) -> String {
    name.split('_')
        .map(|w| match w {
            "Source" => "Master",
            "source" => "master",
            "Replica" => "Slave",
            "replica" => "slave",
            w => w,
        })
        .collect::<Vec<_>>()
        .join("_")
}

/// True for a column name of a replica status row (either spelling).
fn is_status_key(name: &str) -> bool {
    matches!(
        canonical(name).as_str(),
        "Slave_IO_State"
            | "Read_Master_Log_Pos"
            | "Exec_Master_Log_Pos"
            | "Seconds_Behind_Master"
            | "Connection_name"
    )
}

/// True for the header cells of a replica status table.
fn is_status_header(cells: &[&str]) -> bool {
    cells.iter().any(|c| canonical(c) == "Read_Master_Log_Pos")
        && cells.iter().any(|c| canonical(c) == "Exec_Master_Log_Pos")
}

/// True for the header cells of `SHOW MASTER STATUS`.
fn is_binlog_header(cells: &[&str]) -> bool {
    cells.first() == Some(&"File") && cells.get(1) == Some(&"Position")
}

/// A `\G` field line `   Read_Master_Log_Pos: 125131` as (name, value).
fn vertical_field(line: &str) -> Option<(&str, &str)> {
    let (k, v) = line.split_once(':')?;
    let k = k.trim();
    let ok = k.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    ok.then_some((k, v.trim()))
}

/// Builds a [`Connection`] from names and values; `Err` names the bad cell.
fn connection(
    line: usize,
    ts: Option<TsLine>,
    names: &[String],
    vals: &[String],
) -> Result<Connection, String> {
    let mut c = Connection { line, ts, ..Connection::default() };
    for (k, v) in names.iter().zip(vals) {
        let v = v.trim();
        let key = canonical(k);
        let text = (!v.is_empty() && v != "NULL").then(|| v.to_string());
        let num = |t: &Option<String>| -> Result<Option<u64>, String> {
            match t {
                None => Ok(None),
                Some(s) => parse_u64(s).map(Some).ok_or_else(|| format!("{key}: {s}")),
            }
        };
        match key.as_str() {
            "Connection_name" | "Channel_Name" => c.name = v.to_string(),
            "Slave_IO_State" => c.io_state = text.clone(),
            "Slave_SQL_Running_State" => c.sql_state = text.clone().or(c.sql_state.take()),
            "Slave_SQL_State" => c.sql_state = c.sql_state.take().or(text.clone()),
            "Master_Host" => c.source_host = text.clone(),
            "Master_Port" => c.source_port = num(&text)?,
            "Master_Log_File" => c.source_log_file = text.clone(),
            "Read_Master_Log_Pos" => c.read_pos = num(&text)?,
            "Relay_Log_File" => c.relay_log_file = text.clone(),
            "Relay_Log_Pos" => c.relay_log_pos = num(&text)?,
            "Relay_Master_Log_File" => c.exec_source_log_file = text.clone(),
            "Exec_Master_Log_Pos" => c.exec_pos = num(&text)?,
            "Slave_IO_Running" => c.io_running = text.clone(),
            "Slave_SQL_Running" => c.sql_running = text.clone(),
            "Relay_Log_Space" => c.relay_log_space = num(&text)?,
            "Seconds_Behind_Master" => c.seconds_behind = num(&text)?,
            "Master_Server_Id" => c.source_server_id = num(&text)?,
            "Last_IO_Errno" => c.last_io_errno = num(&text)?,
            "Last_SQL_Errno" => c.last_sql_errno = num(&text)?,
            _ => {}
        }
        c.fields.push((key, v.to_string()));
    }
    if c.read_pos.is_none() && c.exec_pos.is_none() && c.io_state.is_none() {
        return Err("no replication position or IO state".into());
    }
    Ok(c)
}

/// What the table rows that follow a header are.
#[derive(Debug, Clone)]
enum Header {
    Status(Vec<String>),
    Binlog(Vec<String>),
}

/// A `\G` record being collected: first line, names, values, source or replica.
type Record = (usize, Vec<String>, Vec<String>);

struct State {
    out: ReplicaStatus,
    d: Diags,
    ts: Option<TsLine>,
    header: Option<Header>,
    rec: Option<Record>,
    /// The statement pt-stalk echoed last: a replica status one (and the rows seen before it), or another.
    stmt: Option<(bool, usize)>,
}

/// A statement pt-stalk echoes before its output (`slave_status` in bin/pt-stalk):
/// `SHOW SLAVE STATUS\G`, or for MySQL > 5.6 also
/// `SELECT * FROM performance_schema.replication_connection_status\G`. `Some(true)` for a
/// replica status statement.
fn echoed_statement(t: &str) -> Option<bool> {
    let t = t.trim();
    let status = matches!(t, "SHOW SLAVE STATUS\\G" | "SHOW REPLICA STATUS\\G" | "SHOW ALL SLAVES STATUS\\G");
    (status
        || (t.starts_with("SELECT ") && t.ends_with("\\G") && t.contains("performance_schema.replication")))
    .then_some(status)
}

impl State {
    /// Closes the statement before `next`: counts a status statement that returned no row.
    fn statement(&mut self, next: Option<bool>) {
        self.flush();
        if let Some((true, before)) = self.stmt
            && self.out.rows.len() == before
        {
            self.out.empty_answers += 1;
        }
        match next {
            Some(true) => self.out.statements += 1,
            Some(false) => self.out.other_statements += 1,
            None => {}
        }
        self.stmt = next.map(|status| (status, self.out.rows.len()));
    }

    fn naming(&mut self, names: &[String]) {
        // Words, not substrings: MariaDB's `Replicate_Do_DB` is not MySQL 8's `Replica_IO_Running`.
        if names.iter().any(|n| n.split('_').any(|w| w == "Source" || w == "Replica")) {
            self.out.naming = "source";
        }
    }

    fn layout(&mut self, l: &'static str) {
        if self.out.rows.is_empty() && self.out.binlog.is_empty() {
            self.out.layout = l;
        }
    }

    fn row(&mut self, line: usize, names: &[String], vals: &[String], layout: &'static str) {
        if names.first().is_some_and(|n| n == "File") {
            let pos = vals.get(1).and_then(|v| parse_u64(v.trim()));
            match (vals.first(), pos) {
                (Some(f), Some(p)) if !f.trim().is_empty() => {
                    self.layout(layout);
                    self.out.binlog.push(BinlogPos {
                        line,
                        ts: self.ts,
                        file: f.trim().to_string(),
                        position: p,
                    });
                }
                _ => self.d.skip(line, DiagKind::BadNumber, format!("File/Position: {}", vals.join(" | "))),
            }
            return;
        }
        self.naming(names);
        match connection(line, self.ts, names, vals) {
            Ok(c) => {
                self.layout(layout);
                self.out.rows.push(c);
            }
            Err(e) => self.d.skip(line, DiagKind::BadNumber, e),
        }
    }

    fn flush(&mut self) {
        if let Some((no, names, vals)) = self.rec.take()
            && !names.is_empty()
        {
            self.row(no, &names, &vals, "vertical");
        }
    }
}

/// The reader.
#[derive(Debug, Clone, Copy)]
pub struct Fmt;

impl Format for Fmt {
    type Output = ReplicaStatus;
    const ID: &'static str = "mysql_replica_status";
    const SAMPLE: &'static str = "           Read_Master_Log_Pos: 125131";
    const DESCRIPTION: &'static str = "SHOW SLAVE/REPLICA/ALL SLAVES STATUS (\\G, tabular, tab-separated; single or TS-framed) and SHOW MASTER STATUS series";

    /// Yes on a `\G` record whose first field is a replica status column, a
    /// table or tab header naming the read and executed positions, or a `File
    /// Position` header after a `TS` line.
    const IDENTIFIERS: Identifiers = Identifiers::Fields(&[
        ("Master_Host", Ident::Host),
        ("Source_Host", Ident::Host),
        ("Master_User", Ident::User),
        ("Source_User", Ident::User),
        ("Replicate_Do_DB", Ident::Schema),
        ("Replicate_Ignore_DB", Ident::Schema),
        ("Replicate_Do_Table", Ident::Table),
        ("Replicate_Ignore_Table", Ident::Table),
        ("Replicate_Wild_Do_Table", Ident::Table),
        ("Replicate_Wild_Ignore_Table", Ident::Table),
        ("Last_Error", Ident::Sql),
        ("Last_SQL_Error", Ident::Sql),
        ("Last_IO_Error", Ident::Sql),
        ("Connection_name", Ident::Host),
        ("Channel_Name", Ident::Host),
    ]);
    fn sniff(head: &[u8]) -> Sniff {
        // pt-stalk `-slave-status`: the echoed statement first (followed by nothing on a server
        // that is not a replica).
        if Lines::new(head).find(|l| !l.is_blank()).is_some_and(|l| echoed_statement(&l.text()) == Some(true))
        {
            return Sniff::Yes;
        }
        let mut after_ts = false;
        let mut after_marker = false;
        let mut border = false;
        for l in Lines::new(head).filter(|l| !l.is_blank()).take(8) {
            let t = l.text();
            let t = t.trim_end();
            if parse_ts_line(t).is_some() {
                after_ts = true;
                continue;
            }
            if is_border(t) {
                border = true;
                continue;
            }
            if is_row_marker(t) {
                after_marker = true;
                continue;
            }
            if after_marker {
                return match vertical_field(t) {
                    Some((k, _)) if is_status_key(k) => Sniff::Yes,
                    Some(("File", _)) if after_ts => Sniff::Yes,
                    _ => Sniff::No,
                };
            }
            // A wide table's header may be cut at the end of the head: no closing `|`.
            let cells: Vec<&str> = match t.strip_prefix('|') {
                Some(inner) => inner.trim_end_matches('|').split('|').map(str::trim).collect(),
                None => t.split('\t').map(str::trim).collect(),
            };
            if is_status_header(&cells) || (after_ts && is_binlog_header(&cells)) {
                return Sniff::Yes;
            }
            return Sniff::No;
        }
        // Only a table border fits in the head (SHOW SLAVE STATUS tables are ~2 kB wide): parse to find out.
        if border { Sniff::Unsure } else { Sniff::No }
    }

    fn parse(input: &[u8]) -> Parsed<ReplicaStatus> {
        let mut s = State {
            out: ReplicaStatus { layout: "vertical", naming: "master", ..ReplicaStatus::default() },
            d: Diags::default(),
            ts: None,
            header: None,
            rec: None,
            stmt: None,
        };
        let mut lines = 0;
        for l in Lines::new(input) {
            lines = l.no;
            if l.is_blank() {
                continue;
            }
            let text = l.clean_text();
            let t = text.trim_end();
            if let Some(tsl) = parse_ts_line(t) {
                s.flush();
                s.ts = Some(tsl);
                s.header = None;
                continue;
            }
            if let Some(status) = echoed_statement(t) {
                s.statement(Some(status));
                continue;
            }
            // Rows of the performance_schema tables repeat SHOW SLAVE STATUS: counted, not read.
            if s.stmt.is_some_and(|(status, _)| !status) {
                continue;
            }
            if is_row_marker(t) {
                s.flush();
                s.rec = Some((l.no + 1, Vec::new(), Vec::new()));
                continue;
            }
            if is_border(t) || is_client_noise(t) || t == "ERROR:" || t == "No query specified" {
                continue;
            }
            if let Some((_, names, vals)) = s.rec.as_mut() {
                match vertical_field(t) {
                    Some((k, v)) => {
                        names.push(k.to_string());
                        vals.push(v.to_string());
                    }
                    // `652ef6a5-d5b4-11f0-8255-000c290f7624:1-1035`: the rest of a GTID set.
                    None => match vals.last_mut() {
                        Some(last) => last.push_str(t.trim()),
                        None => s.d.skip(l.no, DiagKind::Malformed, t),
                    },
                }
                continue;
            }
            let piped = pipe_cells(t, 0);
            let is_pipe = piped.is_some();
            let cells: Vec<&str> = piped.unwrap_or_else(|| t.split('\t').map(str::trim).collect());
            if is_status_header(&cells) || is_binlog_header(&cells) {
                let names: Vec<String> = cells.iter().map(|c| c.to_string()).collect();
                s.header = Some(if is_binlog_header(&cells) {
                    Header::Binlog(names)
                } else {
                    Header::Status(names)
                });
                continue;
            }
            let Some(h) = s.header.clone() else {
                s.d.skip(l.no, DiagKind::NoHeader, t);
                continue;
            };
            let names = match &h {
                Header::Status(n) | Header::Binlog(n) => n,
            };
            // A tab-separated row keeps its empty leading cell (`Connection_name` of the default connection).
            let raw: Vec<&str> =
                if is_pipe { cells } else { text.trim_end_matches(['\r', '\n']).split('\t').collect() };
            if raw.len() != names.len() {
                s.d.skip(l.no, DiagKind::FieldCount, t);
                continue;
            }
            let vals: Vec<String> = raw.iter().map(|c| c.trim().to_string()).collect();
            s.row(l.no, names, &vals, if is_pipe { "table" } else { "tsv" });
        }
        s.statement(None);
        s.d.finish(s.out, lines)
    }
}

impl Summary for ReplicaStatus {
    fn records(&self) -> usize {
        self.rows.len() + self.binlog.len() + self.empty_answers
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        v.insert("layout", self.layout.to_string());
        v.insert("naming", self.naming.to_string());
        if !self.rows.is_empty() {
            v.insert("connections", self.connections().len().to_string());
        }
        if !self.binlog.is_empty() {
            v.insert("binlog_positions", self.binlog.len().to_string());
        }
        if self.not_a_replica() {
            v.insert("not_a_replica", format!("{} empty answers", self.empty_answers));
        }
        v
    }

    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        let stamps = || self.rows.iter().map(|r| r.ts).chain(self.binlog.iter().map(|b| b.ts)).flatten();
        let first = stamps().map(|t| t.epoch).fold(f64::INFINITY, f64::min);
        let last = stamps().map(|t| t.epoch).fold(f64::NEG_INFINITY, f64::max);
        first.is_finite().then_some((Stamp::Epoch(first), Stamp::Epoch(last)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_both_spellings() {
        assert_eq!(canonical("Read_Source_Log_Pos"), "Read_Master_Log_Pos");
        assert_eq!(canonical("Replica_SQL_Running_State"), "Slave_SQL_Running_State");
        assert_eq!(canonical("Seconds_Behind_Source"), "Seconds_Behind_Master");
        assert_eq!(canonical("Get_Source_public_key"), "Get_Master_public_key");
        assert_eq!(canonical("Relay_Log_Space"), "Relay_Log_Space");
    }

    #[test]
    fn vertical_with_continued_gtid_set_and_noise() {
        let s = "*************************** 1. row ***************************\n\
             Replica_IO_State: Waiting for source to send event\n\
          Read_Source_Log_Pos: 157\n\
          Exec_Source_Log_Pos: 157\n\
              Source_Log_File: mysql-bin.000004\n\
        Relay_Source_Log_File: mysql-bin.000004\n\
        Seconds_Behind_Source: NULL\n\
            Executed_Gtid_Set: 30e3a66e-d6b2-11f0-855c-000c29467e5d:1-6,\n\
652ef6a5-d5b4-11f0-8255-000c290f7624:1-1035\n\
                 Channel_Name: \n\
1 row in set (0.0005 sec)\n\nERROR: \nNo query specified\n";
        assert_eq!(Fmt::sniff(s.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(s.as_bytes());
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let c = &p.value.rows[0];
        assert_eq!((c.read_pos, c.exec_pos, c.seconds_behind), (Some(157), Some(157), None));
        assert!(c.sql_caught_up());
        assert_eq!(
            c.get("Executed_Gtid_Set"),
            Some("30e3a66e-d6b2-11f0-855c-000c29467e5d:1-6,652ef6a5-d5b4-11f0-8255-000c290f7624:1-1035")
        );
        assert_eq!(p.value.naming, "source");
    }

    #[test]
    fn bad_number_is_a_diagnostic() {
        let s = "*************************** 1. row ***************************\n\
Slave_IO_State: x\nRead_Master_Log_Pos: 12z\n";
        let p = Fmt::parse(s.as_bytes());
        assert_eq!(p.skipped_lines, 1);
        assert_eq!(p.diagnostics[0].kind, DiagKind::BadNumber);
        assert_eq!(p.diagnostics[0].line, 2);
        let _ = Fmt::parse(b"\xff\n| a |\n*** 1. row ***\n: x\nTS 1\nFile\tPosition\nx\ty\n");
    }

    #[test]
    fn rows_without_header_are_reported() {
        let p = Fmt::parse(b"TS 1796152351.4\nprimary-bin.000001\t42\n");
        assert_eq!(p.diagnostics[0].kind, DiagKind::NoHeader);
        assert!(p.value.binlog.is_empty());
    }
}
