//! `dstat_csv`: the CSV file written by `dstat --output FILE`, `dool --output
//! FILE` and `pcp-dstat --output FILE` (FORMATS.md §4.2).
//!
//! A real sample (`corpus/dstat/generated__dool_epoch_Dvda.csv`, dool 1.3.4):
//!
//! ```text
//! "dool 1.3.4 CSV output"
//! "Author:","Scott Baker",,,,"URL:","https://github.com/scottchiefbaker/dool/"
//! "Host:","vm",,,,"User:","root"
//! "Cmdline:","/srv/other/srv/dool/dool --epoch -c -d -D total,vda -m --io --output /srv/other/srv/gen/out/dool_epoch_Dvda.csv 1 4",,,,"Date:","29 Nov 2026 19:34:18 UTC"
//! "epoch","total cpu usage",,,,,"dsk/total",,"dsk/vda",,"memory usage",,,,"io/total",,"io/vda",
//! "epoch","usr","sys","idl","wai","stl","dsk/total:read","dsk/total:writ","dsk/vda:read","dsk/vda:writ","used","free","cach","avai","io/total:read","io/total:writ","io/vda:read","io/vda:writ"
//! 1795980858.547,56.118,9.115,34.126,0.569,0.073,166817976.887,341131606.938,166817976.887,341131606.938,2382680064,18737790976,3895701504,22579884032,178.816,551.259,178.816,551.259
//! ```
//!
//! Variants handled:
//! * preamble title `"Dstat 0.7.2 CSV output"`, `"dool 1.3.8 CSV output"`,
//!   `"pcp-dstat 5.0.3 CSV Output"`; dstat writes a blank line before the
//!   header pair, dool and pcp-dstat do not;
//! * **appended runs**: `--output` to an existing file writes `\n\n`, a new
//!   `Host:`/`Cmdline:` pair and a new header pair (no title line);
//! * the group row is forward-filled; sub-titles are bare (`"read","writ"`,
//!   dstat 0.7.2) or qualified (`"dsk/total:read"`, 0.7.3+/dool/pcp-dstat);
//!   [`Column::key`] is always `group:nick` (`"dsk/vda:writ"`);
//! * numbers `0.0` / `2632093696.0` (0.7.2) or `%d` / `%.3f` (later);
//! * unquoted string cells (time `Nov-29 19:37:19`, dool top plugins
//!   `perf / 0:524288`, dstat `barad_agent / 0%`), quoted ones (pcp-dstat
//!   `"pmdaproc"`), cmdlines with commas;
//! * header without data rows (Debian dstat 0.7.4 crashes in `showcsv` under
//!   Python 3 after the header); pcp-dstat's empty first row `25-09 11:03:20,,`.
//!
//! Times are given as the file gives them: `--epoch` columns become
//! [`Stamp::Epoch`]; `%d-%m %H:%M:%S` (dstat) and `%b-%d %H:%M:%S` (dool)
//! become [`Stamp::NoYear`] (the year is in [`Meta::date`], from the
//! `Date:` line). The first data row of a run holds averages since boot and
//! is flagged [`Row::since_boot`].

use crate::common::scrub::Identifiers;
use std::borrow::Cow;

use chrono::{NaiveDate, NaiveDateTime, NaiveTime};

use crate::common::{
    DiagKind, Diags, Format, LineSource, Parsed, SliceSource, Sniff, Stamp, Summary, Variant,
    number::parse_f64,
};

/// A parsed dstat/dool/pcp-dstat capture (CSV or terminal layout): one or more runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dstat {
    /// The runs in file order (appended `--output` runs, or new terminal headers).
    pub runs: Vec<Run>,
    /// Which layout the file had.
    pub layout: Layout,
}

/// The layout a [`Dstat`] was read from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Layout {
    /// `--output` CSV (unscaled values).
    #[default]
    Csv,
    /// Terminal output (values scaled with `k`/`M`/`G` suffixes, precision lost).
    Text,
}

/// One run of the tool: its metadata, its column set and its rows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Run {
    /// 1-based line where the run starts (preamble, `Host:` line or title line).
    pub line: usize,
    /// What the preamble says (empty for the terminal layout).
    pub meta: Meta,
    /// The columns, in file order.
    pub columns: Vec<Column>,
    /// The data rows.
    pub rows: Vec<Row>,
    /// Index of the `--epoch` column, when there is one.
    pub epoch_col: Option<usize>,
    /// Index of the `-t` time column, when there is one.
    pub time_col: Option<usize>,
}

