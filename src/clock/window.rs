//! `--from` / `--to`: the times people write, resolved against the capture.
//!
//! Accepted forms (the capture's zone is the one [`super::Zone`] decided):
//! - RFC 3339 with an offset: `2026-11-29T19:38:00+01:00`, `2026-11-29T18:38:00Z`;
//! - epoch seconds: `1795979880`, `1795979880.5`;
//! - a local date and time as iostat and pidstat print it: `2026-11-29 19:38:00`,
//!   `2026-11-29T19:38:00` (in the capture's zone);
//! - a time of day: `19:38:00`, `19:38` (in the capture's zone, on the capture's day;
//!   on the next day when the capture crosses midnight and only that day holds it);
//! - an offset from the start (`+90s`, `+2m`, `+1h30m`) or from the end (`-2m`).
//!
//! An empty, reversed or out-of-range window is an error that names the capture's range.

use super::Zone;
use chrono::{NaiveDate, NaiveDateTime, NaiveTime};

/// One `--from` / `--to` value, parsed but not yet resolved.
#[derive(Debug, Clone, PartialEq)]
pub enum TimeSpec {
    /// An instant (RFC 3339 with offset, or epoch seconds).
    Instant(f64),
    /// A local date and time in the capture's zone.
    Local(NaiveDateTime),
    /// A time of day in the capture's zone.
    TimeOfDay(NaiveTime),
    /// Seconds after the capture's start.
    FromStart(f64),
    /// Seconds before the capture's end.
    FromEnd(f64),
}

/// Parses a `--from` / `--to` value.
pub fn parse_time_spec(s: &str) -> Result<TimeSpec, String> {
    let t = s.trim();
    let bad = || {
        format!(
            "{s:?} is not a time: give RFC 3339 (2026-11-29T19:38:00+01:00), epoch seconds, \
             a local time (2026-11-29 19:38:00 or 19:38:00, in the capture's zone) \
             or an offset from the start or end (+90s, -2m)"
        )
    };
    if t.is_empty() {
        return Err(bad());
    }
    if let Some(rest) = t.strip_prefix('+') {
        return duration_s(rest).map(TimeSpec::FromStart).ok_or_else(bad);
    }
    if let Some(rest) = t.strip_prefix('-') {
        return duration_s(rest).map(TimeSpec::FromEnd).ok_or_else(bad);
    }
    if let Ok(e) = t.parse::<f64>() {
        return if e.is_finite() && e >= 0.0 { Ok(TimeSpec::Instant(e)) } else { Err(bad()) };
    }
    if let Ok(d) = chrono::DateTime::parse_from_rfc3339(t) {
        return Ok(TimeSpec::Instant(d.timestamp() as f64 + f64::from(d.timestamp_subsec_nanos()) / 1e9));
    }
    for f in ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M"] {
        if let Ok(n) = NaiveDateTime::parse_from_str(t, f) {
            return Ok(TimeSpec::Local(n));
        }
    }
    for f in ["%H:%M:%S%.f", "%H:%M"] {
        if let Ok(n) = NaiveTime::parse_from_str(t, f) {
            return Ok(TimeSpec::TimeOfDay(n));
        }
    }
    Err(bad())
}

/// `90s`, `90`, `2m`, `1h30m`, `1.5h` in seconds.
fn duration_s(s: &str) -> Option<f64> {
    let mut total = 0.0;
    let mut num = String::new();
    let mut any = false;
    for c in s.chars() {
        if c.is_ascii_digit() || c == '.' {
            num.push(c);
            continue;
        }
        let unit = match c {
            's' => 1.0,
            'm' => 60.0,
            'h' => 3600.0,
            'd' => 86_400.0,
            _ => return None,
        };
        total += num.parse::<f64>().ok()? * unit;
        num.clear();
        any = true;
    }
    if !num.is_empty() {
        total += num.parse::<f64>().ok()?;
        any = true;
    }
    (any && total.is_finite()).then_some(total)
}

impl TimeSpec {
    /// The instant (epoch seconds) for a capture covering `start..=end` in `zone`.
    pub fn resolve(&self, zone: &Zone, start: f64, end: f64) -> f64 {
        match self {
            TimeSpec::Instant(e) => *e,
            TimeSpec::Local(n) => zone.local_to_epoch(*n),
            TimeSpec::FromStart(d) => start + d,
            TimeSpec::FromEnd(d) => end - d,
            TimeSpec::TimeOfDay(t) => {
                let first = local_date(zone, start);
                let last = local_date(zone, end).max(first);
                let mut day = first;
                let mut candidates = Vec::new();
                while day <= last && candidates.len() < 400 {
                    candidates.push(zone.local_to_epoch(day.and_time(*t)));
                    day = day.succ_opt().unwrap_or(last.succ_opt().unwrap_or(last));
                }
                candidates
                    .iter()
                    .copied()
                    .find(|e| *e >= start && *e <= end)
                    .unwrap_or_else(|| candidates.first().copied().unwrap_or(start))
            }
        }
    }
}

fn local_date(zone: &Zone, epoch: f64) -> NaiveDate {
    zone.rule
        .epoch_to_local(epoch.floor() as i64)
        .map(|n| n.date())
        .unwrap_or(NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default())
}

