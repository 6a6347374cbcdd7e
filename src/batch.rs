//! `iosift batch`: every bundle under the given folders, analyzed in
//! parallel, one report each plus an overview (`index.html`, `summary.json`)
//! and one tidy long Parquet dataset of every bundle's timeline
//! (`dataset/bundle=<name>/timeline.parquet`, read as one table by DuckDB or Spark).
//! A broken bundle becomes a row with its error; the batch goes on.

use crate::bundle::{self, Limits, sanitize_file_name};
use crate::outdir::{Kind, Origin, Staging, Target};
use crate::pipeline::Options;
use crate::report::BatchRow;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// The file name endings of the archives a folder's entries may be (lower case; the
/// `.tar.*` forms before `.tar`, so the first match is the whole extension).
pub(crate) const ARCHIVE_EXTENSIONS: [&str; 11] =
    [".tar.gz", ".tgz", ".tar.zst", ".tzst", ".tar.xz", ".txz", ".tar.bz2", ".tbz2", ".tar", ".zip", ".7z"];

/// The bundles under a folder: each subfolder and each archive; the folder
/// itself when it holds neither (a single capture).
pub fn discover(dir: &Path) -> Vec<PathBuf> {
    discover_except(dir, None)
}

/// [`discover`], leaving out iosift's own report folders (they hold the marker) and
/// `output`, the folder the batch writes (`iosift batch . ` writes `./reports`).
pub fn discover_except(dir: &Path, output: Option<&Path>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let output = output.and_then(|o| o.canonicalize().ok());
    let Ok(rd) = std::fs::read_dir(dir) else { return vec![dir.to_path_buf()] };
    let mut entries: Vec<PathBuf> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
        let is_archive = ARCHIVE_EXTENSIONS.iter().any(|e| name.ends_with(e));
        let is_dir = p.symlink_metadata().map(|m| m.is_dir()).unwrap_or(false);
        let ours = is_dir
            && (crate::outdir::is_report_folder(&p)
                || output.as_deref().is_some_and(|o| p.canonicalize().is_ok_and(|c| c == o))
                || (name.starts_with('.') && name.contains(".iosift-")));
        if (is_dir || is_archive) && !ours {
            out.push(p);
        }
    }
    if out.is_empty() && !crate::outdir::is_report_folder(dir) {
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
    run_timed(dirs, out, jobs, opts, limits, quiet, DEFAULT_DEADLINE)
}

/// How long one bundle may take by default (`--bundle-timeout`).
pub const DEFAULT_DEADLINE: std::time::Duration = std::time::Duration::from_secs(600);

/// Names a batch writes at the top of its output folder: no bundle folder takes them.
const RESERVED: [&str; 4] = ["index.html", "summary.json", "summary.md", "dataset"];

