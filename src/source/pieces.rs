//! One large streamed file parsed on every core: the file is read in batches of a few
//! MiB, each batch cut at lines where a record starts (the format's
//! [`Pieces::is_boundary`]: a pt-stalk `TS` line, an iostat `-t` stamp, a pidstat header,
//! a vmstat procs line), its pieces parsed beside each other
//! (rayon) and merged in file order; the bytes after a batch's last boundary wait for the
//! next batch, and the last piece of the file is parsed with the merged state. The
//! result is the one-thread streamed parse ([`super::stream`]), byte for byte; anything
//! that parse treats specially (a line over [`MAX_LINE`], a read error, a
//! file that grew, a piece the format cannot read alone) sends the file back to it.
//!
//! ```text
//! TS 1795981039.666693755 2026-11-29 19:37:19   <- a piece starts here (thread 1)
//! MemTotal:       24684084 kB
//! ...
//! TS 1795981051.707421399 2026-11-29 19:37:31   <- the next piece (thread 2)
//! ```

use crate::bundle::Streamed;
use iosift_parsers::common::SliceSource;
use iosift_parsers::pieces::Pieces;
use iosift_parsers::{Data, Parsed};
use rayon::prelude::*;
use std::io::Read;

/// Bytes a piece holds at least (it ends at the first boundary after this many bytes).
pub(super) const PIECE: usize = 1 << 20;

/// Longest line the one-thread streamed parse keeps (`super::stream::MAX_LINE`): a piece
/// holding a longer one goes back to it, which skips the line with a diagnostic.
pub(super) const MAX_LINE: usize = 16 << 20;

/// Files smaller than this (on disk) are parsed on one thread.
pub(crate) const MIN_BYTES: u64 = 8 << 20;

/// Most bytes held after a batch's last boundary before the file is parsed on one thread
/// instead (a file whose records never start again holds no pieces).
const MAX_REST: usize = 64 << 20;

/// Parses `st` in pieces on every core when its format can be cut (`None`: parse it on one
/// thread, from the start).
pub(crate) fn parse(st: &Streamed, budgets: &iosift_parsers::Budgets) -> Option<Parsed<Data>> {
    if st.len < MIN_BYTES || rayon::current_num_threads() < 2 {
        return None;
    }
    parse_with(st, budgets, PIECE)
}

/// [`parse`] with pieces of at least `piece` bytes (small in tests, to cut at every boundary).
pub(crate) fn parse_with(
    st: &Streamed,
    budgets: &iosift_parsers::Budgets,
    piece: usize,
) -> Option<Parsed<Data>> {
    use iosift_parsers::procfs::{diskstats, meminfo, vmstat};
    let b = budgets.snapshots;
    match st.format {
        "iostat" => drive(st, iosift_parsers::iostat::pieces::pieces(budgets.iostat_rows), piece)
            .map(|p| p.map(Data::Iostat)),
        "pidstat" => drive(st, iosift_parsers::pidstat::pieces::pieces(budgets.pidstat_rows), piece)
            .map(|p| p.map(Data::Pidstat)),
        "vmstat" => drive(st, iosift_parsers::vmstat::pieces::pieces(), piece).map(|p| p.map(Data::Vmstat)),
        "perf_script" => drive(st, iosift_parsers::perf_script::pieces::pieces(), piece)
            .map(|p| p.map(|v| Data::PerfScript(Box::new(v)))),
        "proc_meminfo" => drive(st, meminfo::pieces(b), piece).map(|p| p.map(Data::ProcMeminfo)),
        "proc_vmstat" => drive(st, vmstat::pieces(b), piece).map(|p| p.map(Data::ProcVmstat)),
        "proc_diskstats" => drive(st, diskstats::pieces(b), piece).map(|p| p.map(Data::ProcDiskstats)),
        _ => None,
    }
}

/// The file (to tell at its end whether it grew) and its bytes (gzip-decoded when it
/// is), up to its size when listed.
fn open(st: &Streamed) -> Option<(std::fs::File, Box<dyn Read + Send>)> {
    let file = crate::bundle::open_regular(&st.path).ok()?;
    let body = file.try_clone().ok()?.take(st.len);
    let r: Box<dyn Read + Send> =
        if st.gz { Box::new(flate2::read::MultiGzDecoder::new(body)) } else { Box::new(body) };
    Some((file, r))
}

