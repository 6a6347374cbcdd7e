//! `perf script` text cut at the blank lines between samples and collapsed in pieces on
//! several threads ([`crate::pieces`]). A sample is its header line and its frames; the
//! blank line after it closes it, so a piece starting at a blank line reads like the
//! file's start (but for the `#` preamble, which only the file's first lines are):
//!
//! ```text
//! redo_sim 15546  1065.348856:   10101010 cpu-clock:pppH:
//!         ffffffff81af8fb0 submit_bio_noacct+0x0 ([kernel.kallsyms])
//!         ffffffff817e1d00 ext4_io_submit+0x20 ([kernel.kallsyms])
//!                                                 <- a piece may start here (a blank line)
//! redo_sim 15546  1065.358955:   10101010 cpu-clock:pppH:
//! ```
//!
//! The merge adds the counts of each piece in file order: stacks get the file's ids in
//! order of first appearance (the per-100-ms stack buckets follow them), threads,
//! tracepoints, writeback and stack classes are summed by key. What a piece cannot be
//! read without (another event folded before it, the bucket cap reached, a sample left
//! open without frames followed by something else than a header, preamble lines after a
//! cut) sends the file to the one-thread parse, so the result is [`super::Collector`]'s
//! over the whole file, byte for byte.

use super::{Collector, MAX_DIAGS, MAX_STACK_BUCKETS, frame_parts, parse_header};
use crate::common::{LineSource, Parsed, SliceSource};
use crate::pieces::Pieces;
use std::collections::BTreeMap;

/// The merge of a perf script's pieces.
pub struct PerfPieces {
    c: Collector,
    merged: bool,
}

/// What one piece read (its collector, its last sample closed unless it had no frame).
pub struct PerfPart {
    c: Collector,
    first: bool,
    /// Its first line with content, but `#` lines, is a sample header (it closes a sample
    /// left open before the piece).
    starts_with_header: bool,
    /// `#` lines came before its first line with content (preamble lines if nothing came before).
    leading_comments: bool,
    /// It has a line with content, but `#` lines (the preamble ends there).
    content: bool,
}

/// The collapse of a perf script in pieces (inferno's default folding).
pub fn pieces() -> PerfPieces {
    PerfPieces { c: Collector::new(), merged: false }
}

/// A sample header that no open sample takes as a frame.
fn is_sample_header(t: &str) -> bool {
    parse_header(t, &mut Vec::new()).is_some() && !(t.ends_with(')') && frame_parts(t).is_some())
}

/// Adds `from`'s counts into `to`, key by key.
fn add<K: Ord>(to: &mut BTreeMap<K, u64>, from: BTreeMap<K, u64>) {
    for (k, v) in from {
        let e = to.entry(k).or_insert(0);
        *e = e.saturating_add(v);
    }
}

impl Pieces for PerfPieces {
    type Part = PerfPart;
    type Output = super::PerfScript;

    fn is_boundary(&self, line: &[u8]) -> bool {
        line.iter().all(u8::is_ascii_whitespace)
    }

    fn part(&self, bytes: &[u8], first_no: usize, first: bool) -> Option<PerfPart> {
        let mut c = Collector::new();
        c.in_preamble = first;
        let (mut starts_with_header, mut leading_comments, mut content) = (false, false, false);
        let mut src = SliceSource::numbered_from(bytes, first_no);
        while let Some(sl) = src.next_line() {
            if !content {
                let t = String::from_utf8_lossy(sl.line.bytes);
                let t = t.trim_end();
                if t.starts_with('#') {
                    leading_comments = true;
                } else if !t.is_empty() {
                    content = true;
                    starts_with_header = is_sample_header(t);
                }
            }
            c.feed_line(sl.line.no, sl.line.bytes);
        }
        // A blank line follows the piece: it closes a sample that has frames.
        if c.cur.active && c.cur.frames > 0 {
            c.finish_sample();
        }
        Some(PerfPart { c, first, starts_with_header, leading_comments, content })
    }

