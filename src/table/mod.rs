//! Tables: all polars code of iosift. Per-source frames (each with a UTC
//! `time` column) and the 1 s [`Timeline`] as a frame, written as Parquet or
//! CSV.
//!
//! Binning and rates are computed on plain vectors in [`timeline`] (they are
//! simple loops over a few thousand seconds); polars holds the results as
//! typed frames and writes them. This keeps the polars feature set (and the
//! build) small: no lazy engine, no joins, no temporal kernels.

pub(crate) mod cell;
pub mod columns;
pub(crate) mod sources;
pub mod timeline;

pub use cell::Cell;
pub use columns::Col;
pub use sources::RawRow;
pub use timeline::Timeline;

use polars::prelude::*;
use std::path::Path;

/// Output format of `iosift tables`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TableFormat {
    /// Apache Parquet.
    Parquet,
    /// Comma-separated values with a header.
    Csv,
}

/// A long-format table of one source: time, entity (device, thread, key), metric, value.
#[derive(Debug, Clone, Default)]
pub struct LongTable {
    /// Epoch milliseconds.
    pub time_ms: Vec<i64>,
    /// Device, thread id, counter group, `system`, ... (what the value is about).
    pub entity: Vec<String>,
    /// Metric name.
    pub metric: Vec<String>,
    /// Value.
    pub value: Vec<Option<f64>>,
    /// Seconds the value is measured over (rates: the interval ending at `time`; 0 for
    /// gauges and snapshots).
    pub interval_s: Vec<f64>,
    /// The times were inferred, not read (the frame gets a `time_inferred` column).
    pub time_inferred: bool,
}

impl LongTable {
    /// Appends one value (a gauge or snapshot: interval 0).
    pub fn push(&mut self, epoch: f64, entity: &str, metric: &str, value: Option<f64>) {
        self.push_over(epoch, 0.0, entity, metric, value);
    }

    /// Appends one value measured over the `interval_s` seconds ending at `epoch`.
    pub fn push_over(&mut self, epoch: f64, interval_s: f64, entity: &str, metric: &str, value: Option<f64>) {
        self.time_ms.push((epoch * 1000.0).round() as i64);
        self.entity.push(if entity.is_empty() { "system".to_string() } else { entity.to_string() });
        self.metric.push(metric.to_string());
        self.value.push(value);
        self.interval_s.push(interval_s);
    }

    /// Appends a value under its timeline name, split into entity and metric
    /// (`dev.vda.w_bytes_s` -> `vda`, `dev_w_bytes_s`; `mem.dirty_bytes` -> `system`, `mem_dirty_bytes`).
    pub fn push_named(&mut self, epoch: f64, interval_s: f64, name: &str, value: Option<f64>) {
        let (entity, metric) = split_name(name);
        self.push_over(epoch, interval_s, &entity, &metric, value);
    }

    /// Rows.
    pub fn len(&self) -> usize {
        self.time_ms.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.time_ms.is_empty()
    }
}

/// A timeline name without dots or other characters that need quoting in SQL:
/// `dev.vda.w_bytes_s` -> `dev_vda_w_bytes_s`, `dev.dm-0.util_pct` -> `dev_dm_0_util_pct`
/// (the mapping is written next to the tables as `columns.<ext>` and documented in
/// docs/tables.md).
pub fn output_name(internal: &str) -> String {
    let s: String = internal
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' })
        .collect();
    if s.starts_with(|c: char| c.is_ascii_digit()) { format!("c_{s}") } else { s }
}

/// `family.entity.metric` -> (`entity`, `family_metric`); `family.metric` -> (``, `family_metric`).
pub fn split_name(name: &str) -> (String, String) {
    let parts: Vec<&str> = name.split('.').collect();
    match parts.as_slice() {
        [fam, mid @ .., last] if !mid.is_empty() => (mid.join("."), output_name(&format!("{fam}_{last}"))),
        _ => (String::new(), output_name(name)),
    }
}

/// Output names of the timeline's columns, in name order, made unique, with the
/// internal (dotted) name.
fn output_names(tl: &Timeline) -> Vec<(String, String, &timeline::Series)> {
    let mut seen = std::collections::BTreeSet::new();
    tl.iter()
        .map(|(col, s)| {
            let name = col.name();
            let base = output_name(&name);
            let mut n = base.clone();
            let mut k = 2;
            while !seen.insert(n.clone()) {
                n = format!("{base}_{k}");
                k += 1;
            }
            (n, name, s)
        })
        .collect()
}

