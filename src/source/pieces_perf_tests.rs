//! perf scripts in pieces (`iosift_parsers::perf_script::pieces`) against the one-thread
//! parse: the real samples through the application's driver (cut at every sample header,
//! and in batches), and cut by hand at any line (blank lines, frames, the `#` preamble,
//! a piece that chose another folded event than the file's).

use super::{crlf, same, shared, streamed};
use crate::source::stream;
use iosift_parsers::Parsed;
use iosift_parsers::common::{Lines, SliceSource};
use iosift_parsers::perf_script::{self, PerfScript};
use iosift_parsers::pieces::Pieces;
use std::path::{Path, PathBuf};

/// Files up to this size on disk are cut in the suite; `IOSIFT_TEST_ALL_PERF=1` cuts
/// every perf script of `samples/` (about 1.2 GB of text: a minute with an optimized build).
const SUITE_MAX: u64 = 250_000;

/// The perf scripts of `samples/` (all, or those up to [`SUITE_MAX`] bytes on disk) and of
/// `../shared/bundles` (said when absent).
fn perf_files() -> Vec<PathBuf> {
    let all = std::env::var_os("IOSIFT_TEST_ALL_PERF").is_some();
    let samples = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/samples"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(samples)
        .unwrap()
        .flatten()
        .flat_map(|c| std::fs::read_dir(c.path().join("capture")).into_iter().flatten().flatten())
        .map(|f| f.path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().contains(".script.txt")))
        .filter(|p| all || std::fs::metadata(p).is_ok_and(|m| m.len() <= SUITE_MAX))
        .collect();
    files.sort();
    for name in ["perf-workload.script.txt", "perf-workload.script.txt.gz", "perf-trace.script.txt"] {
        files.extend(shared(name));
    }
    files
}

#[test]
fn perf_scripts_in_pieces_equal_the_one_thread_parse() {
    let budgets = stream::budgets();
    let files = perf_files();
    let t0 = std::time::Instant::now();
    for path in &files {
        let st = streamed(path, "perf_script");
        // 1 byte: a piece per sample (every header a cut); 20 kB: a few hundred samples a
        // piece, batches of 160 kB (the first batch's pieces choose their folded event).
        let size = read(path).len();
        for piece in [1, 20_000] {
            // One piece only (a file under two pieces) is parsed on one thread.
            let cut = same(&st, &budgets, piece);
            assert!(cut || size < 2 * piece, "{} was not cut in pieces of {piece} bytes", path.display());
        }
    }
    eprintln!(
        "{} perf scripts cut, each in pieces of 1 and 20,000 bytes, in {:?}",
        files.len(),
        t0.elapsed()
    );
    assert!(files.len() >= 10, "{} perf scripts", files.len());
}

/// The one-thread parse of `text` (the streamed one's collector over the whole text).
fn one_thread(text: &[u8]) -> Parsed<PerfScript> {
    let mut c = perf_script::Collector::new();
    for l in Lines::new(text) {
        c.feed_line(l.no, l.bytes);
    }
    c.finish()
}

/// `text` cut at the line starts `cuts` (increasing, inside `text`), the pieces read in
/// batches of `batch` beside each other (each batch with what the ones before merged),
/// merged in order, the rest read by `finish`; `None` when the merge refused.
fn in_pieces(text: &[u8], cuts: &[usize], batch: usize) -> Option<Parsed<PerfScript>> {
    let mut p = perf_script::pieces::pieces();
    let (mut from, mut no) = (0, 1);
    for group in cuts.chunks(batch) {
        let mut parts = Vec::new();
        for &to in group {
            parts.push(p.part(&text[from..to], no, from == 0)?);
            no += memchr::memchr_iter(b'\n', &text[from..to]).count();
            from = to;
        }
        for part in parts {
            if !p.merge(part) {
                return None;
            }
        }
    }
    Some(p.finish(&mut SliceSource::numbered_from(&text[from..], no)))
}