impl Run {
    /// Index of the first column whose [`Column::key`] is `key` (e.g. `"dsk/vda:writ"`).
    pub fn column(&self, key: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.key == key)
    }

    /// A `-t` stamp with the year of the run's `Date:` line: `22-08 23:04:21` under
    /// `"Date:","22 Aug 2016 23:04:21 JST"` is 2016-08-22 23:04:21 (local time; a run
    /// that started in December and reached January is in the next year). Other
    /// stamps, and year-less ones of a run without a `Date:` line, are returned unchanged.
    pub fn dated(&self, s: Stamp) -> Stamp {
        use chrono::Datelike;
        match (s, self.meta.date) {
            (Stamp::NoYear { month, day, time }, Some(d)) => {
                let year = d.year() + i32::from(month < d.month());
                NaiveDate::from_ymd_opt(year, month, day).map_or(s, |n| Stamp::Local(n.and_time(time)))
            }
            _ => s,
        }
    }

    /// The values of column `key`, one per row (`None` for empty cells).
    pub fn series(&self, key: &str) -> Option<Vec<Option<f64>>> {
        let i = self.column(key)?;
        Some(self.rows.iter().map(|r| r.values.get(i).copied().flatten()).collect())
    }
}

/// The CSV preamble.
///
/// ```text
/// "Host:","vm",,,,"User:","root"
/// "Cmdline:","/opt/venv/bin/dool -t --cpu ... --output dool.csv 1 240",,,,"Date:","29 Nov 2026 19:37:19 UTC"
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Meta {
    /// `dstat`, `dool` or `pcp-dstat` (from the title line).
    pub tool: Option<String>,
    /// The version in the title line (`0.7.2`, `0.8.0`, `1.3.8`, `VERSION`).
    pub version: Option<String>,
    /// The `Host:` value.
    pub host: Option<String>,
    /// The `User:` value.
    pub user: Option<String>,
    /// The `Cmdline:` value, verbatim.
    pub cmdline: Option<String>,
    /// The `Date:` value, verbatim (`29 Nov 2026 19:37:19 UTC`).
    pub date_text: Option<String>,
    /// The `Date:` value read as `%d %b %Y %H:%M:%S` (local time of the capturing host).
    pub date: Option<NaiveDateTime>,
    /// The zone abbreviation after the date (`UTC`, `CET`), as printed by `%Z`.
    pub zone: Option<String>,
}

/// One column: its plugin group, its nick, a `group:nick` key and its unit.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The plugin title (`dsk/vda`, `total cpu usage`, `system`), forward-filled.
    pub group: String,
    /// The nick without its group qualifier (`writ`, `usr`, `time`).
    pub name: String,
    /// `group:name` (`dsk/vda:writ`), or just `name` when it equals the group (`epoch`).
    pub key: String,
    /// What the values measure.
    pub unit: Unit,
}

/// The unit of a column's values (CSV values are unscaled; terminal values are
/// unscaled by the parser from their `k`/`M`/`G` suffixes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unit {
    /// Bytes per second (`dsk/*`, `net/*`, `paging`).
    BytesPerSec,
    /// Bits per second (`dsk/*`, `net/*` of dool `--bits` CSV files).
    BitsPerSec,
    /// Events per second (`io/*`, `int`, `csw`, page faults, interrupts).
    CountPerSec,
    /// Percent (cpu usage, disk `util`).
    Percent,
    /// Bytes (memory, swap).
    Bytes,
    /// A gauge count (files, inodes, sockets, processes).
    Count,
    /// A text cell (top-* process names).
    Text,
    /// The `-t` wall-clock time column.
    Time,
    /// The `--epoch` column (seconds since 1970 UTC).
    Epoch,
    /// Milliseconds (disk-wait `rawait`/`wawait`).
    Millis,
    /// Anything else (load averages, unknown plugins).
    Other,
}

impl Unit {
    /// Short name for variants and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::BytesPerSec => "B/s",
            Unit::BitsPerSec => "bit/s",
            Unit::CountPerSec => "1/s",
            Unit::Percent => "%",
            Unit::Bytes => "B",
            Unit::Count => "count",
            Unit::Text => "text",
            Unit::Time => "time",
            Unit::Epoch => "epoch",
            Unit::Millis => "ms",
            Unit::Other => "other",
        }
    }

    /// True for byte-based units (terminal suffixes are base 1024 for these).
    pub fn is_bytes(self) -> bool {
        matches!(self, Unit::BytesPerSec | Unit::Bytes)
    }
}

