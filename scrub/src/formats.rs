//! Which scrubber a file gets: from its format's declaration in the registry
//! ([`iosift_parsers::FormatInfo::identifiers`]), or, for a file no format reads, from
//! its name (pt-stalk's `-transactions`, `-opentables`, `-lock-waits`, `-hostname`);
//! everything else gets the generic patterns only, and is listed as such.

use super::fields::{Fields, value};
use super::generic::Learnt;
use super::shape::Mapper;
use super::sql::{Mode, Sql};
use iosift_parsers::common::scrub::{Ident, Identifiers, SqlLines};
use regex::bytes::Regex;
use std::sync::LazyLock;

/// Files of no format, by the end of their name (pt-stalk's outputs).
const BY_NAME: &[(&str, &[(&str, Ident)])] = &[
    ("transactions", &[("trx_query", Ident::Sql)]),
    ("opentables1", &[("Database", Ident::Schema), ("Table", Ident::Table)]),
    ("opentables2", &[("Database", Ident::Schema), ("Table", Ident::Table)]),
    ("lock-waits", &[("waiting_query", Ident::Sql), ("blocking_query", Ident::Sql)]),
    (
        "processlist",
        &[("User", Ident::User), ("Host", Ident::Host), ("db", Ident::Schema), ("Info", Ident::Sql)],
    ),
    ("hostname", &[]),
];

/// How a file is scrubbed.
#[derive(Debug)]
pub(crate) enum Handler {
    /// The generic patterns only (a format that declares nothing more, or no format).
    Generic,
    /// Named fields.
    Fields(Fields),
    /// A file holding only the host's name (pt-stalk `-hostname`).
    HostFile,
    /// mysqlbinlog output.
    Binlog {
        /// Statements (state across lines: `BINLOG '` blocks).
        stmt: Sql,
    },
    /// InnoDB status.
    Innodb {
        /// Inside the statement of a transaction.
        query: Option<Sql>,
    },
    /// Quoted strings and names only.
    Quoted,
    /// A binary file.
    Binary,
}

impl Handler {
    /// The handler of a file of `format` (if detected) named `base`.
    pub(crate) fn new(format: Option<&iosift_parsers::FormatInfo>, base: &str) -> Handler {
        if let Some(f) = format {
            return match f.identifiers {
                Identifiers::Generic => Handler::Generic,
                Identifiers::Fields(spec) => Handler::Fields(Fields::new(spec)),
                Identifiers::Sql(SqlLines::Binlog) => Handler::Binlog { stmt: Sql::new() },
                Identifiers::Sql(SqlLines::InnodbStatus) => Handler::Innodb { query: None },
                Identifiers::Sql(SqlLines::Quoted) => Handler::Quoted,
                Identifiers::Binary => Handler::Binary,
            };
        }
        let base = base.strip_suffix(".gz").unwrap_or(base);
        match BY_NAME.iter().find(|(end, _)| base.ends_with(end)) {
            Some(("hostname", _)) => Handler::HostFile,
            Some((_, spec)) => Handler::Fields(Fields::new(spec)),
            None => Handler::Generic,
        }
    }

    /// What the summary calls it.
    pub(crate) fn label(&self) -> &'static str {
        match self {
            Handler::Generic => "generic",
            Handler::Fields(_) => "fields",
            Handler::HostFile => "hostname",
            Handler::Binlog { .. } => "binlog",
            Handler::Innodb { .. } => "innodb status",
            Handler::Quoted => "quoted",
            Handler::Binary => "binary",
        }
    }

    /// The format-specific part of one line (the generic patterns come after).
    pub(crate) fn line(&mut self, line: &[u8], m: &mut Mapper, learn: Option<&mut Learnt>) -> Vec<u8> {
        match self {
            Handler::Generic | Handler::Binary => line.to_vec(),
            Handler::Fields(f) => f.line(line, m, learn),
            Handler::HostFile => value(Ident::Host, line, m, learn).into_bytes(),
            Handler::Binlog { stmt } => binlog(stmt, line, m, learn),
            Handler::Innodb { query } => innodb(query, line, m, learn),
            Handler::Quoted => Sql::new().line(line, Mode::Quoted, m, learn),
        }
    }
}

/// A line of mysqlbinlog output:
/// `#261205 19:44:46 server id 1  end_log_pos 2105 CRC32 0x9393d783 <TAB>Table_map: `bench`.`heartbeat` mapped to number 19`
/// keeps its numbers; `### UPDATE `bench`.`heartbeat``, `#Q> UPDATE heartbeat SET ...` and
/// statements are SQL; `# at 2105`, `# Number of rows: 1` stay.
fn binlog(stmt: &mut Sql, line: &[u8], m: &mut Mapper, learn: Option<&mut Learnt>) -> Vec<u8> {
    const KEEP: &[&[u8]] = &[
        b"# at ",
        b"# Number of rows",
        b"# original_",
        b"# immediate_",
        b"# End of",
        b"# Warning",
        b"# Xid",
    ];
    if !line.starts_with(b"#") {
        return stmt.line(line, Mode::Full, m, learn);
    }
    if line.starts_with(b"###") {
        return Sql::new().line(line, Mode::Full, m, learn);
    }
    if let Some(q) = line.strip_prefix(b"#Q>") {
        return [&b"#Q>"[..], &Sql::new().line(q, Mode::Full, m, learn)].concat();
    }
    if line.get(1).is_some_and(u8::is_ascii_digit) {
        return Sql::new().line(line, Mode::Quoted, m, learn);
    }
    if line.trim_ascii() == b"#" || KEEP.iter().any(|k| line.starts_with(k)) || !line.starts_with(b"# ") {
        return line.to_vec();
    }
    // MySQL's Rows_query text: `# INSERT INTO t VALUES (1, 'abc')`.
    [&b"# "[..], &Sql::new().line(&line[2..], Mode::Full, m, learn)].concat()
}

