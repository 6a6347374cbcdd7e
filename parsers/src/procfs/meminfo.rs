//! `proc_meminfo`: `/proc/meminfo`, one snapshot or a pt-stalk `TS`-framed
//! series (`<prefix>-meminfo`), and the per-NUMA-node variant
//! `/sys/devices/system/node/nodeN/meminfo`.
//!
//! Real sample (pt-stalk `2026_11_29_19_37_19-meminfo`, kernel 6.18):
//!
//! ```text
//! TS 1795981039.666693755 2026-11-29 19:37:19
//! MemTotal:       24684084 kB
//! MemFree:        19440712 kB
//! Active(anon):     167600 kB
//! Dirty:             22228 kB
//! HugePages_Total:       0
//! Hugepagesize:       2048 kB
//! ```
//!
//! Per NUMA node: `Node 0 MemTotal:       16255700 kB` (the key is kept as
//! printed, `Node 0 MemTotal`; see [`Snapshot::node`]).
//!
//! Every key is kept, known or not, in file order. Values are the numbers as
//! printed: kB for `kB` lines, page counts for the unitless `HugePages_*`
//! lines (FORMATS.md §5). The same [`Series`] type holds `/proc/vmstat`
//! series (see [`crate::procfs::vmstat`]).

use crate::common::lines::is_blank;
use crate::common::scrub::Identifiers;
use crate::common::ts::TsLine;
use crate::common::{
    DiagKind, Diags, Format, LineSource, Parsed, SNIFF_BYTES, Sniff, Stamp, Summary, Variant,
    lines::count_lines,
};
use crate::procfs::tsblocks::{self, Layout};

/// A series of key/value snapshots (`/proc/meminfo` or `/proc/vmstat`).
#[derive(Debug, Clone, Default)]
pub struct Series {
    /// The snapshots in file order.
    pub snapshots: Vec<Snapshot>,
    /// Where the `TS` lines were (`None` for an empty input).
    pub layout: Option<Layout>,
    /// Which file this series came from.
    pub kind: SeriesKind,
    /// One snapshot in this many was kept to stay within a memory budget
    /// ([`parse_source_within`]; 0 or 1: every snapshot).
    pub thinned: u32,
}

/// The `/proc` file a [`Series`] was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SeriesKind {
    /// `/proc/meminfo` (or a node's meminfo).
    #[default]
    Meminfo,
    /// `/proc/vmstat`.
    Vmstat,
}

/// One snapshot: every `key value` line of one block, in file order.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// First line of the block (its `TS` line in the TS-before layout).
    pub line: usize,
    /// The `TS` line stamping it, if any.
    pub ts: Option<TsLine>,
    /// The block was cut short at the end of the file.
    pub truncated: bool,
    /// The keys in file order (`MemTotal`, `Dirty`, `nr_dirtied`): one list shared by the
    /// snapshots that have the same keys, which are nearly all (16 bytes a line kept
    /// per snapshot was 110 MB of a 200 MB meminfo's 186 MB).
    pub keys: std::sync::Arc<[std::sync::Arc<str>]>,
    /// The value of each key, as printed (meminfo: kB, `HugePages_*`: pages; vmstat: raw counters).
    pub values: Vec<u64>,
}

impl Snapshot {
    /// The value of `key` (exact match, e.g. `"Dirty"`, `"Active(anon)"`, `"nr_dirtied"`).
    pub fn get(&self, key: &str) -> Option<u64> {
        self.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// `(key, value)` of every line, in file order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> + '_ {
        self.keys.iter().map(|k| &**k).zip(self.values.iter().copied())
    }

    /// The number of `key value` lines read.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// No `key value` line was read.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The value of `key` for NUMA node `node` (`Node 0 MemTotal:` lines).
    pub fn node(&self, node: u32, key: &str) -> Option<u64> {
        self.iter().find_map(|(k, v)| {
            let rest = k.strip_prefix("Node ")?;
            let (n, name) = rest.split_once(' ')?;
            (n.parse::<u32>().ok()? == node && name == key).then_some(v)
        })
    }

    /// The epoch seconds of the `TS` line, if any.
    pub fn epoch(&self) -> Option<f64> {
        self.ts.map(|t| t.epoch)
    }
}

impl Series {
    /// The value of `key` in every snapshot, in order (`None` where it is missing).
    pub fn column(&self, key: &str) -> Vec<Option<u64>> {
        self.snapshots.iter().map(|s| s.get(key)).collect()
    }