/// One data row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Row {
    /// 1-based line number.
    pub line: usize,
    /// The `--epoch` value when present, else the `-t` time; `None` without either.
    pub stamp: Option<Stamp>,
    /// True for the first row of a run: dstat computes it over the time since boot.
    pub since_boot: bool,
    /// One value per column (`None` for text, empty or `-` cells).
    pub values: Vec<Option<f64>>,
    /// The string cells (time, process names) by column index.
    pub texts: Vec<(usize, String)>,
}

impl Row {
    /// The value of column `i`.
    pub fn get(&self, i: usize) -> Option<f64> {
        self.values.get(i).copied().flatten()
    }

    /// The text of column `i`, when it is a string cell.
    pub fn text(&self, i: usize) -> Option<&str> {
        self.texts.iter().find(|(c, _)| *c == i).map(|(_, s)| s.as_str())
    }
}

/// A top-* cell as dool/dstat write it in CSV: `name / read:write` or `name / 12%`.
#[derive(Debug, Clone, PartialEq)]
pub struct TopCell<'a> {
    /// The process name (may be empty).
    pub name: &'a str,
    /// The numbers after ` / `, split on `:` (`%` dropped).
    pub values: Vec<f64>,
}

/// Splits a top-* text cell (`perf / 56876312:495944`, `barad_agent / 0%`).
pub fn parse_top_cell(cell: &str) -> Option<TopCell<'_>> {
    let (name, nums) = cell.rsplit_once(" / ")?;
    let values =
        nums.split(':').map(|v| parse_f64(v.trim().trim_end_matches('%'))).collect::<Option<Vec<f64>>>()?;
    Some(TopCell { name: name.trim(), values })
}

impl Summary for Dstat {
    fn records(&self) -> usize {
        self.runs.iter().map(|r| r.rows.len()).sum()
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        let layout = match self.layout {
            Layout::Csv => "csv",
            Layout::Text => "text",
        };
        v.insert("layout", layout.to_string());
        v.insert("runs", self.runs.len().to_string());
        if let Some(r) = self.runs.first() {
            if let Some(t) = &r.meta.tool {
                v.insert("tool", t.clone());
            }
            if let Some(t) = &r.meta.version {
                v.insert("version", t.clone());
            }
            if let Some(t) = &r.meta.host {
                v.insert("host", t.clone());
            }
            if let Some(t) = &r.meta.date_text {
                v.insert("date", t.clone());
            }
            if let Some(t) = &r.meta.zone {
                v.insert("zone", t.clone());
            }
            v.insert("columns", r.columns.len().to_string());
            let time = if r.epoch_col.is_some() {
                "epoch"
            } else if let Some(Stamp::NoYear { .. }) = r.rows.iter().find_map(|x| x.stamp) {
                "no-year"
            } else if let Some(s) = r.rows.iter().find_map(|x| x.stamp) {
                match s {
                    Stamp::Local(_) => "local",
                    Stamp::TimeOfDay(_) => "time-of-day",
                    Stamp::Epoch(_) | Stamp::Zoned(_) | Stamp::NoYear { .. } | Stamp::SinceBoot(_) => "other",
                }
            } else if r.time_col.is_some() {
                "time"
            } else {
                "none"
            };
            v.insert("time", time.to_string());
            if r.columns.iter().any(|c| c.unit == Unit::BitsPerSec) {
                v.insert("units", "bits".to_string());
            }
        }
        if self.runs.iter().any(|r| r.rows.is_empty()) {
            v.insert("empty_runs", self.runs.iter().filter(|r| r.rows.is_empty()).count().to_string());
        }
        v
    }

    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        // As printed (`--08-22T23:04:21`): the clock gives them the year ([`Run::dated`]).
        let first = self.runs.iter().flat_map(|r| r.rows.iter()).find_map(|x| x.stamp)?;
        let last = self.runs.iter().rev().flat_map(|r| r.rows.iter().rev()).find_map(|x| x.stamp)?;
        Some((first, last))
    }
}

// ---------------------------------------------------------------------------------------------
// Shared helpers (also used by `dstat_text`).