/// Reads into `buf` until it holds `want` bytes or the input ends (true at its end;
/// `None` on a read error). The bytes are appended without zeroing the room first.
fn fill(r: &mut dyn Read, buf: &mut Vec<u8>, want: usize) -> Option<bool> {
    while buf.len() < want {
        let room = (want - buf.len()) as u64;
        match r.take(room).read_to_end(buf) {
            Ok(0) => return Some(true),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    Some(false)
}

/// Start of the first boundary line after the line holding byte `from` of `buf` (`from` >
/// 0), when a whole one is there.
fn boundary_at<P: Pieces>(p: &P, buf: &[u8], from: usize) -> Option<usize> {
    let mut at = from + memchr::memchr(b'\n', buf.get(from..)?)? + 1;
    while at < buf.len() {
        let end = memchr::memchr(b'\n', &buf[at..])?;
        let mut line = &buf[at..at + end];
        if let [head @ .., b'\r'] = line {
            line = head;
        }
        if p.is_boundary(line) {
            return Some(at);
        }
        at += end + 1;
    }
    None
}

/// Where `buf` is cut: the starts of pieces after the first, each at least `piece` bytes
/// after the one before.
fn cuts<P: Pieces>(p: &P, buf: &[u8], piece: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut from = piece;
    while from < buf.len() {
        let Some(at) = boundary_at(p, buf, from) else { break };
        out.push(at);
        from = at + piece;
    }
    out
}

/// Lines of a piece of whole lines, or `None` when one is longer than a streamed line may be.
fn count_lines(bytes: &[u8]) -> Option<usize> {
    let n = iosift_parsers::common::lines::newlines(bytes);
    if bytes.len() > MAX_LINE {
        let mut start = 0;
        for i in memchr::memchr_iter(b'\n', bytes) {
            if i - start > MAX_LINE {
                return None;
            }
            start = i + 1;
        }
        if bytes.len() - start > MAX_LINE {
            return None;
        }
    }
    Some(n)
}

/// Reads `st` in batches, parses each batch's pieces on every core while the next batch
/// is read, merges them into `p` and parses the last piece with the merged state.
fn drive<P: Pieces>(st: &Streamed, p: P, piece: usize) -> Option<Parsed<P::Output>> {
    drive_with(st, p, piece, |_| {})
}

/// [`drive`], handing `p` to `on_batch` after each piece is merged (in file order: a caller
/// takes the records merged so far, [`super::replay`], holding one piece's at a time).
pub(super) fn drive_with<P: Pieces>(
    st: &Streamed,
    mut p: P,
    piece: usize,
    mut on_batch: impl FnMut(&mut P),
) -> Option<Parsed<P::Output>> {
    let batch = (piece * rayon::current_num_threads().max(1) * 4).max(1 << 16);
    let (file, mut r) = open(st)?;
    let mut buf: Vec<u8> = Vec::with_capacity(batch + piece);
    let mut eof = fill(&mut r, &mut buf, batch)?;
    let (mut merged, mut no) = (false, 1usize);
    loop {
        let at = cuts(&p, &buf, piece);
        let Some(&end) = at.last() else {
            if eof {
                break;
            }
            if buf.len() > MAX_REST {
                return None;
            }
            let want = buf.len() + batch;
            eof = fill(&mut r, &mut buf, want)?;
            continue;
        };
        // The bytes after the last cut start the next batch, read while this one is parsed.
        let mut next = Vec::with_capacity(batch + piece);
        next.extend_from_slice(&buf[end..]);
        let want = next.len() + batch;
        let (parts, more) = rayon::join(
            || parse_batch(&p, &buf, &at, no, !merged),
            || if eof { Some(true) } else { fill(&mut r, &mut next, want) },
        );
        let (parts, after) = parts?;
        for part in parts {
            if !p.merge(part) {
                return None;
            }
            on_batch(&mut p);
        }
        (no, merged, buf, eof) = (after, true, next, more?);
    }
    if !merged || count_lines(&buf).is_none() || file.metadata().is_ok_and(|m| m.len() > st.len) {
        // One piece, a long line at the end, a file that grew: the one-thread parse.
        return None;
    }
    Some(p.finish(&mut SliceSource::numbered_from(&buf, no)))
}

/// Parses the pieces of `buf` before each cut `at` on every core (the first numbered `no`;
/// `first`: `buf` starts the file): their parts and the number of the line after them.
fn parse_batch<P: Pieces>(
    p: &P,
    buf: &[u8],
    at: &[usize],
    mut no: usize,
    first: bool,
) -> Option<(Vec<P::Part>, usize)> {
    let starts: Vec<usize> = std::iter::once(0).chain(at.iter().copied()).collect();
    let ranges: Vec<(usize, usize)> = starts.windows(2).map(|w| (w[0], w[1])).collect();
    let lines: Vec<Option<usize>> = ranges.par_iter().map(|&(a, b)| count_lines(&buf[a..b])).collect();
    let mut firsts = Vec::with_capacity(ranges.len());
    for n in lines {
        firsts.push(no);
        no += n?;
    }
    let parts: Option<Vec<P::Part>> = ranges
        .par_iter()
        .zip(firsts.par_iter())
        .enumerate()
        .map(|(i, (&(a, b), &f))| p.part(&buf[a..b], f, first && i == 0))
        .collect();
    Some((parts?, no))
}
