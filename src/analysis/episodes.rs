//! Write episodes with a measured issuer (issue 34): every significant burst
//! or sustained phase of a device's writes, and who issued it and why, decided
//! by the capture's own witnesses in that window (`../shared/EVIDENCE.md`
//! section 2) instead of by the rule that looks at it:
//!
//! - the trace (`perf record -e writeback:writeback_start`): the flusher's
//!   `reason=` (`periodic`, `background`, `sync`, `vmscan`);
//!   `block:block_bio_queue` names the task that submitted each bio;
//! - perf call chains: the outermost frame that says why a thread did I/O
//!   (`do_fsync`, `__x64_sys_msync`, `wb_workfn`, `balance_dirty_pages`, ...);
//! - /proc/meminfo Dirty: a drop at the episode (buffered data) or none (direct
//!   I/O, journal), the age of what dropped against `dirty_expire`, Dirty
//!   pinned near the background threshold;
//! - iostat `f/s`: flush requests during the episode;
//! - pidstat -d: the threads charged while the data was dirtied (writers), and
//!   during the episode with Dirty flat (direct I/O submitters).
//!
//! Each class collects a score from the witnesses present; the best must beat
//! the runner-up, which is kept with why it lost. The timing of the episodes is
//! never a witness of the class (a period is tested against the tunables
//! afterwards, in [`super::periodicity`]). When no witness tells the classes
//! apart the episode says "not measured" and names the missing witnesses.

use super::bursts;
use super::harm::{self, Harm};
use super::stats::median;
use super::writeback::WritebackWindow;
use crate::attribution::is_kernel_issuer;
use crate::source::ThreadTotal;
use crate::table::Timeline;
use crate::table::columns::{Col, MemMetric};
use crate::verdict::{Actor, IssuerClass, MIB, Role};
use iosift_parsers::perf_script::{PerfScript, StackClass};
use serde::Serialize;
use std::collections::BTreeMap;

/// Episodes below this many bytes are not significant.
const MIN_BYTES: f64 = 16.0 * 1024.0 * 1024.0;
/// At most this many episodes per device (the largest).
const MAX_EPISODES: usize = 24;

/// Which witnesses the capture holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub(crate) struct Witnesses {
    /// perf samples with call chains on the wall clock.
    pub perf: bool,
    /// writeback / block tracepoints on the wall clock.
    pub trace: bool,
    /// /proc/meminfo Dirty.
    pub meminfo: bool,
    /// pidstat -d per thread.
    pub pidstat: bool,
    /// iostat flush requests (f/s).
    pub flushes: bool,
}

impl Witnesses {
    /// The missing ones in words.
    pub(crate) fn missing(&self) -> Vec<&'static str> {
        let mut m = Vec::new();
        if !self.perf {
            m.push("no perf call chains");
        }
        if !self.trace {
            m.push("no writeback/block trace (collect.sh -T)");
        }
        if !self.meminfo {
            m.push("no /proc/meminfo Dirty series");
        }
        if !self.pidstat {
            m.push("no per-thread writes (pidstat -d)");
        }
        m
    }
}

/// The issuer of an episode, as measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attribution {
    /// The best-supported class; None when no witness told the classes apart.
    pub class: Option<IssuerClass>,
    /// Its score (sum of the witnesses' weights).
    pub score: f64,
    /// The issuing thread (measured), or the class without a thread, or not measured.
    pub issuer: Actor,
    /// What supports it, one line per witness.
    pub evidence: Vec<String>,
    /// The runner-up class and why it lost.
    pub runner_up: Option<(IssuerClass, String)>,
}

/// One write episode of a device.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Episode {
    /// Device name.
    pub device: String,
    /// First and last timeline row (inclusive).
    pub start: usize,
    /// Last row.
    pub end: usize,
    /// Epoch seconds of the first and last row.
    pub start_epoch: i64,
    /// Epoch of the last row.
    pub end_epoch: i64,
    /// Bytes the device wrote in it.
    pub bytes: f64,
    /// Peak bytes/s.
    pub peak: f64,
    /// Who issued it and why.
    pub issuer: Attribution,
    /// Who dirtied or submitted its data.
    pub writers: Vec<Actor>,
    /// What it cost.
    pub harm: Harm,
    /// The stacked device whose writes this episode's bios re-issue (its class is then
    /// `stacked_reissue`, and that device's episodes carry the issuer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reissue_of: Option<String>,
}

/// Per device, the devices whose bios count for it, by name and (major, minor), itself first
/// ([`bio_devices`]).
pub(crate) type BioDevices = BTreeMap<String, Vec<(String, (u32, u32))>>;

/// What the episode finder reads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Inputs<'a> {
    /// The timeline.
    pub tl: &'a Timeline,
    /// pidstat thread totals (tid -> comm).
    pub threads: &'a BTreeMap<u32, ThreadTotal>,
    /// The writeback tunables.
    pub window: WritebackWindow,
    /// perf scripts with their perf -> epoch offset.
    pub perf: &'a [(&'a PerfScript, f64)],
    /// Per device, the block devices whose bios count for it, by name and (major, minor):
    /// itself first, then the devices stacked on it ([`bio_devices`]); a device not listed
    /// counts every device's.
    pub majmin: &'a BioDevices,
}

/// Samples per thread (comm, tid).
type ByThread = BTreeMap<(String, Option<u32>), u64>;

/// The per-second witnesses of the perf scripts on the wall clock.
#[derive(Debug, Default)]
pub(super) struct PerfSeconds {
    /// (epoch second, class) -> (comm, tid) -> samples.
    stacks: BTreeMap<(i64, StackClass), ByThread>,
    /// epoch second -> reason -> hits of writeback_start.
    reasons: BTreeMap<i64, BTreeMap<String, u64>>,
    /// epoch second -> comm -> bytes of block_bio_queue writes.
    pub(super) bio: BTreeMap<i64, BTreeMap<String, u64>>,
    /// epoch second -> comm -> bytes of block_rq_issue writes (when no bio_queue).
    rq: BTreeMap<i64, BTreeMap<String, u64>>,
    chains: bool,
    trace: bool,
}

impl PerfSeconds {
    /// The seconds of `perf`, block requests of the devices `devs` only when they are known
    /// (else every device's).
    pub(super) fn of(perf: &[(&PerfScript, f64)], devs: Option<&[(u32, u32)]>) -> PerfSeconds {
        let mut p = PerfSeconds::default();
        for (s, off) in perf {
            let at = |sec: i64| (sec as f64 + off).floor() as i64;
            p.chains |= s.callchain_samples > 0;
            // The collector's own processes (perf writing its data) are never issuers (issue 41).
            for k in s.stack_seconds.iter().filter(|k| !super::collector::is_collector_comm(&k.comm)) {
                *p.stacks
                    .entry((at(k.sec), k.class))
                    .or_default()
                    .entry((k.comm.clone(), k.tid))
                    .or_default() += k.samples;
            }
            for w in &s.writeback {
                p.trace = true;
                if w.event.ends_with("writeback_start") && !w.reason.is_empty() {
                    *p.reasons.entry(at(w.sec)).or_default().entry(w.reason.clone()).or_default() += w.count;
                }
            }
            for t in &s.tracepoints {
                if !t.rwbs.contains('W')
                    || devs.is_some_and(|d| t.dev.is_some_and(|x| !d.contains(&x)))
                    || super::collector::is_collector_comm(&t.comm)
                {
                    continue;
                }
                let into = if t.event.ends_with("block_bio_queue") {
                    &mut p.bio
                } else if t.event.ends_with("block_rq_issue") {
                    &mut p.rq
                } else {
                    continue;
                };
                p.trace = true;
                *into.entry(at(t.sec)).or_default().entry(t.comm.clone()).or_default() += t.bytes;
            }
        }
        p
    }

