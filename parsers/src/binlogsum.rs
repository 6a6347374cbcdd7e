//! `binlogsum` JSON summaries (PrzemekMalkowski/binlogsum): the document its
//! web UI serves at `/api/summary`, or the same JSON embedded in a downloaded
//! snapshot HTML page as `const SNAPSHOT = {…}; /*BINLOGSUM_SNAPSHOT*/`.
//!
//! The layout (field names of its Go `model.Summary`, shown by its
//! `docs/example-snapshot.html`):
//! ```text
//! {"tool_version": "0.1.0", "source": "mysql-bin.000004.sql",
//!  "first_time": "2025-06-22T09:24:41Z", "last_time": "2025-06-22T10:04:53Z", "has_time": true,
//!  "server_version": "8.4.5-5", "flavor": "MySQL", "server_ids": {"1": 900},
//!  "gtid_first": "", "gtid_last": "", "xid_min": 2808724, "xid_max": 2809624, "has_xid": true,
//!  "total_events": 2700, "query_counts": {"INSERT": 900000, "UPDATE": 1280000, …},
//!  "tables": [{"table": "sbtest.sbtest5", "inserted": 480000, "updated": 1120000, "deleted": 2500, "ddl": 1}, …],
//!  "transactions": [{"index": 0, "gtid": "", "xid": 2808724, "server_id": 1, "start_pos": 0, "end_pos": 0,
//!    "size_bytes": 202376, "size_known": true, "format": "ROW", "start_time": "2025-06-22T09:24:41Z",
//!    "end_time": "2025-06-22T09:24:41Z", "inserted": 286, "updated": 231, "deleted": 59, "ddl": 0,
//!    "ddl_kind": "", "tables": ["sbtest.sbtest4"]}, …]}
//! ```
//! The "writes over time" chart of the tool is computed from the transactions;
//! [`BinlogSum::writes_per_second`] does the same. SQL texts (`queries`) are not kept.

use crate::common::scrub::{Ident, Identifiers};
use std::collections::BTreeMap;

use chrono::{DateTime, FixedOffset};

use crate::common::{DiagKind, Diags, Format, Parsed, Sniff, Stamp, Summary, Variant};

/// Marker that ends the embedded JSON in a snapshot page.
const SNAPSHOT_PREFIX: &str = "const SNAPSHOT = ";
const SNAPSHOT_SUFFIX: &str = "; /*BINLOGSUM_SNAPSHOT*/";

/// Where the JSON came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub enum Container {
    /// A bare JSON document (`/api/summary`).
    #[default]
    Api,
    /// A snapshot HTML page with the JSON embedded.
    Snapshot,
}

/// Per-table row counts.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(default)]
pub struct TableStat {
    /// `db.table`.
    pub table: String,
    /// Rows inserted.
    pub inserted: u64,
    /// Rows updated.
    pub updated: u64,
    /// Rows deleted.
    pub deleted: u64,
    /// DDL statements.
    pub ddl: u64,
}

impl TableStat {
    /// Rows changed (inserted + updated + deleted).
    pub fn rows_changed(&self) -> u64 {
        self.inserted + self.updated + self.deleted
    }
}

/// One transaction of the summary.
#[derive(Debug, Clone, PartialEq, Default, serde::Deserialize, serde::Serialize)]
#[serde(default)]
pub struct SumTransaction {
    /// 0-based index.
    pub index: u64,
    /// GTID (empty when none).
    pub gtid: String,
    /// Xid (0 when none).
    pub xid: i64,
    /// Server id.
    pub server_id: u32,
    /// Start position.
    pub start_pos: u64,
    /// End position.
    pub end_pos: u64,
    /// Size in bytes, valid when `size_known`.
    pub size_bytes: u64,
    /// False for statement-format transactions.
    pub size_known: bool,
    /// `ROW`, `STATEMENT`, `DDL` or `DCL`.
    pub format: String,
    /// Start time (RFC 3339 text as written).
    pub start_time: String,
    /// End time (RFC 3339 text as written).
    pub end_time: String,
    /// Rows inserted.
    pub inserted: u64,
    /// Rows updated.
    pub updated: u64,
    /// Rows deleted.
    pub deleted: u64,
    /// DDL statements.
    pub ddl: u64,
    /// DDL kind (`CREATE`, `ALTER`, …).
    pub ddl_kind: String,
    /// Tables with row changes.
    pub tables: Vec<String>,
}

impl SumTransaction {
    /// Rows changed.
    pub fn rows_changed(&self) -> u64 {
        self.inserted + self.updated + self.deleted
    }

    /// The start time, when it parses as RFC 3339 and is not Go's zero time.
    pub fn start(&self) -> Option<DateTime<FixedOffset>> {
        rfc3339(&self.start_time)
    }
}

/// Raw document shape (what serde reads).
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default)]
struct Raw {
    tool_version: String,
    source: String,
    first_time: String,
    last_time: String,
    has_time: bool,
    server_version: String,
    flavor: String,
    server_ids: BTreeMap<String, u64>,
    gtid_first: String,
    gtid_last: String,
    xid_min: i64,
    xid_max: i64,
    has_xid: bool,
    total_events: u64,
    query_counts: BTreeMap<String, u64>,
    tables: Option<Vec<TableStat>>,
    transactions: Option<Vec<SumTransaction>>,
}

