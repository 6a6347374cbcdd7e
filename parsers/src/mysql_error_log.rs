//! `mysql_error_log`: the MySQL / MariaDB server error log.
//!
//! Real sample (`bundles/s2a_mariadb_durable/mariadb-error.log`, MariaDB 10.11):
//!
//! ```text
//! 2026-11-29 19:28:28 0 [Note] Starting MariaDB 10.11.19-MariaDB-0+deb12u1-log source revision 5843d84... as process 30194
//! 2026-11-29 19:28:28 0 [Note] InnoDB: Using io_uring
//! 2026-11-29 19:28:28 0 [Warning] 'user' entry '@vm' ignored in --skip-name-resolve mode.
//! Version: '10.11.19-MariaDB-0+deb12u1-log'  socket: '/var/lib/mysql-test/mariadb.sock'  port: 33306  Debian 12
//! ```
//!
//! Line shapes, by server version (MySQL `log_error.cc`, MariaDB `log.cc`):
//! * MariaDB, MySQL 5.6: `YYYY-MM-DD HH:MM:SS <thread> [Level] message` (5.6 without the thread too);
//! * MySQL 5.7: `2026-11-29T19:28:28.123456Z 0 [Note] message` (`Z`, or `+01:00` with `log_timestamps=SYSTEM`);
//! * MySQL 8.0: `2026-11-29T19:28:28.123456Z 0 [System] [MY-010116] [Server] message`;
//! * MySQL 5.5 and older: `161129 19:28:28 [Note] message`, `161129 19:28:28 mysqld_safe Starting ...`.
//!
//! Lines without a time stamp (`Version: ...`, stack traces, InnoDB banners)
//! belong to the entry before them and are kept as entries without a time.

use crate::common::lines::count_lines;
use crate::common::scrub::{Identifiers, SqlLines};
use crate::common::time::{full_year, ymd};
use crate::common::{Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};
use chrono::{DateTime, NaiveTime};

/// One log line.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    /// 1-based line number.
    pub line: usize,
    /// Time stamp as printed (`Local` without a zone, `Zoned` for `Z`/offsets); `None` for continuation lines.
    pub stamp: Option<Stamp>,
    /// Thread id (`0` for server threads), when printed.
    pub thread: Option<u64>,
    /// `Note`, `Warning`, `ERROR`, `System`, ...
    pub level: Option<String>,
    /// MySQL 8 error code (`MY-010116`).
    pub code: Option<String>,
    /// MySQL 8 subsystem (`Server`, `InnoDB`).
    pub subsystem: Option<String>,
    /// The message.
    pub message: String,
}

/// A parsed error log.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MysqlErrorLog {
    /// Entries in file order.
    pub entries: Vec<LogEntry>,
}

impl MysqlErrorLog {
    /// Entries of a level (case-insensitive: `error` matches `ERROR` and `Error`).
    pub fn with_level<'a>(&'a self, level: &'a str) -> impl Iterator<Item = &'a LogEntry> + 'a {
        self.entries.iter().filter(move |e| e.level.as_deref().is_some_and(|l| l.eq_ignore_ascii_case(level)))
    }

    /// The server version of the last `Version: '...'` line.
    pub fn version(&self) -> Option<&str> {
        self.entries.iter().rev().find_map(|e| e.message.strip_prefix("Version: '")?.split('\'').next())
    }
}

fn parse_time(t: &str) -> Option<NaiveTime> {
    NaiveTime::parse_from_str(t, "%H:%M:%S").ok()
}

/// Parses the stamp at the start of a line; returns it and the rest.
fn stamp_prefix(t: &str) -> Option<(Stamp, &str)> {
    let (a, rest) = t.split_once(' ')?;
    // MySQL 5.7/8: `2026-11-29T19:28:28.123456Z`
    if a.len() >= 19 && a.as_bytes().get(10) == Some(&b'T') {
        if let Some(naive) = a.strip_suffix('Z') {
            let n = chrono::NaiveDateTime::parse_from_str(naive, "%Y-%m-%dT%H:%M:%S%.f").ok()?;
            let z = chrono::FixedOffset::east_opt(0)?;
            return Some((Stamp::Zoned(n.and_local_timezone(z).single()?), rest));
        }
        if let Ok(d) = DateTime::parse_from_rfc3339(a) {
            return Some((Stamp::Zoned(d), rest));
        }
        let n = chrono::NaiveDateTime::parse_from_str(a, "%Y-%m-%dT%H:%M:%S%.f").ok()?;
        return Some((Stamp::Local(n), rest));
    }
    let (b, rest) = rest.trim_start().split_once(' ').unwrap_or((rest.trim_start(), ""));
    let tm = parse_time(b)?;
    let date = if a.len() == 10 {
        let mut p = a.split('-');
        ymd(p.next()?.parse().ok()?, p.next()?.parse().ok()?, p.next()?.parse().ok()?)?
    } else if a.len() == 6 && a.bytes().all(|c| c.is_ascii_digit()) {
        ymd(full_year(a.get(..2)?.parse().ok()?), a.get(2..4)?.parse().ok()?, a.get(4..)?.parse().ok()?)?
    } else {
        return None;
    };
    Some((Stamp::Local(date.and_time(tm)), rest))
}

