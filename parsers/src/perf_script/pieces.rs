//! `perf script` text cut at its sample headers and collapsed in pieces on several
//! threads ([`crate::pieces`]). A sample header line starts a sample whatever came before
//! it (it closes the open one), so a piece starting at one reads like the file's start:
//!
//! ```text
//! redo_sim 15546  1065.348856:   10101010 cpu-clock:pppH:     <- a piece may start here
//!         ffffffff81af8fb0 submit_bio_noacct+0x0 ([kernel.kallsyms])
//!         ffffffff817e1d00 ext4_io_submit+0x20 ([kernel.kallsyms])
//!
//! redo_sim 15546  1065.358955:   10101010 cpu-clock:pppH:     <- or here
//!      sed 15395 [000]  1052.278526:        block:block_rq_issue: 254,0 RA 4096 () 12931792 + 8 0x2,0,4 [sed]
//! ```
//!
//! (the second form, tracepoints without call chains, has no blank lines: every line is
//! a sample). The lines of a piece before its first header (a cut made at another line,
//! `#` lines) are read in the merge, after the pieces before, as the one-thread parse
//! reads them. The merge adds each piece's counts in file order: stacks get the file's
//! ids in order of first appearance (the per-100-ms stack buckets follow them, and those
//! over the cap are the ones the one-thread parse drops), threads, tracepoints, writeback
//! and stack classes are summed by key. The folded event (inferno's first) is the
//! file's once a batch has been merged; a piece of the first batch chooses its own, and
//! is corrected in the merge when the file's differs (its folded stacks dropped, or, if
//! it also held samples of other events, read again with the file's). Only a piece
//! that reached the bucket cap on its own sends the file to the one-thread parse: the
//! result is [`super::Collector`]'s over the whole file, byte for byte.

use super::{Collector, MAX_DIAGS, MAX_STACK_BUCKETS, frame_parts, parse_header};
use crate::common::{LineSource, Parsed};
use crate::pieces::Pieces;
use std::collections::BTreeMap;

/// The merge of a perf script's pieces.
pub struct PerfPieces {
    c: Collector,
    merged: bool,
}

/// What one piece read.
pub struct PerfPart {
    /// The piece's lines before its first sample header (none when it starts at one).
    prefix: Vec<u8>,
    /// The number of the piece's first line.
    prefix_no: usize,
    /// The piece from its first sample header on (the whole piece when `first`).
    c: Collector,
    /// The piece starts the file.
    first: bool,
    /// A sample header is in the piece.
    has_header: bool,
    /// The folded event was not known when the piece was read: it chose its own.
    chose: bool,
    /// Then, when some of its samples were of another event (or of none), its bytes from
    /// the first header and their first line's number, to read again with the file's.
    body: Option<(Vec<u8>, usize)>,
}

/// The collapse of a perf script in pieces (inferno's default folding).
pub fn pieces() -> PerfPieces {
    PerfPieces { c: Collector::new(), merged: false }
}

/// A line the one-thread parse takes as a sample header in any state: not a `#` line,
/// and not a frame either (an open sample takes a line ending in `(dso)` as a frame first).
fn is_sample_header(line: &[u8]) -> bool {
    let text = String::from_utf8_lossy(line);
    if text.starts_with('#') {
        return false;
    }
    let t = text.trim_end();
    !t.is_empty()
        && parse_header(t, &mut Vec::new()).is_some()
        && !(t.ends_with(')') && frame_parts(t).is_some())
}

/// Where the first sample header of `bytes` (whole lines) starts, and the lines before
/// it (`bytes.len()` and all its lines when there is none).
fn first_header(bytes: &[u8]) -> (usize, usize) {
    let (mut at, mut n) = (0, 0);
    while at < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
        if is_sample_header(&bytes[at..end]) {
            return (at, n);
        }
        (at, n) = (end + 1, n + 1);
    }
    (bytes.len(), n)
}

/// Feeds the lines of `bytes` to `c`, the first numbered `no`.
fn feed(c: &mut Collector, bytes: &[u8], no: usize) {
    c.feed_lines(bytes, no);
}

