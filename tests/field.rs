//! Value tests on the real files of `../shared/field` (committed by people to
//! public repositories; read in place, never copied here). Each test prints
//! "skipped: ... not found" and passes when the folder is absent (the shared
//! folder is `../shared` or `$IOSIFT_SHARED`, found by `common::support`).

use crate::common;

use iosift::bundle::{Limits, load};
use iosift::pipeline::{Options, Pipeline, run};
use std::path::PathBuf;

/// A file (or folder) of the field corpus, or `None` (with a visible skip) when absent.
fn field(rel: &str) -> Option<PathBuf> {
    let rel = format!("field/{rel}");
    common::support::has(&rel).then(|| common::support::path(&rel))
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
    let first = col.iter().position(iosift::table::Cell::is_some).unwrap();
    let run = col[first..].iter().take_while(|v| v.is_some()).count();
    assert_eq!(run % 1800, 0, "{run}");
    assert_eq!(col[first], Some(0.36 * 1024.0));
}

fn inspect(p: PathBuf) -> iosift::inspect::FileReport {
    let b = load(&[p], &Limits::default()).expect("loads");
    iosift::inspect::inspect_bundle(&b, &Options::default()).remove(0)
}

#[test]
fn chromeos_diskstats_title_line_is_a_known_preamble() {
    let Some(f) = field("diskstats/CRYP70N1CZ-syslogs__chromeos_all_disk_stats.txt") else { return };
    let r = inspect(f);
    assert_eq!(r.format, Some("proc_diskstats"));
    assert_eq!(r.variant.get("devices").map(String::as_str), Some("65"));
    assert_eq!(r.skipped_lines, 0);
    let d = &r.diagnostics[0];
    assert_eq!((d.line, d.kind.as_str()), (2, "tool_message"));
    assert!(d.text.contains("I/O stats for all block devices:"), "{}", d.text);
}

#[test]
fn indented_iostat_banner_keeps_host_kernel_and_date() {
    let Some(f) = field("iostat/congxueyang-iostatplot__iostat3_leading-space.out") else { return };
    let r = inspect(f);
    assert_eq!(r.skipped_lines, 0, "{:?}", r.diagnostics);
    let v = |k: &str| r.variant.get(k).map(String::as_str);
    assert_eq!(
        (v("host"), v("kernel"), v("date_form")),
        (Some("object1"), Some("3.13.0-76-generic"), Some("mm/dd/yyyy"))
    );
    // Every line is indented: `sda` is a device, not a ` sda` group row.
    assert_eq!(v("devices"), Some("sda"));
    assert_eq!(r.records, 4);
}

#[test]
fn dstat_csv_first_time_has_the_year_of_its_date_line() {
    let Some(f) = field("dstat/inada-s-isucon__dstat.csv") else { return };
    let r = inspect(f);
    // `22-08 23:04:21` under `"Date:","22 Aug 2016 23:04:21 JST"`: 2016, +09:00.
    assert_eq!(r.first.as_deref(), Some("2016-08-22T14:04:21Z"));
    assert_eq!(r.last.as_deref(), Some("2016-08-22T14:05:21Z"));
    assert_eq!(r.time_basis, Some("date-line-year+day-time"));
    assert_eq!(r.as_printed.as_ref().map(|a| a[0].as_str()), Some("--08-22T23:04:21"));
    assert_eq!(r.records, 61);
}

#[test]
fn cst_is_ambiguous_and_the_report_asks_for_tz() {
    let Some(f) = field("dstat/jackzones-chart_gruff__dstat2.csv") else { return };
    let p = pipeline(f.clone());
    assert!(p.zone.assumed);
    let w = p.clock_warnings.iter().find(|w| w.contains("ambiguous")).expect("CST warning");
    assert!(w.contains("CST") && w.contains("--tz"), "{w}");
    // With --tz the rows are read in that zone: 05 May 2017 18:05:03 CST (+08:00) = 10:05:03 UTC.
    let opts = Options {
        tz: Some((iosift::clock::ZoneRule::Fixed(8 * 3600), "+08:00".into())),
        ..Default::default()
    };
    let q = run(&load(&[f], &Limits::default()).unwrap(), &opts);
    assert_eq!(q.timeline.t0, 1493978703);
    assert!(!q.clock_warnings.iter().any(|w| w.contains("ambiguous")));
}

#[test]
fn yearless_dstat_text_says_why_it_has_no_table() {
    let Some(f) = field("dstat/sheldu45-Semantic-Network-Wikipedia__dstat.log") else { return };
    let p = pipeline(f);
    assert_eq!(p.files[0].format, Some("dstat_text"));
    let w = p.clock_warnings.iter().find(|w| w.contains("no year")).expect("year-less warning");
    assert!(w.contains("20881 rows"), "{w}");
}

#[test]
fn unrelated_iostat_files_are_left_out_of_the_main_window() {
    let Some(dir) = field("iostat") else { return };
    let t = std::time::Instant::now();
    let p = pipeline(dir);
    // The 3-minute capture of 2016-03-15 09:34 (congxueyang iostat.out) is the main window;
    // six files of other days and years are left out and named (it used to be one week).
    assert_eq!(p.timeline.len, 180);
    let w = p.clock_warnings.iter().find(|w| w.contains("left out")).expect("left-out warning");
    assert!(w.starts_with("6 file(s) left out"), "{w}");
    let left: Vec<&str> = p
        .files
        .iter()
        .zip(&p.notes)
        .filter(|(_, n)| n.as_deref().is_some_and(|n| n.starts_with("left out")))
        .map(|(f, _)| f.base.as_str())
        .collect();
    assert_eq!(left.len(), 6, "{left:?}");
    assert!(left.contains(&"Goose97-postgres_long_commit__iostat.log"));
    assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
}

