//! TS-framed `/proc` snapshots (pt-stalk, collect.sh): `/proc/meminfo`
//! gauges (`mem.*`), `/proc/vmstat` counters (`vm.*_s`) and `/proc/diskstats`
//! counters (`ds.*`), as rates between successive snapshots.

use super::{Adapter, Context, Measure, Offer, RawRow, Sink, Sourced, Visit, snapshot_pairs};
use crate::clock::{Anchoring, Zone, ZoneEvidence};
use crate::table::Col;
use crate::table::columns::{DsMetric, MemMetric, VmCounter};
use iosift_parsers::procfs::meminfo::Series;

/// Bytes of a page in the `/proc/vmstat` page counts.
const PAGE_BYTES: f64 = 4096.0;

/// A `/proc/meminfo` series.
pub(super) struct Meminfo<'d>(pub &'d Series);

/// A `/proc/vmstat` series.
pub(super) struct ProcVmstat<'d>(pub &'d Series);

/// A `/proc/diskstats` series.
pub(super) struct Diskstats<'d>(pub &'d iosift_parsers::procfs::diskstats::Diskstats);

/// The TS offsets of a snapshot series (its first, and its last for a DST change).
fn ts_evidence<'a>(
    ts: impl Iterator<Item = &'a Option<iosift_parsers::common::ts::TsLine>>,
    ev: &mut ZoneEvidence,
) {
    ev.note_ts(ts.filter_map(|t| *t));
}

/// Every value of every timed snapshot, as read.
fn snapshot_rows(s: &Series) -> Option<Vec<RawRow>> {
    let mut out = Vec::new();
    for snap in &s.snapshots {
        let Some(ts) = snap.ts else { continue };
        for (k, v) in snap.iter() {
            out.push(RawRow {
                end: ts.epoch,
                interval: 0.0,
                entity: "",
                metric: k.to_string(),
                value: v as f64,
            });
        }
    }
    Some(out)
}

/// The values of a few keys in each snapshot, their places found once per key list
/// (snapshots share one list while the keys stay the same): a 200 MB procvmstat of 192 keys
/// per snapshot was scanned key by key for every counter of every snapshot.
struct Finder<const N: usize> {
    keys: [&'static str; N],
    list: Option<std::sync::Arc<[std::sync::Arc<str>]>>,
    at: [Option<usize>; N],
}

impl<const N: usize> Finder<N> {
    fn new(keys: [&'static str; N]) -> Self {
        Finder { keys, list: None, at: [None; N] }
    }

    /// The value of each key in `snap` (`None` where it has no such line).
    fn values(&mut self, snap: &iosift_parsers::procfs::meminfo::Snapshot) -> [Option<u64>; N] {
        if !self.list.as_ref().is_some_and(|l| std::sync::Arc::ptr_eq(l, &snap.keys)) {
            self.at = self.keys.map(|k| snap.keys.iter().position(|x| &**x == k));
            self.list = Some(snap.keys.clone());
        }
        self.at.map(|i| i.and_then(|i| snap.values.get(i).copied()))
    }
}

fn timed(s: &Series) -> bool {
    s.snapshots.iter().any(|x| x.ts.is_some())
}

impl<'d> Adapter<'d> for Meminfo<'d> {
    fn raw_rows(&self, _zone: &Zone) -> Option<Vec<RawRow>> {
        snapshot_rows(self.0)
    }

    fn offers(&self) -> Vec<Offer> {
        let dirty = self.0.snapshots.iter().any(|x| x.ts.is_some() && x.get("Dirty").is_some());
        let why = "/proc/meminfo is read every second";
        if dirty { vec![Offer { measure: Measure::DirtyMemory, tier: 3, score: 0, why }] } else { Vec::new() }
    }

    fn context(&self, file: &str, ctx: &mut Context) {
        for snap in &self.0.snapshots {
            if let Some(v) = snap.get("FilePmdMapped")
                && ctx.meminfo_file_pmd_mapped_kb.as_ref().is_none_or(|o| v > o.value)
            {
                ctx.meminfo_file_pmd_mapped_kb =
                    Some(Sourced { value: v, file: file.to_string(), line: snap.line });
            }
        }
    }

    fn zone_evidence(&self, _file: &str, ev: &mut ZoneEvidence) {
        ts_evidence(self.0.snapshots.iter().map(|x| &x.ts), ev);
    }

