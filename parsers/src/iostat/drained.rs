//! An `iostat` read without keeping its reports: the application takes each batch of
//! finished reports from the reader as it goes (a large file streamed from disk, bins the
//! reports as it reads them and drops them), and the parse keeps only what the file's
//! summary, clock and stamp repair need of them ([`Drained`]). Reading the file again
//! ([`super::pieces::replay`]) gives the same reports, to which the application applies
//! the stamp repairs found here ([`Drained::repaired`]).
//!
//! ```text
//! 11/29/26 19:37:19                <- each report: its run, stamp and line are noted
//! avg-cpu:  %user   %nice %system %iowait  %steal   %idle
//!           61.51    0.00    9.68    0.50    0.07   28.23
//!
//! Device            r/s     rkB/s ...
//! vda            688.75  27025.48 ...   <- the device's name is noted, the row dropped
//! ```

use super::types::{Drained, Report};
use crate::common::{Diags, Stamp};
use chrono::{NaiveDateTime, Timelike};
use std::collections::BTreeMap;
use std::sync::Arc;

impl Report {
    /// Adds each device's `w_bytes_s` of this report to `sums` (0 where it has none), in
    /// the report's order: over a file's reports, [`Drained::write_sums`].
    pub fn add_write_sums(&self, sums: &mut BTreeMap<Arc<str>, f64>) {
        for d in &self.devices {
            let w = d.m.w_bytes_s().unwrap_or(0.0);
            match sums.get_mut(&d.device) {
                Some(t) => *t += w,
                None => {
                    sums.insert(d.device.clone(), w);
                }
            }
        }
    }
}

impl Drained {
    /// Notes a finished report (in file order).
    pub(super) fn see(&mut self, r: &Report) {
        self.reports += 1;
        self.rows += r.devices.len();
        self.any_cpu |= r.cpu.is_some();
        r.add_write_sums(&mut self.write_sums);
        self.stamps.push(r.stamp);
        let sat = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
        self.at.push((sat(r.run), sat(r.line)));
    }

    /// Any report has a stamp.
    pub(super) fn has_t(&self) -> bool {
        self.stamps.iter().any(Option::is_some)
    }

    /// The reporting interval of the stamps as read (the median step within runs).
    pub(super) fn interval(&self) -> Option<f64> {
        let both: Vec<(u32, Option<&Stamp>)> =
            self.at.iter().zip(&self.stamps).map(|(a, s)| (a.0, s.as_ref())).collect();
        derive_interval(&both, |s| s.0 as usize, |s| s.1)
    }

    /// Repairs the stamps that break their run's series (their diagnostics into `d`, as
    /// the whole-file parse gives them), and keeps the summary's stamps.
    pub(super) fn repair(&mut self, d: &mut Diags) {
        let mut stamps = std::mem::take(&mut self.stamps);
        let at = std::mem::take(&mut self.at);
        self.repaired = crate::common::series::repair_log(&mut stamps, &at, d);
        self.head = stamps.iter().take(3).copied().collect();
        self.first = stamps.iter().find_map(|s| *s);
        self.last = stamps.iter().rev().find_map(|s| *s);
    }

    /// Gives report `r`, the `k`-th of the file (from 0) read again, the stamp the repair gave it.
    pub fn fix(&self, k: usize, r: &mut Report) {
        if let Some(s) = crate::common::series::placed_at(&self.repaired, k) {
            r.stamp = Some(s);
        }
    }
}

/// Seconds of a stamp on a common axis (for interval derivation only).
fn stamp_secs(s: &Stamp) -> Option<f64> {
    let ndt = |n: &NaiveDateTime| n.and_utc().timestamp() as f64 + f64::from(n.nanosecond()) / 1e9;
    match s {
        Stamp::Epoch(e) => Some(*e),
        Stamp::Zoned(d) => Some(ndt(&d.naive_utc())),
        Stamp::Local(n) => Some(ndt(n)),
        Stamp::TimeOfDay(t) => Some(f64::from(t.num_seconds_from_midnight())),
        Stamp::NoYear { time, .. } => Some(f64::from(time.num_seconds_from_midnight())),
        Stamp::SinceBoot(s) => Some(*s),
    }
}

/// The median step between the stamps of consecutive reports of a run (`run` and `stamp`
/// read a report, or what a drained parse keeps of it).
pub(super) fn derive_interval<T>(
    reports: &[T],
    run: impl Fn(&T) -> usize,
    stamp: impl Fn(&T) -> Option<&Stamp>,
) -> Option<f64> {
    let mut diffs: Vec<f64> = Vec::new();
    for w in reports.windows(2) {
        if run(&w[0]) != run(&w[1]) {
            continue;
        }
        if let (Some(a), Some(b)) = (stamp(&w[0]).and_then(stamp_secs), stamp(&w[1]).and_then(stamp_secs)) {
            let mut d = b - a;
            if matches!(stamp(&w[0]), Some(Stamp::TimeOfDay(_))) && d < 0.0 {
                d += 86_400.0;
            }
            if d > 0.0 {
                diffs.push(d);
            }
        }
    }
    if diffs.is_empty() {
        return None;
    }
    diffs.sort_by(|a, b| a.total_cmp(b));
    diffs.get((diffs.len() - 1) / 2).copied()
}
