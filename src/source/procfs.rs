//! TS-framed `/proc` snapshots (pt-stalk, collect.sh): `/proc/meminfo`
//! gauges (`mem.*`), `/proc/vmstat` counters (`vm.*_s`) and `/proc/diskstats`
//! counters (`ds.*`), as rates between successive snapshots.

use super::{Adapter, Context, Measure, Offer, RawRow, Sink, Sourced, Visit, snapshot_pairs};
use crate::clock::{Anchoring, Zone, ZoneEvidence};
use crate::table::Col;
use crate::table::columns::{DsMetric, MemMetric, VmCounter};
use iosift_parsers::proc_meminfo::Series;

/// Bytes of a page in the `/proc/vmstat` page counts.
const PAGE_BYTES: f64 = 4096.0;

/// A `/proc/meminfo` series.
pub struct Meminfo<'d>(pub &'d Series);

/// A `/proc/vmstat` series.
pub struct ProcVmstat<'d>(pub &'d Series);

/// A `/proc/diskstats` series.
pub struct Diskstats<'d>(pub &'d iosift_parsers::proc_diskstats::Diskstats);

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
        for snap in &self.0.snapshots {
            let Some(ts) = snap.ts else { continue };
            sink.at(snap.line);
            for (m, key) in [
                (MemMetric::DirtyLimitBytes, "nr_dirty_threshold"),
                (MemMetric::DirtyBackgroundLimitBytes, "nr_dirty_background_threshold"),
            ] {
                if let Some(pages) = snap.get(key) {
                    sink.gauge(&Col::Mem(m), ts.epoch, pages as f64 * PAGE_BYTES);
                }
            }
        }
        for (p, snap, t, dt) in snapshot_pairs(&self.0.snapshots, |x| x.ts.map(|t| t.epoch)) {
            sink.at(snap.line);
            for (m, key) in [
                (VmCounter::NrDirtiedS, "nr_dirtied"),
                (VmCounter::NrWrittenS, "nr_written"),
                (VmCounter::PgpgoutS, "pgpgout"),
                (VmCounter::ThpFileMappedS, "thp_file_mapped"),
                (VmCounter::ThpFaultAllocS, "thp_fault_alloc"),
            ] {
                if m == VmCounter::PgpgoutS && !paging {
                    continue;
                }
                if let (Some(a), Some(b)) = (p.get(key), snap.get(key))
                    && let Some(d) = v.delta(a as f64, b as f64)
                {
                    sink.rate(&Col::Vm(m), t, dt, d / dt);
                }
            }
        }
        timed(self.0).then_some((Anchoring::Epoch, 0.01))
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
                let sectors = v.delta(o.sectors_written as f64, d.sectors_written as f64);
                if let Some(w) = sectors {
                    sink.rate(&Col::Ds(d.name.to_string(), DsMetric::WBytesS), t, dt, w * 512.0 / dt);
                }
                // Writes completed: with the sectors, the mean write request size when iostat is missing.
                if let Some(n) = v.delta(o.writes as f64, d.writes as f64) {
                    sink.rate(&Col::Ds(d.name.to_string(), DsMetric::WS), t, dt, n / dt);
                    if let Some(w) = sectors
                        && n > 0.0
                    {
                        sink.rate(&Col::Ds(d.name.to_string(), DsMetric::WReqBytes), t, dt, w * 512.0 / n);
                    }
                }
                if let (Some(a), Some(b)) = (o.flushes, d.flushes)
                    && let Some(fl) = v.delta(a as f64, b as f64)
                {
                    sink.rate(&Col::Ds(d.name.to_string(), DsMetric::FS), t, dt, fl / dt);
                }
            }
        }
        s.snapshots.iter().any(|x| x.ts.is_some()).then_some((Anchoring::Epoch, 0.01))
    }
}
