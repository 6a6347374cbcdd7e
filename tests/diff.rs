//! `iosift diff`: the two sample pairs of issue 22, with the expected values read
//! from each sample's truth.json (measured when the capture was taken, not by
//! iosift): durable vs relaxed MariaDB (commit rate, flushes per second, the two
//! durability variables, the fsync finding vanishing) and large-folio vs 4k mmap
//! writeback (burst size, FilePmdMapped, the amplification finding vanishing).
//! Plus the command line (`--json`, the default folder, `--align-a`) and the page
//! in headless Chromium (skipped visibly when chromium is absent).

use crate::common;

use iosift::diff::{Change, DiffDoc, Side, context};
use iosift::model::Report;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_iosift");

fn capture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(name).join("capture")
}

fn truth(name: &str) -> serde_json::Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(name).join("truth.json");
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap()
}

fn num(v: &serde_json::Value, path: &[&str]) -> f64 {
    let mut x = v;
    for k in path {
        x = &x[*k];
    }
    x.as_f64().unwrap_or_else(|| panic!("truth.json has no number at {path:?}"))
}

fn analyzed(name: &str) -> (Report, context::Facts, Vec<iosift::diff::measures::Measure>) {
    let b = iosift::bundle::load(&[capture(name)], &Default::default()).unwrap();
    let r = iosift::analyze::analyze(&b, &Default::default());
    let (facts, extra) = context::gather(&r);
    (r, facts, extra)
}

fn diff_of(a: &str, b: &str) -> (DiffDoc, Report, Report) {
    let (ra, fa, ea) = analyzed(a);
    let (rb, fb, eb) = analyzed(b);
    let doc = iosift::diff::diff(
        &Side { report: &ra, facts: fa, extra: ea, align: None },
        &Side { report: &rb, facts: fb, extra: eb, align: None },
    )
    .unwrap();
    (doc, ra, rb)
}

fn change<'a>(doc: &'a DiffDoc, key: &str) -> &'a Change {
    doc.changes.iter().find(|c| c.key == key).unwrap_or_else(|| panic!("no change {key}"))
}

/// Within `tol` (a fraction) of the truth.
fn near(got: Option<f64>, want: f64, tol: f64, what: &str) {
    let g = got.unwrap_or_else(|| panic!("{what}: unknown, want {want}"));
    assert!((g - want).abs() <= tol * want.abs(), "{what}: {g} is not within {:.0} % of {want}", tol * 100.0);
}

