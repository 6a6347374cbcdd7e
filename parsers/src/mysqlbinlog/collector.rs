//! [`Collector`]: the streaming line consumer behind [`super::Fmt::parse`].
//!
//! Memory is O(transactions): one small [`Transaction`] each, interned table
//! names, no SQL text. Every line is classified by its first bytes:
//! ```text
//! # at 1340                                                  event start offset
//! #261129 19:42:16 server id 1  end_log_pos 1384 CRC32 0x4551009d 	GTID 0-1-4 cid=91162 trans
//! ### INSERT INTO `bench`.`orders`                           a row (-v)
//! # Number of rows: 1                                        MariaDB row count
//! SET TIMESTAMP=1715838970/*!*/;                             statement time
//! BEGIN / START TRANSACTION / COMMIT/*!*/;                   boundaries
//! ```

// Quoted real lines keep their TABs (mysqlbinlog prints one before the event type).
#![allow(clippy::tabs_in_doc_comments)]

use std::collections::{HashMap, HashSet, VecDeque};

use chrono::NaiveDateTime;

use super::header::{
    Header, digits_u64, field, header_time, leading_i64, leading_u64, looks_like_header, parse_header,
    trim_end, trim_start,
};
use super::types::{Binlog, Flavor, GroupCommit, Gtid, MAX_TABLES_PER_TRX, TableSpan, Transaction, TrxKind};
use crate::common::{DiagKind, Diags, Parsed};

/// Most `# at` lines kept waiting for their headers.
const MAX_PENDING_AT: usize = 16;

/// Distinct event type names counted separately (the tools print about 35).
const MAX_EVENT_NAMES: usize = 128;

/// The kind of the event whose body lines are being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ev {
    /// Before the first header (preamble, or every line of `--short-form`).
    None,
    /// `Query` / `Execute_load_query`: SQL body.
    Query,
    /// `Xid`: its `COMMIT/*!*/;` body.
    Xid,
    /// Any other event (body printed by the tool, used as is).
    Other,
}

/// Where an open transaction is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Opened by a GTID event, no `BEGIN` yet.
    Gtid,
    /// Inside `BEGIN` … `COMMIT`.
    Begun,
    /// A statement without `BEGIN` (auto-commit or DDL): ends with its event.
    Single,
}

#[derive(Debug)]
struct Open {
    trx: Transaction,
    state: State,
    verbose_rows: u64,
    counted_rows: u64,
    dml_statements: u64,
    declared_len: Option<u64>,
    kind: Option<TrxKind>,
    pos_known: bool,
    /// More than [`MAX_TABLES_PER_TRX`] tables were mapped.
    tables_capped: bool,
}

/// Streaming parser: feed every line, then [`Collector::finish`].
///
/// ```
/// use iosift_parsers::mysqlbinlog::Collector;
/// let mut c = Collector::new();
/// c.feed_line(1, b"# at 647");
/// c.feed_line(2, b"#261129 19:42:16 server id 1  end_log_pos 678 CRC32 0x8b325f24 \tXid = 91159");
/// let parsed = c.finish();
/// assert_eq!(parsed.value.events["Xid"], 1);
/// ```
#[derive(Debug)]
pub struct Collector {
    out: Binlog,
    diags: Diags,
    lines: usize,
    table_idx: HashMap<Box<[u8]>, u32>,
    uuid_idx: HashMap<Box<[u8]>, u32>,
    pending_at: VecDeque<(u64, u32)>,
    hex_header: Option<(usize, Owned)>,
    ev: Ev,
    ev_start: Option<(u64, u32)>,
    ev_end: u64,
    ev_line: u32,
    in_statement: bool,
    in_base64: bool,
    delimiter_seen: bool,
    any_header: bool,
    last_epoch: Option<i64>,
    cur: Option<Open>,
    fix_bytes: Option<usize>,
    time_cache: (u32, u32, Option<NaiveDateTime>),
    last_server: Option<u32>,
    event_counts: Vec<(Vec<u8>, u64)>,
    server_seen: HashSet<u32>,
}

