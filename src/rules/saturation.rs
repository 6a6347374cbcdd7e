//! `device_saturation`: the main device is busy (%util) or queued (aqu-sz)
//! for a sustained time, with its latency.

use super::{Outcome, num, opt};
use crate::analysis::stats::{mean, present, quantile};
use crate::analyze::Facts;
use crate::model::{Finding, Severity};

/// Evaluates the rule.
pub fn check(f: &Facts<'_>) -> Outcome {
    let Some(dev) = &f.device else { return Outcome::Skip(vec!["device utilisation (iostat -x)".into()]) };
    let tl = &f.p.timeline;
    let Some(util) = tl.get(&format!("dev.{dev}.util_pct")) else {
        return Outcome::Skip(vec!["device utilisation (iostat -x %util)".into()]);
    };
    let hot: Vec<usize> = (0..tl.len).filter(|&i| util[i].is_some_and(|u| u >= 90.0)).collect();
    let total = present(util).len();
    if hot.len() < 10 || total == 0 {
        return Outcome::Pass(format!(
            "{dev} was at >= 90 % utilisation for {} of {total} seconds",
            hot.len()
        ));
    }
    let aw = tl
        .get(&format!("dev.{dev}.w_await_ms"))
        .map(|v| hot.iter().filter_map(|&i| v[i]).collect::<Vec<_>>())
        .unwrap_or_default();
    let mut metrics = std::collections::BTreeMap::new();
    metrics.insert("seconds_saturated", num(hot.len() as f64));
    metrics.insert("share_of_capture", num(hot.len() as f64 / total as f64));
    metrics.insert("w_await_ms_mean", opt(mean(&aw)));
    metrics.insert("w_await_ms_p99", opt(quantile(&aw, 0.99)));
    let row = hot[0];
    Outcome::Fire(Box::new(Finding {
        rule: "device_saturation",
        severity: Severity::Info,
        confidence: 0.7,
        summary: format!(
            "{dev} was at >= 90 % utilisation for {} s ({:.0} % of the capture){}. On SSDs and virtual disks %util overstates saturation; check await.",
            hot.len(),
            100.0 * hot.len() as f64 / total as f64,
            mean(&aw).map_or(String::new(), |m| format!(", write await {m:.1} ms on average then"))
        ),
        window: Some(crate::model::Window { start: crate::analyze::rfc3339(tl.epoch(row)), end: crate::analyze::rfc3339(tl.epoch(*hot.last().unwrap_or(&row))) }),
        metrics,
        evidence: vec![super::cell_evidence(f, &format!("dev.{dev}.util_pct"), row, "%util", util[row].unwrap_or(0.0))],
        remedies: vec!["Spread the writes (smaller flushes, lower dirty thresholds) or move the busiest files to another device.".into()],
    }))
}
