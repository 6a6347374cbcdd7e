//! `vmstat` (procps / procps-ng 3.2 … 4.0), FORMATS.md §3.
//!
//! A real sample (`LC_ALL=de_DE.UTF-8 vmstat -t 1 30`, procps-ng 4.0.2, bundle s4):
//!
//! ```text
//! procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu----- ----Zeitstempel----
//!  r  b   swpd   frei   buff  Cache   si   so    bi    bo   in   cs us sy id wa st                 UTC
//! 13  0      0 13015612  23992 10287308    0    0  7706 17517 1698 3724 71 13 16  0  0 2026-11-29 19:52:39
//!  3  0      0 13015612  23992 10287308    0    0     0     0  546  135 98  3  0  0  0 2026-11-29 19:52:40
//! ```
//!
//! Column headers are translated by procps-ng (`frei`, `Cache`, Korean `스왑 가용 버퍼 캐시`),
//! so columns are mapped **by position within the known layouts** and given canonical English
//! names: `r b swpd free buff cache si so bi bo in cs us sy id wa [st [gu]]` (`-a`: `inact
//! active` instead of `buff cache`; very old procps: no `st`; procps-ng 4.0 `-w`: `gu`). The
//! layout is chosen by the number of numeric fields of each row, `-a` by the 5th/6th header
//! word (in any of the shipped translations). The `-t` time-zone abbreviation right-aligned at
//! the end of the 2nd header line is kept in [`Vmstat::timezone`].
//!
//! Also handled: `-d` disk mode ([`DiskRow`]), `-s`/`-f`/`-D` summaries (`<n> K <label>` lines,
//! [`Vmstat::summary`]), reprinted headers, concatenated runs, ANSI, CRLF. The **first data line
//! of a run is the average since boot** ([`Row::since_boot`]). A `date` line before a run
//! (`Wed Aug 28 16:02:01 IST 2019`, a cron loop appending `date; vmstat 1 7` to a log) is
//! kept in [`Vmstat::run_dates`]: it anchors the run's rows, which have no time of their own.
//!
//! Units: `-S M` changes the memory columns but is not visible in the table; the table is read
//! as KiB unless the `-s` lines say otherwise or the caller knows better
//! ([`Vmstat::set_unit`]).

use crate::common::lines::strip_ansi;
use crate::common::scrub::Identifiers;
use crate::common::time::{DateLine, parse_date_line};
use crate::common::{
    DiagKind, Diags, Format, LineSource, Parsed, SliceSource, Sniff, SourceLine, Stamp, Summary, Variant,
};
use chrono::{NaiveDate, NaiveDateTime};
use std::borrow::Cow;

pub mod drained;
pub mod pieces;

pub use drained::Drained;

/// A parsed vmstat file.
#[derive(Debug, Clone, Default)]
pub struct Vmstat {
    /// Procs/memory/cpu rows, in file order.
    pub rows: Vec<Row>,
    /// The `-t` time-zone abbreviation of the header (`UTC`, `PDT`, `CET`).
    pub timezone: Option<String>,
    /// `-d` rows (cumulative counters per disk).
    pub disk_rows: Vec<DiskRow>,
    /// `-s` / `-f` / `-D` lines: label and value; memory values (`K`/`M`/`k`/`m` lines) in KiB.
    pub summary: Vec<(String, u64)>,
    /// The memory unit of the table: `K` (KiB, the default), `k`, `m`, `M` (`-S`). Memory values
    /// in [`Row::values`] are always KiB; this records what the file had.
    pub unit: char,
    /// True when the unit was read from the file (`-s` lines), false when assumed.
    pub unit_known: bool,
    /// Column layouts seen: `standard`, `active (-a)`, `no st (old procps)`, `gu (procps-ng 4 -w)`.
    pub layouts: Vec<&'static str>,
    /// Wide output (`-w`, `--procs--` group).
    pub wide: bool,
    /// The headers are translated (not English).
    pub translated: bool,
    /// Number of runs (a header after a blank/foreign line starts a new one).
    pub runs: usize,
    /// `date` lines printed before runs (a cron loop `date; vmstat 1 7` appending to a log):
    /// the index into [`Vmstat::rows`] of the run's first row, and the date line.
    pub run_dates: Vec<(usize, DateLine)>,
    /// The rows were taken from the parse as they were read ([`drained`]): `rows` is empty
    /// and this is the file's summary of them (row indices above count them all).
    pub drained: Option<Drained>,
}

