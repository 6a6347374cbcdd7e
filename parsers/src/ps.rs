//! `ps`: process lists from `ps -ef` / `ps -eaF` (pt-stalk `-ps`), `ps aux`
//! and `ps -eLf` (threads), one snapshot or pt-stalk `TS`-framed.
//!
//! Real sample (`samples/pt_stalk_mariadb/capture/2026_12_01_19_14_22-ps`, procps-ng 4.0.2, `ps -eaF`):
//!
//! ```text
//! UID        PID  PPID  C    SZ   RSS PSR STIME TTY          TIME CMD
//! mysql    23847     1 22 2147864395 235680 0 19:14 ?    00:00:02 mariadbd --defaults-file=/var/tmp/iosift_ptstalk/my.cnf
//! ```
//!
//! `ps aux` has `USER PID %CPU %MEM VSZ RSS TTY STAT START TIME COMMAND`:
//! its `STAT` gives the D-state (uninterruptible, usually I/O) count. The
//! command is everything after the last fixed column (it may hold spaces).
//! This is not pidstat: pidstat puts a time before `UID` (see `pidstat`).

use crate::common::number::parse_f64;
use crate::common::scrub::{Ident, Identifiers};
use crate::common::ts::parse_ts_line;
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};

/// One process (or thread with `-L`).
#[derive(Debug, Clone, PartialEq)]
pub struct Proc {
    /// 1-based line.
    pub line: usize,
    /// `UID` / `USER`.
    pub user: String,
    /// Process id.
    pub pid: u32,
    /// Parent process id, when printed.
    pub ppid: Option<u32>,
    /// Thread id (`LWP` / `SPID` of `-L`).
    pub tid: Option<u32>,
    /// CPU: `%CPU`, or `C` (integer percent of `-f`).
    pub cpu_pct: Option<f64>,
    /// Resident size, kB (`RSS`).
    pub rss_kb: Option<f64>,
    /// Process state letter (`STAT`/`S`), when printed.
    pub state: Option<char>,
    /// Command line (or `[kthread]` name).
    pub cmd: String,
}

impl Proc {
    /// The program name: the first word of the command without its path (`mariadbd`).
    pub fn program(&self) -> &str {
        let first = self.cmd.split_whitespace().next().unwrap_or("");
        first.rsplit('/').next().unwrap_or(first)
    }
}

/// One `ps` snapshot.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Snapshot {
    /// The pt-stalk `TS` epoch, when framed.
    pub epoch: Option<f64>,
    /// Processes.
    pub procs: Vec<Proc>,
}

/// A parsed `ps` file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ps {
    /// The header, as printed.
    pub header: Vec<String>,
    /// Snapshots in file order.
    pub snapshots: Vec<Snapshot>,
}

impl Ps {
    /// Processes in D state (uninterruptible sleep) in each snapshot, when `STAT`/`S` was printed.
    pub fn d_state(&self) -> Option<Vec<usize>> {
        self.header.iter().any(|h| h == "STAT" || h == "S").then(|| {
            self.snapshots.iter().map(|s| s.procs.iter().filter(|p| p.state == Some('D')).count()).collect()
        })
    }
}

impl Summary for Ps {
    fn records(&self) -> usize {
        self.snapshots.iter().map(|s| s.procs.len()).sum()
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        v.insert("snapshots", self.snapshots.len().to_string());
        if let Some(s) = self.snapshots.last() {
            v.insert("processes", s.procs.len().to_string());
            let db: Vec<String> = s
                .procs
                .iter()
                .filter(|p| matches!(p.program(), "mariadbd" | "mysqld"))
                .map(|p| format!("{} (pid {}, {}% CPU)", p.program(), p.pid, p.cpu_pct.unwrap_or(0.0)))
                .collect();
            if !db.is_empty() {
                v.insert("database_servers", db.join(", "));
            }
            let mut top: Vec<&Proc> = s.procs.iter().filter(|p| p.cpu_pct.is_some()).collect();
            top.sort_by(|a, b| b.cpu_pct.unwrap_or(0.0).total_cmp(&a.cpu_pct.unwrap_or(0.0)));
            let t: Vec<String> = top
                .iter()
                .take(3)
                .map(|p| format!("{} {}%", p.program(), p.cpu_pct.unwrap_or(0.0)))
                .collect();
            v.insert("top_cpu", t.join(", "));
        }
        if let Some(d) = self.d_state() {
            v.insert("d_state_max", d.iter().max().copied().unwrap_or(0).to_string());
        }
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        crate::procfs::tsblocks::epoch_range(self.snapshots.iter().map(|s| s.epoch))
    }
}

/// True for a ps header: `UID PID PPID ...`, `USER PID %CPU ...`, `F S UID PID ...`.
fn is_header(toks: &[&str]) -> bool {
    let at = |n: &str| toks.iter().position(|t| *t == n);
    let last = toks.last().copied().unwrap_or("");
    matches!(last, "CMD" | "COMMAND" | "ARGS" | "COMM")
        && at("PID").is_some_and(|p| p <= 3)
        && (at("UID").is_some() || at("USER").is_some())
}

