//! Time-zone names as captures print them: fixed offsets (`+02:00`, `-0700`,
//! `UTC`) and the common abbreviations of `vmstat -t` and dstat `Date:` lines,
//! plus the IANA names a user gives (`--tz Europe/Berlin`), whose offset
//! depends on the date (daylight saving time): [`ZoneRule`] keeps either.

use chrono::{NaiveDateTime, Offset, TimeZone};
use chrono_tz::Tz;

/// How far before the previous stamp of a series the first occurrence of a repeated
/// local time may be and still be taken (stamps a little out of order, a header time
/// one interval back); further back, the series has gone back an hour: the second.
pub(super) const FOLD_SLACK_S: f64 = 1800.0;

/// A time zone as a rule: a fixed offset, or an IANA zone with its DST history.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ZoneRule {
    /// Local = UTC + this many seconds, all year.
    Fixed(i32),
    /// An IANA zone (`Europe/Berlin`): the offset of each instant from the tz database.
    Iana(Tz),
}

impl ZoneRule {
    /// Offset of local time from UTC at an instant, in seconds.
    pub fn offset_at(&self, epoch: i64) -> i32 {
        match self {
            ZoneRule::Fixed(o) => *o,
            ZoneRule::Iana(tz) => match tz.timestamp_opt(epoch, 0) {
                chrono::LocalResult::Single(d) => d.offset().fix().local_minus_utc(),
                _ => 0,
            },
        }
    }

    /// Epoch seconds of a local wall-clock time. A time that occurs twice (the hour
    /// repeated when DST ends) is read as its first occurrence; a time that never
    /// occurs (the hour skipped when DST starts) is read with the offset before the gap.
    pub fn local_to_epoch(&self, n: NaiveDateTime) -> f64 {
        self.local_to_epoch_after(n, None)
    }

    /// [`Self::local_to_epoch`] for the next stamp of a series whose previous stamp was
    /// at `after` (epoch seconds): of the two occurrences of a repeated local time, the
    /// first that is not more than [`FOLD_SLACK_S`] before `after`. The first run of the
    /// repeated hour is its first occurrence; once the stamps have gone back an hour, the
    /// second. Without `after`, the first occurrence.
    pub fn local_to_epoch_after(&self, n: NaiveDateTime, after: Option<f64>) -> f64 {
        let utc = n.and_utc();
        let naive_epoch = utc.timestamp() as f64 + f64::from(utc.timestamp_subsec_nanos()) / 1e9;
        match self {
            ZoneRule::Fixed(o) => naive_epoch - f64::from(*o),
            ZoneRule::Iana(tz) => {
                let off = match tz.offset_from_local_datetime(&n) {
                    chrono::LocalResult::Single(o) => o.fix().local_minus_utc(),
                    chrono::LocalResult::Ambiguous(a, b) => {
                        let (a, b) = (a.fix().local_minus_utc(), b.fix().local_minus_utc());
                        // The earlier instant has the larger offset.
                        let (early, late) = (a.max(b), a.min(b));
                        match after {
                            Some(p) if naive_epoch - f64::from(early) < p - FOLD_SLACK_S => late,
                            _ => early,
                        }
                    }
                    // In the gap: the offset in force just before it.
                    chrono::LocalResult::None => self.offset_at(utc.timestamp() - 86_400),
                };
                naive_epoch - f64::from(off)
            }
        }
    }

    /// The local wall-clock time of an instant.
    pub fn epoch_to_local(&self, epoch: i64) -> Option<NaiveDateTime> {
        let off = self.offset_at(epoch);
        chrono::DateTime::from_timestamp(epoch.checked_add(i64::from(off))?, 0).map(|d| d.naive_utc())
    }
}

/// The zone the report, charts and terminal summary show times in, with its label.
#[derive(Debug, Clone, PartialEq)]
pub struct DisplayZone {
    /// How instants become wall-clock times.
    pub rule: ZoneRule,
    /// `UTC`, `Europe/Berlin`, `+01:00 (host)`.
    pub label: String,
}

impl Default for DisplayZone {
    fn default() -> Self {
        DisplayZone { rule: ZoneRule::Fixed(0), label: "UTC".into() }
    }
}

