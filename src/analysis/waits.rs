//! Where threads wait, from thread stacks: gdb `thread apply all bt` snapshots
//! (`gdb_stacks`) or, without them, pt-pmp's aggregate (`pt_pmp`). Per thread, how
//! many of its stacks are in fsync, a mutex, a condition, a network read, ...
//! ([`iosift_parsers::gdb_stacks::Wait`]). A gdb thread is its LWP, named through
//! `performance_schema.threads` (LWP = `THREAD_OS_ID`) when the capture has the map,
//! else by the function it was started in (`handle_slave_io`); pt-pmp keeps no
//! thread ids, so its stacks are grouped by that function alone.
//!
//! Seed 003's evidence: the replica's IO thread in `fsync()` under the binary-log
//! code in most snapshots (`samples/replica_io_bound_gdb`: 15 of 16).

use super::StackInput;
use super::replication::role;
use crate::source::Stacks;
use iosift_parsers::gdb_stacks::{Frames, Wait};
use serde::Serialize;
use std::collections::BTreeMap;

/// One thread's (or, from pt-pmp, one start function's) stacks.
#[derive(Debug, Clone, Serialize)]
pub struct ThreadWaits {
    /// Its name (untrusted: escape it): `thread/sql/slave_io`, `handle_slave_io`, `mariadbd`.
    pub thread: String,
    /// Where the name comes from: `performance_schema.threads`, `start function`, `gdb`.
    pub named_by: &'static str,
    /// The Linux thread id, from gdb.
    pub lwp: Option<u32>,
    /// The replication thread it is (`io`, `sql`), when it is one.
    pub role: Option<&'static str>,
    /// Its stacks: snapshots it was in (gdb), or threads counted (pt-pmp).
    pub stacks: u64,
    /// Stacks per wait, in [`Wait::ALL`] order.
    pub waits: [u64; Wait::ALL.len()],
    /// The file they were read from.
    pub file: String,
    /// First and last line of a stack of it in fsync, when one is.
    pub fsync_lines: Option<[usize; 2]>,
}

impl ThreadWaits {
    /// Stacks in `w`.
    pub fn count(&self, w: Wait) -> u64 {
        Wait::ALL.iter().position(|x| *x == w).map_or(0, |i| self.waits[i])
    }

    /// Share of its stacks in `w`, 0..1.
    pub fn share(&self, w: Wait) -> f64 {
        if self.stacks == 0 { 0.0 } else { self.count(w) as f64 / self.stacks as f64 }
    }
}

/// The capture's thread stacks, per thread.
#[derive(Debug, Clone, Default, Serialize)]
pub struct StacksView {
    /// The files read, and the form (`gdb` / `pt-pmp`).
    pub files: Vec<(String, &'static str)>,
    /// pt-pmp files not read because gdb snapshots were (the same stacks again).
    pub ignored: Vec<String>,
    /// gdb snapshots (0 for pt-pmp).
    pub snapshots: usize,
    /// Every thread, most fsync stacks first.
    pub threads: Vec<ThreadWaits>,
}

impl StacksView {
    /// The replication thread of role `r` (`io`, `sql`) with the most stacks.
    pub fn role(&self, r: &str) -> Option<&ThreadWaits> {
        self.threads.iter().filter(|t| t.role == Some(r)).max_by_key(|t| (t.stacks, std::cmp::Reverse(t.lwp)))
    }

    /// The thread with the most stacks in fsync, when any is.
    pub fn top_fsync(&self) -> Option<&ThreadWaits> {
        self.threads.first().filter(|t| t.count(Wait::Fsync) > 0)
    }

    /// What the stacks are: `16 gdb snapshots` or `pt-pmp's aggregate`.
    pub fn described(&self) -> String {
        if self.snapshots > 0 {
            format!("{} gdb snapshot{}", self.snapshots, if self.snapshots == 1 { "" } else { "s" })
        } else {
            "pt-pmp's aggregated stacks".into()
        }
    }
}

/// The replication thread a start function is (MariaDB and MySQL names).
fn entry_role(f: &str) -> Option<&'static str> {
    match f {
        "handle_slave_io" | "handle_replica_io" => Some("io"),
        "handle_slave_sql" | "handle_replica_sql" | "handle_slave_worker" | "handle_rpl_parallel_thread" => {
            Some("sql")
        }
        _ => None,
    }
}

/// Name, source of the name and role of a thread: the map's name by LWP, else its start function.
fn name_of(
    lwp: Option<u32>,
    entry: Option<&str>,
    gdb_name: Option<&str>,
    thread_map: &BTreeMap<u32, String>,
) -> (String, &'static str, Option<&'static str>) {
    if let Some(n) = lwp.and_then(|l| thread_map.get(&l)) {
        return (n.clone(), "performance_schema.threads", role(n).or_else(|| entry.and_then(entry_role)));
    }
    if let Some(e) = entry {
        return (e.to_string(), "start function", entry_role(e));
    }
    (gdb_name.unwrap_or("?").to_string(), "gdb", None)
}

fn add(t: &mut ThreadWaits, w: Wait, n: u64, line: usize) {
    t.stacks += n;
    if let Some(i) = Wait::ALL.iter().position(|x| *x == w) {
        t.waits[i] += n;
    }
    if w == Wait::Fsync {
        t.fsync_lines = Some(t.fsync_lines.map_or([line, line], |[a, b]| [a.min(line), b.max(line)]));
    }
}

