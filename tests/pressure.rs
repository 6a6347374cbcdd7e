//! `/proc/pressure/io` on the timeline, on the real capture
//! `samples/psi_fsync_copy` (the format added as the example of
//! docs/architecture.md): stall shares from the file's own totals.

use iosift::analyze::analyze;
use iosift::bundle::{Limits, load};
use iosift::pipeline::Options;
use iosift::table::Col;
use iosift::table::columns::{PsiKind, PsiResource};
use std::path::PathBuf;

#[test]
fn io_pressure_peaks_in_the_direct_copy_second() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("samples/psi_fsync_copy/capture");
    let b = load(&[dir], &Limits::default()).expect("bundle loads");
    let r = analyze(&b, &Options::default());
    let input = r.doc.bundle.inputs.iter().find(|i| i.path.ends_with("-pressure-io")).expect("pressure file");
    assert_eq!(input.format, Some("proc_pressure"));
    assert_eq!(input.records, 30);
    assert_eq!(input.skipped_lines, 0);
    let tl = &r.timeline;
    let some = tl.get(&Col::Psi(PsiResource::Io, PsiKind::SomePct)).expect("psi.io.some_pct");
    let full = tl.get(&Col::Psi(PsiResource::Io, PsiKind::FullPct)).expect("psi.io.full_pct");
    let (row, peak) = some
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.map(|v| (i, v)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap();
    // truth.json: 66.3 % some / 62.1 % full in the timeline second 23:20:35 (the direct copy).
    assert!((peak - 66.3).abs() < 0.1, "some peak {peak}");
    assert!((full[row].get().unwrap() - 62.1).abs() < 0.1, "full at the peak {:?}", full[row]);
    let at = iosift::clock::epoch_rfc3339(tl.epoch(row) as f64).unwrap();
    assert_eq!(at, "2026-12-01T23:20:35Z");
    // At rest before the copy: no stall.
    assert_eq!(some[0], Some(0.0));
}
