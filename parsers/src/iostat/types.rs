//! The value an `iostat` capture parses to (text or JSON): runs of reports of device
//! rows, and the sysstat generation their header shows. A leaf of the family: the
//! parser (`super`), its budget and the JSON reader all build these.

use super::metrics::{CpuAvg, DeviceMetrics};
use crate::common::Stamp;
use crate::common::sysstat::Banner;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A whole `iostat` capture (text or JSON), normalised.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Iostat {
    /// The banner of the first run (`Linux 6.1.0 (host) \t11/29/2026 \t_x86_64_\t(8 CPU)`).
    pub banner: Option<Banner>,
    /// One entry per run (banner) in the file; concatenated captures have several.
    pub runs: Vec<Run>,
    /// Every report, in file order.
    pub reports: Vec<Report>,
    /// The sysstat generation recognised from the device header.
    pub layout: Layout,
    /// The unit the file printed sizes in (`kB`, `MB`, `GB`, `sectors`), before normalisation.
    pub unit: Option<&'static str>,
    /// Reports carry a time stamp (`-t`).
    pub has_t: bool,
    /// The device name was the last field (`-h`, `--pretty`, `--compact`, `-j`).
    pub device_last: bool,
    /// `--pretty` printed separate r/w/d/f sub-tables (merged into one row per device).
    pub pretty_subtables: bool,
    /// Values carried `--human` suffixes (`7,8M`, `8,9%`).
    pub human: bool,
    /// Numbers used a decimal comma (`48,29`).
    pub decimal_comma: bool,
    /// Lines carried ANSI colour escapes.
    pub ansi: bool,
    /// The input was `iostat -o JSON`.
    pub json: bool,
    /// The shape of the time stamps (`mm/dd/yy`, `dd.mm.yyyy`, `iso-zoned`, `time-of-day`, `cjk`, ...).
    pub stamp_form: Option<&'static str>,
    /// The reporting interval in seconds, when stamps allow deriving it (median step).
    pub interval_s: Option<f64>,
    /// Reports merged to stay within a memory budget ([`parse_source_within`]): each kept
    /// report stands for up to this many printed ones (0 or 1: none merged).
    pub merged: u32,
    /// 1-based line of the first report of the file's first merged span, when any.
    pub merged_from_line: Option<usize>,
    /// The reports were taken from the parse as they were read ([`super::drained`]): `reports`
    /// is empty and this is what the file's summary needs of them.
    #[serde(skip)]
    pub drained: Option<Drained>,
}

/// One run of iostat: a banner and the reports after it.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Run {
    /// 1-based line of the banner (0 when the file has no banner).
    pub line: usize,
    /// The banner, when present.
    pub banner: Option<Banner>,
    /// The file shows `-y` (the since-boot report was omitted).
    pub omits_since_boot: bool,
}

/// One report: an optional stamp, an optional `avg-cpu` block and device rows.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Report {
    /// 1-based line where the report starts (stamp, `avg-cpu:` or `Device` header).
    pub line: usize,
    /// 0-based index of the run (banner) the report belongs to.
    pub run: usize,
    /// 0-based index of the report within its run.
    pub index: usize,
    /// The `-t` stamp as printed (None without `-t`); a stamp that breaks its run's series,
    /// or a missing one in a stamped run, is the one the series gives (a `bad_time`
    /// diagnostic names the line: [`crate::common::series`]).
    pub stamp: Option<Stamp>,
    /// The report holds averages since boot (first report of a run without `-y`).
    pub since_boot: bool,
    /// The `avg-cpu` block.
    pub cpu: Option<CpuAvg>,
    /// One row per device, partition or group (merged across `--pretty` sub-tables).
    pub devices: Vec<DeviceRow>,
}

/// One device row.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct DeviceRow {
    /// 1-based line of the row (of its first sub-table row with `--pretty`).
    pub line: usize,
    /// Device name as printed (`vda`, `cciss/c0d0p2`, `vg00-lv_root`; groups keep their leading space: `" total"`),
    /// shared by the rows of the same device ([`crate::common::names::Names`]).
    pub device: Arc<str>,
    /// The values.
    pub m: DeviceMetrics,
}

