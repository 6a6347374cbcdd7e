//! `periodic_write_bursts`: device writes come in periodic bursts; period,
//! size, and whether the period matches the writeback tunables.

use super::actors::EpisodeVerdict;
use super::evidence::{mib, num};
use super::inputs::{Available, DeviceWrites, Missing, Series};
use super::{Decision, Outcome};
use crate::analysis::periodicity::PeriodicityView;
use crate::analysis::stats::median;
use crate::analysis::writeback::WritebackWindow;
use crate::model::{Finding, Severity};
use crate::pipeline::ThreadTotal;
use crate::table::Cell;
use crate::table::columns::{Col, MemMetric};
use crate::verdict::{Device, IssuerClass, Metric, Unit};
use std::collections::BTreeMap;

/// The bursts one period apart must hold this share of all the bursts' bytes.
pub(crate) const MIN_PERIODIC_SHARE: f64 = 0.25;

/// Rule id.
pub(crate) const ID: &str = "periodic_write_bursts";

/// The rule's declaration to the report: title and key charts.
pub(crate) const SPEC: crate::verdict::RuleSpec = crate::verdict::RuleSpec {
    id: ID,
    title: "Periodic write bursts",
    key_charts: &[],
    headline: Some(("period_s", "period")),
    measure: Some("bursts.period_s"),
    decisive: &["issuer_class", "submitter"],
};

/// Fewer bursts than this are no series.
pub(crate) const MIN_BURSTS: usize = 3;
/// Bursts of a period that is not the writeback window's may differ in size by at most
/// this factor when there are fewer than [`MIN_BURSTS_MIXED_SIZES`] of them.
pub(crate) const TIMER_SIZE_RATIO: f64 = 8.0;
/// From this many bursts on, a period stands whatever their sizes.
pub(crate) const MIN_BURSTS_MIXED_SIZES: usize = 5;
/// The period's confidence must reach this.
pub(crate) const MIN_CONFIDENCE: f64 = 0.5;

/// What the rule reads.
#[derive(Debug, Clone)]
pub(crate) struct Inputs<'a> {
    /// The main device's writes.
    pub writes: DeviceWrites<'a>,
    /// Their bursts and period.
    pub periodicity: &'a PeriodicityView,
    /// The writeback tunables.
    pub window: WritebackWindow,
    /// pidstat's writers (who dirtied).
    pub threads: &'a BTreeMap<u32, ThreadTotal>,
    /// Dirty memory (its drops at the bursts are evidence).
    pub dirty: Option<Series<'a>>,
    /// A large buffered write's inputs: bursts inside its absorbed write are the flusher
    /// writing it back (`buffered_write_burst`), not a periodic source.
    pub buffered: Option<super::buffered_burst::Inputs<'a>>,
    /// The shared writable file mapping of a captured process (smaps): its writer
    /// dirtied the file when pidstat is missing.
    pub mapping: Option<&'a crate::pipeline::Sourced<iosift_parsers::smaps::Mapping>>,
    /// The device written is the one holding [`Inputs::mapping`]'s file: its dirtiers are
    /// the mapping owner's threads (pidstat lists the whole host).
    pub device_holds_mapping: bool,
    /// The write episodes with their measured issuers.
    pub episodes: &'a [crate::analysis::episodes::Episode],
    /// The trace's large submitters with the period of their own bursts.
    pub submitters: &'a [crate::analysis::submitters::Submitter],
    /// The trace file (for the evidence of a submitter's period).
    pub trace_file: Option<&'a str>,
    /// pidstat's per-thread write series (bytes/s), by thread id.
    pub thread_series: Vec<(u32, Series<'a>)>,
}

/// Picks the inputs.
pub(crate) fn gather<'a>(a: &Available<'a>) -> Result<Inputs<'a>, Vec<Missing>> {
    let (Some(writes), Some(periodicity)) = (a.device_writes(), a.periodicity()) else {
        return Err(vec![Missing::DeviceWrites]);
    };
    // A device stacked on the main one (the main one chosen for its bytes alone) whose
    // writes carry the writeback period that the main device's mixed writes hide.
    let (writes, periodicity) = match a.stacked_periodic() {
        Some(s) => s,
        None => (writes, periodicity),
    };
    let mapping = crate::analysis::stack::written_mapping(a.mappings());
    Ok(Inputs {
        writes,
        periodicity,
        window: a.window(),
        threads: a.threads(),
        dirty: a.series(&Col::Mem(MemMetric::DirtyBytes)),
        buffered: super::buffered_burst::gather(a).ok(),
        mapping,
        device_holds_mapping: mapping
            .and_then(|m| a.mapping_device(&m.value))
            .is_some_and(|d| d == writes.device),
        episodes: a.episodes(),
        submitters: a.submitters(),
        trace_file: a.trace_file(),
        thread_series: a.threads().keys().filter_map(|t| Some((*t, a.series(&Col::Thread(*t))?))).collect(),
    })
}

/// Whose periodic bursts a verdict tells.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    /// The device's own bursts.
    Device(DeviceBursts),
    /// A task of the trace submitting its own writes on a period.
    Submitter {
        /// Its name.
        comm: String,
        /// Whose series showed its period: the trace's bios, or pidstat's charges that the
        /// device wrote within a second.
        witness: crate::analysis::submitters::Witness,
    },
}

/// What the device's own bursts add to a verdict: how they were found and who dirtied.
#[derive(Debug, Clone)]
pub(crate) struct DeviceBursts {
    /// The device's write rate below which a second is no burst, bytes/s (None when
    /// the bursts were found over its local floor).
    pub baseline_bytes_s: Option<f64>,
    /// Other bursts beside those one period apart (None when every burst counts).
    pub other_bursts: Option<usize>,
    /// Who dirtied steadily (`comm (tid N, size)`), at most 3.
    pub dirtiers: Vec<String>,
    /// Writers that dirtied more than the device wrote (their data is elsewhere), at most 3.
    pub elsewhere: Vec<String>,
    /// Dirty memory grew over the capture (counted in what the device could take).
    pub dirty_grew: bool,
    /// A kernel flusher thread was charged with writes.
    pub flusher: bool,
    /// The shared writable mapping of a captured process (its file, the mapped path),
    /// when no thread is named.
    pub mapping: Option<(String, String)>,
    /// A large buffered write's writeback some of the bursts are (its sentence).
    pub buffered: Option<String>,
    /// The file system's journal commit interval, s.
    pub journal_commit_s: Option<f64>,
}