#[test]
fn durable_vs_relaxed_mariadb() {
    let (ta, tb) = (truth("mariadb_fsync_durable"), truth("mariadb_relaxed"));
    let (doc, _, _) = diff_of("mariadb_fsync_durable", "mariadb_relaxed");
    // Commit rate over the load window: 1178 vs truth 1182.8, 2772.1 vs 2772.1.
    let c = change(&doc, "db.commit_rate");
    near(c.a, num(&ta, &["load", "tps"]), 0.02, "A commit rate");
    near(c.b, num(&tb, &["load", "tps"]), 0.02, "B commit rate");
    assert_eq!(c.change, "changed");
    assert!(c.ratio.unwrap() > 2.0, "{c:?}");
    // Device flushes per second during the load: 1606 vs truth 1652.6 (iostat's f/s in the
    // benchmark's seconds; iostat runs 2 s behind mysqladmin), 13.48 vs 13.52.
    let f = change(&doc, "db.flushes_s");
    near(f.a, num(&ta, &["iostat_vda_during_load", "f_s_mean"]), 0.05, "A flushes/s");
    near(f.b, num(&tb, &["iostat_vda_during_load", "f_s_mean"]), 0.05, "B flushes/s");
    // Flushes per transaction: about 1.4 -> about 0.005.
    let p = change(&doc, "db.flushes_per_trx");
    assert!(p.a.unwrap() > 1.0 && p.b.unwrap() < 0.01, "{p:?}");
    // The ranked list puts the flush changes above the unchanged bytes per transaction.
    let rank = |k: &str| doc.changes.iter().position(|c| c.key == k).unwrap();
    assert!(rank("db.flushes_s") < rank("db.bytes_per_trx"));
    assert_eq!(change(&doc, "db.bytes_per_trx").change, "same");
    // The two durability variables, the first facts of the context diff.
    let var = |name: &str| {
        doc.context
            .iter()
            .find(|c| c.key == format!("mysql {name}"))
            .unwrap_or_else(|| panic!("{name} not in the diff"))
    };
    for name in ["innodb_flush_log_at_trx_commit", "sync_binlog"] {
        let v = var(name);
        assert_eq!(v.a.as_deref(), Some(ta[name].to_string().as_str()), "{name} in A");
        assert_eq!(v.b.as_deref(), Some(tb[name].to_string().as_str()), "{name} in B");
    }
    assert_eq!(doc.context[0].key, "mysql innodb_flush_log_at_trx_commit");
    assert_eq!(doc.context[1].key, "mysql sync_binlog");
    // The fsync finding fires in A only (truth: expect_fire / expect_not_fire).
    let rule = ta["expect_fire"][0].as_str().unwrap();
    assert!(tb["expect_not_fire"].as_array().unwrap().iter().any(|r| r == rule));
    let fc = doc.findings.iter().find(|f| f.rule == rule).unwrap();
    assert_eq!(fc.change, "vanished");
    assert_eq!(doc.findings[0].rule, rule);
    // The headline answers first: the finding that vanished with its commit rate, then the
    // settings; the commit rate is the first ranked change.
    assert!(
        doc.headline[0].starts_with("Commits bound by fsync of small transactions: vanished; commit rate")
    );
    assert!(doc.headline[0].ends_with("1163 /s -> 2772 /s"), "{}", doc.headline[0]);
    assert_eq!(doc.headline[1], "settings: innodb_flush_log_at_trx_commit 1 -> 2, sync_binlog 1 -> 0");
    assert_eq!((doc.changes[0].key.as_str(), doc.changes[0].deciding), ("db.commit_rate", true));
}

#[test]
fn io_bound_vs_sql_bound_replica() {
    let (doc, _, _) = diff_of("replica_io_bound", "replica_sql_bound");
    // Both replicas fall behind; what changed is the side that bounds them.
    let lag = doc.findings.iter().find(|f| f.rule == "replication_lag").unwrap();
    assert_eq!(lag.change, "persists");
    let v: Vec<(&str, &str, &str)> =
        lag.verdict_changes.iter().map(|t| (t.key.as_str(), t.a.as_str(), t.b.as_str())).collect();
    assert_eq!(v, [("bound_by", "io_thread", "sql_thread")]);
    assert!(lag.decides());
    // Ranked among the findings whose verdict changed, before the info finding that appeared.
    let rank = |r: &str| doc.findings.iter().position(|f| f.rule == r).unwrap();
    assert!(rank("replication_lag") < rank("periodic_write_bursts"), "{:?}", doc.findings);
    let line = doc.headline.iter().position(|h| h.contains("bound by io thread -> sql thread")).unwrap();
    assert!(line <= 1, "{:?}", doc.headline);
    assert!(doc.headline[line].starts_with("Replication lag: "), "{}", doc.headline[line]);
    // The settings line names the replica's relay-log durability beside the commit's.
    let settings = doc.headline.iter().find(|h| h.starts_with("settings: ")).unwrap();
    assert!(settings.contains("sync_relay_log 1 -> 0"), "{settings}");
    // The measure of every finding whose verdict changed ranks before the other changes.
    let deciding: Vec<&str> = doc.changes.iter().take_while(|c| c.deciding).map(|c| c.key.as_str()).collect();
    assert_eq!(deciding.len(), 3, "{deciding:?}");
    for k in ["db.commit_rate", "replication.lag_max", "bursts.period_s"] {
        assert!(deciding.contains(&k), "{k} in {deciding:?}");
    }
}