impl DisplayZone {
    /// True for UTC.
    pub fn is_utc(&self) -> bool {
        self.rule == ZoneRule::Fixed(0)
    }

    /// The wall-clock time of an epoch second in this zone, formatted with `fmt`.
    pub fn format(&self, epoch: i64, fmt: &str) -> String {
        self.rule.epoch_to_local(epoch).map(|n| n.format(fmt).to_string()).unwrap_or_else(|| "?".into())
    }

    /// Offset at an instant as `+HH:MM`.
    pub fn offset_text(&self, epoch: i64) -> String {
        super::Zone::offset_text(self.rule.offset_at(epoch))
    }
}

/// Offset in seconds of a zone abbreviation (`CET` -> 3600); `None` if unknown.
pub fn zone_abbreviation_offset(abbr: &str) -> Option<i32> {
    let h = |x: f64| Some((x * 3600.0) as i32);
    match abbr.trim().to_ascii_uppercase().as_str() {
        "UTC" | "GMT" | "Z" | "UT" | "WET" => h(0.0),
        "BST" | "IST" | "WEST" | "CET" | "MET" => {
            if abbr.eq_ignore_ascii_case("IST") {
                h(5.5)
            } else {
                h(1.0)
            }
        }
        "CEST" | "MEST" | "EET" | "SAST" => h(2.0),
        "EEST" | "MSK" | "TRT" => h(3.0),
        "GST" => h(4.0),
        "PKT" => h(5.0),
        "ICT" | "WIB" => h(7.0),
        "CST" | "AWST" | "HKT" | "SGT" | "PHT" => {
            // CST is ambiguous (China +8, US Central -6); captures from Linux hosts in
            // China print CST for Asia/Shanghai, US hosts print CST in winter only.
            if abbr.eq_ignore_ascii_case("CST") { None } else { h(8.0) }
        }
        "JST" | "KST" => h(9.0),
        "ACST" => h(9.5),
        "AEST" => h(10.0),
        "AEDT" => h(11.0),
        "NZST" => h(12.0),
        "NZDT" => h(13.0),
        "EST" => h(-5.0),
        "EDT" => h(-4.0),
        "CDT" => h(-5.0),
        "MST" => h(-7.0),
        "MDT" => h(-6.0),
        "PST" => h(-8.0),
        "PDT" => h(-7.0),
        "AKST" => h(-9.0),
        "HST" => h(-10.0),
        "BRT" => h(-3.0),
        "ART" => h(-3.0),
        _ => parse_offset(abbr),
    }
}

/// The readings of a zone abbreviation that names several zones and is not
/// resolved by [`zone_abbreviation_offset`] (`CST`): the report says so and asks for `--tz`.
pub fn ambiguous_zone(abbr: &str) -> Option<&'static str> {
    match abbr.trim().to_ascii_uppercase().as_str() {
        "CST" => Some("China +08:00, US Central -06:00 or Cuba -05:00"),
        _ => None,
    }
}