fn new_thread(
    (thread, named_by, role): (String, &'static str, Option<&'static str>),
    lwp: Option<u32>,
    file: &str,
) -> ThreadWaits {
    ThreadWaits {
        thread,
        named_by,
        lwp,
        role,
        stacks: 0,
        waits: [0; Wait::ALL.len()],
        file: file.to_string(),
        fsync_lines: None,
    }
}

/// Per-thread waits of the capture's stacks: every gdb file, or every pt-pmp file when
/// there is no gdb file (`collect.sh -G` writes pt-pmp's aggregate of its own gdb
/// snapshots: read both and every stack would count twice). `None` without stacks.
pub(crate) fn view(inputs: &[StackInput<'_>], thread_map: &BTreeMap<u32, String>) -> Option<StacksView> {
    let any_gdb = inputs.iter().any(|i| matches!(i.stacks, Stacks::Gdb(_)));
    let mut v = StacksView::default();
    // Key: the LWP (gdb), else the name.
    let mut by: BTreeMap<(Option<u32>, String), ThreadWaits> = BTreeMap::new();
    for i in inputs {
        match i.stacks {
            Stacks::Gdb(g) => {
                v.files.push((i.name.to_string(), "gdb"));
                v.snapshots += g.snapshots.len();
                for t in &g.threads {
                    let named = name_of(t.lwp, t.entry(), t.name.as_deref(), thread_map);
                    let key = (t.lwp, if t.lwp.is_some() { String::new() } else { named.0.clone() });
                    let e = by.entry(key).or_insert_with(|| new_thread(named, t.lwp, i.name));
                    add(e, t.wait, 1, t.line);
                }
            }
            Stacks::Pmp(_) if any_gdb => v.ignored.push(i.name.to_string()),
            Stacks::Pmp(p) => {
                v.files.push((i.name.to_string(), "pt-pmp"));
                for s in &p.stacks {
                    let named = name_of(None, s.entry(), None, thread_map);
                    let e =
                        by.entry((None, named.0.clone())).or_insert_with(|| new_thread(named, None, i.name));
                    add(e, s.wait, s.count, s.line);
                }
            }
        }
    }
    if by.is_empty() {
        return None;
    }
    v.threads = by.into_values().collect();
    v.threads.sort_by(|a, b| {
        b.count(Wait::Fsync)
            .cmp(&a.count(Wait::Fsync))
            .then(b.stacks.cmp(&a.stacks))
            .then_with(|| a.thread.cmp(&b.thread))
            .then(a.lwp.cmp(&b.lwp))
    });
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use iosift_parsers::Format;

    const GDB: &str = "TS 1796499890.945397973 2026-12-05 19:44:50
Thread 15 (Thread 0x7f56a80806c0 (LWP 13881) \"mariadbd\"):
#0  0x00007f56c511cd0a in __GI_fdatasync (fd=50) at ../sysdeps/unix/sysv/linux/fdatasync.c:28
#1  0x00005633ace54fbe in my_sync ()
#5  0x00005633ac6e2462 in handle_slave_io ()
#7  0x00007f56c50a71f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442
Thread 2 (Thread 0x7f56a80806c1 (LWP 9101) \"mariadbd\"):
#0  0x00007f56c511a26f in __GI___poll (fds=0x7f56a807f6f8, nfds=1, timeout=60000) at ../sysdeps/unix/sysv/linux/poll.c:29
#1  0x00005633ac6e2310 in handle_connections_sockets ()
[Inferior 1 (process 9098) detached]
";

    #[test]
    fn names_through_the_thread_map_and_the_start_function() {
        let g = iosift_parsers::gdb_stacks::Fmt::parse(GDB.as_bytes()).value;
        let p = iosift_parsers::pt_pmp::Fmt::parse(b"     15 __GI_fdatasync,my_sync,MYSQL_BIN_LOG::flush_and_sync,::??,handle_slave_io,::??,start_thread,clone3\n").value;
        let inputs = [
            StackInput { name: "x-stacktrace", stacks: Stacks::Gdb(&g) },
            StackInput { name: "x-pmp", stacks: Stacks::Pmp(&p) },
        ];
        let map: BTreeMap<u32, String> = [(13881, "thread/sql/slave_io".to_string())].into();
        let v = view(&inputs, &map).unwrap();
        assert_eq!(v.ignored, ["x-pmp"]);
        let io = v.role("io").unwrap();
        assert_eq!(
            (io.thread.as_str(), io.named_by, io.lwp),
            ("thread/sql/slave_io", "performance_schema.threads", Some(13881))
        );
        assert_eq!((io.stacks, io.count(Wait::Fsync), io.fsync_lines), (1, 1, Some([2, 2])));
        assert_eq!(v.threads[1].thread, "handle_connections_sockets");
        assert_eq!(v.threads[1].count(Wait::Poll), 1);
        // pt-pmp alone: grouped by start function.
        let v = view(&inputs[1..], &BTreeMap::new()).unwrap();
        let io = v.role("io").unwrap();
        assert_eq!(
            (io.thread.as_str(), io.named_by, io.stacks, io.share(Wait::Fsync)),
            ("handle_slave_io", "start function", 15, 1.0)
        );
        assert!(view(&[], &map).is_none());
    }
}
