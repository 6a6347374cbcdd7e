//! A `pidstat` read without keeping its rows: the application takes each batch of rows
//! from the reader as it goes (a large file streamed from disk bins them as it reads them
//! and drops them), and the parse keeps only what the file's summary and the stamp repair
//! need of them ([`Drained`]). Reading the file again ([`super::pieces::replay`]) gives the
//! same rows, to which the application applies the stamp repairs found here
//! ([`Drained::fix`]).
//!
//! ```text
//! # Time        UID      TGID       TID   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command
//! 19:37:31        0     15545         -      0.00   3996.00      0.00       0  gcache_sim  <- a sample starts: its run, stamp, line noted
//! 19:37:31        0         -     15546      0.00   3996.00      0.00       0  |__gcache_sim  <- same sample: counted, dropped
//! ```

use super::types::{Drained, Row, Samples};
use crate::common::Diags;

impl Samples {
    /// The index (in file order, from 0) of the sample of `r`, the row after the last one given.
    pub fn next(&mut self, r: &Row) -> usize {
        let key = (r.run, r.stamp);
        if self.tail.as_ref() != Some(&key) {
            self.count += 1;
            self.tail = Some(key);
        }
        self.count - 1
    }
}

impl Drained {
    /// Notes an interval row (in file order).
    pub(super) fn see(&mut self, r: &Row) {
        self.rows += 1;
        self.any_wr |= r.kb_wr_s().is_some();
        self.since_boot |= r.since_boot;
        let before = self.samples.count;
        self.samples.next(r);
        if self.samples.count > before {
            self.log.push(r.run, r.line, r.stamp);
        }
    }

    /// Repairs the stamps that break their run's series (their diagnostics into `d`, as the
    /// whole-file parse gives them) and keeps the first and last.
    pub(super) fn repair(&mut self, d: &mut Diags) {
        let r = std::mem::take(&mut self.log).repair(d);
        (self.repaired, self.first, self.last) = (r.placed, r.first, r.last);
    }

    /// Gives row `r`, read again in file order (`samples` follows them), the stamp the
    /// repair gave its sample.
    pub fn fix(&self, samples: &mut Samples, r: &mut Row) {
        let k = samples.next(r);
        if let Some(s) = crate::common::series::placed_at(&self.repaired, k) {
            r.stamp = Some(s);
        }
    }
}
