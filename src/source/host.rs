//! Host context of pt-stalk samples on the timeline: `top -b` (processes in
//! D state, the database server's CPU, iowait), `/proc/interrupts` (all
//! interrupts per second), `netstat -s` (TCP retransmissions per second) and
//! `/proc/stat` (blocked and running tasks, context switches and forks per
//! second; its boot time places the kernel log on the wall clock).

use super::{Adapter, Sink, State, Visit, snapshot_pairs};
use crate::clock::{Anchoring, DayRoller};
use crate::table::Col;
use crate::table::columns::HostMetric;
use iosift_parsers::Stamp;

/// `top -b` iterations.
pub(super) struct Top<'d>(pub &'d iosift_parsers::top::Top);

/// `/proc/interrupts` snapshots.
pub(super) struct Interrupts<'d>(pub &'d iosift_parsers::procfs::interrupts::Interrupts);

/// `netstat -s` / `-antp` snapshots.
pub(super) struct Netstat<'d>(pub &'d iosift_parsers::netstat::Netstat);

/// `/proc/stat` snapshots.
pub(super) struct ProcStat<'d>(pub &'d iosift_parsers::procfs::stat::ProcStat);

impl<'d> Adapter<'d> for ProcStat<'d> {
    fn context(&self, file: &str, ctx: &mut crate::source::Context) {
        if let Some(b) = self.0.btime
            && ctx.btime.is_none()
        {
            ctx.btime =
                Some(crate::source::Sourced { value: b, file: file.to_string(), line: self.0.btime_line });
        }
    }

    fn visit(&self, v: &mut Visit<'_>, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        let x = self.0;
        let epoch = |s: &iosift_parsers::procfs::stat::Snapshot| s.ts.map(|t| t.epoch);
        for s in &x.snapshots {
            let Some(t) = epoch(s) else { continue };
            sink.at(s.line);
            for (m, n) in
                [(HostMetric::StatProcsBlocked, s.blocked), (HostMetric::StatProcsRunning, s.running)]
            {
                if let Some(n) = n {
                    sink.gauge(&Col::Host(m), t, n as f64);
                }
            }
        }
        for (a, b, t, dt) in snapshot_pairs(&x.snapshots, epoch) {
            sink.at(b.line);
            for (m, p, c) in
                [(HostMetric::StatCtxtS, a.ctxt, b.ctxt), (HostMetric::StatForksS, a.processes, b.processes)]
            {
                if let (Some(p), Some(c)) = (p, c)
                    && let Some(n) = v.delta(p as f64, c as f64)
                {
                    sink.rate(&Col::Host(m), t, dt, n / dt);
                }
            }
        }
        x.snapshots.iter().any(|s| s.ts.is_some()).then_some((Anchoring::Epoch, 0.01))
    }
}

impl<'d> Adapter<'d> for Top<'d> {
    fn state(&self) -> Option<State<'d>> {
        Some(State::Top(self.0))
    }

    fn visit(&self, v: &mut Visit<'_>, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        // `top - 19:14:23` is a time of day: the date is the pt-stalk prefix's.
        let prefix = crate::clock::pt_stalk_prefix(&v.file.base)?;
        let mut roller = DayRoller::new(prefix.date());
        let mut prev: Option<f64> = None;
        for (k, it) in self.0.iterations.iter().enumerate() {
            let Some(Stamp::TimeOfDay(tod)) = it.time else { continue };
            let Some(end) = roller.place_time(v.zone, tod) else { continue };
            sink.at(it.line);
            sink.gauge(&Col::Host(HostMetric::TopDState), end, it.d_state() as f64);
            if let Some(r) = it.running {
                sink.gauge(&Col::Host(HostMetric::TopRunning), end, f64::from(r));
            }
            // The first iteration's figures are since boot / since each process started.
            let dt = prev.map(|p| end - p).filter(|d| *d > 0.0 && *d <= 60.0);
            prev = Some(end);
            let Some(dt) = dt.filter(|_| k > 0) else { continue };
            if let Some(wa) = it.cpu("wa") {
                sink.rate(&Col::Host(HostMetric::TopCpuWaPct), end, dt, wa);
            }
            for p in it.procs.iter().filter(|p| matches!(p.command.as_str(), "mariadbd" | "mysqld")) {
                if let Some(c) = p.cpu_pct {
                    sink.rate(&Col::ProcCpu(p.pid), end, dt, c);
                }
            }
        }
        prev.map(|_| (Anchoring::PtStalkPrefixInterval, 1.0))
    }
}

impl<'d> Adapter<'d> for Interrupts<'d> {
    fn visit(&self, v: &mut Visit<'_>, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        let x = self.0;
        for (a, b, t, dt) in snapshot_pairs(&x.snapshots, |s| s.epoch) {
            if let Some(n) = v.delta(a.total() as f64, b.total() as f64) {
                sink.at(b.line);
                sink.rate(&Col::Host(HostMetric::IrqTotalS), t, dt, n / dt);
            }
        }
        x.snapshots.iter().any(|s| s.epoch.is_some()).then_some((Anchoring::Epoch, 0.01))
    }
}

impl<'d> Adapter<'d> for Netstat<'d> {
    fn state(&self) -> Option<State<'d>> {
        Some(State::Netstat(self.0))
    }

    fn visit(&self, v: &mut Visit<'_>, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        let x = self.0;
        let key = "Tcp: segments retransmitted";
        for (a, b, t, dt) in snapshot_pairs(&x.snapshots, |s| s.epoch) {
            if let (Some(p), Some(c)) = (a.counters.get(key), b.counters.get(key))
                && let Some(n) = v.delta(*p as f64, *c as f64)
            {
                sink.at(b.line);
                sink.rate(&Col::Host(HostMetric::NetTcpRetransS), t, dt, n / dt);
            }
            if let Some(e) = b.states.get("ESTABLISHED") {
                sink.gauge(&Col::Host(HostMetric::NetTcpEstablished), t, *e as f64);
            }
        }
        x.snapshots.iter().any(|s| s.epoch.is_some()).then_some((Anchoring::Epoch, 0.01))
    }
}
