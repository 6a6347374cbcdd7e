//! `perf_report`: `perf report --stdio` text (one table per event, optional
//! call-graph lines below each entry).
//!
//! Real sample (`bundles/s1_mmap_writeback/perf-workload.report.txt`):
//!
//! ```text
//! # To display the perf.data header info, please use --header/--header-only options.
//! #
//! # Total Lost Samples: 0
//! #
//! # Samples: 480  of event 'cpu-clock:pppH'
//! # Event count (approx.): 4848484800
//! #
//! # Overhead      Pid:Command     Symbol
//! # ........  ..................  .............................................
//! #
//!     13.33%    15546:redo_sim    [k] iowrite16
//!      5.83%    15574:gcache-w0   [.] worker
//! ```
//!
//! perf separates columns by two spaces and pads them to the widest value,
//! so an entry is split on runs of two or more spaces, as many times as the
//! header (`# Overhead  Pid:Command  Command  Symbol`) has columns before the
//! last one; the rest is the last column (symbols may contain single
//! spaces). `--children` adds a `Children` and a `Self` percentage;
//! `-s pid,comm,dso,sym` changes the columns: they are mapped by header name.
//! `# Samples: 5K` is rounded by perf (`5K` = about 5000).

use crate::common::lines::count_lines;
use crate::common::scrub::Identifiers;
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};

/// One line of the table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReportEntry {
    /// 1-based line number.
    pub line: usize,
    /// `Overhead` (or `Self` with `--children`), in percent.
    pub overhead: f64,
    /// `Children` percentage (`--children` only).
    pub children: Option<f64>,
    /// Process id of a `Pid:Command` column (`15546:redo_sim` -> 15546).
    pub pid: Option<u32>,
    /// Command (`Command` column or the command of `Pid:Command`).
    pub command: Option<String>,
    /// `Shared Object` column (`[kernel.kallsyms]`, `libc.so.6`).
    pub shared_object: Option<String>,
    /// Symbol without its `[k]` / `[.]` marker (`iowrite16`).
    pub symbol: Option<String>,
    /// `Some(true)` for `[k]` (kernel), `Some(false)` for `[.]` (user space).
    pub kernel: Option<bool>,
}

/// The table of one event (`# Samples: 480  of event 'cpu-clock:pppH'`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EventReport {
    /// Event name (`cpu-clock:pppH`).
    pub event: String,
    /// Sample count (perf rounds large counts: `5K` = 5000).
    pub samples: Option<u64>,
    /// True when perf printed the sample count rounded (`5K`).
    pub samples_rounded: bool,
    /// `# Event count (approx.):` value.
    pub event_count: Option<u64>,
    /// Column names of the header (`Overhead`, `Pid:Command`, `Symbol`).
    pub columns: Vec<String>,
    /// Table entries in file order (perf sorts them by overhead).
    pub entries: Vec<ReportEntry>,
    /// Call-graph lines below the entries (`|--12.5%--func`), counted.
    pub callchain_lines: usize,
}

/// A parsed `perf report --stdio`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PerfReport {
    /// `# Total Lost Samples:` value.
    pub lost_samples: Option<u64>,
    /// One table per event.
    pub events: Vec<EventReport>,
}

impl PerfReport {
    /// The entry with the largest overhead of the first event.
    pub fn top(&self) -> Option<&ReportEntry> {
        self.events.first()?.entries.iter().max_by(|a, b| a.overhead.total_cmp(&b.overhead))
    }

    /// Sum of the overheads of kernel (`[k]`) entries of the first event, in percent.
    pub fn kernel_share(&self) -> f64 {
        self.events
            .first()
            .map(|e| e.entries.iter().filter(|x| x.kernel == Some(true)).map(|x| x.overhead).sum())
            .unwrap_or(0.0)
    }
}

/// Splits on runs of two or more spaces, at most `max` pieces (the last takes the rest).
fn split2(s: &str, max: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s.trim();
    while !rest.is_empty() {
        if out.len() + 1 >= max {
            out.push(rest);
            break;
        }
        match rest.find("  ") {
            Some(i) => {
                out.push(rest.get(..i).unwrap_or(""));
                rest = rest.get(i..).unwrap_or("").trim_start();
            }
            None => {
                out.push(rest);
                break;
            }
        }
    }
    out
}

