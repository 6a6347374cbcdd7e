//! `sar`: sysstat `sar` text reports, any activity (`-u [ALL]`, `-d [-p]`,
//! `-b`, `-B`, `-r [ALL]`, `-q`, `-W`, `-n DEV`, ... and `-A` mixes), any
//! locale (decimal comma, CJK times, translated `Average:`), 12 or 24 hour
//! clock, several days (banners) concatenated, `LINUX RESTART` records.
//! The same table model ([`Sar`]) holds what [`crate::sadf`] reads from
//! `sadf -d` / `-p` / `-j` and [`crate::mpstat`] from `mpstat`.
//!
//! Real sample (`samples/sar_mariadb/capture/sar_C.txt`, sysstat 12.6.1, `sar -b -B -d -p ... -f sa.bin`):
//!
//! ```text
//! Linux 6.18.44-fc-v669 (vm) \t12/01/26 \t_x86_64_\t(2 CPU)
//!
//! 19:14:13        CPU      %usr     %nice      %sys   %iowait    %steal      %irq     %soft    %guest    %gnice     %idle
//! 19:14:14        all     81.41      0.00     17.09      0.00      0.00      0.00      1.51      0.00      0.00      0.00
//! Average:        all     59.20      0.00     35.82      0.06      0.44      0.00      4.46      0.00      0.00      0.03
//!
//! 19:14:13     pgpgin/s pgpgout/s   fault/s  majflt/s  pgfree/s pgscank/s pgscand/s pgsteal/s    %vmeff
//! 19:14:14         0.00  34932.00  31011.00      0.00  13463.00      0.00      0.00      0.00      0.00
//!
//! 19:14:13          tps     rkB/s     wkB/s     dkB/s   areq-sz    aqu-sz     await     %util DEV
//! 19:14:14      7514.00      0.00  34916.00      8.00      4.65      0.45      0.06     29.20 vda
//! ```
//!
//! Without `-p` the device column comes first (`19:14:14 dev254-0 7514.00 ...`);
//! de_DE prints `81,41` and `Durchschn.:`, ja_JP `19時14分14秒` and `平均値:`,
//! en_US `07:14:14 PM`. Old sysstat (≤ 10) has `%user %system`, `rd_sec/s`,
//! `avgrq-sz`, `svctm` and `kbmemused` including buffers and cache: every
//! column is kept by its printed name, so both generations read.
//!
//! A file replays its activities one after the other, each from the first
//! sample of the day: the day roll-over (a time going backwards) is tracked
//! per activity table, not across the file. Rows get the banner date
//! ([`Stamp::Local`]) when the banner has one, else a time of day. `Average:`
//! rows are summaries and are counted, not kept.

use crate::common::number::{parse_f64, parse_human};
use crate::common::scrub::Identifiers;
use crate::common::sysstat::{Banner, average_label_len, parse_banner, parse_time_of_day};
use crate::common::{
    DiagKind, Diags, Format, Line, LineSource, Parsed, SliceSource, Sniff, Stamp, Summary, Variant,
};
use chrono::{NaiveDate, NaiveTime, Timelike};
use std::collections::{BTreeSet, HashMap};

/// The activity a table belongs to (the sar option that prints it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Activity {
    /// `-u` / `-u ALL` / `-P`: CPU utilisation.
    Cpu,
    /// `-w`: process creation and context switches.
    Pcsw,
    /// `-I`: interrupts.
    Irq,
    /// `-W`: swapping (`pswpin/s`, `pswpout/s`).
    Swapping,
    /// `-B`: paging (`pgpgin/s`, `pgpgout/s`, ...).
    Paging,
    /// `-b`: I/O transfer totals (`tps`, `bread/s`, `bwrtn/s`).
    Io,
    /// `-r [ALL]`: memory (`kbmemfree`, `kbdirty`, ...).
    Memory,
    /// `-R` (sysstat ≤ 11): memory page rates (`frmpg/s`).
    MemoryPages,
    /// `-S`: swap space.
    SwapSpace,
    /// `-H`: huge pages.
    Hugepages,
    /// `-v`: kernel tables.
    Ktables,
    /// `-q`: queue length and load average.
    Queue,
    /// `-y`: TTY devices.
    Tty,
    /// `-d`: block devices.
    Disk,
    /// `-n DEV`: network interfaces.
    NetDev,
    /// `-n EDEV`: network interface errors.
    NetEdev,
    /// Any other `-n` keyword (sockets, IP, TCP, NFS, ...).
    Network,
    /// `-m`: power management (CPU frequency, fans, temperature, USB).
    Power,
    /// `-F`: file systems.
    Filesystem,
    /// `-q PSI` (pressure stall information).
    Psi,
    /// A table iosift does not name (kept with its columns).
    Other,
}