/// A header kept while `--hexdump` prints the hex table before the event type.
#[derive(Debug, Clone, Copy)]
struct Owned {
    ymd: u32,
    secs: u32,
    server_id: u32,
    end_log_pos: u64,
    crc32: bool,
}

impl Default for Collector {
    fn default() -> Self {
        Self::new()
    }
}

impl Collector {
    /// An empty collector.
    pub fn new() -> Self {
        Collector {
            out: Binlog::default(),
            diags: Diags::default(),
            lines: 0,
            table_idx: HashMap::new(),
            uuid_idx: HashMap::new(),
            pending_at: VecDeque::new(),
            hex_header: None,
            ev: Ev::None,
            ev_start: None,
            ev_end: 0,
            ev_line: 0,
            in_statement: false,
            in_base64: false,
            delimiter_seen: false,
            any_header: false,
            last_epoch: None,
            cur: None,
            fix_bytes: None,
            time_cache: (u32::MAX, u32::MAX, None),
            last_server: None,
            event_counts: Vec::new(),
            server_seen: HashSet::new(),
        }
    }

    /// Consumes one line (1-based `line_no`, without its `\n`; a trailing `\r` is ignored).
    pub fn feed_line(&mut self, line_no: usize, line: &[u8]) {
        self.lines = self.lines.max(line_no);
        let line = match line {
            [head @ .., b'\r'] => head,
            _ => line,
        };
        let Some(&first) = line.first() else { return };
        if first == b'#' {
            self.hash_line(line_no, line);
        } else {
            self.body_line(line_no, line);
        }
    }

    /// Ends the parse: closes an open transaction and returns the result.
    pub fn finish(mut self) -> Parsed<Binlog> {
        if let Some((no, h)) = self.hex_header.take() {
            let _ = h;
            self.diags.note(no, DiagKind::Truncated, "event header without its type at the end of the file");
        }
        if let Some(open) = self.cur.take() {
            let complete = open.state == State::Single;
            if !complete {
                self.diags.note(
                    open.trx.start_line as usize,
                    DiagKind::Truncated,
                    "transaction not committed before the end of the file",
                );
            }
            self.close(open, complete);
        }
        for (k, n) in std::mem::take(&mut self.event_counts) {
            *self.out.events.entry(String::from_utf8_lossy(&k).into_owned()).or_insert(0) += n;
        }
        // The vector doubled as it grew: give back the unused half (1.5 M transactions of
        // 7 decoded binlogs held 386 MB of capacity for 283 MB of transactions).
        self.out.transactions.shrink_to_fit();
        self.out.trx_tables.shrink_to_fit();
        let lines = self.lines;
        self.diags.finish(self.out, lines)
    }

    // ----- `#` lines -------------------------------------------------------------------

