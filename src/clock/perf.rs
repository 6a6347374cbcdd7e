//! perf's clock on the wall clock: perf prints seconds of its own clock
//! (usually CLOCK_MONOTONIC). The offset (epoch - perf seconds) comes from the
//! clock data recorded with the samples, else from a collector's clock reference,
//! else from matching perf's block-request bursts against iostat's device writes
//! ([`align`]).

use super::Anchoring;
use crate::table::Cell;
use iosift_parsers::clock_reference::ClockReference;
use iosift_parsers::perf_script::PerfScript;
use std::collections::BTreeMap;

/// perf time -> epoch offset, how it was found and its uncertainty (s).
pub(crate) type PerfOffset = (f64, Anchoring, f64);

/// The perf time offset of a bundle's perf files (`perfs`: name and samples) from their
/// clock data, else the first clock reference with an offset (`references`: name and
/// reference), else by matching block-request bursts against `io` (per-epoch-second write
/// bytes of the busiest device, asked for only then). `None` without perf files; the
/// way it was found, or that it was not, is a warning.
pub(crate) fn offset(
    perfs: &[(&str, &PerfScript)],
    references: &[(&str, &ClockReference)],
    io: impl FnOnce() -> Option<BTreeMap<i64, f64>>,
    warnings: &mut Vec<String>,
) -> Option<PerfOffset> {
    // No perf file, nothing to anchor and nothing to warn about.
    if perfs.is_empty() {
        return None;
    }
    if let Some(off) = perfs.iter().find_map(|(_, p)| p.wall_offset) {
        return Some((off, Anchoring::PerfClockData, 0.001));
    }
    // A collector's clock reference (epoch - CLOCK_MONOTONIC, the perf clock).
    for (name, c) in references {
        if let Some(off) = c.offset() {
            let drift = c.drift().unwrap_or(0.0).abs();
            warnings.push(format!(
                "perf times were mapped to the wall clock with the collector's clock reference in {name} (epoch - CLOCK_MONOTONIC = {off:.3} s)"
            ));
            return Some((off, Anchoring::ClockReference, drift.max(0.01)));
        }
    }
    // Matching: perf per-second W bytes issued vs iostat device write bytes.
    let io = io()?;
    for (name, p) in perfs {
        let per = write_bursts(p);
        if per.len() < 10 {
            continue;
        }
        if let Some((off, r)) = align(&per, &io) {
            warnings.push(format!(
                "perf times of this bundle were aligned to the wall clock by matching block-request bursts in {name} against iostat device writes (offset {off:.2} s, r = {r:.2})"
            ));
            return Some((off, Anchoring::PerfAligned, 1.0));
        }
    }
    warnings.push("perf times could not be anchored (no clock data, no block tracepoints to match): perf series are left out of the timeline".into());
    None
}

/// Bytes of the write block requests issued per perf second.
fn write_bursts(p: &PerfScript) -> BTreeMap<i64, f64> {
    let mut per: BTreeMap<i64, f64> = BTreeMap::new();
    for t in &p.tracepoints {
        if t.event.ends_with("block_rq_issue") && t.rwbs.contains('W') {
            *per.entry(t.sec).or_default() += t.bytes as f64;
        }
    }
    per
}

/// Finds the offset (epoch - perf seconds) that best matches two per-second
/// series, with sub-second refinement on the correlation peak.
fn align(perf: &BTreeMap<i64, f64>, io: &BTreeMap<i64, f64>) -> Option<(f64, f64)> {
    let (&p0, &p1) = (perf.keys().next()?, perf.keys().next_back()?);
    let (&i0, &i1) = (io.keys().next()?, io.keys().next_back()?);
    let pv: Vec<Cell> = (p0..=p1).map(|k| Cell::some(perf.get(&k).copied().unwrap_or(0.0))).collect();
    let iv: Vec<Cell> = (i0..=i1).map(|k| Cell::new(io.get(&k).copied())).collect();
    // offset = epoch - perf; lag index: iv[j] vs pv[j + shift]  => epoch i0 + j = perf p0 + j + shift + off
    let n = pv.len() as isize;
    let m = iv.len() as isize;
    let mut best: Option<(isize, f64)> = None;
    let mut curve = BTreeMap::new();
    for shift in -(m - 10)..(n - 10) {
        if let Some((r, k)) = crate::stats::lagged_pearson(&iv, &pv, shift)
            && k >= 20
        {
            curve.insert(shift, r);
            if best.is_none_or(|(_, b)| r > b) {
                best = Some((shift, r));
            }
        }
    }
    let (shift, r) = best?;
    if r < 0.5 {
        return None;
    }
    let a = curve.get(&(shift - 1)).copied().unwrap_or(r);
    let c = curve.get(&(shift + 1)).copied().unwrap_or(r);
    let denom = a - 2.0 * r + c;
    let frac = if denom.abs() > 1e-9 { (0.5 * (a - c) / denom).clamp(-0.5, 0.5) } else { 0.0 };
    // iv index j <-> pv index j + shift: epoch (i0 + j) + 1 (iostat second j covers (i0+j, i0+j+1]) ...
    // iostat series is keyed by the start of its second; perf by floor(perf ts): both start-of-second.
    let off = (i0 as f64) - (p0 as f64 + shift as f64 + frac);
    Some((off, r))
}