/// One procs/memory/cpu line: its values inline, named by one of the static layouts (a
/// 200 MB `vmstat -t` held 17 `String` names per row, 2.1 GB in all).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// 1-based line number.
    pub line: usize,
    /// The `-t` time stamp ([`Stamp::Local`]), `None` without `-t`.
    pub stamp: Option<Stamp>,
    /// The first line of a run: averages since boot (r/b and memory are instantaneous).
    pub since_boot: bool,
    /// Canonical English column names of the values, in order (`r b swpd free ...`).
    pub names: &'static [&'static str],
    /// The values in the order of `names` (memory columns in KiB); the rest is 0.
    values: [f64; MAX_COLUMNS],
}

/// Most columns of a procs line (`r b swpd free buff cache si so bi bo in cs us sy id wa st gu`).
pub const MAX_COLUMNS: usize = 18;

impl Row {
    /// A row of `names` and their `values` (memory columns in KiB); values past
    /// [`MAX_COLUMNS`] or past the names are not kept.
    pub fn new(
        line: usize,
        stamp: Option<Stamp>,
        since_boot: bool,
        names: &'static [&'static str],
        values: &[f64],
    ) -> Self {
        let mut v = [0.0; MAX_COLUMNS];
        let n = names.len().min(values.len()).min(MAX_COLUMNS);
        v[..n].copy_from_slice(&values[..n]);
        Row { line, stamp, since_boot, names: &names[..n], values: v }
    }

    /// The values, in the order of [`Row::names`].
    pub fn values(&self) -> &[f64] {
        &self.values[..self.names.len()]
    }

    /// A value by canonical column name (`bo`, `free`, `wa`, ...).
    pub fn get(&self, name: &str) -> Option<f64> {
        self.names.iter().position(|n| *n == name).map(|i| self.values[i])
    }
}

/// One `-d` line: cumulative counters of one disk.
#[derive(Debug, Clone, PartialEq)]
pub struct DiskRow {
    /// 1-based line number.
    pub line: usize,
    /// The `-t` time stamp.
    pub stamp: Option<Stamp>,
    /// 0-based sample number (a new sample starts when a disk name repeats or a header comes).
    pub sample: usize,
    /// Device name.
    pub disk: String,
    /// Reads completed.
    pub reads: u64,
    /// Reads merged.
    pub reads_merged: u64,
    /// Sectors read.
    pub read_sectors: u64,
    /// Milliseconds spent reading.
    pub read_ms: u64,
    /// Writes completed.
    pub writes: u64,
    /// Writes merged.
    pub writes_merged: u64,
    /// Sectors written.
    pub write_sectors: u64,
    /// Milliseconds spent writing.
    pub write_ms: u64,
    /// I/Os currently in progress.
    pub io_cur: u64,
    /// Seconds spent doing I/O.
    pub io_sec: u64,
}

/// `inact` in the procps-ng translations (de, es, fr, ka, ko, pl, pt_BR, ro, sv, uk, vi, zh_CN).
const INACT: &[&str] = &["inact", "inakt", "nieakt", "inativ", "不活动", "비활"];
/// `active` in the procps-ng translations.
const ACTIVE: &[&str] = &[
    "active",
    "aktiv",
    "activo",
    "actif",
    "აქტიური",
    "활성",
    "akt",
    "ativo",
    "activă",
    "aktivt",
    "активно",
    "hđộng",
    "活动",
];
const MEMORY: [&str; 6] = ["swpd", "free", "buff", "cache", "inact", "active"];
/// Where the [`MEMORY`] columns are in every layout of [`layout_names`] (`swpd free buff
/// cache`, `swpd free inact active`): found by position, not by name, on every row.
const MEMORY_AT: std::ops::Range<usize> = 2..6;

