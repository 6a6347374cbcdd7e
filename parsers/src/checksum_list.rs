//! `checksum_list`: `sha256sum` / `md5sum` / `sha1sum` / `sha512sum` output
//! (GNU and BSD `--tag` styles), e.g. the checksum of a binary log shipped
//! with a capture.
//!
//! Real sample (`bundles/s2a_mariadb_durable/mariadb-bin.000002.sha256`):
//!
//! ```text
//! e3b4bbfc627a379c53cce92c23a152525b18340f597ade784df504256b5fffda  mariadb/binlog/mariadb-bin.000002
//! ```
//!
//! GNU: `HEX␠␠PATH` (text mode) or `HEX␠*PATH` (binary mode); `--tag`:
//! `SHA256 (PATH) = HEX`. The algorithm follows from the digest length.

use crate::common::lines::count_lines;
use crate::common::scrub::Identifiers;
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};

/// One file's checksum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checksum {
    /// 1-based line number.
    pub line: usize,
    /// `md5`, `sha1`, `sha224`, `sha256`, `sha384`, `sha512` (from the digest length or the tag).
    pub algorithm: String,
    /// Lower-case hex digest.
    pub digest: String,
    /// The file as printed.
    pub path: String,
}

/// A parsed checksum list.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChecksumList {
    /// Entries in order.
    pub entries: Vec<Checksum>,
}

impl ChecksumList {
    /// The digest of a file whose path ends with `name`.
    pub fn digest_of(&self, name: &str) -> Option<&str> {
        self.entries.iter().find(|e| e.path.ends_with(name)).map(|e| e.digest.as_str())
    }
}

fn algo(len: usize) -> Option<&'static str> {
    Some(match len {
        32 => "md5",
        40 => "sha1",
        56 => "sha224",
        64 => "sha256",
        96 => "sha384",
        128 => "sha512",
        _ => return None,
    })
}

fn is_hex(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit())
}

fn parse_line(no: usize, t: &str) -> Option<Checksum> {
    // `SHA256 (file) = hex`
    if let Some((lhs, hex)) = t.rsplit_once(") = ") {
        let (tag, path) = lhs.split_once(" (")?;
        let hex = hex.trim();
        if is_hex(hex) && tag.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            return Some(Checksum {
                line: no,
                algorithm: tag.to_ascii_lowercase(),
                digest: hex.to_ascii_lowercase(),
                path: path.to_string(),
            });
        }
    }
    // `hex  path` / `hex *path`
    let (hex, rest) = t.split_once(' ')?;
    let path = rest.strip_prefix(' ').or_else(|| rest.strip_prefix('*'))?;
    let algorithm = algo(hex.len())?;
    if !is_hex(hex) || path.is_empty() {
        return None;
    }
    Some(Checksum {
        line: no,
        algorithm: algorithm.to_string(),
        digest: hex.to_ascii_lowercase(),
        path: path.to_string(),
    })
}

/// The reader.
#[derive(Debug, Clone, Copy)]
pub struct Fmt;

impl Format for Fmt {
    type Output = ChecksumList;
    const ID: &'static str = "checksum_list";
    const SAMPLE: &'static str =
        "e3b4bbfc627a379c53cce92c23a152525b18340f597ade784df504256b5fffda  mariadb/binlog/mariadb-bin.000002";
    const DESCRIPTION: &'static str = "sha256sum / md5sum style checksum lists";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        match Lines::new(head).find(|l| !l.is_blank()) {
            Some(l) if parse_line(l.no, l.text().trim_end()).is_some() => Sniff::Yes,
            _ => Sniff::No,
        }
    }

    fn parse(input: &[u8]) -> Parsed<ChecksumList> {
        let mut out = ChecksumList::default();
        let mut d = Diags::default();
        for (l, text) in Lines::new(input).content() {
            match parse_line(l.no, text.trim_end()) {
                Some(c) => out.entries.push(c),
                None => d.skip(l.no, DiagKind::Malformed, text.as_ref()),
            }
        }
        d.finish(out, count_lines(input))
    }
}

impl Summary for ChecksumList {
    fn records(&self) -> usize {
        self.entries.len()
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        if let Some(e) = self.entries.first() {
            v.insert("algorithm", e.algorithm.clone());
        }
        v
    }

    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gnu_and_tag() {
        let p = Fmt::parse(b"d41d8cd98f00b204e9800998ecf8427e *empty file\nSHA256 (x y) = E3B4BBFC627A379C53CCE92C23A152525B18340F597ADE784DF504256B5FFFDA\nnope\n");
        assert_eq!(p.value.entries[0].algorithm, "md5");
        assert_eq!(p.value.entries[0].path, "empty file");
        assert_eq!(p.value.entries[1].path, "x y");
        assert_eq!(p.skipped_lines, 1);
        assert_eq!(Fmt::sniff(b"abc  file\n"), Sniff::No);
    }
}
