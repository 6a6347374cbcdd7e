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
mod types;

use crate::common::scrub::{Identifiers, SqlLines};
use crate::common::{Format, Parsed, Sniff, Stamp, Summary, Variant};

pub use collector::Collector;
pub use stats::{SecondKey, SecondStat, SizeStats};
pub use types::{
    Binlog, Flavor, GroupCommit, Gtid, Layout, MAX_TABLES_PER_TRX, TableSpan, Transaction, TrxKind,
};

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

    const IDENTIFIERS: Identifiers = Identifiers::Sql(SqlLines::Binlog);
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