    fn variant_of(&self) -> Variant {
        let mut v = Variant::new();
        let kind = match self.kind {
            SeriesKind::Meminfo => "meminfo",
            SeriesKind::Vmstat => "vmstat",
        };
        v.insert("kind", kind.to_string());
        if let Some(l) = self.layout {
            v.insert("layout", l.as_str().to_string());
        }
        if let Some(first) = self.snapshots.first() {
            v.insert("keys", first.len().to_string());
            if first.keys.iter().any(|k| k.starts_with("Node ")) {
                v.insert("numa", "per-node".to_string());
            }
        }
        let ts = match self.snapshots.iter().find_map(|s| s.ts) {
            Some(TsLine { local: Some(_), .. }) => "epoch+local",
            Some(_) => "epoch",
            None => "none",
        };
        v.insert("ts", ts.to_string());
        if self.thinned > 1 {
            v.insert("snapshots_thinned", crate::procfs::ts_budget::thinned_variant(self.thinned));
        }
        if self.snapshots.iter().any(|s| s.truncated) {
            v.insert("truncated", "last snapshot".to_string());
        }
        v
    }

    fn stamps(&self) -> Option<(Stamp, Stamp)> {
        let first = self.snapshots.iter().find_map(|s| s.ts)?;
        let last = self.snapshots.iter().rev().find_map(|s| s.ts)?;
        Some((Stamp::Epoch(first.epoch), Stamp::Epoch(last.epoch)))
    }
}

impl Summary for Series {
    fn records(&self) -> usize {
        self.snapshots.len()
    }
    fn variant(&self) -> Variant {
        self.variant_of()
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        self.stamps()
    }
}

/// Parses an unsigned decimal from ASCII digits (`None` on anything else or overflow).
pub(crate) fn parse_u64_bytes(b: &[u8]) -> Option<u64> {
    if b.is_empty() || b.len() > 20 {
        return None;
    }
    if b.len() <= 19 {
        // 19 digits always fit: no overflow checks.
        let mut v: u64 = 0;
        for &c in b {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v * 10 + u64::from(d);
        }
        return Some(v);
    }
    let mut v: u64 = 0;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
    }
    Some(v)
}

/// Splits off the next whitespace-separated token.
pub(crate) fn next_token(b: &[u8]) -> Option<(&[u8], &[u8])> {
    let start = b.iter().position(|c| !c.is_ascii_whitespace())?;
    let rest = &b[start..];
    let end = rest.iter().position(|c| c.is_ascii_whitespace()).unwrap_or(rest.len());
    Some((&rest[..end], &rest[end..]))
}

fn is_key_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'(' || c == b')'
}

/// Reads one meminfo line: `Active(anon):     167600 kB`, `HugePages_Total:       0`,
/// `Node 0 MemTotal:       16255700 kB`. Returns the key (as printed) and the value.
pub fn parse_line(b: &[u8]) -> Result<(&[u8], u64), DiagKind> {
    let colon = memchr::memchr(b':', b).ok_or(DiagKind::Malformed)?;
    let key = &b[..colon];
    let name = match key.strip_prefix(b"Node ") {
        Some(rest) => {
            let sp = memchr::memchr(b' ', rest).ok_or(DiagKind::Malformed)?;
            if parse_u64_bytes(&rest[..sp]).is_none() {
                return Err(DiagKind::Malformed);
            }
            &rest[sp + 1..]
        }
        None => key,
    };
    if name.is_empty() || !name.iter().all(|&c| is_key_byte(c)) {
        return Err(DiagKind::Malformed);
    }
    value_with_unit(&b[colon + 1..]).map(|v| (key, v))
}

