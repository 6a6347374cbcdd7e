//! `iostat` text reports (sysstat), any version from 7.x to 12.7, any locale.
//!
//! A real report (sysstat 12.6.1, `iostat -x -t 1 240`, bundle `s1_mmap_writeback`):
//!
//! ```text
//! Linux 6.18.44-fc-v669 (vm)     11/29/26     _x86_64_    (2 CPU)
//!
//! 11/29/26 19:38:03
//! avg-cpu:  %user   %nice %system %iowait  %steal   %idle
//!           84.42    0.00   14.57    1.01    0.00    0.00
//!
//! Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util
//! vda              4.00     20.00     1.00  20.00    2.25     5.00 14183.00  83540.00    97.00   0.68    0.66     5.89    0.00      0.00     0.00   0.00    0.00     0.00   50.00    0.08    9.42  12.80
//! ```
//!
//! How it is read (FORMATS.md §0 and §1):
//! * Columns are mapped **by header name**, never by position, so every generation of the
//!   extended header (≤ 9.1.1 `rsec/s avgrq-sz`, 9.1.2 `r_await w_await`, 11.5.7 `rareq-sz`
//!   in kB, 12.1.2 discard without `svctm`, 12.3.1 flush `f/s f_await`), the basic reports
//!   (`tps kB_read/s …`, `Blk_*`, `MB_*`, `kB_dscd`, `kB_w+d`), and `-x -s` are one code path.
//! * The device name is the first field (`Device` / `Device:` header) or the **last** one
//!   (`-h`, `--pretty`, `--compact`, `-j`: header ends with `Device`). `--pretty`'s separate
//!   r/w/d/f sub-tables of one report are merged into one row per device.
//! * Every size is normalised to **bytes** (`kB` = 1024, `MB` = 1024², sectors/`Blk` = 512) and
//!   request sizes to bytes (`avgrq-sz` was in sectors, `rareq-sz` is in kB). `--human`
//!   values (`7,8M`, `59,5k`, `8,9%`) are already absolute and are taken as such.
//! * Decimal commas, ANSI colours and CRLF are accepted; time stamps (`-t`) in any locale,
//!   ISO with zone and sysstat 7 `Time:` lines become [`Stamp`]s; reports without a stamp
//!   keep `stamp: None` and their index (the root crate computes banner date + interval × index).
//! * The first report of every run (banner) is flagged `since_boot` unless the file shows
//!   `-y` (sysstat 12.x prints an extra blank line after the banner when `-y` is used).

use crate::common::names::Names;
use crate::common::number::parse_human;
use crate::common::scrub::Identifiers;
use crate::common::sysstat::{Banner, parse_banner, parse_stamp_line};
use crate::common::{DiagKind, Diags, Format, Parsed, Sniff, Stamp, Summary, Variant};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

pub mod budget;
pub mod drained;
pub mod json;
mod metrics;
pub mod pieces;
mod types;

pub use metrics::{CpuAvg, DeviceMetrics};
use metrics::{CpuCol, Field};
pub use types::{DeviceRow, Iostat, Layout, Report, Run};

// ---------------------------------------------------------------------------------------------
// Columns
// ---------------------------------------------------------------------------------------------

/// What one header column means: a field and the multiplier to bytes (1 for non-sizes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Col {
    /// The device name column.
    Device,
    /// A column iosift does not use (kept silent: new sysstat columns must not break parsing).
    Unknown,
    /// A value: field and unit multiplier (bytes per printed unit; 1 for counts, ms, %).
    Val(Field, f64),
}

const KB: f64 = 1024.0;
const MB: f64 = 1024.0 * 1024.0;
const GB: f64 = 1024.0 * 1024.0 * 1024.0;
const SECTOR: f64 = 512.0;

fn unit_of(u: &str) -> Option<(f64, &'static str)> {
    match u {
        "kB" => Some((KB, "kB")),
        "MB" => Some((MB, "MB")),
        "GB" => Some((GB, "GB")),
        "sec" | "Blk" => Some((SECTOR, "sectors")),
        _ => None,
    }
}

/// Maps a header name (`rkB/s`, `%util`, `Blk_read/s`, `avgqu-sz`, ...) to its meaning.
/// JSON keys are the same names without `%` (see `iostat_json`).
pub(crate) fn classify(name: &str) -> (Col, Option<&'static str>) {
    use Field::*;
    let v = |f| (Col::Val(f, 1.0), None);
    match name {
        "Device" | "Device:" => return (Col::Device, None),
        "tps" => return v(Tps),
        "r/s" => return v(RS),
        "w/s" => return v(WS),
        "d/s" => return v(DS),
        "f/s" => return v(FS),
        "rrqm/s" => return v(RrqmS),
        "wrqm/s" => return v(WrqmS),
        "drqm/s" => return v(DrqmS),
        "rqm/s" => return v(RqmS),
        "%rrqm" => return v(RrqmPct),
        "%wrqm" => return v(WrqmPct),
        "%drqm" => return v(DrqmPct),
        "r_await" => return v(RAwait),
        "w_await" => return v(WAwait),
        "d_await" => return v(DAwait),
        "f_await" => return v(FAwait),
        "await" => return v(Await),
        "aqu-sz" | "avgqu-sz" => return v(AquSz),
        "rareq-sz" => return (Col::Val(RReq, KB), None),
        "wareq-sz" => return (Col::Val(WReq, KB), None),
        "dareq-sz" => return (Col::Val(DReq, KB), None),
        "areq-sz" => return (Col::Val(Req, KB), None),
        "avgrq-sz" => return (Col::Val(Req, SECTOR), None),
        "%util" => return v(Util),
        "svctm" => return v(Svctm),
        _ => {}
    }
    // `rkB/s`, `wMB/s`, `dsec/s`, `kB/s`
    if let Some(stem) = name.strip_suffix("/s") {
        let (field, u) = match stem.as_bytes().first() {
            Some(b'r') => (RBytesS, &stem[1..]),
            Some(b'w') => (WBytesS, &stem[1..]),
            Some(b'd') => (DBytesS, &stem[1..]),
            _ => (BytesS, stem),
        };
        if let Some((mult, unit)) = unit_of(u) {
            return (Col::Val(field, mult), Some(unit));
        }
    }
    // `kB_read/s`, `Blk_wrtn`, `MB_dscd/s`, `kB_w+d/s`
    if let Some((u, what)) = name.split_once('_')
        && let Some((mult, unit)) = unit_of(u)
    {
        let f = match what {
            "read/s" => Some(RBytesS),
            "wrtn/s" => Some(WBytesS),
            "dscd/s" => Some(DBytesS),
            "w+d/s" => Some(WdBytesS),
            "read" => Some(ReadBytes),
            "wrtn" => Some(WrittenBytes),
            "dscd" => Some(DiscardedBytes),
            "w+d" => Some(WdBytes),
            _ => None,
        };
        if let Some(f) = f {
            return (Col::Val(f, mult), Some(unit));
        }
    }
    (Col::Unknown, None)
}

