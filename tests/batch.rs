//! `iosift batch` over the shared bundles (overview rows, determinism) and a
//! bundle with planted hostile files that still yields the good files' findings.

use crate::common;

use iosift::bundle::{Limits, load};
use iosift::pipeline::Options;
use std::path::{Path, PathBuf};

#[test]
fn batch_over_shared_bundles_is_deterministic() {
    let bundles = common::support::path("bundles");
    if !bundles.is_dir() {
        common::support::skip(&format!("{} not found", bundles.display()));
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // Two bundles are enough to check rows and determinism without re-running everything.
    let src = tmp.path().join("in");
    common::copy_files(&bundles.join("s1_mmap_writeback"), &src.join("s1"));
    common::copy_files(&bundles.join("s4_locale_variants"), &src.join("s4"));
    std::fs::write(src.join("broken.tar.gz"), b"\x1f\x8b\x08garbage").unwrap();
    let out1 = tmp.path().join("out1");
    let rows =
        iosift::batch::run(std::slice::from_ref(&src), &out1, 2, &Options::default(), &Limits::default())
            .unwrap();
    assert_eq!(rows.len(), 3);
    let s1 = rows.iter().find(|r| r.dir_name == "s1").unwrap();
    assert_eq!(s1.top_rule.as_deref(), Some("periodic_write_bursts"));
    assert!(s1.period_s.is_some_and(|p| (p - 31.0).abs() <= 1.5));
    assert!(out1.join("s1/index.html").is_file() && out1.join("s1/findings.json").is_file());
    let broken = rows.iter().find(|r| r.dir_name == "broken").unwrap();
    assert!(broken.error.is_some() || broken.findings == 0, "{broken:?}");
    let out2 = tmp.path().join("out2");
    iosift::batch::run(std::slice::from_ref(&src), &out2, 1, &Options::default(), &Limits::default())
        .unwrap();
    let a = std::fs::read(out1.join("summary.json")).unwrap();
    let b = std::fs::read(out2.join("summary.json")).unwrap();
    assert_eq!(a, b, "summary.json differs between runs");
    // Snapshot of the overview (paths made relative to the input folder):
    // UPDATE_SNAPSHOTS=1 cargo test --test suite batch:: rewrites it after a reviewed change.
    let text = String::from_utf8(a.clone()).unwrap().replace(&format!("{}/", src.display()), "");
    let snap =
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots/batch_summary.json"));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(snap.parent().unwrap()).unwrap();
        std::fs::write(snap, &text).unwrap();
    }
    let want = std::fs::read_to_string(snap).expect("snapshot exists (UPDATE_SNAPSHOTS=1 to create it)");
    assert_eq!(text, want, "summary.json differs from tests/snapshots/batch_summary.json");
    let fa = std::fs::read(out1.join("s1/findings.json")).unwrap();
    let fb = std::fs::read(out2.join("s1/findings.json")).unwrap();
    assert_eq!(fa, fb, "findings.json differs between runs");
}

#[test]
fn planted_hostile_files_do_not_hide_the_good_findings() {
    let src = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/mmap_large_folio/capture"));
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("b");
    common::copy_files(&src, &dir);
    // Binary garbage, a NUL-filled file, a cut iostat, an iostat-looking file with absurd numbers,
    // invalid UTF-8 and a thread named like markup.
    std::fs::write(
        dir.join("garbage.bin"),
        (0..65536u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect::<Vec<u8>>(),
    )
    .unwrap();
    std::fs::write(dir.join("zeros.txt"), vec![0u8; 10000]).unwrap();
    let io = std::fs::read(dir.join("iostat-x-t.txt")).unwrap();
    std::fs::write(dir.join("iostat-cut.txt"), &io[..io.len() / 3 + 17]).unwrap();
    std::fs::write(
        dir.join("pidstat-evil.txt"),
        b"Linux 6.18.44-fc-v669 (vm) \t11/29/26 \t_x86_64_\t(2 CPU)\n\n# Time        UID      TGID       TID   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command\n21:05:30        0     66666         -      0.00 99999999999999999999999.00      0.00       0  <script>alert(1)</script>\n21:05:30 \xff\xfe bad\n".as_slice(),
    )
    .unwrap();
    let b = load(&[dir], &Limits::default()).unwrap();
    let r = iosift::analyze::analyze(&b, &Options::default());
    assert!(r.doc.findings.iter().any(|f| f.rule == "mmap_large_folio_writeback"), "{:?}", r.doc.findings);
    let garbage = r.doc.bundle.inputs.iter().find(|i| i.path == "garbage.bin").unwrap();
    assert!(garbage.format.is_none() && garbage.note.is_some());
    let out = tmp.path().join("report");
    iosift::output::write_all(&r, &out).unwrap();
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(!html.contains("<script>alert(1)"), "markup from a capture reached the HTML unescaped");
}

#[test]
fn a_bundle_past_its_deadline_is_a_failed_row_and_the_batch_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("in");
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    common::copy_files(&sample.join("replica_sql_bound/capture"), &src.join("replica"));
    common::copy_files(&sample.join("mmap_periodic_4k/capture"), &src.join("mmap"));
    let out = tmp.path().join("out");
    let started = std::time::Instant::now();
    // No analysis of a real capture finishes in a millisecond.
    let rows = iosift::batch::run_timed(
        std::slice::from_ref(&src),
        &out,
        1,
        &Options::default(),
        &Limits::default(),
        true,
        std::time::Duration::from_millis(1),
    )
    .unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "{:?}", started.elapsed());
    assert_eq!(rows.len(), 2);
    for r in &rows {
        let e = r.error.as_deref().unwrap_or_default();
        assert!(e.starts_with("not finished after") && e.contains("--bundle-timeout"), "{r:?}");
    }
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(
        summary.contains("\"dir_name\": \"mmap\"") && summary.contains("not finished after"),
        "{summary}"
    );
}

