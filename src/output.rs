//! Writing an analysis: the report folder (the renderers of
//! [`crate::report`] plus the timeline table), and `iosift tables`.

use crate::bundle::Bundle;
use crate::model::Report;
use crate::pipeline::{self, Options};
use crate::table::{self, LongTable, TableFormat};
use anyhow::Context as _;
use iosift_parsers::Data;
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

/// Writes everything of a report under `dir` (created if needed): the HTML
/// report, findings.json, charts and flame graphs, and the timeline table.
pub fn write_all(report: &Report, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the report folder {}", dir.display()))?;
    let mut written = crate::report::write_report(report, dir)
        .with_context(|| format!("writing the report in {}", dir.display()))?;
    let tdir = dir.join("tables");
    std::fs::create_dir_all(&tdir).with_context(|| format!("cannot create {}", tdir.display()))?;
    let mut df = table::timeline_frame(&report.timeline)?;
    written.push(
        table::write_frame(&mut df, &tdir, "timeline", TableFormat::Parquet)
            .with_context(|| format!("writing {}", tdir.join("timeline.parquet").display()))?,
    );
    Ok(written)
}

/// `iosift tables`: one frame per source plus the timeline.
pub fn write_tables(
    bundle: &Bundle,
    opts: &Options,
    dir: &Path,
    format: TableFormat,
) -> anyhow::Result<Vec<PathBuf>> {
    let p = pipeline::run(bundle, opts);
    if let Some(e) = &p.window_error {
        return Err(WindowError(e.clone()).into());
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the tables folder {}", dir.display()))?;
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
