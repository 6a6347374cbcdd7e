//! Source adapters: the only application code that names
//! [`iosift_parsers::Data`]. [`of`] is the one exhaustive match over the
//! parsed formats (no `_` arm: a new format does not compile until it is
//! given an adapter or listed as [`inert`]). Each adapter declares what it
//! measures ([`Offer`]s of a [`Measure`] with a precision rank, so
//! [`choose`] picks one source per measurement in one place), emits its
//! points onto the timeline through typed columns ([`Sink`],
//! [`crate::table::Col`]), and gives its context (kernel, mounts, sysctl,
//! variables, ...) and its time-zone evidence.

mod collector;
pub(crate) mod context;
pub(crate) mod dayfirst;
mod file;
mod host;
mod inert;
mod iostat;
mod mysql;
mod perf;
mod pidstat;
mod pieces;
#[cfg(test)]
mod pieces_tests;
mod pressure;
mod procfs;
mod replay;
mod sar;
mod series;
mod stacks;
pub(crate) mod stream;
mod system;

pub(crate) use collector::collector_hms;
pub use context::{Context, Sourced};
pub use file::{ParsedFile, detect_file, parse_file};

use crate::clock::{Anchoring, Zone, ZoneEvidence};
use crate::table::{Col, RawRow};
use iosift_parsers::Data;
use std::collections::{BTreeMap, BTreeSet};

/// A measurement several formats can carry; one source per measurement (and
/// per span of seconds) feeds the timeline, so nothing is counted twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Measure {
    /// Per-device I/O: `dev.*` (iostat -x, sar -d).
    DeviceIo,
    /// CPU of all cores: `cpu.*` (iostat avg-cpu, sar -u, mpstat).
    Cpu,
    /// CPU per core: `cpu.<n>.*` (sar -P, mpstat -P).
    CpuCores,
    /// Bytes written per thread and category: `thr.*`, `cat.*` (pidstat -d).
    ThreadWrites,
    /// Dirty page cache: `mem.dirty_bytes` (/proc/meminfo, sar -r).
    DirtyMemory,
    /// Paging: `vm.pgpgout_s` (/proc/vmstat, sar -B).
    Paging,
    /// Transactions of the binary log: `binlog.*` (mysqlbinlog).
    Binlog,
    /// sar activities no better source has (`sar.*`, `net.<iface>.*`).
    SarSeries,
}

impl Measure {
    /// What the notes call it.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Measure::DeviceIo => "device metrics",
            Measure::Cpu => "CPU of all cores",
            Measure::CpuCores => "per-core CPU",
            Measure::ThreadWrites => "write attribution",
            Measure::DirtyMemory => "dirty memory",
            Measure::Paging => "paging",
            Measure::Binlog => "binlog series",
            Measure::SarSeries => "sar series",
        }
    }
}

/// A source's claim to a measurement: a higher `tier` is a more precise
/// kind of source (iostat -x over sar -d); among one tier the higher
/// `score` wins (more rows, finer units, finer interval).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Offer {
    /// The measurement.
    pub measure: Measure,
    /// Kind of source: 3 = the dedicated tool or counter, 1 = a general collector.
    pub tier: u8,
    /// Rank among sources of one tier.
    pub score: i64,
    /// Why this source is better than the one it displaces (for the note of the other).
    pub why: &'static str,
}

/// Per-thread write totals from pidstat (for the write-source table).
#[derive(Debug, Clone, Default)]
pub struct ThreadTotal {
    /// Command name.
    pub comm: String,
    /// Category.
    pub category: &'static str,
    /// Bytes charged over the capture.
    pub bytes: f64,
    /// Process id.
    pub tgid: Option<u32>,
}