/// The window `[from, to]` (epoch seconds) cut to the capture, or an error naming the
/// capture's range when it is reversed, empty or outside the capture.
pub fn resolve_window(
    from: Option<&TimeSpec>,
    to: Option<&TimeSpec>,
    zone: &Zone,
    start: f64,
    end: f64,
) -> Result<(f64, f64), String> {
    if from.is_none() && to.is_none() {
        return Ok((start, end));
    }
    let f = from.map(|s| s.resolve(zone, start, end));
    let t = to.map(|s| s.resolve(zone, start, end));
    let show = |e: f64| describe(zone, e);
    let range = format!("the capture covers {} to {}", show(start), show(end));
    if let (Some(f), Some(t)) = (f, t)
        && f >= t
    {
        return Err(format!(
            "--from {} is not before --to {}: the window is empty ({range})",
            show(f),
            show(t)
        ));
    }
    let (a, b) = (f.map_or(start, |f| f.max(start)), t.map_or(end, |t| t.min(end)));
    if a >= b && !(a == b && start == end) {
        let asked = format!(
            "{} to {}",
            f.map_or_else(|| "the start".to_string(), show),
            t.map_or_else(|| "the end".to_string(), show)
        );
        return Err(format!("the window {asked} holds no data: {range}"));
    }
    Ok((a, b))
}

/// `2026-11-29 19:38:00 +01:00 (18:38:00 UTC)`.
fn describe(zone: &Zone, epoch: f64) -> String {
    let e = epoch.floor() as i64;
    let utc = chrono::DateTime::from_timestamp(e, 0)
        .map(|d| d.format("%Y-%m-%d %H:%M:%S UTC").to_string())
        .unwrap_or_else(|| format!("{epoch}"));
    if zone.rule == super::ZoneRule::Fixed(0) {
        return utc;
    }
    match zone.rule.epoch_to_local(e) {
        Some(n) => {
            format!("{} {} ({utc})", n.format("%Y-%m-%d %H:%M:%S"), Zone::offset_text(zone.rule.offset_at(e)))
        }
        None => utc,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ZoneRule;

    fn cet() -> Zone {
        Zone {
            offset_s: 3600,
            rule: ZoneRule::Fixed(3600),
            name: "CET".into(),
            source: String::new(),
            assumed: false,
        }
    }

    // s1 of the shared bundles: 19:37:19 .. 19:42:19 local (+01:00).
    const START: f64 = 1_795_977_439.0;
    const END: f64 = 1_795_977_739.0;

    #[test]
    fn every_form_people_write() {
        let z = cet();
        let r = |s: &str| parse_time_spec(s).unwrap().resolve(&z, START, END);
        assert_eq!(r("1795977500"), 1_795_977_500.0);
        assert_eq!(r("2026-11-29T18:38:00Z"), 1_795_977_480.0);
        assert_eq!(r("2026-11-29T19:38:00+01:00"), 1_795_977_480.0);
        assert_eq!(r("2026-11-29 19:38:00"), 1_795_977_480.0);
        assert_eq!(r("2026-11-29T19:38:00"), 1_795_977_480.0);
        assert_eq!(r("19:38:00"), 1_795_977_480.0);
        assert_eq!(r("19:38"), 1_795_977_480.0);
        assert_eq!(r("+90s"), START + 90.0);
        assert_eq!(r("+1m30s"), START + 90.0);
        assert_eq!(r("-2m"), END - 120.0);
        assert_eq!(r("+90"), START + 90.0);
        for bad in ["", "yesterday", "+", "-x", "25:00:00", "2026-13-01 00:00:00", "-1e999"] {
            assert!(parse_time_spec(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn time_of_day_after_midnight_lands_on_the_next_day() {
        let z = Zone::assumed_utc();
        // 2026-11-29 23:30 .. 2026-11-30 00:30 UTC.
        let (s, e) = (1_795_995_000.0, 1_795_998_600.0);
        assert_eq!(parse_time_spec("00:10").unwrap().resolve(&z, s, e), 1_795_997_400.0);
        assert_eq!(parse_time_spec("23:45").unwrap().resolve(&z, s, e), 1_795_995_900.0);
    }

    #[test]
    fn reversed_empty_and_outside_windows_name_the_range() {
        let z = cet();
        let p = |s: &str| parse_time_spec(s).unwrap();
        let e = resolve_window(Some(&p("19:40")), Some(&p("19:39")), &z, START, END).unwrap_err();
        assert!(e.contains("not before") && e.contains("2026-11-29 19:37:19 +01:00"), "{e}");
        let e = resolve_window(Some(&p("20:00")), None, &z, START, END).unwrap_err();
        assert!(e.contains("holds no data") && e.contains("19:42:19"), "{e}");
        let e = resolve_window(Some(&p("+10m")), None, &z, START, END).unwrap_err();
        assert!(e.contains("holds no data"), "{e}");
        assert_eq!(
            resolve_window(Some(&p("19:38")), Some(&p("-1m")), &z, START, END),
            Ok((1_795_977_480.0, END - 60.0))
        );
        assert_eq!(resolve_window(Some(&p("18:00")), None, &z, START, END), Ok((START, END)));
        assert_eq!(resolve_window(None, None, &z, START, END), Ok((START, END)));
    }
}