/// Parses `+02:00`, `-0700`, `+5`, `UTC+2`, `GMT-03:30`.
fn parse_offset(s: &str) -> Option<i32> {
    let s = s.trim();
    let s = s.strip_prefix("UTC").or_else(|| s.strip_prefix("GMT")).unwrap_or(s);
    let (sign, rest) = match s.as_bytes().first()? {
        b'+' => (1, &s[1..]),
        b'-' => (-1, &s[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|c| c.is_ascii_digit()).collect();
    if digits.is_empty() || digits.len() > 4 || rest.chars().any(|c| !c.is_ascii_digit() && c != ':') {
        return None;
    }
    let (h, m): (i32, i32) = match digits.len() {
        1 | 2 => (digits.parse().ok()?, 0),
        3 => (digits[..1].parse().ok()?, digits[1..].parse().ok()?),
        _ => (digits[..2].parse().ok()?, digits[2..].parse().ok()?),
    };
    if h > 14 || m >= 60 {
        return None;
    }
    Some(sign * (h * 3600 + m * 60))
}

/// Parses a `--tz` / `--display-tz` argument: an offset, a known abbreviation, or an
/// IANA zone name (`Europe/Berlin`, `America/New_York`; case as in the tz database,
/// other cases accepted when unambiguous).
pub fn parse_tz(s: &str) -> Result<ZoneRule, String> {
    if let Some(o) = zone_abbreviation_offset(s) {
        return Ok(ZoneRule::Fixed(o));
    }
    let t = s.trim();
    if let Ok(tz) = t.parse::<Tz>() {
        return Ok(ZoneRule::Iana(tz));
    }
    let lower = t.to_ascii_lowercase();
    let hits: Vec<&Tz> =
        chrono_tz::TZ_VARIANTS.iter().filter(|z| z.name().to_ascii_lowercase() == lower).collect();
    if let [one] = hits[..] {
        return Ok(ZoneRule::Iana(*one));
    }
    let hint = if t.eq_ignore_ascii_case("CST") {
        " (CST is ambiguous: China +08:00 or US Central -06:00; give Asia/Shanghai, America/Chicago or an offset)"
    } else {
        ""
    };
    Err(format!(
        "unknown time zone {s:?}{hint}: give an IANA name such as Europe/Berlin, an offset such as +02:00 or -0500, or UTC, CET, PST, ..."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets() {
        assert_eq!(parse_tz("+02:00"), Ok(ZoneRule::Fixed(7200)));
        assert_eq!(parse_tz("-0530"), Ok(ZoneRule::Fixed(-19800)));
        assert_eq!(parse_tz("UTC"), Ok(ZoneRule::Fixed(0)));
        assert_eq!(parse_tz("pdt"), Ok(ZoneRule::Fixed(-25200)));
        assert_eq!(parse_tz("Europe/Berlin"), Ok(ZoneRule::Iana(chrono_tz::Europe::Berlin)));
        assert_eq!(parse_tz("europe/berlin"), Ok(ZoneRule::Iana(chrono_tz::Europe::Berlin)));
        assert!(parse_tz("+99").is_err());
        assert!(parse_tz("Mars/Olympus").is_err());
        assert!(parse_tz("CST").unwrap_err().contains("ambiguous"));
        assert_eq!(zone_abbreviation_offset("CST"), None);
        assert!(ambiguous_zone("cst").unwrap().contains("+08:00"));
        assert_eq!(ambiguous_zone("CET"), None);
    }

    #[test]
    fn iana_zones_follow_daylight_saving_time() {
        let berlin = ZoneRule::Iana(chrono_tz::Europe::Berlin);
        let at = |s: &str| chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap();
        // Winter: +01:00; summer: +02:00.
        assert_eq!(berlin.local_to_epoch(at("2026-11-29 20:37:19")), 1_795_981_039.0);
        assert_eq!(berlin.local_to_epoch(at("2026-07-01 12:00:00")), 1_782_900_000.0);
        // 2026-10-25 02:30 occurs twice: the first (still +02:00) is taken.
        assert_eq!(berlin.local_to_epoch(at("2026-10-25 02:30:00")), 1_792_888_200.0);
        // In a series: the first while the stamps go forward (the previous stamp 02:29 CEST,
        // 00:29 UTC), the second once they went back an hour (02:29 CET, 01:29 UTC).
        let after = |prev: f64| berlin.local_to_epoch_after(at("2026-10-25 02:30:00"), Some(prev));
        assert_eq!(after(1_792_888_140.0), 1_792_888_200.0);
        assert_eq!(after(1_792_891_740.0), 1_792_891_800.0);
        assert_eq!(
            ZoneRule::Fixed(3600).local_to_epoch_after(at("2026-10-25 02:30:00"), Some(2e9)),
            1_792_891_800.0
        );
        // 2026-03-29 02:30 never occurs: read with the winter offset.
        assert_eq!(berlin.local_to_epoch(at("2026-03-29 02:30:00")), 1_774_747_800.0);
        assert_eq!(berlin.offset_at(1_795_981_039), 3600);
        assert_eq!(berlin.epoch_to_local(1_782_900_000), Some(at("2026-07-01 12:00:00")));
    }
}