#[test]
fn a_bundle_with_a_run_of_nuls_does_not_abort_the_batch() {
    // One bundle's streamed vmstat holds 300 MB of NULs (one endless line): its line
    // buffer aborted the whole batch. Under 300 MiB of address space, both rows come out.
    let Some(mut limited) = common::address_space_limited(300 << 20, env!("CARGO_BIN_EXE_iosift")) else {
        println!("skipped: prlimit not found");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("in");
    for b in ["good", "nul"] {
        std::fs::create_dir_all(src.join(b)).unwrap();
    }
    std::fs::write(src.join("good/vmstat-t.txt"), common::vmstat_text(1)).unwrap();
    common::with_hole(&src.join("nul/vmstat-t.txt"), &common::vmstat_text(12), 300_000_000, b"\n");
    let out = tmp.path().join("out");
    let o = limited.arg("batch").arg(&src).arg("-o").arg(&out).args(["--jobs", "1", "-q"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "no abort (134): {err}");
    let s: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    let rows = s["bundles"].as_array().unwrap();
    let mut names: Vec<&str> = rows.iter().map(|r| r["dir_name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["good", "nul"]);
    assert!(rows.iter().all(|r| r["error"].is_null() && r["inputs"] == 1), "{rows:?}");
    let f: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("nul/findings.json")).unwrap()).unwrap();
    let input = &f["bundle"]["inputs"][0];
    assert_eq!(input["records"], 12 * 75, "{input}");
    assert_eq!(
        input["diagnostics"][0]["text"],
        "line of 300000000 bytes, longer than the 16777216 bytes a line may have: skipped"
    );
}

/// Issue 34: a folder holding three incidents' captures (`incidents/<case>/capture`) is one
/// bundle of the batch; it is analyzed capture by capture, one row each named after its
/// case, with every file of that capture and the findings it has alone.
#[test]
fn a_bundle_of_several_captures_gives_a_row_per_capture() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("in");
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let cases = ["mx_ext4_db_340b_durable", "mmap_large_folio", "replica_io_bound"];
    for c in cases {
        common::copy_files(&sample.join(c).join("capture"), &src.join("incidents").join(c).join("capture"));
    }
    let out = tmp.path().join("out");
    let rows = iosift::batch::run_with(
        std::slice::from_ref(&src),
        &out,
        1,
        &Options::default(),
        &Limits::default(),
        true,
    )
    .unwrap();
    let mut names: Vec<&str> = rows.iter().map(|r| r.dir_name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["incidents-mmap_large_folio", "incidents-mx_ext4_db_340b_durable", "incidents-replica_io_bound"]
    );
    for c in cases {
        let row = rows.iter().find(|r| r.dir_name == format!("incidents-{c}")).unwrap();
        assert!(row.error.is_none(), "{row:?}");
        let alone = iosift::analyze::analyze(
            &load(&[sample.join(c).join("capture")], &Limits::default()).unwrap(),
            &Options::default(),
        );
        assert_eq!(row.inputs, alone.doc.bundle.inputs.len(), "{c}");
        assert_eq!(row.findings, alone.doc.findings.len(), "{c}");
        assert_eq!(row.top_rule.as_deref(), alone.doc.findings.first().map(|f| f.rule), "{c}");
        assert!(row.bundle.ends_with(&format!("incidents ({c}/capture)")), "{}", row.bundle);
        assert!(out.join(&row.dir_name).join("findings.json").is_file());
    }
}

/// Every rule declares the metric its batch line shows (`RuleSpec::headline`), and every
/// finding of the analysis snapshots (the samples and the shared bundles) carries it, as a
/// number: the line never says "-" for a rule that fired.
#[test]
fn every_fired_rule_has_its_headline_number() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots/analysis"));
    let mut seen = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        for f in doc["findings"]["findings"].as_array().into_iter().flatten() {
            let rule = f["rule"].as_str().unwrap();
            let spec = iosift::rules::spec(rule).unwrap_or_else(|| panic!("{rule} has no spec"));
            let (key, _) = spec.headline.unwrap_or_else(|| panic!("{rule} declares no headline"));
            assert!(f["metrics"][key].is_number(), "{}: {rule} has no number {key}", path.display());
            seen += 1;
        }
    }
    assert!(seen > 100, "{seen} findings");
}
