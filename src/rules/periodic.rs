//! `periodic_write_bursts`: device writes come in periodic bursts; period,
//! size, and whether the period matches the writeback tunables.

use super::Outcome;
use super::evidence::{mb, num, opt};
use super::inputs::{Available, DeviceWrites, Missing, Series};
use crate::analysis::periodicity::PeriodicityView;
use crate::analysis::stats::median;
use crate::analysis::writeback::WritebackWindow;
use crate::model::{Finding, Severity, Window};
use crate::pipeline::ThreadTotal;
use crate::table::columns::{Col, MemMetric};
use std::collections::BTreeMap;

/// Rule id.
pub const ID: &str = "periodic_write_bursts";

/// Fewer bursts than this are no series.
pub const MIN_BURSTS: usize = 3;
/// The period's confidence must reach this.
pub const MIN_CONFIDENCE: f64 = 0.5;

/// What the rule reads.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// The main device's writes.
    pub writes: DeviceWrites<'a>,
    /// Their bursts and period.
    pub periodicity: &'a PeriodicityView,
    /// The writeback tunables.
    pub window: WritebackWindow,
    /// pidstat's writers (who dirtied).
    pub threads: &'a BTreeMap<u32, ThreadTotal>,
    /// Dirty memory (its drops at the bursts are evidence).
    pub dirty: Option<Series<'a>>,
}

/// Picks the inputs.
pub fn gather<'a>(a: &Available<'a>) -> Result<Inputs<'a>, Vec<Missing>> {
    let (Some(writes), Some(periodicity)) = (a.device_writes(), a.periodicity()) else {
        return Err(vec![Missing::DeviceWrites]);
    };
    Ok(Inputs {
        writes,
        periodicity,
        window: a.window(),
        threads: a.threads(),
        dirty: a.series(&Col::Mem(MemMetric::DirtyBytes)),
    })
}

/// Evaluates the rule.
pub fn check(i: &Inputs<'_>) -> Outcome {
    let (view, dev, col) = (i.periodicity, i.writes.device, &i.writes.series);
    let n = view.bursts.len();
    let (Some(period), Some(conf)) = (view.period_s, view.confidence) else {
        return Outcome::Pass(format!("{n} write bursts on {dev}: no repeating period"));
    };
    if n < MIN_BURSTS || conf < MIN_CONFIDENCE {
        return Outcome::Pass(format!(
            "{n} write bursts on {dev}; period {period:.1} s with confidence {conf:.2}: not periodic enough"
        ));
    }
    let sizes: Vec<f64> = view.bursts.iter().map(|b| b.total).collect();
    let med = median(&sizes).unwrap_or(0.0);
    let (window, known) = (i.window.seconds(), i.window.from_capture);
    let matches = i.window.matches(period);
    let first = view.bursts.first().map(|b| b.start).unwrap_or(0);
    let last = view.bursts.last().map(|b| b.end).unwrap_or(0);
    // Who dirtied (pidstat threads) vs who issued (kernel flusher when the dirtiers are steady).
    let mut writers: Vec<(&String, &ThreadTotal, u32)> =
        i.threads.iter().map(|(tid, t)| (&t.comm, t, *tid)).collect();
    writers.sort_by(|a, b| b.1.bytes.total_cmp(&a.1.bytes).then(a.2.cmp(&b.2)));
    let dirtiers: Vec<String> = writers
        .iter()
        .filter(|w| w.1.category != "writeback")
        .take(3)
        .map(|w| format!("{} (tid {}, {})", w.0, w.2, mb(w.1.bytes)))
        .collect();
    let flusher = i.threads.values().any(|t| t.category == "writeback");
    let mut metrics = BTreeMap::new();
    metrics.insert("period_s", num(period));
    metrics.insert("period_confidence", num(conf));
    metrics.insert("bursts", num(n as f64));
    metrics.insert("burst_bytes_median", num(med));
    metrics.insert("burst_bytes_max", opt(sizes.iter().copied().reduce(f64::max)));
    metrics.insert("baseline_bytes_s", num(view.threshold.min(f64::MAX)));
    metrics.insert("writeback_window_s", num(window));
    metrics.insert("writeback_window_from_capture", serde_json::Value::Bool(known));
    metrics.insert("matches_writeback_window", serde_json::Value::Bool(matches));
    metrics.insert("device", serde_json::Value::String(dev.to_string()));
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
        evidence.push(col.evidence(b.peak, "wkB/s", b.peak_value / 1024.0));
    }
    if let Some(dirty) = &i.dirty {
        let v = dirty.values;
        for b in view.bursts.iter().take(3) {
            let lo = b.start.saturating_sub(2);
            let hi = (b.end + 3).min(v.len().saturating_sub(1));
            if let Some((row, val)) = (lo..=hi)
                .filter_map(|r| v.get(r).copied().flatten().map(|x| (r, x)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
            {
                evidence.push(dirty.evidence(row, "Dirty (kB)", val / 1024.0));
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
        rule: ID,
        severity: Severity::Warning,
        confidence: (conf * if known { 1.0 } else { 0.9 }).clamp(0.0, 1.0),
        summary,
        window: Some(Window::epochs(col.epoch(first), col.epoch(last))),
        metrics,
        evidence,
        remedies,
    }))
}
