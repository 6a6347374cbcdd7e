//! `proc_vmstat`: `/proc/vmstat`, one snapshot or a pt-stalk `TS`-framed
//! series (`<prefix>-procvmstat`).
//!
//! Real sample (pt-stalk `2026_11_29_19_37_19-procvmstat`, kernel 6.18):
//!
//! ```text
//! TS 1795981039.666693755 2026-11-29 19:37:19
//! nr_free_pages 1301571
//! nr_free_pages_blocks 864768
//! nr_zone_inactive_anon 419770
//! nr_dirtied 5431977
//! pgpgout 27614537
//! ```
//!
//! One `name value` pair per line (FORMATS.md §6); every name is kept in file
//! order, known or not (names were renamed and split across kernels). The
//! result is the same [`Series`] as for `/proc/meminfo`: values are raw
//! (pages for `nr_*`, events for counters).

use crate::common::LineSource;
use crate::common::scrub::Identifiers;
use crate::common::{DiagKind, Format, Parsed, Sniff};
use crate::procfs::meminfo::{
    Series, SeriesKind, next_token, parse_series, parse_series_source, parse_u64_bytes, sniff_series,
};

/// Reads one line: `nr_dirtied 5431977`. Returns the name and the value.
pub fn parse_line(b: &[u8]) -> Result<(&[u8], u64), DiagKind> {
    // Fast path: `name value` with single spaces, as the kernel prints it.
    let mut i = 0;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    if i > 0 && b.get(i) == Some(&b' ') {
        let num = &b[i + 1..];
        if let Some(v) = parse_u64_bytes(num) {
            return Ok((&b[..i], v));
        }
    }
    // Anything else: leading/trailing/multiple whitespace, or an error.
    let (name, rest) = next_token(b).ok_or(DiagKind::Malformed)?;
    if !name.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_') {
        return Err(DiagKind::Malformed);
    }
    let (num, rest) = next_token(rest).ok_or(DiagKind::Malformed)?;
    if next_token(rest).is_some() {
        return Err(DiagKind::Malformed);
    }
    let v = parse_u64_bytes(num).ok_or(DiagKind::BadNumber)?;
    Ok((name, v))
}

/// The `proc_vmstat` format.
pub struct Fmt;

/// Names that mark `/proc/vmstat` (any kernel).
const SIGNATURE: &[&[u8]] = &[b"nr_free_pages", b"nr_dirty", b"nr_writeback", b"pgpgin", b"pgpgout"];

impl Format for Fmt {
    type Output = Series;
    const ID: &'static str = "proc_vmstat";
    const SAMPLE: &'static str = "nr_dirtied 5431977";
    const DESCRIPTION: &'static str = "/proc/vmstat, one snapshot or a pt-stalk TS-framed series";
    /// `/proc/vmstat` names are lower case (`nr_dirty 1234`): `SHOW GLOBAL STATUS` in batch form
    /// (`Aborted_clients\t0`, pt-mysql-summary's `mysql-status`) has the same shape otherwise.
    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let capitalised = crate::common::Lines::new(head)
            .filter(|l| !l.is_blank() && !crate::procfs::tsblocks::is_ts_line(l.bytes))
            .take(12)
            .any(|l| l.bytes.iter().take_while(|b| !b.is_ascii_whitespace()).any(u8::is_ascii_uppercase));
        if capitalised { Sniff::No } else { sniff_series(head, parse_line, SIGNATURE) }
    }
    fn parse(input: &[u8]) -> Parsed<Series> {
        parse_series(input, SeriesKind::Vmstat, parse_line)
    }
}

/// [`Fmt::parse`] of lines fed one at a time (a file streamed by the application).
pub fn parse_source(src: &mut impl LineSource) -> Parsed<Series> {
    parse_series_source(src, SeriesKind::Vmstat, parse_line, 0)
}

/// [`parse_source`] keeping the snapshots within about `budget` bytes of memory (0: no
/// limit; see [`crate::procfs::meminfo::parse_source_within`]).
pub fn parse_source_within(src: &mut impl LineSource, budget: usize) -> Parsed<Series> {
    parse_series_source(src, SeriesKind::Vmstat, parse_line, budget)
}

/// The parse of a `/proc/vmstat` series in pieces on several threads ([`crate::pieces`]),
/// keeping its snapshots within `budget` bytes as [`parse_source_within`] does.
pub fn pieces(budget: usize) -> crate::procfs::tspieces::TsPieces<crate::procfs::meminfo::SeriesFormat> {
    crate::procfs::meminfo::series_pieces(SeriesKind::Vmstat, parse_line, budget)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_series() {
        assert_eq!(parse_line(b"nr_dirtied 5431977"), Ok((&b"nr_dirtied"[..], 5431977)));
        assert_eq!(parse_line(b"nr_dirtied -1"), Err(DiagKind::BadNumber));
        assert_eq!(parse_line(b"nr_dirtied 1 2"), Err(DiagKind::Malformed));
        assert_eq!(parse_line(b"MemTotal: 1 kB"), Err(DiagKind::Malformed));
        let input = b"nr_free_pages 10\nnr_dirtied 5\nTS 100\nnr_free_pages 9\nnr_dirtied 7\nTS 101\n";
        assert_eq!(Fmt::sniff(input), Sniff::Yes);
        let p = Fmt::parse(input);
        assert!(p.diagnostics.is_empty());
        assert_eq!(p.value.column("nr_dirtied"), vec![Some(5), Some(7)]);
        assert_eq!(p.value.snapshots[1].epoch(), Some(101.0));
        assert_eq!(crate::procfs::meminfo::Fmt::sniff(input), Sniff::No);
        use crate::common::Summary;
        assert_eq!(p.value.variant().get("kind").map(String::as_str), Some("vmstat"));
    }
}