/// The column names of a procs line of `n` numbers (16: old procps without `st`; 17; 18:
/// procps-ng 4 `-w` with `gu`), `active` for `-a` (`inact active` instead of `buff cache`).
fn layout_names(n: usize, active: bool) -> Option<&'static [&'static str]> {
    const STD: [&str; 18] = [
        "r", "b", "swpd", "free", "buff", "cache", "si", "so", "bi", "bo", "in", "cs", "us", "sy", "id",
        "wa", "st", "gu",
    ];
    const ACT: [&str; 18] = [
        "r", "b", "swpd", "free", "inact", "active", "si", "so", "bi", "bo", "in", "cs", "us", "sy", "id",
        "wa", "st", "gu",
    ];
    if !(16..=18).contains(&n) {
        return None;
    }
    Some(if active { &ACT[..n] } else { &STD[..n] })
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    None,
    Procs,
    Disk,
}

fn all_digits(t: &str) -> bool {
    !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())
}

/// `2026-11-29 19:52:39` as two tokens.
fn stamp(d: &str, t: &str) -> Option<NaiveDateTime> {
    let db = d.as_bytes();
    let tb = t.as_bytes();
    if db.len() != 10 || db[4] != b'-' || db[7] != b'-' || tb.len() != 8 || tb[2] != b':' || tb[5] != b':' {
        return None;
    }
    let n = |s: &str| s.parse::<u32>().ok();
    let date = NaiveDate::from_ymd_opt(d[..4].parse().ok()?, n(&d[5..7])?, n(&d[8..10])?)?;
    let time = crate::common::time::hms(n(&t[..2])?, n(&t[3..5])?, n(&t[6..8])?, 0)?;
    Some(date.and_time(time))
}

/// Bytes per unit of `-S`.
fn unit_kib(u: char) -> Option<f64> {
    match u {
        'K' => Some(1.0),
        'k' => Some(1000.0 / 1024.0),
        'M' => Some(1024.0),
        'm' => Some(1_000_000.0 / 1024.0),
        _ => None,
    }
}

impl Vmstat {
    /// Declares the `-S` unit of the table (`k`, `K`, `m`, `M`) when the caller knows it
    /// (e.g. from the command line), rescaling the memory columns to KiB.
    pub fn set_unit(&mut self, unit: char) {
        let (Some(new), Some(old)) = (unit_kib(unit), unit_kib(self.unit)) else { return };
        for r in &mut self.rows {
            for (n, v) in r.names.iter().zip(r.values.iter_mut()) {
                if MEMORY.contains(n) {
                    *v = *v / old * new;
                }
            }
        }
        self.unit = unit;
        self.unit_known = true;
    }
}

/// Parses vmstat output.
pub fn parse(input: &[u8]) -> Parsed<Vmstat> {
    parse_source(&mut SliceSource::new(input))
}

/// Parses vmstat output fed line by line (a file streamed in fixed-size reads, or
/// [`SliceSource`] over the whole input: the same result).
pub fn parse_source(src: &mut impl LineSource) -> Parsed<Vmstat> {
    let mut r = Reader::new();
    while let Some(sl) = src.next_line() {
        r.feed(&sl);
    }
    r.finish()
}

/// The state of reading a `vmstat` file line by line.
struct Reader {
    out: Vmstat,
    d: Diags,
    mode: Mode,
    header: Vec<String>,
    expect_header: bool,
    active_layout: bool,
    new_run: bool,
    prev_was_data: bool,
    sample: usize,
    seen_disks: Vec<String>,
    pending_date: Option<DateLine>,
    values: [f64; MAX_COLUMNS],
    /// Number of the last line read.
    lines: usize,
    /// Rows read before the first column header (a piece's rows before it are named by
    /// the header of the pieces before: [`pieces`]).
    before_header: Option<usize>,
    /// Rows are taken from `out.rows` as they are read: what the file's summary needs of
    /// them ([`drained`]).
    drain: Option<Box<Drained>>,
    /// The file is read again after a drained parse: its stamps are not repaired here.
    replay: bool,
    /// Rows taken from `out.rows` so far (the index of its first row in the file).
    taken: usize,
}

impl Reader {
    /// A reader at the start of a file.
    fn new() -> Self {
        Reader {
            out: Vmstat { unit: 'K', ..Default::default() },
            d: Diags::default(),
            mode: Mode::None,
            header: Vec::new(),
            expect_header: false,
            active_layout: false,
            new_run: true,
            prev_was_data: false,
            sample: 0,
            seen_disks: Vec::new(),
            pending_date: None,
            values: [0.0; MAX_COLUMNS],
            lines: 0,
            before_header: None,
            drain: None,
            replay: false,
            taken: 0,
        }
    }

