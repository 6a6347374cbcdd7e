//! A `vmstat` read without keeping its rows: the application takes each batch of rows
//! from the reader as it goes (a large file streamed from disk bins them as it reads them
//! and drops them), and the parse keeps only what the file's summary and the stamp repair
//! need of them ([`Drained`]). Reading the file again ([`super::pieces::replay`]) gives the
//! same rows, to which the application applies the stamp repairs found here
//! ([`Drained::fix`]).
//!
//! ```text
//!  r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st                 UTC
//! 14  0      0 19443496  13144 3326196    0    0 13551 22128 1438 2182 62 10 28  1  0 2026-11-29 19:37:19  <- counted, stamp noted, dropped
//! ```

use crate::common::stamp_log::StampLog;
use crate::common::{Diags, Stamp};

/// What a drained parse keeps of the rows taken from it: the whole file's summary.
#[derive(Debug, Clone, Default)]
pub struct Drained {
    /// Procs rows read.
    pub rows: usize,
    /// Some row has a `-t` stamp.
    pub any_stamp: bool,
    /// The first and last `-t` stamps of the rows (repaired).
    pub first: Option<Stamp>,
    /// See `first`.
    pub last: Option<Stamp>,
    /// The stamps the run's series repaired: (index of the row in file order, stamp given).
    pub repaired: Vec<(usize, Stamp)>,
    /// Since-boot rows seen (a run starts at each, for the repair).
    run: usize,
    /// The rows' stamps as read, until the parse finishes.
    log: StampLog,
}

impl Drained {
    /// Notes a procs row (in file order): its line, stamp, and whether it is a run's
    /// since-boot row.
    pub(crate) fn see(&mut self, line: usize, stamp: Option<Stamp>, since_boot: bool) {
        self.rows += 1;
        self.any_stamp |= stamp.is_some();
        self.run += usize::from(since_boot);
        self.log.push(self.run, line, stamp);
    }

    /// Repairs the stamps that break their run's series (their diagnostics into `d`, as the
    /// whole-file parse gives them) and keeps the first and last.
    pub(crate) fn repair(&mut self, d: &mut Diags) {
        let r = std::mem::take(&mut self.log).repair(d);
        (self.repaired, self.first, self.last) = (r.placed, r.first, r.last);
    }

    /// The stamp the repair gave the `k`-th row of the file (from 0), if it gave one.
    pub fn fix(&self, k: usize) -> Option<Stamp> {
        crate::common::series::placed_at(&self.repaired, k)
    }
}