/// Stores one value in its field.
#[inline]
pub(crate) fn set(m: &mut DeviceMetrics, f: Field, v: f64) {
    m.put(f, Some(v));
}

/// Recognises the sysstat generation from the set of header fields.
pub(crate) fn layout_of(mask: u64, colon: bool) -> Layout {
    use Field::*;
    let has = |f: Field| mask & f.bit() != 0;
    if has(FS) || has(FAwait) {
        Layout::Extended12_3_1
    } else if has(DS) || has(DReq) {
        Layout::Extended12_1_2
    } else if has(RReq) || has(WReq) || has(RrqmPct) {
        Layout::Extended11_5_7
    } else if has(RAwait) || has(WAwait) {
        Layout::Extended9_1_2
    } else if has(RS) || has(WS) || has(RrqmS) {
        Layout::ExtendedUpTo9_1_1
    } else if has(RqmS) || has(Req) || has(BytesS) {
        Layout::ExtendedShort
    } else if has(WdBytesS) || has(WdBytes) {
        Layout::BasicShort
    } else if has(DBytesS) || has(DiscardedBytes) {
        Layout::Basic12_1_2
    } else if has(Tps) || has(RBytesS) {
        if colon { Layout::BasicUpTo11_5_6 } else { Layout::Basic11_5_7 }
    } else {
        Layout::Unknown
    }
}

// ---------------------------------------------------------------------------------------------
// Numbers
// ---------------------------------------------------------------------------------------------

/// A parsed number: its value and whether a `--human` size suffix made it absolute bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Num {
    pub v: f64,
    pub abs_bytes: bool,
    pub comma: bool,
    pub suffix: bool,
}

const POW10: [f64; 10] = [1.0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];

/// Fast number reader for sysstat fields: `123.45`, `123,45`, `-1.00`, `7,8M`, `59.5k`, `8,9%`.
///
/// Up to 15 significant digits are read exactly (mantissa / 10^k is correctly rounded, the
/// same result as `str::parse`); anything else falls back to the general parser.
pub(crate) fn parse_num(tok: &[u8]) -> Option<Num> {
    let (body, mult, abs_bytes, suffix) = match tok.last()? {
        b'%' => (&tok[..tok.len() - 1], 1.0, false, true),
        b'B' => (&tok[..tok.len() - 1], 1.0, true, true),
        b'k' | b'K' => (&tok[..tok.len() - 1], KB, true, true),
        b'M' => (&tok[..tok.len() - 1], MB, true, true),
        b'G' => (&tok[..tok.len() - 1], GB, true, true),
        b'T' => (&tok[..tok.len() - 1], GB * KB, true, true),
        b'P' => (&tok[..tok.len() - 1], GB * MB, true, true),
        _ => (tok, 1.0, false, false),
    };
    let (neg, digits) = match body.first()? {
        b'-' => (true, &body[1..]),
        _ => (false, body),
    };
    let mut mant: u64 = 0;
    let mut nd = 0usize;
    let mut frac: Option<usize> = None;
    let mut comma = false;
    for &b in digits {
        match b {
            b'0'..=b'9' => {
                mant = mant.wrapping_mul(10).wrapping_add(u64::from(b - b'0'));
                nd += 1;
                if let Some(f) = frac.as_mut() {
                    *f += 1;
                }
            }
            b'.' | b',' if frac.is_none() => {
                comma = b == b',';
                frac = Some(0);
            }
            _ => return slow_num(tok),
        }
    }
    let f = frac.unwrap_or(0);
    if nd == 0 || nd > 15 || f >= POW10.len() {
        return slow_num(tok);
    }
    let mut v = mant as f64 / POW10[f];
    if neg {
        v = -v;
    }
    Some(Num { v: v * mult, abs_bytes, comma, suffix })
}

fn slow_num(tok: &[u8]) -> Option<Num> {
    let s = std::str::from_utf8(tok).ok()?;
    let v = parse_human(s)?;
    let last = *tok.last()?;
    let suffix = !last.is_ascii_digit() && last != b'.';
    Some(Num {
        v,
        abs_bytes: matches!(last, b'B' | b'k' | b'K' | b'M' | b'G' | b'T' | b'P'),
        comma: tok.contains(&b','),
        suffix,
    })
}

/// Splits on ASCII spaces/tabs, storing token spans in `out` (reused between lines).
fn split_ws(s: &[u8], out: &mut Vec<(u32, u32)>) {
    out.clear();
    let mut i = 0usize;
    let n = s.len().min(u32::MAX as usize);
    while i < n {
        while i < n && (s[i] == b' ' || s[i] == b'\t') {
            i += 1;
        }
        if i >= n {
            break;
        }
        let start = i;
        while i < n && s[i] != b' ' && s[i] != b'\t' {
            i += 1;
        }
        out.push((start as u32, i as u32));
    }
}

fn tok(s: &[u8], span: (u32, u32)) -> &[u8] {
    s.get(span.0 as usize..span.1 as usize).unwrap_or(&[])
}

// ---------------------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------------------

/// A device header in force.
#[derive(Debug, Clone, Default)]
struct Header {
    /// The header line bytes (to reuse the mapping when the next header is identical).
    text: Vec<u8>,
    cols: Vec<Col>,
    device_last: bool,
    mask: u64,
    colon: bool,
    /// Leading blanks of the header line: a row indented more is a `-g` group row
    /// (a pasted file indents every line by one space, header included).
    indent: usize,
}

/// The shared copy of a device name printed as `raw` (`lead`: a group row, printed with
/// a leading space: ` total`). Every report prints the same devices: a name allocated per
/// row was a `malloc` and a `free` for each of the millions of rows of a long capture.
fn device_name(names: &mut Names, raw: &[u8], lead: bool) -> Arc<str> {
    match (std::str::from_utf8(raw), lead) {
        (Ok(name), false) => names.get(name),
        (_, false) => names.get(&String::from_utf8_lossy(raw)),
        (_, true) => names.get(&format!(" {}", String::from_utf8_lossy(raw))),
    }
}

