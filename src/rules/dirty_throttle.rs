//! `buffered_writer_dirty_throttle`: a buffered writer held at the dirty
//! limit (`vm.dirty_bytes` / `vm.dirty_ratio`): the kernel pauses it in
//! `balance_dirty_pages` whenever Dirty + Writeback is above the freerun
//! ceiling, so it writes at the device's pace, whatever it reports.
//!
//! Evidence, strongest first: Dirty + Writeback at or above the freerun
//! ceiling (halfway between the background threshold and the limit, from
//! `nr_dirty_threshold` or the sysctls) for most of the writer's seconds
//! (the gate); the writer's rate equal to the device's; `balance_dirty_pages`
//! in the writer's on-CPU perf samples (rarely seen: a paused task is off CPU).

use crate::table::Cell;
use crate::table::cell::at;

use super::buffered_burst::{self, Writer, Written};
use super::evidence::{ctx_evidence, mib};
use super::inputs::{Available, DeviceWrites, Missing, Series};
use super::{Decision, Outcome};
use crate::analysis::buffered::{self, Limits};
use crate::analysis::views::StackShare;
use crate::analysis::writeback::WritebackWindow;
use crate::model::{Finding, Severity};
use crate::pipeline::Sourced;
use crate::table::columns::{Col, MemMetric, VmCounter};
use crate::verdict::{Device, Metric, Unit};
use std::collections::BTreeMap;

/// Rule id.
pub(crate) const ID: &str = "buffered_writer_dirty_throttle";

/// The rule's declaration to the report: title and key charts.
pub(crate) const SPEC: crate::verdict::RuleSpec = crate::verdict::RuleSpec {
    id: ID,
    title: "Buffered writer held at the dirty limit",
    key_charts: &["dirty-writeback", "write-sources"],
    headline: Some(("writer_bytes_s", "writer at")),
    measure: Some("writes.top_thread"),
    decisive: &[],
};

/// Dirty + Writeback must be at or above the freerun ceiling in at least this share of the
/// writer's seconds: most of them (the kernel pauses a dirtier only there).
pub(crate) const MIN_ABOVE_SHARE: f64 = 0.5;
/// A median Dirty + Writeback of at least this share of the freerun ceiling, with the
/// writer at the device's rate, is a pool held at the ceiling even when fewer than
/// [`MIN_ABOVE_SHARE`] of the 1 s samples are above it.
pub(crate) const HOVER_SHARE: f64 = 0.9;
/// ... and at least this share of the samples above the ceiling (the kernel pauses a
/// dirtier only there: a pool that never reaches it holds nobody).
pub(crate) const MIN_HOVER_ABOVE_SHARE: f64 = 0.25;
/// Writer and device rates within this factor of each other are "equal".
pub(crate) const EQUAL_RATES: f64 = 1.25;
/// `balance_dirty_pages` in at least this share of the writer's on-CPU samples is seen.
pub(crate) const PERF_SEEN_SHARE: f64 = 0.05;

/// Where the dirty thresholds came from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum LimitSource<'a> {
    /// The kernel's own `nr_dirty_threshold` (`mem.dirty_limit_bytes`).
    Kernel(Series<'a>),
    /// `vm.dirty_bytes` (or `vm.dirty_ratio` of the dirtyable memory).
    Sysctl(&'a Sourced<String>),
}

/// What the rule reads.
#[derive(Debug, Clone)]
pub(crate) struct Inputs<'a> {
    /// The writer.
    pub writer: Writer<'a>,
    /// Pages dirtied per second.
    pub dirtied: Option<Series<'a>>,
    /// `Dirty`.
    pub dirty: Series<'a>,
    /// `Writeback`.
    pub writeback: Option<Series<'a>>,
    /// The thresholds per row.
    pub limits: Vec<Option<Limits>>,
    /// Where they came from.
    pub limits_from: LimitSource<'a>,
    /// Every device's writes.
    pub devices: Vec<DeviceWrites<'a>>,
    /// The writer's on-CPU perf samples, when profiled.
    pub perf: Option<StackShare>,
    /// The writeback tunables (the flusher's interval is the shortest hold worth naming).
    pub window: WritebackWindow,
}

