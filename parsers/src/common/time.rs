//! [`Stamp`]: a record's time exactly as the file gives it. Parsers never
//! guess a date or a zone; `src/clock` of the `iosift` crate anchors stamps
//! on the UTC timeline. Two readings are settled here: a leap second (`23:59:60`)
//! is the last second of its minute ([`hms`]), and a stamp that breaks its file's
//! series is placed by its neighbours, with a diagnostic ([`super::series`]).

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Timelike, Utc};

/// The time of a record, as precise as the source allows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stamp {
    /// Seconds since 1970-01-01 UTC (pidstat `-H`, pt-stalk `TS`, dstat `--epoch`, `SET TIMESTAMP=`).
    Epoch(f64),
    /// A wall-clock time with its UTC offset (`S_TIME_FORMAT=ISO` iostat: `2026-11-29T19:31:40+0000`).
    Zoned(DateTime<FixedOffset>),
    /// A wall-clock date and time in an unknown zone (iostat `-t` `%x %X`, vmstat `-t`, binlog headers).
    Local(NaiveDateTime),
    /// A time of day only; the date comes from elsewhere (pidstat rows, banner date).
    TimeOfDay(NaiveTime),
    /// Month, day and time without a year (dstat `29-11 19:34:02`, dool `Nov-29 19:34:13`).
    NoYear {
        /// 1-12.
        month: u32,
        /// 1-31.
        day: u32,
        /// Time of day.
        time: NaiveTime,
    },
    /// Seconds since boot (perf clock, `CLOCK_MONOTONIC`).
    SinceBoot(f64),
}

impl Stamp {
    /// The UTC instant, when the stamp alone determines it.
    pub fn utc(&self) -> Option<DateTime<Utc>> {
        match *self {
            Stamp::Epoch(s) => epoch_to_utc(s),
            Stamp::Zoned(d) => Some(d.with_timezone(&Utc)),
            Stamp::Local(_) | Stamp::TimeOfDay(_) | Stamp::NoYear { .. } | Stamp::SinceBoot(_) => None,
        }
    }

    /// Text for reports and `inspect`: RFC 3339 when the instant is known, else the
    /// stamp in an ISO-like form that shows what is missing (no offset, no date, ...).
    pub fn display(&self) -> String {
        match *self {
            Stamp::Epoch(_) | Stamp::Zoned(_) => match (self, self.utc()) {
                (Stamp::Zoned(d), _) => d.to_rfc3339(),
                (_, Some(u)) => u.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
                _ => "invalid".to_string(),
            },
            Stamp::Local(n) => n.format("%Y-%m-%dT%H:%M:%S%.f").to_string(),
            Stamp::TimeOfDay(t) => t.format("%H:%M:%S%.f").to_string(),
            Stamp::NoYear { month, day, time } => {
                format!("--{month:02}-{day:02}T{}", time.format("%H:%M:%S%.f"))
            }
            Stamp::SinceBoot(s) => format!("boot+{s:.6}s"),
        }
    }
}

impl Stamp {
    /// Seconds on the axis its series is checked on ([`super::series`]): epoch seconds
    /// for epoch and zoned stamps, the wall clock read as if it were UTC for local ones,
    /// seconds since midnight for a time of day (the caller unwraps midnight), a year of
    /// 31-day months for a date without year. Only differences between stamps of one
    /// kind mean anything.
    pub fn series_secs(&self) -> f64 {
        let naive = |n: &NaiveDateTime| n.and_utc().timestamp() as f64 + f64::from(n.nanosecond()) / 1e9;
        let tod = |t: &NaiveTime| f64::from(t.num_seconds_from_midnight()) + f64::from(t.nanosecond()) / 1e9;
        match self {
            Stamp::Epoch(e) | Stamp::SinceBoot(e) => *e,
            Stamp::Zoned(d) => naive(&d.naive_utc()),
            Stamp::Local(n) => naive(n),
            Stamp::TimeOfDay(t) => tod(t),
            Stamp::NoYear { month, day, time } => f64::from(month * 31 + day) * 86_400.0 + tod(time),
        }
    }

    /// The same kind of stamp `secs` seconds later (earlier when negative); a time of day
    /// wraps at midnight. `None` when out of range.
    pub fn shifted(&self, secs: f64) -> Option<Stamp> {
        if !secs.is_finite() || secs.abs() > 1e11 {
            return None;
        }
        let d = chrono::TimeDelta::nanoseconds((secs * 1e9).round() as i64);
        Some(match *self {
            Stamp::Epoch(e) => Stamp::Epoch(e + secs),
            Stamp::SinceBoot(e) => Stamp::SinceBoot(e + secs),
            Stamp::Zoned(z) => Stamp::Zoned(z.checked_add_signed(d)?),
            Stamp::Local(n) => Stamp::Local(n.checked_add_signed(d)?),
            Stamp::TimeOfDay(t) => Stamp::TimeOfDay(t.overflowing_add_signed(d).0),
            Stamp::NoYear { .. } => return None,
        })
    }
}

impl serde::Serialize for Stamp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.display())
    }
}

/// Converts epoch seconds to a UTC instant (`None` when out of range or not finite).
pub fn epoch_to_utc(secs: f64) -> Option<DateTime<Utc>> {
    if !secs.is_finite() || secs.abs() > 1e12 {
        return None;
    }
    let whole = secs.floor();
    let nanos = ((secs - whole) * 1e9).round().min(999_999_999.0) as u32;
    Utc.timestamp_opt(whole as i64, nanos).single()
}