/// The line starts of `text`.
fn line_starts(text: &[u8]) -> Vec<usize> {
    memchr::memchr_iter(b'\n', text).map(|i| i + 1).filter(|&i| i < text.len()).collect()
}

/// `text` cut at every `step`-th line start (from the `skip`-th), in batches of `batch`,
/// equals the one-thread parse.
fn check_cut(text: &[u8], what: &str, skip: usize, step: usize, batch: usize) {
    let cuts: Vec<usize> = line_starts(text).into_iter().skip(skip).step_by(step).collect();
    let got = in_pieces(text, &cuts, batch).unwrap_or_else(|| panic!("{what}: refused"));
    let want = one_thread(text);
    let at = format!("{what} (every {step}th line from {skip}, batches of {batch})");
    assert_eq!(format!("{:?}", got.value), format!("{:?}", want.value), "{at}");
    assert_eq!(got.diagnostics, want.diagnostics, "{at}");
    assert_eq!((got.lines, got.skipped_lines), (want.lines, want.skipped_lines), "{at}");
}

fn read(path: &Path) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap();
    if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(&raw[..]), &mut out).unwrap();
        out
    } else {
        raw
    }
}

#[test]
fn perf_scripts_cut_at_any_line_equal_the_one_thread_parse() {
    let samples = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/samples"));
    // A profile with call chains (blank lines between samples, the `--header` preamble)
    // and tracepoints of two events, block first (no blank lines: every line a sample;
    // its first writeback samples are lines 487 and 488).
    let profile = read(&samples.join("rx_link_800kbit/capture/perf-profile.script.txt.gz"));
    let trace = read(&samples.join("ix_ext4_copy3g_background/capture/perf-trace.script.txt.gz"));
    let trace = &trace[..line_starts(&trace)[6000]];
    for (text, what) in [(&profile[..], "profile"), (trace, "trace")] {
        // Every line a piece (preamble, frames, blank lines), then pieces of 7 and 61 lines
        // read 5 or 40 at a time (the first batch's pieces choose their folded event).
        check_cut(&text[..line_starts(text)[900]], what, 0, 1, 1);
        check_cut(text, what, 3, 7, 5);
        check_cut(text, what, 1, 61, 40);
    }
    // Pieces of the first batch starting at line 487: two writeback samples alone (they
    // chose writeback, the file folds block: dropped), or with a block sample after them
    // (read again with block).
    check_cut(trace, "trace", 485, 2, 5);
    check_cut(trace, "trace", 485, 3, 5);
    let s1 = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/bundles/s1_mmap_writeback"));
    let Ok(a) = std::fs::read(s1.join("perf-workload.script.txt")) else {
        eprintln!("skipped: ../shared/bundles is absent (no odd perf scripts cut)");
        return;
    };
    let mid = line_starts(&a)[line_starts(&a).len() / 2];
    // A cut frame, CRLF, a second capture appended (its `#` header mid-file), garbage
    // lines, orphan frames, a header without frames whose frames follow a blank line.
    let bodies = [
        a[..mid - 9].to_vec(),
        crlf(&a[..mid]),
        [&a[..mid], b"\n# hostname : vm\nnot a frame\n\n", &a[mid..]].concat(),
        [&a[..], b"\n\n\tffffffff8158e3e1 orphan+0x1 ([kernel.kallsyms])\n"].concat(),
        [
            &a[..mid],
            b"dd 9/9 10.5: 1 cpu-clock:ppp: \n\n\tffffffff81 io_schedule+0x1 ([kernel.kallsyms])\n\n",
            &a[mid..],
        ]
        .concat(),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (k, body) in bodies.iter().enumerate() {
        let what = format!("odd body {k}");
        for step in [1, 13] {
            check_cut(body, &what, mid / 100, step, 8);
        }
        let p = dir.path().join(format!("perf-{k}.script"));
        std::fs::write(&p, body).unwrap();
        assert!(same(&streamed(&p, "perf_script"), &stream::budgets(), 3000), "{what} was not cut");
    }
}
