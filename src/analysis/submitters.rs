//! Periodic submitters: the bytes each task submitted per second in the
//! trace's `block:block_bio_queue` (it runs in the submitter's context), and the
//! period of each large submitter's own bursts. On a shared host the device's
//! writes mix every tenant; an application that fsyncs a checkpoint on its own
//! timer shows its period in its own series even when other writers' bursts
//! are larger. Each burst becomes an episode whose issuer is measured like the
//! device's ([`super::episodes`]).

use super::episodes::{self, Episode, Inputs, PerfSeconds};
use super::periodicity::{self, PeriodicityView};
use crate::attribution::is_kernel_issuer;
use crate::table::Timeline;
use std::collections::BTreeMap;

/// A submitter's own series must carry at least this many bytes to be analysed.
const MIN_BYTES: f64 = 64.0 * 1024.0 * 1024.0;
/// At most this many submitters (the largest).
const MAX_SUBMITTERS: usize = 4;

/// One task's submitted writes and their period.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Submitter {
    /// The task's comm as the trace prints it.
    pub comm: String,
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
pub fn of(inp: &Inputs<'_>, device: &str, tunables: &super::writeback::Tunables) -> Vec<Submitter> {
    let perf = PerfSeconds::of(inp.perf, super::episodes::bio_majmin(inp, device).as_deref());
    let tl = inp.tl;
    if tl.len < 2 || perf.bio.is_empty() {
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
    let mut big: Vec<(&str, f64)> = per
        .iter()
        .map(|(c, v)| (*c, v.iter().map(|x| x.1 as f64).sum::<f64>()))
        .filter(|x| x.1 >= MIN_BYTES)
        .collect();
    big.sort_by(|a, b| b.1.total_cmp(&a.1));
    big.truncate(MAX_SUBMITTERS);
    let w = episodes::witnesses(inp, device, &perf);
    big.into_iter()
        .filter_map(|(comm, bytes)| {
            let mut own = Timeline::new(tl.t0 as f64, tl.epoch(tl.len - 1) as f64);
            for i in 0..tl.len {
                own.set_gauge("sub.w_bytes_s", "B/s", "trace", tl.epoch(i) as f64, 0.0);
            }
            for (sec, b) in &per[comm] {
                own.set_gauge("sub.w_bytes_s", "B/s", "trace", *sec as f64, *b as f64);
            }
            let view = periodicity::periodicity(&own, "sub.w_bytes_s", tunables);
            view.period_s?;
            let eps = view
                .bursts
                .iter()
                .map(|b| {
                    let issuer = episodes::attribute(inp, device, &perf, w, b.start, b.end, b.total);
                    let writers = episodes::writers(inp, &issuer, b.start, b.end, b.total);
                    Episode {
                        device: device.to_string(),
                        start: b.start,
                        end: b.end,
                        start_epoch: tl.epoch(b.start),
                        end_epoch: tl.epoch(b.end),
                        bytes: b.total,
                        peak: b.peak_value,
                        harm: super::harm::of(tl, device, b.start, b.end),
                        issuer,
                        writers,
                        reissue_of: None,
                    }
                })
                .collect();
            Some(Submitter { comm: comm.to_string(), bytes, view, episodes: eps })
        })
        .collect()
}
