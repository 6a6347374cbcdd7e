//! Each issuer class measured in a real capture of `samples/`, and the same capture
//! without the files that witness it (as a customer who did not run perf, pidstat or
//! the /proc samplers sends it): the page must then say "not measured" for those
//! episodes, never name another class (issue 34: "each issuer class has a real capture
//! where it is measured, and one where its source is missing and the page says 'not
//! measured'"). The classes that already have a capture made without their witness
//! (`_noperf`, `_nosysstat` twins in `docs/accuracy.md`) are not repeated here, except
//! writeback_background, whose measured finding-level cases became writeback_age by bytes
//! (its episodes still measure it). [`MORE`] ablates further captures of the classes measured
//! only in episodes, so each of them is checked on more than one capture.

use std::path::{Path, PathBuf};

const BIN: &str = env!("CARGO_BIN_EXE_iosift");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Analyses `dir` into `out`: (findings.json, index.html).
fn analyze(dir: &Path, out: &Path) -> (serde_json::Value, String) {
    let st = std::process::Command::new(BIN)
        .arg("-q")
        .arg("analyze")
        .arg(dir)
        .arg("-o")
        .arg(out)
        .status()
        .unwrap();
    assert!(st.success(), "iosift analyze {} failed", dir.display());
    let doc = serde_json::from_str(&std::fs::read_to_string(out.join("findings.json")).unwrap()).unwrap();
    (doc, std::fs::read_to_string(out.join("index.html")).unwrap())
}

/// One episode of findings.json: (device, start, end, class or None, note, runner-up class).
type Ep = (String, i64, i64, Option<String>, String, Option<String>);

/// The episodes of `doc`.
fn episodes(doc: &serde_json::Value) -> Vec<Ep> {
    doc["episodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["device"].as_str().unwrap().to_string(),
                e["start_epoch"].as_i64().unwrap(),
                e["end_epoch"].as_i64().unwrap(),
                e["issuer"]["class"].as_str().map(str::to_string),
                e["issuer"]["issuer"]["note"].as_str().unwrap_or("").to_string(),
                e["issuer"]["runner_up"][0].as_str().map(str::to_string),
            )
        })
        .collect()
}

/// `case`'s capture measures `class` in at least one episode; without the files whose
/// names contain one of `witnesses`, the episodes overlapping those are "not measured" on
/// the page (at least one), and none is given another class, except, when `runner_up`,
/// the runner-up the full capture measured (a re-issue's data, measured without the trace
/// from the whole stack's witnesses).
fn ablate(case: &str, class: &str, witnesses: &[&str], runner_up: bool) {
    let capture = root().join("samples").join(case).join("capture");
    let tmp = tempfile::tempdir().unwrap();
    let (doc, _) = analyze(&capture, &tmp.path().join("full"));
    let measured: Vec<_> = episodes(&doc).into_iter().filter(|e| e.3.as_deref() == Some(class)).collect();
    assert!(!measured.is_empty(), "{case}: no episode measured as {class}: {:?}", episodes(&doc));
    let cut = tmp.path().join("capture");
    std::fs::create_dir_all(&cut).unwrap();
    let mut removed = Vec::new();
    for e in std::fs::read_dir(&capture).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if witnesses.iter().any(|w| name.contains(w)) {
            removed.push(name);
        } else {
            std::fs::copy(e.path(), cut.join(&name)).unwrap();
        }
    }
    assert!(!removed.is_empty(), "{case}: none of {witnesses:?} in the capture");
    let (doc, html) = analyze(&cut, &tmp.path().join("cut"));
    let after = episodes(&doc);
    let (mut unmeasured, mut data_class) = (0, 0);
    for m in &measured {
        // The same episode, give or take the second the device series moved to without iostat.
        for e in after.iter().filter(|e| e.0 == m.0 && e.1 <= m.2 + 1 && e.2 + 1 >= m.1) {
            if runner_up && e.3.is_some() && e.3 == m.5 {
                data_class += 1;
                continue;
            }
            assert_eq!(e.3, None, "{case} without {removed:?}: {e:?} was measured as another class");
            assert!(e.4.starts_with("not measured"), "{case} without {removed:?}: {e:?}");
            assert!(html.contains(&html_escape(&e.4)), "{case}: the page does not say {:?}", e.4);
            unmeasured += 1;
        }
    }
    assert!(
        unmeasured > 0,
        "{case} without {removed:?}: no episode measured as {class} says not measured: {after:?}"
    );
    println!(
        "{case}: {class} measured in {} episode(s); without {removed:?}: {unmeasured} not measured, {data_class} given their data's class",
        measured.len()
    );
}

