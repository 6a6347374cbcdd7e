//! Time across a bundle (issue 17): a `03/11/26` date settled day-first by the
//! bundle's other dates, a file's own zone winning over the bundle's (with a
//! warning), a capture across a daylight saving time change read with both
//! offsets, and a reversed `--from`/`--to` refused. Every capture is generated from
//! samples/replica_sql_bound (iostat, vmstat -t and a pt-stalk diskstats with TS
//! lines, all recorded on a UTC host on 2026-12-01 from 19:28:10).

use chrono::{DateTime, NaiveDateTime, TimeZone};
use iosift::bundle::{Limits, load};
use iosift::pipeline::{Options, anchor};
use std::path::{Path, PathBuf};

const CAP: &str = "replica_sql_bound/capture";
const DISKSTATS: &str = "2026_12_01_19_28_08-diskstats";
/// `TS 1796153290.573846657 2026-12-01 19:28:10`: the first TS line of the sample.
const FIRST_TS: i64 = 1_796_153_290;

fn sample(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(CAP).join(name))
        .unwrap()
}

fn folder(files: &[(&str, String)]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("cap");
    std::fs::create_dir(&cap).unwrap();
    for (n, d) in files {
        std::fs::write(cap.join(n), d).unwrap();
    }
    (tmp, cap)
}

/// (first, last) anchored epoch of the file called `name`, and the clock warnings.
fn clock_of(cap: &Path, name: &str) -> ((f64, f64), Vec<String>, String) {
    let b = load(&[cap.to_path_buf()], &Limits::default()).unwrap();
    let a = anchor(&b, &Options::default());
    let i = a.files.iter().position(|f| f.name == name).unwrap();
    let c = a.clocks[i].unwrap_or_else(|| panic!("{name} has no clock"));
    ((c.first, c.last), a.warnings, a.zone.name.clone())
}

