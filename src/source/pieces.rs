//! One large streamed file parsed on every core: the file is read in batches of a few
//! MiB, each batch cut at lines where a record starts (the format's
//! [`Pieces::is_boundary`]: a pt-stalk `TS` line, an iostat `-t` stamp), its pieces parsed beside each other
//! (rayon) and merged in file order; the bytes after a batch's last boundary wait for the
//! next batch, and the last piece of the file is parsed with the merged state. The
//! result is the one-thread streamed parse ([`super::stream`]), byte for byte; anything
//! that parse treats specially (a line over [`super::stream::MAX_LINE`], a read error, a
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
const PIECE: usize = 1 << 20;

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
        "proc_meminfo" => drive(st, meminfo::pieces(b), piece).map(|p| p.map(Data::ProcMeminfo)),
        "proc_vmstat" => drive(st, vmstat::pieces(b), piece).map(|p| p.map(Data::ProcVmstat)),
        "proc_diskstats" => drive(st, diskstats::pieces(b), piece).map(|p| p.map(Data::ProcDiskstats)),
        _ => None,
    }
}

/// The file (to tell at its end whether it grew) and its bytes (gzip-decoded when it
/// is), up to its size when listed.
fn open(st: &Streamed) -> Option<(std::fs::File, Box<dyn Read>)> {
    let file = crate::bundle::open_regular(&st.path).ok()?;
    let body = file.try_clone().ok()?.take(st.len);
    let r: Box<dyn Read> =
        if st.gz { Box::new(flate2::read::MultiGzDecoder::new(body)) } else { Box::new(body) };
    Some((file, r))
}