    fn visit(&self, v: &mut Visit<'_>, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        let dirty = v.uses(Measure::DirtyMemory);
        let mut any = false;
        for snap in &self.0.snapshots {
            let Some(ts) = snap.ts else { continue };
            any = true;
            sink.at(snap.line);
            for (m, key) in [
                (MemMetric::DirtyBytes, "Dirty"),
                (MemMetric::WritebackBytes, "Writeback"),
                (MemMetric::FilePmdMappedBytes, "FilePmdMapped"),
            ] {
                if m == MemMetric::DirtyBytes && !dirty {
                    continue;
                }
                if let Some(x) = snap.get(key) {
                    sink.gauge(&Col::Mem(m), ts.epoch, x as f64 * 1024.0);
                }
            }
            // `MemFree:  5905676 kB`, `Active(file): ...`, `Inactive(file): ...`: the kernel's
            // dirtyable memory (global_dirtyable_memory, without its small reserves).
            if let (Some(free), Some(active), Some(inactive)) =
                (snap.get("MemFree"), snap.get("Active(file)"), snap.get("Inactive(file)"))
            {
                let bytes = (free + active + inactive) as f64 * 1024.0;
                sink.gauge(&Col::Mem(MemMetric::DirtyableBytes), ts.epoch, bytes);
            }
        }
        any.then_some((Anchoring::Epoch, 0.01))
    }
}

impl<'d> Adapter<'d> for ProcVmstat<'d> {
    fn raw_rows(&self, _zone: &Zone) -> Option<Vec<RawRow>> {
        snapshot_rows(self.0)
    }

    fn offers(&self) -> Vec<Offer> {
        let why = "/proc/vmstat counters";
        if timed(self.0) {
            vec![Offer { measure: Measure::Paging, tier: 3, score: 0, why }]
        } else {
            Vec::new()
        }
    }

    fn zone_evidence(&self, _file: &str, ev: &mut ZoneEvidence) {
        ts_evidence(self.0.snapshots.iter().map(|x| &x.ts), ev);
    }

    fn visit(&self, v: &mut Visit<'_>, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        let paging = v.uses(Measure::Paging);
        // `nr_dirty_threshold 32768`, `nr_dirty_background_threshold 16384`: the kernel's own
        // limits in pages (4 KiB on the x86_64 and arm64 kernels these captures come from).
        let limits = [
            (MemMetric::DirtyLimitBytes, "nr_dirty_threshold"),
            (MemMetric::DirtyBackgroundLimitBytes, "nr_dirty_background_threshold"),
        ];
        let mut find = Finder::new(limits.map(|(_, k)| k));
        for snap in &self.0.snapshots {
            let Some(ts) = snap.ts else { continue };
            sink.at(snap.line);
            for ((m, _), pages) in limits.iter().zip(find.values(snap)) {
                if let Some(pages) = pages {
                    sink.gauge(&Col::Mem(*m), ts.epoch, pages as f64 * PAGE_BYTES);
                }
            }
        }
        let counters = [
            (VmCounter::NrDirtiedS, "nr_dirtied"),
            (VmCounter::NrWrittenS, "nr_written"),
            (VmCounter::PgpgoutS, "pgpgout"),
            (VmCounter::ThpFileMappedS, "thp_file_mapped"),
            (VmCounter::ThpFaultAllocS, "thp_fault_alloc"),
            (VmCounter::VmscanImmediateS, "nr_vmscan_immediate_reclaim"),
            (VmCounter::VmscanWriteS, "nr_vmscan_write"),
        ];
        let mut find = Finder::new(counters.map(|(_, k)| k));
        for (p, snap, t, dt) in snapshot_pairs(&self.0.snapshots, |x| x.ts.map(|t| t.epoch)) {
            sink.at(snap.line);
            let (before, after) = (find.values(p), find.values(snap));
            for (k, (m, _)) in counters.iter().enumerate() {
                if *m == VmCounter::PgpgoutS && !paging {
                    continue;
                }
                if let (Some(a), Some(b)) = (before[k], after[k])
                    && let Some(d) = v.delta(a as f64, b as f64)
                {
                    sink.rate(&Col::Vm(*m), t, dt, d / dt);
                }
            }
        }
        timed(self.0).then_some((Anchoring::Epoch, 0.01))
    }
}

/// One direction of a device between two snapshots: bytes per second (sectors of 512 bytes),
/// requests per second and, when it has its own metric, the mean request size. A counter that
/// went back (a reset) gives nothing ([`Visit::delta`]).
fn direction(
    v: &mut Visit<'_>,
    sink: &mut dyn Sink,
    device: &str,
    (t, dt): (f64, f64),
    ((s0, s1), (n0, n1)): ((u64, u64), (u64, u64)),
    (bytes, requests, size): (DsMetric, DsMetric, Option<DsMetric>),
) {
    let col = |m: DsMetric| Col::Ds(device.to_string(), m);
    let sectors = v.delta(s0 as f64, s1 as f64);
    if let Some(x) = sectors {
        sink.rate(&col(bytes), t, dt, x * 512.0 / dt);
    }
    if let Some(n) = v.delta(n0 as f64, n1 as f64) {
        sink.rate(&col(requests), t, dt, n / dt);
        if let (Some(x), Some(size)) = (sectors, size)
            && n > 0.0
        {
            sink.rate(&col(size), t, dt, x * 512.0 / n);
        }
    }
}

