//! What the pt-stalk collectors iosift does not read hold, by file-name
//! suffix (`<prefix>-<collector>`), so the inventory can list each such file
//! with what it holds instead of "not recognised". From pt-stalk 3.2.1
//! (`bin/pt-stalk`: `collect`, `collect_system_data_loop`, `slave_status`).

/// Collectors whose files are not parsed: suffix and what the file holds.
pub const UNREAD: &[(&str, &str)] = &[
    ("-hostname", "the host name: read for the capture's host (the report's title), not tabled"),
    (
        "-output",
        "pt-stalk's own messages and its collectors' errors (a query the server refused): not analysis input, not read",
    ),
    ("-trigger", "pt-stalk's trigger log and command line: not analysis input, not read"),
    ("-slabinfo", "/proc/slabinfo snapshots (kernel slab caches): no rule reads slab sizes, not read"),
    (
        "-transactions",
        "INFORMATION_SCHEMA.INNODB_TRX rows (\\G) every second, with no time per snapshot (pt-stalk frames none, and an empty snapshot prints nothing): they cannot be placed on the timeline, not read",
    ),
    ("-lock-waits", "InnoDB lock waits (INFORMATION_SCHEMA joins, \\G) every second, not read"),
    ("-mutex-status1", "SHOW ENGINE INNODB MUTEX, not read"),
    ("-mutex-status2", "SHOW ENGINE INNODB MUTEX, not read"),
    ("-ps-locks-transactions", "performance_schema metadata locks and transactions (\\G), not read"),
    ("-prepared-statements", "performance_schema.prepared_statements_instances, not read"),
    ("-lsof", "lsof of the database server, not read"),
    ("-pmap", "pmap of the database server, not read"),
    ("-log_error", "the server error log tailed during the collection, not read"),
    ("-tokudbstatus1", "SHOW ENGINE TOKUDB STATUS, not read"),
    ("-tokudbstatus2", "SHOW ENGINE TOKUDB STATUS, not read"),
];

/// What an unread pt-stalk file holds, from its base name (`2026_12_01_19_14_22-dmesg`, `.gz` removed).
pub fn unread(base_name: &str) -> Option<&'static str> {
    super::ts::pt_stalk_prefix(base_name)?;
    UNREAD.iter().find(|(suffix, _)| base_name.ends_with(suffix)).map(|(_, what)| *what)
}

#[cfg(test)]
mod tests {
    #[test]
    fn suffixes_after_a_prefix_only() {
        assert!(super::unread("2026_12_01_19_14_22-slabinfo").is_some_and(|w| w.contains("slab")));
        assert!(super::unread("slabinfo").is_none());
        assert!(super::unread("2026_12_01_19_14_22-iostat").is_none());
    }
}
