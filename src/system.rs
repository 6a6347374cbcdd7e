//! The system box of the report: the host and the database at a glance, the
//! way pt-summary prints them (kernel, CPUs, disks and their stacking,
//! filesystems with their mount options, read-ahead, `vm.dirty_*`, THP, the
//! MySQL durability and replication settings).
//!
//! [`SystemBox`] is plain data (every value with the `file:line` it was read
//! from) so that other stages can feed it more later (the device stack
//! resolution fills [`Disk::stack`]); [`of`] fills it from what the gathered
//! [`Context`] and the timeline already hold. Nothing here decides anything.

use crate::source::{Context, Sourced};
use crate::table::Timeline;
use crate::table::columns::{Col, CoreMetric, DevMetric};
use std::collections::BTreeMap;

/// One value of the system box and where it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    /// The value as the capture prints it.
    pub value: String,
    /// `file:line` (or the file alone, or `timeline` when counted from its columns).
    pub source: String,
}

/// A block device of the capture.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Disk {
    /// Kernel name (`vda`, `dm-0`, `loop3`).
    pub name: String,
    /// What it sits on, top first (`loop3`, `vda`): empty when unknown or when it is a
    /// disk itself. Filled from the device stack resolution (loop, dm, md down to the
    /// physical disk, [`crate::analysis::stack`]).
    pub stack: Vec<String>,
    /// The stack in words with how it is known (`loop0 (loop, backing file ...) -> vda`).
    pub stack_note: Option<String>,
    /// Block-queue attributes (`read_ahead_kb`, `scheduler`, `rotational`, ...).
    pub queue: BTreeMap<String, Fact>,
    /// True when the timeline has I/O series of it.
    pub measured: bool,
    /// True for the most written device (the one the charts follow).
    pub main: bool,
}

/// A mounted filesystem (pseudo filesystems left out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filesystem {
    /// Mount point.
    pub target: String,
    /// Device.
    pub source: String,
    /// Type (`ext4`, `xfs`).
    pub fstype: String,
    /// Options, comma-joined.
    pub options: String,
    /// Where it was read.
    pub at: String,
}

/// The system box.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SystemBox {
    /// Kernel release.
    pub kernel: Option<Fact>,
    /// CPUs (counted from per-core series).
    pub cpus: Option<Fact>,
    /// Memory size, when a capture states it.
    pub memory: Option<Fact>,
    /// Block devices.
    pub disks: Vec<Disk>,
    /// Filesystems.
    pub filesystems: Vec<Filesystem>,
    /// `vm.dirty_*` and other writeback sysctls.
    pub vm: Vec<(String, Fact)>,
    /// Transparent huge pages (`enabled`, `defrag`, ...).
    pub thp: Vec<(String, Fact)>,
    /// MySQL durability settings (`sync_binlog`, `innodb_flush_log_at_trx_commit`, ...).
    pub durability: Vec<(String, Fact)>,
    /// MySQL replication and I/O settings.
    pub replication: Vec<(String, Fact)>,
    /// What the capture lacked (the inputs the rules missed).
    pub lacked: Vec<String>,
    /// Notable kernel messages (hung tasks, I/O and file-system errors, OOM kills); `None`
    /// when the capture has no kernel log.
    pub kernel_log: Option<Vec<Fact>>,
}

/// Pseudo filesystems whose mount options say nothing about I/O.
pub(crate) const PSEUDO_FS: &[&str] = &[
    "proc",
    "sysfs",
    "devtmpfs",
    "devpts",
    "tmpfs",
    "cgroup",
    "cgroup2",
    "securityfs",
    "pstore",
    "bpf",
    "debugfs",
    "tracefs",
    "mqueue",
    "hugetlbfs",
    "configfs",
    "fusectl",
    "autofs",
    "binfmt_misc",
    "efivarfs",
    "ramfs",
    "rpc_pipefs",
    "nsfs",
    "overlay",
    "squashfs",
];

/// MySQL variables that decide durability, in the order shown.
pub(crate) const DURABILITY: &[&str] = &[
    "version",
    "sync_binlog",
    "innodb_flush_log_at_trx_commit",
    "innodb_flush_method",
    "innodb_doublewrite",
    "binlog_group_commit_sync_delay",
    "innodb_use_native_aio",
    "innodb_io_capacity",
    "innodb_log_file_size",
    "innodb_buffer_pool_size",
];

