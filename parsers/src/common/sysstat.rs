//! The sysstat banner, its locale dates (`%x`), times of day (`%X`, 12-hour
//! AM/PM, CJK), report time stamps (`%x %X`, ISO with zone) and the
//! translated `Average:` labels, shared by iostat, pidstat (and sar/mpstat); the
//! note and variant of reports merged under a memory budget.

use super::time::{Stamp, full_year, ymd};
use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, TimeZone};

/// `Linux 6.18.44-fc-v669 (vm) \t11/29/26 \t_x86_64_\t(2 CPU)`, parsed.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Banner {
    /// `Linux`.
    pub sysname: String,
    /// Kernel release, e.g. `6.18.44-fc-v669`.
    pub release: String,
    /// Host name (inside the first parentheses).
    pub nodename: String,
    /// The date exactly as printed (`%x` of the capturing locale, or ISO).
    pub date_text: String,
    /// The date, when it could be read.
    pub date: Option<NaiveDate>,
    /// The other reading of an ambiguous `NN/NN/YY` date (`06/01/20`: June 1st or January 6th).
    pub date_alt: Option<NaiveDate>,
    /// Which `%x` shape the date had (`mm/dd/yy`, `dd.mm.yyyy`, `iso`, `cjk`, ...).
    pub date_form: &'static str,
    /// `x86_64` (without the underscores), when printed.
    pub machine: Option<String>,
    /// CPU count, when printed.
    pub cpus: Option<u32>,
}

/// Parses a sysstat banner line; `None` when the line is not one.
///
/// `Linux 6.18.44-fc-v669 (vm) \t29.11.2026 \t_x86_64_\t(2 CPU)`
/// `Linux 2.6.18-371.9.1.el5 (somehost.redhat.com)    10/07/2014` (sysstat 7: no arch, no CPUs)
/// ` Linux 3.13.0-76-generic (object1)  03/15/2016  _x86_64_    (4 CPU)` (pasted: indented,
/// tabs turned into runs of spaces)
pub fn parse_banner(line: &str) -> Option<Banner> {
    let line = line.trim();
    let mut it = line.splitn(3, ' ');
    let sysname = it.next()?;
    if !sysname.chars().next()?.is_ascii_alphabetic() || sysname.len() > 32 {
        return None;
    }
    let release = it.next()?;
    let rest = it.next()?.trim_start();
    if !rest.starts_with('(') {
        return None;
    }
    let close = rest.find(')')?;
    let nodename = &rest[1..close];
    let tail = rest[close + 1..].trim();
    // The fields are tab-separated; a pasted copy has runs of spaces instead.
    let parts: Vec<&str> = if tail.contains('\t') {
        tail.split('\t').map(str::trim).filter(|p| !p.is_empty()).collect()
    } else {
        tail.split("  ").map(str::trim).filter(|p| !p.is_empty()).collect()
    };
    let arch = |p: &str| p.len() > 2 && p.starts_with('_') && p.ends_with('_');
    let (date_text, machine, cpus) = if tail.contains('\t') || parts.iter().any(|p| arch(p)) {
        let mut date_text = String::new();
        let mut machine = None;
        let mut cpus = None;
        for part in parts {
            if arch(part) {
                machine = Some(part.trim_matches('_').to_string());
            } else if let Some(n) = part.strip_prefix('(').and_then(|p| p.strip_suffix(" CPU)")) {
                cpus = n.trim().parse().ok();
            } else if date_text.is_empty() {
                date_text = part.to_string();
            }
        }
        (date_text, machine, cpus)
    } else {
        (tail.to_string(), None, None)
    };
    if date_text.is_empty() && machine.is_none() {
        return None;
    }
    let d = parse_date(&date_text);
    if d.form == "unknown" && machine.is_none() {
        // Without a date shape or an _arch_ token this is not a banner.
        return None;
    }
    Some(Banner {
        sysname: sysname.to_string(),
        release: release.to_string(),
        nodename: nodename.to_string(),
        date_text,
        date: d.date,
        date_alt: d.alt,
        date_form: d.form,
        machine,
        cpus,
    })
}

