//! The collector's own cost (issue 41): what observing cost, read from
//! `collector-cost.txt` of `samples/collect.sh`. Its processes (by pid from the
//! record, and by comm: perf, iostat, pidstat, vmstat, sadc, ...) are never
//! writers, issuers or the cause of CPU saturation; a capture whose collector
//! used more than a few percent of the CPU, or whose watchdog had to act,
//! carries a capture-quality note.

use crate::source::ThreadTotal;
use iosift_parsers::collector_cost::CollectorCost;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Over this share of the machine (percent of all CPUs) over the capture, the collector's
/// cost is worth a note.
pub(crate) const NOTE_PCT: f64 = 3.0;
/// An interval where one collector process used more than this share of one CPU is one
/// where it spun (the watchdog's budget for perf).
pub(crate) const SPIN_ONE_CPU_PCT: f64 = 20.0;

/// The collector's samplers by comm (`samples/collect.sh`, pt-stalk, sysstat's collectors):
/// they write their output files as they run and are never a workload's writer or issuer.
const COLLECTOR_COMMS: &[&str] =
    &["perf", "pidstat", "iostat", "vmstat", "mpstat", "sadc", "sar", "dstat", "dool", "pt-stalk"];

/// Whether a comm is one of the collector's samplers.
pub(crate) fn is_collector_comm(comm: &str) -> bool {
    let c = comm.trim();
    COLLECTOR_COMMS.contains(&c) || c.starts_with("perf-exec")
}

/// One collector process and its cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CollectorProcess {
    /// Its name in the collector (`perf-profile`, `iostat`, `collect.sh`).
    pub name: String,
    /// Its pid.
    pub pid: u32,
    /// CPU seconds between its first and last sample.
    pub cpu_s: f64,
}

/// A watchdog event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CollectorEvent {
    /// When (epoch).
    pub epoch: f64,
    /// The tool.
    pub name: String,
    /// Its pid.
    pub pid: u32,
    /// `restarted`, `stopped`, `noted`.
    pub action: String,
    /// Its share of one CPU over the window (percent).
    pub share_pct: f64,
    /// Its budget (percent of one CPU).
    pub budget_pct: f64,
    /// The collector's words.
    pub text: String,
}

/// What observing cost (`findings.json` `bundle.collector`, when the capture recorded it).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CollectorView {
    /// The collector's CPU over the record, percent of all CPUs.
    pub cpu_pct: Option<f64>,
    /// Its processes, most CPU first.
    pub processes: Vec<CollectorProcess>,
    /// The watchdog's events.
    pub events: Vec<CollectorEvent>,
    /// The first second of the first interval where one collector process spun
    /// (over [`SPIN_ONE_CPU_PCT`] of one CPU), and which.
    pub spun_from: Option<f64>,
    /// The end of that run of intervals.
    pub spun_until: Option<f64>,
    /// The process that spun.
    pub spun_by: Option<String>,
    /// The record it spun in, when the bundle has several (a cluster's nodes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spun_in: Option<String>,
    /// The capture-quality note, when the cost is worth one.
    pub note: Option<String>,
    /// Every pid of the collector.
    #[serde(skip)]
    pub pids: BTreeSet<u32>,
}

/// The first run of intervals where one process spun: (from, until, name, record).
fn spin<'a>(records: &[(&'a str, &CollectorCost)]) -> Option<(f64, f64, String, &'a str)> {
    for (file, c) in records {
        let mut run: Option<(f64, f64, String, &str)> = None;
        for iv in c.intervals() {
            let dt = iv.to - iv.from;
            let hot = iv.top.as_ref().filter(|(_, s)| dt > 0.0 && s / dt * 100.0 > SPIN_ONE_CPU_PCT);
            match (&mut run, hot) {
                (None, Some((n, _))) => run = Some((iv.from, iv.to, n.clone(), file)),
                (Some(r), Some(_)) if (iv.from - r.1).abs() < 1e-6 => r.1 = iv.to,
                (Some(_), _) => return run,
                (None, None) => {}
            }
        }
        if run.is_some() {
            return run;
        }
    }
    None
}

/// The view of every collector cost record of the capture, each with its file name
/// (`None`: not measured).
pub(crate) fn view(records: &[(&str, &CollectorCost)]) -> Option<CollectorView> {
    if records.is_empty() {
        return None;
    }
    let mut v = CollectorView::default();
    let mut cpu = 0.0;
    let mut span = 0.0;
    for (_, c) in records {
        for p in c.processes() {
            v.pids.insert(p.pid);
            v.processes.push(CollectorProcess { name: p.name, pid: p.pid, cpu_s: p.cpu_s });
        }
        for e in &c.events {
            v.pids.insert(e.pid);
            v.events.push(CollectorEvent {
                epoch: e.epoch,
                name: e.name.clone(),
                pid: e.pid,
                action: e.action.as_str().to_string(),
                share_pct: e.share_pct,
                budget_pct: e.budget_pct,
                text: e.text.clone(),
            });
        }
        let iv = c.intervals();
        if let (Some(a), Some(b)) = (iv.first(), iv.last()) {
            let ncpu = c.ncpu.filter(|n| *n > 0).unwrap_or(1) as f64;
            cpu += iv.iter().map(|i| i.cpu_s).sum::<f64>() / ncpu;
            span += b.to - a.from;
        }
    }
    v.processes.sort_by(|a, b| b.cpu_s.total_cmp(&a.cpu_s));
    v.cpu_pct = (span > 0.0).then(|| cpu / span * 100.0);
    if let Some((a, b, n, file)) = spin(records) {
        (v.spun_from, v.spun_until, v.spun_by) = (Some(a), Some(b), Some(n));
        // Several captures (a cluster's nodes): which one.
        v.spun_in = (records.len() > 1).then(|| file.to_string());
    }
    v.note = quality_note(&v);
    Some(v)
}

