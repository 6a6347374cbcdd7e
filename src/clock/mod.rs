//! One clock for the whole bundle: turns every [`Stamp`] a parser produced
//! into a UTC instant (epoch seconds) and records how it was anchored and
//! how sure we are.
//!
//! The time zone of the capturing host is decided once per bundle, in this
//! order: `--tz` (an offset or an IANA zone, DST-aware); the gap between pt-stalk `TS` epochs and their local dates;
//! `vmstat -t` headers; ISO offsets in iostat; dstat's `Date:` zone; `date` lines between
//! runs; else UTC
//! with a warning in the report. A `--tz` that disagrees with what the capture says is
//! a warning naming both ([`ZoneEvidence::cli_disagreement`]).

mod file;
pub(crate) mod perf;
pub mod window;
mod zone;

pub use file::{Fallback, FileClock};

pub use zone::{DisplayZone, ZoneRule, ambiguous_zone, parse_tz, zone_abbreviation_offset};

use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
use iosift_parsers::Stamp;
use serde::Serialize;

/// How a record's time was anchored (contract values of `anchored_by`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Anchoring {
    /// Epoch seconds in the file.
    Epoch,
    /// A wall-clock time with its UTC offset.
    IsoWithZone,
    /// A local date and time plus the bundle's time zone.
    LocalDateTime,
    /// The banner date plus a time of day (with day rollover) plus the zone.
    BannerDateTimeOfDay,
    /// A time without a year plus the year of the file's `Date:` line.
    DateLineYear,
    /// pt-stalk file-name prefix plus report index times the interval.
    PtStalkPrefixInterval,
    /// perf time plus the clock data recorded with it.
    PerfClockData,
    /// perf time aligned by matching events against another source.
    PerfAligned,
    /// perf (monotonic) time plus the collector's recorded epoch - CLOCK_MONOTONIC.
    ClockReference,
    /// Reports without any time: placed at the bundle's start, index times the interval.
    BundleStartInterval,
    /// Rows without a time after a `date` line (cron loop): the date line plus the row's
    /// index in its run, one second apart (the interval is not printed).
    DateLineRun,
    /// Reports without any time and nothing else timed: the banner date at midnight,
    /// index times the interval (a day of uncertainty).
    BannerDateInterval,
}

impl Anchoring {
    /// The contract string (`banner-date+time-of-day`, `pt-stalk-prefix+interval`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            Anchoring::Epoch => "epoch",
            Anchoring::IsoWithZone => "iso-with-zone",
            Anchoring::LocalDateTime => "local-date-time+tz",
            Anchoring::BannerDateTimeOfDay => "banner-date+time-of-day",
            Anchoring::DateLineYear => "date-line-year+day-time",
            Anchoring::PtStalkPrefixInterval => "pt-stalk-prefix+interval",
            Anchoring::PerfClockData => "perf-clock-data",
            Anchoring::PerfAligned => "perf-aligned",
            Anchoring::ClockReference => "perf+collector-clock-reference",
            Anchoring::BundleStartInterval => "bundle-start+interval",
            Anchoring::BannerDateInterval => "banner-date-midnight+interval",
            Anchoring::DateLineRun => "date-line+row-index",
        }
    }

    /// True when the times were inferred, not read: the file has no wall-clock time
    /// (iostat without `-t`). Tables and the report mark such times.
    pub fn is_inferred(self) -> bool {
        matches!(self, Anchoring::BundleStartInterval | Anchoring::BannerDateInterval)
    }
}

/// The bundle's time zone and where it came from.
#[derive(Debug, Clone, Serialize)]
pub struct Zone {
    /// Offset of local time from UTC, in seconds (local = UTC + offset); for an IANA
    /// zone, the offset at the start of the capture.
    pub offset_s: i32,
    /// The rule local times are read with (an IANA zone follows DST).
    #[serde(skip)]
    pub rule: ZoneRule,
    /// A readable name (`UTC`, `+02:00`, `CET`).
    pub name: String,
    /// Where the zone came from (`--tz`, `pt-stalk TS epoch vs local time`, ...).
    pub source: String,
    /// True when nothing in the capture told us (UTC assumed).
    pub assumed: bool,
}

impl Zone {
    /// UTC, assumed for lack of evidence.
    pub fn assumed_utc() -> Self {
        Zone {
            offset_s: 0,
            rule: ZoneRule::Fixed(0),
            name: "UTC".into(),
            source: "assumed (no time zone found in the capture)".into(),
            assumed: true,
        }
    }

    /// Epoch seconds of a local wall-clock time.
    pub fn local_to_epoch(&self, n: NaiveDateTime) -> f64 {
        self.rule.local_to_epoch(n)
    }