/// `[Note]` -> `Note`.
fn bracket(t: &str) -> Option<(&str, &str)> {
    let r = t.strip_prefix('[')?;
    let (inner, rest) = r.split_once(']')?;
    Some((inner, rest.trim_start()))
}

const LEVELS: &[&str] = &["Note", "Warning", "ERROR", "Error", "System", "Info", "Debug", "Trace"];

fn parse_line(no: usize, t: &str) -> Option<LogEntry> {
    let (stamp, rest) = stamp_prefix(t)?;
    let rest = rest.trim_start();
    let (thread, rest) = match rest.split_once(' ') {
        Some((n, r)) if n.bytes().all(|b| b.is_ascii_digit()) && !n.is_empty() => {
            (n.parse().ok(), r.trim_start())
        }
        _ => (None, rest),
    };
    let mut e = LogEntry {
        line: no,
        stamp: Some(stamp),
        thread,
        level: None,
        code: None,
        subsystem: None,
        message: String::new(),
    };
    let mut rest = rest;
    if let Some((lvl, r)) = bracket(rest)
        && LEVELS.contains(&lvl)
    {
        e.level = Some(lvl.to_string());
        rest = r;
        if let Some((code, r)) = bracket(rest)
            && code.starts_with("MY-")
        {
            e.code = Some(code.to_string());
            rest = r;
            if let Some((sub, r)) = bracket(rest) {
                e.subsystem = Some(sub.to_string());
                rest = r;
            }
        }
    }
    e.message = rest.trim_end().to_string();
    Some(e)
}

/// The reader.
#[derive(Debug, Clone, Copy)]
pub struct Fmt;

impl Format for Fmt {
    type Output = MysqlErrorLog;
    const ID: &'static str = "mysql_error_log";
    const SAMPLE: &'static str = "2026-11-29 19:28:28 0 [Note] InnoDB: Using io_uring";
    const DESCRIPTION: &'static str = "MySQL / MariaDB server error log";

    const IDENTIFIERS: Identifiers = Identifiers::Sql(SqlLines::Quoted);
    fn sniff(head: &[u8]) -> Sniff {
        let Some(first) = Lines::new(head).find(|l| !l.is_blank()) else { return Sniff::No };
        let t = first.clean_text();
        match parse_line(1, t.trim()) {
            Some(e) if e.level.is_some() => Sniff::Yes,
            // `161129 19:28:28 mysqld_safe Starting mysqld daemon with databases from /var/lib/mysql`
            Some(e) if e.message.starts_with("mysqld_safe ") || e.message.starts_with("InnoDB: ") => {
                Sniff::Yes
            }
            _ => Sniff::No,
        }
    }

    fn parse(input: &[u8]) -> Parsed<MysqlErrorLog> {
        let mut out = MysqlErrorLog::default();
        for (l, text) in Lines::new(input).content() {
            let t = text.trim_end();
            let e = parse_line(l.no, t).unwrap_or_else(|| LogEntry {
                line: l.no,
                stamp: None,
                thread: None,
                level: None,
                code: None,
                subsystem: None,
                message: t.to_string(),
            });
            out.entries.push(e);
        }
        Parsed::new(out, count_lines(input))
    }
}

impl Summary for MysqlErrorLog {
    fn records(&self) -> usize {
        self.entries.len()
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        let layout = match self.entries.iter().find_map(|e| e.stamp) {
            Some(Stamp::Zoned(_)) if self.entries.iter().any(|e| e.code.is_some()) => "mysql 8",
            Some(Stamp::Zoned(_)) => "mysql 5.7",
            _ => "mariadb / mysql 5.x",
        };
        v.insert("layout", layout.to_string());
        v.insert("errors", self.with_level("error").count().to_string());
        v.insert("warnings", self.with_level("warning").count().to_string());
        if let Some(ver) = self.version() {
            v.insert("version", ver.to_string());
        }
        v
    }

    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        let first = self.entries.iter().find_map(|e| e.stamp)?;
        let last = self.entries.iter().rev().find_map(|e| e.stamp)?;
        Some((first, last))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let e = parse_line(1, "2026-11-29 19:28:28 0 [Warning] 'user' entry '@vm' ignored").unwrap();
        assert_eq!(e.level.as_deref(), Some("Warning"));
        assert_eq!(e.thread, Some(0));
        let e = parse_line(
            1,
            "2026-11-29T19:28:28.123456Z 0 [System] [MY-010116] [Server] /usr/sbin/mysqld starting",
        )
        .unwrap();
        assert_eq!(e.code.as_deref(), Some("MY-010116"));
        assert_eq!(e.subsystem.as_deref(), Some("Server"));
        assert_eq!(e.stamp.unwrap().display(), "2026-11-29T19:28:28.123456+00:00");
        let e = parse_line(1, "161129 9:28:28 [Note] Plugin 'FEDERATED' is disabled.").unwrap();
        assert_eq!(e.stamp.unwrap().display(), "2016-11-29T09:28:28");
        assert_eq!(
            Fmt::sniff(b"WARNING: Did not reach stop position 24281170 before end of input\n"),
            Sniff::No
        );
        let p =
            Fmt::parse(b"2026-11-29 19:28:28 0 [Note] x\nVersion: '10.11.19-MariaDB'  socket: ''\n\xff\n");
        assert_eq!(p.value.version(), Some("10.11.19-MariaDB"));
    }
}