/// `MariaDB thread id 10, OS thread handle 139644151076544, query id 14777 localhost bench Commit`
static THREAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:MySQL|MariaDB) thread id \d+, OS thread handle \d+, query id \d+ (\S+) (\S+)").unwrap()
});
/// ` 0: len 4; hex 80000001; asc     ;;` (a locked record's fields)
static DUMP: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(\d+: len \d+; hex )([0-9a-f]+)(; asc )(.*?);;").unwrap());

/// A line of InnoDB status.
fn innodb(query: &mut Option<Sql>, line: &[u8], m: &mut Mapper, mut learn: Option<&mut Learnt>) -> Vec<u8> {
    const ENDS: &[&[u8]] = &[
        b"---",
        b"TABLE LOCK",
        b"RECORD LOCKS",
        b"Record lock",
        b"Trx read view",
        b"*** ",
        b"LOCK WAIT",
        b"mysql tables",
        b"MySQL thread id",
        b"MariaDB thread id",
        b"Pending",
        b"END OF",
        b"=====",
    ];
    if let Some(c) = THREAD.captures(line) {
        *query = Some(Sql::new());
        let (h, u) = (c.get(1).unwrap(), c.get(2).unwrap());
        let host = h.as_bytes();
        let hostlike = host == b"localhost" || host.contains(&b'.') || host.contains(&b':');
        if !hostlike {
            return line.to_vec();
        }
        let nh = value(Ident::Host, host, m, learn.as_deref_mut());
        let nu = value(Ident::User, u.as_bytes(), m, learn);
        let mut out = line[..h.start()].to_vec();
        out.extend(nh.into_bytes());
        out.push(b' ');
        out.extend(nu.into_bytes());
        out.extend_from_slice(&line[u.end()..]);
        return out;
    }
    if let Some(sql) = query {
        if !ENDS.iter().any(|e| line.starts_with(e)) && !DUMP.is_match(line) {
            return sql.line(line, Mode::Full, m, learn);
        }
        *query = None;
    }
    if DUMP.is_match(line) {
        let mut out = Vec::with_capacity(line.len());
        let mut at = 0;
        for c in DUMP.captures_iter(line) {
            let all = c.get(0).unwrap();
            out.extend_from_slice(&line[at..all.start()]);
            out.extend_from_slice(&c[1]);
            out.extend(m.hex(&c[2]).into_bytes());
            out.extend_from_slice(&c[3]);
            out.extend(std::iter::repeat_n(b'.', c[4].len()));
            out.extend_from_slice(b";;");
            at = all.end();
        }
        out.extend_from_slice(&line[at..]);
        return out;
    }
    Sql::new().line(line, Mode::Quoted, m, learn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::Key;

    #[test]
    fn binlog_headers_keep_numbers_rows_lose_values() {
        let mut m = Mapper::new(Key::from_bytes(b"t"), false);
        let mut h = Handler::new(iosift_parsers::by_id("mysqlbinlog"), "binlog.txt");
        let mut run = |l: &str| String::from_utf8(h.line(l.as_bytes(), &mut m, None)).unwrap();
        let hdr = "#261205 19:44:46 server id 1  end_log_pos 2105 CRC32 0x9393d783 \tTable_map: `bench`.`heartbeat` mapped to number 19";
        let o = run(hdr);
        assert!(
            o.starts_with(
                "#261205 19:44:46 server id 1  end_log_pos 2105 CRC32 0x9393d783 \tTable_map: `db_"
            ),
            "{o}"
        );
        assert!(o.ends_with("` mapped to number 19") && !o.contains("heartbeat"), "{o}");
        assert_eq!(run("# at 2105"), "# at 2105");
        let o = run("###   @2='2026-12-05 19:44:46.225388' /* DATETIME(6) meta=6 nullable=0 is_null=0 */");
        assert!(o.starts_with("###   @2='s_"), "{o}");
        let o = run("#Q> UPDATE heartbeat SET ts = NOW(6), epoch = 1796499886.4853554e0 WHERE id = 1");
        assert!(o.starts_with("#Q> UPDATE t_") && !o.contains("1796499886"), "{o}");
    }

    #[test]
    fn innodb_status_statements_users_and_dumps() {
        let mut m = Mapper::new(Key::from_bytes(b"t"), false);
        let mut h = Handler::new(iosift_parsers::by_id("innodb_status"), "innodbstatus1");
        let mut run = |l: &str| String::from_utf8(h.line(l.as_bytes(), &mut m, None)).unwrap();
        let o = run(
            "MariaDB thread id 10, OS thread handle 139644151076544, query id 14777 localhost bench Commit",
        );
        assert!(o.contains("localhost user_") && o.ends_with(" Commit"), "{o}");
        let o = run("INSERT INTO orders (customer_id) VALUES (43883)");
        assert!(!o.contains("orders") && !o.contains("43883"), "{o}");
        let o = run("---TRANSACTION 368584, ACTIVE 0 sec");
        assert_eq!(o, "---TRANSACTION 368584, ACTIVE 0 sec");
        let o = run(" 0: len 4; hex 80000001; asc     ;; 1: len 6; hex 6a6f686e; asc john;;");
        assert!(!o.contains("john") && !o.contains("6a6f686e") && o.contains("1: len 6; hex "), "{o}");
    }
}