#[test]
fn cron_date_lines_anchor_vmstat_runs() {
    let Some(f) = field("vmstat/ramindin-shared__vmstat.log") else { return };
    let p = pipeline(f.clone());
    let file = &p.files[0];
    // The 209 `date` lines were bad lines; now each anchors its `vmstat 1 7` run.
    assert_eq!(file.skipped_lines, 0);
    assert_eq!(file.variant.get("date_lines").map(String::as_str), Some("209"));
    let c = p.clocks[0].expect("anchored");
    assert_eq!(c.anchoring.as_str(), "date-line+row-index");
    // `Wed Aug 28 16:02:01 IST 2019` (+05:30, also the bundle's zone) = 10:32:01 UTC.
    assert_eq!(p.zone.offset_s, 19800);
    assert_eq!(p.timeline.t0, 1566988321);
    assert_eq!(c.first, 1566988321.0);
    // 209 runs of 6 one-second rows after the since-boot row (1,251 of them with values).
    let bo = p.timeline.get("vmstat.bo").unwrap();
    assert_eq!(bo.iter().flatten().count(), 1251);
    assert_eq!(&bo[..7], &[Some(22.0), Some(1.0), Some(8.0), Some(3.0), Some(3.0), Some(4.0), None]);
    let r = inspect(f);
    assert_eq!(
        (r.first.as_deref(), r.time_basis),
        (Some("2019-08-28T10:32:01Z"), Some("date-line+row-index"))
    );
}

#[test]
fn pidstat_date_lines_between_runs_are_read() {
    let Some(f) = field("pidstat/ada231asd-nain__pidstat.log") else { return };
    let r = inspect(f);
    // 44 `2025-10-23 13:55:24` lines were bad_time skips; the 7 left are nohup's messages.
    assert_eq!(r.variant.get("date_lines").map(String::as_str), Some("44"));
    assert_eq!(r.skipped_lines, 7);
    assert!(r.diagnostics.iter().all(|d| d.text.starts_with("nohup:")), "{:?}", r.diagnostics);
    assert_eq!(r.records, 708);
}

#[test]
fn iostat_without_t_has_inferred_marked_times() {
    let Some(f) = field("iostat/WOWSCpp-new_test_res__warmup_iostat.txt") else { return };
    let b = load(&[f], &Limits::default()).unwrap();
    let p = run(&b, &Options::default());
    let c = p.clocks[0].expect("placed");
    assert!(c.anchoring.is_inferred());
    assert_eq!((c.anchoring.as_str(), c.uncertainty_s), ("banner-date-midnight+interval", 86400.0));
    let w = p.clock_warnings.iter().find(|w| w.contains("inferred")).expect("inferred-time warning");
    assert!(w.contains("no time stamps"), "{w}");
    // The tables carry the mark: a time_inferred column, true where the file has values.
    let tmp = tempfile::tempdir().unwrap();
    let (written, warnings) = iosift::output::write_tables_with_warnings(
        &b,
        &Options::default(),
        tmp.path(),
        iosift::table::TableFormat::Csv,
    )
    .unwrap();
    assert!(warnings.iter().any(|w| w.contains("inferred")));
    let tl = std::fs::read_to_string(written.iter().find(|w| w.ends_with("timeline.csv")).unwrap()).unwrap();
    let header = tl.lines().next().unwrap();
    assert!(header.ends_with(",time_inferred"), "{header}");
    assert!(tl.lines().nth(1).unwrap().ends_with(",true"));
    let src = written.iter().find(|w| w.file_name().unwrap().to_string_lossy().starts_with("000-")).unwrap();
    let src = std::fs::read_to_string(src).unwrap();
    assert_eq!(src.lines().next(), Some("time,entity,metric,value,interval_s,time_inferred"));
    assert!(iosift::inspect::inspect_bundle(&b, &Options::default())[0].inferred_times);
    // The report says it too.
    let rep = iosift::analyze::analyze(&b, &Options::default());
    let input = &rep.doc.bundle.inputs[0];
    assert_eq!(input.anchored_by, Some("banner-date-midnight+interval"));
    assert!(rep.doc.clock.warnings.iter().any(|w| w.contains("inferred")));
}

#[test]
fn no_wall_time_gives_no_1970_row() {
    let Some(f) = field("proc-meminfo/csm-csci442-proc-snapshot__meminfo.txt") else { return };
    let b = load(&[f], &Limits::default()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let written =
        iosift::output::write_tables(&b, &Options::default(), tmp.path(), iosift::table::TableFormat::Csv)
            .unwrap();
    let tl = std::fs::read_to_string(written.iter().find(|w| w.ends_with("timeline.csv")).unwrap()).unwrap();
    assert_eq!(tl.lines().count(), 1, "{tl}");
    assert!(!tl.contains("1970"));
}
