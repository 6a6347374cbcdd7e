//! A memory budget for the reports of a very long `iostat` file: when the parsed
//! device rows would pass the budget, consecutive reports of a run are merged two
//! to one (and again, four to one, ...), so a capture of weeks at `iostat -x 1`
//! keeps a bounded number of rows at a coarser interval instead of exhausting
//! memory. The caller says so in the analysis (the merge factor is in
//! [`crate::iostat::Iostat::merged`]).
//!
//! A merged report is the report an `iostat` run with the longer interval would
//! have printed, as far as its columns allow: per-second rates, percentages and
//! queue sizes are averaged; waits and request sizes are averaged weighted by the
//! requests of their kind (`w_await` by `w/s`); per-interval amounts (`kB_wrtn`)
//! are summed. It carries the stamp, line and index of its last report: `-t`
//! stamps mark the end of an interval, so the next report's stamp minus this one
//! is the merged interval. The since-boot report of a run is never merged.

use super::metrics::{CpuAvg, DeviceMetrics, Field};
use super::types::{DeviceRow, Report};
use std::collections::HashMap;

/// Approximate heap bytes of one report's rows (what the budget counts; the device names
/// are shared by every report, [`crate::common::names::Names`]). Counted by rows, not by
/// the vector's capacity: a report read in a piece of the file ([`crate::iostat::pieces`])
/// counts the same as read after the report before it.
pub fn report_bytes(r: &Report) -> usize {
    std::mem::size_of::<Report>() + r.devices.len() * std::mem::size_of::<DeviceRow>()
}

/// True when `b` may be merged into `a` (same run, neither since boot).
pub fn mergeable(a: &Report, b: &Report) -> bool {
    a.run == b.run && !a.since_boot && !b.since_boot
}

/// Merges report `b` (standing for `nb` original reports) into `a` (standing for `na`).
pub fn merge_into(a: &mut Report, na: u32, b: Report, nb: u32) {
    let (wa, wb) = (f64::from(na), f64::from(nb));
    a.cpu = match (a.cpu, b.cpu) {
        (Some(x), Some(y)) => Some(cpu_mean(&x, wa, &y, wb)),
        (x, y) => y.or(x),
    };
    // Rows of the same device, usually at the same position in both reports.
    let mut by_name: Option<HashMap<std::sync::Arc<str>, usize>> = None;
    for (i, row) in b.devices.into_iter().enumerate() {
        let at = if a.devices.get(i).is_some_and(|d| d.device == row.device) {
            Some(i)
        } else {
            let map = by_name.get_or_insert_with(|| {
                a.devices.iter().enumerate().map(|(k, d)| (d.device.clone(), k)).collect()
            });
            map.get(&row.device).copied()
        };
        match at {
            Some(k) => {
                let d = &mut a.devices[k];
                d.m = metrics_mean(&d.m, wa, &row.m, wb);
                d.line = row.line;
            }
            None => a.devices.push(row),
        }
    }
    a.line = b.line;
    a.index = b.index;
    a.stamp = b.stamp;
}

/// Weighted mean of two optional values (either alone when the other is missing).
fn mean(a: Option<f64>, wa: f64, b: Option<f64>, wb: f64) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) if wa + wb > 0.0 => Some((x * wa + y * wb) / (wa + wb)),
        (Some(x), Some(y)) => Some((x + y) / 2.0),
        (x, y) => y.or(x),
    }
}

/// Sum of two optional per-interval amounts.
fn sum(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x + y),
        (x, y) => y.or(x),
    }
}

fn cpu_mean(a: &CpuAvg, wa: f64, b: &CpuAvg, wb: f64) -> CpuAvg {
    let (x, y) = (a.options(), b.options());
    CpuAvg::from_options([0, 1, 2, 3, 4, 5].map(|i| mean(x[i], wa, y[i], wb)))
}