/// Collapses runs of whitespace to one space and trims.
pub(crate) fn collapse_ws(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// Builds a column from a (forward-filled) group and a sub-title that may be
/// qualified (`dsk/total:read`, `total usage:usr`).
pub(crate) fn make_column(group: &str, nick: &str, bits: bool) -> Column {
    let nick = collapse_ws(nick);
    let group = collapse_ws(group);
    let (group, name) = match nick.split_once(':') {
        // 0.7.3+/dool/pcp-dstat qualify multi-instance nicks with their instance.
        Some((g, n)) if !g.is_empty() && !n.is_empty() => (g.to_string(), n.to_string()),
        _ => (group, nick),
    };
    let key = if group.is_empty() || group == name { name.clone() } else { format!("{group}:{name}") };
    let unit = unit_for(&group, &name, bits);
    Column { group, name, key, unit }
}

/// The unit of a column from its plugin group and nick (dstat/dool plugin sources:
/// `dsk`/`net` type `b`, `io`/`sys` counts per second, cpu `p`, memory bytes).
pub(crate) fn unit_for(group: &str, name: &str, bits: bool) -> Unit {
    let g = group.to_ascii_lowercase();
    let n = name.to_ascii_lowercase();
    if n == "time" {
        return Unit::Time;
    }
    if n == "epoch" || g == "epoch" {
        return Unit::Epoch;
    }
    if g.contains("expensive") || g.starts_with("top") {
        // pcp-dstat splits top plugins into cmd/pid/read/write/cpu columns.
        return match n.as_str() {
            "read" | "write" => Unit::BytesPerSec,
            "cpu" => Unit::Percent,
            "pid" => Unit::Other,
            _ => Unit::Text,
        };
    }
    if g.starts_with("dsk/") || g.starts_with("net/") {
        return if bits { Unit::BitsPerSec } else { Unit::BytesPerSec };
    }
    if g.starts_with("io/") {
        return Unit::CountPerSec;
    }
    match g.as_str() {
        "paging" => return Unit::BytesPerSec,
        "memory usage" | "advanced memory usage" | "swap" | "zones memory" => return Unit::Bytes,
        "interrupts" | "virtual memory" | "advanced virtual memory" => return Unit::CountPerSec,
        "system" => {
            return if n == "int" || n == "csw" { Unit::CountPerSec } else { Unit::Other };
        }
        "procs" => return if n == "new" { Unit::CountPerSec } else { Unit::Count },
        "filesystem" | "async" | "sockets" | "tcp sockets" | "udp" | "unix sockets" | "raw" | "sysv ipc"
        | "file locks" => return Unit::Count,
        "load avg" => return Unit::Other,
        _ => {}
    }
    if g.contains("usage") && !g.contains("memory") {
        return Unit::Percent; // total cpu usage, cpu0 usage, total usage, per cpu usage
    }
    match n.as_str() {
        "util" => Unit::Percent,
        "rawait" | "wawait" | "await" | "wait" | "svctm" => Unit::Millis,
        _ => Unit::Other,
    }
}

/// Month number of an English abbreviated (or full) month name.
fn month_of(name: &str) -> Option<u32> {
    const M: [&str; 12] =
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
    let lower = name.to_ascii_lowercase();
    let head = lower.get(..3)?;
    M.iter().position(|m| *m == head).map(|i| i as u32 + 1)
}

/// `HH:MM:SS[.fff]`.
fn parse_hms(s: &str) -> Option<NaiveTime> {
    let mut it = s.split(':');
    let h: u32 = it.next()?.parse().ok()?;
    let m: u32 = it.next()?.parse().ok()?;
    let sec = it.next()?;
    if it.next().is_some() {
        return None;
    }
    let (whole, frac) = match sec.split_once('.') {
        Some((w, f)) => (w, f),
        None => (sec, ""),
    };
    let s: u32 = whole.parse().ok()?;
    let nanos = if frac.is_empty() {
        0
    } else {
        if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let v: u32 = frac.parse().ok()?;
        v * 10u32.pow(9 - frac.len() as u32)
    };
    NaiveTime::from_hms_nano_opt(h, m, s.min(59), nanos)
}

/// Reads a dstat/dool time cell: `29-11 19:34:02` (dstat `%d-%m %H:%M:%S`),
/// `Nov-29 19:34:13` (dool `%b-%d %H:%M:%S`), `2026-11-29 19:34:06`
/// (`DSTAT_TIMEFMT="%Y-%m-%d %H:%M:%S"`), `19:34:02`; `--debug` adds `.mmm`.
pub(crate) fn parse_time_cell(s: &str) -> Option<Stamp> {
    let s = s.trim();
    let mut parts = s.split_whitespace();
    let a = parts.next()?;
    let b = parts.next();
    if parts.next().is_some() {
        return None;
    }
    let Some(b) = b else {
        return parse_hms(a).map(Stamp::TimeOfDay);
    };
    let time = parse_hms(b)?;
    let fields: Vec<&str> = a.split(['-', '/', '.']).collect();
    let num = |x: &str| -> Option<u32> {
        if x.is_empty() || x.len() > 4 || !x.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        x.parse().ok()
    };
    match fields.as_slice() {
        [x, y] => {
            let (month, day) = match (num(x), num(y)) {
                (Some(d), Some(m)) => (m, d),
                (None, Some(d)) => (month_of(x)?, d),
                (Some(d), None) => (month_of(y)?, d),
                _ => return None,
            };
            if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
                return None;
            }
            Some(Stamp::NoYear { month, day, time })
        }
        [x, y, z] if x.len() == 4 => {
            let d = NaiveDate::from_ymd_opt(num(x)? as i32, num(y)?, num(z)?)?;
            Some(Stamp::Local(d.and_time(time)))
        }
        [x, y, z] if z.len() == 4 => {
            // %d-%m-%Y (dstat's ISO-less custom formats); day first as dstat's default.
            let d = NaiveDate::from_ymd_opt(num(z)? as i32, num(y)?, num(x)?)?;
            Some(Stamp::Local(d.and_time(time)))
        }
        _ => None,
    }
}

