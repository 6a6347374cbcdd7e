//! `buffered_write_burst`: one large buffered write absorbed by the page cache
//! and written to the device by writeback after the fact. Names the writer
//! (a process that dirtied the pages, never a kernel issuer), its volume and
//! dirtying rate, how much of it the page cache held at once, when writeback
//! wrote it (against `dirty_expire_centisecs` and the flusher's wake-ups),
//! the device and its rate.
//!
//! Physical evidence: the writer's bytes (pidstat) capped by the pages the
//! kernel dirtied (`nr_dirtied`), `Dirty` holding most of them, then falling
//! while the device writes; the writer is not the database engine.

use crate::table::Cell;

use super::evidence::mib;
use super::inputs::{Available, DeviceWrites, Missing, Series};
use super::{Decision, Outcome};
use crate::analysis::buffered::{self, Drain, Held};
use crate::analysis::writeback::WritebackWindow;
use crate::attribution::is_kernel_issuer;
use crate::model::{Finding, Severity};
use crate::table::columns::{Col, MemMetric, VmCounter};
use crate::verdict::{Device, Metric, Unit};
use std::collections::BTreeMap;

/// Rule id.
pub(crate) const ID: &str = "buffered_write_burst";

/// The rule's declaration to the report: title and key charts.
pub(crate) const SPEC: crate::verdict::RuleSpec = crate::verdict::RuleSpec {
    id: ID,
    title: "Buffered write burst",
    key_charts: &["dirty-writeback", "write-sources"],
    headline: Some(("writer_bytes", "written")),
    measure: Some("device.w_bytes_s"),
    decisive: &[],
};

/// The page cache must have held at least this share of the write at once: most of it.
/// When writeback keeps pace with a writer (or the dirty limit holds it), the dirty pool
/// stays at a threshold whatever the volume, and the share held falls with the volume.
pub(crate) const MIN_HELD_SHARE: f64 = 0.5;
/// ... and at least this many bytes (smaller held writes are routine page-cache use).
pub(crate) const MIN_HELD_BYTES: f64 = 100e6;
/// The drain: `Dirty` falls by at least this share of the held bytes after the peak.
pub(crate) const DRAIN_SHARE: f64 = 0.5;
/// Writeback has begun in the first second the device writes this share of the held data.
pub(crate) const FIRST_FLUSH_SHARE: f64 = 0.05;
/// After the drain the writer wrote at most this share of its volume: one write and its
/// tail. A writer that goes on dirtying after its held data was flushed is a steady dirtier
/// (an mmap'd file rewritten, a log), whose writeback is periodic.
pub(crate) const MAX_AFTER_DRAIN_SHARE: f64 = 0.1;
/// The share of the writer's bytes that, written to a device within a second of being
/// charged, says they never waited in the page cache.
pub(crate) const MAX_BYPASS_SHARE: f64 = 0.75;

/// Write-source categories of the database server: their writes are the engine's own (redo,
/// page cleaning, binlog and relay-log appends of connections and appliers), not a bulk
/// buffered copy.
const ENGINE: &[&str] = &[
    "engine_redo",
    "engine_page_cleaner",
    "engine_binlog",
    "replication_applier",
    "replication_receiver",
    "connection",
];

/// True for a thread of the database server: an engine category, or an unnamed thread of
/// `mysqld` / `mariadbd` (pidstat prints the process name; without the thread map its
/// category is `other`).
pub(crate) fn is_engine(w: &Writer<'_>) -> bool {
    ENGINE.contains(&w.category) || matches!(w.comm.trim(), "mysqld" | "mariadbd")
}

/// The process that dirtied the pages.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Writer<'a> {
    /// Thread id.
    pub tid: u32,
    /// Its name as pidstat prints it.
    pub comm: &'a str,
    /// Its write-source category.
    pub category: &'static str,
    /// Its write bytes/s (`thr.<tid>.w_bytes_s`).
    pub series: Series<'a>,
}

/// A writer's write as a verdict holds it: who, how much, how long and how fast.
#[derive(Debug, Clone)]
pub(crate) struct Written {
    /// The writer's name as pidstat prints it.
    pub comm: String,
    /// Its thread id.
    pub tid: u32,
    /// Bytes it dirtied.
    pub bytes: f64,
    /// Seconds from its first to its last write.
    pub seconds: f64,
    /// Its dirtying rate, bytes/s.
    pub bytes_s: f64,
}