#[test]
fn the_replication_and_durability_variables_are_compared() {
    // Read from mysql-variables.tsv of the replica (MariaDB 11): relay-log and position durability.
    let (_, facts, _) = analyzed("replica_io_bound");
    let var = |n: &str| facts.get(&format!("mysql {n}")).map(|f| f.value.as_str());
    for (name, want) in [
        ("sync_binlog", "1"),
        ("innodb_flush_log_at_trx_commit", "1"),
        ("sync_relay_log", "1"),
        ("sync_relay_log_info", "10000"),
        ("sync_master_info", "10000"),
        ("relay_log_recovery", "OFF"),
        ("log_slave_updates", "ON"),
        ("slave_parallel_threads", "0"),
        ("slave_parallel_mode", "optimistic"),
        ("binlog_commit_wait_count", "0"),
        ("innodb_flush_log_at_timeout", "1"),
    ] {
        assert_eq!(var(name), Some(want), "{name}");
    }
}

/// A diff key and the finding metric holding the same number (the diff's value is the metric
/// times the factor: the diff writes shares in %).
const SHARED: &[(&str, &str, &str, f64)] = &[
    ("db.commit_rate", "fsync_bound_small_transactions", "transactions_per_s", 1.0),
    ("db.flushes_s", "fsync_bound_small_transactions", "flushes_per_s", 1.0),
    ("db.flushes_per_trx", "fsync_bound_small_transactions", "flushes_per_transaction", 1.0),
    ("db.bytes_per_trx", "fsync_bound_small_transactions", "bytes_per_transaction", 1.0),
    ("db.fsync_share", "fsync_bound_small_transactions", "fsync_sample_share", 100.0),
    ("replication.lag_max", "replication_lag", "lag_max_s", 1.0),
    ("replication.lag_growth", "replication_lag", "lag_growth_s_per_s", 1.0),
    ("bursts.period_s", "periodic_write_bursts", "period_s", 1.0),
    ("bursts.median_bytes", "periodic_write_bursts", "burst_bytes_median", 1.0),
    ("bursts.count", "periodic_write_bursts", "bursts", 1.0),
];

#[test]
fn the_diff_and_the_report_state_the_same_numbers() {
    // A capture compared with itself is compared whole: every number the diff and a finding
    // both state must be the same, as findings.json writes it (three decimals).
    let mut compared = Vec::new();
    for name in ["mariadb_fsync_durable", "replica_io_bound", "replica_sql_bound", "mmap_large_folio"] {
        let (doc, r, _) = diff_of(name, name);
        assert_eq!(doc.compared_s as i64, r.timeline.seconds(), "{name} is compared whole");
        for (key, rule, metric, factor) in SHARED {
            let Some(f) = r.doc.findings.iter().find(|f| f.rule == *rule) else { continue };
            // The periodic rule of a submitter (perf or pidstat) states the submitter's bursts.
            if f.metrics.contains_key("submitter") && key.starts_with("bursts.") {
                continue;
            }
            let want = f.metrics[metric].value.as_f64().unwrap_or_else(|| panic!("{name} {rule}.{metric}"));
            let c = change(&doc, key);
            let got = iosift::verdict::number(c.a.unwrap() / factor);
            assert_eq!(got.as_f64(), Some(want), "{name}: diff {key} vs {rule}.{metric}");
            assert_eq!(c.a, c.b, "{name}: {key} is the same on both sides");
            compared.push(format!("{name} {key}"));
        }
    }
    // fsync in 2 captures (5 numbers each), the lag in 2 (2 each), the bursts in 2 or more.
    assert!(compared.len() >= 17, "only {} numbers compared: {compared:?}", compared.len());
}

