//! The analysis result: the findings document of the contract
//! (`findings.json`) plus everything the HTML report and the charts show.
//! Renderers only read this model; they never parse or compute.

use crate::analysis::bursts::Burst;
use crate::table::Timeline;
use serde::Serialize;
use std::collections::BTreeMap;

/// `findings.json` (contract of DESIGN.md; fields may be added, never renamed).
#[derive(Debug, Clone, Serialize)]
pub struct FindingsDoc {
    /// iosift's version.
    pub iosift_version: String,
    /// What was read.
    pub bundle: BundleInfo,
    /// The timeline's zone and extent.
    pub clock: ClockInfo,
    /// Rules that fired, most severe first.
    pub findings: Vec<Finding>,
    /// Rules that passed or were skipped.
    pub checked: Vec<Checked>,
}

/// The bundle and its inputs.
#[derive(Debug, Clone, Serialize)]
pub struct BundleInfo {
    /// Bundle name.
    pub name: String,
    /// Every input file.
    pub inputs: Vec<InputInfo>,
    /// Every input-level problem: a file or archive member not read or read in part
    /// (unreadable, not a regular file, empty, a link, encrypted, past a limit, an
    /// iosift report folder inside the input, ...), each naming its path.
    pub problems: Vec<crate::bundle::Problem>,
}

/// One input file of the inventory.
#[derive(Debug, Clone, Serialize)]
pub struct InputInfo {
    /// Path within the bundle.
    pub path: String,
    /// Format id or null when not recognised.
    pub format: Option<&'static str>,
    /// Records parsed.
    pub records: usize,
    /// Lines in the file.
    pub lines: usize,
    /// Lines skipped (each has a diagnostic).
    pub skipped_lines: usize,
    /// How its times were anchored (`epoch`, `banner-date+time-of-day`, ...), null without times.
    pub anchored_by: Option<&'static str>,
    /// Uncertainty of its times in seconds.
    pub uncertainty_s: Option<f64>,
    /// Variant facts (layout, locale, ...).
    pub variant: BTreeMap<&'static str, String>,
    /// The first diagnostics (line, kind, text).
    pub diagnostics: Vec<iosift_parsers::Diagnostic>,
    /// Number of diagnostics in all.
    pub diagnostics_total: usize,
    /// Why the file was not used, if it was not (unreadable, not recognised, outside --from/--to).
    pub note: Option<String>,
}

/// The clock of the bundle.
#[derive(Debug, Clone, Serialize)]
pub struct ClockInfo {
    /// Time zone of the capturing host (`UTC`, `+02:00`, `CET`).
    pub timezone: String,
    /// Where the zone came from.
    pub timezone_source: String,
    /// First second of the timeline (RFC 3339).
    pub start: Option<String>,
    /// Last second of the timeline (RFC 3339).
    pub end: Option<String>,
    /// Warnings about time (zone assumed, perf aligned by matching, ...).
    pub warnings: Vec<String>,
    /// perf time -> epoch offset (epoch = perf time + offset), when perf files were anchored.
    pub perf_offset_s: Option<f64>,
    /// How that offset was found (`perf-clock-data`, `perf+collector-clock-reference`, `perf-aligned`).
    pub perf_anchored_by: Option<&'static str>,
}

/// Severity of a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing.
    Info,
    /// Likely part of the problem.
    Warning,
    /// A known failure mode with a fix.
    Critical,
}

/// A fired rule.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// Rule id of the contract.
    pub rule: &'static str,
    /// How bad.
    pub severity: Severity,
    /// 0..1.
    pub confidence: f64,
    /// One sentence with the key numbers.
    pub summary: String,
    /// When it happened.
    pub window: Option<Window>,
    /// Named numbers (null when unknown).
    pub metrics: BTreeMap<&'static str, serde_json::Value>,
    /// Where the numbers come from.
    pub evidence: Vec<Evidence>,
    /// What to change.
    pub remedies: Vec<String>,
}

/// A time window (RFC 3339).
#[derive(Debug, Clone, Serialize)]
pub struct Window {
    /// Start.
    pub start: String,
    /// End.
    pub end: String,
}

/// One piece of evidence: a file, its lines, a metric and its value.
#[derive(Debug, Clone, Serialize)]
pub struct Evidence {
    /// Input file.
    pub file: String,
    /// First and last line (1-based), when known.
    pub lines: Option<[usize; 2]>,
    /// Metric name as the tool prints it (`wkB/s`, `Dirty`, `FilePmdMapped`).
    pub metric: String,
    /// Its value.
    pub value: serde_json::Value,
    /// The quoted input line(s), for the report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
}

