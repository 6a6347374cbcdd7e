//! `iosift diff A B`: what changed between two captures. Each capture is
//! analysed on its own clock; the two are aligned at their starts (or at
//! `--align-a` / `--align-b`) and compared over the same number of seconds.
//! The result is [`DiffDoc`] (`diff.json`, documented in docs/diff.md) and a
//! self-contained HTML page ([`html`]).
//!
//! Ranked changes: findings that appear or vanish, then the measures of
//! [`measures`] by how much they moved (|ln(b/a)|; a value present on one side
//! only, or zero on one side, ranks as appeared/vanished), then the context
//! facts of [`context`] that differ.

pub mod context;
mod headline;
pub(crate) mod html;
pub mod measures;
mod summary;

pub use summary::summary;

use crate::clock::window::TimeSpec;
use crate::model::{Report, Severity};
use serde::Serialize;
use std::collections::BTreeMap;

/// One capture of the comparison.
pub struct Side<'a> {
    /// The analysis.
    pub report: &'a Report,
    /// Its context facts ([`context::gather`]).
    pub facts: context::Facts,
    /// Measures only the context holds ([`context::gather`]).
    pub extra: Vec<measures::Measure>,
    /// Where its relative time 0 is (`None`: its first second).
    pub align: Option<TimeSpec>,
}

/// `diff.json` (contract of docs/diff.md; fields may be added, never renamed).
#[derive(Debug, Clone, Serialize)]
pub struct DiffDoc {
    /// iosift's version.
    pub iosift_version: String,
    /// The first capture (the "before").
    pub a: SideInfo,
    /// The second capture (the "after").
    pub b: SideInfo,
    /// Seconds compared (from each alignment point, as long as the shorter capture).
    pub compared_s: usize,
    /// The deciding changes in words, first: findings that appeared or vanished or changed
    /// their verdict, each with its rule's measure in both captures, then the settings that
    /// differ (durability first).
    pub headline: Vec<String>,
    /// Findings that appeared, vanished or persist, ranked.
    pub findings: Vec<FindingChange>,
    /// Measured numbers, ranked by how much they changed.
    pub changes: Vec<Change>,
    /// Context facts that differ, durability variables first.
    pub context: Vec<context::ContextChange>,
    /// Context facts found equal in both.
    pub context_same: usize,
}

/// What was compared of one capture.
#[derive(Debug, Clone, Serialize)]
pub struct SideInfo {
    /// Bundle name.
    pub name: String,
    /// First second of its timeline (RFC 3339), null without times.
    pub start: Option<String>,
    /// Its relative time 0 (RFC 3339).
    pub aligned_at: Option<String>,
    /// Seconds from `start` to `aligned_at`.
    pub aligned_after_start_s: usize,
    /// The load window: seconds after `aligned_at` (start inclusive, end exclusive).
    pub load_window_s: [usize; 2],
    /// The commit column the load window was found on (null: the whole compared span).
    pub load_window_by: Option<crate::table::Col>,
    /// Rule ids of its findings.
    pub findings: Vec<&'static str>,
}

/// A measured number in both captures.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// Stable key (`db.commit_rate`, `bursts.median_bytes`, `writes.engine_redo`).
    pub key: String,
    /// What it is.
    pub label: String,
    /// Group (`device`, `bursts`, `writes`, `database`, `memory`, `replication`, `cpu`, `finding`).
    pub group: String,
    /// Unit.
    pub unit: String,
    /// Value in A (null: unknown there).
    pub a: Option<f64>,
    /// Value in B.
    pub b: Option<f64>,
    /// b / a (null when either is unknown or a is 0).
    pub ratio: Option<f64>,
    /// `changed`, `same` (within 5 %), `appeared` (only B has it, or A is 0), `vanished`.
    pub change: &'static str,
    /// Ranking score: |ln(b/a)|, 10 for appeared/vanished, 0 for same.
    pub score: f64,
    /// The measure of a finding whose verdict changed (ranked before every other change).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deciding: bool,
    /// What it is about in A (device, thread), when that varies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note_a: Option<String>,
    /// What it is about in B.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note_b: Option<String>,
    /// The input file A's value was read from (`iostat-x-t.txt`), when one file holds it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_a: Option<String>,
    /// The input file B's value was read from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_b: Option<String>,
}

