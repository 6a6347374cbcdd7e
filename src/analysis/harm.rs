//! What a write episode cost (`../shared/EVIDENCE.md` section 5): the
//! device's write latency and queue during the episode against the rest of
//! the capture, tasks blocked on I/O, PSI io, and the database's commit rate.
//! Severity follows this, not the rule that looked at the episode: a periodic
//! flush that costs nothing is information.

use super::stats::median;
use crate::table::Timeline;
use crate::table::columns::{Col, DevMetric, MysqlCounter, PsiKind, PsiResource, VmstatField};
use serde::Serialize;

/// More tasks blocked on I/O (vmstat `b`) than the capture's median by this many is a cost.
pub(crate) const BLOCKED_RISE: f64 = 3.0;
/// A PSI io some peak of this many percent, and this many points above the capture's
/// median, is a cost.
pub(crate) const PSI_COST_PCT: f64 = 20.0;

/// The cost of one episode; each figure is None when its witness is missing.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Harm {
    /// Mean write await (ms) during the episode.
    pub w_await_ms: Option<f64>,
    /// Median write await (ms) of the capture's seconds that wrote.
    pub w_await_base_ms: Option<f64>,
    /// Peak aqu-sz during the episode.
    pub queue_peak: Option<f64>,
    /// Peak vmstat `b` (tasks blocked) during the episode, and its median over the capture.
    pub blocked_peak: Option<(f64, f64)>,
    /// Peak PSI io some % during the episode.
    pub psi_io_some_peak: Option<f64>,
    /// Median PSI io some % over the capture: a database that fsyncs every commit stalls
    /// on I/O all the time, which is its baseline, not the episode's cost.
    pub psi_io_some_base: Option<f64>,
    /// Commits per second during the episode against the capture's median.
    pub commits: Option<(f64, f64)>,
    /// True when one of the figures shows a cost.
    pub costly: bool,
    /// What showed the cost, or why it is judged harmless.
    pub words: String,
}

fn values(tl: &Timeline, c: &Col, s: usize, e: usize) -> Option<(Vec<f64>, Vec<f64>)> {
    let col = tl.get(c)?;
    let all: Vec<f64> = col.iter().filter_map(|x| x.get()).collect();
    let during: Vec<f64> =
        (s..=e.min(col.len().saturating_sub(1))).filter_map(|i| col.get(i).and_then(|x| x.get())).collect();
    (!all.is_empty() && !during.is_empty()).then_some((during, all))
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn peak(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

/// The cost of rows `s..=e` of `device`.
pub(crate) fn of(tl: &Timeline, device: &str, s: usize, e: usize) -> Harm {
    let mut h = Harm::default();
    let mut costs: Vec<String> = Vec::new();
    let mut calm: Vec<String> = Vec::new();
    if let Some((d, all)) = values(tl, &Col::Dev(device.into(), DevMetric::WAwaitMs), s, e) {
        // The baseline is the await of seconds that wrote: an idle second's 0 is no latency.
        let busy: Vec<f64> = all.into_iter().filter(|v| *v > 0.0).collect();
        let (m, base) = (mean(&d), median(&busy).unwrap_or(0.0));
        h.w_await_ms = Some(m);
        h.w_await_base_ms = Some(base);
        if m >= 50.0 && m >= 5.0 * base.max(1.0) {
            costs.push(format!("write await {m:.0} ms against {base:.1} ms otherwise"));
        } else {
            calm.push(format!("write await {m:.1} ms (median {base:.1} ms)"));
        }
    }
    if let Some((d, _)) = values(tl, &Col::Dev(device.into(), DevMetric::AquSz), s, e) {
        h.queue_peak = Some(peak(&d));
    }
    if let Some((d, all)) = values(tl, &Col::Vmstat(VmstatField::B), s, e) {
        let (p, base) = (peak(&d), median(&all).unwrap_or(0.0));
        h.blocked_peak = Some((p, base));
        // One or two more blocked tasks for a second is what any build or fsync does now
        // and then; three more is a queue the episode made.
        if p >= base + BLOCKED_RISE {
            costs.push(format!("{p:.0} tasks blocked on I/O (vmstat b; median {base:.0})"));
        }
    }
    if let Some((d, all)) = values(tl, &Col::Psi(PsiResource::Io, PsiKind::SomePct), s, e) {
        let (p, base) = (peak(&d), median(&all).unwrap_or(0.0));
        h.psi_io_some_peak = Some(p);
        h.psi_io_some_base = Some(base);
        if p >= PSI_COST_PCT && p >= base + PSI_COST_PCT {
            costs
                .push(format!("tasks stalled on I/O {p:.0} % of a second (PSI io some; median {base:.0} %)"));
        } else {
            calm.push(format!("PSI io some {p:.0} % (median {base:.0} %)"));
        }
    }
    if let Some((d, all)) = values(tl, &Col::Mysql(MysqlCounter::BinlogCommitsS), s, e) {
        let (m, base) = (mean(&d), median(&all).unwrap_or(0.0));
        h.commits = Some((m, base));
        // A fall counts when the rate comes back after the episode (else the load ended).
        let after =
            values(tl, &Col::Mysql(MysqlCounter::BinlogCommitsS), e + 1, e + 3).map(|(a, _)| mean(&a));
        let recovers = after.is_some_and(|a| a >= 0.7 * base);
        if base >= 5.0 && m <= 0.7 * base && recovers {
            costs.push(format!("commits fell to {m:.0}/s from {base:.0}/s"));
        } else if base >= 5.0 {
            calm.push(format!("commits {m:.0}/s (median {base:.0}/s)"));
        }
    }
    h.costly = !costs.is_empty();
    h.words = if h.costly {
        costs.join("; ")
    } else if calm.is_empty() {
        "no latency, blocked-task, pressure or commit-rate series to measure a cost".into()
    } else {
        format!("no measured cost: {}", calm.join("; "))
    };
    h
}
