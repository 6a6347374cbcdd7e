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
    let budgets = stream::budgets();
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