    fn stacks_in(&self, a: i64, b: i64) -> BTreeMap<StackClass, Vec<(String, Option<u32>, u64)>> {
        let mut out: BTreeMap<StackClass, ByThread> = BTreeMap::new();
        for ((sec, class), who) in self.stacks.range((a, StackClass::Fsync)..=(b, StackClass::Dirtying)) {
            if *sec < a || *sec > b {
                continue;
            }
            for (k, n) in who {
                *out.entry(*class).or_default().entry(k.clone()).or_default() += n;
            }
        }
        out.into_iter()
            .map(|(c, m)| {
                let mut v: Vec<(String, Option<u32>, u64)> =
                    m.into_iter().map(|((c, t), n)| (c, t, n)).collect();
                v.sort_by_key(|x| std::cmp::Reverse(x.2));
                (c, v)
            })
            .collect()
    }

    /// The classes of `comm`'s chains over the capture, with their samples.
    fn thread_classes(&self, comm: &str) -> BTreeMap<StackClass, u64> {
        let mut by: BTreeMap<StackClass, u64> = BTreeMap::new();
        for ((_, class), who) in &self.stacks {
            for ((c, _), n) in who {
                if c == comm {
                    *by.entry(*class).or_default() += n;
                }
            }
        }
        by
    }

    fn sum_in(map: &BTreeMap<i64, BTreeMap<String, u64>>, a: i64, b: i64) -> Vec<(String, u64)> {
        let mut out: BTreeMap<String, u64> = BTreeMap::new();
        for (_, m) in map.range(a..=b) {
            for (k, n) in m {
                *out.entry(k.clone()).or_default() += n;
            }
        }
        let mut v: Vec<(String, u64)> = out.into_iter().collect();
        v.sort_by_key(|x| std::cmp::Reverse(x.1));
        v
    }
}

/// The perf scripts with their perf -> epoch offset (none when perf was not anchored).
pub(crate) fn perf_pairs<'a>(records: &super::Records<'a>) -> Vec<(&'a PerfScript, f64)> {
    records.perf_offset.map_or_else(Vec::new, |off| records.perf.iter().map(|p| (p.script, off)).collect())
}

/// The episodes of every device that wrote at least a tenth of the most written one's
/// bytes (iostat's devices, else /proc/diskstats'), devices in name order.
pub(crate) fn of_all(
    tl: &Timeline,
    threads: &BTreeMap<u32, ThreadTotal>,
    window: WritebackWindow,
    records: &super::Records<'_>,
    majmin: &BioDevices,
) -> Vec<Episode> {
    let perf = perf_pairs(records);
    let inp = Inputs { tl, threads, window, perf: &perf, majmin };
    let mut devs: Vec<(String, Col, f64)> = Vec::new();
    for (c, s) in tl.iter() {
        let writes = matches!(
            c,
            Col::Dev(_, crate::table::columns::DevMetric::WBytesS)
                | Col::Ds(_, crate::table::columns::DsMetric::WBytesS)
        );
        let Some(name) = c.device().filter(|_| writes).map(str::to_string) else { continue };
        if matches!(c, Col::Ds(..)) && devs.iter().any(|(d, k, _)| *d == name && matches!(k, Col::Dev(..))) {
            continue;
        }
        devs.retain(|(d, k, _)| !(*d == name && matches!(k, Col::Ds(..))));
        let total: f64 = s.values.iter().filter_map(|v| v.get()).sum();
        devs.push((name, c.clone(), total));
    }
    let top = devs.iter().map(|d| d.2).fold(0.0, f64::max);
    devs.retain(|d| d.2 > 0.0 && d.2 >= 0.1 * top);
    devs.sort_by(|a, b| a.0.cmp(&b.0));
    devs.iter().flat_map(|(d, c, _)| episodes(&inp, d, c)).collect()
}

/// Per block device of the capture, the devices whose bios are its writes: itself and the
/// devices stacked on it (a loop device's bios, re-issued by its workers, are the disk's),
/// not the other disks'.
pub(crate) fn bio_devices(ctx: &crate::source::Context, tl: &Timeline) -> BioDevices {
    let upper: Vec<(String, Vec<String>)> =
        ctx.block_majmin.keys().map(|d| (d.clone(), super::stack::resolve(ctx, tl, d).physical)).collect();
    ctx.block_majmin
        .iter()
        .map(|(name, mm)| {
            let mut v = vec![(name.clone(), mm.value)];
            for (d, physical) in &upper {
                if d != name && physical.contains(name) {
                    v.extend(ctx.block_majmin.get(d).map(|m| (d.clone(), m.value)));
                }
            }
            (name.clone(), v)
        })
        .collect()
}

/// The (major, minor) of the devices listed for `device` in [`Inputs::majmin`].
pub(super) fn bio_majmin(inp: &Inputs<'_>, device: &str) -> Option<Vec<(u32, u32)>> {
    inp.majmin.get(device).map(|v| v.iter().map(|x| x.1).collect())
}

/// The bios of a device and of each device stacked on it, apart: (its own, [(upper, its)]).
struct StackBios {
    own: PerfSeconds,
    uppers: Vec<(String, PerfSeconds)>,
}

impl StackBios {
    /// None when no device is stacked on `device` or the capture has no trace.
    fn of(inp: &Inputs<'_>, device: &str) -> Option<StackBios> {
        let v = inp.majmin.get(device).filter(|v| v.len() > 1)?;
        let own = PerfSeconds::of(inp.perf, Some(&[v[0].1]));
        if own.bio.is_empty() {
            return None;
        }
        let uppers =
            v[1..].iter().map(|(n, mm)| (n.clone(), PerfSeconds::of(inp.perf, Some(&[*mm])))).collect();
        Some(StackBios { own, uppers })
    }

    /// When the bios of epochs `a..=b` on the device mostly re-issue a stacked device's (at
    /// least [`REISSUE_SHARE`] of their bytes were queued on that device in the same seconds,
    /// and a kernel worker queued here at least that share of those): the stacked device, and
    /// the attribution of a re-issue by that worker, the class measured from every bio kept
    /// as the runner-up.
    fn reissue(&self, a: i64, b: i64, measured: &Attribution) -> Option<(String, Attribution)> {
        let bytes = |p: &PerfSeconds| -> (u64, Vec<(String, u64)>) {
            let subs = PerfSeconds::sum_in(&p.bio, a - 1, b + 1);
            (subs.iter().map(|x| x.1).sum(), subs)
        };
        let (own, subs) = bytes(&self.own);
        let (up, up_bytes) = self.uppers.iter().map(|(n, p)| (n, bytes(p).0)).max_by_key(|x| x.1)?;
        if own == 0 || (up_bytes as f64) < REISSUE_SHARE * own as f64 {
            return None;
        }
        // The re-issuer: a kernel worker (loop's, or dm's / md's), queuing at least that share
        // of what the stacked device received; an application's own bios are this device's.
        let (who, n) = subs.iter().find(|(c, _)| flusher_comm(c) || loop_comm(c))?;
        if (*n as f64) < REISSUE_SHARE * up_bytes as f64 {
            return None;
        }
        let share = *n as f64 / own as f64;
        let line = format!(
            "trace: {:.0} MiB queued on {up} in the episode's seconds, {:.0} % of the {:.0} MiB queued here; {who} queued {:.0} % of these",
            up_bytes as f64 / MIB,
            100.0 * up_bytes as f64 / own as f64,
            own as f64 / MIB,
            100.0 * share
        );
        let mut evidence = vec![line];
        evidence.extend(measured.evidence.iter().cloned());
        Some((
            up.clone(),
            Attribution {
                class: Some(IssuerClass::StackedReissue),
                score: 3.0,
                issuer: Actor::measured(Role::Issuer(IssuerClass::StackedReissue), who, None, Some(share), "trace")
                    .with_note(format!("re-issues the writes of {up}, whose episodes carry their issuer")),
                evidence,
                runner_up: measured.class.map(|c| {
                    (c, format!("measured from the bios of {up} and of this device together: {up}'s own episodes say it"))
                }),
            },
        ))
    }
}

/// A device's bios re-issue a stacked device's when that device queued at least this share
/// of their bytes in the same seconds.
pub(crate) const REISSUE_SHARE: f64 = 0.5;

