//! What the pt-stalk collectors iosift does not read hold, by file-name
//! suffix (`<prefix>-<collector>`), so the inventory can list each such file
//! with what it holds instead of "not recognised". From pt-stalk 3.2.1
//! (`bin/pt-stalk`: `collect`, `collect_system_data_loop`, `slave_status`).

/// Collectors whose files are not parsed: suffix and what the file holds.
pub const UNREAD: &[(&str, &str)] = &[
    ("-dmesg", "kernel messages since the collection started (dmesg), not read"),
    ("-hostname", "the host name: read for the capture's host (the report's title), not tabled"),
    ("-output", "pt-stalk's own collector messages and errors, not read"),
    ("-trigger", "pt-stalk's trigger log and command line, not read"),
    ("-procstat", "/proc/stat snapshots (CPU jiffies, context switches): CPU is read from -mpstat instead"),
    ("-slabinfo", "/proc/slabinfo snapshots (kernel slab caches), not read"),
    (
        "-transactions",
        "INFORMATION_SCHEMA.INNODB_TRX / INNODB_LOCKS / INNODB_LOCK_WAITS (\\G) every second, not read",
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
        assert!(super::unread("2026_12_01_19_14_22-dmesg").is_some_and(|w| w.contains("kernel")));
        assert!(super::unread("dmesg").is_none());
        assert!(super::unread("2026_12_01_19_14_22-iostat").is_none());
    }
}
