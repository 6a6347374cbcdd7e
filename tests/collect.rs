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

    // What observing cost (issue 41): a cpu row per collector and for the collector's shell.
    assert_eq!(id_of("collector-cost.txt"), Some("collector_cost"));
    let cost = cost_of(&files);
    assert!(cost.main_pid.is_some() && cost.clk_tck.is_some(), "{cost:?}");
    for name in ["collect.sh", "iostat", "pidstat", "vmstat", "proc-loop"] {
        assert!(cost.rows.iter().any(|r| r.name == name), "no cpu row of {name}: {:?}", cost.rows);
    }
    assert!(cost.events.is_empty(), "no tool is over its budget in 4 s: {:?}", cost.events);
}

/// The collector's cost record of a tarball's files.
fn cost_of(files: &[(PathBuf, Vec<u8>)]) -> iosift_parsers::collector_cost::CollectorCost {
    let (_, raw) = files.iter().find(|(p, _)| p.ends_with("collector-cost.txt")).expect("collector-cost.txt");
    let parsed = <iosift_parsers::collector_cost::Fmt as iosift_parsers::Format>::parse(raw);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    parsed.value
}

/// Runs collect.sh for `secs` with the budget test hook and extra options; the tarball's files.
fn run_with_budgets(budgets: &str, secs: &str, extra: &[&str]) -> Option<Vec<(PathBuf, Vec<u8>)>> {
    if !is_root() || !have("iostat") || !have("tar") {
        common::support::skip("the collector run: not root or no sysstat");
        return None;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("capture.tar.gz");
    let pid = std::process::id().to_string();
    let o = Command::new("sh")
        .arg(SCRIPT)
        .args(["-d", secs, "-i", "1", "-m", "200", "-p", &pid])
        .args(extra)
        .arg("-w")
        .arg(tmp.path())
        .arg("-o")
        .arg(&out)
        .env("IOSIFT_COLLECT_BUDGETS", budgets)
        .output()
        .expect("collect.sh runs");
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "collect.sh failed: {stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    // The summary on the terminal names the watchdog's action.
    assert!(stdout.contains("collector cost"), "{stdout}");
    assert!(stdout.contains("WATCHDOG"), "{stdout}");
    Some(untar(&out))
}

/// The test hook (a budget every tool exceeds) makes the watchdog stop a tool: the event is
/// in the record, and the tool has no rows after it. With perf, the same run checks that `-P`
/// profiles system-wide from the start, filtered to the selected process (issue 41).
#[test]
fn the_watchdog_stops_a_tool_over_its_budget() {
    let perf = have("perf");
    let extra: &[&str] = if perf { &["-P", "-F", "49"] } else { &[] };
    let Some(files) = run_with_budgets("vmstat -1 1 stop", "12", extra) else { return };
    let cost = cost_of(&files);
    let e = cost.events.iter().find(|e| e.name == "vmstat").expect("a vmstat event");
    assert_eq!(e.action.as_str(), "stopped");
    assert!(cost.rows.iter().filter(|r| r.name == "vmstat").all(|r| r.epoch <= e.epoch));
    // vmstat stopped early (12 rows of numbers had it run on), iostat ran its 12 reports
    let text = |n: &str| {
        let (_, raw) = files.iter().find(|(p, _)| p.ends_with(n)).expect(n);
        String::from_utf8_lossy(raw).into_owned()
    };
    let vm_rows = text("vmstat-t.txt")
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .count();
    assert!(vm_rows < 12, "vmstat ran on: {vm_rows} rows");
    assert_eq!(text("iostat-x-t.txt").matches("avg-cpu").count(), 12);
    if !perf {
        common::support::skip("perf not installed: the system-wide profile of -P not checked");
        return;
    }
    // `perf record -a` from the start (never -p: perf 6.1 spins once a thread of its target exits),
    // its script and report kept to the selected pid, and no perf event.
    let pid = std::process::id();
    assert!(
        text("timeline.txt")
            .contains(&format!("perf_profile target -a keep_pids {pid} hz 49 name perf-profile "))
    );
    assert!(cost.events.iter().all(|e| e.name == "vmstat"), "{:?}", cost.events);
    assert!(cost.rows.iter().any(|r| r.name == "perf-profile"), "perf is watched");
    assert!(text("perf-profile.report.txt").contains("# Samples"), "the report is kept");
}

/// perf's safer mode: with the hook, the per-process profile of `-R` (`perf record -p`) is stopped
/// and restarted once as `perf record -a`, whose script keeps only the selected process's samples.
#[test]
fn the_watchdog_restarts_perf_system_wide() {
    if !have("perf") {
        common::support::skip("perf not installed");
        return;
    }
    let Some(files) = run_with_budgets("perf-profile -1 1 restart", "12", &["-P", "-R", "-F", "49"]) else {
        return;
    };
    let cost = cost_of(&files);
    let e = cost.events.iter().find(|e| e.name == "perf-profile").expect("a perf-profile event");
    assert_eq!(e.action.as_str(), "restarted");
    assert!(e.text.contains("perf record -g -F 49 -a"), "{}", e.text);
    assert!(cost.rows.iter().any(|r| r.name == "perf-profile-a"), "the restarted perf is watched");
    let names: Vec<String> = files.iter().map(|(p, _)| p.to_string_lossy().into_owned()).collect();
    for must in ["perf-profile-1.record.log", "perf-profile.record.log", "perf-profile.script.txt.gz"] {
        assert!(names.iter().any(|n| n.ends_with(must)), "{must} missing: {names:?}");
    }
    let (_, tl) = files.iter().find(|(p, _)| p.ends_with("timeline.txt")).expect("timeline");
    let (tl, pid) = (String::from_utf8_lossy(tl), std::process::id());
    assert!(
        tl.contains(&format!("perf_profile target -p {pid} keep_pids all hz 49 name perf-profile ")),
        "{tl}"
    );
    assert!(
        tl.contains(&format!("perf_profile target -a keep_pids {pid} hz 49 name perf-profile-a ")),
        "{tl}"
    );
}