/// Reads the `Date:` value `29 Nov 2026 19:37:19 UTC` into date and zone.
pub(crate) fn parse_date_line(text: &str) -> (Option<NaiveDateTime>, Option<String>) {
    let toks: Vec<&str> = text.split_whitespace().collect();
    if toks.len() < 4 {
        return (None, None);
    }
    let (Some(d), Some(mon), Some(y), Some(t)) = (
        toks.first().and_then(|x| x.parse::<u32>().ok()),
        toks.get(1).and_then(|x| month_of(x)),
        toks.get(2).and_then(|x| x.parse::<i32>().ok()),
        toks.get(3).and_then(|x| parse_hms(x)),
    ) else {
        return (None, None);
    };
    let date = NaiveDate::from_ymd_opt(y, mon, d).map(|dd| dd.and_time(t));
    let zone = toks.get(4).map(|z| z.to_string());
    (date, zone)
}

// ---------------------------------------------------------------------------------------------
// CSV

/// One CSV cell as a byte range of its line (quotes removed).
#[derive(Debug, Clone, Copy)]
struct Cell {
    start: usize,
    end: usize,
    quoted: bool,
}

/// Splits a CSV line into cells. dstat never escapes quotes; a quote that is
/// not closed runs to the end of the line (`"Author:","PCP team <pcp@groups.io>
/// and Dag Wieers <dag@wieers.com>,,,,"URL:"` in the PerfKitBenchmarker sample).
fn split_csv(line: &str, out: &mut Vec<Cell>) {
    out.clear();
    let b = line.as_bytes();
    let mut i = 0;
    loop {
        if b.get(i) == Some(&b'"') {
            let start = i + 1;
            let end = memchr::memchr(b'"', b.get(start..).unwrap_or(&[])).map(|p| start + p);
            match end {
                Some(e) => {
                    out.push(Cell { start, end: e, quoted: true });
                    // Skip to the next comma (anything between the quote and it is dropped).
                    match memchr::memchr(b',', b.get(e + 1..).unwrap_or(&[])) {
                        Some(p) => i = e + 1 + p + 1,
                        None => return,
                    }
                }
                None => {
                    out.push(Cell { start, end: b.len(), quoted: true });
                    return;
                }
            }
        } else {
            match memchr::memchr(b',', b.get(i..).unwrap_or(&[])) {
                Some(p) => {
                    out.push(Cell { start: i, end: i + p, quoted: false });
                    i += p + 1;
                }
                None => {
                    out.push(Cell { start: i, end: b.len(), quoted: false });
                    return;
                }
            }
        }
    }
}

fn cell<'a>(line: &'a str, c: Option<&Cell>) -> &'a str {
    c.and_then(|c| line.get(c.start..c.end)).unwrap_or("")
}

