//! `mysqlbinlog` / `mariadb-binlog` text output: MySQL 5.x/8.x and MariaDB,
//! default mode (`BINLOG '…'` base64), `-v`, `-vv`, `--base64-output=decode-rows`,
//! `--short-form` and `--hexdump`.
//!
//! A real sample (`mariadb-binlog -vv --base64-output=decode-rows`, MariaDB 10.11):
//! ```text
//! # at 1008
//! #261129 19:42:16 server id 1  end_log_pos 1052 CRC32 0xead41dfd 	GTID 0-1-3 cid=91162 trans
//! /*M!100001 SET @@session.gtid_seq_no=3*//*!*/;
//! START TRANSACTION
//! /*!*/;
//! # at 1052
//! # at 1181
//! #261129 19:42:16 server id 1  end_log_pos 1181 CRC32 0x9ed6aa3d 	Annotate_rows:
//! #Q> INSERT INTO orders (customer_id, amount, status, created, note) VALUES (45628,762.16e0,3,NOW(6),'n387844')
//! #261129 19:42:16 server id 1  end_log_pos 1241 CRC32 0xba60fac0 	Table_map: `bench`.`orders` mapped to number 28
//! # at 1241
//! #261129 19:42:16 server id 1  end_log_pos 1309 CRC32 0xc3a2d8b3 	Write_rows: table id 28 flags: STMT_END_F
//! ### INSERT INTO `bench`.`orders`
//! ### SET
//! ###   @1=3 /* LONGINT meta=0 nullable=0 is_null=0 */
//! # Number of rows: 1
//! # at 1309
//! #261129 19:42:16 server id 1  end_log_pos 1340 CRC32 0x5ab245b8 	Xid = 91162
//! COMMIT/*!*/;
//! ```
//! and MySQL 8.0 (default mode):
//! ```text
//! # at 157
//! #250508 17:06:16 server id 1  end_log_pos 236 CRC32 0xf5fa7824 	Anonymous_GTID	last_committed=0	sequence_number=1	rbr_only=yes	original_committed_timestamp=1746691576420070	immediate_commit_timestamp=1746691576420070	transaction_length=301
//! ```
//!
//! The result is one small record per transaction (no SQL text is kept):
//! positions and size (`# at` of its first event to the `end_log_pos` of its
//! last), `SET TIMESTAMP` epoch and header local time, GTID, rows, tables
//! (interned), group-commit ids. Files can be several GB: [`Collector`] is a
//! streaming line consumer, and [`Fmt::parse`] is built on it.

// Quoted real lines keep their TABs (mysqlbinlog prints one before the event type).
#![allow(clippy::tabs_in_doc_comments)]

mod collector;
mod header;
mod stats;

use std::collections::BTreeMap;

use chrono::NaiveDateTime;

use crate::common::{Format, Parsed, Sniff, Stamp, Summary, Variant};

pub use collector::Collector;
pub use stats::{SecondKey, SecondStat, SizeStats};

/// Most tables a transaction record lists (more are counted in [`Binlog::tables_capped`]).
pub const MAX_TABLES_PER_TRX: usize = 32;

/// Which server family wrote the binary log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub enum Flavor {
    /// Oracle MySQL / Percona Server.
    MySql,
    /// MariaDB.
    MariaDb,
    /// Nothing told (old statement-only listings).
    #[default]
    Unknown,
}

impl Flavor {
    /// Lower-case name for variants and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Flavor::MySql => "mysql",
            Flavor::MariaDb => "mariadb",
            Flavor::Unknown => "unknown",
        }
    }
}

/// What a transaction did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub enum TrxKind {
    /// Row changes or DML statements.
    Dml,
    /// A DDL statement (its own transaction).
    Ddl,
    /// Anything else (empty transactions, `SET`, grants the tool did not classify).
    #[default]
    Other,
}

/// A global transaction id in compact form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Gtid {
    /// MariaDB `domain-server-seq` (`GTID 0-1-4 trans`).
    MariaDb {
        /// Replication domain.
        domain: u32,
        /// Originating server id.
        server: u32,
        /// Sequence number.
        seq: u64,
    },
    /// MySQL `uuid:seq` (`SET @@SESSION.GTID_NEXT= '3e11fa47-…:10'`).
    MySql {
        /// Index into [`Binlog::uuids`].
        uuid: u32,
        /// Transaction number.
        seq: u64,
    },
}

