//! The analysis pipeline of one bundle: parse every file (in parallel),
//! decide the time zone, then three steps over owned values, in the order
//! their types force: [`range::range_pass`] anchors every source on one UTC
//! clock, [`plan::plan`] sizes the timeline, [`fill::fill`] fills it; then the
//! analysis and the rules take it.

pub mod caps;
pub mod captures;
pub(crate) mod fill;
pub(crate) mod input;
pub(crate) mod lines;
pub(crate) mod plan;
pub(crate) mod range;
pub(crate) mod window;

pub use crate::clock::FileClock;
pub use crate::source::{Context, ParsedFile, Sourced, ThreadTotal, parse_file};
pub use lines::LineIndex;

use crate::bundle::Bundle;
use crate::clock::{Anchoring, Zone, ZoneEvidence};
use crate::source::dayfirst;
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
        let probe = range::range_pass(files, &zone, &ctx);
        let day_first = dayfirst::decide(&probe.files, &probe.clocks());
        files = probe.files;
        for (i, why) in day_first {
            dayfirst::read_day_first(&mut files[i]);
            warnings.push(why);
        }
    }
    (files, ctx, zone, ev, warnings)
}

/// Parses a bundle and anchors every file's times (no timeline is filled).
pub fn anchor(bundle: &Bundle, opts: &Options) -> Anchored {
    let (files, ctx, mut zone, _, mut warnings) = prepare(bundle, opts);
    let (files, clocks) = {
        let mut ranged = range::range_pass(files, &zone, &ctx);
        warnings.append(&mut ranged.warnings);
        let clocks = ranged.clocks();
        (ranged.files, clocks)
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
    let (files, ctx, mut zone, ev, day_first) = prepare(bundle, opts);
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
    let release = |f: &ParsedFile| keep == Keep::ReadAfterFill && !crate::source::read_after_fill(f);
    let ranged = range::range_pass(files, &zone, &ctx);
    let mut filled = fill::fill(plan::plan(ranged, opts, &ev), release);
    clock_warnings.append(&mut filled.warnings);
    clock_warnings.extend(filled.timeline.rejected_warnings());
    let fill::Filled {
        files, inputs, timeline, threads, mut lines, perf_offset, captures, window_error, ..
    } = filled;
    lines.finish();
    let binlog = inputs.iter().position(|x| x.uses.contains(&crate::source::Measure::Binlog));
    zone.offset_s = filled.offset_at_start;
    let (clocks, notes) = inputs.into_iter().map(|x| (x.clock, x.note)).unzip();
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
        perf_offset: perf_offset.map(|(o, a, _)| (o, a)),
        window_error,
        captures,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