    /// The rows read so far and not yet taken, in file order.
    fn take_rows(&mut self) -> Vec<Row> {
        self.taken += self.out.rows.len();
        std::mem::take(&mut self.out.rows)
    }

    /// Notes the rows from `from` (of `out.rows`) in a drained parse.
    fn see_from(&mut self, from: usize) {
        if let Some(d) = &mut self.drain {
            self.out
                .rows
                .get(from..)
                .unwrap_or_default()
                .iter()
                .for_each(|r| d.see(r.line, r.stamp, r.since_boot));
        }
    }

    /// Reads one line of the source.
    fn feed(&mut self, sl: &SourceLine<'_>) {
        let no = sl.line.no;
        self.lines = no;
        let raw = sl.line.text();
        let line: Cow<str> = if raw.contains('\x1b') { strip_ansi(raw) } else { raw };
        self.read_line(line.trim_end_matches('\r'), no);
    }

    /// The value read and its diagnostics.
    fn finish(self) -> Parsed<Vmstat> {
        let (mut out, mut d) = (self.out, self.d);
        if out.runs == 0 && !out.disk_rows.is_empty() {
            out.runs = 1;
        }
        match self.drain {
            // The rows not taken yet are the file's last: dropped as the others were.
            Some(mut dr) => {
                dr.repair(&mut d);
                out.rows = Vec::new();
                out.drained = Some(*dr);
            }
            // Read again: the first read's repairs are the application's to apply.
            None if self.replay => {}
            None => place_by_series(&mut out.rows, &mut d),
        }
        d.finish(out, self.lines)
    }

    /// Reads one line (ANSI escapes and `\r` removed).
    fn read_line(&mut self, l: &str, no: usize) {
        // The tokens on the stack (a procs line has 16-20): no allocation per line.
        let mut stack: [&str; 24] = [""; 24];
        let mut spill: Vec<&str> = Vec::new();
        let mut n = 0;
        for t in l.split_ascii_whitespace() {
            if n < stack.len() {
                stack[n] = t;
            } else {
                if spill.is_empty() {
                    spill.extend_from_slice(&stack);
                }
                spill.push(t);
            }
            n += 1;
        }
        let toks: &[&str] = if spill.is_empty() { &stack[..n] } else { &spill };
        if toks.is_empty() {
            self.prev_was_data = false;
            return;
        }
        // `Wed Aug 28 16:02:01 IST 2019` from `date` between runs.
        if toks.len() <= 7
            && let Some(dl) = parse_date_line(l, no)
        {
            self.pending_date = Some(dl);
            self.new_run = true;
            self.prev_was_data = false;
            return;
        }
        // Group line: `procs -----------memory---------- ---swap-- …`, `--procs-- …`, `disk- ----…`.
        // (A row's first token is a number: no search for dashes.)
        if !toks.iter().any(|t| all_digits(t)) && toks.iter().filter(|t| t.contains("--")).count() >= 3 {
            self.group_line(toks);
            return;
        }
        if self.expect_header {
            self.expect_header = false;
            if !toks.iter().any(|t| all_digits(t)) {
                self.header = toks.iter().map(|s| s.to_string()).collect();
                self.before_header.get_or_insert(self.out.rows.len());
                self.active_layout =
                    self.header.get(4).is_some_and(|t| INACT.contains(&t.to_lowercase().as_str()))
                        || self.header.get(5).is_some_and(|t| ACTIVE.contains(&t.to_lowercase().as_str()));
                return;
            }
        }
        // Trailing `YYYY-MM-DD HH:MM:SS`.
        let (body, st) = match toks.len() {
            n if n >= 3 => match stamp(toks[n - 2], toks[n - 1]) {
                Some(s) => (&toks[..n - 2], Some(Stamp::Local(s))),
                None => (toks, None),
            },
            _ => (toks, None),
        };
        // `-s` / `-f` / `-D`: `     24684084 K total memory`, `        43189 forks`.
        if all_digits(toks[0]) && toks.len() >= 2 && !all_digits(toks[1]) && st.is_none() {
            self.summary_line(l, toks, no);
            return;
        }
        match self.mode {
            Mode::Procs if body.iter().all(|t| all_digits(t)) => self.procs_row(l, body, st, no),
            Mode::Disk if body.len() == 11 && body[1..].iter().all(|t| all_digits(t)) => {
                self.disk_row(l, body, st, no);
            }
            Mode::None => self.d.skip(no, DiagKind::NoHeader, l),
            Mode::Procs | Mode::Disk => {
                let kind = if body.iter().any(|t| all_digits(t)) {
                    DiagKind::FieldCount
                } else {
                    DiagKind::Malformed
                };
                self.d.skip(no, kind, l);
            }
        }
    }