    fn hash_line(&mut self, no: usize, line: &[u8]) {
        if line.starts_with(b"###") {
            // ### INSERT INTO `bench`.`orders`   /   ###   @1=3 /* LONGINT meta=0 nullable=0 is_null=0 */
            let rest = &line[3..];
            if rest.starts_with(b"   ") {
                if !self.out.layout.column_types && memchr::memmem::find(rest, b" /* ").is_some() {
                    self.out.layout.column_types = true;
                }
                return;
            }
            if rest.starts_with(b" INSERT INTO ")
                || rest.starts_with(b" UPDATE ")
                || rest.starts_with(b" DELETE FROM ")
            {
                self.out.layout.verbose_rows = true;
                if let Some(o) = self.cur.as_mut() {
                    o.verbose_rows += 1;
                }
            }
            return;
        }
        if let Some(rest) = line.strip_prefix(b"# at ") {
            // # at 1340
            match digits_u64(trim_end(rest)) {
                Some(pos) => self.at_line(no, pos),
                None => self.diags.skip(no, DiagKind::BadNumber, String::from_utf8_lossy(line)),
            }
            return;
        }
        if looks_like_header(line) {
            match parse_header(line) {
                Some(h) => self.header(no, h),
                None => self.diags.skip(no, DiagKind::Malformed, String::from_utf8_lossy(line)),
            }
            return;
        }
        if let Some(rest) = line.strip_prefix(b"# Number of rows: ") {
            // # Number of rows: 1   (MariaDB)
            match leading_u64(rest) {
                Some(n) => {
                    if let Some(o) = self.cur.as_mut() {
                        o.counted_rows += n;
                    }
                }
                None => self.diags.skip(no, DiagKind::BadNumber, String::from_utf8_lossy(line)),
            }
            return;
        }
        if let Some(rest) = line.strip_prefix(b"# Event: ") {
            // # Event: 	GTID 0-101-1 ddl      (--hexdump)
            self.out.layout.hexdump = true;
            match self.hex_header.take() {
                Some((hno, h)) => self.ev_header(hno, h, trim_start(trim_end(rest))),
                None => self.diags.skip(no, DiagKind::NoHeader, String::from_utf8_lossy(line)),
            }
            return;
        }
        if line.get(1).is_some_and(u8::is_ascii_alphabetic)
            && let Some((hno, h)) = self.hex_header.take()
        {
            // #140702 13:10:21 server id 12345  end_log_pos 3384304 CRC32 0xbdb26e30
            // #Begin_load_query: file_id: 1  block_len: 2
            self.ev_header(hno, h, trim_end(&line[1..]));
            return;
        }
        if line.starts_with(b"# Position") {
            self.out.layout.hexdump = true;
        } else if line.starts_with(b"# Annotate_rows:") && !self.any_header {
            self.out.layout.short_form = true;
        }
        // Other comments: `#Q> …`, `# Warning: …`, `# original_commit_timestamp=…`,
        // Previous-GTIDs sets, hexdump rows, `# End of log file`: tool text, used as is.
    }

    fn at_line(&mut self, no: usize, pos: u64) {
        if let Some(i) = self.fix_bytes.take()
            && let Some(t) = self.out.transactions.get_mut(i)
            && pos >= t.start_pos
        {
            t.bytes = pos - t.start_pos;
            t.end_pos = pos;
        }
        if self.pending_at.len() >= MAX_PENDING_AT {
            self.pending_at.pop_front();
        }
        self.pending_at.push_back((pos, no as u32));
    }

    fn header(&mut self, no: usize, h: Header<'_>) {
        let owned = Owned {
            ymd: h.ymd,
            secs: h.secs,
            server_id: h.server_id,
            end_log_pos: h.end_log_pos,
            crc32: h.crc32,
        };
        if h.tail.is_empty() {
            // --hexdump: the type comes on the `# Event:` line.
            self.hex_header = Some((no, owned));
            self.ev = Ev::Other;
            return;
        }
        self.ev_header(no, owned, h.tail);
    }

    fn local(&mut self, ymd: u32, secs: u32) -> Option<NaiveDateTime> {
        if self.time_cache.0 != ymd || self.time_cache.1 != secs {
            self.time_cache = (ymd, secs, header_time(ymd, secs));
        }
        self.time_cache.2
    }

