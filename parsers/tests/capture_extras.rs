//! The context files of real captures (bundles of /work/shared/bundles and
//! the repository's samples/*/capture): every capture file is recognised,
//! and the extra formats give the real values.

// Epochs are quoted digit for digit from the files, nanoseconds included.
#![allow(clippy::excessive_precision)]

#[macro_use]
#[path = "support/shared.rs"]
mod support;

use std::path::{Path, PathBuf};

use iosift_parsers::common::decode::maybe_gunzip;
use iosift_parsers::{
    Format, Stamp, Summary, checksum_list, clock_reference, csv_table, dd_summary, detect, innodb_status,
    mysql_error_log, mysql_option_file, mysql_processlist, perf_record_log, perf_report, thread_list,
};

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../samples");

/// Capture files in samples/*/capture alone, and how many of them are of the extra
/// formats (counted on the repository's samples).
const MIN_SAMPLE_FILES: usize = 170;
const MIN_SAMPLE_EXTRAS: usize = 27;

/// Ground truth and documentation files that are not capture data.
fn is_ground_truth(name: &str) -> bool {
    name == "TRUTH.md"
        || name == "MANIFEST.md"
        || name == "README.md"
        || name.starts_with("truth")
        || name.starts_with("client_")
        || name.contains("transactions.csv")
}

