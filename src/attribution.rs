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

/// A Galera gcache file (`/var/lib/mysql/galera.cache`, `gcache.page.000003`): Galera's
/// write-set cache, an mmap'd ring buffer (`gcache.name`) and its overflow pages.
pub fn is_gcache_file(path: &str) -> bool {
    let base = path.trim_end_matches(" (deleted)").rsplit('/').next().unwrap_or_default();
    base == "galera.cache"
        || base
            .strip_prefix("gcache.page.")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Kernel threads that issue writes on behalf of others and never dirty pages
/// themselves: every kworker (`kworker/u8:3+flush-254:0` the flusher,
/// `kworker/u8:0-writeback`, `kworker/u8:4-loop0` the loop device's worker,
/// dm-crypt and md workers), the old `flush-8:0` threads, the journal
/// (`jbd2/vda1-8`), XFS's log and AIL threads, loop threads, and kswapd's reclaim.
/// pidstat charges them the bytes they submit, so naming them as "dirtiers" would
/// blame the messenger (issue 14: a buffered copy on XFS charged 1.3 GB to
/// `kworker/u8:0-writeback`).
pub fn is_kernel_issuer(comm: &str) -> bool {
    let c = comm.trim();
    // `loop0`, `md0_raid1`: the prefix followed by a device number.
    let numbered = |p: &str| c.strip_prefix(p).is_some_and(|r| r.starts_with(|x: char| x.is_ascii_digit()));
    ["kworker/", "flush-", "jbd2/", "xfsaild/", "xfs-", "kswapd", "kcryptd", "dmcrypt_write"]
        .iter()
        .any(|p| c.starts_with(p))
        || numbered("loop")
        || numbered("md")
}

/// Category of a thread/process command name as pidstat prints it.
pub fn category_of_comm(comm: &str) -> &'static str {
    let c = comm.trim();
    if is_kernel_issuer(c) {
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
    Taxonomy::default().category(tid, comm, map)
}

/// User overrides of the built-in taxonomy, read from a TOML file (`--taxonomy`):
///
/// ```toml
/// [comm]                      # thread/process names as pidstat prints them (prefix match)
/// "gcache-w" = "replication_applier"
/// [ps_name]                   # performance_schema thread names (prefix match)
/// "thread/sql/slave_worker" = "replication_applier"
/// ```
///
/// Overrides win over the built-in table; the longest matching prefix wins.
#[derive(Debug, Clone, Default)]
pub struct Taxonomy {
    comm: Vec<(String, &'static str)>,
    ps_name: Vec<(String, &'static str)>,
}

/// Why a taxonomy file was refused.
#[derive(Debug)]
pub enum TaxonomyError {
    /// Not valid TOML of the expected shape.
    Syntax(String),
    /// A category that is not one of [`CATEGORIES`].
    UnknownCategory(String),
}

impl std::fmt::Display for TaxonomyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TaxonomyError::Syntax(m) => write!(f, "taxonomy file: {m}"),
            TaxonomyError::UnknownCategory(c) => {
                write!(f, "taxonomy file: unknown category {c:?} (one of {})", CATEGORIES.join(", "))
            }
        }
    }
}

impl std::error::Error for TaxonomyError {}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct TaxonomyFile {
    #[serde(default)]
    comm: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    ps_name: std::collections::BTreeMap<String, String>,
}