impl Activity {
    /// Short name (`cpu`, `disk`, `paging`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Activity::Cpu => "cpu",
            Activity::Pcsw => "pcsw",
            Activity::Irq => "irq",
            Activity::Swapping => "swapping",
            Activity::Paging => "paging",
            Activity::Io => "io",
            Activity::Memory => "memory",
            Activity::MemoryPages => "memory_pages",
            Activity::SwapSpace => "swap_space",
            Activity::Hugepages => "hugepages",
            Activity::Ktables => "ktables",
            Activity::Queue => "queue",
            Activity::Tty => "tty",
            Activity::Disk => "disk",
            Activity::NetDev => "net_dev",
            Activity::NetEdev => "net_edev",
            Activity::Network => "network",
            Activity::Power => "power",
            Activity::Filesystem => "filesystem",
            Activity::Psi => "psi",
            Activity::Other => "other",
        }
    }
}

/// Names the activity of a table from its item column (`CPU`, `DEV`, `IFACE`, ...) and value columns.
///
/// sysstat prints the same first column for an activity in every version and in
/// `sadf -d` headers: `%user`/`%usr` (CPU), `tps` (with `DEV`: disk, alone: `-b`),
/// `pgpgin/s`, `kbmemfree`, `runq-sz`, `pswpin/s`, `rxpck/s`, ...
pub fn identify(item: Option<&str>, columns: &[String]) -> Activity {
    let first = columns.first().map(String::as_str).unwrap_or("");
    let has = |c: &str| columns.iter().any(|x| x == c);
    match item {
        Some("CPU") if has("%user") || has("%usr") || has("%idle") => Activity::Cpu,
        Some("CPU") if has("MHz") => Activity::Power,
        Some("INTR") => Activity::Irq,
        Some("CPU") if first.ends_with("/s") && !has("total/s") => Activity::Irq,
        Some("DEV") => Activity::Disk,
        Some("IFACE") if has("rxpck/s") => Activity::NetDev,
        Some("IFACE") if has("rxerr/s") => Activity::NetEdev,
        Some("TTY") => Activity::Tty,
        Some("FILESYSTEM") => Activity::Filesystem,
        Some("FAN") | Some("TEMP") | Some("BUS") | Some("IN") => Activity::Power,
        Some(_) => Activity::Other,
        None => match first {
            "proc/s" => Activity::Pcsw,
            "intr/s" => Activity::Irq,
            "pswpin/s" => Activity::Swapping,
            "pgpgin/s" => Activity::Paging,
            "tps" => Activity::Io,
            "kbmemfree" => Activity::Memory,
            "frmpg/s" => Activity::MemoryPages,
            "kbswpfree" => Activity::SwapSpace,
            "kbhugfree" => Activity::Hugepages,
            "dentunusd" => Activity::Ktables,
            "runq-sz" => Activity::Queue,
            f if f.starts_with("%scpu") || f.starts_with("%sio") || f.starts_with("%smem") => Activity::Psi,
            "totsck" | "irec/s" | "ihdrerr/s" | "imsg/s" | "ierr/s" | "active/s" | "atmptf/s" | "idgm/s"
            | "tcp6sck" | "call/s" | "scall/s" | "fwddgm/s" => Activity::Network,
            _ => Activity::Other,
        },
    }
}

/// Where the table was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// `sar` text.
    SarText,
    /// `mpstat` text.
    MpstatText,
    /// `mpstat -o JSON`.
    MpstatJson,
    /// `sadf -d` (semicolon-separated, `# hostname;interval;timestamp;...` headers).
    SadfCsv,
    /// `sadf -p` (one value a line: host, interval, timestamp, item, field, value).
    SadfLines,
    /// `sadf -j` JSON.
    SadfJson,
}

impl Source {
    /// Short name.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::SarText => "sar text",
            Source::MpstatText => "mpstat text",
            Source::MpstatJson => "mpstat -o JSON",
            Source::SadfCsv => "sadf -d",
            Source::SadfLines => "sadf -p",
            Source::SadfJson => "sadf -j",
        }
    }
}

