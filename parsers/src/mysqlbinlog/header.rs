//! The event header line `mysqlbinlog` prints before every event, and the
//! small byte-level helpers the collector uses.
//!
//! ```text
//! #261129 19:42:16 server id 1  end_log_pos 417 CRC32 0x3f525a41 	GTID 0-1-1 trans
//! #090722  7:21:41 server id 12345  end_log_pos 98 	Start: binlog v 4, server v 5.0.82-log created 090722  7:21:41 at startup
//! #091022  0:00:00 server id 11  end_log_pos 571891160    Query   thread_id=140839791     exec_time=0     error_code=0
//! #261129 19:35:21 server id 101  end_log_pos 256 CRC32 0x4c687dd2
//! ```
//! The hour is padded with a space, a TAB normally precedes the event type
//! (some captures have spaces instead), `CRC32 0x…` only appears with
//! `binlog_checksum=CRC32`, and `--hexdump` prints the header without a type
//! (the type follows on a `# Event: ` line after the hex table).

// Quoted real lines keep their TABs (mysqlbinlog prints one before the event type).
#![allow(clippy::tabs_in_doc_comments)]

use chrono::{NaiveDate, NaiveDateTime};

/// The fields of one event header line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Header<'a> {
    /// `YYMMDD` as a number (e.g. 261129), for caching the date.
    pub ymd: u32,
    /// Seconds of the day.
    pub secs: u32,
    /// `server id N`.
    pub server_id: u32,
    /// `end_log_pos N`.
    pub end_log_pos: u64,
    /// A `CRC32 0x…` field was present.
    pub crc32: bool,
    /// The event type and its tail (empty with `--hexdump`).
    pub tail: &'a [u8],
}

/// True when the line has the shape `#` + 6 digits + space (an event header).
#[inline]
pub(crate) fn looks_like_header(line: &[u8]) -> bool {
    line.len() > 8 && line[0] == b'#' && line[1..7].iter().all(u8::is_ascii_digit) && line[7] == b' '
}

/// Parses an event header; `None` when the line does not have the shape.
pub(crate) fn parse_header(line: &[u8]) -> Option<Header<'_>> {
    if !looks_like_header(line) {
        return None;
    }
    let ymd = digits_u64(&line[1..7])? as u32;
    let mut p = Cursor { s: line, i: 8 };
    p.spaces();
    let h = p.number()?;
    p.expect(b":")?;
    let m = p.number()?;
    p.expect(b":")?;
    let s = p.number()?;
    if h > 23 || m > 59 || s > 60 {
        return None;
    }
    p.spaces();
    p.expect(b"server id")?;
    p.spaces();
    let server_id = u32::try_from(p.number()?).ok()?;
    p.spaces();
    p.expect(b"end_log_pos")?;
    p.spaces();
    let end_log_pos = p.number()?;
    p.blanks();
    let mut crc32 = false;
    if p.rest().starts_with(b"CRC32 0x") {
        p.i += 8;
        let n = p.rest().iter().take_while(|b| b.is_ascii_hexdigit()).count();
        if n == 0 {
            return None;
        }
        p.i += n;
        crc32 = true;
        p.blanks();
    }
    let tail = trim_end(p.rest());
    Some(Header { ymd, secs: (h * 3600 + m * 60 + s) as u32, server_id, end_log_pos, crc32, tail })
}

/// The local date and time of a header (`None` for impossible dates).
pub(crate) fn header_time(ymd: u32, secs: u32) -> Option<NaiveDateTime> {
    let y = crate::common::time::full_year((ymd / 10000) as i32);
    let date = NaiveDate::from_ymd_opt(y, (ymd / 100) % 100, ymd % 100)?;
    let secs = secs.min(86_399);
    date.and_hms_opt(secs / 3600, (secs / 60) % 60, secs % 60)
}

struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Cursor<'a> {
    fn rest(&self) -> &'a [u8] {
        self.s.get(self.i..).unwrap_or(&[])
    }
    fn spaces(&mut self) {
        while self.s.get(self.i) == Some(&b' ') {
            self.i += 1;
        }
    }
    fn blanks(&mut self) {
        while matches!(self.s.get(self.i), Some(b' ' | b'\t')) {
            self.i += 1;
        }
    }
    fn expect(&mut self, lit: &[u8]) -> Option<()> {
        if self.rest().starts_with(lit) {
            self.i += lit.len();
            Some(())
        } else {
            None
        }
    }
    fn number(&mut self) -> Option<u64> {
        let start = self.i;
        let mut v: u64 = 0;
        while let Some(&b) = self.s.get(self.i) {
            if !b.is_ascii_digit() {
                break;
            }
            v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
            self.i += 1;
        }
        (self.i > start).then_some(v)
    }
}

/// Parses ASCII digits (1..=19 of them) as `u64`.
#[inline]
pub(crate) fn digits_u64(d: &[u8]) -> Option<u64> {
    if d.is_empty() || d.len() > 19 {
        return None;
    }
    let mut v: u64 = 0;
    for &b in d {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v * 10 + u64::from(b - b'0');
    }
    Some(v)
}

/// The leading unsigned number of `s` (digits only), `None` without digits.
#[inline]
pub(crate) fn leading_u64(s: &[u8]) -> Option<u64> {
    let n = s.iter().take_while(|b| b.is_ascii_digit()).count();
    digits_u64(s.get(..n)?)
}

/// The leading signed number of `s`.
pub(crate) fn leading_i64(s: &[u8]) -> Option<i64> {
    match s.first() {
        Some(b'-') => leading_u64(s.get(1..)?).and_then(|v| i64::try_from(v).ok()).map(|v| -v),
        _ => leading_u64(s).and_then(|v| i64::try_from(v).ok()),
    }
}

/// `s` without trailing spaces, TABs and CRs.
#[inline]
pub(crate) fn trim_end(s: &[u8]) -> &[u8] {
    let n = s.iter().rposition(|b| !matches!(b, b' ' | b'\t' | b'\r')).map_or(0, |p| p + 1);
    &s[..n]
}

/// `s` without leading spaces and TABs.
#[inline]
pub(crate) fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().position(|b| !matches!(b, b' ' | b'\t')).unwrap_or(s.len());
    &s[n..]
}

/// The value after `key` (e.g. `b"cid="`) in a TAB/space separated tail.
pub(crate) fn field<'a>(tail: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    let pos = memchr::memmem::find(tail, key)?;
    if pos > 0 && !matches!(tail[pos - 1], b' ' | b'\t') {
        return None;
    }
    let v = &tail[pos + key.len()..];
    let end = v.iter().position(|b| matches!(b, b' ' | b'\t')).unwrap_or(v.len());
    Some(&v[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mariadb_header() {
        let h = parse_header(
            b"#261129 19:42:16 server id 1  end_log_pos 417 CRC32 0x3f525a41 \tGTID 0-1-1 trans",
        )
        .unwrap();
        assert_eq!((h.ymd, h.secs, h.server_id, h.end_log_pos, h.crc32), (261129, 70936, 1, 417, true));
        assert_eq!(h.tail, b"GTID 0-1-1 trans");
        assert_eq!(header_time(h.ymd, h.secs).unwrap().to_string(), "2026-11-29 19:42:16");
    }

    #[test]
    fn padded_hour_spaces_and_hexdump() {
        let h = parse_header(b"#091022  0:00:00 server id 11  end_log_pos 571891160    Query   thread_id=1")
            .unwrap();
        assert_eq!((h.secs, h.end_log_pos, h.crc32), (0, 571891160, false));
        assert_eq!(h.tail, b"Query   thread_id=1");
        let h = parse_header(b"#261129 19:35:21 server id 101  end_log_pos 256 CRC32 0x4c687dd2 ").unwrap();
        assert_eq!(h.tail, b"");
        assert!(parse_header(b"#261129 19:35 server id 1").is_none());
        assert!(parse_header(b"#261129 99:00:00 server id 1  end_log_pos 1 \tXid = 1").is_none());
    }

    #[test]
    fn fields() {
        let t = b"GTID\tlast_committed=2\tsequence_number=3\trbr_only=yes";
        assert_eq!(field(t, b"last_committed="), Some(&b"2"[..]));
        assert_eq!(field(t, b"committed="), None);
        assert_eq!(leading_i64(b"-5x"), Some(-5));
    }
}
