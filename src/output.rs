//! Writing an analysis: the report folder (the renderers of
//! [`crate::report`] plus the timeline table), and `iosift tables`.

use crate::bundle::Bundle;
use crate::model::Report;
use crate::outdir::{Kind, Origin, Staging, Target};
use crate::pipeline::{self, Options};
use crate::table::{self, TableFormat};
use anyhow::Context as _;
use std::path::{Path, PathBuf};

/// `--from`/`--to` left no data (the message names the capture's range).
#[derive(Debug)]
pub struct WindowError(pub String);

impl std::fmt::Display for WindowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WindowError {}

/// Writes everything of a report into the folder `dir` (see [`crate::outdir`]: refused
/// when `dir` holds files and is not an iosift report; written beside it and put in place
/// in one step; the user's files in an earlier report are kept). Returns the files written,
/// under `dir`. The capture is not named: [`write_all_noted`] with a [`Target`] says which.
pub fn write_all(report: &Report, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let target = Target::explicit(dir, Origin::new(Kind::Analyze, &[]));
    Ok(write_all_noted(report, &target)?.0)
}

/// [`write_all`] into `target`, also giving the notes of [`crate::outdir::Staging::commit`].
pub fn write_all_noted(report: &Report, target: &Target) -> anyhow::Result<(Vec<PathBuf>, Vec<String>)> {
    let staging = Staging::begin(target)?;
    let written = write_all_into(report, staging.path())?;
    commit(staging, written)
}

/// Puts a staged folder in place; the files written, renamed to their place under the target.
fn commit(staging: Staging, written: Vec<PathBuf>) -> anyhow::Result<(Vec<PathBuf>, Vec<String>)> {
    let tmp = staging.path().to_path_buf();
    let target = staging.target().to_path_buf();
    let notes = staging.commit()?;
    let written =
        written.into_iter().map(|p| p.strip_prefix(&tmp).map(|r| target.join(r)).unwrap_or(p)).collect();
    Ok((written, notes))
}

/// Writes the report files into `dir`, a fresh folder (the batch's staging folder
/// or [`write_all`]'s). Folders are created one level at a time, never their parents:
/// when the staging folder is gone (a batch bundle past its deadline), nothing is written.
pub fn write_all_into(report: &Report, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if !dir.is_dir() {
        std::fs::create_dir(dir)
            .with_context(|| format!("cannot create the report folder {}", dir.display()))?;
    }
    let mut written = crate::report::write_report(report, dir)
        .with_context(|| format!("writing the report in {}", dir.display()))?;
    let tdir = dir.join("tables");
    if !tdir.is_dir() {
        std::fs::create_dir(&tdir).with_context(|| format!("cannot create {}", tdir.display()))?;
    }
    let inferred = report
        .doc
        .bundle
        .inputs
        .iter()
        .filter(|i| i.anchored_by.is_some_and(|a| INFERRED.contains(&a)))
        .map(|i| i.path.clone())
        .collect();
    written.push(table::write_timeline_parquet(&report.timeline, &inferred, &tdir)?);
    let mut cols = table::columns_frame(&report.timeline)?;
    written.push(table::write_frame(&mut cols, &tdir, "columns", TableFormat::Parquet)?);
    written.extend(write_stacks(&report.flames, dir)?);
    Ok(written)
}