/// The columns of one activity table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// The activity.
    pub activity: Activity,
    /// Name of the item column (`CPU`, `DEV`, `IFACE`), when the activity has items.
    pub item: Option<String>,
    /// Value columns as sar prints them (`%usr`, `rkB/s`, `kbdirty`).
    pub columns: Vec<String>,
}

/// One row: an activity's values for one item at one time.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// 1-based input line (for JSON: the line the sample's `timestamp` object starts on).
    pub line: usize,
    /// Index into [`Sar::tables`].
    pub table: usize,
    /// End of the interval the values describe.
    pub stamp: Stamp,
    /// Length of that interval in seconds, when known (sadf prints it; sar text: from the previous sample).
    pub interval_s: Option<f64>,
    /// The item (`all`, `0`, `vda`, `dev254-0`, `eth0`), for activities with items.
    pub item: Option<String>,
    /// One value per column of the table (`None`: not a number).
    pub values: Vec<Option<f64>>,
}

/// A parsed sar / sadf / mpstat file.
#[derive(Debug, Clone, PartialEq)]
pub struct Sar {
    /// What the file was.
    pub source: Source,
    /// Banners (one per day or run), with their line.
    pub banners: Vec<(usize, Banner)>,
    /// Host name (sadf prints it on every record).
    pub host: Option<String>,
    /// Activity tables (one per distinct header).
    pub tables: Vec<Table>,
    /// Rows in file order.
    pub rows: Vec<Row>,
    /// `LINUX RESTART` records: line and time.
    pub restarts: Vec<(usize, Stamp)>,
    /// `Average:` rows seen (summaries, not kept).
    pub averages: usize,
    /// Decimal comma seen (de_DE, fr_FR, ...).
    pub decimal_comma: bool,
    /// Values printed by `sar -h` (`--human`): sizes with a unit suffix, percentages with `%`.
    pub human: bool,
    /// `sadf -dh`: every activity of a sample on one line.
    pub horizontal: bool,
    /// Clock of the time stamps: `24h`, `12h` (AM/PM), `cjk`, `utc` (sadf), `epoch`.
    pub clock: Option<&'static str>,
}

impl Sar {
    /// An empty result of a given source.
    pub fn new(source: Source) -> Self {
        Sar {
            source,
            banners: Vec::new(),
            host: None,
            tables: Vec::new(),
            rows: Vec::new(),
            restarts: Vec::new(),
            averages: 0,
            decimal_comma: false,
            human: false,
            horizontal: false,
            clock: None,
        }
    }

    /// The table of a row.
    pub fn table(&self, row: &Row) -> &Table {
        &self.tables[row.table]
    }

    /// A row's value by column name.
    pub fn get(&self, row: &Row, column: &str) -> Option<f64> {
        let i = self.tables.get(row.table)?.columns.iter().position(|c| c == column)?;
        row.values.get(i).copied().flatten()
    }

    /// The activities present.
    pub fn activities(&self) -> BTreeSet<Activity> {
        self.tables.iter().map(|t| t.activity).collect()
    }

    /// Rows of one activity.
    pub fn rows_of(&self, activity: Activity) -> impl Iterator<Item = &Row> + '_ {
        self.rows.iter().filter(move |r| self.tables[r.table].activity == activity)
    }

    /// `(stamp, value)` of one column of one activity (and item, for activities with items).
    pub fn series(&self, activity: Activity, item: Option<&str>, column: &str) -> Vec<(Stamp, f64)> {
        self.rows_of(activity)
            .filter(|r| item.is_none() || r.item.as_deref() == item)
            .filter_map(|r| self.get(r, column).map(|v| (r.stamp, v)))
            .collect()
    }

    /// The index of a table, added when new.
    pub fn table_index(&mut self, t: Table) -> usize {
        match self.tables.iter().position(|x| *x == t) {
            Some(i) => i,
            None => {
                self.tables.push(t);
                self.tables.len() - 1
            }
        }
    }

    /// Gives rows without an interval the median interval of their table.
    pub fn fill_intervals(&mut self) {
        let mut by_table: HashMap<usize, Vec<f64>> = HashMap::new();
        for r in &self.rows {
            if let Some(i) = r.interval_s {
                by_table.entry(r.table).or_default().push(i);
            }
        }
        let median: HashMap<usize, f64> = by_table
            .into_iter()
            .map(|(t, mut v)| {
                v.sort_by(f64::total_cmp);
                (t, v[v.len() / 2])
            })
            .collect();
        for r in &mut self.rows {
            if r.interval_s.is_none() {
                r.interval_s = median.get(&r.table).copied();
            }
        }
    }
}