/// Builds [`Iostat`] values; shared with `iostat_json`.
#[derive(Debug, Default)]
pub(crate) struct Builder {
    pub out: Iostat,
    cur: Option<Report>,
    run: usize,
    index: usize,
    run_omits: bool,
    /// Fields of the headers seen in the current report (to tell `--pretty` sub-tables apart).
    report_mask: u64,
    /// Name → row index for sub-table merging (built lazily).
    by_name: HashMap<Arc<str>, usize>,
    /// The device names of the rows read.
    pub names: Names,
    merge_hint: usize,
    /// Rows of the previous report (capacity hint).
    last_devices: usize,
    /// Size of the input in bytes and (estimated) lines, for capacity hints.
    pub input_len: usize,
    pub input_lines: usize,
    pub layout_mask: u64,
    pub layout_colon: bool,
    /// Most bytes the reports' rows may hold (0: no limit); see [`crate::iostat::budget`].
    pub budget: usize,
    /// Bytes the kept reports hold (counted only under a budget).
    held: usize,
    /// Printed reports each kept report stands for (only under a budget).
    counts: Vec<u32>,
    /// Reports merged per kept one now (1 until the budget is first reached).
    factor: u32,
    /// The span being merged (under a budget, after it was reached) and its report count.
    group: Option<(Report, u32)>,
    /// Reports are taken from `out.reports` as they are read (no budget then): what the
    /// file's summary needs of them ([`drained`]).
    pub drain: Option<Box<types::Drained>>,
}

impl Builder {
    /// Starts a new run (a banner line).
    pub fn start_run(&mut self, line: usize, banner: Option<Banner>, omits_since_boot: bool) {
        self.finish_report();
        if !self.out.runs.is_empty() {
            self.run += 1;
        }
        if self.out.banner.is_none() {
            self.out.banner = banner.clone();
        }
        self.out.runs.push(Run { line, banner, omits_since_boot });
        self.index = 0;
        self.run_omits = omits_since_boot;
    }

    /// Marks the current run as started with `-y`.
    pub fn set_omits(&mut self, v: bool) {
        self.run_omits = v;
        if let Some(r) = self.out.runs.last_mut() {
            r.omits_since_boot = v;
        }
    }

    /// Starts a new report at `line`.
    pub fn start_report(&mut self, line: usize, stamp: Option<Stamp>) {
        self.finish_report();
        if self.out.runs.is_empty() {
            self.out.runs.push(Run::default());
        }
        self.cur = Some(Report {
            line,
            run: self.run,
            index: self.index,
            stamp,
            since_boot: self.index == 0 && !self.run_omits,
            cpu: None,
            devices: Vec::with_capacity(self.last_devices),
        });
        self.index += 1;
        self.report_mask = 0;
        self.merge_hint = 0;
        self.by_name.clear();
    }

    /// The report being filled, when any.
    pub fn current(&mut self) -> Option<&mut Report> {
        self.cur.as_mut()
    }

    /// Ends the report being filled.
    pub fn finish_report(&mut self) {
        if let Some(r) = self.cur.take() {
            self.last_devices = r.devices.len();
            // After two reports, reserve room for all of them (input size / report size).
            if self.out.reports.len() == 2
                && let Some(first) = self.out.reports.first()
                && r.line > first.line
                && self.input_len > 0
            {
                let lines_per_report = (r.line - first.line) / 2;
                let est = self.input_lines / lines_per_report.max(1);
                let est = if self.budget > 0 {
                    est.min(self.budget / budget::report_bytes(&r).max(1))
                } else {
                    est
                };
                self.out.reports.reserve(est.min(1 << 20));
            }
            self.keep(r);
        }
    }

    /// Adds a finished report (under the budget when there is one).
    fn keep(&mut self, r: Report) {
        if let Some(d) = &mut self.drain {
            d.see(&r);
        }
        if self.budget == 0 {
            self.out.reports.push(r);
        } else {
            self.keep_within_budget(r);
        }
    }

    /// Keeps report `r` under the budget: merged into the span being built once the
    /// budget was reached, and every kept report merged two to one each time it is reached.
    fn keep_within_budget(&mut self, r: Report) {
        use budget::{halve, merge_into, mergeable};
        if self.factor <= 1 {
            self.push_counted(r, 1);
        } else {
            match self.group.take() {
                Some((mut g, n)) if mergeable(&g, &r) => {
                    merge_into(&mut g, n, r, 1);
                    if n + 1 >= self.factor {
                        self.push_counted(g, n + 1);
                    } else {
                        self.group = Some((g, n + 1));
                    }
                }
                Some((g, n)) => {
                    self.push_counted(g, n);
                    self.group = Some((r, 1));
                }
                None => self.group = Some((r, 1)),
            }
        }
        if self.held > self.budget {
            if self.out.merged_from_line.is_none() {
                self.out.merged_from_line = self.out.reports.iter().find(|r| !r.since_boot).map(|r| r.line);
            }
            let before = self.out.reports.len();
            self.held = halve(&mut self.out.reports, &mut self.counts);
            if self.out.reports.len() == before {
                // Nothing could merge (every report its own run, or since boot): stop
                // trying rather than going over every report again for each new one.
                self.budget = usize::MAX;
                return;
            }
            self.factor = self.factor.max(1).saturating_mul(2);
        }
    }

    fn push_counted(&mut self, r: Report, n: u32) {
        self.held += budget::report_bytes(&r);
        self.out.reports.push(r);
        self.counts.push(n);
    }

    /// Adds a row, merging it into an existing row of the same device when `merge`.
    pub fn push_row(&mut self, row: DeviceRow, merge: bool) {
        let Some(cur) = self.cur.as_mut() else { return };
        if merge {
            let idx = if cur.devices.get(self.merge_hint).is_some_and(|d| d.device == row.device) {
                Some(self.merge_hint)
            } else {
                if self.by_name.is_empty() {
                    for (i, d) in cur.devices.iter().enumerate() {
                        self.by_name.entry(d.device.clone()).or_insert(i);
                    }
                }
                self.by_name.get(&row.device).copied()
            };
            if let Some(i) = idx {
                if let Some(d) = cur.devices.get_mut(i) {
                    merge_metrics(&mut d.m, &row.m);
                }
                self.merge_hint = i + 1;
                return;
            }
            self.by_name.insert(row.device.clone(), cur.devices.len());
        }
        cur.devices.push(row);
    }

    /// Finishes: derives the interval and stamp facts.
    pub fn finish(mut self) -> Iostat {
        self.finish_report();
        if let Some((g, n)) = self.group.take() {
            self.push_counted(g, n);
        }
        let mut out = self.out;
        out.merged = if self.factor > 1 { self.factor } else { 0 };
        out.layout = if self.layout_mask != 0 {
            layout_of(self.layout_mask, self.layout_colon)
        } else if out.reports.iter().any(|r| r.cpu.is_some()) {
            Layout::CpuOnly
        } else {
            Layout::Unknown
        };
        out.has_t = out.reports.iter().any(|r| r.stamp.is_some());
        out.interval_s = drained::derive_interval(&out.reports, |r| r.run, |r| r.stamp.as_ref());
        if let Some(d) = &self.drain {
            // The reports read before were taken: the facts of all of them.
            if self.layout_mask == 0 && d.any_cpu {
                out.layout = Layout::CpuOnly;
            }
            out.has_t = d.has_t();
            out.interval_s = d.interval();
        }
        out.drained = self.drain.map(|d| *d);
        out
    }
}

fn merge_metrics(dst: &mut DeviceMetrics, src: &DeviceMetrics) {
    dst.take_printed(src);
}