/// The sample's iostat as an en_GB host prints it: `01/12/26` (1 December) in the
/// banner and in each `-t` stamp (`01/12/26 19:28:11` for `2026-12-01T19:28:11+0000`).
fn iostat_en_gb() -> String {
    sample("iostat-x-t.txt")
        .lines()
        .map(|l| {
            if l.starts_with("Linux ") {
                l.replace("2026-12-01", "01/12/26")
            } else if let Some(rest) = l.strip_prefix("2026-12-01T").and_then(|r| r.strip_suffix("+0000")) {
                format!("01/12/26 {rest}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_day_first_date_is_settled_by_the_bundles_other_dates() {
    let io = iostat_en_gb();
    assert!(io.contains("\n01/12/26 19:28:11\n"), "the stamps were rewritten");
    // Alone, 01/12/26 is read month-first (C/en_US): 12 January 2026 (a report covers the
    // second before its stamp).
    let (_t, alone) = folder(&[("iostat-x-t.txt", io.clone())]);
    let ((first, _), _, _) = clock_of(&alone, "iostat-x-t.txt");
    let jan12 = chrono::Utc.with_ymd_and_hms(2026, 1, 12, 19, 28, 10).unwrap().timestamp() as f64;
    assert_eq!(first, jan12);
    // With the capture's vmstat -t (ISO dates) and pt-stalk TS lines: 1 December.
    let (_t2, cap) = folder(&[
        ("iostat-x-t.txt", io),
        ("vmstat-t.txt", sample("vmstat-t.txt")),
        (DISKSTATS, sample(DISKSTATS)),
    ]);
    let ((first, _), warnings, _) = clock_of(&cap, "iostat-x-t.txt");
    assert_eq!(first, FIRST_TS as f64, "the second before the first report, 19:28:11 UTC");
    let w = warnings.iter().find(|w| w.contains("day-first")).unwrap_or_else(|| panic!("{warnings:?}"));
    assert!(w.starts_with("iostat-x-t.txt: its date 01/12/26") && w.contains("1 December 2026"), "{w}");
    assert!(w.contains("month-first it would be 12 January 2026"), "{w}");
}

/// The sample's diskstats with each TS line's local time shifted by `f(epoch)` seconds
/// (the epochs stay): the TS lines of a host `offset` away from UTC.
fn diskstats_with(f: impl Fn(i64) -> (i64, i64)) -> String {
    sample(DISKSTATS)
        .lines()
        .map(|l| match l.strip_prefix("TS ").and_then(|r| r.split_once(' ')) {
            Some((epoch, _)) => {
                let (whole, frac) = epoch.split_once('.').unwrap_or((epoch, "0"));
                let (e, off) = f(whole.parse().unwrap());
                let local = DateTime::from_timestamp(e + off, 0).unwrap().naive_utc();
                format!("TS {e}.{frac} {}", local.format("%Y-%m-%d %H:%M:%S"))
            }
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_files_own_zone_wins_over_the_bundles_and_the_disagreement_is_a_warning() {
    // pt-stalk ran with TZ=Europe/Helsinki-like +02:00; vmstat -t says UTC in its header.
    let ts = diskstats_with(|e| (e, 7200));
    assert!(ts.contains("TS 1796153290.573846657 2026-12-01 21:28:10"), "TS lines at +02:00");
    let (_t, cap) = folder(&[("vmstat-t.txt", sample("vmstat-t.txt")), (DISKSTATS, ts)]);
    let ((first, _), warnings, zone) = clock_of(&cap, "vmstat-t.txt");
    assert_eq!(zone, "+02:00");
    // vmstat's `2026-12-01 19:28:10` is UTC, as its header says: the TS line's instant.
    assert_eq!(first, FIRST_TS as f64);
    let w =
        warnings.iter().find(|w| w.starts_with("vmstat-t.txt:")).unwrap_or_else(|| panic!("{warnings:?}"));
    assert!(
        w.contains("says its times are UTC (+00:00)") && w.contains("+02:00") && w.contains("2 h apart"),
        "{w}"
    );
}

#[test]
fn a_capture_across_a_dst_change_is_read_with_both_offsets() {
    // Move the sample to 2026-03-29 00:59:30 UTC: Central Europe goes from +01:00 to
    // +02:00 at 01:00 UTC (02:00 local becomes 03:00), 30 s into the capture.
    let change = chrono::Utc.with_ymd_and_hms(2026, 3, 29, 1, 0, 0).unwrap().timestamp();
    let shift = change - 30 - FIRST_TS;
    let berlin = |e: i64| if e < change { 3600 } else { 7200 };
    let ts = diskstats_with(|e| (e + shift, berlin(e + shift)));
    // vmstat -t rows: each local time moved the same way, CET before the change and CEST after.
    let vm: Vec<String> = sample("vmstat-t.txt")
        .lines()
        .map(|l| {
            let n = l.len();
            match NaiveDateTime::parse_from_str(
                l.get(n.saturating_sub(19)..).unwrap_or(""),
                "%Y-%m-%d %H:%M:%S",
            ) {
                Ok(t) => {
                    let e = t.and_utc().timestamp() + shift;
                    let local = DateTime::from_timestamp(e + berlin(e), 0).unwrap().naive_utc();
                    format!("{}{}", &l[..n - 19], local.format("%Y-%m-%d %H:%M:%S"))
                }
                Err(_) => l.replace(" UTC", " CET"),
            }
        })
        .collect();
    let vm = vm.join("\n");
    assert!(
        vm.contains("2026-03-29 01:59:59") && vm.contains("2026-03-29 03:00:00"),
        "the rows cross the change"
    );
    let rows = vm.lines().count() as f64 - 2.0;
    let (_t, cap) = folder(&[("vmstat-t.txt", vm), (DISKSTATS, ts)]);
    let ((first, last), warnings, zone) = clock_of(&cap, "vmstat-t.txt");
    assert!(zone.starts_with("Europe/"), "{zone}");
    assert_eq!(first, (FIRST_TS + shift) as f64);
    // One row a second: with one offset the rows after 03:00 would sit an hour later.
    assert!(last - first < rows + 5.0, "{} s for {rows} rows", last - first);
    let b = load(std::slice::from_ref(&cap), &Limits::default()).unwrap();
    let p = iosift::pipeline::run(&b, &Options::default());
    assert!(
        p.clock_warnings
            .iter()
            .any(|w| w.contains("daylight saving time change") && w.contains("+01:00 then +02:00")),
        "{:?} / {warnings:?}",
        p.clock_warnings
    );
}

#[test]
fn a_reversed_window_is_a_usage_error_naming_both_times() {
    let cap = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(CAP);
    let tmp = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_iosift"))
        .args(["analyze", cap.to_str().unwrap(), "--from", "+60s", "--to", "+10s", "-o"])
        .arg(tmp.path().join("o"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--from 2026-12-01 19:29:08 UTC is not before --to 2026-12-01 19:28:18 UTC"),
        "{err}"
    );
    assert!(!tmp.path().join("o").exists(), "nothing written");
}

/// The capture's (first, last) instant over every timed file, and the problems of `name`.
fn span_of(cap: &Path, name: &str) -> ((f64, f64), Vec<String>) {
    let b = load(&[cap.to_path_buf()], &Limits::default()).unwrap();
    let a = anchor(&b, &Options::default());
    let span = a
        .clocks
        .iter()
        .flatten()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(s, e), c| (s.min(c.first), e.max(c.last)));
    let f = a.files.iter().find(|f| f.name == name).unwrap();
    (span, f.diagnostics.iter().map(|d| format!("line {}: {}: {}", d.line, d.kind, d.text)).collect())
}

/// Issue 33: one garbled `iostat -t` stamp (the hour's digit, the line cut, a leap second
/// out of place) moved its report ~10-19 h and stretched the 80 s capture to most of a
/// day, without a word. Now the report keeps its place in the series, the span is the
/// clean capture's, and a `bad_time` diagnostic names the file and line.
#[test]
fn a_garbled_iostat_stamp_keeps_its_place_in_the_series() {
    let io = sample("iostat-x-t.txt");
    let files = |io: String| {
        folder(&[
            ("iostat-x-t.txt", io),
            ("vmstat-t.txt", sample("vmstat-t.txt")),
            (DISKSTATS, sample(DISKSTATS)),
        ])
    };
    let (_t, clean) = files(io.clone());
    let (span, diags) = span_of(&clean, "iostat-x-t.txt");
    assert!((78.0..80.0).contains(&(span.1 - span.0)), "{span:?}");
    assert_eq!(diags, Vec::<String>::new());
    let stamp = "\n2026-12-01T19:28:40+0000\n";
    let line = io[..=io.find(stamp).unwrap()].lines().count() + 1;
    for bad in [
        "2026-12-01T09:28:40+0000",
        "2026-12-01T19:28",
        "2026-12-01T23:59:60+0000",
        "2026-12-01T00:28:40+0000",
    ] {
        let (_t, cap) = files(io.replacen(stamp, &format!("\n{bad}\n"), 1));
        let (garbled, diags) = span_of(&cap, "iostat-x-t.txt");
        assert_eq!(garbled, span, "{bad}");
        assert!(
            diags.iter().any(|d| (d.starts_with(&format!("line {line}: bad_time"))
                || d.starts_with(&format!("line {}: bad_time", line + 1)))
                && d.contains("2026-12-01T19:28:40+00:00")),
            "{bad}: {diags:?}"
        );
    }
    // `iosift inspect` shows it with the file and line.
    let (_t, cap) = files(io.replacen(stamp, "\n2026-12-01T09:28:40+0000\n", 1));
    let out =
        std::process::Command::new(env!("CARGO_BIN_EXE_iosift")).arg("inspect").arg(&cap).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let at = text.find("iostat-x-t.txt\n").unwrap_or_else(|| panic!("{text}"));
    let want = format!(
        "line {line}: bad_time: time stamp 2026-12-01T09:28:40+00:00 breaks its series (2026-12-01T19:28:39+00:00 before, 2026-12-01T19:28:41+00:00 after, every 1 s): read as 2026-12-01T19:28:40+00:00"
    );
    assert!(text[at..].contains(&want), "{text}");
    assert!(text[at..].contains("time: 2026-12-01T19:28:10Z .. 2026-12-01T19:29:25Z"), "{text}");
}

/// Issue 33: `--tz -0500`, the form `--help` shows, was taken for a flag (`unexpected
/// argument '-0'`, with the advice to write `-- -0`). Now it is the zone, as are
/// `--display-tz -0500` and the `-1m` of `--from`/`--to`.
#[test]
fn a_negative_offset_is_a_value_of_tz() {
    let (_t, cap) = folder(&[("iostat-x-t.txt", iostat_en_gb())]);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_iosift"))
        .args(["inspect", "--json", "--tz", "-0500", "--display-tz", "-0500", "--from", "-1m", "--to", "-0s"])
        .arg(&cap)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = &v["files"][0];
    // `01/12/26 19:28:11` (12 January, month-first alone) at -05:00 is 00:28:11 UTC the next
    // day; the first report covers the second before it.
    assert_eq!(f["first"], "2026-01-13T00:28:10Z", "{v}");
    assert_eq!(f["zone"], "-0500 (from --tz)", "{v}");
}

/// The sample's iostat as `iostat -x -t 60` in the C locale on a host in Europe/Berlin
/// from 2026-10-25 02:30 CEST to 03:30 CET: 121 reports a minute apart, their stamps
/// (`10/25/26 02:30:00`) local times that repeat 02:00-02:59 when DST ends at 03:00 CEST.
fn iostat_across_dst_end() -> (String, i64) {
    let io = sample("iostat-x-t.txt");
    let lines: Vec<&str> = io.lines().collect();
    let body = lines[4..lines[4..].iter().position(|l| l.starts_with("2026-12-01T")).unwrap() + 4].join("\n");
    let first = chrono::Utc.with_ymd_and_hms(2026, 10, 25, 0, 30, 0).unwrap().timestamp();
    let change = chrono::Utc.with_ymd_and_hms(2026, 10, 25, 1, 0, 0).unwrap().timestamp();
    let mut out = format!("{}\n\n", lines[0].replace("2026-12-01", "10/25/26"));
    for k in 0..121 {
        let e = first + 60 * k;
        let local =
            DateTime::from_timestamp(e + if e < change { 7200 } else { 3600 }, 0).unwrap().naive_utc();
        out.push_str(&format!("{}\n{body}\n", local.format("%m/%d/%y %H:%M:%S")));
    }
    (out, first)
}

/// Issue 33: across the end of DST the repeated hour was placed an hour off: its second
/// run (02:00-02:59 CET) read as the first (CEST), on top of the reports already there,
/// the span an hour too long and not a word with `--tz Europe/Berlin`. Now the series'
/// order decides: the first run of the hour is the earlier occurrence; after the stamps go
/// back, the later. Every report has its own minute, the span is the 2 h of the capture.
#[test]
fn the_repeated_dst_hour_is_placed_by_the_series_order() {
    let (io, first) = iostat_across_dst_end();
    assert!(io.contains("\n10/25/26 02:59:00\n") && io.contains("\n10/25/26 03:30:00\n"));
    assert_eq!(io.matches("\n10/25/26 02:30:00\n").count(), 2, "02:30 twice");
    let (_t, cap) = folder(&[("iostat-x-t.txt", io)]);
    let b = load(&[cap], &Limits::default()).unwrap();
    let opts = Options {
        tz: Some((iosift::clock::parse_tz("Europe/Berlin").unwrap(), "Europe/Berlin".into())),
        ..Options::default()
    };
    let a = anchor(&b, &opts);
    let c = a.clocks[0].unwrap();
    assert_eq!((c.first, c.last), (first as f64, (first + 120 * 60) as f64));
    let p = iosift::pipeline::run(&b, &opts);
    let secs = p.timeline.seconds_covered("iostat-x-t.txt");
    // The minute of each report after the first (which starts the series): none shared.
    assert_eq!(secs, 120 * 60, "every report its own minute: {secs} s covered");
    assert!(!p.clock_warnings.iter().any(|w| w.contains("daylight")), "{:?}", p.clock_warnings);
}

/// Issue 33: `--tz` silently won over what the capture says. Now a clock warning names
/// both zones, their offsets and how far apart they are; none when they agree.
#[test]
fn a_tz_that_disagrees_with_the_capture_is_a_warning() {
    let warnings = |files: &[(&str, String)], tz: &str| {
        let (_t, cap) = folder(files);
        let b = load(&[cap], &Limits::default()).unwrap();
        let opts = Options {
            tz: Some((iosift::clock::parse_tz(tz).unwrap(), tz.to_string())),
            ..Options::default()
        };
        iosift::pipeline::run(&b, &opts)
            .clock_warnings
            .into_iter()
            .filter(|w| w.starts_with("--tz"))
            .collect::<Vec<_>>()
    };
    // pt-stalk TS lines at +02:00 (epoch vs local time).
    let ts = [(DISKSTATS, diskstats_with(|e| (e, 7200)))];
    let w = warnings(&ts, "UTC");
    assert_eq!(
        w,
        [
            "--tz UTC (+00:00) disagrees with the capture, which says +02:00 (source: pt-stalk TS epoch vs local time): they are 2 h apart; local times were read in --tz UTC"
        ]
    );
    assert_eq!(warnings(&ts, "+02:00"), Vec::<String>::new());
    // Europe/Berlin in December is +01:00: an hour from the TS lines.
    let w = warnings(&ts, "Europe/Berlin");
    assert!(w.len() == 1 && w[0].contains("(+01:00)") && w[0].contains("1 h apart"), "{w:?}");
    // vmstat -t says UTC in its header.
    let w = warnings(&[("vmstat-t.txt", sample("vmstat-t.txt"))], "-0500");
    assert!(
        w.len() == 1
            && w[0].contains("says UTC (+00:00) (source: vmstat -t header)")
            && w[0].contains("5 h apart"),
        "{w:?}"
    );
    // Nothing in the capture states a zone: nothing to disagree with.
    assert_eq!(warnings(&[("iostat-x-t.txt", iostat_en_gb())], "-0500"), Vec::<String>::new());
}
