//! `gdb_stacks` and `pt_pmp` on the real capture `samples/replica_io_bound_gdb` (made
//! with `collect.sh -G 3`: gdb 13.1 `thread apply all bt` of a MariaDB 10.11 replica
//! every ~4.4 s, then pt-pmp 3.2.1 over the same file) and on the pt-stalk 3.2.1
//! `--collect-gdb` file of the same replica (pt-stalk's own layout: no `TS` lines).
//!
//! The expected numbers were counted on the raw files without iosift:
//! - snapshots: `zcat capture/2026_12_05_19_44_44-stacktrace.gz | grep -c '^\[Inferior'` = 16,
//!   `grep -c '^TS'` = 16, `grep -c '^Thread '` = 321;
//! - the IO thread (LWP 13881 = `thread/sql/slave_io` in `mysql-threads-t0030s.tsv`) and the SQL
//!   thread (LWP 13882): `awk '/^Thread [0-9]+ \(/{match($0,/LWP [0-9]+/); l=substr($0,RSTART+4,RLENGTH-4); f=1; next}
//!   /^#0 /{if(f){n[l]++; if($0~/fsync|fdatasync/)s[l]++} f=0} END{print n[13881], s[13881], n[13882], s[13882]}'`
//!   prints `16 15 16 6`;
//! - the SQL thread's mutex waits: `__GI___lll_lock_wait` at frame #1 under `futex_wait`, 8 of its 16
//!   (`grep -A2 'LWP 13882' | grep -c '#1 .*__GI___lll_lock_wait'` = 8);
//! - pt-pmp: `awk '{s+=$1} END{print NR, s}' capture/2026_12_05_19_44_44-pmp` = `17 321`; its line 11 is
//!   `15 __GI_fdatasync,my_sync,MYSQL_BIN_LOG::flush_and_sync,MYSQL_BIN_LOG::write_event_buffer,::??,handle_slave_io,...`;
//! - pt-stalk: `grep -c '^Thread ' pt_stalk/2026_12_05_19_46_40-stacktrace` = 21, `grep -c '^TS'` = 0.

use iosift_parsers::common::decode::maybe_gunzip;
use iosift_parsers::gdb_stacks::{self, Frames, GdbStacks, Wait};
use iosift_parsers::pt_pmp::{self, PtPmp};
use iosift_parsers::{Format, Parsed, Stamp, Summary, detect};
use std::path::PathBuf;

fn sample(rel: &str) -> Vec<u8> {
    let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../samples/replica_io_bound_gdb")).join(rel);
    let raw = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    maybe_gunzip(&raw, 1 << 30).unwrap().into_owned()
}

fn gdb(rel: &str) -> Parsed<GdbStacks> {
    let data = sample(rel);
    let d = detect(&data).expect("detected");
    assert_eq!(d.format.id, "gdb_stacks", "{rel}");
    gdb_stacks::Fmt::parse(&data)
}

/// Stacks of one LWP: (stacks, in fsync, in a mutex).
fn of_lwp(g: &GdbStacks, lwp: u32) -> (usize, usize, usize) {
    let t: Vec<_> = g.threads.iter().filter(|t| t.lwp == Some(lwp)).collect();
    let n = |w: Wait| t.iter().filter(|t| t.wait == w).count();
    (t.len(), n(Wait::Fsync), n(Wait::Mutex))
}

#[test]
fn collect_sh_snapshots_give_the_io_thread_in_fsync() {
    let p = gdb("capture/2026_12_05_19_44_44-stacktrace.gz");
    assert_eq!(p.skipped_lines, 0, "{:?}", p.diagnostics);
    let g = &p.value;
    assert_eq!(g.snapshots.len(), 16);
    assert_eq!(g.threads.len(), 321);
    assert!(g.snapshots.iter().all(|s| s.ts.is_some() && s.pid == Some(9098)));
    // TS 1796499886.394089118 2026-12-05 19:44:46 ... TS 1796499952.961872871 2026-12-05 19:45:52
    let (Stamp::Epoch(a), Stamp::Epoch(b)) = g.time_range().unwrap() else { panic!() };
    assert!((a - 1_796_499_886.394_089).abs() < 1e-3 && (b - 1_796_499_952.961_873).abs() < 1e-3);
    assert_eq!(of_lwp(g, 13881), (16, 15, 0), "IO thread");
    assert_eq!(of_lwp(g, 13882), (16, 6, 8), "SQL thread");
    let io = g.threads.iter().find(|t| t.lwp == Some(13881) && t.wait == Wait::Fsync).unwrap();
    assert_eq!(io.entry(), Some("handle_slave_io"));
    assert_eq!(
        io.frames[..4],
        ["__GI_fdatasync", "my_sync", "MYSQL_BIN_LOG::flush_and_sync", "MYSQL_BIN_LOG::write_event_buffer"]
    );
    assert_eq!(p.value.variant()["pids"], "9098");
}

#[test]
fn pt_pmp_aggregate_of_the_same_snapshots() {
    let data = sample("capture/2026_12_05_19_44_44-pmp");
    assert_eq!(detect(&data).unwrap().format.id, "pt_pmp");
    let p: Parsed<PtPmp> = pt_pmp::Fmt::parse(&data);
    assert_eq!(p.skipped_lines, 0, "{:?}", p.diagnostics);
    let v = &p.value;
    assert_eq!((v.stacks.len(), v.total()), (17, 321));
    let io: Vec<_> = v.stacks.iter().filter(|s| s.entry() == Some("handle_slave_io")).collect();
    let fsync: u64 = io.iter().filter(|s| s.wait == Wait::Fsync).map(|s| s.count).sum();
    let all: u64 = io.iter().map(|s| s.count).sum();
    assert_eq!((fsync, all), (15, 16));
    assert_eq!(v.stacks[10].line, 11);
    assert_eq!(v.stacks[10].count, 15);
}

#[test]
fn pt_stalk_own_stacktrace_layout() {
    let p = gdb("pt_stalk/2026_12_05_19_46_40-stacktrace");
    assert_eq!(p.skipped_lines, 0, "{:?}", p.diagnostics);
    let g = &p.value;
    assert_eq!((g.snapshots.len(), g.threads.len()), (1, 21));
    assert_eq!(g.snapshots[0].ts, None);
    assert_eq!(g.snapshots[0].pid, Some(9098));
    assert_eq!(g.time_range(), None);
    // The IO thread was on a CPU: crc32_pclmul under event_checksum_test.
    let io = g.threads.iter().find(|t| t.entry() == Some("handle_slave_io")).unwrap();
    assert_eq!(io.wait, Wait::Other);
    assert_eq!(io.frames[..2], ["crc32_pclmul", "event_checksum_test"]);
}

#[test]
fn neither_format_claims_the_other_capture_files() {
    // Every other file of the capture keeps its own format.
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../samples/replica_io_bound_gdb/capture"));
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let data = maybe_gunzip(&std::fs::read(e.path()).unwrap(), 1 << 30).unwrap().into_owned();
        let id = detect(&data).map(|d| d.format.id);
        let want = if name.ends_with("-stacktrace.gz") {
            Some("gdb_stacks")
        } else if name.ends_with("-pmp") {
            Some("pt_pmp")
        } else {
            None
        };
        match want {
            Some(w) => assert_eq!(id, Some(w), "{name}"),
            None => assert!(!matches!(id, Some("gdb_stacks" | "pt_pmp")), "{name}: {id:?}"),
        }
    }
}
