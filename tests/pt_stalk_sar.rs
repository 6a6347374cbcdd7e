//! End-to-end on the real pt-stalk 3.2.1 capture of MariaDB under tiny
//! transactions (`samples/pt_stalk_mariadb`) and on the sysstat capture of the
//! same run (`samples/sar_mariadb`): every file recognised or listed with what
//! it holds, mpstat CPU on the timeline, the commit rate against the clients'
//! own counts, sar/sadf/sa series on the timeline, one source per measurement.

use crate::common;

use iosift::analyze::analyze;
use iosift::bundle::{Limits, load, split_pt_stalk};
use iosift::model::Report;
use iosift::pipeline::Options;
use std::path::PathBuf;

fn sample(rel: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/samples")).join(rel)
}

/// The report of one pt-stalk collection (`prefix`) of the sample.
fn pt_stalk(prefix: &str) -> Report {
    let b = load(&[sample("pt_stalk_mariadb/capture")], &Limits::default()).expect("loads");
    let one = split_pt_stalk(b).into_iter().find(|b| b.name.ends_with(prefix)).expect("the collection");
    analyze(&one, &Options::default())
}

fn truth() -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(sample("pt_stalk_mariadb/truth.json")).unwrap()).unwrap()
}

/// The value of a timeline column at an epoch second.
fn at(r: &Report, col: &str, epoch: i64) -> Option<f64> {
    let t = &r.timeline;
    t.get(col)?.get(usize::try_from(epoch - t.t0).ok()?).and_then(iosift::table::Cell::get)
}

#[test]
fn every_pt_stalk_file_is_recognised_or_listed_with_what_it_holds() {
    for prefix in ["2026_12_01_19_14_22", "2026_12_01_19_14_57"] {
        let r = pt_stalk(prefix);
        let inputs = &r.doc.bundle.inputs;
        assert!(inputs.len() >= 30, "{prefix}: {} files", inputs.len());
        for i in inputs {
            let listed = i.note.as_deref().is_some_and(|n| n.starts_with("pt-stalk collector file: "));
            assert!(i.format.is_some() || listed, "{}: {:?}", i.path, i.note);
            assert_eq!(i.skipped_lines, 0, "{}: {:?}", i.path, i.diagnostics);
        }
        let fmt = |suffix: &str| {
            inputs.iter().find(|i| i.path.ends_with(suffix)).and_then(|i| i.format).unwrap_or("none")
        };
        for (suffix, id) in [
            ("-ps", "ps"),
            ("-top.gz", "top"),
            ("-mpstat", "mpstat"),
            ("-variables", "mysql_variables"),
            ("-processlist", "mysql_processlist"),
            ("-netstat", "netstat"),
            ("-netstat_s", "netstat"),
            ("-interrupts", "interrupts"),
            ("-df", "df"),
        ] {
            assert_eq!(fmt(suffix), id, "{prefix}{suffix}");
        }
    }
}

#[test]
fn mpstat_cpu_is_on_the_timeline() {
    let r = pt_stalk("2026_12_01_19_14_22");
    // `19:14:24     all   63.68    0.00   32.34    0.00    0.00    3.98 ...` covers the second 19:14:23
    // (epoch 1796152463); %system counts the interrupts, as sar -u prints it: 32.34 + 0.00 + 3.98.
    assert_eq!(at(&r, "cpu.user_pct", 1_796_152_463), Some(63.68));
    assert_eq!(at(&r, "cpu.system_pct", 1_796_152_463).map(|x| (x * 100.0).round() / 100.0), Some(36.32));
    // `19:14:24       1   56.00 ... 0.00` (core 1, %idle 0.00): busy 100 %.
    assert_eq!(at(&r, "cpu.1.busy_pct", 1_796_152_463), Some(100.0));
    let col = &r.timeline.columns["cpu.user_pct"];
    assert!(col.source.ends_with("2026_12_01_19_14_22-mpstat"), "{}", col.source);
    assert!(col.values.iter().flatten().count() >= 29);
    let overall = r.doc.bundle.inputs.iter().find(|i| i.path.ends_with("-mpstat-overall")).unwrap();
    assert!(overall.note.as_deref().is_some_and(|n| n.contains("finer interval")), "{:?}", overall.note);
    // top: processes in D state and the database servers' CPU.
    assert!(r.timeline.get("top.d_state").is_some_and(|v| v.iter().flatten().count() >= 10));
    assert!(r.timeline.names_with_prefix("proc.").count() >= 1);
    // The report's state table: the server found through -variables' port and -netstat.
    let state = |w: &str| r.state.iter().find(|s| s.what.starts_with(w)).map(|s| s.value.clone());
    assert_eq!(state("database server process").as_deref(), Some("23847/mariadbd listening on port 3320"));
    assert!(state("CPU of the database server (pid 23847)").is_some());
    // innodbstatus1 line 22: `History list length 955`.
    assert_eq!(state("InnoDB history list length").as_deref(), Some("955"));
    assert!(state("connections (30 processlist snapshots)").is_some_and(|v| v.contains("Commit")));
}