/// Where an adapter's points go (the range pass, the timeline, a per-source table).
pub(crate) trait Sink {
    /// A value sampled at `epoch`.
    fn gauge(&mut self, col: &Col, epoch: f64, v: f64);
    /// A rate over `(end - interval, end]`.
    fn rate(&mut self, col: &Col, end: f64, interval: f64, v: f64);
    /// An event at `epoch`, summed per second.
    fn event(&mut self, col: &Col, epoch: f64, v: f64);
    /// Seconds `[from, to]` of an event column are observed (zero when no event).
    fn dense(&mut self, _col: &Col, _from: f64, _to: f64) {}
    /// The seconds a rate stamped `end` covers: `known` (the interval the file
    /// states) when given, else the gap since the file's previous sample.
    /// Every sample instant of a file goes through here, rated or not.
    fn interval(&mut self, end: f64, known: Option<f64>) -> f64;
    /// A sample instant without a rate (a since-boot row: it starts the next interval).
    fn sample(&mut self, _end: f64) {}
    /// The input line the next points come from (for evidence).
    fn at(&mut self, _line: usize) {}
}

/// What a visit changes beyond its points (bundle-wide, owned by the filler).
#[derive(Debug, Default)]
pub(crate) struct Effects {
    /// Counter decreases per file (reset, reboot, wrap).
    pub resets: BTreeMap<usize, usize>,
    /// pidstat write totals per thread id.
    pub threads: BTreeMap<u32, ThreadTotal>,
    /// Notes per file index.
    pub notes: BTreeMap<usize, String>,
    /// Clock and input warnings.
    pub warnings: Vec<String>,
}

/// Everything an adapter sees while emitting one file's points.
pub(crate) struct Visit<'a> {
    /// Index of the file in the bundle.
    pub index: usize,
    /// The file.
    pub file: &'a ParsedFile,
    /// The bundle's zone.
    pub zone: &'a Zone,
    /// Context of the bundle.
    pub ctx: &'a Context,
    /// Where its records without a time are placed (pt-stalk prefix, the bundle's start
    /// once the first pass knows it).
    pub fallback: crate::clock::Fallback,
    /// perf time -> epoch offset, how it was found, uncertainty.
    pub perf_offset: Option<(f64, Anchoring, f64)>,
    /// The measurements this file feeds ([`choose`]).
    pub uses: &'a BTreeSet<Measure>,
    /// The fill pass (totals, notes and resets are counted once, there).
    pub filling: bool,
    /// Side effects.
    pub out: &'a mut Effects,
}

impl Visit<'_> {
    /// Whether this file feeds measurement `m`.
    pub(crate) fn uses(&self, m: Measure) -> bool {
        self.uses.contains(&m)
    }

    /// A counter's increase, or `None` (and a recorded reset) when it went down.
    pub(crate) fn delta(&mut self, old: f64, new: f64) -> Option<f64> {
        if new >= old {
            return Some(new - old);
        }
        if self.filling {
            *self.out.resets.entry(self.index).or_default() += 1;
        }
        None
    }

    /// Sets this file's note (fill pass only).
    pub(crate) fn note(&mut self, text: String) {
        if self.filling {
            self.out.notes.insert(self.index, text);
        }
    }

    /// A warning (first pass only, so it is given once).
    pub(crate) fn warn(&mut self, text: String) {
        if !self.filling {
            self.out.warnings.push(text);
        }
    }
}