    fn ev_header(&mut self, no: usize, h: Owned, tail: &[u8]) {
        self.any_header = true;
        self.out.layout.crc32 |= h.crc32;
        let local = self.local(h.ymd, h.secs);
        if local.is_some() {
            if self.out.first_local.is_none() {
                self.out.first_local = local;
            }
            self.out.last_local = local;
        }
        if self.last_server != Some(h.server_id) {
            self.last_server = Some(h.server_id);
            if self.server_seen.insert(h.server_id) {
                self.out.server_ids.push(h.server_id);
            }
        }
        self.ev_end = h.end_log_pos;
        self.ev_line = no as u32;
        self.in_statement = false;
        self.in_base64 = false;
        self.last_epoch = None;

        let name = event_name(tail);
        self.count_event(name);

        // A finished auto-commit statement ends with its event, unless an Xid commits it.
        if name != b"Xid"
            && let Some(o) = self.cur.take_if(|o| o.state == State::Single)
        {
            self.close(o, true);
        }
        self.ev_start = self.pending_at.pop_front();

        self.ev = Ev::Other;
        match name {
            b"GTID" | b"Anonymous_GTID" => self.gtid_event(no, h, local, tail),
            b"Query" | b"Execute_load_query" => self.ev = Ev::Query,
            b"Xid" | b"XA PREPARE" => {
                self.ev = Ev::Xid;
                // Closed at the next event, so that its `COMMIT/*!*/;` line is the end line.
                if let Some(mut o) = self.cur.take() {
                    self.extend(&mut o, no);
                    o.state = State::Single;
                    self.cur = Some(o);
                }
            }
            b"Table_map" => self.table_map(no, h, local, tail),
            b"Start" | b"Format_desc" => {
                if let Some(v) = after(tail, b"server v ") {
                    let v = String::from_utf8_lossy(v).into_owned();
                    if v.contains("MariaDB") {
                        self.out.flavor = Flavor::MariaDb;
                    } else if self.out.flavor == Flavor::Unknown {
                        self.out.flavor = Flavor::MySql;
                    }
                    self.out.server_version = Some(v);
                }
            }
            b"Gtid list" | b"Binlog checkpoint" | b"Annotate_rows" => {
                self.out.flavor = Flavor::MariaDb;
                self.touch(no, h, local);
            }
            b"Previous-GTIDs" | b"Rows_query" => {
                self.out.flavor = Flavor::MySql;
                self.touch(no, h, local);
            }
            n if is_rows_event(n) => {
                let o = self.open_implicit(no, h, local);
                o.trx.row_events = o.trx.row_events.saturating_add(1);
                self.touch(no, h, local);
            }
            n if is_known_event(n) => self.touch(no, h, local),
            _ => {
                self.diags.note(
                    no,
                    DiagKind::Unsupported,
                    format!("unknown event type `{}`", String::from_utf8_lossy(name)),
                );
                self.touch(no, h, local);
            }
        }
    }

    fn count_event(&mut self, name: &[u8]) {
        // A handful of distinct names: a linear scan beats hashing or UTF-8 checks.
        if let Some((_, n)) = self.event_counts.iter_mut().find(|(k, _)| k.as_slice() == name) {
            *n += 1;
        } else if self.event_counts.len() < MAX_EVENT_NAMES || name == b"(other)" {
            self.event_counts.push((name.to_vec(), 1));
        } else {
            // Garbage headers with ever new names: counted together, never quadratic.
            self.count_event(b"(other)");
        }
    }

    /// Extends the open transaction (if any) to the current event.
    fn touch(&mut self, no: usize, _h: Owned, _local: Option<NaiveDateTime>) {
        let end = self.ev_end;
        if let Some(o) = self.cur.as_mut() {
            o.trx.end_line = no as u32;
            if end > 0 {
                o.trx.end_pos = end;
            }
        }
    }

    fn extend(&self, o: &mut Open, no: usize) {
        o.trx.end_line = no as u32;
        if self.ev_end > 0 {
            o.trx.end_pos = self.ev_end;
        }
    }

    fn new_open(&self, no: usize, server: Option<u32>, local: Option<NaiveDateTime>, state: State) -> Open {
        let (start_pos, start_line, pos_known) = match self.ev_start {
            Some((p, l)) => (p, l, true),
            None => (0, no as u32, false),
        };
        Open {
            trx: Transaction {
                start_line,
                end_line: no as u32,
                start_pos,
                end_pos: self.ev_end,
                bytes: 0,
                epoch: self.last_epoch,
                local,
                gtid: None,
                server_id: server,
                rows: 0,
                row_events: 0,
                // Only one transaction is open at a time: its ids are the tail of the shared
                // vector (ids of a transaction dropped unclosed stay there unreferenced).
                tables: TableSpan {
                    start: u32::try_from(self.out.trx_tables.len()).unwrap_or(u32::MAX),
                    len: 0,
                },
                group: GroupCommit::None,
                commit_us: None,
                kind: TrxKind::Other,
                complete: false,
            },
            state,
            verbose_rows: 0,
            counted_rows: 0,
            dml_statements: 0,
            declared_len: None,
            kind: None,
            pos_known,
            tables_capped: false,
        }
    }