/// The device values of two spans of `wa` and `wb` reports as one span.
fn metrics_mean(a: &DeviceMetrics, wa: f64, b: &DeviceMetrics, wb: f64) -> DeviceMetrics {
    // A per-request value is weighted by the requests of its kind in each span.
    let by = |rate_a: Option<f64>, rate_b: Option<f64>| {
        (wa * rate_a.unwrap_or(0.0).max(0.0), wb * rate_b.unwrap_or(0.0).max(0.0))
    };
    let per_req = |x: Option<f64>, y: Option<f64>, (ka, kb): (f64, f64)| {
        if ka + kb > 0.0 { mean(x, ka, y, kb) } else { mean(x, wa, y, wb) }
    };
    let rw = |m: &DeviceMetrics| Some(m.r_s().unwrap_or(0.0) + m.w_s().unwrap_or(0.0));
    let (r, w, d, f) =
        (by(a.r_s(), b.r_s()), by(a.w_s(), b.w_s()), by(a.d_s(), b.d_s()), by(a.f_s(), b.f_s()));
    let io = by(rw(a), rw(b));
    let tps = by(a.tps().or(rw(a)), b.tps().or(rw(b)));
    let avg = |x: Option<f64>, y: Option<f64>| mean(x, wa, y, wb);
    DeviceMetrics::combine(a, b, |field, x, y| {
        use Field::*;
        match field {
            RrqmPct | RAwait | RReq => per_req(x, y, r),
            WrqmPct | WAwait | WReq => per_req(x, y, w),
            DrqmPct | DAwait | DReq => per_req(x, y, d),
            FAwait => per_req(x, y, f),
            Await | Req => per_req(x, y, io),
            Svctm => per_req(x, y, tps),
            ReadBytes | WrittenBytes | DiscardedBytes | WdBytes => sum(x, y),
            Tps | RS | WS | DS | FS | RrqmS | WrqmS | DrqmS | RqmS | RBytesS | WBytesS | DBytesS | BytesS
            | WdBytesS | AquSz | Util => avg(x, y),
        }
    })
}

/// Merges the kept reports two to one where they may be (`counts[i]`: the original
/// reports each stands for), in place. Returns the bytes the reports hold afterwards.
pub fn halve(reports: &mut Vec<Report>, counts: &mut Vec<u32>) -> usize {
    let old_r = std::mem::take(reports);
    let old_c = std::mem::take(counts);
    let mut it = old_r.into_iter().zip(old_c).peekable();
    while let Some((mut a, na)) = it.next() {
        let mut n = na;
        if let Some((b, _)) = it.peek()
            && mergeable(&a, b)
            && let Some((b, nb)) = it.next()
        {
            merge_into(&mut a, na, b, nb);
            n += nb;
        }
        a.devices.shrink_to_fit();
        reports.push(a);
        counts.push(n);
    }
    reports.shrink_to_fit();
    counts.shrink_to_fit();
    reports.iter().map(report_bytes).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rep(index: usize, w_s: f64, w_await: f64, written: f64) -> Report {
        Report {
            line: 10 + index,
            run: 0,
            index,
            stamp: None,
            since_boot: false,
            cpu: Some(CpuAvg::from_options([Some(index as f64), None, None, None, None, None])),
            devices: vec![DeviceRow {
                line: 10 + index,
                device: "vda".into(),
                m: {
                    let mut m = DeviceMetrics::default();
                    m.put(Field::WS, Some(w_s));
                    m.put(Field::WBytesS, Some(w_s * 4096.0));
                    m.put(Field::WAwait, Some(w_await));
                    m.put(Field::WrittenBytes, Some(written));
                    m
                },
            }],
        }
    }

    #[test]
    fn rates_average_waits_weight_by_requests_amounts_add() {
        let mut a = rep(1, 100.0, 1.0, 4096.0);
        merge_into(&mut a, 1, rep(2, 300.0, 5.0, 8192.0), 1);
        let m = &a.devices[0].m;
        assert_eq!(m.w_s(), Some(200.0));
        assert_eq!(m.w_bytes_s(), Some(200.0 * 4096.0));
        // (100 x 1 + 300 x 5) / 400 = 4 ms: the wait of the average request.
        assert_eq!(m.w_await_ms(), Some(4.0));
        assert_eq!(m.written_bytes(), Some(12288.0));
        assert_eq!(a.cpu.unwrap().user(), Some(1.5));
        // The merged report ends where its last report ended.
        assert_eq!((a.index, a.line, a.devices[0].line), (2, 12, 12));
    }

    #[test]
    fn halving_keeps_runs_and_since_boot_apart_and_counts_reports() {
        let mut boot = rep(0, 1.0, 1.0, 0.0);
        boot.since_boot = true;
        let mut other_run = rep(3, 50.0, 2.0, 0.0);
        other_run.run = 1;
        let mut reports = vec![boot, rep(1, 100.0, 1.0, 0.0), rep(2, 300.0, 1.0, 0.0), other_run];
        let mut counts = vec![1; 4];
        halve(&mut reports, &mut counts);
        assert_eq!(reports.iter().map(|r| r.index).collect::<Vec<_>>(), [0, 2, 3]);
        assert_eq!(counts, [1, 2, 1]);
        assert_eq!(reports[1].devices[0].m.w_s(), Some(200.0));
        // Again: nothing left that may merge.
        halve(&mut reports, &mut counts);
        assert_eq!(counts, [1, 2, 1]);
    }

    /// Spans of unequal length weigh by the reports they stand for.
    #[test]
    fn unequal_spans_weigh_by_their_reports() {
        let mut a = rep(1, 100.0, 1.0, 0.0);
        merge_into(&mut a, 3, rep(2, 500.0, 1.0, 0.0), 1);
        assert_eq!(a.devices[0].m.w_s(), Some(200.0));
    }
}
