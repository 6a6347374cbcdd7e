//! [`Stamp`]: a record's time exactly as the file gives it. Parsers never
//! guess a date or a zone; `src/clock` of the `iosift` crate anchors stamps
//! on the UTC timeline.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};

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
            _ => None,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_display() {
        assert_eq!(Stamp::Epoch(1795981039.0).display(), "2026-11-29T19:37:19Z");
        assert!(Stamp::Epoch(f64::NAN).utc().is_none());
    }
}
