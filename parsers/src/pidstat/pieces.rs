//! `pidstat` text cut at its header lines and parsed in pieces on several threads
//! ([`crate::pieces`]). Every report of `pidstat -h` (and of the table layouts) reprints
//! its header, which sets everything a row needs (columns, ids, the previous sample
//! time), so a piece starting at a header reads like the file's start:
//!
//! ```text
//! # Time        UID      TGID       TID   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command  <- a piece may start here
//! 19:37:31        0     15545         -      0.00   3996.00      0.00       0  gcache_sim
//! 19:52:40      UID       PID   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command   <- or here
//! 19:52:41        0      1658      0,00    650,51      0,00       0  rustc
//! ```
//!
//! What a piece cannot know is its place in the file: the run (banner) of its first
//! rows, the index of its tables (and whether its first header repeats the file's last
//! table: `-h` reprints one header per report). The merge gives them their place, offers
//! each row to the file's one budget in file order and reads the last piece with the
//! merged state, so the result is the one-thread parse ([`super::parse_source_within`])
//! byte for byte.

use super::{Reader, Row, avg_len, lead_time, types::Layout};
use crate::common::time::parse_date_line;
use crate::common::{LineSource, Parsed, SliceSource};
use crate::pieces::Pieces;

/// The merge of a pidstat's pieces.
pub struct PidstatPieces {
    r: Reader,
    budget: usize,
    merged: bool,
}

/// What one piece read (the reader at the piece's end).
pub struct PidstatPart {
    r: Reader,
    first: bool,
}

/// The parse of a pidstat in pieces, keeping its rows within `budget` bytes as
/// [`super::parse_source_within`] does.
pub fn pieces(budget: usize) -> PidstatPieces {
    PidstatPieces { r: Reader::new(0, 0, true), budget, merged: false }
}

/// The parse of a pidstat in pieces whose rows the caller takes as they are merged
/// ([`PidstatPieces::take_rows`]): the value keeps none, only their summary
/// ([`super::Drained`]), with the stamp repairs of the whole file.
pub fn drained() -> PidstatPieces {
    let mut p = pieces(0);
    p.r.drain = Some(Box::default());
    p
}

/// The file of a [`drained`] parse read again, its rows taken as they are merged: the same
/// rows, but for the stamp repairs, which the first read's summary gives
/// ([`super::Drained::fix`]).
pub fn replay() -> PidstatPieces {
    let mut p = pieces(0);
    p.r.replay = true;
    p
}

impl PidstatPieces {
    /// The rows merged so far and not yet taken, in file order.
    pub fn take_rows(&mut self) -> Vec<Row> {
        std::mem::take(&mut self.r.out.rows)
    }
}

/// True for a header line that the one-thread parse reads as a header whatever came
/// before it: `# Time UID TGID TID ...` (`-h`) or `19:52:40 UID PID ...` (no average
/// label, no ANSI escapes, no `date` line).
fn is_header(line: &[u8]) -> bool {
    if line.contains(&0x1b) {
        return false;
    }
    let Ok(text) = std::str::from_utf8(line) else { return false };
    let toks: Vec<&str> = text.split_ascii_whitespace().take(8).collect();
    let Some(id) = toks.iter().position(|t| *t == "UID" || *t == "USER") else { return false };
    let ids = match toks.get(id + 1) {
        Some(&"PID") => true,
        Some(&"TGID") => toks.get(id + 2) == Some(&"TID"),
        _ => false,
    };
    if !ids || id == 0 || id > 3 || (toks.len() <= 7 && parse_date_line(text, 1).is_some()) {
        return false;
    }
    let prefix = &toks[..id];
    if prefix[0] == "#" {
        return id == 2;
    }
    avg_len(text).is_none() && lead_time(prefix).is_some_and(|(_, used, _)| used == id)
}

impl Pieces for PidstatPieces {
    type Part = PidstatPart;
    type Output = super::Pidstat;

    fn is_boundary(&self, line: &[u8]) -> bool {
        is_header(line)
    }

    fn part(&self, bytes: &[u8], first_no: usize, first: bool) -> Option<PidstatPart> {
        let mut r = Reader::new(0, bytes.len(), true);
        let mut src = SliceSource::numbered_from(bytes, first_no);
        while let Some(sl) = src.next_line() {
            // A header follows the piece: none of its lines is the file's last content.
            r.feed(&sl, false);
        }
        Some(PidstatPart { r, first })
    }