/// A date read from a `%x` string.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DateReading {
    /// The preferred reading.
    pub date: Option<NaiveDate>,
    /// The other reading when day and month cannot be told apart.
    pub alt: Option<NaiveDate>,
    /// The shape: `iso`, `cjk`, `korean`, `dd.mm.yyyy`, `mm/dd/yy`, `dd/mm/yyyy`, `dd-mm-yyyy`, `yyyymmdd`, `unknown`.
    pub form: &'static str,
}

fn nums(s: &str) -> Vec<&str> {
    s.split(|c: char| !c.is_ascii_digit()).filter(|p| !p.is_empty()).collect()
}

/// Reads a sysstat `%x` date in any glibc locale shape (see FORMATS.md §0.2).
///
/// Slash dates are read month-first (C, en_US) unless the first number is
/// above 12; the day-first reading is kept in `alt` when both are valid.
pub fn parse_date(text: &str) -> DateReading {
    let t = text.trim();
    let none = DateReading { date: None, alt: None, form: "unknown" };
    let n = nums(t);
    let p = |s: &str| s.parse::<i32>().ok();
    if t.contains('年') && n.len() == 3 {
        let (y, m, d) = (p(n[0]), p(n[1]), p(n[2]));
        let date = ymd(y.unwrap_or(0), m.unwrap_or(0) as u32, d.unwrap_or(0) as u32);
        return DateReading { date, alt: None, form: "cjk" };
    }
    if t.contains('년') && n.len() == 3 {
        let (y, m, d) = (p(n[0]), p(n[1]), p(n[2]));
        let date = ymd(y.unwrap_or(0), m.unwrap_or(0) as u32, d.unwrap_or(0) as u32);
        return DateReading { date, alt: None, form: "korean" };
    }
    if n.len() == 1 && n[0].len() == 8 && t.len() == 8 {
        let s = n[0];
        let date =
            ymd(p(&s[..4]).unwrap_or(0), p(&s[4..6]).unwrap_or(0) as u32, p(&s[6..]).unwrap_or(0) as u32);
        return DateReading { date, alt: None, form: "yyyymmdd" };
    }
    if n.len() != 3 || n.concat().len() + 2 != t.len() {
        return none;
    }
    let sep = t.chars().find(|c| !c.is_ascii_digit()).unwrap_or(' ');
    let (a, b, c) = match (p(n[0]), p(n[1]), p(n[2])) {
        (Some(a), Some(b), Some(c)) => (a, b, c),
        _ => return none,
    };
    if n[0].len() == 4 {
        return DateReading { date: ymd(a, b as u32, c as u32), alt: None, form: "iso" };
    }
    let y = full_year(c);
    let long = n[2].len() == 4;
    match sep {
        '.' => DateReading {
            date: ymd(y, b as u32, a as u32),
            alt: None,
            form: if long { "dd.mm.yyyy" } else { "dd.mm.yy" },
        },
        '-' => DateReading {
            date: ymd(y, b as u32, a as u32),
            alt: None,
            form: if long { "dd-mm-yyyy" } else { "dd-mm-yy" },
        },
        '/' => {
            let md = ymd(y, a as u32, b as u32);
            let dm = ymd(y, b as u32, a as u32);
            match (md, dm) {
                (Some(md), Some(dm)) if md != dm => DateReading {
                    date: Some(md),
                    alt: Some(dm),
                    form: if long { "mm/dd/yyyy" } else { "mm/dd/yy" },
                },
                (Some(md), _) => DateReading {
                    date: Some(md),
                    alt: None,
                    form: if long { "mm/dd/yyyy" } else { "mm/dd/yy" },
                },
                (None, Some(dm)) => DateReading {
                    date: Some(dm),
                    alt: None,
                    form: if long { "dd/mm/yyyy" } else { "dd/mm/yy" },
                },
                (None, None) => none,
            }
        }
        _ => none,
    }
}