impl Written {
    /// Adds `writer`, `writer_tid`, `writer_bytes`, `writer_seconds` and `writer_bytes_s`.
    pub(crate) fn metrics(&self, m: &mut BTreeMap<&'static str, Metric>) {
        m.insert("writer", Metric::text(self.comm.clone()));
        m.insert("writer_tid", Metric::num(self.tid as f64, Unit::ThreadId));
        m.insert("writer_bytes", Metric::num(self.bytes, Unit::Bytes));
        m.insert("writer_seconds", Metric::num(self.seconds, Unit::Seconds));
        m.insert("writer_bytes_s", Metric::num(self.bytes_s, Unit::BytesPerSecond));
    }
}

impl Writer<'_> {
    /// The writer as a verdict's actor, witnessed by pidstat.
    pub(crate) fn actor(&self) -> crate::verdict::Actor {
        crate::verdict::Actor::measured(
            crate::verdict::Role::Writer,
            self.comm,
            Some(self.tid),
            None,
            "pidstat -d",
        )
    }
}

/// What the rule reads.
#[derive(Debug, Clone)]
pub(crate) struct Inputs<'a> {
    /// The writer: the thread with the most bytes dirtied, kernel issuers left out.
    pub writer: Writer<'a>,
    /// Pages dirtied per second (`vm.nr_dirtied_s`).
    pub dirtied: Option<Series<'a>>,
    /// `Dirty`.
    pub dirty: Series<'a>,
    /// Every device's writes.
    pub devices: Vec<DeviceWrites<'a>>,
    /// The writeback tunables.
    pub window: WritebackWindow,
    /// The kernel threads pidstat charged with writes (they issue, never dirty), most first.
    pub issuers: Vec<(&'a str, f64)>,
}

/// The thread with the most bytes dirtied (its pidstat bytes capped by `nr_dirtied`), kernel
/// issuers left out, and the database server's threads too when `skip_engine`.
pub(crate) fn writer<'a>(
    a: &Available<'a>,
    dirtied: Option<&Series<'a>>,
    skip_engine: bool,
) -> Option<Writer<'a>> {
    let mut best: Option<(f64, Writer<'a>)> = None;
    for (tid, t) in a.threads() {
        if is_kernel_issuer(&t.comm) {
            continue;
        }
        let Some(series) = a.series(&Col::Thread(*tid)) else { continue };
        let w = Writer { tid: *tid, comm: &t.comm, category: t.category, series };
        if skip_engine && is_engine(&w) {
            continue;
        }
        let total: f64 = buffered::capped(series.values, dirtied.map(|d| d.values)).iter().sum();
        if total > 0.0 && best.as_ref().is_none_or(|(b, _)| total > *b) {
            best = Some((total, w));
        }
    }
    best.map(|b| b.1)
}

/// The kernel issuers pidstat charged, most bytes first (at most 3).
pub(crate) fn issuers<'a>(a: &Available<'a>) -> Vec<(&'a str, f64)> {
    let mut v: Vec<(&'a str, f64)> = a
        .threads()
        .values()
        .filter(|t| is_kernel_issuer(&t.comm) && t.bytes > 0.0)
        .map(|t| (t.comm.as_str(), t.bytes))
        .collect();
    v.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(y.0)));
    v.truncate(3);
    v
}

/// Picks the inputs.
pub(crate) fn gather<'a>(a: &Available<'a>) -> Result<Inputs<'a>, Vec<Missing>> {
    let dirtied = a.series(&Col::Vm(VmCounter::NrDirtiedS));
    // A bulk copy next to a database: the copy is the writer, not the engine.
    let w = writer(a, dirtied.as_ref(), true);
    let dirty = a.series(&Col::Mem(MemMetric::DirtyBytes));
    let devices = a.all_device_writes();
    let mut missing = Vec::new();
    if w.is_none() {
        missing.push(Missing::WriterThreads);
    }
    if dirty.is_none() {
        missing.push(Missing::DirtyMemory);
    }
    if devices.is_empty() {
        missing.push(Missing::DeviceWrites);
    }
    let (Some(writer), Some(dirty)) = (w, dirty) else { return Err(missing) };
    if !missing.is_empty() {
        return Err(missing);
    }
    Ok(Inputs { writer, dirtied, dirty, devices, window: a.window(), issuers: issuers(a) })
}

