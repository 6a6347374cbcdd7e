//! `netstat`: `netstat -antp` socket lists and `netstat -s` protocol
//! counters, one snapshot or pt-stalk `TS`-framed (`-netstat`, `-netstat_s`).
//!
//! Real samples (`samples/pt_stalk_mariadb/capture/2026_12_01_19_14_22-netstat` and `-netstat_s`, net-tools 2.10):
//!
//! ```text
//! TS 1796152464.035508605 2026-12-01 19:14:24
//! Active Internet connections (servers and established)
//! Proto Recv-Q Send-Q Local Address           Foreign Address         State       PID/Program name
//! tcp        0      0 127.0.0.1:3320          0.0.0.0:*               LISTEN      23847/mariadbd
//! ```
//!
//! ```text
//! TS 1796152464.035508605 2026-12-01 19:14:24
//! Tcp:
//!     132701 segments received
//!     30 segments retransmitted
//! ```
//!
//! Sockets are counted by state per snapshot, and listening ports are kept
//! with their process (`3320 -> 23847/mariadbd`). Counters are kept as
//! `Section: text` -> value (`Tcp: segments retransmitted`).

use crate::common::scrub::Identifiers;
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};
use crate::procfs::tsblocks;
use std::collections::BTreeMap;

/// One snapshot.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Snapshot {
    /// Its `TS` epoch, when framed.
    pub epoch: Option<f64>,
    /// 1-based line of the snapshot.
    pub line: usize,
    /// Sockets by state (`ESTABLISHED`, `LISTEN`, `TIME_WAIT`, ...).
    pub states: BTreeMap<String, usize>,
    /// Listening TCP port -> `PID/Program name` (`-` when not shown).
    pub listeners: BTreeMap<u16, String>,
    /// `netstat -s` counters: `Tcp: segments retransmitted` -> 30.
    pub counters: BTreeMap<String, u64>,
}

/// A parsed netstat file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Netstat {
    /// `connections` (`-antp`) or `statistics` (`-s`).
    pub kind: &'static str,
    /// Snapshots in file order.
    pub snapshots: Vec<Snapshot>,
}

impl Netstat {
    /// The process listening on a TCP port, from the last snapshot that shows it (`23847/mariadbd`).
    pub fn listener(&self, port: u16) -> Option<&str> {
        self.snapshots.iter().rev().find_map(|s| s.listeners.get(&port)).map(String::as_str)
    }
}

impl Summary for Netstat {
    fn records(&self) -> usize {
        self.snapshots.len()
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        v.insert("kind", self.kind.to_string());
        if let Some(s) = self.snapshots.last() {
            if !s.states.is_empty() {
                let st: Vec<String> = s.states.iter().map(|(k, n)| format!("{k} {n}")).collect();
                v.insert("sockets", st.join(", "));
            }
            if !s.listeners.is_empty() {
                let l: Vec<String> = s.listeners.iter().map(|(p, w)| format!("{p} {w}")).collect();
                v.insert("listening", l.join(", "));
            }
        }
        let key = "Tcp: segments retransmitted";
        if let (Some(a), Some(b)) = (
            self.snapshots.first().and_then(|s| s.counters.get(key)),
            self.snapshots.last().and_then(|s| s.counters.get(key)),
        ) {
            v.insert("tcp_retransmitted", format!("{}", b.saturating_sub(*a)));
        }
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        crate::procfs::tsblocks::epoch_range(self.snapshots.iter().map(|s| s.epoch))
    }
}

/// `netstat -s` section titles: `Ip:`, `Tcp:`, `TcpExt:`, `IpExt:`, `MPTcpExt:`, ...
fn section(t: &str) -> Option<&str> {
    let s = t.strip_suffix(':')?;
    (!t.starts_with(' ') && !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric())).then_some(s)
}

/// `    30 segments retransmitted`, `    Forwarding: 2`, `    InOctets: 123`, or a number inside the
/// text (`    Quick ack mode was activated 33 times`: kept as `Quick ack mode was activated N times`).
fn counter(t: &str) -> Option<(String, u64)> {
    let tl = t.trim();
    let (first, rest) = tl.split_once(' ')?;
    if let Ok(n) = first.parse::<u64>() {
        return Some((rest.trim().to_string(), n));
    }
    if let Some((name, val)) = tl.rsplit_once(' ')
        && let Ok(v) = val.parse()
    {
        return Some((name.trim_end_matches(':').trim().to_string(), v));
    }
    let toks: Vec<&str> = tl.split(' ').collect();
    let at = toks.iter().position(|w| w.parse::<u64>().is_ok())?;
    let v = toks[at].parse().ok()?;
    let name: Vec<&str> = toks.iter().enumerate().map(|(i, w)| if i == at { "N" } else { w }).collect();
    Some((name.join(" "), v))
}

