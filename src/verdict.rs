//! The typed vocabulary a rule's verdict speaks to the report (issue 34):
//! who dirtied or submitted the data (writers), who issued the block writes
//! and why (issuers, one [`IssuerClass`] each), which thread bounds a lag
//! (bound), each with the witness it was measured from, or marked "not
//! measured" with the witness that was missing. The page's Who rows are
//! rendered from these, never from rule ids or metric key names.
//!
//! The issuer classes are those of `../shared/EVIDENCE.md` section 2; their ids
//! (`application_flush`, ...) are part of findings.json and never renamed.
//!
//! A finding's numbers are [`Metric`]s: a value with its typed [`Unit`]. The page
//! formats a value by its unit, never by its key's name; findings.json keeps
//! `metrics` as key -> plain value and adds `metric_units` (key -> [`Unit::id`]).

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::Value;
use std::collections::BTreeMap;

/// Why a block write was issued, and by whom in kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IssuerClass {
    /// fsync, fdatasync, msync(MS_SYNC), sync_file_range, O_SYNC in the application's own thread.
    ApplicationFlush,
    /// The flusher writing inodes dirtied longer than `dirty_expire_centisecs` ago (`reason=periodic`).
    WritebackAge,
    /// The flusher writing because Dirty passed the background threshold (`reason=background`).
    WritebackBackground,
    /// The writer held in `balance_dirty_pages`, its rate the device's.
    WriterThrottled,
    /// O_DIRECT submission by the writer itself: Dirty does not move.
    DirectIo,
    /// jbd2 / XFS log commits.
    Journal,
    /// sync / syncfs by another process.
    SyncOther,
    /// kswapd or direct reclaim writing dirty pages (`reason=vmscan`).
    Reclaim,
    /// A loop, dm or md worker re-issuing an upper device's writes: never a dirtier.
    StackedReissue,
}

impl IssuerClass {
    /// Every class, in the order of EVIDENCE.md.
    pub const ALL: [IssuerClass; 9] = [
        IssuerClass::WritebackAge,
        IssuerClass::WritebackBackground,
        IssuerClass::WriterThrottled,
        IssuerClass::ApplicationFlush,
        IssuerClass::DirectIo,
        IssuerClass::Journal,
        IssuerClass::SyncOther,
        IssuerClass::Reclaim,
        IssuerClass::StackedReissue,
    ];

    /// The stable id (`application_flush`).
    pub fn id(self) -> &'static str {
        match self {
            IssuerClass::ApplicationFlush => "application_flush",
            IssuerClass::WritebackAge => "writeback_age",
            IssuerClass::WritebackBackground => "writeback_background",
            IssuerClass::WriterThrottled => "writer_throttled",
            IssuerClass::DirectIo => "direct_io",
            IssuerClass::Journal => "journal",
            IssuerClass::SyncOther => "sync_other",
            IssuerClass::Reclaim => "reclaim",
            IssuerClass::StackedReissue => "stacked_reissue",
        }
    }

    /// The class from its id.
    pub fn from_id(id: &str) -> Option<IssuerClass> {
        IssuerClass::ALL.into_iter().find(|c| c.id() == id)
    }

    /// In words, for the page.
    pub fn words(self) -> &'static str {
        match self {
            IssuerClass::ApplicationFlush => "the application's own flush (fsync / msync / sync_file_range)",
            IssuerClass::WritebackAge => {
                "periodic writeback of pages older than dirty_expire (kernel flusher)"
            }
            IssuerClass::WritebackBackground => {
                "background writeback over the dirty background threshold (kernel flusher)"
            }
            IssuerClass::WriterThrottled => "the writer itself, throttled in balance_dirty_pages",
            IssuerClass::DirectIo => "direct I/O submitted by the writer",
            IssuerClass::Journal => "file-system journal commits",
            IssuerClass::SyncOther => "sync / syncfs by another process",
            IssuerClass::Reclaim => "memory reclaim writing dirty pages",
            IssuerClass::StackedReissue => {
                "a stacked device (loop / dm / md) re-issuing the writes of the device above"
            }
        }
    }

    /// True for the classes whose data was dirtied in the page cache first.
    pub fn buffered(self) -> bool {
        !matches!(self, IssuerClass::DirectIo | IssuerClass::Journal | IssuerClass::StackedReissue)
    }
}