impl<'d> Adapter<'d> for Diskstats<'d> {
    /// `  7       0 loop0 6262 0 ...`: the device numbers that name smaps' `07:00`.
    fn context(&self, file: &str, ctx: &mut Context) {
        for d in self.0.snapshots.iter().flat_map(|s| &s.devices) {
            // Every snapshot names the same devices: no key copied once it is known.
            if ctx.block_majmin.contains_key(&*d.name) {
                continue;
            }
            ctx.block_majmin.insert(
                d.name.to_string(),
                Sourced { value: (d.major, d.minor), file: file.to_string(), line: d.line },
            );
        }
    }

    fn zone_evidence(&self, _file: &str, ev: &mut ZoneEvidence) {
        ts_evidence(self.0.snapshots.iter().map(|x| &x.ts), ev);
    }

    fn visit(&self, v: &mut Visit<'_>, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        let s = self.0;
        for (p, snap, t, dt) in snapshot_pairs(&s.snapshots, |x| x.ts.map(|t| t.epoch)) {
            for (k, d) in snap.devices.iter().enumerate() {
                // The same device at the same place in the snapshot before, as a rule.
                let same = p.devices.get(k).filter(|x| x.name == d.name);
                let Some(o) = same.or_else(|| p.devices.iter().find(|x| x.name == d.name)) else { continue };
                sink.at(d.line);
                let (name, at) = (&*d.name, (t, dt));
                // Writes: with the sectors, the mean write request size when iostat is missing.
                let writes = ((o.sectors_written, d.sectors_written), (o.writes, d.writes));
                direction(
                    v,
                    sink,
                    name,
                    at,
                    writes,
                    (DsMetric::WBytesS, DsMetric::WS, Some(DsMetric::WReqBytes)),
                );
                if let (Some(a), Some(b)) = (o.flushes, d.flushes)
                    && let Some(fl) = v.delta(a as f64, b as f64)
                {
                    sink.rate(&Col::Ds(name.to_string(), DsMetric::FS), t, dt, fl / dt);
                }
                let reads = ((o.sectors_read, d.sectors_read), (o.reads, d.reads));
                direction(
                    v,
                    sink,
                    name,
                    at,
                    reads,
                    (DsMetric::RBytesS, DsMetric::RS, Some(DsMetric::RReqBytes)),
                );
                // Discards (kernel >= 4.18: 18 fields or more): bytes and requests.
                if let (Some(s0), Some(s1), Some(n0), Some(n1)) =
                    (o.sectors_discarded, d.sectors_discarded, o.discards, d.discards)
                {
                    direction(
                        v,
                        sink,
                        name,
                        at,
                        ((s0, s1), (n0, n1)),
                        (DsMetric::DBytesS, DsMetric::DS, None),
                    );
                }
            }
        }
        s.snapshots.iter().any(|x| x.ts.is_some()).then_some((Anchoring::Epoch, 0.01))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iosift_parsers::Format;

    /// The finder gives what `Snapshot::get` gives, also when the key set changes between
    /// snapshots (a key dropped, one added, a reordered list) and for a key never present.
    #[test]
    fn the_finder_agrees_with_get_across_key_lists() {
        let text = b"TS 1795981039.1 2026-11-29 19:37:19\nnr_dirtied 10\nnr_written 5\npgpgout 7\n\
TS 1795981040.1 2026-11-29 19:37:20\nnr_dirtied 12\nnr_written 6\npgpgout 9\n\
TS 1795981041.1 2026-11-29 19:37:21\nnr_written 8\nthp_file_mapped 1\nnr_dirtied 15\n\
TS 1795981042.1 2026-11-29 19:37:22\nnr_written 9\nthp_file_mapped 2\nnr_dirtied 19\n";
        let p = iosift_parsers::procfs::vmstat::Fmt::parse(text);
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let snaps = &p.value.snapshots;
        assert_eq!(snaps.len(), 4);
        assert!(std::sync::Arc::ptr_eq(&snaps[0].keys, &snaps[1].keys));
        assert!(std::sync::Arc::ptr_eq(&snaps[2].keys, &snaps[3].keys));
        let keys = ["nr_dirtied", "nr_written", "pgpgout", "thp_file_mapped", "thp_fault_alloc"];
        let mut find = Finder::new(keys);
        for s in snaps {
            assert_eq!(find.values(s), keys.map(|k| s.get(k)));
        }
        assert_eq!(find.values(&snaps[3]), [Some(19), Some(9), None, Some(2), None]);
    }
}
