//! The analysis pipeline of one bundle: parse every file (in parallel),
//! decide the time zone, anchor every source on one UTC clock, fill the 1 s
//! timeline, then hand it to the analysis and the rules.

pub mod captures;
pub mod dayfirst;
pub mod fill;
pub mod lines;
pub mod window;

pub use crate::source::{Context, ParsedFile, Sourced, ThreadTotal, parse_file};
pub use lines::LineIndex;

use crate::bundle::Bundle;
use crate::clock::{Anchoring, Zone, ZoneEvidence};
use crate::table::Timeline;
use rayon::prelude::*;
use std::collections::BTreeMap;

/// Options of an analysis run.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `--tz`: the zone rule and the text given.
    pub tz: Option<(crate::clock::ZoneRule, String)>,
    /// `--from`, resolved against the capture once its zone and range are known.
    pub from: Option<crate::clock::window::TimeSpec>,
    /// `--to`, likewise.
    pub to: Option<crate::clock::window::TimeSpec>,
    /// `--display-tz`: the zone times are shown in (report, charts, summary).
    pub display_tz: DisplayTz,
    /// `--taxonomy`: overrides of the write-source categories.
    pub taxonomy: crate::attribution::Taxonomy,
}

/// `--display-tz`: which zone the report, charts and summary show times in.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum DisplayTz {
    /// UTC (the default: what findings.json uses).
    #[default]
    Utc,
    /// The capturing host's zone, as the clock decided it.
    Host,
    /// A zone the user named.
    Zone(crate::clock::ZoneRule, String),
}

impl DisplayTz {
    /// Parses `utc`, `host` or a zone name/offset.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "utc" => Ok(DisplayTz::Utc),
            "host" | "capture" | "local" => Ok(DisplayTz::Host),
            _ => crate::clock::parse_tz(s).map(|r| DisplayTz::Zone(r, s.trim().to_string())),
        }
    }
}

/// How one file's times were anchored.
#[derive(Debug, Clone, Copy)]
pub struct FileClock {
    /// Method.
    pub anchoring: Anchoring,
    /// Uncertainty in seconds.
    pub uncertainty_s: f64,
    /// First anchored instant.
    pub first: f64,
    /// Last anchored instant.
    pub last: f64,
}

/// Everything the pipeline produced before the rules.
#[derive(Debug)]
pub struct Pipeline {
    /// Parsed files in bundle order.
    pub files: Vec<ParsedFile>,
    /// Anchoring per file (same order; `None` for files without times).
    pub clocks: Vec<Option<FileClock>>,
    /// Notes per file (e.g. "not used for attribution: ...").
    pub notes: Vec<Option<String>>,
    /// The bundle's zone.
    pub zone: Zone,
    /// Clock warnings for the report.
    pub clock_warnings: Vec<String>,
    /// The 1 s timeline.
    pub timeline: Timeline,
    /// Context gathered from the files (kernel, mounts, sysctl, variables, thread map, ...).
    pub ctx: Context,
    /// pidstat write totals per thread id.
    pub threads: BTreeMap<u32, ThreadTotal>,
    /// Input lines behind the evidence-bearing timeline cells.
    pub lines: LineIndex,
    /// Index of the binlog file used.
    pub binlog: Option<usize>,
    /// perf time -> epoch offset and how it was found.
    pub perf_offset: Option<(f64, Anchoring)>,
    /// Why `--from`/`--to` could not be applied (reversed, empty or outside the capture).
    pub window_error: Option<String>,
    /// The captures the input holds: one, unless its files do not belong together
    /// ([`captures::of`]).
    pub captures: Vec<captures::Capture>,
}

/// Parsed files with their clocks: what `inspect` needs, without the timeline.
#[derive(Debug)]
pub struct Anchored {
    /// Parsed files in bundle order.
    pub files: Vec<ParsedFile>,
    /// Anchoring per file (same order; `None` for files without times).
    pub clocks: Vec<Option<FileClock>>,
    /// The bundle's zone.
    pub zone: Zone,
    /// Clock warnings.
    pub warnings: Vec<String>,
}

/// Parses every file, gathers the context, decides the zone and settles day-first
/// dates (their warnings are the last item).
fn prepare(bundle: &Bundle, opts: &Options) -> (Vec<ParsedFile>, Context, Zone, ZoneEvidence, Vec<String>) {
    let mut files: Vec<ParsedFile> = bundle.files.par_iter().map(parse_file).collect();
    let mut ctx = Context::gather(&files);
    ctx.taxonomy = opts.taxonomy.clone();
    let mut ev = ZoneEvidence { cli: opts.tz.clone(), ..Default::default() };
    crate::source::context::zone_evidence(&files, &mut ev);
    let zone = ev.decide();
    let mut warnings = Vec::new();
    if dayfirst::any_ambiguous(&files) {
        // `03/11/26`: a first anchoring tells whether the bundle's other dates say 3 November.
        let day_first = {
            let mut probe = fill::Filler::new(&files, &zone, &ctx);
            let clocks = probe.anchor_all();
            dayfirst::decide(&files, &clocks)
        };
        for (i, why) in day_first {
            dayfirst::read_day_first(&mut files[i]);
            warnings.push(why);
        }
    }
    (files, ctx, zone, ev, warnings)
}