/// "the profiler spun from 23:02:15: CPU figures after that are the collector's" (issue 41).
fn quality_note(v: &CollectorView) -> Option<String> {
    let heavy = v.cpu_pct.is_some_and(|p| p > NOTE_PCT);
    if !heavy && v.events.is_empty() && v.spun_from.is_none() {
        return None;
    }
    let hms = crate::source::collector_hms;
    let total = v
        .cpu_pct
        .map(|p| format!("the collector used {p:.1} % of the CPU over the capture"))
        .unwrap_or_default();
    let mut s = String::from("Capture quality: ");
    if let (Some(a), Some(who)) = (v.spun_from, &v.spun_by) {
        let who = match &v.spun_in {
            Some(file) => format!("{who}, {file}"),
            None => who.clone(),
        };
        let what = if who.starts_with("perf") {
            format!("the profiler ({who})")
        } else {
            format!("the collector's {who}")
        };
        s.push_str(&format!("{what} spun from {} UTC", hms(a)));
        match v.events.iter().find(|e| e.action == "restarted" || e.action == "stopped") {
            Some(e) => s.push_str(&format!(
                " until the watchdog {} it at {} UTC ({:.0} % of one CPU, budget {:.0} %): CPU figures from {} to {} are the collector's",
                e.action,
                hms(e.epoch),
                e.share_pct,
                e.budget_pct,
                hms(a),
                hms(e.epoch)
            )),
            None => s.push_str(&format!(": CPU figures after that are the collector's (until {} UTC)", hms(v.spun_until.unwrap_or(a)))),
        }
        if !total.is_empty() {
            s.push_str(&format!("; {total}"));
        }
    } else {
        s.push_str(&total);
        for e in &v.events {
            s.push_str(&format!("; watchdog: {} {} at {} UTC", e.name, e.action, hms(e.epoch)));
        }
    }
    s.push('.');
    Some(s)
}

/// pidstat's threads without the collector's (by pid or by comm).
pub(crate) fn without_collector(
    threads: &BTreeMap<u32, ThreadTotal>,
    v: Option<&CollectorView>,
) -> BTreeMap<u32, ThreadTotal> {
    threads
        .iter()
        .filter(|(tid, t)| {
            let pid = t.tgid.unwrap_or(**tid);
            !is_collector_comm(&t.comm) && !v.is_some_and(|v| v.pids.contains(&pid) || v.pids.contains(tid))
        })
        .map(|(k, t)| (*k, t.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use iosift_parsers::common::Format;

    const SPUN: &[u8] = b"# iosift collector cost v1
# clk_tck 100 ncpu 2 every_s 5 main_pid 10
cpu 1000.0 20 perf-profile S 0 2 0 0
cpu 1000.0 10 collect.sh S 1 1 0 0
cpu 1005.0 20 perf-profile R 1 3 0 0
cpu 1010.0 20 perf-profile R 100 400 0 0
cpu 1015.0 20 perf-profile R 200 800 0 0
event 1015.2 20 perf-profile restarted 100.0 20 10 restarted as perf record -a
cpu 1020.0 30 perf-profile-a S 1 1 0 0
cpu 1025.0 30 perf-profile-a S 1 2 0 0
";

    #[test]
    fn a_spin_makes_the_note_and_its_pids_are_the_collectors() {
        let c = iosift_parsers::collector_cost::Fmt::parse(SPUN).value;
        let v = view(&[("collector-cost.txt", &c)]).expect("measured");
        assert_eq!(v.spun_from, Some(1005.0));
        assert_eq!(v.spun_until, Some(1015.0));
        assert_eq!(v.spun_by.as_deref(), Some("perf-profile"));
        let note = v.note.as_deref().unwrap();
        assert!(note.contains("the profiler (perf-profile) spun from 00:16:45 UTC until the watchdog restarted it at 00:16:55"), "{note}");
        assert!(v.pids.contains(&20) && v.pids.contains(&30) && v.pids.contains(&10));
        // Two records (a cluster's nodes): the note names the one that spun.
        let cheap = iosift_parsers::collector_cost::Fmt::parse(
            b"# iosift collector cost v1\ncpu 1 5 iostat S 0 1 0 0\n",
        )
        .value;
        let two = view(&[("node1/collector-cost.txt", &cheap), ("node3/collector-cost.txt", &c)]).unwrap();
        let note = two.note.unwrap();
        assert!(
            note.contains("the profiler (perf-profile, node3/collector-cost.txt) spun from 00:16:45 UTC"),
            "{note}"
        );
        let mut threads = BTreeMap::new();
        threads.insert(20, ThreadTotal { comm: "perf".into(), ..Default::default() });
        threads.insert(21, ThreadTotal { comm: "sh".into(), tgid: Some(10), ..Default::default() });
        threads.insert(99, ThreadTotal { comm: "mariadbd".into(), tgid: Some(99), ..Default::default() });
        let kept = without_collector(&threads, Some(&v));
        assert_eq!(kept.keys().copied().collect::<Vec<_>>(), vec![99]);
    }

    #[test]
    fn a_cheap_collector_makes_no_note() {
        let c = iosift_parsers::collector_cost::Fmt::parse(
            b"# iosift collector cost v1\n# clk_tck 100 ncpu 2\ncpu 1 5 iostat S 0 1 0 0\ncpu 11 5 iostat S 0 2 0 0\n",
        )
        .value;
        let v = view(&[("a/collector-cost.txt", &c), ("b/collector-cost.txt", &c)]).unwrap();
        assert!(v.note.is_none() && v.cpu_pct.unwrap() < 0.1);
        assert!(view(&[]).is_none());
    }
}
