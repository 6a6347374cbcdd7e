//! `vmstat` text cut at its data lines and parsed in pieces on several threads
//! ([`crate::pieces`]). A procs line is read alone (its numbers, its `-t` stamp), so a
//! piece may start at any of them, between the header pairs vmstat reprints:
//!
//! ```text
//! procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu----- -----timestamp-----
//!  r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st                 UTC
//!  5  0      0 19443496  13144 3326196    0    0     0   572 1194 1563 98  2  0  0  0 2026-11-29 19:37:40  <- a piece may start here
//!  5  0      0 19443496  13144 3326196    0    0     0   608 1194 1553 97  3  0  0  0 2026-11-29 19:37:41  <- or here
//! ```
//!
//! A piece is read as if a procs table were open with no run starting; the merge gives
//! its first row what the file had before it: the run it starts (the since-boot line after
//! a header, a `date` line), the header's time zone, and adds its runs and run dates after
//! the file's. What a piece cannot be read without (an `-a` header before it, a `-S` unit
//! read from `-s` lines, `-d` disk tables) sends the file to the one-thread parse, so the
//! result is [`super::parse_source`] byte for byte.

use super::{Mode, Reader, Vmstat, all_digits, stamp};
use crate::common::{LineSource, Parsed, SliceSource};
use crate::pieces::Pieces;

/// The merge of a vmstat's pieces.
pub struct VmstatPieces {
    r: Reader,
    merged: bool,
}

/// What one piece read (the reader at the piece's end).
pub struct VmstatPart {
    r: Reader,
    first: bool,
}

/// The parse of a vmstat in pieces.
pub fn pieces() -> VmstatPieces {
    VmstatPieces { r: Reader::new(), merged: false }
}

/// The parse of a vmstat in pieces whose rows the caller takes as they are merged
/// ([`VmstatPieces::take_rows`]): the value keeps none, only their summary
/// ([`super::Drained`]), with the stamp repairs of the whole file.
pub fn drained() -> VmstatPieces {
    let mut p = pieces();
    p.r.drain = Some(Box::default());
    p
}

/// The file of a [`drained`] parse read again, its rows taken as they are merged: the same
/// rows, but for the stamp repairs, which the first read's summary gives
/// ([`super::Drained::fix`]).
pub fn replay() -> VmstatPieces {
    let mut p = pieces();
    p.r.replay = true;
    p
}

impl VmstatPieces {
    /// The rows merged so far and not yet taken, in file order.
    pub fn take_rows(&mut self) -> Vec<super::Row> {
        self.r.take_rows()
    }
}

/// True for a procs line: 16 to 18 numbers, then the `-t` stamp or nothing
/// (` 5  0      0 19443496  13144 3326196    0    0     0   572 1194 1563 98  2  0  0  0 2026-11-29 19:37:40`).
fn is_procs_line(line: &[u8]) -> bool {
    if line.contains(&0x1b) {
        return false;
    }
    let Ok(text) = std::str::from_utf8(line) else { return false };
    let toks: Vec<&str> = text.split_ascii_whitespace().take(21).collect();
    let n = toks.len();
    let body = if n >= 3 && stamp(toks[n - 2], toks[n - 1]).is_some() { &toks[..n - 2] } else { &toks[..] };
    (16..=18).contains(&body.len()) && body.iter().all(|t| all_digits(t))
}

/// A piece's reader: a procs table open, no run starting.
fn reader() -> Reader {
    let mut r = Reader::new();
    r.mode = Mode::Procs;
    r.new_run = false;
    r
}

impl Pieces for VmstatPieces {
    type Part = VmstatPart;
    type Output = Vmstat;

    fn is_boundary(&self, line: &[u8]) -> bool {
        is_procs_line(line)
    }

    fn part(&self, bytes: &[u8], first_no: usize, first: bool) -> Option<VmstatPart> {
        let mut r = if first { Reader::new() } else { reader() };
        let mut src = SliceSource::numbered_from(bytes, first_no);
        while let Some(sl) = src.next_line() {
            r.feed(&sl);
        }
        // Disk samples are numbered from the file's start.
        (r.out.disk_rows.is_empty() || first).then_some(VmstatPart { r, first })
    }