/// The column mapping of a timeline frame: `column` (as in the table), `timeline_name`
/// (the internal dotted name of earlier versions), `unit`, `source` (input file).
pub fn columns_frame(tl: &Timeline) -> PolarsResult<DataFrame> {
    let names = output_names(tl);
    let n = names.len();
    DataFrame::new(
        n,
        vec![
            Column::new("column".into(), names.iter().map(|(o, _, _)| o.clone()).collect::<Vec<_>>()),
            Column::new("timeline_name".into(), names.iter().map(|(_, i, _)| i.clone()).collect::<Vec<_>>()),
            Column::new("unit".into(), names.iter().map(|(_, _, s)| s.unit.as_str()).collect::<Vec<_>>()),
            Column::new("source".into(), names.iter().map(|(_, _, s)| s.source.clone()).collect::<Vec<_>>()),
        ],
    )
}

/// The timeline as one tidy long frame (`time`, `entity`, `metric`, `value`, `unit`),
/// every non-empty cell a row: what `batch` writes into its dataset.
pub fn timeline_long_frame(tl: &Timeline) -> PolarsResult<DataFrame> {
    let (mut t, mut units) = (LongTable::default(), Vec::new());
    for (col, s) in tl.iter() {
        let name = col.name();
        for (r, v) in s.values.iter().enumerate() {
            if let Some(v) = v.get() {
                t.push_named(tl.epoch(r) as f64, tl.bin() as f64, &name, Some(v));
                units.push(s.unit.as_str());
            }
        }
    }
    let mut df = long_frame(&t)?;
    df.with_column(Column::new("unit".into(), units))?;
    Ok(df)
}

/// Per-thread totals: `tid`, `tgid`, `name`, `category`, `written_bytes` (pidstat charges).
pub fn threads_frame(rows: &[(u32, Option<u32>, String, &str, f64)]) -> PolarsResult<DataFrame> {
    DataFrame::new(
        rows.len(),
        vec![
            Column::new("tid".into(), rows.iter().map(|r| r.0).collect::<Vec<_>>()),
            Column::new("tgid".into(), rows.iter().map(|r| r.1).collect::<Vec<_>>()),
            Column::new("name".into(), rows.iter().map(|r| r.2.clone()).collect::<Vec<_>>()),
            Column::new("category".into(), rows.iter().map(|r| r.3).collect::<Vec<_>>()),
            Column::new("written_bytes".into(), rows.iter().map(|r| r.4).collect::<Vec<_>>()),
        ],
    )
}

fn utc_time_column(ms: Vec<i64>) -> PolarsResult<Column> {
    Ok(Int64Chunked::from_vec("time".into(), ms)
        .into_datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC))
        .into_series()
        .into())
}

/// A source frame: `time` (UTC datetime), `entity`, `metric`, `value`, `interval_s`, plus
/// `time_inferred` (all true) when the source's times were inferred.
pub fn long_frame(t: &LongTable) -> PolarsResult<DataFrame> {
    let mut cols = vec![
        utc_time_column(t.time_ms.clone())?,
        Column::new("entity".into(), t.entity.clone()),
        Column::new("metric".into(), t.metric.clone()),
        Column::new("value".into(), t.value.clone()),
        Column::new("interval_s".into(), t.interval_s.clone()),
    ];
    if t.time_inferred {
        cols.push(Column::new("time_inferred".into(), vec![true; t.len()]));
    }
    DataFrame::new(t.len(), cols)
}

/// The timeline as a frame: `time` (UTC datetime, the first second of each row), `bin_s`
/// (seconds per row) when the rows are wider than a second, then one column per metric,
/// named by [`output_name`].
pub fn timeline_frame(tl: &Timeline) -> PolarsResult<DataFrame> {
    timeline_frame_marked(tl, &Default::default())
}

/// [`timeline_frame`], plus a `time_inferred` column when some columns come from
/// `inferred` sources (files without wall-clock times, e.g. iostat without `-t`):
/// true in the seconds holding a value of theirs.
pub fn timeline_frame_marked(
    tl: &Timeline,
    inferred: &std::collections::BTreeSet<String>,
) -> PolarsResult<DataFrame> {
    timeline_rows_frame(tl, inferred, 0..tl.len)
}

