//! `smaps`: `/proc/PID/smaps` and `/proc/PID/smaps_rollup`, single or
//! several processes concatenated with separator lines.
//!
//! Real sample (`gcache_sim.smaps` of bundle s1, kernel 6.18; the file starts
//! with a pt-stalk-style `TS` line):
//!
//! ```text
//! TS 1795981107.721241164 2026-11-29 19:38:27
//! 7f26bae00000-7f26fae00000 rw-s 00000000 fe:00 10035510                   /var/lib/app/gcache.dat
//! Size:            1048576 kB
//! KernelPageSize:        4 kB
//! Rss:             1048576 kB
//! Pss_Dirty:         89960 kB
//! Private_Dirty:     89960 kB
//! FilePmdMapped:         0 kB
//! THPeligible:           0
//! VmFlags: rd wr sh mr mw me ms rr
//! ```
//!
//! (`linux fs/proc/task_mmu.c`: `show_map_vma`, `__show_smap`,
//! `show_smap_vma_flags`; FORMATS.md §8.) `smaps_rollup` is one pseudo-VMA
//! `5568218f6000-7fff1d132000 ---p 00000000 00:00 0                          [rollup]`
//! with summed fields.
//!
//! * The header is `start-end perms offset dev inode [path]`; the path is
//!   everything after the padding that follows the inode (spaces and
//!   ` (deleted)` kept).
//! * Field lines are `Key:<whitespace>value[ kB]`; `THPeligible:\t\t0`,
//!   `THPeligible:    0` and `THPeligible:           0` (5.x TABs, later
//!   spaces, 6.x padding) all read the same. Unknown keys are kept.
//! * Lines between mappings that are neither (`== 1234`, `TS ...`,
//!   `/proc/1234/smaps:`) are separators of concatenated captures: recorded
//!   in [`Smaps::separators`], not errors. Inside a mapping (before its
//!   `VmFlags`) only punctuation-led or `TS` lines are separators; anything
//!   else there is reported as malformed.

use crate::common::scrub::Identifiers;
use crate::common::ts::TsLine;
use crate::common::{
    DiagKind, Diags, Format, Line, Lines, Parsed, SNIFF_BYTES, Sniff, Stamp, Summary, Variant,
    lines::count_lines,
};
use crate::procfs::meminfo::{next_token, parse_u64_bytes, value_with_unit};
use crate::procfs::tsblocks::{is_ts_line, read_ts};

/// Everything read from an smaps / smaps_rollup file.
#[derive(Debug, Clone, Default)]
pub struct Smaps {
    /// The mappings in file order (one `[rollup]` pseudo-mapping per rollup).
    pub mappings: Vec<Mapping>,
    /// True when the file is `smaps_rollup` (a `[rollup]` header was seen).
    pub rollup: bool,
    /// Separator lines between processes / captures: `(line, text)`.
    pub separators: Vec<(usize, String)>,
    /// Readable `TS` lines among the separators: `(line, ts)`.
    pub ts_lines: Vec<(usize, TsLine)>,
}

impl Smaps {
    /// Sum of field `key` over all mappings (kB for kB fields), e.g. `total("Rss")`.
    pub fn total(&self, key: &str) -> u64 {
        self.mappings.iter().filter_map(|m| m.get(key)).fold(0u64, |a, v| a.saturating_add(v))
    }

    /// The mappings whose path is exactly `path`.
    pub fn by_path<'s>(&'s self, path: &'s str) -> impl Iterator<Item = &'s Mapping> + 's {
        self.mappings.iter().filter(move |m| m.path == path)
    }
}

/// One VMA (or the `[rollup]` pseudo-VMA).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mapping {
    /// 1-based line number of the header.
    pub line: usize,
    /// Start address.
    pub start: u64,
    /// End address (exclusive).
    pub end: u64,
    /// Permissions, e.g. `rw-s`.
    pub perms: String,
    /// File offset.
    pub offset: u64,
    /// Device `MAJ:MIN` in hex as printed (`fe:00`).
    pub dev: String,
    /// Inode number (0 for anonymous).
    pub inode: u64,
    /// Path as printed (may be empty, contain spaces, end with ` (deleted)`, or be `[heap]` etc.).
    pub path: String,
    /// Fields in file order: kB for `kB` fields, the raw number for unitless ones (`THPeligible`).
    pub fields: Vec<(String, u64)>,
    /// `VmFlags` codes (`rd wr sh mr mw me ms rr`).
    pub vmflags: Vec<String>,
}

