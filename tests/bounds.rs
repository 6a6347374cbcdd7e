//! Memory bounds of the timeline (issue 17): a long span keeps the densest part
//! (the incident), never the first week; more devices than the timeline keeps
//! are left out of it with a warning. Built from a real iostat of samples/.
//! Bounds of the streamed reader (issue 33): a line is capped (a run of NULs is one
//! diagnostic, under an address-space limit), streamed files count against
//! `--max-bytes`, a file still being written is read up to its size when listed.

use crate::common;

use iosift::analyze::analyze;
use iosift::bundle::{Limits, load};
use iosift::model::Report;
use iosift::pipeline::Options;

/// The iostat (`-x -t`, ISO stamps) of the mariadb_fsync_durable sample.
fn iostat() -> String {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/mariadb_fsync_durable/capture/iostat-x-t.txt");
    std::fs::read_to_string(p).unwrap()
}

fn run(files: &[(&str, String)]) -> Report {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let b = load(&[dir.path().to_path_buf()], &Limits::default()).unwrap();
    analyze(&b, &Options::default())
}

#[test]
fn an_old_run_30_days_earlier_in_the_same_file_keeps_the_incident() {
    let io = iostat();
    let old = io.replace("2026-11-29T", "2026-10-30T");
    let r = run(&[("iostat-x-t.txt", format!("{old}\n{io}"))]);
    let tl = &r.timeline;
    // The incident's seconds (2026-11-29T21:10:19Z on) are in the timeline, the old run is not.
    let incident = 1_795_986_619;
    // An hour before it is kept for the intervals of the first rates (up to an hour).
    assert!(
        tl.t0 <= incident && tl.t0 >= incident - 3_700,
        "timeline starts at {}: {:?}",
        tl.t0,
        r.doc.clock.warnings
    );
    assert!(tl.len < 2 * 3600, "timeline of {} s", tl.len);
    let w: Vec<f64> = tl.get("dev.vda.w_bytes_s").unwrap().iter().flatten().collect();
    assert!(w.len() > 50, "{} seconds of writes", w.len());
    let warn =
        r.doc.clock.warnings.iter().find(|w| w.contains("densest part")).expect("a densest-part warning");
    assert!(warn.contains("spans 30.0 days") && warn.contains("2026-11-29T21:10:"), "{warn}");
}

#[test]
fn devices_beyond_the_busiest_64_are_left_out_with_a_warning() {
    let io = iostat();
    let mut text = String::new();
    for line in io.split_inclusive('\n') {
        text.push_str(line);
        if let Some(rest) = line.strip_prefix("vda ") {
            // 199 more devices with vda's numbers (named after it: vda wins the ties).
            for k in 0..199 {
                text.push_str(&format!("x{k:03}{rest}"));
            }
        }
    }
    let r = run(&[("iostat-x-t.txt", text)]);
    let devices: std::collections::BTreeSet<&str> =
        r.timeline.columns.keys().filter_map(|k| k.strip_prefix("dev.")?.split('.').next()).collect();
    assert_eq!(devices.len(), 64, "{devices:?}");
    assert!(devices.contains("vda"));
    let warn = r.doc.clock.warnings.iter().find(|w| w.contains("busiest")).expect("a device warning");
    assert!(warn.starts_with("200 devices: the timeline and charts keep the 64 busiest"), "{warn}");
    assert!(warn.contains("the other 136"), "{warn}");
}

/// The sample's iostat reports, cycled and stamped `gap` seconds apart from epoch `from`,
/// `n` of them (a long capture made coarsely, as `iostat -x -t 600` over a month prints),
/// with the `wkB/s` of each report.
fn restamped_iostat(n: usize, gap: i64, from: i64) -> (String, Vec<f64>) {
    let io = iostat();
    let mut blocks: Vec<&str> = io.split("\n2026-11-29T").skip(1).collect();
    // Drop each block's own stamp line (`21:10:19+0000`): the new one replaces it.
    blocks.iter_mut().for_each(|b| *b = b.split_once('\n').map_or("", |x| x.1));
    let banner = io.split("\n2026-11-29T").next().unwrap();
    let (mut text, mut wkb) = (format!("{banner}\n"), Vec::new());
    for k in 0..n {
        let block = blocks[k % blocks.len()];
        let stamp = chrono::DateTime::from_timestamp(from + k as i64 * gap, 0).unwrap();
        text.push_str(&format!("{}\n{block}", stamp.format("%Y-%m-%dT%H:%M:%S+0000")));
        let vda = block.lines().find(|l| l.starts_with("vda ")).unwrap();
        wkb.push(vda.split_whitespace().nth(8).unwrap().parse().unwrap());
    }
    (text, wkb)
}