/// Reads a time of day at the start of `tokens` (whitespace-split), returning
/// it and how many tokens it used.
///
/// Forms: `19:37:20`, `07:33:00 PM` (2 tokens), `19時33分02秒` / `19时31分46秒`,
/// `19시 33분 02초` (3 tokens), optional fraction `19:37:20.123`.
pub fn parse_time_of_day(tokens: &[&str]) -> Option<(NaiveTime, usize)> {
    let first = *tokens.first()?;
    if first.contains('시') {
        let joined = tokens.iter().take(3).copied().collect::<Vec<_>>().join("");
        let n = nums(&joined);
        if n.len() == 3 && tokens.len() >= 3 {
            return hms(n[0], n[1], n[2]).map(|t| (t, 3));
        }
        return None;
    }
    let n: Vec<&str> = if first.contains('時') || first.contains('时') {
        nums(first)
    } else {
        let b = first.as_bytes();
        if b.len() < 5 || !b[0].is_ascii_digit() || !first.contains(':') {
            return None;
        }
        first.split(':').collect()
    };
    if n.len() != 3 {
        return None;
    }
    let mut t = hms(n[0], n[1], n[2])?;
    if let Some(ampm) = tokens.get(1) {
        let up = ampm.to_ascii_uppercase();
        if up == "AM" || up == "PM" {
            let h = chrono::Timelike::hour(&t) % 12 + if up == "PM" { 12 } else { 0 };
            t = chrono::Timelike::with_hour(&t, h)?;
            return Some((t, 2));
        }
    }
    Some((t, 1))
}

fn hms(h: &str, m: &str, s: &str) -> Option<NaiveTime> {
    let h: u32 = h.parse().ok()?;
    let m: u32 = m.parse().ok()?;
    let (s, frac) = match s.split_once(['.', ',']) {
        Some((s, f)) => (s, f),
        None => (s, ""),
    };
    let s: u32 = s.parse().ok()?;
    let nanos = if frac.is_empty() {
        0
    } else {
        let f: String = frac.chars().take(9).collect();
        let v: u32 = f.parse().ok()?;
        v * 10u32.pow(9 - f.len() as u32)
    };
    super::time::hms(h, m, s, nanos)
}

/// Reads a whole report time-stamp line: `%x %X` in any locale
/// (`11/29/26 19:37:19`, `11/29/2026 07:31:42 PM`, `29.11.2026 19:31:40`,
/// `2026年11月29日 19時31分45秒`), ISO with zone (`2026-11-29T19:31:40+0000`),
/// sysstat 7 `Time: 03:49:57 PM`, or epoch seconds (`-U`).
pub fn parse_stamp_line(line: &str) -> Option<Stamp> {
    let t = line.trim();
    if t.is_empty() || t.len() > 64 {
        return None;
    }
    if let Some(rest) = t.strip_prefix("Time:") {
        let toks: Vec<&str> = rest.split_whitespace().collect();
        let (tod, used) = parse_time_of_day(&toks)?;
        return (used == toks.len()).then_some(Stamp::TimeOfDay(tod));
    }
    if t.len() >= 19 && t.as_bytes()[4] == b'-' && t.as_bytes().get(10) == Some(&b'T') {
        // A leap second (`23:59:60`) is read as the last second of its minute.
        let zoned = |d: DateTime<chrono::FixedOffset>| {
            let n = d.naive_local();
            d.offset()
                .from_local_datetime(&n.date().and_time(super::time::no_leap(n.time())))
                .single()
                .map(Stamp::Zoned)
        };
        if let Ok(d) = DateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S%z") {
            return zoned(d);
        }
        if let Ok(d) = DateTime::parse_from_rfc3339(t) {
            return zoned(d);
        }
        if let Ok(n) = NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S") {
            return Some(Stamp::Local(n.date().and_time(super::time::no_leap(n.time()))));
        }
        return None;
    }
    if t.len() >= 9 && t.len() <= 11 && t.bytes().all(|b| b.is_ascii_digit()) {
        return t.parse::<f64>().ok().map(Stamp::Epoch);
    }
    let toks: Vec<&str> = t.split_whitespace().collect();
    // The date may itself contain spaces (Korean `2026년 11월 29일`): try 1..=3 date tokens.
    for k in 1..=3.min(toks.len().saturating_sub(1)) {
        let date_text = toks[..k].join(" ");
        let d = parse_date(&date_text);
        if let Some(date) = d.date
            && let Some((tod, used)) = parse_time_of_day(&toks[k..])
            && k + used == toks.len()
        {
            return Some(Stamp::Local(date.and_time(tod)));
        }
    }
    None
}