/// A buffered write the page cache absorbed, as the rule found it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Episode {
    /// Bytes the writer dirtied.
    pub volume: f64,
    /// Its first and last second.
    pub run: (usize, usize),
    /// The most of it held at once.
    pub held: Held,
    /// Its drain.
    pub drain: Drain,
    /// Index in [`Inputs::devices`] of the device that wrote it.
    pub device: usize,
}

impl Episode {
    /// The rows from the writer's first second to the end of its writeback: the drain's end,
    /// or when the last pages it dirtied aged out (its last second + the writeback window),
    /// whichever is later.
    pub(crate) fn span(&self, window: WritebackWindow) -> (usize, usize) {
        (self.run.0, self.drain.end.max(self.run.1 + window.seconds().ceil() as usize))
    }
}

/// The absorbed write, or why there is none.
pub(crate) fn episode(i: &Inputs<'_>) -> Result<Episode, String> {
    let w = &i.writer;
    let dirtied = i.dirtied.as_ref().map(|d| d.values);
    let rates = buffered::capped(w.series.values, dirtied);
    let volume: f64 = rates.iter().sum();
    let who = format!("{} (tid {})", w.comm, w.tid);
    if is_engine(w) {
        return Err(format!(
            "the top writer {who} is the database server ({}): the engine's own writes, not a buffered copy",
            w.category
        ));
    }
    let Some(run) = buffered::run(&rates) else { return Err(format!("{who} wrote nothing")) };
    let last = rates.len().saturating_sub(1);
    if run.1 >= last {
        return Err(format!(
            "{who} wrote {} and was still writing when the capture ended: a steady dirtier, not one write absorbed and flushed",
            mib(volume)
        ));
    }
    let Some(held) = buffered::held(&rates, i.dirty.values, dirtied, run.0, (run.1 + 1).min(last)) else {
        return Err("no Dirty value while the writer ran".into());
    };
    let share = if volume > 0.0 { held.bytes / volume } else { 0.0 };
    if held.bytes < MIN_HELD_BYTES || share < MIN_HELD_SHARE {
        return Err(format!(
            "{who} wrote {}; the page cache held at most {} of it at once ({:.0} %, Dirty {}): written back as it went, not absorbed",
            mib(volume),
            mib(held.bytes),
            share * 100.0,
            mib(held.dirty)
        ));
    }
    let Some(drain) = buffered::drain(i.dirty.values, held.row, DRAIN_SHARE * held.bytes) else {
        return Err(format!(
            "{who}'s {} were held in the page cache ({}); Dirty did not fall by half of it before the capture ended",
            mib(volume),
            mib(held.bytes)
        ));
    };
    let after: f64 = rates.iter().skip(drain.end + 1).sum();
    if after > MAX_AFTER_DRAIN_SHARE * volume {
        return Err(format!(
            "{who} went on writing after the page cache had flushed half of its held {} ({} of its {} after that): a steady dirtier, not one write absorbed and flushed",
            mib(held.bytes),
            mib(after),
            mib(volume)
        ));
    }
    let cols: Vec<&[Cell]> = i.devices.iter().map(|d| d.series.values).collect();
    // The drained seconds, one more for the samplers' phases.
    let to = (drain.end + 1).min(last);
    let Some(device) = buffered::carrier(&cols, drain.start, to, DRAIN_SHARE * held.bytes, (run.0, to))
    else {
        return Err(format!(
            "Dirty fell by {} after {who}'s write, but no device wrote half of the held {} meanwhile",
            mib(drain.main_drop),
            mib(held.bytes)
        ));
    };
    // Dirty held it, but others may have dirtied that memory: a writer charged in bursts
    // (at most half of its seconds) whose bytes reached the disk in the seconds they were
    // charged never waited there. (A copy charged every second while the flusher writes
    // older data at the same pace is not told apart this way: it is left to Dirty.)
    let charged = rates[run.0..=run.1.min(last)].iter().filter(|x| **x >= buffered::CHARGE_MIN_BYTES).count();
    let bursty = 2 * charged <= run.1 - run.0 + 1;
    let bypass = buffered::reached_at_once(&rates, run.0..=run.1, &cols);
    if bursty && bypass >= MAX_BYPASS_SHARE {
        return Err(format!(
            "{who} wrote {}; {:.0} % of it reached a device within a second of being charged: it did not wait in the page cache (direct I/O, a flush at once, or a writer held at the dirty limit), not one write absorbed and flushed",
            mib(volume),
            100.0 * bypass
        ));
    }
    Ok(Episode { volume, run, held, drain, device })
}

