//! The plan: from the range pass, the span the timeline covers (the whole
//! capture, rows of a wider bin, its densest part, or `--from`/`--to`), its
//! row width and length, and the captures the input holds.

use super::range::Ranged;
use super::{Options, captures, window};
use crate::clock::ZoneEvidence;
use crate::table::Timeline;

/// The bundle after the plan: the range pass's result and the empty timeline to fill.
#[derive(Debug)]
pub(crate) struct Planned<'a> {
    /// The range pass's result.
    pub ranged: Ranged<'a>,
    /// The timeline, sized, not filled.
    pub timeline: Timeline,
    /// The captures the input holds ([`captures::of`]).
    pub captures: Vec<captures::Capture>,
    /// Why `--from`/`--to` could not be applied (reversed, empty or outside the capture).
    pub window_error: Option<String>,
    /// The zone's offset at the capture's start (before `--from`/`--to`).
    pub offset_at_start: i32,
    /// Clock warnings of the range pass, then of the plan.
    pub warnings: Vec<String>,
}

/// Seconds kept before the first sample of a densest part: its rates cover the interval
/// before it (up to an hour: `pidstat 1800` states rates over 30 minutes).
const LEAD_S: f64 = crate::table::timeline::MAX_FILL_S;

/// Seconds per row tried for a capture longer than one timeline of 1 s rows: round
/// figures, so that rows fall on whole minutes and hours.
const BINS: [u32; 14] = [2, 3, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1800, 3600];

/// The row width for a capture `need` times longer than one timeline of 1 s rows holds:
/// the widest of [`BINS`] that is at least `need` and at most `finest` (the finest
/// source's gap between samples, [`Ranged::finest_cadence`]), so that a row holds
/// about one sample of the finest source and nothing finer is averaged away; `None` when
/// no bin fits, and the timeline keeps its densest part at 1 s rows.
fn wider_bin(need: f64, finest: Option<f64>) -> Option<u32> {
    let finest = finest?;
    BINS.iter().rev().copied().find(|b| f64::from(*b) >= need && f64::from(*b) <= finest)
}

/// Columns a timeline of `devices` devices may get: every device metric of iostat
/// and diskstats per device, and 64 for the other sources (CPU, memory, paging,
/// write categories, PSI, binlog: a few dozen in real bundles). An estimate: too
/// many would cut a 4-day pidstat log of a dozen columns to its densest 36 h.
fn estimated_columns(devices: usize) -> usize {
    use crate::table::columns::{DevMetric, DsMetric};
    devices * (DevMetric::ALL.len() + DsMetric::ALL.len()) + 64
}

/// Plans the timeline of a ranged bundle: its captures, span, row width and length.
pub(crate) fn plan<'a>(mut ranged: Ranged<'a>, opts: &Options, ev: &ZoneEvidence) -> Planned<'a> {
    let mut warnings = std::mem::take(&mut ranged.warnings);
    let zone = ranged.shared.zone;
    let captures = captures::of(&ranged.files, &ranged.clocks(), &ranged.excluded());
    let (start, end) = ranged
        .inputs
        .iter()
        .filter_map(|x| x.clock.as_ref().filter(|_| !x.excluded))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), c| (a.min(c.first), b.max(c.last)));
    let timed = start.is_finite();
    let (start, end) = if timed { (start, end) } else { (0.0, 0.0) };
    let cap = crate::table::timeline::max_len(estimated_columns(ranged.device_count()));
    let ((start, end), bin) = if timed && opts.from.is_none() && opts.to.is_none() && end - start > cap as f64
    {
        long_span(&ranged, start, end, cap, &mut warnings)
    } else {
        ((start, end), 1)
    };
    warnings.extend(ev.cli_disagreement(timed.then_some(start as i64)));
    let offset_at_start = zone.rule.offset_at(start as i64);
    let (start, end, window_error) =
        match crate::clock::window::resolve_window(opts.from.as_ref(), opts.to.as_ref(), zone, start, end) {
            Ok((a, b)) => (a, b, None),
            Err(e) => (start, end, Some(e)),
        };
    // Without any wall time there is no timeline (not one row at 1970-01-01).
    let mut timeline = if timed { Timeline::binned(start, end.max(start), bin) } else { Timeline::default() };
    timeline.len = timeline.len.min(cap);
    if (end - start) as i64 > timeline.seconds() {
        warnings.push(format!(
            "the capture spans {:.0} s; the timeline keeps the first {} s (use --from/--to)",
            end - start,
            timeline.seconds()
        ));
    }
    Planned { ranged, timeline, captures, window_error, offset_at_start, warnings }
}

/// A span longer than the timeline holds (unless --from/--to say which part): rows of a
/// wider bin when every source samples at least that coarsely (nothing is lost), else the
/// densest part at 1 s. Returns the span kept and the row width.
fn long_span(
    r: &Ranged<'_>,
    start: f64,
    end: f64,
    cap: usize,
    warnings: &mut Vec<String>,
) -> ((f64, f64), u32) {
    let t = |e: f64| crate::clock::epoch_rfc3339(e.floor()).unwrap_or_default();
    let finest = r.finest_cadence();
    // Rows of the inclusive span, plus one for a start inside its first second.
    if let (Some(b), Some(finest)) = (wider_bin((end - start + 2.0) / cap as f64, finest), finest) {
        warnings.push(format!(
            "the capture spans {:.1} days ({} .. {}), longer than one timeline holds at 1 s rows ({:.1} h for its columns); every source samples every {:.0} s or more, so the timeline has rows of {b} s covering all of it: a rate is its mean over the row's seconds, a gauge its last sample; use --from/--to for 1 s rows of a part",
            (end - start) / 86400.0,
            t(start),
            t(end),
            cap as f64 / 3600.0,
            finest,
        ));
        return ((start, end), b);
    }
    let instants = r.sample_instants();
    let Some((a, b, n)) = window::densest(&instants, cap as f64 - 2.0 * LEAD_S) else {
        return ((start, end), 1);
    };
    warnings.push(format!(
        "the capture spans {:.1} days ({} .. {}), longer than one timeline holds ({:.1} h of 1 s rows for its columns): the timeline keeps the densest part, {} .. {} ({n} of {} seconds with data); use --from/--to for another part",
        (end - start) / 86400.0,
        t(start),
        t(end),
        cap as f64 / 3600.0,
        t(a),
        t(b),
        instants.len()
    ));
    (((a - LEAD_S).max(start), b.min(end)), 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wider_bin_holds_about_one_sample_of_the_finest_source() {
        // 30 days of 10-minute samples, 7.7 times what 1 s rows hold: rows of 10 minutes.
        assert_eq!(wider_bin(7.7, Some(600.0)), Some(600));
        // A collector waking a second early now and then: the next round figure below.
        assert_eq!(wider_bin(7.7, Some(599.0)), Some(300));
        // A 1 s source (or 1 s runs inside a coarse one): no wider bin, the densest part.
        assert_eq!(wider_bin(1.5, Some(1.0)), None);
        assert_eq!(wider_bin(7.7, Some(5.0)), None);
        assert_eq!(wider_bin(2.5, Some(5.0)), Some(5));
        // Longer than hourly rows hold, or no source with a cadence.
        assert_eq!(wider_bin(4000.0, Some(7200.0)), None);
        assert_eq!(wider_bin(2.0, None), None);
    }
}
