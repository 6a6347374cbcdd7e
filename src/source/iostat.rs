//! `iostat -x` (text and JSON): per-device I/O and latency (`dev.*`) and the
//! CPU of its `avg-cpu` blocks, anchored by its `-t` times, else the
//! pt-stalk prefix, the bundle's start or the banner date.

use super::{Adapter, Measure, Offer, Sink, Visit, stamp_epoch};
use crate::clock::{Anchoring, DayRoller, ZoneEvidence};
use crate::table::Col;
use crate::table::columns::{CpuMetric, DevMetric, SeenOf};

/// Devices whose column keys a visit keeps to reuse; the rows of others make theirs anew
/// (a linear search: an iostat of thousands of devices must not search them all per row).
const KEYED_DEVICES: usize = 64;

/// An iostat file.
pub(super) struct Iostat<'d>(pub &'d iosift_parsers::iostat::Iostat);

impl<'d> Adapter<'d> for Iostat<'d> {
    fn ambiguous_banner(&self) -> Option<&'d iosift_parsers::common::sysstat::Banner> {
        self.0.banner.as_ref()
    }

    fn offers(&self) -> Vec<Offer> {
        let i = self.0;
        let rows: usize = match &i.drained {
            Some(d) => d.rows,
            None => i.reports.iter().map(|r| r.devices.len()).sum(),
        };
        if rows == 0 {
            return Vec::new();
        }
        // Rows first, then kB over MB units, then text over JSON (same numbers, fewer digits).
        let precise = i.unit.is_none_or(|u| !u.contains('M')) as i64;
        let score = rows as i64 * 4 + precise * 2 + (!i.json) as i64;
        let why = "same measurements";
        let mut out = vec![Offer { measure: Measure::DeviceIo, tier: 3, score, why }];
        if i.drained.as_ref().map_or_else(|| i.reports.iter().any(|r| r.cpu.is_some()), |d| d.any_cpu) {
            out.push(Offer { measure: Measure::Cpu, tier: 3, score, why: "iostat avg-cpu" });
        }
        out
    }

    fn iostat(&self) -> Option<&'d iosift_parsers::iostat::Iostat> {
        Some(self.0)
    }

    fn zone_evidence(&self, _file: &str, ev: &mut ZoneEvidence) {
        let head: Vec<Option<iosift_parsers::Stamp>> = match &self.0.drained {
            Some(d) => d.head.clone(),
            None => self.0.reports.iter().take(3).map(|r| r.stamp).collect(),
        };
        for s in head {
            if let Some(iosift_parsers::Stamp::Zoned(d)) = s {
                ev.iso_offsets.push(d.offset().local_minus_utc());
            }
        }
    }

    fn visit(&self, v: &mut Visit<'_>, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        let io = self.0;
        let zone = v.zone;
        let used = v.uses(Measure::DeviceIo);
        let cpu_used = v.uses(Measure::Cpu);
        let mut roller = Some(DayRoller::maybe(io.banner.as_ref().and_then(|b| b.date)));
        let interval = io.interval_s.unwrap_or(1.0);
        let mut anchoring = None;
        let mut prev: Option<f64> = None;
        // Without a time: the pt-stalk prefix, else the bundle's start, else the
        // banner date at midnight (a day of uncertainty), plus index x interval.
        let banner_midnight = io
            .banner
            .as_ref()
            .and_then(|b| b.date)
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map(|n| zone.local_to_epoch(n));
        let fallback = v.fallback.with_midnight(banner_midnight);
        let mut keys: Vec<(std::sync::Arc<str>, Col)> = Vec::new();
        // Each report binned as it comes (read again from disk when none were kept: `super::replay`).
        super::replay::each_report(v.file, io, |rep| {
            let timed = rep.stamp.as_ref().and_then(|s| stamp_epoch(s, zone, roller.as_mut()));
            let Some((end, a)) = fallback.place(timed, interval * rep.index as f64) else { return };
            anchoring.get_or_insert(a);
            let dt = prev.map(|p| end - p).filter(|d| *d > 0.0 && *d <= 60.0).unwrap_or(interval);
            prev = Some(end);
            if rep.since_boot {
                return;
            }
            if cpu_used && let Some(c) = &rep.cpu {
                for (m, x) in [
                    (CpuMetric::UserPct, c.user()),
                    (CpuMetric::SystemPct, c.system()),
                    (CpuMetric::IowaitPct, c.iowait()),
                    (CpuMetric::IdlePct, c.idle()),
                ] {
                    if let Some(x) = x {
                        sink.rate(&Col::Cpu(m), end, dt, x);
                    }
                }
            }
            for d in &rep.devices {
                sink.at(d.line);
                if !used {
                    sink.rate(&Col::Seen(SeenOf::Iostat), end, dt, 0.0);
                    continue;
                }
                let m = &d.m;
                // One column key per device, its metric set in turn (not a name copied per value).
                let mut spare;
                let col = match keys.iter().position(|(n, _)| std::sync::Arc::ptr_eq(n, &d.device)) {
                    Some(i) => &mut keys[i].1,
                    None => {
                        let col = Col::Dev(d.device.trim().to_string(), DevMetric::WBytesS);
                        if keys.len() < KEYED_DEVICES {
                            keys.push((d.device.clone(), col));
                            &mut keys.last_mut().expect("pushed").1
                        } else {
                            spare = col;
                            &mut spare
                        }
                    }
                };
                for (k, x) in [
                    (DevMetric::WBytesS, m.w_bytes_s()),
                    (DevMetric::RBytesS, m.r_bytes_s()),
                    (DevMetric::WS, m.w_s()),
                    (DevMetric::RS, m.r_s()),
                    (DevMetric::FS, m.f_s()),
                    (DevMetric::WrqmS, m.wrqm_s()),
                    (DevMetric::WAwaitMs, m.w_await_ms()),
                    (DevMetric::RAwaitMs, m.r_await_ms()),
                    (DevMetric::FAwaitMs, m.f_await_ms()),
                    (DevMetric::AwaitMs, m.await_ms()),
                    (DevMetric::AquSz, m.aqu_sz()),
                    (DevMetric::UtilPct, m.util_pct()),
                    (DevMetric::WReqBytes, m.w_req_bytes()),
                    (DevMetric::Tps, m.tps()),
                ] {
                    if let (Some(x), Col::Dev(_, metric)) = (x, &mut *col) {
                        *metric = k;
                        sink.rate(col, end, dt, x);
                    }
                }
            }
        });
        let anchoring = anchoring?;
        Some((anchoring, crate::clock::Fallback::uncertainty_s(anchoring)))
    }
}