#[test]
fn a_month_sampled_every_ten_minutes_is_binned_in_ten_minute_rows_and_keeps_every_byte() {
    // From 2026-11-01T00:00:00Z.
    let (text, wkb) = restamped_iostat(30 * 144, 600, 1_793_491_200);
    let r = run(&[("iostat-x-t.txt", text)]);
    let tl = &r.timeline;
    assert_eq!((tl.bin(), r.doc.clock.bin_s), (600, 600), "{:?}", r.doc.clock.warnings);
    // The whole month, one row per report (the first report's rate covers the 600 s before
    // it), and the row of the last report's own second, as in 1 s rows.
    assert_eq!(tl.len, wkb.len() + 1);
    assert_eq!(tl.t0, 1_793_491_200 - 600);
    let warn = r.doc.clock.warnings.iter().find(|w| w.contains("rows of 600 s")).expect("a bin warning");
    assert!(warn.contains("spans 30.0 days") && warn.contains("every 600 s or more"), "{warn}");
    assert!(!r.doc.clock.warnings.iter().any(|w| w.contains("densest part")));
    // Every byte the reports state is in the timeline: each row is its report's wkB/s.
    let w = tl.get("dev.vda.w_bytes_s").unwrap();
    for (row, k) in [(0, 0), (1, 1), (74, 74), (4319, 4319)] {
        assert_eq!(w[row].get(), Some(wkb[k] * 1024.0), "row {row}");
    }
    let stated: f64 = wkb.iter().map(|k| k * 1024.0 * 600.0).sum();
    let binned: f64 = w.iter().flatten().map(|b| b * tl.bin() as f64).sum();
    assert!((binned - stated).abs() <= 1e-9 * stated, "{binned} vs {stated}");
    // The burst rules need 1 s rows and say so; the utilisation rule counts seconds.
    let checked = |id: &str| r.doc.checked.iter().find(|c| c.rule == id);
    for id in ["periodic_write_bursts", "mmap_large_folio_writeback"] {
        let c = checked(id).unwrap_or_else(|| panic!("{id} not checked"));
        assert!(
            c.outcome == "skipped" && c.missing.iter().any(|m| m.contains("one-second timeline rows")),
            "{c:?}"
        );
    }
    let sat = checked("device_saturation").expect("device_saturation passed");
    let reason = sat.reason.as_deref().unwrap_or_default();
    assert!(reason.ends_with(&format!("of {} seconds", 30 * 86_400)), "{reason}");
}

#[test]
fn a_month_with_one_second_runs_keeps_its_densest_part_at_one_second() {
    // The same month, plus an hour of 1 s reports after it: binning would average the
    // hour away, so the timeline keeps the densest part at 1 s rows.
    let (coarse, _) = restamped_iostat(30 * 144, 600, 1_793_491_200);
    let (fine, _) = restamped_iostat(3600, 1, 1_793_491_200 + 31 * 86_400);
    let fine = fine.split_once("\n\n").unwrap().1;
    let r = run(&[("iostat-x-t.txt", format!("{coarse}\n{fine}"))]);
    assert_eq!(r.timeline.bin(), 1);
    let hour = 1_793_491_200 + 31 * 86_400;
    assert!(
        r.timeline.t0 <= hour && r.timeline.epoch(r.timeline.len - 1) >= hour + 3_599,
        "t0 {}",
        r.timeline.t0
    );
    let w = r.timeline.get("dev.vda.w_bytes_s").unwrap();
    let fine_rows = (0..r.timeline.len).filter(|&i| r.timeline.epoch(i) >= hour && w[i].is_some()).count();
    assert!(fine_rows >= 3_590, "{fine_rows} rows of the 1 s hour");
    assert!(r.doc.clock.warnings.iter().any(|w| w.contains("densest part")), "{:?}", r.doc.clock.warnings);
}

const BIN: &str = env!("CARGO_BIN_EXE_iosift");

/// Lines of the sample vmstat (`common::vmstat_text(1)`).
const VMSTAT_LINES: usize = 83;

