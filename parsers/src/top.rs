//! `top`: batch-mode `top -b` output (pt-stalk `-top`: `top -bn<run-time>`),
//! one iteration per `top - HH:MM:SS up ...` summary.
//!
//! Real sample (`samples/pt_stalk_mariadb/capture/2026_12_01_19_14_22-top.gz`, procps-ng 4.0.2):
//!
//! ```text
//! top - 19:14:23 up 7 min,  0 user,  load average: 10.12, 5.59, 2.36
//! Tasks: 127 total,   4 running, 123 sleeping,   0 stopped,   0 zombie
//! %Cpu(s): 40.0 us, 60.0 sy,  0.0 ni,  0.0 id,  0.0 wa,  0.0 hi,  0.0 si,  0.0 st
//! MiB Mem :  24105.6 total,  14726.2 free,   2620.7 used,   7089.9 buff/cache
//! MiB Swap:      0.0 total,      0.0 free,      0.0 used.  21484.9 avail Mem
//!
//!   PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND
//! 23847 mysql     20   0 8193.5g 235752  26360 S   5.6   1.0   0:02.91 mariadbd
//!    12 root      20   0       0      0      0 D   1.0   0.0   0:01.57 kworker/u+
//! ```
//!
//! The time is a time of day (the date comes from elsewhere: the pt-stalk
//! prefix). The first iteration's `%CPU` is since the process started; the
//! later ones cover the delay between iterations (3 s by default). Older
//! procps prints `Cpu(s):` and `KiB Mem:`; decimal commas are accepted.

use crate::common::number::parse_f64;
use crate::common::scrub::{Ident, Identifiers};
use crate::common::sysstat::parse_time_of_day;
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};

/// One process row of an iteration.
#[derive(Debug, Clone, PartialEq)]
pub struct TopProc {
    /// 1-based line.
    pub line: usize,
    /// Process (or thread, with `-H`) id.
    pub pid: u32,
    /// User.
    pub user: String,
    /// State letter (`R`, `S`, `D`, ...).
    pub state: Option<char>,
    /// `%CPU`.
    pub cpu_pct: Option<f64>,
    /// `COMMAND` (truncated by top to its column width, `kworker/u+`).
    pub command: String,
}

/// One `top -b` iteration.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Iteration {
    /// Line of its `top -` summary.
    pub line: usize,
    /// Its time of day.
    pub time: Option<Stamp>,
    /// Load averages (1, 5, 15 min).
    pub load: Option<[f64; 3]>,
    /// `Tasks:` running count.
    pub running: Option<u32>,
    /// `%Cpu(s):` fields by name (`us`, `sy`, `wa`, `id`, ...).
    pub cpu: Vec<(String, f64)>,
    /// Process rows.
    pub procs: Vec<TopProc>,
}

impl Iteration {
    /// A `%Cpu(s)` field (`wa`).
    pub fn cpu(&self, k: &str) -> Option<f64> {
        self.cpu.iter().find(|(n, _)| n == k).map(|(_, v)| *v)
    }

    /// Processes in D state (uninterruptible sleep, usually waiting for I/O).
    pub fn d_state(&self) -> usize {
        self.procs.iter().filter(|p| p.state == Some('D')).count()
    }
}

/// A parsed `top -b` file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Top {
    /// Iterations in file order.
    pub iterations: Vec<Iteration>,
}

impl Summary for Top {
    fn records(&self) -> usize {
        self.iterations.len()
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        let d: Vec<usize> = self.iterations.iter().map(Iteration::d_state).collect();
        v.insert("d_state_max", d.iter().max().copied().unwrap_or(0).to_string());
        let wa: Vec<f64> = self.iterations.iter().filter_map(|i| i.cpu("wa")).collect();
        if !wa.is_empty() {
            v.insert("iowait_max_pct", format!("{:.1}", wa.iter().copied().fold(0.0, f64::max)));
        }
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        Some((self.iterations.first()?.time?, self.iterations.last()?.time?))
    }
}

/// `top - 19:14:23 up 7 min,  0 user,  load average: 10.12, 5.59, 2.36`
fn summary_line(t: &str) -> Option<(Option<Stamp>, Option<[f64; 3]>)> {
    let rest = t.strip_prefix("top - ")?;
    let toks: Vec<&str> = rest.split_whitespace().collect();
    let time = parse_time_of_day(&toks).map(|(tod, _)| Stamp::TimeOfDay(tod));
    let load = rest.split_once("load average:").and_then(|(_, l)| {
        // `10.12, 5.59, 2.36` or, with a decimal comma, `10,12, 5,59, 2,36`.
        let v: Vec<f64> = l.split(", ").filter_map(|x| parse_f64(x.trim())).collect();
        (v.len() == 3).then(|| [v[0], v[1], v[2]])
    });
    Some((time, load))
}

