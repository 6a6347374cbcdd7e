//! The context of a capture that a diff compares: kernel, mount options of
//! real filesystems, `vm.*` sysctls, transparent huge pages, block-queue
//! attributes (read-ahead, scheduler, ...) and the MySQL variables that decide
//! durability and I/O. The answer of many comparisons is here ("kernel 5.10 ->
//! 6.1", "sync_binlog 1 -> 0").
//!
//! The facts are read from the context the analysis gathered
//! ([`crate::model::Report::context`]): no file is parsed again.

use super::measures::Measure;
use crate::model::Report;
use crate::source::Context;
use crate::system::PSEUDO_FS;
use std::collections::BTreeMap;

/// MySQL/MariaDB variables compared: durability first (the source's and the replica's),
/// then group commit, replication (parallelism, relay log, repositories), then I/O sizing.
/// Both spellings where MySQL renamed them (`slave_*` / `replica_*`, `master_*` / `source_*`).
pub const VARIABLES: &[&str] = &[
    // Durability of commits.
    "innodb_flush_log_at_trx_commit",
    "sync_binlog",
    "innodb_flush_log_at_timeout",
    "innodb_flush_method",
    "innodb_doublewrite",
    // Durability of a replica's position and relay log.
    "sync_relay_log",
    "sync_relay_log_info",
    "sync_master_info",
    "sync_source_info",
    "relay_log_recovery",
    "master_info_repository",
    "relay_log_info_repository",
    // Group commit.
    "binlog_group_commit_sync_delay",
    "binlog_group_commit_sync_no_delay_count",
    "binlog_commit_wait_count",
    "binlog_commit_wait_usec",
    // Binary log and replication.
    "log_bin",
    "binlog_format",
    "binlog_row_image",
    "log_slave_updates",
    "log_replica_updates",
    "slave_parallel_threads",
    "slave_parallel_mode",
    "slave_parallel_workers",
    "replica_parallel_workers",
    "slave_parallel_type",
    "replica_parallel_type",
    "slave_preserve_commit_order",
    "replica_preserve_commit_order",
    "binlog_transaction_dependency_tracking",
    "relay_log_space_limit",
    "read_only",
    // I/O sizing.
    "innodb_use_native_aio",
    "innodb_flush_neighbors",
    "innodb_io_capacity",
    "innodb_io_capacity_max",
    "innodb_log_file_size",
    "innodb_log_buffer_size",
    "innodb_buffer_pool_size",
    "version",
];

/// One context fact: its group, value and where it was read.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    /// `kernel`, `mount`, `sysctl`, `thp`, `block queue`, `mysql`.
    pub group: &'static str,
    /// The value as the capture prints it.
    pub value: String,
    /// `file:line` (or the file alone).
    pub source: String,
}

/// The facts of one capture by key (`sysctl vm.dirty_expire_centisecs`, `mysql sync_binlog`).
pub type Facts = BTreeMap<String, Fact>;

/// What [`gather`] finds: the facts, and the measures only the context holds.
pub type Gathered = (Facts, Vec<Measure>);

/// The context facts of an analysed capture, and the numbers only the context holds
/// (FilePmdMapped of the smaps mappings).
pub fn gather(report: &Report) -> Gathered {
    (facts_of(&report.context), measures_of(&report.context))
}

/// The largest FilePmdMapped of one smaps mapping (file pages a process maps with
/// PMD-sized folios; a `smaps_rollup` counts as one mapping, and snapshots taken
/// several times are not added up), with that mapping as the note.
pub fn measures_of(ctx: &Context) -> Vec<Measure> {
    if ctx.mappings.is_empty() {
        return Vec::new();
    }
    let kb = |m: &crate::source::Sourced<iosift_parsers::smaps::Mapping>| {
        m.value.get("FilePmdMapped").unwrap_or(0)
    };
    let top = ctx.mappings.iter().filter(|m| kb(m) > 0).max_by_key(|m| kb(m));
    let largest = top.map_or(0, kb);
    vec![Measure {
        key: "memory.smaps_file_pmd_mapped".into(),
        label: "FilePmdMapped of the largest mapping (smaps)".into(),
        group: "memory",
        unit: "B",
        value: Some(largest as f64 * 1024.0),
        note: top.map(|m| m.value.path.clone()),
        source: top.map(|m| format!("{}:{}", m.file, m.line)),
    }]
}

fn at(file: &str, line: usize) -> String {
    if line == 0 { file.to_string() } else { format!("{file}:{line}") }
}

/// The facts of a gathered context.
pub fn facts_of(ctx: &Context) -> Facts {
    let mut out = Facts::new();
    let mut put = |key: String, group: &'static str, value: String, source: String| {
        out.entry(key).or_insert(Fact { group, value, source });
    };
    if let Some(k) = &ctx.kernel {
        put("kernel".into(), "kernel", k.value.clone(), at(&k.file, k.line));
    }
    for m in &ctx.mounts {
        let v = &m.value;
        if PSEUDO_FS.contains(&v.fstype.as_str()) {
            continue;
        }
        let at_key = if v.target.is_empty() { &v.source } else { &v.target };
        put(
            format!("mount {at_key}"),
            "mount",
            format!("{} {} ({})", v.fstype, v.options.join(","), v.source),
            at(&m.file, m.line),
        );
    }
    for (k, v) in ctx.sysctl.iter().filter(|(k, _)| k.starts_with("vm.")) {
        put(format!("sysctl {k}"), "sysctl", v.value.trim().to_string(), at(&v.file, v.line));
    }
    for ((dev, attr), v) in &ctx.sysfs {
        put(format!("queue {dev} {attr}"), "block queue", v.value.trim().to_string(), at(&v.file, v.line));
    }
    for name in VARIABLES {
        if let Some(v) = ctx.variable(name) {
            put(format!("mysql {name}"), "mysql", v.value.trim().to_string(), at(&v.file, v.line));
        }
    }
    for (k, v) in &ctx.thp {
        put(format!("thp {k}"), "thp", v.value.clone(), at(&v.file, v.line));
    }
    out
}