impl Summary for Sar {
    fn records(&self) -> usize {
        self.rows.len()
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        v.insert("source", self.source.as_str().to_string());
        let acts: Vec<&str> = self.activities().iter().map(|a| a.as_str()).collect();
        v.insert("activities", acts.join(","));
        if let Some((_, b)) = self.banners.first() {
            v.insert("date_form", b.date_form.to_string());
            v.insert("host", b.nodename.clone());
        } else if let Some(h) = &self.host {
            v.insert("host", h.clone());
        }
        if self.banners.len() > 1 {
            v.insert("days", self.banners.len().to_string());
        }
        if let Some(c) = self.clock {
            v.insert("clock", c.to_string());
        }
        if self.decimal_comma {
            v.insert("decimal", "comma".to_string());
        }
        if self.horizontal {
            v.insert("horizontal", "true".to_string());
        }
        if self.human {
            v.insert("human", "true".to_string());
        }
        if !self.restarts.is_empty() {
            v.insert("restarts", self.restarts.len().to_string());
        }
        if let Some(t) = self.tables.iter().find(|t| t.activity == Activity::Disk) {
            let names = if t.columns.iter().any(|c| c == "rkB/s") { "kB" } else { "sectors" };
            v.insert("disk_units", names.to_string());
        }
        if let Some(i) = self.rows.iter().find_map(|r| r.interval_s) {
            v.insert("interval_s", format!("{i}"));
        }
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        Some((self.rows.first()?.stamp, self.rows.last()?.stamp))
    }
}

/// True for an item column name: upper-case letters only (`CPU`, `DEV`, `IFACE`, `FILESYSTEM`).
fn is_item_column(c: &str) -> bool {
    c.len() >= 2 && c.bytes().all(|b| b.is_ascii_uppercase())
}

/// Splits header labels into (item column, its position, value columns).
/// The item column is first (`CPU`, `DEV` without `-p`) or last (`DEV`, `IFACE`, `FILESYSTEM` in sysstat 12).
fn split_header(labels: &[&str]) -> (Option<(String, ItemAt)>, Vec<String>) {
    let owned = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    match labels {
        [first, rest @ ..] if is_item_column(first) => {
            (Some((first.to_string(), ItemAt::First)), owned(rest))
        }
        [rest @ .., last] if is_item_column(last) => (Some((last.to_string(), ItemAt::Last)), owned(rest)),
        _ => (None, owned(labels)),
    }
}

/// Where a table's item sits in its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ItemAt {
    First,
    Last,
}

/// The header currently in force.
#[derive(Debug, Clone, Copy)]
struct Current {
    table: usize,
    item_at: Option<ItemAt>,
    width: usize,
}

/// Day roll-over and interval tracking of one table within one banner (also mpstat JSON's
/// times of day, [`crate::sadf::parse_json_as`]).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Clock {
    day: i64,
    last_abs: Option<f64>,
    last_interval: Option<f64>,
}

impl Clock {
    /// A header's time is the start of the first interval under it (the previous sample).
    fn seed(&mut self, tod: NaiveTime) {
        if self.last_abs.is_none() {
            self.last_abs = Some(self.day as f64 * 86_400.0 + secs_of(tod));
        }
    }

    /// Seconds since the banner's midnight, rolling to the next day when the time goes
    /// back by more than 12 h (an hour back is the repeated hour of a daylight saving
    /// time change, not a new day).
    pub(crate) fn place(&mut self, tod: NaiveTime) -> (i64, Option<f64>) {
        let mut abs = self.day as f64 * 86_400.0 + secs_of(tod);
        if let Some(last) = self.last_abs
            && abs + 43_200.0 < last
        {
            self.day += 1;
            abs += 86_400.0;
        }
        let interval = match self.last_abs {
            Some(last) if abs > last => Some(abs - last),
            Some(_) => self.last_interval,
            None => None,
        };
        self.last_abs = Some(abs);
        self.last_interval = interval;
        (self.day, interval)
    }
}

