//! `ext4_dioread_nolock_nodelalloc` (case 2): on Alibaba Cloud Linux 2
//! kernels from 4.19.24-9.al7 up to (not including) 4.19.91-26.al7, an ext4
//! mount with both `dioread_nolock` and `nodelalloc` makes buffered writes
//! crawl: large merged requests, an idle disk, ~30 MB/s.

use super::evidence::{ctx_evidence, mount_evidence};
use super::inputs::{Available, Missing, Series};
use super::{Decision, Outcome};
use crate::analysis::stats::{mean, median, present};
use crate::model::{Evidence, Finding, Severity};
use crate::pipeline::Sourced;
use crate::table::columns::{Col, DevMetric};
use crate::verdict::{Metric, Unit};
use iosift_parsers::mounts::Mount;

/// Rule id.
pub(crate) const ID: &str = "ext4_dioread_nolock_nodelalloc";

/// The rule's declaration to the report: title and key charts.
pub(crate) const SPEC: crate::verdict::RuleSpec = crate::verdict::RuleSpec {
    id: ID,
    title: "ext4 dioread_nolock + nodelalloc",
    key_charts: &[],
    headline: Some(("write_mb_per_s", "writes")),
    measure: Some("device.w_bytes_s"),
    decisive: &[],
};

/// Seconds writing more than this (bytes/s) are the busy ones.
pub(crate) const BUSY_BYTES_S: f64 = 1e6;
/// The plateau: busy writes below this median (MB/s) ...
pub(crate) const PLATEAU_MB_S: f64 = 80.0;
/// ... on a device less busy than this on average (%) ...
pub(crate) const IDLE_UTIL_PCT: f64 = 30.0;
/// ... with requests at least this large (bytes), when their size is known.
pub(crate) const LARGE_REQUEST_BYTES: f64 = 128.0 * 1024.0;

/// The main device's series of the plateau.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plateau<'a> {
    /// Write bytes/s (`dev.<device>.w_bytes_s`).
    pub writes: Option<Series<'a>>,
    /// `%util`.
    pub util: Option<Series<'a>>,
    /// Write request size.
    pub requests: Option<Series<'a>>,
}

/// What the rule reads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Inputs<'a> {
    /// `uname -r`.
    pub kernel: &'a Sourced<String>,
    /// Every mount (not empty).
    pub mounts: &'a [Sourced<Mount>],
    /// The main device's series, when there is a main device.
    pub device: Option<Plateau<'a>>,
}

/// Picks the inputs.
pub(crate) fn gather<'a>(a: &Available<'a>) -> Result<Inputs<'a>, Vec<Missing>> {
    let mut missing = Vec::new();
    if a.kernel().is_none() {
        missing.push(Missing::KernelRelease);
    }
    if a.mounts().is_empty() {
        missing.push(Missing::MountOptions);
    }
    let Some(kernel) = a.kernel().filter(|_| missing.is_empty()) else { return Err(missing) };
    let dev = |m: DevMetric| a.device().and_then(|d| a.series(&Col::Dev(d.name.clone(), m)));
    Ok(Inputs {
        kernel,
        mounts: a.mounts(),
        device: a.device().map(|_| Plateau {
            writes: dev(DevMetric::WBytesS),
            util: dev(DevMetric::UtilPct),
            requests: dev(DevMetric::WReqBytes),
        }),
    })
}

/// Parses an al7 release `4.19.91-25.al7.x86_64` into ((4,19,91), 25).
pub(crate) fn al7_build(release: &str) -> Option<((u32, u32, u32), u32)> {
    if !release.contains(".al7") {
        return None;
    }
    let base = iosift_parsers::uname::kernel_version(release)?;
    let after = release.split_once('-')?.1;
    let build: u32 = after.split(['.', '-']).next()?.parse().ok()?;
    Some((base, build))
}

/// True when the release is in the affected range.
pub(crate) fn affected(release: &str) -> Option<bool> {
    let (base, build) = al7_build(release)?;
    let v = (base, build);
    Some((((4, 19, 24), 9)..((4, 19, 91), 26)).contains(&v))
}

/// What the rule concluded: the affected mount on the affected kernel, and the plateau when seen.
#[derive(Debug, Clone)]
pub(crate) struct Verdict {
    /// `uname -r`.
    pub kernel: String,
    /// The ext4 mount point with both options.
    pub mount_target: String,
    /// Its options, comma-separated.
    pub mount_options: String,
    /// Median write throughput of the busy seconds, MB (10^6 bytes) per second.
    pub write_mb_per_s: Option<f64>,
    /// Mean `%util`, 0..100.
    pub util_pct_mean: Option<f64>,
    /// Median write request size, bytes.
    pub write_request_bytes_median: Option<f64>,
    /// Low throughput with large requests on a nearly idle device.
    pub plateau_seen: bool,
    /// Severity, confidence, evidence.
    pub basis: super::Basis,
}

