//! Value tests on the real files of `../shared/field` (committed by people to
//! public repositories; read in place, never copied here). Each test prints
//! "skipped: ... not found" and passes when the folder is absent. The folder
//! is found as `$IOSIFT_SHARED/field` or `../shared/field`.

use iosift::bundle::{Limits, load};
use iosift::pipeline::{Options, Pipeline, run};
use std::path::PathBuf;

/// A file of the field corpus, or `None` (with a visible skip) when absent.
fn field(rel: &str) -> Option<PathBuf> {
    let root = std::env::var_os("IOSIFT_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared")));
    let p = root.join("field").join(rel);
    if p.is_file() || p.is_dir() {
        Some(p)
    } else {
        eprintln!("skipped: {} not found (CI and developers have ../shared)", p.display());
        None
    }
}

fn pipeline(p: PathBuf) -> Pipeline {
    run(&load(&[p], &Limits::default()).expect("loads"), &Options::default())
}

/// Seconds of the timeline holding a value from the file, and the timeline's length.
fn coverage(p: &Pipeline) -> (usize, usize) {
    let name = &p.files[0].name;
    (p.timeline.seconds_covered(name), p.timeline.len)
}

#[test]
fn pidstat_h_rows_cover_their_60_s_interval() {
    let Some(f) = field("pidstat/mw2q-monetdb-power-100g__pidstat.txt") else { return };
    let p = pipeline(f);
    let (covered, len) = coverage(&p);
    // 41 reports about 60 s apart (1448481504 .. 1448483905) plus the first interval.
    assert_eq!(len, 2462);
    assert!(covered * 10 >= len * 9, "{covered} of {len} seconds");
    assert_eq!(covered, 2461);
    // The first report (epoch 1448481504) covers the typical (median) gap before it.
    assert_eq!(p.timeline.t0, 1448481504 - 60);
}

#[test]
fn dstat_5_s_rows_cover_their_interval() {
    let Some(f) = field("dstat/jackzones-chart_gruff__dstat2.csv") else { return };
    let p = pipeline(f);
    let (covered, len) = coverage(&p);
    assert!(covered * 10 >= len * 9, "{covered} of {len} seconds");
    assert_eq!((covered, len), (75, 76));
}

#[test]
fn pidstat_30_minute_header_interval_is_spread() {
    let Some(f) = field("pidstat/ada231asd-nain__pidstat.log") else { return };
    let p = pipeline(f);
    // 10:55:29 AM row under a 10:25:29 AM header: 1800 s covered by one rate.
    let col = p.timeline.get("cat.other.w_bytes_s").expect("pidstat writes");
    let first = col.iter().position(Option::is_some).unwrap();
    let run = col[first..].iter().take_while(|v| v.is_some()).count();
    assert_eq!(run % 1800, 0, "{run}");
    assert_eq!(col[first], Some(0.36 * 1024.0));
}
