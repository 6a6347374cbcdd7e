//! `mmap_large_folio_writeback` (case 1): periodic writeback of an mmap'd
//! file amplified by large folios: a 4 kB store dirties a whole folio (up to
//! 2 MB) and writeback writes all of it. Gate: XFS on Linux >= 5.18 or ext4
//! on >= 6.16; evidence: FilePmdMapped / thp_file_mapped, large write
//! requests in the bursts, pidstat charging whole folios.

use super::{Outcome, ctx_evidence, mb, num, opt};
use crate::analysis::stats::{mean, median};
use crate::analyze::Facts;
use crate::model::{Evidence, Finding, Severity};
use crate::pipeline::Sourced;
use iosift_parsers::mounts::Mount;

/// Finds the mount holding `path` (longest target prefix), or the device's mount.
pub fn mount_for<'a>(f: &'a Facts<'_>, path: Option<&str>, dev: Option<&str>) -> Option<&'a Sourced<Mount>> {
    let real = |m: &&Sourced<Mount>| !m.value.target.is_empty();
    if let Some(p) = path {
        let best =
            f.p.ctx
                .mounts
                .iter()
                .filter(real)
                .filter(|m| p.starts_with(&m.value.target))
                .max_by_key(|m| m.value.target.len());
        if best.is_some() {
            return best;
        }
    }
    if let Some(d) = dev {
        let hit = f.p.ctx.mounts.iter().filter(real).find(|m| m.value.source.ends_with(&format!("/{d}")));
        if hit.is_some() {
            return hit;
        }
    }
    f.p.ctx.mounts.iter().filter(real).find(|m| m.value.target == "/")
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
pub fn check(f: &Facts<'_>) -> Outcome {
    let (Some(view), Some(col)) = (&f.periodicity, &f.write_col) else {
        return Outcome::Skip(vec!["device write throughput (iostat -x or /proc/diskstats series)".into()]);
    };
    if view.bursts.len() < 2 {
        return Outcome::Pass(format!(
            "no repeated write bursts on the device ({} found)",
            view.bursts.len()
        ));
    }
    let ctx = &f.p.ctx;
    // The written file mapping: the shared file mapping with the most dirty pages.
    let file_map =
        ctx.mappings.iter().filter(|m| m.value.is_file() && m.value.perms.contains('w')).max_by_key(|m| {
            m.value.get("Shared_Dirty").unwrap_or(0)
                + m.value.get("Private_Dirty").unwrap_or(0)
                + m.value.get("Rss").unwrap_or(0) / 64
        });
    let smaps_pmd = file_map.and_then(|m| m.value.get("FilePmdMapped"));
    let meminfo_pmd = ctx.meminfo_file_pmd_mapped_kb.as_ref().map(|s| s.value);
    let thp_rate: f64 =
        f.p.timeline.get("vm.thp_file_mapped_s").map(|v| v.iter().flatten().sum()).unwrap_or(0.0);
    let tl = &f.p.timeline;
    let dev = f.device.clone().unwrap_or_default();
    let req_col = format!("dev.{dev}.w_req_bytes");
    let burst_req: Vec<f64> =
        tl.get(&req_col).map(|v| view.bursts.iter().filter_map(|b| v[b.peak]).collect()).unwrap_or_default();
    let req = mean(&burst_req);
    // smaps of the written mapping is authoritative; system-wide counters
    // (meminfo FilePmdMapped, thp_file_mapped) also count other processes'
    // mappings (binaries, libraries), so alone they need periodic bursts too.
    let periodic = view.bursts.len() >= 3 && view.confidence.unwrap_or(0.0) >= 0.5;
    let folio_evidence = match smaps_pmd {
        Some(v) => v > 0,
        None => periodic && meminfo_pmd.is_some_and(|v| v > 0) && thp_rate > 0.0,
    };
    let known_any = smaps_pmd.is_some() || meminfo_pmd.is_some() || tl.get("vm.thp_file_mapped_s").is_some();
    let big_requests = req.is_some_and(|r| r >= 128.0 * 1024.0);
    let path = file_map.map(|m| m.value.path.clone());
    let mount = mount_for(f, path.as_deref(), f.device.as_deref());
    let kernel = ctx.kernel.as_ref();
    let kv = kernel.and_then(|k| iosift_parsers::uname::kernel_version(&k.value));
    let gate = match (mount, kv) {
        (Some(m), Some(k)) => large_folio_gate(&m.value.fstype, k),
        _ => None,
    };
    if !known_any && req.is_none() {
        return Outcome::Skip(vec![
            "smaps of the writer (FilePmdMapped) or /proc/meminfo or /proc/vmstat (thp_file_mapped)".into(),
            "iostat -x request sizes".into(),
        ]);
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
    let writer =
        f.p.threads
            .iter()
            .filter(|(_, t)| t.category != "writeback")
            .max_by(|a, b| a.1.bytes.total_cmp(&b.1.bytes));
    let folio_kb = writer.and_then(|(tid, _)| tl.get(&format!("thr.{tid}.w_bytes_s"))).and_then(|v| {
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
        (Some(fk), Some((tid, w))) => tl.get(&format!("thr.{tid}.w_bytes_s")).and_then(|v| {
            let charged: f64 = match w.tgid {
                Some(pid) => f.p.threads.values().filter(|t| t.tgid == Some(pid)).map(|t| t.bytes).sum(),
                None => w.bytes,
            };
            let secs = v.iter().flatten().count().max(1) as f64;
            let events_per_period = charged / (fk as f64 * 1024.0) / secs * period;
            // At most folio/4 kB: every event a single 4 kB store.
            (events_per_period > 0.0).then(|| (burst_med / (events_per_period * 4096.0)).min(fk as f64 / 4.0))
        }),
        _ => None,
    };
    let mut metrics = std::collections::BTreeMap::new();
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
        evidence.push(super::mount_evidence(m, "filesystem"));
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
    if let Some(s) = &ctx.meminfo_file_pmd_mapped_kb {
        evidence.push(ctx_evidence(s, "FilePmdMapped (kB, /proc/meminfo)"));
    }
    for b in view.bursts.iter().take(3) {
        evidence.push(super::cell_evidence(f, col, b.peak, "wkB/s", b.peak_value / 1024.0));
        if let Some(Some(r)) = tl.get(&req_col).map(|v| v[b.peak]) {
            evidence.push(super::cell_evidence(f, &req_col, b.peak, "wareq-sz (kB)", r / 1024.0));
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
        rule: "mmap_large_folio_writeback",
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