#[test]
fn a_run_of_nuls_in_a_streamed_file_is_one_diagnostic_not_an_abort() {
    // 300 MB of NULs (a hole a crashed writer left) between two runs of vmstat: the
    // line buffer doubled on the endless line until the allocation aborted the process.
    let Some(mut limited) = common::address_space_limited(300 << 20, BIN) else {
        println!("skipped: prlimit not found");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("cap");
    std::fs::create_dir(&cap).unwrap();
    let tail = [b"\n".as_slice(), &common::vmstat_text(1)].concat();
    common::with_hole(&cap.join("vmstat-t.txt"), &common::vmstat_text(12), 300_000_000, &tail);
    let o = limited.args(["inspect", "--json"]).arg(&cap).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "no abort (134): {err}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let f = &v["files"][0];
    assert!(f["variant"]["streamed"].is_string(), "{f}");
    // Every report of the 13 runs, those after the hole too; one line skipped, one diagnostic.
    assert_eq!((f["records"].as_u64(), f["skipped_lines"].as_u64()), (Some(13 * 75), Some(1)), "{f}");
    assert_eq!(f["lines"].as_u64(), Some(13 * VMSTAT_LINES as u64 + 1));
    let d = &f["diagnostics"];
    assert_eq!(d.as_array().map(Vec::len), Some(1), "{d}");
    assert_eq!(d[0]["line"].as_u64(), Some(12 * VMSTAT_LINES as u64 + 1));
    assert_eq!(
        d[0]["text"],
        "line of 300000000 bytes, longer than the 16777216 bytes a line may have: skipped"
    );
}

#[test]
fn streamed_files_count_against_max_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    // Plain: 17 MiB on disk (streamed from 16 MiB on), past a 16 MiB limit.
    let plain = tmp.path().join("plain");
    std::fs::create_dir(&plain).unwrap();
    let head = common::vmstat_text(12);
    common::with_hole(&plain.join("vmstat-t.txt"), &head, (17 << 20) - head.len() as u64 - 1, b"\n");
    let limits = |max: u64| Limits { max_total_bytes: max, ..Limits::default() };
    match load(std::slice::from_ref(&plain), &limits(16 << 20)) {
        Err(iosift::bundle::BundleError::Limit(m)) => assert_eq!(
            m,
            "vmstat-t.txt: 17825792 bytes would pass the total size limit of 16777216 bytes (raise with --max-bytes)"
        ),
        other => panic!("{other:?}"),
    }
    let b = load(std::slice::from_ref(&plain), &limits(18 << 20)).unwrap();
    assert!(b.files[0].stream.is_some());
    // The bytes it counts leave less for the files after it.
    std::fs::write(plain.join("x-vmstat.txt"), &head).unwrap();
    match load(std::slice::from_ref(&plain), &limits((17 << 20) + 1000)) {
        Err(iosift::bundle::BundleError::Limit(m)) => assert!(m.starts_with("x-vmstat.txt: "), "{m}"),
        other => panic!("{other:?}"),
    }
    // Gzipped: 16 MiB compressed (stored), 24 MiB decompressed, past a 20 MiB limit.
    use flate2::{Compression, write::GzEncoder};
    use std::io::Write;
    let gz = |level: Compression, data: &[u8]| {
        let mut e = GzEncoder::new(Vec::new(), level);
        e.write_all(data).unwrap();
        e.finish().unwrap()
    };
    let packed = tmp.path().join("gz");
    std::fs::create_dir(&packed).unwrap();
    let members = [
        gz(Compression::default(), &head),
        gz(Compression::none(), &vec![b'\n'; 16 << 20]),
        gz(Compression::default(), &vec![b'\n'; 8 << 20]),
    ]
    .concat();
    assert!(members.len() > 16 << 20 && members.len() < 17 << 20, "{}", members.len());
    std::fs::write(packed.join("vmstat-t.txt.gz"), &members).unwrap();
    match load(std::slice::from_ref(&packed), &limits(20 << 20)) {
        Err(iosift::bundle::BundleError::Limit(m)) => assert_eq!(
            m,
            "vmstat-t.txt.gz: decompressing would pass the total size limit (20971520 bytes left of 20971520; raise with --max-bytes)"
        ),
        other => panic!("{other:?}"),
    }
    let b = load(&[packed], &limits(25 << 20)).unwrap();
    assert!(b.files[0].stream.as_ref().is_some_and(|s| s.gz), "{:?}", b.files[0].stream);
}

#[test]
fn a_file_still_being_written_is_read_up_to_its_size_when_listed() {
    // A live capture: written on after iosift listed it (here 64 lines of 1 MiB, sparse).
    // Read to its end whatever it had become, a file written faster than it is read was
    // never finished.
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("cap");
    std::fs::create_dir(&cap).unwrap();
    let file = cap.join("vmstat-t.txt");
    let head = common::vmstat_text(12);
    let listed: u64 = 17 << 20;
    common::with_hole(&file, &head, listed - head.len() as u64 - 1, b"\n");
    let b = load(&[cap], &Limits::default()).unwrap();
    assert!(b.files[0].stream.is_some());
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut f = std::fs::OpenOptions::new().write(true).open(&file).unwrap();
        for _ in 0..64 {
            f.seek(SeekFrom::End((1 << 20) - 1)).unwrap();
            f.write_all(b"\n").unwrap();
        }
    }
    let a = iosift::pipeline::anchor(&b, &Options::default());
    let f = &a.files[0];
    assert_eq!(f.records, 12 * 75);
    // The head, the hole's line (over the line cap), nothing written after the listing.
    assert_eq!(f.lines, 12 * VMSTAT_LINES + 1);
    let last = f.diagnostics.last().unwrap();
    assert_eq!(last.text, format!("grew while it was read: its first {listed} bytes are analyzed"));
    assert_eq!(f.diagnostics.len(), 2, "{:?}", f.diagnostics);
}