fn stamp_form(s: &Stamp, text: &str) -> &'static str {
    match s {
        Stamp::Zoned(_) => "iso-zoned",
        Stamp::Epoch(_) => "epoch",
        Stamp::TimeOfDay(_) => "time-of-day",
        Stamp::Local(_) | Stamp::NoYear { .. } | Stamp::SinceBoot(_) => {
            let date = text.split_whitespace().next().unwrap_or("");
            let form = crate::common::sysstat::parse_date(date).form;
            if form == "unknown" && text.contains('년') { "korean" } else { form }
        }
    }
}

/// Reads a `-t` stamp line, reusing the date of the previous stamp when its text is the same
/// (`11/29/26 19:38:03` → only `19:38:03` is parsed again).
struct StampCache {
    date_text: String,
    date: Option<chrono::NaiveDate>,
}

impl StampCache {
    fn parse(&mut self, line: &str) -> Option<Stamp> {
        let t = line.trim();
        if let Some((d, rest)) = t.split_once(' ')
            && self.date.is_some()
            && d == self.date_text
            && rest.len() == 8
            && let Some(tod) = fast_hms(rest.as_bytes())
        {
            return self.date.map(|date| Stamp::Local(date.and_time(tod)));
        }
        let s = parse_stamp_line(t)?;
        if let Stamp::Local(n) = s
            && let Some((d, _)) = t.split_once(' ')
        {
            self.date_text.clear();
            self.date_text.push_str(d);
            self.date = Some(n.date());
        }
        Some(s)
    }
}

fn fast_hms(b: &[u8]) -> Option<chrono::NaiveTime> {
    if b.len() != 8 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    let two = |i: usize| -> Option<u32> {
        let (x, y) = (b[i], b[i + 1]);
        (x.is_ascii_digit() && y.is_ascii_digit()).then(|| u32::from(x - b'0') * 10 + u32::from(y - b'0'))
    };
    crate::common::time::hms(two(0)?, two(3)?, two(6)?, 0)
}

/// What the previous content line was (drives how the next line is read).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    Anything,
    CpuValues,
}

/// Parses `iostat` text.
pub fn parse_text(input: &[u8]) -> Parsed<Iostat> {
    parse_source(&mut crate::common::SliceSource::new(input))
}

/// Parses `iostat` text fed line by line (a file streamed by the application in
/// fixed-size reads gives the same result as [`parse_text`] of the whole file).
pub fn parse_source(src: &mut impl crate::common::LineSource) -> Parsed<Iostat> {
    parse_source_within(src, 0)
}

/// [`parse_source`] keeping the reports' rows within about `budget` bytes (0: no limit):
/// past it, consecutive reports are merged two to one, then four to one, ...
/// ([`crate::iostat::budget`]); [`Iostat::merged`] says by how much.
pub fn parse_source_within(src: &mut impl crate::common::LineSource, budget: usize) -> Parsed<Iostat> {
    let mut r = TextReader::new(src.len_hint(), budget);
    while let Some(sl) = src.next_line() {
        r.read_line(sl.line, sl.cut);
    }
    r.finish(budget)
}

/// The state of reading an `iostat` text file line by line.
struct TextReader {
    b: Builder,
    d: Diags,
    header: Option<Header>,
    cpu_cols: Vec<CpuCol>,
    expect: Expect,
    spans: Vec<(u32, u32)>,
    stamps: StampCache,
    /// Blank lines seen right after a banner (2 ⇒ `-y` on sysstat 12.x).
    after_banner: Option<usize>,
    merge_rows: bool,
    lines_total: usize,
    /// The table rows below `header` are being read.
    table_open: bool,
    comma: bool,
    human: bool,
    ansi: bool,
    unit: Option<&'static str>,
    device_last: bool,
    subtables: bool,
    /// The file is read again after a drained parse ([`drained`]): its stamps are not repaired here.
    replay: bool,
}

impl TextReader {
    fn new(input_len: usize, budget: usize) -> Self {
        let mut b = Builder { input_len, budget, ..Builder::default() };
        // ~60 bytes per line on average in iostat reports (a capacity hint only).
        b.input_lines = input_len / 60;
        TextReader {
            b,
            d: Diags::default(),
            header: None,
            cpu_cols: Vec::new(),
            expect: Expect::Anything,
            spans: Vec::with_capacity(32),
            stamps: StampCache { date_text: String::new(), date: None },
            after_banner: None,
            merge_rows: false,
            lines_total: 0,
            table_open: false,
            comma: false,
            human: false,
            ansi: false,
            unit: None,
            device_last: false,
            subtables: false,
            replay: false,
        }
    }

    /// Reads one line (`is_last`: the last line of a file that does not end with a
    /// newline, a cut report).
    fn read_line(&mut self, line: crate::common::Line<'_>, is_last: bool) {
        let no = line.no;
        self.lines_total = no;
        // Rows are read as bytes; text is only decoded (lossily) for stamps, banners and diagnostics.
        let cleaned: Cow<'_, str>;
        let bytes: &[u8] = if memchr::memchr(0x1b, line.bytes).is_some() {
            self.ansi = true;
            cleaned = line.clean_text();
            cleaned.as_bytes()
        } else {
            line.bytes
        };
        if self.read_fast(bytes, no) {
            return;
        }
        split_ws(bytes, &mut self.spans);
        if self.spans.is_empty() {
            if let Some(n) = self.after_banner.as_mut() {
                *n += 1;
            }
            return;
        }
        self.end_banner_blanks();
        self.read_split(bytes, no, is_last);
    }

    /// The lines read without splitting them: a row of the open table, the values
    /// after `avg-cpu:`, the same device header as before (every report reprints it).
    /// True when the line was one of them.
    fn read_fast(&mut self, bytes: &[u8], no: usize) -> bool {
        // Hot path: a row of the open table, read in one pass.
        if self.table_open
            && self.expect == Expect::Anything
            && let Some(h) = self.header.as_ref()
            && let Ok((row, c, hu)) = read_row_fused(bytes, h, no, &mut self.b.names)
        {
            self.comma |= c;
            self.human |= hu;
            self.b.push_row(row, self.merge_rows);
            self.after_banner = None;
            return true;
        }
        //           84.42    0.00   14.57    1.01    0.00    0.00   (after `avg-cpu:`)
        if self.expect == Expect::CpuValues
            && let Some((cpu, c, hu)) = read_cpu_fused(bytes, &self.cpu_cols)
        {
            self.expect = Expect::Anything;
            self.comma |= c;
            self.human |= hu;
            if let Some(r) = self.b.current() {
                r.cpu = Some(cpu);
            }
            return true;
        }
        if self.expect == Expect::Anything
            && let Some(h) = self.header.as_ref()
            && h.text.as_slice() == bytes
        {
            if let Some(n) = self.after_banner.take()
                && n >= 2
            {
                self.b.set_omits(true);
            }
            let (m, sub) = enter_table(&mut self.b, h, no);
            self.merge_rows = m;
            self.subtables |= sub;
            self.table_open = true;
            return true;
        }
        false
    }