impl Taxonomy {
    /// Reads overrides from TOML text.
    pub fn from_toml(text: &str) -> Result<Taxonomy, TaxonomyError> {
        let f: TaxonomyFile = toml::from_str(text).map_err(|e| TaxonomyError::Syntax(e.to_string()))?;
        let conv = |m: std::collections::BTreeMap<String, String>| -> Result<Vec<(String, &'static str)>, TaxonomyError> {
            let mut v = Vec::new();
            for (k, c) in m {
                let cat = CATEGORIES.iter().find(|x| **x == c).ok_or(TaxonomyError::UnknownCategory(c))?;
                v.push((k, *cat));
            }
            v.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(&b.0)));
            Ok(v)
        };
        Ok(Taxonomy { comm: conv(f.comm)?, ps_name: conv(f.ps_name)? })
    }

    /// Category of a thread: overrides, then the thread map, then the name.
    pub fn category(
        &self,
        tid: Option<u32>,
        comm: &str,
        map: &std::collections::BTreeMap<u32, String>,
    ) -> &'static str {
        let hit = |rules: &[(String, &'static str)], name: &str| {
            rules.iter().find(|(p, _)| name.starts_with(p.as_str())).map(|r| r.1)
        };
        let ps = tid.and_then(|t| map.get(&t));
        if let Some(c) = ps.and_then(|n| hit(&self.ps_name, n)) {
            return c;
        }
        if let Some(c) = hit(&self.comm, comm.trim()) {
            return c;
        }
        if let Some(name) = ps {
            let c = category_of_ps_name(name);
            if c != "other" {
                return c;
            }
        }
        category_of_comm(comm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_to_categories() {
        assert_eq!(category_of_comm("kworker/u8:3+flush-254:0"), "writeback");
        for issuer in [
            "kworker/u8:0-writeback",
            "kworker/u8:4-loop0",
            "jbd2/vda1-8",
            "xfsaild/loop0",
            "loop0",
            "md0_raid1",
            "kswapd0",
        ] {
            assert!(is_kernel_issuer(issuer), "{issuer}");
            assert_eq!(category_of_comm(issuer), "writeback", "{issuer}");
        }
        for app in ["mariadbd", "dd", "loopback-test", "mdadm-helper", "gcache-w", "python3"] {
            assert!(!is_kernel_issuer(app), "{app}");
        }
        assert_eq!(category_of_comm("ib_pg_flush_co"), "engine_page_cleaner");
        assert_eq!(category_of_comm("galera_recv-0"), "replication_receiver");
        assert_eq!(category_of_comm("mariadbd"), "other");
        let mut m = std::collections::BTreeMap::new();
        m.insert(19879, "thread/sql/one_connection".to_string());
        assert_eq!(category(Some(19879), "mariadbd", &m), "connection");
        assert_eq!(category_of_ps_name("thread/innodb/page_cleaner_thread"), "engine_page_cleaner");
    }

    #[test]
    fn toml_overrides_win() {
        let t = Taxonomy::from_toml(
            "[comm]\n\"gcache-w\" = \"replication_applier\"\n[ps_name]\n\"thread/sql/one\" = \"other\"\n",
        )
        .unwrap();
        let mut m = std::collections::BTreeMap::new();
        m.insert(7, "thread/sql/one_connection".to_string());
        assert_eq!(t.category(Some(1), "gcache-w0", &m), "replication_applier");
        assert_eq!(t.category(Some(7), "mariadbd", &m), "other");
        assert_eq!(t.category(Some(2), "kworker/u8:3+flush-254:0", &m), "writeback");
        assert!(matches!(
            Taxonomy::from_toml("[comm]\nx = \"nope\""),
            Err(TaxonomyError::UnknownCategory(_))
        ));
        assert!(matches!(Taxonomy::from_toml("[other]\n"), Err(TaxonomyError::Syntax(_))));
    }

    #[test]
    fn gcache_files_by_name() {
        assert!(is_gcache_file("/var/tmp/iosift_galera/node1/gcache/galera.cache"));
        assert!(is_gcache_file("/var/lib/mysql/gcache.page.000003"));
        assert!(is_gcache_file("/var/lib/mysql/gcache.page.000003 (deleted)"));
        assert!(!is_gcache_file("/var/lib/mysql/gcache.page."));
        assert!(!is_gcache_file("/var/lib/mysql/galera.cache.old"));
        assert!(!is_gcache_file("/var/lib/mysql/ib_logfile0"));
    }
}
