//! `proc_stat`: `/proc/stat`, one snapshot or a series framed by pt-stalk `TS` lines
//! (pt-stalk `-procstat`): CPU time in clock ticks, context switches, forks, the running task
//! count and `procs_blocked` (the kernel's `nr_iowait()`: tasks sleeping in I/O waits, not every
//! `D`-state task: one blocked on a frozen file system's semaphore is not counted), and the boot
//! time that places the kernel log's seconds since boot on the wall clock.
//!
//! Real sample (`samples/pt_stalk_hung_task/capture/2026_12_05_20_47_09-procstat`, kernel 6.18;
//! the `intr` line cut):
//!
//! ```text
//! TS 1796503631.014891181 2026-12-05 20:47:11
//! cpu  724289 818 57889 20447 7541 0 1089 10274 0 0
//! cpu0 361333 454 28232 12649 3263 0 68 5109 0 0
//! intr 17403187 0 0 ...
//! ctxt 41011548
//! btime 1796499514
//! processes 29227
//! procs_running 3
//! procs_blocked 1
//! softirq 8117405 0 301530 4 622424 5637389 0 1405 ...
//! ```

use crate::common::lines::count_lines;
use crate::common::scrub::Identifiers;
use crate::common::ts::{TsLine, parse_ts_line};
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};

/// One snapshot.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Snapshot {
    /// 1-based line of its first field.
    pub line: usize,
    /// The `TS` line before it.
    pub ts: Option<TsLine>,
    /// `cpu` (all cores): user, nice, system, idle, iowait, irq, softirq, steal, guest, guest_nice ticks.
    pub cpu: Vec<u64>,
    /// `cpuN` lines: core number and its ticks.
    pub cores: Vec<(u32, Vec<u64>)>,
    /// `ctxt`: context switches since boot.
    pub ctxt: Option<u64>,
    /// `processes`: forks since boot.
    pub processes: Option<u64>,
    /// `procs_running`.
    pub running: Option<u64>,
    /// `procs_blocked`: tasks waiting for I/O (`nr_iowait`).
    pub blocked: Option<u64>,
}

/// A parsed file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProcStat {
    /// Snapshots in file order.
    pub snapshots: Vec<Snapshot>,
    /// `btime`: the boot time, epoch seconds (the same in every snapshot of one boot).
    pub btime: Option<u64>,
    /// 1-based line of the first `btime`.
    pub btime_line: usize,
}

fn numbers(rest: &str) -> Option<Vec<u64>> {
    rest.split_whitespace().map(|x| x.parse().ok()).collect()
}

/// The reader.
#[derive(Debug, Clone, Copy)]
pub struct Fmt;

impl Format for Fmt {
    type Output = ProcStat;
    const ID: &'static str = "proc_stat";
    const SAMPLE: &'static str = "cpu  724289 818 57889 20447 7541 0 1089 10274 0 0";
    const DESCRIPTION: &'static str = "/proc/stat, one snapshot or TS-framed (pt-stalk -procstat): CPU ticks, context switches, running and blocked tasks, boot time";

