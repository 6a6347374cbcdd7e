//! The parse in pieces on every core (`pieces.rs`) against the one-thread streamed parse
//! (`stream.rs`), on the real samples cut at every boundary and in the middle of records.

use super::{pieces, stream};
use crate::bundle::Streamed;

/// The streamed one-thread parse and the parse in pieces of at least `piece` bytes agree.
fn same(st: &Streamed, budgets: &iosift_parsers::Budgets, piece: usize) -> bool {
    let (_, one) = stream::parse_within(st, 1 << 20, stream::MAX_LINE, budgets).expect("a streamed format");
    let Some(cut) = pieces::parse_with(st, budgets, piece) else { return false };
    let at = format!("{} (pieces of {piece} bytes)", st.path.display());
    assert_eq!(format!("{:?}", cut.value), format!("{:?}", one.value), "{at}");
    assert_eq!(cut.diagnostics, one.diagnostics, "{at}");
    assert_eq!((cut.lines, cut.skipped_lines), (one.lines, one.skipped_lines), "{at}");
    true
}

/// The real series of `samples/` that are cut in pieces (iostat, pidstat, vmstat, pt-stalk
/// meminfo, procvmstat, diskstats), each with its format.
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
                _ if stem.starts_with("pidstat") && !stem.contains("json") => "pidstat",
                _ if stem.starts_with("vmstat") => "vmstat",
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
    let budgets = stream::budgets();
    let files = series_files();
    let mut cut = 0;
    // 1 byte: a piece per block (every `TS` line a cut); the others cut batches mid-block.
    for (path, format) in files.iter().filter(|(_, f)| f.starts_with("proc_")).take(9) {
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
        let bodies =
            [text[..mid].to_vec(), text[..mid + 7].to_vec(), crlf, bad_ts, [&text[..], b"\n \n"].concat()];
        for (k, body) in bodies.iter().enumerate() {
            let p = dir.path().join(format!("{k}-{}", path.file_name().unwrap().to_string_lossy()));
            std::fs::write(&p, body).unwrap();
            let st = streamed(&p, format);
            // No budget, and one small enough that the series is thinned several times.
            for snapshots in [stream::TS_SNAPSHOT_BUDGET, 20_000] {
                let budgets = iosift_parsers::Budgets { snapshots, ..stream::budgets() };
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
    assert!(!same(&streamed(&p, format), &stream::budgets(), 1));
}

#[test]
fn iostats_in_pieces_equal_the_one_thread_parse() {
    let budgets = stream::budgets();
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
    let files: Vec<_> = series_files().into_iter().filter(|(p, _)| p.ends_with("iostat-x-t.txt")).collect();
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
        for iostat_rows in [stream::IOSTAT_ROW_BUDGET, 30_000] {
            let budgets = iosift_parsers::Budgets { iostat_rows, ..stream::budgets() };
            for piece in [1, 2000, 20_000] {
                assert!(same(&st, &budgets, piece), "{} was not cut", p.display());
            }
        }
    }
}

/// Files of a parser fixture folder (`parsers/tests/fixtures/<dir>`), but its README.
fn fixtures(dir: &str) -> Vec<std::path::PathBuf> {
    let at = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/parsers/tests/fixtures")).join(dir);
    let mut out: Vec<_> = std::fs::read_dir(at)
        .unwrap()
        .flatten()
        .map(|f| f.path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    out.sort();
    out
}

/// The files of `../shared/bundles` named `name` (none, said visibly, when it is absent).
fn shared(name: &str) -> Vec<std::path::PathBuf> {
    let at = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/bundles"));
    let Ok(cases) = std::fs::read_dir(at) else {
        eprintln!("skipped: ../shared/bundles is absent (its {name} files are not cut)");
        return Vec::new();
    };
    let mut out: Vec<_> = cases.flatten().map(|c| c.path().join(name)).filter(|p| p.is_file()).collect();
    out.sort();
    out
}

/// `text` with every `\n` made `\r\n`.
fn crlf(text: &[u8]) -> Vec<u8> {
    text.iter().flat_map(|&b| if b == b'\n' { vec![b'\r', b'\n'] } else { vec![b] }).collect()
}

/// Lines of `path` where a pidstat may be cut.
fn headers(path: &std::path::Path) -> usize {
    use iosift_parsers::pieces::Pieces;
    let p = iosift_parsers::pidstat::pieces::pieces(0);
    std::fs::read(path).unwrap().split(|&b| b == b'\n').filter(|l| p.is_boundary(l)).count()
}

#[test]
fn pidstats_in_pieces_equal_the_one_thread_parse() {
    let budgets = stream::budgets();
    let mut files: Vec<_> = series_files().into_iter().filter(|(_, f)| *f == "pidstat").step_by(6).collect();
    // Every layout the parser reads (`-d`, `-h -t -u -r ...`, `-H`, `-U`, `-l`, locales, colours).
    files.extend(fixtures("pidstat").into_iter().map(|p| (p, "pidstat")));
    files.extend(
        shared("pidstat-d-t-h.txt").into_iter().chain(shared("pidstat-d.txt")).map(|p| (p, "pidstat")),
    );
    let mut alone = 0;
    for (path, format) in &files {
        let st = streamed(path, format);
        // 1 byte: a piece per report (every header a cut); the other cuts mid-report.
        for piece in [1, st.len as usize / 3] {
            if !same(&st, &budgets, piece) {
                // One header (`pidstat -d` without an interval): nowhere to cut.
                assert!(headers(path) < 2, "{} was not cut", path.display());
                alone += 1;
            }
        }
    }
    assert!(alone <= 2, "{alone} parses were not cut");
}

#[test]
fn odd_and_merged_pidstats_in_pieces_equal_the_one_thread_parse() {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<_> =
        series_files().into_iter().filter(|(p, _)| p.ends_with("pidstat-d-t-h.txt")).collect();
    let (a, b) = (std::fs::read(&files[0].0).unwrap(), std::fs::read(&files[1].0).unwrap());
    let fx = |name: &str| {
        std::fs::read(format!("{}/parsers/tests/fixtures/pidstat/{name}", env!("CARGO_MANIFEST_DIR")))
            .unwrap()
    };
    let (de, multi) = (fx("de_DE_d.txt"), fx("C_urdwvRs.txt"));
    let mid = a.len() / 2;
    // Two captures in one file (a second banner mid-file), one cut inside a row, a `date`
    // line and a bad row between reports, tables of other layouts after `-h` reports.
    let mut dated = a[..mid].to_vec();
    let at = mid + a[mid..].windows(2).position(|w| w == b"\n#").unwrap() + 1;
    dated.truncate(at);
    dated.extend_from_slice(b"2025-10-23 13:55:24\n19:37:31 0 x\n");
    dated.extend_from_slice(&a[at..]);
    let bodies = [
        [&a[..], &b[..]].concat(),
        [&de[..], &a[..], &multi[..], &de[..]].concat(),
        a[..mid].to_vec(),
        crlf(&a),
        dated,
        [&multi[..], &multi[..]].concat(),
    ];
    for (k, body) in bodies.iter().enumerate() {
        let p = dir.path().join(format!("pidstat-{k}.txt"));
        std::fs::write(&p, body).unwrap();
        let st = streamed(&p, "pidstat");
        // No budget, and one small enough that reports are merged several times.
        for pidstat_rows in [stream::PIDSTAT_ROW_BUDGET, 40_000] {
            let budgets = iosift_parsers::Budgets { pidstat_rows, ..stream::budgets() };
            for piece in [1, 2000, 20_000].into_iter().filter(|&n| n < body.len() / 2) {
                assert!(same(&st, &budgets, piece), "{} was not cut", p.display());
            }
        }
    }
}

/// `vmstat -a` (an `inact active` header before a piece names its rows) and files of fewer
/// than two procs lines are parsed on one thread.
fn vmstat_alone(text: &[u8]) -> bool {
    use iosift_parsers::pieces::Pieces;
    let p = iosift_parsers::vmstat::pieces::pieces();
    let procs = text.split(|&b| b == b'\n').filter(|l| p.is_boundary(l)).count();
    let v = iosift_parsers::vmstat::parse(text).value;
    procs < 2 || v.layouts.contains(&"active (-a)") || v.unit != 'K'
}

#[test]
fn vmstats_in_pieces_equal_the_one_thread_parse() {
    let budgets = stream::budgets();
    let mut files: Vec<_> = series_files().into_iter().filter(|(_, f)| *f == "vmstat").step_by(8).collect();
    // Every layout the parser reads (`-t`, no stamps, `-w`, `-a`, `-S`, `-s`, `-d`, locales).
    files.extend(fixtures("vmstat").into_iter().map(|p| (p, "vmstat")));
    files.extend(shared("vmstat-t.txt").into_iter().map(|p| (p, "vmstat")));
    let (mut cut, mut alone) = (0, 0);
    for (path, format) in &files {
        let st = streamed(path, format);
        for piece in [1, st.len as usize / 3] {
            if same(&st, &budgets, piece) {
                cut += 1;
            } else {
                assert!(vmstat_alone(&std::fs::read(path).unwrap()), "{} was not cut", path.display());
                alone += 1;
            }
        }
    }
    assert!(cut >= 2 * files.len() - 12 && alone <= 12, "{cut} cut, {alone} not, of {} files", files.len());
}

#[test]
fn odd_and_merged_vmstats_in_pieces_equal_the_one_thread_parse() {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<_> = series_files().into_iter().filter(|(_, f)| *f == "vmstat").collect();
    let (a, b) = (std::fs::read(&files[0].0).unwrap(), std::fs::read(&files[1].0).unwrap());
    let fx = |name: &str| {
        std::fs::read(format!("{}/parsers/tests/fixtures/vmstat/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    };
    let (untimed, de, aw, s) = (fx("C_Sm.txt"), fx("de_DE_t.txt"), fx("C_aw.txt"), fx("C_SM_s.txt"));
    let berlin = fx("TZ_t.txt");
    let mid = a.len() / 2;
    // Runs appended by a cron loop (`date; vmstat 1 2 >> log`), with and without blank
    // lines between; a cut row; a bad row; a second time zone (the first header's is the
    // file's); `-a` and `-s` after plain runs.
    let date = b"Wed Aug 28 16:02:01 IST 2019\n".as_slice();
    let bodies = [
        [&a[..], &b[..]].concat(),
        [date, &untimed[..], date, &untimed[..], b"\n", date, &untimed[..]].concat(),
        [&de[..], b"\n", &a[..mid], b"1 2 3\n", &a[mid..], b"\n", &de[..], &berlin[..]].concat(),
        a[..mid].to_vec(),
        crlf(&a),
        [&a[..], b"\n", &s[..], &a[..]].concat(),
        [&a[..], b"\n", &aw[..], &a[..]].concat(),
    ];
    for (k, body) in bodies.iter().enumerate() {
        let p = dir.path().join(format!("vmstat-{k}.txt"));
        std::fs::write(&p, body).unwrap();
        let st = streamed(&p, "vmstat");
        for piece in [1, 2000, 20_000].into_iter().filter(|&n| n < body.len() / 2) {
            // Rows after `-S M -s` lines or an `-a` header: the one-thread parse when a piece
            // starts there (every row is a cut with pieces of 1 byte); equal when cut.
            let cut = same(&st, &stream::budgets(), piece);
            assert!(cut == (k < 5) || piece > 1, "{} (pieces of {piece}): cut {cut}", p.display());
        }
    }
}

#[path = "pieces_perf_tests.rs"]
mod perf;
