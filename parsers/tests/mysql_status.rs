//! MySQL/MariaDB formats (mysql_variables, mysql_threads, mysqladmin_ext) on
//! the s2a bundle and on fixtures made with the MariaDB client.

#[macro_use]
#[path = "support/shared.rs"]
mod support;

use iosift_parsers::common::decode::maybe_gunzip;
use iosift_parsers::mysql_threads::Threads;
use iosift_parsers::mysql_variables::Variables;
use iosift_parsers::mysqladmin_ext::MysqladminExt;
use iosift_parsers::{Data, Parsed, detect};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mysql");
const S2A: &str = "bundles/s2a_mariadb_durable";

fn read(path: &str) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    maybe_gunzip(&raw, 1 << 30).unwrap().into_owned()
}

fn detected(input: &[u8], id: &str, what: &str) -> Parsed<Data> {
    let d = detect(input).unwrap_or_else(|| panic!("{what}: nothing detected"));
    assert_eq!(d.format.id, id, "{what}");
    assert!(d.parsed.diagnostics.is_empty(), "{what}: {:?}", d.parsed.diagnostics.first());
    assert_eq!(d.parsed.skipped_lines, 0, "{what}");
    d.parsed
}

fn variables(input: &[u8], what: &str) -> Variables {
    match detected(input, "mysql_variables", what).value {
        Data::MysqlVariables(v) => v,
        other => panic!("{what}: {other:?}"),
    }
}

fn threads(input: &[u8], what: &str) -> Threads {
    match detected(input, "mysql_threads", what).value {
        Data::MysqlThreads(v) => v,
        other => panic!("{what}: {other:?}"),
    }
}

fn admin(input: &[u8], what: &str) -> MysqladminExt {
    match detected(input, "mysqladmin_ext", what).value {
        Data::MysqladminExt(v) => v,
        other => panic!("{what}: {other:?}"),
    }
}

fn fixture(name: &str) -> Vec<u8> {
    read(&format!("{FIXTURES}/{name}"))
}

#[test]
fn s2a_variables() {
    need_shared!();
    let v = variables(
        &read(&format!("{}/{S2A}/mariadb-variables.txt", support::root().display())),
        "mariadb-variables.txt",
    );
    assert_eq!(v.title.as_deref(), Some("SHOW GLOBAL VARIABLES (selected)"));
    assert_eq!(v.vars.len(), 18);
    assert_eq!(v.get("sync_binlog"), Some("1"));
    assert_eq!(v.get_i64("innodb_flush_log_at_trx_commit"), Some(1));
    assert_eq!(v.get("INNODB_FLUSH_METHOD"), Some("O_DIRECT"));
    assert_eq!(v.get("version"), Some("10.11.19-MariaDB-0+deb12u1-log"));
    assert_eq!(v.vars[15], (17, "sync_binlog".to_string(), "1".to_string()));
}

#[test]
fn s2a_threads() {
    need_shared!();
    let t = threads(
        &read(&format!("{}/{S2A}/mariadb-threads.tsv", support::root().display())),
        "mariadb-threads.tsv",
    );
    assert_eq!(t.rows.len(), 19);
    let c = t.by_os_id(19879).unwrap();
    assert_eq!(c.name, "thread/sql/one_connection");
    assert_eq!((c.thread_id, c.processlist_id, c.user.as_deref()), (Some(38), Some(22), Some("bench")));
    assert_eq!((c.kind.as_deref(), c.command.as_deref(), c.line), (Some("FOREGROUND"), Some("Sleep"), 5));
    let ts = c.ts.unwrap();
    assert!((ts.epoch - 1_795_981_346.272_971).abs() < 1e-5);
    assert_eq!(t.by_os_id(30199).unwrap().name, "thread/innodb/page_cleaner_thread");
    assert_eq!(t.by_os_id(30206).unwrap().name, "thread/sql/binlog_background");
    let map = t.os_map();
    for tid in 19879..=19882 {
        assert_eq!(map.get(&tid), Some(&"thread/sql/one_connection"), "{tid}");
    }
}