    /// `procs -----------memory---------- ---swap-- …`, `--procs-- …`, `disk- ----…`.
    fn group_line(&mut self, toks: &[&str]) {
        let first = toks[0].to_ascii_lowercase();
        self.mode = if first.contains("procs") { Mode::Procs } else { Mode::Disk };
        self.out.wide |= toks[0] == "--procs--";
        self.out.translated |= toks.iter().skip(1).any(|t| {
            let w = t.trim_matches('-');
            !matches!(
                w,
                "memory" | "swap" | "io" | "system" | "cpu" | "timestamp" | "reads" | "writes" | "IO"
            )
        });
        if !self.prev_was_data {
            self.new_run = true;
        }
        if self.mode == Mode::Disk {
            self.sample += usize::from(!self.seen_disks.is_empty());
            self.seen_disks.clear();
        }
        self.expect_header = true;
        self.prev_was_data = false;
    }

    /// `     24684084 K total memory`, `        43189 forks` (`-s` / `-f` / `-D`).
    fn summary_line(&mut self, l: &str, toks: &[&str], no: usize) {
        let Ok(v) = toks[0].parse::<u64>() else {
            self.d.skip(no, DiagKind::BadNumber, l);
            return;
        };
        let u = toks[1].chars().next().filter(|_| toks[1].len() == 1 && toks.len() >= 3);
        let (value, label_tok) = match u.and_then(|c| unit_kib(c).map(|k| (c, k))) {
            Some((c, k)) => {
                // The first line (`total memory`, any language) carries the `-S` unit;
                // `K paged in` further down is always K.
                if self.out.summary.is_empty() {
                    self.out.unit = c;
                    self.out.unit_known = true;
                }
                ((v as f64 * k).round() as u64, 2)
            }
            None => (v, 1),
        };
        let start = l.find(toks[label_tok]).unwrap_or(0);
        self.out.summary.push((l.get(start..).unwrap_or("").trim().to_string(), value));
    }

    /// A row of the procs/memory/... table (all digits; `st`: its trailing time stamp).
    fn procs_row(&mut self, l: &str, body: &[&str], st: Option<Stamp>, no: usize) {
        let out = &mut self.out;
        let n = body.len();
        let Some(names) = layout_names(n, self.active_layout) else {
            self.d.skip(no, DiagKind::FieldCount, l);
            return;
        };
        let layout = match (n, self.active_layout) {
            (16, _) => "no st (old procps)",
            (18, _) => "gu (procps-ng 4 -w)",
            (_, true) => "active (-a)",
            _ => "standard",
        };
        if !out.layouts.contains(&layout) {
            out.layouts.push(layout);
        }
        if st.is_some() && self.header.len() == n + 1 && out.timezone.is_none() {
            out.timezone = self.header.last().cloned();
        }
        if self.active_layout && !out.layouts.contains(&"active (-a)") {
            out.layouts.push("active (-a)");
        }
        let k = unit_kib(out.unit).unwrap_or(1.0);
        for (i, ((_, t), slot)) in names.iter().zip(body).zip(self.values.iter_mut()).enumerate() {
            // All digits (checked above): an integer parse, exact below 2^53.
            let mut v = t.parse::<u64>().map_or_else(|_| t.parse::<f64>().unwrap_or(0.0), |x| x as f64);
            if MEMORY_AT.contains(&i) {
                v *= k;
            }
            *slot = v;
        }
        if self.new_run
            && let Some(dl) = self.pending_date.take()
        {
            out.run_dates.push((self.taken + out.rows.len(), dl));
        }
        out.rows.push(Row::new(no, st, self.new_run, names, &self.values[..n]));
        self.see_from(self.out.rows.len() - 1);
        let out = &mut self.out;
        if self.new_run {
            out.runs += 1;
        }
        self.new_run = false;
        self.prev_was_data = true;
    }