/// Reads into `buf` until it holds `want` bytes or the input ends (true at its end;
/// `None` on a read error).
fn fill(r: &mut dyn Read, buf: &mut Vec<u8>, want: usize) -> Option<bool> {
    while buf.len() < want {
        let at = buf.len();
        buf.resize(want, 0);
        match r.read(&mut buf[at..]) {
            Ok(0) => {
                buf.truncate(at);
                return Some(true);
            }
            Ok(k) => buf.truncate(at + k),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => buf.truncate(at),
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
    let n = bytes.iter().filter(|&&b| b == b'\n').count();
    if bytes.len() > super::stream::MAX_LINE {
        let mut start = 0;
        for i in memchr::memchr_iter(b'\n', bytes) {
            if i - start > super::stream::MAX_LINE {
                return None;
            }
            start = i + 1;
        }
        if bytes.len() - start > super::stream::MAX_LINE {
            return None;
        }
    }
    Some(n)
}

/// Reads `st` in batches, parses each batch's pieces on every core, merges them into `p`
/// and parses the last piece with the merged state.
fn drive<P: Pieces>(st: &Streamed, mut p: P, piece: usize) -> Option<Parsed<P::Output>> {
    let batch = (piece * rayon::current_num_threads().max(1) * 4).max(1 << 16);
    let (file, mut r) = open(st)?;
    let mut buf: Vec<u8> = Vec::with_capacity(batch + piece);
    let (mut merged, mut no) = (false, 1usize);
    let mut want = batch;
    loop {
        let eof = fill(&mut r, &mut buf, want)?;
        let at = cuts(&p, &buf, piece);
        if let Some(&end) = at.last() {
            no = parse_batch(&mut p, &buf, &at, no, !merged)?;
            merged = true;
            buf.drain(..end);
        } else if buf.len() > MAX_REST {
            return None;
        }
        if eof {
            break;
        }
        want = buf.len() + batch;
    }
    if !merged || count_lines(&buf).is_none() || file.metadata().is_ok_and(|m| m.len() > st.len) {
        // One piece, a long line at the end, a file that grew: the one-thread parse.
        return None;
    }
    Some(p.finish(&mut SliceSource::numbered_from(&buf, no)))
}

/// Parses the pieces of `buf` before each cut `at` on every core (the first numbered `no`;
/// `first`: `buf` starts the file) and merges them; the number of the line after them.
fn parse_batch<P: Pieces>(p: &mut P, buf: &[u8], at: &[usize], mut no: usize, first: bool) -> Option<usize> {
    let starts: Vec<usize> = std::iter::once(0).chain(at.iter().copied()).collect();
    let ranges: Vec<(usize, usize)> = starts.windows(2).map(|w| (w[0], w[1])).collect();
    let lines: Vec<Option<usize>> = ranges.par_iter().map(|&(a, b)| count_lines(&buf[a..b])).collect();
    let mut firsts = Vec::with_capacity(ranges.len());
    for n in lines {
        firsts.push(no);
        no += n?;
    }
    let shared: &P = p;
    let parts: Vec<Option<P::Part>> = ranges
        .par_iter()
        .zip(firsts.par_iter())
        .enumerate()
        .map(|(i, (&(a, b), &f))| shared.part(&buf[a..b], f, first && i == 0))
        .collect();
    for part in parts {
        if !p.merge(part?) {
            return None;
        }
    }
    Some(no)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The streamed one-thread parse and the parse in pieces of at least `piece` bytes agree.
    fn same(st: &Streamed, budgets: &iosift_parsers::Budgets, piece: usize) -> bool {
        let (_, one) =
            super::super::stream::parse_within(st, 1 << 20, super::super::stream::MAX_LINE, budgets)
                .expect("a streamed format");
        let Some(cut) = parse_with(st, budgets, piece) else { return false };
        let at = format!("{} (pieces of {piece} bytes)", st.path.display());
        assert_eq!(format!("{:?}", cut.value), format!("{:?}", one.value), "{at}");
        assert_eq!(cut.diagnostics, one.diagnostics, "{at}");
        assert_eq!((cut.lines, cut.skipped_lines), (one.lines, one.skipped_lines), "{at}");
        true
    }

    /// The real series of `samples/` that are cut in pieces (iostat, pt-stalk meminfo,
    /// procvmstat, diskstats), each with its format.
    fn series_files() -> Vec<(std::path::PathBuf, &'static str)> {
        let samples = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/samples"));
        let mut out = Vec::new();
        for case in std::fs::read_dir(samples).unwrap().flatten() {
            let Ok(files) = std::fs::read_dir(case.path().join("capture")) else { continue };
            for f in files.flatten() {
                let name = f.file_name().to_string_lossy().into_owned();
                let stem = name.trim_end_matches(".gz");
                let format = match () {
                    _ if stem.starts_with("iostat") && !stem.contains("json") => "iostat",
                    _ if stem.ends_with("-meminfo") => "proc_meminfo",
                    _ if stem.ends_with("-procvmstat") => "proc_vmstat",
                    _ if stem.ends_with("-diskstats") => "proc_diskstats",
                    _ => continue,
                };
                out.push((f.path(), format));
            }
        }
        out.sort();
        out
    }

    fn streamed(path: &std::path::Path, format: &'static str) -> Streamed {
        let gz = path.extension().is_some_and(|e| e == "gz");
        Streamed { path: path.to_path_buf(), gz, format, len: std::fs::metadata(path).unwrap().len() }
    }

    #[test]
    fn ts_series_in_pieces_equal_the_one_thread_parse() {
        let budgets = super::super::stream::budgets();
        let files = series_files();
        let mut cut = 0;
        // 1 byte: a piece per block (every `TS` line a cut); the others cut batches mid-block.
        for (path, format) in files.iter().filter(|(_, f)| *f != "iostat").take(9) {
            for piece in [1, 700, 5000, 40_000] {
                cut += usize::from(same(&streamed(path, format), &budgets, piece));
            }
        }
        assert!(cut >= 30, "{cut} parses in pieces of {} files", files.len());
    }

    #[test]
    fn cut_odd_and_thinned_ts_series_in_pieces_equal_the_one_thread_parse() {
        let dir = tempfile::tempdir().unwrap();
        let files = series_files();
        let pick = |f: &str| files.iter().find(|(p, g)| *g == f && p.extension().is_none()).unwrap().clone();
        for (path, format) in [pick("proc_meminfo"), pick("proc_diskstats"), pick("proc_vmstat")] {
            let text = std::fs::read(&path).unwrap();
            let mid = text.len() * 2 / 3;
            let crlf: Vec<u8> =
                text.iter().flat_map(|&b| if b == b'\n' { vec![b'\r', b'\n'] } else { vec![b] }).collect();
            // A bad `TS` line mid-file, blank lines first, the file cut inside a record.
            let mut bad_ts = b"\n\n".to_vec();
            bad_ts.extend_from_slice(&text[..mid]);
            bad_ts.extend_from_slice(b"TS 17x\nMemTotal: 1 kB\nbad line\n");
            bad_ts.extend_from_slice(&text[mid..]);
            let bodies = [
                text[..mid].to_vec(),
                text[..mid + 7].to_vec(),
                crlf,
                bad_ts,
                [&text[..], b"\n \n"].concat(),
            ];
            for (k, body) in bodies.iter().enumerate() {
                let p = dir.path().join(format!("{k}-{}", path.file_name().unwrap().to_string_lossy()));
                std::fs::write(&p, body).unwrap();
                let st = streamed(&p, format);
                // No budget, and one small enough that the series is thinned several times.
                for snapshots in [super::super::stream::TS_SNAPSHOT_BUDGET, 20_000] {
                    let budgets = iosift_parsers::Budgets { snapshots, ..super::super::stream::budgets() };
                    for piece in [1, 3000] {
                        assert!(same(&st, &budgets, piece), "{} was not cut", p.display());
                    }
                }
            }
        }
        // A file starting with data, not with a `TS` line: back to the one-thread parse.
        let (path, format) = pick("proc_meminfo");
        let p = dir.path().join("data-first");
        std::fs::write(&p, [b"MemTotal: 5 kB\n".as_slice(), &std::fs::read(path).unwrap()].concat()).unwrap();
        assert!(!same(&streamed(&p, format), &super::super::stream::budgets(), 1));
    }

    #[test]
    fn iostats_in_pieces_equal_the_one_thread_parse() {
        let budgets = super::super::stream::budgets();
        let files: Vec<_> = series_files().into_iter().filter(|(_, f)| *f == "iostat").collect();
        let mut cut = 0;
        // Every fourth (of 85 in `samples/`): the captures differ in devices, runs, `-y`.
        for (path, format) in files.iter().step_by(4) {
            for piece in [1, 5000] {
                cut += usize::from(same(&streamed(path, format), &budgets, piece));
            }
        }
        assert!(cut >= 40, "{cut} parses in pieces of {} files", files.len());
    }

    #[test]
    fn odd_and_merged_iostats_in_pieces_equal_the_one_thread_parse() {
        let dir = tempfile::tempdir().unwrap();
        let files: Vec<_> =
            series_files().into_iter().filter(|(p, _)| p.ends_with("iostat-x-t.txt")).collect();
        let (a, b) = (std::fs::read(&files[0].0).unwrap(), std::fs::read(&files[1].0).unwrap());
        // `-y`: the banner's two blank lines, then the first stamp.
        let banner_end = a.windows(2).position(|w| w == b"\n\n").unwrap() + 1;
        let y = [&a[..banner_end], b"\n", &a[banner_end..]].concat();
        let mid = a.len() / 2;
        let crlf: Vec<u8> =
            a.iter().flat_map(|&c| if c == b'\n' { vec![b'\r', b'\n'] } else { vec![c] }).collect();
        // Two captures in one file (a second banner mid-file), one cut inside a row.
        let bodies = [[&a[..], &b[..]].concat(), [&b[..], &y[..]].concat(), a[..mid].to_vec(), crlf, y];
        for (k, body) in bodies.iter().enumerate() {
            let p = dir.path().join(format!("iostat-{k}.txt"));
            std::fs::write(&p, body).unwrap();
            let st = streamed(&p, "iostat");
            // No budget, and one small enough that reports are merged several times.
            for iostat_rows in [super::super::stream::IOSTAT_ROW_BUDGET, 30_000] {
                let budgets = iosift_parsers::Budgets { iostat_rows, ..super::super::stream::budgets() };
                for piece in [1, 2000, 20_000] {
                    assert!(same(&st, &budgets, piece), "{} was not cut", p.display());
                }
            }
        }
    }
}