#[test]
fn the_commit_rate_is_the_clients_rate() {
    let t = truth();
    for (k, prefix) in ["2026_12_01_19_14_22", "2026_12_01_19_14_57"].iter().enumerate() {
        let r = pt_stalk(prefix);
        let f = r.doc.findings.iter().find(|f| f.rule == "fsync_bound_small_transactions").expect("fires");
        let tps = f.metrics["transactions_per_s"].value.as_f64().unwrap();
        let clients = t["windows"][k]["client_tps_mean"].as_f64().unwrap();
        // Binlog_commits: one per transaction. Handler_commit would give ~2.4x, Com_commit ~0.1x.
        assert!((tps / clients - 1.0).abs() < 0.05, "{prefix}: {tps} vs clients {clients}");
        assert!(f.metrics["commit_counter"].value.as_str().is_some_and(|c| c.starts_with("Binlog_commits")));
        assert_eq!(f.metrics["sync_binlog"].value.as_f64(), Some(1.0), "-variables read");
        assert_eq!(f.metrics["innodb_flush_log_at_trx_commit"].value.as_f64(), Some(1.0));
    }
}

#[test]
fn sar_sadf_and_the_sa_file_feed_the_timeline_once() {
    let b = load(&[sample("sar_mariadb/capture")], &Limits::default()).expect("loads");
    let r = analyze(&b, &Options::default());
    // `19:14:14 ... 34916.00 ... vda` (sar -d -p): second 19:14:13 = epoch 1796152453.
    assert_eq!(at(&r, "dev.vda.w_bytes_s", 1_796_152_453), Some(34916.0 * 1024.0));
    assert_eq!(at(&r, "dev.vda.util_pct", 1_796_152_453), Some(29.2));
    // `-B`: pgpgout/s 50460.00 at 19:14:15; `-r`: kbdirty 131536 at 19:14:16.
    assert_eq!(at(&r, "vm.pgpgout_s", 1_796_152_454), Some(50460.0));
    assert_eq!(at(&r, "mem.dirty_bytes", 1_796_152_456), Some(131536.0 * 1024.0));
    assert_eq!(at(&r, "cpu.user_pct", 1_796_152_453), Some(81.41));
    // Nine renderings of one sadc run: one is used, the others say which.
    let notes = r
        .doc
        .bundle
        .inputs
        .iter()
        .filter(|i| i.note.as_deref().is_some_and(|n| n.contains("not counted twice")));
    assert!(notes.count() >= 7);
}

#[test]
fn the_sa_file_read_through_sadf_gives_the_text_series() {
    if common::on_path("sadf").is_none() {
        common::support::skip("no sadf on PATH");
        return;
    }
    let b = load(&[sample("sar_mariadb/capture")], &Limits::default()).expect("loads");
    let file = |name: &str| b.files.iter().find(|f| f.name.ends_with(name)).unwrap();
    let (sa, _) = iosift::inspect::detect_file(file("sa.bin.gz")).unwrap();
    let iosift_parsers::Data::SaBinary(sa) = sa.parsed.value else { panic!("not sa_binary") };
    assert!(
        sa.reader.as_deref().is_some_and(|r| r.contains("sadf -j") && r.contains("sysstat 12.6.1")),
        "{:?}",
        sa.reader
    );
    let (txt, _) = iosift::inspect::detect_file(file("sar_C.txt")).unwrap();
    let iosift_parsers::Data::Sar(txt) = txt.parsed.value else { panic!("not sar") };
    let bin = sa.decoded.expect("decoded");
    use iosift_parsers::sar::Activity::*;
    for (a, item, col) in [
        (Disk, Some("vda"), "wkB/s"),
        (Cpu, Some("all"), "%usr"),
        (Memory, None, "kbdirty"),
        (Paging, None, "pgpgout/s"),
    ] {
        let x: Vec<f64> = bin.series(a, item, col).iter().map(|p| p.1).collect();
        let y: Vec<f64> = txt.series(a, item, col).iter().map(|p| p.1).collect();
        assert_eq!(x.len(), 119);
        assert_eq!(x, y, "{a:?} {col}");
    }
}

#[test]
fn a_sa_file_of_another_sysstat_names_the_sadf_to_use() {
    let rel = "field/other/mw2q-monetdb-power-100g__sar_raw.out";
    if !common::support::has(rel) {
        return;
    }
    if common::on_path("sadf").is_none() {
        common::support::skip("no sadf on PATH");
        return;
    }
    let p = common::support::path(rel);
    let reports =
        iosift::inspect::inspect_bundle(&load(&[p], &Limits::default()).unwrap(), &Options::default());
    let r = &reports[0];
    assert_eq!(r.format, Some("sa_binary"));
    let d = &r.diagnostics[0].text;
    assert!(d.contains("sysstat 10.1.5") && d.contains("sadf -c"), "{d}");
}