/// A binlogsum summary.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct BinlogSum {
    /// API document or snapshot page.
    pub container: Container,
    /// binlogsum version.
    pub tool_version: String,
    /// The decoded-log file it read.
    pub source: String,
    /// Time frame start (`None` without times).
    pub first_time: Option<DateTime<FixedOffset>>,
    /// Time frame end.
    pub last_time: Option<DateTime<FixedOffset>>,
    /// Server version.
    pub server_version: String,
    /// `MySQL`, `MariaDB`, …
    pub flavor: String,
    /// Events per server id.
    pub server_ids: BTreeMap<u32, u64>,
    /// First GTID.
    pub gtid_first: Option<String>,
    /// Last GTID.
    pub gtid_last: Option<String>,
    /// Xid range.
    pub xid_range: Option<(i64, i64)>,
    /// Events in total.
    pub total_events: u64,
    /// Statements by kind (`INSERT`, `UPDATE`, `ALTER`, …).
    pub query_counts: BTreeMap<String, u64>,
    /// Per-table counts, as listed.
    pub tables: Vec<TableStat>,
    /// Transactions.
    pub transactions: Vec<SumTransaction>,
}

/// One second of the "writes over time" series.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct WriteSecond {
    /// Epoch second of the transactions' start times.
    pub epoch: i64,
    /// Transactions starting in it.
    pub transactions: u64,
    /// Rows inserted.
    pub inserted: u64,
    /// Rows updated.
    pub updated: u64,
    /// Rows deleted.
    pub deleted: u64,
    /// Bytes of the transactions with a known size.
    pub bytes: u64,
}

impl BinlogSum {
    /// Rows changed by all transactions.
    pub fn rows_changed(&self) -> u64 {
        self.transactions.iter().map(SumTransaction::rows_changed).sum()
    }

    /// Bytes of the transactions whose size is known.
    pub fn total_bytes(&self) -> u64 {
        self.transactions.iter().filter(|t| t.size_known).map(|t| t.size_bytes).sum()
    }

    /// Writes per second (transactions with a start time), in time order.
    pub fn writes_per_second(&self) -> Vec<WriteSecond> {
        let mut m: BTreeMap<i64, WriteSecond> = BTreeMap::new();
        for t in &self.transactions {
            let Some(s) = t.start() else { continue };
            let epoch = s.timestamp();
            let w = m.entry(epoch).or_insert(WriteSecond {
                epoch,
                transactions: 0,
                inserted: 0,
                updated: 0,
                deleted: 0,
                bytes: 0,
            });
            w.transactions += 1;
            w.inserted += t.inserted;
            w.updated += t.updated;
            w.deleted += t.deleted;
            if t.size_known {
                w.bytes += t.size_bytes;
            }
        }
        m.into_values().collect()
    }
}

impl Summary for BinlogSum {
    fn records(&self) -> usize {
        self.transactions.len()
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        v.insert("container", format!("{:?}", self.container).to_lowercase());
        if !self.tool_version.is_empty() {
            v.insert("tool_version", self.tool_version.clone());
        }
        if !self.flavor.is_empty() {
            v.insert("flavor", self.flavor.clone());
        }
        if !self.server_version.is_empty() {
            v.insert("server_version", self.server_version.clone());
        }
        v.insert("events", self.total_events.to_string());
        v.insert("tables", self.tables.len().to_string());
        v
    }

    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        Some((Stamp::Zoned(self.first_time?), Stamp::Zoned(self.last_time?)))
    }
}

/// RFC 3339 time, `None` for empty text and Go's zero time (`0001-01-01T00:00:00Z`).
fn rfc3339(s: &str) -> Option<DateTime<FixedOffset>> {
    if s.is_empty() || s.starts_with("0001-01-01") {
        return None;
    }
    DateTime::parse_from_rfc3339(s).ok()
}

