//! `collector_cost`: `samples/collect.sh`'s record of its own cost
//! (`collector-cost.txt`, issue 41): the cumulative CPU ticks of each of its
//! processes every few seconds (`cpu` rows, from `/proc/PID/stat`), and what
//! its watchdog did to a tool over its budget (`event` rows).
//!
//! Real sample (`samples/collector_watchdog_perf_spin/capture/collector-cost.txt`,
//! collect.sh of issue 41 on kernel 6.18, perf 6.1):
//!
//! ```text
//! # iosift collector cost v1
//! # clk_tck 100 ncpu 2 every_s 5 main_pid 24188
//! # cpu EPOCH PID NAME STATE UTIME STIME CUTIME CSTIME
//! # event EPOCH PID NAME ACTION SHARE_PCT BUDGET_PCT WINDOW_S TEXT
//! cpu 1796527530.377865823 24264 perf-profile S 0 2 0 0
//! event 1796527560.603412116 24264 perf-profile restarted 93.7 20 10 perf record -g -F 49 -p stopped; ...
//! ```
//!
//! `UTIME`..`CSTIME` are fields 14-17 of `/proc/PID/stat` in `clk_tck` ticks,
//! cumulative since the process started. A process's own cost is all four
//! (a collector loop's `cat`/`date` children are in `CUTIME`/`CSTIME`), except
//! the collector's main shell (`main_pid`, named `collect.sh`), whose children's
//! times include the collectors it reaped: only its `UTIME + STIME` count.

use crate::common::lines::count_lines;
use crate::common::scrub::Identifiers;
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};

/// The first line of the record.
const MAGIC: &str = "# iosift collector cost";

/// One `cpu` row: a process's cumulative CPU at one sample.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuRow {
    /// 1-based line.
    pub line: usize,
    /// Seconds since the epoch of the sample.
    pub epoch: f64,
    /// The process.
    pub pid: u32,
    /// Its name in `collectors.pids` (`perf-profile`, `iostat`, `proc-loop`, ..., `collect.sh`).
    pub name: String,
    /// `/proc/PID/stat` state letter.
    pub state: String,
    /// User ticks.
    pub utime: u64,
    /// System ticks.
    pub stime: u64,
    /// User ticks of waited-for children.
    pub cutime: u64,
    /// System ticks of waited-for children.
    pub cstime: u64,
}

/// What the watchdog did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Stopped and started again in a safer mode (`perf record -a` for `perf record -p`).
    Restarted,
    /// Stopped for the rest of the capture.
    Stopped,
    /// Over budget, left running.
    Noted,
    /// A word this reader does not know (a later collector).
    Other(String),
}

impl Action {
    fn of(word: &str) -> Action {
        match word {
            "restarted" => Action::Restarted,
            "stopped" => Action::Stopped,
            "noted" => Action::Noted,
            other => Action::Other(other.to_string()),
        }
    }
    /// The word of the record.
    pub fn as_str(&self) -> &str {
        match self {
            Action::Restarted => "restarted",
            Action::Stopped => "stopped",
            Action::Noted => "noted",
            Action::Other(w) => w,
        }
    }
}

/// One `event` row: a tool over its budget and what was done.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// 1-based line.
    pub line: usize,
    /// When (seconds since the epoch).
    pub epoch: f64,
    /// The process over budget.
    pub pid: u32,
    /// Its name.
    pub name: String,
    /// What was done.
    pub action: Action,
    /// Its measured share of one CPU over the window (percent).
    pub share_pct: f64,
    /// Its budget (percent of one CPU).
    pub budget_pct: f64,
    /// The window (seconds).
    pub window_s: f64,
    /// The collector's words (the mode it restarted in).
    pub text: String,
}

/// The cost of one collector process over the record.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcessCost {
    /// The process.
    pub pid: u32,
    /// Its name.
    pub name: String,
    /// First and last sample (epoch).
    pub first: f64,
    /// Last sample.
    pub last: f64,
    /// CPU seconds between them.
    pub cpu_s: f64,
}