/// The significant write episodes of `device` (its write bytes/s column `col`).
pub(crate) fn episodes(inp: &Inputs<'_>, device: &str, col: &Col) -> Vec<Episode> {
    let Some(series) = inp.tl.get(col) else { return Vec::new() };
    let strict = bursts::detect(series, 6.0, 3.0, 2.0 * 1024.0 * 1024.0);
    // A device writing a busy floor (a database's tens of MB/s): its flushes stand out of
    // the floor, not three times over it.
    let scan = bursts::over_busy_floor(series, &strict, 2.0 * 1024.0 * 1024.0).unwrap_or(strict);
    let mut found: Vec<&bursts::Burst> = scan.bursts.iter().filter(|b| b.total >= MIN_BYTES).collect();
    found.sort_by(|a, b| b.total.total_cmp(&a.total));
    found.truncate(MAX_EPISODES);
    found.sort_by_key(|b| b.start);
    of_bursts(inp, device, &found)
}

/// The episodes of `bursts` of `device`, each with its measured issuer, writers and harm:
/// [`episodes`]' significant bursts, or the periodic bursts of a device that writes too
/// little for them (the journal commits of a file system on its own device).
pub(crate) fn of_bursts(inp: &Inputs<'_>, device: &str, found: &[&bursts::Burst]) -> Vec<Episode> {
    let perf = PerfSeconds::of(inp.perf, bio_majmin(inp, device).as_deref());
    let w = witnesses(inp, device, &perf);
    let stack = StackBios::of(inp, device);
    found
        .iter()
        .map(|b| {
            let (a, z) = (inp.tl.epoch(b.start), inp.tl.epoch(b.end));
            let measured = attribute(inp, device, &perf, w, b.start, b.end, b.total);
            // The writers of a re-issue are those of the data, as measured from every bio.
            let writers = writers(inp, &measured, b.start, b.end, b.total);
            let (reissue_of, issuer) = match stack.as_ref().and_then(|s| s.reissue(a, z, &measured)) {
                Some((up, r)) => (Some(up), r),
                None => (None, measured),
            };
            Episode {
                device: device.to_string(),
                start: b.start,
                end: b.end,
                start_epoch: a,
                end_epoch: z,
                bytes: b.total,
                peak: b.peak_value,
                harm: harm::of(inp.tl, device, b.start, b.end),
                issuer,
                writers,
                reissue_of,
            }
        })
        .collect()
}

/// The witnesses a capture holds for `device`.
pub(super) fn witnesses(inp: &Inputs<'_>, device: &str, perf: &PerfSeconds) -> Witnesses {
    let has = |c: &Col| inp.tl.get(c).is_some_and(|s| s.iter().any(|v| v.get().is_some()));
    Witnesses {
        perf: perf.chains,
        trace: perf.trace,
        meminfo: has(&Col::Mem(MemMetric::DirtyBytes)),
        pidstat: inp.threads.keys().any(|t| has(&Col::Thread(*t))),
        flushes: has(&Col::Dev(device.to_string(), crate::table::columns::DevMetric::FS)),
    }
}

/// Dirty around an episode: (bytes dropped, age in seconds of what dropped, the
/// level before, pinned near the background threshold).
#[derive(Debug, Clone, Copy)]
struct DirtyShape {
    drop: f64,
    age_s: f64,
    /// The age is a lower bound: Dirty was above the floor back to the capture's start (or
    /// to a long gap in its samples).
    age_censored: bool,
    before: f64,
    after: f64,
    pinned: bool,
    /// Mean Dirty during the episode.
    level: f64,
    /// Share of the episode's seconds with Dirty + Writeback at or above 90 % of the
    /// freerun ceiling, (background threshold + dirty threshold) / 2, where writers are throttled.
    at_ceiling: Option<f64>,
}

/// Dirty + Writeback at this share of the background threshold is "near" it ([`DirtyShape`]).
const PINNED_SHARE: f64 = 0.9;

fn dirty_shape(tl: &Timeline, s: usize, e: usize) -> Option<DirtyShape> {
    let d = tl.get(&Col::Mem(MemMetric::DirtyBytes))?;
    let at = |i: usize| d.get(i).and_then(|c| c.get());
    let before = (s.saturating_sub(3)..s).filter_map(at).fold(f64::NAN, f64::max);
    let before = if before.is_nan() { at(s)? } else { before };
    // Up to two seconds after: meminfo's snapshots are stamped up to a second or two after
    // iostat's report of the writes that emptied Dirty.
    let after = (s..=(e + 2).min(d.len().saturating_sub(1))).filter_map(at).fold(f64::INFINITY, f64::min);
    if !after.is_finite() {
        return None;
    }
    let drop = (before - after).max(0.0);
    // When did Dirty start holding what dropped: back from the episode while it stays
    // above the level it fell to (plus a twentieth of the drop, for the samples' noise). The
    // kernel expires an inode by its first dirtying and writes all its pages with it, so the
    // oldest of what fell is the age that counts, not the bulk's.
    let floor = after + 0.05 * drop;
    // The age is only a lower bound when the walk back stops at the capture's start or at
    // missing samples (meminfo's sampler skips a second now and then; one alone is crossed)
    // before Dirty was down at the floor: it then says the data is at least that old, never
    // that it is young.
    let mut rise = s;
    let censored = loop {
        match rise.checked_sub(1).map(at) {
            Some(Some(v)) if v > floor => rise -= 1,
            Some(Some(_)) => break false,
            // One missing sample between two above the floor is crossed.
            Some(None) if rise >= 2 && at(rise - 2).is_some_and(|v| v > floor) => rise -= 2,
            _ => break true,
        }
    };
    let limit = tl.get(&Col::Mem(MemMetric::DirtyBackgroundLimitBytes));
    // Background writeback starts when Dirty + Writeback pass the background threshold; the
    // flusher then holds them just under it. A tenth of slack for the samples.
    let wb = tl.get(&Col::Mem(MemMetric::WritebackBytes));
    let pinned = limit.is_some_and(|l| {
        (s.saturating_sub(5)..=e).any(|i| match (at(i), l.get(i).and_then(|c| c.get())) {
            (Some(v), Some(lim)) => {
                let v = v + wb.and_then(|w| w.get(i)).and_then(|c| c.get()).unwrap_or(0.0);
                lim > 0.0 && v >= PINNED_SHARE * lim
            }
            _ => false,
        })
    });
    let during: Vec<f64> = (s..=e).filter_map(at).collect();
    let level = during.iter().sum::<f64>() / during.len().max(1) as f64;
    let hard = tl.get(&Col::Mem(MemMetric::DirtyLimitBytes));
    let at_ceiling = match (limit, hard) {
        (Some(l), Some(h)) => {
            let secs: Vec<bool> = (s..=e)
                .filter_map(|i| {
                    let v = at(i)? + wb.and_then(|w| w.get(i)).and_then(|c| c.get()).unwrap_or(0.0);
                    let ceiling = (l.get(i)?.get()? + h.get(i)?.get()?) / 2.0;
                    (ceiling > 0.0).then_some(v >= 0.9 * ceiling)
                })
                .collect();
            (!secs.is_empty()).then(|| secs.iter().filter(|x| **x).count() as f64 / secs.len() as f64)
        }
        _ => None,
    };
    Some(DirtyShape {
        drop,
        age_s: (s - rise) as f64,
        age_censored: censored,
        before,
        after,
        pinned,
        level,
        at_ceiling,
    })
}