/// Each row's value, or the nearest earlier one (the first one before it).
fn filled(v: &[Cell]) -> Vec<Cell> {
    let first = v.iter().find(|x| x.is_some()).copied().unwrap_or(Cell::GAP);
    let mut last = first;
    v.iter()
        .map(|x| {
            if x.is_some() {
                last = *x;
            }
            last
        })
        .collect()
}

/// The thresholds per row: the kernel's (`nr_dirty_threshold`), else the sysctls.
fn limits<'a>(a: &Available<'a>, len: usize) -> Option<(Vec<Option<Limits>>, LimitSource<'a>)> {
    if let (Some(l), Some(b)) = (
        a.series(&Col::Mem(MemMetric::DirtyLimitBytes)),
        a.series(&Col::Mem(MemMetric::DirtyBackgroundLimitBytes)),
    ) {
        let (lf, bf) = (filled(l.values), filled(b.values));
        let rows = (0..len)
            .map(|r| match (lf.get(r).and_then(Cell::get), bf.get(r).and_then(Cell::get)) {
                (Some(limit), Some(background)) => Some(Limits { limit, background }),
                _ => None,
            })
            .collect();
        return Some((rows, LimitSource::Kernel(l)));
    }
    let f = |k: &str| a.sysctl(k).and_then(|s| s.value.trim().parse::<f64>().ok());
    let cited = a.sysctl("vm.dirty_bytes").filter(|s| s.value.trim() != "0").or(a.sysctl("vm.dirty_ratio"))?;
    let dirtyable = a.series(&Col::Mem(MemMetric::DirtyableBytes)).map(|s| filled(s.values));
    let rows: Vec<Option<Limits>> = (0..len)
        .map(|r| {
            let d = dirtyable.as_ref().and_then(|v| v.get(r).and_then(Cell::get));
            buffered::limits_from_sysctl(
                f("vm.dirty_bytes"),
                f("vm.dirty_ratio"),
                f("vm.dirty_background_bytes"),
                f("vm.dirty_background_ratio"),
                d,
            )
        })
        .collect();
    rows.iter().any(Option::is_some).then_some((rows, LimitSource::Sysctl(cited)))
}

/// Picks the inputs.
pub(crate) fn gather<'a>(a: &Available<'a>) -> Result<Inputs<'a>, Vec<Missing>> {
    let dirtied = a.series(&Col::Vm(VmCounter::NrDirtiedS));
    let w = buffered_burst::writer(a, dirtied.as_ref(), false);
    let dirty = a.series(&Col::Mem(MemMetric::DirtyBytes));
    let devices = a.all_device_writes();
    let lim = dirty.as_ref().and_then(|d| limits(a, d.values.len()));
    let mut missing = Vec::new();
    if w.is_none() {
        missing.push(Missing::WriterThreads);
    }
    if dirty.is_none() {
        missing.push(Missing::DirtyMemory);
    }
    if dirty.is_some() && lim.is_none() {
        missing.push(Missing::DirtyLimits);
    }
    if devices.is_empty() {
        missing.push(Missing::DeviceWrites);
    }
    let (Some(writer), Some(dirty), Some((limits, limits_from))) = (w, dirty, lim) else {
        return Err(missing);
    };
    if !missing.is_empty() {
        return Err(missing);
    }
    Ok(Inputs {
        perf: a.dirty_throttle_samples(writer.comm),
        writer,
        dirtied,
        dirty,
        writeback: a.series(&Col::Mem(MemMetric::WritebackBytes)),
        limits,
        limits_from,
        devices,
        window: a.window(),
    })
}