/// What every source family implements. Every method has a default: a
/// family implements what it carries.
pub(crate) trait Adapter<'d> {
    /// The measurements it can feed, with its rank.
    fn offers(&self) -> Vec<Offer> {
        Vec::new()
    }
    /// Emits the file's points; returns how its times were anchored and their uncertainty (s).
    fn visit(&self, _v: &mut Visit<'_>, _sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        None
    }
    /// Adds what the file says about the host and the database.
    fn context(&self, _file: &str, _ctx: &mut Context) {}
    /// Configured values (my.cnf) are read after the running ones, which win.
    fn late_context(&self) -> bool {
        false
    }
    /// Adds the file's evidence of the capturing host's time zone.
    fn zone_evidence(&self, _file: &str, _ev: &mut ZoneEvidence) {}
    /// The zone the file states for its own local times (offset, name): it wins over the
    /// bundle's (`vmstat -t` run with `TZ=UTC` on a +02:00 host prints `UTC`).
    fn own_zone(&self) -> Option<(i32, String)> {
        None
    }
    /// Its sysstat banner when the banner's date reads both ways (`03/11/26`): the bundle's
    /// other dates settle it ([`dayfirst`]).
    fn ambiguous_banner(&self) -> Option<&'d iosift_parsers::common::sysstat::Banner> {
        None
    }
    /// The host the file names (uname's node name, perf's header).
    fn host(&self) -> Option<String> {
        None
    }
    /// The database server the file describes (`port`, `server_id`, `wsrep_node_name` of
    /// SHOW VARIABLES): two servers on one host are two captures.
    fn server(&self) -> Option<String> {
        None
    }
    /// Why the format feeds nothing (recognised, listed, not used).
    fn inert(&self) -> Option<&'static str> {
        None
    }
    /// The perf samples, for the perf views and the clock.
    fn perf(&self) -> Option<&'d iosift_parsers::perf_script::PerfScript> {
        None
    }
    /// The binlog transactions.
    fn binlog(&self) -> Option<&'d iosift_parsers::mysqlbinlog::Binlog> {
        None
    }
    /// The replication status series.
    fn replica_status(&self) -> Option<&'d iosift_parsers::mysql_replica_status::ReplicaStatus> {
        None
    }
    /// pt-heartbeat rows read every interval.
    fn heartbeat(&self) -> Option<&'d iosift_parsers::pt_heartbeat::Heartbeat> {
        None
    }
    /// The iostat reports (perf alignment matches against them).
    fn iostat(&self) -> Option<&'d iosift_parsers::iostat::Iostat> {
        None
    }
    /// A collector's clock reference (epoch - CLOCK_MONOTONIC).
    fn clock_reference(&self) -> Option<&'d iosift_parsers::clock_reference::ClockReference> {
        None
    }
    /// The server state snapshots (InnoDB status, processlist, top, netstat).
    fn state(&self) -> Option<State<'d>> {
        None
    }
    /// Thread stacks (gdb snapshots, pt-pmp's aggregate).
    fn stacks(&self) -> Option<Stacks<'d>> {
        None
    }
    /// The collector's record of its own cost.
    fn collector(&self) -> Option<&'d iosift_parsers::collector_cost::CollectorCost> {
        None
    }
    /// The rows of the file's own table (`iosift tables`) when they are not the points it
    /// emits: every counter as read, every binlog second. `None`: the emitted points are the table.
    fn raw_rows(&self, _zone: &Zone) -> Option<Vec<RawRow>> {
        None
    }
}