/// Seconds kept before the first sample of a densest part: its rates cover the interval
/// before it (up to an hour: `pidstat 1800` states rates over 30 minutes).
const LEAD_S: f64 = crate::table::timeline::MAX_FILL_S;

/// Seconds per row tried for a capture longer than one timeline of 1 s rows: round
/// figures, so that rows fall on whole minutes and hours.
const BINS: [u32; 14] = [2, 3, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1800, 3600];

/// The row width for a capture `need` times longer than one timeline of 1 s rows holds:
/// the widest of [`BINS`] that is at least `need` and at most `finest` (the finest
/// source's gap between samples, [`fill::Filler::finest_cadence`]), so that a row holds
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

/// Parses a bundle and anchors every file's times (no timeline is filled).
pub fn anchor(bundle: &Bundle, opts: &Options) -> Anchored {
    let (files, ctx, mut zone, _, mut warnings) = prepare(bundle, opts);
    let clocks = {
        let mut filler = fill::Filler::new(&files, &zone, &ctx);
        let clocks = filler.anchor_all();
        warnings.append(&mut filler.warnings);
        clocks
    };
    let start = clocks.iter().flatten().map(|c| c.first).fold(f64::INFINITY, f64::min);
    if start.is_finite() {
        zone.offset_s = zone.rule.offset_at(start as i64);
    }
    Anchored { files, clocks, zone, warnings }
}

/// What the memory budgets did to a file, from its variant (`reports_merged`: iostat and
/// pidstat reports merged; `snapshots_thinned`: `TS` snapshots kept one in k).
fn budget_warnings(name: &str, variant: &iosift_parsers::common::Variant) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(m) = variant.get("reports_merged") {
        let k = m.split_whitespace().next().unwrap_or(m);
        out.push(format!(
            "{name}: too long to keep every report in memory, so its reports were merged {k} to 1 as it was read: each value is an average over {k} reports, and bursts shorter than that are flattened (split the file to keep every report)"
        ));
    }
    if let Some(m) = variant.get("snapshots_thinned") {
        let k = m.trim_start_matches("1 in ").split_whitespace().next().unwrap_or(m);
        out.push(format!(
            "{name}: too long to keep every snapshot in memory, so one snapshot in {k} was kept as it was read: counters are differenced over {k} snapshots, gauges are sampled every {k} snapshots, and bursts shorter than that are flattened (split the file to keep every snapshot)"
        ));
    }
    out
}

/// What [`run_with`] keeps of the parsed files once the timeline is filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Every file's records (`iosift tables` writes each source's own table from them).
    All,
    /// Only the records read after the fill ([`crate::source::read_after_fill`]: perf,
    /// binlog, replication status, state snapshots); the other files keep their name,
    /// counts, variant and diagnostics, and `data` becomes `None`. The records of a long
    /// capture are freed while the timeline is filled (`analyze`).
    ReadAfterFill,
}

/// Runs parsing, clock and timeline for a bundle, keeping every file's records.
pub fn run(bundle: &Bundle, opts: &Options) -> Pipeline {
    run_with(bundle, opts, Keep::All)
}