/// What the rule concluded: the writer held at the freerun ceiling, the pool against the
/// limits, the writer's and the device's pace and what perf saw.
#[derive(Debug, Clone)]
pub(crate) struct Verdict {
    /// The writer and its write.
    pub writer: Written,
    /// The device that wrote half its volume meanwhile.
    pub device: Option<Device>,
    /// That device's rate, bytes/s.
    pub device_bytes_s: Option<f64>,
    /// Writer's rate over the device's.
    pub writer_to_device_rate: Option<f64>,
    /// Writer and device at the same pace (within [`EQUAL_RATES`]).
    pub equal_rates: bool,
    /// The dirty limit at the pool's peak, bytes.
    pub dirty_limit_bytes: f64,
    /// The background threshold then, bytes.
    pub dirty_background_bytes: f64,
    /// The freerun ceiling then, bytes.
    pub freerun_ceiling_bytes: f64,
    /// The largest Dirty + Writeback while the writer ran, bytes.
    pub peak_pool_bytes: f64,
    /// Median Dirty + Writeback, bytes.
    pub dirty_writeback_median_bytes: f64,
    /// Seconds at or above the ceiling.
    pub seconds_above: usize,
    /// Seconds with Dirty and known limits.
    pub seconds_judged: usize,
    /// Their share, 0..1.
    pub seconds_above_ceiling_share: f64,
    /// Fired on a median at the ceiling with fewer than [`MIN_ABOVE_SHARE`] of the seconds above.
    pub hovering: bool,
    /// Where the limits came from: the kernel's `nr_dirty_threshold` (true) or the sysctls.
    pub limits_from_kernel: bool,
    /// The sysctl value cited, when the limits came from the sysctls.
    pub limits_sysctl: Option<String>,
    /// `balance_dirty_pages` in the writer's on-CPU perf samples, 0..1.
    pub balance_dirty_pages_share: Option<f64>,
    /// At least [`PERF_SEEN_SHARE`] of them.
    pub perf_seen: bool,
    /// Severity, confidence, window, evidence, actors.
    pub basis: super::Basis,
}

