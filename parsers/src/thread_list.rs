//! `thread_list`: lists of the threads of processes (pid, tid, comm), one
//! snapshot or `TS`-framed snapshots, as capture scripts write them from
//! `/proc/PID/task/*/comm`.
//!
//! Real samples:
//!
//! ```text
//! pid 15545 tid 15574 comm gcache-w0              (bundles/s1_mmap_writeback/workload-threads.txt)
//!
//! TS 1795981346.295302628 2026-11-29 19:42:26     (bundles/s2a_mariadb_durable/os-threads.txt)
//! tid 18743 comm mariadbd
//! driver tid 19867 comm python
//!
//! TS 1795986834.427806862 2026-11-29 21:13:54     (samples/*/capture/threads-PID-COMM.txt, collect.sh)
//! 22054 1064 mariadbd
//! ```
//!
//! Keyword form: `[label] [pid N] tid N comm NAME` (the label before the
//! first keyword says whose thread it is, e.g. the load driver's). Bare form:
//! `PID TID COMM`. A comm is the rest of the line: kernel comms may contain
//! spaces (`wr thread 3`).

use crate::common::lines::count_lines;
use crate::common::scrub::Identifiers;
use crate::common::ts::parse_ts_line;
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};

/// One thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadEntry {
    /// 1-based line number.
    pub line: usize,
    /// Process (thread group) id, when the line gives it.
    pub pid: Option<u32>,
    /// Thread id (what pidstat `-t` and perf show as TID).
    pub tid: u32,
    /// Thread name (`/proc/PID/task/TID/comm`).
    pub comm: String,
    /// Words before the first keyword (`driver`), keyword form only.
    pub label: Option<String>,
}

/// One snapshot (the whole file when it is not `TS`-framed).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ThreadSnapshot {
    /// The `TS` epoch before the snapshot, if framed.
    pub epoch: Option<f64>,
    /// Threads in file order.
    pub threads: Vec<ThreadEntry>,
}

/// A parsed thread list.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ThreadList {
    /// Snapshots in file order.
    pub snapshots: Vec<ThreadSnapshot>,
    /// `"keywords"` or `"pid tid comm"`.
    pub layout: &'static str,
}

impl ThreadList {
    /// The latest name seen for a thread id.
    pub fn comm_of(&self, tid: u32) -> Option<&str> {
        self.snapshots
            .iter()
            .rev()
            .flat_map(|s| s.threads.iter())
            .find(|t| t.tid == tid)
            .map(|t| t.comm.as_str())
    }

