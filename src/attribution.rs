//! Write-source taxonomy: thread and process names (or, better, the
//! performance_schema thread map) to categories of DESIGN.md.

/// Categories in display order.
pub const CATEGORIES: &[&str] = &[
    "engine_redo",
    "engine_page_cleaner",
    "engine_binlog",
    "replication_applier",
    "replication_receiver",
    "connection",
    "writeback",
    "other",
];

/// Category of a performance_schema thread name (`thread/innodb/page_cleaner_thread`).
pub fn category_of_ps_name(name: &str) -> &'static str {
    let n = name.to_ascii_lowercase();
    if n.contains("log_writer") || n.contains("log_flush") || n.contains("log_files") || n.contains("redo") {
        "engine_redo"
    } else if n.contains("page_cleaner") || n.contains("page_flush") {
        "engine_page_cleaner"
    } else if n.contains("binlog") {
        "engine_binlog"
    } else if n.contains("slave_sql")
        || n.contains("replica_sql")
        || n.contains("slave_worker")
        || n.contains("replica_worker")
        || n.contains("applier")
        || n.contains("wsrep")
    {
        "replication_applier"
    } else if n.contains("slave_io") || n.contains("replica_io") || n.contains("receiver") {
        "replication_receiver"
    } else if n.contains("one_connection") || n.contains("/connection") || n.contains("thread/sql/connection")
    {
        "connection"
    } else {
        "other"
    }
}

/// Category of a thread/process command name as pidstat prints it.
pub fn category_of_comm(comm: &str) -> &'static str {
    let c = comm.trim();
    if c.starts_with("kworker/") && c.contains("flush-") || c.starts_with("flush-") || c.starts_with("jbd2/")
    {
        return "writeback";
    }
    if c.starts_with("ib_log")
        || c == "walwriter"
        || c.starts_with("ib_log_flush")
        || c.contains("log_writer")
    {
        return "engine_redo";
    }
    if c.starts_with("ib_pg_flush") || c.starts_with("page_cleaner") || c == "checkpointer" || c == "bgwriter"
    {
        return "engine_page_cleaner";
    }
    if c.starts_with("binlog") || c.starts_with("ib_binlog") {
        return "engine_binlog";
    }
    if c.starts_with("galera_recv")
        || c.starts_with("slave_io")
        || c.starts_with("replica_io")
        || c == "walreceiver"
    {
        return "replication_receiver";
    }
    if c.starts_with("galera_applier")
        || c.starts_with("wsrep")
        || c.starts_with("slave_sql")
        || c.starts_with("replica_sql")
        || c.starts_with("slave_worker")
        || c.starts_with("replica_worker")
        || c.starts_with("galera_")
    {
        return "replication_applier";
    }
    if c == "one_connection" || c.starts_with("connection") {
        return "connection";
    }
    "other"
}

/// Category of a thread: the thread map (performance_schema) wins over its name.
pub fn category(tid: Option<u32>, comm: &str, map: &std::collections::BTreeMap<u32, String>) -> &'static str {
    if let Some(name) = tid.and_then(|t| map.get(&t)) {
        let c = category_of_ps_name(name);
        if c != "other" {
            return c;
        }
    }
    category_of_comm(comm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_to_categories() {
        assert_eq!(category_of_comm("kworker/u8:3+flush-254:0"), "writeback");
        assert_eq!(category_of_comm("ib_pg_flush_co"), "engine_page_cleaner");
        assert_eq!(category_of_comm("galera_recv-0"), "replication_receiver");
        assert_eq!(category_of_comm("mariadbd"), "other");
        let mut m = std::collections::BTreeMap::new();
        m.insert(19879, "thread/sql/one_connection".to_string());
        assert_eq!(category(Some(19879), "mariadbd", &m), "connection");
        assert_eq!(category_of_ps_name("thread/innodb/page_cleaner_thread"), "engine_page_cleaner");
    }
}
