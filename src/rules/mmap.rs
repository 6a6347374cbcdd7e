//! `mmap_large_folio_writeback` (case 1): periodic writeback of an mmap'd
//! file amplified by large folios: a 4 kB store dirties a whole folio (up to
//! 2 MB) and writeback writes all of it. Gate: XFS on Linux >= 5.18 or ext4
//! on >= 6.16; evidence: FilePmdMapped / thp_file_mapped, large write
//! requests in the bursts, pidstat charging whole folios.

use super::Outcome;
use super::evidence::{ctx_evidence, mb, mount_evidence, num, opt};
use super::inputs::{Available, DeviceWrites, Missing, Series};
use crate::analysis::periodicity::PeriodicityView;
use crate::analysis::stats::{mean, median};
use crate::model::{Evidence, Finding, Severity};
use crate::pipeline::{Sourced, ThreadTotal};
use crate::table::columns::{Col, DevMetric, VmCounter};
use iosift_parsers::mounts::Mount;
use iosift_parsers::smaps::Mapping;
use std::collections::BTreeMap;

/// Rule id.
pub const ID: &str = "mmap_large_folio_writeback";

/// Fewer bursts than this are not a repeated writeback.
pub const MIN_BURSTS: usize = 2;
/// System-wide folio counters count only with this many bursts ...
pub const PERIODIC_BURSTS: usize = 3;
/// ... and a period of this confidence.
pub const PERIODIC_CONFIDENCE: f64 = 0.5;
/// Write requests in the bursts at least this large (bytes) are whole folios.
pub const BIG_REQUEST_BYTES: f64 = 128.0 * 1024.0;

/// What the rule reads.
#[derive(Debug, Clone)]
pub struct Inputs<'a> {
    /// The main device's writes.
    pub writes: DeviceWrites<'a>,
    /// Their bursts and period.
    pub periodicity: &'a PeriodicityView,
    /// The device's write request sizes (`dev.<device>.w_req_bytes`).
    pub requests: Option<Series<'a>>,
    /// smaps mappings.
    pub mappings: &'a [Sourced<Mapping>],
    /// `FilePmdMapped` of /proc/meminfo (kB).
    pub meminfo_file_pmd_mapped_kb: Option<&'a Sourced<u64>>,
    /// `thp_file_mapped` per second (/proc/vmstat).
    pub thp_file_mapped: Option<Series<'a>>,
    /// Mounts.
    pub mounts: &'a [Sourced<Mount>],
    /// `uname -r`.
    pub kernel: Option<&'a Sourced<String>>,
    /// pidstat write totals per thread.
    pub threads: &'a BTreeMap<u32, ThreadTotal>,
    /// pidstat bytes/s per thread with a timeline column.
    pub thread_writes: BTreeMap<u32, &'a [Option<f64>]>,
}

/// Picks the inputs.
pub fn gather<'a>(a: &Available<'a>) -> Result<Inputs<'a>, Vec<Missing>> {
    let (Some(writes), Some(periodicity)) = (a.device_writes(), a.periodicity()) else {
        return Err(vec![Missing::DeviceWrites]);
    };
    let thread_writes =
        a.threads().keys().filter_map(|tid| Some((*tid, a.series(&Col::Thread(*tid))?.values))).collect();
    Ok(Inputs {
        requests: a.series(&Col::Dev(writes.device.to_string(), DevMetric::WReqBytes)),
        writes,
        periodicity,
        mappings: a.mappings(),
        meminfo_file_pmd_mapped_kb: a.meminfo_file_pmd_mapped_kb(),
        thp_file_mapped: a.series(&Col::Vm(VmCounter::ThpFileMappedS)),
        mounts: a.mounts(),
        kernel: a.kernel(),
        threads: a.threads(),
        thread_writes,
    })
}

/// Finds the mount holding `path` (longest target prefix), or the device's mount.
pub fn mount_for<'a>(
    mounts: &'a [Sourced<Mount>],
    path: Option<&str>,
    dev: Option<&str>,
) -> Option<&'a Sourced<Mount>> {
    let real = |m: &&Sourced<Mount>| !m.value.target.is_empty();
    if let Some(p) = path {
        let best = mounts
            .iter()
            .filter(real)
            .filter(|m| p.starts_with(&m.value.target))
            .max_by_key(|m| m.value.target.len());
        if best.is_some() {
            return best;
        }
    }
    if let Some(d) = dev {
        let hit = mounts.iter().filter(real).find(|m| m.value.source.ends_with(&format!("/{d}")));
        if hit.is_some() {
            return hit;
        }
    }
    mounts.iter().filter(real).find(|m| m.value.target == "/")
}