#[test]
fn s2a_mysqladmin_series() {
    need_shared!();
    let a = admin(
        &read(&format!("{}/{S2A}/2026_11_29_19_42_06-mysqladmin.gz", support::root().display())),
        "mysqladmin.gz",
    );
    assert_eq!(a.samples.len(), 150);
    assert!(!a.relative);
    assert_eq!(a.samples[0].get("Binlog_commits"), Some(70177.0));
    assert_eq!(a.samples[0].get("Uptime"), Some(818.0));
    assert_eq!(a.samples[149].get("Binlog_commits"), Some(290215.0));
    assert_eq!(a.samples[1].line, 569);
    assert_eq!(a.samples[0].get_text("Binlog_snapshot_file").as_deref(), Some("mariadb-bin.000002"));
    let d = a.deltas("Binlog_commits");
    assert_eq!(d.len(), 149);
    assert_eq!(d[10], (11, 728.0));
    assert_eq!(d[11], (12, 1666.0));
    // TRUTH.md: 220,038 transactions = the Binlog_commits delta over the capture.
    assert_eq!(d.iter().map(|x| x.1).sum::<f64>(), 220_038.0);
    let gc: f64 = a.deltas("Binlog_group_commits").iter().map(|x| x.1).sum();
    assert_eq!(gc, 155_436.0);
}

#[test]
fn variables_fixtures() {
    let v = variables(&fixture("variables-tabular.txt"), "tabular");
    assert_eq!(v.vars.len(), 6);
    assert_eq!(v.get("innodb_flush_method"), Some("O_DIRECT"));
    assert_eq!(v.vars[1], (5, "innodb_flush_log_at_trx_commit".to_string(), "1".to_string()));
    let v = variables(&fixture("variables-vertical.txt"), "vertical");
    assert_eq!(v.vars.len(), 19);
    assert_eq!(v.get("sync_binlog"), Some("1"));
    assert_eq!(v.get("rpl_semi_sync_master_wait_point"), Some("AFTER_COMMIT"));
    let v = variables(&fixture("variables-batch-header.txt"), "batch");
    assert_eq!(v.get("innodb_flushing_avg_loops"), Some("30"));
}

#[test]
fn threads_fixtures() {
    for f in ["threads-tabular.txt", "threads-star-header.tsv", "threads-star-noheader.tsv"] {
        let t = threads(&fixture(f), f);
        assert_eq!(t.rows.len(), 10, "{f}");
        assert_eq!(t.by_os_id(22054).unwrap().name, "thread/sql/main", "{f}");
        assert_eq!(t.by_os_id(22283).unwrap().thread_id, Some(4), "{f}");
    }
    let t = threads(&fixture("threads-star-noheader.tsv"), "star");
    let me = t.by_os_id(23183).unwrap();
    assert_eq!(
        (me.processlist_id, me.user.as_deref(), me.command.as_deref()),
        (Some(16), Some("root"), Some("Query"))
    );
    let t = threads(&fixture("threads-vertical.txt"), "vertical");
    assert_eq!(t.rows.len(), 3);
    assert_eq!(t.by_os_id(22281).unwrap().name, "thread/aria/checkpoint_background");
    assert_eq!(t.rows[2].line, 10);
}

#[test]
fn mysqladmin_fixtures() {
    let a = admin(&fixture("mysqladmin-ext-relative.txt"), "relative");
    assert!(a.relative);
    assert_eq!(a.samples.len(), 3);
    assert_eq!(a.samples[0].get("Uptime"), Some(308.0));
    assert_eq!(a.deltas("Questions"), vec![(1, 1.0), (2, 1.0)]);

    let a = admin(&fixture("mysqladmin-ext-absolute.txt"), "absolute");
    assert!(!a.relative);
    assert_eq!(a.samples[2].get_text("Rpl_status").as_deref(), Some("AUTH_MASTER"));

    let a = admin(&fixture("mysqladmin-ext-ts.txt"), "ts");
    assert_eq!(a.samples.len(), 2);
    let t0 = a.samples[0].ts.unwrap();
    assert!((t0.epoch - 1_795_986_267.832_076).abs() < 1e-5);
    assert_eq!(a.samples[0].get("Uptime"), Some(312.0));
    assert!(a.samples[1].ts.unwrap().epoch > t0.epoch);
}
