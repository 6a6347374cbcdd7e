//! One file on the bundle clock: how its times were anchored ([`FileClock`]) and
//! where the records without a time of their own are placed ([`Fallback`]: the
//! pt-stalk prefix, the bundle's start or the banner's midnight, plus the record's
//! offset), the one fallback the iostat, vmstat and mysqladmin adapters share.

use super::{Anchoring, Zone};

/// How one file's times were anchored.
#[derive(Debug, Clone, Copy)]
pub struct FileClock {
    /// Method.
    pub anchoring: Anchoring,
    /// Uncertainty in seconds.
    pub uncertainty_s: f64,
    /// First anchored instant.
    pub first: f64,
    /// Last anchored instant.
    pub last: f64,
}

/// Where a record without its own time is placed: the first base that exists, in
/// this order, plus the record's offset from it (its index times the interval).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Fallback {
    /// Start of the file's pt-stalk sample (epoch), from its name prefix.
    pub prefix: Option<f64>,
    /// Start of the bundle's main window (known after the first pass).
    pub bundle_start: Option<f64>,
    /// Midnight of the file's banner date (a day of uncertainty).
    pub midnight: Option<f64>,
}

impl Fallback {
    /// The fallback of a file named `base` (its pt-stalk prefix read in `zone`), once the
    /// bundle's start is known or not.
    pub fn of(base: &str, zone: &Zone, bundle_start: Option<f64>) -> Self {
        let prefix = super::pt_stalk_prefix(base).map(|n| zone.local_to_epoch(n));
        Fallback { prefix, bundle_start, midnight: None }
    }

    /// Only the pt-stalk prefix (a source that is never placed at the bundle's start).
    pub fn prefix_only(self) -> Self {
        Fallback { prefix: self.prefix, bundle_start: None, midnight: None }
    }

    /// With the banner date's midnight as the last resort.
    pub fn with_midnight(self, midnight: Option<f64>) -> Self {
        Fallback { midnight, ..self }
    }

    /// Seconds a file's times may be off when `a` placed them: a day at its banner's
    /// midnight, a minute at the bundle's start, else a second.
    pub fn uncertainty_s(a: Anchoring) -> f64 {
        match a {
            Anchoring::BannerDateInterval => 86_400.0,
            Anchoring::BundleStartInterval => 60.0,
            Anchoring::Epoch
            | Anchoring::IsoWithZone
            | Anchoring::LocalDateTime
            | Anchoring::BannerDateTimeOfDay
            | Anchoring::DateLineYear
            | Anchoring::PtStalkPrefixInterval
            | Anchoring::PerfClockData
            | Anchoring::PerfAligned
            | Anchoring::ClockReference
            | Anchoring::DateLineRun => 1.0,
        }
    }

    /// `timed` when the record has its own time, else the first base plus `offset`.
    pub fn place(&self, timed: Option<(f64, Anchoring)>, offset: f64) -> Option<(f64, Anchoring)> {
        if timed.is_some() {
            return timed;
        }
        let at = |base: Option<f64>, a: Anchoring| base.map(|b| (b + offset, a));
        at(self.prefix, Anchoring::PtStalkPrefixInterval)
            .or_else(|| at(self.bundle_start, Anchoring::BundleStartInterval))
            .or_else(|| at(self.midnight, Anchoring::BannerDateInterval))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_base_that_exists_places_an_untimed_record() {
        let f = Fallback { prefix: None, bundle_start: Some(100.0), midnight: Some(50.0) };
        assert_eq!(f.place(None, 3.0), Some((103.0, Anchoring::BundleStartInterval)));
        assert_eq!(f.place(Some((7.0, Anchoring::Epoch)), 3.0), Some((7.0, Anchoring::Epoch)));
        let p = Fallback { prefix: Some(10.0), ..f };
        assert_eq!(p.place(None, 1.0), Some((11.0, Anchoring::PtStalkPrefixInterval)));
        assert_eq!(f.prefix_only().place(None, 1.0), None);
        let m = Fallback { bundle_start: None, ..f };
        assert_eq!(m.place(None, 2.0), Some((52.0, Anchoring::BannerDateInterval)));
    }
}