    /// A content line after a banner ends its blank lines: two of them mean `-y`.
    fn end_banner_blanks(&mut self) {
        if let Some(n) = self.after_banner.take()
            && n >= 2
        {
            self.b.set_omits(true);
        }
    }

    /// Reads a line split into `self.spans`.
    fn read_split(&mut self, bytes: &[u8], no: usize, is_last: bool) {
        let first = tok(bytes, self.spans[0]);
        let last = tok(bytes, self.spans[self.spans.len() - 1]);
        // avg-cpu:  %user   %nice %system %iowait  %steal   %idle
        if first == b"avg-cpu:" {
            self.cpu_header(bytes, no);
            return;
        }
        if self.expect == Expect::CpuValues {
            self.expect = Expect::Anything;
            if self.cpu_values(bytes) {
                return;
            }
            if is_last && self.spans.len() < self.cpu_cols.len() {
                self.d.skip(no, DiagKind::Truncated, &*String::from_utf8_lossy(bytes));
                return;
            }
            // Not a value line: fall through and read it as anything else.
        }
        // Device header: `Device:  rrqm/s …`, `Device  r/s …`, or `… %util Device` (pretty/-h).
        let dev_first = first == b"Device" || first == b"Device:";
        let dev_last_hdr = !dev_first && last == b"Device" && self.spans.len() > 1;
        if dev_first || dev_last_hdr {
            self.device_header(bytes, no, dev_last_hdr, first == b"Device:");
            return;
        }
        self.read_other(bytes, no, is_last);
    }

    /// `avg-cpu:  %user   %nice %system %iowait  %steal   %idle`: the columns of the next line.
    fn cpu_header(&mut self, bytes: &[u8], no: usize) {
        self.cpu_cols.clear();
        for &sp in &self.spans[1..] {
            self.cpu_cols.push(match tok(bytes, sp) {
                b"%user" => CpuCol::User,
                b"%nice" => CpuCol::Nice,
                b"%system" | b"%sys" => CpuCol::System,
                b"%iowait" => CpuCol::Iowait,
                b"%steal" => CpuCol::Steal,
                b"%idle" => CpuCol::Idle,
                _ => CpuCol::Other,
            });
        }
        let new = match self.b.current() {
            Some(r) => r.cpu.is_some() || !r.devices.is_empty() || self.b.report_mask != 0,
            None => true,
        };
        if new {
            self.b.start_report(no, None);
        }
        self.table_open = false;
        self.expect = Expect::CpuValues;
    }

    /// `          84.42    0.00   14.57    1.01    0.00    0.00` (split): true when read.
    fn cpu_values(&mut self, bytes: &[u8]) -> bool {
        if self.spans.len() != self.cpu_cols.len() {
            return false;
        }
        let mut cpu = CpuAvg::default();
        for (i, &sp) in self.spans.iter().enumerate() {
            let Some(n) = parse_num(tok(bytes, sp)) else {
                return false;
            };
            self.comma |= n.comma;
            self.human |= n.suffix;
            if let Some(&c) = self.cpu_cols.get(i) {
                cpu.put(c, n.v);
            }
        }
        if let Some(r) = self.b.current() {
            r.cpu = Some(cpu);
        }
        true
    }

    /// A device header (`colon`: `Device:`); opens its table.
    fn device_header(&mut self, bytes: &[u8], no: usize, dev_last_hdr: bool, colon: bool) {
        let reuse = self.header.as_ref().is_some_and(|h| h.text == bytes);
        let h = if reuse {
            self.header.take().unwrap_or_default()
        } else {
            let mut h = Header {
                text: bytes.to_vec(),
                cols: Vec::with_capacity(self.spans.len()),
                device_last: dev_last_hdr,
                mask: 0,
                colon,
                indent: bytes.iter().take_while(|c| is_ws(**c)).count(),
            };
            for &sp in &self.spans {
                let name = std::str::from_utf8(tok(bytes, sp)).unwrap_or("");
                let (c, u) = classify(name);
                if let Col::Val(f, _) = c {
                    h.mask |= f.bit();
                }
                if u.is_some() && self.unit.is_none() {
                    self.unit = u;
                }
                h.cols.push(c);
            }
            h
        };
        let (m, sub) = enter_table(&mut self.b, &h, no);
        self.merge_rows = m;
        self.subtables |= sub;
        self.device_last |= h.device_last;
        self.header = Some(h);
        self.table_open = true;
    }

    /// A device row the fast path did not take, a banner, a time stamp, or a line skipped.
    fn read_other(&mut self, bytes: &[u8], no: usize, is_last: bool) {
        // Device row: `vda   4.00  20.00 …` (or `… 12.80 vda` when the device is last).
        let open = self.header.as_ref().filter(|_| self.table_open);
        let mut bad_row = false;
        if let Some(h) = open
            && self.spans.len() == h.cols.len()
        {
            match read_row(bytes, &self.spans, h, no, &mut self.b.names) {
                Ok((row, c, hu)) => {
                    self.comma |= c;
                    self.human |= hu;
                    self.b.push_row(row, self.merge_rows);
                    return;
                }
                Err(()) => bad_row = true,
            }
        }
        let text = || String::from_utf8_lossy(bytes);
        // Banner: `Linux 6.18.44-fc-v669 (vm) \t11/29/26 \t_x86_64_\t(2 CPU)`
        if memchr::memchr(b'(', bytes).is_some()
            && let Some(banner) = parse_banner(&text())
        {
            self.b.start_run(no, Some(banner), false);
            self.table_open = false;
            self.after_banner = Some(0);
            return;
        }
        // Time stamp line: `11/29/26 19:38:03`, `2026-11-29T19:31:40+0000`, `Time: 03:49:57 PM`.
        if let Some(s) = try_stamp(bytes, &mut self.stamps) {
            begin_stamped(&mut self.b, no, s, bytes);
            self.table_open = false;
            return;
        }
        let open = self.header.as_ref().filter(|_| self.table_open);
        let kind = match open {
            Some(_) if bad_row => DiagKind::BadNumber,
            Some(h) if is_last && self.spans.len() < h.cols.len() => DiagKind::Truncated,
            Some(_) => DiagKind::FieldCount,
            None if self.b.out.runs.is_empty() => DiagKind::Malformed,
            None => DiagKind::NoHeader,
        };
        self.d.skip(no, kind, &*text());
    }

