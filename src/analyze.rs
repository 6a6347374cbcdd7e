//! From a bundle to a report: runs the pipeline, the analysis views
//! ([`Views`]), then the rules on what is available
//! ([`rules::Available`]), and assembles the [`Report`] model.

use crate::analysis::Views;
use crate::bundle::Bundle;
use crate::model::*;
use crate::pipeline::{self, Options, Pipeline};
use crate::rules;

fn inventory(p: &Pipeline) -> Vec<InputInfo> {
    p.files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let c = p.clocks[i];
            let mut diagnostics = f.diagnostics.clone();
            diagnostics.truncate(20);
            InputInfo {
                path: f.name.clone(),
                format: f.format,
                records: f.records,
                lines: f.lines,
                skipped_lines: f.skipped_lines,
                anchored_by: c.map(|c| c.anchoring.as_str()),
                uncertainty_s: c.map(|c| c.uncertainty_s),
                variant: f.variant.clone(),
                diagnostics,
                diagnostics_total: f.diagnostics.len(),
                note: p.notes[i].clone().or_else(|| {
                    f.format.is_none().then(|| match iosift_parsers::common::pt_stalk::unread(&f.base) {
                        Some(what) => format!("pt-stalk collector file: {what}"),
                        None => "not recognised as any supported format".to_string(),
                    })
                }),
            }
        })
        .collect()
}

/// Runs the whole analysis of a bundle.
pub fn analyze(bundle: &Bundle, opts: &Options) -> Report {
    // The series are read through the timeline: their records are freed as it fills.
    let p = pipeline::run_with(bundle, opts, pipeline::Keep::ReadAfterFill);
    let records = rules::inputs::records(&p);
    let views = Views::compute(&p.timeline, &p.ctx, &p.threads, &p.zone, &records);
    // Files of several captures: no rule runs, a finding would mix their evidence.
    let mixed = p.captures.len() > 1;
    let (mut findings, checked, measures) = if mixed {
        (Vec::new(), Vec::new(), Default::default())
    } else {
        let a = rules::Available::new(&p, &records, &views);
        let (findings, checked) = rules::evaluate(&a);
        (findings, checked, rules::measure(&a))
    };
    findings.sort_by(|a, b| {
        b.severity.cmp(&a.severity).then(b.confidence.total_cmp(&a.confidence)).then(a.rule.cmp(b.rule))
    });
    let tl = &p.timeline;
    let lacked: Vec<String> = checked.iter().flat_map(|c| c.missing.iter().cloned()).collect();
    let main_device = views.device.map(|d| d.name);
    let system = crate::system::of(&p.ctx, tl, main_device.as_deref(), &lacked);
    let doc = FindingsDoc {
        iosift_version: env!("CARGO_PKG_VERSION").to_string(),
        bundle: BundleInfo {
            name: bundle.name.clone(),
            inputs: inventory(&p),
            problems: bundle
                .problems
                .iter()
                .cloned()
                .chain(mixed.then(|| crate::bundle::Problem {
                    name: bundle.name.clone(),
                    message: crate::pipeline::captures::refusal(&p.captures, &bundle.name, None),
                }))
                .collect(),
        },
        clock: ClockInfo {
            timezone: p.zone.name.clone(),
            timezone_source: p.zone.source.clone(),
            start: (tl.len > 1).then(|| rfc3339(tl.t0)),
            end: (tl.len > 1).then(|| rfc3339(tl.epoch(tl.len - 1) + tl.bin() - 1)),
            bin_s: tl.bin(),
            warnings: p.clock_warnings.clone(),
            perf_offset_s: p.perf_offset.map(|(o, _)| o),
            perf_anchored_by: p.perf_offset.map(|(_, a)| a.as_str()),
        },
        findings,
        checked,
        episodes: views.episodes.clone(),
        galera: views.galera.clone(),
    };
    let state = crate::state::gather(&p);
    let shared = crate::analysis::shared::Shared::gather(&records, &p.ctx, &p.zone, &p.timeline);
    let display = display_zone(&p, &opts.display_tz);
    let host = display_zone(&p, &crate::pipeline::DisplayTz::Host);
    let window_error = p.window_error.clone();
    let captures = p.captures.clone();
    Report {
        doc,
        // Moved, not copied: the timeline is the largest thing the report holds.
        timeline: p.timeline,
        main_device,
        periodicity: views.periodicity,
        correlations: views.correlations,
        write_sources: views.write_sources,
        flames: views.flames,
        fsync_shares: views.fsync_shares,
        stacks: views.stacks,
        perf_heat: views.perf_heat,
        binlog: views.binlog,
        problems: bundle.problems.clone(),
        state,
        display,
        host,
        window_error,
        system,
        captures,
        measures,
        context: p.ctx,
        shared,
    }
}

/// The zone of `--display-tz` for this bundle (`host` is the zone the clock decided).
fn display_zone(p: &Pipeline, choice: &crate::pipeline::DisplayTz) -> crate::clock::DisplayZone {
    use crate::pipeline::DisplayTz;
    match choice {
        DisplayTz::Utc => crate::clock::DisplayZone::default(),
        DisplayTz::Host => crate::clock::DisplayZone {
            rule: p.zone.rule,
            label: if p.zone.assumed {
                "UTC (host zone unknown)".into()
            } else {
                format!("{} (host)", p.zone.name)
            },
        },
        DisplayTz::Zone(rule, name) => crate::clock::DisplayZone { rule: *rule, label: name.clone() },
    }
}

/// The error when nothing in the bundle is a capture iosift can read (no input recognised
/// with records): names what was given and each file with why it was not used.
pub fn nothing_readable(report: &Report, given: &str) -> Option<String> {
    let inputs = &report.doc.bundle.inputs;
    if inputs.iter().any(|i| i.format.is_some() && i.records > 0) {
        return None;
    }
    const SHOWN: usize = 6;
    let mut why: Vec<String> = inputs
        .iter()
        .take(SHOWN)
        .map(|i| {
            let reason = match (i.format, &i.note) {
                (Some(f), _) => format!("{f} with no records"),
                (None, Some(n)) => n.clone(),
                (None, None) => "not recognised".into(),
            };
            format!("{} ({reason})", i.path)
        })
        .collect();
    if inputs.len() > SHOWN {
        why.push(format!("and {} more", inputs.len() - SHOWN));
    }
    why.extend(report.problems.iter().take(SHOWN).map(|p| format!("{}: {}", p.name, p.message)));
    let files = match inputs.len() {
        1 => "1 file".to_string(),
        n => format!("{n} files"),
    };
    let list = if why.is_empty() { String::new() } else { format!(": {}", why.join("; ")) };
    Some(format!("nothing in {given} is a capture iosift can read ({files}{list})"))
}
