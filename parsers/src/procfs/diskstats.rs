//! `proc_diskstats`: `/proc/diskstats`, one snapshot or a pt-stalk
//! `TS`-framed series (`<prefix>-diskstats`, pt-diskstats samples).
//!
//! Real sample (pt-stalk `2026_11_29_19_37_19-diskstats`, kernel 6.18, 20 fields):
//!
//! ```text
//! TS 1795981039.666693755 2026-11-29 19:37:19
//!    7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
//!  254       0 vda 228213 6620 16063062 129591 2717466 2434633 219913704 2151617 0 1106628 2321929 44866 0 117209736 6058 91546 34660
//! ```
//!
//! Field sets by kernel (`Documentation/admin-guide/iostats.rst`), always
//! `major minor name` then:
//! * 11 stats (14 fields): reads, reads merged, sectors read, ms reading,
//!   writes, writes merged, sectors written, ms writing, I/Os in flight,
//!   ms doing I/O, weighted ms — `   1    0 ram0 0 0 0 0 0 0 0 0 0 0 0`;
//! * plus 4 discard stats (18 fields, 4.18+): discards, discards merged,
//!   sectors discarded, ms discarding;
//! * plus 2 flush stats (20 fields, 5.5+): flushes, ms flushing;
//! * partitions of kernels before 2.6.25 print only 4 stats (7 fields): reads,
//!   sectors read, writes, sectors written — `   8    1 sda1 5024 46400 6662 13324`
//!   (pt-diskstats sample `small.txt`); the other counters are then 0 and
//!   [`DiskRow::fields`] is 7.
//!
//! Lines of other lengths (15-17, 19 fields: never printed by a kernel) keep
//! the 11 base stats and get a [`DiagKind::FieldCount`] note.
//!
//! A title line before the first row is a known preamble (a
//! [`DiagKind::ToolMessage`] note): ChromeOS debugd saves the file as
//! `all_disk_stats` with
//!
//! ```text
//! I/O stats for all block devices:
//!
//!    7       0 loop0 46 0 856 20 0 0 0 0 0 22 20 0 0 0 0 0 0
//! ```

use crate::common::lines::is_blank;
use crate::common::scrub::Identifiers;
use crate::common::ts::TsLine;
use crate::common::{
    DiagKind, Diags, Format, LineSource, Parsed, SNIFF_BYTES, Sniff, Stamp, Summary, Variant,
    lines::count_lines,
};
use crate::procfs::meminfo::parse_u64_bytes;
use crate::procfs::tsblocks::{self, Layout};

/// A series of `/proc/diskstats` snapshots.
#[derive(Debug, Clone, Default)]
pub struct Diskstats {
    /// The snapshots in file order.
    pub snapshots: Vec<DiskSnapshot>,
    /// Where the `TS` lines were (`None` for an empty input).
    pub layout: Option<Layout>,
    /// One snapshot in this many was kept to stay within a memory budget
    /// ([`parse_source_within`]; 0 or 1: every snapshot).
    pub thinned: u32,
}

/// One snapshot: every device line of one block.
#[derive(Debug, Clone, Default)]
pub struct DiskSnapshot {
    /// First line of the block (its `TS` line in the TS-before layout).
    pub line: usize,
    /// The `TS` line stamping it, if any.
    pub ts: Option<TsLine>,
    /// The block was cut short at the end of the file.
    pub truncated: bool,
    /// The device lines in file order.
    pub devices: Vec<DiskRow>,
}

impl DiskSnapshot {
    /// The row of device `name` (e.g. `"vda"`).
    pub fn device(&self, name: &str) -> Option<&DiskRow> {
        self.devices.iter().find(|d| &*d.name == name)
    }
}

