//! Who dirtied the written mapping, for `mmap_large_folio_writeback`: the threads of the
//! process whose smaps holds it (pidstat -d charges a thread every folio its stores dirty,
//! whole), the folio size those charges step in, and their names: performance_schema's
//! (`thread/sql/wsrep_applier_thread`), or, in a Galera node's gcache (`galera.cache`,
//! `gcache.page.*`), Galera's own threads, which performance_schema does not list.
//!
//! pidstat -d lists every process of the host: on one host running several database
//! servers (a Galera cluster on 127.0.0.1) the other servers' threads dirty their own
//! mappings, so only the mapping owner's threads are its dirtiers.

use crate::attribution::is_gcache_file;
use crate::pipeline::{Sourced, ThreadTotal};
use crate::table::Cell;
use crate::verdict::{Actor, Role};
use iosift_parsers::smaps::Mapping;
use std::collections::BTreeMap;

/// Folio sizes (KiB) pidstat's charges are tried against, largest first.
const FOLIO_STEPS_KB: [u64; 6] = [2048, 1024, 512, 256, 128, 64];
/// At most this many dirtiers are named.
pub(crate) const NAMED: usize = 5;

/// One thread that dirtied pages of the mapping owner's process.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Dirtier {
    /// Thread id.
    pub tid: u32,
    /// Its command name as pidstat prints it (`mariadbd`).
    pub comm: String,
    /// Its name: performance_schema's, or what it is (`Galera provider thread ...`).
    pub name: Option<String>,
    /// Bytes pidstat charged it over the capture.
    pub bytes: f64,
}

/// The mapping owner's dirtiers, heaviest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Dirtiers {
    /// The process whose smaps holds the mapping (`smaps-PID-COMM.txt`).
    pub owner: Option<u32>,
    /// Its threads that were charged writes, heaviest first (the kernel's issuers left out).
    pub threads: Vec<Dirtier>,
    /// The folio size (KiB) the heaviest one's per-second charges step in.
    pub folio_kb: Option<u64>,
}

/// The process id in an smaps file name: `smaps-17415-mariadbd.txt.gz` -> 17415.
pub(crate) fn owner_pid(file: &str) -> Option<u32> {
    let base = file.rsplit('/').next()?;
    base.strip_prefix("smaps-")?.split('-').next()?.parse().ok()
}

/// The common step of a thread's per-second charges (KiB): pidstat charges whole folios,
/// so most non-zero values are multiples of the folio size (a power of two, 64 KiB to 2 MiB);
/// the largest such step wins. None with fewer than 3 charged seconds.
pub(crate) fn folio_step(values: &[Cell]) -> Option<u64> {
    let kbs: Vec<u64> =
        values.iter().flatten().filter(|x| *x > 0.0).map(|x| (x / 1024.0).round() as u64).collect();
    if kbs.len() < 3 {
        return None;
    }
    FOLIO_STEPS_KB.into_iter().find(|p| kbs.iter().filter(|k| *k % p == 0).count() * 5 >= kbs.len() * 4)
}

/// The dirtiers of `mapping`: the owner's threads when smaps names the owner and pidstat
/// lists any of them, else every thread (a capture of one process).
pub(crate) fn of(
    mapping: Option<&Sourced<Mapping>>,
    threads: &BTreeMap<u32, ThreadTotal>,
    thread_writes: &BTreeMap<u32, &[Cell]>,
    thread_map: &BTreeMap<u32, String>,
) -> Dirtiers {
    let owner = mapping.and_then(|m| owner_pid(&m.file));
    let gcache = mapping.is_some_and(|m| is_gcache_file(&m.value.path));
    let own = |t: &ThreadTotal| owner.is_none_or(|p| t.tgid == Some(p));
    let restrict = threads.values().any(|t| t.category != "writeback" && own(t));
    let mut list: Vec<Dirtier> = threads
        .iter()
        .filter(|(_, t)| t.category != "writeback" && t.bytes > 0.0 && (!restrict || own(t)))
        .map(|(tid, t)| Dirtier {
            tid: *tid,
            comm: t.comm.clone(),
            name: name_of(*tid, thread_map, gcache),
            bytes: t.bytes,
        })
        .collect();
    list.sort_by(|a, b| b.bytes.total_cmp(&a.bytes).then(a.tid.cmp(&b.tid)));
    let folio_kb = list.first().and_then(|d| thread_writes.get(&d.tid)).and_then(|v| folio_step(v));
    Dirtiers { owner: owner.filter(|_| restrict), threads: list, folio_kb }
}

