//! `iosift batch`: every bundle under the given folders, analyzed in
//! parallel, one report each plus an overview (`index.html`, `summary.json`)
//! and one tidy long Parquet dataset of every bundle's timeline
//! (`dataset/bundle=<name>/timeline.parquet`, read as one table by DuckDB or Spark).
//! A broken bundle becomes a row with its error; the batch goes on.

use crate::bundle::{self, Limits, sanitize_file_name};
use crate::pipeline::Options;
use crate::report::BatchRow;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// The bundles under a folder: each subfolder and each archive; the folder
/// itself when it holds neither (a single capture).
pub fn discover(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else { return vec![dir.to_path_buf()] };
    let mut entries: Vec<PathBuf> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
        let is_archive = [".tar.gz", ".tgz", ".tar", ".zip"].iter().any(|e| name.ends_with(e));
        let is_dir = p.symlink_metadata().map(|m| m.is_dir()).unwrap_or(false);
        if is_dir || is_archive {
            out.push(p);
        }
    }
    if out.is_empty() {
        out.push(dir.to_path_buf());
    }
    out
}

/// Runs the batch with progress on stderr; returns the rows written to the overview.
pub fn run(
    dirs: &[PathBuf],
    out: &Path,
    jobs: usize,
    opts: &Options,
    limits: &Limits,
) -> anyhow::Result<Vec<BatchRow>> {
    run_with(dirs, out, jobs, opts, limits, false)
}

/// Runs the batch; `quiet` drops the progress bar and the per-bundle lines.
pub fn run_with(
    dirs: &[PathBuf],
    out: &Path,
    jobs: usize,
    opts: &Options,
    limits: &Limits,
    quiet: bool,
) -> anyhow::Result<Vec<BatchRow>> {
    use anyhow::Context as _;
    let bundles: Vec<PathBuf> = dirs.iter().flat_map(|d| discover(d)).collect();
    std::fs::create_dir_all(out)
        .with_context(|| format!("cannot create the output folder {}", out.display()))?;
    let bar = if quiet {
        None
    } else if std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(bundles.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} bundles {elapsed} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        Some(b)
    } else {
        None
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs.max(1)).build()?;
    // Unique, safe folder names (two bundles may share a name in different folders).
    let mut names: Vec<String> = Vec::new();
    for b in &bundles {
        let base = bundle::bundle_name(std::slice::from_ref(b));
        let mut n = sanitize_file_name(&base);
        let mut k = 2;
        while names.contains(&n) {
            n = format!("{}-{k}", sanitize_file_name(&base));
            k += 1;
        }
        names.push(n);
    }
    let rows: Vec<BatchRow> = pool.install(|| {
        use rayon::prelude::*;
        let per_bundle: Vec<Vec<BatchRow>> = bundles
            .par_iter()
            .zip(names.par_iter())
            .map(|(path, dir_name)| {
                let rows = one(path, dir_name, out, opts, limits);
                match &bar {
                    Some(b) => {
                        b.set_message(dir_name.clone());
                        b.inc(1);
                    }
                    None if quiet => {}
                    None => {
                        for row in &rows {
                            let what = row.error.as_deref().map_or_else(
                                || format!("{} findings", row.findings),
                                |e| format!("error: {e}"),
                            );
                            eprintln!("iosift batch: {}: {what}", row.dir_name);
                        }
                    }
                }
                rows
            })
            .collect();
        per_bundle.into_iter().flatten().collect()
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    crate::report::write_batch_index(&rows, out)?;
    Ok(rows)
}

/// Analyzes one bundle path; a folder holding several pt-stalk samples gives one row per sample.
fn one(path: &Path, dir_name: &str, out: &Path, opts: &Options, limits: &Limits) -> Vec<BatchRow> {
    let empty = |dir_name: String| BatchRow {
        bundle: path.display().to_string(),
        dir_name,
        top_rule: None,
        severity: None,
        summary: None,
        period_s: None,
        findings: 0,
        inputs: 0,
        error: None,
    };
    let b = match bundle::load(&[path.to_path_buf()], limits) {
        Ok(b) => b,
        Err(e) => {
            let mut row = empty(dir_name.to_string());
            row.error = Some(e.to_string());
            return vec![row];
        }
    };
    let parts = bundle::split_pt_stalk(b);
    let several = parts.len() > 1;
    parts
        .into_iter()
        .map(|b| {
            let name = if several {
                sanitize_file_name(&format!("{dir_name}-{}", b.name.rsplit('-').next().unwrap_or("")))
            } else {
                dir_name.to_string()
            };
            let mut row = empty(name.clone());
            let report = crate::analyze::analyze(&b, opts);
            if let Some(e) = report
                .window_error
                .clone()
                .or_else(|| crate::analyze::nothing_readable(&report, &path.display().to_string()))
            {
                row.inputs = report.doc.bundle.inputs.len();
                row.error = Some(e);
                return row;
            }
            row.inputs = report.doc.bundle.inputs.len();
            row.findings = report.doc.findings.len();
            if let Some(f) = report.doc.findings.first() {
                row.top_rule = Some(f.rule.to_string());
                row.severity = Some(format!("{:?}", f.severity).to_lowercase());
                row.summary = Some(f.summary.clone());
            }
            row.period_s = report
                .periodicity
                .as_ref()
                .and_then(|p| p.period_s)
                .filter(|_| report.doc.findings.iter().any(|f| f.rule == "periodic_write_bursts"));
            if let Err(e) = crate::output::write_all(&report, &out.join(&name)) {
                row.error = Some(format!("writing the report failed: {e:#}"));
            } else if let Err(e) = crate::output::write_dataset_part(&report, &out.join("dataset"), &name) {
                row.error = Some(format!("writing the dataset failed: {e:#}"));
            }
            row
        })
        .collect()
}