/// How device write bursts relate to this rule's write: how many fall in its
/// [`Episode::span`] (the flusher writing the held data back), with a sentence saying so;
/// `None` when the rule does not fire or no burst falls in it. The periodic rule passes when
/// the bursts left are too few to make a series of their own.
pub(crate) fn explains(i: &Inputs<'_>, bursts: &[crate::analysis::bursts::Burst]) -> Option<(usize, String)> {
    let e = episode(i).ok()?;
    let (a, b) = e.span(i.window);
    let inside = bursts.iter().filter(|x| x.peak >= a && x.peak <= b).count();
    (inside > 0).then(|| {
        (
            inside,
            format!(
                "{inside} of the {} write bursts fall in {} (tid {})'s buffered write of {} and its writeback (the flusher waking every {:.0} s): see {ID}",
                bursts.len(),
                i.writer.comm,
                i.writer.tid,
                mib(e.volume),
                i.window.interval_s
            ),
        )
    })
}

/// When writeback wrote the held data, against the writeback tunables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FlushTiming {
    /// Within `dirty_expire` +- one flusher interval: aged out, written by the periodic flusher.
    Expiry,
    /// Later than expiry + one wake-up: written in pieces over several wake-ups.
    Late,
    /// Before it expired: background writeback, memory pressure or a sync.
    Early,
}

/// What the rule concluded: the writer and its write, how much the page cache held, when
/// and on which device writeback wrote it.
#[derive(Debug, Clone)]
pub(crate) struct Verdict {
    /// The writer and its write.
    pub writer: Written,
    /// The most of it held at once, bytes.
    pub held_bytes: f64,
    /// That over its volume, 0..1.
    pub held_share: f64,
    /// The held bytes were estimated from `nr_dirtied` (else from the rise of Dirty).
    pub held_by_dirtied: bool,
    /// The writer's share of all pages dirtied while it ran, 0..1 (`nr_dirtied`).
    pub writer_share_of_dirtying: Option<f64>,
    /// Dirty at the held peak, bytes.
    pub dirty_peak_bytes: f64,
    /// The device that wrote it.
    pub device: Device,
    /// Bytes it wrote during the drain.
    pub device_drain_bytes: f64,
    /// Its peak rate then, bytes/s.
    pub device_peak_bytes_s: f64,
    /// From the writer's first second to the main fall of Dirty, s.
    pub flush_lag_s: f64,
    /// From the writer's first second to writeback's first second, s.
    pub first_flush_lag_s: f64,
    /// From the writer's last second to the drain's end, s.
    pub drain_end_after_writer_s: f64,
    /// `dirty_expire_centisecs`, s.
    pub dirty_expire_s: f64,
    /// `dirty_writeback_centisecs`, s.
    pub writeback_interval_s: f64,
    /// The tunables were read from the capture (else the kernel defaults).
    pub writeback_window_from_capture: bool,
    /// The flush lag against the tunables.
    pub timing: FlushTiming,
    /// The other devices that wrote half as much meanwhile (stacked ones).
    pub also_written_on: Vec<String>,
    /// The kernel threads pidstat charged with writes.
    pub issuers: Vec<String>,
    /// Severity, confidence, window, evidence, the writer.
    pub basis: super::Basis,
}

