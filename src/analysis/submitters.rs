//! Periodic submitters: the bytes each task submitted per second in the
//! trace's `block:block_bio_queue` (it runs in the submitter's context), and the
//! period of each large submitter's own bursts. On a shared host the device's
//! writes mix every tenant; an application that fsyncs a checkpoint on its own
//! timer shows its period in its own series even when other writers' bursts
//! are larger. Each burst becomes an episode whose issuer is measured like the
//! device's ([`super::episodes`]).
//!
//! Without the trace, pidstat's per-thread series stand in for a thread whose
//! charged bytes reach the device in the same seconds
//! ([`super::buffered::reached_at_once`]: an O_DIRECT writer, or one that flushes
//! at once); a thread charged for dirtying the page cache is no submitter.

use super::episodes::{self, Episode, Inputs, PerfSeconds};
use super::periodicity::{self, PeriodicityView};
use crate::attribution::is_kernel_issuer;
use crate::table::Timeline;
use crate::table::columns::{Col, SubMetric};
use rayon::prelude::*;
use std::collections::BTreeMap;

/// A submitter's own series must carry at least this many bytes to be analysed.
const MIN_BYTES: f64 = 64.0 * 1024.0 * 1024.0;
/// At most this many submitters (the largest).
const MAX_SUBMITTERS: usize = 4;

/// Where a submitter's series was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Witness {
    /// `block:block_bio_queue` in the trace.
    Trace,
    /// pidstat -d's per-thread kB_wr/s, its bytes on the device within a second.
    Pidstat,
}

/// One task's submitted writes and their period.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Submitter {
    /// The task's comm as the trace (or pidstat) prints it.
    pub comm: String,
    /// Its series' witness.
    pub witness: Witness,
    /// Bytes it submitted over the capture.
    pub bytes: f64,
    /// The bursts and period of its own series (rows of the timeline).
    pub view: PeriodicityView,
    /// Its bursts as episodes of `device`, with their measured issuer.
    pub episodes: Vec<Episode>,
}

/// The large non-kernel submitters of the trace, most bytes first; `device` is the
/// device their episodes are reported on (the trace's per-second sums carry no device),
/// whose `tunables` their periods are tested against.
pub(crate) fn of(inp: &Inputs<'_>, device: &str, tunables: &super::writeback::Tunables) -> Vec<Submitter> {
    let perf = PerfSeconds::of(inp.perf, super::episodes::bio_majmin(inp, device).as_deref());
    let tl = inp.tl;
    if tl.len < 2 {
        return Vec::new();
    }
    let mut per: BTreeMap<&str, Vec<(i64, u64)>> = BTreeMap::new();
    for (sec, m) in &perf.bio {
        for (comm, b) in m {
            if !is_kernel_issuer(comm) && !episodes::loop_comm(comm) {
                per.entry(comm.as_str()).or_default().push((*sec, *b));
            }
        }
    }
    let witness = if perf.bio.is_empty() {
        per = from_pidstat(inp, device);
        Witness::Pidstat
    } else {
        Witness::Trace
    };
    let mut big: Vec<(&str, f64)> = per
        .iter()
        .map(|(c, v)| (*c, v.iter().map(|x| x.1 as f64).sum::<f64>()))
        .filter(|x| x.1 >= MIN_BYTES)
        .collect();
    big.sort_by(|a, b| b.1.total_cmp(&a.1));
    big.truncate(MAX_SUBMITTERS);
    let w = episodes::witnesses(inp, device, &perf);
    // Each submitter's series analysed on its own (on every core), kept in this order.
    big.into_par_iter()
        .filter_map(|(comm, bytes)| {
            let mut own = Timeline::new(tl.t0 as f64, tl.epoch(tl.len - 1) as f64);
            let src = match witness {
                Witness::Trace => "trace",
                Witness::Pidstat => "pidstat -d",
            };
            for i in 0..tl.len {
                own.set_gauge(&Col::Submitter(SubMetric::WBytesS), src, tl.epoch(i) as f64, 0.0);
            }
            for (sec, b) in &per[comm] {
                own.set_gauge(&Col::Submitter(SubMetric::WBytesS), src, *sec as f64, *b as f64);
            }
            let view = periodicity::periodicity(&own, &Col::Submitter(SubMetric::WBytesS), tunables);
            view.period_s?;
            // A timer's thread writes its data in its bursts; a thread charged all along
            // (a copy held at the dirty limit, a build) only shows a cadence in part of it.
            let periodic = view.periodic_bursts();
            let in_bursts: f64 = periodic.iter().map(|b| b.total).sum();
            // pidstat sees the charge, not the submission: it needs more repetitions than
            // the trace's bios.
            if witness == Witness::Pidstat
                && (in_bursts < IN_BURSTS_SHARE * bytes || periodic.len() < MIN_PIDSTAT_BURSTS)
            {
                return None;
            }
            let eps = view
                .bursts
                .iter()
                .map(|b| {
                    // pidstat's charge and the device's write of it may be a second apart
                    // (the samplers' phases): the episode spans both.
                    let (start, end) = match witness {
                        Witness::Trace => (b.start, b.end),
                        Witness::Pidstat => device_seconds(inp, device, b.start, b.end),
                    };
                    let issuer = episodes::attribute(inp, device, &perf, w, start, end, b.total);
                    let writers = episodes::writers(inp, &issuer, start, end, b.total);
                    Episode {
                        device: device.to_string(),
                        start,
                        end,
                        start_epoch: tl.epoch(start),
                        end_epoch: tl.epoch(end),
                        bytes: b.total,
                        peak: b.peak_value,
                        harm: super::harm::of(tl, device, start, end),
                        issuer,
                        writers,
                        reissue_of: None,
                    }
                })
                .collect();
            Some(Submitter { comm: comm.to_string(), witness, bytes, view, episodes: eps })
        })
        .collect()
}

