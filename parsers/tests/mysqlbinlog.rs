//! `mysqlbinlog` parser on real listings: the s2a MariaDB bundle (220,038
//! transactions, checked one by one against the bundle's own CSV) and the
//! corpus files (MySQL 5.0-8.0, MariaDB 10.11 in every output mode).

#[macro_use]
#[path = "support/shared.rs"]
mod support;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use iosift_parsers::common::decode::maybe_gunzip;
use iosift_parsers::mysqlbinlog::{Binlog, Flavor, Fmt, Gtid, SecondKey, TrxKind};
use iosift_parsers::{Format, Parsed, Summary, detect};

fn shared() -> PathBuf {
    support::root()
}

fn read(rel: &str) -> Vec<u8> {
    let p = shared().join(rel);
    let raw = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    maybe_gunzip(&raw, 4 << 30).expect("gunzip").into_owned()
}

fn corpus(name: &str) -> Parsed<Binlog> {
    Fmt::parse(&read(&format!("corpus/mysql-binlog/{name}")))
}

/// A CSV (no quoted fields in these files) as rows of column-name -> value.
fn csv(data: &[u8]) -> Vec<HashMap<String, String>> {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.lines();
    let head: Vec<String> = lines.next().unwrap().split(',').map(str::to_string).collect();
    lines
        .filter(|l| !l.is_empty())
        .map(|l| head.iter().cloned().zip(l.split(',').map(str::to_string)).collect())
        .collect()
}