/// Labels sysstat prints instead of a time on average rows, in every translation
/// shipped in `nls/` that we know of (`Moyenne :` has a space before the colon).
pub const AVERAGE_LABELS: &[&str] = &[
    "Average:",
    "Durchschn.:",
    "Moyenne :",
    "Moyenne:",
    "Media:",
    "Média:",
    "Mitjana:",
    "Średnia:",
    "Среднее:",
    "Середнє:",
    "平均値:",
    "平均时间:",
    "平均時間:",
    "평균:",
    "Gemiddeld:",
    "Genomsnitt:",
    "Gennemsnit:",
    "Gjennomsnitt:",
    "Gjennomsnitt :",
    "Keskiarvo:",
    "Átlag:",
    "Průměr:",
    "Priemer:",
    "Prosjek:",
    "Просек:",
    "Medie:",
    "Rata-rata:",
    "Ortalama:",
    "Mediu:",
    "Vidējais:",
    "Trung bình:",
    "Meðaltal:",
    "Mezanum:",
    "Medio:",
    "Batez bestekoa:",
    "Meán:",
    "Орташа:",
    "Орточо:",
    "Сярэдняе:",
    "საშუალო:",
    "Mezzo:",
    "Media :",
];

/// If the line starts with an average label (`Average:`, `Durchschn.:`, `Moyenne :`, ...),
/// returns the byte length of the label. Unknown translations are recognised
/// structurally: a first word that ends with `:` and has no digit (a time always has digits).
pub fn average_label_len(line: &str) -> Option<usize> {
    for l in AVERAGE_LABELS {
        if line.starts_with(l) {
            return Some(l.len());
        }
    }
    let first = line.split_whitespace().next()?;
    let start = line.find(first)?;
    if start == 0 && first.ends_with(':') && first.len() > 1 && !first.chars().any(|c| c.is_ascii_digit()) {
        return Some(first.len());
    }
    None
}

/// The diagnostic of a sysstat file whose reports were merged `factor` to 1 to keep its
/// rows within `budget` bytes (iostat and pidstat under a memory budget).
pub fn merged_note(factor: u32, budget: usize) -> String {
    format!(
        "reports merged {factor} to 1 to keep the parsed rows within {} MB of memory: each value is the average over {factor} reports",
        budget >> 20
    )
}

/// The `reports_merged` variant value of such a file (the pipeline's warning reads it).
pub fn merged_variant(factor: u32) -> String {
    format!("{factor} to 1 (memory budget)")
}

/// Which sysstat tool wrote a JSON file, from its first KiB: every tool shares the
/// `{"sysstat": {"hosts": [...]}}` envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonKind {
    /// `sadf -j`: the host object has `"file-date"`, a report's `"timestamp"` is an object.
    Sadf,
    /// `iostat -o JSON`: `"avg-cpu"`, `"disk"` with `"disk_device"`.
    Iostat,
    /// `pidstat -o JSON`: task activities (`"task-cpu-load"`, `"io"` arrays of `"TGID"`/`"PID"` rows).
    Pidstat,
    /// `mpstat -o JSON`: `"cpu-load"`, `"node-load"`, `"sum-interrupts"`, ...
    Mpstat,
    /// The envelope, but nothing that tells the tool in the first KiB.
    Unknown,
}

