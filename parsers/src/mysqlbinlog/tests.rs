//! Unit tests on small excerpts of real listings (quoted from the corpus).

use super::*;

fn parse(s: &str) -> Parsed<Binlog> {
    Fmt::parse(s.as_bytes())
}

/// MariaDB 10.11 `-vv --base64-output=decode-rows` (bundle s2a, first two transactions).
const MARIADB_VV: &str = "/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;
/*!40019 SET @@session.max_delayed_threads=0*/;
/*!50003 SET @OLD_COMPLETION_TYPE=@@COMPLETION_TYPE,COMPLETION_TYPE=0*/;
DELIMITER /*!*/;
# at 4
#261129 19:42:03 server id 1  end_log_pos 256 CRC32 0x63ca877a \tStart: binlog v 4, server v 10.11.19-MariaDB-0+deb12u1-log created 261129 19:42:03
# at 256
#261129 19:42:03 server id 1  end_log_pos 285 CRC32 0x78c9483b \tGtid list []
# at 375
#261129 19:42:16 server id 1  end_log_pos 417 CRC32 0x3f525a41 \tGTID 0-1-1 trans
/*M!100101 SET @@session.skip_parallel_replication=0*//*!*/;
/*M!100001 SET @@session.gtid_seq_no=1*//*!*/;
START TRANSACTION
/*!*/;
# at 417
# at 516
#261129 19:42:16 server id 1  end_log_pos 516 CRC32 0x6db2abb8 \tAnnotate_rows:
#Q> UPDATE accounts SET balance = balance + -47, updated = NOW(6) WHERE id = 760
#261129 19:42:16 server id 1  end_log_pos 571 CRC32 0xa01d52fa \tTable_map: `bench`.`accounts` mapped to number 18
# at 571
#261129 19:42:16 server id 1  end_log_pos 647 CRC32 0x930c9380 \tUpdate_rows: table id 18 flags: STMT_END_F
### UPDATE `bench`.`accounts`
### WHERE
###   @1=760 /* INT meta=0 nullable=0 is_null=0 */
### SET
###   @1=760 /* INT meta=0 nullable=0 is_null=0 */
# Number of rows: 1
# at 647
#261129 19:42:16 server id 1  end_log_pos 678 CRC32 0x8b325f24 \tXid = 91159
COMMIT/*!*/;
# at 1008
#261129 19:42:17 server id 1  end_log_pos 1052 CRC32 0xead41dfd \tGTID 0-1-3 cid=91162 trans
/*M!100001 SET @@session.gtid_seq_no=3*//*!*/;
START TRANSACTION
/*!*/;
# at 1052
# at 1181
#261129 19:42:17 server id 1  end_log_pos 1181 CRC32 0x9ed6aa3d \tAnnotate_rows:
#Q> INSERT INTO orders (customer_id, amount, status, created, note) VALUES (45628,762.16e0,3,NOW(6),'n387844')
#261129 19:42:17 server id 1  end_log_pos 1241 CRC32 0xba60fac0 \tTable_map: `bench`.`orders` mapped to number 28
# at 1241
#261129 19:42:17 server id 1  end_log_pos 1309 CRC32 0xc3a2d8b3 \tWrite_rows: table id 28 flags: STMT_END_F
### INSERT INTO `bench`.`orders`
### SET
###   @1=3 /* LONGINT meta=0 nullable=0 is_null=0 */
# Number of rows: 1
# at 1309
#261129 19:42:17 server id 1  end_log_pos 1340 CRC32 0x5ab245b8 \tXid = 91162
COMMIT/*!*/;
DELIMITER ;
# End of log file
ROLLBACK /* added by mysqlbinlog */;
/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;
";