/// Rows `rows` of [`timeline_frame_marked`].
fn timeline_rows_frame(
    tl: &Timeline,
    inferred: &std::collections::BTreeSet<String>,
    rows: std::ops::Range<usize>,
) -> PolarsResult<DataFrame> {
    let mut cols = vec![utc_time_column(rows.clone().map(|r| tl.epoch(r) * 1000).collect())?];
    if tl.bin() > 1 {
        // Rows wider than a second (a capture of days sampled coarsely) say so on every row.
        cols.push(Column::new("bin_s".into(), vec![tl.bin(); rows.len()]));
    }
    for (out, _, s) in output_names(tl) {
        let values: Vec<Option<f64>> = s.values[rows.clone()].iter().map(Cell::get).collect();
        cols.push(Column::new(out.as_str().into(), values));
    }
    let marked: Vec<&timeline::Series> =
        tl.series_any_order().filter(|s| inferred.contains(&s.source)).collect();
    if !marked.is_empty() {
        let flags: Vec<bool> = rows.clone().map(|r| marked.iter().any(|s| s.values[r].is_some())).collect();
        cols.push(Column::new("time_inferred".into(), flags));
    }
    DataFrame::new(rows.len(), cols)
}

/// Rows per row group of `timeline.parquet`: the frame of one group is all that is
/// copied out of the timeline at a time (not the whole timeline).
const PARQUET_GROUP_ROWS: usize = 16_384;

/// Writes [`timeline_frame_marked`] as `<dir>/timeline.parquet`, one row group of
/// [`PARQUET_GROUP_ROWS`] rows at a time.
pub fn write_timeline_parquet(
    tl: &Timeline,
    inferred: &std::collections::BTreeSet<String>,
    dir: &Path,
) -> anyhow::Result<std::path::PathBuf> {
    let path = dir.join("timeline.parquet");
    let file =
        std::fs::File::create(&path).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    let first = timeline_rows_frame(tl, inferred, 0..tl.len.min(PARQUET_GROUP_ROWS))?;
    let mut w = ParquetWriter::new(file).batched(first.schema())?;
    w.write_batch(&first)?;
    drop(first);
    let mut at = PARQUET_GROUP_ROWS;
    while at < tl.len {
        let end = (at + PARQUET_GROUP_ROWS).min(tl.len);
        w.write_batch(&timeline_rows_frame(tl, inferred, at..end)?)?;
        at = end;
    }
    w.finish()?;
    Ok(path)
}

/// Writes a frame as `<dir>/<stem>.<ext>`; the stem must already be sanitised.
pub fn write_frame(
    df: &mut DataFrame,
    dir: &Path,
    stem: &str,
    format: TableFormat,
) -> anyhow::Result<std::path::PathBuf> {
    let ext = match format {
        TableFormat::Parquet => "parquet",
        TableFormat::Csv => "csv",
    };
    let path = dir.join(format!("{stem}.{ext}"));
    let file =
        std::fs::File::create(&path).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    match format {
        TableFormat::Parquet => {
            ParquetWriter::new(file).finish(df)?;
        }
        TableFormat::Csv => {
            // Times with their zone (`2026-11-29T21:05:21.000Z`: the column is UTC), so a spreadsheet
            // or a notebook never reads them as local times.
            CsvWriter::new(file)
                .include_header(true)
                .with_datetime_format(Some("%Y-%m-%dT%H:%M:%S%.3fZ".into()))
                .finish(&mut csv_safe(df)?)?;
        }
    }
    Ok(path)
}

/// True when a spreadsheet opening a CSV file would read the text as a formula (or as the
/// start of one): it begins with `=`, `+`, `-`, `@`, a tab or a carriage return.
fn formula_like(s: &str) -> bool {
    s.starts_with(['=', '+', '-', '@', '\t', '\r'])
}