/// One device line (counters since boot; sectors are 512 bytes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiskRow {
    /// 1-based line number.
    pub line: usize,
    /// Major device number.
    pub major: u32,
    /// Minor device number.
    pub minor: u32,
    /// Device name (`vda`, `sda1`, `dm-0`, `cciss/c0d0`): shared with the row of the same
    /// device in the snapshot before (one allocation per device, not one per line).
    pub name: std::sync::Arc<str>,
    /// Reads completed.
    pub reads: u64,
    /// Reads merged.
    pub reads_merged: u64,
    /// Sectors read.
    pub sectors_read: u64,
    /// Milliseconds spent reading.
    pub ms_reading: u64,
    /// Writes completed.
    pub writes: u64,
    /// Writes merged.
    pub writes_merged: u64,
    /// Sectors written.
    pub sectors_written: u64,
    /// Milliseconds spent writing.
    pub ms_writing: u64,
    /// I/Os currently in progress (a gauge).
    pub in_flight: u64,
    /// Milliseconds spent doing I/O.
    pub ms_io: u64,
    /// Weighted milliseconds spent doing I/O.
    pub weighted_ms: u64,
    /// Discards completed (4.18+).
    pub discards: Option<u64>,
    /// Discards merged (4.18+).
    pub discards_merged: Option<u64>,
    /// Sectors discarded (4.18+).
    pub sectors_discarded: Option<u64>,
    /// Milliseconds spent discarding (4.18+).
    pub ms_discarding: Option<u64>,
    /// Flush requests completed (5.5+).
    pub flushes: Option<u64>,
    /// Milliseconds spent flushing (5.5+).
    pub ms_flushing: Option<u64>,
    /// Number of whitespace-separated fields on the line (7, 14, 18 or 20).
    pub fields: u8,
}

/// A title line saved before the rows: words ending with `:` and no number
/// (`I/O stats for all block devices:`).
fn is_title(line: &[u8]) -> bool {
    let t = String::from_utf8_lossy(line);
    let t = t.trim();
    t.len() > 1
        && t.len() <= 120
        && t.ends_with(':')
        && t.chars().any(|c| c.is_ascii_alphabetic())
        && !t.split_whitespace().any(|w| w.bytes().all(|b| b.is_ascii_digit()))
}

impl Summary for Diskstats {
    fn records(&self) -> usize {
        self.snapshots.len()
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        if let Some(l) = self.layout {
            v.insert("layout", l.as_str().to_string());
        }
        let mut counts: Vec<u8> =
            self.snapshots.iter().flat_map(|s| s.devices.iter().map(|d| d.fields)).collect();
        counts.sort_unstable();
        counts.dedup();
        let f: Vec<String> = counts.iter().map(u8::to_string).collect();
        v.insert("fields", f.join(","));
        if let Some(s) = self.snapshots.first() {
            v.insert("devices", s.devices.len().to_string());
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
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        let first = self.snapshots.iter().find_map(|s| s.ts)?;
        let last = self.snapshots.iter().rev().find_map(|s| s.ts)?;
        Some((Stamp::Epoch(first.epoch), Stamp::Epoch(last.epoch)))
    }
}

/// Why a device line was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowError {
    /// Fewer than 7 fields, or a shape that is not `major minor name stats...`.
    Malformed,
    /// A statistic is not an unsigned integer.
    BadNumber,
}

/// Reads one device line. The second value is true when the field count is
/// not one a kernel prints (the line is still used).
///
/// `   8       0 sda 49601 2822 3195498 623970 12180 9784 821088 117109 0 32862 714408 0 0 0 0`
pub fn parse_row(no: usize, b: &[u8]) -> Result<(DiskRow, bool), RowError> {
    parse_row_named(no, b, None)
}