    fn header_server(&self) -> Option<u32> {
        self.last_server
    }

    fn open_implicit(&mut self, no: usize, _h: Owned, local: Option<NaiveDateTime>) -> &mut Open {
        let o = match self.cur.take() {
            Some(o) => o,
            None => self.new_open(no, self.header_server(), local, State::Begun),
        };
        self.cur.insert(o)
    }

    fn gtid_event(&mut self, no: usize, h: Owned, local: Option<NaiveDateTime>, tail: &[u8]) {
        if let Some(o) = self.cur.take() {
            self.diags.note(
                o.trx.start_line as usize,
                DiagKind::Truncated,
                "transaction cut by the next GTID event before its COMMIT",
            );
            self.close(o, false);
        }
        let mut o = self.new_open(no, Some(h.server_id), local, State::Gtid);
        o.trx.epoch = None;
        let rest = tail.strip_prefix(b"GTID ").unwrap_or(&[]);
        if rest.first().is_some_and(u8::is_ascii_digit) {
            // MariaDB: GTID 0-1-3 cid=91162 trans
            self.out.flavor = Flavor::MariaDb;
            let id = &rest[..rest.iter().position(|&b| b == b' ').unwrap_or(rest.len())];
            o.trx.gtid = parse_mariadb_gtid(id);
            if o.trx.gtid.is_none() {
                self.diags.note(no, DiagKind::Malformed, "unreadable MariaDB GTID");
            }
            if let Some(cid) = field(rest, b"cid=").and_then(digits_u64) {
                o.trx.group = GroupCommit::MariaDb(cid);
            }
            for word in rest.split(|&b| b == b' ') {
                if word == b"ddl" {
                    o.kind = Some(TrxKind::Ddl);
                }
            }
        } else {
            // MySQL: GTID	last_committed=0	sequence_number=1	rbr_only=yes[	…	transaction_length=301]
            if self.out.flavor == Flavor::Unknown {
                self.out.flavor = Flavor::MySql;
            }
            o.trx.group = GroupCommit::mysql(
                field(tail, b"last_committed=").and_then(leading_i64),
                field(tail, b"sequence_number=").and_then(leading_i64),
            );
            o.declared_len = field(tail, b"transaction_length=").and_then(digits_u64);
            // MySQL 8: original_committed_timestamp=1746691576420070	immediate_commit_timestamp=1746691576420070
            o.trx.commit_us = field(tail, b"original_committed_timestamp=")
                .and_then(leading_i64)
                .zip(field(tail, b"immediate_commit_timestamp=").and_then(leading_i64));
        }
        self.cur = Some(o);
    }

    fn table_map(&mut self, no: usize, h: Owned, local: Option<NaiveDateTime>, tail: &[u8]) {
        // Table_map: `bench`.`orders` mapped to number 28
        let name = tail
            .strip_prefix(b"Table_map: ")
            .map(|r| {
                let end = memchr::memmem::find(r, b" mapped to number").unwrap_or(r.len());
                &r[..end]
            })
            .unwrap_or(&[]);
        if name.is_empty() {
            self.diags.note(no, DiagKind::Malformed, "Table_map without a table name");
            self.touch(no, h, local);
            return;
        }
        let id = self.intern_table(name);
        self.open_implicit(no, h, local);
        let (Some(o), ids) = (self.cur.as_mut(), &mut self.out.trx_tables) else { return };
        let span = &mut o.trx.tables;
        let start = span.start as usize;
        // The span must be the vector's tail (a span past u32 ids cannot be recorded).
        if start + usize::from(span.len) != ids.len() {
            o.tables_capped = true;
        } else if !ids[start..].contains(&id) {
            if usize::from(span.len) < MAX_TABLES_PER_TRX {
                ids.push(id);
                span.len += 1;
            } else {
                o.tables_capped = true;
            }
        }
        self.touch(no, h, local);
    }

