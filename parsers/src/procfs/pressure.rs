//! `proc_pressure`: `/proc/pressure/io` (and `cpu`, `memory`) pressure stall
//! information, one snapshot or `TS`-framed (`samples/collect.sh`
//! `-pressure-io`, the same framing as pt-stalk's `-meminfo`).
//!
//! Real sample (`samples/psi_fsync_copy/capture/*-pressure-io`, kernel 6.18):
//!
//! ```text
//! TS 1796165432.004311069 2026-12-01 22:50:32
//! some avg10=0.35 avg60=0.79 avg300=0.84 total=631029471
//! full avg10=0.18 avg60=0.39 avg300=0.54 total=74524540
//! ```
//!
//! `some`: the share of time at least one task was stalled on the resource;
//! `full`: all non-idle tasks at once. `avg10/60/300` are the kernel's
//! running averages in percent; `total` is the cumulative stall time in
//! microseconds, so the stall share between two snapshots is
//! `Δtotal / 1e6 / Δt`.

use crate::common::scrub::Identifiers;
use crate::common::{DiagKind, Diags, Format, Parsed, Sniff, Stamp, Summary, Variant};
use crate::procfs::tsblocks;

/// One `some` or `full` line.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Stall {
    /// `avg10` (percent).
    pub avg10: f64,
    /// `avg60` (percent).
    pub avg60: f64,
    /// `avg300` (percent).
    pub avg300: f64,
    /// Cumulative stall time (microseconds).
    pub total_us: u64,
}

/// One snapshot.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Snapshot {
    /// Its `TS` epoch, when framed.
    pub epoch: Option<f64>,
    /// 1-based line of its `some` line.
    pub line: usize,
    /// `some` stalls.
    pub some: Option<Stall>,
    /// `full` stalls (absent for `cpu` before kernel 5.13).
    pub full: Option<Stall>,
}

/// A parsed pressure file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pressure {
    /// Snapshots in file order.
    pub snapshots: Vec<Snapshot>,
}

impl Pressure {
    /// The share of time (percent) tasks were stalled between the first and the last
    /// timed snapshot: (`some`, `full`).
    pub fn mean_stall_pct(&self) -> Option<(f64, Option<f64>)> {
        let timed: Vec<&Snapshot> = self.snapshots.iter().filter(|s| s.epoch.is_some()).collect();
        let (a, b) = (timed.first()?, timed.last()?);
        let dt = b.epoch? - a.epoch?;
        if dt <= 0.0 {
            return None;
        }
        let pct = |x: Option<Stall>, y: Option<Stall>| {
            let (x, y) = (x?, y?);
            Some(y.total_us.checked_sub(x.total_us)? as f64 / 1e6 / dt * 100.0)
        };
        Some((pct(a.some, b.some)?, pct(a.full, b.full)))
    }
}

impl Summary for Pressure {
    fn records(&self) -> usize {
        self.snapshots.len()
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        if let Some((some, full)) = self.mean_stall_pct() {
            v.insert("some_stall_pct", format!("{some:.1}"));
            if let Some(f) = full {
                v.insert("full_stall_pct", format!("{f:.1}"));
            }
        }
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        tsblocks::epoch_range(self.snapshots.iter().map(|s| s.epoch))
    }
}

/// `some avg10=0.35 avg60=0.79 avg300=0.84 total=631029471` -> (`some`, stall).
/// The line is a small fixed grammar, written with nom's combinators: the kind, three
/// `avgN=` percentages and `total=` microseconds, in this order, nothing after them.
fn stall_line(t: &str) -> Option<(&str, Stall)> {
    use nom::Parser;
    use nom::bytes::complete::tag;
    use nom::character::complete::{space0, space1, u64 as total};
    use nom::combinator::eof;
    use nom::number::complete::double;
    use nom::sequence::preceded;
    let avg = |key: &'static str| preceded((space1, tag(key), tag("=")), double);
    let mut line = (
        nom::branch::alt((tag("some"), tag("full"))),
        avg("avg10"),
        avg("avg60"),
        avg("avg300"),
        preceded((space1, tag("total=")), total),
        space0,
        eof,
    );
    let parsed: nom::IResult<&str, _> = line.parse(t.trim_start());
    let (_, (kind, avg10, avg60, avg300, total_us, _, _)) = parsed.ok()?;
    Some((kind, Stall { avg10, avg60, avg300, total_us }))
}

/// The `proc_pressure` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Pressure;
    const ID: &'static str = "proc_pressure";
    const SAMPLE: &'static str = "some avg10=0.35 avg60=0.79 avg300=0.84 total=631029471";
    const DESCRIPTION: &'static str = "/proc/pressure/{io,cpu,memory} (PSI), one snapshot or TS-framed";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        if tsblocks::first_data_line(head).is_some_and(|l| stall_line(&l).is_some()) {
            Sniff::Yes
        } else {
            Sniff::No
        }
    }

    fn parse(input: &[u8]) -> Parsed<Pressure> {
        let mut d = Diags::default();
        let mut out = Pressure::default();
        for b in tsblocks::split(input, &mut d) {
            let mut s = Snapshot { epoch: b.ts.map(|t| t.epoch), line: b.first_line, ..Default::default() };
            for l in b.lines {
                if l.is_blank() {
                    continue;
                }
                let text = l.text();
                match stall_line(text.trim()) {
                    Some(("some", x)) => {
                        s.some = Some(x);
                        s.line = l.no;
                    }
                    Some((_, x)) => s.full = Some(x),
                    None => d.skip(l.no, DiagKind::Malformed, text.trim_end()),
                }
            }
            if s.some.is_some() || s.full.is_some() {
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
    fn stall_share_from_totals() {
        let t = "TS 10.0 2026-12-01 22:50:32\nsome avg10=0.35 avg60=0.79 avg300=0.84 total=631029471\n\
full avg10=0.18 avg60=0.39 avg300=0.54 total=74524540\n\
TS 12.0 2026-12-01 22:50:34\nsome avg10=9.10 avg60=2.00 avg300=1.00 total=632029471\n\
full avg10=5.00 avg60=1.00 avg300=0.60 total=75024540\n";
        assert_eq!(Fmt::sniff(t.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(t.as_bytes());
        assert_eq!(p.skipped_lines, 0, "{:?}", p.diagnostics);
        assert_eq!(p.value.snapshots.len(), 2);
        assert_eq!(p.value.snapshots[1].line, 5);
        // 1 s of `some` stall over 2 s: 50 %; 0.5 s of `full`: 25 %.
        assert_eq!(p.value.mean_stall_pct(), Some((50.0, Some(25.0))));
        assert_eq!(p.value.snapshots[1].some.unwrap().avg10, 9.10);
    }

    #[test]
    fn bad_lines_are_diagnostics() {
        let t = "some avg10=0.35 avg60=0.79 avg300=0.84 total=631029471\nsome avg10=x avg60=0.79 avg300=0.84 total=1\n";
        let p = Fmt::parse(t.as_bytes());
        assert_eq!(p.skipped_lines, 1);
        assert_eq!(p.diagnostics[0].line, 2);
        assert_eq!(Fmt::sniff(b"MemTotal: 1 kB\n"), Sniff::No);
    }
}