    /// A row of the `-d` disk table (`st`: its trailing time stamp).
    fn disk_row(&mut self, l: &str, body: &[&str], st: Option<Stamp>, no: usize) {
        let name = body[0];
        if self.seen_disks.iter().any(|s| s == name) {
            self.sample += 1;
            self.seen_disks.clear();
        }
        self.seen_disks.push(name.to_string());
        let v: Vec<u64> = body[1..].iter().map(|t| t.parse().unwrap_or(u64::MAX)).collect();
        if v.contains(&u64::MAX) {
            self.d.skip(no, DiagKind::BadNumber, l);
            return;
        }
        if self.out.timezone.is_none() && st.is_some() && self.header.len() == 11 {
            self.out.timezone = self.header.last().cloned();
        }
        self.out.disk_rows.push(DiskRow {
            line: no,
            stamp: st,
            sample: self.sample,
            disk: name.to_string(),
            reads: v[0],
            reads_merged: v[1],
            read_sectors: v[2],
            read_ms: v[3],
            writes: v[4],
            writes_merged: v[5],
            write_sectors: v[6],
            write_ms: v[7],
            io_cur: v[8],
            io_sec: v[9],
        });
        self.prev_was_data = true;
    }
}

/// Places the `-t` stamps that break their run's series ([`crate::common::series`]):
/// a garbled one would move its row hours away. A run starts at a since-boot row.
fn place_by_series(rows: &mut [Row], d: &mut Diags) {
    let mut run = 0;
    let mut samples: Vec<(usize, usize, Option<Stamp>)> = rows
        .iter()
        .map(|r| {
            run += usize::from(r.since_boot);
            (run, r.line, r.stamp)
        })
        .collect();
    crate::common::series::repair_runs(&mut samples, |s| s.0, |s| &mut s.2, |s| s.1, d);
    for (r, s) in rows.iter_mut().zip(samples) {
        r.stamp = s.2;
    }
}

impl Vmstat {
    /// Procs rows read (kept, or counted by a drained parse).
    fn procs_rows(&self) -> usize {
        self.drained.as_ref().map_or(self.rows.len(), |d| d.rows)
    }
}

impl Summary for Vmstat {
    fn records(&self) -> usize {
        self.procs_rows() + self.disk_rows.len() + self.summary.len()
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        let mode = match (self.procs_rows() == 0, self.disk_rows.is_empty(), self.summary.is_empty()) {
            (false, _, _) => "procs",
            (true, false, _) => "disk (-d)",
            (true, true, false) => "summary (-s)",
            _ => "empty",
        };
        v.insert("mode", mode.to_string());
        if !self.layouts.is_empty() {
            v.insert("layout", self.layouts.join(","));
        }
        if let Some(tz) = &self.timezone {
            v.insert("timezone", tz.clone());
        }
        v.insert(
            "timestamps",
            if self
                .drained
                .as_ref()
                .map_or_else(|| self.rows.iter().any(|r| r.stamp.is_some()), |d| d.any_stamp)
            {
                "yes (-t)"
            } else {
                "no"
            }
            .to_string(),
        );
        v.insert("unit", format!("{}{}", self.unit, if self.unit_known { "" } else { " (assumed)" }));
        if self.wide {
            v.insert("wide", "yes (-w)".to_string());
        }
        if self.translated {
            v.insert("headers", "translated".to_string());
        }
        if self.runs > 1 {
            v.insert("runs", self.runs.to_string());
        }
        if !self.run_dates.is_empty() {
            v.insert("date_lines", self.run_dates.len().to_string());
        }
        v
    }

    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        let disks = || self.disk_rows.iter().filter_map(|r| r.stamp);
        let (first, last) = match &self.drained {
            Some(d) => (d.first.or_else(|| disks().next()), disks().next_back().or(d.last)),
            None => {
                let stamps =
                    || self.rows.iter().map(|r| r.stamp).chain(self.disk_rows.iter().map(|r| r.stamp));
                (stamps().flatten().next(), stamps().flatten().last())
            }
        };
        match (first, last) {
            (Some(a), Some(b)) => Some((a, b)),
            // Untimed rows anchored by `date` lines: from the first run's date to the last one's.
            _ => {
                let (a, b) = (self.run_dates.first()?, self.run_dates.last()?);
                Some((Stamp::Local(a.1.local), Stamp::Local(b.1.local)))
            }
        }
    }
}