/// Text between `"<label>","` and the next `",` / end for a `"Host:"` or `"Cmdline:"` line,
/// plus the value of the second label (`User:` / `Date:`) at the end.
///
/// Taken by position rather than by CSV splitting because a command line may hold quotes.
fn meta_pair<'a>(line: &'a str, label: &str, second: &str) -> (Option<&'a str>, Option<&'a str>) {
    let head = format!("\"{label}\",\"");
    let Some(rest) = line.strip_prefix(head.as_str()) else {
        return (None, None);
    };
    let sep = format!("\",,,,\"{second}\",\"");
    match rest.rfind(sep.as_str()) {
        Some(p) => {
            let first = rest.get(..p);
            let tail = rest.get(p + sep.len()..).unwrap_or("");
            let tail = tail.strip_suffix('"').unwrap_or(tail);
            (first, Some(tail))
        }
        None => (Some(rest.trim_end_matches(['"', ',']).trim_end_matches('"')), None),
    }
}

/// Reads the title line: `"Dstat 0.7.2 CSV output"`, `"dool 1.3.8 CSV output"`,
/// `"pcp-dstat VERSION CSV Output"`.
fn title_line(line: &str) -> Option<(String, Option<String>)> {
    let inner = line.trim().strip_prefix('"')?;
    let inner = inner.strip_suffix('"').unwrap_or(inner);
    let lower = inner.to_ascii_lowercase();
    let body = lower.strip_suffix(" csv output")?;
    let mut it = inner.get(..body.len())?.split_whitespace();
    let tool = it.next()?.to_ascii_lowercase();
    if !matches!(tool.as_str(), "dstat" | "dool" | "pcp-dstat") {
        return None;
    }
    Some((tool, it.next().map(str::to_string)))
}

/// The `dstat_csv` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Dstat;
    const ID: &'static str = "dstat_csv";
    const SAMPLE: &'static str = "\"dool 1.3.8 CSV output\"";
    const DESCRIPTION: &'static str = "dstat / dool / pcp-dstat --output CSV";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let text = String::from_utf8_lossy(head);
        let text = text.trim_start_matches('\u{feff}');
        for line in text.lines().filter(|l| !l.trim().is_empty()).take(3) {
            if title_line(line).is_some() {
                return Sniff::Yes;
            }
            if line.starts_with("\"Host:\",\"") || line.starts_with("\"Cmdline:\",\"") {
                return Sniff::Yes;
            }
        }
        Sniff::No
    }

    fn parse(input: &[u8]) -> Parsed<Dstat> {
        parse_csv(input)
    }
}

#[derive(Default)]
struct Pending {
    line: usize,
    meta: Meta,
    group_row: Option<Vec<String>>,
    active: bool,
}

fn parse_csv(input: &[u8]) -> Parsed<Dstat> {
    parse_source(&mut SliceSource::new(input))
}

/// Parses dstat/dool CSV fed line by line (a file streamed in fixed-size reads, or
/// [`SliceSource`] over the whole input: the same result).
pub fn parse_source(src: &mut impl LineSource) -> Parsed<Dstat> {
    let mut diags = Diags::default();
    let mut out = Dstat::default();
    let mut pending = Pending::default();
    // Tool/version of the file's title, inherited by appended runs.
    let mut tool: (Option<String>, Option<String>) = (None, None);
    let mut cells = Vec::new();
    let mut in_data = false;
    let mut last_no = 0;
    while let Some(sl) = src.next_line() {
        let l = sl.line;
        last_no = l.no;
        let raw = l.text();
        let text: Cow<str> =
            if l.no == 1 { Cow::Owned(raw.trim_start_matches('\u{feff}').to_string()) } else { raw };
        let t = text.trim_end();
        if t.trim().is_empty() {
            continue;
        }
        if t.starts_with('"') {
            if let Some((tl, ver)) = title_line(t) {
                tool = (Some(tl), ver);
                pending = Pending { line: l.no, active: true, ..Default::default() };
                pending.meta.tool = tool.0.clone();
                pending.meta.version = tool.1.clone();
                in_data = false;
                continue;
            }
            if t.starts_with("\"Author:\"") {
                continue; // "Author:","Dag Wieers <dag@wieers.com>",,,,"URL:","http://..."
            }
            if t.starts_with("\"Host:\"") {
                // A Host line after data (or after a header) starts an appended run.
                if !pending.active || pending.meta.host.is_some() || in_data {
                    pending = Pending { line: l.no, active: true, ..Default::default() };
                    pending.meta.tool = tool.0.clone();
                    pending.meta.version = tool.1.clone();
                }
                let (h, u) = meta_pair(t, "Host:", "User:");
                pending.meta.host = h.map(str::to_string);
                pending.meta.user = u.map(str::to_string);
                in_data = false;
                continue;
            }
            if t.starts_with("\"Cmdline:\"") {
                if !pending.active || in_data {
                    pending = Pending { line: l.no, active: true, ..Default::default() };
                    pending.meta.tool = tool.0.clone();
                    pending.meta.version = tool.1.clone();
                }
                let (c, d) = meta_pair(t, "Cmdline:", "Date:");
                pending.meta.cmdline = c.map(str::to_string);
                if let Some(d) = d {
                    let (date, zone) = parse_date_line(d);
                    pending.meta.date_text = Some(d.to_string());
                    pending.meta.date = date;
                    pending.meta.zone = zone;
                }
                in_data = false;
                continue;
            }
            split_csv(t, &mut cells);
            let header_like = cells.iter().all(|c| c.quoted || c.start == c.end);
            if header_like && (!in_data || pending.group_row.is_none()) {
                let row: Vec<String> = cells.iter().map(|c| cell(t, Some(c)).to_string()).collect();
                match pending.group_row.take() {
                    None => {
                        if !pending.active {
                            pending = Pending { line: l.no, active: true, ..Default::default() };
                            pending.meta.tool = tool.0.clone();
                            pending.meta.version = tool.1.clone();
                        }
                        pending.group_row = Some(row);
                        in_data = false;
                    }
                    Some(groups) => {
                        out.runs.push(build_run(&pending, &groups, &row));
                        pending = Pending::default();
                        in_data = true;
                    }
                }
                continue;
            }
        }
        // A data row.
        let Some(run) = out.runs.last_mut().filter(|_| in_data) else {
            diags.skip(l.no, DiagKind::NoHeader, t);
            continue;
        };
        split_csv(t, &mut cells);
        data_row(run, l.no, t, &cells, &mut diags);
    }
    diags.finish(out, last_no)
}