/// Runs parsing, clock and timeline for a bundle, keeping what `keep` says.
pub fn run_with(bundle: &Bundle, opts: &Options, keep: Keep) -> Pipeline {
    let (mut files, ctx, mut zone, ev, day_first) = prepare(bundle, opts);
    let mut clock_warnings = Vec::new();
    if zone.assumed {
        clock_warnings.push(ev.assumed_warning());
    }
    clock_warnings.extend(day_first);
    if opts.tz.is_none() && matches!(zone.rule, crate::clock::ZoneRule::Iana(_)) {
        clock_warnings.push(format!("the capture crosses a daylight saving time change: {}", zone.source));
    }
    // A file too long for memory at its own interval was read at a coarser one.
    clock_warnings.extend(files.iter().flat_map(|f| budget_warnings(&f.name, &f.variant)));
    let mut filler = fill::Filler::new(&files, &zone, &ctx);
    let clocks = filler.anchor_all();
    clock_warnings.append(&mut filler.warnings);
    let captures = captures::of(&files, &clocks, &filler.excluded);
    let (start, end) = clocks
        .iter()
        .zip(&filler.excluded)
        .filter_map(|(c, x)| c.as_ref().filter(|_| !x))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), c| (a.min(c.first), b.max(c.last)));
    let timed = start.is_finite();
    let (mut start, mut end) = if timed { (start, end) } else { (0.0, 0.0) };
    // A span longer than the timeline holds (unless --from/--to say which part): rows of a
    // wider bin when every source samples at least that coarsely (nothing is lost), else the
    // densest part at 1 s.
    let cap = crate::table::timeline::max_len(estimated_columns(filler.device_count()));
    let mut bin = 1;
    let t = |e: f64| crate::clock::epoch_rfc3339(e.floor()).unwrap_or_default();
    if timed && opts.from.is_none() && opts.to.is_none() && end - start > cap as f64 {
        let finest = filler.finest_cadence(&clocks);
        // Rows of the inclusive span, plus one for a start inside its first second.
        if let (Some(b), Some(finest)) = (wider_bin((end - start + 2.0) / cap as f64, finest), finest) {
            bin = b;
            clock_warnings.push(format!(
                "the capture spans {:.1} days ({} .. {}), longer than one timeline holds at 1 s rows ({:.1} h for its columns); every source samples every {:.0} s or more, so the timeline has rows of {b} s covering all of it: a rate is its mean over the row's seconds, a gauge its last sample; use --from/--to for 1 s rows of a part",
                (end - start) / 86400.0,
                t(start),
                t(end),
                cap as f64 / 3600.0,
                finest,
            ));
        } else {
            let instants = filler.sample_instants(&clocks);
            if let Some((a, b, n)) = window::densest(&instants, cap as f64 - 2.0 * LEAD_S) {
                clock_warnings.push(format!(
                    "the capture spans {:.1} days ({} .. {}), longer than one timeline holds ({:.1} h of 1 s rows for its columns): the timeline keeps the densest part, {} .. {} ({n} of {} seconds with data); use --from/--to for another part",
                    (end - start) / 86400.0,
                    t(start),
                    t(end),
                    cap as f64 / 3600.0,
                    t(a),
                    t(b),
                    instants.len()
                ));
                (start, end) = ((a - LEAD_S).max(start), b.min(end));
            }
        }
    }
    clock_warnings.extend(ev.cli_disagreement(timed.then_some(start as i64)));
    let offset_at_start = zone.rule.offset_at(start as i64);
    let (start, end, window_error) =
        match crate::clock::window::resolve_window(opts.from.as_ref(), opts.to.as_ref(), &zone, start, end) {
            Ok((a, b)) => (a, b, None),
            Err(e) => (start, end, Some(e)),
        };
    // Without any wall time there is no timeline (not one row at 1970-01-01).
    let mut timeline = if timed { Timeline::binned(start, end.max(start), bin) } else { Timeline::default() };
    timeline.len = timeline.len.min(cap);
    if (end - start) as i64 > timeline.seconds() {
        clock_warnings.push(format!(
            "the capture spans {:.0} s; the timeline keeps the first {} s (use --from/--to)",
            end - start,
            timeline.seconds()
        ));
    }
    let release = |f: &ParsedFile| keep == Keep::ReadAfterFill && !crate::source::read_after_fill(f);
    let mut filler = fill::fill_releasing(filler.rebind(&[]), &mut files, &mut timeline, release);
    clock_warnings.append(&mut filler.warnings);
    clock_warnings.extend(timeline.rejected_warnings());
    let notes = filler.notes.clone();
    let threads = filler.take_threads();
    let mut lines = std::mem::take(&mut filler.lines);
    lines.finish();
    let binlog = filler.chosen_binlog();
    let perf_offset = filler.perf_offset.map(|(o, a, _)| (o, a));
    drop(filler);
    zone.offset_s = offset_at_start;
    Pipeline {
        files,
        clocks,
        notes,
        zone,
        clock_warnings,
        timeline,
        ctx,
        threads,
        lines,
        binlog,
        perf_offset,
        window_error,
        captures,
    }
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

    #[test]
    fn a_budget_variant_becomes_a_warning_with_its_factor() {
        let mut v = iosift_parsers::common::Variant::new();
        assert!(budget_warnings("x", &v).is_empty());
        v.insert("reports_merged", iosift_parsers::common::sysstat::merged_variant(8));
        v.insert("snapshots_thinned", iosift_parsers::procfs::ts_budget::thinned_variant(4));
        let w = budget_warnings("meminfo.ts", &v);
        assert_eq!(w.len(), 2);
        assert!(
            w[0].starts_with("meminfo.ts: too long to keep every report") && w[0].contains("merged 8 to 1"),
            "{}",
            w[0]
        );
        assert!(
            w[1].contains("one snapshot in 4 was kept") && w[1].contains("every 4 snapshots"),
            "{}",
            w[1]
        );
    }
}
