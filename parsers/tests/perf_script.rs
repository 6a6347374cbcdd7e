//! perf_script on the real corpus, the bundles and the fixtures; folding
//! compared with `inferno-collapse-perf` on the same bytes.

#[macro_use]
#[path = "support/shared.rs"]
mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use inferno::collapse::Collapse;
use iosift_parsers::common::decode::maybe_gunzip;
use iosift_parsers::perf_script::{CollapseOptions, Collector, Fmt, PerfScript, parse_with};
use iosift_parsers::{Format, Parsed, Stamp, Summary, detect};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/perf");

fn read(path: &Path) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    maybe_gunzip(&raw, 1 << 32).unwrap().into_owned()
}

fn corpus(name: &str) -> Vec<u8> {
    read(&support::root().join("corpus/perf-script").join(name))
}

fn bundle(b: &str, name: &str) -> Vec<u8> {
    let dir = support::root().join("bundles").join(b);
    let p = dir.join(name);
    if p.exists() { read(&p) } else { read(&dir.join(format!("{name}.gz"))) }
}

fn parse(input: &[u8]) -> Parsed<PerfScript> {
    Fmt::parse(input).map(|b| *b)
}

fn inferno_fold(input: &[u8], pid: bool, tid: bool) -> BTreeMap<String, u64> {
    let mut opt = inferno::collapse::perf::Options::default();
    opt.include_pid = pid;
    opt.include_tid = tid;
    opt.nthreads = 1;
    let mut folder = inferno::collapse::perf::Folder::from(opt);
    let mut out = Vec::new();
    folder.collapse(input, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    text.lines()
        .map(|l| {
            let (k, v) = l.rsplit_once(' ').unwrap();
            (k.to_string(), v.parse().unwrap())
        })
        .collect()
}

fn perf_corpus_files() -> Vec<(String, String)> {
    let m = std::fs::read_to_string(support::root().join("corpus/MANIFEST.tsv")).unwrap();
    m.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .map(|(f, id)| (f.to_string(), id.trim().to_string()))
        .collect()
}

#[test]
fn manifest_detection() {
    need_shared!();
    let mut mine = 0;
    for (file, id) in perf_corpus_files() {
        let path = support::root().join("corpus").join(&file);
        if path.is_dir() {
            continue;
        }
        let data = read(&path);
        let got = detect(&data).map(|d| d.format.id);
        if id == "perf_script" {
            mine += 1;
            assert_eq!(got, Some("perf_script"), "{file}");
        } else if id != "-" {
            assert_ne!(got, Some("perf_script"), "{file} (expected {id})");
        }
    }
    assert!(mine >= 40, "{mine}");
}

#[test]
fn corpus_real_lines_give_no_diagnostics() {
    need_shared!();
    // Files whose odd lines are deliberate test input of inferno.
    let odd = ["inferno__collapse-perf_weird-stack-line.txt"];
    for (file, id) in perf_corpus_files() {
        if id != "perf_script" {
            continue;
        }
        let name = file.trim_start_matches("perf-script/");
        let p = parse(&corpus(name));
        if odd.contains(&name) {
            assert_eq!(p.skipped_lines, 1, "{name}: {:?}", p.diagnostics);
            assert!(p.diagnostics[0].text.contains("THIS_IS_A_WEIRD_LINE"));
        } else {
            assert!(p.diagnostics.is_empty(), "{name}: {:?}", &p.diagnostics[..p.diagnostics.len().min(5)]);
        }
        assert!(p.value.samples > 0, "{name}");
    }
}

/// Files where inferno and iosift fold differently on purpose (malformed input, see module docs).
const FOLD_DIVERGENT: &[&str] = &[
    // A blank line between header and frames: inferno drops those frames, iosift keeps them.
    "inferno__collapse-guess_invalid-perf-with-empty-line-after-event-line.txt",
    "inferno__collapse-perf_empty-line.txt",
];

#[test]
fn folding_equals_inferno_on_corpus() {
    need_shared!();
    let mut compared = 0;
    let mut failures = Vec::new();
    for (file, id) in perf_corpus_files() {
        if id != "perf_script" {
            continue;
        }
        let name = file.trim_start_matches("perf-script/");
        if FOLD_DIVERGENT.contains(&name) {
            continue;
        }
        let data = corpus(name);
        let ours = parse(&data).value.collapsed;
        let theirs = inferno_fold(&data, false, false);
        if ours != theirs {
            let only_ours: Vec<_> = ours.iter().filter(|(k, v)| theirs.get(*k) != Some(v)).take(2).collect();
            let only_theirs: Vec<_> =
                theirs.iter().filter(|(k, v)| ours.get(*k) != Some(v)).take(2).collect();
            failures.push(format!(
                "{name}: ours {} vs inferno {}\n  ours: {only_ours:?}\n  inferno: {only_theirs:?}",
                ours.len(),
                theirs.len()
            ));
        }
        compared += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared >= 38, "{compared}");
}

#[test]
fn folding_equals_inferno_on_bundles_with_pid_tid_options() {
    need_shared!();
    for (b, f) in [
        ("s1_mmap_writeback", "perf-workload.script.txt"),
        ("s2a_mariadb_durable", "perf-workload.script.txt"),
        ("s3_buffered_dd", "perf-workload.script.txt"),
        ("s2a_mariadb_durable", "perf-trace.script.txt"),
    ] {
        let data = bundle(b, f);
        for (pid, tid) in [(false, false), (true, false), (false, true)] {
            let ours = parse_with(&data, CollapseOptions { pid, tid }).value.collapsed;
            let theirs = inferno_fold(&data, pid, tid);
            assert_eq!(ours, theirs, "{b}/{f} pid={pid} tid={tid}");
        }
    }
    // A concrete folded stack of s1 (redo_sim's write path, weight = period 10101010 per sample).
    let p = parse(&bundle("s1_mmap_writeback", "perf-workload.script.txt")).value;
    let redo: u64 = p.collapsed.iter().filter(|(k, _)| k.starts_with("redo_sim;")).map(|(_, v)| v).sum();
    assert_eq!(redo % 10_101_010, 0);
    assert!(p.collapsed.keys().any(|k| k.starts_with("redo_sim;__libc_start_call_main;fsync;entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_fsync;do_fsync;ext4_sync_file")));
    let pt = parse_with(
        &bundle("s1_mmap_writeback", "perf-workload.script.txt"),
        CollapseOptions { pid: false, tid: true },
    )
    .value;
    assert!(pt.collapsed.keys().any(|k| k.starts_with("gcache-w0-?/15574;start_thread;worker;")));
}

#[test]
fn fixtures_fold_like_inferno() {
    for f in ["header_mono_callchain.txt", "header_realtime_callchain.txt"] {
        let data = read(&Path::new(FIXTURES).join(f));
        let p = parse(&data);
        assert!(p.diagnostics.is_empty(), "{f}: {:?}", p.diagnostics);
        assert_eq!(p.value.collapsed, inferno_fold(&data, false, false), "{f}");
    }
}

#[test]
fn s1_workload_fsync_share() {
    need_shared!();
    let p = parse(&bundle("s1_mmap_writeback", "perf-workload.script.txt"));
    assert!(p.diagnostics.is_empty());
    let v = &p.value;
    assert_eq!(v.samples, 480); // perf-workload.record.log: 480 samples
    assert_eq!(v.events.get("cpu-clock:pppH"), Some(&480));
    let redo = v.threads.iter().find(|t| t.comm == "redo_sim").unwrap();
    assert_eq!(redo.tid, Some(15546));
    assert!(redo.fsync_share() > 0.5, "{redo:?}");
    for w in ["gcache-w0", "gcache-w1"] {
        let t = v.threads.iter().find(|t| t.comm == w).unwrap();
        assert!(t.fsync_share() < 0.05, "{t:?}");
    }
    assert!((v.first_ts.unwrap() - 1065.348856).abs() < 1e-9);
    assert_eq!(v.time_range(), Some((Stamp::SinceBoot(1065.348856), Stamp::SinceBoot(v.last_ts.unwrap()))));
    assert!(!v.fsync_per_sec.is_empty());
}

#[test]
fn s2a_connection_threads_fsync() {
    need_shared!();
    let p = parse(&bundle("s2a_mariadb_durable", "perf-workload.script.txt"));
    assert!(p.diagnostics.is_empty(), "{:?}", &p.diagnostics[..p.diagnostics.len().min(3)]);
    let v = &p.value;
    let with_fsync: Vec<_> = v.threads.iter().filter(|t| t.fsync_samples > 0).collect();
    assert!(!with_fsync.is_empty());
    let fsync_total: u64 = v.threads.iter().map(|t| t.fsync_samples).sum();
    let mariadbd: u64 = v
        .threads
        .iter()
        .filter(|t| t.comm.contains("mariadbd") || t.comm.starts_with("one_conn"))
        .map(|t| t.fsync_samples)
        .sum();
    assert!(mariadbd > 0, "{:?}", with_fsync);
    // TRUTH.md: connection threads 19879-19882 (comm `mariadbd`) write and fsync redo + binlog.
    for tid in 19879..=19882 {
        let t = v.threads.iter().find(|t| t.tid == Some(tid)).unwrap();
        assert_eq!(t.comm, "mariadbd");
        assert!(t.samples > 1000 && t.fsync_share() > 0.2 && t.fsync_share() < 0.4, "{t:?}");
    }
    assert_eq!(v.threads[0].tid, Some(19879));
    assert_eq!((v.threads[0].samples, v.threads[0].fsync_samples), (1249, 342));
    assert!(fsync_total >= mariadbd);
}

#[test]
fn s1_trace_block_issue_bursts() {
    need_shared!();
    let data = bundle("s1_mmap_writeback", "perf-trace.script.txt");
    // Streaming: feed line by line, as the CLI does for huge files.
    let mut c = Collector::new();
    for (i, l) in data.split(|&b| b == b'\n').enumerate() {
        c.feed_line(i + 1, l);
    }
    let p = c.finish();
    assert!(p.diagnostics.is_empty(), "{:?}", &p.diagnostics[..p.diagnostics.len().min(3)]);
    let v = &p.value;
    assert_eq!(v.samples, 245_176); // perf-trace.record.log: 245176 samples
    // Burst 1: 19:38:03 UTC = epoch 1795981083 = perf ts 1094.45 (TRUTH.md: epoch = perf + 1795979988.5523).
    let w_per_sec = |sec: i64| -> (u64, u64) {
        v.tracepoints
            .iter()
            .filter(|t| t.sec == sec && t.event == "block:block_rq_issue" && t.rwbs == "W")
            .filter(|t| t.comm.starts_with("kworker") || t.comm == "kthreadd")
            .fold((0, 0), |a, t| (a.0 + t.count, a.1 + t.bytes))
    };
    let burst: (u64, u64) = (1093..=1096).map(w_per_sec).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    assert!(burst.0 > 20_000, "{burst:?}");
    assert!(burst.1 > 100 * 1024 * 1024, "{burst:?}");
    let quiet = w_per_sec(1080);
    assert!(quiet.0 < 1000, "{quiet:?}");
    // Periodic kupdate writeback.
    let periodic: u64 = v
        .writeback
        .iter()
        .filter(|w| w.event == "writeback:writeback_start" && w.reason == "periodic")
        .map(|w| w.count)
        .sum();
    assert!(periodic > 30, "{periodic}");
    assert_eq!(v.collapsed.len(), 0);
}

#[test]
fn header_clock_data() {
    let p = parse(&read(&Path::new(FIXTURES).join("header_mono_callchain.txt")));
    let v = &p.value;
    let h = &v.header;
    assert_eq!(h.hostname.as_deref(), Some("vm"));
    assert_eq!(h.os_release.as_deref(), Some("6.18.44-fc-v669"));
    assert_eq!(h.perf_version.as_deref(), Some("6.1.192"));
    assert_eq!(h.captured_on.as_deref(), Some("Sun Nov 29 20:56:40 2026"));
    assert_eq!(h.events, vec!["cpu-clock:pppH".to_string()]);
    assert!(h.cmdline.as_deref().unwrap().starts_with("/usr/bin/perf record -q -k mono -g -F 199"));
    let c = h.clock.as_ref().unwrap();
    assert_eq!((c.clockid.as_deref(), c.clockid_num), (Some("monotonic"), Some(1)));
    assert_eq!(c.tod_epoch, Some(1795985799.542709));
    assert_eq!(c.perf_time, Some(496.880904846));
    let off = v.wall_offset.unwrap();
    assert!((off - (1795985799.542709 - 496.880904846)).abs() < 1e-6);
    // First sample 497.031958 -> 20:56:39.69 UTC.
    let (a, _) = v.time_range().unwrap();
    assert_eq!(a.utc().unwrap().format("%H:%M:%S%.3f").to_string(), "20:56:39.693");
    assert_eq!(v.variant().get("callchains").map(String::as_str), Some("yes"));
    assert_eq!(v.variant().get("clockid").map(String::as_str), Some("monotonic"));

    let r = parse(&read(&Path::new(FIXTURES).join("header_realtime_callchain.txt"))).value;
    assert_eq!(r.header.clock.as_ref().unwrap().clockid.as_deref(), Some("realtime"));
    assert!(r.wall_offset.unwrap().abs() < 0.01);
    assert!((r.first_ts.unwrap() - 1795985804.367958).abs() < 1e-6);
}

#[test]
fn tracepoints_with_callchains() {
    let v = parse(&read(&Path::new(FIXTURES).join("tracepoints_callchain_head.txt"))).value;
    assert_eq!(v.events.get("block:block_rq_issue"), Some(&16));
    let dd: Vec<_> = v
        .tracepoints
        .iter()
        .filter(|t| t.comm == "dd" && t.event == "block:block_rq_issue" && t.rwbs == "WS")
        .collect();
    assert_eq!(dd.iter().map(|t| t.count).sum::<u64>(), 4);
    assert_eq!(dd.iter().map(|t| t.bytes).sum::<u64>(), 4 * 65536);
    assert!(v.callchain_samples > 0);
    // inferno cannot fold tracepoints with call chains (it reads the payload as a frame and the
    // frames as headers); iosift folds the first event kind (`sched`) properly.
    assert_eq!(v.collapse_event.as_deref(), Some("sched"));
    assert!(v.collapsed.keys().any(|k| k.starts_with("dd;__GI___libc_write;entry_SYSCALL_64_after_hwframe;do_syscall_64;ksys_write;vfs_write;ext4_file_write_iter;iomap_dio_complete;ext4_sync_file;blkdev_issue_flush;")));
    let dd = v.threads.iter().find(|t| t.comm == "dd").unwrap();
    assert!(dd.fsync_samples > 0);
}

#[test]
fn corpus_forms() {
    need_shared!();
    let v = parse(&corpus("generated__perf_script_F_notime.txt")).value;
    assert_eq!(v.first_ts, None);
    assert_eq!(v.variant().get("time").map(String::as_str), Some("none"));
    let v = parse(&corpus("generated__perf_script_F_symoff_ns.txt")).value;
    assert_eq!(v.variant().get("time").map(String::as_str), Some("ns"));
    assert_eq!(v.variant().get("inline_ip").map(String::as_str), Some("yes"));
    let v = parse(&corpus("speedscope__simple-with-header.linux-perf.txt")).value;
    assert_eq!(v.header.hostname.as_deref(), Some("e2b5bab9a538"));
    assert_eq!(v.header.captured_on.as_deref(), Some("Wed Aug 15 16:01:24 2018"));
    let v = parse(&corpus("FlameGraph__perf-iperf-stacks-pidtid-01.txt")).value;
    assert!(v.threads.iter().all(|t| t.pid.is_some()));
}

#[test]
fn every_corpus_file_is_safe() {
    need_shared!();
    let dir: PathBuf = support::root().join("corpus");
    for (file, _) in perf_corpus_files() {
        if dir.join(&file).is_dir() {
            continue;
        }
        let data = read(&dir.join(&file));
        let _ = Fmt::parse(&data);
        let _ = Fmt::sniff(&data[..data.len().min(1024)]);
    }
}

/// gdb's stderr of samples/replica_io_bound_gdb (`29\t../sysdeps/unix/sysv/linux/poll.c: No such
/// file or directory.`) has the shape of a sample header without a time: a path is not an event.
#[test]
fn gdb_stderr_is_not_a_perf_script() {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../samples/replica_io_bound_gdb/capture/gdb.err");
    let raw = read(&p);
    assert!(String::from_utf8_lossy(&raw).starts_with("29\t../sysdeps/unix/sysv/linux/poll.c: No such file"));
    assert_eq!(Fmt::sniff(&raw[..raw.len().min(1024)]), iosift_parsers::Sniff::No);
    assert_ne!(detect(&raw).map(|d| d.format.id), Some("perf_script"));
}