/// The collector's CPU in one interval between two samples.
#[derive(Debug, Clone, PartialEq)]
pub struct Interval {
    /// Start (epoch of the previous sample).
    pub from: f64,
    /// End (epoch of this sample).
    pub to: f64,
    /// CPU seconds of every collector process in it.
    pub cpu_s: f64,
    /// 1-based line of the last `cpu` row of the sample that ends it.
    pub line: usize,
    /// The process that used the most, and its CPU seconds.
    pub top: Option<(String, f64)>,
}

/// The parsed record.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CollectorCost {
    /// Ticks per second (`getconf CLK_TCK`).
    pub clk_tck: Option<u64>,
    /// Online CPUs.
    pub ncpu: Option<u64>,
    /// Seconds between samples.
    pub every_s: Option<u64>,
    /// The collector's main shell.
    pub main_pid: Option<u32>,
    /// `cpu` rows in file order.
    pub rows: Vec<CpuRow>,
    /// `event` rows in file order.
    pub events: Vec<Event>,
}

impl CollectorCost {
    fn tck(&self) -> f64 {
        self.clk_tck.filter(|t| *t > 0).unwrap_or(100) as f64
    }

    /// The ticks that are the process's own cost (see the module text).
    pub fn own_ticks(&self, r: &CpuRow) -> u64 {
        let own = r.utime.saturating_add(r.stime);
        if Some(r.pid) == self.main_pid { own } else { own.saturating_add(r.cutime).saturating_add(r.cstime) }
    }

    /// Per process (in order of first appearance): its CPU seconds between its first and last sample.
    pub fn processes(&self) -> Vec<ProcessCost> {
        let mut out: Vec<(ProcessCost, u64, u64)> = Vec::new();
        for r in &self.rows {
            let t = self.own_ticks(r);
            match out.iter_mut().find(|(p, _, _)| p.pid == r.pid && p.name == r.name) {
                Some((p, _, last)) => {
                    p.last = r.epoch;
                    *last = t;
                }
                None => out.push((
                    ProcessCost {
                        pid: r.pid,
                        name: r.name.clone(),
                        first: r.epoch,
                        last: r.epoch,
                        cpu_s: 0.0,
                    },
                    t,
                    t,
                )),
            }
        }
        let tck = self.tck();
        out.into_iter()
            .map(|(p, a, b)| ProcessCost { cpu_s: b.saturating_sub(a) as f64 / tck, ..p })
            .collect()
    }

    /// The intervals between successive samples, with the CPU every process used in each
    /// (a process's ticks between its previous row and this one, counted in the interval
    /// that ends at this row's sample).
    pub fn intervals(&self) -> Vec<Interval> {
        let tck = self.tck();
        let mut prev: Vec<(u32, String, u64)> = Vec::new();
        let mut out: Vec<Interval> = Vec::new();
        let mut last_epoch: Option<f64> = None;
        for r in &self.rows {
            if last_epoch != Some(r.epoch) {
                if let Some(from) = last_epoch {
                    out.push(Interval { from, to: r.epoch, cpu_s: 0.0, line: r.line, top: None });
                }
                last_epoch = Some(r.epoch);
            }
            let t = self.own_ticks(r);
            let before = prev.iter_mut().find(|(p, n, _)| *p == r.pid && *n == r.name);
            let used = match before {
                Some((_, _, k)) => {
                    let d = t.saturating_sub(*k);
                    *k = t;
                    d
                }
                None => {
                    prev.push((r.pid, r.name.clone(), t));
                    0
                }
            };
            if let Some(iv) = out.last_mut().filter(|iv| iv.to == r.epoch) {
                let s = used as f64 / tck;
                iv.cpu_s += s;
                iv.line = r.line;
                if iv.top.as_ref().is_none_or(|(_, x)| s > *x) {
                    iv.top = Some((r.name.clone(), s));
                }
            }
        }
        out
    }

