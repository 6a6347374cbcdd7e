//! Host context of pt-stalk samples on the timeline: `top -b` (processes in
//! D state, the database server's CPU, iowait), `/proc/interrupts` (all
//! interrupts per second) and `netstat -s` (TCP retransmissions per second).

use super::{Filler, Sink, snapshot_pairs};
use crate::clock::{Anchoring, DayRoller};
use iosift_parsers::{Data, Stamp};

impl Filler<'_> {
    /// Emits a host-context file's points; returns how its times were anchored.
    pub(super) fn visit_host(&self, i: usize, d: &Data, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        let f = &self.files[i];
        match d {
            Data::Top(t) => {
                // `top - 19:14:23` is a time of day: the date is the pt-stalk prefix's.
                let prefix = crate::clock::pt_stalk_prefix(&f.base)?;
                let mut roller = DayRoller::new(prefix.date());
                let mut prev: Option<f64> = None;
                for (k, it) in t.iterations.iter().enumerate() {
                    let Some(Stamp::TimeOfDay(tod)) = it.time else { continue };
                    let end = self.zone.local_to_epoch(roller.next(tod));
                    sink.at(it.line);
                    sink.gauge("top.d_state", "1", end, it.d_state() as f64);
                    if let Some(r) = it.running {
                        sink.gauge("top.running", "1", end, f64::from(r));
                    }
                    // The first iteration's figures are since boot / since each process started.
                    let dt = prev.map(|p| end - p).filter(|d| *d > 0.0 && *d <= 60.0);
                    prev = Some(end);
                    let Some(dt) = dt.filter(|_| k > 0) else { continue };
                    if let Some(wa) = it.cpu("wa") {
                        sink.rate("top.cpu_wa_pct", "%", end, dt, wa);
                    }
                    for p in it.procs.iter().filter(|p| matches!(p.command.as_str(), "mariadbd" | "mysqld")) {
                        if let Some(c) = p.cpu_pct {
                            sink.rate(&format!("proc.{}.cpu_pct", p.pid), "%", end, dt, c);
                        }
                    }
                }
                prev.map(|_| (Anchoring::PtStalkPrefixInterval, 1.0))
            }
            Data::Interrupts(x) => {
                for (a, b, t, dt) in snapshot_pairs(&x.snapshots, |s| s.epoch) {
                    if let Some(n) = self.delta(i, a.total() as f64, b.total() as f64) {
                        sink.at(b.line);
                        sink.rate("irq.total_s", "1/s", t, dt, n / dt);
                    }
                }
                x.snapshots.iter().any(|s| s.epoch.is_some()).then_some((Anchoring::Epoch, 0.01))
            }
            Data::Netstat(x) => {
                let key = "Tcp: segments retransmitted";
                for (a, b, t, dt) in snapshot_pairs(&x.snapshots, |s| s.epoch) {
                    if let (Some(p), Some(c)) = (a.counters.get(key), b.counters.get(key))
                        && let Some(n) = self.delta(i, *p as f64, *c as f64)
                    {
                        sink.at(b.line);
                        sink.rate("net.tcp_retrans_s", "1/s", t, dt, n / dt);
                    }
                    if let Some(e) = b.states.get("ESTABLISHED") {
                        sink.gauge("net.tcp_established", "1", t, *e as f64);
                    }
                }
                x.snapshots.iter().any(|s| s.epoch.is_some()).then_some((Anchoring::Epoch, 0.01))
            }
            _ => None,
        }
    }
}