/// Decides: fires on an ext4 mount with both options on a kernel of the affected range.
pub(crate) fn decide(i: &Inputs<'_>) -> Decision<Verdict> {
    let kernel = i.kernel.value.clone();
    let ext4: Vec<_> = i.mounts.iter().filter(|m| m.value.fstype == "ext4").collect();
    let hit = ext4.iter().find(|m| m.value.has_option("dioread_nolock") && m.value.has_option("nodelalloc"));
    let Some(mount) = hit else {
        return Decision::Pass(format!(
            "no ext4 mount has both dioread_nolock and nodelalloc ({} ext4 mount(s) checked)",
            ext4.len()
        ));
    };
    match affected(&kernel) {
        Some(true) => {}
        Some(false) => {
            return Decision::Pass(format!(
                "kernel {kernel} is outside the affected range 4.19.24-9.al7 .. 4.19.91-26.al7 (exclusive)"
            ));
        }
        None => {
            return Decision::Pass(format!(
                "kernel {kernel} is not an Alibaba Cloud Linux 2 (al7) kernel of the affected range"
            ));
        }
    }
    // The plateau: low write throughput with large requests on a nearly idle device.
    let (mut wmb, mut util, mut req) = (None, None, None);
    if let Some(d) = &i.device {
        let w: Vec<f64> = d.writes.map(|s| present(s.values)).unwrap_or_default();
        let busy: Vec<f64> = w.iter().copied().filter(|v| *v > BUSY_BYTES_S).collect();
        wmb = median(&busy).map(|v| v / 1e6);
        util = d.util.and_then(|s| mean(&present(s.values)));
        req = d.requests.and_then(|s| median(&present(s.values)));
    }
    let plateau = wmb.is_some_and(|w| w < PLATEAU_MB_S)
        && util.is_some_and(|u| u < IDLE_UTIL_PCT)
        && req.is_none_or(|r| r >= LARGE_REQUEST_BYTES);
    let mut evidence: Vec<Evidence> =
        vec![ctx_evidence(i.kernel, "kernel release"), mount_evidence(mount, "mount options")];
    if wmb.is_some()
        && let Some(w) = i.device.and_then(|d| d.writes)
        && let Some(row) = w.values.iter().position(|x| x.is_some_and(|x| x > BUSY_BYTES_S))
    {
        evidence.push(w.evidence(row, "wkB/s", w.values[row].unwrap_or(0.0) / 1024.0));
    }
    Decision::Fire(Verdict {
        kernel,
        mount_target: mount.value.target.clone(),
        mount_options: mount.value.options.join(","),
        write_mb_per_s: wmb,
        util_pct_mean: util,
        write_request_bytes_median: req,
        plateau_seen: plateau,
        basis: super::Basis {
            severity: Severity::Critical,
            confidence: if plateau { 0.95 } else { 0.7 },
            window: None,
            evidence,
            actors: Default::default(),
        },
    })
}

/// Writes the verdict as the finding.
pub(crate) fn explain(v: &Verdict) -> Finding {
    let mut metrics = std::collections::BTreeMap::new();
    metrics.insert("kernel", Metric::text(v.kernel.clone()));
    metrics.insert("mount_options", Metric::text(v.mount_options.clone()));
    metrics.insert("write_mb_per_s", Metric::opt(v.write_mb_per_s, Unit::MegabytesPerSecond));
    metrics.insert("util_pct_mean", Metric::opt(v.util_pct_mean, Unit::Percent));
    metrics.insert("write_request_bytes_median", Metric::opt(v.write_request_bytes_median, Unit::Bytes));
    metrics.insert("plateau_seen", Metric::flag(v.plateau_seen));
    let summary = format!(
        "ext4 {} is mounted with dioread_nolock and nodelalloc on kernel {} (affected range){}.",
        v.mount_target,
        v.kernel,
        match (v.write_mb_per_s, v.util_pct_mean) {
            (Some(w), Some(u)) => format!(
                ": buffered writes plateau at {}/s with the device {u:.1} % busy, the signature of the unwritten-extent writeback bug",
                super::evidence::mib(w * 1e6)
            ),
            _ => String::new(),
        }
    );
    let remedies = vec![
        "Remount with delalloc (mount -o remount,delalloc) and remove nodelalloc from /etc/fstab: immediate."
            .into(),
        "Update the kernel to 4.19.91-26.al7 or later (needs a reboot).".into(),
    ];
    v.basis.finding(ID, summary, metrics, remedies)
}