    /// The collector's CPU over the whole record, as a share of the machine (percent of all
    /// CPUs), when the record spans time.
    pub fn machine_share_pct(&self) -> Option<f64> {
        let iv = self.intervals();
        let (a, b) = (iv.first()?.from, iv.last()?.to);
        let cpu: f64 = iv.iter().map(|i| i.cpu_s).sum();
        (b > a).then(|| cpu / (b - a) / self.ncpu.filter(|n| *n > 0).unwrap_or(1) as f64 * 100.0)
    }
}

/// `cpu EPOCH PID NAME STATE UTIME STIME CUTIME CSTIME` (a small fixed grammar, nom).
fn cpu_row(t: &str) -> Option<(f64, u32, &str, &str, [u64; 4])> {
    use nom::Parser;
    use nom::bytes::complete::{tag, take_till1};
    use nom::character::complete::{space0, space1, u32 as pid, u64 as ticks};
    use nom::combinator::eof;
    use nom::number::complete::double;
    use nom::sequence::preceded;
    let word = || preceded(space1, take_till1(|c: char| c.is_whitespace()));
    let tick = || preceded(space1, ticks);
    let mut row = (
        tag("cpu"),
        preceded(space1, double),
        preceded(space1, pid),
        word(),
        word(),
        (tick(), tick(), tick(), tick()),
        space0,
        eof,
    );
    let parsed: nom::IResult<&str, _> = row.parse(t);
    let (_, (_, epoch, pid, name, state, (u, s, cu, cs), _, _)) = parsed.ok()?;
    Some((epoch, pid, name, state, [u, s, cu, cs]))
}

/// `event EPOCH PID NAME ACTION SHARE_PCT BUDGET_PCT WINDOW_S TEXT...`
fn event_row(t: &str, line: usize) -> Option<Event> {
    let mut it = t.splitn(9, ' ');
    (it.next()? == "event").then_some(())?;
    let epoch = it.next()?.parse().ok()?;
    let pid = it.next()?.parse().ok()?;
    let name = it.next()?.to_string();
    let action = Action::of(it.next()?);
    let share_pct = it.next()?.parse().ok()?;
    let budget_pct = it.next()?.parse().ok()?;
    let window_s = it.next()?.parse().ok()?;
    let text = it.next().unwrap_or("").trim().to_string();
    Some(Event { line, epoch, pid, name, action, share_pct, budget_pct, window_s, text })
}

/// `# clk_tck 100 ncpu 2 every_s 5 main_pid 24188`: the key/value pairs of a header comment.
fn header(t: &str, out: &mut CollectorCost) {
    let words: Vec<&str> = t.trim_start_matches('#').split_whitespace().collect();
    for kv in words.chunks(2) {
        if let [k, v] = kv {
            match *k {
                "clk_tck" => out.clk_tck = v.parse().ok().or(out.clk_tck),
                "ncpu" => out.ncpu = v.parse().ok().or(out.ncpu),
                "every_s" => out.every_s = v.parse().ok().or(out.every_s),
                "main_pid" => out.main_pid = v.parse().ok().or(out.main_pid),
                _ => {}
            }
        }
    }
}

/// The reader.
#[derive(Debug, Clone, Copy)]
pub struct Fmt;

impl Format for Fmt {
    type Output = CollectorCost;
    const ID: &'static str = "collector_cost";
    const SAMPLE: &'static str = "cpu 1796527530.377865823 24264 perf-profile S 0 2 0 0";
    const DESCRIPTION: &'static str =
        "collect.sh's record of its own cost: CPU ticks of each collector process, watchdog events";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        if head.starts_with(MAGIC.as_bytes()) { Sniff::Yes } else { Sniff::No }
    }

    fn parse(input: &[u8]) -> Parsed<CollectorCost> {
        let mut d = Diags::default();
        let mut out = CollectorCost::default();
        for (l, text) in Lines::new(input).content() {
            let t = text.trim();
            if t.starts_with('#') {
                header(t, &mut out);
            } else if let Some((epoch, pid, name, state, [utime, stime, cutime, cstime])) = cpu_row(t) {
                let (name, state) = (name.to_string(), state.to_string());
                out.rows.push(CpuRow { line: l.no, epoch, pid, name, state, utime, stime, cutime, cstime });
            } else if let Some(e) = event_row(t, l.no) {
                out.events.push(e);
            } else {
                d.skip(l.no, DiagKind::Malformed, t);
            }
        }
        d.finish(out, count_lines(input))
    }
}