    /// The value read, its diagnostics, the merge note under a budget.
    fn finish(self, budget: usize) -> Parsed<Iostat> {
        let mut d = self.d;
        let replay = self.replay;
        let mut out = self.b.finish();
        // A garbled stamp (or a stamp line cut) is placed by its run's series, not hours away.
        match &mut out.drained {
            Some(dr) => {
                dr.repair(&mut d);
                // The reports not taken yet are the file's last.
                let first = dr.reports - out.reports.len();
                out.reports.iter_mut().enumerate().for_each(|(k, r)| dr.fix(first + k, r));
            }
            // Read again: the first read's repairs are the application's to apply.
            None if replay => {}
            None => crate::common::series::repair_runs(
                &mut out.reports,
                |r| r.run,
                |r| &mut r.stamp,
                |r| r.line,
                &mut d,
            ),
        }
        out.unit = self.unit;
        out.human = self.human;
        out.decimal_comma = self.comma;
        out.ansi = self.ansi;
        out.device_last = self.device_last;
        out.pretty_subtables = self.subtables;
        if out.merged > 1 {
            d.note(
                out.merged_from_line.unwrap_or(1),
                DiagKind::Unsupported,
                crate::common::sysstat::merged_note(out.merged, budget),
            );
        }
        d.finish(out, self.lines_total)
    }
}

fn try_stamp(bytes: &[u8], cache: &mut StampCache) -> Option<Stamp> {
    let c = *bytes.iter().find(|c| !c.is_ascii_whitespace())?;
    if !(c.is_ascii_digit() || c == b'T') || bytes.len() > 80 {
        return None;
    }
    // `11/29/26 19:38:04` right after `11/29/26 19:38:03`: only the time is new.
    let dl = cache.date_text.len();
    if let Some(date) = cache.date
        && dl > 0
        && bytes.len() == dl + 9
        && bytes.starts_with(cache.date_text.as_bytes())
        && bytes.get(dl) == Some(&b' ')
        && let Some(t) = bytes.get(dl + 1..).and_then(fast_hms)
    {
        return Some(Stamp::Local(date.and_time(t)));
    }
    cache.parse(&String::from_utf8_lossy(bytes))
}

fn begin_stamped(b: &mut Builder, no: usize, s: Stamp, bytes: &[u8]) {
    if b.out.stamp_form.is_none() {
        b.out.stamp_form = Some(stamp_form(&s, String::from_utf8_lossy(bytes).trim()));
    }
    b.start_report(no, Some(s));
}

/// A device header line starts a table: a new report, or a further `--pretty` sub-table
/// of the same report (its columns do not overlap the ones seen). Returns (merge rows, sub-table).
fn enter_table(b: &mut Builder, h: &Header, no: usize) -> (bool, bool) {
    b.layout_mask |= h.mask;
    b.layout_colon |= h.colon;
    let mut sub = false;
    if b.current().is_none() {
        b.start_report(no, None);
    } else if b.report_mask == 0 {
        // After a stamp or an avg-cpu block: the same report.
    } else if b.report_mask & h.mask == 0 {
        sub = true;
    } else {
        b.start_report(no, None);
    }
    let merge = b.report_mask != 0;
    b.merge_hint = 0;
    b.report_mask |= h.mask;
    (merge, sub)
}

/// Reads the value line of an `avg-cpu:` block in one pass.
fn read_cpu_fused(bytes: &[u8], cols: &[CpuCol]) -> Option<(CpuAvg, bool, bool)> {
    let n = bytes.len();
    let mut i = 0usize;
    let mut cpu = CpuAvg::default();
    let (mut comma, mut human) = (false, false);
    for col in cols {
        while i < n && is_ws(bytes[i]) {
            i += 1;
        }
        if i >= n {
            return None;
        }
        let v = scan_num(bytes, &mut i)?;
        comma |= v.comma;
        human |= v.suffix;
        cpu.put(*col, v.v);
    }
    while i < n && is_ws(bytes[i]) {
        i += 1;
    }
    (i >= n && !cols.is_empty()).then_some((cpu, comma, human))
}