    fn merge(&mut self, part: PidstatPart) -> bool {
        let PidstatPart { r: mut p, first } = part;
        let rows = std::mem::take(&mut p.out.rows);
        if first {
            // The file's start: its reader is the file's, budget aside.
            p.keeper = super::budget::Keeper::new(self.budget);
            p.drain = self.r.drain.take();
            p.replay = self.r.replay;
            self.r = p;
            for r in rows {
                push_row(&mut self.r, r);
            }
            self.merged = true;
            return true;
        }
        let g = &mut self.r;
        let banners = g.out.banners.len();
        // The piece's first table is the file's last one again (`-h`: one header per report).
        let repeat = match (g.out.tables.last(), p.out.tables.first()) {
            (Some(a), Some(b)) => {
                a.stamp.is_none() && !a.average && b.stamp.is_none() && !b.average && a.columns == b.columns
            }
            _ => false,
        };
        let tables = g.out.tables.len() - usize::from(repeat);
        let (rows_before, avgs_before) = p.before_banner.unwrap_or((usize::MAX, usize::MAX));
        let place = |r: &mut Row, before: bool| {
            r.table += tables;
            r.run = if before { banners.saturating_sub(1) } else { banners + r.run };
        };
        for (i, mut r) in rows.into_iter().enumerate() {
            place(&mut r, i < rows_before);
            push_row(g, r);
        }
        for (i, mut r) in std::mem::take(&mut p.out.averages).into_iter().enumerate() {
            place(&mut r, i < avgs_before);
            g.out.averages.push(r);
        }
        g.out.tables.extend(p.out.tables.drain(..).skip(usize::from(repeat)));
        if g.out.banner.is_none() {
            g.out.banner = p.out.banner.take();
        }
        g.out.banners.append(&mut p.out.banners);
        g.out.date_lines.append(&mut p.out.date_lines);
        adopt_layout(&mut g.out.layout, std::mem::take(&mut p.out.layout));
        g.diags.append(p.diags);
        g.cur = p.cur.map(|mut c| {
            c.table += tables;
            c
        });
        g.last_tgid = p.last_tgid;
        g.lines = p.lines;
        self.merged = true;
        true
    }

    fn finish(mut self, rest: &mut impl LineSource) -> Parsed<super::Pidstat> {
        if !self.merged {
            let mut r = Reader::new(self.budget, rest.len_hint(), true);
            (r.drain, r.replay) = (self.r.drain.take(), self.r.replay);
            self.r = r;
        }
        while let Some(sl) = rest.next_line() {
            self.r.feed(&sl, sl.last_content);
        }
        self.r.finish(self.budget)
    }
}

/// Pushes a row as the one-thread reader does (the budget sees every row in file order).
fn push_row(g: &mut Reader, r: Row) {
    g.out.rows.push(r);
    g.pushed();
}

/// The layout facts of a later piece added to the file's (flags: any; forms: first seen).
fn adopt_layout(g: &mut Layout, p: Layout) {
    g.one_line |= p.one_line;
    g.threads |= p.threads;
    g.user_names |= p.user_names;
    if g.time_form.is_none() {
        g.time_form = p.time_form;
    }
    g.decimal_comma |= p.decimal_comma;
    g.human |= p.human;
    g.ansi |= p.ansi;
    g.iodelay = match (g.iodelay, p.iodelay) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(false) || b.unwrap_or(false)),
    };
    if g.average_label.is_none() {
        g.average_label = p.average_label;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_boundaries_and_rows_are_not() {
        // Real lines of `pidstat -d -t -h` (s1) and `LC_ALL=de_DE.UTF-8 pidstat -d` (s4).
        assert!(is_header(
            b"# Time        UID      TGID       TID   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command"
        ));
        assert!(is_header(b"19:52:40      UID       PID   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command"));
        assert!(is_header(b"07:33:00 PM   UID       PID   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command"));
        assert!(!is_header(
            b"19:37:31        0     15545         -      0.00   3996.00      0.00       0  gcache_sim"
        ));
        assert!(!is_header(b"Durchschn.:     UID       PID   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command"));
        assert!(!is_header(b"Linux 6.18.44-fc-v669 (vm) \t11/29/26 \t_x86_64_\t(2 CPU)"));
        assert!(!is_header(b"UID PID PPID C STIME TTY TIME CMD"));
        assert!(!is_header(b""));
    }
}
