//! `sa_binary`: sysstat's binary daily data files (`/var/log/sa/saDD`,
//! `/var/log/sysstat/saDD`, `sar -o` / `sadc` output). This crate does no
//! I/O, so it only recognises the file and reads its `file_magic` header: the
//! byte order, the data-file format and the sysstat version that wrote it.
//! The application reads the statistics through the `sadf` on PATH (into
//! [`SaFile::decoded`]) and says which `sadf` it used.
//!
//! The header (`sysstat/sysstat:sa.h`, `struct file_magic`), as written by
//! `sadc` of sysstat 12.6.1 here (`samples/sar_mariadb/capture/sa.bin.gz`) and
//! sysstat 10.1.5 (`field/other/mw2q-monetdb-power-100g__sar_raw.out`):
//!
//! ```text
//! 96 d5 75 21 0c 06 01 00   sysstat_magic 0xd596, format_magic 0x2175, version 12.6.1, extraversion 0
//! 96 d5 71 21 0a 01 05 00   sysstat_magic 0xd596, format_magic 0x2171, version 10.1.5
//! ```
//!
//! `0xd596` read in the other byte order means the file came from a host of
//! the other endianness. Known format magics: `0x2169`/`0x2170` (sysstat 8 and
//! 9.0), `0x2171` (9.1.6 to 10.2.1), `0x2173` (10.3.1 to 11.6.x), `0x2175` (12.x).

use crate::common::scrub::Identifiers;
use crate::common::{Format, Parsed, Sniff, Stamp, Summary, Variant};
use crate::sar::Sar;

/// `SYSSTAT_MAGIC` of `sa.h`.
pub const SYSSTAT_MAGIC: u16 = 0xd596;

/// The `file_magic` header of a sa file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SaHeader {
    /// Data-file format (`0x2175` for sysstat 12).
    pub format_magic: u16,
    /// Sysstat version that wrote the file: (version, patchlevel, sublevel).
    pub version: (u8, u8, u8),
    /// True when written on a host of the other byte order than little-endian x86.
    pub big_endian: bool,
}

impl SaHeader {
    /// `12.6.1`.
    pub fn version_text(&self) -> String {
        format!("{}.{}.{}", self.version.0, self.version.1, self.version.2)
    }

    /// The sysstat versions that write this format, as sysstat documents them.
    pub fn format_versions(&self) -> &'static str {
        match self.format_magic {
            0x2169 | 0x2170 => "sysstat 8.x to 9.1.5",
            0x2171 => "sysstat 9.1.6 to 10.2.1",
            0x2173 => "sysstat 10.3.1 to 11.6.x",
            0x2175 => "sysstat 12.x",
            _ => "an unknown sysstat version",
        }
    }
}

/// Reads the header; `None` when the bytes are not a sa file.
pub fn header(input: &[u8]) -> Option<SaHeader> {
    let b = input.get(..8)?;
    let le = u16::from_le_bytes([b[0], b[1]]);
    let big_endian = match le {
        SYSSTAT_MAGIC => false,
        x if x == SYSSTAT_MAGIC.swap_bytes() => true,
        _ => return None,
    };
    let raw = [b[2], b[3]];
    let format_magic = if big_endian { u16::from_be_bytes(raw) } else { u16::from_le_bytes(raw) };
    if !(0x2160..=0x21ff).contains(&format_magic) {
        return None;
    }
    Some(SaHeader { format_magic, version: (b[4], b[5], b[6]), big_endian })
}

/// A sa file: its header, and its statistics once the application has read them through `sadf`.
#[derive(Debug, Clone, PartialEq)]
pub struct SaFile {
    /// The `file_magic` header.
    pub header: SaHeader,
    /// Size of the file in bytes.
    pub bytes: usize,
    /// The statistics as `sadf -j` gave them (filled by the application).
    pub decoded: Option<Sar>,
    /// The `sadf` used and its command line, or why it could not be used (filled by the application).
    pub reader: Option<String>,
}

impl Summary for SaFile {
    fn records(&self) -> usize {
        self.decoded.as_ref().map_or(0, |s| s.rows.len())
    }
    fn variant(&self) -> Variant {
        let mut v = self.decoded.as_ref().map(Summary::variant).unwrap_or_default();
        v.insert("sysstat_version", self.header.version_text());
        v.insert(
            "file_format",
            format!("0x{:04x} ({})", self.header.format_magic, self.header.format_versions()),
        );
        v.insert("byte_order", if self.header.big_endian { "big-endian" } else { "little-endian" }.into());
        v.insert("source", "sa binary file".into());
        if let Some(r) = &self.reader {
            v.insert("read_with", r.clone());
        }
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        self.decoded.as_ref()?.time_range()
    }
}

/// The `sa_binary` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = SaFile;
    const ID: &'static str = "sa_binary";
    const SAMPLE: &'static str = "96 d5 75 21 0c 06 01 00 (file_magic: sysstat 12.6.1, format 0x2175)";
    const DESCRIPTION: &'static str = "sysstat binary daily files (saDD), read through the sadf on PATH";

    const IDENTIFIERS: Identifiers = Identifiers::Binary;
    fn sniff(head: &[u8]) -> Sniff {
        if header(head).is_some() { Sniff::Yes } else { Sniff::No }
    }

    fn parse(input: &[u8]) -> Parsed<SaFile> {
        let lines = crate::common::lines::count_lines(input);
        match header(input) {
            Some(h) => {
                Parsed::new(SaFile { header: h, bytes: input.len(), decoded: None, reader: None }, lines)
            }
            None => {
                let mut d = crate::common::Diags::default();
                d.skip(1, crate::common::DiagKind::Malformed, "no sysstat file_magic header (0xd596)");
                let h = SaHeader { format_magic: 0, version: (0, 0, 0), big_endian: false };
                d.finish(SaFile { header: h, bytes: input.len(), decoded: None, reader: None }, lines)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_of_two_generations_and_byte_orders() {
        let h = header(&[0x96, 0xd5, 0x75, 0x21, 0x0c, 0x06, 0x01, 0x00, 0xff]).unwrap();
        assert_eq!((h.format_magic, h.version_text(), h.big_endian), (0x2175, "12.6.1".into(), false));
        let h = header(&[0x96, 0xd5, 0x71, 0x21, 0x0a, 0x01, 0x05, 0x00]).unwrap();
        assert_eq!(h.version_text(), "10.1.5");
        assert_eq!(h.format_versions(), "sysstat 9.1.6 to 10.2.1");
        let h = header(&[0xd5, 0x96, 0x21, 0x73, 0x0b, 0x02, 0x00, 0x00]).unwrap();
        assert!(h.big_endian);
        assert_eq!(h.format_magic, 0x2173);
        assert!(header(b"Linux 6.1").is_none());
        assert!(header(&[0x96, 0xd5, 0x00, 0x00, 0, 0, 0, 0]).is_none());
        assert!(header(&[0x96]).is_none());
    }
}