#[inline]
fn is_ws(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// Reads a number starting at `*i` up to the next blank, in one pass (the hot path of
/// every row); odd forms fall back to [`parse_num`] on the whole token.
#[inline(always)]
fn scan_num(b: &[u8], i: &mut usize) -> Option<Num> {
    let start = *i;
    let n = b.len();
    let mut j = start;
    let neg = j < n && b[j] == b'-';
    if neg {
        j += 1;
    }
    let mut mant: u64 = 0;
    let mut nd = 0usize;
    let mut frac = 0usize;
    let mut sep = false;
    let mut comma = false;
    while j < n {
        let c = b[j];
        let d = c.wrapping_sub(b'0');
        if d < 10 {
            mant = mant.wrapping_mul(10).wrapping_add(u64::from(d));
            nd += 1;
            frac += usize::from(sep);
        } else if (c == b'.' || c == b',') && !sep {
            sep = true;
            comma = c == b',';
        } else {
            break;
        }
        j += 1;
    }
    let mut mult = 1.0;
    let mut abs_bytes = false;
    let mut suffix = false;
    if j < n && !is_ws(b[j]) {
        suffix = true;
        match b[j] {
            b'%' => {}
            b'B' => abs_bytes = true,
            b'k' | b'K' => (mult, abs_bytes) = (KB, true),
            b'M' => (mult, abs_bytes) = (MB, true),
            b'G' => (mult, abs_bytes) = (GB, true),
            b'T' => (mult, abs_bytes) = (GB * KB, true),
            b'P' => (mult, abs_bytes) = (GB * MB, true),
            _ => suffix = false,
        }
        if suffix {
            j += 1;
        }
    }
    if (j < n && !is_ws(b[j])) || nd == 0 || nd > 15 || frac >= POW10.len() {
        // Unusual token: find its end and use the general reader.
        let mut e = j;
        while e < n && !is_ws(b[e]) {
            e += 1;
        }
        *i = e;
        return parse_num(b.get(start..e)?);
    }
    *i = j;
    let v = mant as f64 / POW10[frac];
    Some(Num { v: if neg { -v } else { v } * mult, abs_bytes, comma, suffix })
}

/// One-pass row reader: tokens are read straight into their columns. `Err` when the line
/// is not a row of `h` (wrong field count, a non-number), so the caller tries other readings.
fn read_row_fused(
    bytes: &[u8],
    h: &Header,
    no: usize,
    names: &mut Names,
) -> Result<(DeviceRow, bool, bool), ()> {
    let n = bytes.len();
    let mut i = 0usize;
    let mut m = DeviceMetrics::default();
    // The name's span and leading-space flag; the String is made only once the whole line
    // reads as a row (stamp, `avg-cpu:` and header lines are tried here first and fail).
    let mut device: Option<(usize, usize, bool)> = None;
    let mut comma = false;
    let mut human = false;
    for (ci, col) in h.cols.iter().enumerate() {
        while i < n && is_ws(bytes[i]) {
            i += 1;
        }
        if i >= n {
            return Err(());
        }
        match *col {
            Col::Device => {
                let s = i;
                while i < n && !is_ws(bytes[i]) {
                    i += 1;
                }
                // Group rows (`-g`) are printed with a leading space: ` total`.
                let lead = ci == 0 && !h.device_last && s > h.indent;
                device = Some((s, i, lead));
            }
            Col::Unknown => {
                scan_num(bytes, &mut i).ok_or(())?;
            }
            Col::Val(f, mult) => {
                let v = scan_num(bytes, &mut i).ok_or(())?;
                comma |= v.comma;
                human |= v.suffix;
                set(&mut m, f, if v.abs_bytes { v.v } else { v.v * mult });
            }
        }
    }
    while i < n && is_ws(bytes[i]) {
        i += 1;
    }
    if i < n {
        return Err(());
    }
    let (s, e, lead) = device.ok_or(())?;
    let device = device_name(names, bytes.get(s..e).unwrap_or(&[]), lead);
    Ok((DeviceRow { line: no, device, m }, comma, human))
}

/// Reads one device row; `Err` when a value field is not a number.
fn read_row(
    bytes: &[u8],
    spans: &[(u32, u32)],
    h: &Header,
    no: usize,
    names: &mut Names,
) -> Result<(DeviceRow, bool, bool), ()> {
    let mut m = DeviceMetrics::default();
    let mut device: Option<Arc<str>> = None;
    let mut comma = false;
    let mut human = false;
    for (i, (&sp, col)) in spans.iter().zip(&h.cols).enumerate() {
        let t = tok(bytes, sp);
        match *col {
            Col::Device => {
                // Group rows (`-g`) are printed with a leading space: ` total`.
                let lead =
                    i == 0 && !h.device_last && bytes.iter().take_while(|c| is_ws(**c)).count() > h.indent;
                device = Some(device_name(names, t, lead));
            }
            Col::Unknown => {
                parse_num(t).ok_or(())?;
            }
            Col::Val(f, mult) => {
                let n = parse_num(t).ok_or(())?;
                comma |= n.comma;
                human |= n.suffix;
                let v = if n.abs_bytes { n.v } else { n.v * mult };
                set(&mut m, f, v);
            }
        }
    }
    let device = device.ok_or(())?;
    Ok((DeviceRow { line: no, device, m }, comma, human))
}

impl Summary for Iostat {
    fn records(&self) -> usize {
        self.drained.as_ref().map_or(self.reports.len(), |d| d.reports)
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        v.insert("layout", self.layout.as_str().to_string());
        if let Some(u) = self.unit {
            v.insert("unit", u.to_string());
        }
        if let Some(b) = &self.banner {
            v.insert("date_form", b.date_form.to_string());
            let locale = match b.date_form {
                "mm/dd/yy" => Some("C/POSIX"),
                "mm/dd/yyyy" => Some("en_US-like"),
                "dd/mm/yy" => Some("en_GB-like"),
                "dd/mm/yyyy" => Some("fr_FR-like"),
                "dd.mm.yyyy" | "dd.mm.yy" => Some("de_DE-like"),
                "cjk" => Some("ja_JP/zh_CN-like"),
                "korean" => Some("ko_KR"),
                "iso" => Some("S_TIME_FORMAT=ISO"),
                _ => None,
            };
            if let Some(l) = locale {
                v.insert("locale", l.to_string());
            }
            v.insert("host", b.nodename.clone());
            v.insert("kernel", b.release.clone());
        }
        if let Some(f) = self.stamp_form {
            v.insert("stamp_form", f.to_string());
        }
        v.insert("has_t", self.has_t.to_string());
        if self.merged > 1 {
            v.insert("reports_merged", crate::common::sysstat::merged_variant(self.merged));
        }
        v.insert("device_last", self.device_last.to_string());
        v.insert("json", self.json.to_string());
        if self.pretty_subtables {
            v.insert("pretty_subtables", "true".to_string());
        }
        if self.human {
            v.insert("human", "true".to_string());
        }
        if self.decimal_comma {
            v.insert("decimal_sep", ",".to_string());
        }
        if self.ansi {
            v.insert("ansi", "true".to_string());
        }
        if let Some(i) = self.interval_s {
            v.insert("interval_s", format!("{i}"));
        }
        v.insert("runs", self.runs.len().to_string());
        if self.runs.iter().any(|r| r.omits_since_boot) {
            v.insert("omits_since_boot", "true".to_string());
        }
        let devs: std::collections::BTreeSet<&str> = match &self.drained {
            Some(d) => d.write_sums.keys().map(|n| &**n).collect(),
            None => self.reports.iter().flat_map(|r| r.devices.iter().map(|d| &*d.device)).collect(),
        };
        if !devs.is_empty() && devs.len() <= 16 {
            v.insert("devices", devs.into_iter().collect::<Vec<_>>().join(","));
        } else if !devs.is_empty() {
            v.insert("devices", format!("{} devices", devs.len()));
        }
        v
    }

    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        if let Some(d) = &self.drained {
            return d.first.zip(d.last);
        }
        let first = self.reports.iter().find_map(|r| r.stamp)?;
        let last = self.reports.iter().rev().find_map(|r| r.stamp)?;
        Some((first, last))
    }
}

/// True when `line` is an iostat device header (`Device …` / `… Device`) with iostat column names.
fn is_device_header(line: &str) -> bool {
    let mut toks = line.split_whitespace();
    let Some(first) = toks.next() else { return false };
    let rest: Vec<&str> = toks.collect();
    let names: &[&str] = if first == "Device" || first == "Device:" {
        &rest
    } else if rest.last() == Some(&"Device") {
        // `      tps    kB_read/s … Device` (pretty): include the first token.
        return classify(first).0 != Col::Unknown
            && rest.iter().take(rest.len().saturating_sub(1)).all(|t| classify(t).0 != Col::Unknown);
    } else {
        return false;
    };
    !names.is_empty() && names.iter().all(|t| classify(t).0 != Col::Unknown)
}