/// The tool of a sysstat JSON file (`None`: not sysstat JSON).
///
/// ```text
/// {"sysstat": {
///     "hosts": [
///         {
///             "nodename": "vm", ..., "file-date": "2026-12-01", "file-utc-time": "19:14:13", ...   <- sadf -j
///             "statistics": [
///                 {
///                     "timestamp": {"date": "2026-12-01", "time": "19:14:14", "utc": 1, "interval": 1},
///                     "timestamp": "19:42:28",                                                      <- iostat, pidstat, mpstat
///                     "cpu-load": [                                                                 <- sadf -j -u, mpstat
///                         {"cpu": "all", "usr": 76.00, ...                                          <- mpstat: no "timestamp": {
/// ```
pub fn json_kind(head: &str) -> Option<JsonKind> {
    let compact: String = head.trim_start().chars().take(64).filter(|c| !c.is_whitespace()).collect();
    if !compact.starts_with("{\"sysstat\":") {
        return None;
    }
    let has = |k: &str| head.contains(k);
    Some(if has("\"file-date\"") || has("\"file-utc-time\"") || has("\"timestamp\": {") {
        JsonKind::Sadf
    } else if has("\"disk_device\"") || has("\"avg-cpu\"") || has("\"disk\"") {
        JsonKind::Iostat
    } else if [
        "\"task-",
        "\"TGID\"",
        "\"PID\"",
        "\"context-switch\"",
        "\"io\": [",
        "\"stack\": [",
        "\"kernel\": [",
        "\"realtime\": [",
    ]
    .iter()
    .any(|m| has(m))
    {
        JsonKind::Pidstat
    } else if [
        "\"cpu-load\"",
        "\"node-load\"",
        "\"sum-interrupts\"",
        "\"individual-interrupts\"",
        "\"soft-interrupts\"",
    ]
    .iter()
    .any(|m| has(m))
    {
        JsonKind::Mpstat
    } else {
        JsonKind::Unknown
    })
}

/// The time of a sysstat JSON report (`"timestamp": "19:42:28"`, `"1591016002"` with `-H`,
/// `"29.11.2026 19:52:39"`): a time of day (the date is the host's `"date"`) or epoch seconds.
pub fn json_time(s: &str) -> Option<Stamp> {
    let t = s.trim();
    if !t.is_empty() && t.len() <= 12 && t.bytes().all(|b| b.is_ascii_digit()) {
        return t.parse::<f64>().ok().map(Stamp::Epoch);
    }
    let toks: Vec<&str> = t.split_whitespace().collect();
    // A `%x %X` timestamp (`29.11.2026 19:52:39`): use the time of day.
    for k in 0..toks.len() {
        if let Some((tod, used)) = parse_time_of_day(&toks[k..])
            && k + used == toks.len()
        {
            return Some(Stamp::TimeOfDay(tod));
        }
    }
    None
}

