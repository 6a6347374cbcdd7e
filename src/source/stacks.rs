//! Thread stacks: gdb `thread apply all bt` snapshots (`gdb_stacks`) and pt-pmp's
//! aggregate (`pt_pmp`). They put no point on the timeline: the stacks view
//! ([`crate::analysis::waits`]) reads them after the fill, and their `TS` lines are
//! evidence of the host's time zone.

use super::{Adapter, Stacks};
use crate::clock::ZoneEvidence;

/// gdb snapshots (`<prefix>-stacktrace`, `collect.sh -G`, `pt-pmp --save-samples`).
pub(super) struct Gdb<'d>(pub &'d iosift_parsers::gdb_stacks::GdbStacks);

impl<'d> Adapter<'d> for Gdb<'d> {
    fn stacks(&self) -> Option<Stacks<'d>> {
        Some(Stacks::Gdb(self.0))
    }

    fn zone_evidence(&self, _file: &str, ev: &mut ZoneEvidence) {
        ev.note_ts(self.0.snapshots.iter().filter_map(|s| s.ts));
    }
}

/// pt-pmp's `count frame,frame,...` lines.
pub(super) struct Pmp<'d>(pub &'d iosift_parsers::pt_pmp::PtPmp);

impl<'d> Adapter<'d> for Pmp<'d> {
    fn stacks(&self) -> Option<Stacks<'d>> {
        Some(Stacks::Pmp(self.0))
    }

    fn zone_evidence(&self, _file: &str, ev: &mut ZoneEvidence) {
        ev.note_ts(self.0.ts.iter().copied());
    }
}