/// A finding in either capture.
#[derive(Debug, Clone, Serialize)]
pub struct FindingChange {
    /// Rule id.
    pub rule: &'static str,
    /// `appeared` (only in B), `vanished` (only in A), `persists`.
    pub change: &'static str,
    /// Severity in A (null: did not fire).
    pub severity_a: Option<Severity>,
    /// Severity in B.
    pub severity_b: Option<Severity>,
    /// Summary in A.
    pub summary_a: Option<String>,
    /// Summary in B.
    pub summary_b: Option<String>,
    /// Its numeric metrics in both, ranked like [`DiffDoc::changes`].
    pub metrics: Vec<Change>,
    /// Of a finding in both: its text metrics that decide the verdict (the rule's
    /// [`crate::verdict::RuleSpec::decisive`]) and differ, such as the side bounding a replica.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub verdict_changes: Vec<TextChange>,
}

/// A text metric of a finding that differs between the captures.
#[derive(Debug, Clone, Serialize)]
pub struct TextChange {
    /// The metric key (`bound_by`).
    pub key: String,
    /// Its value in A.
    pub a: String,
    /// Its value in B.
    pub b: String,
}

impl FindingChange {
    /// Whether the verdict changed: the finding appeared or vanished, its severity moved, or
    /// a decisive text metric differs.
    pub fn decides(&self) -> bool {
        self.change != "persists" || self.severity_a != self.severity_b || !self.verdict_changes.is_empty()
    }
}

/// Score of a change that exists on one side only.
const ONE_SIDED: f64 = 10.0;

/// Below this a value present on one side only is noise, not news (0 -> 0.03 %
/// iowait): it ranks low. By unit: 1 % (of time or utilisation), 1 ms, 64 KiB/s,
/// 1 MiB, 1 per second, 1 s.
pub fn noise_floor(unit: &str) -> f64 {
    match unit {
        "%" | "ms" | "1/s" | "s" => 1.0,
        "B/s" => 65536.0,
        "B" => 1048576.0,
        _ => 0.0,
    }
}

/// Compares two values of a unit: (`changed`/`same`/`appeared`/`vanished`, score, b/a).
pub fn change_of(a: Option<f64>, b: Option<f64>, unit: &str) -> (&'static str, f64, Option<f64>) {
    let nz = |v: Option<f64>| v.is_some_and(|v| v != 0.0);
    let one_sided = |v: Option<f64>| {
        if v.is_some_and(|v| v.abs() >= noise_floor(unit)) { ONE_SIDED } else { 0.1 }
    };
    match (a, b) {
        (Some(x), Some(y)) if x != 0.0 && y != 0.0 => {
            let r = y / x;
            let s = if r > 0.0 { r.ln().abs() } else { ONE_SIDED };
            if (r - 1.0).abs() <= 0.05 { ("same", 0.0, Some(r)) } else { ("changed", s, Some(r)) }
        }
        _ if nz(a) && !nz(b) => ("vanished", one_sided(a), None),
        _ if !nz(a) && nz(b) => ("appeared", one_sided(b), None),
        _ => ("same", 0.0, None),
    }
}

fn ranked(mut v: Vec<Change>) -> Vec<Change> {
    v.sort_by(|x, y| y.deciding.cmp(&x.deciding).then(y.score.total_cmp(&x.score)).then(x.key.cmp(&y.key)));
    v
}