fn secs_of(tod: NaiveTime) -> f64 {
    f64::from(tod.num_seconds_from_midnight()) + f64::from(tod.nanosecond()) / 1e9
}

/// Parses sar (or mpstat) text.
pub fn parse_text(input: &[u8], source: Source) -> Parsed<Sar> {
    parse_source(&mut SliceSource::new(input), source)
}

/// Parses sar (or mpstat) text fed line by line (a file streamed from disk: the same
/// result as [`parse_text`] over the whole file).
pub fn parse_source(src: &mut impl LineSource, source: Source) -> Parsed<Sar> {
    let mut r = TextReader::new(source);
    while let Some(sl) = src.next_line() {
        r.feed(&sl.line);
    }
    r.finish()
}

/// The state of reading sar (or mpstat) text line by line.
pub(crate) struct TextReader {
    out: Sar,
    d: Diags,
    current: Option<Current>,
    date: Option<NaiveDate>,
    // Rows are placed on days once the whole file is read (a time that breaks its
    // table's series must not roll the rest to the next day): per row its segment
    // (banner or restart), per segment its date and the first header time of each table.
    segment: usize,
    segments: Vec<Option<NaiveDate>>,
    row_segment: Vec<usize>,
    seeds: HashMap<(usize, usize), NaiveTime>,
    /// Lines read (the last line's number).
    lines: usize,
}

impl TextReader {
    /// A reader of `source` text.
    pub(crate) fn new(source: Source) -> Self {
        TextReader {
            out: Sar::new(source),
            d: Diags::default(),
            current: None,
            date: None,
            segment: 0,
            segments: vec![None],
            row_segment: Vec::new(),
            seeds: HashMap::new(),
            lines: 0,
        }
    }

    /// Reads one line.
    pub(crate) fn feed(&mut self, line: &Line<'_>) {
        self.lines = line.no;
        let text = line.clean_text();
        let t = text.trim_end();
        if t.trim().is_empty() {
            return;
        }
        if let Some(b) = parse_banner(t) {
            self.date = b.date;
            self.segment += 1;
            self.segments.push(self.date);
            self.current = None;
            self.out.banners.push((line.no, b));
            return;
        }
        if average_label_len(t).is_some() {
            self.out.averages += 1;
            return;
        }
        let toks: Vec<&str> = t.split_whitespace().collect();
        let Some((tod, used)) = parse_time_of_day(&toks) else {
            self.d.skip(line.no, DiagKind::Malformed, t);
            return;
        };
        if self.out.clock.is_none() {
            self.out.clock = Some(clock_form(&toks, used));
        }
        let rest = &toks[used..];
        if rest.first() == Some(&"LINUX") && rest.get(1) == Some(&"RESTART") {
            self.segment += 1;
            self.segments.push(self.date);
            self.current = None;
            self.out.restarts.push((line.no, stamp_on(self.date, 0, tod)));
            return;
        }
        if rest.is_empty() {
            self.d.skip(line.no, DiagKind::Malformed, t);
            return;
        }
        if rest.iter().all(|x| parse_f64(x).is_none() && parse_human(x).is_none()) {
            self.header(rest, tod);
            return;
        }
        self.row(line.no, t, rest, tod);
    }

    /// A header line's columns (`rest`: after its time of day `tod`).
    fn header(&mut self, rest: &[&str], tod: NaiveTime) {
        let (item, columns) = split_header(rest);
        let activity = identify(item.as_ref().map(|(n, _)| n.as_str()), &columns);
        let width = rest.len();
        let item_at = item.as_ref().map(|(_, at)| *at);
        let table = self.out.table_index(Table { activity, item: item.map(|(n, _)| n), columns });
        self.seeds.entry((self.segment, table)).or_insert(tod);
        self.current = Some(Current { table, item_at, width });
    }

    /// A row of values (`rest`: after its time of day `tod`; `t`: the line).
    fn row(&mut self, no: usize, t: &str, rest: &[&str], tod: NaiveTime) {
        let Some(cur) = self.current else {
            self.d.skip(no, DiagKind::NoHeader, t);
            return;
        };
        if rest.len() != cur.width {
            self.d.skip(no, DiagKind::FieldCount, t);
            return;
        }
        let (item, vals) = match cur.item_at {
            Some(ItemAt::First) => (Some(rest[0].to_string()), &rest[1..]),
            Some(ItemAt::Last) => (Some(rest[rest.len() - 1].to_string()), &rest[..rest.len() - 1]),
            None => (None, rest),
        };
        let values = read_values(&mut self.out, cur.table, vals, no, t, &mut self.d);
        self.row_segment.push(self.segment);
        self.out.rows.push(Row {
            line: no,
            table: cur.table,
            stamp: Stamp::TimeOfDay(tod),
            interval_s: None,
            item,
            values,
        });
    }

