//! The collector's record of its own cost (`collector-cost.txt` of
//! `samples/collect.sh`, issue 41): its CPU per interval as a share of the
//! machine (`collector.cpu_pct`), the processes the analysis must never name
//! as writers, issuers or the cause of CPU saturation, and the watchdog's
//! events, which the inventory notes.

use super::{Adapter, Sink, Visit};
use crate::clock::Anchoring;
use crate::table::Col;
use crate::table::columns::HostMetric;
use iosift_parsers::collector_cost::CollectorCost;

/// A collector cost record.
pub(super) struct Collector<'d>(pub &'d CollectorCost);

/// `HH:MM:SS` UTC of an epoch.
pub(crate) fn collector_hms(epoch: f64) -> String {
    iosift_parsers::common::time::epoch_to_utc(epoch)
        .map(|t| t.format("%H:%M:%S").to_string())
        .unwrap_or_else(|| format!("{epoch:.0}"))
}

/// The inventory's note: what observing cost, and every watchdog event.
pub(crate) fn note(c: &CollectorCost) -> String {
    let mut procs = c.processes();
    procs.sort_by(|a, b| b.cpu_s.total_cmp(&a.cpu_s));
    let top: Vec<String> = procs.iter().take(3).map(|p| format!("{} {:.1} CPU s", p.name, p.cpu_s)).collect();
    let mut s = match c.machine_share_pct() {
        Some(pct) => format!("the collector used {pct:.1} % of the CPU ({})", top.join(", ")),
        None => "the collector's cost: fewer than two samples".to_string(),
    };
    for e in &c.events {
        s.push_str(&format!(
            "; watchdog: {} (pid {}) {} at {} UTC ({:.0} % of one CPU over {:.0} s, budget {:.0} %)",
            e.name,
            e.pid,
            e.action.as_str(),
            collector_hms(e.epoch),
            e.share_pct,
            e.window_s,
            e.budget_pct
        ));
    }
    s
}

impl<'d> Adapter<'d> for Collector<'d> {
    fn collector(&self) -> Option<&'d CollectorCost> {
        Some(self.0)
    }

    fn visit(&self, v: &mut Visit<'_>, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        let ncpu = self.0.ncpu.filter(|n| *n > 0).unwrap_or(1) as f64;
        let col = Col::Host(HostMetric::CollectorCpuPct);
        for iv in self.0.intervals() {
            let dt = iv.to - iv.from;
            if dt <= 0.0 {
                continue;
            }
            sink.at(iv.line);
            sink.rate(&col, iv.to, dt, (iv.cpu_s / dt / ncpu * 100.0).min(100.0));
        }
        v.note(note(self.0));
        (!self.0.rows.is_empty()).then_some((Anchoring::Epoch, 0.01))
    }
}