/// Rows `s..=e` widened by the second before and after where `device` wrote in them.
fn device_seconds(inp: &Inputs<'_>, device: &str, s: usize, e: usize) -> (usize, usize) {
    let tl = inp.tl;
    let col = super::stack::write_series(tl, device).map(|(_, c)| c);
    let wrote = |r: usize| col.is_some_and(|c| c.get(r).and_then(|x| x.get()).is_some_and(|x| x > 0.0));
    let s = if s > 0 && wrote(s - 1) { s - 1 } else { s };
    let e = if e + 1 < tl.len && wrote(e + 1) { e + 1 } else { e };
    (s, e)
}

/// Share of a thread's charged bytes the device must write within a second for pidstat's
/// series of it to stand for its submissions.
pub(crate) const AT_ONCE_SHARE: f64 = 0.75;
/// Share of such a thread's bytes its periodic bursts must hold.
pub(crate) const IN_BURSTS_SHARE: f64 = 0.6;
/// Periodic bursts such a thread must show.
pub(crate) const MIN_PIDSTAT_BURSTS: usize = 4;

/// pidstat's non-kernel threads whose charged bytes reached `device` within a second
/// ([`AT_ONCE_SHARE`] of them), by comm: (epoch second, bytes).
fn from_pidstat<'a>(inp: &Inputs<'a>, device: &str) -> BTreeMap<&'a str, Vec<(i64, u64)>> {
    let tl = inp.tl;
    let mut per: BTreeMap<&str, BTreeMap<i64, u64>> = BTreeMap::new();
    let Some((_, dev)) = super::stack::write_series(tl, device) else {
        return BTreeMap::new();
    };
    for (tid, t) in inp.threads.iter() {
        if is_kernel_issuer(&t.comm)
            || episodes::loop_comm(&t.comm)
            || super::collector::is_collector_comm(&t.comm)
        {
            continue;
        }
        let Some(c) = tl.get(&Col::Thread(*tid)) else { continue };
        let rates: Vec<f64> = c.iter().map(|x| x.get().unwrap_or(0.0).max(0.0)).collect();
        if super::buffered::reached_at_once(&rates, 0..=rates.len().saturating_sub(1), &[dev]) < AT_ONCE_SHARE
        {
            continue;
        }
        // Threads of one name (a pool) add up, as the trace's comms do.
        let e = per.entry(t.comm.as_str()).or_default();
        for (i, x) in rates.iter().enumerate().filter(|x| *x.1 > 0.0) {
            *e.entry(tl.epoch(i)).or_default() += *x as u64;
        }
    }
    per.into_iter().map(|(c, m)| (c, m.into_iter().collect())).collect()
}