/// [`parse_row`], taking the name from `known` when the line names the same device
/// (the row at the same place in the snapshot before).
fn parse_row_named(
    no: usize,
    b: &[u8],
    known: Option<&std::sync::Arc<str>>,
) -> Result<(DiskRow, bool), RowError> {
    // One pass: each token is read where it lies, its digits summed as they are scanned
    // (`   8       0 sda 1234 0 5678 ...`: two numbers, a name, 4 to 17 numbers).
    let mut nums = [0u64; 20];
    let mut name: &[u8] = &[];
    let mut bad = false;
    let mut n = 0usize;
    let mut i = 0usize;
    let len = b.len();
    loop {
        while i < len && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= len {
            break;
        }
        if n == nums.len() {
            return Err(RowError::Malformed);
        }
        let start = i;
        let mut v: u64 = 0;
        let mut digits = true;
        while i < len && !b[i].is_ascii_whitespace() {
            let d = b[i].wrapping_sub(b'0');
            digits &= d <= 9;
            v = v.wrapping_mul(10).wrapping_add(u64::from(d));
            i += 1;
        }
        let t = &b[start..i];
        if n == 2 {
            name = t;
        } else {
            // 19 digits always fit; longer ones (and non-digits) are read checked.
            let value = if digits && t.len() <= 19 { Some(v) } else { parse_u64_bytes(t) };
            match value {
                Some(v) => nums[n] = v,
                None if n < 2 => return Err(RowError::Malformed),
                None => bad = true,
            }
        }
        n += 1;
    }
    if n < 7 || (8..14).contains(&n) {
        return Err(RowError::Malformed);
    }
    let (Ok(major), Ok(minor)) = (u32::try_from(nums[0]), u32::try_from(nums[1])) else {
        return Err(RowError::Malformed);
    };
    if name.iter().all(u8::is_ascii_digit) {
        return Err(RowError::Malformed);
    }
    if bad {
        return Err(RowError::BadNumber);
    }
    let name: std::sync::Arc<str> = match known {
        Some(k) if k.as_bytes() == name => k.clone(),
        _ => String::from_utf8_lossy(name).into(),
    };
    let st = &nums[3..];
    let mut row = DiskRow { line: no, major, minor, name, fields: n as u8, ..DiskRow::default() };
    if n == 7 {
        row.reads = st[0];
        row.sectors_read = st[1];
        row.writes = st[2];
        row.sectors_written = st[3];
        return Ok((row, false));
    }
    row.reads = st[0];
    row.reads_merged = st[1];
    row.sectors_read = st[2];
    row.ms_reading = st[3];
    row.writes = st[4];
    row.writes_merged = st[5];
    row.sectors_written = st[6];
    row.ms_writing = st[7];
    row.in_flight = st[8];
    row.ms_io = st[9];
    row.weighted_ms = st[10];
    if n >= 18 {
        row.discards = Some(st[11]);
        row.discards_merged = Some(st[12]);
        row.sectors_discarded = Some(st[13]);
        row.ms_discarding = Some(st[14]);
    }
    if n >= 20 {
        row.flushes = Some(st[15]);
        row.ms_flushing = Some(st[16]);
    }
    Ok((row, !matches!(n, 14 | 18 | 20)))
}

/// The `proc_diskstats` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Diskstats;
    const ID: &'static str = "proc_diskstats";
    const SAMPLE: &'static str = " 254       0 vda 228213 6620 16063062 129591 2717466 2434633 219913704 2151617 0 1106628 2321929 44866 0 117209736 6058 91546 34660";
    const DESCRIPTION: &'static str =
        "/proc/diskstats (14/18/20 fields), one snapshot or a pt-stalk TS-framed series";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let head = &head[..head.len().min(SNIFF_BYTES)];
        let complete = match memchr::memrchr(b'\n', head) {
            Some(i) if head.len() == SNIFF_BYTES => &head[..i],
            _ => head,
        };
        let mut good = 0usize;
        let mut full = false;
        let mut seen = false;
        for line in crate::common::Lines::new(complete) {
            if is_blank(line.bytes) || tsblocks::is_ts_line(line.bytes) {
                continue;
            }
            let first = !std::mem::replace(&mut seen, true);
            match parse_row(line.no, line.bytes) {
                Ok((row, odd)) => {
                    good += 1;
                    full |= !odd && row.fields >= 14;
                }
                Err(_) if first && is_title(line.bytes) => {}
                Err(_) => return Sniff::No,
            }
            if good >= 8 {
                break;
            }
        }
        match (good, full) {
            (0, _) => Sniff::No,
            (_, true) => Sniff::Yes,
            _ => Sniff::Unsure,
        }
    }

    fn parse(input: &[u8]) -> Parsed<Diskstats> {
        let mut diags = Diags::default();
        let split = tsblocks::split(input, &mut diags);
        let mut out = Diskstats {
            snapshots: Vec::with_capacity(split.blocks.len()),
            layout: Some(split.layout),
            thinned: 0,
        };
        let mut all = crate::procfs::ts_budget::Thinning::new(0);
        for block in split.blocks {
            read_block(block, &mut out, &mut diags, &mut all, true);
        }
        crate::common::ts::place_by_series(&mut out.snapshots, |s| &mut s.ts, |s| s.line, &mut diags);
        diags.finish(out, count_lines(input))
    }
}