/// The `ps` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Ps;
    const ID: &'static str = "ps";
    const SAMPLE: &'static str = "UID        PID  PPID  C    SZ   RSS PSR STIME TTY          TIME CMD";
    const DESCRIPTION: &'static str = "ps -ef / -eaF / aux / -eLf process lists, pt-stalk -ps";

    const IDENTIFIERS: Identifiers = Identifiers::Fields(&[("USER", Ident::User), ("UID", Ident::User)]);
    fn sniff(head: &[u8]) -> Sniff {
        for l in Lines::new(head).filter(|l| !l.is_blank()).take(3) {
            let t = l.text();
            if parse_ts_line(&t).is_some() {
                continue;
            }
            let toks: Vec<&str> = t.split_whitespace().collect();
            return if is_header(&toks) { Sniff::Yes } else { Sniff::No };
        }
        Sniff::No
    }

    fn parse(input: &[u8]) -> Parsed<Ps> {
        let mut d = Diags::default();
        let mut out = Ps::default();
        let mut n = 0;
        for l in Lines::new(input) {
            n = l.no;
            if l.is_blank() {
                continue;
            }
            let text = l.text();
            let t = text.trim_end();
            if let Some(ts) = parse_ts_line(t) {
                out.snapshots.push(Snapshot { epoch: Some(ts.epoch), procs: Vec::new() });
                continue;
            }
            let toks: Vec<&str> = t.split_whitespace().collect();
            if is_header(&toks) {
                if out.header.is_empty() {
                    out.header = toks.iter().map(|s| s.to_string()).collect();
                }
                if out.snapshots.is_empty() {
                    out.snapshots.push(Snapshot::default());
                }
                continue;
            }
            if out.header.is_empty() {
                d.skip(l.no, DiagKind::NoHeader, t);
                continue;
            }
            let fixed = out.header.len() - 1;
            if toks.len() < fixed + 1 {
                d.skip(l.no, DiagKind::FieldCount, t);
                continue;
            }
            let col = |name: &str| out.header.iter().position(|h| h == name).map(|i| toks[i]);
            let num = |name: &str| col(name).and_then(|x| x.parse::<u32>().ok());
            let Some(pid) = num("PID") else {
                d.skip(l.no, DiagKind::BadNumber, t);
                continue;
            };
            // The command starts after the fixed columns: find its byte offset in the line.
            let mut rest = t;
            for tok in &toks[..fixed] {
                let at = rest.find(tok).map_or(0, |i| i + tok.len());
                rest = &rest[at..];
            }
            let p = Proc {
                line: l.no,
                user: col("UID").or(col("USER")).unwrap_or("").to_string(),
                pid,
                ppid: num("PPID"),
                tid: num("LWP").or(num("SPID")).or(num("TID")),
                cpu_pct: col("%CPU").or(col("C")).and_then(parse_f64),
                rss_kb: col("RSS").and_then(parse_f64),
                state: col("STAT").or(col("S")).and_then(|s| s.chars().next()),
                cmd: rest.trim().to_string(),
            };
            if out.snapshots.is_empty() {
                out.snapshots.push(Snapshot::default());
            }
            if let Some(s) = out.snapshots.last_mut() {
                s.procs.push(p);
            }
        }
        d.finish(out, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ps_eaf_and_aux() {
        let t = "UID        PID  PPID  C    SZ   RSS PSR STIME TTY          TIME CMD\n\
root         2     0  0     0     0   1 19:06 ?        00:00:00 [kthreadd]\n\
mysql    23847     1 22 2147864395 235680 0 19:14 ?    00:00:02 mariadbd --defaults-file=/var/tmp/x/my.cnf\n";
        assert_eq!(Fmt::sniff(t.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(t.as_bytes());
        assert_eq!(p.skipped_lines, 0);
        let m = &p.value.snapshots[0].procs[1];
        assert_eq!((m.pid, m.ppid, m.cpu_pct, m.program()), (23847, Some(1), Some(22.0), "mariadbd"));
        assert_eq!(m.cmd, "mariadbd --defaults-file=/var/tmp/x/my.cnf");
        assert!(p.value.d_state().is_none());
        let aux = "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n\
root          12  1.0  0.0      0     0 ?        D    19:06   0:01 [kworker/u4:1+flush-254:0]\n";
        let p = Fmt::parse(aux.as_bytes());
        assert_eq!(p.value.d_state(), Some(vec![1]));
        assert_eq!(p.value.snapshots[0].procs[0].cmd, "[kworker/u4:1+flush-254:0]");
        // pidstat is not ps.
        assert_eq!(
            Fmt::sniff(b"19:33:01      UID       PID   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command\n"),
            Sniff::No
        );
    }
}