/// Memory reclaim meeting this data in rows `around`: the pages reclaim found dirty or under
/// writeback and marked to free once written (/proc/vmstat `nr_vmscan_immediate_reclaim`)
/// plus those it wrote itself (`nr_vmscan_write`), at least [`RECLAIM_MIN_PAGES_S`] a second
/// on average, [`RECLAIM_OVER_MEDIAN`] times the capture's median and 1 % of the episode's
/// pages. Reclaim of a memory cgroup leaves no other trace host-wide (its scans are not in
/// `pgscan_*`). The witness line, or None.
fn reclaim_met(tl: &Timeline, around: std::ops::RangeInclusive<usize>, bytes: f64) -> Option<String> {
    use crate::table::columns::VmCounter;
    let cols: Vec<&[crate::table::Cell]> = [VmCounter::VmscanImmediateS, VmCounter::VmscanWriteS]
        .iter()
        .filter_map(|m| tl.get(&Col::Vm(*m)))
        .collect();
    let first = cols.first()?;
    let at = |i: usize| -> Option<f64> {
        let v: Vec<f64> = cols.iter().filter_map(|c| c.get(i).and_then(|x| x.get())).collect();
        (!v.is_empty()).then(|| v.iter().sum())
    };
    let all: Vec<f64> = (0..first.len()).filter_map(at).collect();
    let during: Vec<f64> = around.filter_map(at).collect();
    if during.is_empty() {
        return None;
    }
    let (sum, base) = (during.iter().sum::<f64>(), median(&all).unwrap_or(0.0));
    let mean = sum / during.len() as f64;
    (mean >= RECLAIM_MIN_PAGES_S && mean >= RECLAIM_OVER_MEDIAN * base && sum * 4096.0 >= 0.01 * bytes).then(|| {
        format!(
            "vmstat: reclaim met {:.0} MiB of dirty or writeback pages in the episode's seconds (nr_vmscan_immediate_reclaim + nr_vmscan_write, {mean:.0} pages/s against a median of {base:.0}): memory reclaim was pushing the data out",
            sum * 4096.0 / MIB
        )
    })
}

/// Pages a second reclaim must meet dirty or under writeback, on average, to witness it (1 MiB/s).
pub(crate) const RECLAIM_MIN_PAGES_S: f64 = 256.0;
/// ... and how many times the capture's median rate.
pub(crate) const RECLAIM_OVER_MEDIAN: f64 = 10.0;

/// True when Dirty + Writeback (what the kernel weighs against its thresholds) reached half
/// the background threshold around rows `s..=e`: background writeback may then take pages
/// within a second of their dirtying. False when the threshold is not in the capture.
fn near_background(tl: &Timeline, s: usize, e: usize) -> bool {
    let (Some(d), Some(l)) =
        (tl.get(&Col::Mem(MemMetric::DirtyBytes)), tl.get(&Col::Mem(MemMetric::DirtyBackgroundLimitBytes)))
    else {
        return false;
    };
    let wb = tl.get(&Col::Mem(MemMetric::WritebackBytes));
    (s.saturating_sub(2)..=e + 1).any(|i| {
        let v = d.get(i).and_then(|c| c.get()).unwrap_or(0.0)
            + wb.and_then(|w| w.get(i)).and_then(|c| c.get()).unwrap_or(0.0);
        l.get(i).and_then(|c| c.get()).is_some_and(|lim| lim > 0.0 && v >= 0.5 * lim)
    })
}

/// Scores of the classes for one episode, with the evidence of each.
#[derive(Debug, Default)]
struct Scores {
    score: BTreeMap<IssuerClass, f64>,
    why: BTreeMap<IssuerClass, Vec<String>>,
    against: BTreeMap<IssuerClass, Vec<String>>,
    /// The thread that names a class, with its witness.
    who: BTreeMap<IssuerClass, (String, Option<u32>, f64, &'static str)>,
}

impl Scores {
    fn add(&mut self, c: IssuerClass, w: f64, why: String) {
        *self.score.entry(c).or_default() += w;
        if w >= 0.0 {
            self.why.entry(c).or_default().push(why);
        } else {
            self.against.entry(c).or_default().push(why);
        }
    }