    fn merge(&mut self, part: VmstatPart) -> bool {
        let VmstatPart { r: mut p, first } = part;
        if first {
            (p.drain, p.replay) = (self.r.drain.take(), self.r.replay);
            self.r = p;
            self.r.see_from(0);
            self.merged = true;
            return true;
        }
        let g = &mut self.r;
        let read_alone = g.mode == Mode::Procs
            && !g.active_layout
            && g.out.unit == 'K'
            && (p.out.summary.is_empty() || g.out.summary.is_empty())
            && g.sample == 0
            && g.seen_disks.is_empty();
        if !read_alone || p.out.rows.is_empty() {
            return false;
        }
        let (base, from) = (g.taken + g.out.rows.len(), g.out.rows.len());
        let before = p.before_header.unwrap_or(p.out.rows.len());
        // The piece's first line is its first row: the file's run may start there.
        if g.new_run {
            p.out.rows[0].since_boot = true;
            g.out.runs += 1;
            if let Some(dl) = g.pending_date.take() {
                g.out.run_dates.push((base, dl));
            }
        }
        // Rows before the piece's own header are named by the file's header.
        if g.out.timezone.is_none()
            && p.out.rows[..before].iter().any(|r| r.stamp.is_some() && g.header.len() == r.names.len() + 1)
        {
            g.out.timezone = g.header.last().cloned();
        }
        adopt(g, p, base);
        g.see_from(from);
        self.merged = true;
        true
    }

    fn finish(mut self, rest: &mut impl LineSource) -> Parsed<Vmstat> {
        if !self.merged {
            let mut r = Reader::new();
            (r.drain, r.replay) = (self.r.drain.take(), self.r.replay);
            self.r = r;
        }
        while let Some(sl) = rest.next_line() {
            self.r.feed(&sl);
        }
        self.r.finish()
    }
}

/// The rows and facts of a later piece added to the file's reader (rows from index `base`);
/// the piece's reader, so merged, goes on as the file's.
fn adopt(g: &mut Reader, mut p: Reader, base: usize) {
    let mut out = std::mem::take(&mut g.out);
    out.rows.append(&mut p.out.rows);
    if out.timezone.is_none() {
        out.timezone = p.out.timezone.take();
    }
    if out.summary.is_empty() && p.out.unit_known {
        (out.unit, out.unit_known) = (p.out.unit, true);
    }
    out.summary.append(&mut p.out.summary);
    for &l in &p.out.layouts {
        if !out.layouts.contains(&l) {
            out.layouts.push(l);
        }
    }
    out.wide |= p.out.wide;
    out.translated |= p.out.translated;
    out.runs += p.out.runs;
    out.run_dates.extend(p.out.run_dates.drain(..).map(|(i, d)| (i + base, d)));
    let mut d = std::mem::take(&mut g.d);
    d.append(std::mem::take(&mut p.d));
    if p.before_header.is_none() {
        // No header in the piece: the file's goes on.
        (p.header, p.active_layout) = (std::mem::take(&mut g.header), g.active_layout);
    }
    (p.out, p.d, p.before_header) = (out, d, g.before_header);
    (p.drain, p.replay, p.taken) = (g.drain.take(), g.replay, g.taken);
    *g = p;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn procs_lines_are_boundaries_and_headers_are_not() {
        // Real lines of `vmstat -t 1` (s1), `vmstat 1`, `vmstat -w -t` (procps-ng 4, gu).
        let p = pieces();
        assert!(p.is_boundary(
            b" 5  0      0 19443496  13144 3326196    0    0     0   572 1194 1563 98  2  0  0  0 2026-11-29 19:37:40"
        ));
        assert!(p.is_boundary(
            b" 5  0      0 19443496  13144 3326196    0    0     0   572 1194 1563 98  2  0  0  0"
        ));
        assert!(!p.is_boundary(
            b"procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----"
        ));
        assert!(!p.is_boundary(
            b" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st"
        ));
        assert!(!p.is_boundary(b"     24684084 K total memory"));
        assert!(!p.is_boundary(b"vda   1234 0 5678 90 12 0 34 56 0 1"));
        assert!(!p.is_boundary(b""));
    }
}