/// What an actor did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Dirtied the pages (buffered) or submitted the data (direct).
    Writer,
    /// Issued the block writes, for the reason of its class.
    Issuer(IssuerClass),
    /// The thread a lag or a commit rate is bound by.
    Bound,
}

/// One actor of a verdict, with its witness.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Actor {
    /// `writer`, an issuer class id, or `bound`.
    #[serde(serialize_with = "role_id")]
    pub class: Role,
    /// The thread or process name as the witness prints it (None when not measured).
    pub comm: Option<String>,
    /// Its thread id, when the witness gives one.
    pub tid: Option<u32>,
    /// Its share of what the witness counted (bytes, samples, requests), 0..1.
    pub share: Option<f64>,
    /// The witness (`pidstat -d`, `perf`, `trace`, `meminfo`, ...).
    pub source: &'static str,
    /// False when the witness that would name it is missing.
    pub measured: bool,
    /// A short explanation (`not measured: no perf samples in the capture`, the runner-up, ...).
    pub note: Option<String>,
}

fn role_id<S: serde::Serializer>(r: &Role, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(match r {
        Role::Writer => "writer",
        Role::Issuer(c) => c.id(),
        Role::Bound => "bound",
    })
}

impl Actor {
    /// A measured actor.
    pub fn measured(
        class: Role,
        comm: &str,
        tid: Option<u32>,
        share: Option<f64>,
        source: &'static str,
    ) -> Actor {
        Actor { class, comm: Some(comm.to_string()), tid, share, source, measured: true, note: None }
    }

    /// An actor whose class the capture shows without naming the thread.
    pub fn unnamed(class: Role, source: &'static str, note: impl Into<String>) -> Actor {
        Actor { class, comm: None, tid: None, share: None, source, measured: true, note: Some(note.into()) }
    }

    /// An actor the capture could not measure: `why` names the missing witness.
    pub fn not_measured(class: Role, why: impl Into<String>) -> Actor {
        Actor {
            class,
            comm: None,
            tid: None,
            share: None,
            source: "",
            measured: false,
            note: Some(format!("not measured: {}", why.into())),
        }
    }

    /// With a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Actor {
        self.note = Some(note.into());
        self
    }

    /// The issuer class, for an issuer.
    pub fn issuer_class(&self) -> Option<IssuerClass> {
        match self.class {
            Role::Issuer(c) => Some(c),
            Role::Writer | Role::Bound => None,
        }
    }
}

/// Who took part in what a finding explains.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Actors {
    /// Who dirtied or submitted the data, most first.
    pub writers: Vec<Actor>,
    /// Who issued the block writes and why, best-supported first.
    pub issuers: Vec<Actor>,
    /// The thread a lag or a rate is bound by.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bound: Vec<Actor>,
}

/// What a metric's value measures, and so how it is read and shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Unit {
    /// A duration in seconds.
    Seconds,
    /// A duration in milliseconds.
    Milliseconds,
    /// An instant: seconds since the Unix epoch.
    EpochSeconds,
    /// Seconds gained per second (a lag's growth).
    SecondsPerSecond,
    /// A volume in bytes.
    Bytes,
    /// A rate in bytes per second.
    BytesPerSecond,
    /// A size in KiB (the kernel's and pidstat's `kB`, 1024 bytes).
    KiB,
    /// A rate in MB (10^6 bytes) per second.
    MegabytesPerSecond,
    /// A percentage, 0..100.
    Percent,
    /// A share, 0..1.
    Fraction,
    /// A ratio of two like quantities, unbounded (per transaction, writer to device, amplification).
    Ratio,
    /// A number of things (readings, bursts, episodes).
    Count,
    /// Events per second.
    PerSecond,
    /// A thread id: a number that names, not measures.
    ThreadId,
    /// A server or kernel setting as read (a number, or its text when not numeric).
    Setting,
    /// A name or a word.
    Text,
    /// True or false.
    Flag,
    /// A list of names or sentences.
    List,
}