    /// Every (tid, comm) pair, deduplicated, sorted by tid.
    pub fn tids(&self) -> Vec<(u32, &str)> {
        let mut v: Vec<(u32, &str)> =
            self.snapshots.iter().flat_map(|s| s.threads.iter()).map(|t| (t.tid, t.comm.as_str())).collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// `[label] [pid N] tid N comm NAME`.
fn parse_keywords(no: usize, t: &str) -> Option<ThreadEntry> {
    let mut rest = t;
    let mut label: Vec<&str> = Vec::new();
    let mut pid = None;
    let mut tid = None;
    loop {
        let (tok, r) = rest.split_once(char::is_whitespace)?;
        let r = r.trim_start();
        match tok {
            "pid" | "tid" => {
                let (n, r2) = r.split_once(char::is_whitespace)?;
                let n: u32 = n.parse().ok()?;
                if tok == "pid" {
                    pid = Some(n)
                } else {
                    tid = Some(n)
                }
                rest = r2.trim_start();
            }
            "comm" => {
                let comm = r.trim_end();
                if comm.is_empty() {
                    return None;
                }
                let label = (!label.is_empty()).then(|| label.join(" "));
                return Some(ThreadEntry { line: no, pid, tid: tid?, comm: comm.to_string(), label });
            }
            _ if pid.is_none() && tid.is_none() && label.len() < 4 => {
                label.push(tok);
                rest = r;
            }
            _ => return None,
        }
    }
}

/// `22054 1064 mariadbd`.
fn parse_bare(no: usize, t: &str) -> Option<ThreadEntry> {
    let (p, r) = t.split_once(char::is_whitespace)?;
    let (tid, comm) = r.trim_start().split_once(char::is_whitespace)?;
    let pid: u32 = p.parse().ok()?;
    let tid: u32 = tid.parse().ok()?;
    let comm = comm.trim();
    if comm.is_empty() || comm.contains('\t') {
        return None;
    }
    Some(ThreadEntry { line: no, pid: Some(pid), tid, comm: comm.to_string(), label: None })
}

/// The reader.
#[derive(Debug, Clone, Copy)]
pub struct Fmt;

impl Format for Fmt {
    type Output = ThreadList;
    const ID: &'static str = "thread_list";
    const SAMPLE: &'static str = "pid 15545 tid 15574 comm gcache-w0";
    const DESCRIPTION: &'static str = "thread lists (pid, tid, comm), plain or TS-framed";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let mut framed = false;
        for l in Lines::new(head).filter(|l| !l.is_blank()) {
            let t = l.text();
            let t = t.trim();
            if parse_ts_line(t).is_some() {
                framed = true;
                continue;
            }
            if parse_keywords(l.no, t).is_some() {
                return Sniff::Yes;
            }
            if parse_bare(l.no, t).is_some() {
                return if framed { Sniff::Yes } else { Sniff::Unsure };
            }
            return Sniff::No;
        }
        Sniff::No
    }

    fn parse(input: &[u8]) -> Parsed<ThreadList> {
        let mut out = ThreadList { snapshots: Vec::new(), layout: "pid tid comm" };
        let mut d = Diags::default();
        for (l, text) in Lines::new(input).content() {
            let t = text.trim();
            if let Some(ts) = parse_ts_line(t) {
                out.snapshots.push(ThreadSnapshot { epoch: Some(ts.epoch), threads: Vec::new() });
                continue;
            }
            let e = match parse_keywords(l.no, t) {
                Some(e) => {
                    out.layout = "keywords";
                    Some(e)
                }
                None => parse_bare(l.no, t),
            };
            match e {
                Some(e) => {
                    if out.snapshots.is_empty() {
                        out.snapshots.push(ThreadSnapshot::default());
                    }
                    if let Some(s) = out.snapshots.last_mut() {
                        s.threads.push(e);
                    }
                }
                None => d.skip(l.no, DiagKind::Malformed, t),
            }
        }
        d.finish(out, count_lines(input))
    }
}

impl Summary for ThreadList {
    fn records(&self) -> usize {
        self.snapshots.iter().map(|s| s.threads.len()).sum()
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        v.insert("layout", self.layout.to_string());
        v.insert("snapshots", self.snapshots.len().to_string());
        v.insert("distinct_tids", self.tids().len().to_string());
        v
    }

    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        let first = self.snapshots.iter().find_map(|s| s.epoch)?;
        let last = self.snapshots.iter().rev().find_map(|s| s.epoch).unwrap_or(first);
        Some((Stamp::Epoch(first), Stamp::Epoch(last)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_layouts() {
        let p = Fmt::parse(b"pid 15545 tid 15574 comm gcache-w0\n");
        assert_eq!(p.value.comm_of(15574), Some("gcache-w0"));
        assert_eq!(p.value.snapshots[0].threads[0].pid, Some(15545));
        let p = Fmt::parse(b"TS 1795981346.295302628 2026-11-29 19:42:26\ntid 18743 comm mariadbd\ndriver tid 19867 comm python\n");
        assert!(p.diagnostics.is_empty());
        assert_eq!(p.value.snapshots[0].threads[1].label.as_deref(), Some("driver"));
        let p = Fmt::parse(b"TS 1795986834.427806862 2026-11-29 21:13:54\n22054 1064 wr thread 3\n");
        assert_eq!(p.value.comm_of(1064), Some("wr thread 3"));
        assert_eq!(
            Fmt::sniff(b"TS 1795986834.427806862 2026-11-29 21:13:54\n22054 1064 mariadbd\n"),
            Sniff::Yes
        );
        assert_eq!(Fmt::sniff(b"8826 iostat\n"), Sniff::No);
        let _ = Fmt::parse(b"pid tid comm\n\xff\xfe\ncomm\n");
    }
}