/// Decides: fires when Dirty + Writeback is at (or hovers at) the freerun ceiling for
/// most of the writer's seconds.
pub(crate) fn decide(i: &Inputs<'_>) -> Decision<Verdict> {
    let w = &i.writer;
    let rates = buffered::capped(w.series.values, i.dirtied.as_ref().map(|d| d.values));
    let volume: f64 = rates.iter().sum();
    let who = format!("{} (tid {})", w.comm, w.tid);
    let Some(run) = buffered::run(&rates) else { return Decision::Pass(format!("{who} wrote nothing")) };
    let seconds = run.1 - run.0 + 1;
    if (seconds as f64) < i.window.interval_s {
        return Decision::Pass(format!(
            "{who} wrote for {seconds} s only, less than one flusher interval ({:.0} s): no sustained hold to judge",
            i.window.interval_s
        ));
    }
    let (pools, above, best) = pools(i, run);
    let Some((peak_row, peak_pool, lim)) = best else {
        return Decision::Pass(format!("no Dirty value with known limits while {who} ran"));
    };
    let share = above as f64 / pools.len() as f64;
    let median = crate::analysis::stats::median(&pools).unwrap_or(0.0);
    let writer_rate = volume / seconds as f64;
    let cols: Vec<&[Cell]> = i.devices.iter().map(|d| d.series.values).collect();
    let dev = buffered::carrier(&cols, run.0, run.1, 0.5 * volume, run).map(|k| &i.devices[k]);
    let device_rate = dev.map(|d| buffered::bytes(d.series.values, run.0, run.1) / seconds as f64);
    let ratio = device_rate.filter(|d| *d > 0.0).map(|d| writer_rate / d);
    let equal = ratio.is_some_and(|x| (1.0 / EQUAL_RATES..=EQUAL_RATES).contains(&x));
    // Sampled once a second, a pool the kernel holds at the ceiling is above it in about
    // half the samples and below in the others: a median at the ceiling, with the writer
    // going at the device's pace, is the same hold.
    let hovering = share >= MIN_HOVER_ABOVE_SHARE && median >= HOVER_SHARE * lim.freerun() && equal;
    if share < MIN_ABOVE_SHARE && !hovering {
        return Decision::Pass(format!(
            "{who} wrote {} in {seconds} s; Dirty + Writeback (median {}) was at or above the freerun ceiling in {above} of its {} seconds ({}): not held by the dirty limit",
            mib(volume),
            mib(median),
            pools.len(),
            limit_text(lim.limit, lim.background, lim.freerun())
        ));
    }
    let perf_share =
        i.perf.filter(|p| p.samples > 0).map(|p| p.balance_dirty_pages as f64 / p.samples as f64);
    let perf_seen = perf_share.is_some_and(|s| s >= PERF_SEEN_SHARE);
    let evidence = evidence(i, peak_row, lim, run, dev);
    let confidence = 0.6 + if equal { 0.15 } else { 0.0 } + if perf_seen { 0.15 } else { 0.0 };
    Decision::Fire(Verdict {
        writer: Written {
            comm: w.comm.to_string(),
            tid: w.tid,
            bytes: volume,
            seconds: seconds as f64,
            bytes_s: writer_rate,
        },
        device: dev.map(DeviceWrites::named),
        device_bytes_s: device_rate,
        writer_to_device_rate: ratio,
        equal_rates: equal,
        dirty_limit_bytes: lim.limit,
        dirty_background_bytes: lim.background,
        freerun_ceiling_bytes: lim.freerun(),
        peak_pool_bytes: peak_pool,
        dirty_writeback_median_bytes: median,
        seconds_above: above,
        seconds_judged: pools.len(),
        seconds_above_ceiling_share: share,
        hovering: share < MIN_ABOVE_SHARE,
        limits_from_kernel: matches!(i.limits_from, LimitSource::Kernel(_)),
        limits_sysctl: match i.limits_from {
            LimitSource::Kernel(_) => None,
            LimitSource::Sysctl(s) => Some(s.value.trim().to_string()),
        },
        balance_dirty_pages_share: perf_share,
        perf_seen,
        basis: super::Basis {
            severity: Severity::Warning,
            confidence,
            window: Some((w.series.epoch(run.0), w.series.epoch(run.1))),
            evidence,
            // The writer is its own issuer: held at the ceiling, it writes at the device's pace
            // (the gate and the rates above are the witnesses).
            actors: crate::verdict::Actors {
                writers: vec![w.actor()],
                issuers: vec![
                    crate::verdict::Actor::measured(
                        crate::verdict::Role::Issuer(crate::verdict::IssuerClass::WriterThrottled),
                        w.comm,
                        Some(w.tid),
                        None,
                        "meminfo",
                    )
                    .with_note(
                        "Dirty + Writeback held at the freerun ceiling while it wrote at the device's pace",
                    ),
                ],
                bound: vec![],
            },
        },
    })
}

/// Dirty + Writeback each second of the writer's run that has a known limit, how many of
/// those seconds were at or above the freerun ceiling, and the fullest second (row, pool, limits).
fn pools(i: &Inputs<'_>, run: (usize, usize)) -> (Vec<f64>, usize, Option<(usize, f64, Limits)>) {
    // Dirty + Writeback against the freerun ceiling, each second the writer ran.
    let mut pools = Vec::new();
    let mut above = 0usize;
    let mut best: Option<(usize, f64, Limits)> = None;
    for r in run.0..=run.1 {
        let (Some(d), Some(l)) = (at(i.dirty.values, r), i.limits.get(r).copied().flatten()) else {
            continue;
        };
        let pool = d + i.writeback.as_ref().and_then(|s| at(s.values, r)).unwrap_or(0.0);
        pools.push(pool);
        if pool >= l.freerun() {
            above += 1;
        }
        if best.is_none_or(|b| pool > b.1) {
            best = Some((r, pool, l));
        }
    }
    (pools, above, best)
}