impl Summary for CollectorCost {
    fn records(&self) -> usize {
        self.rows.len() + self.events.len()
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        if let Some(s) = self.machine_share_pct() {
            v.insert("collector_cpu_pct", format!("{s:.1}"));
        }
        v.insert("events", self.events.len().to_string());
        v
    }

    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        let a = self.rows.iter().map(|r| r.epoch).fold(f64::INFINITY, f64::min);
        let b = self.rows.iter().map(|r| r.epoch).fold(f64::NEG_INFINITY, f64::max);
        (a <= b).then_some((Stamp::Epoch(a), Stamp::Epoch(b)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REC: &[u8] = b"# iosift collector cost v1
# clk_tck 100 ncpu 2 every_s 5 main_pid 10
# cpu EPOCH PID NAME STATE UTIME STIME CUTIME CSTIME
cpu 100.0 20 perf-profile S 0 2 0 0
cpu 100.0 10 collect.sh S 1 1 50 50
cpu 105.0 20 perf-profile R 100 300 0 0
cpu 105.0 10 collect.sh S 1 2 900 900
cpu 110.0 20 perf-profile R 200 700 0 0
event 110.5 20 perf-profile restarted 100.0 20 10 perf record -p stopped; restarted as perf record -a
cpu 115.0 30 perf-profile-a S 1 1 0 0
";

    #[test]
    fn rows_events_and_costs() {
        assert_eq!(Fmt::sniff(REC), Sniff::Yes);
        assert_eq!(Fmt::sniff(b"cpu 1 2 x S 0 0 0 0\n"), Sniff::No);
        let p = Fmt::parse(REC);
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let c = p.value;
        assert_eq!((c.clk_tck, c.ncpu, c.main_pid), (Some(100), Some(2), Some(10)));
        assert_eq!(c.rows.len(), 6);
        assert_eq!(c.events.len(), 1);
        let e = &c.events[0];
        assert_eq!((e.pid, e.action.as_str(), e.share_pct, e.budget_pct), (20, "restarted", 100.0, 20.0));
        assert!(e.text.ends_with("perf record -a"));
        let procs = c.processes();
        let perf = procs.iter().find(|p| p.name == "perf-profile").unwrap();
        assert_eq!(perf.cpu_s, 8.98);
        // the main shell: only its own ticks (1 of them), not its reaped children
        let main = procs.iter().find(|p| p.name == "collect.sh").unwrap();
        assert_eq!(main.cpu_s, 0.01);
        let iv = c.intervals();
        assert_eq!(iv.len(), 3);
        assert_eq!((iv[0].from, iv[0].to), (100.0, 105.0));
        assert!((iv[0].cpu_s - 3.99).abs() < 1e-9);
        assert_eq!(iv[1].top.as_ref().map(|t| t.0.as_str()), Some("perf-profile"));
        // 8.99 CPU s over 15 s on 2 CPUs
        assert!((c.machine_share_pct().unwrap() - 29.966).abs() < 0.01);
    }

    #[test]
    fn bad_lines_are_diagnostics() {
        let p = Fmt::parse(
            b"# iosift collector cost v1\ncpu x 1 a S 1 2 3 4\nevent 1 2\ncpu 1 2 a S 1 2 3 4 extra\n",
        );
        assert_eq!(p.diagnostics.len(), 3);
        assert!(p.value.rows.is_empty() && p.value.machine_share_pct().is_none());
    }
}
