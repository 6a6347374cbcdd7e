//! What the passes learn of one file ([`Input`]: its clock, what it feeds, its
//! note and cadence), and the visit of its adapter with what every visit of a
//! pass shares ([`Shared`]).

use super::{Context, ParsedFile};
use crate::clock::perf::PerfOffset;
use crate::clock::{Anchoring, Fallback, FileClock, Zone, ZoneRule};
use crate::source::{self, Effects, Measure, Sink, Visit};
use crate::table::timeline::Cadence;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One file of the bundle on its way through the passes (index-aligned with the files).
#[derive(Debug, Clone, Default)]
pub(crate) struct Input {
    /// How its times were anchored (`None`: no times).
    pub clock: Option<FileClock>,
    /// What it feeds ([`source::choose`]).
    pub uses: BTreeSet<Measure>,
    /// Its note (e.g. "not used for attribution: ...").
    pub note: Option<String>,
    /// Its sample cadence, for rates whose interval the file does not state.
    pub cadence: Option<Cadence>,
    /// Left out of the timeline: its times do not meet the bundle's main window.
    pub excluded: bool,
    /// What the range pass measured of its points.
    pub(crate) seen: Seen,
    /// Its own zone's disagreement with the bundle's was already warned about.
    zone_noted: bool,
}

/// What the range pass measured of one file's points.
#[derive(Debug, Clone, Default)]
pub(crate) struct Seen {
    /// Bytes per device.
    pub devices: BTreeMap<String, f64>,
    /// Instants of the points, one per run of points in the same second.
    pub times: Vec<f64>,
    /// Bytes per thread.
    pub threads: HashMap<u32, f64>,
}

/// What every visit of one pass shares.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shared<'a> {
    /// The bundle's zone.
    pub zone: &'a Zone,
    /// The bundle's context.
    pub ctx: &'a Context,
    /// Start of the bundle's main window (after the first anchoring).
    pub bundle_start: Option<f64>,
    /// perf time -> epoch offset.
    pub perf_offset: Option<PerfOffset>,
    /// The fill pass (totals, notes and resets are counted once, there).
    pub filling: bool,
}

impl Input {
    /// Visits `file` (the `index`th of the bundle) through its adapter; returns how it was
    /// anchored. The zone disagreement of a file is a warning of the first pass, given once.
    pub(crate) fn visit(
        &mut self,
        index: usize,
        file: &ParsedFile,
        s: &Shared<'_>,
        out: &mut Effects,
        warnings: &mut Vec<String>,
        sink: &mut dyn Sink,
    ) -> Option<(Anchoring, f64)> {
        let adapter = source::of(file.data.as_ref()?);
        let own = own_zone(&file.name, s, adapter.own_zone());
        if let Some((_, warning)) = &own
            && !s.filling
            && !self.zone_noted
        {
            self.zone_noted = true;
            warnings.push(warning.clone());
        }
        let mut v = Visit {
            index,
            file,
            zone: own.as_ref().map_or(s.zone, |(z, _)| z),
            ctx: s.ctx,
            fallback: Fallback::of(&file.base, s.zone, s.bundle_start),
            perf_offset: s.perf_offset,
            uses: &self.uses,
            filling: s.filling,
            out,
        };
        adapter.visit(&mut v, sink)
    }
}

/// The zone file `name` states for itself when it differs from the bundle's fixed offset
/// (the file's own word wins; the disagreement is a warning), with that warning. An IANA
/// bundle zone (`--tz Europe/Berlin`) already follows the CET/CEST a file prints.
fn own_zone(name: &str, s: &Shared<'_>, stated: Option<(i32, String)>) -> Option<(Zone, String)> {
    let (off, zone_name) = stated?;
    let ZoneRule::Fixed(bundle) = s.zone.rule else { return None };
    if bundle == off {
        return None;
    }
    let hours = f64::from((off - bundle).abs()) / 3600.0;
    let warning = format!(
        "{}: the file says its times are {zone_name} ({}), the bundle's zone is {} ({}): its times are read in its own zone; the two are {hours} h apart (check the capturing hosts' TZ settings)",
        name,
        Zone::offset_text(off),
        s.zone.name,
        s.zone.source
    );
    let zone = Zone {
        offset_s: off,
        rule: ZoneRule::Fixed(off),
        name: zone_name,
        source: format!("its own header ({name})"),
        assumed: false,
    };
    Some((zone, warning))
}