/// A time of day from its fields. A leap second (`23:59:60`, printed by a clock that
/// inserts one) is read as the last second of its minute, `23:59:59` (the stamp then
/// shares its second with the one before; nothing is moved to the next day); any other
/// field out of range is `None`.
pub fn hms(h: u32, m: u32, s: u32, nanos: u32) -> Option<NaiveTime> {
    NaiveTime::from_hms_nano_opt(h, m, if s == 60 { 59 } else { s }, nanos)
}

/// `t` with a leap second (as chrono's `%S` reads `60`: 59 s and over 10^9 ns) read as
/// the last second of its minute, as [`hms`] does.
pub fn no_leap(t: NaiveTime) -> NaiveTime {
    let n = t.nanosecond();
    if n >= 1_000_000_000 { t.with_nanosecond(n - 1_000_000_000).unwrap_or(t) } else { t }
}

/// Builds a date, `None` when invalid (e.g. 31 February).
pub fn ymd(y: i32, m: u32, d: u32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(y, m, d)
}

/// Expands a two-digit year the way sysstat/glibc print it (`26` -> 2026, `98` -> 1998).
pub fn full_year(y: i32) -> i32 {
    match y {
        0..=68 => 2000 + y,
        69..=99 => 1900 + y,
        _ => y,
    }
}

/// A line printed by `date` between the runs of a logging loop (cron `date; vmstat 1 7`):
/// its local date-time and zone abbreviation (the zone is not resolved here).
#[derive(Debug, Clone, PartialEq)]
pub struct DateLine {
    /// 1-based line number.
    pub line: usize,
    /// The local date and time printed.
    pub local: NaiveDateTime,
    /// The zone abbreviation or offset (`IST`, `EEST`, `+0200`), when printed.
    pub zone: Option<String>,
}

/// Reads a whole line of `date` output: the C-locale default `Wed Aug 28 16:02:01 IST 2019`,
/// the newer `Wed 28 Aug 2019 04:02:01 PM IST`, and `date '+%F %T'` (`2025-10-23 13:55:24`).
/// Every word must be a weekday, a month, a day, a year, the time, AM/PM or one zone word,
/// so a data row is never taken for a date line.
pub fn parse_date_line(text: &str, line: usize) -> Option<DateLine> {
    let toks: Vec<&str> = text.split_whitespace().collect();
    if toks.len() == 2
        && let Ok(n) = NaiveDateTime::parse_from_str(&format!("{} {}", toks[0], toks[1]), "%Y-%m-%d %H:%M:%S")
    {
        return Some(DateLine { line, local: n, zone: None });
    }
    if !(4..=7).contains(&toks.len()) {
        return None;
    }
    const MONTHS: [&str; 12] =
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
    const DAYS: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
    let (mut month, mut day, mut year, mut time, mut pm, mut zone) = (None, None, None, None, None, None);
    for (i, t) in toks.iter().enumerate() {
        let lower = t.to_ascii_lowercase();
        let word = lower.trim_end_matches(',');
        if let Some(m) = MONTHS.iter().position(|m| word.len() >= 3 && word.starts_with(m)) {
            if month.replace(m as u32 + 1).is_some() {
                return None;
            }
        } else if i == 0 && DAYS.iter().any(|d| word.len() >= 3 && word.starts_with(d)) {
        } else if word.contains(':') {
            time = Some(NaiveTime::parse_from_str(word, "%H:%M:%S").ok()?);
        } else if word == "am" || word == "pm" {
            pm = Some(word == "pm");
        } else if let Ok(n) = word.parse::<u32>() {
            match (word.len(), day, year) {
                (1 | 2, None, _) if (1..=31).contains(&n) => day = Some(n),
                (4, _, None) => year = Some(n as i32),
                _ => return None,
            }
        } else if zone.is_none()
            && t.len() <= 6
            && (t.chars().all(|c| c.is_ascii_uppercase()) || t.starts_with(['+', '-']))
        {
            zone = Some(t.to_string());
        } else {
            return None;
        }
    }
    let mut time = time?;
    if let Some(pm) = pm {
        let h = time.hour12().1 % 12 + if pm { 12 } else { 0 };
        time = time.with_hour(h)?;
    }
    let local = ymd(year?, month?, day?)?.and_time(time);
    Some(DateLine { line, local, zone })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_lines() {
        let d = parse_date_line("Wed Aug 28 16:02:01 IST 2019", 1).unwrap();
        assert_eq!(d.local.to_string(), "2019-08-28 16:02:01");
        assert_eq!(d.zone.as_deref(), Some("IST"));
        let d = parse_date_line("Wed 28 Aug 2019 04:02:01 PM EEST", 3).unwrap();
        assert_eq!((d.local.to_string(), d.line), ("2019-08-28 16:02:01".to_string(), 3));
        assert_eq!(parse_date_line("2025-10-23 13:55:24", 1).unwrap().zone, None);
        for no in [
            " 0  0 162472 1477940  95728 114384   50   58   163    79   99  348  9  2 87  2",
            "Linux 6.8.0-79-generic (srvchinaubu) \t10/23/2025 \t_x86_64_\t(2 CPU)",
            "Average:        0    370574    0.00",
            "nohup: ignoring input",
            "Wed Aug 28 16:02:01 IST",
        ] {
            assert!(parse_date_line(no, 1).is_none(), "{no}");
        }
    }

    #[test]
    fn epoch_display() {
        assert_eq!(Stamp::Epoch(1795981039.0).display(), "2026-11-29T19:37:19Z");
        assert!(Stamp::Epoch(f64::NAN).utc().is_none());
    }
}