#[test]
fn s2a_mariadb_bundle_matches_its_truth() {
    need_shared!();
    let dir = "bundles/s2a_mariadb_durable";
    let input = read(&format!("{dir}/binlog-mariadb-bin.000002-decoded.txt.gz"));
    let p = Fmt::parse(&input);
    assert!(p.diagnostics.is_empty(), "{:?}", &p.diagnostics[..p.diagnostics.len().min(5)]);
    assert_eq!(p.skipped_lines, 0);
    let b = &p.value;
    assert_eq!(b.flavor, Flavor::MariaDb);
    assert_eq!(b.server_version.as_deref(), Some("10.11.19-MariaDB-0+deb12u1-log"));
    assert_eq!(b.server_ids, vec![1]);
    assert!(b.layout.verbose_rows && b.layout.column_types && !b.layout.base64);

    // TRUTH.md: 220,038 transactions, 339.6 / 330 bytes, tables, 155,436 group commits.
    assert_eq!(b.transactions.len(), 220_038);
    assert_eq!(b.events["GTID"], 220_038);
    let s = b.size_stats();
    assert_eq!(s.count, 220_038);
    assert_eq!((s.mean * 10.0).round() / 10.0, 339.6);
    assert_eq!(s.median, 330.0);
    assert_eq!(s.max, 506);
    assert_eq!(s.histogram, vec![(256, 220_038)]); // 299..=506 bytes
    let total: u64 = b.transactions.iter().map(|t| t.bytes).sum();
    assert_eq!(total, 74_720_213); // summary.json bytes_total_in_transactions
    let tables: HashMap<_, _> = b.per_table().into_iter().collect();
    assert_eq!(tables["bench.orders"], 131_921);
    assert_eq!(tables["bench.accounts"], 88_117);
    assert_eq!(tables["bench.audit"], 22_123);
    assert_eq!(b.group_commits(), Some(155_436));
    assert!(!b.epoch_basis()); // row-based MariaDB: no SET TIMESTAMP, header times are used

    // Per transaction, against binlog-mariadb-bin.000002.transactions.csv.gz.
    let rows = csv(&read(&format!("{dir}/binlog-mariadb-bin.000002.transactions.csv.gz")));
    assert_eq!(rows.len(), b.transactions.len());
    for (i, (t, r)) in b.transactions.iter().zip(&rows).enumerate() {
        let ctx = format!("transaction {i} {r:?}");
        assert_eq!(b.gtid_text(t).as_deref(), Some(r["gtid"].as_str()), "{ctx}");
        assert_eq!(t.start_pos.to_string(), r["start_pos"], "{ctx}");
        assert_eq!(t.end_pos.to_string(), r["end_pos"], "{ctx}");
        assert_eq!(t.bytes.to_string(), r["bytes"], "{ctx}");
        assert_eq!(t.rows.to_string(), r["rows"], "{ctx}");
        assert_eq!(
            t.row_events.to_string(),
            {
                let n: u32 = ["n_write_rows", "n_update_rows", "n_delete_rows"]
                    .iter()
                    .map(|k| r[*k].parse::<u32>().unwrap())
                    .sum();
                n.to_string()
            },
            "{ctx}"
        );
        assert_eq!(t.commit_id().map(|c| c.to_string()).unwrap_or_default(), r["commit_id"], "{ctx}");
        assert_eq!(t.server_id.map(|c| c.to_string()).as_deref(), Some(r["server_id"].as_str()));
        let local = t.local.map(|l| l.format("%Y-%m-%d %H:%M:%S").to_string()).unwrap_or_default();
        assert_eq!(local, r["ts_utc"], "{ctx}");
        assert_eq!(b.table_names(t).collect::<Vec<_>>().join(";"), r["tables"], "{ctx}");
        assert_eq!(t.kind, TrxKind::Dml);
        assert!(t.complete);
        assert_eq!(t.epoch, None);
    }

    // Per second, against binlog-mariadb-bin.000002.per_second.csv (header-time seconds).
    let secs = csv(&read(&format!("{dir}/binlog-mariadb-bin.000002.per_second.csv")));
    let ps = b.per_second();
    assert_eq!(ps.len(), secs.len());
    assert_eq!(ps.len(), 121);
    for (s, r) in ps.iter().zip(&secs) {
        let SecondKey::Local(l) = s.sec else { panic!("expected local-time seconds") };
        assert_eq!(l.format("%Y-%m-%d %H:%M:%S").to_string(), r["ts_utc"]);
        assert_eq!(s.transactions.to_string(), r["transactions"], "{r:?}");
        assert_eq!(s.bytes.to_string(), r["bytes"], "{r:?}");
        assert_eq!(s.rows.to_string(), r["rows"], "{r:?}");
        assert_eq!(s.group_commits.to_string(), r["group_commits"], "{r:?}");
    }
    assert_eq!(ps.iter().map(|s| s.transactions).max(), Some(2798));

    let (a, z) = b.time_range().unwrap();
    assert_eq!(a.display(), "2026-11-29T19:42:03");
    assert_eq!(z.display(), "2026-11-29T19:44:36"); // the closing Rotate event
}

#[test]
fn mysql8_default_mode_with_transaction_length() {
    need_shared!();
    let p = corpus("indiflex-hana7__backup_bin.txt");
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    let b = &p.value;
    assert_eq!(b.flavor, Flavor::MySql);
    assert_eq!(b.server_version.as_deref(), Some("8.0.34"));
    assert!(b.layout.base64 && !b.layout.verbose_rows && b.layout.crc32);
    assert_eq!(b.transactions.len(), 2);
    let t = &b.transactions[0];
    // Anonymous_GTID ... transaction_length=301, # at 157 .. Xid end_log_pos 458
    assert_eq!((t.start_pos, t.end_pos, t.bytes), (157, 458, 301));
    assert_eq!((t.last_committed(), t.sequence_number()), (Some(0), Some(1)));
    assert_eq!(t.epoch, Some(1746691576));
    assert_eq!(t.local.unwrap().to_string(), "2025-05-08 17:06:16");
    assert_eq!(t.gtid, None);
    assert_eq!((t.rows, t.row_events, t.kind), (1, 1, TrxKind::Dml));
    assert_eq!(b.table_names(t).collect::<Vec<_>>(), ["testdb.test"]);
    assert_eq!(b.transactions[1].bytes, 311);
    assert_eq!(b.group_commits(), Some(2));
    assert!(b.epoch_basis());
    assert_eq!(b.variant()["mode"], "default");

    let p = corpus("SecureWarehouse__warehouse_test2_incremental_backup_20240516135643.txt");
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    let b = &p.value;
    assert_eq!(b.server_version.as_deref(), Some("8.0.35"));
    let lens: Vec<_> = b.transactions.iter().map(|t| (t.bytes, t.kind)).collect();
    assert_eq!(lens, [(504, TrxKind::Dml), (231, TrxKind::Ddl), (306, TrxKind::Dml)]);
    assert_eq!(b.transactions[1].epoch, Some(1715838986));
}