/// What the rule concluded: the period, the bursts, how the period compares with the
/// writeback tunables, who issued the bursts and what they cost, and whose bursts they are.
#[derive(Debug, Clone)]
pub(crate) struct Verdict {
    /// The device written.
    pub device: Device,
    /// The period, s.
    pub period_s: f64,
    /// Its confidence, 0..1.
    pub period_confidence: f64,
    /// Bursts one period apart.
    pub bursts: usize,
    /// Their median bytes.
    pub burst_bytes_median: f64,
    /// Their largest, bytes.
    pub burst_bytes_max: Option<f64>,
    /// The writeback window (`dirty_expire` + `dirty_writeback`), s.
    pub writeback_window_s: f64,
    /// The flusher's wake-up interval, s.
    pub writeback_interval_s: f64,
    /// The tunables were read from the capture (else the kernel defaults).
    pub writeback_window_from_capture: bool,
    /// The period is the writeback window's.
    pub matches_writeback_window: bool,
    /// The period is the flusher's wake-up interval.
    pub matches_flusher_interval: bool,
    /// Who issued the bursts and what they cost, from their episodes.
    pub issued: EpisodeVerdict,
    /// Whose bursts.
    pub source: Source,
    /// Severity, confidence, window, evidence, actors.
    pub basis: super::Basis,
}

/// Decides: the device's periodic bursts, unless their issuer is not one measured class
/// and a task of the trace submits its own writes on a period (an application's timer
/// among other tenants' writes), which is then the verdict.
pub(crate) fn decide(i: &Inputs<'_>) -> Decision<Verdict> {
    let device = decide_device(i);
    let Some(sub) = i
        .submitters
        .iter()
        .filter(|s| {
            s.view.confidence.is_some_and(|c| c >= MIN_CONFIDENCE)
                && s.view.periodic_bursts().len() >= MIN_BURSTS
        })
        .max_by(|a, b| a.bytes.total_cmp(&b.bytes))
    else {
        return device;
    };
    // The device's story stands over a task's own period when the episodes of its bursts'
    // span are one measured issuer (most of their bytes) and its own bursts measured the same
    // class: a device chain of other data's writeback around an application's flushes is not
    // the application's story.
    let device_measured = match &device {
        Decision::Fire(v) => {
            let bursts = i.periodicity.periodic_bursts();
            let (first, last) = (bursts.first().map_or(0, |b| b.start), bursts.last().map_or(0, |b| b.end));
            let span =
                super::actors::verdict(&super::actors::overlapping(i.episodes, i.writes.device, first, last));
            let own = v.issued.class.map(|(c, _)| c);
            span.class.is_some_and(|(c, share)| share >= 0.6 && own == Some(c))
        }
        Decision::Pass(_) | Decision::Skip(_) => false,
    };
    if device_measured { device } else { decide_submitter(i, sub) }
}