/// The banner of a sysstat JSON host object (`nodename`, `sysname`, `release`, `machine`,
/// `number-of-cpus`, `date`).
pub fn json_banner(host: &serde_json::Value) -> Banner {
    let s = |k: &str| host.get(k).and_then(serde_json::Value::as_str).unwrap_or("").to_string();
    let date_text = s("date");
    let d = parse_date(&date_text);
    Banner {
        sysname: s("sysname"),
        release: s("release"),
        nodename: s("nodename"),
        date_text,
        date: d.date,
        date_alt: d.alt,
        date_form: d.form,
        machine: host.get("machine").and_then(serde_json::Value::as_str).map(str::to_string),
        cpus: host
            .get("number-of-cpus")
            .and_then(serde_json::Value::as_u64)
            .and_then(|n| u32::try_from(n).ok()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn banners_of_all_shapes() {
        let b = parse_banner("Linux 6.18.44-fc-v669 (vm) \t11/29/26 \t_x86_64_\t(2 CPU)").unwrap();
        assert_eq!(b.nodename, "vm");
        assert_eq!(b.date, ymd(2026, 11, 29));
        assert_eq!(b.cpus, Some(2));
        assert_eq!(b.machine.as_deref(), Some("x86_64"));
        let b = parse_banner("Linux 6.18.44-fc-v669 (vm) \t29.11.2026 \t_x86_64_\t(2 CPU)").unwrap();
        assert_eq!(b.date, ymd(2026, 11, 29));
        let b = parse_banner("Linux 6.18.44-fc-v669 (vm) \t2026年11月29日 \t_x86_64_\t(2 CPU)").unwrap();
        assert_eq!(b.date, ymd(2026, 11, 29));
        let b = parse_banner("Linux 2.6.18-371.9.1.el5 (somehost.redhat.com)    10/07/2014").unwrap();
        assert_eq!(b.date, ymd(2014, 10, 7));
        assert_eq!(b.date_alt, ymd(2014, 7, 10));
        let b = parse_banner("Linux 2.6.32-23-generic (bozo) \t27/07/10 \t_i686_\t(1 CPU)").unwrap();
        assert_eq!(b.date, ymd(2010, 7, 27));
        assert!(parse_banner("procs -----------memory----------").is_none());
        // congxueyang/iostatplot iostat3.out: pasted with one leading space, tabs as spaces.
        let b = parse_banner(" Linux 3.13.0-76-generic (object1)  03/15/2016  _x86_64_    (4 CPU)").unwrap();
        assert_eq!((b.nodename.as_str(), b.release.as_str()), ("object1", "3.13.0-76-generic"));
        assert_eq!(b.date, ymd(2016, 3, 15));
        assert_eq!((b.machine.as_deref(), b.cpus), (Some("x86_64"), Some(4)));
        assert!(parse_banner("Device            r/s").is_none());
    }

    #[test]
    fn times_of_day() {
        let t = |s: &str| {
            let v: Vec<&str> = s.split_whitespace().collect();
            parse_time_of_day(&v)
        };
        assert_eq!(t("07:33:00 PM 0 12"), Some((NaiveTime::from_hms_opt(19, 33, 0).unwrap(), 2)));
        assert_eq!(t("12:03:00 AM"), Some((NaiveTime::from_hms_opt(0, 3, 0).unwrap(), 2)));
        assert_eq!(t("19時33分02秒 0"), Some((NaiveTime::from_hms_opt(19, 33, 2).unwrap(), 1)));
        assert_eq!(t("19시 33분 02초 0"), Some((NaiveTime::from_hms_opt(19, 33, 2).unwrap(), 3)));
        assert_eq!(t("Average: 0"), None);
    }

    #[test]
    fn stamp_lines() {
        let d = ymd(2026, 11, 29).unwrap();
        let at = |h, m, s| Stamp::Local(d.and_hms_opt(h, m, s).unwrap());
        assert_eq!(parse_stamp_line("11/29/26 19:37:19"), Some(at(19, 37, 19)));
        assert_eq!(parse_stamp_line("11/29/2026 07:31:42 PM"), Some(at(19, 31, 42)));
        assert_eq!(parse_stamp_line("29.11.2026 19:31:40"), Some(at(19, 31, 40)));
        assert_eq!(parse_stamp_line("2026年11月29日 19時31分45秒"), Some(at(19, 31, 45)));
        let z = parse_stamp_line("2010-07-27T12:46:07+1000").unwrap();
        assert_eq!(z.utc().unwrap().to_rfc3339(), "2010-07-27T02:46:07+00:00");
        assert!(parse_stamp_line("avg-cpu:  %user").is_none());
    }

    #[test]
    fn average_labels() {
        assert_eq!(average_label_len("Average:      UID"), Some(8));
        assert_eq!(average_label_len("Moyenne :      UID"), Some(9));
        assert_eq!(average_label_len("Keskimäärin:  0"), Some("Keskimäärin:".len()));
        assert_eq!(average_label_len("19:37:20  0"), None);
    }
}
