//! Samples and the collector: `samples/collect.sh` is valid POSIX sh (and
//! shellcheck-clean when shellcheck is installed), and a short real run of it
//! writes a tarball whose every capture file the parsers recognise.
//!
//! The run needs root (smaps of other processes, perf_event settings) and
//! sysstat (`iostat`, `pidstat`); without them the test prints why and
//! passes (CI installs sysstat and runs as root). No perf (`-P`/`-T` off)
//! and no MySQL (`-M` off): those parts need a profiler and a server.

use crate::common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/collect.sh");

/// Files of the tarball that are the collector's own bookkeeping, not
/// measurements of the host, so no format is expected for them:
/// - `SKIPPED.txt`: free-text reasons (`nothing skipped`, `perf: not installed ...`),
///   read by name for the report, no signature of its own;
/// - `collect.log`: the collector's log (`stopping collectors: deadline`);
/// - `collectors.pids`: `PID NAME` of the collectors it started (for its own `kill`);
/// - `*.err`: stderr of a collector, kept only when not empty (tool messages of any shape).
fn is_bookkeeping(name: &str) -> bool {
    matches!(name, "SKIPPED.txt" | "collect.log" | "collectors.pids") || name.ends_with(".err")
}

/// Capture files with no parser yet (reported, not failed): `findmnt -rno`
/// output has no header and is a layout for the `mounts` parser to learn;
/// `/proc/fs/xfs/stat` has no parser (and is empty on hosts without XFS).
const KNOWN_GAPS: &[&str] = &["findmnt.txt", "xfs-stat.txt"];

fn have(tool: &str) -> bool {
    Command::new("sh").arg("-c").arg(format!("command -v {tool}")).output().is_ok_and(|o| o.status.success())
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

#[test]
fn collect_sh_is_posix_sh_and_shellcheck_clean() {
    if !have("sh") {
        common::support::skip("no sh");
        return;
    }
    let o = Command::new("sh").arg("-n").arg(SCRIPT).output().expect("sh runs");
    assert!(o.status.success(), "sh -n: {}", String::from_utf8_lossy(&o.stderr));
    if have("shellcheck") {
        let o = Command::new("shellcheck").args(["-s", "sh"]).arg(SCRIPT).output().expect("shellcheck runs");
        assert!(o.status.success(), "shellcheck -s sh:\n{}", String::from_utf8_lossy(&o.stdout));
    } else {
        eprintln!("shellcheck not installed: only `sh -n` checked");
    }
}

/// Unpacks a .tar.gz into memory: (path, bytes) of every regular file.
fn untar(path: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let f = std::fs::File::open(path).expect("tarball exists");
    let mut ar = tar::Archive::new(flate2::read::GzDecoder::new(f));
    let mut out = Vec::new();
    for e in ar.entries().expect("tar entries") {
        let mut e = e.expect("tar entry");
        if !e.header().entry_type().is_file() {
            continue;
        }
        let p = e.path().expect("entry path").into_owned();
        let mut buf = Vec::new();
        e.read_to_end(&mut buf).expect("entry data");
        out.push((p, buf));
    }
    out
}

#[test]
fn a_short_real_capture_is_fully_recognised() {
    let missing: Vec<&str> =
        ["sh", "iostat", "pidstat", "tar", "date"].into_iter().filter(|t| !have(t)).collect();
    if !missing.is_empty() {
        common::support::skip(&format!(
            "the collector run: {} not installed (package sysstat)",
            missing.join(", ")
        ));
        return;
    }
    if !is_root() {
        common::support::skip("the collector run: not root");
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("capture.tar.gz");
    // 4 samples at 1 s; this test process is the selected process (smaps, threads).
    let pid = std::process::id().to_string();
    let o = Command::new("sh")
        .arg(SCRIPT)
        .args(["-d", "4", "-i", "1", "-m", "200", "-p", &pid, "-w"])
        .arg(tmp.path())
        .arg("-o")
        .arg(&out)
        .output()
        .expect("collect.sh runs");
    assert!(
        o.status.success(),
        "collect.sh failed: {}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let files = untar(&out);
    let names: Vec<String> =
        files.iter().filter_map(|(p, _)| p.file_name().map(|n| n.to_string_lossy().into_owned())).collect();
    for must in
        ["iostat-x-t.txt", "pidstat-d-t-h.txt", "vmstat-t.txt", "timeline.txt", "uname-a.txt", "SKIPPED.txt"]
    {
        assert!(names.iter().any(|n| n == must), "{must} missing from the tarball: {names:?}");
    }
    let mut unrecognised = Vec::new();
    let mut gaps = Vec::new();
    let mut ids = Vec::new();
    for ((path, raw), name) in files.iter().zip(&names) {
        if is_bookkeeping(name) {
            continue;
        }
        let data = iosift_parsers::common::decode::maybe_gunzip(raw, 1 << 30).expect("gzip ok").into_owned();
        match iosift_parsers::detect(&data) {
            Some(d) => {
                eprintln!(
                    "{:<18} {} ({} records)",
                    d.format.id,
                    path.display(),
                    d.parsed.value.summary().records()
                );
                ids.push((name.clone(), d.format.id));
            }
            None if KNOWN_GAPS.contains(&name.as_str()) => gaps.push(name.clone()),
            None => unrecognised.push(format!("{} ({} bytes)", path.display(), data.len())),
        }
    }
    if !gaps.is_empty() {
        eprintln!("known gaps, not recognised yet: {}", gaps.join(", "));
    }
    assert!(unrecognised.is_empty(), "not recognised:\n{}", unrecognised.join("\n"));
    let id_of = |n: &str| ids.iter().find(|(name, _)| name == n).map(|(_, id)| *id);
    assert_eq!(id_of("iostat-x-t.txt"), Some("iostat"));
    assert_eq!(id_of("pidstat-d-t-h.txt"), Some("pidstat"));
    assert_eq!(id_of("vmstat-t.txt"), Some("vmstat"));
    assert_eq!(id_of("timeline.txt"), Some("clock_reference"));
    let threads =
        names.iter().find(|n| n.starts_with(&format!("threads-{pid}-"))).expect("threads file of -p PID");
    assert_eq!(id_of(threads), Some("thread_list"));

    // The timeline carries the CLOCK_MONOTONIC reference perf times are mapped with.
    let (_, timeline) = files.iter().find(|(p, _)| p.ends_with("timeline.txt")).expect("timeline");
    let parsed = <iosift_parsers::clock_reference::Fmt as iosift_parsers::Format>::parse(timeline);
    let offset = parsed.value.offset().expect("epoch_minus_CLOCK_MONOTONIC line");
    let now =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("clock").as_secs_f64();
    assert!(offset > 1.0e9 && offset < now, "offset {offset}");
    assert!(parsed.value.epoch_of("collectors_started").is_some());
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
}
