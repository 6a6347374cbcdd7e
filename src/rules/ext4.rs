//! `ext4_dioread_nolock_nodelalloc` (case 2): on Alibaba Cloud Linux 2
//! kernels from 4.19.24-9.al7 up to (not including) 4.19.91-26.al7, an ext4
//! mount with both `dioread_nolock` and `nodelalloc` makes buffered writes
//! crawl: large merged requests, an idle disk, ~30 MB/s.

use super::{Outcome, ctx_evidence};
use crate::analysis::stats::{mean, median};
use crate::analyze::Facts;
use crate::model::{Evidence, Finding, Severity};

/// Parses an al7 release `4.19.91-25.al7.x86_64` into ((4,19,91), 25).
pub fn al7_build(release: &str) -> Option<((u32, u32, u32), u32)> {
    if !release.contains(".al7") {
        return None;
    }
    let base = iosift_parsers::uname::kernel_version(release)?;
    let after = release.split_once('-')?.1;
    let build: u32 = after.split(['.', '-']).next()?.parse().ok()?;
    Some((base, build))
}

/// True when the release is in the affected range.
pub fn affected(release: &str) -> Option<bool> {
    let (base, build) = al7_build(release)?;
    let v = (base, build);
    Some((((4, 19, 24), 9)..((4, 19, 91), 26)).contains(&v))
}

/// Evaluates the rule.
pub fn check(f: &Facts<'_>) -> Outcome {
    let ctx = &f.p.ctx;
    let mut missing = Vec::new();
    if ctx.kernel.is_none() {
        missing.push("kernel release (uname -r)".to_string());
    }
    let ext4: Vec<_> = ctx.mounts.iter().filter(|m| m.value.fstype == "ext4").collect();
    if ctx.mounts.is_empty() {
        missing.push("mount options (mount, /proc/mounts or findmnt)".into());
    }
    if !missing.is_empty() {
        return Outcome::Skip(missing);
    }
    let kernel = ctx.kernel.as_ref().map(|k| k.value.clone()).unwrap_or_default();
    let hit = ext4.iter().find(|m| m.value.has_option("dioread_nolock") && m.value.has_option("nodelalloc"));
    let Some(mount) = hit else {
        return Outcome::Pass(format!(
            "no ext4 mount has both dioread_nolock and nodelalloc ({} ext4 mount(s) checked)",
            ext4.len()
        ));
    };
    match affected(&kernel) {
        Some(true) => {}
        Some(false) => {
            return Outcome::Pass(format!(
                "kernel {kernel} is outside the affected range 4.19.24-9.al7 .. 4.19.91-26.al7 (exclusive)"
            ));
        }
        None => {
            return Outcome::Pass(format!(
                "kernel {kernel} is not an Alibaba Cloud Linux 2 (al7) kernel of the affected range"
            ));
        }
    }
    // The plateau: low write throughput with large requests on a nearly idle device.
    let (mut wmb, mut util, mut req) = (None, None, None);
    if let Some(dev) = &f.device {
        let tl = &f.p.timeline;
        let w: Vec<f64> =
            tl.get(&format!("dev.{dev}.w_bytes_s")).map(crate::analysis::stats::present).unwrap_or_default();
        let busy: Vec<f64> = w.iter().copied().filter(|v| *v > 1e6).collect();
        wmb = median(&busy).map(|v| v / 1e6);
        util = tl.get(&format!("dev.{dev}.util_pct")).and_then(|v| mean(&crate::analysis::stats::present(v)));
        req = tl
            .get(&format!("dev.{dev}.w_req_bytes"))
            .and_then(|v| median(&crate::analysis::stats::present(v)));
    }
    let plateau = wmb.is_some_and(|w| w < 80.0)
        && util.is_some_and(|u| u < 30.0)
        && req.is_none_or(|r| r >= 128.0 * 1024.0);
    let mut metrics = std::collections::BTreeMap::new();
    metrics.insert("kernel", serde_json::Value::String(kernel.clone()));
    metrics.insert("mount_options", serde_json::Value::String(mount.value.options.join(",")));
    metrics.insert("write_mb_per_s", super::opt(wmb));
    metrics.insert("util_pct_mean", super::opt(util));
    metrics.insert("write_request_bytes_median", super::opt(req));
    metrics.insert("plateau_seen", serde_json::Value::Bool(plateau));
    let mut evidence: Vec<Evidence> = Vec::new();
    if let Some(k) = &ctx.kernel {
        evidence.push(ctx_evidence(k, "kernel release"));
    }
    evidence.push(super::mount_evidence(mount, "mount options"));
    if let (Some(dev), Some(w)) = (&f.device, wmb) {
        let col = format!("dev.{dev}.w_bytes_s");
        if let Some(v) = f.p.timeline.get(&col)
            && let Some(row) = v.iter().position(|x| x.is_some_and(|x| x > 1e6))
        {
            evidence.push(super::cell_evidence(f, &col, row, "wMB/s", v[row].unwrap_or(0.0) / 1e6));
        }
        let _ = w;
    }
    Outcome::Fire(Box::new(Finding {
        rule: "ext4_dioread_nolock_nodelalloc",
        severity: Severity::Critical,
        confidence: if plateau { 0.95 } else { 0.7 },
        summary: format!(
            "ext4 {} is mounted with dioread_nolock and nodelalloc on kernel {kernel} (affected range){}.",
            mount.value.target,
            match (wmb, util) {
                (Some(w), Some(u)) => format!(": buffered writes plateau at {w:.1} MB/s with the device {u:.1} % busy, the signature of the unwritten-extent writeback bug"),
                _ => String::new(),
            }
        ),
        window: None,
        metrics,
        evidence,
        remedies: vec![
            "Remount with delalloc (mount -o remount,delalloc) and remove nodelalloc from /etc/fstab: immediate.".into(),
            "Update the kernel to 4.19.91-26.al7 or later (needs a reboot).".into(),
        ],
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_range() {
        assert_eq!(affected("4.19.91-25.al7.x86_64"), Some(true));
        assert_eq!(affected("4.19.91-26.al7.x86_64"), Some(false));
        assert_eq!(affected("4.19.24-9.al7.x86_64"), Some(true));
        assert_eq!(affected("4.19.24-8.al7.x86_64"), Some(false));
        assert_eq!(affected("6.1.0-13-amd64"), None);
    }
}