fn non_empty(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

/// The `binlogsum` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = BinlogSum;
    const ID: &'static str = "binlogsum";
    const SAMPLE: &'static str = r#"{"tool_version": "0.1.0", "source": "mysql-bin.000004.sql", "first_time": "2025-06-22T09:24:41Z", "last_time": "2025-06-22T10:04:53Z", "has_time": true, ..."#;
    const DESCRIPTION: &'static str =
        "binlogsum JSON summary (/api/summary or the JSON embedded in its snapshot HTML)";

    const IDENTIFIERS: Identifiers = Identifiers::Fields(&[("table", Ident::Table), ("queries", Ident::Sql)]);
    fn sniff(head: &[u8]) -> Sniff {
        let text = String::from_utf8_lossy(head);
        let t = text.trim_start();
        if t.starts_with('{') {
            if t.contains("\"tool_version\"")
                && (t.contains("\"first_time\"")
                    || t.contains("\"has_time\"")
                    || t.contains("\"total_events\""))
            {
                return Sniff::Yes;
            }
            return Sniff::No;
        }
        if t.starts_with('<') && text.contains("<title>binlogsum</title>") {
            return Sniff::Yes;
        }
        Sniff::No
    }

    fn parse(input: &[u8]) -> Parsed<BinlogSum> {
        let lines = crate::common::lines::count_lines(input);
        let mut diags = Diags::default();
        let text = String::from_utf8_lossy(input);
        let trimmed = text.trim_start();
        let (container, json, offset_line) = if trimmed.starts_with('{') {
            (Container::Api, trimmed, 1 + text.len() - trimmed.len())
        } else {
            match snapshot_json(&text) {
                Some((json, line)) => (Container::Snapshot, json, line),
                None => {
                    diags.skip(1, DiagKind::Malformed, "no `const SNAPSHOT = {…}` in this page");
                    return diags.finish(BinlogSum::default(), lines);
                }
            }
        };
        let mut de = serde_json::Deserializer::from_str(json);
        let raw: Raw = match serde::Deserialize::deserialize(&mut de) {
            Ok(r) => r,
            Err(e) => {
                let line = if container == Container::Api { e.line() } else { offset_line + e.line() - 1 };
                diags.skip(line.max(1), DiagKind::Malformed, format!("binlogsum JSON: {e}"));
                return diags.finish(BinlogSum { container, ..BinlogSum::default() }, lines);
            }
        };
        let mut server_ids = BTreeMap::new();
        for (k, v) in raw.server_ids {
            match k.parse::<u32>() {
                Ok(id) => {
                    server_ids.insert(id, v);
                }
                Err(_) => diags.note(offset_line, DiagKind::BadNumber, format!("server id `{k}`")),
            }
        }
        let value = BinlogSum {
            container,
            tool_version: raw.tool_version,
            source: raw.source,
            first_time: if raw.has_time { rfc3339(&raw.first_time) } else { None },
            last_time: if raw.has_time { rfc3339(&raw.last_time) } else { None },
            server_version: raw.server_version,
            flavor: raw.flavor,
            server_ids,
            gtid_first: non_empty(raw.gtid_first),
            gtid_last: non_empty(raw.gtid_last),
            xid_range: raw.has_xid.then_some((raw.xid_min, raw.xid_max)),
            total_events: raw.total_events,
            query_counts: raw.query_counts,
            tables: raw.tables.unwrap_or_default(),
            transactions: raw.transactions.unwrap_or_default(),
        };
        diags.finish(value, lines)
    }
}

/// The embedded JSON of a snapshot page and the line it starts on.
fn snapshot_json(page: &str) -> Option<(&str, usize)> {
    let start = page.find(SNAPSHOT_PREFIX)? + SNAPSHOT_PREFIX.len();
    let len = page.get(start..)?.find(SNAPSHOT_SUFFIX)?;
    let json = page.get(start..start + len)?;
    if json.trim() == "null" {
        return None;
    }
    let line = 1 + page.get(..start)?.bytes().filter(|&b| b == b'\n').count();
    Some((json, line))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r#"{"tool_version": "0.1.0", "source": "x.sql", "first_time": "2025-06-22T09:24:41Z",
 "last_time": "2025-06-22T09:24:42Z", "has_time": true, "server_version": "8.4.5-5", "flavor": "MySQL",
 "server_ids": {"1": 2}, "gtid_first": "", "gtid_last": "", "xid_min": 5, "xid_max": 6, "has_xid": true,
 "total_events": 9, "query_counts": {"INSERT": 3},
 "tables": [{"table": "db1.t", "inserted": 3, "updated": 1, "deleted": 0, "ddl": 0}],
 "transactions": [
  {"index": 0, "xid": 5, "server_id": 1, "size_bytes": 100, "size_known": true, "format": "ROW",
   "start_time": "2025-06-22T09:24:41Z", "end_time": "2025-06-22T09:24:41Z", "inserted": 3, "tables": ["db1.t"]},
  {"index": 1, "xid": 6, "server_id": 1, "size_bytes": 0, "size_known": false, "format": "STATEMENT",
   "start_time": "2025-06-22T09:24:42Z", "end_time": "2025-06-22T09:24:42Z", "updated": 1, "tables": ["db1.t"]}]}"#;

    #[test]
    fn api_document() {
        assert_eq!(Fmt::sniff(DOC.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(DOC.as_bytes());
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let s = &p.value;
        assert_eq!((s.rows_changed(), s.total_bytes(), s.xid_range), (4, 100, Some((5, 6))));
        assert_eq!(s.gtid_first, None);
        let w = s.writes_per_second();
        assert_eq!(w.len(), 2);
        assert_eq!((w[0].inserted, w[1].updated), (3, 1));
    }

    #[test]
    fn broken_json_is_a_diagnostic() {
        let p = Fmt::parse(b"{\"tool_version\": \"0.1.0\",\n \"tables\": [1,");
        assert_eq!(p.skipped_lines, 1);
        assert_eq!(p.diagnostics[0].line, 2);
        let p = Fmt::parse(b"<html><script>const SNAPSHOT = null; /*BINLOGSUM_SNAPSHOT*/</script>");
        assert_eq!(p.value.records(), 0);
        assert_eq!(p.skipped_lines, 1);
    }
}