/// The `iostat` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Iostat;
    const ID: &'static str = "iostat";
    const SAMPLE: &'static str = "Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util";
    const DESCRIPTION: &'static str =
        "sysstat iostat text reports (any version, -x/-s/-h/--pretty/-p/-g/-N, -t stamps, any locale)";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let text = String::from_utf8_lossy(head);
        let mut banner = false;
        let mut seen = 0;
        let n_lines = text.lines().count();
        for (i, raw) in text.lines().enumerate() {
            let l = crate::common::lines::strip_ansi(Cow::Borrowed(raw));
            let t = l.trim();
            if t.is_empty() {
                continue;
            }
            seen += 1;
            if seen == 1 && parse_banner(&l).is_some() {
                banner = true;
                continue;
            }
            // The last line of the head may be cut: only whole lines count for headers.
            let whole = i + 1 < n_lines || head.len() < crate::common::SNIFF_BYTES;
            if t.starts_with("avg-cpu:") && t.contains("%user") && t.contains("%idle") {
                return Sniff::Yes;
            }
            if (t.starts_with("Device") || t.ends_with(" Device")) && (whole && is_device_header(t)) {
                return Sniff::Yes;
            }
            if t.starts_with("Device") && !whole && banner {
                let ok = t.split_whitespace().skip(1).take(3).all(|n| classify(n).0 != Col::Unknown);
                if ok {
                    return Sniff::Yes;
                }
            }
            if seen > 8 {
                break;
            }
        }
        Sniff::No
    }

    fn parse(input: &[u8]) -> Parsed<Iostat> {
        parse_text(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        let n = |s: &str| parse_num(s.as_bytes()).map(|n| n.v);
        assert_eq!(n("123.45"), Some(123.45));
        assert_eq!(n("48,29"), Some(48.29));
        assert_eq!(n("-1.00"), Some(-1.0));
        assert_eq!(n("7,8M"), Some(7.8 * MB));
        assert_eq!(n("59.5k"), Some(59.5 * KB));
        assert_eq!(n("8,9%"), Some(8.9));
        assert_eq!(n("1597749"), Some(1597749.0));
        assert_eq!(n("abc"), None);
        assert_eq!(n(""), None);
        assert_eq!(n("-"), None);
        assert_eq!(n("1.2.3"), None);
        assert_eq!(n("12345678901234567890.5"), Some(12345678901234567890.5));
        // Exactly the same as the standard parser.
        for s in ["0.07", "14183.00", "83540.00", "0.66", "1180.42", "34930.03"] {
            assert_eq!(n(s), s.parse::<f64>().ok());
        }
    }

    #[test]
    fn one_pass_reader_agrees_with_token_reader() {
        for t in [
            "0.00",
            "14183.00",
            "48,29",
            "-1.00",
            "7,8M",
            "59.5k",
            "8,9%",
            "0.0B",
            "1597749",
            "1.5G",
            "12345678901234567.5",
            "1e5",
            "abc",
            "1.2.3",
            "-",
            "%",
            "12x",
        ] {
            let line = format!("  {t}   ");
            let mut i = 0;
            while line.as_bytes()[i] == b' ' {
                i += 1;
            }
            let a = scan_num(line.as_bytes(), &mut i);
            let b = parse_num(t.as_bytes());
            assert_eq!(a, b, "{t}");
        }
    }

    #[test]
    fn header_names() {
        assert_eq!(classify("rkB/s").0, Col::Val(Field::RBytesS, KB));
        assert_eq!(classify("wsec/s").0, Col::Val(Field::WBytesS, SECTOR));
        assert_eq!(classify("dMB/s").0, Col::Val(Field::DBytesS, MB));
        assert_eq!(classify("kB/s").0, Col::Val(Field::BytesS, KB));
        assert_eq!(classify("Blk_read/s").0, Col::Val(Field::RBytesS, SECTOR));
        assert_eq!(classify("MB_wrtn").0, Col::Val(Field::WrittenBytes, MB));
        assert_eq!(classify("kB_w+d/s").0, Col::Val(Field::WdBytesS, KB));
        assert_eq!(classify("avgrq-sz").0, Col::Val(Field::Req, SECTOR));
        assert_eq!(classify("rareq-sz").0, Col::Val(Field::RReq, KB));
        assert_eq!(classify("avgqu-sz").0, Col::Val(Field::AquSz, 1.0));
        assert_eq!(classify("Device:").0, Col::Device);
        assert_eq!(classify("bogus").0, Col::Unknown);
    }

    const X_T: &str = "Linux 6.18.44-fc-v669 (vm) \t11/29/26 \t_x86_64_\t(2 CPU)\n\n\
11/29/26 19:38:03\n\
avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n\
          84.42    0.00   14.57    1.01    0.00    0.00\n\n\
Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util\n\
vda              4.00     20.00     1.00  20.00    2.25     5.00 14183.00  83540.00    97.00   0.68    0.66     5.89    0.00      0.00     0.00   0.00    0.00     0.00   50.00    0.08    9.42  12.80\n\n\n";

    #[test]
    fn one_extended_report() {
        let p = parse_text(X_T.as_bytes());
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let r = &p.value.reports[0];
        assert!(r.since_boot);
        assert_eq!(r.line, 3);
        let cpu = r.cpu.unwrap();
        assert_eq!(cpu.user(), Some(84.42));
        assert_eq!(cpu.iowait(), Some(1.01));
        let d = &r.devices[0];
        assert_eq!(&*d.device, "vda");
        assert_eq!(d.line, 8);
        assert_eq!(d.m.w_s(), Some(14183.0));
        assert_eq!(d.m.w_bytes_s(), Some(83540.0 * 1024.0));
        assert_eq!(d.m.w_req_bytes(), Some(5.89 * 1024.0));
        assert_eq!(d.m.f_s(), Some(50.0));
        assert_eq!(d.m.util_pct(), Some(12.8));
        assert_eq!(p.value.layout, Layout::Extended12_3_1);
        assert_eq!(Fmt::sniff(X_T.as_bytes()), Sniff::Yes);
    }

    #[test]
    fn truncated_row_and_garbage_never_panic() {
        let cut = &X_T[..X_T.find("14183.00").unwrap()];
        let p = parse_text(cut.as_bytes());
        assert_eq!(p.diagnostics.len(), 1);
        assert_eq!(p.diagnostics[0].kind, DiagKind::Truncated);
        for i in 0..X_T.len() {
            if X_T.is_char_boundary(i) {
                let _ = parse_text(&X_T.as_bytes()[..i]);
            }
        }
        let _ = parse_text(b"\xff\xfe(\x1b[\n Device\nDevice\n\n1 2 3\navg-cpu:\n");
    }

    #[test]
    fn pretty_subtables_merge() {
        let s = "Linux 1.2.3-TEST (SYSSTAT.TEST) \t06/01/20 \t_x86_64_\t(9 CPU)\n\n\
     r/s     rkB/s Device\n    6.90    222.14 sda\n    0.01      0.29 sdb\n\n\
     w/s     wkB/s Device\n    1.69     57.08 sda\n    0.00      0.00 sdb\n\n\n\
     r/s     rkB/s Device\n    1.00    2.00 sda\n    0.00      0.00 sdb\n\n\
     w/s     wkB/s Device\n    3.00     4.00 sda\n    0.00      0.00 sdb\n\n\n";
        let p = parse_text(s.as_bytes());
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        assert_eq!(p.value.reports.len(), 2);
        let r = &p.value.reports[0];
        assert_eq!(r.devices.len(), 2);
        assert_eq!(r.devices[0].m.r_s(), Some(6.9));
        assert_eq!(r.devices[0].m.w_s(), Some(1.69));
        assert_eq!(p.value.reports[1].devices[0].m.w_s(), Some(3.0));
        assert!(p.value.device_last && p.value.pretty_subtables);
    }
}