/// Runs the batch, giving each bundle at most `deadline` (a bundle past it becomes a
/// row with that error; its work is abandoned and ends with the process).
///
/// The output folder follows [`crate::outdir`]: refused when it holds files and is not
/// an iosift batch, written beside it and put in place when every bundle is done.
pub fn run_timed(
    dirs: &[PathBuf],
    out: &Path,
    jobs: usize,
    opts: &Options,
    limits: &Limits,
    quiet: bool,
    deadline: std::time::Duration,
) -> anyhow::Result<Vec<BatchRow>> {
    let target = Target::explicit(out, Origin::new(Kind::Batch, dirs));
    // The folder first: its name is known then, and the bundles never include it.
    let staging = Staging::begin(&target)?;
    let out = staging.target().to_path_buf();
    let bundles: Vec<PathBuf> = dirs.iter().flat_map(|d| discover_except(d, Some(&out))).collect();
    let stage = staging.path().to_path_buf();
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
    // Unique, safe folder names (two bundles may share a name in different folders),
    // never one of the overview's own names.
    let mut names: Vec<String> = Vec::new();
    for b in &bundles {
        let base = sanitize_file_name(&bundle::bundle_name(std::slice::from_ref(b)));
        let n = bundle::unique_name(&base, "", |n| names.iter().any(|x| x == n) || RESERVED.contains(&n));
        names.push(n);
    }
    // Names of pt-stalk samples split later must not take a sibling's name either.
    let taken = std::sync::Arc::new(std::sync::Mutex::new(
        names.iter().cloned().chain(RESERVED.iter().map(|s| s.to_string())).collect::<Vec<String>>(),
    ));
    let rows: Vec<BatchRow> = pool.install(|| {
        use rayon::prelude::*;
        let per_bundle: Vec<Vec<BatchRow>> = bundles
            .par_iter()
            .zip(names.par_iter())
            .map(|(path, dir_name)| {
                let rows = one_with_deadline(path, dir_name, &stage, opts, limits, &taken, deadline);
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
                            eprintln!(
                                "iosift batch: {}",
                                crate::term::safe(&format!("{}: {what}", row.dir_name))
                            );
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
    crate::report::write_batch_index(&rows, &stage)?;
    for n in staging.commit()? {
        eprintln!("iosift batch: {}", crate::term::safe(&n));
    }
    Ok(rows)
}

/// Names already used in the batch output folder.
type Taken = std::sync::Arc<std::sync::Mutex<Vec<String>>>;

/// A row with nothing filled in yet.
fn empty_row(path: &Path, dir_name: String) -> BatchRow {
    BatchRow { bundle: path.display().to_string(), dir_name, ..Default::default() }
}

/// [`one`] on its own thread, given up after `deadline`.
fn one_with_deadline(
    path: &Path,
    dir_name: &str,
    out: &Path,
    opts: &Options,
    limits: &Limits,
    taken: &Taken,
    deadline: std::time::Duration,
) -> Vec<BatchRow> {
    let (tx, rx) = std::sync::mpsc::channel();
    let (p, d, o, op, l, t) = (
        path.to_path_buf(),
        dir_name.to_string(),
        out.to_path_buf(),
        opts.clone(),
        limits.clone(),
        taken.clone(),
    );
    let spawned = std::thread::Builder::new().name(format!("bundle {dir_name}")).spawn(move || {
        let _ = tx.send(one(&p, &d, &o, &op, &l, &t));
    });
    let mut row = empty_row(path, dir_name.to_string());
    if let Err(e) = spawned {
        row.error = Some(format!("cannot start its analysis: {e}"));
        return vec![row];
    }
    match rx.recv_timeout(deadline) {
        Ok(rows) => rows,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            row.error = Some(format!(
                "not finished after {} s: given up (raise with --bundle-timeout)",
                deadline.as_secs()
            ));
            vec![row]
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            row.error =
                Some("its analysis stopped with an internal error (a panic); please report it".into());
            vec![row]
        }
    }
}

/// Analyzes one bundle path; a folder holding several pt-stalk samples gives one row per
/// sample, and one holding the files of several captures ([`crate::pipeline::captures`]) one
/// row per capture.
fn one(
    path: &Path,
    dir_name: &str,
    out: &Path,
    opts: &Options,
    limits: &Limits,
    taken: &Taken,
) -> Vec<BatchRow> {
    let b = match bundle::load(&[path.to_path_buf()], limits) {
        Ok(b) => b,
        Err(e) => {
            let mut row = empty_row(path, dir_name.to_string());
            row.error = Some(e.to_string());
            return vec![row];
        }
    };
    let parts = bundle::split_pt_stalk(b);
    let several = parts.len() > 1;
    let mut rows = Vec::new();
    for b in parts {
        let name = if several {
            unique(taken, &format!("{dir_name}-{}", b.name.rsplit('-').next().unwrap_or("")))
        } else {
            dir_name.to_string()
        };
        let report = crate::analyze::analyze(&b, opts);
        if report.captures.len() < 2 {
            rows.push(row(path, name, report, out));
            continue;
        }
        // Captures that do not belong together: each on its own (each may hold pt-stalk
        // samples of its own).
        for (c, cb) in report.captures.iter().zip(crate::pipeline::captures::split(&b, &report.captures)) {
            let samples = bundle::split_pt_stalk(cb);
            let several = samples.len() > 1;
            for sb in samples {
                let mut cname = format!("{name}-{}", capture_dir_name(&c.name));
                if several {
                    cname = format!("{cname}-{}", sb.name.rsplit('-').next().unwrap_or(""));
                }
                let sub = crate::analyze::analyze(&sb, opts);
                let mut r = row(path, unique(taken, &cname), sub, out);
                r.bundle = format!("{} ({})", path.display(), c.name);
                rows.push(r);
            }
        }
    }
    rows
}

/// A folder name for a capture of a bundle: its folder's last part that says something
/// (`incident/a/capture` -> `a`), else its whole name.
fn capture_dir_name(name: &str) -> String {
    let parts: Vec<&str> = name.split(['/', '!']).filter(|p| !p.is_empty()).collect();
    let telling =
        parts.iter().rev().find(|p| !bundle::GENERIC_NAMES.contains(&p.to_ascii_lowercase().as_str()));
    sanitize_file_name(telling.copied().unwrap_or(name))
}

/// `base`, made safe and unique among the batch's folder names (`base-2`, ...), and taken.
fn unique(taken: &Taken, base: &str) -> String {
    let base = sanitize_file_name(base);
    let mut taken = taken.lock().unwrap_or_else(|e| e.into_inner());
    let n = bundle::unique_name(&base, "", |n| taken.iter().any(|x| x == n));
    taken.push(n.clone());
    n
}

/// The overview's row of one analyzed bundle, its report written into `out/<name>`.
fn row(path: &Path, name: String, report: crate::model::Report, out: &Path) -> BatchRow {
    let mut row = empty_row(path, name.clone());
    row.inputs = report.doc.bundle.inputs.len();
    row.problems = report.doc.bundle.problems.clone();
    if let Some(e) = report
        .window_error
        .clone()
        .or_else(|| crate::analyze::nothing_readable(&report, &path.display().to_string()))
        .or_else(|| {
            (report.captures.len() > 1).then(|| {
                crate::pipeline::captures::refusal(&report.captures, &path.display().to_string(), None)
            })
        })
    {
        row.error = Some(e);
        return row;
    }
    row.findings = report.doc.findings.len();
    row.host = report.captures.iter().find_map(|c| c.host.clone());
    let clock = &report.doc.clock;
    (row.start, row.end) = (clock.start.clone(), clock.end.clone());
    let epoch = |t: &Option<String>| {
        t.as_deref().and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok()).map(|d| d.timestamp())
    };
    if let (Some(a), Some(b)) = (epoch(&clock.start), epoch(&clock.end)) {
        // The last second counts whole: a capture of seconds 0..=89 lasted 90 s.
        row.duration_s = Some((b - a + clock.bin_s.max(1)) as f64);
    }
    let severity = |f: &crate::model::Finding| format!("{:?}", f.severity).to_lowercase();
    if let Some(f) = report.doc.findings.first() {
        row.top_rule = Some(f.rule.to_string());
        row.title = Some(crate::report::rule_title(f.rule));
        row.severity = Some(severity(f));
        row.summary = Some(f.summary.clone());
        row.number = crate::report::headline(f);
    }
    for f in &report.doc.findings {
        row.rules.entry(f.rule.to_string()).or_insert_with(|| severity(f));
    }
    row.period_s = report
        .periodicity
        .as_ref()
        .and_then(|p| p.period_s)
        .filter(|_| report.doc.findings.iter().any(|f| f.rule == "periodic_write_bursts"));
    if let Err(e) = crate::output::write_all_into(&report, &out.join(&name)) {
        row.error = Some(format!("writing the report failed: {e:#}"));
    } else if let Err(e) = crate::output::write_dataset_part(&report, &out.join("dataset"), &name) {
        row.error = Some(format!("writing the dataset failed: {e:#}"));
    } else {
        row.report = Some(format!("{name}/index.html"));
    }
    row
}
