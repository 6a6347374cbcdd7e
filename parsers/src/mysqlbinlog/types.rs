//! The value a `mysqlbinlog` listing parses to: transactions, their GTIDs, tables and
//! group commits. A leaf of the family: the [`super::collector::Collector`] builds it and
//! [`super::stats`] derives views of it.

use std::collections::BTreeMap;

use chrono::NaiveDateTime;

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
            GroupCommit::None | GroupCommit::MySql(..) => None,
        }
    }

    /// MySQL `last_committed=`.
    pub fn last_committed(&self) -> Option<i64> {
        match self.group {
            GroupCommit::MySql(l, _) => (l != GroupCommit::MISSING).then_some(l),
            GroupCommit::None | GroupCommit::MariaDb(_) => None,
        }
    }

    /// MySQL `sequence_number=`.
    pub fn sequence_number(&self) -> Option<i64> {
        match self.group {
            GroupCommit::MySql(_, s) => (s != GroupCommit::MISSING).then_some(s),
            GroupCommit::None | GroupCommit::MariaDb(_) => None,
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