impl Mapping {
    /// Value of field `key` (e.g. `"FilePmdMapped"`).
    pub fn get(&self, key: &str) -> Option<u64> {
        self.fields.iter().find(|(k, _)| k == key).map(|&(_, v)| v)
    }

    /// True when the mapping is backed by a file (an absolute path).
    pub fn is_file(&self) -> bool {
        self.path.starts_with('/')
    }
}

impl Summary for Smaps {
    fn records(&self) -> usize {
        self.mappings.len()
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        v.insert("kind", if self.rollup { "smaps_rollup" } else { "smaps" }.to_string());
        let has = |k: &str| self.mappings.iter().any(|m| m.get(k).is_some());
        let mut gen_keys = Vec::new();
        for k in ["Pss_Dirty", "KSM", "FilePmdMapped", "THPeligible", "ShmemPmdMapped", "LazyFree"] {
            if has(k) {
                gen_keys.push(k);
            }
        }
        v.insert("fields", gen_keys.join(","));
        if !self.separators.is_empty() {
            v.insert("separators", self.separators.len().to_string());
        }
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        let first = self.ts_lines.first()?.1;
        let last = self.ts_lines.last()?.1;
        Some((Stamp::Epoch(first.epoch), Stamp::Epoch(last.epoch)))
    }
}

fn parse_hex(b: &[u8]) -> Option<u64> {
    if b.is_empty() || b.len() > 16 {
        return None;
    }
    let mut v = 0u64;
    for &c in b {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => return None,
        };
        v = (v << 4) | u64::from(d);
    }
    Some(v)
}

/// Reads a VMA header line:
/// `7f26bae00000-7f26fae00000 rw-s 00000000 fe:00 10035510                   /var/lib/app/gcache.dat`.
pub fn parse_header(b: &[u8], no: usize) -> Option<Mapping> {
    let (range, rest) = next_token(b)?;
    let dash = memchr::memchr(b'-', range)?;
    let start = parse_hex(&range[..dash])?;
    let end = parse_hex(&range[dash + 1..])?;
    let (perms, rest) = next_token(rest)?;
    let ok_perms = perms.len() == 4
        && matches!(perms[0], b'r' | b'-')
        && matches!(perms[1], b'w' | b'-')
        && matches!(perms[2], b'x' | b'-')
        && matches!(perms[3], b'p' | b's' | b'-');
    if !ok_perms {
        return None;
    }
    let (offset, rest) = next_token(rest)?;
    let offset = parse_hex(offset)?;
    let (dev, rest) = next_token(rest)?;
    let colon = memchr::memchr(b':', dev)?;
    parse_hex(&dev[..colon])?;
    parse_hex(&dev[colon + 1..])?;
    let (inode, rest) = next_token(rest)?;
    let inode = parse_u64_bytes(inode)?;
    let path = match rest.iter().position(|c| !c.is_ascii_whitespace()) {
        Some(i) => String::from_utf8_lossy(&rest[i..]).into_owned(),
        None => String::new(),
    };
    Some(Mapping {
        line: no,
        start,
        end,
        // perms and dev were checked to be ASCII above.
        perms: String::from_utf8_lossy(perms).into_owned(),
        offset,
        dev: String::from_utf8_lossy(dev).into_owned(),
        inode,
        path,
        fields: Vec::new(),
        vmflags: Vec::new(),
    })
}

/// A field line split into key and the text after the colon; `None` when the
/// line is not `Key:` + whitespace (or end).
fn split_field(b: &[u8]) -> Option<(&[u8], &[u8])> {
    let colon = memchr::memchr(b':', b)?;
    let key = &b[..colon];
    if key.is_empty() || !key.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_') {
        return None;
    }
    let rest = &b[colon + 1..];
    if rest.first().is_some_and(|c| !c.is_ascii_whitespace()) {
        return None;
    }
    Some((key, rest))
}

/// Reads a field value: `   1048576 kB` or `\t\t0`.
fn parse_value(rest: &[u8]) -> Option<u64> {
    value_with_unit(rest).ok()
}