/// A context fact that differs between the captures (or is in only one).
#[derive(Debug, Clone, serde::Serialize)]
pub struct ContextChange {
    /// The fact (`mysql sync_binlog`, `sysctl vm.dirty_ratio`, `kernel`).
    pub key: String,
    /// Its group (`kernel`, `mount`, `sysctl`, `thp`, `block queue`, `mysql`).
    pub group: &'static str,
    /// Value in A (null when A does not have it).
    pub a: Option<String>,
    /// Value in B.
    pub b: Option<String>,
    /// Where A's value was read (`file:line`).
    pub source_a: Option<String>,
    /// Where B's value was read.
    pub source_b: Option<String>,
    /// For lists (mount options, `always [madvise] never`): the items only in A
    /// (`-item`) and only in B (`+item`), e.g. `-nodiscard +discard`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// `-only_in_a +only_in_b` of two comma- or space-separated lists; `None` when
/// either value is not a list.
pub fn list_detail(a: &str, b: &str) -> Option<String> {
    let items = |s: &str| -> Vec<String> {
        s.split([',', ' ']).filter(|x| !x.is_empty()).map(str::to_string).collect()
    };
    let (xa, xb) = (items(a), items(b));
    if xa.len() < 2 && xb.len() < 2 {
        return None;
    }
    let mut out: Vec<String> = xa.iter().filter(|x| !xb.contains(x)).map(|x| format!("-{x}")).collect();
    out.extend(xb.iter().filter(|x| !xa.contains(x)).map(|x| format!("+{x}")));
    (!out.is_empty()).then(|| out.join(" "))
}

/// Group order of the context diff: what most often explains a change first.
fn group_rank(g: &str) -> usize {
    ["mysql", "kernel", "mount", "sysctl", "thp", "block queue"].iter().position(|x| *x == g).unwrap_or(9)
}

/// The facts that differ, most telling groups first; and how many are equal.
pub fn diff(a: &Facts, b: &Facts) -> (Vec<ContextChange>, usize) {
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut same = 0;
    let mut out = Vec::new();
    for k in keys {
        let (fa, fb) = (a.get(k), b.get(k));
        if let (Some(x), Some(y)) = (fa, fb)
            && x.value == y.value
        {
            same += 1;
            continue;
        }
        let group = fa.or(fb).map_or("other", |f| f.group);
        out.push(ContextChange {
            key: k.clone(),
            group,
            a: fa.map(|f| f.value.clone()),
            b: fb.map(|f| f.value.clone()),
            source_a: fa.map(|f| f.source.clone()),
            source_b: fb.map(|f| f.source.clone()),
            detail: match (fa, fb) {
                (Some(x), Some(y)) => list_detail(&x.value, &y.value),
                _ => None,
            },
        });
    }
    let var_rank =
        |k: &str| VARIABLES.iter().position(|v| k.strip_prefix("mysql ") == Some(*v)).unwrap_or(99);
    out.sort_by(|x, y| {
        group_rank(x.group)
            .cmp(&group_rank(y.group))
            .then(var_rank(&x.key).cmp(&var_rank(&y.key)))
            .then(x.key.cmp(&y.key))
    });
    (out, same)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(group: &'static str, v: &str) -> Fact {
        Fact { group, value: v.into(), source: "f:1".into() }
    }

    #[test]
    fn only_differences_durability_first() {
        let a: Facts = [
            ("kernel".to_string(), fact("kernel", "5.10.0-26-amd64")),
            ("mysql sync_binlog".into(), fact("mysql", "1")),
            ("mysql innodb_flush_log_at_trx_commit".into(), fact("mysql", "1")),
            ("sysctl vm.dirty_ratio".into(), fact("sysctl", "20")),
        ]
        .into();
        let b: Facts = [
            ("kernel".to_string(), fact("kernel", "6.1.0-13-amd64")),
            ("mysql sync_binlog".into(), fact("mysql", "0")),
            ("mysql innodb_flush_log_at_trx_commit".into(), fact("mysql", "2")),
            ("sysctl vm.dirty_ratio".into(), fact("sysctl", "20")),
            ("thp enabled".into(), fact("thp", "always [madvise] never")),
        ]
        .into();
        let (d, same) = diff(&a, &b);
        assert_eq!(same, 1);
        let keys: Vec<&str> = d.iter().map(|c| c.key.as_str()).collect();
        assert_eq!(
            keys,
            ["mysql innodb_flush_log_at_trx_commit", "mysql sync_binlog", "kernel", "thp enabled"]
        );
        assert_eq!(d[3].a, None);
        assert_eq!(
            list_detail("ext4 rw,nodiscard,journal_checksum (vda)", "ext4 rw,discard,journal_checksum (vda)")
                .as_deref(),
            Some("-nodiscard +discard")
        );
        assert_eq!(
            list_detail("always [madvise] never", "[always] madvise never").as_deref(),
            Some("-always -[madvise] +[always] +madvise")
        );
        assert_eq!(list_detail("1", "0"), None);
    }
}