/// The `netstat` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Netstat;
    const ID: &'static str = "netstat";
    const SAMPLE: &'static str =
        "tcp        0      0 127.0.0.1:3320          0.0.0.0:*               LISTEN      23847/mariadbd";
    const DESCRIPTION: &'static str =
        "netstat -antp sockets and netstat -s counters, pt-stalk -netstat / -netstat_s";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        for l in Lines::new(head).filter(|l| !l.is_blank() && !tsblocks::is_ts_line(l.bytes)).take(2) {
            let t = l.text();
            if t.starts_with("Active Internet connections") || t.starts_with("Proto Recv-Q Send-Q") {
                return Sniff::Yes;
            }
            if t.trim_end() == "Ip:" {
                return Sniff::Yes;
            }
        }
        Sniff::No
    }

    fn parse(input: &[u8]) -> Parsed<Netstat> {
        let mut d = Diags::default();
        let blocks = tsblocks::split(input, &mut d);
        let mut out = Netstat { kind: "connections", snapshots: Vec::new() };
        for b in blocks {
            let mut s = Snapshot { epoch: b.ts.map(|t| t.epoch), line: b.first_line, ..Default::default() };
            let mut sec: Option<String> = None;
            for l in b.lines {
                if l.is_blank() {
                    continue;
                }
                let text = l.text();
                let t = text.trim_end();
                if t.starts_with("Active ") || t.starts_with("Proto ") {
                    continue;
                }
                if let Some(name) = section(t) {
                    out.kind = "statistics";
                    sec = Some(name.to_string());
                    continue;
                }
                if let Some(sname) = &sec {
                    if t.trim().ends_with(':') {
                        continue; // `    ICMP input histogram:`
                    }
                    match counter(t) {
                        Some((k, v)) => {
                            s.counters.insert(format!("{sname}: {k}"), v);
                        }
                        None => d.skip(l.no, DiagKind::Malformed, t),
                    }
                    continue;
                }
                let f: Vec<&str> = t.split_whitespace().collect();
                match f.first().copied() {
                    Some("tcp" | "tcp6") if f.len() >= 6 => {
                        *s.states.entry(f[5].to_string()).or_default() += 1;
                        if f[5] == "LISTEN"
                            && let Some(port) = f[3].rsplit(':').next().and_then(|p| p.parse().ok())
                        {
                            s.listeners.entry(port).or_insert_with(|| f.get(6).unwrap_or(&"-").to_string());
                        }
                    }
                    Some("udp" | "udp6" | "raw" | "raw6" | "unix") => {}
                    _ => d.skip(l.no, DiagKind::Malformed, t),
                }
            }
            if !(s.states.is_empty() && s.counters.is_empty()) {
                out.snapshots.push(s);
            }
        }
        d.finish(out, crate::common::lines::count_lines(input))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sockets_and_counters() {
        let a = "TS 1796152464.035508605 2026-12-01 19:14:24\nActive Internet connections (servers and established)\n\
Proto Recv-Q Send-Q Local Address           Foreign Address         State       PID/Program name    \n\
tcp        0      0 127.0.0.1:3320          0.0.0.0:*               LISTEN      23847/mariadbd      \n\
tcp        0      0 127.0.0.1:3320          127.0.0.1:5000          ESTABLISHED 23847/mariadbd      \n";
        assert_eq!(Fmt::sniff(a.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(a.as_bytes());
        assert_eq!(p.skipped_lines, 0, "{:?}", p.diagnostics);
        assert_eq!(p.value.listener(3320), Some("23847/mariadbd"));
        assert_eq!(p.value.snapshots[0].states.get("ESTABLISHED"), Some(&1));
        let s = "TS 1796152464.0 2026-12-01 19:14:24\nIp:\n    Forwarding: 2\n    132738 total packets received\nTcp:\n    30 segments retransmitted\n\
TcpExt:\n    Quick ack mode was activated 33 times\n";
        assert_eq!(Fmt::sniff(s.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(s.as_bytes());
        assert_eq!(p.skipped_lines, 0, "{:?}", p.diagnostics);
        assert_eq!(p.value.kind, "statistics");
        assert_eq!(p.value.snapshots[0].counters.get("Tcp: segments retransmitted"), Some(&30));
        assert_eq!(p.value.snapshots[0].counters.get("Ip: Forwarding"), Some(&2));
        assert_eq!(
            p.value.snapshots[0].counters.get("TcpExt: Quick ack mode was activated N times"),
            Some(&33)
        );
    }
}