    fn merge(&mut self, part: PerfPart) -> bool {
        let PerfPart { c: p, first, starts_with_header, leading_comments, content } = part;
        if first {
            self.c = p;
            self.merged = true;
            return true;
        }
        let g = &mut self.c;
        let folds_other =
            matches!((&g.out.collapse_event, &p.out.collapse_event), (Some(a), Some(b)) if a != b);
        if (g.cur.active && !starts_with_header)
            || (g.in_preamble && leading_comments)
            || folds_other
            || g.timed.len() + p.timed.len() > MAX_STACK_BUCKETS
            || p.out.stack_buckets_dropped > 0
        {
            return false;
        }
        // The piece's first header closes the sample left open (it has no frame).
        g.finish_sample();
        g.in_preamble &= !content;
        adopt(g, p);
        self.merged = true;
        true
    }

    fn finish(mut self, rest: &mut impl LineSource) -> Parsed<super::PerfScript> {
        if !self.merged {
            self.c = Collector::new();
        }
        while let Some(sl) = rest.next_line() {
            self.c.feed_line(sl.line.no, sl.line.bytes);
        }
        self.c.finish()
    }
}

/// The counts of a later piece added to the file's collector; the piece's open sample
/// (if any) becomes the file's.
fn adopt(g: &mut Collector, p: Collector) {
    let (out, pout) = (&mut g.out, p.out);
    out.samples += pout.samples;
    for (k, v) in pout.events {
        *out.events.entry(k).or_insert(0) += v;
    }
    out.first_ts = match (out.first_ts, pout.first_ts) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    out.last_ts = match (out.last_ts, pout.last_ts) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    let (l, pl) = (&mut out.layout, pout.layout);
    l.pid_tid += pl.pid_tid;
    l.cpu += pl.cpu;
    l.time += pl.time;
    l.time_ns += pl.time_ns;
    l.period += pl.period;
    l.inline_ip += pl.inline_ip;
    if out.collapse_event.is_none() {
        out.collapse_event = pout.collapse_event;
    }
    out.callchain_samples += pout.callchain_samples;
    add(&mut out.fsync_per_sec, pout.fsync_per_sec);
    add(&mut out.sample_buckets, pout.sample_buckets);
    // Stacks get the file's ids in order of first appearance; their buckets follow.
    let mut stacks: Vec<(String, (u64, u32))> = p.stacks.into_iter().collect();
    stacks.sort_unstable_by_key(|s| s.1.1);
    let mut ids = Vec::with_capacity(stacks.len());
    for (k, (w, _)) in stacks {
        let n = g.stacks.len() as u32;
        let e = g.stacks.entry(k).or_insert((0, n));
        e.0 = e.0.saturating_add(w);
        ids.push(e.1);
    }
    add(&mut g.timed, p.timed.into_iter().map(|((b, id), n)| ((b, ids[id as usize]), n)).collect());
    for (k, list) in p.threads {
        let to = g.threads.entry(k).or_default();
        for s in list {
            match to.iter_mut().find(|t| t.comm == s.comm) {
                Some(t) => {
                    t.samples += s.samples;
                    t.fsync_samples += s.fsync_samples;
                }
                None => to.push(s),
            }
        }
    }
    for (k, (n, b)) in p.tp {
        let e = g.tp.entry(k).or_insert((0, 0));
        (e.0, e.1) = (e.0.saturating_add(n), e.1.saturating_add(b));
    }
    for (k, (n, b)) in p.wb {
        let e = g.wb.entry(k).or_insert((0, 0));
        (e.0, e.1) = (e.0.saturating_add(n), e.1.saturating_add(b));
    }
    add(&mut g.classes, p.classes);
    for d in p.diags {
        if g.diags.len() < MAX_DIAGS {
            g.diags.push(d);
        }
    }
    g.skipped += p.skipped;
    g.seen_sample |= p.seen_sample;
    g.lines = g.lines.max(p.lines);
    g.cur = p.cur;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_lines_are_boundaries_and_headers_close_open_samples() {
        let p = pieces();
        assert!(p.is_boundary(b"") && p.is_boundary(b"  \t"));
        assert!(!p.is_boundary(b"\tffffffff8158e3e1 next_uptodate_folio+0xc1 ([kernel.kallsyms])"));
        // Real lines of `perf script` of `perf record -g` (s1).
        assert!(is_sample_header("redo_sim 15546  1065.348856:   10101010 cpu-clock:pppH: "));
        assert!(!is_sample_header("\tffffffff8158e3e1 next_uptodate_folio+0xc1 ([kernel.kallsyms])"));
    }
}