#[test]
fn mysql8_verbose_with_gtids() {
    need_shared!();
    let p = corpus("binlogsum__testdata_sample.binlog.txt");
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    let b = &p.value;
    assert_eq!(b.flavor, Flavor::MySql);
    assert_eq!(b.server_ids, vec![100, 200]);
    let t: Vec<_> = b.transactions.iter().map(|t| (b.gtid_text(t), t.rows, t.kind, t.epoch)).collect();
    let g = |n: u32| Some(format!("3e11fa47-71ca-11e1-9e33-c80aa9429562:{n}"));
    assert_eq!(
        t,
        [
            (g(10), 3, TrxKind::Dml, Some(1780304070)),
            (g(11), 3, TrxKind::Dml, Some(1780304105)),
            (g(12), 0, TrxKind::Ddl, Some(1780304200)),
            (g(13), 0, TrxKind::Ddl, Some(1780304230)),
            (g(14), 4, TrxKind::Dml, Some(1780304280)),
            (None, 0, TrxKind::Ddl, Some(1780304355)),
        ]
    );
    assert!(matches!(b.transactions[0].gtid, Some(Gtid::MySql { seq: 10, .. })));
    let tr = &b.transactions[1];
    assert_eq!(b.table_names(tr).collect::<Vec<_>>(), ["test.orders", "test.t1"]);
    assert_eq!((tr.start_pos, tr.end_pos, tr.bytes), (920, 1491, 571));
    assert_eq!(b.events["Rotate"], 1);
    assert_eq!(b.events["Previous-GTIDs"], 1);
    let pt = b.per_table();
    assert_eq!(pt, [("test.orders".to_string(), 2), ("test.t1".to_string(), 2)]);
}

#[test]
fn mariadb_modes_agree() {
    need_shared!();
    // The same MariaDB 10.11 binlog listed with -v, -vv, default, -vv without decode-rows, hexdump.
    let modes = [
        "generated__binlog_mariadb_v_decode.txt",
        "generated__binlog_mariadb_vv_decode.txt",
        "generated__binlog_mariadb_default.txt",
        "generated__binlog_mariadb_vv_default.txt",
        "generated__binlog_mariadb_hexdump.txt",
    ];
    let mut reference: Option<Vec<(u64, u64, u64, TrxKind)>> = None;
    for m in modes {
        let p = corpus(m);
        assert!(p.diagnostics.is_empty(), "{m}: {:?}", p.diagnostics);
        let b = &p.value;
        assert_eq!(b.flavor, Flavor::MariaDb, "{m}");
        assert_eq!(b.server_ids, vec![101], "{m}");
        let v: Vec<_> = b.transactions.iter().map(|t| (t.start_pos, t.bytes, t.rows, t.kind)).collect();
        match &reference {
            None => reference = Some(v),
            Some(r) => assert_eq!(&v, r, "{m}"),
        }
    }
    let r = reference.unwrap();
    // GTID 0-101-1 ddl: CREATE DATABASE shop, # at 375 .. end_log_pos 504.
    assert_eq!(r[0], (375, 129, 0, TrxKind::Ddl));
    // GTID 0-101-4 trans: INSERT of 3 customers (# Number of rows: 3).
    assert_eq!(r[3], (1217, 370, 3, TrxKind::Dml));
    let v = corpus("generated__binlog_mariadb_v_decode.txt");
    let rows: u64 = v.value.transactions.iter().map(|t| t.rows).sum();
    // 420 `### INSERT/UPDATE/DELETE` row images + 2 statement-based DML statements.
    assert_eq!(rows, 422);
    assert_eq!(v.value.variant()["mode"], "-v");
    assert_eq!(corpus("generated__binlog_mariadb_vv_decode.txt").value.variant()["mode"], "-vv");
    assert!(corpus("generated__binlog_mariadb_hexdump.txt").value.layout.hexdump);
}