    fn intern_table(&mut self, quoted: &[u8]) -> u32 {
        if let Some(&i) = self.table_idx.get(quoted) {
            return i;
        }
        let plain: Vec<u8> = quoted.iter().copied().filter(|&b| b != b'`').collect();
        let i = self.out.tables.len() as u32;
        self.out.tables.push(String::from_utf8_lossy(&plain).into_owned());
        self.table_idx.insert(quoted.into(), i);
        i
    }

    fn intern_uuid(&mut self, uuid: &[u8]) -> u32 {
        if let Some(&i) = self.uuid_idx.get(uuid) {
            return i;
        }
        let i = self.out.uuids.len() as u32;
        self.out.uuids.push(String::from_utf8_lossy(uuid).into_owned());
        self.uuid_idx.insert(uuid.into(), i);
        i
    }

    fn close(&mut self, mut o: Open, complete: bool) {
        let t = &mut o.trx;
        t.complete = complete;
        if o.tables_capped {
            self.out.tables_capped += 1;
        }
        t.rows = if o.verbose_rows > 0 {
            o.verbose_rows
        } else if o.counted_rows > 0 {
            o.counted_rows
        } else {
            u64::from(t.row_events) + o.dml_statements
        };
        t.kind = match o.kind {
            Some(k) => k,
            None if t.row_events > 0 || o.dml_statements > 0 || o.verbose_rows > 0 => TrxKind::Dml,
            None => TrxKind::Other,
        };
        let mut fix = false;
        if o.pos_known {
            if t.end_pos >= t.start_pos && t.end_pos > 0 {
                t.bytes = t.end_pos - t.start_pos;
            } else if let Some(len) = o.declared_len {
                t.bytes = len;
            } else if let Some(&(next, _)) = self.pending_at.front()
                && next >= t.start_pos
            {
                // The next event's `# at` bounds it (relay logs, `end_log_pos 0`).
                t.bytes = next - t.start_pos;
                t.end_pos = next;
            } else {
                fix = true;
            }
        }
        if let Some(len) = o.declared_len
            && t.bytes == 0
        {
            t.bytes = len;
        }
        self.out.transactions.push(o.trx);
        self.fix_bytes = fix.then(|| self.out.transactions.len() - 1);
    }

    // ----- other lines -----------------------------------------------------------------