#[test]
fn mariadb_transactions() {
    let p = parse(MARIADB_VV);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    let b = &p.value;
    assert_eq!(b.flavor, Flavor::MariaDb);
    assert_eq!(b.server_version.as_deref(), Some("10.11.19-MariaDB-0+deb12u1-log"));
    assert_eq!(b.transactions.len(), 2);
    let t = &b.transactions[0];
    assert_eq!((t.start_pos, t.end_pos, t.bytes, t.rows), (375, 678, 303, 1));
    assert_eq!(t.gtid, Some(Gtid::MariaDb { domain: 0, server: 1, seq: 1 }));
    assert_eq!(b.table_names(t).collect::<Vec<_>>(), ["bench.accounts"]);
    assert_eq!((t.start_line, t.end_line), (9, 30));
    let t = &b.transactions[1];
    assert_eq!((t.bytes, t.commit_id(), t.kind), (332, Some(91162), TrxKind::Dml));
    assert_eq!(b.gtid_text(t).as_deref(), Some("0-1-3"));
    assert_eq!(b.events["Xid"], 2);
    assert_eq!(b.events["Annotate_rows"], 2);
    assert!(b.layout.verbose_rows && b.layout.column_types && b.layout.crc32);
    let ps = b.per_second();
    assert_eq!(ps.len(), 2);
    assert_eq!(ps[1].bytes, 332);
    assert_eq!(b.group_commits(), Some(2));
    let s = b.size_stats();
    assert_eq!((s.count, s.median, s.max), (2, 317.5, 332));
    assert_eq!(s.histogram, vec![(256, 2)]);
    assert_eq!(Fmt::sniff(MARIADB_VV.as_bytes()), Sniff::Yes);
}

#[test]
fn streaming_matches_whole() {
    let mut c = Collector::new();
    for (i, l) in MARIADB_VV.lines().enumerate() {
        c.feed_line(i + 1, l.as_bytes());
    }
    let a = c.finish();
    assert_eq!(a.value.transactions, parse(MARIADB_VV).value.transactions);
}

#[test]
fn garbage_never_panics() {
    for s in ["#", "# at", "# at x", "#123456 ", "#123456 1:2:3 server id", "BINLOG '", "###", "# Event: x"] {
        let p = parse(s);
        assert!(p.value.transactions.len() <= 1);
    }
    let _ = Fmt::parse(&[0xff, b'\n', b'#', 0xfe, b'\n']);
}

#[test]
fn many_event_names_stay_bounded() {
    let mut s = String::new();
    for i in 0..1000 {
        s.push_str(&format!("#261129 19:42:16 server id {i}  end_log_pos 1 \tBogus{i}\n"));
    }
    let p = parse(&s);
    assert_eq!(p.value.events.len(), 129);
    assert_eq!(p.value.events["(other)"], 872);
    assert_eq!(p.value.server_ids.len(), 1000);
    assert_eq!(p.diagnostics.len(), 1000);
}

#[test]
fn group_commit_values_read_back_as_printed() {
    let t = |g: GroupCommit| Transaction { group: g, ..parse(MARIADB_VV).value.transactions[0].clone() };
    let m = t(GroupCommit::mysql(Some(3), None));
    assert_eq!((m.last_committed(), m.sequence_number(), m.commit_id()), (Some(3), None, None));
    let m = t(GroupCommit::mysql(None, Some(0)));
    assert_eq!((m.last_committed(), m.sequence_number()), (None, Some(0)));
    assert_eq!(GroupCommit::mysql(None, None), GroupCommit::None);
    let c = t(GroupCommit::MariaDb(91162));
    assert_eq!((c.commit_id(), c.last_committed()), (Some(91162), None));
}

/// MySQL 8 on a replica: the GTID event carries the source's commit time and the replica's own. Constructed in the
/// format of the real 8.0 line of the module doc (no replica binlog of MySQL 8 in the corpus): committed on the
/// replica 2.5 s after the source.
#[test]
fn mysql8_commit_timestamps_of_a_replica() {
    let t = "# at 157\n\
#250508 17:06:18 server id 1  end_log_pos 236 CRC32 0xf5fa7824 \tGTID\tlast_committed=0\tsequence_number=1\trbr_only=yes\toriginal_committed_timestamp=1746691576420070\timmediate_commit_timestamp=1746691578920070\ttransaction_length=301\n\
# at 458\n\
#250508 17:06:18 server id 1  end_log_pos 489 CRC32 0x5ab245b8 \tXid = 12\n\
COMMIT/*!*/;\n";
    let b = parse(t).value;
    assert_eq!(b.transactions[0].commit_us, Some((1746691576420070, 1746691578920070)));
    // MariaDB prints no such fields.
    assert_eq!(parse(MARIADB_VV).value.transactions[0].commit_us, None);
}