impl Unit {
    /// The stable short id written to findings.json's `metric_units` (never renamed).
    pub fn id(self) -> &'static str {
        match self {
            Unit::Seconds => "s",
            Unit::Milliseconds => "ms",
            Unit::EpochSeconds => "epoch_s",
            Unit::SecondsPerSecond => "s/s",
            Unit::Bytes => "bytes",
            Unit::BytesPerSecond => "bytes/s",
            Unit::KiB => "KiB",
            Unit::MegabytesPerSecond => "MB/s",
            Unit::Percent => "%",
            Unit::Fraction => "fraction",
            Unit::Ratio => "ratio",
            Unit::Count => "count",
            Unit::PerSecond => "/s",
            Unit::ThreadId => "tid",
            Unit::Setting => "setting",
            Unit::Text => "text",
            Unit::Flag => "flag",
            Unit::List => "list",
        }
    }
}

/// A written device as a finding names it.
#[derive(Debug, Clone, PartialEq)]
pub struct Device {
    /// Its name (`loop0`).
    pub name: String,
    /// In words with its stack (`loop0 (loop on physical disk vda)`), or its name.
    pub described: String,
    /// The block stack below it, when resolved.
    pub stack: Option<DeviceStack>,
}

/// The block stack below a device.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceStack {
    /// The physical disks at its bottom.
    pub physical: Vec<String>,
    /// The chain down to them (`loop0 -> vda`).
    pub chain: String,
}

impl Device {
    /// Adds the device, its physical disks and its stack to a finding's metrics.
    pub fn metrics(&self, m: &mut BTreeMap<&'static str, Metric>) {
        m.insert("device", Metric::text(self.name.clone()));
        if let Some(s) = &self.stack {
            m.insert("physical_devices", Metric::list(s.physical.iter().cloned()));
            m.insert("device_stack", Metric::text(s.chain.clone()));
        }
    }
}

/// A number as JSON, rounded to 3 decimals; null when not finite.
pub fn number(v: f64) -> Value {
    serde_json::Number::from_f64((v * 1000.0).round() / 1000.0).map_or(Value::Null, Value::Number)
}

/// Bytes per MiB. Every size iosift writes is in binary units (KiB, MiB, GiB), as the
/// tools' own "kB" are (iostat, /proc/meminfo, smaps, pidstat: 1024 bytes).
pub const MIB: f64 = 1024.0 * 1024.0;

/// One named value of a finding, with its unit.
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    /// The value as findings.json writes it (null when unknown).
    pub value: Value,
    /// What it measures.
    pub unit: Unit,
}

impl Metric {
    /// A number (rounded to 3 decimals; null when not finite).
    pub fn num(v: f64, unit: Unit) -> Metric {
        Metric { value: number(v), unit }
    }

    /// A number, or null when unknown.
    pub fn opt(v: Option<f64>, unit: Unit) -> Metric {
        Metric { value: v.map_or(Value::Null, number), unit }
    }

    /// A name or a word.
    pub fn text(s: impl Into<String>) -> Metric {
        Metric { value: Value::String(s.into()), unit: Unit::Text }
    }

    /// A name, or null when unknown.
    pub fn opt_text(s: Option<String>) -> Metric {
        Metric { value: Value::from(s), unit: Unit::Text }
    }

    /// True or false.
    pub fn flag(b: bool) -> Metric {
        Metric { value: Value::Bool(b), unit: Unit::Flag }
    }

    /// A list of names or sentences.
    pub fn list<T: Into<String>>(items: impl IntoIterator<Item = T>) -> Metric {
        Metric {
            value: Value::Array(items.into_iter().map(|x| Value::String(x.into())).collect()),
            unit: Unit::List,
        }
    }