/// A thread's name: performance_schema's when it lists the thread; in a Galera gcache's
/// owner, a thread performance_schema does not list is one of Galera's own (the provider
/// library starts its receiver, network and service threads itself).
fn name_of(tid: u32, thread_map: &BTreeMap<u32, String>, gcache: bool) -> Option<String> {
    match thread_map.get(&tid) {
        Some(n) => Some(n.clone()),
        None if gcache && !thread_map.is_empty() => Some(
            "Galera provider thread (not in performance_schema: Galera's receiver and network threads)"
                .into(),
        ),
        None => None,
    }
}

impl Dirtiers {
    /// The named dirtiers as a finding's writers, with their share of the owner's charges.
    pub(crate) fn actors(&self) -> Vec<Actor> {
        let total: f64 = self.threads.iter().map(|d| d.bytes).sum();
        self.threads
            .iter()
            .take(NAMED)
            .map(|d| Actor {
                class: Role::Writer,
                comm: Some(d.comm.clone()),
                tid: Some(d.tid),
                share: (total > 0.0).then(|| d.bytes / total),
                source: "pidstat -d",
                measured: true,
                note: d.name.clone(),
            })
            .collect()
    }

    /// `mariadbd tid 17470 (Galera provider thread ..., 46.0 MiB), ...` for the summary.
    pub(crate) fn describe(&self) -> Option<String> {
        let words: Vec<String> = self
            .threads
            .iter()
            .take(NAMED)
            .map(|d| {
                let name = d.name.as_deref().map_or(String::new(), |n| format!("{n}, "));
                format!("{} tid {} ({name}{})", d.comm, d.tid, super::evidence::mib(d.bytes))
            })
            .collect();
        (!words.is_empty()).then(|| words.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn total(comm: &str, bytes: f64, tgid: u32) -> ThreadTotal {
        ThreadTotal { comm: comm.into(), category: "other", bytes, tgid: Some(tgid) }
    }

    #[test]
    fn owner_pid_from_the_smaps_file_name() {
        assert_eq!(owner_pid("smaps-17415-mariadbd.txt.gz"), Some(17415));
        assert_eq!(owner_pid("node1/smaps-9-a-b.txt"), Some(9));
        assert_eq!(owner_pid("smaps_rollup-9-x.txt"), None);
        assert_eq!(owner_pid("smaps-x-9.txt"), None);
    }

    #[test]
    fn folio_step_needs_four_fifths_of_the_charges_in_the_step() {
        let c = |v: &[f64]| v.iter().map(|x| Cell::some(x * 1024.0)).collect::<Vec<_>>();
        assert_eq!(folio_step(&c(&[2048.0, 4096.0, 2048.0, 6144.0, 2048.0])), Some(2048));
        assert_eq!(folio_step(&c(&[2048.0, 4096.0, 2048.0, 6144.0, 12.0])), Some(2048));
        assert_eq!(folio_step(&c(&[2048.0, 4096.0, 2048.0, 12.0, 12.0])), None);
        assert_eq!(folio_step(&c(&[128.0, 256.0, 384.0])), Some(128));
        assert_eq!(folio_step(&c(&[2048.0, 2048.0])), None);
    }

    #[test]
    fn only_the_owner_threads_dirty_its_mapping_and_galera_threads_are_named() {
        let mapping = Sourced {
            value: Mapping { path: "/var/tmp/g/node2/gcache/galera.cache".into(), ..Mapping::default() },
            file: "smaps-200-mariadbd.txt.gz".into(),
            line: 1,
        };
        let threads = BTreeMap::from([
            (101, total("mariadbd", 50.0, 100)),
            (201, total("mariadbd", 40.0, 200)),
            (202, total("mariadbd", 10.0, 200)),
        ]);
        let map = BTreeMap::from([(202, "thread/sql/wsrep_applier_thread".to_string())]);
        let d = of(Some(&mapping), &threads, &BTreeMap::new(), &map);
        assert_eq!(d.owner, Some(200));
        let got: Vec<(u32, Option<&str>)> = d.threads.iter().map(|t| (t.tid, t.name.as_deref())).collect();
        assert_eq!(got[0].0, 201);
        assert!(got[0].1.is_some_and(|n| n.starts_with("Galera provider thread")));
        assert_eq!(got[1], (202, Some("thread/sql/wsrep_applier_thread")));
        assert_eq!(d.actors()[0].share, Some(0.8));
        // Without smaps of the owner among pidstat's processes: every thread.
        let other = Sourced { file: "smaps-7-x.txt".into(), ..mapping.clone() };
        assert_eq!(of(Some(&other), &threads, &BTreeMap::new(), &map).threads.len(), 3);
        // Not a gcache: unnamed threads stay unnamed.
        let plain =
            Sourced { value: Mapping { path: "/data/store.bin".into(), ..Mapping::default() }, ..mapping };
        assert_eq!(of(Some(&plain), &threads, &BTreeMap::new(), &map).threads[0].name, None);
    }
}
