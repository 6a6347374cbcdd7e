//! `device_saturation`: the main device is busy (%util) for a sustained
//! time, with its write latency then.

use super::inputs::{Available, Missing, Series};
use super::{Decision, Outcome};
use crate::analysis::stats::{mean, present, quantile};
use crate::model::{Finding, Severity};
use crate::table::Cell;
use crate::table::columns::{Col, DevMetric};
use crate::verdict::{Metric, Unit};

/// Rule id.
pub(crate) const ID: &str = "device_saturation";

/// The rule's declaration to the report: title and key charts.
pub(crate) const SPEC: crate::verdict::RuleSpec = crate::verdict::RuleSpec {
    id: ID,
    title: "Device saturation",
    key_charts: &["latency-queue"],
    headline: Some(("seconds_saturated", "saturated")),
    measure: Some("device.util_pct"),
    decisive: &[],
};

/// A second at or above this `%util` is saturated.
pub(crate) const BUSY_PCT: f64 = 90.0;
/// The rule fires with at least this many saturated seconds.
pub(crate) const MIN_SECONDS: usize = 10;

/// What the rule reads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Inputs<'a> {
    /// The main device.
    pub device: &'a str,
    /// Its `%util`.
    pub util: Series<'a>,
    /// Its write latency.
    pub w_await: Option<Series<'a>>,
}

/// Picks the inputs.
pub(crate) fn gather<'a>(a: &Available<'a>) -> Result<Inputs<'a>, Vec<Missing>> {
    let dev = |m: DevMetric| a.device().and_then(|d| a.series(&Col::Dev(d.name.clone(), m)));
    match (a.device(), dev(DevMetric::UtilPct)) {
        (Some(d), Some(util)) => Ok(Inputs { device: &d.name, util, w_await: dev(DevMetric::WAwaitMs) }),
        _ => Err(vec![Missing::DeviceUtilisation]),
    }
}

/// What the rule concluded: the device, how long it was saturated and its write latency then.
#[derive(Debug, Clone)]
pub(crate) struct Verdict {
    /// The main device.
    pub device: String,
    /// Seconds at or above [`BUSY_PCT`].
    pub seconds_saturated: f64,
    /// Their share of the seconds with a `%util` reading, 0..1.
    pub share_of_capture: f64,
    /// Mean write await in those seconds, ms.
    pub w_await_ms_mean: Option<f64>,
    /// Its 99th percentile, ms.
    pub w_await_ms_p99: Option<f64>,
    /// Severity, confidence, window, evidence.
    pub basis: super::Basis,
}

/// Decides: fires with at least [`MIN_SECONDS`] seconds at or above [`BUSY_PCT`].
pub(crate) fn decide(i: &Inputs<'_>) -> Decision<Verdict> {
    let (dev, util) = (i.device, i.util.values);
    let hot: Vec<usize> = (0..util.len()).filter(|&r| util[r].is_some_and(|u| u >= BUSY_PCT)).collect();
    // Seconds: rows times the row width (a row of a wider bin holds its seconds' mean %util).
    let (hot_s, total) = (i.util.seconds(hot.len()), i.util.seconds(present(util).len()));
    if hot_s < MIN_SECONDS as f64 || total == 0.0 {
        return Decision::Pass(format!(
            "{dev} was at >= 90 % utilisation for {hot_s:.0} of {total:.0} seconds"
        ));
    }
    let aw = i
        .w_await
        .map(|s| hot.iter().filter_map(|&r| s.values.get(r).and_then(Cell::get)).collect::<Vec<_>>())
        .unwrap_or_default();
    let row = hot[0];
    let last = *hot.last().unwrap_or(&row);
    Decision::Fire(Verdict {
        device: dev.to_string(),
        seconds_saturated: hot_s,
        share_of_capture: hot_s / total,
        w_await_ms_mean: mean(&aw),
        w_await_ms_p99: quantile(&aw, 0.99),
        basis: super::Basis {
            severity: Severity::Info,
            confidence: 0.7,
            window: Some((i.util.epoch(row), i.util.epoch(last) + i.util.bin() - 1)),
            evidence: vec![i.util.evidence(row, "%util", util[row].unwrap_or(0.0))],
            actors: Default::default(),
        },
    })
}

/// Writes the verdict as the finding.
pub(crate) fn explain(v: &Verdict) -> Finding {
    let mut metrics = std::collections::BTreeMap::new();
    metrics.insert("seconds_saturated", Metric::num(v.seconds_saturated, Unit::Seconds));
    metrics.insert("share_of_capture", Metric::num(v.share_of_capture, Unit::Fraction));
    metrics.insert("w_await_ms_mean", Metric::opt(v.w_await_ms_mean, Unit::Milliseconds));
    metrics.insert("w_await_ms_p99", Metric::opt(v.w_await_ms_p99, Unit::Milliseconds));
    let summary = format!(
        "{} was at >= 90 % utilisation for {:.0} s ({:.0} % of the capture){}. On SSDs and virtual disks %util overstates saturation; check await.",
        v.device,
        v.seconds_saturated,
        100.0 * v.share_of_capture,
        v.w_await_ms_mean.map_or(String::new(), |m| format!(", write await {m:.1} ms on average then"))
    );
    let remedies = vec!["Spread the writes (smaller flushes, lower dirty thresholds) or move the busiest files to another device.".into()];
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
    use crate::analysis::device::MainDevice;
    use crate::rules::testkit::{fired, passed, series, skipped, vals};
    use crate::table::Timeline;

    fn run(util: &[f64], w_await: Option<&[f64]>) -> Outcome {
        let u = vals(util);
        let a = w_await.map(vals);
        check(&Inputs {
            device: "vda",
            util: series("dev.vda.util_pct", &u),
            w_await: a.as_deref().map(|a| series("dev.vda.w_await_ms", a)),
        })
    }

    #[test]
    fn ten_seconds_at_ninety_percent_fire() {
        let mut util = vec![BUSY_PCT; MIN_SECONDS];
        util.extend([20.0; 10]);
        let f = fired(run(&util, Some(&[4.0; 20])));
        assert_eq!(f.rule, ID);
        assert_eq!(
            (f.metrics["seconds_saturated"].value.clone(), f.metrics["share_of_capture"].value.clone()),
            (10.0.into(), 0.5.into())
        );
        assert_eq!(f.metrics["w_await_ms_mean"].value, 4.0);
        assert_eq!(f.evidence[0].metric, "%util");
        let w = f.window.unwrap();
        assert_eq!((w.start.as_str(), w.end.as_str()), ("2023-11-14T22:13:20Z", "2023-11-14T22:13:29Z"));
    }

    #[test]
    fn just_below_either_edge_passes() {
        assert_eq!(
            passed(run(&[BUSY_PCT - 0.01; 10], None)),
            "vda was at >= 90 % utilisation for 0 of 10 seconds"
        );
        assert_eq!(
            passed(run(&[99.0; MIN_SECONDS - 1], None)),
            "vda was at >= 90 % utilisation for 9 of 9 seconds"
        );
    }

    #[test]
    fn skips_without_utilisation() {
        let tl = Timeline::default();
        let mut views = Views::default();
        assert_eq!(skipped(ID, &Available::bare(&tl, &views)), ["device utilisation (iostat -x %util)"]);
        // A main device from /proc/diskstats has no %util.
        views.device =
            Some(MainDevice::plain("vda", Col::Ds("vda".into(), crate::table::columns::DsMetric::WBytesS)));
        assert_eq!(skipped(ID, &Available::bare(&tl, &views)), ["device utilisation (iostat -x %util)"]);
    }
}
