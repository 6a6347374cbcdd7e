//! `clock_reference`: the collector's timeline (`timeline.txt`): named events
//! with their epoch, and the offset between the wall clock and
//! `CLOCK_MONOTONIC` that maps `perf` times (recorded with `-k
//! CLOCK_MONOTONIC`) onto the wall clock.
//!
//! Real samples (`samples/buffered_copy/capture/timeline.txt`,
//! `bundles/s1_mmap_writeback/timeline.txt`, `bundles/s3_buffered_dd/timeline.txt`):
//!
//! ```text
//! collect_start 1795986833.211164207 2026-11-29 21:13:53
//! epoch_minus_CLOCK_MONOTONIC 1795985302.661804 method=python3 time.time()-time.monotonic()
//! interval 1 count 90 prefix 2026_11_29_21_13_53 pids 22054
//! collectors_started 1795986834.519193257 2026-11-29 21:13:54
//! gcache_sim_exit rc=0 1795981265.305717204 2026-11-29 19:41:05
//! dd pid(s): 28816  (child of perf pid 28808)
//! Dirty:            149112 kB
//! ```
//!
//! Every line is an event: its first token is the name, the first token that
//! reads as an epoch between 2001 and 2100 (`1795981265.305717204`) is its
//! time, the rest is kept as text. Lines without an epoch (`gcache_sim pid
//! 15545`, `phase sync_binlog=1 ...`) are events without a time.
//!
//! `epoch_minus_CLOCK_MONOTONIC <seconds> [method=...]` lines are the clock
//! reference: epoch = CLOCK_MONOTONIC + offset. The collector writes one at
//! the start and one at the end; the difference is the drift of the two
//! clocks over the capture. `method=python3` is `time.time()-time.monotonic()`
//! (exact CLOCK_MONOTONIC); `method=proc_uptime` is `date +%s.%N` minus
//! `/proc/uptime` (CLOCK_BOOTTIME, 10 ms resolution, and different from
//! CLOCK_MONOTONIC once the host has been suspended).

use crate::common::lines::count_lines;
use crate::common::scrub::Identifiers;
use crate::common::{Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};

/// The name of the offset lines.
pub const OFFSET_KEY: &str = "epoch_minus_CLOCK_MONOTONIC";

/// One timeline line.
#[derive(Debug, Clone, PartialEq)]
pub struct ClockEvent {
    /// 1-based line number.
    pub line: usize,
    /// The first token (`collectors_start`, `workload_start`, `dd`).
    pub name: String,
    /// The first epoch-looking token of the line, if any.
    pub epoch: Option<f64>,
    /// The line after the name, trimmed (`rc=0 1795981265.305717204 2026-11-29 19:41:05`).
    pub text: String,
}

/// One `epoch_minus_CLOCK_MONOTONIC` line.
#[derive(Debug, Clone, PartialEq)]
pub struct MonotonicOffset {
    /// 1-based line number.
    pub line: usize,
    /// Epoch seconds minus CLOCK_MONOTONIC seconds at the same instant.
    pub seconds: f64,
    /// How it was measured (`python3 time.time()-time.monotonic()`, `proc_uptime`), when printed.
    pub method: Option<String>,
}

/// A parsed collector timeline.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClockReference {
    /// Every line except the offset lines, in order.
    pub events: Vec<ClockEvent>,
    /// The offset lines, in order (start, end).
    pub offsets: Vec<MonotonicOffset>,
}

impl ClockReference {
    /// Epoch minus CLOCK_MONOTONIC (the first reference line: taken before perf
    /// ran). `perf` time `t` (CLOCK_MONOTONIC seconds) is epoch `t + offset`.
    pub fn offset(&self) -> Option<f64> {
        self.offsets.first().map(|o| o.seconds)
    }

    /// Last offset minus first offset in seconds (clock drift over the capture;
    /// `None` with fewer than two reference lines).
    pub fn drift(&self) -> Option<f64> {
        match (self.offsets.first(), self.offsets.last()) {
            (Some(a), Some(b)) if self.offsets.len() > 1 => Some(b.seconds - a.seconds),
            _ => None,
        }
    }

    /// The measuring method of the first reference line.
    pub fn method(&self) -> Option<&str> {
        self.offsets.first().and_then(|o| o.method.as_deref())
    }

    /// Maps a CLOCK_MONOTONIC time (perf `-k CLOCK_MONOTONIC` sample time) to epoch seconds.
    pub fn monotonic_to_epoch(&self, monotonic_s: f64) -> Option<f64> {
        self.offset().map(|o| monotonic_s + o)
    }

    /// The first event with this name.
    pub fn event(&self, name: &str) -> Option<&ClockEvent> {
        self.events.iter().find(|e| e.name == name)
    }

    /// The epoch of the first event with this name that has one
    /// (`epoch_of("workload_start")`).
    pub fn epoch_of(&self, name: &str) -> Option<f64> {
        self.events.iter().filter(|e| e.name == name).find_map(|e| e.epoch)
    }
}

/// True for a token shaped like epoch seconds between 2001 and 2100
/// (`1795981039.629701453`, `1795981039`).
pub fn epoch_token(tok: &str) -> Option<f64> {
    let b = tok.as_bytes();
    if b.is_empty() || b.len() > 24 || !b.iter().all(|c| c.is_ascii_digit() || *c == b'.') {
        return None;
    }
    let int_len = b.iter().position(|c| *c == b'.').unwrap_or(b.len());
    if int_len != 10 {
        return None;
    }
    let v: f64 = tok.parse().ok()?;
    (1.0e9..4.2e9).contains(&v).then_some(v)
}

