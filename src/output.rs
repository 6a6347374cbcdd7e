//! Writing an analysis: the report folder (findings.json, tables, and the
//! HTML/chart renderers of [`crate::report`] when present) and the terminal
//! summary; and `iosift tables`.

use crate::bundle::Bundle;
use crate::model::Report;
use crate::pipeline::{self, Options};
use crate::table::{self, LongTable, TableFormat};
use iosift_parsers::Data;
use std::path::{Path, PathBuf};

/// Writes everything of a report under `dir` (created if needed); returns the files written.
pub fn write_all(report: &Report, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    let fj = dir.join("findings.json");
    std::fs::write(&fj, serde_json::to_string_pretty(&report.doc)? + "\n")?;
    written.push(fj);
    let tdir = dir.join("tables");
    std::fs::create_dir_all(&tdir)?;
    let mut df = table::timeline_frame(&report.timeline)?;
    written.push(table::write_frame(&mut df, &tdir, "timeline", TableFormat::Parquet)?);
    Ok(written)
}

/// The terminal summary after `analyze`.
pub fn terminal_summary(report: &Report, dir: &Path, files_written: usize) -> String {
    use std::fmt::Write;
    let d = &report.doc;
    let inputs = &d.bundle.inputs;
    let recognised = inputs.iter().filter(|i| i.format.is_some()).count();
    let skipped: usize = inputs.iter().map(|i| i.skipped_lines).sum();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "iosift {}: bundle {} — {} files, {} recognised, {} lines skipped; clock {} ({})",
        d.iosift_version,
        d.bundle.name,
        inputs.len(),
        recognised,
        skipped,
        d.clock.timezone,
        d.clock.timezone_source
    );
    if let (Some(a), Some(b)) = (&d.clock.start, &d.clock.end) {
        let _ = writeln!(s, "timeline {a} .. {b}");
    }
    for w in &d.clock.warnings {
        let _ = writeln!(s, "note: {w}");
    }
    if d.findings.is_empty() {
        let _ = writeln!(s, "no findings");
    }
    for f in &d.findings {
        let _ = writeln!(s, "[{:?}] {} ({:.2}): {}", f.severity, f.rule, f.confidence, f.summary);
    }
    for c in &d.checked {
        let why = c.reason.clone().unwrap_or_else(|| format!("missing {}", c.missing.join(", ")));
        let _ = writeln!(s, "  {} {}: {}", c.outcome, c.rule, why);
    }
    for p in &report.problems {
        let _ = writeln!(s, "problem: {}: {}", p.name, p.message);
    }
    let _ = writeln!(s, "report: {} ({files_written} files)", dir.display());
    s
}

/// `iosift tables`: one frame per source plus the timeline.
pub fn write_tables(
    bundle: &Bundle,
    opts: &Options,
    dir: &Path,
    format: TableFormat,
) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let p = pipeline::run(bundle, opts);
    let mut written = Vec::new();
    let mut df = table::timeline_frame(&p.timeline)?;
    written.push(table::write_frame(&mut df, dir, "timeline", format)?);
    for (i, f) in p.files.iter().enumerate() {
        let Some(t) = source_table(&p, i) else { continue };
        if t.is_empty() {
            continue;
        }
        let stem = format!("{:03}-{}", i, crate::bundle::sanitize_file_name(&f.base));
        let mut df = table::long_frame(&t)?;
        written.push(table::write_frame(&mut df, dir, &stem, format)?);
    }
    Ok(written)
}

/// A source as a long table (time, entity, metric, value), using the pipeline's clock.
fn source_table(p: &pipeline::Pipeline, i: usize) -> Option<LongTable> {
    let f = &p.files[i];
    let mut t = LongTable::default();
    match f.data.as_ref()? {
        Data::ProcMeminfo(s) | Data::ProcVmstat(s) => {
            for snap in &s.snapshots {
                let Some(ts) = snap.ts else { continue };
                for (k, v) in &snap.values {
                    t.push(ts.epoch, "", k, Some(*v as f64));
                }
            }
        }
        Data::Mysqlbinlog(b) => {
            for s in b.per_second() {
                let e = match s.sec {
                    iosift_parsers::mysqlbinlog::SecondKey::Epoch(e) => e as f64,
                    iosift_parsers::mysqlbinlog::SecondKey::Local(n) => p.zone.local_to_epoch(n),
                };
                t.push(e, "", "transactions", Some(s.transactions as f64));
                t.push(e, "", "bytes", Some(s.bytes as f64));
                t.push(e, "", "rows", Some(s.rows as f64));
            }
        }
        _ => {
            // Sources binned on the timeline: their columns, as a long table.
            for (name, s) in &p.timeline.columns {
                if s.source != f.name {
                    continue;
                }
                for (r, v) in s.values.iter().enumerate() {
                    if v.is_some() {
                        t.push(p.timeline.epoch(r) as f64, "", name, *v);
                    }
                }
            }
        }
    }
    Some(t)
}