/// The page's escaping of a note (maud's: `&`, `<`, `>` and `"`).
fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[test]
fn direct_io_is_not_measured_with_only_the_device_counters() {
    // The witnesses of O_DIRECT: the writer's bios in the trace, pidstat charging the writer
    // while Dirty and nr_dirtied stand still.
    ablate("ix_ext4_odirect_20s", "direct_io", &["perf-", "pidstat-", "procvmstat", "meminfo"], false);
}

#[test]
fn a_throttled_writer_is_not_measured_with_only_the_device_counters() {
    // balance_dirty_pages in perf, Dirty + Writeback at the freerun ceiling, pidstat's rate
    // equal to the device's.
    ablate(
        "mx_ext4_loop_slow_copy_throttled",
        "writer_throttled",
        &["perf-", "pidstat-", "procvmstat", "meminfo"],
        false,
    );
}

#[test]
fn reclaim_is_not_measured_without_the_trace() {
    // writeback_start reason=vmscan and reclaim stacks in perf. Without them, /proc/vmstat
    // shows dd's pages dirtied and written at once (a writer's own flush) and reclaim meeting
    // them (nr_vmscan_immediate_reclaim): the two are not told apart.
    ablate("ix_ext4_reclaim_memcg", "reclaim", &["perf-"], false);
}

#[test]
fn reclaim_is_not_measured_without_the_trace_and_proc_vmstat() {
    // Without /proc/vmstat either, nothing tells the cgroup's reclaim from the writer.
    ablate("ix_ext4_reclaim_memcg", "reclaim", &["perf-", "procvmstat"], false);
}

#[test]
fn a_loop_devices_reissue_is_not_measured_without_the_trace() {
    // The trace's bios: loop0's queued by ckpt_fsync, vda's by the loop worker in the same
    // seconds. Without it the disk's episodes are not measured, or given the class of their
    // data (the application's flush, from Dirty and flush requests), never the worker's.
    ablate("ixh_xfs_loop_appfsync_11s", "stacked_reissue", &["perf-"], true);
}

#[test]
fn background_writeback_is_not_measured_without_the_trace() {
    // writeback_start reason=background for the flusher's bytes; without the trace, Dirty
    // near the threshold and its age cannot tell it from writeback by age there.
    ablate("ix_ext4_copy3g_background", "writeback_background", &["perf-"], false);
}

/// More captures per class, ablated the same way: (case, class, witness files, runner-up allowed).
const MORE: &[(&str, &str, &[&str], bool)] = &[
    ("ixh_xfs_loop_odirect_16s", "direct_io", &["perf-", "pidstat-", "procvmstat", "meminfo"], true),
    ("ix_xfs_loop_odirect_14s_nosysstat", "direct_io", &["perf-", "procvmstat", "meminfo"], true),
    (
        "mh_xfs_loop_slow_copy_throttled_noperf",
        "writer_throttled",
        &["pidstat-", "procvmstat", "meminfo"],
        false,
    ),
    ("ixh_ext4_loop_datajournal_10s", "stacked_reissue", &["perf-"], true),
    ("ix_xfs_loop_sfr_steps", "stacked_reissue", &["perf-"], true),
    (
        "mx_xfs_loop_copy_dirty_bytes_ddirect",
        "writeback_background",
        &["perf-", "meminfo", "procvmstat"],
        false,
    ),
    ("mh_ext4_copy_expire3000_ddirect", "writeback_background", &["perf-", "meminfo", "procvmstat"], false),
    ("mx_ext4_loop_mmap_2m_buffered", "reclaim", &["perf-"], false),
];

#[test]
fn more_captures_of_each_class_are_not_measured_without_their_witnesses() {
    for (case, class, witnesses, runner_up) in MORE {
        ablate(case, class, witnesses, *runner_up);
    }
}