/// Is (fs, kernel) in the range where mmap'd file pages get large folios?
pub fn large_folio_gate(fstype: &str, kernel: (u32, u32, u32)) -> Option<bool> {
    let k = (kernel.0, kernel.1);
    match fstype {
        "xfs" => Some(k >= (5, 18)),
        "ext4" => Some(k >= (6, 16)),
        "btrfs" | "bcachefs" | "erofs" | "nfs" | "tmpfs" => Some(k >= (6, 1)),
        _ => None,
    }
}

/// Evaluates the rule.
///
/// Skipped, after the burst count, when neither folio counters nor request sizes are there
/// (which needs the bursts: the request sizes are read at their peaks).
pub fn check(i: &Inputs<'_>) -> Outcome {
    let (view, col) = (i.periodicity, &i.writes.series);
    if view.bursts.len() < MIN_BURSTS {
        return Outcome::Pass(format!(
            "no repeated write bursts on the device ({} found)",
            view.bursts.len()
        ));
    }
    // The written file mapping: the shared file mapping with the most dirty pages.
    let file_map =
        i.mappings.iter().filter(|m| m.value.is_file() && m.value.perms.contains('w')).max_by_key(|m| {
            m.value.get("Shared_Dirty").unwrap_or(0)
                + m.value.get("Private_Dirty").unwrap_or(0)
                + m.value.get("Rss").unwrap_or(0) / 64
        });
    let smaps_pmd = file_map.and_then(|m| m.value.get("FilePmdMapped"));
    let meminfo_pmd = i.meminfo_file_pmd_mapped_kb.map(|s| s.value);
    let thp_rate: f64 = i.thp_file_mapped.map(|s| s.values.iter().flatten().sum()).unwrap_or(0.0);
    let at = |s: &Series<'_>, row: usize| s.values.get(row).copied().flatten();
    let burst_req: Vec<f64> =
        i.requests.map(|s| view.bursts.iter().filter_map(|b| at(&s, b.peak)).collect()).unwrap_or_default();
    let req = mean(&burst_req);
    // smaps of the written mapping is authoritative; system-wide counters
    // (meminfo FilePmdMapped, thp_file_mapped) also count other processes'
    // mappings (binaries, libraries), so alone they need periodic bursts too.
    let periodic =
        view.bursts.len() >= PERIODIC_BURSTS && view.confidence.unwrap_or(0.0) >= PERIODIC_CONFIDENCE;
    let folio_evidence = match smaps_pmd {
        Some(v) => v > 0,
        None => periodic && meminfo_pmd.is_some_and(|v| v > 0) && thp_rate > 0.0,
    };
    let known_any = smaps_pmd.is_some() || meminfo_pmd.is_some() || i.thp_file_mapped.is_some();
    let big_requests = req.is_some_and(|r| r >= BIG_REQUEST_BYTES);
    let path = file_map.map(|m| m.value.path.clone());
    let mount = mount_for(i.mounts, path.as_deref(), Some(i.writes.device));
    let kernel = i.kernel;
    let kv = kernel.and_then(|k| iosift_parsers::uname::kernel_version(&k.value));
    let gate = match (mount, kv) {
        (Some(m), Some(k)) => large_folio_gate(&m.value.fstype, k),
        _ => None,
    };
    if !known_any && req.is_none() {
        return Outcome::Skip(vec![Missing::FolioCounters, Missing::RequestSizes]);
    }
    let req_text = req.map_or("unknown".to_string(), |r| format!("{:.1} kB", r / 1024.0));
    if gate == Some(false) {
        let m = mount.map(|m| m.value.fstype.clone()).unwrap_or_default();
        return Outcome::Pass(format!(
            "{m} on kernel {} does not cache mmap'd file pages in large folios (XFS >= 5.18, ext4 >= 6.16)",
            kernel.map(|k| k.value.clone()).unwrap_or_default()
        ));
    }
    if !folio_evidence || !big_requests {
        return Outcome::Pass(format!(
            "no large-folio amplification: FilePmdMapped {} kB{}{}, burst writes average {req_text} per request",
            smaps_pmd.or(meminfo_pmd).map_or("unknown".into(), |v| v.to_string()),
            path.as_ref().map_or(String::new(), |p| format!(" for {p}")),
            if thp_rate > 0.0 { "" } else { ", thp_file_mapped not rising" },
        ));
    }
    // Amplification: pidstat charges a whole folio when a store dirties it; the
    // folio size is the common step of the writer's kB_wr/s values.
    let sizes: Vec<f64> = view.bursts.iter().map(|b| b.total).collect();
    let burst_med = median(&sizes).unwrap_or(0.0);
    let writer = i
        .threads
        .iter()
        .filter(|(_, t)| t.category != "writeback")
        .max_by(|a, b| a.1.bytes.total_cmp(&b.1.bytes));
    let folio_kb = writer.and_then(|(tid, _)| i.thread_writes.get(tid)).and_then(|v| {
        let kbs: Vec<u64> =
            v.iter().flatten().filter(|x| **x > 0.0).map(|x| (x / 1024.0).round() as u64).collect();
        // pidstat charges whole folios: most values are multiples of the folio
        // size (a power of two, 64 kB to 2 MB); the largest such step wins.
        if kbs.len() < 3 {
            return None;
        }
        [2048u64, 1024, 512, 256, 128, 64]
            .into_iter()
            .find(|p| kbs.iter().filter(|k| *k % p == 0).count() * 5 >= kbs.len() * 4)
    });
    let period = view.period_s.unwrap_or(30.0);
    // Folio-dirtying events per period: everything the writer process's
    // threads were charged, in folios, over the seconds it was seen.
    let amplification = match (folio_kb, writer) {
        (Some(fk), Some((tid, w))) => i.thread_writes.get(tid).and_then(|v| {
            let charged: f64 = match w.tgid {
                Some(pid) => i.threads.values().filter(|t| t.tgid == Some(pid)).map(|t| t.bytes).sum(),
                None => w.bytes,
            };
            let secs = v.iter().flatten().count().max(1) as f64;
            let events_per_period = charged / (fk as f64 * 1024.0) / secs * period;
            // At most folio/4 kB: every event a single 4 kB store.
            (events_per_period > 0.0).then(|| (burst_med / (events_per_period * 4096.0)).min(fk as f64 / 4.0))
        }),
        _ => None,
    };
    let mut metrics = BTreeMap::new();
    metrics.insert("burst_bytes_median", num(burst_med));
    metrics.insert("file_pmd_mapped_kb", opt(smaps_pmd.or(meminfo_pmd).map(|v| v as f64)));
    metrics.insert("amplification_estimate", opt(amplification));
    metrics.insert("burst_request_bytes_mean", opt(req));
    metrics.insert("folio_kb_from_pidstat", opt(folio_kb.map(|v| v as f64)));
    metrics.insert("thp_file_mapped_increase", num(thp_rate));
    metrics.insert("kernel", serde_json::Value::from(kernel.map(|k| k.value.clone())));
    metrics.insert("filesystem", serde_json::Value::from(mount.map(|m| m.value.fstype.clone())));
    metrics.insert("mapped_file", serde_json::Value::from(path.clone()));
    let mut evidence: Vec<Evidence> = Vec::new();
    if let Some(k) = kernel {
        evidence.push(ctx_evidence(k, "kernel release"));
    }
    if let Some(m) = mount {
        evidence.push(mount_evidence(m, "filesystem"));
    }
    if let Some(m) = file_map {
        evidence.push(Evidence {
            file: m.file.clone(),
            lines: Some([m.line, m.line]),
            metric: "FilePmdMapped (kB)".into(),
            value: opt(smaps_pmd.map(|v| v as f64)),
            quote: Some(format!("{} {}", m.value.perms, m.value.path)),
        });
    }
    if let Some(s) = i.meminfo_file_pmd_mapped_kb {
        evidence.push(ctx_evidence(s, "FilePmdMapped (kB, /proc/meminfo)"));
    }
    for b in view.bursts.iter().take(3) {
        evidence.push(col.evidence(b.peak, "wkB/s", b.peak_value / 1024.0));
        if let Some(req) = &i.requests
            && let Some(r) = at(req, b.peak)
        {
            evidence.push(req.evidence(b.peak, "wareq-sz (kB)", r / 1024.0));
        }
    }
    let gate_text = match gate {
        Some(true) => "kernel and filesystem cache mmap'd file pages in large folios",
        _ => "kernel/filesystem gate not confirmed (kernel or mount missing)",
    };
    let summary = format!(
        "Periodic writeback bursts of {} with {req_text} requests while {} is mapped with large folios (FilePmdMapped {} kB); {gate_text}{}.",
        mb(burst_med),
        path.clone().unwrap_or_else(|| "a file".into()),
        smaps_pmd.or(meminfo_pmd).unwrap_or(0),
        amplification.map_or(String::new(), |a| format!("; writeback writes up to {a:.0}x what 4 kB-granular dirtying would (upper bound from pidstat's {} kB folio charges)", folio_kb.unwrap_or(0))),
    );
    Outcome::Fire(Box::new(Finding {
        rule: ID,
        severity: Severity::Critical,
        confidence: if gate == Some(true) { 0.85 } else { 0.6 },
        summary,
        window: None,
        metrics,
        evidence,
        remedies: vec![
            "Use madvise(MADV_RANDOM) on the mapping so the page cache keeps small folios.".into(),
            "Lower the device read-ahead (read_ahead_kb; it sets the folio size), at some cost to sequential reads.".into(),
            "Write the file with pwrite() instead of mmap stores (Linux >= 6.6 tracks dirty blocks per folio for write()).".into(),
            "On ext4, a kernel before 6.16; or a kernel built without CONFIG_TRANSPARENT_HUGEPAGE (disabling THP at boot is not enough).".into(),
        ],
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Views;
    use crate::rules::testkit::{burst, fired, mount, passed, series, skipped, sourced, thread, vals, view};
    use crate::table::Timeline;

    const MB: f64 = 1024.0 * 1024.0;

    /// The shared file mapping of a writer: `rw-s /data/table.ibd` with `FilePmdMapped`.
    fn mapping(pmd_kb: u64) -> Sourced<Mapping> {
        let mut m = sourced(Mapping {
            line: 12,
            perms: "rw-s".into(),
            path: "/data/table.ibd".into(),
            fields: vec![("Shared_Dirty".into(), 4096), ("FilePmdMapped".into(), pmd_kb)],
            ..Default::default()
        });
        m.line = 12;
        m
    }

    struct Case {
        bursts: usize,
        confidence: f64,
        request: Option<f64>,
        mappings: Vec<Sourced<Mapping>>,
        meminfo: Option<Sourced<u64>>,
        thp: Option<Vec<Option<f64>>>,
        mounts: Vec<Sourced<Mount>>,
        kernel: Option<Sourced<String>>,
    }

    impl Case {
        /// XFS on 6.1 with a 2 MB-folio mapping and 512 kB requests in 3 periodic bursts.
        fn large_folios() -> Case {
            Case {
                bursts: 3,
                confidence: 0.9,
                request: Some(512.0 * 1024.0),
                mappings: vec![mapping(2048)],
                meminfo: None,
                thp: None,
                mounts: vec![mount("/dev/vda", "/data", "xfs", "rw,relatime")],
                kernel: Some(sourced("6.1.0-13-amd64".to_string())),
            }
        }

        fn run(&self) -> Outcome {
            let w = vals(&[1.0; 120]);
            let req = self.request.map(|r| vals(&[r; 120]));
            let v = view(
                (0..self.bursts).map(|k| burst(5 + 30 * k, 90.0 * MB, 300.0 * MB)).collect(),
                Some(30.0),
                Some(self.confidence),
            );
            // pidstat charges whole 2 MB folios to the writer.
            let tw = vals(&[2048.0 * 1024.0, 4096.0 * 1024.0, 2048.0 * 1024.0, 6144.0 * 1024.0]);
            let threads: BTreeMap<u32, ThreadTotal> =
                [(42, thread("writer", "app", 12.0 * MB))].into_iter().collect();
            check(&Inputs {
                writes: DeviceWrites { device: "vda", series: series("dev.vda.w_bytes_s", &w) },
                periodicity: &v,
                requests: req.as_deref().map(|r| series("dev.vda.w_req_bytes", r)),
                mappings: &self.mappings,
                meminfo_file_pmd_mapped_kb: self.meminfo.as_ref(),
                thp_file_mapped: self.thp.as_deref().map(|t| series("vm.thp_file_mapped_s", t)),
                mounts: &self.mounts,
                kernel: self.kernel.as_ref(),
                threads: &threads,
                thread_writes: [(42, tw.as_slice())].into_iter().collect(),
            })
        }
    }

    #[test]
    fn fires_on_large_folios_with_large_requests() {
        let f = fired(Case::large_folios().run());
        assert_eq!((f.rule, f.confidence), (ID, 0.85));
        assert_eq!(f.metrics["folio_kb_from_pidstat"], 2048.0);
        assert_eq!(f.metrics["file_pmd_mapped_kb"], 2048.0);
        assert_eq!(f.metrics["filesystem"], "xfs");
        let files: Vec<(&str, Option<[usize; 2]>)> =
            f.evidence.iter().map(|e| (e.file.as_str(), e.lines)).collect();
        assert_eq!(
            &files[..3],
            [("ctx.txt", Some([3, 3])), ("ctx.txt", Some([3, 3])), ("ctx.txt", Some([12, 12]))]
        );
        assert_eq!(f.evidence[2].quote.as_deref(), Some("rw-s /data/table.ibd"));
    }

    #[test]
    fn burst_count_edge() {
        let mut c = Case::large_folios();
        c.bursts = 2;
        fired(c.run());
        c.bursts = 1;
        assert_eq!(passed(c.run()), "no repeated write bursts on the device (1 found)");
    }

    #[test]
    fn request_size_edge() {
        let mut c = Case::large_folios();
        c.request = Some(BIG_REQUEST_BYTES);
        fired(c.run());
        c.request = Some(BIG_REQUEST_BYTES - 1.0);
        assert!(passed(c.run()).ends_with("burst writes average 128.0 kB per request"));
    }

    #[test]
    fn smaps_without_pmd_mappings_passes() {
        let mut c = Case::large_folios();
        c.mappings = vec![mapping(0)];
        assert!(
            passed(c.run())
                .starts_with("no large-folio amplification: FilePmdMapped 0 kB for /data/table.ibd")
        );
    }

    #[test]
    fn system_wide_counters_need_periodic_bursts() {
        let mut c = Case::large_folios();
        c.mappings = Vec::new();
        c.meminfo = Some(sourced(4096));
        c.thp = Some(vals(&[0.0, 2.0, 0.0]));
        assert_eq!((c.bursts, c.confidence), (PERIODIC_BURSTS, 0.9));
        c.confidence = PERIODIC_CONFIDENCE;
        fired(c.run());
        c.confidence = PERIODIC_CONFIDENCE - 0.01;
        passed(c.run());
        c.confidence = 0.9;
        c.bursts = PERIODIC_BURSTS - 1;
        passed(c.run());
        // thp_file_mapped not rising is no evidence either.
        c.bursts = PERIODIC_BURSTS;
        c.thp = Some(vals(&[0.0, 0.0]));
        assert!(
            passed(c.run())
                .ends_with(", thp_file_mapped not rising, burst writes average 512.0 kB per request")
        );
    }

    #[test]
    fn kernel_gate_edges() {
        for (fs, kernel, fires) in [
            ("xfs", "5.18.0", true),
            ("xfs", "5.17.15", false),
            ("ext4", "6.16.0", true),
            ("ext4", "6.15.9", false),
        ] {
            let mut c = Case::large_folios();
            c.mounts = vec![mount("/dev/vda", "/data", fs, "rw")];
            c.kernel = Some(sourced(kernel.to_string()));
            match c.run() {
                Outcome::Fire(_) => assert!(fires, "{fs} {kernel}"),
                Outcome::Pass(r) => {
                    assert!(!fires, "{fs} {kernel}");
                    assert!(r.contains("does not cache mmap'd file pages in large folios"), "{r}");
                }
                Outcome::Skip(m) => panic!("{m:?}"),
            }
        }
        // Without a kernel the gate is not confirmed: lower confidence.
        let mut c = Case::large_folios();
        c.kernel = None;
        assert_eq!(fired(c.run()).confidence, 0.6);
    }

    #[test]
    fn skips_without_folio_counters_or_request_sizes() {
        let mut c = Case::large_folios();
        c.mappings = Vec::new();
        c.request = None;
        match c.run() {
            Outcome::Skip(m) => assert_eq!(
                m.iter().map(ToString::to_string).collect::<Vec<_>>(),
                [
                    "smaps of the writer (FilePmdMapped) or /proc/meminfo or /proc/vmstat (thp_file_mapped)",
                    "iostat -x request sizes"
                ]
            ),
            other => panic!("{other:?}"),
        }
        let (tl, views) = (Timeline::default(), Views::default());
        assert_eq!(
            skipped(ID, &Available::bare(&tl, &views)),
            ["device write throughput (iostat -x or /proc/diskstats series)"]
        );
    }
}