#[test]
fn mariadb_short_form() {
    need_shared!();
    let p = corpus("generated__binlog_mariadb_short_form.txt");
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    let b = &p.value;
    assert!(b.layout.short_form);
    let full = corpus("generated__binlog_mariadb_v_decode.txt").value;
    assert_eq!(b.transactions.len(), full.transactions.len());
    assert!(b.transactions.iter().all(|t| t.bytes == 0 && t.local.is_none()));
    assert_eq!(b.transactions[0].epoch, Some(1795980921));
    assert_eq!(b.transactions[0].kind, TrxKind::Ddl);
}

#[test]
fn percona_statement_logs() {
    need_shared!();
    // MySQL 5.6 with CRC32: BEGIN, Intvar, INSERT, Xid.
    let p = corpus("percona-toolkit__lib_binlogs_binlog-CRC32.txt");
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    let b = &p.value;
    assert_eq!(b.server_version.as_deref(), Some("5.6.17-log"));
    assert_eq!(b.transactions.len(), 1);
    let t = &b.transactions[0];
    assert_eq!((t.start_pos, t.end_pos, t.bytes, t.rows), (120, 468, 348, 1));
    assert_eq!((t.epoch, t.kind), (Some(1404326011), TrxKind::Dml));
    assert_eq!(b.events["Intvar"], 1);

    // MySQL 5.1: DDL and BEGIN/INSERT/COMMIT pairs, then Stop.
    let p = corpus("percona-toolkit__lib_binlogs_binlog010.txt");
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    let kinds: Vec<_> = p.value.transactions.iter().map(|t| (t.kind, t.bytes)).collect();
    use TrxKind::{Ddl, Dml};
    assert_eq!(
        kinds,
        [
            (Ddl, 214),
            (Dml, 252),
            (Ddl, 216),
            (Dml, 252),
            (Dml, 252),
            (Dml, 252),
            (Ddl, 79),
            (Ddl, 79),
            (Ddl, 214),
            (Dml, 252),
            (Ddl, 216),
            (Dml, 252)
        ]
    );
    assert_eq!(p.value.events["Stop"], 1);

    // MySQL 5.0 with spaces instead of TABs and a space-padded hour.
    let p = corpus("percona-toolkit__lib_binlogs_binlog004.txt");
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    assert_eq!(p.value.server_version.as_deref(), Some("5.0.84-percona-highperf-b18-log"));
    assert_eq!(p.value.transactions.len(), 1);
    assert_eq!(p.value.transactions[0].epoch, Some(1256194800));
    assert_eq!(p.value.transactions[0].local.unwrap().to_string(), "2009-10-22 00:00:00");

    // Auto-committed statements, one transaction each.
    let p = corpus("percona-toolkit__lib_binlogs_binlog005.txt");
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    assert_eq!(p.value.transactions.len(), 10);

    // A hand-edited test file with an invented event type: reported, not dropped.
    let p = corpus("percona-toolkit__lib_binlogs_binlog006.txt");
    assert_eq!(p.diagnostics.len(), 1);
    assert_eq!(p.value.events["Pontificate"], 1);

    // The large one: 5.6 statement/row mix.
    let p = corpus("percona-toolkit__lib_binlogs_binlog011.txt");
    assert!(p.diagnostics.is_empty(), "{:?}", &p.diagnostics[..p.diagnostics.len().min(5)]);
    assert_eq!(p.value.events["Xid"], 20);
}

