//! `mysql_replica_status` on real MariaDB 10.11 replica output (fixtures made
//! with `samples/tools/mariadb_pair.sh`, see `fixtures/mysql/README.md`): every
//! layout is detected and read with the values the server printed.

use iosift_parsers::mysql_replica_status::ReplicaStatus;
use iosift_parsers::{Data, detect};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mysql");

fn status(name: &str) -> ReplicaStatus {
    let path = format!("{FIXTURES}/{name}");
    let raw = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let d = detect(&raw).unwrap_or_else(|| panic!("{name}: nothing detected"));
    assert_eq!(d.format.id, "mysql_replica_status", "{name}");
    assert!(d.parsed.diagnostics.is_empty(), "{name}: {:?}", d.parsed.diagnostics.first());
    match d.parsed.value {
        Data::MysqlReplicaStatus(v) => v,
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn vertical_single_row() {
    let s = status("replica-status-vertical.txt");
    assert_eq!(s.layout, "vertical");
    assert_eq!(s.naming, "master");
    assert_eq!(s.rows.len(), 1);
    let c = &s.rows[0];
    // `           Read_Master_Log_Pos: 71976509` (the values of this fixture)
    assert_eq!(c.name, "");
    assert_eq!(c.source_log_file.as_deref(), Some("primary-bin.000001"));
    assert_eq!(c.read_pos, Some(71_976_509));
    assert_eq!(c.exec_pos, Some(70_628_404));
    assert_eq!(c.relay_log_space, Some(71_978_034));
    assert_eq!(c.seconds_behind, Some(4));
    assert_eq!(c.backlog_bytes(), Some(71_976_509 - 70_628_404));
    assert!(!c.sql_caught_up());
    assert_eq!(c.source_server_id, Some(1));
    assert_eq!(c.io_running.as_deref(), Some("Yes"));
    assert_eq!(c.get("Parallel_Mode"), Some("optimistic"));
    assert!(c.ts.is_none());
}

#[test]
fn tabular_and_tab_separated_multi_source() {
    let t = status("replica-status-tabular.txt");
    assert_eq!(t.layout, "table");
    assert_eq!(t.rows.len(), 1);
    assert!(t.rows[0].read_pos.unwrap() > 71_000_000);

    let a = status("replica-all-slaves.tsv");
    assert_eq!(a.layout, "tsv");
    assert_eq!(a.connections(), vec!["", "offline"]);
    let off = a.series("offline").next().unwrap();
    assert_eq!(off.source_port, Some(3319));
    assert_eq!(off.io_running.as_deref(), Some("No"));
    assert_eq!(off.seconds_behind, None);
    let def = a.series("").next().unwrap();
    assert_eq!(def.source_port, Some(3310));
    assert!(def.sql_state.is_some());
}

#[test]
fn ts_framed_series_of_all_slaves() {
    let s = status("replica-all-slaves-ts.txt");
    assert_eq!(s.rows.len(), 6);
    let def: Vec<_> = s.series("").collect();
    assert_eq!(def.len(), 3);
    let read: Vec<u64> = def.iter().map(|c| c.read_pos.unwrap()).collect();
    assert_eq!(read, vec![71_978_668, 72_014_842, 72_055_449]);
    let lag: Vec<u64> = def.iter().map(|c| c.seconds_behind.unwrap()).collect();
    assert_eq!(lag, vec![4, 5, 6]);
    assert!((def[0].ts.unwrap().epoch - 1_796_152_544.0).abs() < 10.0);
    assert!(def.windows(2).all(|w| w[1].ts.unwrap().epoch > w[0].ts.unwrap().epoch));
    assert_eq!(s.series("offline").count(), 3);
}

#[test]
fn master_status_series() {
    let s = status("master-status-ts.txt");
    assert!(s.rows.is_empty());
    let pos: Vec<(&str, u64)> = s.binlog.iter().map(|b| (b.file.as_str(), b.position)).collect();
    assert_eq!(
        pos,
        vec![
            ("replica-bin.000001", 70_750_382),
            ("replica-bin.000001", 70_851_389),
            ("replica-bin.000001", 70_909_826)
        ]
    );
    assert!((s.binlog[0].ts.unwrap().epoch - 1_796_152_547.756_531).abs() < 1e-3);
}

#[test]
fn mysql_8_source_replica_names_tab_separated() {
    // Hand-written in the layout of MySQL 8.0.22+ `mysql -e 'SHOW REPLICA STATUS'` (header + one row;
    // columns cut to the ones read here), since no MySQL server runs on this host.
    let s = "Replica_IO_State\tSource_Host\tSource_Log_File\tRead_Source_Log_Pos\tRelay_Source_Log_File\t\
Replica_IO_Running\tReplica_SQL_Running\tExec_Source_Log_Pos\tRelay_Log_Space\tSeconds_Behind_Source\tChannel_Name\n\
Waiting for source to send event\tdb1\tbinlog.000007\t9000\tbinlog.000007\tYes\tYes\t8000\t2400\t12\tch1\n";
    let d = detect(s.as_bytes()).unwrap();
    assert_eq!(d.format.id, "mysql_replica_status");
    let Data::MysqlReplicaStatus(v) = d.parsed.value else { panic!() };
    assert_eq!(v.naming, "source");
    let c = &v.rows[0];
    assert_eq!(
        (c.name.as_str(), c.read_pos, c.exec_pos, c.seconds_behind),
        ("ch1", Some(9000), Some(8000), Some(12))
    );
    assert_eq!(c.backlog_bytes(), Some(1000));
}

/// pt-stalk's `-slave-status` of a server that is not a replica (samples/pt_stalk_mariadb, pt-stalk
/// 3.2.1 against MariaDB 10.11): the statement echoed once per collection loop and no row after it,
/// 30 times. The file says "not a replica"; it is not an unread file.
#[test]
fn pt_stalk_slave_status_of_a_server_that_is_not_a_replica() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../samples/pt_stalk_mariadb/capture/2026_12_01_19_14_22-slave-status"
    );
    let raw = std::fs::read(path).unwrap();
    let echoed = String::from_utf8_lossy(&raw).lines().filter(|l| *l == "SHOW SLAVE STATUS\\G").count();
    assert_eq!(echoed, 30);
    let d = detect(&raw).expect("detected");
    assert_eq!(d.format.id, "mysql_replica_status");
    assert!(d.parsed.diagnostics.is_empty(), "{:?}", d.parsed.diagnostics.first());
    let Data::MysqlReplicaStatus(s) = d.parsed.value else { panic!() };
    assert_eq!((s.statements, s.empty_answers, s.rows.len()), (echoed, echoed, 0));
    assert!(s.not_a_replica());
    // A replica's (pt-stalk 3.2.1 --collect-gdb against samples/replica_io_bound_gdb's replica, a
    // short run): each of its 5 runs the statement, then its row: `Read_Master_Log_Pos: 3049501` first.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../samples/replica_io_bound_gdb/pt_stalk/2026_12_05_19_46_40-slave-status"
    );
    let d = detect(&std::fs::read(path).unwrap()).unwrap();
    assert_eq!(d.format.id, "mysql_replica_status");
    assert!(d.parsed.diagnostics.is_empty(), "{:?}", d.parsed.diagnostics.first());
    let Data::MysqlReplicaStatus(s) = d.parsed.value else { panic!() };
    assert_eq!((s.statements, s.empty_answers, s.rows.len()), (5, 0, 5));
    assert_eq!(s.rows[0].read_pos, Some(3049501));
    assert!(!s.not_a_replica());
}