/// The sysstat generation, recognised from the device header columns (FORMATS.md §1.2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// No device table seen (`-c` only, or empty).
    #[default]
    Unknown,
    /// Extended, ≤ 9.1.1: `rsec/s`/`rkB/s`, `avgrq-sz` (sectors), `await`, no `r_await`.
    ExtendedUpTo9_1_1,
    /// Extended, 9.1.2–11.5.6: adds `r_await w_await`.
    Extended9_1_2,
    /// Extended, 11.5.7–12.1.1: `rareq-sz wareq-sz` (kB), `%rrqm`, no colon after Device.
    Extended11_5_7,
    /// Extended, 12.1.2–12.3.0: discard columns, no `svctm`.
    Extended12_1_2,
    /// Extended, ≥ 12.3.1: flush columns `f/s f_await`.
    Extended12_3_1,
    /// `-x -s` short extended: `tps kB/s rqm/s await areq-sz aqu-sz %util`.
    ExtendedShort,
    /// Basic ≤ 11.5.6 (`Device:` with colon).
    BasicUpTo11_5_6,
    /// Basic 11.5.7–12.1.1 (no discard).
    Basic11_5_7,
    /// Basic ≥ 12.1.2 (`kB_dscd`).
    Basic12_1_2,
    /// Basic `-s` ≥ 12.1.2 (`kB_w+d`).
    BasicShort,
    /// Only `avg-cpu` blocks (`-c`).
    CpuOnly,
}

impl Layout {
    /// Short name for the variant map.
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::Unknown => "unknown",
            Layout::ExtendedUpTo9_1_1 => "extended<=9.1.1",
            Layout::Extended9_1_2 => "extended-9.1.2..11.5.6",
            Layout::Extended11_5_7 => "extended-11.5.7..12.1.1",
            Layout::Extended12_1_2 => "extended-12.1.2..12.3.0",
            Layout::Extended12_3_1 => "extended>=12.3.1",
            Layout::ExtendedShort => "extended-short",
            Layout::BasicUpTo11_5_6 => "basic<=11.5.6",
            Layout::Basic11_5_7 => "basic-11.5.7..12.1.1",
            Layout::Basic12_1_2 => "basic>=12.1.2",
            Layout::BasicShort => "basic-short>=12.1.2",
            Layout::CpuOnly => "cpu-only",
        }
    }
}

/// What a drained parse keeps of the reports taken from it: the whole file's summary
/// ([`super::drained`]).
#[derive(Debug, Clone, Default)]
pub struct Drained {
    /// Reports read.
    pub reports: usize,
    /// Device rows read.
    pub rows: usize,
    /// Some report has an `avg-cpu` block.
    pub any_cpu: bool,
    /// Each device (its name, the keys sorted) and its `w_bytes_s` summed over the reports
    /// in file order (a device's share of the writes, without reading the file again).
    pub write_sums: BTreeMap<Arc<str>, f64>,
    /// The stamps of the first three reports (repaired), for the zone evidence.
    pub head: Vec<Option<Stamp>>,
    /// The first and last stamps of the file (repaired).
    pub first: Option<Stamp>,
    /// See `first`.
    pub last: Option<Stamp>,
    /// The stamps the run's series repaired: (index of the report in file order, stamp given).
    pub repaired: Vec<(usize, Stamp)>,
    /// The application reads the file's dates day-first (`03/11/26` as 3 November): it
    /// gives the reports read again their stamps' day-first reading too.
    pub day_first: bool,
    /// The reports' stamps as read, in file order, until the parse finishes (24 bytes a
    /// report: a 200 MB file of one device holds 378,045 reports).
    pub(crate) stamps: Vec<Option<Stamp>>,
    /// The reports' (run, line), same order (a line past `u32::MAX` is noted as that).
    pub(crate) at: Vec<(u32, u32)>,
}