    /// Formats an offset as `+HH:MM`.
    pub fn offset_text(offset_s: i32) -> String {
        let sign = if offset_s < 0 { '-' } else { '+' };
        let a = offset_s.abs();
        format!("{sign}{:02}:{:02}", a / 3600, (a % 3600) / 60)
    }
}

/// Candidate evidence of the zone, gathered from the files.
#[derive(Debug, Clone, Default)]
pub struct ZoneEvidence {
    /// `--tz` given by the user (already parsed).
    pub cli: Option<(ZoneRule, String)>,
    /// Offsets seen in pt-stalk TS lines (epoch vs local date): the first three of each file.
    pub ts_offsets: Vec<i32>,
    /// (epoch, offset) of the first and last three TS lines of each file: two offsets an
    /// hour apart, one before the other, are a DST change.
    pub ts_samples: Vec<(i64, i32)>,
    /// Zone abbreviations from `vmstat -t` headers.
    pub vmstat_zones: Vec<String>,
    /// Offsets of ISO stamps with zone.
    pub iso_offsets: Vec<i32>,
    /// Zone abbreviations of dstat `Date:` lines.
    pub dstat_zones: Vec<String>,
    /// Zone abbreviations of `date` lines between runs (cron loops).
    pub date_line_zones: Vec<String>,
    /// Ambiguous zone names seen (`CST (dstat Date: line of dstat2.csv)`): not
    /// used, but said in the report, which asks for `--tz`.
    pub ambiguous: Vec<String>,
}

impl ZoneEvidence {
    /// Decides the zone in the documented order of precedence.
    pub fn decide(&self) -> Zone {
        if let Some((rule, name)) = &self.cli {
            let offset_s = match rule {
                ZoneRule::Fixed(o) => *o,
                // Set to the offset at the capture's start once that is known.
                ZoneRule::Iana(_) => 0,
            };
            return Zone { offset_s, rule: *rule, name: name.clone(), source: "--tz".into(), assumed: false };
        }
        if let Some(z) = self.dst_zone() {
            return z;
        }
        if let Some(off) = mode(&self.ts_offsets) {
            return Zone {
                offset_s: off,
                rule: ZoneRule::Fixed(off),
                name: Zone::offset_text(off),
                source: "pt-stalk TS epoch vs local time".into(),
                assumed: false,
            };
        }
        for z in &self.vmstat_zones {
            if let Some(off) = zone_abbreviation_offset(z) {
                return Zone {
                    offset_s: off,
                    rule: ZoneRule::Fixed(off),
                    name: z.clone(),
                    source: "vmstat -t header".into(),
                    assumed: false,
                };
            }
        }
        if let Some(off) = mode(&self.iso_offsets) {
            return Zone {
                offset_s: off,
                rule: ZoneRule::Fixed(off),
                name: Zone::offset_text(off),
                source: "ISO time stamps with offset".into(),
                assumed: false,
            };
        }
        for z in &self.dstat_zones {
            if let Some(off) = zone_abbreviation_offset(z) {
                return Zone {
                    offset_s: off,
                    rule: ZoneRule::Fixed(off),
                    name: z.clone(),
                    source: "dstat Date: line".into(),
                    assumed: false,
                };
            }
        }
        for z in &self.date_line_zones {
            if let Some(off) = zone_abbreviation_offset(z) {
                return Zone {
                    offset_s: off,
                    rule: ZoneRule::Fixed(off),
                    name: z.clone(),
                    source: "date line".into(),
                    assumed: false,
                };
            }
        }
        let mut z = Zone::assumed_utc();
        if let Some(first) = self.ambiguous.first() {
            z.source = format!("assumed (the capture names only an ambiguous zone: {first})");
        }
        z
    }
}

impl ZoneEvidence {
    /// Records the offsets of a file's pt-stalk `TS` lines (`TS 1795980000.004 2026-11-29 20:40:00`).
    pub fn note_ts(&mut self, ts: impl Iterator<Item = iosift_parsers::common::ts::TsLine>) {
        let all: Vec<(i64, i32)> =
            ts.filter_map(|t| t.utc_offset_s().map(|o| (t.epoch.floor() as i64, o))).collect();
        self.ts_offsets.extend(all.iter().take(3).map(|(_, o)| *o));
        let tail = all.len().saturating_sub(3).max(3.min(all.len()));
        self.ts_samples.extend(all.iter().take(3).chain(&all[tail..]).copied());
    }