/// Parses `epoch_minus_CLOCK_MONOTONIC 1795985302.661804 method=python3 time.time()-time.monotonic()`.
fn parse_offset(no: usize, text: &str) -> Option<MonotonicOffset> {
    let rest = text.strip_prefix(OFFSET_KEY)?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let rest = rest.trim_start();
    let (num, tail) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let seconds: f64 = num.parse().ok().filter(|v: &f64| v.is_finite())?;
    let tail = tail.trim();
    let method = tail.strip_prefix("method=").map(|m| m.trim().to_string());
    Some(MonotonicOffset { line: no, seconds, method })
}

/// The reader.
#[derive(Debug, Clone, Copy)]
pub struct Fmt;

impl Format for Fmt {
    type Output = ClockReference;
    const ID: &'static str = "clock_reference";
    const SAMPLE: &'static str =
        "epoch_minus_CLOCK_MONOTONIC 1795985302.661804 method=python3 time.time()-time.monotonic()";
    const DESCRIPTION: &'static str = "collector timeline: named events with epochs, epoch minus CLOCK_MONOTONIC (maps perf times to wall time)";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let mut first = true;
        for l in Lines::new(head).filter(|l| !l.is_blank()) {
            let t = l.text();
            let t = t.trim();
            if parse_offset(l.no, t).is_some() {
                return Sniff::Yes;
            }
            if first {
                first = false;
                // `collectors_start 1795981039.629701453 2026-11-29 19:37:19`
                let mut toks = t.split_whitespace();
                let name = toks.next().unwrap_or("");
                if matches!(name, "collect_start" | "collectors_start")
                    && toks.next().and_then(epoch_token).is_some()
                {
                    return Sniff::Yes;
                }
            }
        }
        Sniff::No
    }

    fn parse(input: &[u8]) -> Parsed<ClockReference> {
        let mut out = ClockReference::default();
        for (l, text) in Lines::new(input).content() {
            let t = text.trim();
            if let Some(o) = parse_offset(l.no, t) {
                out.offsets.push(o);
                continue;
            }
            let (name, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
            let epoch = rest.split_whitespace().find_map(epoch_token);
            out.events.push(ClockEvent {
                line: l.no,
                name: name.to_string(),
                epoch,
                text: rest.trim().to_string(),
            });
        }
        Parsed::new(out, count_lines(input))
    }
}

impl Summary for ClockReference {
    fn records(&self) -> usize {
        self.events.len() + self.offsets.len()
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        v.insert("layout", "collector timeline".to_string());
        if let Some(o) = self.offset() {
            v.insert("epoch_minus_monotonic", format!("{o:.6}"));
        }
        if let Some(m) = self.method() {
            v.insert("method", m.to_string());
        }
        if let Some(d) = self.drift() {
            v.insert("drift_us", format!("{:.0}", d * 1e6));
        }
        v.insert("timed_events", self.events.iter().filter(|e| e.epoch.is_some()).count().to_string());
        v
    }

    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        let mut it = self.events.iter().filter_map(|e| e.epoch);
        let first = it.next()?;
        let (lo, hi) = it.fold((first, first), |(lo, hi), e| (lo.min(e), hi.max(e)));
        Some((Stamp::Epoch(lo), Stamp::Epoch(hi)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S1: &str = "collectors_start 1795981039.629701453 2026-11-29 19:37:19
epoch_minus_CLOCK_MONOTONIC 1795979988.552291
workload_start 1795981049.672060846 2026-11-29 19:37:29
gcache_sim pid 15545
gcache_sim_exit rc=0 1795981265.305717204 2026-11-29 19:41:05
collectors_end 1795981280.194239867 2026-11-29 19:41:20
epoch_minus_CLOCK_MONOTONIC 1795979988.552094
";

    #[test]
    fn offset_events_and_drift() {
        assert_eq!(Fmt::sniff(S1.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(S1.as_bytes());
        assert!(p.diagnostics.is_empty());
        let c = &p.value;
        assert_eq!(c.offset(), Some(1795979988.552291));
        assert!((c.drift().unwrap() + 0.000197).abs() < 1e-6);
        assert_eq!(c.epoch_of("gcache_sim_exit"), Some(1_795_981_265.305_717_2));
        assert_eq!(c.event("gcache_sim").unwrap().epoch, None);
        assert_eq!(c.records(), 7);
        assert_eq!(c.monotonic_to_epoch(10.0), Some(1795979998.552291));
    }

    #[test]
    fn method_and_garbage() {
        let p = Fmt::parse(
            b"epoch_minus_CLOCK_MONOTONIC 1795985302.661804 method=python3 time.time()-time.monotonic()\n",
        );
        assert_eq!(p.value.method(), Some("python3 time.time()-time.monotonic()"));
        assert_eq!(Fmt::sniff(b"hello 1795985302.661804\n"), Sniff::No);
        assert_eq!(epoch_token("24281170"), None);
        let _ = Fmt::parse(&[0xff, b'\n', b' ', 0xc3]);
    }
}