    /// A setting as read: its number when numeric, else its text.
    pub fn setting(v: &str) -> Metric {
        Metric {
            value: v.parse::<f64>().map_or_else(|_| Value::String(v.to_string()), number),
            unit: Unit::Setting,
        }
    }
}

/// Serializes a finding's metrics as two members: `metrics` (key -> plain value, the
/// contract as before) and `metric_units` (key -> [`Unit::id`]).
pub fn metrics_and_units<S: serde::Serializer>(
    m: &BTreeMap<&'static str, Metric>,
    s: S,
) -> Result<S::Ok, S::Error> {
    struct Values<'a>(&'a BTreeMap<&'static str, Metric>);
    impl Serialize for Values<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_map(self.0.iter().map(|(k, v)| (k, &v.value)))
        }
    }
    struct Units<'a>(&'a BTreeMap<&'static str, Metric>);
    impl Serialize for Units<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_map(self.0.iter().map(|(k, v)| (k, v.unit.id())))
        }
    }
    let mut map = s.serialize_map(Some(2))?;
    map.serialize_entry("metrics", &Values(m))?;
    map.serialize_entry("metric_units", &Units(m))?;
    map.end()
}

/// The declaration of a rule to the report: its title and the charts that show it best.
#[derive(Debug, Clone, Copy)]
pub struct RuleSpec {
    /// Rule id of DESIGN.md.
    pub id: &'static str,
    /// Title on the page.
    pub title: &'static str,
    /// The report's chart names, best first; the device writes are the fallback.
    pub key_charts: &'static [&'static str],
    /// The one number that says how much (a metric key of the rule's findings, and its
    /// label): the batch overview's line of a capture whose top finding this rule is.
    pub headline: Option<(&'static str, &'static str)>,
    /// The capture measure (a `diff.json` change key) that stands for the headline in a
    /// comparison: measured whether or not the rule fires, so a diff can say what it was in
    /// the capture where the finding vanished.
    pub measure: Option<&'static str>,
    /// Text metrics whose change between two captures is a change of verdict (the side
    /// that bounds a replica, the class of a pattern's issuer), not of degree.
    pub decisive: &'static [&'static str],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_ids_round_trip_and_serialize_as_in_the_contract() {
        for c in IssuerClass::ALL {
            assert_eq!(IssuerClass::from_id(c.id()), Some(c));
            assert_eq!(serde_json::to_value(c).unwrap(), serde_json::Value::from(c.id()));
        }
        let a = Actor::not_measured(Role::Issuer(IssuerClass::ApplicationFlush), "no perf samples");
        let v = serde_json::to_value(&a).unwrap();
        assert_eq!(v["class"], "application_flush");
        assert_eq!(v["measured"], false);
        assert_eq!(v["note"], "not measured: no perf samples");
        let w = serde_json::to_value(Actor::measured(Role::Writer, "dd", Some(7), Some(0.9), "pidstat -d"))
            .unwrap();
        assert_eq!(w["class"], "writer");
        assert_eq!(w["comm"], "dd");
    }

    #[test]
    fn metrics_keep_plain_values_and_add_their_units() {
        let mut m = BTreeMap::new();
        m.insert("period_s", Metric::num(31.00049, Unit::Seconds));
        m.insert("device", Metric::text("vda"));
        m.insert("sync_binlog", Metric::setting("1"));
        m.insert("mode", Metric::setting("OFF"));
        m.insert("gone", Metric::opt(None, Unit::Bytes));
        let v = metrics_and_units(&m, serde_json::value::Serializer).unwrap();
        assert_eq!(
            v,
            serde_json::json!({
                "metrics": {"device": "vda", "gone": null, "mode": "OFF", "period_s": 31.0, "sync_binlog": 1.0},
                "metric_units": {"device": "text", "gone": "bytes", "mode": "setting", "period_s": "s", "sync_binlog": "setting"}
            })
        );
    }
}