/// `df` for a CSV file: text cells a spreadsheet would run as a formula (a thread named
/// `=HYPERLINK(...)`) get a `'` in front, the OWASP rule for CSV injection, so they are
/// shown as text; the writer quotes such a cell where CSV needs it (a comma, a quote, a
/// line break). Numbers, times and Parquet files keep the raw values.
fn csv_safe(df: &DataFrame) -> PolarsResult<DataFrame> {
    let mut out = df.clone();
    for c in df.columns() {
        if c.dtype() != &DataType::String || !c.str()?.iter().flatten().any(formula_like) {
            continue;
        }
        let safe: StringChunked = c
            .str()?
            .iter()
            .map(|v| v.map(|s| if formula_like(s) { format!("'{s}") } else { s.to_string() }))
            .collect();
        out.replace(c.name(), safe.with_name(c.name().clone()).into_series().into())?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::columns::{DevMetric, MemMetric};

    fn dirty() -> Col {
        Col::Mem(MemMetric::DirtyBytes)
    }

    #[test]
    fn frames_have_utc_time() {
        let mut tl = Timeline::new(1_795_981_039.0, 1_795_981_041.0);
        tl.set_gauge(&dirty(), "meminfo", 1_795_981_040.2, 5.0);
        let df = timeline_frame(&tl).unwrap();
        assert_eq!(df.height(), 3);
        assert_eq!(
            df.column("time").unwrap().dtype(),
            &DataType::Datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC))
        );
        let v = df.column("mem_dirty_bytes").unwrap().f64().unwrap().get(1);
        assert_eq!(v, Some(5.0));
    }

    #[test]
    fn timeline_parquet_in_row_groups_equals_the_whole_frame() {
        let mut tl = Timeline::new(1_000.0, 1_000.0 + 2.5 * PARQUET_GROUP_ROWS as f64);
        for r in (0..tl.len).step_by(7) {
            tl.set_gauge(&dirty(), "meminfo", 1_000.0 + r as f64, r as f64);
        }
        tl.set_gauge(&Col::Dev("vda".into(), DevMetric::UtilPct), "iostat", 1_003.0, 50.0);
        let inferred: std::collections::BTreeSet<String> = ["iostat".to_string()].into();
        let dir = tempfile::tempdir().unwrap();
        let p = write_timeline_parquet(&tl, &inferred, dir.path()).unwrap();
        let back = ParquetReader::new(std::fs::File::open(p).unwrap()).finish().unwrap();
        let whole = timeline_frame_marked(&tl, &inferred).unwrap();
        assert_eq!(back.height(), tl.len);
        assert!(back.equals_missing(&whole));
        assert_eq!(back.column("mem_dirty_bytes").unwrap().f64().unwrap().get(7 * 5000), Some(35_000.0));
    }

    #[test]
    fn names_need_no_quoting_and_keep_their_meaning() {
        assert_eq!(output_name("dev.vda.w_bytes_s"), "dev_vda_w_bytes_s");
        assert_eq!(output_name("dev.dm-0.util_pct"), "dev_dm_0_util_pct");
        assert_eq!(split_name("dev.vda.w_bytes_s"), ("vda".into(), "dev_w_bytes_s".into()));
        assert_eq!(split_name("thr.15575.w_bytes_s"), ("15575".into(), "thr_w_bytes_s".into()));
        assert_eq!(split_name("mem.dirty_bytes"), ("".into(), "mem_dirty_bytes".into()));
        let mut t = LongTable::default();
        t.push_named(10.0, 1.0, "mem.dirty_bytes", Some(1.0));
        assert_eq!(t.entity, ["system"]);
    }

    #[test]
    fn csv_text_that_a_spreadsheet_would_run_is_written_as_text() {
        let names =
            ["=HYPERLINK(\"http://x.test/\",\"a, b\")", "+1", "-x", "@SUM(A1)", "\tq", "\rr", "bash", "a=b"];
        let rows: Vec<(u32, Option<u32>, String, &str, f64)> =
            names.iter().enumerate().map(|(i, n)| (i as u32, None, n.to_string(), "other", -1.5)).collect();
        let dir = tempfile::tempdir().unwrap();
        let p =
            write_frame(&mut threads_frame(&rows).unwrap(), dir.path(), "threads", TableFormat::Csv).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "0,,\"'=HYPERLINK(\"\"http://x.test/\"\",\"\"a, b\"\")\",other,-1.5", "{text}");
        assert_eq!(
            &lines[2..6],
            ["1,,'+1,other,-1.5", "2,,'-x,other,-1.5", "3,,'@SUM(A1),other,-1.5", "4,,'\tq,other,-1.5"]
        );
        assert!(text.contains("5,,\"'\rr\",other,-1.5\n6,,bash,other,-1.5\n7,,a=b,other,-1.5\n"), "{text}");
        // Parquet keeps the raw values.
        let p = write_frame(&mut threads_frame(&rows).unwrap(), dir.path(), "threads", TableFormat::Parquet)
            .unwrap();
        let back = ParquetReader::new(std::fs::File::open(p).unwrap()).finish().unwrap();
        let got: Vec<&str> = back.column("name").unwrap().str().unwrap().iter().flatten().collect();
        assert_eq!(got, names);
    }

    #[test]
    fn csv_times_carry_their_zone() {
        let mut tl = Timeline::new(1_795_981_039.0, 1_795_981_040.0);
        tl.set_gauge(&dirty(), "meminfo", 1_795_981_039.0, 5.0);
        let tmp = std::env::temp_dir().join(format!("iosift-csv-{}", std::process::id()));
        std::fs::create_dir_all(&tmp).unwrap();
        let p = write_frame(&mut timeline_frame(&tl).unwrap(), &tmp, "t", TableFormat::Csv).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        let _ = std::fs::remove_dir_all(&tmp);
        assert!(text.starts_with("time,mem_dirty_bytes\n2026-11-29T19:37:19.000Z,5.0"), "{text}");
    }
}