/// A collector that folds `event` (`None`: the first one it meets).
fn folding(event: Option<String>) -> Collector {
    let mut c = Collector::new();
    c.out.collapse_event = event;
    c
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
        is_sample_header(line)
    }

    fn part(&self, bytes: &[u8], first_no: usize, first: bool) -> Option<PerfPart> {
        let (at, before) = if first { (0, 0) } else { first_header(bytes) };
        let known = self.c.out.collapse_event.clone();
        let chose = known.is_none() && !first;
        let mut c = folding(known);
        let (body, body_no) = (&bytes[at..], first_no + before);
        feed(&mut c, body, body_no);
        Some(PerfPart {
            prefix: bytes[..at].to_vec(),
            prefix_no: first_no,
            first,
            has_header: at < bytes.len(),
            chose,
            body: (chose && c.mixed).then(|| (body.to_vec(), body_no)),
            c,
        })
    }

    fn merge(&mut self, part: PerfPart) -> bool {
        self.merged = true;
        if part.first {
            self.c = part.c;
            return true;
        }
        let g = &mut self.c;
        feed(g, &part.prefix, part.prefix_no);
        if !part.has_header {
            return true;
        }
        let mut p = part.c;
        if part.chose
            && let (Some(f), Some(k)) = (&g.out.collapse_event, &p.out.collapse_event)
            && f != k
        {
            match part.body {
                Some((body, no)) => {
                    p = folding(Some(f.clone()));
                    feed(&mut p, &body, no);
                }
                // Every sample of the piece was of its event: none folds.
                None => unfold(&mut p),
            }
        }
        if p.out.stack_buckets_dropped > 0 {
            // The piece reached the cap alone: which pairs the file keeps is lost.
            return false;
        }
        // The piece's first header closes the sample left open.
        g.finish_sample();
        g.in_preamble = false;
        adopt(g, p);
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

/// Drops what a piece folded (its samples are not of the file's folded event).
fn unfold(p: &mut Collector) {
    p.stacks.clear();
    p.timed.clear();
    p.out.sample_buckets.clear();
    p.out.collapse_event = None;
    p.cur.fold = false;
    p.cur.buf.clear();
    p.cur.units.clear();
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
    adopt_stacks(g, p.stacks, p.timed);
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
    let room = MAX_DIAGS.saturating_sub(g.diags.len());
    g.diags.extend(p.diags.into_iter().take(room));
    g.skipped += p.skipped;
    g.lines = g.lines.max(p.lines);
    g.cur = p.cur;
}

/// A piece's stacks and (100 ms, stack) buckets added to the file's: the stacks get the
/// file's ids in order of first appearance; over the bucket cap, the piece's new pairs
/// are taken in their order of first appearance, as the one-thread parse meets them.
fn adopt_stacks(g: &mut Collector, stacks: super::Stacks, timed: super::Timed) {
    let mut stacks: Vec<(String, (u64, u32))> = stacks.into_iter().collect();
    stacks.sort_unstable_by_key(|s| s.1.1);
    let mut ids = Vec::with_capacity(stacks.len());
    for (k, (w, _)) in stacks {
        let n = g.stacks.len() as u32;
        let e = g.stacks.entry(k).or_insert((0, n));
        e.0 = e.0.saturating_add(w);
        ids.push(e.1);
    }
    let mut pairs: Vec<((i64, u32), (u64, u32))> = timed.into_iter().collect();
    if g.timed.len() + pairs.len() > MAX_STACK_BUCKETS {
        pairs.sort_unstable_by_key(|p| p.1.1);
    }
    for ((b, id), (n, _)) in pairs {
        let key = (b, ids[id as usize]);
        let len = g.timed.len();
        match g.timed.get_mut(&key) {
            Some(v) => v.0 += n,
            None if len < MAX_STACK_BUCKETS => {
                g.timed.insert(key, (n, len as u32));
            }
            None => g.out.stack_buckets_dropped += n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_headers_are_boundaries_frames_and_comments_are_not() {
        let p = pieces();
        // Real lines of `perf script` of `perf record -g` (s1) and of tracepoints.
        assert!(p.is_boundary(b"redo_sim 15546  1065.348856:   10101010 cpu-clock:pppH: "));
        assert!(p.is_boundary(
            b"     sed 15395 [000]  1052.278526:        block:block_rq_issue: 254,0 RA 4096 () 12931792 + 8 0x2,0,4 [sed]"
        ));
        assert!(!p.is_boundary(b"\tffffffff8158e3e1 next_uptodate_folio+0xc1 ([kernel.kallsyms])"));
        assert!(!p.is_boundary(b"") && !p.is_boundary(b"  \r"));
        assert!(!p.is_boundary(b"# redo_sim 15546  1065.348856:   10101010 cpu-clock:pppH: "));
        let text = b"\n\tffff1 main (/bin/a)\ndd 1/1 2.5: 1 cycles:\n";
        assert_eq!(first_header(text), (22, 2));
        assert_eq!(first_header(b"\n\n"), (2, 2));
    }
}