    /// The parse of the lines read.
    pub(crate) fn finish(mut self) -> Parsed<Sar> {
        place_on_days(&mut self.out.rows, &self.row_segment, &self.segments, &self.seeds, &mut self.d);
        self.out.fill_intervals();
        self.d.finish(self.out, self.lines)
    }
}

/// How a row's time of day is printed (`used`: its tokens): `12h`, `cjk` or `24h`.
fn clock_form(toks: &[&str], used: usize) -> &'static str {
    if used == 2 {
        "12h"
    } else if toks[0].contains(|c: char| !c.is_ascii()) {
        "cjk"
    } else {
        "24h"
    }
}

/// The values of a row of `table` (`t`: the line, for diagnostics).
fn read_values(
    out: &mut Sar,
    table: usize,
    vals: &[&str],
    no: usize,
    t: &str,
    d: &mut Diags,
) -> Vec<Option<f64>> {
    let mut values = Vec::with_capacity(vals.len());
    let columns = &out.tables[table].columns;
    for (i, v) in vals.iter().enumerate() {
        let x = parse_f64(v).or_else(|| {
            let h = human_value(v, columns.get(i).map_or("", String::as_str));
            out.human |= h.is_some();
            h
        });
        if x.is_none() {
            d.note(no, DiagKind::BadNumber, format!("{v:?} in: {t}"));
        } else if v.contains(',') {
            out.decimal_comma = true;
        }
        values.push(x);
    }
    values
}

/// A `sar -h` value in its column's unit. Sizes are printed as absolute amounts with a
/// binary suffix, whatever the column's unit: `16.3M` under `wkB/s` is 16.3 MiB/s, that is
/// 16691.2 kB/s; `8.5G` under `kbmemfree` is 8912896 kB; `61.3k` under `areq-sz` (kB) is
/// 61.3. Percentages carry `%` (`83.8%` under `%user`). `None` for a plain number (read by
/// [`parse_f64`]) or no number at all.
///
/// Real lines (`sar -h -u -r -d 1 2`, sysstat 12.6.1, this machine):
///
/// ```text
/// 17:26:39        CPU     %user     %nice   %system   %iowait    %steal     %idle
/// 17:26:40        all     83.8%      0.0%     15.7%      0.0%      0.0%      0.5%
/// 17:26:39    kbmemfree   kbavail kbmemused  %memused kbbuffers  kbcached  kbcommit   %commit  kbactive   kbinact   kbdirty
/// 17:26:40         8.5G     22.1G    998.3M      4.1%     71.0M     13.2G    405.3M      1.7%      5.9G      7.8G    990.6M
/// 17:26:39          tps     rkB/s     wkB/s     dkB/s   areq-sz    aqu-sz     await     %util DEV
/// 17:26:40       276.00    208.0k     16.3M      0.0k     61.3k      1.61      5.85      1.6% vda
/// ```
fn human_value(v: &str, column: &str) -> Option<f64> {
    let last = *v.as_bytes().last()?;
    if last.is_ascii_digit() {
        return None;
    }
    let x = parse_human(v)?;
    if !matches!(last, b'B' | b'k' | b'K' | b'M' | b'G' | b'T' | b'P') {
        return Some(x);
    }
    // The column's unit: kB (`wkB/s`, `kbmemfree`, `areq-sz`), MB (`MBfsfree` of `-F`), else bytes.
    Some(if column.contains("kB") || column.starts_with("kb") || column == "areq-sz" {
        x / 1024.0
    } else if column.starts_with("MB") {
        x / (1024.0 * 1024.0)
    } else {
        x
    })
}