    fn name(&mut self, c: IssuerClass, comm: &str, tid: Option<u32>, share: f64, source: &'static str) {
        self.who.entry(c).or_insert((comm.to_string(), tid, share, source));
    }
}

/// A kernel worker that may carry the flusher's bytes: any kworker (the bdi `writeback`
/// workqueue's unbound ones, and kblockd's, which issues the requests they queue when the
/// trace has only block_rq_issue) or a pre-3.x `flush-8:0` thread.
fn flusher_comm(c: &str) -> bool {
    c.starts_with("kworker/") || c.starts_with("flush-")
}

/// kblockd's high-priority per-CPU worker (`kworker/1:1H-kblockd`, `kworker/0:2H`): it issues
/// requests others queued, so it is never named as the flusher.
fn dispatch_comm(c: &str) -> bool {
    c.strip_prefix("kworker/")
        .map(|r| r.split('-').next().unwrap_or(r))
        .is_some_and(|pool| pool.ends_with('H') && !pool.starts_with('u'))
}

fn journal_comm(c: &str) -> bool {
    c.starts_with("jbd2/") || c.starts_with("xfsaild") || c.starts_with("xfs-")
}

pub(super) fn loop_comm(c: &str) -> bool {
    c.starts_with("loop") && c[4..].starts_with(|x: char| x.is_ascii_digit())
}

/// One episode being attributed: rows `s..=e` of `device`, `bytes` written, and the perf
/// data by second.
#[derive(Clone, Copy)]
struct Ep<'a, 'i> {
    inp: &'a Inputs<'i>,
    device: &'a str,
    perf: &'a PerfSeconds,
    s: usize,
    e: usize,
    bytes: f64,
}

impl Ep<'_, '_> {
    /// The epoch seconds of the episode's first and last rows.
    fn epochs(&self) -> (i64, i64) {
        (self.inp.tl.epoch(self.s), self.inp.tl.epoch(self.e))
    }
}

/// Measures who issued rows `s..=e` of `device` (`bytes` written): each witness the
/// capture holds scores the issuer classes, and the best-scored class wins ([`decide`]).
pub(super) fn attribute(
    inp: &Inputs<'_>,
    device: &str,
    perf: &PerfSeconds,
    w: Witnesses,
    s: usize,
    e: usize,
    bytes: f64,
) -> Attribution {
    let ep = Ep { inp, device, perf, s, e, bytes };
    let tl = inp.tl;
    let mut sc = Scores::default();
    let submitter = if w.trace { trace_witness(&ep, &mut sc) } else { None };
    if w.perf {
        stacks_witness(&ep, &mut sc, submitter.as_deref());
    }

    // nr_dirtied (host-wide pages dirtied) around the episode, from two seconds before to one
    // after (the counter's snapshots and iostat's reports of the same second are stamped up
    // to a second apart): the better witness of whether the data went through the page
    // cache; Dirty's samples can miss a sub-second cycle.
    let nr_dirtied = tl.get(&Col::Vm(crate::table::columns::VmCounter::NrDirtiedS));
    let around = s.saturating_sub(2)..=e + 1;
    let has_dirtied =
        nr_dirtied.is_some_and(|d| around.clone().any(|i| d.get(i).and_then(|c| c.get()).is_some()));
    let shape = dirty_shape(tl, s, e);
    // Dirty: did the data sit in the page cache, how long, near which threshold.
    if let Some(d) = &shape {
        dirty_witness(&ep, &mut sc, d, has_dirtied);
    }
    let flushed_at_once = dirtied_witness(&ep, &mut sc, shape.as_ref(), nr_dirtied, has_dirtied);
    // Reclaim meets the pages background writeback is writing whenever a copy fills the
    // page cache: it witnesses the issuer only while Dirty is far from the background
    // threshold (a memory cgroup's limit, not the host's).
    let far_from_background = !near_background(tl, s, e) && !shape.as_ref().is_some_and(|d| d.pinned);
    if far_from_background && let Some(line) = reclaim_met(tl, around.clone(), bytes) {
        // Reclaim of a small memory cgroup also takes pages a second old: "dirtied and
        // written at once" is then its signature as much as a flushing writer's.
        sc.add(IssuerClass::Reclaim, 2.0, line.clone());
        if flushed_at_once {
            sc.add(IssuerClass::ApplicationFlush, -1.5, line.clone());
        }
        sc.add(IssuerClass::WritebackAge, -0.5, line);
    }
    if w.perf
        && let Some(sub) = &submitter
    {
        submitter_chains(&ep, &mut sc, sub);
    }
    if w.flushes {
        flush_witness(&ep, &mut sc);
    }
    if w.pidstat {
        pidstat_witness(&ep, &mut sc, flushed_at_once);
    }
    decide(sc, w)
}

/// The trace: who submitted the episode's bios, and why the flusher ran; returns the
/// submitter when it is an application thread.
fn trace_witness(ep: &Ep<'_, '_>, sc: &mut Scores) -> Option<String> {
    let (perf, (a, b)) = (ep.perf, ep.epochs());
    let mb = |v: f64| v / MIB;
    let mut submitter: Option<String> = None;
    // The trace: who submitted the bios (block_bio_queue runs in the submitter's context),
    // and, for bios of the flusher, why it ran (writeback_start reason=). Per-second
    // stamps are floored on both clocks: one second of slack each side.
    let bio = PerfSeconds::sum_in(&perf.bio, a - 1, b + 1);
    let (subs, via) = if bio.is_empty() {
        (PerfSeconds::sum_in(&perf.rq, a - 1, b + 1), "block_rq_issue")
    } else {
        (bio, "block_bio_queue")
    };
    let total: u64 = subs.iter().filter(|(c, _)| !loop_comm(c)).map(|x| x.1).sum();
    let flusher_bytes: u64 = subs.iter().filter(|(c, _)| flusher_comm(c)).map(|x| x.1).sum();
    let flusher_share = if total > 0 { flusher_bytes as f64 / total as f64 } else { 0.0 };
    // The top submitter other than the flusher (whose share the reasons below weigh): an
    // application or journal thread submitting a good part of the bytes beside the flusher
    // (O_DIRECT writes split with a kworker, ext4 data=journal's jbd2 next to the in-place
    // writeback) is heard too.
    if let Some((top, n)) = subs.iter().find(|(c, _)| !loop_comm(c) && !flusher_comm(c))
        && total > 0
    {
        let share = *n as f64 / total as f64;
        let line = format!(
            "trace: {top} submitted {:.0} % of the {via} write bytes ({:.0} MiB)",
            100.0 * share,
            mb(*n as f64)
        );
        if share < 0.4 {
            // No submitter besides the flusher dominates: the reasons say why.
        } else if journal_comm(top) {
            sc.add(IssuerClass::Journal, 3.0, line);
            sc.name(IssuerClass::Journal, top, None, share, "trace");
        } else if via == "block_bio_queue" && !is_kernel_issuer(top) {
            submitter = Some(top.clone());
            for c in [
                IssuerClass::ApplicationFlush,
                IssuerClass::DirectIo,
                IssuerClass::WriterThrottled,
                IssuerClass::SyncOther,
            ] {
                sc.add(c, 1.5, line.clone());
                sc.name(c, top, None, share, "trace");
            }
            for c in [IssuerClass::WritebackAge, IssuerClass::WritebackBackground, IssuerClass::Reclaim] {
                sc.add(c, -1.5, format!("trace: the bios came from {top}, not from a flusher"));
            }
        }
    } else if let Some((top, n)) = subs.first()
        && loop_comm(top)
        && subs.iter().all(|(c, _)| loop_comm(c))
    {
        sc.add(
            IssuerClass::StackedReissue,
            2.0,
            format!("trace: only {top} submitted writes ({:.0} MiB)", mb(*n as f64)),
        );
        sc.name(IssuerClass::StackedReissue, top, None, 1.0, "trace");
    }
    // The flusher's reasons count by the share of the bytes the flusher submitted (all of
    // them when the trace has no bio submitters).
    let weight = if subs.is_empty() { 1.0 } else { flusher_share };
    let reasons = PerfSeconds::sum_in(&perf.reasons, a - 2, b + 1);
    let hits: u64 = reasons.iter().map(|x| x.1).sum();
    for (r, n) in &reasons {
        let class = match r.as_str() {
            "periodic" => Some(IssuerClass::WritebackAge),
            "background" => Some(IssuerClass::WritebackBackground),
            "vmscan" => Some(IssuerClass::Reclaim),
            "sync" => Some(IssuerClass::SyncOther),
            _ => None,
        };
        if let Some(c) = class
            && weight >= 0.2
        {
            let part = *n as f64 / hits.max(1) as f64;
            sc.add(
                c,
                3.0 * weight * part,
                format!(
                    "trace: {n} writeback_start with reason={r}; the flusher submitted {:.0} % of the bytes",
                    100.0 * weight
                ),
            );
            let who = subs
                .iter()
                .find(|(c, _)| flusher_comm(c) && !dispatch_comm(c))
                .map_or("kworker (flusher)", |x| x.0.as_str());
            sc.name(c, who, None, weight, "trace");
        }
    }
    submitter
}

/// perf call chains of the episode's seconds.
fn stacks_witness(ep: &Ep<'_, '_>, sc: &mut Scores, submitter: Option<&str>) {
    let &Ep { inp, perf, s, e, bytes, .. } = ep;
    let (a, b) = ep.epochs();
    // perf call chains of the episode's seconds: the submitter's own chain counts fully,
    // other threads' (another tenant fsyncing at the same time) a third.
    for (class, who) in perf.stacks_in(a - 1, b + 1) {
        let n: u64 = who.iter().map(|x| x.2).sum();
        let (comm, tid, top) = submitter
            .as_ref()
            .and_then(|s| who.iter().find(|x| x.0 == *s))
            .or(who.first())
            .cloned()
            .unwrap_or_default();
        // Without the trace's submitter, a thread's chains count fully only when pidstat
        // charged it a third of the episode's bytes since they could have been dirtied (a
        // redo log's constant small fsyncs are no witness of a gigabyte's flush).
        let own = match &submitter {
            Some(s) => *s == comm,
            None => tid.is_some_and(|t| {
                let from = s.saturating_sub((inp.window.expire_s + inp.window.interval_s) as usize + 2);
                charged(inp, from, e).iter().any(|x| x.0 == t && x.2 >= bytes / 3.0)
            }),
        };
        let share = if n > 0 { top as f64 / n as f64 } else { 0.0 };
        let (c, weight) = match class {
            StackClass::Fsync | StackClass::Msync | StackClass::SyncFileRange => {
                (IssuerClass::ApplicationFlush, 3.0)
            }
            StackClass::Sync => (IssuerClass::SyncOther, 3.0),
            StackClass::Throttle => (IssuerClass::WriterThrottled, 3.0),
            StackClass::DirectWrite => (IssuerClass::DirectIo, 3.0),
            StackClass::Journal => (IssuerClass::Journal, 2.0),
            StackClass::Reclaim => (IssuerClass::Reclaim, 3.0),
            StackClass::Loop => (IssuerClass::StackedReissue, 1.0),
            StackClass::Dirtying => continue,
            StackClass::Flusher => {
                for c in [IssuerClass::WritebackAge, IssuerClass::WritebackBackground] {
                    sc.add(c, 1.0, format!("perf: {n} samples of {comm} in wb_workfn"));
                    sc.name(c, &comm, tid, share, "perf");
                }
                continue;
            }
        };
        let weight = if own { weight } else { weight / 3.0 };
        sc.add(c, weight, format!("perf: {n} samples in {} ({comm}{})", class.id(), tid_text(tid)));
        sc.name(c, &comm, tid, share, "perf");
    }
}

/// Dirty around the episode: whether the data sat in the page cache, how long, near which threshold.
fn dirty_witness(ep: &Ep<'_, '_>, sc: &mut Scores, d: &DirtyShape, has_dirtied: bool) {
    let &Ep { inp, s, e, bytes, .. } = ep;
    let secs = (e - s + 1) as f64;
    let mb = |v: f64| v / MIB;
    // Dirty holding a second or more of what the device wrote: the data can come from the page cache.
    let cached = d.level >= bytes / secs;
    ceiling_witness(sc, d);
    let buffered = d.drop >= 0.3 * bytes || d.drop >= 64e6;
    if buffered {
        let line = format!(
            "meminfo: Dirty fell {:.0} MiB ({:.0} -> {:.0} MiB) as the device wrote {:.0} MiB",
            mb(d.drop),
            mb(d.before),
            mb(d.after),
            mb(bytes)
        );
        sc.add(IssuerClass::DirectIo, -2.0, format!("{line}: the data was buffered"));
        sc.add(IssuerClass::StackedReissue, -0.5, line.clone());
        let expire = inp.window.expire_s;
        // Much other dirty data left after the fall (other files, other tenants, the rest
        // of a file the flusher writes by inode): the level's history says nothing of the
        // age of what fell. Its age is read only when Dirty fell to a floor of at most half
        // the fall.
        let clean_floor = d.after <= 0.5 * d.drop;
        // A lower bound (censored) must reach dirty_expire itself: the flusher's wake-up
        // slack is for an age measured whole.
        let slack = if d.age_censored { 0.0 } else { inp.window.interval_s + 1.0 };
        if clean_floor && d.age_s + slack >= expire {
            sc.add(
                IssuerClass::WritebackAge,
                2.0,
                format!("{line}, after holding it {:.0} s (dirty_expire {expire:.0} s)", d.age_s),
            );
        } else if clean_floor && !d.age_censored {
            let young = format!(
                "{line} after holding it only {:.0} s, less than dirty_expire ({expire:.0} s): it did not age out",
                d.age_s
            );
            sc.add(IssuerClass::WritebackAge, -2.0, young.clone());
            for c in [IssuerClass::ApplicationFlush, IssuerClass::SyncOther] {
                sc.add(c, 1.0, young.clone());
            }
        }
        if d.pinned {
            sc.add(
                IssuerClass::WritebackBackground,
                2.0,
                format!("{line}; Dirty stood near the background threshold"),
            );
        } else {
            sc.add(
                IssuerClass::WritebackBackground,
                -1.0,
                "meminfo: Dirty stayed well below the background threshold".into(),
            );
        }
        if d.before > 0.0 && d.after <= 0.05 * d.before && d.drop >= 0.5 * bytes {
            sc.add(IssuerClass::SyncOther, 0.5, format!("{line}: to nearly nothing"));
        } else if d.after >= 0.2 * d.before && d.after >= 8e6 {
            sc.add(
                IssuerClass::SyncOther,
                -1.0,
                format!(
                    "meminfo: Dirty kept {:.0} MiB through the episode: a sync would have written it all",
                    mb(d.after)
                ),
            );
        }
    } else if bytes >= 4.0 * d.drop.max(1.0) && !cached && !has_dirtied {
        // Only without nr_dirtied: a write and its flush inside one meminfo sample leave
        // Dirty where it was too, so this is half a witness.
        let line = format!(
            "meminfo: Dirty moved {:.1} MiB while the device wrote {:.0} MiB: the data did not sit in the page cache for a sample (bypassed it, or was flushed within the second it was written)",
            mb(d.drop),
            mb(bytes)
        );
        sc.add(IssuerClass::DirectIo, 0.5, line.clone());
        sc.add(IssuerClass::Journal, 0.5, line.clone());
        sc.add(IssuerClass::StackedReissue, 0.5, line.clone());
        for c in [
            IssuerClass::WritebackAge,
            IssuerClass::WritebackBackground,
            IssuerClass::ApplicationFlush,
            IssuerClass::WriterThrottled,
            IssuerClass::SyncOther,
            IssuerClass::Reclaim,
        ] {
            sc.add(c, -0.5, line.clone());
        }
    }
}

/// Dirty + Writeback at the freerun ceiling for half the episode: writers were throttled.
fn ceiling_witness(sc: &mut Scores, d: &DirtyShape) {
    if let Some(share) = d.at_ceiling
        && share >= 0.5
    {
        let line = format!(
            "meminfo: Dirty + Writeback at the freerun ceiling (where writers are throttled) {:.0} % of the episode",
            100.0 * share
        );
        sc.add(IssuerClass::WriterThrottled, 2.0, line.clone());
        sc.add(IssuerClass::WritebackBackground, 1.0, line.clone());
        sc.add(IssuerClass::DirectIo, -2.0, line);
    }
}

/// Pages dirtied around the episode against the bytes written; returns whether its writer
/// flushed the data at once (dirtied and written in the same seconds, never held in Dirty).
fn dirtied_witness(
    ep: &Ep<'_, '_>,
    sc: &mut Scores,
    shape: Option<&DirtyShape>,
    nr_dirtied: Option<&[crate::table::Cell]>,
    has_dirtied: bool,
) -> bool {
    let &Ep { inp, s, e, bytes, .. } = ep;
    let tl = inp.tl;
    let secs = (e - s + 1) as f64;
    let around = s.saturating_sub(2)..=e + 1;
    let mb = |v: f64| v / MIB;
    // Pages dirtied (/proc/vmstat nr_dirtied, host-wide) around the episode: a direct write
    // dirties none; far fewer dirtied than written, while Dirty did not fall by the bytes
    // written either, means the data bypassed the page cache. (Large folios of a shared
    // mapping write much more than the pages dirtied count: Dirty's fall tells those apart.)
    let mut flushed_at_once = false;
    let fell = shape.as_ref().is_some_and(|d| d.drop >= 0.3 * bytes);
    if !fell && let Some(d) = nr_dirtied {
        let dirtied: f64 =
            around.clone().filter_map(|i| d.get(i).and_then(|c| c.get())).sum::<f64>() * 4096.0;
        if has_dirtied && dirtied < 0.2 * bytes {
            let line = format!(
                "vmstat: {:.0} MiB of pages dirtied around the episode for {:.0} MiB written: the data bypassed the page cache",
                mb(dirtied),
                mb(bytes)
            );
            sc.add(IssuerClass::DirectIo, 2.0, line.clone());
            for c in [
                IssuerClass::ApplicationFlush,
                IssuerClass::WritebackAge,
                IssuerClass::WritebackBackground,
                IssuerClass::SyncOther,
            ] {
                sc.add(c, -1.0, line.clone());
            }
        } else if has_dirtied && dirtied >= 0.5 * bytes {
            sc.add(
                IssuerClass::DirectIo,
                -1.0,
                format!(
                    "vmstat: {:.0} MiB of pages dirtied around the episode, as much as it wrote",
                    mb(dirtied)
                ),
            );
            // Dirtied and written within the same seconds while Dirty never held it (less
            // than half a second of what the device wrote; a meminfo sample would have): its
            // writer flushed it at once. Writeback takes pages that aged or piled up, never
            // ones a second old; and Dirty must be far from the background threshold, where
            // background writeback takes pages within a second of their dirtying too.
            if shape.as_ref().is_some_and(|d| {
                d.level < 0.5 * bytes / secs && !d.pinned && d.at_ceiling.is_none_or(|c| c < 0.5)
            }) && !near_background(tl, s, e)
            {
                flushed_at_once = true;
                let line = format!(
                    "vmstat + meminfo: {:.0} MiB dirtied in the episode's seconds and written at once, never held in Dirty: flushed by its writer",
                    mb(dirtied)
                );
                sc.add(IssuerClass::ApplicationFlush, 1.5, line.clone());
                sc.add(IssuerClass::WritebackAge, -1.5, line.clone());
                sc.add(IssuerClass::WritebackBackground, -1.0, line);
            }
        }
    }
    flushed_at_once
}

/// The submitter's own call chains over the whole capture.
fn submitter_chains(ep: &Ep<'_, '_>, sc: &mut Scores, sub: &String) {
    let (perf, (a, b)) = (ep.perf, ep.epochs());
    // The submitter's own call chains over the whole capture, when the episode's seconds
    // hold none of them (perf samples a thread a few times a second at best).
    let classes = perf.thread_classes(sub);
    let n = |k: StackClass| classes.get(&k).copied().unwrap_or(0);
    let flush = n(StackClass::Fsync) + n(StackClass::Msync) + n(StackClass::SyncFileRange);
    let in_window = perf.stacks_in(a - 1, b + 1).values().flatten().any(|x| x.0 == *sub);
    if flush > 0 && !in_window {
        sc.add(
            IssuerClass::ApplicationFlush,
            2.0,
            format!("perf: {flush} of {sub}'s samples over the capture in fsync/msync/sync_file_range"),
        );
    }
    let (dirtying, direct) = (n(StackClass::Dirtying), n(StackClass::DirectWrite));
    if dirtying > 0 && direct == 0 {
        let line = format!(
            "perf: {sub} dirtied the page cache itself ({dirtying} samples in buffered writes or shared-mapping faults, none in direct writes) and submitted the bios: it wrote out its own dirty data"
        );
        sc.add(IssuerClass::ApplicationFlush, 1.5, line.clone());
        sc.add(IssuerClass::DirectIo, -2.0, line.clone());
        sc.add(IssuerClass::WriterThrottled, -1.0, line);
    } else if direct > 0 && dirtying == 0 {
        sc.add(
            IssuerClass::DirectIo,
            2.0,
            format!("perf: {direct} of {sub}'s samples in direct writes, none dirtying the page cache"),
        );
    }
}

/// Flush requests in the episode.
fn flush_witness(ep: &Ep<'_, '_>, sc: &mut Scores) {
    let &Ep { inp, device, s, e, .. } = ep;
    let tl = inp.tl;
    // Flush requests: a flush per fsync (devices with a volatile write cache).
    if let Some(f) = tl.get(&Col::Dev(device.to_string(), crate::table::columns::DevMetric::FS)) {
        let all: Vec<f64> = f.iter().filter_map(|c| c.get()).collect();
        let base = median(&all).unwrap_or(0.0);
        let during: Vec<f64> = (s..=e).filter_map(|i| f.get(i).and_then(|c| c.get())).collect();
        let peak = during.iter().copied().fold(0.0, f64::max);
        if peak >= 2.0 && peak >= 3.0 * base.max(0.5) {
            let line = format!("iostat: {peak:.0} flush requests/s in the episode (median {base:.1})");
            sc.add(IssuerClass::ApplicationFlush, 1.0, line.clone());
            sc.add(IssuerClass::Journal, 0.5, line.clone());
            sc.add(IssuerClass::SyncOther, 0.5, line);
        }
    }
}

/// pidstat: the thread charged the episode's bytes.
fn pidstat_witness(ep: &Ep<'_, '_>, sc: &mut Scores, flushed_at_once: bool) {
    let &Ep { inp, s, e, bytes, .. } = ep;
    let mb = |v: f64| v / MIB;
    // pidstat: a thread charged the episode's bytes while they were written = it submitted them.
    if let Some((tid, comm, charged)) = top_thread(inp, s, e)
        && charged >= 0.5 * bytes
    {
        let line = format!("pidstat: {comm} [{tid}] was charged {:.0} MiB during the episode", mb(charged));
        sc.add(IssuerClass::DirectIo, 1.0, line.clone());
        sc.name(IssuerClass::DirectIo, &comm, Some(tid), (charged / bytes).min(1.0), "pidstat -d");
        sc.add(IssuerClass::WriterThrottled, 0.5, line.clone());
        sc.name(IssuerClass::WriterThrottled, &comm, Some(tid), (charged / bytes).min(1.0), "pidstat -d");
        // pidstat charges a buffered write when the page is dirtied: the thread that dirtied
        // the data flushed at once is who flushed it.
        if flushed_at_once {
            sc.add(IssuerClass::ApplicationFlush, 0.5, line.clone());
            sc.name(
                IssuerClass::ApplicationFlush,
                &comm,
                Some(tid),
                (charged / bytes).min(1.0),
                "pidstat -d",
            );
        }
    }
}

fn tid_text(tid: Option<u32>) -> String {
    tid.map(|t| format!(" [{t}]")).unwrap_or_default()
}

/// The non-kernel thread charged the most bytes in rows `s..=e`.
fn top_thread(inp: &Inputs<'_>, s: usize, e: usize) -> Option<(u32, String, f64)> {
    charged(inp, s, e).into_iter().next()
}

/// Non-kernel threads charged in rows `s..=e`, most first.
fn charged(inp: &Inputs<'_>, s: usize, e: usize) -> Vec<(u32, String, f64)> {
    let mut v: Vec<(u32, String, f64)> = inp
        .threads
        .iter()
        .filter(|(_, t)| !is_kernel_issuer(&t.comm))
        .filter_map(|(tid, t)| {
            let c = inp.tl.get(&Col::Thread(*tid))?;
            let sum: f64 =
                (s..=e.min(c.len().saturating_sub(1))).filter_map(|i| c.get(i).and_then(|x| x.get())).sum();
            (sum > 0.0).then(|| (*tid, t.comm.clone(), sum))
        })
        .collect();
    v.sort_by(|a, b| b.2.total_cmp(&a.2));
    v
}

/// The best class, if it beats the runner-up.
fn decide(sc: Scores, w: Witnesses) -> Attribution {
    let mut ranked: Vec<(IssuerClass, f64)> = sc.score.iter().map(|(c, s)| (*c, *s)).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let best = ranked.first().copied().filter(|(_, s)| *s >= 2.0);
    let second = ranked.get(1).copied();
    let missing = w.missing().join(", ");
    let Some((class, score)) = best else {
        return Attribution {
            class: None,
            score: 0.0,
            issuer: Actor::not_measured(
                Role::Issuer(ranked.first().map_or(IssuerClass::WritebackAge, |x| x.0)),
                if missing.is_empty() { "no witness in the episode's window".to_string() } else { missing },
            ),
            evidence: sc.why.values().flatten().cloned().collect(),
            runner_up: None,
        };
    };
    if let Some((c2, s2)) = second
        && s2 > score - 1.0
    {
        return Attribution {
            class: None,
            score,
            issuer: Actor::not_measured(
                Role::Issuer(class),
                format!(
                    "{} and {} are not told apart ({:.1} vs {:.1}){}",
                    class.id(),
                    c2.id(),
                    score,
                    s2,
                    if missing.is_empty() { String::new() } else { format!("; {missing}") }
                ),
            ),
            evidence: sc.why.get(&class).cloned().unwrap_or_default(),
            runner_up: Some((c2, format!("scored {s2:.1} against {score:.1}"))),
        };
    }
    let runner_up = second.filter(|(_, s2)| *s2 > 0.0).map(|(c2, s2)| {
        let lost =
            sc.against.get(&c2).and_then(|v| v.first()).cloned().unwrap_or_else(|| "fewer witnesses".into());
        (c2, format!("scored {s2:.1} against {score:.1}: {lost}"))
    });
    let issuer = match sc.who.get(&class) {
        Some((comm, tid, share, source)) => {
            Actor::measured(Role::Issuer(class), comm, *tid, Some(*share), source)
        }
        None => Actor::unnamed(
            Role::Issuer(class),
            "meminfo",
            format!(
                "the thread is not named: {}",
                if missing.is_empty() { "no witness names it".into() } else { missing }
            ),
        ),
    };
    Attribution {
        class: Some(class),
        score,
        issuer,
        evidence: sc.why.get(&class).cloned().unwrap_or_default(),
        runner_up,
    }
}

/// Who dirtied (buffered classes: threads charged from `dirty_expire` before the
/// episode to its end) or submitted (direct: the threads charged during it).
pub(super) fn writers(inp: &Inputs<'_>, issuer: &Attribution, s: usize, e: usize, bytes: f64) -> Vec<Actor> {
    let buffered = issuer.class.is_none_or(IssuerClass::buffered);
    let from = if buffered {
        s.saturating_sub((inp.window.expire_s + inp.window.interval_s) as usize + 2)
    } else {
        s
    };
    let list = charged(inp, from, e);
    if list.is_empty() {
        let why = if inp.threads.is_empty() {
            "no per-thread writes (pidstat -d)"
        } else {
            "no thread outside the kernel was charged with writes then (pidstat -d)"
        };
        return vec![Actor::not_measured(Role::Writer, why)];
    }
    let total: f64 = list.iter().map(|x| x.2).sum();
    list.into_iter()
        .take(3)
        .filter(|x| x.2 >= 0.05 * total)
        .map(|(tid, comm, b)| {
            Actor::measured(Role::Writer, &comm, Some(tid), Some(b / total), "pidstat -d").with_note(format!(
                "{:.0} MiB charged (episode {:.0} MiB)",
                b / MIB,
                bytes / MIB
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tl_with(cols: &[(&str, &[f64])]) -> Timeline {
        let n = cols.iter().map(|c| c.1.len()).max().unwrap_or(0);
        let mut tl = Timeline::new(1000.0, 1000.0 + n as f64 - 1.0);
        for (name, v) in cols {
            for (i, x) in v.iter().enumerate() {
                tl.set_gauge(&Col::parse(name).expect("a column"), "test", 1000.0 + i as f64, *x);
            }
        }
        tl
    }

    /// No devices known: every bio counts for every device.
    static NO_DEVICES: BioDevices = BTreeMap::new();

    /// The inputs of a test: `tl` and `threads`, the default tunables, no perf.
    fn bare<'a>(tl: &'a Timeline, threads: &'a BTreeMap<u32, ThreadTotal>) -> Inputs<'a> {
        Inputs { tl, threads, window: WritebackWindow::default(), perf: &[], majmin: &NO_DEVICES }
    }

    const M: f64 = 1e6;

    /// 60 s: the device idles at 1 MB/s and writes 64 MB at second 30.
    fn device(burst_at: usize, mb: f64) -> Vec<f64> {
        (0..60).map(|i| if i == burst_at { mb * M } else { 1.0 * M }).collect()
    }

    /// The episodes of a 64 MB write at second 30 with Dirty `young` MB above `floor` MB for
    /// the two seconds before it, and 40 flushes/s at it.
    fn flushed(young: f64, floor: f64) -> Vec<Episode> {
        let dirty: Vec<f64> =
            (0..60).map(|i| if (28..30).contains(&i) { (floor + young) * M } else { floor * M }).collect();
        let flush: Vec<f64> = (0..60).map(|i| if i == 30 { 40.0 } else { 0.0 }).collect();
        let tl = tl_with(&[
            ("dev.vda.w_bytes_s", &device(30, 64.0)),
            ("mem.dirty_bytes", &dirty),
            ("dev.vda.f_s", &flush),
        ]);
        let threads = BTreeMap::new();
        let inp = bare(&tl, &threads);
        episodes(&inp, "vda", &Col::Dev("vda".into(), crate::table::columns::DevMetric::WBytesS))
    }

    #[test]
    fn young_dirty_data_flushed_to_nothing_is_an_application_flush_or_a_sync_not_told_apart() {
        let a = &flushed(63.0, 1.0)[0].issuer;
        assert_eq!(a.class, None, "{a:?}");
        let note = a.issuer.note.as_deref().unwrap();
        assert!(note.contains("application_flush and sync_other are not told apart"), "{note}");
    }

    #[test]
    fn a_drop_of_young_dirty_data_with_flushes_is_the_applications_flush_and_names_no_thread_without_perf() {
        // Dirty grows 64 MB in the 2 s before the burst and falls at it: 2 s old, not 30;
        // 20 MB of other dirty data stay (a sync would have written them).
        let eps = flushed(64.0, 20.0);
        assert_eq!(eps.len(), 1);
        let a = &eps[0].issuer;
        assert_eq!(a.class, Some(IssuerClass::ApplicationFlush), "{a:?}");
        assert_eq!(a.issuer.comm, None);
        assert!(a.issuer.note.as_deref().unwrap().contains("no perf call chains"), "{a:?}");
        let (second, why) = a.runner_up.as_ref().unwrap();
        assert_ne!(*second, IssuerClass::ApplicationFlush);
        assert!(why.starts_with("scored 0.5 against 2.0"), "{why}");
        assert!(!eps[0].writers[0].measured);
    }

    #[test]
    fn data_held_past_dirty_expire_is_writeback_by_age_and_no_pages_dirtied_is_direct_io() {
        let dirty: Vec<f64> =
            (0..60).map(|i| if (0..30).contains(&i) { 64.0 * M } else { 1.0 * M }).collect();
        let tl = tl_with(&[("dev.vda.w_bytes_s", &device(30, 64.0)), ("mem.dirty_bytes", &dirty)]);
        let threads = BTreeMap::new();
        let inp = bare(&tl, &threads);
        let col = Col::Dev("vda".into(), crate::table::columns::DevMetric::WBytesS);
        assert_eq!(episodes(&inp, "vda", &col)[0].issuer.class, Some(IssuerClass::WritebackAge));
        // Dirty flat alone is no proof (a write and its fsync within one second of meminfo
        // sampling leave it flat too): not told apart.
        let flat = vec![1.0 * M; 60];
        let tl = tl_with(&[("dev.vda.w_bytes_s", &device(30, 64.0)), ("mem.dirty_bytes", &flat)]);
        let inp = Inputs { tl: &tl, ..inp };
        assert_eq!(episodes(&inp, "vda", &col)[0].issuer.class, None);
        // With /proc/vmstat showing almost no page dirtied for 64 MB written: direct I/O.
        let pages = vec![50.0; 60];
        let tl = tl_with(&[
            ("dev.vda.w_bytes_s", &device(30, 64.0)),
            ("mem.dirty_bytes", &flat),
            ("vm.nr_dirtied_s", &pages),
        ]);
        let inp = Inputs { tl: &tl, ..inp };
        let e = &episodes(&inp, "vda", &col)[0];
        assert_eq!(e.issuer.class, Some(IssuerClass::DirectIo), "{:?}", e.issuer);
    }

    #[test]
    fn without_any_witness_the_issuer_is_not_measured_and_says_what_is_missing() {
        let tl = tl_with(&[("dev.vda.w_bytes_s", &device(30, 64.0))]);
        let threads = BTreeMap::new();
        let inp = bare(&tl, &threads);
        let e = &episodes(&inp, "vda", &Col::Dev("vda".into(), crate::table::columns::DevMetric::WBytesS))[0];
        assert_eq!(e.issuer.class, None);
        assert!(!e.issuer.issuer.measured);
        let note = e.issuer.issuer.note.as_deref().unwrap();
        assert!(note.starts_with("not measured: no perf call chains"), "{note}");
    }

    #[test]
    fn reclaim_meeting_the_pages_witnesses_reclaim_above_its_floor_and_ten_times_its_median() {
        // 64 MB written in one second; reclaim met 300 pages/s in the episode's seconds.
        let base = |x: f64| -> Vec<f64> {
            (0..60).map(|i| if (28..=31).contains(&i) { 300.0 } else { x }).collect()
        };
        let tl = tl_with(&[("vm.nr_vmscan_immediate_reclaim_s", &base(0.0))]);
        let line = reclaim_met(&tl, 28..=31, 64.0 * M).expect("300 pages/s against 0");
        assert!(line.contains("300 pages/s against a median of 0"), "{line}");
        // nr_vmscan_write counts too.
        let half: Vec<f64> = base(0.0).iter().map(|v| v / 2.0).collect();
        let tl = tl_with(&[("vm.nr_vmscan_immediate_reclaim_s", &half), ("vm.nr_vmscan_write_s", &half)]);
        assert!(reclaim_met(&tl, 28..=31, 64.0 * M).is_some());
        // Below the floor of 256 pages/s; or not ten times the capture's usual 31 pages/s.
        let low: Vec<f64> = base(0.0).iter().map(|v| v * 0.85).collect();
        assert_eq!(
            reclaim_met(&tl_with(&[("vm.nr_vmscan_immediate_reclaim_s", &low)]), 28..=31, 64.0 * M),
            None
        );
        assert_eq!(
            reclaim_met(&tl_with(&[("vm.nr_vmscan_immediate_reclaim_s", &base(31.0))]), 28..=31, 64.0 * M),
            None
        );
        // Under 1 % of the episode's bytes: 1,200 pages (4.9 MB) met for 500 MB written.
        let tl = tl_with(&[("vm.nr_vmscan_immediate_reclaim_s", &base(0.0))]);
        assert_eq!(reclaim_met(&tl, 28..=31, 500e6), None);
        assert!(reclaim_met(&tl, 28..=31, 480e6).is_some());
    }

    #[test]
    fn kblockd_workers_are_never_named_as_the_flusher() {
        // Comms as perf prints them (15 characters: the workqueue's name cut short).
        for c in ["kworker/1:1H-kb", "kworker/0:2H", "kworker/1:0H-kblockd"] {
            assert!(dispatch_comm(c) && flusher_comm(c), "{c}");
        }
        for c in ["kworker/u8:3-fl", "kworker/u8:2-wr", "kworker/1:1-events", "flush-8:0", "dd"] {
            assert!(!dispatch_comm(c), "{c}");
        }
    }
}