fn build_run(p: &Pending, groups: &[String], names: &[String]) -> Run {
    let bits = p.meta.tool.as_deref() == Some("dool")
        && p.meta.cmdline.as_deref().is_some_and(|c| c.split_whitespace().any(|a| a == "--bits"));
    let mut columns = Vec::with_capacity(names.len());
    let mut group = String::new();
    for (i, n) in names.iter().enumerate() {
        if let Some(g) = groups.get(i).filter(|g| !g.is_empty()) {
            group = g.clone();
        }
        columns.push(make_column(&group, n, bits));
    }
    let epoch_col = columns.iter().position(|c| c.unit == Unit::Epoch);
    let time_col = columns.iter().position(|c| c.unit == Unit::Time);
    Run { line: p.line, meta: p.meta.clone(), columns, rows: Vec::new(), epoch_col, time_col }
}

fn data_row(run: &mut Run, no: usize, line: &str, cells: &[Cell], diags: &mut Diags) {
    let n = run.columns.len();
    let mut row = Row { line: no, values: vec![None; n], ..Default::default() };
    if cells.len() > n {
        diags.note(no, DiagKind::FieldCount, format!("{} fields for {} columns: {line}", cells.len(), n));
    }
    let mut time_stamp = None;
    let mut epoch_stamp = None;
    for (i, c) in cells.iter().enumerate().take(n) {
        let s = cell(line, Some(c)).trim();
        if s.is_empty() {
            continue;
        }
        let Some(col) = run.columns.get(i) else { continue };
        match col.unit {
            Unit::Time => {
                match parse_time_cell(s) {
                    Some(st) => time_stamp = Some(st),
                    None => diags.note(no, DiagKind::BadTime, s),
                }
                row.texts.push((i, s.to_string()));
            }
            Unit::Text => row.texts.push((i, s.to_string())),
            unit @ Unit::BytesPerSec
            | unit @ Unit::BitsPerSec
            | unit @ Unit::CountPerSec
            | unit @ Unit::Percent
            | unit @ Unit::Bytes
            | unit @ Unit::Count
            | unit @ Unit::Epoch
            | unit @ Unit::Millis
            | unit @ Unit::Other => match parse_f64(s) {
                Some(v) => {
                    if let Some(slot) = row.values.get_mut(i) {
                        *slot = Some(v);
                    }
                    if unit == Unit::Epoch && epoch_stamp.is_none() {
                        epoch_stamp = Some(Stamp::Epoch(v));
                    }
                }
                None => {
                    if !c.quoted {
                        diags.note(no, DiagKind::BadNumber, format!("{}: {s}", col.key));
                    }
                    row.texts.push((i, s.to_string()));
                }
            },
        }
    }
    row.stamp = epoch_stamp.or(time_stamp);
    row.since_boot = run.rows.is_empty() && row.values.iter().any(Option::is_some);
    run.rows.push(row);
}