/// Reads `<spaces>N[<spaces>kB][<spaces>]`: the value part of meminfo and
/// smaps field lines. `BadNumber` when N is not a number, `Malformed` when
/// something other than `kB` follows it.
pub(crate) fn value_with_unit(rest: &[u8]) -> Result<u64, DiagKind> {
    let mut i = 0;
    while i < rest.len() && rest[i].is_ascii_whitespace() {
        i += 1;
    }
    let start = i;
    let mut v: u64 = 0;
    // Up to 19 digits always fit in a u64: no overflow checks on the usual values.
    while i < rest.len() && i - start < 19 && rest[i].is_ascii_digit() {
        v = v * 10 + u64::from(rest[i] - b'0');
        i += 1;
    }
    while i < rest.len() && rest[i].is_ascii_digit() {
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(rest[i] - b'0')))
            .ok_or(DiagKind::BadNumber)?;
        i += 1;
    }
    if i == start || rest.get(i).is_some_and(|c| !c.is_ascii_whitespace()) {
        return Err(DiagKind::BadNumber);
    }
    while i < rest.len() && rest[i].is_ascii_whitespace() {
        i += 1;
    }
    let tail = &rest[i..];
    if tail.is_empty() {
        return Ok(v);
    }
    match tail.strip_prefix(b"kB") {
        Some(t) if t.iter().all(u8::is_ascii_whitespace) => Ok(v),
        _ => Err(DiagKind::Malformed),
    }
}

/// A reader of one `key value` line.
pub(crate) type LineParser = fn(&[u8]) -> Result<(&[u8], u64), DiagKind>;

/// Reads a whole key/value series with `line_parser` for the data lines.
pub(crate) fn parse_series(input: &[u8], kind: SeriesKind, line_parser: LineParser) -> Parsed<Series> {
    let mut diags = Diags::default();
    let split = tsblocks::split(input, &mut diags);
    let mut series = Series {
        snapshots: Vec::with_capacity(split.blocks.len()),
        layout: Some(split.layout),
        kind,
        thinned: 0,
    };
    let mut keys = Vec::new();
    let mut all = crate::procfs::ts_budget::Thinning::new(0);
    for block in split.blocks {
        read_block(block, &mut series, &mut keys, &mut diags, line_parser, &mut all);
    }
    crate::common::ts::place_by_series(&mut series.snapshots, |s| &mut s.ts, |s| s.line, &mut diags);
    diags.finish(series, count_lines(input))
}

/// [`parse_series`] of lines fed one at a time (one block held at a time: [`crate::procfs::tsstream`]).
pub(crate) fn parse_series_source(
    src: &mut impl LineSource,
    kind: SeriesKind,
    line_parser: LineParser,
    budget: usize,
) -> Parsed<Series> {
    use crate::pieces::Pieces;
    series_pieces(kind, line_parser, budget).finish(src)
}

/// The parse of a `meminfo` series in pieces on several threads ([`crate::pieces`]),
/// keeping its snapshots within `budget` bytes as [`parse_source_within`] does.
pub fn pieces(budget: usize) -> crate::procfs::tspieces::TsPieces<SeriesFormat> {
    series_pieces(SeriesKind::Meminfo, parse_line, budget)
}

/// The parse of a key/value series in pieces on several threads ([`crate::pieces`]).
pub(crate) fn series_pieces(
    kind: SeriesKind,
    line_parser: LineParser,
    budget: usize,
) -> crate::procfs::tspieces::TsPieces<SeriesFormat> {
    crate::procfs::tspieces::TsPieces::new(SeriesFormat { kind, line_parser }, budget)
}

/// A key/value series as a [`crate::procfs::tspieces::TsFormat`].
pub struct SeriesFormat {
    kind: SeriesKind,
    line_parser: LineParser,
}

impl crate::procfs::tspieces::TsFormat for SeriesFormat {
    type Value = Series;
    type Snap = Snapshot;
    type Scratch = Vec<std::sync::Arc<str>>;

    fn empty(&self) -> Series {
        Series { snapshots: Vec::new(), layout: None, kind: self.kind, thinned: 0 }
    }

    fn snapshots(v: &mut Series) -> &mut Vec<Snapshot> {
        &mut v.snapshots
    }

    fn read(
        &self,
        block: tsblocks::Block<'_>,
        out: &mut Series,
        keys: &mut Self::Scratch,
        diags: &mut Diags,
        thin: &mut crate::procfs::ts_budget::Thinning,
        _whole: bool,
    ) -> bool {
        read_block(block, out, keys, diags, self.line_parser, thin);
        true
    }

    fn set(v: &mut Series, layout: Layout, thinned: u32) {
        v.layout = Some(layout);
        v.thinned = thinned;
    }

    fn place(v: &mut Series, diags: &mut Diags) {
        crate::common::ts::place_by_series(&mut v.snapshots, |s| &mut s.ts, |s| s.line, diags);
    }

    fn whole(&self, input: &[u8]) -> Parsed<Series> {
        parse_series(input, self.kind, self.line_parser)
    }
}

