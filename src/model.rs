//! The analysis result: the findings document of the contract
//! (`findings.json`) plus everything the HTML report and the charts show.
//! Renderers only read this model; they never parse or compute.

pub use crate::analysis::correlate::Correlation;
pub use crate::analysis::periodicity::PeriodicityView;
pub use crate::analysis::views::{BinlogView, FlameInput, FsyncShare, WriteSource};
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
    /// Every significant write episode of each written device, with its measured issuer,
    /// writers and cost (whether or not a finding explains it).
    pub episodes: Vec<crate::analysis::episodes::Episode>,
    /// The node's Galera status (flow control paused share, the pause requests it sent and
    /// received and when, queues, rates): only on a Galera node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub galera: Option<crate::analysis::galera::GaleraView>,
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
    /// Seconds per timeline row: 1, or wider for a capture of days that every source
    /// samples coarsely (a warning says so; rates are means over the row's seconds).
    pub bin_s: i64,
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
    /// Named numbers (null when unknown), each with its unit: written as `metrics` (key ->
    /// plain value) followed by `metric_units` (key -> [`crate::verdict::Unit::id`]).
    #[serde(flatten, serialize_with = "crate::verdict::metrics_and_units")]
    pub metrics: BTreeMap<&'static str, crate::verdict::Metric>,
    /// Where the numbers come from.
    pub evidence: Vec<Evidence>,
    /// What to change.
    pub remedies: Vec<String>,
    /// Who wrote, who issued and why, who bounds: measured, or marked not measured.
    pub actors: crate::verdict::Actors,
}

/// A time window (RFC 3339).
#[derive(Debug, Clone, Serialize)]
pub struct Window {
    /// Start.
    pub start: String,
    /// End.
    pub end: String,
}

impl Window {
    /// The window from epoch second `start` to `end`.
    pub fn epochs(start: i64, end: i64) -> Window {
        Window { start: rfc3339(start), end: rfc3339(end) }
    }
}

/// RFC 3339 (UTC, whole seconds) of an epoch second; empty when out of range.
pub fn rfc3339(epoch: i64) -> String {
    iosift_parsers::common::time::epoch_to_utc(epoch as f64)
        .map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default()
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
    /// Where threads wait, from gdb or pt-pmp stacks (`None`: not measured).
    pub stacks: Option<crate::analysis::waits::StacksView>,
    /// The sub-second heat map of each perf file with timed call stacks.
    pub perf_heat: Vec<crate::analysis::heat::PerfHeat>,
    /// Binlog summary.
    pub binlog: Option<BinlogView>,
    /// Bundle-level problems (unreadable files, limits).
    pub problems: Vec<crate::bundle::Problem>,
    /// Database and host state (InnoDB status, processlist, top, netstat).
    pub state: Vec<crate::state::StateFact>,
    /// The zone times are shown in (`--display-tz`).
    pub display: crate::clock::DisplayZone,
    /// The capturing host's zone (what "local time" means in the story of the page).
    pub host: crate::clock::DisplayZone,
    /// Why `--from`/`--to` could not be applied; the CLI reports it as a usage error.
    pub window_error: Option<String>,
    /// The captures the input holds ([`crate::pipeline::captures`]): one, unless its files
    /// do not belong together; then no rule ran and the CLI refuses the input
    /// ([`crate::pipeline::captures::refusal`]) or `batch` analyzes each capture.
    pub captures: Vec<crate::pipeline::captures::Capture>,
    /// The host and database settings at a glance (the report's system box).
    pub system: crate::system::SystemBox,
    /// The numbers the rules measure whatever they decide (`iosift diff` compares them).
    pub measures: crate::analysis::measures::Measures,
    /// The host and database context read from the capture (kernel, mounts, sysctl,
    /// variables, ...): `iosift diff` compares its facts without parsing the files again.
    pub context: crate::source::Context,
    /// The events this capture shares with other nodes' (`iosift analyze --node`).
    pub shared: crate::analysis::shared::Shared,
}

impl Report {
    /// The host that made the capture, when one of its files names it (uname, perf's header,
    /// sadf, pt-stalk's `-hostname`).
    pub fn host(&self) -> Option<&str> {
        self.captures.iter().find_map(|c| c.host.as_deref())
    }
}