#[cfg(test)]
mod tests {
    use super::*;

    const APPENDED: &str = "\"dool 1.3.8 CSV output\"
\"Author:\",\"Scott Baker\",,,,\"URL:\",\"https://github.com/scottchiefbaker/dool/\"
\"Host:\",\"vm\",,,,\"User:\",\"root\"
\"Cmdline:\",\"dool -t -d -D total,vda --output a.csv 1 2\",,,,\"Date:\",\"29 Nov 2026 20:56:05 UTC\"
\"system\",\"dsk/total\",,\"dsk/vda\",
\"time\",\"dsk/total:read\",\"dsk/total:writ\",\"dsk/vda:read\",\"dsk/vda:writ\"
Nov-29 20:56:05,35795360.470,19864643.818,1,2
Nov-29 20:56:06,101351424,42336256,3,4


\"Host:\",\"vm2\",,,,\"User:\",\"root\"
\"Cmdline:\",\"dool -t -d -D total,vda --output a.csv 1 2\",,,,\"Date:\",\"29 Nov 2026 20:56:06 CET\"
\"system\",\"dsk/total\",,\"dsk/vda\",
\"time\",\"dsk/total:read\",\"dsk/total:writ\",\"dsk/vda:read\",\"dsk/vda:writ\"
Nov-29 20:56:06,15.292,4.708,,
";

    #[test]
    fn appended_runs() {
        let p = parse_csv(APPENDED.as_bytes());
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let d = p.value;
        assert_eq!(d.runs.len(), 2);
        let r0 = &d.runs[0];
        assert_eq!(r0.meta.tool.as_deref(), Some("dool"));
        assert_eq!(r0.meta.cmdline.as_deref(), Some("dool -t -d -D total,vda --output a.csv 1 2"));
        assert_eq!(r0.column("dsk/vda:writ"), Some(4));
        assert_eq!(r0.rows[1].get(4), Some(4.0));
        assert!(r0.rows[0].since_boot && !r0.rows[1].since_boot);
        assert_eq!(
            r0.rows[0].stamp,
            Some(Stamp::NoYear { month: 11, day: 29, time: NaiveTime::from_hms_opt(20, 56, 5).unwrap() })
        );
        let r1 = &d.runs[1];
        assert_eq!(r1.line, 11);
        assert_eq!(r1.meta.host.as_deref(), Some("vm2"));
        assert_eq!(r1.meta.tool.as_deref(), Some("dool"));
        assert_eq!(r1.meta.zone.as_deref(), Some("CET"));
        assert_eq!(r1.rows.len(), 1);
        assert_eq!(r1.rows[0].get(3), None);
    }

    #[test]
    fn time_cells() {
        let t = NaiveTime::from_hms_opt(19, 34, 2).unwrap();
        assert_eq!(parse_time_cell("29-11 19:34:02"), Some(Stamp::NoYear { month: 11, day: 29, time: t }));
        assert_eq!(parse_time_cell("Nov-29 19:34:02"), Some(Stamp::NoYear { month: 11, day: 29, time: t }));
        assert_eq!(
            parse_time_cell("2026-11-29 19:34:02"),
            Some(Stamp::Local(NaiveDate::from_ymd_opt(2026, 11, 29).unwrap().and_time(t)))
        );
        assert_eq!(parse_time_cell("19:34:02"), Some(Stamp::TimeOfDay(t)));
        assert!(matches!(parse_time_cell("29-11 19:34:02.123"), Some(Stamp::NoYear { .. })));
        assert_eq!(parse_time_cell("99-99 19:34:02"), None);
        assert_eq!(parse_time_cell("Ü-ß 1:2:3"), None);
    }

    #[test]
    fn top_cells_and_garbage() {
        let c = parse_top_cell("perf / 56876312:495944").unwrap();
        assert_eq!((c.name, c.values.as_slice()), ("perf", &[56876312.0, 495944.0][..]));
        assert_eq!(parse_top_cell("barad_agent / 0%").unwrap().values, vec![0.0]);
        assert_eq!(parse_top_cell(" / 1:2").unwrap().name, "");
        for junk in [
            "\"",
            "\",\"",
            "\"Host:\",\"",
            "\"Cmdline:\",\"x\",,,,\"Date:\",\"",
            "1,2,3\n\"a\"\n\"b\"\n1,,,,,,,",
        ] {
            let _ = parse_csv(junk.as_bytes());
        }
    }
}
