//! Memory bounds of the timeline (issue 17): a long span keeps the densest part
//! (the incident), never the first week; more devices than the timeline keeps
//! are left out of it with a warning. Built from a real iostat of samples/.

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