fn capture_files() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for root in [support::root().join("bundles"), PathBuf::from(SAMPLES)] {
        let Ok(rd) = std::fs::read_dir(&root) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if !p.is_dir() || p.file_name().is_some_and(|n| n == "tools") {
                continue;
            }
            let cap = p.join("capture");
            dirs.push(if cap.is_dir() { cap } else { p });
        }
    }
    let mut files = Vec::new();
    for d in dirs {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("").to_string();
            if p.is_file() && !is_ground_truth(&name) {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

fn read(p: &Path) -> Vec<u8> {
    let raw = std::fs::read(p).unwrap();
    maybe_gunzip(&raw, 1 << 31).unwrap().into_owned()
}

/// Files of the bundles and samples no format claims, each with the reason.
const NOT_CAPTURE_DATA: &[(&str, &str)] = &[
    // Workload programs' own logs (the test harness that made the bundle), not what a collector captures.
    ("cache_prep.log", "workload log: cache preparation tool output + fincore"),
    ("gcache_sim.csv.tids", "workload log: the simulator's own thread ids"),
    ("driver.stdout", "workload log: the load driver's one-line JSON result"),
    ("summary.json", "derived: binlog_summary.py output of the bundle's test tooling"),
    // Collector bookkeeping (collect.sh): free text, no signature of its own.
    ("SKIPPED.txt", "collector bookkeeping"),
    ("collect.log", "collector bookkeeping"),
    ("collectors.pids", "collector bookkeeping"),
    ("mysql.err", "collector stderr (mysqlbinlog warning)"),
    ("gdb.err", "collector stderr (gdb: the source line it echoes when it attaches)"),
    ("perf-trace.script.err", "collector stderr (perf script: 'Processed N events and lost M chunks!')"),
    // Owned by other formats: findmnt -rno (no header) is a mounts layout, not handled yet by `mounts`.
    ("findmnt.txt", "findmnt -rno TARGET,SOURCE,FSTYPE,OPTIONS: for the mounts parser"),
    ("xfs-stat.txt", "grep -H . /proc/fs/xfs/stat: no parser yet"),
    ("df-data.txt", "df: no parser yet"),
];

fn allowed_unrecognised(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    // pt-stalk collector files iosift lists with what they hold (`common::pt_stalk::UNREAD`).
    let base = name.strip_suffix(".gz").unwrap_or(name);
    NOT_CAPTURE_DATA.iter().any(|(n, _)| name.ends_with(n))
        || iosift_parsers::common::pt_stalk::unread(base).is_some()
}

const EXTRA_IDS: &[&str] = &[
    "clock_reference",
    "perf_report",
    "thread_list",
    "innodb_status",
    "mysql_error_log",
    "mysql_option_file",
    "mysql_processlist",
    "dd_summary",
    "checksum_list",
    "perf_record_log",
    "csv_table",
];

#[test]
fn every_capture_file_is_recognised_and_extras_parse_cleanly() {
    // Without the shared bundles, the repository's own samples are still checked.
    let with_shared = support::root().join("bundles").is_dir();
    if !with_shared {
        support::skip("shared bundles not found: checking samples/*/capture only");
    }
    let (min_files, min_extras) = if with_shared { (100, 50) } else { (MIN_SAMPLE_FILES, MIN_SAMPLE_EXTRAS) };
    let files = capture_files();
    assert!(files.len() >= min_files, "found only {} capture files", files.len());
    let mut missing = Vec::new();
    let mut extras = 0;
    for p in &files {
        let data = read(p);
        match detect(&data) {
            Some(d) => {
                if EXTRA_IDS.contains(&d.format.id) {
                    extras += 1;
                    assert!(
                        d.parsed.diagnostics.is_empty(),
                        "{} ({}): {:?}",
                        p.display(),
                        d.format.id,
                        d.parsed.diagnostics
                    );
                    // A table the tool printed empty (only its `#` header: perf report of a
                    // process that was off-CPU the whole capture, samples/ix_idle_a) has none.
                    let printed_rows = String::from_utf8_lossy(&data)
                        .lines()
                        .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
                    assert!(
                        d.parsed.value.summary().records() > 0 || !printed_rows,
                        "{}: no records",
                        p.display()
                    );
                }
            }
            None if allowed_unrecognised(p) => {}
            None => missing.push(p.display().to_string()),
        }
    }
    assert!(missing.is_empty(), "not recognised:\n{}", missing.join("\n"));
    assert!(extras >= min_extras, "only {extras} files of the extra formats");
}

/// Every corpus file keeps its expected format (the extra sniffers steal nothing).
#[test]
fn corpus_keeps_expected_ids() {
    need_shared!();
    let manifest = std::fs::read_to_string(support::root().join("corpus/MANIFEST.tsv")).unwrap();
    let mut wrong = Vec::new();
    let mut n = 0;
    for line in manifest.lines().filter(|l| !l.starts_with('#')) {
        let Some((file, expected)) = line.split_once('\t') else { continue };
        let path = support::root().join("corpus").join(file);
        if path.is_dir() {
            continue; // a sysfs tree: read by the root crate file by file
        }
        let data = read(&path);
        let got = detect(&data).map(|d| d.format.id);
        n += 1;
        // (A few files are only recognised by the CLI's file-name fallback:
        // detect() gives None for them, which the extra formats do not change.)
        if expected.trim() != "-" && got.is_some() && got != Some(expected.trim()) {
            wrong.push(format!("{file}: expected {expected}, got {got:?}"));
        }
        if let Some(g) = got
            && EXTRA_IDS.contains(&g)
            && expected.trim() != "-"
        {
            wrong.push(format!("{file}: stolen by {g}"));
        }
    }
    assert!(n > 300, "{n} corpus entries");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn bundle(rel: &str) -> Vec<u8> {
    read(&support::root().join("bundles").join(rel))
}

fn sample(rel: &str) -> Vec<u8> {
    read(&Path::new(SAMPLES).join(rel))
}

fn parse_as<T: Format>(data: &[u8]) -> T::Output {
    assert_eq!(detect(data).map(|d| d.format.id), Some(T::ID));
    let p = T::parse(data);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    p.value
}

#[test]
fn clock_reference_real_timelines() {
    need_shared!();
    let c = parse_as::<clock_reference::Fmt>(&bundle("s1_mmap_writeback/timeline.txt"));
    assert_eq!(c.offset(), Some(1795979988.552291));
    assert_eq!(c.offsets.len(), 2);
    assert!((c.drift().unwrap() - (1795979988.552094 - 1795979988.552291)).abs() < 1e-9);
    assert_eq!(c.epoch_of("workload_start"), Some(1795981049.672060846));
    assert_eq!(c.epoch_of("redo_sim_exit"), Some(1795981265.310603235));
    assert_eq!(c.event("redo_sim").unwrap().text, "pid 15546");
    assert_eq!(c.method(), None);
    let (a, b) = c.time_range().unwrap();
    assert_eq!(a.display(), "2026-11-29T19:37:19.629701376Z");
    assert_eq!(b, Stamp::Epoch(1795981280.194239867));

    let c = parse_as::<clock_reference::Fmt>(&sample("buffered_copy/capture/timeline.txt"));
    assert_eq!(c.offset(), Some(1795985302.661804));
    assert_eq!(c.method(), Some("python3 time.time()-time.monotonic()"));
    assert_eq!(c.drift(), Some(0.0));
    assert_eq!(c.epoch_of("collectors_stopped_deadline"), Some(1795986928.838129194));
    // perf time 1683.5 s since boot -> wall clock
    assert_eq!(c.monotonic_to_epoch(1683.5), Some(1795985302.661804 + 1683.5));

    // s4 has no reference line: events only.
    let c = parse_as::<clock_reference::Fmt>(&bundle("s4_locale_variants/timeline.txt"));
    assert_eq!(c.offset(), None);
    assert_eq!(c.epoch_of("dd"), Some(1795981967.935665103));
    // s3 ends with meminfo lines the bundle script appended: events without epoch.
    let c = parse_as::<clock_reference::Fmt>(&bundle("s3_buffered_dd/timeline.txt"));
    assert_eq!(c.event("Dirty:").unwrap().text, "149112 kB");
    assert_eq!(c.offset(), Some(1795979988.552438));
}

#[test]
fn perf_report_real_tables() {
    need_shared!();
    let r = parse_as::<perf_report::Fmt>(&bundle("s1_mmap_writeback/perf-workload.report.txt"));
    let ev = &r.events[0];
    assert_eq!(ev.event, "cpu-clock:pppH");
    assert_eq!(ev.samples, Some(480));
    assert_eq!(ev.event_count, Some(4848484800));
    assert_eq!(ev.columns, ["Overhead", "Pid:Command", "Symbol"]);
    assert_eq!(ev.entries.len(), 18);
    let top = r.top().unwrap();
    assert_eq!((top.overhead, top.pid, top.command.as_deref()), (13.33, Some(15546), Some("redo_sim")));
    assert_eq!((top.symbol.as_deref(), top.kernel), (Some("iowrite16"), Some(true)));
    let worker = &ev.entries[4];
    assert_eq!(
        (worker.symbol.as_deref(), worker.kernel, worker.pid),
        (Some("worker"), Some(false), Some(15574))
    );
    assert_eq!(r.lost_samples, Some(0));

    let r = parse_as::<perf_report::Fmt>(&bundle("s2a_mariadb_durable/perf-workload.report.txt"));
    assert_eq!((r.events[0].samples, r.events[0].samples_rounded), (Some(5000), true));

    let r = parse_as::<perf_report::Fmt>(&sample("mariadb_fsync_durable/capture/perf-profile.report.txt"));
    assert_eq!(r.events[0].columns, ["Overhead", "Pid:Command", "Command", "Symbol"]);
    let top = r.top().unwrap();
    assert_eq!((top.overhead, top.pid), (10.40, Some(23184)));
    assert_eq!(top.symbol.as_deref(), Some("finish_task_switch.isra.0"));
}

#[test]
fn thread_lists_real() {
    need_shared!();
    let t = parse_as::<thread_list::Fmt>(&bundle("s1_mmap_writeback/workload-threads.txt"));
    assert_eq!(t.comm_of(15574), Some("gcache-w0"));
    assert_eq!(t.snapshots[0].threads[3].pid, Some(15546));
    assert_eq!(t.layout, "keywords");

    let t = parse_as::<thread_list::Fmt>(&bundle("s2a_mariadb_durable/os-threads.txt"));
    assert_eq!(t.snapshots[0].epoch, Some(1795981346.295302628));
    assert_eq!(t.records(), 25);
    assert_eq!(t.snapshots[0].threads.iter().filter(|x| x.label.as_deref() == Some("driver")).count(), 5);
    assert_eq!(t.comm_of(19867), Some("python"));

    let t = parse_as::<thread_list::Fmt>(&sample("buffered_copy/capture/threads-22054-mariadbd.txt"));
    assert_eq!(t.snapshots.len(), 2);
    assert_eq!(t.snapshots[0].threads.len(), 21);
    assert_eq!(t.layout, "pid tid comm");
    let t = parse_as::<thread_list::Fmt>(&sample("mmap_large_folio/capture/threads-20837-mmap_store.txt"));
    assert_eq!(t.comm_of(20844), Some("mstore-1"));
    assert_eq!(t.snapshots.len(), 6);
}

#[test]
fn mysql_extras_real() {
    need_shared!();
    let cnf = parse_as::<mysql_option_file::Fmt>(&bundle("s2a_mariadb_durable/my.cnf"));
    assert_eq!(cnf.get("sync_binlog"), Some("1"));
    assert_eq!(cnf.get("innodb-flush-log-at-trx-commit"), Some("1"));
    assert_eq!(cnf.get("innodb_buffer_pool_size"), Some("512M"));
    assert_eq!(cnf.get("bind_address"), Some("127.0.0.1"));
    assert_eq!(cnf.get("skip_name_resolve"), Some("1"));
    assert_eq!(cnf.get("socket"), Some("/var/lib/mysql-test/mariadb.sock"));
    assert_eq!(cnf.get_in("client", "socket"), Some("/var/lib/mysql-test/mariadb.sock"));
    assert_eq!(cnf.groups.iter().map(|g| g.name.as_str()).collect::<Vec<_>>(), ["client", "mariadbd"]);

    let st = parse_as::<innodb_status::Fmt>(&bundle("s2a_mariadb_durable/innodb-status-end.txt"));
    let m = &st.monitors[0];
    assert_eq!(m.os_fsyncs(), Some(176762.0));
    assert_eq!(m.log_sequence_number(), Some(84174596.0));
    assert_eq!(m.modified_db_pages(), Some(942.0));
    assert_eq!(m.get("Buffer pool size"), Some(32448.0));
    assert_eq!(m.history_list_length(), Some(0.0));
    assert_eq!(m.averages_over_s, Some(8.0));
    assert_eq!(m.stamp.unwrap().display(), "2026-11-29T19:44:36");
    assert!(m.sections.iter().any(|s| s.name == "BUFFER POOL AND MEMORY"));

    let log = parse_as::<mysql_error_log::Fmt>(&bundle("s2a_mariadb_durable/mariadb-error.log"));
    assert_eq!(log.entries.len(), 30);
    assert_eq!(log.with_level("warning").count(), 2);
    assert_eq!(log.version(), Some("10.11.19-MariaDB-0+deb12u1-log"));
    assert_eq!(log.entries[5].message, "InnoDB: Using io_uring");
    let (a, b) = log.time_range().unwrap();
    assert_eq!((a.display().as_str(), b.display().as_str()), ("2026-11-29T19:28:28", "2026-11-29T19:58:18"));

    let pl = parse_as::<mysql_processlist::Fmt>(&bundle("s2a_mariadb_durable/processlist.tsv"));
    assert_eq!(pl.processes.len(), 6);
    assert_eq!(pl.active().count(), 5);
    let last = &pl.processes[5];
    assert_eq!(
        (last.id, last.info.as_deref(), last.state.as_deref()),
        (27, Some("SHOW FULL PROCESSLIST"), Some("starting"))
    );
    assert_eq!(pl.processes[0].state, None);
    assert_eq!(pl.processes[1].progress, Some(0.0));

    let sums = parse_as::<checksum_list::Fmt>(&bundle("s2a_mariadb_durable/mariadb-bin.000002.sha256"));
    assert_eq!(
        sums.digest_of("mariadb-bin.000002"),
        Some("e3b4bbfc627a379c53cce92c23a152525b18340f597ade784df504256b5fffda")
    );
    assert_eq!(sums.entries[0].algorithm, "sha256");
}

#[test]
fn dd_perf_record_and_tables_real() {
    need_shared!();
    let dd = parse_as::<dd_summary::Fmt>(&bundle("s3_buffered_dd/dd.stderr"));
    let r = &dd.runs[0];
    assert_eq!((r.records_in, r.records_out), (Some((300, 0)), Some((300, 0))));
    assert_eq!((r.bytes, r.seconds, r.rate.as_deref()), (Some(3145728000), Some(12.4194), Some("253 MB/s")));
    assert_eq!(dd.messages.len(), 2);
    let dd = parse_as::<dd_summary::Fmt>(&bundle("s4_locale_variants/dd.stderr"));
    assert_eq!(dd.runs[0].bytes, Some(536870912));
    let dd = parse_as::<dd_summary::Fmt>(&sample("ext4_dioread_nolock_derived/capture/dd.txt"));
    assert_eq!(dd.commands, ["dd if=/dev/zero of=/data/badfile bs=10M count=1000"]);

    let pr = parse_as::<perf_record_log::Fmt>(&bundle("s1_mmap_writeback/perf-trace.record.log"));
    assert_eq!((pr.wakeups, pr.written_mb, pr.samples), (Some(127), Some(31.924), Some(245176)));
    assert_eq!(pr.data_path.as_deref(), Some("/srv/captures/s1_mmap_writeback/perf-trace.data"));

    let t = parse_as::<csv_table::Fmt>(&bundle("s1_mmap_writeback/redo_sim_ops.csv"));
    assert_eq!(t.columns, ["epoch_start", "bytes", "write_us", "fsync_us"]);
    assert_eq!(t.rows.len(), 10751);
    assert_eq!(t.numbers("fsync_us").unwrap()[0], Some(4205.0));
    assert_eq!(t.time_range().unwrap().0, Stamp::Epoch(1795981049.681113));
    let t = parse_as::<csv_table::Fmt>(&bundle("s1_mmap_writeback/gcache_sim.csv"));
    assert_eq!(t.numbers("updates_in_last_second").unwrap()[0], Some(1003.0));
    let t =
        parse_as::<csv_table::Fmt>(&bundle("s2a_mariadb_durable/binlog-mariadb-bin.000002.per_second.csv"));
    assert_eq!(t.rows.len(), 121);
    assert_eq!(t.columns[t.epoch_column.unwrap()], "epoch");
    let t = parse_as::<csv_table::Fmt>(&sample("mariadb_fsync_durable/capture/mysql-binary-logs-end.tsv"));
    assert_eq!((t.delimiter, t.rows[2][1].as_str()), ('\t', "24281170"));
}