/// Snapshots of the server's state, for the report's state box.
pub(crate) enum State<'d> {
    /// `SHOW ENGINE INNODB STATUS`.
    Innodb(&'d iosift_parsers::innodb_status::InnodbStatus),
    /// `SHOW FULL PROCESSLIST`.
    Processlist(&'d iosift_parsers::mysql_processlist::MysqlProcesslist),
    /// `top -b`.
    Top(&'d iosift_parsers::top::Top),
    /// `netstat`.
    Netstat(&'d iosift_parsers::netstat::Netstat),
}

/// Thread stacks of one file.
#[derive(Debug, Clone, Copy)]
pub enum Stacks<'d> {
    /// gdb `thread apply all bt` snapshots: every thread with its LWP.
    Gdb(&'d iosift_parsers::gdb_stacks::GdbStacks),
    /// pt-pmp's aggregate: distinct stacks with their counts, no thread ids.
    Pmp(&'d iosift_parsers::pt_pmp::PtPmp),
}

/// The adapter of a parsed file: the one exhaustive match over the formats.
pub(crate) fn of(d: &Data) -> Box<dyn Adapter<'_> + '_> {
    match d {
        Data::Iostat(x) | Data::IostatJson(x) => Box::new(iostat::Iostat(x)),
        Data::Pidstat(x) | Data::PidstatJson(x) => Box::new(pidstat::Pidstat(x)),
        Data::Sar(x) | Data::Sadf(x) | Data::Mpstat(x) => Box::new(sar::SarSource(x)),
        Data::SaBinary(x) => match &x.decoded {
            Some(s) => Box::new(sar::SarSource(s)),
            None => Box::new(inert::Inert("a sa file sadf could not decode")),
        },
        Data::Top(x) => Box::new(host::Top(x)),
        Data::Netstat(x) => Box::new(host::Netstat(x)),
        Data::Interrupts(x) => Box::new(host::Interrupts(x)),
        Data::ProcStat(x) => Box::new(host::ProcStat(x)),
        Data::Dmesg(x) => Box::new(system::Dmesg(x)),
        Data::Vmstat(x) => Box::new(series::Vmstat(x)),
        Data::DstatCsv(x) | Data::DstatText(x) => Box::new(series::Dstat(x)),
        Data::ProcMeminfo(x) => Box::new(procfs::Meminfo(x)),
        Data::ProcVmstat(x) => Box::new(procfs::ProcVmstat(x)),
        Data::ProcDiskstats(x) => Box::new(procfs::Diskstats(x)),
        Data::ProcPressure(x) => Box::new(pressure::Pressure(x)),
        Data::PerfScript(x) => Box::new(perf::Perf(x)),
        Data::GdbStacks(x) => Box::new(stacks::Gdb(x)),
        Data::PtPmp(x) => Box::new(stacks::Pmp(x)),
        Data::Mysqlbinlog(x) => Box::new(mysql::Binlog(x)),
        Data::MysqladminExt(x) => Box::new(mysql::Mysqladmin(x)),
        Data::MysqlReplicaStatus(x) => Box::new(mysql::ReplicaStatus(x)),
        Data::PtHeartbeat(x) => Box::new(mysql::Heartbeat(x)),
        Data::MysqlVariables(x) => Box::new(mysql::Variables(x)),
        Data::MysqlThreads(x) => Box::new(mysql::Threads(x)),
        Data::MysqlOptionFile(x) => Box::new(mysql::OptionFile(x)),
        Data::InnodbStatus(x) => Box::new(mysql::InnodbStatus(x)),
        Data::MysqlProcesslist(x) => Box::new(mysql::Processlist(x)),
        Data::Uname(x) => Box::new(system::Uname(x)),
        Data::Mounts(x) => Box::new(system::Mounts(x)),
        Data::Sysctl(x) => Box::new(system::Sysctl(x)),
        Data::Sysfs(x) => Box::new(system::Sysfs(x)),
        Data::Smaps(x) => Box::new(system::Smaps(x)),
        Data::Sections(x) => Box::new(system::Sections(x)),
        Data::ClockReference(x) => Box::new(system::ClockRef(x)),
        Data::CollectorCost(x) => Box::new(collector::Collector(x)),
        Data::Ps(_) => Box::new(inert::Inert(inert::PS)),
        Data::Df(_) => Box::new(inert::Inert(inert::DF)),
        Data::Binlogsum(_) => Box::new(inert::Inert(inert::BINLOGSUM)),
        Data::PerfReport(_) => Box::new(inert::Inert(inert::PERF_REPORT)),
        Data::ThreadList(_) => Box::new(inert::Inert(inert::THREAD_LIST)),
        Data::MysqlErrorLog(_) => Box::new(inert::Inert(inert::ERROR_LOG)),
        Data::DdSummary(_) => Box::new(inert::Inert(inert::DD_SUMMARY)),
        Data::ChecksumList(_) => Box::new(inert::Inert(inert::CHECKSUMS)),
        Data::PerfRecordLog(_) => Box::new(inert::Inert(inert::PERF_RECORD_LOG)),
        Data::CsvTable(_) => Box::new(inert::Inert(inert::CSV_TABLE)),
    }
}

/// What each file feeds: for every measurement, the best offer (highest tier,
/// then score, then the earlier file), plus every other offer whose time span
/// does not overlap a chosen one (a sar file per day, pt-stalk samples). A
/// file that loses a measurement gets a note naming the file used.
pub(crate) fn choose(
    files: &[ParsedFile],
    excluded: &[bool],
    spans: &[Option<(f64, f64)>],
) -> (Vec<BTreeSet<Measure>>, BTreeMap<usize, String>) {
    let mut uses = vec![BTreeSet::new(); files.len()];
    let mut by_measure: BTreeMap<Measure, Vec<(usize, Offer)>> = BTreeMap::new();
    for (i, f) in files.iter().enumerate() {
        if excluded.get(i).copied().unwrap_or(false) {
            continue;
        }
        let Some(d) = &f.data else { continue };
        for o in of(d).offers() {
            by_measure.entry(o.measure).or_default().push((i, o));
        }
    }
    // Per losing file: (winner, measure label, why), in measure order.
    let mut lost: BTreeMap<usize, Vec<(usize, &'static str, &'static str)>> = BTreeMap::new();
    for (m, mut cands) in by_measure {
        cands.sort_by(|(i, a), (j, b)| b.tier.cmp(&a.tier).then(b.score.cmp(&a.score)).then(i.cmp(j)));
        let mut taken: Vec<(usize, Offer)> = Vec::new();
        for (i, o) in cands {
            let span = spans.get(i).copied().flatten();
            let over = taken.iter().find(|(j, _)| match (span, spans.get(*j).copied().flatten()) {
                (Some(a), Some(b)) => a.0 <= b.1 && b.0 <= a.1,
                _ => true,
            });
            match over {
                None => {
                    uses[i].insert(m);
                    taken.push((i, o));
                }
                Some(&(j, winner)) => lost.entry(i).or_default().push((j, m.label(), winner.why)),
            }
        }
    }
    let notes = lost.into_iter().map(|(i, l)| (i, loss_note(files, &l))).collect();
    (uses, notes)
}

/// "device metrics and CPU of all cores taken from iostat.txt (same measurements; not
/// counted twice)": one sentence per winning file, with the first measure's reason.
fn loss_note(files: &[ParsedFile], lost: &[(usize, &'static str, &'static str)]) -> String {
    let mut winners: Vec<usize> = Vec::new();
    for (j, _, _) in lost {
        if !winners.contains(j) {
            winners.push(*j);
        }
    }
    let sentences: Vec<String> = winners
        .iter()
        .map(|j| {
            let of: Vec<&(usize, &str, &str)> = lost.iter().filter(|(w, _, _)| w == j).collect();
            let labels: Vec<&str> = of.iter().map(|(_, l, _)| *l).collect();
            let list = match labels.split_last() {
                Some((last, [])) => (*last).to_string(),
                Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
                None => String::new(),
            };
            format!("{list} taken from {} ({}; not counted twice)", files[*j].name, of[0].2)
        })
        .collect();
    sentences.join("; ")
}

/// The host a file names through its adapter ([`Adapter::host`]).
pub(crate) fn host(f: &ParsedFile) -> Option<String> {
    f.data.as_ref().and_then(|d| of(d).host())
}

/// The collector's cost record of a file, if it is one.
pub(crate) fn collector(f: &ParsedFile) -> Option<&iosift_parsers::collector_cost::CollectorCost> {
    f.data.as_ref().and_then(|d| of(d).collector())
}

/// The database server a file describes ([`Adapter::server`]).
pub(crate) fn server(f: &ParsedFile) -> Option<String> {
    f.data.as_ref().and_then(|d| of(d).server())
}

/// The perf samples of a file, if it is a perf script.
pub(crate) fn perf(f: &ParsedFile) -> Option<&iosift_parsers::perf_script::PerfScript> {
    f.data.as_ref().and_then(|d| of(d).perf())
}

/// The binlog of a file, if it is a mysqlbinlog decode.
pub(crate) fn binlog(f: &ParsedFile) -> Option<&iosift_parsers::mysqlbinlog::Binlog> {
    f.data.as_ref().and_then(|d| of(d).binlog())
}

/// The replication status series of a file, if it is one.
pub(crate) fn replica_status(f: &ParsedFile) -> Option<&iosift_parsers::mysql_replica_status::ReplicaStatus> {
    f.data.as_ref().and_then(|d| of(d).replica_status())
}

/// The pt-heartbeat rows of a file, if it is one.
pub(crate) fn heartbeat(f: &ParsedFile) -> Option<&iosift_parsers::pt_heartbeat::Heartbeat> {
    f.data.as_ref().and_then(|d| of(d).heartbeat())
}

/// The iostat reports of a file, if it is an iostat: the file's value and a way to be
/// handed its reports (its `reports` are empty when they were binned as read, [`replay`]).
pub(crate) fn iostat(f: &ParsedFile) -> Option<&iosift_parsers::iostat::Iostat> {
    f.data.as_ref().and_then(|d| of(d).iostat())
}

/// Hands every report of file `f` (an iostat) to `each`, in file order ([`replay::each_report`]).
pub(crate) fn each_iostat_report(
    f: &ParsedFile,
    io: &iosift_parsers::iostat::Iostat,
    each: impl FnMut(&iosift_parsers::iostat::Report),
) {
    replay::each_report(f, io, each);
}

/// The clock reference of a file, if it is one.
pub(crate) fn clock_reference(f: &ParsedFile) -> Option<&iosift_parsers::clock_reference::ClockReference> {
    f.data.as_ref().and_then(|d| of(d).clock_reference())
}

/// The state snapshot of a file, if it is one.
pub(crate) fn state(f: &ParsedFile) -> Option<State<'_>> {
    f.data.as_ref().and_then(|d| of(d).state())
}

/// The thread stacks of a file, if it is a gdb or pt-pmp output.
pub(crate) fn stacks(f: &ParsedFile) -> Option<Stacks<'_>> {
    f.data.as_ref().and_then(|d| of(d).stacks())
}

/// Whether anything after the fill reads the file's records: the perf, stacks, binlog, replication,
/// state and collector-cost views do; every other source is read only through the timeline, so `analyze`
/// drops its records once it is filled ([`crate::pipeline::fill::fill`]).
pub(crate) fn read_after_fill(f: &ParsedFile) -> bool {
    perf(f).is_some()
        || binlog(f).is_some()
        || replica_status(f).is_some()
        || heartbeat(f).is_some()
        || state(f).is_some()
        || stacks(f).is_some()
        || collector(f).is_some()
}

/// The epoch of a stamp: the simple forms (epoch, zoned), else a local date-time or a
/// time of day through the file's series ([`crate::clock::DayRoller`]: banner date,
/// rolling at midnight, the repeated DST hour in the series' order).
pub(crate) fn stamp_epoch(
    stamp: &iosift_parsers::Stamp,
    zone: &Zone,
    series: Option<&mut crate::clock::DayRoller>,
) -> Option<(f64, Anchoring)> {
    use iosift_parsers::Stamp;
    match (stamp, series) {
        (Stamp::Local(n), Some(r)) => Some((r.place_local(zone, *n), Anchoring::LocalDateTime)),
        (Stamp::TimeOfDay(t), Some(r)) => r.place_time(zone, *t).map(|e| (e, Anchoring::BannerDateTimeOfDay)),
        (Stamp::Local(_) | Stamp::TimeOfDay(_), None)
        | (Stamp::Epoch(_) | Stamp::Zoned(_) | Stamp::NoYear { .. } | Stamp::SinceBoot(_), _) => {
            crate::clock::simple_epoch(stamp, zone)
        }
    }
}

/// Successive timed snapshots as (previous, current, epoch, seconds between),
/// for counters; pairs more than a minute apart are skipped (a gap, not a rate).
pub(crate) fn snapshot_pairs<'s, S>(
    snaps: &'s [S],
    ts: impl Fn(&S) -> Option<f64> + 's,
) -> impl Iterator<Item = (&'s S, &'s S, f64, f64)> + 's {
    snaps
        .iter()
        .filter_map(move |x| ts(x).map(|t| (x, t)))
        .collect::<Vec<_>>()
        .windows(2)
        .filter_map(|w| {
            let ((p, t0), (c, t1)) = (w[0], w[1]);
            let dt = t1 - t0;
            (dt > 0.0 && dt <= 60.0).then_some((p, c, t1, dt))
        })
        .collect::<Vec<_>>()
        .into_iter()
}