    fn body_line(&mut self, no: usize, line: &[u8]) {
        if self.in_base64 {
            // base64 rows of a `BINLOG '` block, ending with `'/*!*/;`
            if line.first() == Some(&b'\'') {
                self.in_base64 = false;
            }
            return;
        }
        if line.starts_with(b"BINLOG '") {
            self.out.layout.base64 = true;
            self.in_base64 = !line[8..].ends_with(b"'/*!*/;") && !line.ends_with(b"*/;");
            return;
        }
        let t = trim_end(line);
        if t.is_empty() {
            return;
        }
        if self.in_statement {
            // Continuation of a multi-line statement (`CREATE TABLE … (` …).
            if t.ends_with(b"/*!*/;") {
                self.in_statement = false;
            }
            return;
        }
        if let Some(rest) = t.strip_prefix(b"SET ") {
            self.set_line(rest);
            return;
        }
        if t == b"BEGIN" || t == b"BEGIN/*!*/;" || t == b"START TRANSACTION" {
            self.begin(no);
            return;
        }
        if t == b"COMMIT/*!*/;" || t == b"COMMIT" || t == b"COMMIT /* implicit, from Xid_log_event */" {
            if self.ev != Ev::Xid {
                self.commit(no);
            } else if let Some(o) = self.cur.as_mut() {
                o.trx.end_line = no as u32;
            }
            return;
        }
        if t.starts_with(b"ROLLBACK") {
            // `ROLLBACK/*!*/;` after Start, `ROLLBACK /* added by mysqlbinlog */;` at the end,
            // or a rolled-back transaction in a Query event.
            if self.ev == Ev::Query
                && let Some(o) = self.cur.take()
            {
                let mut o = o;
                self.extend(&mut o, no);
                self.close(o, true);
            }
            return;
        }
        if t.starts_with(b"/*") || t.starts_with(b"use ") || t.starts_with(b"DELIMITER") {
            if t.starts_with(b"DELIMITER /*!*/;") {
                self.delimiter_seen = true;
            }
            return;
        }
        match self.ev {
            Ev::Query => self.statement(no, t),
            Ev::None if self.delimiter_seen => {
                self.out.layout.short_form = true;
                self.statement(no, t);
            }
            Ev::None => self.diags.skip(no, DiagKind::Malformed, String::from_utf8_lossy(line)),
            // Bodies the tool prints for other events (`LOAD DATA …`, `XA END X'…'`, …).
            Ev::Xid | Ev::Other => {}
        }
    }

    fn set_line(&mut self, rest: &[u8]) {
        if let Some(v) = rest.strip_prefix(b"TIMESTAMP=") {
            // SET TIMESTAMP=1715838970/*!*/;   or  SET TIMESTAMP=1795980921.880616/*!*/;
            if let Some(e) = leading_i64(v) {
                self.last_epoch = Some(e);
                if let Some(o) = self.cur.as_mut()
                    && o.trx.epoch.is_none()
                {
                    o.trx.epoch = Some(e);
                }
            }
        } else if let Some(v) = rest.strip_prefix(b"@@SESSION.GTID_NEXT= '") {
            // SET @@SESSION.GTID_NEXT= '3e11fa47-71ca-11e1-9e33-c80aa9429562:10'/*!*/;
            let end = v.iter().position(|&b| b == b'\'').unwrap_or(v.len());
            let g = &v[..end];
            if let Some(colon) = g.iter().rposition(|&b| b == b':')
                && let Some(seq) = digits_u64(&g[colon + 1..])
            {
                let uuid = self.intern_uuid(&g[..colon]);
                if let Some(o) = self.cur.as_mut() {
                    o.trx.gtid = Some(Gtid::MySql { uuid, seq });
                }
            }
        }
    }

    fn begin(&mut self, no: usize) {
        match self.cur.as_mut() {
            Some(o) if o.state == State::Gtid => {
                o.state = State::Begun;
                if o.trx.epoch.is_none() {
                    o.trx.epoch = self.last_epoch;
                }
            }
            Some(o) if o.state == State::Begun => {}
            _ => {
                if let Some(o) = self.cur.take() {
                    self.close(o, true);
                }
                let o = self.new_open(
                    no,
                    self.header_server(),
                    self.time_cache.2.filter(|_| self.any_header),
                    State::Begun,
                );
                self.cur = Some(o);
            }
        }
    }

    fn commit(&mut self, no: usize) {
        if let Some(mut o) = self.cur.take() {
            self.extend(&mut o, no);
            self.close(o, true);
        }
    }