/// The `vmstat` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Vmstat;
    const ID: &'static str = "vmstat";
    const SAMPLE: &'static str = " 4  1      0 17896552  17488 4397780    0    0  8880 19722 1111 1671 54 10 36  1  0 2026-11-29 19:33:39";
    const DESCRIPTION: &'static str = "procps vmstat (-t, -w, -a, -S, -d, -s; translated headers)";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let text = String::from_utf8_lossy(head);
        let mut summary_like = 0;
        let lines: Vec<&str> = text.lines().take(8).collect();
        for (i, l) in lines.iter().enumerate() {
            let l = strip_ansi(Cow::Borrowed(l));
            let t = l.trim_start();
            let first = t.split_ascii_whitespace().next().unwrap_or("");
            if (first == "procs" || first == "--procs--" || first.eq_ignore_ascii_case("disk-"))
                && t.contains("---")
            {
                // pt-summary's "Simplified and fuzzy rounded vmstat" (`r b si so bi bo ir cs us sy
                // il wa st`): values rounded by pt-summary, not vmstat's output.
                let next: Vec<&str> =
                    lines.get(i + 1).map_or(vec![], |n| n.split_ascii_whitespace().collect());
                if next.contains(&"ir") && next.contains(&"il") {
                    return Sniff::No;
                }
                return Sniff::Yes;
            }
            if t.contains(" K total memory") || t.contains(" M total memory") {
                return Sniff::Yes;
            }
            let mut w = t.split_ascii_whitespace();
            if w.next().is_some_and(all_digits)
                && w.next().is_some_and(|u| matches!(u, "K" | "M" | "k" | "m"))
            {
                summary_like += 1;
            }
        }
        if summary_like >= 3 { Sniff::Unsure } else { Sniff::No }
    }

    fn parse(input: &[u8]) -> Parsed<Vmstat> {
        parse(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translated_t_with_zone() {
        let p = parse(
            "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu----- ----Zeitstempel----\n \
r  b   swpd   frei   buff  Cache   si   so    bi    bo   in   cs us sy id wa st                 UTC\n\
13  0      0 13015612  23992 10287308    0    0  7706 17517 1698 3724 71 13 16  0  0 2026-11-29 19:52:39\n \
3  0      0 13015612  23992 10287308    0    0     0     0  546  135 98  3  0  0  0 2026-11-29 19:52:40\n"
                .as_bytes(),
        );
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let v = p.value;
        assert_eq!(v.timezone.as_deref(), Some("UTC"));
        assert!(v.translated);
        assert!(v.rows[0].since_boot && !v.rows[1].since_boot);
        assert_eq!(v.rows[0].get("cache"), Some(10287308.0));
        assert_eq!(v.rows[1].get("in"), Some(546.0));
        assert_eq!(v.rows[1].stamp.map(|s| s.display()).as_deref(), Some("2026-11-29T19:52:40"));
    }

    #[test]
    fn the_memory_columns_are_where_every_layout_puts_them() {
        for (n, active) in (16..=18).flat_map(|n| [(n, false), (n, true)]) {
            let names = layout_names(n, active).unwrap();
            for (i, name) in names.iter().enumerate() {
                assert_eq!(MEMORY.contains(name), MEMORY_AT.contains(&i), "{name} of {n} (-a: {active})");
            }
        }
    }

    #[test]
    fn set_unit_rescales() {
        let mut v = parse(
            b"procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----\n r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st\n 4  0      0  17586     16   4173    0    0  9215 19975 1117 1680 54 10 35  1  0\n",
        )
        .value;
        v.set_unit('M');
        assert_eq!(v.rows[0].get("free"), Some(17586.0 * 1024.0));
        assert_eq!(v.rows[0].get("bo"), Some(19975.0));
    }

    #[test]
    fn garbage() {
        for s in [
            &b"procs -- -- --\n\n1 2 3\n"[..],
            b"disk- -- -- --\nx\nsda 1 2 3 4 5 6 7 8 9 99999999999999999999999\n",
            b"1 K\n",
        ] {
            let _ = parse(s);
        }
    }
}
