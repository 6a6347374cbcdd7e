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

use super::types::Report;
use crate::common::{Diags, Stamp};
use std::collections::BTreeSet;
use std::sync::Arc;

/// What a drained parse keeps of the reports taken from it: the whole file's summary.
#[derive(Debug, Clone, Default)]
pub struct Drained {
    /// Reports read.
    pub reports: usize,
    /// Device rows read.
    pub rows: usize,
    /// Some report has an `avg-cpu` block.
    pub any_cpu: bool,
    /// The device names, sorted.
    pub devices: BTreeSet<Arc<str>>,
    /// The stamps of the first three reports (repaired), for the zone evidence.
    pub head: Vec<Option<Stamp>>,
    /// The first and last stamps of the file (repaired).
    pub first: Option<Stamp>,
    /// See `first`.
    pub last: Option<Stamp>,
    /// The stamps the run's series repaired: (line of the report, stamp given).
    pub repaired: Vec<(usize, Stamp)>,
    /// The application reads the file's dates day-first (`03/11/26` as 3 November): it
    /// gives the reports read again their stamps' day-first reading too.
    pub day_first: bool,
    /// The reports' (run, stamp as read, line), in file order, until the parse finishes.
    stamps: Vec<(u32, Option<Stamp>, usize)>,
}

impl Drained {
    /// Notes a finished report (in file order).
    pub(super) fn see(&mut self, r: &Report) {
        self.reports += 1;
        self.rows += r.devices.len();
        self.any_cpu |= r.cpu.is_some();
        for d in &r.devices {
            if !self.devices.contains(&d.device) {
                self.devices.insert(d.device.clone());
            }
        }
        self.stamps.push((u32::try_from(r.run).unwrap_or(u32::MAX), r.stamp, r.line));
    }

    /// Any report has a stamp.
    pub(super) fn has_t(&self) -> bool {
        self.stamps.iter().any(|s| s.1.is_some())
    }

    /// The reporting interval of the stamps as read (the median step within runs).
    pub(super) fn interval(&self) -> Option<f64> {
        super::derive_interval(&self.stamps, |s| s.0 as usize, |s| s.1.as_ref())
    }

    /// Repairs the stamps that break their run's series (their diagnostics into `d`, as
    /// the whole-file parse gives them), and keeps the summary's stamps.
    pub(super) fn repair(&mut self, d: &mut Diags) {
        let mut stamps = std::mem::take(&mut self.stamps);
        let before: Vec<Option<Stamp>> = stamps.iter().map(|s| s.1).collect();
        crate::common::series::repair_runs(&mut stamps, |s| s.0 as usize, |s| &mut s.1, |s| s.2, d);
        self.repaired = stamps
            .iter()
            .zip(&before)
            .filter(|(s, b)| s.1 != **b)
            .filter_map(|(s, _)| s.1.map(|t| (s.2, t)))
            .collect();
        self.head = stamps.iter().take(3).map(|s| s.1).collect();
        self.first = stamps.iter().find_map(|s| s.1);
        self.last = stamps.iter().rev().find_map(|s| s.1);
    }

    /// Gives report `r` (read again) the stamp the repair gave it.
    pub fn fix(&self, r: &mut Report) {
        if self.repaired.is_empty() {
            return;
        }
        if let Ok(i) = self.repaired.binary_search_by_key(&r.line, |x| x.0) {
            r.stamp = Some(self.repaired[i].1);
        }
    }
}