/// Evaluates the rule: [`decide`], then [`explain`].
pub(crate) fn check(i: &Inputs<'_>) -> Outcome {
    super::outcome(decide(i), explain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Views;
    use crate::rules::testkit::{fired, mount, passed, series, skipped, sourced, vals};
    use crate::table::Timeline;

    const AFFECTED: &str = "4.19.91-25.al7.x86_64";

    /// ext4 `/data` with both options on an affected kernel; the device writes `mb_s` MB/s at
    /// `util` % busy with `req` byte requests.
    fn run(options: &str, kernel: &str, mb_s: f64, util: f64, req: Option<f64>) -> Outcome {
        let k = sourced(kernel.to_string());
        let mounts = [mount("/dev/vdb", "/data", "ext4", options), mount("/dev/vda", "/", "xfs", "rw")];
        let w = vals(&[0.5e6, mb_s * 1e6, mb_s * 1e6, mb_s * 1e6]);
        let u = vals(&[util; 4]);
        let r = req.map(|r| vals(&[r; 4]));
        check(&Inputs {
            kernel: &k,
            mounts: &mounts,
            device: Some(Plateau {
                writes: Some(series("dev.vdb.w_bytes_s", &w)),
                util: Some(series("dev.vdb.util_pct", &u)),
                requests: r.as_deref().map(|r| series("dev.vdb.w_req_bytes", r)),
            }),
        })
    }

    const BOTH: &str = "rw,dioread_nolock,nodelalloc";

    #[test]
    fn fires_with_both_options_on_an_affected_kernel() {
        let f = fired(run(BOTH, AFFECTED, 30.0, 10.0, Some(512.0 * 1024.0)));
        assert_eq!((f.rule, f.confidence), (ID, 0.95));
        assert_eq!(f.metrics["write_mb_per_s"].value, 30.0);
        assert_eq!(f.evidence[0].value, AFFECTED);
        assert_eq!(f.evidence[1].value, "/dev/vdb on /data type ext4 (rw,dioread_nolock,nodelalloc)");
        // The first busy second (> 1 MB/s), not the 0.5 MB/s one.
        assert_eq!(
            (f.evidence[2].metric.as_str(), &f.evidence[2].value),
            ("wkB/s", &serde_json::json!(29296.875))
        );
    }

    #[test]
    fn one_option_alone_or_another_kernel_passes() {
        assert_eq!(
            passed(run("rw,dioread_nolock", AFFECTED, 30.0, 10.0, None)),
            "no ext4 mount has both dioread_nolock and nodelalloc (1 ext4 mount(s) checked)"
        );
        assert!(
            passed(run(BOTH, "4.19.91-26.al7.x86_64", 30.0, 10.0, None))
                .contains("outside the affected range")
        );
        assert!(
            passed(run(BOTH, "6.1.0-13-amd64", 30.0, 10.0, None)).contains("not an Alibaba Cloud Linux 2")
        );
    }

    #[test]
    fn plateau_edges() {
        let conf =
            |mb: f64, util: f64, req: Option<f64>| fired(run(BOTH, AFFECTED, mb, util, req)).confidence;
        assert_eq!(conf(PLATEAU_MB_S - 0.1, 10.0, None), 0.95);
        assert_eq!(conf(PLATEAU_MB_S, 10.0, None), 0.7);
        assert_eq!(conf(30.0, IDLE_UTIL_PCT - 0.1, None), 0.95);
        assert_eq!(conf(30.0, IDLE_UTIL_PCT, None), 0.7);
        assert_eq!(conf(30.0, 10.0, Some(LARGE_REQUEST_BYTES)), 0.95);
        assert_eq!(conf(30.0, 10.0, Some(LARGE_REQUEST_BYTES - 1.0)), 0.7);
        // Seconds at or below 1 MB/s are not the plateau: no busy second, no plateau.
        assert_eq!(conf(BUSY_BYTES_S / 1e6, 10.0, None), 0.7);
    }

    #[test]
    fn skips_without_kernel_or_mounts() {
        let (tl, views) = (Timeline::default(), Views::default());
        assert_eq!(
            skipped(ID, &Available::bare(&tl, &views)),
            ["kernel release (uname -r)", "mount options (mount, /proc/mounts or findmnt)"]
        );
    }

    #[test]
    fn kernel_range() {
        assert_eq!(affected("4.19.91-25.al7.x86_64"), Some(true));
        assert_eq!(affected("4.19.91-26.al7.x86_64"), Some(false));
        assert_eq!(affected("4.19.24-9.al7.x86_64"), Some(true));
        assert_eq!(affected("4.19.24-8.al7.x86_64"), Some(false));
        assert_eq!(affected("6.1.0-13-amd64"), None);
    }
}