/// Places the rows (their stamps still times of day) on the days of their segment, each
/// table's rows with their own [`Clock`] (rolling to the next day when the time goes back),
/// after placing the times that break their series ([`crate::common::series`]): one
/// garbled time no longer rolls the rest of its table to the next day.
fn place_on_days(
    rows: &mut [Row],
    row_segment: &[usize],
    segments: &[Option<NaiveDate>],
    seeds: &HashMap<(usize, usize), NaiveTime>,
    d: &mut Diags,
) {
    let mut groups: HashMap<(usize, usize), Vec<usize>> = HashMap::new();
    for (i, r) in rows.iter().enumerate() {
        groups.entry((row_segment[i], r.table)).or_default().push(i);
    }
    let tod = |s: &Stamp| match s {
        Stamp::TimeOfDay(t) => *t,
        Stamp::Epoch(_) | Stamp::Zoned(_) | Stamp::Local(_) | Stamp::NoYear { .. } | Stamp::SinceBoot(_) => {
            NaiveTime::MIN
        }
    };
    for ((seg, table), idx) in groups {
        // Samples: runs of rows with one time (the items of one report).
        let mut samples: Vec<(usize, usize, Option<Stamp>)> = Vec::new();
        for (k, &i) in idx.iter().enumerate() {
            match samples.last_mut() {
                Some(s) if s.2 == Some(rows[i].stamp) => s.1 = k + 1,
                _ => samples.push((k, k + 1, Some(rows[i].stamp))),
            }
        }
        let lines: Vec<usize> = samples.iter().map(|s| rows[idx[s.0]].line).collect();
        for p in crate::common::series::place(&samples.iter().map(|s| s.2).collect::<Vec<_>>()) {
            d.note(lines[p.at], DiagKind::BadTime, &p.why);
            samples[p.at].2 = Some(p.stamp);
        }
        let mut clock = Clock::default();
        if let Some(t) = seeds.get(&(seg, table)) {
            clock.seed(*t);
        }
        let date = segments.get(seg).copied().flatten();
        for (a, b, s) in samples {
            let t = s.as_ref().map(tod).unwrap_or(NaiveTime::MIN);
            let (day, interval_s) = clock.place(t);
            for &i in &idx[a..b] {
                rows[i].stamp = stamp_on(date, day, t);
                rows[i].interval_s = interval_s;
            }
        }
    }
    d.list.sort_by_key(|x| x.line);
}

/// The banner date plus `day` days at `tod`, or the time of day alone without a banner date.
fn stamp_on(date: Option<NaiveDate>, day: i64, tod: NaiveTime) -> Stamp {
    match date.and_then(|d| d.checked_add_days(chrono::Days::new(day.max(0) as u64))) {
        Some(d) => Stamp::Local(d.and_time(tod)),
        None => Stamp::TimeOfDay(tod),
    }
}

/// The value columns of a header line after its time (`CPU %usr ...`), when it is one.
pub(crate) fn header_columns(line: &str) -> Option<Vec<String>> {
    let toks: Vec<&str> = line.split_whitespace().collect();
    let (_, used) = parse_time_of_day(&toks)?;
    let rest = &toks[used..];
    if rest.is_empty() || rest.iter().any(|x| parse_f64(x).is_some()) {
        return None;
    }
    Some(rest.iter().map(|s| s.to_string()).collect())
}

/// True when a CPU header has mpstat's column order (`%iowait %irq`; sar prints `%iowait %steal`).
pub(crate) fn is_mpstat_cpu_header(cols: &[String]) -> bool {
    let at = |c: &str| cols.iter().position(|x| x == c);
    matches!((at("%iowait"), at("%irq")), (Some(a), Some(b)) if b == a + 1)
}