/// The relative time 0 of a capture: its first second, or the alignment point.
fn align_row(s: &Side<'_>) -> Result<usize, String> {
    let tl = &s.report.timeline;
    let Some(spec) = &s.align else { return Ok(0) };
    let tz = &s.report.doc.clock.timezone;
    let zone = match crate::clock::parse_tz(tz) {
        Ok(rule) => crate::clock::Zone {
            offset_s: rule.offset_at(tl.t0),
            rule,
            name: tz.clone(),
            source: String::new(),
            assumed: false,
        },
        Err(_) => crate::clock::Zone::assumed_utc(),
    };
    let (start, end) = (tl.t0 as f64, tl.epoch(tl.len.saturating_sub(1)) as f64);
    let e = spec.resolve(&zone, start, end);
    tl.row(e).ok_or_else(|| {
        format!(
            "the alignment point {} is outside {} ({} to {})",
            crate::model::rfc3339(e.floor() as i64),
            s.report.doc.bundle.name,
            crate::model::rfc3339(tl.t0),
            crate::model::rfc3339(tl.epoch(tl.len.saturating_sub(1)))
        )
    })
}

/// The measures of a side over its span, by key.
fn measured(s: &Side<'_>, span: &measures::Span) -> BTreeMap<String, measures::Measure> {
    measures::measure(s.report, span)
        .into_iter()
        .chain(s.extra.iter().cloned())
        .map(|m| (m.key.clone(), m))
        .collect()
}

