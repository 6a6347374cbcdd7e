//! Pressure stall information (`/proc/pressure/io`, `cpu`, `memory`):
//! the share of each second tasks were stalled on the resource
//! (`psi.<resource>.some_pct`, `full_pct`), from the cumulative stall time
//! of successive snapshots. The resource is named by the file
//! (`…-pressure-io`).

use super::{Adapter, Sink, Visit, snapshot_pairs};
use crate::clock::Anchoring;
use crate::table::Col;
use crate::table::columns::{PsiKind, PsiResource};
use iosift_parsers::procfs::pressure::{Pressure as Psi, Stall};

/// A pressure file.
pub(super) struct Pressure<'d>(pub &'d Psi);

/// The resource a pressure file's name says (`2026_12_01_22_50_31-pressure-io`).
fn resource(base: &str) -> Option<PsiResource> {
    let b = base.to_ascii_lowercase();
    let after = &b[b.rfind("pressure")? + "pressure".len()..];
    PsiResource::ALL
        .iter()
        .copied()
        .find(|r| after.trim_start_matches(['-', '_', '/', '.']).starts_with(r.key()))
}

impl<'d> Adapter<'d> for Pressure<'d> {
    fn visit(&self, v: &mut Visit<'_>, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        let timed = self.0.snapshots.iter().any(|s| s.epoch.is_some());
        let Some(res) = resource(&v.file.base) else {
            v.warn(format!(
                "{}: pressure stall figures, but the file name does not say of which resource (io, cpu, memory): left out of the timeline",
                v.file.name
            ));
            return None;
        };
        for (a, b, t, dt) in snapshot_pairs(&self.0.snapshots, |s| s.epoch) {
            sink.at(b.line);
            let kinds: [(PsiKind, Option<Stall>, Option<Stall>); 2] =
                [(PsiKind::SomePct, a.some, b.some), (PsiKind::FullPct, a.full, b.full)];
            for (kind, x, y) in kinds {
                if let (Some(x), Some(y)) = (x, y)
                    && let Some(d) = v.delta(x.total_us as f64, y.total_us as f64)
                {
                    sink.rate(&Col::Psi(res, kind), t, dt, (d / 1e6 / dt * 100.0).min(100.0));
                }
            }
        }
        timed.then_some((Anchoring::Epoch, 0.01))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_from_the_name() {
        assert_eq!(resource("2026_12_01_22_50_31-pressure-io"), Some(PsiResource::Io));
        assert_eq!(resource("pressure_memory.txt"), Some(PsiResource::Memory));
        assert_eq!(resource("psi.txt"), None);
    }
}