/// The `top` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Top;
    const ID: &'static str = "top";
    const SAMPLE: &'static str = "top - 19:14:23 up 7 min,  0 user,  load average: 10.12, 5.59, 2.36";
    const DESCRIPTION: &'static str = "top -b batch output, pt-stalk -top";

    const IDENTIFIERS: Identifiers = Identifiers::Fields(&[("USER", Ident::User)]);
    fn sniff(head: &[u8]) -> Sniff {
        let first = Lines::new(head).find(|l| !l.is_blank());
        match first {
            Some(l) if summary_line(&l.text()).is_some_and(|(t, _)| t.is_some()) => Sniff::Yes,
            _ => Sniff::No,
        }
    }

    fn parse(input: &[u8]) -> Parsed<Top> {
        let mut d = Diags::default();
        let mut out = Top::default();
        let mut header: Vec<String> = Vec::new();
        let mut n = 0;
        for l in Lines::new(input) {
            n = l.no;
            if l.is_blank() {
                continue;
            }
            let text = l.text();
            let t = text.trim_end();
            if let Some((time, load)) = summary_line(t) {
                out.iterations.push(Iteration { line: l.no, time, load, ..Default::default() });
                header.clear();
                continue;
            }
            let Some(it) = out.iterations.last_mut() else {
                d.skip(l.no, DiagKind::NoHeader, t);
                continue;
            };
            let tl = t.trim_start();
            if let Some(rest) = tl.strip_prefix("Tasks:").or_else(|| tl.strip_prefix("Threads:")) {
                it.running = rest
                    .split(',')
                    .find(|p| p.contains("running"))
                    .and_then(|p| p.split_whitespace().next()?.parse().ok());
                continue;
            }
            if let Some((_, rest)) = tl.split_once("Cpu(s):") {
                for part in rest.split(", ") {
                    let mut w = part.split_whitespace();
                    if let (Some(v), Some(k)) = (w.next().and_then(parse_f64), w.next()) {
                        it.cpu.push((k.trim_end_matches(',').to_string(), v));
                    }
                }
                continue;
            }
            if tl.contains(" Mem") || tl.contains("Swap:") || tl.starts_with("%Cpu") {
                continue;
            }
            let toks: Vec<&str> = tl.split_whitespace().collect();
            if toks.first() == Some(&"PID") {
                header = toks.iter().map(|s| s.to_string()).collect();
                continue;
            }
            if header.is_empty() || toks.len() < header.len() {
                d.skip(l.no, DiagKind::FieldCount, t);
                continue;
            }
            let col = |name: &str| header.iter().position(|h| h == name).map(|i| toks[i]);
            let Some(pid) = col("PID").and_then(|p| p.parse().ok()) else {
                d.skip(l.no, DiagKind::BadNumber, t);
                continue;
            };
            let cmd_at = header.len() - 1;
            it.procs.push(TopProc {
                line: l.no,
                pid,
                user: col("USER").unwrap_or("").to_string(),
                state: col("S").and_then(|s| s.chars().next()),
                cpu_pct: col("%CPU").and_then(parse_f64),
                command: toks[cmd_at..].join(" "),
            });
        }
        d.finish(out, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterations_with_d_state_and_iowait() {
        let t = "top - 19:14:23 up 7 min,  0 user,  load average: 10.12, 5.59, 2.36\n\
Tasks: 127 total,   4 running, 123 sleeping,   0 stopped,   0 zombie\n\
%Cpu(s): 40.0 us, 60.0 sy,  0.0 ni,  0.0 id,  2.5 wa,  0.0 hi,  0.0 si,  0.0 st \n\
MiB Mem :  24105.6 total,  14726.2 free,   2620.7 used,   7089.9 buff/cache     \n\
MiB Swap:      0.0 total,      0.0 free,      0.0 used.  21484.9 avail Mem \n\n\
  PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND\n\
23847 mysql     20   0 8193.5g 235752  26360 S   5.6   1.0   0:02.91 mariadbd\n\
   12 root      20   0       0      0      0 D   1.0   0.0   0:01.57 kworker/u+\n";
        assert_eq!(Fmt::sniff(t.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(t.as_bytes());
        assert_eq!(p.skipped_lines, 0, "{:?}", p.diagnostics);
        let it = &p.value.iterations[0];
        assert_eq!(it.time.unwrap().display(), "19:14:23");
        assert_eq!(it.load, Some([10.12, 5.59, 2.36]));
        assert_eq!((it.running, it.cpu("wa"), it.d_state()), (Some(4), Some(2.5), 1));
        assert_eq!(it.procs[0].cpu_pct, Some(5.6));
    }
}