/// [`Fmt::parse`] of lines fed one at a time (one block held at a time: [`crate::procfs::tsstream`]).
pub fn parse_source(src: &mut impl LineSource) -> Parsed<Diskstats> {
    parse_source_within(src, 0)
}

/// [`parse_source`] keeping the snapshots within about `budget` bytes of memory (0: no
/// limit): past it, one snapshot in 2, then 4, ... is kept ([`crate::procfs::ts_budget`]; the
/// counters of two kept snapshots span the dropped ones); [`Diskstats::thinned`] says how many.
pub fn parse_source_within(src: &mut impl LineSource, budget: usize) -> Parsed<Diskstats> {
    use crate::pieces::Pieces;
    pieces(budget).finish(src)
}

/// The parse of a `diskstats` series in pieces on several threads ([`crate::pieces`]),
/// keeping its snapshots within `budget` bytes as [`parse_source_within`] does.
pub fn pieces(budget: usize) -> crate::procfs::tspieces::TsPieces<DiskFormat> {
    crate::procfs::tspieces::TsPieces::new(DiskFormat, budget)
}

/// `diskstats` as a [`crate::procfs::tspieces::TsFormat`].
pub struct DiskFormat;

impl crate::procfs::tspieces::TsFormat for DiskFormat {
    type Value = Diskstats;
    type Snap = DiskSnapshot;
    type Scratch = ();

    fn empty(&self) -> Diskstats {
        Diskstats { snapshots: Vec::new(), layout: None, thinned: 0 }
    }

    fn snapshots(v: &mut Diskstats) -> &mut Vec<DiskSnapshot> {
        &mut v.snapshots
    }

    fn read(
        &self,
        block: tsblocks::Block<'_>,
        out: &mut Diskstats,
        _: &mut (),
        diags: &mut Diags,
        thin: &mut crate::procfs::ts_budget::Thinning,
        whole: bool,
    ) -> bool {
        read_block(block, out, diags, thin, whole)
    }

    fn set(v: &mut Diskstats, layout: Layout, thinned: u32) {
        v.layout = Some(layout);
        v.thinned = thinned;
    }

    fn place(v: &mut Diskstats, diags: &mut Diags) {
        crate::common::ts::place_by_series(&mut v.snapshots, |s| &mut s.ts, |s| s.line, diags);
    }

    fn whole(&self, input: &[u8]) -> Parsed<Diskstats> {
        Fmt::parse(input)
    }
}

/// Reads one block into a snapshot of `out` (`whole`: `out` holds every block before this
/// one). False when the block may hold the file's title line and `out` cannot tell.
fn read_block(
    block: tsblocks::Block<'_>,
    out: &mut Diskstats,
    diags: &mut Diags,
    thin: &mut crate::procfs::ts_budget::Thinning,
    whole: bool,
) -> bool {
    let mut snap = DiskSnapshot {
        line: block.first_line,
        ts: block.ts,
        truncated: block.truncated,
        devices: Vec::with_capacity(block.data_lines),
    };
    for line in block.lines {
        if is_blank(line.bytes) {
            continue;
        }
        if out.snapshots.is_empty() && snap.devices.is_empty() && is_title(line.bytes) {
            if !whole {
                return false;
            }
            diags.note(line.no, DiagKind::ToolMessage, format!("title line: {}", line.text()));
            continue;
        }
        if block.cut_line == Some(line.no) {
            diags.skip(line.no, DiagKind::Truncated, line.text());
            continue;
        }
        let known = out.snapshots.last().and_then(|p| p.devices.get(snap.devices.len())).map(|d| &d.name);
        match parse_row_named(line.no, line.bytes, known) {
            Ok((row, odd)) => {
                if odd {
                    diags.note(
                        line.no,
                        DiagKind::FieldCount,
                        format!("{} fields (kernels print 14, 18 or 20): {}", row.fields, line.text()),
                    );
                }
                snap.devices.push(row);
            }
            Err(RowError::BadNumber) => diags.skip(line.no, DiagKind::BadNumber, line.text()),
            Err(RowError::Malformed) => diags.skip(line.no, DiagKind::Malformed, line.text()),
        }
    }
    if snap.devices.is_empty() && snap.ts.is_none() && !snap.truncated {
        return true;
    }
    thin.push(&mut out.snapshots, snap);
    true
}