/// One transaction (or one auto-committed statement / DDL).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Transaction {
    /// 1-based line where it starts (the `# at` of its first event).
    pub start_line: u32,
    /// 1-based line where it ends (its `COMMIT`).
    pub end_line: u32,
    /// `# at` of its first event (0 when the listing has no positions, `--short-form`).
    pub start_pos: u64,
    /// `end_log_pos` of its last event.
    pub end_pos: u64,
    /// Bytes in the binary log: `end_pos - start_pos` (0 when unknown).
    pub bytes: u64,
    /// `SET TIMESTAMP=` of its first statement (epoch seconds, time-zone free).
    pub epoch: Option<i64>,
    /// Header time of its first event (local time of the machine that ran mysqlbinlog).
    pub local: Option<NaiveDateTime>,
    /// Its GTID.
    pub gtid: Option<Gtid>,
    /// `server id` of its first event.
    pub server_id: Option<u32>,
    /// Rows changed: `###` row statements (`-v`), else `# Number of rows:` (MariaDB), else events/statements.
    pub rows: u64,
    /// Row events (`Write_rows`, `Update_rows`, `Delete_rows`, any version).
    pub row_events: u32,
    /// Tables touched, at most [`MAX_TABLES_PER_TRX`]: a span of [`Binlog::trx_tables`]
    /// (read with [`Binlog::table_ids`]).
    pub tables: TableSpan,
    /// How it joins a group commit (read with [`Transaction::commit_id`],
    /// [`Transaction::last_committed`], [`Transaction::sequence_number`]).
    pub group: GroupCommit,
    /// MySQL 8's `original_committed_timestamp` and `immediate_commit_timestamp` of its GTID event
    /// (microseconds since the epoch): when the originating source committed it and when the server
    /// whose binlog this is did (on a replica, the difference is the replication lag of the transaction).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit_us: Option<(i64, i64)>,
    /// What it did.
    pub kind: TrxKind,
    /// It ended with `COMMIT`/`Xid` (false: cut by the end of the file or another GTID).
    pub complete: bool,
}

/// How a transaction joins a group commit, as the log prints it: one field of 24 bytes
/// instead of three `Option`s of 48 (a decoded binlog of days holds millions of transactions).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub enum GroupCommit {
    /// Not printed.
    #[default]
    None,
    /// MariaDB `cid=` of the GTID event.
    MariaDb(u64),
    /// MySQL `last_committed=` and `sequence_number=` of the GTID event,
    /// [`GroupCommit::MISSING`] for one not printed.
    MySql(i64, i64),
}

impl GroupCommit {
    /// A MySQL value not printed.
    pub const MISSING: i64 = i64::MIN;

    /// From the MySQL values (`None` when neither is printed).
    pub fn mysql(last_committed: Option<i64>, sequence_number: Option<i64>) -> Self {
        match (last_committed, sequence_number) {
            (None, None) => GroupCommit::None,
            (l, s) => GroupCommit::MySql(l.unwrap_or(Self::MISSING), s.unwrap_or(Self::MISSING)),
        }
    }
}

impl Transaction {
    /// MariaDB group-commit id (`cid=`).
    pub fn commit_id(&self) -> Option<u64> {
        match self.group {
            GroupCommit::MariaDb(c) => Some(c),
            _ => None,
        }
    }

    /// MySQL `last_committed=`.
    pub fn last_committed(&self) -> Option<i64> {
        match self.group {
            GroupCommit::MySql(l, _) => (l != GroupCommit::MISSING).then_some(l),
            _ => None,
        }
    }

    /// MySQL `sequence_number=`.
    pub fn sequence_number(&self) -> Option<i64> {
        match self.group {
            GroupCommit::MySql(_, s) => (s != GroupCommit::MISSING).then_some(s),
            _ => None,
        }
    }
}

/// Where a transaction's table ids lie in [`Binlog::trx_tables`] (one shared vector, not a
/// vector per transaction: a decoded binlog of millions of transactions held a 24-byte
/// vector and a heap block of at least 32 bytes for each).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct TableSpan {
    /// First index.
    pub start: u32,
    /// Number of ids.
    pub len: u8,
}

/// Which options the listing was made with, as far as its content shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Layout {
    /// `###` pseudo-SQL row images (`-v`).
    pub verbose_rows: bool,
    /// `-vv` column comments (`/* INT meta=0 … */`).
    pub column_types: bool,
    /// `BINLOG '…'` base64 blocks (default mode, no `decode-rows`).
    pub base64: bool,
    /// `--hexdump` tables.
    pub hexdump: bool,
    /// `--short-form` (no headers, no positions).
    pub short_form: bool,
    /// `CRC32 0x…` checksums in headers.
    pub crc32: bool,
}

/// A parsed binary-log listing.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Binlog {
    /// Server family.
    pub flavor: Flavor,
    /// `server v …` of the Start / Format_description event.
    pub server_version: Option<String>,
    /// Distinct `server id`s of the event headers, in order of appearance.
    pub server_ids: Vec<u32>,
    /// Events by type name (`Query`, `Xid`, `Table_map`, `Write_rows`, `GTID`, …).
    pub events: BTreeMap<String, u64>,
    /// Transactions in log order.
    pub transactions: Vec<Transaction>,
    /// Interned table names `db.table` (no backticks).
    pub tables: Vec<String>,
    /// The table ids (indexes into [`Binlog::tables`]) of every transaction, one
    /// [`TableSpan`] each.
    pub trx_tables: Vec<u32>,
    /// Interned MySQL server UUIDs of GTIDs.
    pub uuids: Vec<String>,
    /// Output options seen.
    pub layout: Layout,
    /// Header time of the first and last event.
    pub first_local: Option<NaiveDateTime>,
    /// See `first_local`.
    pub last_local: Option<NaiveDateTime>,
    /// Transactions whose table list hit [`MAX_TABLES_PER_TRX`].
    pub tables_capped: u64,
}