#[test]
fn large_folio_vs_4k_mmap_writeback() {
    let (ta, tb) = (truth("mmap_large_folio"), truth("mmap_periodic_4k"));
    let (doc, _, _) = diff_of("mmap_large_folio", "mmap_periodic_4k");
    // Burst size, the device's bytes in the bursts one period apart (the periodic finding's):
    // 799 MB vs truth 774 MB for the file (the burst plus its tail). In B other tenants write
    // ~40 MB every 5 s beside the file: 85.5 MB, between the file's 50.5 MB and what iostat
    // wrote in the burst seconds plus 2 s (truth: 86-123 MB, median 100 MB).
    let s = change(&doc, "bursts.median_bytes");
    near(s.a, num(&ta, &["burst_bytes_median"]), 0.05, "A burst size");
    let iostat: Vec<f64> = tb["bursts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| num(b, &["device_write_kB_iostat_burst_plus_2s"]) * 1024.0)
        .collect();
    let b = s.b.unwrap();
    assert!(
        b > num(&tb, &["burst_bytes_median"]) && b < iostat.iter().copied().fold(0.0, f64::max),
        "{b} vs {iostat:?}"
    );
    // About nine times smaller.
    assert!(s.ratio.unwrap() < 0.12, "{s:?}");
    // The period stays (31 s vs 32 s in truth).
    let per = change(&doc, "bursts.period_s");
    near(per.a, num(&ta, &["period_s"]), 0.1, "A period");
    near(per.b, num(&tb, &["period_s"]), 0.1, "B period");
    // FilePmdMapped: 1 GiB of the writer's mapping in A, none in B.
    let m = change(&doc, "memory.smaps_file_pmd_mapped");
    assert_eq!(m.a, Some(num(&ta, &["FilePmdMapped_kB"]) * 1024.0));
    assert_eq!(m.b, Some(num(&tb, &["FilePmdMapped_kB"]) * 1024.0));
    assert_eq!(m.change, "vanished");
    // System-wide (/proc/meminfo) peak: 1.01 GiB (the mapping plus 14 MiB of others) vs 2 MiB.
    let mi = change(&doc, "memory.file_pmd_mapped_peak");
    near(mi.a, num(&ta, &["meminfo_FilePmdMapped_kB"]) * 1024.0, 0.05, "A meminfo FilePmdMapped");
    assert!(mi.b.unwrap() < 0.01 * mi.a.unwrap(), "{mi:?}");
    // The amplification finding vanishes and ranks first; periodic bursts persist.
    let rule = "mmap_large_folio_writeback";
    assert!(ta["expect_fire"].as_array().unwrap().iter().any(|r| r == rule));
    assert!(tb["expect_not_fire"].as_array().unwrap().iter().any(|r| r == rule));
    assert_eq!(doc.findings[0].rule, rule);
    assert_eq!(doc.findings[0].change, "vanished");
    let periodic = doc.findings.iter().find(|f| f.rule == "periodic_write_bursts").unwrap();
    assert_eq!(periodic.change, "persists");
    // The top three measured changes hold the burst size and FilePmdMapped.
    let top: Vec<&str> = doc.changes.iter().take(3).map(|c| c.key.as_str()).collect();
    assert!(top.contains(&"bursts.median_bytes") && top.contains(&"memory.smaps_file_pmd_mapped"), "{top:?}");
    // Same kernel, same mounts and sysctls: the context diff is empty.
    assert!(doc.context.iter().all(|c| c.group != "kernel" && c.group != "sysctl"), "{:?}", doc.context);
}

#[test]
fn cli_json_default_folder_and_alignment() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .current_dir(tmp.path())
        .args(["diff", "--json", "--align-b", "+10s"])
        .arg(capture("mmap_large_folio"))
        .arg(capture("mmap_periodic_4k"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let dir = tmp.path().join("reports/diff-mmap_large_folio-mmap_periodic_4k");
    let written = std::fs::read_to_string(dir.join("diff.json")).unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), written);
    let doc: serde_json::Value = serde_json::from_str(&written).unwrap();
    assert_eq!(doc["b"]["aligned_after_start_s"], 10);
    assert_eq!(doc["a"]["aligned_after_start_s"], 0);
    assert!(doc["changes"].as_array().unwrap().iter().any(|c| c["key"] == "bursts.median_bytes"));
    assert!(dir.join("index.html").exists());
    // An alignment outside the capture is a usage error naming the capture.
    let out = Command::new(BIN)
        .current_dir(tmp.path())
        .args(["diff", "-q", "--align-a", "+3h"])
        .arg(capture("mmap_large_folio"))
        .arg(capture("mmap_periodic_4k"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("outside mmap_large_folio"), "{err}");
}

#[test]
fn capture_text_is_escaped_on_the_page() {
    // Two hand-made bundles (a real vmstat of the samples plus a sysctl and a mounts
    // file whose text is markup): the differing values must appear as text.
    let tmp = tempfile::tempdir().unwrap();
    let vmstat = std::fs::read(capture("mmap_periodic_4k").join("vmstat-t.txt")).unwrap();
    for (d, ratio, target) in [("a", "20", "/data"), ("b", "20<script>alert(1)</script>", "/data<img>")] {
        let dir = tmp.path().join(d);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("vmstat-t.txt"), &vmstat).unwrap();
        std::fs::write(dir.join("sysctl-vm.txt"), format!("vm.dirty_ratio = {ratio}\n")).unwrap();
        std::fs::write(dir.join("proc-mounts.txt"), format!("/dev/vda1 {target} ext4 rw,noatime 0 0\n"))
            .unwrap();
    }
    let out_dir = tmp.path().join("out");
    let out = Command::new(BIN)
        .args(["diff", "-q", "-o"])
        .arg(&out_dir)
        .arg(tmp.path().join("a"))
        .arg(tmp.path().join("b"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let page = std::fs::read_to_string(out_dir.join("index.html")).unwrap();
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("diff.json")).unwrap()).unwrap();
    let ctx = doc["context"].as_array().unwrap();
    let ratio = ctx.iter().find(|c| c["key"] == "sysctl vm.dirty_ratio").expect("the sysctl differs");
    assert_eq!(ratio["b"], "20<script>alert(1)</script>");
    assert!(ctx.iter().any(|c| c["key"] == "mount /data<img>" && c["a"].is_null()), "{ctx:?}");
    assert!(page.contains("20&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(page.contains("mount /data&lt;img&gt;"));
    let lower = page.to_ascii_lowercase();
    assert!(!lower.contains("<script") && !lower.contains("<img"), "no element from the capture");
}

#[test]
fn chromium_renders_the_diff_page() {
    let Some(chromium) = common::on_path("chromium") else {
        common::support::skip("chromium not found (CI installs Debian's chromium)");
        return;
    };
    let (doc, ra, rb) = diff_of("mariadb_fsync_durable", "mariadb_relaxed");
    let tmp = tempfile::tempdir().unwrap();
    iosift::diff::write(&doc, &ra, &rb, tmp.path()).unwrap();
    let url = format!("file://{}", tmp.path().join("index.html").display());
    let page = common::load_page(&chromium, tmp.path(), &url);
    assert!(page.png.len() > 60_000, "screenshot is {} bytes (blank?)", page.png.len());
    assert!(page.console.is_empty(), "console messages: {:?}", page.console);
    let dom = page.dom;
    assert!(dom.contains("Ranked changes") && dom.contains("sync_binlog"), "{}", &dom[..dom.len().min(500)]);
    assert!(dom.matches("<svg").count() >= 4, "the overlaid charts are in the DOM");
}

#[test]
fn the_terminal_headline_wraps_to_the_terminal_width() {
    let tmp = tempfile::tempdir().unwrap();
    let o = Command::new(BIN)
        .arg("diff")
        .arg(capture("replica_io_bound"))
        .arg(capture("replica_sql_bound"))
        .arg("-o")
        .arg(tmp.path().join("d"))
        .env("COLUMNS", "60")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let head: Vec<&str> = out.lines().skip(1).take_while(|l| !l.starts_with("then the measures")).collect();
    assert!(head.len() > 4, "{out}");
    assert!(head.iter().all(|l| l.chars().count() <= 60), "{head:#?}");
    let joined = head.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
    assert!(joined.contains("Replication lag: bound by io thread -> sql thread;"), "{joined}");
    assert!(head[0].starts_with("  Commits bound by fsync") && head[1].starts_with("    "), "{head:#?}");
}