/// Writes the folded stacks of the perf scripts into `dir/stacks/` ([`crate::report::flame::folded_files`]):
/// input for flamegraph.pl, inferno-flamegraph, speedscope or difffolded.
fn write_stacks(flames: &[crate::analysis::views::FlameInput], dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let files = crate::report::flame::folded_files(flames);
    if files.is_empty() {
        return Ok(Vec::new());
    }
    let sdir = dir.join("stacks");
    if !sdir.is_dir() {
        std::fs::create_dir(&sdir).with_context(|| format!("cannot create {}", sdir.display()))?;
    }
    let mut written = Vec::new();
    for (name, text) in files {
        let path = sdir.join(name);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// The `anchored_by` values of inferred times.
const INFERRED: [&str; 2] = [
    crate::clock::Anchoring::BundleStartInterval.as_str(),
    crate::clock::Anchoring::BannerDateInterval.as_str(),
];

/// Writes a bundle's timeline as one tidy long Parquet file into a dataset shared by
/// several bundles: `<dataset>/bundle=<name>/timeline.parquet` (hive partitioning:
/// DuckDB, Spark and polars read the folder as one table with a `bundle` column).
pub fn write_dataset_part(report: &Report, dataset: &Path, bundle: &str) -> anyhow::Result<PathBuf> {
    let dir = dataset.join(format!("bundle={}", crate::bundle::sanitize_file_name(bundle)));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut df = table::timeline_long_frame(&report.timeline)?;
    table::write_frame(&mut df, &dir, "timeline", TableFormat::Parquet)
}

/// `iosift tables`: one frame per source plus the timeline.
pub fn write_tables(
    bundle: &Bundle,
    opts: &Options,
    dir: &Path,
    format: TableFormat,
) -> anyhow::Result<Vec<PathBuf>> {
    Ok(write_tables_with_warnings(bundle, opts, dir, format)?.0)
}

/// [`write_tables`], also giving the clock warnings (ambiguous zone, inferred times, files left out).
pub fn write_tables_with_warnings(
    bundle: &Bundle,
    opts: &Options,
    dir: &Path,
    format: TableFormat,
) -> anyhow::Result<(Vec<PathBuf>, Vec<String>)> {
    let (written, mut warnings, notes) =
        write_tables_to(bundle, opts, &Target::explicit(dir, Origin::new(Kind::Tables, &[])), format)?;
    warnings.extend(notes);
    Ok((written, warnings))
}

/// [`write_tables_with_warnings`] into `target`: the files written, the clock warnings and
/// the notes of [`crate::outdir::Staging::commit`] on the output folder.
pub fn write_tables_to(
    bundle: &Bundle,
    opts: &Options,
    target: &Target,
    format: TableFormat,
) -> anyhow::Result<(Vec<PathBuf>, Vec<String>, Vec<String>)> {
    let mut p = pipeline::run(bundle, opts);
    if let Some(e) = &p.window_error {
        return Err(WindowError(e.clone()).into());
    }
    let staging = Staging::begin(target)?;
    let dir = staging.path().to_path_buf();
    let dir = dir.as_path();
    let inferred = p
        .files
        .iter()
        .zip(&p.clocks)
        .filter(|(_, c)| c.is_some_and(|c| c.anchoring.is_inferred()))
        .map(|(f, _)| f.name.clone())
        .collect();
    let mut written = Vec::new();
    if format == TableFormat::Parquet {
        written.push(table::write_timeline_parquet(&p.timeline, &inferred, dir)?);
    } else {
        let mut df = table::timeline_frame_marked(&p.timeline, &inferred)?;
        written.push(table::write_frame(&mut df, dir, "timeline", format)?);
    }
    let mut cols = table::columns_frame(&p.timeline)?;
    written.push(table::write_frame(&mut cols, dir, "columns", format)?);
    let records = crate::rules::inputs::records(&p);
    written.extend(write_stacks(&crate::analysis::views::perf_views(&records.perf).0, dir)?);
    let threads: Vec<(u32, Option<u32>, String, &str, f64)> =
        p.threads.iter().map(|(tid, t)| (*tid, t.tgid, t.comm.clone(), t.category, t.bytes)).collect();
    if !threads.is_empty() {
        let mut df = table::threads_frame(&threads)?;
        written.push(table::write_frame(&mut df, dir, "threads", format)?);
    }
    // Every point each source's visitor emits (all devices, all threads), on the same clock.
    let mut ranged = pipeline::range::range_pass(std::mem::take(&mut p.files), &p.zone, &p.ctx);
    for i in 0..ranged.files.len() {
        let f = &ranged.files[i];
        let inferred = p.clocks[i].is_some_and(|c| c.anchoring.is_inferred());
        let Some(d) = &f.data else { continue };
        let raw = crate::source::of(d).raw_rows(&p.zone);
        let stem = format!("{:03}-{}", i, crate::bundle::sanitize_file_name(&f.base));
        let t = table::sources::source_table(raw, inferred, || ranged.emitted(i));
        if t.is_empty() {
            continue;
        }
        let mut df = table::long_frame(&t)?;
        written.push(table::write_frame(&mut df, dir, &stem, format)?);
    }
    let (written, notes) = commit(staging, written)?;
    Ok((written, p.clock_warnings, notes))
}