/// The finding's evidence: Dirty at its peak, the limit, the writer's busiest second, the device.
fn evidence(
    i: &Inputs<'_>,
    peak_row: usize,
    lim: Limits,
    run: (usize, usize),
    dev: Option<&DeviceWrites<'_>>,
) -> Vec<crate::model::Evidence> {
    let w = &i.writer;
    let mut evidence =
        vec![i.dirty.evidence(peak_row, "Dirty (kB)", at(i.dirty.values, peak_row).unwrap_or(0.0) / 1024.0)];
    match i.limits_from {
        LimitSource::Kernel(s) => {
            evidence.push(s.evidence(peak_row, "nr_dirty_threshold (kB)", lim.limit / 1024.0))
        }
        LimitSource::Sysctl(s) => evidence.push(ctx_evidence(s, "dirty limit sysctl")),
    }
    if let Some((r, x)) = (run.0..=run.1)
        .filter_map(|r| at(w.series.values, r).map(|x| (r, x)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
    {
        evidence.push(w.series.evidence(r, "kB_wr/s", x / 1024.0));
    }
    if let Some(d) = dev {
        let r = (run.0 + run.1) / 2;
        evidence.push(d.series.evidence(r, "wkB/s", at(d.series.values, r).unwrap_or(0.0) / 1024.0));
    }
    evidence
}

/// `limit 128.0 MB, background 64.0 MB, freerun ceiling 96.0 MB`.
fn limit_text(limit: f64, background: f64, freerun: f64) -> String {
    format!("limit {}, background {}, freerun ceiling {}", mib(limit), mib(background), mib(freerun))
}

/// Writes the verdict as the finding.
pub(crate) fn explain(v: &Verdict) -> Finding {
    let limit_text = limit_text(v.dirty_limit_bytes, v.dirty_background_bytes, v.freerun_ceiling_bytes);
    let device_name = v.device.as_ref().map(|d| d.name.as_str());
    let pieces = [
        format!(
            "Dirty + Writeback at or above the freerun ceiling in {} of {} seconds (median {}{}, {limit_text}{}): strong, the kernel pauses dirtiers there",
            v.seconds_above,
            v.seconds_judged,
            mib(v.dirty_writeback_median_bytes),
            if v.hovering { ", hovering at the ceiling" } else { "" },
            if v.limits_from_kernel { " from nr_dirty_threshold" } else { " from the sysctls" }
        ),
        match (v.writer_to_device_rate, device_name) {
            (Some(x), Some(d)) if v.equal_rates => format!(
                "the writer's {}/s equals {d}'s {}/s (ratio {x:.2}): supporting, a held writer goes at the device's pace",
                mib(v.writer.bytes_s),
                mib(v.device_bytes_s.unwrap_or(0.0))
            ),
            (Some(x), Some(d)) => format!(
                "the writer's {}/s against {d}'s {}/s (ratio {x:.2}): not equal, weakens it (other writers share the device or the pool)",
                mib(v.writer.bytes_s),
                mib(v.device_bytes_s.unwrap_or(0.0))
            ),
            _ => "no device wrote half the writer's volume while it ran: the device's pace is unknown".into(),
        },
        match v.balance_dirty_pages_share {
            Some(s) if v.perf_seen => format!(
                "balance_dirty_pages in {:.1} % of the writer's on-CPU perf samples: supporting",
                s * 100.0
            ),
            Some(s) => format!(
                "balance_dirty_pages in {:.1} % of the writer's on-CPU perf samples: weak either way (a paused writer sleeps, off CPU)",
                s * 100.0
            ),
            None => "no on-CPU perf profile of the writer".into(),
        },
    ];
    let mut metrics = BTreeMap::new();
    v.writer.metrics(&mut metrics);
    match &v.device {
        Some(d) => d.metrics(&mut metrics),
        None => {
            metrics.insert("device", Metric::opt_text(None));
        }
    }
    metrics.insert("device_bytes_s", Metric::opt(v.device_bytes_s, Unit::BytesPerSecond));
    metrics.insert("writer_to_device_rate", Metric::opt(v.writer_to_device_rate, Unit::Ratio));
    metrics.insert("dirty_limit_bytes", Metric::num(v.dirty_limit_bytes, Unit::Bytes));
    metrics.insert("dirty_background_bytes", Metric::num(v.dirty_background_bytes, Unit::Bytes));
    metrics.insert("freerun_ceiling_bytes", Metric::num(v.freerun_ceiling_bytes, Unit::Bytes));
    metrics.insert("dirty_writeback_median_bytes", Metric::num(v.dirty_writeback_median_bytes, Unit::Bytes));
    metrics.insert("seconds_above_ceiling_share", Metric::num(v.seconds_above_ceiling_share, Unit::Fraction));
    metrics.insert("balance_dirty_pages_share", Metric::opt(v.balance_dirty_pages_share, Unit::Fraction));
    metrics.insert(
        "limits_from",
        Metric::text(match &v.limits_sysctl {
            None => "nr_dirty_threshold".into(),
            Some(s) => format!("sysctl ({s})"),
        }),
    );
    metrics.insert("evidence_strength", Metric::list(pieces.to_vec()));
    let summary = format!(
        "{} (tid {}) is held at the dirty limit: {} in {:.0} s at {}/s{}, with Dirty + Writeback up to {} against the {limit_text}. Evidence: {}.",
        v.writer.comm,
        v.writer.tid,
        mib(v.writer.bytes),
        v.writer.seconds,
        mib(v.writer.bytes_s),
        v.device.as_ref().map_or(String::new(), |d| format!(", the pace of {}", d.described)),
        mib(v.peak_pool_bytes),
        pieces.join("; ")
    );
    let remedies = vec![
        "The copy is bound by the device: a faster device (or fewer other writers on it) speeds it up; larger dirty limits only delay the same writes.".into(),
        "If the writer must not stall other dirtiers, write it with O_DIRECT or sync it in steps, so it does not fill the shared dirty pool.".into(),
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
    const LIM: Limits = Limits { limit: 128.0 * MB, background: 64.0 * MB };

    /// 40 s: a writer at 90 MB/s in rows 5..=34, the device at `dev_mb`, Dirty at `pool_mb`
    /// in the first `held` of those seconds and 50 MB in the others.
    fn run(pool_mb: f64, held: usize, dev_mb: f64, perf: Option<StackShare>) -> Outcome {
        run_low(pool_mb, held, 50.0, dev_mb, perf)
    }

    /// [`run`] with Dirty at `low_mb` in the seconds not held.
    fn run_low(pool_mb: f64, held: usize, low_mb: f64, dev_mb: f64, perf: Option<StackShare>) -> Outcome {
        let mut w = vec![0.0; 40];
        let mut d = vec![10.0 * MB; 40];
        let mut v = vec![1.0 * MB; 40];
        for r in 5..=34 {
            w[r] = 90.0 * MB;
            v[r] = dev_mb * MB;
            d[r] = if r < 5 + held { pool_mb * MB } else { low_mb * MB };
        }
        let (w, d, v) = (vals(&w), vals(&d), vals(&v));
        let l = vals(&[LIM.limit; 40]);
        check(&Inputs {
            writer: Writer { tid: 7, comm: "dd", category: "other", series: series("thr.7.w_bytes_s", &w) },
            dirtied: None,
            dirty: series("mem.dirty_bytes", &d),
            writeback: None,
            limits: vec![Some(LIM); 40],
            limits_from: LimitSource::Kernel(series("mem.dirty_limit_bytes", &l)),
            devices: vec![DeviceWrites {
                device: "loop0",
                series: series("dev.loop0.w_bytes_s", &v),
                stack: None,
            }],
            perf,
            window: WritebackWindow::default(),
        })
    }

    #[test]
    fn fires_when_most_seconds_are_at_the_ceiling_and_says_how_strong_each_piece_is() {
        // 15 of 30 seconds at 96 MB = the freerun ceiling of 128 / 64 MB.
        let f = fired(run(96.0, 15, 90.0, Some(StackShare { samples: 100, balance_dirty_pages: 5 })));
        assert_eq!(f.rule, ID);
        assert_eq!(f.metrics["seconds_above_ceiling_share"].value, 0.5);
        assert_eq!(f.metrics["device"].value, "loop0");
        assert_eq!(f.metrics["writer_to_device_rate"].value, 1.0);
        assert_eq!(f.confidence, 0.9);
        assert!(f.summary.contains("strong, the kernel pauses dirtiers there"), "{}", f.summary);
        assert!(f.summary.contains("(ratio 1.00): supporting"), "{}", f.summary);
        assert!(
            f.summary
                .contains("balance_dirty_pages in 5.0 % of the writer's on-CPU perf samples: supporting"),
            "{}",
            f.summary
        );
    }

    #[test]
    fn passes_below_the_ceiling_or_in_fewer_than_half_the_seconds() {
        let r = passed(run(95.9, 30, 90.0, None));
        assert!(r.contains("in 0 of its 30 seconds") && r.contains("not held by the dirty limit"), "{r}");
        passed(run(120.0, 14, 90.0, None));
    }

    /// The held-out XFS-over-loop capture's pattern: sampled once a second, the pool the
    /// kernel holds at the ceiling is above it in fewer than half the samples (17 of 35
    /// there, median 96.6 MB against a 100.7 MB ceiling) while the writer goes at the
    /// device's pace.
    #[test]
    fn a_pool_hovering_at_the_ceiling_at_the_device_pace_is_held() {
        // 13 of 30 seconds at 110 MB, the others at 90 MB (median 90 >= 0.9 x 96).
        let f = fired(run_low(110.0, 13, 90.0, 90.0, None));
        assert!(
            f.summary.contains("in 13 of 30 seconds (median 85.8 MiB, hovering at the ceiling"),
            "{}",
            f.summary
        );
        // Not at the device's pace: no hold shown.
        passed(run_low(110.0, 13, 90.0, 200.0, None));
        // Median too low (the others at 80 MB < 86.4 MB).
        passed(run_low(110.0, 13, 80.0, 90.0, None));
        // Too few seconds above the ceiling (7 of 30).
        passed(run_low(110.0, 7, 95.0, 90.0, None));
    }

    #[test]
    fn unequal_rates_and_no_perf_lower_the_confidence() {
        let f = fired(run(110.0, 30, 200.0, Some(StackShare { samples: 100, balance_dirty_pages: 4 })));
        assert_eq!(f.confidence, 0.6);
        assert!(f.summary.contains("not equal, weakens it"), "{}", f.summary);
        assert!(f.summary.contains("weak either way"), "{}", f.summary);
        // Within 25 %: equal.
        assert_eq!(fired(run(110.0, 30, 72.0, None)).confidence, 0.75);
        assert_eq!(fired(run(110.0, 30, 71.9, None)).confidence, 0.6);
    }

    #[test]
    fn a_short_writer_is_not_judged() {
        let mut w = vec![0.0; 40];
        w[5..9].fill(90.0 * MB);
        let (w, d) = (vals(&w), vals(&[120.0 * MB; 40]));
        let r = passed(check(&Inputs {
            writer: Writer { tid: 7, comm: "dd", category: "other", series: series("thr.7.w_bytes_s", &w) },
            dirtied: None,
            dirty: series("mem.dirty_bytes", &d),
            writeback: None,
            limits: vec![Some(LIM); 40],
            limits_from: LimitSource::Kernel(series("mem.dirty_limit_bytes", &d)),
            devices: vec![],
            perf: None,
            window: WritebackWindow::default(),
        }));
        assert!(r.contains("4 s only"), "{r}");
    }
}