    fn statement(&mut self, no: usize, t: &[u8]) {
        self.in_statement = !t.ends_with(b"/*!*/;");
        let kind = classify(t);
        match self.cur.as_mut() {
            Some(o) if o.state == State::Begun => {
                if kind == TrxKind::Dml {
                    o.dml_statements += 1;
                }
                o.trx.end_line = no as u32;
                return;
            }
            Some(o) if o.state == State::Gtid => {
                o.state = State::Single;
                o.kind = Some(match o.kind {
                    Some(TrxKind::Ddl) => TrxKind::Ddl,
                    _ => kind,
                });
                if kind == TrxKind::Dml {
                    o.dml_statements += 1;
                }
                if o.trx.epoch.is_none() {
                    o.trx.epoch = self.last_epoch;
                }
                o.trx.end_line = no as u32;
                if self.ev_end > 0 {
                    o.trx.end_pos = self.ev_end;
                }
                return;
            }
            _ => {}
        }
        if let Some(o) = self.cur.take() {
            self.close(o, true);
        }
        let local = if self.any_header { self.time_cache.2 } else { None };
        let mut o = self.new_open(self.ev_line.max(1) as usize, self.header_server(), local, State::Single);
        if !self.any_header {
            o.trx.start_line = no as u32;
        }
        o.trx.end_line = no as u32;
        o.kind = Some(kind);
        if kind == TrxKind::Dml {
            o.dml_statements += 1;
        }
        self.cur = Some(o);
    }
}

/// The event type name at the start of a header tail.
fn event_name(tail: &[u8]) -> &[u8] {
    for multi in [&b"Gtid list"[..], b"Binlog checkpoint", b"XA PREPARE"] {
        if tail.starts_with(multi) {
            return multi;
        }
    }
    if tail.starts_with(b"Rotate to ") {
        return b"Rotate";
    }
    let end = tail.iter().position(|&b| matches!(b, b' ' | b'\t' | b':')).unwrap_or(tail.len());
    &tail[..end]
}

fn after<'a>(s: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    let p = memchr::memmem::find(s, key)?;
    let v = &s[p + key.len()..];
    let end = v.iter().position(|&b| b == b' ').unwrap_or(v.len());
    Some(&v[..end])
}

fn is_rows_event(n: &[u8]) -> bool {
    n.starts_with(b"Write_rows")
        || n.starts_with(b"Update_rows")
        || n.starts_with(b"Delete_rows")
        || n.starts_with(b"Partial_update_rows")
}

fn is_known_event(n: &[u8]) -> bool {
    matches!(
        n,
        b"Stop"
            | b"Rotate"
            | b"Intvar"
            | b"Rand"
            | b"User_var"
            | b"Begin_load_query"
            | b"Append_block"
            | b"Delete_file"
            | b"Load"
            | b"Create_file"
            | b"Exec_load"
            | b"New_load"
            | b"Incident"
            | b"Heartbeat"
            | b"Transaction_payload"
            | b"Transaction_context"
            | b"View_change"
            | b"Ignorable"
            | b"Unknown"
            | b"Slave"
            | b"Start_encryption"
            | b"Heartbeat_v2"
    )
}

fn parse_mariadb_gtid(id: &[u8]) -> Option<Gtid> {
    let mut it = id.split(|&b| b == b'-');
    let domain = u32::try_from(digits_u64(it.next()?)?).ok()?;
    let server = u32::try_from(digits_u64(it.next()?)?).ok()?;
    let seq = digits_u64(it.next()?)?;
    if it.next().is_some() {
        return None;
    }
    Some(Gtid::MariaDb { domain, server, seq })
}

/// DML / DDL / other from a statement's first keyword.
fn classify(stmt: &[u8]) -> TrxKind {
    let s = trim_start(stmt);
    let end = s.iter().position(|b| !b.is_ascii_alphabetic()).unwrap_or(s.len());
    let w = &s[..end];
    const DML: [&[u8]; 6] = [b"insert", b"update", b"delete", b"replace", b"load", b"call"];
    const DDL: [&[u8]; 10] = [
        b"create",
        b"alter",
        b"drop",
        b"truncate",
        b"rename",
        b"grant",
        b"revoke",
        b"analyze",
        b"optimize",
        b"repair",
    ];
    if DML.iter().any(|k| w.eq_ignore_ascii_case(k)) {
        TrxKind::Dml
    } else if DDL.iter().any(|k| w.eq_ignore_ascii_case(k)) {
        TrxKind::Ddl
    } else {
        TrxKind::Other
    }
}