/// MySQL variables of replication, in the order shown.
pub(crate) const REPLICATION: &[&str] = &[
    "server_id",
    "log_bin",
    "binlog_format",
    "gtid_mode",
    "read_only",
    "log_slave_updates",
    "log_replica_updates",
    "slave_parallel_workers",
    "replica_parallel_workers",
    "slave_parallel_threads",
    "sync_relay_log",
    "relay_log_info_repository",
];

/// Block-queue attributes shown, in order.
const QUEUE: &[&str] =
    &["read_ahead_kb", "scheduler", "rotational", "nr_requests", "max_sectors_kb", "write_cache"];

fn fact(s: &Sourced<String>) -> Fact {
    let source = if s.line == 0 { s.file.clone() } else { format!("{}:{}", s.file, s.line) };
    Fact { value: s.value.trim().to_string(), source }
}

/// A notable kernel message in words: what, who, since when, where it waits (a hung task's
/// frames after the scheduler's own), and when on the wall clock when the boot time is known.
pub(crate) fn kernel_event(e: &iosift_parsers::dmesg::Event, btime: Option<u64>) -> String {
    use iosift_parsers::dmesg::Kind;
    let what = match &e.kind {
        Kind::HungTask { task, pid, secs, stack } => {
            let waits: Vec<&str> = stack
                .iter()
                .map(String::as_str)
                .filter(|f| !matches!(*f, "__schedule" | "schedule"))
                .take(5)
                .collect();
            let at =
                if waits.is_empty() { String::new() } else { format!(", waiting in {}", waits.join(" < ")) };
            format!("hung task: {task} (pid {pid}) blocked for more than {secs} s{at}")
        }
        Kind::IoError { device } => format!("I/O error on {device}: {}", e.text),
        Kind::FsError { device } => format!("file-system error on {device}: {}", e.text),
        Kind::OomKill { pid, task } => format!("OOM kill: {task} (pid {pid})"),
    };
    let when = match (e.stamp, btime) {
        (Some(iosift_parsers::Stamp::SinceBoot(s)), Some(b)) => {
            iosift_parsers::common::time::epoch_to_utc(b as f64 + s)
                .map(|t| {
                    format!(
                        " at {} UTC (boot + {s:.1} s, boot time from /proc/stat)",
                        t.format("%Y-%m-%d %H:%M:%S")
                    )
                })
                .unwrap_or_default()
        }
        (Some(iosift_parsers::Stamp::SinceBoot(s)), None) => {
            format!(" at boot + {s:.1} s (no boot time in the capture to place it on the clock)")
        }
        (Some(st), _) => format!(" at {}", st.display()),
        (None, _) => String::new(),
    };
    format!("{what}{when}")
}

/// The disks: those with queue settings in sysfs, measured in the timeline or the main
/// device, with their block stacks; the main device first, then measured ones, then the
/// rest by name.
fn disks(ctx: &Context, tl: &Timeline, main_device: Option<&str>) -> Vec<Disk> {
    let mut disks: BTreeMap<String, Disk> = BTreeMap::new();
    for ((dev, attr), v) in &ctx.sysfs {
        let d = disks.entry(dev.clone()).or_insert_with(|| Disk { name: dev.clone(), ..Default::default() });
        if QUEUE.contains(&attr.as_str()) {
            d.queue.insert(attr.clone(), fact(v));
        }
    }
    for (c, _) in tl.iter() {
        if let Col::Dev(dev, DevMetric::WBytesS | DevMetric::RBytesS) = &c {
            disks
                .entry(dev.clone())
                .or_insert_with(|| Disk { name: dev.clone(), ..Default::default() })
                .measured = true;
        }
    }
    if let Some(m) = main_device.and_then(|m| disks.get_mut(m)) {
        m.main = true;
    }
    for d in disks.values_mut().filter(|d| d.measured || d.main) {
        let r = crate::analysis::stack::resolve(ctx, tl, &d.name);
        if r.kind.is_stacked() {
            d.stack = std::iter::once(d.name.clone()).chain(r.physical.iter().cloned()).collect();
            d.stack_note = Some(match r.basis {
                crate::analysis::stack::Basis::Inferred(share) => {
                    format!(
                        "{}; inferred: the disk carries {:.0} % of its writes second by second",
                        r.chain,
                        share * 100.0
                    )
                }
                crate::analysis::stack::Basis::Recorded(_) | crate::analysis::stack::Basis::Unknown => {
                    r.chain.clone()
                }
            });
        }
    }
    let mut out: Vec<Disk> = disks.into_values().collect();
    // The main device first, then measured ones, then the rest by name.
    out.sort_by(|x, y| y.main.cmp(&x.main).then(y.measured.cmp(&x.measured)).then(x.name.cmp(&y.name)));
    out
}