/// The `sar` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Sar;
    const ID: &'static str = "sar";
    const SAMPLE: &'static str =
        "19:14:14          tps     rkB/s     wkB/s     dkB/s   areq-sz    aqu-sz     await     %util DEV";
    const DESCRIPTION: &'static str =
        "sysstat sar text reports (any activity, -A mixes, any locale, 12/24 h clock)";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let text = String::from_utf8_lossy(head);
        let mut banner = false;
        for l in text.lines().take(16) {
            let l = crate::common::lines::strip_ansi(std::borrow::Cow::Borrowed(l));
            if parse_banner(&l).is_some() {
                banner = true;
                continue;
            }
            let Some(cols) = header_columns(&l) else { continue };
            let (item, values) = split_header(&cols.iter().map(String::as_str).collect::<Vec<_>>());
            let item = item.map(|(n, _)| n);
            if item.as_deref() == Some("CPU") && is_mpstat_cpu_header(&values) {
                return Sniff::No;
            }
            if identify(item.as_deref(), &values) != Activity::Other {
                // pidstat headers (`UID PID ...`) name no sar activity.
                return if banner { Sniff::Yes } else { Sniff::Unsure };
            }
        }
        Sniff::No
    }

    fn parse(input: &[u8]) -> Parsed<Sar> {
        parse_text(input, Source::SarText)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: &str = "Linux 6.18.44-fc-v669 (vm) \t12/01/26 \t_x86_64_\t(2 CPU)\n\n\
19:14:13          tps     rkB/s     wkB/s     dkB/s   areq-sz    aqu-sz     await     %util DEV\n\
19:14:14      7514.00      0.00  34916.00      8.00      4.65      0.45      0.06     29.20 vda\n\
19:14:15     11287.00      4.00  50456.00      0.00      4.47      0.68      0.06     43.60 vda\n\
Average:      9411.55  13725.53  63442.17   2363.65      8.45      2.79      0.26     54.56 vda\n";

    #[test]
    fn disk_rows_with_device_last() {
        let p = parse_text(C.as_bytes(), Source::SarText);
        assert_eq!(p.skipped_lines, 0, "{:?}", p.diagnostics);
        let s = &p.value;
        assert_eq!(s.rows.len(), 2);
        assert_eq!(s.averages, 1);
        assert_eq!(s.tables[0].activity, Activity::Disk);
        let w = s.series(Activity::Disk, Some("vda"), "wkB/s");
        assert_eq!(w[1].1, 50456.0);
        assert_eq!(w[1].0.display(), "2026-12-01T19:14:15");
        assert_eq!(s.rows[0].interval_s, Some(1.0));
    }

    #[test]
    fn midnight_rolls_per_table_and_twelve_hour_clock() {
        let text = "Linux 4.19.0 (h) \t11/30/2026 \t_x86_64_\t(2 CPU)\n\n\
11:59:00 PM     CPU     %user     %nice   %system   %iowait    %steal     %idle\n\
11:59:30 PM     all      1,00      0,00      1,00      0,00      0,00     98,00\n\
12:00:00 AM     all      2,00      0,00      1,00      0,00      0,00     97,00\n\n\
11:59:00 PM   runq-sz  plist-sz   ldavg-1   ldavg-5  ldavg-15   blocked\n\
11:59:30 PM         1       100      0,10      0,20      0,30         0\n\
12:00:00 AM         2       100      0,10      0,20      0,30         0\n";
        let p = parse_text(text.as_bytes(), Source::SarText);
        assert_eq!(p.skipped_lines, 0, "{:?}", p.diagnostics);
        let s = &p.value;
        assert!(s.decimal_comma);
        assert_eq!(s.clock, Some("12h"));
        let u = s.series(Activity::Cpu, Some("all"), "%user");
        assert_eq!(u[1].0.display(), "2026-12-01T00:00:00");
        let q = s.series(Activity::Queue, None, "runq-sz");
        assert_eq!(q[0].0.display(), "2026-11-30T23:59:30");
        assert_eq!(q[1].0.display(), "2026-12-01T00:00:00");
        assert_eq!(s.rows[1].interval_s, Some(30.0));
    }

    #[test]
    fn restart_and_bad_lines_are_diagnosed_not_fatal() {
        let text = "Linux 6.1 (h) \t12/01/26 \t_x86_64_\t(2 CPU)\n\
19:00:01          LINUX RESTART\t(2 CPU)\n\
19:10:01     kbmemfree   kbavail kbmemused  %memused\n\
19:20:01        100   200   300   x\n\
19:20:01        100   200\n\
garbage here\n";
        let p = parse_text(text.as_bytes(), Source::SarText);
        assert_eq!(p.value.restarts.len(), 1);
        assert_eq!(p.value.rows.len(), 1);
        assert_eq!(p.value.rows[0].values[3], None);
        assert_eq!(p.skipped_lines, 2);
        assert!(p.diagnostics.iter().any(|d| d.kind == DiagKind::BadNumber && d.line == 4));
    }

    #[test]
    fn sniff_tells_sar_from_mpstat() {
        assert_eq!(Fmt::sniff(C.as_bytes()), Sniff::Yes);
        let mp = "Linux 6.18.44-fc-v669 (vm) \t12/01/26 \t_x86_64_\t(2 CPU)\n\n\
19:14:23     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle\n";
        assert_eq!(Fmt::sniff(mp.as_bytes()), Sniff::No);
    }
}