/// Reads one block into a snapshot of `series` (`keys`: scratch for its keys).
fn read_block(
    block: tsblocks::Block<'_>,
    series: &mut Series,
    keys: &mut Vec<std::sync::Arc<str>>,
    diags: &mut Diags,
    line_parser: LineParser,
    thin: &mut crate::procfs::ts_budget::Thinning,
) {
    use std::sync::Arc;
    let kind = series.kind;
    let prev: Arc<[Arc<str>]> = series.snapshots.last().map(|p| p.keys.clone()).unwrap_or_default();
    keys.clear();
    // One value per data line at most (not the previous snapshot's count: a piece parsed
    // apart from the blocks before it holds the same bytes).
    let mut values = Vec::with_capacity(block.data_lines);
    for line in block.lines {
        if is_blank(line.bytes) {
            continue;
        }
        if block.cut_line == Some(line.no) {
            diags.skip(line.no, DiagKind::Truncated, line.text());
            continue;
        }
        // The usual line repeats the previous snapshot's key at the same position
        // (`Dirty:   22228 kB`): compare it and read only the value.
        if kind == SeriesKind::Meminfo
            && let Some(pk) = prev.get(keys.len())
            && let Some(rest) = line.bytes.strip_prefix(pk.as_bytes())
            && let Some(rest) = rest.strip_prefix(b":")
            && let Ok(v) = value_with_unit(rest)
        {
            keys.push(pk.clone());
            values.push(v);
            continue;
        }
        match line_parser(line.bytes) {
            Ok((k, v)) => {
                // Keys repeat from one snapshot to the next: copy the
                // previous snapshot's key instead of decoding it again.
                let key = match prev.get(keys.len()) {
                    Some(pk) if pk.as_bytes() == k => pk.clone(),
                    _ => Arc::from(String::from_utf8_lossy(k).as_ref()),
                };
                keys.push(key);
                values.push(v);
            }
            Err(kind) => diags.skip(line.no, kind, line.text()),
        }
    }
    if values.is_empty() && block.ts.is_none() && !block.truncated {
        return;
    }
    // The same keys as the snapshot before (the same allocations): share its list.
    let same = prev.len() == keys.len() && prev.iter().zip(keys.iter()).all(|(a, b)| Arc::ptr_eq(a, b));
    let keys = if same { prev } else { Arc::from(keys.as_slice()) };
    let snap = Snapshot { line: block.first_line, ts: block.ts, truncated: block.truncated, keys, values };
    thin.push(&mut series.snapshots, snap);
}

/// Sniffs a key/value snapshot file: skips blank and `TS` lines, requires the
/// first data lines to parse; `Yes` when one of `signature` keys is present.
pub(crate) fn sniff_series(head: &[u8], line_parser: LineParser, signature: &[&[u8]]) -> Sniff {
    let head = &head[..head.len().min(SNIFF_BYTES)];
    let complete = match memchr::memrchr(b'\n', head) {
        Some(i) if head.len() == SNIFF_BYTES => &head[..i],
        _ => head,
    };
    let mut good = 0usize;
    let mut signed = false;
    for line in crate::common::Lines::new(complete) {
        if line.is_blank() || tsblocks::is_ts_line(line.bytes) {
            continue;
        }
        match line_parser(line.bytes) {
            Ok((k, _)) => {
                good += 1;
                let name = match k.strip_prefix(b"Node ") {
                    Some(r) => r.splitn(2, |&c| c == b' ').nth(1).unwrap_or(r),
                    None => k,
                };
                signed |= signature.contains(&name);
            }
            Err(_) => return Sniff::No,
        }
        if good >= 12 {
            break;
        }
    }
    match (good, signed) {
        (0, _) => Sniff::No,
        (_, true) => Sniff::Yes,
        (1, false) => Sniff::No,
        _ => Sniff::Unsure,
    }
}

/// The `proc_meminfo` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Series;
    const ID: &'static str = "proc_meminfo";
    const SAMPLE: &'static str = "Active(anon):     167600 kB";
    const DESCRIPTION: &'static str =
        "/proc/meminfo (and per-node meminfo), one snapshot or a pt-stalk TS-framed series";
    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        sniff_series(head, parse_line, &[b"MemTotal", b"MemFree", b"MemAvailable"])
    }
    fn parse(input: &[u8]) -> Parsed<Series> {
        parse_series(input, SeriesKind::Meminfo, parse_line)
    }
}