/// Compares two analysed captures. Errors: an alignment point outside its capture, or
/// timelines with rows of different widths (a capture of days binned wider than the other).
pub fn diff(a: &Side<'_>, b: &Side<'_>) -> Result<DiffDoc, String> {
    let (bin_a, bin_b) = (a.report.timeline.bin(), b.report.timeline.bin());
    if bin_a != bin_b {
        return Err(format!(
            "A's timeline has rows of {bin_a} s and B's of {bin_b} s: a capture of days sampled coarsely is binned wider; compare it with another of the same kind, or analyse a part of it at 1 s with --from/--to"
        ));
    }
    let (ra, rb) = (align_row(a)?, align_row(b)?);
    let len = (a.report.timeline.len - ra).min(b.report.timeline.len - rb);
    let (sa, sb) = (measures::span(a.report, ra..ra + len), measures::span(b.report, rb..rb + len));
    let (ma, mb) = (measured(a, &sa), measured(b, &sb));
    let mut keys: Vec<&String> = ma.keys().chain(mb.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut changes = Vec::new();
    for k in keys {
        let (x, y) = (ma.get(k), mb.get(k));
        let (va, vb) = (x.and_then(|m| m.value), y.and_then(|m| m.value));
        if va.is_none() && vb.is_none() {
            continue;
        }
        let Some(any) = x.or(y) else { continue };
        let (change, score, ratio) = change_of(va, vb, any.unit);
        changes.push(Change {
            key: k.clone(),
            label: any.label.clone(),
            group: any.group.to_string(),
            unit: any.unit.to_string(),
            a: va,
            b: vb,
            ratio,
            change,
            score,
            deciding: false,
            note_a: x.and_then(|m| m.note.clone()),
            note_b: y.and_then(|m| m.note.clone()),
            source_a: x.and_then(|m| m.source.clone()),
            source_b: y.and_then(|m| m.source.clone()),
        });
    }
    let (context, context_same) = context::diff(&a.facts, &b.facts);
    let findings = findings(a.report, b.report);
    // The measures of the findings whose verdict changed rank first.
    for f in findings.iter().filter(|f| f.decides()) {
        let key = crate::rules::spec(f.rule).and_then(|s| s.measure);
        changes.iter_mut().filter(|c| Some(c.key.as_str()) == key).for_each(|c| c.deciding = true);
    }
    let changes = ranked(changes);
    Ok(DiffDoc {
        iosift_version: env!("CARGO_PKG_VERSION").to_string(),
        a: side_info(a, ra, &sa),
        b: side_info(b, rb, &sb),
        compared_s: len * bin_a as usize,
        headline: headline::of(&findings, &changes, &context),
        findings,
        changes,
        context,
        context_same,
    })
}

fn side_info(s: &Side<'_>, row: usize, span: &measures::Span) -> SideInfo {
    let tl = &s.report.timeline;
    let timed = tl.len > 1;
    SideInfo {
        name: s.report.doc.bundle.name.clone(),
        start: timed.then(|| crate::model::rfc3339(tl.t0)),
        aligned_at: timed.then(|| crate::model::rfc3339(tl.epoch(row))),
        aligned_after_start_s: row * tl.bin() as usize,
        load_window_s: match (span.load.first(), span.load.last()) {
            (Some(a), Some(z)) => [(a - row) * tl.bin() as usize, (z + 1 - row) * tl.bin() as usize],
            _ => [0, 0],
        },
        load_window_by: span.load_by().cloned(),
        findings: s.report.doc.findings.iter().map(|f| f.rule).collect(),
    }
}

/// Findings of both captures: appeared and vanished first (by severity), then those in
/// both whose verdict changed (severity, a decisive text metric), then the others by how
/// much their metrics moved.
fn findings(a: &Report, b: &Report) -> Vec<FindingChange> {
    let mut rules: Vec<&'static str> = a.doc.findings.iter().chain(&b.doc.findings).map(|f| f.rule).collect();
    rules.sort();
    rules.dedup();
    let mut out: Vec<(f64, FindingChange)> = rules
        .into_iter()
        .map(|rule| {
            let fa = a.doc.findings.iter().find(|f| f.rule == rule);
            let fb = b.doc.findings.iter().find(|f| f.rule == rule);
            let num =
                |f: Option<&crate::model::Finding>, k: &str| f.and_then(|f| f.metrics.get(k)?.value.as_f64());
            let mut names: Vec<&str> =
                fa.iter().chain(fb.iter()).flat_map(|f| f.metrics.keys().copied()).collect();
            names.sort();
            names.dedup();
            let metrics: Vec<Change> = names
                .into_iter()
                .filter_map(|k| {
                    let (x, y) = (num(fa, k), num(fb, k));
                    if x.is_none() && y.is_none() {
                        return None;
                    }
                    let (change, score, ratio) = change_of(x, y, "");
                    Some(Change {
                        key: format!("{rule}.{k}"),
                        label: k.replace('_', " "),
                        group: "finding".into(),
                        unit: String::new(),
                        a: x,
                        b: y,
                        ratio,
                        change,
                        score,
                        deciding: false,
                        note_a: None,
                        note_b: None,
                        source_a: None,
                        source_b: None,
                    })
                })
                .collect();
            let change = match (fa, fb) {
                (Some(_), None) => "vanished",
                (None, Some(_)) => "appeared",
                _ => "persists",
            };
            let text = |f: Option<&crate::model::Finding>, k: &str| {
                f.and_then(|f| f.metrics.get(k)?.value.as_str().map(str::to_string))
            };
            let decisive = crate::rules::spec(rule).map_or(&[][..], |s| s.decisive);
            let verdict_changes: Vec<TextChange> = match (fa, fb) {
                (Some(_), Some(_)) => decisive
                    .iter()
                    .filter_map(|k| {
                        let (x, y) = (text(fa, k), text(fb, k));
                        (x != y).then(|| TextChange {
                            key: k.to_string(),
                            a: x.unwrap_or_else(|| "none".into()),
                            b: y.unwrap_or_else(|| "none".into()),
                        })
                    })
                    .collect(),
                _ => Vec::new(),
            };
            let fc = FindingChange {
                rule,
                change,
                severity_a: fa.map(|f| f.severity),
                severity_b: fb.map(|f| f.severity),
                summary_a: fa.map(|f| f.summary.clone()),
                summary_b: fb.map(|f| f.summary.clone()),
                metrics: ranked(metrics),
                verdict_changes,
            };
            let sev = fa.or(fb).map_or(0.0, |f| f.severity as u8 as f64);
            let score = if change != "persists" {
                ONE_SIDED * 10.0 + sev
            } else if fc.decides() {
                ONE_SIDED * 5.0 + sev
            } else {
                fc.metrics.iter().map(|m| m.score).fold(0.0, f64::max).min(ONE_SIDED - 1.0)
            };
            (score, fc)
        })
        .collect();
    // The most severe first, then by how much the verdict changed.
    let worst = |f: &FindingChange| f.severity_a.max(f.severity_b);
    out.sort_by(|x, y| {
        let rank = |f: &(f64, FindingChange)| (f.1.decides(), worst(&f.1));
        rank(y).cmp(&rank(x)).then(y.0.total_cmp(&x.0)).then(x.1.rule.cmp(y.1.rule))
    });
    out.into_iter().map(|x| x.1).collect()
}

/// Writes `diff.json` and `index.html` into `dir`; returns the paths written.
pub fn write(
    doc: &DiffDoc,
    a: &Report,
    b: &Report,
    dir: &std::path::Path,
) -> anyhow::Result<Vec<std::path::PathBuf>> {
    use crate::outdir::{Kind, Origin, Target};
    write_to(doc, a, b, &Target::explicit(dir, Origin::new(Kind::Diff, &[])))
}

/// [`write`] into `target` (an explicit `-o` or the default folder, see [`crate::outdir::Target`]).
pub fn write_to(
    doc: &DiffDoc,
    a: &Report,
    b: &Report,
    target: &crate::outdir::Target,
) -> anyhow::Result<Vec<std::path::PathBuf>> {
    use anyhow::Context as _;
    // Like a report: written into a staging folder beside the target, put in place, with the
    // marker that says the folder is ours (a non-empty folder of the user's is refused).
    let staging = crate::outdir::Staging::begin(target)?;
    let dir = staging.target().to_path_buf();
    let tmp = staging.path().to_path_buf();
    let json = tmp.join("diff.json");
    std::fs::write(&json, serde_json::to_string_pretty(doc)? + "\n")
        .with_context(|| format!("cannot write {}", json.display()))?;
    let page = tmp.join("index.html");
    std::fs::write(&page, html::render(doc, a, b))
        .with_context(|| format!("cannot write {}", page.display()))?;
    for note in staging.commit()? {
        eprintln!("iosift: {}", crate::term::safe(&note));
    }
    Ok(vec![dir.join("diff.json"), dir.join("index.html")])
}

/// The default output folder: `reports/diff-<A>-<B>` (sanitised names).
pub fn default_dir(a: &str, b: &str) -> std::path::PathBuf {
    std::path::PathBuf::from("reports").join(crate::bundle::sanitize_file_name(&format!("diff-{a}-{b}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_scored_by_log_ratio_and_one_sidedness() {
        assert_eq!(change_of(Some(100.0), Some(103.0), "1/s").0, "same");
        let (c, s, r) = change_of(Some(1653.0), Some(13.5), "1/s");
        assert_eq!(c, "changed");
        assert!((s - (1653.0f64 / 13.5).ln()).abs() < 1e-9 && r.is_some());
        assert_eq!(change_of(Some(5.0), None, "1/s"), ("vanished", ONE_SIDED, None));
        assert_eq!(change_of(Some(5.0), Some(0.0), "1/s").0, "vanished");
        assert_eq!(change_of(None, Some(1.0), "").0, "appeared");
        assert_eq!(change_of(Some(0.0), Some(0.0), "%").0, "same");
        // 0 -> 0.03 % iowait appears, but ranks below any real change.
        assert_eq!(change_of(Some(0.0), Some(0.03), "%"), ("appeared", 0.1, None));
    }
}
