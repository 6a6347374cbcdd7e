//! `pt_heartbeat`: the rows of pt-heartbeat's table read on a server every
//! interval, framed by pt-stalk `TS` lines (`samples/collect.sh -M`
//! `PREFIX-heartbeat`), or a single `SELECT * FROM percona.heartbeat`.
//!
//! `pt-heartbeat --update` on a source rewrites its row every second with its
//! own clock in `ts` (local time, or UTC with `--utc`) and its binary-log
//! position (`file`, `position`); the row replicates. Read on a replica with
//! the replica's own clock (`server_epoch` = `UNIX_TIMESTAMP(NOW(6))`,
//! `server_now` / `server_utc` tell its zone), `server_epoch - ts` is the lag
//! measured from the source's side, whatever `Seconds_Behind_Master` says.
//!
//! Real sample (MariaDB 10.11 replica of `samples/rx_link_1600kbit_heartbeat`, pt-heartbeat 3.2.1 on the source;
//! `mariadb -B -e "SELECT UNIX_TIMESTAMP(NOW(6)) AS server_epoch, NOW(6) AS server_now, UTC_TIMESTAMP(6) AS
//! server_utc, hb.* FROM percona.heartbeat hb"`, tab-separated):
//!
//! ```text
//! TS 1796439536.585547841 2026-12-05 02:58:56
//! server_epoch	server_now	server_utc	ts	server_id	file	position	relay_master_log_file	exec_master_log_pos
//! 1796439536.634826	2026-12-05 02:58:56.634826	2026-12-05 02:58:56.634826	2026-12-05T02:58:56.000760	1	primary-bin.000005	3017	NULL	NULL
//! ```
//!
//! Tab-separated (`-B`) and `| a | b |` client tables are read; columns are
//! found by name (`ts` and `server_id` are required, the others optional),
//! `NULL` cells are absent values. One row per server id per reading (a chain
//! of replicas has one row per server that runs `--update`).

// The quoted real lines keep their TABs (`mariadb -B` separates the cells with them).
#![allow(clippy::tabs_in_doc_comments)]

use crate::common::number::parse_u64;
use crate::common::scrub::Identifiers;
use crate::common::ts::TsLine;
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};
use crate::mysql_variables::{is_border, is_client_noise, pipe_cells};
use crate::procfs::tsblocks;
use chrono::NaiveDateTime;

/// One heartbeat row at one reading.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// 1-based line of the row.
    pub line: usize,
    /// The reading's `TS` frame.
    pub ts: Option<TsLine>,
    /// `server_epoch`: the reading server's clock (epoch seconds).
    pub server_epoch: Option<f64>,
    /// `server_now`: the reading server's local time.
    pub server_now: Option<NaiveDateTime>,
    /// `server_utc`: the reading server's UTC time.
    pub server_utc: Option<NaiveDateTime>,
    /// `ts`: the writing server's clock when it stamped the row (local time, or UTC with `--utc`).
    pub stamp: NaiveDateTime,
    /// `server_id` of the server that stamped the row.
    pub server_id: u64,
    /// `file`: its binary log when it stamped the row.
    pub file: Option<String>,
    /// `position`: its binary log position when it stamped the row.
    pub position: Option<u64>,
}

impl Row {
    /// When the row was read: the server's own epoch, else the `TS` frame's.
    pub fn read_epoch(&self) -> Option<f64> {
        self.server_epoch.or(self.ts.map(|t| t.epoch))
    }

    /// The reading server's UTC offset in seconds (`server_now - server_utc`, to the quarter hour).
    pub fn server_offset_s(&self) -> Option<i64> {
        let d = (self.server_now? - self.server_utc?).num_seconds();
        let q = ((d as f64) / 900.0).round() as i64 * 900;
        (q.abs() <= 14 * 3600).then_some(q)
    }
}

/// A parsed heartbeat file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Heartbeat {
    /// Rows in file order.
    pub rows: Vec<Row>,
}

impl Heartbeat {
    /// The server ids that stamped rows, in first-seen order.
    pub fn server_ids(&self) -> Vec<u64> {
        let mut ids: Vec<u64> = Vec::new();
        for r in &self.rows {
            if !ids.contains(&r.server_id) {
                ids.push(r.server_id);
            }
        }
        ids
    }
}