/// A line that reads as a header at a glance (`hex-hex perms ...`) but did
/// not parse as one.
fn looks_like_header(b: &[u8]) -> bool {
    let Some((t, rest)) = next_token(b) else { return false };
    let range = t.first().is_some_and(u8::is_ascii_hexdigit) && memchr::memchr(b'-', t).is_some();
    let perms = next_token(rest).is_some_and(|(p, _)| p.len() == 4 && matches!(p.last(), Some(b'p' | b's')));
    range && perms
}

/// A separator that may appear even right after a header: punctuation-led,
/// a `TS` line, or a bare process id.
fn strong_separator(b: &[u8]) -> bool {
    let t = match b.iter().position(|c| !c.is_ascii_whitespace()) {
        Some(i) => &b[i..],
        None => return false,
    };
    is_ts_line(t) || t.first().is_some_and(|c| c.is_ascii_punctuation()) || t.iter().all(u8::is_ascii_digit)
}

fn tool_message(text: &str) -> bool {
    text.contains("No such file or directory")
        || text.contains("Permission denied")
        || text.contains("No such process")
}

struct State {
    out: Smaps,
    cur: Option<Mapping>,
    /// A header was read and its `VmFlags` line has not come yet.
    in_fields: bool,
}

impl State {
    fn flush(&mut self) {
        if let Some(m) = self.cur.take() {
            self.out.mappings.push(m);
        }
        self.in_fields = false;
    }

    fn separator(&mut self, line: &Line<'_>) {
        self.flush();
        let text = line.text();
        if let Some(ts) = read_ts(line.bytes) {
            self.out.ts_lines.push((line.no, ts));
        }
        self.out.separators.push((line.no, text.into_owned()));
    }

    fn line(&mut self, line: &Line<'_>, diags: &mut Diags) {
        let b = line.bytes;
        if let Some((key, rest)) = split_field(b) {
            let Some(m) = self.cur.as_mut() else {
                if tool_message(&line.text()) {
                    diags.skip(line.no, DiagKind::ToolMessage, line.text());
                } else {
                    diags.skip(line.no, DiagKind::NoHeader, line.text());
                }
                return;
            };
            if key == b"VmFlags" {
                let mut r = rest;
                while let Some((flag, t)) = next_token(r) {
                    m.vmflags.push(String::from_utf8_lossy(flag).into_owned());
                    r = t;
                }
                self.in_fields = false;
                return;
            }
            match parse_value(rest) {
                Some(v) => {
                    let k = match std::str::from_utf8(key) {
                        Ok(s) => s.to_owned(),
                        Err(_) => String::from_utf8_lossy(key).into_owned(),
                    };
                    m.fields.push((k, v));
                }
                None if tool_message(&line.text()) => diags.skip(line.no, DiagKind::ToolMessage, line.text()),
                None => diags.skip(line.no, DiagKind::BadNumber, line.text()),
            }
            return;
        }
        if let Some(m) = parse_header(b, line.no) {
            self.flush();
            if m.path == "[rollup]" {
                self.out.rollup = true;
            }
            self.cur = Some(m);
            self.in_fields = true;
            return;
        }
        let text = line.text();
        if tool_message(&text) {
            diags.skip(line.no, DiagKind::ToolMessage, text);
        } else if looks_like_header(b) {
            diags.skip(line.no, DiagKind::Malformed, text);
        } else if strong_separator(b) || !self.in_fields || self.cur.is_none() {
            self.separator(line);
        } else {
            diags.skip(line.no, DiagKind::Malformed, text);
        }
    }
}

