//! Output folders never lose the user's files (issue 17): a folder that is not an
//! iosift report is refused with exit 2, a rerun keeps the user's files, an output
//! folder is never read back as input, batch folder names stay unique after pt-stalk
//! samples are split, and bundles named like the overview's files do not break it.
//! Every case builds its input from the repository's samples in a temporary folder.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_iosift");

fn sample(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(rel)
}

/// A small real capture (iostat -xm 1, 30 s).
fn derived() -> PathBuf {
    sample("ext4_dioread_nolock_derived/capture")
}

fn run(args: &[&std::ffi::OsStr], cwd: &Path) -> Output {
    Command::new(BIN).args(args).current_dir(cwd).output().expect("run iosift")
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

fn copy_into(from: &Path, to: &Path, files: &[&str]) {
    std::fs::create_dir_all(to).unwrap();
    for f in files {
        std::fs::copy(from.join(f), to.join(f)).unwrap();
    }
}

#[test]
fn analyze_refuses_a_folder_that_is_not_a_report_and_keeps_its_files() {
    let tmp = tempfile::tempdir().unwrap();
    let x = tmp.path().join("X");
    std::fs::create_dir_all(x.join("charts")).unwrap();
    std::fs::write(x.join("index.html"), "hi").unwrap();
    std::fs::write(x.join("charts/flame-prod.svg"), "x").unwrap();
    let o = run(&[os("analyze"), derived().as_os_str(), os("-o"), x.as_os_str()], tmp.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(&x.display().to_string()) && err.contains("not an iosift report"), "{err}");
    assert_eq!(std::fs::read_to_string(x.join("index.html")).unwrap(), "hi");
    assert_eq!(std::fs::read_to_string(x.join("charts/flame-prod.svg")).unwrap(), "x");
    assert!(!x.join("findings.json").exists());
    // Nothing left beside it either.
    let names: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from("X")]);
}

#[test]
fn rerun_keeps_the_users_files_and_drops_stale_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let x = tmp.path().join("r");
    let o = run(&[os("analyze"), derived().as_os_str(), os("-o"), x.as_os_str(), os("-q")], tmp.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let marker = std::fs::read_to_string(x.join(".iosift-report")).unwrap();
    assert!(marker.starts_with("iosift ") && marker.contains("findings.json\n"), "{marker}");
    std::fs::write(x.join("charts/flame-stale.svg"), "old").unwrap();
    std::fs::write(x.join("my-notes.txt"), "mine").unwrap();
    // flame-stale.svg is listed as ours by a previous run's marker: it goes.
    std::fs::write(x.join(".iosift-report"), format!("{marker}charts/flame-stale.svg\n")).unwrap();
    let o = run(&[os("analyze"), derived().as_os_str(), os("-o"), x.as_os_str(), os("-q")], tmp.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(x.join("findings.json").is_file() && x.join("tables/timeline.parquet").is_file());
    assert!(!x.join("charts/flame-stale.svg").exists());
    assert_eq!(std::fs::read_to_string(x.join("my-notes.txt")).unwrap(), "mine");
    let names: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from("r")], "no staging folder left");
}

#[test]
fn an_output_folder_is_never_read_as_input() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("case");
    copy_into(&derived(), &cap, &["iostat-xm-1.txt", "uname-a.txt"]);
    let inner = cap.join("report");
    let o = run(&[os("analyze"), cap.as_os_str(), os("-o"), inner.as_os_str(), os("-q")], tmp.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Second run: the report inside the input is skipped (and said), not analyzed.
    let o = run(&[os("analyze"), cap.as_os_str(), os("-o"), inner.as_os_str(), os("--json")], tmp.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let paths: Vec<&str> =
        doc["bundle"]["inputs"].as_array().unwrap().iter().map(|i| i["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["iostat-xm-1.txt", "uname-a.txt"], "{paths:?}");
    // The report folder itself given as input: a clear error naming it.
    let o = run(&[os("analyze"), inner.as_os_str(), os("-o"), tmp.path().join("o2").as_os_str()], tmp.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("iosift report folder") && err.contains(&inner.display().to_string()), "{err}");
}

#[test]
fn batch_into_its_input_is_refused_and_batch_dot_skips_its_reports() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tickets");
    copy_into(&derived(), &dir.join("a"), &["iostat-xm-1.txt"]);
    let o = run(&[os("batch"), dir.as_os_str(), os("-o"), dir.as_os_str(), os("-q")], tmp.path());
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!dir.join("a/index.html").exists() && !dir.join("index.html").exists());
    // `batch .` twice: the second run does not analyze ./reports.
    for _ in 0..2 {
        let o = run(&[os("batch"), os("."), os("-q")], &dir);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let s: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("reports/summary.json")).unwrap()).unwrap();
    let names: Vec<&str> =
        s["bundles"].as_array().unwrap().iter().map(|b| b["dir_name"].as_str().unwrap()).collect();
    assert_eq!(names, ["a"]);
}

#[test]
fn batch_names_stay_unique_after_splitting_and_overview_names_are_free() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("in");
    // capP holds two pt-stalk samples; a sibling folder already has the name of one split.
    let src = sample("mmap_periodic_4k/capture");
    let cap = dir.join("capP");
    std::fs::create_dir_all(&cap).unwrap();
    let ds = std::fs::read(src.join("2026_11_29_21_02_16-diskstats")).unwrap();
    std::fs::write(cap.join("2026_11_29_21_02_16-diskstats"), &ds).unwrap();
    std::fs::write(cap.join("2026_11_29_21_10_00-diskstats"), &ds).unwrap();
    copy_into(&derived(), &dir.join("capP-2026_11_29_21_10_00"), &["iostat-xm-1.txt"]);
    copy_into(&derived(), &dir.join("index.html"), &["iostat-xm-1.txt"]);
    copy_into(&derived(), &dir.join("summary.json"), &["iostat-xm-1.txt"]);
    let out = tmp.path().join("out");
    let o = run(&[os("batch"), dir.as_os_str(), os("-o"), out.as_os_str(), os("-q")], tmp.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    let rows = s["bundles"].as_array().unwrap();
    let mut names: Vec<&str> = rows.iter().map(|b| b["dir_name"].as_str().unwrap()).collect();
    assert_eq!(rows.len(), 5, "{rows:?}");
    for r in rows {
        assert!(r["error"].is_null(), "{r}");
        let d = r["dir_name"].as_str().unwrap();
        assert!(out.join(d).join("findings.json").is_file(), "{d}");
    }
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 5, "{names:?}");
    assert!(out.join("index.html").is_file() && out.join(".iosift-report").is_file());
    // The sibling kept its own name; the split sample got another.
    let sib = rows.iter().find(|r| r["dir_name"] == "capP-2026_11_29_21_10_00").unwrap();
    assert!(sib["bundle"].as_str().unwrap().ends_with("capP-2026_11_29_21_10_00"), "{sib}");
}