/// `480` / `5K` / `12M` -> (count, rounded).
fn parse_count(tok: &str) -> Option<(u64, bool)> {
    let (num, mult) = match tok.as_bytes().last()? {
        b'K' => (tok.get(..tok.len() - 1)?, 1_000u64),
        b'M' => (tok.get(..tok.len() - 1)?, 1_000_000),
        b'G' => (tok.get(..tok.len() - 1)?, 1_000_000_000),
        _ => (tok, 1),
    };
    let v: u64 = num.parse().ok()?;
    Some((v.checked_mul(mult)?, mult > 1))
}

fn pct(tok: &str) -> Option<f64> {
    tok.trim().strip_suffix('%')?.trim().parse().ok().filter(|v: &f64| v.is_finite())
}

/// Parses `# Samples: 480  of event 'cpu-clock:pppH'`.
fn parse_samples(body: &str) -> Option<EventReport> {
    let rest = body.strip_prefix("Samples:")?.trim();
    let (n, ev) = rest.split_once("of event")?;
    let (samples, rounded) = parse_count(n.trim()).map_or((None, false), |(v, r)| (Some(v), r));
    let event = ev.trim().trim_matches('\'').to_string();
    Some(EventReport { event, samples, samples_rounded: rounded, ..EventReport::default() })
}

fn parse_entry(no: usize, cols: &[String], text: &str) -> Option<ReportEntry> {
    let ncols = cols.len().max(2);
    let parts = split2(text, ncols);
    if parts.len() < 2 {
        return None;
    }
    let mut e = ReportEntry { line: no, ..ReportEntry::default() };
    let mut have_pct = false;
    for (i, p) in parts.iter().enumerate() {
        let name = cols.get(i).map(String::as_str).unwrap_or(if i == 0 { "Overhead" } else { "Symbol" });
        match name {
            "Overhead" | "Self" => {
                e.overhead = pct(p)?;
                have_pct = true;
            }
            "Children" => e.children = Some(pct(p)?),
            "Pid:Command" => {
                let (pid, comm) = p.split_once(':')?;
                e.pid = Some(pid.trim().parse().ok()?);
                if e.command.is_none() {
                    e.command = Some(comm.to_string());
                }
            }
            "Command" => e.command = Some((*p).to_string()),
            "Shared Object" => e.shared_object = Some((*p).to_string()),
            "Symbol" => {
                let s = p.trim();
                let (kernel, sym) = if let Some(r) = s.strip_prefix("[k] ") {
                    (Some(true), r)
                } else if let Some(r) = s.strip_prefix("[.] ") {
                    (Some(false), r)
                } else {
                    (None, s)
                };
                e.kernel = kernel;
                e.symbol = Some(sym.trim().to_string());
            }
            _ => {}
        }
    }
    have_pct.then_some(e)
}

/// The reader.
#[derive(Debug, Clone, Copy)]
pub struct Fmt;