impl Summary for Heartbeat {
    fn records(&self) -> usize {
        self.rows.len()
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        let ids: Vec<String> = self.server_ids().iter().map(u64::to_string).collect();
        v.insert("server_ids", ids.join(","));
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        tsblocks::epoch_range(self.rows.iter().map(Row::read_epoch))
    }
}

/// `2026-12-05T02:58:56.000760` (pt-heartbeat) or `2026-12-05 02:58:56[.000760]` (DATETIME).
fn datetime(s: &str) -> Option<NaiveDateTime> {
    let s = s.trim();
    NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f")
        .or_else(|_| NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.f"))
        .ok()
}

/// The cells of a line: `| a | b |` or tab-separated.
fn cells(t: &str) -> Vec<&str> {
    pipe_cells(t, 0).unwrap_or_else(|| t.split('\t').map(str::trim).collect())
}

/// A header naming at least `ts` and `server_id`.
fn is_header(cells: &[&str]) -> bool {
    cells.contains(&"ts") && cells.contains(&"server_id")
}

/// Column indexes of a header.
#[derive(Debug, Clone, Copy)]
struct Cols {
    ts: usize,
    server_id: usize,
    server_epoch: Option<usize>,
    server_now: Option<usize>,
    server_utc: Option<usize>,
    file: Option<usize>,
    position: Option<usize>,
    width: usize,
}

impl Cols {
    fn of(h: &[&str]) -> Option<Cols> {
        let at = |n: &str| h.iter().position(|c| *c == n);
        Some(Cols {
            ts: at("ts")?,
            server_id: at("server_id")?,
            server_epoch: at("server_epoch"),
            server_now: at("server_now"),
            server_utc: at("server_utc"),
            file: at("file"),
            position: at("position"),
            width: h.len(),
        })
    }

    fn row(&self, line: usize, ts: Option<TsLine>, v: &[&str]) -> Result<Row, String> {
        if v.len() != self.width {
            return Err(format!("{} cells for a header of {}", v.len(), self.width));
        }
        let cell = |i: Option<usize>| i.map(|i| v[i]).filter(|s| !s.is_empty() && *s != "NULL");
        let stamp = datetime(v[self.ts]).ok_or_else(|| format!("ts: {}", v[self.ts]))?;
        let server_id =
            parse_u64(v[self.server_id]).ok_or_else(|| format!("server_id: {}", v[self.server_id]))?;
        let server_epoch = match cell(self.server_epoch) {
            Some(s) => {
                Some(s.parse::<f64>().ok().filter(|e| e.is_finite()).ok_or(format!("server_epoch: {s}"))?)
            }
            None => None,
        };
        Ok(Row {
            line,
            ts,
            server_epoch,
            server_now: cell(self.server_now).and_then(datetime),
            server_utc: cell(self.server_utc).and_then(datetime),
            stamp,
            server_id,
            file: cell(self.file).map(str::to_string),
            position: cell(self.position).and_then(parse_u64),
        })
    }
}

/// The reader.
#[derive(Debug, Clone, Copy)]
pub struct Fmt;

impl Format for Fmt {
    type Output = Heartbeat;
    const ID: &'static str = "pt_heartbeat";
    const SAMPLE: &'static str = "server_epoch\tserver_now\tserver_utc\tts\tserver_id\tfile\tposition";
    const DESCRIPTION: &'static str =
        "pt-heartbeat table rows (ts, server_id, file, position) read every interval, TS-framed";

    /// Yes when the first line that is not a `TS` line or a table border is a header naming `ts` and `server_id`.
    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let first = Lines::new(head)
            .map(|l| l.text().trim_end().to_string())
            .find(|t| !t.is_empty() && !tsblocks::is_ts_line(t.as_bytes()) && !is_border(t));
        match first {
            Some(t) if is_header(&cells(&t)) => Sniff::Yes,
            _ => Sniff::No,
        }
    }

    fn parse(input: &[u8]) -> Parsed<Heartbeat> {
        let mut d = Diags::default();
        let mut out = Heartbeat::default();
        for b in tsblocks::split(input, &mut d) {
            let mut cols: Option<Cols> = None;
            for l in b.lines {
                let text = l.clean_text();
                let t = text.trim_end();
                if t.is_empty() || is_border(t) || is_client_noise(t) {
                    continue;
                }
                let c = cells(t);
                if is_header(&c) {
                    cols = Cols::of(&c);
                    continue;
                }
                match cols.map(|h| h.row(l.no, b.ts, &c)) {
                    Some(Ok(r)) => out.rows.push(r),
                    Some(Err(e)) => d.skip(l.no, DiagKind::BadNumber, e),
                    None => d.skip(l.no, DiagKind::NoHeader, t),
                }
            }
        }
        d.finish(out, crate::common::lines::count_lines(input))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two readings of `samples/rx_link_1600kbit_heartbeat` (the first and the last of the capture).
    const REAL: &str = "TS 1796439536.585547841 2026-12-05 02:58:56\n\
server_epoch\tserver_now\tserver_utc\tts\tserver_id\tfile\tposition\trelay_master_log_file\texec_master_log_pos\n\
1796439536.634826\t2026-12-05 02:58:56.634826\t2026-12-05 02:58:56.634826\t2026-12-05T02:58:56.000760\t1\tprimary-bin.000005\t3017\tNULL\tNULL\n\
TS 1796439631.031474107 2026-12-05 03:00:31\n\
server_epoch\tserver_now\tserver_utc\tts\tserver_id\tfile\tposition\trelay_master_log_file\texec_master_log_pos\n\
1796439631.075714\t2026-12-05 03:00:31.075714\t2026-12-05 03:00:31.075714\t2026-12-05T02:59:15.000940\t1\tprimary-bin.000005\t16327052\tNULL\tNULL\n";

    #[test]
    fn reads_the_collector_rows() {
        assert_eq!(Fmt::sniff(REAL.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(REAL.as_bytes());
        assert_eq!(p.skipped_lines, 0, "{:?}", p.diagnostics);
        let r = &p.value.rows;
        assert_eq!(r.len(), 2);
        assert_eq!((r[1].line, r[1].server_id, r[1].position), (6, 1, Some(16327052)));
        assert_eq!(r[1].file.as_deref(), Some("primary-bin.000005"));
        assert_eq!(r[1].server_offset_s(), Some(0));
        // Read at 03:00:31.08, stamped 02:59:15.00: 76 s behind on this UTC host.
        let stamped = r[1].stamp.and_utc().timestamp_micros() as f64 / 1e6;
        assert!((r[1].read_epoch().unwrap() - stamped - 76.07).abs() < 0.01);
        assert_eq!(p.value.server_ids(), [1]);
    }

    #[test]
    fn a_plain_select_in_a_client_table() {
        let t = "+----------------------------+-----------+------------------+----------+\n\
| ts                         | server_id | file             | position |\n\
+----------------------------+-----------+------------------+----------+\n\
| 2026-12-05T02:54:31.000720 |         1 | primary-bin.000001 | 39864075 |\n\
+----------------------------+-----------+------------------+----------+\n\
1 row in set (0.000 sec)\n";
        assert_eq!(Fmt::sniff(t.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(t.as_bytes());
        assert_eq!(p.skipped_lines, 0, "{:?}", p.diagnostics);
        assert_eq!(p.value.rows[0].position, Some(39864075));
        assert_eq!(p.value.rows[0].read_epoch(), None);
    }

    #[test]
    fn bad_rows_are_diagnostics_and_other_tables_are_not_sniffed() {
        let t = "ts\tserver_id\n2026-13-05T02:54:31\t1\nnot a row\n2026-12-05T02:54:31\tx\n";
        let p = Fmt::parse(t.as_bytes());
        assert_eq!(p.skipped_lines, 3);
        assert!(p.value.rows.is_empty());
        assert_eq!(Fmt::sniff(b"File\tPosition\nprimary-bin.000001\t4\n"), Sniff::No);
        assert_eq!(Fmt::sniff(b"Variable_name\tValue\nts\t1\n"), Sniff::No);
    }
}