/// Fills the box from the context, the timeline's columns, the main device and
/// the inputs the rules missed (`lacked`, deduplicated in order).
pub(crate) fn of(ctx: &Context, tl: &Timeline, main_device: Option<&str>, lacked: &[String]) -> SystemBox {
    let mut b = SystemBox { kernel: ctx.kernel.as_ref().map(fact), ..Default::default() };
    if !ctx.kernel_log_files.is_empty() {
        let btime = ctx.btime.as_ref().map(|b| b.value);
        b.kernel_log = Some(
            ctx.kernel_log
                .iter()
                .map(|e| Fact {
                    value: kernel_event(&e.value, btime),
                    source: format!("{}:{}", e.file, e.line),
                })
                .collect(),
        );
    }
    let cores = tl.iter().filter(|(c, _)| matches!(c, Col::Core(_, CoreMetric::BusyPct))).count();
    if cores > 0 {
        b.cpus = Some(Fact { value: cores.to_string(), source: "per-core CPU series".into() });
    }
    b.disks = disks(ctx, tl, main_device);
    let mut seen = std::collections::BTreeSet::new();
    for m in &ctx.mounts {
        let v = &m.value;
        if PSEUDO_FS.contains(&v.fstype.as_str()) || v.target.is_empty() || !seen.insert(v.target.clone()) {
            continue;
        }
        b.filesystems.push(Filesystem {
            target: v.target.clone(),
            source: v.source.clone(),
            fstype: v.fstype.clone(),
            options: v.options.join(","),
            at: if m.line == 0 { m.file.clone() } else { format!("{}:{}", m.file, m.line) },
        });
    }
    b.vm = ctx
        .sysctl
        .iter()
        .filter(|(k, _)| k.starts_with("vm.dirty") || k.as_str() == "vm.swappiness")
        .map(|(k, v)| (k.clone(), fact(v)))
        .collect();
    // The settings that decide THP use; per-size entries (`hugepages-64kB/enabled`) only
    // when they do not just follow the top-level setting ([inherit], or [never] by default).
    b.thp = ctx
        .thp
        .iter()
        .filter(|(k, v)| match k.split_once('/') {
            None => ["enabled", "defrag", "shmem_enabled"].contains(&k.as_str()),
            Some((dir, _)) if dir.starts_with("hugepages-") => {
                !v.value.contains("[inherit]") && !v.value.contains("[never]")
            }
            Some(_) => k.as_str() == "khugepaged/defrag",
        })
        .map(|(k, v)| (k.clone(), fact(v)))
        .collect();
    let vars = |names: &[&str]| -> Vec<(String, Fact)> {
        names.iter().filter_map(|n| ctx.variable(n).map(|v| (n.to_string(), fact(v)))).collect()
    };
    b.durability = vars(DURABILITY);
    b.replication = vars(REPLICATION);
    for l in lacked {
        if !b.lacked.contains(l) {
            b.lacked.push(l.clone());
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_from_context_and_timeline() {
        let mut ctx = Context::default();
        let s = |v: &str| Sourced { value: v.to_string(), file: "f".into(), line: 3 };
        ctx.kernel = Some(s("6.1.0-13-amd64"));
        ctx.sysfs.insert(("vda".into(), "read_ahead_kb".into()), s("128"));
        ctx.sysctl.insert("vm.dirty_ratio".into(), s("20"));
        ctx.sysctl.insert("kernel.pid_max".into(), s("1"));
        let mut tl = Timeline::rows(0, 2);
        let col = Col::Dev("loop0".into(), DevMetric::WBytesS);
        let values = crate::table::cell::cells([Some(1.0), None]);
        tl.insert(
            col,
            crate::table::timeline::Series {
                values,
                unit: crate::table::columns::Unit::BytesPerS,
                source: "x".into(),
            },
        );
        let b = of(&ctx, &tl, Some("loop0"), &["perf".into(), "perf".into()]);
        assert_eq!(b.kernel.unwrap().source, "f:3");
        assert_eq!(b.disks[0].name, "loop0");
        assert!(b.disks[0].main && b.disks[0].measured);
        assert_eq!(b.disks[1].queue["read_ahead_kb"].value, "128");
        assert_eq!(b.vm.len(), 1);
        assert_eq!(b.lacked, ["perf"]);
    }
}