/// The trace's evidence of a submitter's bursts: its block_bio_queue bytes of the first six.
fn trace_evidence(
    i: &Inputs<'_>,
    sub: &crate::analysis::submitters::Submitter,
    bursts: &[&crate::analysis::bursts::Burst],
    t0: i64,
) -> Vec<crate::model::Evidence> {
    i.trace_file
        .map(|f| {
            bursts
                .iter()
                .take(6)
                .map(|b| crate::model::Evidence {
                    file: f.to_string(),
                    lines: None,
                    metric: format!(
                        "block_bio_queue write bytes of {} from {}",
                        sub.comm,
                        crate::model::rfc3339(t0 + b.start as i64)
                    ),
                    value: num(b.total),
                    quote: None,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// pidstat's evidence of a submitter's bursts: its threads' kB_wr/s at the first six.
fn pidstat_evidence(
    i: &Inputs<'_>,
    sub: &crate::analysis::submitters::Submitter,
    bursts: &[&crate::analysis::bursts::Burst],
) -> Vec<crate::model::Evidence> {
    let own: Vec<&Series<'_>> = i
        .thread_series
        .iter()
        .filter(|(tid, _)| i.threads.get(tid).is_some_and(|t| t.comm == sub.comm))
        .map(|(_, s)| s)
        .collect();
    bursts
        .iter()
        .take(6)
        .filter_map(|b| {
            own.iter()
                .flat_map(|s| (b.start..=b.end).filter_map(move |r| Some((*s, r, s.values.get(r)?.get()?))))
                .max_by(|a, b| a.2.total_cmp(&b.2))
                .map(|(s, r, x)| s.evidence(r, "kB_wr/s", x / 1024.0))
        })
        .collect()
}

/// The verdict of a task that submits its writes on its own period.
fn decide_submitter(i: &Inputs<'_>, sub: &crate::analysis::submitters::Submitter) -> Decision<Verdict> {
    let view = &sub.view;
    let (Some(period), Some(conf)) = (view.period_s, view.confidence) else {
        return Decision::Pass(format!("{}'s submissions have no period", sub.comm));
    };
    let bursts = view.periodic_bursts();
    let sizes: Vec<f64> = bursts.iter().map(|b| b.total).collect();
    // The bursts the trace shows the submitter issuing speak for it; the others of its
    // seconds are other tenants' writes.
    let own: Vec<&crate::analysis::episodes::Episode> =
        sub.episodes.iter().filter(|e| e.issuer.issuer.comm.as_deref() == Some(sub.comm.as_str())).collect();
    let eps: Vec<&crate::analysis::episodes::Episode> =
        if own.is_empty() { sub.episodes.iter().collect() } else { own };
    let ev = super::actors::verdict(&eps);
    let matches = i.window.matches(period);
    let t0 = view_t0(sub);
    let evidence = match sub.witness {
        crate::analysis::submitters::Witness::Pidstat => pidstat_evidence(i, sub, &bursts),
        crate::analysis::submitters::Witness::Trace => trace_evidence(i, sub, &bursts, t0),
    };
    let first = bursts.first().map_or(0, |b| b.start);
    let last = bursts.last().map_or(0, |b| b.end);
    Decision::Fire(Verdict {
        device: i.writes.named(),
        period_s: period,
        period_confidence: conf,
        bursts: bursts.len(),
        burst_bytes_median: median(&sizes).unwrap_or(0.0),
        burst_bytes_max: sizes.iter().copied().reduce(f64::max),
        writeback_window_s: i.window.seconds(),
        writeback_interval_s: i.window.interval_s,
        writeback_window_from_capture: i.window.from_capture,
        matches_writeback_window: matches,
        matches_flusher_interval: !matches && i.window.is_flusher_cadence(period),
        basis: super::Basis {
            severity: ev.severity_repeated(Severity::Warning),
            confidence: conf.clamp(0.0, 1.0),
            window: Some((t0 + first as i64, t0 + last as i64)),
            evidence,
            actors: submitter_actors(i, sub, &ev),
        },
        issued: ev,
        source: Source::Submitter { comm: sub.comm.clone(), witness: sub.witness },
    })
}

/// Who a submitter's verdict names: its episodes' actors; when pidstat is the witness of
/// its period, the writer is the submitter's own threads (their charges are the bytes the
/// device wrote in those seconds), not whoever else was charged then.
fn submitter_actors(
    i: &Inputs<'_>,
    sub: &crate::analysis::submitters::Submitter,
    ev: &EpisodeVerdict,
) -> crate::verdict::Actors {
    let mut actors = ev.actors.clone();
    if sub.witness == crate::analysis::submitters::Witness::Pidstat {
        let total: f64 = i.threads.values().filter(|t| t.comm == sub.comm).map(|t| t.bytes).sum();
        actors.writers = i
            .threads
            .iter()
            .filter(|(_, t)| t.comm == sub.comm)
            .map(|(tid, t)| {
                let share = if total > 0.0 { Some(t.bytes / total) } else { None };
                crate::verdict::Actor::measured(
                    crate::verdict::Role::Writer,
                    &t.comm,
                    Some(*tid),
                    share,
                    "pidstat -d",
                )
            })
            .collect();
    }
    actors
}

/// Epoch of row 0 of a submitter's series (its episodes carry both).
fn view_t0(sub: &crate::analysis::submitters::Submitter) -> i64 {
    sub.episodes.first().map_or(0, |e| e.start_epoch - e.start as i64)
}

/// The device's periodic bursts.
fn decide_device(i: &Inputs<'_>) -> Decision<Verdict> {
    let (view, dev, col) = (i.periodicity, i.writes.device, &i.writes.series);
    // The bursts carrying the period: those one period apart among others (`chain`), else
    // every burst.
    let periodic: Vec<crate::analysis::bursts::Burst> = view.periodic_bursts().into_iter().cloned().collect();
    let n = periodic.len();
    let others = view.bursts.len() - n;
    let (Some(period), Some(conf)) = (view.period_s, view.confidence) else {
        return Decision::Pass(format!("{n} write bursts on {dev}: no repeating period"));
    };
    // Two bursts one writeback window apart are all a capture shorter than two more
    // windows can show: accepted, at the lowest confidence.
    let len = col.values.len();
    let two_at_window = n == 2
        && i.window.matches(period)
        && ((len - periodic[0].start.min(len)) as f64) < 2.0 * period + 5.0;
    let conf = if two_at_window { conf.max(MIN_CONFIDENCE) } else { conf };
    // Bursts inside one large buffered write are its writeback, whatever their period.
    let buffered = i.buffered.as_ref().and_then(|b| super::buffered_burst::explains(b, &periodic));
    if let Some((inside, why)) = &buffered
        && n - inside < MIN_BURSTS
    {
        return Decision::Pass(format!("{why}, not a periodic source"));
    }
    // A period carried by a small share of the bursts' bytes (a few small bursts one period
    // apart beside a copy's gigabytes) is not what the device's bursts do.
    let share = view.periodic_share();
    if share < MIN_PERIODIC_SHARE {
        return Decision::Pass(format!(
            "{n} write bursts on {dev} one period of {period:.1} s apart hold {:.0} % of the bursts' bytes: not the device's pattern",
            100.0 * share
        ));
    }
    if (n < MIN_BURSTS && !two_at_window) || conf < MIN_CONFIDENCE {
        return Decision::Pass(format!(
            "{n} write bursts on {dev}; period {period:.1} s with confidence {conf:.2}: not periodic enough"
        ));
    }
    let sizes: Vec<f64> = periodic.iter().map(|b| b.total).collect();
    let med = median(&sizes).unwrap_or(0.0);
    let known = i.window.from_capture;
    let matches = i.window.matches(period);
    // A period of the flusher's own wake-up interval is writeback too (steady dirtying written
    // at every wake-up), not an application timer.
    let cadence = !matches && i.window.is_flusher_cadence(period);
    // A period that is not writeback's claims a repeating source (an application timer): its
    // bursts are of one size class. One large write with a few small ones after it (a copy
    // and the writeback of its last dirty pages) is no timer.
    if !matches
        && !cadence
        && let Some(why) = one_large_write(&sizes, dev, period)
    {
        return Decision::Pass(why);
    }
    let first = periodic.first().map(|b| b.start).unwrap_or(0);
    let last = periodic.last().map(|b| b.end).unwrap_or(0);
    let (dirtiers, elsewhere, dirty_growth) = dirtiers(i);
    let ev = issued(i, &periodic);
    let evidence = burst_evidence(i, &periodic);
    Decision::Fire(Verdict {
        device: i.writes.named(),
        period_s: period,
        period_confidence: conf,
        bursts: n,
        burst_bytes_median: med,
        burst_bytes_max: sizes.iter().copied().reduce(f64::max),
        writeback_window_s: i.window.seconds(),
        writeback_interval_s: i.window.interval_s,
        writeback_window_from_capture: known,
        matches_writeback_window: matches,
        matches_flusher_interval: cadence,
        basis: super::Basis {
            severity: ev.severity_repeated(Severity::Warning),
            confidence: (conf * if known { 1.0 } else { 0.9 }).clamp(0.0, 1.0),
            window: Some((col.epoch(first), col.epoch(last))),
            evidence,
            actors: ev.actors.clone(),
        },
        issued: ev,
        source: Source::Device(DeviceBursts {
            // None when the bursts were found over the device's local floor (no one threshold).
            baseline_bytes_s: view.threshold.is_finite().then_some(view.threshold),
            other_bursts: (!view.chain.is_empty()).then_some(others),
            dirtiers,
            elsewhere,
            dirty_grew: dirty_growth > 0.0,
            flusher: i.threads.values().any(|t| t.category == "writeback"),
            mapping: i.mapping.map(|m| (m.file.clone(), m.value.path.clone())),
            buffered: buffered.map(|(_, why)| why),
            journal_commit_s: view.journal_commit_s.map(|(c, _)| c),
        }),
    })
}

/// Who issued the periodic bursts, measured per episode (never assumed from the period),
/// with who dirtied what each burst wrote as the writers when it is known.
fn issued(i: &Inputs<'_>, periodic: &[crate::analysis::bursts::Burst]) -> EpisodeVerdict {
    let dev = i.writes.device;
    // Who issued the bursts is measured per episode, never assumed from the period; the
    // pattern's class is the one most of its bursts measured.
    let members: Vec<Vec<&crate::analysis::episodes::Episode>> =
        periodic.iter().map(|b| super::actors::overlapping(i.episodes, dev, b.start, b.end)).collect();
    let mut ev = super::actors::verdict_of_pattern(&members);
    // Who dirtied what each burst wrote: the thread that dirtied, between two bursts, what
    // the second wrote, burst after burst. It outweighs who was charged in the episodes'
    // windows, which on a shared host is whoever wrote most anywhere.
    // On the device holding the written mapping, only its owner's threads (three Galera nodes
    // receive the same write sets: each node's receiver dirties a burst's volume).
    let owner = mapping_owner(i);
    let series: Vec<(u32, Series<'_>)> = i
        .thread_series
        .iter()
        .filter(|(tid, _)| owner.is_none_or(|p| i.threads.get(tid).is_some_and(|t| t.tgid == Some(p))))
        .copied()
        .collect();
    let by_volume = super::actors::writers_by_volume(periodic, &series, i.threads);
    if !by_volume.is_empty() {
        ev.actors.writers = by_volume;
    }
    ev
}

/// Bursts at a period that is not writeback's, too few and of very different sizes: one
/// large write and smaller ones after it, said as the reason; `None` when they could be a timer.
fn one_large_write(sizes: &[f64], dev: &str, period: f64) -> Option<String> {
    let n = sizes.len();
    let (smallest, largest) =
        sizes.iter().fold((f64::INFINITY, 0.0_f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    (n < MIN_BURSTS_MIXED_SIZES && largest > TIMER_SIZE_RATIO * smallest).then(|| {
        format!(
            "{n} write bursts on {dev} every {period:.1} s, not the writeback window, of {} to {}: one large write and smaller ones, not a repeating source",
            mib(smallest),
            mib(largest)
        )
    })
}

/// The process whose smaps holds the written mapping, when the device written holds its file
/// and pidstat lists that process's threads: on that device, only its threads dirtied.
fn mapping_owner(i: &Inputs<'_>) -> Option<u32> {
    i.mapping
        .filter(|_| i.device_holds_mapping)
        .and_then(|m| super::mmap_writers::owner_pid(&m.file))
        .filter(|p| i.threads.values().any(|t| t.category != "writeback" && t.tgid == Some(*p)))
}

/// Who dirtied the device's bytes: the three heaviest pidstat writers (not the flusher)
/// that could have (at most what the device wrote plus Dirty's growth), those that wrote
/// more than that (elsewhere), and Dirty's growth over the capture.
fn dirtiers(i: &Inputs<'_>) -> (Vec<String>, Vec<String>, f64) {
    let col = &i.writes.series;
    // Who dirtied (pidstat threads) vs who issued (kernel flusher when the dirtiers are steady).
    // On the device holding the written mapping, its dirtiers are the mapping owner's threads
    // (three Galera nodes on one host: the other nodes' and tenants' threads dirty elsewhere).
    let owner = mapping_owner(i);
    let mut writers: Vec<(&String, &ThreadTotal, u32)> = i
        .threads
        .iter()
        .filter(|(_, t)| owner.is_none_or(|p| t.tgid == Some(p) || t.category == "writeback"))
        .map(|(tid, t)| (&t.comm, t, *tid))
        .collect();
    writers.sort_by(|a, b| b.1.bytes.total_cmp(&a.1.bytes).then(a.2.cmp(&b.2)));
    // A thread cannot have dirtied, for this device, more than the device wrote plus what
    // was still dirty at the end: one that dirtied more wrote (mostly) elsewhere, another
    // tenant's database on the disk below a loop device for instance.
    let device_bytes: f64 = col.values.iter().flatten().sum();
    let dirty_growth = i.dirty.as_ref().map_or(0.0, |d| {
        let mut v = d.values.iter().flatten();
        match (v.next(), v.next_back()) {
            (Some(a), Some(b)) => (b - a).max(0.0),
            _ => 0.0,
        }
    });
    let could_have = |bytes: f64| bytes <= 1.1 * (device_bytes + dirty_growth);
    let elsewhere: Vec<String> = writers
        .iter()
        .filter(|w| w.1.category != "writeback" && !could_have(w.1.bytes))
        .take(3)
        .map(|w| format!("{} (tid {}, {})", w.0, w.2, mib(w.1.bytes)))
        .collect();
    let dirtiers: Vec<String> = writers
        .iter()
        .filter(|w| w.1.category != "writeback" && could_have(w.1.bytes))
        .take(3)
        .map(|w| format!("{} (tid {}, {})", w.0, w.2, mib(w.1.bytes)))
        .collect();
    (dirtiers, elsewhere, dirty_growth)
}

/// The evidence of periodic bursts: their peaks, and Dirty's low point around the first three.
fn burst_evidence(
    i: &Inputs<'_>,
    periodic: &[crate::analysis::bursts::Burst],
) -> Vec<crate::model::Evidence> {
    let col = &i.writes.series;
    let mut evidence = Vec::new();
    for b in periodic.iter().take(6) {
        evidence.push(col.evidence(b.peak, "wkB/s", b.peak_value / 1024.0));
    }
    if let Some(dirty) = &i.dirty {
        let v = dirty.values;
        for b in periodic.iter().take(3) {
            let lo = b.start.saturating_sub(2);
            let hi = (b.end + 3).min(v.len().saturating_sub(1));
            if let Some((row, val)) = (lo..=hi)
                .filter_map(|r| v.get(r).and_then(Cell::get).map(|x| (r, x)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
            {
                evidence.push(dirty.evidence(row, "Dirty (kB)", val / 1024.0));
            }
        }
    }
    evidence
}

/// The metrics both kinds of verdict have.
fn metrics(v: &Verdict) -> BTreeMap<&'static str, Metric> {
    let ev = &v.issued;
    let mut metrics = BTreeMap::new();
    metrics.insert("period_s", Metric::num(v.period_s, Unit::Seconds));
    metrics.insert("period_confidence", Metric::num(v.period_confidence, Unit::Fraction));
    metrics.insert("bursts", Metric::num(v.bursts as f64, Unit::Count));
    metrics.insert("burst_bytes_median", Metric::num(v.burst_bytes_median, Unit::Bytes));
    metrics.insert("burst_bytes_max", Metric::opt(v.burst_bytes_max, Unit::Bytes));
    metrics.insert("writeback_window_s", Metric::num(v.writeback_window_s, Unit::Seconds));
    metrics.insert("writeback_window_from_capture", Metric::flag(v.writeback_window_from_capture));
    metrics.insert("matches_writeback_window", Metric::flag(v.matches_writeback_window));
    metrics.insert("matches_flusher_interval", Metric::flag(v.matches_flusher_interval));
    metrics.insert("issuer", Metric::text(ev.class.map_or("not measured", |(c, _)| c.words())));
    metrics.insert("issuer_class", Metric::opt_text(ev.class.map(|(c, _)| c.id().to_string())));
    metrics.insert("issuer_share", Metric::opt(ev.class.map(|(_, s)| s), Unit::Fraction));
    metrics.insert("episodes_costly", Metric::num(ev.costly as f64, Unit::Count));
    match &v.source {
        Source::Device(d) => {
            metrics.insert("baseline_bytes_s", Metric::opt(d.baseline_bytes_s, Unit::BytesPerSecond));
            v.device.metrics(&mut metrics);
            metrics.insert("dirtiers", Metric::list(d.dirtiers.clone()));
            if !d.elsewhere.is_empty() {
                metrics.insert("writers_elsewhere", Metric::list(d.elsewhere.clone()));
            }
            if let Some(k) = d.other_bursts {
                metrics.insert("other_bursts", Metric::num(k as f64, Unit::Count));
            }
        }
        Source::Submitter { comm, .. } => {
            metrics.insert("submitter", Metric::text(comm.clone()));
        }
    }
    metrics
}

/// Writes the verdict as the finding.
pub(crate) fn explain(v: &Verdict) -> Finding {
    let (summary, remedies) = match &v.source {
        Source::Submitter { comm, witness } => explain_submitter(v, comm, *witness),
        Source::Device(d) => explain_device(v, d),
    };
    v.basis.finding(ID, summary, metrics(v), remedies)
}

/// The summary and remedies of a task's own period.
fn explain_submitter(
    v: &Verdict,
    comm: &str,
    witness: crate::analysis::submitters::Witness,
) -> (String, Vec<String>) {
    let (ev, period, window) = (&v.issued, v.period_s, v.writeback_window_s);
    let from = match witness {
        crate::analysis::submitters::Witness::Trace => "from its own block_bio_queue series in the trace",
        crate::analysis::submitters::Witness::Pidstat => {
            "from its own pidstat -d series, which the device wrote within a second each time"
        }
    };
    let summary = format!(
        "{comm} submitted its writes to {} in {} bursts every {period:.1} s (confidence {:.2}, {from}), median {} per burst{}. {}. Cost: {}.",
        v.device.name,
        v.bursts,
        v.period_confidence,
        mib(v.burst_bytes_median),
        if v.matches_writeback_window {
            format!(", near the writeback window of {window:.0} s")
        } else if v.matches_flusher_interval {
            format!(", near the flusher's wake-up interval ({:.0} s)", v.writeback_interval_s)
        } else {
            format!(
                ": not the writeback window ({window:.0} s) nor the flusher's interval, a timer of its own"
            )
        },
        ev.issuer_sentence(),
        ev.cost_words()
    );
    let remedies = if ev.is(&[IssuerClass::WritebackAge, IssuerClass::WritebackBackground]) {
        vec!["Lower vm.dirty_expire_centisecs / vm.dirty_writeback_centisecs (or set vm.dirty_background_bytes) for smaller, more frequent flushes.".to_string()]
    } else {
        vec![format!(
            "The bursts are {comm}'s own{}: flush in smaller steps as the data is written (sync_file_range / fdatasync every few MB) or spread its timer; the vm.dirty_* tunables do not change them.",
            if ev.is(&[IssuerClass::ApplicationFlush]) { " flushes" } else { " writes" }
        )]
    };
    (summary, remedies)
}

/// The summary and remedies of the device's bursts.
fn explain_device(v: &Verdict, d: &DeviceBursts) -> (String, Vec<String>) {
    let DeviceBursts {
        other_bursts,
        dirtiers,
        elsewhere,
        dirty_grew,
        flusher,
        mapping,
        buffered,
        journal_commit_s,
        ..
    } = d;
    let (ev, n, period, window) = (&v.issued, v.bursts, v.period_s, v.writeback_window_s);
    let (matches, cadence) = (v.matches_writeback_window, v.matches_flusher_interval);
    let writeback = [IssuerClass::WritebackAge, IssuerClass::WritebackBackground];
    let tunable_text = if v.writeback_window_from_capture {
        "dirty_expire_centisecs + dirty_writeback_centisecs"
    } else {
        "the kernel defaults (30 s + 5 s; sysctl not in the capture)"
    };
    let method = match other_bursts {
        None => String::new(),
        Some(others) => format!(
            " ({n} bursts one period apart{})",
            match others {
                0 => String::new(),
                1 => ", among 1 other burst".into(),
                k => format!(", among {k} other bursts"),
            }
        ),
    };
    let summary = format!(
        "{} writes come in {n} bursts every {period:.1} s{method} (confidence {:.2}), median {} per burst{}; {}{}.",
        v.device.described,
        v.period_confidence,
        mib(v.burst_bytes_median),
        if matches {
            format!(", matching the writeback window of {window:.0} s from {tunable_text}")
        } else if cadence {
            format!(
                ", the flusher's wake-up interval ({:.0} s, dirty_writeback_centisecs): dirty data written back at each wake-up",
                v.writeback_interval_s
            )
        } else {
            format!(", not matching the writeback window of {window:.0} s")
        },
        if dirtiers.is_empty() {
            match mapping {
                Some((file, path)) => format!(
                    "no per-thread write data; the process of {file} maps {path} shared and writable: its stores dirty the file"
                ),
                None => "no per-thread data to name the dirtier".to_string(),
            }
        } else {
            format!("pages dirtied steadily by {}", dirtiers.join(", "))
        },
        if ev.is(&writeback) && *flusher { ", written by the kernel flusher threads" } else { "" },
    ) + &format!(" {}. Cost: {}.", ev.issuer_sentence(), ev.cost_words())
        + &buffered.as_ref().map_or(String::new(), |why| format!(" {why}."))
        + &if elsewhere.is_empty() {
            String::new()
        } else {
            format!(
                " Not counted as dirtiers: {} (each dirtied more than {} wrote in the capture{}: their data is on another device).",
                elsewhere.join(", "),
                v.device.name,
                if *dirty_grew { " plus the growth of dirty memory" } else { "" }
            )
        };
    let remedies = device_remedies(v, *journal_commit_s);
    (summary, remedies)
}

/// The remedies of a device's periodic bursts, by who issued them.
fn device_remedies(v: &Verdict, journal_commit_s: Option<f64>) -> Vec<String> {
    let (ev, period) = (&v.issued, v.period_s);
    let (matches, cadence) = (v.matches_writeback_window, v.matches_flusher_interval);
    let mut remedies = if ev.is(&[IssuerClass::ApplicationFlush]) {
        vec![format!(
            "The bursts are the application's own flushes{} every {period:.0} s: flush in smaller steps as the data is written (sync_file_range / fdatasync every few MB) or spread its timer; the vm.dirty_* tunables do not change them.",
            ev.actors
                .issuers
                .first()
                .and_then(|a| a.comm.as_ref())
                .map(|c| format!(" ({c})"))
                .unwrap_or_default()
        )]
    } else if ev.is(&[IssuerClass::Journal]) {
        let commit = journal_commit_s.map_or(String::new(), |c| format!(" (commit every {c:.0} s)"));
        vec![format!(
            "The bursts are the file system's journal commits{commit}: the vm.dirty_* tunables do not change them. With ext4 data=journal the data itself goes through the journal (written twice); data=ordered, the default, journals only metadata; a longer commit= makes fewer, larger commits."
        )]
    } else if ev.is(&[IssuerClass::DirectIo, IssuerClass::SyncOther]) {
        vec![format!(
            "The bursts are {}: the vm.dirty_* tunables do not change them; look at the issuer's own schedule.",
            ev.class.map_or("", |(c, _)| c.words())
        )]
    } else {
        vec![
            "Lower vm.dirty_expire_centisecs / vm.dirty_writeback_centisecs (or set vm.dirty_background_bytes) for smaller, more frequent flushes.".to_string(),
            "Have the application flush its own dirty data (msync/fdatasync in small steps) instead of leaving it to periodic writeback.".to_string(),
        ]
    };
    if ev.class.is_none() {
        remedies.push("The issuer was not measured: capture with samples/collect.sh -P -T (perf call chains and the writeback/block trace) to tell the flusher from an application's flush.".into());
    }
    if !matches && !cadence && !ev.is(&[IssuerClass::ApplicationFlush, IssuerClass::Journal]) {
        remedies.push("The period does not match the writeback tunables: look for an application timer (checkpoint, flush interval) with this period.".into());
    }
    remedies
}

/// Evaluates the rule: [`decide`], then [`explain`].
pub(crate) fn check(i: &Inputs<'_>) -> Outcome {
    super::outcome(decide(i), explain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Views;
    use crate::analysis::device::MainDevice;
    use crate::analysis::episodes::Episode;
    use crate::rules::testkit::{burst, fired, passed, series, skipped, thread, vals, view};
    use crate::table::Timeline;
    use crate::table::columns::DevMetric;

    const MB: f64 = 1024.0 * 1024.0;

    fn bursts(n: usize) -> Vec<crate::analysis::bursts::Burst> {
        (0..n).map(|k| burst(5 + 35 * k, 80.0 * MB, 200.0 * MB)).collect()
    }

    fn run(v: &PeriodicityView, window: WritebackWindow, threads: &BTreeMap<u32, ThreadTotal>) -> Outcome {
        run_with(v, window, threads, &[])
    }

    /// One episode per burst of `bursts(n)`, measured as `class` and issued by `comm`.
    fn measured(n: usize, class: IssuerClass, comm: &str, costly: bool) -> Vec<Episode> {
        bursts(n).iter().map(|b| crate::rules::testkit::episode(b, class, comm, costly)).collect()
    }

    fn run_with(
        v: &PeriodicityView,
        window: WritebackWindow,
        threads: &BTreeMap<u32, ThreadTotal>,
        episodes: &[Episode],
    ) -> Outcome {
        // 5 MB/s for 200 s: the device wrote 1 GB.
        let w = vals(&[5e6; 200]);
        let d = vals(&[5.0 * MB; 200]);
        check(&Inputs {
            writes: DeviceWrites { device: "vda", series: series("dev.vda.w_bytes_s", &w), stack: None },
            periodicity: v,
            window,
            threads,
            dirty: Some(series("mem.dirty_bytes", &d)),
            buffered: None,
            mapping: None,
            device_holds_mapping: false,
            episodes,
            submitters: &[],
            trace_file: None,
            thread_series: vec![],
        })
    }

    #[test]
    fn the_issuer_and_the_remedy_follow_the_measured_episodes_not_the_period() {
        let none = BTreeMap::new();
        // 12 s bursts of an application's fsync: the application's remedy, no vm.dirty_*,
        // information when the episodes cost nothing.
        let app = measured(3, IssuerClass::ApplicationFlush, "ckpt_fsync", false);
        let f =
            fired(run_with(&view(bursts(3), Some(35.0), Some(0.9)), WritebackWindow::default(), &none, &app));
        assert_eq!(f.metrics["issuer_class"].value, "application_flush");
        assert_eq!(f.severity, Severity::Info);
        assert!(f.remedies[0].contains("application's own flushes (ckpt_fsync)"), "{:?}", f.remedies);
        assert!(!f.remedies.iter().any(|r| r.contains("vm.dirty_expire")), "{:?}", f.remedies);
        assert_eq!(f.actors.issuers[0].comm.as_deref(), Some("ckpt_fsync"));
        assert_eq!(f.actors.writers[0].comm.as_deref(), Some("ckpt_fsync"));
        // Writeback measured and costly: the tunables' remedy, a warning.
        let wb = measured(3, IssuerClass::WritebackAge, "kworker/u8:1", true);
        let f =
            fired(run_with(&view(bursts(3), Some(35.0), Some(0.9)), WritebackWindow::default(), &none, &wb));
        assert_eq!(f.severity, Severity::Warning);
        assert!(f.remedies[0].contains("vm.dirty_expire"), "{:?}", f.remedies);
        assert!(f.summary.contains("Cost: write await 80 ms."), "{}", f.summary);
        // Journal commits (jbd2 measured) at a period that is not writeback's: the journal's
        // remedy, no vm.dirty_*, no "application timer".
        let jbd = measured(3, IssuerClass::Journal, "jbd2/loop0-8", false);
        let mut v = view(bursts(3), Some(10.0), Some(0.9));
        v.journal_commit_s = Some((10.0, true));
        let f = fired(run_with(&v, WritebackWindow::default(), &none, &jbd));
        assert_eq!(f.metrics["issuer_class"].value, "journal");
        assert!(f.remedies[0].contains("journal commits (commit every 10 s)"), "{:?}", f.remedies);
        assert!(!f.remedies.iter().any(|r| r.contains("vm.dirty_expire") || r.contains("application timer")));
    }

    #[test]
    fn fires_from_three_bursts_and_confidence_one_half() {
        let none = BTreeMap::new();
        let f = fired(run(&view(bursts(3), Some(35.0), Some(0.5)), WritebackWindow::default(), &none));
        assert_eq!(f.rule, ID);
        assert_eq!(f.metrics["bursts"].value, 3.0);
        assert_eq!(f.metrics["matches_writeback_window"].value, true);
        assert_eq!(f.confidence, 0.45, "defaults, not the capture's tunables: x 0.9");
        // Burst peaks then the lowest dirty memory around each of the first three.
        assert_eq!(f.evidence.len(), 6);
        assert_eq!((f.evidence[0].file.as_str(), f.evidence[0].metric.as_str()), ("test.txt", "wkB/s"));
        assert_eq!(f.evidence[0].value, 81920.0);
        let w = f.window.unwrap();
        // Rows 5 and 75 after T0.
        assert_eq!((w.start.as_str(), w.end.as_str()), ("2023-11-14T22:13:25Z", "2023-11-14T22:14:35Z"));
    }

    #[test]
    fn passes_below_three_bursts_or_confidence_one_half() {
        let none = BTreeMap::new();
        let r = passed(run(&view(bursts(2), Some(35.0), Some(0.9)), WritebackWindow::default(), &none));
        assert_eq!(r, "2 write bursts on vda; period 35.0 s with confidence 0.90: not periodic enough");
        let r = passed(run(&view(bursts(5), Some(35.0), Some(0.4999)), WritebackWindow::default(), &none));
        assert!(r.ends_with("confidence 0.50: not periodic enough"), "{r}");
        let r = passed(run(&view(bursts(5), None, None), WritebackWindow::default(), &none));
        assert_eq!(r, "5 write bursts on vda: no repeating period");
    }

    /// Issue 38: on the device holding the written mapping, only the mapping owner's threads
    /// dirtied it (three Galera nodes and a build on one host: pidstat lists them all).
    #[test]
    fn dirtiers_of_the_device_holding_the_mapping_are_its_owners_threads() {
        let w = vals(&[5e6; 200]);
        let v = view(bursts(4), Some(35.0), Some(0.9));
        let t =
            |comm: &str, mb: f64, pid: u32| ThreadTotal { tgid: Some(pid), ..thread(comm, "other", mb * MB) };
        let threads: BTreeMap<u32, ThreadTotal> =
            [(11, t("rustc", 180.0, 10)), (21, t("mariadbd", 72.0, 20)), (31, t("mariadbd", 70.0, 30))]
                .into_iter()
                .collect();
        let mapping = crate::pipeline::Sourced {
            value: iosift_parsers::smaps::Mapping {
                path: "/g/node2/gcache/galera.cache".into(),
                ..Default::default()
            },
            file: "smaps-20-mariadbd.txt.gz".into(),
            line: 1,
        };
        let go = |holds: bool| {
            let i = Inputs {
                writes: DeviceWrites {
                    device: "loop1",
                    series: series("dev.loop1.w_bytes_s", &w),
                    stack: None,
                },
                periodicity: &v,
                window: WritebackWindow::default(),
                threads: &threads,
                dirty: None,
                buffered: None,
                mapping: Some(&mapping),
                device_holds_mapping: holds,
                episodes: &[],
                submitters: &[],
                trace_file: None,
                thread_series: vec![],
            };
            dirtiers(&i).0
        };
        assert_eq!(go(true), ["mariadbd (tid 21, 72.0 MiB)"]);
        assert_eq!(go(false).len(), 3);
    }

    /// Two bursts one writeback window apart, in a capture too short for a third.
    #[test]
    fn two_bursts_at_the_window_in_a_short_capture() {
        let none = BTreeMap::new();
        let w = vals(&[1.0; 200]);
        let d = vals(&[5.0 * MB; 200]);
        let go = |len: usize, period: f64| {
            let v = view(
                vec![burst(120, 80.0 * MB, 200.0 * MB), burst(155, 80.0 * MB, 200.0 * MB)],
                Some(period),
                Some(0.4),
            );
            check(&Inputs {
                writes: DeviceWrites {
                    device: "vda",
                    series: series("dev.vda.w_bytes_s", &w[..len]),
                    stack: None,
                },
                periodicity: &v,
                window: WritebackWindow::default(),
                threads: &none,
                dirty: Some(series("mem.dirty_bytes", &d[..len])),
                buffered: None,
                mapping: None,
                device_holds_mapping: false,
                episodes: &[],
                submitters: &[],
                trace_file: None,
                thread_series: vec![],
            })
        };
        // 120 + 2 x 35 + 5 = 195 rows would have shown a third burst.
        assert_eq!(fired(go(194, 35.0)).confidence, 0.45);
        passed(go(195, 35.0));
        // A period off the window is no writeback.
        passed(go(194, 20.0));
    }

    #[test]
    fn the_window_matches_within_its_edges() {
        let none = BTreeMap::new();
        let w = WritebackWindow::from_centisecs(Some(3000.0), Some(500.0));
        let at = |p: f64| fired(run(&view(bursts(4), Some(p), Some(0.9)), w, &none));
        // 35 s window: 35 +- 9 s.
        for (p, m) in [(44.0, true), (44.1, false), (26.0, true), (25.9, false)] {
            let f = at(p);
            assert_eq!(f.metrics["matches_writeback_window"].value, m, "period {p}");
            // The period matching the tunables does not name the issuer: no episode measured it.
            assert_eq!(f.metrics["issuer"].value, "not measured");
            assert_eq!(f.remedies.len(), if m { 3 } else { 4 });
        }
        assert_eq!(at(35.0).confidence, 0.9, "tunables from the capture");
    }

    #[test]
    fn names_the_dirtiers_and_the_flusher() {
        let threads: BTreeMap<u32, ThreadTotal> =
            [(42, thread("writer", "app", 300e6)), (7, thread("kworker/u8:1", "writeback", 900e6))]
                .into_iter()
                .collect();
        let f = fired(run(&view(bursts(3), Some(35.0), Some(0.9)), WritebackWindow::default(), &threads));
        assert!(f.summary.contains("pages dirtied steadily by writer (tid 42, 286.1 MiB)"), "{}", f.summary);
        // Unmeasured, the flusher is not claimed; measured, it is.
        assert!(!f.summary.contains("written by the kernel flusher"), "{}", f.summary);
        let wb = measured(3, IssuerClass::WritebackAge, "kworker/u8:1", false);
        let f = fired(run_with(
            &view(bursts(3), Some(35.0), Some(0.9)),
            WritebackWindow::default(),
            &threads,
            &wb,
        ));
        assert!(
            f.summary.contains(", written by the kernel flusher threads. Issued by periodic writeback"),
            "{}",
            f.summary
        );
    }

    /// A thread that dirtied more than the device wrote (plus the growth of dirty memory)
    /// wrote elsewhere: another tenant's database on the disk below the loop device of the
    /// held-out XFS capture (920 MB against loop0's 625 MB).
    #[test]
    fn a_writer_of_more_than_the_device_wrote_is_not_its_dirtier() {
        let threads: BTreeMap<u32, ThreadTotal> =
            [(42, thread("writer", "app", 300e6)), (9, thread("mariadbd", "app", 2e9))].into_iter().collect();
        let f = fired(run(&view(bursts(3), Some(35.0), Some(0.9)), WritebackWindow::default(), &threads));
        assert_eq!(f.metrics["dirtiers"].value, serde_json::json!(["writer (tid 42, 286.1 MiB)"]));
        assert_eq!(f.metrics["writers_elsewhere"].value, serde_json::json!(["mariadbd (tid 9, 1907.3 MiB)"]));
        assert!(f.summary.contains("Not counted as dirtiers: mariadbd (tid 9, 1907.3 MiB)"), "{}", f.summary);
    }

    /// The held-out XFS copy with dirty_bytes=128 MiB: dd's 3 GB run and the writeback of
    /// its last dirty pages 17 and 32 s later (21 and 42 MB) are three bursts 16 s apart:
    /// no timer. The same three bursts of one size are one.
    #[test]
    fn a_large_write_and_its_small_tail_are_no_timer() {
        let none = BTreeMap::new();
        let w = WritebackWindow::from_centisecs(Some(3000.0), Some(500.0));
        let tail = vec![
            burst(4, 290.0 * MB, 2900.0 * MB),
            burst(21, 21.0 * MB, 21.0 * MB),
            burst(36, 42.0 * MB, 42.0 * MB),
        ];
        let r = passed(run(&view(tail, Some(16.0), Some(0.76)), w, &none));
        assert!(r.contains("of 21.0 MiB to 2900.0 MiB: one large write and smaller ones"), "{r}");
        let even = vec![
            burst(4, 40.0 * MB, 40.0 * MB),
            burst(21, 21.0 * MB, 21.0 * MB),
            burst(36, 42.0 * MB, 42.0 * MB),
        ];
        let f = fired(run(&view(even, Some(16.0), Some(0.76)), w, &none));
        assert_eq!(f.metrics["matches_writeback_window"].value, false);
    }

    #[test]
    fn skips_without_device_writes() {
        let (tl, mut views) = (Timeline::default(), Views::default());
        assert_eq!(
            skipped(ID, &Available::bare(&tl, &views)),
            ["device write throughput (iostat -x or /proc/diskstats series)"]
        );
        // A device whose column is not in the timeline is no input either.
        views.device = Some(MainDevice::plain("vda", Col::Dev("vda".into(), DevMetric::WBytesS)));
        views.periodicity = Some(view(bursts(3), Some(35.0), Some(0.9)));
        assert_eq!(gather(&Available::bare(&tl, &views)).err(), Some(vec![Missing::DeviceWrites]));
    }
}