/// Outcome of a rule that did not fire.
#[derive(Debug, Clone, Serialize)]
pub struct Checked {
    /// Rule id.
    pub rule: &'static str,
    /// `passed` or `skipped`.
    pub outcome: &'static str,
    /// Why it passed (for `passed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Inputs that were missing (for `skipped`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
}

/// Periodicity results for the report.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PeriodicityView {
    /// The series analysed (timeline column name).
    pub series: String,
    /// Bursts found on it.
    pub bursts: Vec<Burst>,
    /// Burst threshold used.
    pub threshold: f64,
    /// Detected period, seconds.
    pub period_s: Option<f64>,
    /// Confidence 0..1.
    pub confidence: Option<f64>,
    /// Autocorrelation by lag (index = lag in seconds).
    pub acf: Vec<f64>,
    /// Periodogram: (period seconds, normalised power).
    pub periodogram: Vec<(f64, f64)>,
    /// Expected writeback window: dirty_expire + dirty_writeback, seconds, and whether from the capture.
    pub writeback_window_s: Option<(f64, bool)>,
    /// Other series sharing the period: (column, period_s, confidence).
    pub shared_with: Vec<(String, f64, f64)>,
}

/// A lagged correlation between two timeline columns.
#[derive(Debug, Clone, Serialize)]
pub struct Correlation {
    /// Leading series (column name).
    pub a: String,
    /// Following series.
    pub b: String,
    /// Human label of the pair.
    pub label: String,
    /// Lag of the best correlation (seconds; positive = b follows a).
    pub best_lag_s: i64,
    /// Pearson r at that lag.
    pub best_r: f64,
    /// Pairs used.
    pub n: usize,
    /// r by lag: (lag seconds, r).
    pub curve: Vec<(i64, f64)>,
}

/// A flame graph input: collapsed stacks of one process or thread group.
#[derive(Debug, Clone, Serialize)]
pub struct FlameInput {
    /// Title (`perf-workload.script.txt: all samples`).
    pub title: String,
    /// File-name stem for the SVG (already sanitised).
    pub stem: String,
    /// `frame;frame;leaf count` lines.
    pub folded: Vec<String>,
}

/// Per-thread fsync share for the report.
#[derive(Debug, Clone, Serialize)]
pub struct FsyncShare {
    /// Thread name (untrusted: escape it).
    pub comm: String,
    /// Thread id.
    pub tid: Option<u32>,
    /// Samples.
    pub samples: u64,
    /// Samples with an fsync-like frame.
    pub fsync_samples: u64,
}

/// Binlog view for the report.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BinlogView {
    /// Source file.
    pub file: String,
    /// Transactions.
    pub transactions: u64,
    /// Mean bytes per transaction.
    pub mean_bytes: f64,
    /// Median bytes per transaction.
    pub median_bytes: f64,
    /// Histogram: (bucket upper bound in bytes, count).
    pub size_histogram: Vec<(u64, u64)>,
    /// Transactions per table: (table, count).
    pub per_table: Vec<(String, u64)>,
}

/// A stacked write-source group for the chart: (category, timeline column).
#[derive(Debug, Clone, Serialize)]
pub struct WriteSource {
    /// Category (`engine_redo`, `writeback`, ...).
    pub category: String,
    /// Timeline column with its bytes/s.
    pub column: String,
    /// Total bytes over the capture.
    pub total_bytes: f64,
    /// Top threads in this category: (name, tid, bytes).
    pub top_threads: Vec<(String, u32, f64)>,
}

/// Everything a report shows.
#[derive(Debug, Clone)]
pub struct Report {
    /// The contract document.
    pub doc: FindingsDoc,
    /// The 1 s timeline.
    pub timeline: Timeline,
    /// The main data device (most written), if any.
    pub main_device: Option<String>,
    /// Periodicity of the main device's writes.
    pub periodicity: Option<PeriodicityView>,
    /// Lagged correlations.
    pub correlations: Vec<Correlation>,
    /// Write sources (pidstat attribution).
    pub write_sources: Vec<WriteSource>,
    /// Flame graphs to draw.
    pub flames: Vec<FlameInput>,
    /// fsync share per thread.
    pub fsync_shares: Vec<FsyncShare>,
    /// Binlog summary.
    pub binlog: Option<BinlogView>,
    /// Bundle-level problems (unreadable files, limits).
    pub problems: Vec<crate::bundle::Problem>,
    /// Database and host state (InnoDB status, processlist, top, netstat).
    pub state: Vec<crate::state::StateFact>,
    /// The zone times are shown in (`--display-tz`).
    pub display: crate::clock::DisplayZone,
    /// Why `--from`/`--to` could not be applied; the CLI reports it as a usage error.
    pub window_error: Option<String>,
}