/// The `smaps` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Smaps;
    const ID: &'static str = "smaps";
    const SAMPLE: &'static str =
        "7f26bae00000-7f26fae00000 rw-s 00000000 fe:00 10035510                   /var/lib/app/gcache.dat";
    const DESCRIPTION: &'static str =
        "/proc/PID/smaps and smaps_rollup (one or several processes concatenated)";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let head = &head[..head.len().min(SNIFF_BYTES)];
        let mut saw_header = false;
        let mut skipped = 0usize;
        for line in Lines::new(head) {
            if line.is_blank() {
                continue;
            }
            if saw_header {
                return match split_field(line.bytes) {
                    Some((k, r)) if parse_value(r).is_some() && k != b"VmFlags" => Sniff::Yes,
                    _ => Sniff::No,
                };
            }
            if parse_header(line.bytes, line.no).is_some() {
                saw_header = true;
                continue;
            }
            // Separator lines before the first mapping (`== 1234`, `TS ...`).
            skipped += 1;
            if skipped > 3 || split_field(line.bytes).is_some() {
                return Sniff::No;
            }
        }
        Sniff::No
    }

    fn parse(input: &[u8]) -> Parsed<Smaps> {
        let mut diags = Diags::default();
        let mut st = State { out: Smaps::default(), cur: None, in_fields: false };
        for line in Lines::new(input) {
            if line.is_blank() {
                continue;
            }
            st.line(&line, &mut diags);
        }
        if let Some(m) = st.cur.as_ref().filter(|m| m.fields.is_empty()) {
            diags.note(m.line, DiagKind::Truncated, "mapping header without fields at end of file");
        }
        st.flush();
        diags.finish(st.out, count_lines(input))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &[u8] = b"== 1234
7f26bae00000-7f26fae00000 rw-s 00000000 fe:00 10035510                   /var/lib/app/my data.dat (deleted)
Size:            1048576 kB
Rss:             1048576 kB
Private_Dirty:     89960 kB
FilePmdMapped:         0 kB
THPeligible:\t\t0
Mystery_New:          12 kB
VmFlags: rd wr sh mr mw me ms rr 
7f26faee9000-7f26faeec000 rw-p 00000000 00:00 0 
Size:                 12 kB
Rss:                   8 kB
THPeligible:           1
VmFlags: rd wr mr mw me ac 
== 5678
";

    #[test]
    fn mappings_fields_and_separators() {
        assert_eq!(Fmt::sniff(TWO), Sniff::Yes);
        let p = Fmt::parse(TWO);
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let s = &p.value;
        assert_eq!(s.mappings.len(), 2);
        let m = &s.mappings[0];
        assert_eq!(m.path, "/var/lib/app/my data.dat (deleted)");
        assert_eq!((m.start, m.end, m.inode), (0x7f26bae00000, 0x7f26fae00000, 10035510));
        assert_eq!((m.perms.as_str(), m.dev.as_str(), m.line), ("rw-s", "fe:00", 2));
        assert_eq!(m.get("THPeligible"), Some(0));
        assert_eq!(m.get("Mystery_New"), Some(12));
        assert_eq!(m.vmflags.len(), 8);
        assert_eq!(s.mappings[1].path, "");
        assert_eq!(s.mappings[1].get("THPeligible"), Some(1));
        assert_eq!(s.total("Rss"), 1048584);
        assert_eq!(s.separators, vec![(1, "== 1234".to_string()), (15, "== 5678".to_string())]);
        assert!(!s.rollup);
    }

    #[test]
    fn malformed_lines_are_reported() {
        let input = b"00400000-00cb1000 r-xp 00000000 fd:01 952273   /bin/x
Size:               8900 kB
garbage words here
Rss:                 abc kB
0040zz00-00cb1000 r-xp 00000000 fd:01 952273   /bin/x
VmFlags: rd ex
";
        let p = Fmt::parse(input);
        let kinds: Vec<_> = p.diagnostics.iter().map(|d| (d.line, d.kind)).collect();
        assert_eq!(kinds, vec![(3, DiagKind::Malformed), (4, DiagKind::BadNumber), (5, DiagKind::Malformed)]);
        assert_eq!(p.skipped_lines, 3);
        assert_eq!(p.value.mappings[0].vmflags, vec!["rd", "ex"]);
    }

    #[test]
    fn rollup_and_sniff_no() {
        let input = b"5568218f6000-7fff1d132000 ---p 00000000 00:00 0                          [rollup]
Rss:             1050108 kB
Pss_Anon:            124 kB
";
        assert_eq!(Fmt::sniff(input), Sniff::Yes);
        let p = Fmt::parse(input);
        assert!(p.value.rollup);
        assert_eq!(p.value.total("Pss_Anon"), 124);
        assert_eq!(Fmt::sniff(b"MemTotal:  1 kB\n"), Sniff::No);
        assert_eq!(
            Fmt::sniff(b"00400000-00cb1000 r-xp 00000000 fd:01 952273   /bin/x\n00400000-00cb1000 r-xp 00000000 fd:01 952273   /bin/y\n"),
            Sniff::No
        );
    }
}