impl Binlog {
    /// Total number of events.
    pub fn event_count(&self) -> u64 {
        self.events.values().sum()
    }

    /// The GTID of a transaction as text (`0-1-4`, `3e11fa47-…:10`).
    pub fn gtid_text(&self, t: &Transaction) -> Option<String> {
        match t.gtid? {
            Gtid::MariaDb { domain, server, seq } => Some(format!("{domain}-{server}-{seq}")),
            Gtid::MySql { uuid, seq } => {
                let u = self.uuids.get(uuid as usize)?;
                Some(format!("{u}:{seq}"))
            }
        }
    }

    /// The ids (indexes into [`Binlog::tables`]) of a transaction's tables.
    pub fn table_ids(&self, t: &Transaction) -> &[u32] {
        let start = t.tables.start as usize;
        self.trx_tables.get(start..start + usize::from(t.tables.len)).unwrap_or(&[])
    }

    /// The names of a transaction's tables.
    pub fn table_names<'a>(&'a self, t: &'a Transaction) -> impl Iterator<Item = &'a str> + 'a {
        self.table_ids(t).iter().filter_map(|&i| self.tables.get(i as usize).map(String::as_str))
    }
}

impl Summary for Binlog {
    fn records(&self) -> usize {
        self.transactions.len()
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        v.insert("flavor", self.flavor.as_str().to_string());
        if let Some(s) = &self.server_version {
            v.insert("server_version", s.clone());
        }
        let l = self.layout;
        let mode = if l.short_form {
            "short-form"
        } else if l.verbose_rows && l.column_types {
            "-vv"
        } else if l.verbose_rows {
            "-v"
        } else {
            "default"
        };
        v.insert("mode", mode.to_string());
        v.insert("rows", if l.base64 { "base64" } else { "decoded" }.to_string());
        if l.hexdump {
            v.insert("hexdump", "yes".to_string());
        }
        v.insert("checksum", if l.crc32 { "CRC32" } else { "none" }.to_string());
        v.insert("events", self.event_count().to_string());
        v.insert("server_ids", self.server_ids.iter().map(u32::to_string).collect::<Vec<_>>().join(","));
        v.insert("time_basis", if self.epoch_basis() { "epoch" } else { "local" }.to_string());
        v
    }

    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        if self.epoch_basis() {
            let first = self.transactions.iter().find_map(|t| t.epoch)?;
            let last = self.transactions.iter().rev().find_map(|t| t.epoch)?;
            return Some((Stamp::Epoch(first as f64), Stamp::Epoch(last as f64)));
        }
        Some((Stamp::Local(self.first_local?), Stamp::Local(self.last_local?)))
    }
}

/// The `mysqlbinlog` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Binlog;
    const ID: &'static str = "mysqlbinlog";
    const SAMPLE: &'static str =
        "#261129 19:42:16 server id 1  end_log_pos 1052 CRC32 0xead41dfd \tGTID 0-1-3 cid=91162 trans";
    const DESCRIPTION: &'static str =
        "mysqlbinlog / mariadb-binlog text (default, -v, -vv, decode-rows, short-form, hexdump)";

    fn sniff(head: &[u8]) -> Sniff {
        sniff(head)
    }

    fn parse(input: &[u8]) -> Parsed<Binlog> {
        let mut c = Collector::new();
        for line in crate::common::Lines::new(input) {
            c.feed_line(line.no, line.bytes);
        }
        c.finish()
    }
}

/// Signatures in the first KiB: the `DELIMITER /*!*/;` preamble, `# at N`
/// followed by an event header, or the `/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE`
/// line.
fn sniff(head: &[u8]) -> Sniff {
    let mut delimiter = false;
    let mut at = false;
    let mut header = false;
    let mut preamble = false;
    for line in crate::common::Lines::new(head) {
        let b = header::trim_end(line.bytes);
        if b == b"DELIMITER /*!*/;" {
            delimiter = true;
        } else if b.starts_with(b"# at ") && b.len() > 5 && b[5..].iter().all(u8::is_ascii_digit) {
            at = true;
        } else if header::parse_header(b).is_some() {
            header = true;
        } else if b.starts_with(b"/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE")
            || b.starts_with(b"/*!40019 SET @@session.max_")
            || b.starts_with(b"/*!50003 SET @OLD_COMPLETION_TYPE")
        {
            preamble = true;
        }
    }
    if (delimiter && (preamble || at || header)) || (at && header) {
        Sniff::Yes
    } else if delimiter || header {
        Sniff::Unsure
    } else {
        Sniff::No
    }
}

#[cfg(test)]
mod tests;