    /// A capture across a daylight saving time change: its TS lines show two offsets an
    /// hour apart, each on one side of an instant. The zone is then the first IANA zone
    /// (in the tz database's order) whose offsets match every TS line, so local times
    /// on both sides of the change are read with their own offset.
    fn dst_zone(&self) -> Option<Zone> {
        let mut offs: Vec<i32> = self.ts_samples.iter().map(|(_, o)| *o).collect();
        offs.sort_unstable();
        offs.dedup();
        let [a, b] = offs[..] else { return None };
        if b - a != 3600 {
            return None;
        }
        let mut by_time = self.ts_samples.clone();
        by_time.sort_unstable();
        let changes = by_time.windows(2).filter(|w| w[0].1 != w[1].1).count();
        if changes != 1 {
            return None;
        }
        let fits = |tz: &&chrono_tz::Tz| {
            let rule = ZoneRule::Iana(**tz);
            self.ts_samples.iter().all(|&(e, o)| rule.offset_at(e) == o)
        };
        // The zones people name first (Europe/Amsterdam rather than Africa/Ceuta).
        let tz = ["Europe/", "America/", "Asia/", "Australia/", "Pacific/", ""]
            .iter()
            .find_map(|p| chrono_tz::TZ_VARIANTS.iter().filter(|tz| tz.name().starts_with(p)).find(fits))?;
        let (first, last) = (by_time[0].1, by_time[by_time.len() - 1].1);
        Some(Zone {
            offset_s: first,
            rule: ZoneRule::Iana(*tz),
            name: tz.name().to_string(),
            source: format!(
                "pt-stalk TS epoch vs local time: {} then {}, a daylight saving time change; read with the rules of {} (give --tz for the host's own zone)",
                Zone::offset_text(first),
                Zone::offset_text(last),
                tz.name()
            ),
            assumed: false,
        })
    }

    /// The warning when `--tz` disagrees with the zone the capture states (pt-stalk `TS`
    /// lines, a `vmstat -t` header, ISO offsets, ...): both zones, their offsets and how
    /// far apart they are. Compared at the `TS` lines' instants and at `at` (the
    /// capture's start), so an IANA zone is taken at the capture's date. `None` without
    /// `--tz`, when the capture states no zone, or when they agree.
    pub fn cli_disagreement(&self, at: Option<i64>) -> Option<String> {
        let (rule, name) = self.cli.as_ref()?;
        let said = ZoneEvidence { cli: None, ..self.clone() }.decide();
        if said.assumed {
            return None;
        }
        let mut instants: Vec<i64> = self.ts_samples.iter().map(|(e, _)| *e).chain(at).collect();
        if instants.is_empty() {
            instants.push(0);
        }
        let (t, d) = instants
            .iter()
            .map(|&t| (t, rule.offset_at(t) - said.rule.offset_at(t)))
            .find(|(_, d)| *d != 0)?;
        let named = |name: &str, off: i32| {
            let o = Zone::offset_text(off);
            if name == o { o } else { format!("{name} ({o})") }
        };
        Some(format!(
            "--tz {} disagrees with the capture, which says {} (source: {}): they are {} h apart; local times were read in --tz {name}",
            named(name, rule.offset_at(t)),
            named(&said.name, said.rule.offset_at(t)),
            said.source,
            f64::from(d.abs()) / 3600.0
        ))
    }

    /// Records a zone name as printed by `source`; an ambiguous one (`CST`) is kept for the warning.
    pub fn note_name(&mut self, name: &str, source: &str) {
        if zone_abbreviation_offset(name).is_none()
            && let Some(readings) = ambiguous_zone(name)
        {
            let text = format!("{} ({source}: {readings})", name.trim());
            if !self.ambiguous.contains(&text) {
                self.ambiguous.push(text);
            }
        }
    }

    /// The warning for a zone that was assumed: nothing found, or only ambiguous names.
    pub fn assumed_warning(&self) -> String {
        if self.ambiguous.is_empty() {
            "no time zone found in the capture: local times were read as UTC (use --tz to set the capturing host's offset)".to_string()
        } else {
            format!(
                "the capture names an ambiguous time zone, {}: local times were read as UTC; give the capturing host's offset with --tz (e.g. --tz +08:00)",
                self.ambiguous.join("; ")
            )
        }
    }
}

fn mode(v: &[i32]) -> Option<i32> {
    let mut counts: std::collections::BTreeMap<i32, usize> = Default::default();
    for x in v {
        *counts.entry(*x).or_default() += 1;
    }
    counts.into_iter().max_by_key(|(_, c)| *c).map(|(v, _)| v)
}

/// The clock of one file's series of local stamps: anchors a time-of-day series on a
/// start date, rolling over to the next day whenever the time goes backwards by more
/// than 12 h (pidstat rows), and places each local time after the one before, so that
/// the hour repeated when daylight saving time ends is read in the series' order: its
/// first run as the earlier occurrence, after the stamps go back, the later
/// ([`ZoneRule::local_to_epoch_after`]).
#[derive(Debug, Clone, Default)]
pub struct DayRoller {
    date: Option<NaiveDate>,
    last: Option<NaiveTime>,
    last_epoch: Option<f64>,
}

