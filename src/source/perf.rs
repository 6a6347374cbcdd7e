//! `perf script`: fsync samples and block-request issue bytes per second
//! (`perf.*`) on the wall clock through the perf offset (clock data, a
//! collector's clock reference, or alignment with iostat), and the samples
//! for flame graphs and the fsync share.

use super::{Adapter, Sink, Visit};
use crate::clock::Anchoring;
use crate::table::Col;
use crate::table::columns::PerfMetric;
use iosift_parsers::perf_script::PerfScript;

/// A perf script.
pub(super) struct Perf<'d>(pub &'d PerfScript);

impl<'d> Adapter<'d> for Perf<'d> {
    fn host(&self) -> Option<String> {
        self.0.header.hostname.clone()
    }
    fn perf(&self) -> Option<&'d PerfScript> {
        Some(self.0)
    }

    fn visit(&self, v: &mut Visit<'_>, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        let p = self.0;
        let (off, a, u) = v.perf_offset?;
        let fsync = Col::Perf(PerfMetric::FsyncSamplesS);
        let issue = Col::Perf(PerfMetric::RqIssueWBytesS);
        for (sec, n) in &p.fsync_per_sec {
            sink.event(&fsync, *sec as f64 + off, *n as f64);
        }
        let mut any = !p.fsync_per_sec.is_empty();
        for t in &p.tracepoints {
            if t.event.ends_with("block_rq_issue") && t.rwbs.contains('W') {
                sink.event(&issue, t.sec as f64 + off, t.bytes as f64);
                any = true;
            }
        }
        if let (Some(a0), Some(b0)) = (p.first_ts, p.last_ts) {
            sink.dense(&fsync, a0 + off, b0 + off);
            sink.dense(&issue, a0 + off, b0 + off);
            let seen = Col::Perf(PerfMetric::SamplesSeen);
            sink.event(&seen, a0 + off, 0.0);
            sink.event(&seen, b0 + off, 0.0);
            any = true;
        }
        any.then_some((a, u))
    }
}
