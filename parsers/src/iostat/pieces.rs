//! `iostat -t` text cut at its report stamps and parsed in pieces on several threads
//! ([`crate::pieces`]). Every report prints its stamp, its `avg-cpu:` header and its
//! `Device` header, so a piece starting at a stamp reads like the file's start:
//!
//! ```text
//! 11/29/26 19:38:03                                  <- a piece may start here
//! avg-cpu:  %user   %nice %system %iowait  %steal   %idle
//!            1.51    0.00    1.01    0.50    0.00   96.98
//!
//! Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz ...
//! vda              0.00      0.00     0.00   0.00    0.00     0.00 ...
//! ```
//!
//! What a piece cannot know is its place in the file: the run (banner) its first reports
//! belong to, their index in it, whether that run omitted the since-boot report (`-y`).
//! The merge gives them their place, offers each report to the file's one budget in file
//! order, and reads the last piece with the merged state, so the result is the one-thread
//! parse ([`super::parse_source_within`]) byte for byte.

use super::{StampCache, TextReader, try_stamp};
use crate::common::{LineSource, Parsed, SliceSource};
use crate::iostat::Iostat;
use crate::pieces::Pieces;

/// The merge of an iostat's pieces.
pub struct IostatPieces {
    r: TextReader,
    budget: usize,
    merged: bool,
}

/// What one piece read (the reader at the piece's end, its last report finished).
pub struct IostatPart {
    r: TextReader,
    first: bool,
}

/// The parse of an iostat in pieces, keeping its rows within `budget` bytes as
/// [`super::parse_source_within`] does.
pub fn pieces(budget: usize) -> IostatPieces {
    IostatPieces { r: TextReader::new(0, budget), budget, merged: false }
}

/// The parse of an iostat in pieces whose reports the caller takes as they are merged
/// ([`IostatPieces::take_reports`]): the value keeps none, only their summary
/// ([`super::drained::Drained`]), with the stamp repairs of the whole file.
pub fn drained() -> IostatPieces {
    let mut p = pieces(0);
    p.r.b.drain = Some(Box::default());
    p
}

/// The file of a [`drained`] parse read again, its reports taken as they are merged: the
/// same reports, but for the stamp repairs, which the first read's summary gives
/// ([`super::drained::Drained::fix`]).
pub fn replay() -> IostatPieces {
    let mut p = pieces(0);
    p.r.replay = true;
    p
}

impl IostatPieces {
    /// The reports merged so far and not yet taken, in file order.
    pub fn take_reports(&mut self) -> Vec<super::Report> {
        std::mem::take(&mut self.r.b.out.reports)
    }

    /// The file's reader in place of `r` (the first piece's), keeping how it is read.
    fn adopt_reader(&mut self, mut r: TextReader) {
        r.b.budget = self.budget;
        r.b.drain = self.r.b.drain.take();
        r.replay = self.r.replay;
        self.r = r;
    }
}

impl Pieces for IostatPieces {
    type Part = IostatPart;
    type Output = Iostat;

    /// `11/29/26 19:38:03`, `2026-11-29T19:31:40+0000`: a stamp line (few fields: never a row).
    fn is_boundary(&self, line: &[u8]) -> bool {
        line.split(u8::is_ascii_whitespace).filter(|t| !t.is_empty()).count() <= 3
            && try_stamp(line, &mut StampCache { date_text: String::new(), date: None }).is_some()
    }

    fn part(&self, bytes: &[u8], first_no: usize, first: bool) -> Option<IostatPart> {
        let mut r = TextReader::new(bytes.len(), 0);
        let mut src = SliceSource::numbered_from(bytes, first_no);
        while let Some(sl) = src.next_line() {
            r.read_line(sl.line, sl.cut);
        }
        r.b.finish_report();
        // A piece after the first starts with its stamp's report, in a run of its own.
        let placed = first || (r.b.out.runs.first().is_some_and(|run| run.line == 0 && run.banner.is_none()));
        placed.then_some(IostatPart { r, first })
    }

    fn merge(&mut self, part: IostatPart) -> bool {
        let IostatPart { r: mut p, first } = part;
        let reports = std::mem::take(&mut p.b.out.reports);
        if first {
            // The file's start: its reader is the file's, budget aside.
            self.adopt_reader(p);
            for r in reports {
                self.r.b.keep(r);
            }
            self.merged = true;
            return true;
        }
        let g = &mut self.r;
        // The stamp ends the blank lines after a banner (two of them: `-y`).
        g.end_banner_blanks();
        let (base_run, base_index) = (g.b.run, g.b.index);
        for mut r in reports {
            if r.run == 0 {
                r.index += base_index;
                r.since_boot = r.index == 0 && !g.b.run_omits;
            }
            r.run += base_run;
            g.b.keep(r);
        }
        if p.b.run == 0 {
            g.b.index = base_index + p.b.index;
        } else {
            g.b.index = p.b.index;
            g.b.run_omits = p.b.run_omits;
        }
        g.b.run = base_run + p.b.run;
        g.b.out.runs.extend(p.b.out.runs.drain(..).skip(1));
        adopt(g, p);
        self.merged = true;
        true
    }

    fn finish(mut self, rest: &mut impl LineSource) -> Parsed<Iostat> {
        if !self.merged {
            self.adopt_reader(TextReader::new(rest.len_hint(), self.budget));
        }
        while let Some(sl) = rest.next_line() {
            self.r.read_line(sl.line, sl.cut);
        }
        self.r.finish(self.budget)
    }
}

/// The facts of a later piece's reader that the file's reader sums up (first seen, or any).
fn adopt(g: &mut TextReader, p: TextReader) {
    let out = p.b.out;
    if g.b.out.banner.is_none() {
        g.b.out.banner = out.banner;
    }
    if g.b.out.stamp_form.is_none() {
        g.b.out.stamp_form = out.stamp_form;
    }
    g.b.layout_mask |= p.b.layout_mask;
    g.b.layout_colon |= p.b.layout_colon;
    g.d.append(p.d);
    g.after_banner = p.after_banner;
    g.lines_total = p.lines_total;
    g.comma |= p.comma;
    g.human |= p.human;
    g.ansi |= p.ansi;
    g.device_last |= p.device_last;
    g.subtables |= p.subtables;
    if g.unit.is_none() {
        g.unit = p.unit;
    }
    // The last piece starts at a stamp: the tables of the pieces before are closed.
    g.header = p.header;
    g.cpu_cols = p.cpu_cols;
    g.table_open = false;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_are_boundaries_and_rows_are_not() {
        let p = pieces(0);
        assert!(p.is_boundary(b"11/29/26 19:38:03"));
        assert!(p.is_boundary(b"2026-11-29T19:31:40+0000"));
        assert!(!p.is_boundary(b"vda              0.00      0.00     0.00   0.00    0.00"));
        assert!(!p.is_boundary(b"avg-cpu:  %user   %nice %system %iowait  %steal   %idle"));
        assert!(!p.is_boundary(b""));
    }
}