impl Format for Fmt {
    type Output = PerfReport;
    const ID: &'static str = "perf_report";
    const SAMPLE: &'static str = "    13.33%    15546:redo_sim    [k] iowrite16";
    const DESCRIPTION: &'static str = "perf report --stdio: overhead per command/symbol, per event";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let mut comments = 0;
        for l in Lines::new(head).filter(|l| !l.is_blank()) {
            let t = l.text();
            let Some(body) = t.strip_prefix('#') else {
                return Sniff::No;
            };
            comments += 1;
            let body = body.trim();
            if body.starts_with("To display the perf.data header info")
                || parse_samples(body).is_some()
                || body.starts_with("Overhead  ")
                || body.starts_with("Children  ")
            {
                return Sniff::Yes;
            }
            if comments > 40 {
                break;
            }
        }
        Sniff::No
    }

    fn parse(input: &[u8]) -> Parsed<PerfReport> {
        let mut out = PerfReport::default();
        let mut d = Diags::default();
        let mut cols: Vec<String> = Vec::new();
        for (l, text) in Lines::new(input).content() {
            if let Some(body) = text.strip_prefix('#') {
                let body = body.trim();
                if let Some(ev) = parse_samples(body) {
                    out.events.push(ev);
                } else if let Some(v) = body.strip_prefix("Total Lost Samples:") {
                    out.lost_samples = v.trim().parse().ok();
                } else if let Some(v) = body.strip_prefix("Event count (approx.):") {
                    if let Some(ev) = out.events.last_mut() {
                        ev.event_count = v.trim().parse().ok();
                    }
                } else if body.starts_with("Overhead  ") || body.starts_with("Children  ") {
                    // `# Overhead      Pid:Command   Command   Symbol`
                    cols = split2(body, usize::MAX).into_iter().map(str::to_string).collect();
                    if out.events.is_empty() {
                        out.events.push(EventReport::default());
                    }
                    if let Some(ev) = out.events.last_mut() {
                        ev.columns = cols.clone();
                    }
                }
                // Other comments (dotted rules, tips, header info) carry nothing to keep.
                continue;
            }
            let t = text.trim_start();
            // Call-graph lines: `|`, `---func`, `--12.50%--func`, or indented frame names.
            if (t.starts_with('|') || t.starts_with("--") || (text.starts_with("    ") && !t.contains('%')))
                && let Some(ev) = out.events.last_mut()
            {
                ev.callchain_lines += 1;
                continue;
            }
            match parse_entry(l.no, &cols, &text) {
                Some(e) => {
                    if out.events.is_empty() {
                        out.events.push(EventReport::default());
                    }
                    if let Some(ev) = out.events.last_mut() {
                        ev.entries.push(e);
                    }
                }
                None => d.skip(l.no, DiagKind::Malformed, text.as_ref()),
            }
        }
        d.finish(out, count_lines(input))
    }
}

impl Summary for PerfReport {
    fn records(&self) -> usize {
        self.events.iter().map(|e| e.entries.len()).sum()
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        v.insert("layout", "perf report --stdio".to_string());
        if let Some(e) = self.events.first() {
            v.insert("event", e.event.clone());
            v.insert("columns", e.columns.join(","));
            if let Some(s) = e.samples {
                v.insert("samples", s.to_string());
            }
        }
        v.insert("events", self.events.len().to_string());
        if let Some(t) = self.top() {
            v.insert("top", format!("{:.2}% {}", t.overhead, t.symbol.as_deref().unwrap_or("?")));
        }
        v
    }

    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: &str = "# Samples: 990  of event 'cpu-clock:pppH'
# Event count (approx.): 20204081370
#
# Overhead      Pid:Command   Command   Symbol
# ........  ................  ........  ......
#
    10.40%    23184:mariadbd  mariadbd  [k] finish_task_switch.isra.0
     1.25%    15574:gcache-w0  gcache-w0  [.] clock_nanosleep@GLIBC_2.2.5
";

    #[test]
    fn entries_by_header() {
        assert_eq!(Fmt::sniff(R.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(R.as_bytes());
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let ev = &p.value.events[0];
        assert_eq!(ev.samples, Some(990));
        assert_eq!(ev.event_count, Some(20204081370));
        let e = &ev.entries[1];
        assert_eq!(e.pid, Some(15574));
        assert_eq!(e.command.as_deref(), Some("gcache-w0"));
        assert_eq!(e.symbol.as_deref(), Some("clock_nanosleep@GLIBC_2.2.5"));
        assert_eq!(e.kernel, Some(false));
        assert_eq!(p.value.top().unwrap().overhead, 10.40);
        assert_eq!(parse_count("5K"), Some((5000, true)));
    }

    #[test]
    fn garbage_does_not_panic() {
        let p = Fmt::parse(b"# Overhead  \n\xff 5%%  :  \n  --\n");
        assert!(p.skipped_lines <= 3);
        assert_eq!(Fmt::sniff(b"13.33% x\n"), Sniff::No);
    }
}
