//! Tables: all polars code of iosift. Per-source frames (each with a UTC
//! `time` column) and the 1 s [`Timeline`] as a frame, written as Parquet or
//! CSV.
//!
//! Binning and rates are computed on plain vectors in [`timeline`] (they are
//! simple loops over a few thousand seconds); polars holds the results as
//! typed frames and writes them. This keeps the polars feature set (and the
//! build) small: no lazy engine, no joins, no temporal kernels.

pub mod timeline;

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
    /// Device, thread id, key, ... (what the value is about).
    pub entity: Vec<String>,
    /// Metric name.
    pub metric: Vec<String>,
    /// Value.
    pub value: Vec<Option<f64>>,
}

impl LongTable {
    /// Appends one value.
    pub fn push(&mut self, epoch: f64, entity: &str, metric: &str, value: Option<f64>) {
        self.time_ms.push((epoch * 1000.0).round() as i64);
        self.entity.push(entity.to_string());
        self.metric.push(metric.to_string());
        self.value.push(value);
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

fn utc_time_column(ms: Vec<i64>) -> PolarsResult<Column> {
    Ok(Int64Chunked::from_vec("time".into(), ms)
        .into_datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC))
        .into_series()
        .into())
}

/// A source frame: `time` (UTC datetime), `entity`, `metric`, `value`.
pub fn long_frame(t: &LongTable) -> PolarsResult<DataFrame> {
    DataFrame::new(
        t.len(),
        vec![
            utc_time_column(t.time_ms.clone())?,
            Column::new("entity".into(), t.entity.clone()),
            Column::new("metric".into(), t.metric.clone()),
            Column::new("value".into(), t.value.clone()),
        ],
    )
}

/// The timeline as a frame: `time` (UTC datetime, 1 s) then one column per metric.
pub fn timeline_frame(tl: &Timeline) -> PolarsResult<DataFrame> {
    let mut cols = vec![utc_time_column((0..tl.len).map(|r| tl.epoch(r) * 1000).collect())?];
    for (name, s) in &tl.columns {
        cols.push(Column::new(name.as_str().into(), s.values.clone()));
    }
    DataFrame::new(tl.len, cols)
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
    let file = std::fs::File::create(&path)?;
    match format {
        TableFormat::Parquet => {
            ParquetWriter::new(file).finish(df)?;
        }
        TableFormat::Csv => {
            CsvWriter::new(file).include_header(true).finish(df)?;
        }
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_have_utc_time() {
        let mut tl = Timeline::new(1_795_981_039.0, 1_795_981_041.0);
        tl.set_gauge("mem.dirty_bytes", "B", "meminfo", 1_795_981_040.2, 5.0);
        let df = timeline_frame(&tl).unwrap();
        assert_eq!(df.height(), 3);
        assert_eq!(
            df.column("time").unwrap().dtype(),
            &DataType::Datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC))
        );
        let v = df.column("mem.dirty_bytes").unwrap().f64().unwrap().get(1);
        assert_eq!(v, Some(5.0));
    }
}