    /// Yes when the first line (after an optional `TS` line) is the `cpu ` total line.
    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let text = String::from_utf8_lossy(head);
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let mut first = lines.next().unwrap_or("");
        if parse_ts_line(first).is_some() {
            first = lines.next().unwrap_or("");
        }
        match first.strip_prefix("cpu ") {
            Some(rest) if numbers(rest).is_some_and(|n| n.len() >= 4) => Sniff::Yes,
            _ => Sniff::No,
        }
    }

    fn parse(input: &[u8]) -> Parsed<ProcStat> {
        let mut out = ProcStat::default();
        let mut d = Diags::default();
        let mut ts = None;
        let mut cur: Option<Snapshot> = None;
        for (l, text) in Lines::new(input).content() {
            let t = text.trim_end();
            if let Some(tsl) = parse_ts_line(t) {
                out.snapshots.extend(cur.take());
                ts = Some(tsl);
                continue;
            }
            let (key, rest) = t.split_once(' ').unwrap_or((t, ""));
            let known = matches!(
                key,
                "cpu"
                    | "ctxt"
                    | "processes"
                    | "procs_running"
                    | "procs_blocked"
                    | "btime"
                    | "intr"
                    | "softirq"
                    | "page"
                    | "swap"
            ) || key.strip_prefix("cpu").is_some_and(|n| n.parse::<u32>().is_ok());
            if !known {
                d.skip(l.no, DiagKind::Malformed, t);
                continue;
            }
            if key == "cpu" {
                out.snapshots.extend(cur.take());
            }
            let snap = cur.get_or_insert_with(|| Snapshot { line: l.no, ts, ..Snapshot::default() });
            let first = || rest.split_whitespace().next().and_then(|x| x.parse::<u64>().ok());
            let ok = match key {
                "cpu" => numbers(rest).map(|n| snap.cpu = n).is_some(),
                "ctxt" => first().map(|x| snap.ctxt = Some(x)).is_some(),
                "processes" => first().map(|x| snap.processes = Some(x)).is_some(),
                "procs_running" => first().map(|x| snap.running = Some(x)).is_some(),
                "procs_blocked" => first().map(|x| snap.blocked = Some(x)).is_some(),
                "btime" => match first() {
                    Some(b) => {
                        if out.btime.is_none() {
                            out.btime_line = l.no;
                        }
                        out.btime.get_or_insert(b);
                        true
                    }
                    None => false,
                },
                // Interrupt and softirq counts per source: not read.
                "intr" | "softirq" | "page" | "swap" => true,
                k => match (k[3..].parse::<u32>(), numbers(rest)) {
                    (Ok(n), Some(v)) => {
                        snap.cores.push((n, v));
                        true
                    }
                    _ => false,
                },
            };
            if !ok {
                d.skip(l.no, DiagKind::BadNumber, t);
            }
        }
        out.snapshots.extend(cur.take());
        d.finish(out, count_lines(input))
    }
}

impl Summary for ProcStat {
    fn records(&self) -> usize {
        self.snapshots.len()
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        v.insert(
            "framing",
            if self.snapshots.iter().any(|s| s.ts.is_some()) { "ts" } else { "single" }.into(),
        );
        if let Some(c) = self.snapshots.first().map(|s| s.cores.len()).filter(|c| *c > 0) {
            v.insert("cores", c.to_string());
        }
        if let Some(b) = self.snapshots.iter().filter_map(|s| s.blocked).max() {
            v.insert("max_blocked", b.to_string());
        }
        v
    }

    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        let first = self.snapshots.iter().find_map(|s| s.ts)?;
        let last = self.snapshots.iter().rev().find_map(|s| s.ts)?;
        Some((Stamp::Epoch(first.epoch), Stamp::Epoch(last.epoch)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_snapshots_with_their_counters() {
        let input = b"TS 1796503631.014891181 2026-12-05 20:47:11\ncpu  724289 818 57889 20447 7541 0 1089 10274 0 0\n\
cpu0 361333 454 28232 12649 3263 0 68 5109 0 0\nctxt 41011548\nbtime 1796499514\nprocesses 29227\nprocs_running 3\nprocs_blocked 1\n\
TS 1796503632.01 2026-12-05 20:47:12\ncpu  724389 818 57889 20447 7541 0 1089 10274 0 0\nctxt 41011648\nbtime 1796499514\nprocs_blocked 0\n";
        assert_eq!(Fmt::sniff(input), Sniff::Yes);
        let p = Fmt::parse(input);
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let s = &p.value.snapshots;
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].blocked, s[1].blocked, s[1].ctxt), (Some(1), Some(0), Some(41011648)));
        assert_eq!(s[0].cores, vec![(0, vec![361333, 454, 28232, 12649, 3263, 0, 68, 5109, 0, 0])]);
        assert_eq!(p.value.btime, Some(1796499514));
    }
}