impl crate::procfs::ts_budget::Snapshot for DiskSnapshot {
    fn first_line(&self) -> usize {
        self.line
    }
    fn bytes(&self) -> usize {
        std::mem::size_of::<DiskSnapshot>() + self.devices.capacity() * std::mem::size_of::<DiskRow>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_sets() {
        let (r, odd) = parse_row(
            1,
            b" 254       0 vda 228213 6620 16063062 129591 2717466 2434633 219913704 2151617 0 1106628 2321929 44866 0 117209736 6058 91546 34660",
        )
        .unwrap();
        assert!(!odd);
        assert_eq!((r.major, r.minor, &*r.name), (254, 0, "vda"));
        assert_eq!(r.sectors_written, 219913704);
        assert_eq!(r.flushes, Some(91546));
        assert_eq!(r.ms_flushing, Some(34660));
        assert_eq!(r.sectors_discarded, Some(117209736));
        let (r, _) = parse_row(2, b"   1    0 ram0 0 0 0 0 0 0 0 0 0 0 0").unwrap();
        assert_eq!((r.fields, r.discards), (14, None));
        let (r, _) = parse_row(3, b"   8    1 sda1 5024 46400 6662 13324").unwrap();
        assert_eq!((r.reads, r.sectors_read, r.writes, r.sectors_written), (5024, 46400, 6662, 13324));
        let (r, odd) =
            parse_row(4, b"  65      32 sds 386 416 8554 100 727 820 8746 3902 0 762 7902 0 0 0").unwrap();
        assert!(odd && r.discards.is_none() && r.weighted_ms == 7902);
        assert_eq!(parse_row(5, b"8 0 sda 1 2 x 4 5 6 7 8 9 10 11"), Err(RowError::BadNumber));
        assert_eq!(parse_row(6, b"MemTotal: 1 kB"), Err(RowError::Malformed));
        // The field count decides before the numbers: a bad number on a line of 10 fields is malformed.
        assert_eq!(parse_row(7, b"8 0 sda 1 x 3 4 5 6 7"), Err(RowError::Malformed));
        assert_eq!(parse_row(8, b"x 0 sda 1 2 3 4 5 6 7 8 9 10 11"), Err(RowError::Malformed));
        assert_eq!(parse_row(9, b"8 4294967296 sda 1 2 3 4 5 6 7 8 9 10 11"), Err(RowError::Malformed));
        assert_eq!(parse_row(10, b"8 0 123 1 2 3 4 5 6 7 8 9 10 11"), Err(RowError::Malformed));
        let long = [b"8 0 sda".as_slice(), &b" 1".repeat(18)].concat();
        assert_eq!(parse_row(11, &long), Err(RowError::Malformed));
        // 20 digits: the largest u64 reads, one more overflows.
        let (r, _) = parse_row(12, b"8 0 sda 18446744073709551615 0 0 0 0 0 0 0 0 0 0").unwrap();
        assert_eq!(r.reads, u64::MAX);
        assert_eq!(
            parse_row(13, b"8 0 sda 18446744073709551616 0 0 0 0 0 0 0 0 0 0"),
            Err(RowError::BadNumber)
        );
        assert_eq!(parse_row(14, b"8 0 sda 1 2 3 -4 5 6 7 8 9 10 11"), Err(RowError::BadNumber));
    }

    #[test]
    fn series_and_sniff() {
        let input = b"TS 1281367519\n1    0 ram0 0 0 0 0 0 0 0 0 0 0 0\n104    0 cciss/c0d0 2139885 162788 37361471 8034486 17999682 83425310 811400340 12711047 0 6869437 20744582\nTS 1281367520\n1    0 ram0 0 0 0 0 0 0 0 0 0 0 0\n104    0 cciss/c0d0 2139886 162788 37361471 8034486 17999682 83425310 811400340 12711047 0 6869437 20744582\n";
        assert_eq!(Fmt::sniff(input), Sniff::Yes);
        let p = Fmt::parse(input);
        assert!(p.diagnostics.is_empty());
        assert_eq!(p.value.snapshots.len(), 2);
        assert_eq!(p.value.snapshots[1].device("cciss/c0d0").unwrap().reads, 2139886);
        assert_eq!(p.value.snapshots[1].devices[1].line, 6);
        assert_eq!(Fmt::sniff(b"MemTotal: 1 kB\n"), Sniff::No);
    }
}