/// Decides: fires on one buffered write the page cache absorbed and writeback flushed ([`episode`]).
pub(crate) fn decide(i: &Inputs<'_>) -> Decision<Verdict> {
    let e = match episode(i) {
        Ok(e) => e,
        Err(reason) => return Decision::Pass(reason),
    };
    let w = &i.writer;
    let dev = &i.devices[e.device];
    let dv = dev.series.values;
    let to = (e.drain.end + 1).min(dv.len().saturating_sub(1));
    let drained = buffered::bytes(dv, e.drain.start, to);
    let (peak_row, peak) = (e.drain.start..=to)
        .filter_map(|r| dv.get(r).and_then(Cell::get).map(|x| (r, x)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or((e.drain.start, 0.0));
    let seconds = (e.run.1 - e.run.0 + 1) as f64;
    let lag = e.drain.main as f64 - e.run.0 as f64;
    // Writeback's first second: the device writing at least 5 % of the held data in one second.
    let first = (e.run.0..=e.drain.main)
        .find(|&r| dv.get(r).and_then(Cell::get).is_some_and(|x| x >= FIRST_FLUSH_SHARE * e.held.bytes))
        .unwrap_or(e.drain.main);
    let win = i.window;
    let (lo, hi) = (win.expire_s, win.seconds());
    let lag_matches = lag >= lo - win.interval_s && lag <= hi + win.interval_s;
    let timing = if lag_matches {
        FlushTiming::Expiry
    } else if lag > hi {
        FlushTiming::Late
    } else {
        FlushTiming::Early
    };
    let others: Vec<String> = i
        .devices
        .iter()
        .enumerate()
        .filter(|(k, d)| {
            *k != e.device && buffered::bytes(d.series.values, e.drain.start, to) >= 0.5 * drained
        })
        .map(|(_, d)| d.device.to_string())
        .collect();
    // The writer's share of all pages dirtied while it ran (nr_dirtied).
    let own = i.dirtied.as_ref().map(|d| {
        let all = buffered::bytes(d.values, e.run.0, e.run.1) * buffered::PAGE_BYTES;
        if all > 0.0 { (e.volume / all).min(1.0) } else { 1.0 }
    });
    let vals = w.series.values;
    let wpeak = (e.run.0..=e.run.1)
        .filter_map(|r| vals.get(r).and_then(Cell::get).map(|x| (r, x)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let mut evidence = Vec::new();
    if let Some((r, x)) = wpeak {
        evidence.push(w.series.evidence(r, "kB_wr/s", x / 1024.0));
    }
    evidence.push(i.dirty.evidence(e.held.row, "Dirty (kB)", e.held.dirty / 1024.0));
    if let Some(d) = i.dirty.values.get(e.drain.end).and_then(Cell::get) {
        evidence.push(i.dirty.evidence(e.drain.end, "Dirty (kB)", d / 1024.0));
    }
    evidence.push(dev.series.evidence(peak_row, "wkB/s", peak / 1024.0));
    Decision::Fire(Verdict {
        writer: Written {
            comm: w.comm.to_string(),
            tid: w.tid,
            bytes: e.volume,
            seconds,
            bytes_s: e.volume / seconds,
        },
        held_bytes: e.held.bytes,
        held_share: e.held.bytes / e.volume,
        held_by_dirtied: e.held.by_dirtied,
        writer_share_of_dirtying: own,
        dirty_peak_bytes: e.held.dirty,
        device: dev.named(),
        device_drain_bytes: drained,
        device_peak_bytes_s: peak,
        flush_lag_s: lag,
        first_flush_lag_s: first as f64 - e.run.0 as f64,
        drain_end_after_writer_s: e.drain.end as f64 - e.run.1 as f64,
        dirty_expire_s: win.expire_s,
        writeback_interval_s: win.interval_s,
        writeback_window_from_capture: win.from_capture,
        timing,
        also_written_on: others,
        issuers: i.issuers.iter().map(|(c, _)| c.to_string()).collect(),
        basis: super::Basis {
            severity: Severity::Info,
            // Other dirtiers at the same time make the held estimate (and the drain) less the writer's.
            confidence: match own {
                Some(o) => ((0.6 + 0.3 * o) * 100.0).round() / 100.0,
                None => 0.65,
            },
            window: Some((w.series.epoch(e.run.0), w.series.epoch(e.drain.end))),
            evidence,
            actors: crate::verdict::Actors { writers: vec![w.actor()], ..Default::default() },
        },
    })
}

/// Writes the verdict as the finding.
pub(crate) fn explain(v: &Verdict) -> Finding {
    let mut metrics = BTreeMap::new();
    v.writer.metrics(&mut metrics);
    metrics.insert("held_bytes", Metric::num(v.held_bytes, Unit::Bytes));
    metrics.insert("held_share", Metric::num(v.held_share, Unit::Fraction));
    metrics.insert("writer_share_of_dirtying", Metric::opt(v.writer_share_of_dirtying, Unit::Fraction));
    metrics.insert(
        "held_estimate",
        Metric::text(if v.held_by_dirtied {
            "nr_dirtied (oldest dirtied written first)"
        } else {
            "rise of Dirty"
        }),
    );
    metrics.insert("dirty_peak_bytes", Metric::num(v.dirty_peak_bytes, Unit::Bytes));
    v.device.metrics(&mut metrics);
    metrics.insert("device_drain_bytes", Metric::num(v.device_drain_bytes, Unit::Bytes));
    metrics.insert("device_peak_bytes_s", Metric::num(v.device_peak_bytes_s, Unit::BytesPerSecond));
    metrics.insert("flush_lag_s", Metric::num(v.flush_lag_s, Unit::Seconds));
    metrics.insert("first_flush_lag_s", Metric::num(v.first_flush_lag_s, Unit::Seconds));
    metrics.insert("drain_end_after_writer_s", Metric::num(v.drain_end_after_writer_s, Unit::Seconds));
    metrics.insert("dirty_expire_s", Metric::num(v.dirty_expire_s, Unit::Seconds));
    metrics.insert("writeback_interval_s", Metric::num(v.writeback_interval_s, Unit::Seconds));
    metrics.insert("writeback_window_from_capture", Metric::flag(v.writeback_window_from_capture));
    metrics.insert("flush_lag_matches_expiry", Metric::flag(v.timing == FlushTiming::Expiry));
    metrics.insert("also_written_on", Metric::list(v.also_written_on.clone()));
    metrics.insert("issuers", Metric::list(v.issuers.clone()));
    let lag_text = match v.timing {
        FlushTiming::Expiry => "aged out and written by the periodic flusher",
        FlushTiming::Late => {
            "later than expiry + one wake-up: the flusher wrote it in pieces over several wake-ups"
        }
        FlushTiming::Early => {
            "before it expired: background writeback (Dirty above the background threshold), memory pressure or a sync started it"
        }
    };
    let tunables =
        if v.writeback_window_from_capture { "" } else { " (kernel defaults; sysctl not in the capture)" };
    let summary = format!(
        "{} (tid {}) wrote {} in {:.0} s ({}/s, the rate of dirtying memory, not of the disk); the page cache held up to {} of it at once ({:.0} %, Dirty {}), and writeback wrote it to {}{} afterwards: from {:.0} s, the main flush {:.0} s after the writer began (dirty_expire_centisecs {:.0} s, flusher every {:.0} s{tunables}: {lag_text}); {} wrote {} until Dirty had fallen by half the held data, {:.0} s after the writer's last second, up to {}/s. The writer's own report is not the disk's: its data was not durable when it finished{}.",
        v.writer.comm,
        v.writer.tid,
        mib(v.writer.bytes),
        v.writer.seconds,
        mib(v.writer.bytes_s),
        mib(v.held_bytes),
        v.held_share * 100.0,
        mib(v.dirty_peak_bytes),
        v.device.described,
        if v.also_written_on.is_empty() {
            String::new()
        } else {
            format!(" (also written on {})", v.also_written_on.join(", "))
        },
        v.first_flush_lag_s,
        v.flush_lag_s,
        v.dirty_expire_s,
        v.writeback_interval_s,
        v.device.name,
        mib(v.device_drain_bytes),
        v.drain_end_after_writer_s,
        mib(v.device_peak_bytes_s),
        if v.issuers.is_empty() {
            String::new()
        } else {
            format!(
                "; the device writes were issued by kernel threads ({}), not by the writer",
                v.issuers.join(", ")
            )
        }
    );
    let remedies = vec![
        "To make a bulk copy durable as it goes (and the device's load smooth), write with O_DIRECT or sync in steps (fdatasync / sync_file_range every few hundred MiB, dd oflag=direct or conv=fsync).".into(),
        "Lower vm.dirty_background_bytes so background writeback starts early instead of a burst when the data ages out.".into(),
        "Measure the copy's speed including its flush (time ... && sync), not from the writer's own report.".into(),
    ];
    v.basis.finding(ID, summary, metrics, remedies)
}

/// Evaluates the rule: [`decide`], then [`explain`].
pub(crate) fn check(i: &Inputs<'_>) -> Outcome {
    super::outcome(decide(i), explain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testkit::{fired, passed, series, vals};

    const MB: f64 = 1e6;
    const PAGE: f64 = crate::analysis::buffered::PAGE_BYTES;

    /// 60 s: a writer at 100 MB/s in rows 5..=14 (1 GB) nobody else dirties; `Dirty` holds
    /// `held_mb` of it at row 14 and falls to 0 at row `flush`; the device writes what
    /// Dirty loses at `flush`, 5 MB/s otherwise.
    struct Case {
        writer: Vec<f64>,
        dirty: Vec<f64>,
        dev: Vec<f64>,
        category: &'static str,
    }

    impl Case {
        fn new(held_mb: f64, flush: usize) -> Case {
            let mut writer = vec![0.0; 60];
            let mut dirty = vec![0.0; 60];
            let mut dev = vec![5.0 * MB; 60];
            writer[5..=14].fill(100.0 * MB);
            for (r, d) in dirty.iter_mut().enumerate().take(flush).skip(5) {
                *d = held_mb * MB * ((r - 4) as f64 / 10.0).min(1.0);
            }
            dev[flush] = held_mb * MB;
            Case { writer, dirty, dev, category: "other" }
        }

        fn run(&self) -> Outcome {
            let (w, d, v) = (vals(&self.writer), vals(&self.dirty), vals(&self.dev));
            let pages = vals(&self.writer.iter().map(|x| x / PAGE).collect::<Vec<_>>());
            check(&Inputs {
                writer: Writer {
                    tid: 42,
                    comm: "dd",
                    category: self.category,
                    series: series("thr.42.w_bytes_s", &w),
                },
                dirtied: Some(series("vm.nr_dirtied_s", &pages)),
                dirty: series("mem.dirty_bytes", &d),
                devices: vec![DeviceWrites {
                    device: "vda",
                    series: series("dev.vda.w_bytes_s", &v),
                    stack: None,
                }],
                window: WritebackWindow::from_centisecs(Some(3000.0), Some(500.0)),
                issuers: vec![("kworker/u8:2-flush-254:0", 1e9)],
            })
        }
    }

    #[test]
    fn fires_on_a_write_held_then_flushed() {
        let f = fired(Case::new(1000.0, 40).run());
        assert_eq!(f.rule, ID);
        assert_eq!(f.metrics["writer"].value, "dd");
        assert_eq!(f.metrics["device"].value, "vda");
        assert_eq!(f.metrics["writer_bytes"].value, 1e9);
        assert_eq!(f.metrics["flush_lag_s"].value, 35.0);
        // The 5 MB/s baseline is not writeback of the 1 GB: the flush at row 40 is its first second.
        assert_eq!(f.metrics["first_flush_lag_s"].value, 35.0);
        assert_eq!(f.metrics["flush_lag_matches_expiry"].value, true);
        assert!(
            f.summary.contains("issued by kernel threads (kworker/u8:2-flush-254:0), not by the writer"),
            "{}",
            f.summary
        );
        // Nobody else dirtied: the writer's share of the dirtying is 1.
        assert_eq!(f.metrics["writer_share_of_dirtying"].value, 1.0);
        assert_eq!(f.confidence, 0.9);
    }

    #[test]
    fn held_share_edge() {
        // 500 MB of the 1 GB held: most of it, just.
        fired(Case::new(500.0, 40).run());
        let r = passed(Case::new(499.0, 40).run());
        assert!(r.contains("not absorbed"), "{r}");
    }

    #[test]
    fn a_writer_still_writing_at_the_end_or_the_engine_passes() {
        let mut c = Case::new(1000.0, 40);
        c.writer[59] = 100.0 * MB;
        assert!(passed(c.run()).contains("still writing when the capture ended"));
        let mut c = Case::new(1000.0, 40);
        c.category = "engine_page_cleaner";
        assert!(passed(c.run()).contains("database server"));
    }

    #[test]
    fn a_writer_going_on_after_the_drain_passes() {
        // 111 MB after the flush at row 40 is a tenth of the 1,111 MB: still one write; more is not.
        let mut c = Case::new(1000.0, 40);
        c.writer[41] = 111.0 * MB;
        fired(c.run());
        c.writer[42] = 1.0 * MB;
        assert!(passed(c.run()).contains("went on writing after the page cache had flushed"));
    }

    #[test]
    fn no_drain_or_no_device_passes() {
        let mut c = Case::new(1000.0, 40);
        for d in c.dirty.iter_mut().skip(40) {
            *d = 1000.0 * MB;
        }
        assert!(passed(c.run()).contains("did not fall by half"));
        let mut c = Case::new(1000.0, 40);
        c.dev[40] = 300.0 * MB;
        assert!(passed(c.run()).contains("no device wrote half"));
    }
}
