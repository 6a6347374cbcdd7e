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
