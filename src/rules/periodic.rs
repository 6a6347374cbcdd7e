//! `periodic_write_bursts`: device writes come in periodic bursts; period,
//! size, and whether the period matches the writeback tunables.

use super::{Outcome, cell_evidence, mb, num, opt};
use crate::analysis::stats::median;
use crate::analyze::{Facts, rfc3339, writeback_window};
use crate::model::{Finding, Severity, Window};

/// Evaluates the rule.
pub fn check(f: &Facts<'_>) -> Outcome {
    let (Some(view), Some(col), Some(dev)) = (&f.periodicity, &f.write_col, &f.device) else {
        return Outcome::Skip(vec!["device write throughput (iostat -x or /proc/diskstats series)".into()]);
    };
    let n = view.bursts.len();
    let (Some(period), Some(conf)) = (view.period_s, view.confidence) else {
        return Outcome::Pass(format!("{n} write bursts on {dev}: no repeating period"));
    };
    if n < 3 || conf < 0.5 {
        return Outcome::Pass(format!(
            "{n} write bursts on {dev}; period {period:.1} s with confidence {conf:.2}: not periodic enough"
        ));
    }
    let sizes: Vec<f64> = view.bursts.iter().map(|b| b.total).collect();
    let med = median(&sizes).unwrap_or(0.0);
    let (window, known) = writeback_window(f.p);
    let matches = (period - window).abs() <= 0.2 * window + 2.0 || (period - (window - 5.0)).abs() <= 3.0;
    let tl = &f.p.timeline;
    let first = view.bursts.first().map(|b| b.start).unwrap_or(0);
    let last = view.bursts.last().map(|b| b.end).unwrap_or(0);
    // Who dirtied (pidstat threads) vs who issued (kernel flusher when the dirtiers are steady).
    let mut writers: Vec<(&String, &crate::pipeline::ThreadTotal, u32)> =
        f.p.threads.iter().map(|(tid, t)| (&t.comm, t, *tid)).collect();
    writers.sort_by(|a, b| b.1.bytes.total_cmp(&a.1.bytes).then(a.2.cmp(&b.2)));
    let dirtiers: Vec<String> = writers
        .iter()
        .filter(|w| w.1.category != "writeback")
        .take(3)
        .map(|w| format!("{} (tid {}, {})", w.0, w.2, mb(w.1.bytes)))
        .collect();
    let flusher = f.p.threads.values().any(|t| t.category == "writeback");
    let mut metrics = std::collections::BTreeMap::new();
    metrics.insert("period_s", num(period));
    metrics.insert("period_confidence", num(conf));
    metrics.insert("bursts", num(n as f64));
    metrics.insert("burst_bytes_median", num(med));
    metrics.insert("burst_bytes_max", opt(sizes.iter().copied().reduce(f64::max)));
    metrics.insert("baseline_bytes_s", num(view.threshold.min(f64::MAX)));
    metrics.insert("writeback_window_s", num(window));
    metrics.insert("writeback_window_from_capture", serde_json::Value::Bool(known));
    metrics.insert("matches_writeback_window", serde_json::Value::Bool(matches));
    metrics.insert("device", serde_json::Value::String(dev.clone()));
    metrics.insert("dirtiers", serde_json::Value::from(dirtiers.clone()));
    metrics.insert(
        "issuer",
        serde_json::Value::String(if matches {
            "kernel flusher (periodic writeback)".into()
        } else {
            "unknown".into()
        }),
    );
    let mut evidence = Vec::new();
    for b in view.bursts.iter().take(6) {
        evidence.push(cell_evidence(f, col, b.peak, "wkB/s", b.peak_value / 1024.0));
    }
    let dirty = "mem.dirty_bytes";
    if let Some(v) = tl.get(dirty) {
        for b in view.bursts.iter().take(3) {
            let lo = b.start.saturating_sub(2);
            let hi = (b.end + 3).min(v.len().saturating_sub(1));
            if let Some((row, val)) =
                (lo..=hi).filter_map(|r| v[r].map(|x| (r, x))).min_by(|a, b| a.1.total_cmp(&b.1))
            {
                evidence.push(cell_evidence(f, dirty, row, "Dirty (kB)", val / 1024.0));
            }
        }
    }
    let tunable_text = if known {
        "dirty_expire_centisecs + dirty_writeback_centisecs"
    } else {
        "the kernel defaults (30 s + 5 s; sysctl not in the capture)"
    };
    let summary = format!(
        "{dev} writes come in {n} bursts every {period:.1} s (confidence {conf:.2}), median {} per burst{}; {}{}.",
        mb(med),
        if matches {
            format!(", matching the writeback window of {window:.0} s from {tunable_text}")
        } else {
            format!(", not matching the writeback window of {window:.0} s")
        },
        if dirtiers.is_empty() {
            "no per-thread data to name the dirtier".to_string()
        } else {
            format!("pages dirtied steadily by {}", dirtiers.join(", "))
        },
        if matches {
            if flusher {
                ", written by the kernel flusher threads"
            } else {
                ", written back by the kernel flusher"
            }
        } else {
            ""
        },
    );
    let mut remedies = vec![
        "Lower vm.dirty_expire_centisecs / vm.dirty_writeback_centisecs (or set vm.dirty_background_bytes) for smaller, more frequent flushes.".to_string(),
        "Have the application flush its own dirty data (msync/fdatasync in small steps) instead of leaving it to periodic writeback.".to_string(),
    ];
    if !matches {
        remedies.push("The period does not match the writeback tunables: look for an application timer (checkpoint, flush interval) with this period.".into());
    }
    Outcome::Fire(Box::new(Finding {
        rule: "periodic_write_bursts",
        severity: Severity::Warning,
        confidence: (conf * if known { 1.0 } else { 0.9 }).clamp(0.0, 1.0),
        summary,
        window: Some(Window { start: rfc3339(tl.epoch(first)), end: rfc3339(tl.epoch(last)) }),
        metrics,
        evidence,
        remedies,
    }))
}