/// [`Fmt::parse`] of lines fed one at a time (a file streamed by the application).
pub fn parse_source(src: &mut impl LineSource) -> Parsed<Series> {
    parse_series_source(src, SeriesKind::Meminfo, parse_line, 0)
}

/// [`parse_source`] keeping the snapshots within about `budget` bytes of memory (0: no
/// limit): past it, one snapshot in 2, then 4, ... is kept ([`crate::procfs::ts_budget`]);
/// [`Series::thinned`] says how many.
pub fn parse_source_within(src: &mut impl LineSource, budget: usize) -> Parsed<Series> {
    parse_series_source(src, SeriesKind::Meminfo, parse_line, budget)
}

impl crate::procfs::ts_budget::Snapshot for Snapshot {
    fn first_line(&self) -> usize {
        self.line
    }
    fn bytes(&self) -> usize {
        std::mem::size_of::<Snapshot>()
            + self.values.capacity() * std::mem::size_of::<(std::sync::Arc<str>, u64)>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &[u8] = b"TS 1795981039.666693755 2026-11-29 19:37:19
MemTotal:       24684084 kB
Active(anon):     167600 kB
Dirty:             22228 kB
HugePages_Total:       0
Hugepagesize:       2048 kB
TS 1795981040.680128146 2026-11-29 19:37:20
MemTotal:       24684084 kB
Active(anon):     167700 kB
Dirty:             26000 kB
HugePages_Total:       0
Hugepagesize:       2048 kB
";

    #[test]
    fn lines() {
        assert_eq!(parse_line(b"Active(anon):     167600 kB"), Ok((&b"Active(anon)"[..], 167600)));
        assert_eq!(parse_line(b"HugePages_Total:       0"), Ok((&b"HugePages_Total"[..], 0)));
        assert_eq!(
            parse_line(b"Node 0 MemTotal:       16255700 kB"),
            Ok((&b"Node 0 MemTotal"[..], 16255700))
        );
        assert_eq!(parse_line(b"Dirty: x kB"), Err(DiagKind::BadNumber));
        assert_eq!(parse_line(b"Dirty: 1 kB extra"), Err(DiagKind::Malformed));
        assert_eq!(parse_line(b"no colon"), Err(DiagKind::Malformed));
        assert_eq!(parse_line(b"Dirty: 99999999999999999999999 kB"), Err(DiagKind::BadNumber));
    }

    #[test]
    fn series_of_two() {
        let p = Fmt::parse(TWO);
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let s = &p.value;
        assert_eq!(s.snapshots.len(), 2);
        assert_eq!(s.snapshots[1].line, 7);
        assert_eq!(s.snapshots[1].get("Dirty"), Some(26000));
        assert_eq!(s.snapshots[0].get("Active(anon)"), Some(167600));
        assert_eq!(s.column("HugePages_Total"), vec![Some(0), Some(0)]);
        assert_eq!(&*s.snapshots[0].keys[0], "MemTotal");
        assert_eq!(Fmt::sniff(TWO), Sniff::Yes);
        assert_eq!(s.variant().get("ts").map(String::as_str), Some("epoch+local"));
    }

    #[test]
    fn numa_and_truncated() {
        let p = Fmt::parse(b"Node 0 MemTotal:       16255700 kB\nNode 1 MemTotal:       16777216 kB\n");
        assert_eq!(p.value.snapshots[0].node(1, "MemTotal"), Some(16777216));
        let mut cut = TWO.to_vec();
        cut.truncate(cut.len() - 40);
        let p = Fmt::parse(&cut);
        assert!(p.value.snapshots[1].truncated);
        assert!(p.diagnostics.iter().any(|d| d.kind == DiagKind::Truncated));
        assert_eq!(p.value.snapshots[1].get("Active(anon)"), Some(167700));
    }

    #[test]
    fn sniff_rejects_smaps_and_junk() {
        assert_eq!(
            Fmt::sniff(b"7f26bae00000-7f26fae00000 rw-s 00000000 fe:00 1 /x\nSize: 4 kB\n"),
            Sniff::No
        );
        assert_eq!(Fmt::sniff(b"hello world\n"), Sniff::No);
        assert_eq!(Fmt::sniff(b"Foo:  1 kB\nBar:  2 kB\n"), Sniff::Unsure);
    }
}