#[test]
fn corpus_detection() {
    need_shared!();
    let root = shared().join("corpus");
    let manifest = std::fs::read_to_string(root.join("MANIFEST.tsv")).unwrap();
    let mut mine = 0;
    for line in manifest.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let mut f = line.split('\t');
        let (Some(file), Some(expected)) = (f.next(), f.next()) else { continue };
        if root.join(file).is_dir() {
            continue;
        }
        let data = read(&format!("corpus/{file}"));
        let got = detect(&data).map(|d| d.format.id);
        if expected == "mysqlbinlog" {
            mine += 1;
            assert_eq!(got, Some("mysqlbinlog"), "{file}");
        } else if expected != "-" {
            assert_ne!(got, Some("mysqlbinlog"), "{file} (expected {expected})");
        }
        // Every file: parsing as a binlog never panics.
        let _ = Fmt::parse(&data);
    }
    assert_eq!(mine, 24);
    let _ = Path::new("");
}

#[test]
fn real_tool_lines_give_no_diagnostics() {
    need_shared!();
    for e in std::fs::read_dir(shared().join("corpus/mysql-binlog")).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.contains("binlog006") {
            continue; // invented event type (see percona_statement_logs)
        }
        let p = Fmt::parse(&std::fs::read(&path).unwrap());
        assert!(p.diagnostics.is_empty(), "{name}: {:?}", p.diagnostics);
        assert!(p.value.records() > 0 || name.contains("binlog008"), "{name}");
    }
}

// ----- binlogsum (hand-written fixtures, see tests/fixtures/binlog/README.md) -----------------

fn fixture(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/binlog").join(name);
    std::fs::read(p).unwrap()
}

#[test]
fn binlogsum_api_summary() {
    use iosift_parsers::binlogsum::{Container, Fmt as Sum};
    let data = fixture("binlogsum_api_summary.json");
    let d = detect(&data).unwrap();
    assert_eq!(d.format.id, "binlogsum");
    let p = Sum::parse(&data);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    let s = &p.value;
    assert_eq!(s.container, Container::Api);
    assert_eq!(s.first_time.unwrap().to_rfc3339(), "2026-11-29T19:42:16+00:00");
    assert_eq!(s.last_time.unwrap().to_rfc3339(), "2026-11-29T19:42:18+00:00");
    assert_eq!(s.total_events, 17);
    assert_eq!(s.transactions.len(), 4);
    assert_eq!(s.rows_changed(), 8);
    assert_eq!(s.total_bytes(), 1503);
    assert_eq!(s.server_ids.get(&2), Some(&3));
    assert_eq!(s.xid_range, Some((33, 35)));
    assert_eq!(s.gtid_last.as_deref(), Some("3e11fa47-71ca-11e1-9e33-c80aa9429562:13"));
    let t: Vec<_> = s.tables.iter().map(|t| (t.table.as_str(), t.rows_changed(), t.ddl)).collect();
    assert_eq!(t, [("shop.orders", 6, 1), ("shop.customers", 2, 0)]);
    let w: Vec<_> =
        s.writes_per_second().iter().map(|w| (w.epoch, w.transactions, w.inserted, w.bytes)).collect();
    // The last transaction's start is 19:42:18+01:00 = 18:42:18Z: it sorts first.
    assert_eq!(w, [(1795977738, 1, 1, 0), (1795981336, 2, 4, 1294), (1795981337, 1, 0, 209)]);
    assert_eq!(s.variant()["container"], "api");
}

#[test]
fn binlogsum_snapshot_page() {
    use iosift_parsers::binlogsum::{Container, Fmt as Sum};
    let data = fixture("binlogsum_snapshot.html");
    assert_eq!(detect(&data).unwrap().format.id, "binlogsum");
    let p = Sum::parse(&data);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    let s = &p.value;
    assert_eq!(s.container, Container::Snapshot);
    assert_eq!(s.flavor, "MariaDB");
    assert_eq!(s.records(), 2);
    assert_eq!(s.tables[1].table, "bench.accounts");
    assert_eq!(s.tables[1].updated, 1);
    assert_eq!(s.transactions[0].size_bytes, 303);
    // Detection of a mysqlbinlog listing never picks binlogsum and vice versa.
    assert_eq!(Fmt::sniff(&data), iosift_parsers::Sniff::No);
}