impl DayRoller {
    /// Starts on `date`.
    pub fn new(date: NaiveDate) -> Self {
        DayRoller { date: Some(date), ..Default::default() }
    }

    /// Starts on `date` when known; without one, times of day cannot be placed but
    /// local date-times still follow the series ([`Self::place_local`]).
    pub fn maybe(date: Option<NaiveDate>) -> Self {
        DayRoller { date, ..Default::default() }
    }

    /// The full local date-time of the next time of day (`None` without a date).
    pub fn next(&mut self, t: NaiveTime) -> Option<NaiveDateTime> {
        let date = self.date.as_mut()?;
        if let Some(last) = self.last
            && t < last
            && (last - t).num_seconds() > 12 * 3600
        {
            *date = date.succ_opt().unwrap_or(*date);
        }
        self.last = Some(t);
        Some(date.and_time(t))
    }

    /// Epoch seconds of the next local date-time of the series in `zone`.
    pub fn place_local(&mut self, zone: &Zone, n: NaiveDateTime) -> f64 {
        let e = zone.rule.local_to_epoch_after(n, self.last_epoch);
        self.last_epoch = Some(e);
        e
    }

    /// Epoch seconds of the next time of day of the series in `zone` (`None` without a date).
    pub fn place_time(&mut self, zone: &Zone, t: NaiveTime) -> Option<f64> {
        let n = self.next(t)?;
        Some(self.place_local(zone, n))
    }
}

pub use iosift_parsers::common::ts::pt_stalk_prefix;

/// RFC 3339 (UTC, `Z`, fractional seconds only when present) of epoch seconds;
/// `None` when out of range.
pub fn epoch_rfc3339(epoch: f64) -> Option<String> {
    iosift_parsers::common::time::epoch_to_utc(epoch)
        .map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
}

/// Converts a stamp that determines its instant alone or with the zone
/// (epoch, zoned, local date-time); other kinds need context and give `None`.
pub fn simple_epoch(stamp: &Stamp, zone: &Zone) -> Option<(f64, Anchoring)> {
    match stamp {
        Stamp::Epoch(e) => Some((*e, Anchoring::Epoch)),
        Stamp::Zoned(d) => {
            Some((d.timestamp() as f64 + f64::from(d.timestamp_subsec_nanos()) / 1e9, Anchoring::IsoWithZone))
        }
        Stamp::Local(n) => Some((zone.local_to_epoch(*n), Anchoring::LocalDateTime)),
        Stamp::TimeOfDay(_) | Stamp::NoYear { .. } | Stamp::SinceBoot(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zone_precedence() {
        let mut ev = ZoneEvidence {
            dstat_zones: vec!["UTC".into()],
            vmstat_zones: vec!["CET".into()],
            ..Default::default()
        };
        assert_eq!(ev.decide().offset_s, 3600);
        ev.ts_offsets = vec![7200, 7200, 3600];
        let z = ev.decide();
        assert_eq!(z.offset_s, 7200);
        assert_eq!(z.source, "pt-stalk TS epoch vs local time");
        ev.cli = Some((ZoneRule::Fixed(-18000), "-05:00".into()));
        assert_eq!(ev.decide().offset_s, -18000);
        assert!(ZoneEvidence::default().decide().assumed);
    }

    #[test]
    fn rollover_and_prefix() {
        let d = NaiveDate::from_ymd_opt(2026, 11, 29).unwrap();
        let mut r = DayRoller::new(d);
        r.next(NaiveTime::from_hms_opt(23, 59, 59).unwrap());
        let n = r.next(NaiveTime::from_hms_opt(0, 0, 1).unwrap()).unwrap();
        assert_eq!(n.date(), d.succ_opt().unwrap());
        assert_eq!(DayRoller::maybe(None).next(NaiveTime::MIN), None);
        let p = pt_stalk_prefix("2026_11_29_19_37_19-meminfo").unwrap();
        assert_eq!(p.to_string(), "2026-11-29 19:37:19");
        assert!(pt_stalk_prefix("iostat.txt").is_none());
        assert!(pt_stalk_prefix("generated__2026_11_29_19_35_42-iostat.txt").is_some());
    }

    #[test]
    fn local_to_epoch_uses_offset() {
        let z = Zone {
            offset_s: 3600,
            rule: ZoneRule::Fixed(3600),
            name: "CET".into(),
            source: String::new(),
            assumed: false,
        };
        let n = NaiveDate::from_ymd_opt(2026, 11, 29).unwrap().and_hms_opt(20, 37, 19).unwrap();
        assert_eq!(z.local_to_epoch(n), 1_795_981_039.0);
    }
}
