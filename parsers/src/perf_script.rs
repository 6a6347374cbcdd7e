//! `perf_script`: the text `perf script` prints, streamed line by line into
//! per-thread, per-event and per-second aggregates plus collapsed ("folded")
//! stacks identical to what `inferno-collapse-perf` produces.
//!
//! A sample is a header line, optionally followed by call-chain frames
//! (leaf first, indented by a TAB, shown as spaces here) and a blank line
//! (FORMATS.md §9), e.g. from
//! `bundles/s1_mmap_writeback/perf-workload.script.txt` (perf 6.1, `-g`):
//!
//! ```text
//! redo_sim 15546  1065.348856:   10101010 cpu-clock:pppH:
//!     ffffffff817acd56 ext4_sync_file+0x226 ([kernel.kallsyms])
//!     ffffffff8171200f __x64_sys_fsync+0xf ([kernel.kallsyms])
//!                fec20 fsync+0x10 (/usr/lib/x86_64-linux-gnu/libc.so.6)
//!
//! ```
//!
//! Without call chains the ip, symbol and dso follow the event on the header
//! line, and tracepoints carry their payload there instead:
//!
//! ```text
//!        sha256sum 11774   896.954534:    1001001 cpu-clock:pppH:  ffffffff8158e3e1 next_uptodate_folio+0xc1 ([kernel.kallsyms])
//!              sed 15395 [000]  1052.278526:        block:block_rq_issue: 254,0 RA 4096 () 12931792 + 8 0x2,0,4 [sed]
//!  kworker/u8:3-ev 11414 [001]  1053.636102:   writeback:writeback_start: bdi 254:0: sb_dev 0:0 nr_pages=107216 sync_mode=0 kupdate=1 range_cyclic=1 background=0 reason=periodic cgroup_ino=1
//! ```
//!
//! `perf script --header` prepends a `# ========` block; with
//! `perf record -k mono|realtime` perf ≥ 5.x adds the clock data that maps
//! perf time to wall time:
//!
//! ```text
//! # clockid: monotonic (1)
//! # reference time: 2026-11-29 20:56:39.542709 = 1795985799.542709 (TOD) = 496.880904846 (monotonic)
//! ```
//!
//! Memory: [`Collector`] keeps only aggregates (distinct stacks, threads,
//! per-second tracepoint counts, samples per 100 ms and per (100 ms, stack), the
//! latter capped at [`MAX_STACK_BUCKETS`]) and the current sample, so a multi-GB
//! file never needs its size in memory.
//!
//! Collapsing follows `inferno-collapse-perf` with default options (only the
//! first event type is folded, stacks are weighted by the sample period when
//! the header has a time stamp, `+0x` offsets and argument lists are removed,
//! `[unknown]` symbols fall back to `[dso-basename]`, Java `->` inlines get
//! `_[i]`). Deliberate divergences, all on malformed input: a header that
//! directly follows the frames of the previous sample (no blank line) starts
//! a new sample instead of being swallowed, frames separated from their
//! header by a blank line stay with it, and tracepoint payloads are never
//! taken for frames.

use crate::common::scrub::Identifiers;
use std::collections::{BTreeMap, HashMap};

pub mod pieces;

use crate::common::{DiagKind, Diagnostic, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};

/// Most diagnostics kept (later ones are only counted in `skipped_lines`).
const MAX_DIAGS: usize = 1000;

/// Everything learned from one `perf script` output.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PerfScript {
    /// The `--header` metadata (empty without `--header`).
    pub header: PerfHeader,
    /// Number of samples (header lines).
    pub samples: u64,
    /// Samples per event name as printed without the final `:` (`cpu-clock:pppH`, `block:block_rq_issue`).
    pub events: BTreeMap<String, u64>,
    /// First sample time stamp (perf clock seconds).
    pub first_ts: Option<f64>,
    /// Last sample time stamp (perf clock seconds).
    pub last_ts: Option<f64>,
    /// Folded stacks `comm;root;...;leaf` -> weight, equal to `inferno-collapse-perf`
    /// (weight = sum of sample periods when printed with a time stamp, else sample count).
    pub collapsed: BTreeMap<String, u64>,
    /// The event kind folded into `collapsed` (inferno keeps only the first one seen).
    pub collapse_event: Option<String>,
    /// Per-thread sample counts and fsync share, most samples first.
    pub threads: Vec<ThreadStat>,
    /// Tracepoint counts per (second, event, comm, rwbs), in that order.
    pub tracepoints: Vec<TraceSecond>,
    /// `writeback:*` tracepoints per (second, event, reason).
    pub writeback: Vec<WritebackSecond>,
    /// On-CPU samples per second, thread and [`StackClass`] (the outermost classified
    /// frame of the call chain): who was flushing, writing back, throttled, ... when.
    pub stack_seconds: Vec<StackSecond>,
    /// Per perf-clock second: samples whose stack is in an fsync-like path plus
    /// `syscalls:sys_enter_fsync`/`fdatasync` tracepoints.
    pub fsync_per_sec: BTreeMap<i64, u64>,
    /// Epoch seconds = perf time stamp + this offset, from the header clock data.
    pub wall_offset: Option<f64>,
    /// Samples that had at least one call-chain frame on its own line.
    pub callchain_samples: u64,
    /// How the sample headers looked (fields present), for `inspect`.
    pub layout: Layout,
    /// Samples of the folded event (`collapse_event`) with a time stamp, with or without a
    /// call stack, counted per 100 ms of perf time: bucket `floor(ts * 10)` -> samples (not
    /// periods): when the CPU ran.
    pub sample_buckets: BTreeMap<i64, u64>,
    /// Those with a stack per (100 ms bucket, stack): `(bucket, index of the stack in
    /// `collapsed`'s order, samples)`, sorted; at most [`MAX_STACK_BUCKETS`] distinct pairs
    /// (later new pairs are counted in `stack_buckets_dropped` only).
    pub stack_buckets: Vec<(i64, u32, u64)>,
    /// Samples left out of `stack_buckets` by its cap.
    pub stack_buckets_dropped: u64,
}

/// Most distinct (100 ms bucket, stack) pairs kept in [`PerfScript::stack_buckets`].
pub const MAX_STACK_BUCKETS: usize = 500_000;

/// Which optional fields the sample headers carried (counts of samples).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    /// Headers with `pid/tid`.
    pub pid_tid: u64,
    /// Headers with `[cpu]`.
    pub cpu: u64,
    /// Headers with a time stamp.
    pub time: u64,
    /// Headers with 9 fractional digits (`--ns`).
    pub time_ns: u64,
    /// Headers with a period.
    pub period: u64,
    /// Headers with an inline `ip sym (dso)`.
    pub inline_ip: u64,
}

/// The `# ========` block of `perf script --header`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PerfHeader {
    /// `# hostname : vm`.
    pub hostname: Option<String>,
    /// `# os release : 6.18.44-fc-v669`.
    pub os_release: Option<String>,
    /// `# perf version : 6.1.187`.
    pub perf_version: Option<String>,
    /// `# cmdline : /usr/bin/perf record ...`.
    pub cmdline: Option<String>,
    /// `# captured on    : Sun Nov 29 19:34:45 2026` (local time of the capturing host, as printed).
    pub captured_on: Option<String>,
    /// Event names from `# event : name = cpu-clock:pppH, ...`.
    pub events: Vec<String>,
    /// Clock data (`# clockid:` / `# reference time:`), perf ≥ 5.x with `-k`.
    pub clock: Option<ClockData>,
    /// Every `# key : value` line in order (lines without `:` have an empty value).
    pub raw: Vec<(String, String)>,
}

/// The clock of the recording and its reference to wall time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClockData {
    /// `monotonic`, `realtime`, ... (from `# clockid: monotonic (1)`).
    pub clockid: Option<String>,
    /// The numeric clock id (`1` = CLOCK_MONOTONIC).
    pub clockid_num: Option<i32>,
    /// `# clockid frequency: 1000 MHz`.
    pub frequency: Option<String>,
    /// Epoch seconds of the reference (the `(TOD)` value).
    pub tod_epoch: Option<f64>,
    /// The local date/time text of the reference (`2026-11-29 20:56:39.542709`).
    pub tod_text: Option<String>,
    /// Perf-clock seconds of the same reference instant.
    pub perf_time: Option<f64>,
}

/// Samples of one thread.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ThreadStat {
    /// The pid, when printed as `pid/tid`.
    pub pid: Option<u32>,
    /// The tid (a lone number in the header is the tid).
    pub tid: Option<u32>,
    /// Command name as printed (truncated to 15 chars by the kernel).
    pub comm: String,
    /// Samples.
    pub samples: u64,
    /// Samples whose stack contains a frame of an fsync-like path
    /// (fsync, fdatasync, sync_file_range, jbd2, ext4_sync_file, xfs_file_fsync, blkdev_issue_flush).
    pub fsync_samples: u64,
}

impl ThreadStat {
    /// `fsync_samples / samples` (0 without samples).
    pub fn fsync_share(&self) -> f64 {
        if self.samples == 0 { 0.0 } else { self.fsync_samples as f64 / self.samples as f64 }
    }
}

/// (second, event, comm, rwbs, device) of a [`TraceSecond`] while they are counted.
type TraceKey = (i64, String, String, String, Option<(u32, u32)>);

/// Tracepoint hits in one perf-clock second.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TraceSecond {
    /// Floor of the perf time stamp.
    pub sec: i64,
    /// Event name (`block:block_rq_issue`).
    pub event: String,
    /// The comm of the task that hit the tracepoint.
    pub comm: String,
    /// Hits.
    pub count: u64,
    /// Bytes of block requests (payload bytes field, else nr_sectors × 512).
    pub bytes: u64,
    /// The `rwbs` flags of block tracepoints (`W`, `WS`, `RA`, ...); empty for others.
    pub rwbs: String,
    /// The device (major, minor) of block tracepoints (`254,0 W ...`); None for others.
    pub dev: Option<(u32, u32)>,
}

/// `writeback:*` tracepoint hits in one perf-clock second.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WritebackSecond {
    /// Floor of the perf time stamp.
    pub sec: i64,
    /// Event name (`writeback:writeback_start`).
    pub event: String,
    /// The `reason=` value (`periodic`, `background`, `sync`, ...; empty when absent).
    pub reason: String,
    /// Hits.
    pub count: u64,
    /// Sum of `nr_pages=`.
    pub nr_pages: u64,
}

/// Why a sample's thread was doing I/O work, read from its call chain: the
/// outermost frame that names a reason (the syscall or kernel thread), so an
/// `fsync` that waits on a jbd2 commit is an fsync, a flusher's `wb_workfn` above
/// `do_writepages` is the flusher.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StackClass {
    /// `do_fsync`, `__x64_sys_fsync`, `__x64_sys_fdatasync`.
    Fsync,
    /// `__x64_sys_msync`, `__do_sys_msync`.
    Msync,
    /// `ksys_sync_file_range`, `__x64_sys_sync_file_range`.
    SyncFileRange,
    /// `ksys_sync`, `__x64_sys_syncfs`, `sync_filesystem`.
    Sync,
    /// `wb_workfn`, `wb_writeback`: the kernel flusher.
    Flusher,
    /// `balance_dirty_pages`: a writer held at the dirty limit.
    Throttle,
    /// `ext4_dio_write_iter`, `xfs_file_dio_write_aligned`, `blkdev_direct_write`.
    DirectWrite,
    /// `jbd2_journal_commit_transaction`, `xlog_cil_push_work`, `xfsaild`.
    Journal,
    /// `shrink_folio_list`, `pageout`, `kswapd`.
    Reclaim,
    /// `loop_process_work`, `lo_rw_aio`: a loop device's worker.
    Loop,
    /// `generic_perform_write`, `do_page_mkwrite`: the thread dirties the page cache
    /// (a buffered write or a store to a shared mapping). The weakest class: any other
    /// classified frame of the chain wins over it.
    Dirtying,
}

impl StackClass {
    /// The class of one frame symbol (offset included or not), if it names one.
    ///
    /// `ffffffff81a0c2e1 wb_workfn+0x2d1 ([kernel.kallsyms])` -> `Flusher`.
    pub fn of_symbol(sym: &str) -> Option<StackClass> {
        let f = find_offset(sym).and_then(|i| sym.get(..i)).unwrap_or(sym);
        Some(match f {
            "do_fsync"
            | "__x64_sys_fsync"
            | "__x64_sys_fdatasync"
            | "__arm64_sys_fsync"
            | "__arm64_sys_fdatasync" => StackClass::Fsync,
            "__x64_sys_msync" | "__do_sys_msync" | "__arm64_sys_msync" => StackClass::Msync,
            "ksys_sync_file_range" | "__x64_sys_sync_file_range" | "__arm64_sys_sync_file_range" => {
                StackClass::SyncFileRange
            }
            "ksys_sync" | "__x64_sys_sync" | "__x64_sys_syncfs" | "__arm64_sys_sync"
            | "__arm64_sys_syncfs" => StackClass::Sync,
            "wb_workfn" | "wb_writeback" | "wb_do_writeback" => StackClass::Flusher,
            "balance_dirty_pages" => StackClass::Throttle,
            "ext4_dio_write_iter"
            | "xfs_file_dio_write_aligned"
            | "xfs_file_dio_write_unaligned"
            | "xfs_file_dio_write"
            | "blkdev_direct_write"
            | "btrfs_direct_write" => StackClass::DirectWrite,
            "jbd2_journal_commit_transaction"
            | "kjournald2"
            | "xlog_cil_push_work"
            | "xfsaild"
            | "xlog_ioend_work" => StackClass::Journal,
            "shrink_folio_list" | "shrink_page_list" | "pageout" | "kswapd" => StackClass::Reclaim,
            "loop_process_work" | "loop_workfn" | "lo_rw_aio" | "lo_write_simple" => StackClass::Loop,
            "generic_perform_write"
            | "iomap_file_buffered_write"
            | "do_page_mkwrite"
            | "fault_dirty_shared_page" => StackClass::Dirtying,
            _ => return None,
        })
    }

    /// A short stable name (`fsync`, `flusher`, ...).
    pub fn id(self) -> &'static str {
        match self {
            StackClass::Fsync => "fsync",
            StackClass::Msync => "msync",
            StackClass::SyncFileRange => "sync_file_range",
            StackClass::Sync => "sync",
            StackClass::Flusher => "flusher",
            StackClass::Throttle => "balance_dirty_pages",
            StackClass::DirectWrite => "direct_write",
            StackClass::Journal => "journal",
            StackClass::Reclaim => "reclaim",
            StackClass::Loop => "loop",
            StackClass::Dirtying => "dirtying",
        }
    }
}

/// Samples of one thread in one perf-clock second whose chain has one [`StackClass`].
#[derive(Debug, Clone, PartialEq)]
pub struct StackSecond {
    /// Floor of the perf time stamp.
    pub sec: i64,
    /// The class of the chain.
    pub class: StackClass,
    /// The thread's comm.
    pub comm: String,
    /// The thread id.
    pub tid: Option<u32>,
    /// Samples.
    pub samples: u64,
}

/// Options of the folding, like `inferno-collapse-perf --pid` / `--tid`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CollapseOptions {
    /// Root frame `comm-pid` (pid is `?` when the header has no `pid/tid`).
    pub pid: bool,
    /// Root frame `comm-pid/tid` (implies `pid`).
    pub tid: bool,
}

/// A parsed sample header.
#[derive(Debug, Clone, Copy)]
struct Header<'a> {
    comm: &'a str,
    pid: Option<&'a str>,
    tid: &'a str,
    cpu: bool,
    time: Option<&'a str>,
    period: Option<u64>,
    /// Event as printed without the final `:`.
    event: Option<&'a str>,
    /// What follows the event (inline frame or tracepoint payload), trimmed.
    rest: &'a str,
}

/// The event kind inferno compares to pick the events it folds.
fn inferno_event_key<'a>(h: &Header<'a>) -> Option<&'a str> {
    let ev = h.event?;
    if h.time.is_some() {
        Some(ev.split(':').next().unwrap_or(ev))
    } else {
        // No time stamp: inferno's first `:` is the event's own one.
        Some(ev.split(':').nth(1).unwrap_or(""))
    }
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn is_hex(s: &str) -> bool {
    !s.is_empty() && s.len() <= 16 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `977`, `977/977`.
fn split_pid(tok: &str) -> Option<(Option<&str>, &str)> {
    match tok.split_once('/') {
        Some((p, t)) if is_digits(p) && is_digits(t) => Some((Some(p), t)),
        None if is_digits(tok) => Some((None, tok)),
        _ => None,
    }
}

/// `7628263.042515:` -> `7628263.042515`.
fn time_tok(tok: &str) -> Option<&str> {
    let t = tok.strip_suffix(':')?;
    let (a, b) = t.split_once('.')?;
    (is_digits(a) && is_digits(b)).then_some(t)
}

fn is_cpu_tok(tok: &str) -> bool {
    tok.strip_prefix('[').and_then(|t| t.strip_suffix(']')).is_some_and(is_digits)
}

/// An event name before its `:` (`cycles`, `cpu-clock`, `block:block_rq_issue`, `cpu/mem-loads/`);
/// a path is not one (gdb's `29\t../sysdeps/unix/sysv/linux/poll.c: No such file or directory.`).
fn event_tok(tok: &str) -> Option<&str> {
    let e = tok.strip_suffix(':')?;
    let starts = e.bytes().next().is_some_and(|c| c.is_ascii_alphabetic() || c == b'_');
    (starts && !is_digits(e) && !e.starts_with('[')).then_some(e)
}

/// Parses a sample header line (already right-trimmed); `None` when the line is not one.
///
/// `perf   977/977   [000] 7628263.042515: cycles:`,
/// `dd 29776 666709.771979:   10101010 cpu-clock:`, `func_ab 15294 cpu-clock:`,
/// `emulator  4152 75695.008865:          1 cycles:u:`.
fn parse_header<'a>(line: &'a str, toks: &mut Vec<(usize, usize)>) -> Option<Header<'a>> {
    toks.clear();
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() && toks.len() < 64 {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let s = i;
        while i < b.len() && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i > s {
            toks.push((s, i));
        }
    }
    let tok = |k: usize| toks.get(k).and_then(|&(s, e)| line.get(s..e));
    for p in 0..toks.len().min(48) {
        let Some((pid, tid)) = tok(p).and_then(split_pid) else { continue };
        let mut j = p + 1;
        let cpu = tok(j).is_some_and(is_cpu_tok);
        if cpu {
            j += 1;
        }
        let time = tok(j).and_then(time_tok);
        if time.is_some() {
            j += 1;
        }
        let mut period = None;
        if time.is_some() && tok(j).is_some_and(is_digits) && tok(j + 1).and_then(event_tok).is_some() {
            period = tok(j).and_then(|t| t.parse().ok());
            j += 1;
        }
        let event = tok(j).and_then(event_tok);
        if event.is_some() {
            j += 1;
        }
        if time.is_none() && event.is_none() {
            continue;
        }
        let start = toks.first().map_or(0, |t| t.0);
        let comm_end = toks.get(p).map_or(0, |t| t.0);
        let comm = line.get(start..comm_end).unwrap_or("").trim_end();
        let rest_start = match j.checked_sub(1).and_then(|k| toks.get(k)) {
            Some(&(_, e)) => e,
            None => line.len(),
        };
        let rest = line.get(rest_start..).unwrap_or("").trim();
        return Some(Header { comm, pid, tid, cpu, time, period, event, rest });
    }
    None
}

/// True for `block:block_rq_issue`-like names (as opposed to `cycles:u` modifiers).
fn is_tracepoint(event: &str) -> bool {
    match event.split_once(':') {
        Some((_, m)) => !m.is_empty() && !m.bytes().all(|c| b"ukhIGHpPSDWeb".contains(&c)),
        None => false,
    }
}

/// A call-chain frame split the way inferno splits it: `(pc, rawfunc, module)`.
///
/// `ffffffff8168eb8f mod_memcg_state+0xf ([kernel.kallsyms])`,
/// `7f1e2215d058  (/lib/x86_64-linux-gnu/libc-2.15.so)` (empty symbol),
/// `ffffffff81000c82 asm_exc_page_fault` (`-F ip,sym`: no dso).
fn frame_parts(line: &str) -> Option<(&str, &str, Option<&str>)> {
    let (pc, rest) = frame_pc(line)?;
    let (func, module) = frame_rest(rest)?;
    Some((pc, func, module))
}

/// The pc of a frame line and the text after it (`mod_memcg_state+0xf ([kernel.kallsyms])`).
fn frame_pc(line: &str) -> Option<(&str, &str)> {
    // Bytes, not `str` patterns (one call per frame line); the whitespace is
    // `char::is_whitespace`'s, as `str::trim*` trims it.
    let b = line.as_bytes();
    let lead = b.iter().position(|&c| !is_ws(c)).unwrap_or(b.len());
    // `ffffffff817acd56 ext4_sync_file+0x226 ([kernel.kallsyms])`: hex digits, a space.
    let hex = b.get(lead..).unwrap_or(&[]).iter().take(17).take_while(|c| c.is_ascii_hexdigit()).count();
    if (1..=16).contains(&hex) && b.get(lead + hex) == Some(&b' ') {
        return Some((line.get(lead..lead + hex)?, line.get(lead + hex + 1..)?));
    }
    let s = if b.get(lead).is_none_or(u8::is_ascii) { line.get(lead..)? } else { line.trim_start() };
    let sp = memchr::memchr(b' ', s.as_bytes())?;
    let (pc, rest) = (s.get(..sp)?.trim_end(), s.get(sp + 1..)?);
    is_hex(pc).then_some((pc, rest))
}

/// The text of a frame after its pc split into `(rawfunc, module)` ([`frame_parts`]).
fn frame_rest(rest: &str) -> Option<(&str, Option<&str>)> {
    let r = rest.as_bytes();
    if let Some(k) = memchr::memrchr(b' ', r)
        && r.len() - k > 2
        && r.get(k + 1) == Some(&b'(')
        && r.last() == Some(&b')')
    {
        let func = match rest.get(..k)?.trim() {
            "" => " ",
            f => f,
        };
        return Some((func, rest.get(k + 2..rest.len() - 1)));
    }
    let r = rest.trim();
    if r.is_empty() || (r.starts_with('(') && r.ends_with(')')) {
        return None;
    }
    Some((r, None))
}

/// ASCII whitespace as `char::is_whitespace` sees it (with the vertical tab).
fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r')
}

/// Frame symbols that put a sample on an fsync-like path.
pub fn is_fsync_symbol(sym: &str) -> bool {
    const PATTERNS: [&str; 8] = [
        "fsync",
        "fdatasync",
        "sync_file_range",
        "jbd2",
        "ext4_sync_file",
        "xfs_file_fsync",
        "blkdev_issue_flush",
        "__x64_sys_fsync",
    ];
    static PREFILTER: std::sync::LazyLock<[memchr::memmem::Finder<'static>; 3]> =
        std::sync::LazyLock::new(|| {
            [
                memchr::memmem::Finder::new("sync"),
                memchr::memmem::Finder::new("jbd2"),
                memchr::memmem::Finder::new("flush"),
            ]
        });
    let b = sym.as_bytes();
    // Every pattern holds a `y` (`…sync…`), a `j` (`jbd2`) or an `h` (`flush`): a symbol
    // with none of them is ruled out by one byte scan instead of substring searches.
    if memchr::memchr3(b'y', b'j', b'h', b).is_none() || PREFILTER.iter().all(|f| f.find(b).is_none()) {
        return false;
    }
    PATTERNS.iter().any(|p| sym.contains(p))
}

/// Where the first `+0x` starts (`ext4_sync_file+0x226` → 14).
fn find_offset(func: &str) -> Option<usize> {
    let b = func.as_bytes();
    memchr::memchr_iter(b'+', b).find(|&i| b.get(i + 1..i + 3) == Some(b"0x"))
}

/// Where the last `+0x` starts (`ext4_sync_file+0x226` → 14), found with `memrchr`.
fn rfind_offset(func: &str) -> Option<usize> {
    let b = func.as_bytes();
    let mut end = b.len();
    while let Some(i) = memchr::memrchr(b'+', b.get(..end)?) {
        if b.get(i + 1..i + 3) == Some(b"0x") {
            return Some(i);
        }
        end = i;
    }
    None
}

/// Undoes the partial demangling perf leaves on Rust symbols
/// (`..` -> `::`, `$LT$` -> `<`, trailing `::h<16 hex>` removed).
fn fix_rust_symbol(sym: &str, out: &mut String) {
    const HASH: usize = 17;
    let tail = sym.len().checked_sub(HASH).and_then(|i| sym.get(i..));
    let hashed = tail.is_some_and(|t| t.starts_with('h') && t.bytes().skip(1).all(|c| c.is_ascii_hexdigit()));
    if !hashed {
        out.push_str(sym);
        return;
    }
    let mut rest = sym.get(..sym.len() - HASH).unwrap_or("");
    rest = rest.strip_suffix("::").unwrap_or(rest);
    if rest.starts_with("_$") {
        rest = rest.get(1..).unwrap_or("");
    }
    const TABLE: [(&str, &str); 20] = [
        ("$SP$", "@"),
        ("$BP$", "*"),
        ("$RF$", "&"),
        ("$LT$", "<"),
        ("$GT$", ">"),
        ("$LP$", "("),
        ("$RP$", ")"),
        ("$C$", ","),
        ("$u7e$", "~"),
        ("$u20$", " "),
        ("$u27$", "'"),
        ("$u3d$", "="),
        ("$u5b$", "["),
        ("$u5d$", "]"),
        ("$u7b$", "{"),
        ("$u7d$", "}"),
        ("$u3b$", ";"),
        ("$u2b$", "+"),
        ("$u21$", "!"),
        ("$u22$", "\""),
    ];
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("..") {
            out.push_str("::");
            rest = r;
        } else if let Some(r) = rest.strip_prefix('.') {
            out.push('.');
            rest = r;
        } else if rest.starts_with('$') {
            match TABLE.iter().find(|(k, _)| rest.starts_with(k)) {
                Some((k, v)) => {
                    out.push_str(v);
                    rest = rest.get(k.len()..).unwrap_or("");
                }
                None => {
                    out.push_str(rest);
                    break;
                }
            }
        } else {
            let n = rest.find(['$', '.']).unwrap_or(rest.len());
            out.push_str(rest.get(..n).unwrap_or(""));
            rest = rest.get(n..).unwrap_or("");
        }
    }
}

/// Length of `func` without its top-level argument list, keeping Go
/// `pkg.(*T).M` receivers and C++ `(anonymous namespace)`.
fn without_args(func: &str) -> usize {
    let b = func.as_bytes();
    let mut depth: i64 = 0;
    let mut after_dot = None;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'<' | b'{' | b'[' => depth += 1,
            b'>' | b'}' | b']' | b')' => depth -= 1,
            b'(' => {
                if depth == 0 {
                    let go = after_dot == Some(i);
                    let anon = func.get(i..).is_some_and(|r| r.starts_with("(anonymous namespace)"));
                    if !go && !anon {
                        return i;
                    }
                }
                depth += 1;
            }
            b'.' => after_dot = Some(i + 1),
            _ => {}
        }
    }
    b.len()
}

/// Appends one folded function name for `func` of a frame in `module` to `out`.
fn push_func(out: &mut String, func: &str, module: Option<&str>, java: bool, inlined: bool) {
    let start = out.len();
    if func == "[unknown]" {
        match module {
            Some(m) if m != "[unknown]" => {
                out.push('[');
                out.push_str(m.rsplit('/').next().unwrap_or(m));
                out.push(']');
            }
            _ => out.push_str(func),
        }
    } else {
        out.push_str(func);
    }
    let added = out.as_bytes().get(start..).unwrap_or(&[]);
    let semicolon = memchr::memchr(b';', added).is_some();
    // Only a `(` starts an argument list.
    let paren = memchr::memchr(b'(', added).is_some();
    if semicolon {
        let fixed = out.get(start..).unwrap_or("").replace(';', ":");
        out.truncate(start);
        out.push_str(&fixed);
    }
    if paren {
        let keep = without_args(out.get(start..).unwrap_or(""));
        out.truncate(start + keep);
    }
    if java && out.as_bytes().get(start) == Some(&b'L') && out.get(start..).is_some_and(|s| s.contains('/')) {
        out.remove(start);
    }
    if inlined && !out.get(start..).is_some_and(|s| s.contains("_[i]")) {
        out.push_str("_[i]");
    }
}

/// Most slots of a [`FrameCache`].
const MAX_FRAME_SLOTS: usize = 1 << 12;

/// Frame texts folded before ([`FrameFold`]), in a direct-mapped table indexed by the
/// frame's pc: a lookup is a multiplication and a comparison of the text (no hashing of
/// the text, and no input can make it slower than folding every frame). A slot taken by
/// another frame is replaced; the table doubles while it is half full, up to
/// [`MAX_FRAME_SLOTS`] (so that a piece of a few samples allocates little).
#[derive(Debug, Default)]
struct FrameCache {
    slots: Vec<Option<(u64, Box<str>, FrameFold)>>,
    filled: usize,
}

impl FrameCache {
    fn index(&self, pc: u64) -> usize {
        (pc.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & self.slots.len().saturating_sub(1)
    }

    /// The folding of the frame `text` at `pc`, if kept.
    fn get(&self, pc: u64, text: &str) -> Option<&FrameFold> {
        match self.slots.get(self.index(pc)) {
            Some(Some((p, t, f))) if *p == pc && **t == *text => Some(f),
            _ => None,
        }
    }

    /// Keeps the folding of the frame `text` at `pc`.
    fn put(&mut self, pc: u64, text: &str, fold: FrameFold) {
        if self.filled * 2 >= self.slots.len() && self.slots.len() < MAX_FRAME_SLOTS {
            let old = std::mem::take(&mut self.slots);
            self.slots.resize_with((old.len() * 2).clamp(64, MAX_FRAME_SLOTS), || None);
            self.filled = 0;
            for (p, t, f) in old.into_iter().flatten() {
                self.place(p, t, f);
            }
        }
        self.place(pc, text.into(), fold);
    }

    fn place(&mut self, pc: u64, text: Box<str>, fold: FrameFold) {
        let i = self.index(pc);
        if let Some(slot) = self.slots.get_mut(i) {
            self.filled += usize::from(slot.is_none());
            *slot = Some((pc, text, fold));
        }
    }
}

/// The value of a pc of at most 16 hex digits ([`is_hex`]).
fn hex_value(pc: &str) -> u64 {
    pc.bytes().fold(0, |v, b| v << 4 | u64::from(char::from(b).to_digit(16).unwrap_or(0)))
}

/// What one frame line gives its sample, the same for every line with the same text after
/// the pc (`ext4_sync_file+0x226 ([kernel.kallsyms])`): kept per text, a frame seen
/// before is one hash lookup instead of its split, classification and folding.
#[derive(Debug, Clone)]
struct FrameFold {
    /// The symbol is on an fsync-like path ([`is_fsync_symbol`]).
    fsync: bool,
    /// Its [`StackClass`].
    class: Option<StackClass>,
    /// The folded unit (`a` or `a;b_[i]` for Java inlines); none for a symbol that starts
    /// with `(` once its offset is removed.
    unit: Option<Box<str>>,
}

impl FrameFold {
    /// The folding of the frame text `rest` (after the pc) in a thread whose comm starts
    /// with `java` or not; `None` when it is not a frame.
    fn of(rest: &str, java: bool, scratch: &mut String) -> Option<FrameFold> {
        let (raw, module) = frame_rest(rest)?;
        let (fsync, class) = (is_fsync_symbol(raw), StackClass::of_symbol(raw));
        // Strip a `+0x<hex>` symbol offset.
        let mut func = raw;
        if let Some(i) = rfind_offset(func)
            && func.get(i + 3..).is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
        {
            func = func.get(..i).unwrap_or(func);
        }
        if func.starts_with('(') {
            return Some(FrameFold { fsync, class, unit: None });
        }
        scratch.clear();
        fix_rust_symbol(func, scratch);
        let mut unit = String::with_capacity(scratch.len());
        if memchr::memchr(b'>', scratch.as_bytes()).is_none() {
            push_func(&mut unit, scratch, module, java, false);
        } else {
            // Java inlining: `a->b->c`, the callees after the first get `_[i]`.
            for (n, part) in scratch.split("->").enumerate() {
                if n > 0 {
                    unit.push(';');
                }
                push_func(&mut unit, part, module, java, n > 0);
            }
        }
        Some(FrameFold { fsync, class, unit: Some(unit.into()) })
    }

    /// Adds the frame to the open sample.
    fn apply(&self, c: &mut Current) {
        c.frames += 1;
        c.fsync |= self.fsync;
        if let Some(k) = self.class
            && (k != StackClass::Dirtying || c.class.is_none())
        {
            c.class = Some(k);
        }
        if let (true, Some(unit)) = (c.fold, &self.unit) {
            let start = c.buf.len();
            c.buf.push_str(unit);
            c.units.push((start, c.buf.len()));
        }
    }
}

/// Folded stack -> (weight, id in order of first appearance).
type Stacks = HashMap<String, (u64, u32)>;

/// (100 ms bucket, stack id) -> (samples, index in order of first appearance).
type Timed = BTreeMap<(i64, u32), (u64, u32)>;

/// The sample being read.
#[derive(Debug, Default)]
struct Current {
    active: bool,
    comm: String,
    pid: Option<u32>,
    tid: Option<u32>,
    ts: Option<f64>,
    weight: u64,
    fold: bool,
    fsync: bool,
    /// The outermost classified frame so far (frames come leaf first).
    class: Option<StackClass>,
    frames: usize,
    /// Frames came on their own lines (a call chain, not an inline ip).
    chain: bool,
    /// Folded frame units, leaf first, each `a;b_[i]` for one frame line.
    buf: String,
    units: Vec<(usize, usize)>,
}

/// Streaming parser: feed lines, then [`Collector::finish`]. Memory is bounded
/// by distinct stacks, threads and tracepoint seconds, not by samples.
#[derive(Debug, Default)]
pub struct Collector {
    opts: CollapseOptions,
    out: PerfScript,
    cur: Current,
    toks: Vec<(usize, usize)>,
    scratch: String,
    key: String,
    /// The folding of frame texts seen.
    frame_folds: FrameCache,
    /// Folded stack -> (weight, id in order of first appearance).
    stacks: Stacks,
    /// (100 ms bucket, stack id) -> (samples, index in order of first appearance).
    timed: Timed,
    threads: HashMap<(Option<u32>, Option<u32>), Vec<ThreadStat>>,
    tp: BTreeMap<TraceKey, (u64, u64)>,
    wb: BTreeMap<(i64, String, String), (u64, u64)>,
    /// Samples per (second, class, comm, tid).
    classes: BTreeMap<(i64, StackClass, String, Option<u32>), u64>,
    in_preamble: bool,
    /// A sample's event was not the folded one, or had no event kind (a piece read with
    /// the folded event it chose must be read again if the file's is another).
    mixed: bool,
    lines: usize,
    diags: Vec<Diagnostic>,
    skipped: usize,
}

impl Collector {
    /// A collector with default (inferno default) folding options.
    pub fn new() -> Self {
        Self::with_options(CollapseOptions::default())
    }

    /// A collector folding with `opts` (`--pid` / `--tid` root frames).
    pub fn with_options(opts: CollapseOptions) -> Self {
        Collector { opts, in_preamble: true, ..Default::default() }
    }

    fn skip(&mut self, line_no: usize, kind: DiagKind, text: &str) {
        self.skipped += 1;
        if self.diags.len() < MAX_DIAGS {
            self.diags.push(Diagnostic::new(line_no, kind, text));
        }
    }

    /// Feeds whole lines (each ending in `\n` but maybe the last), the first numbered
    /// `first_no`; returns how many. The same as [`Collector::feed_line`] on each, with
    /// the UTF-8 check made once for all of them (a tenth of the time when made per line).
    pub fn feed_lines(&mut self, bytes: &[u8], first_no: usize) -> usize {
        let Ok(text) = std::str::from_utf8(bytes) else {
            let mut n = 0;
            for l in Lines::numbered_from(bytes, first_no) {
                self.feed_line(l.no, l.bytes);
                n += 1;
            }
            return n;
        };
        let (mut at, mut no) = (0, first_no);
        while at < text.len() {
            let end = memchr::memchr(b'\n', &bytes[at..]).map_or(text.len(), |i| at + i);
            let line = text.get(at..end).unwrap_or("");
            self.feed_text(no, line.strip_suffix('\r').unwrap_or(line));
            (at, no) = (end + 1, no + 1);
        }
        no - first_no
    }

    /// Feeds one line (without its `\n`; a trailing `\r` is ignored).
    pub fn feed_line(&mut self, line_no: usize, line: &[u8]) {
        // Valid UTF-8 (nearly every line) is borrowed; only a damaged line is copied.
        match std::str::from_utf8(line) {
            Ok(t) => self.feed_text(line_no, t),
            Err(_) => self.feed_text(line_no, &String::from_utf8_lossy(line)),
        }
    }

    /// [`Collector::feed_line`] of a line already decoded.
    fn feed_text(&mut self, line_no: usize, text: &str) {
        self.lines = self.lines.max(line_no);
        let is_comment = text.starts_with('#');
        let t = text.trim_end();
        if t.is_empty() {
            // A blank line closes a sample with frames; frames after a blank line that
            // follows a header without any stay with it.
            if self.cur.active && self.cur.frames > 0 {
                self.finish_sample();
            }
            return;
        }
        if is_comment {
            if self.in_preamble {
                self.header_line(t);
            }
            return;
        }
        self.in_preamble = false;
        let sample_open = self.cur.active;
        // Frames end with `(dso)`; try them first so a frame is never read as a header.
        if sample_open && t.ends_with(')') && self.try_frame(t) {
            return;
        }
        let mut toks = std::mem::take(&mut self.toks);
        let header = parse_header(t, &mut toks);
        if let Some(h) = header {
            self.finish_sample();
            self.start_sample(&h);
        }
        self.toks = toks;
        if header.is_some() {
            return;
        }
        if sample_open && self.try_frame(t) {
            return;
        }
        if frame_parts(t).is_some() {
            self.skip(line_no, DiagKind::NoHeader, t);
        } else {
            self.skip(line_no, DiagKind::Malformed, t);
        }
    }

    /// `# hostname : vm`, `# reference time: ... = 1795985799.542709 (TOD) = 496.880904846 (monotonic)`.
    fn header_line(&mut self, t: &str) {
        let body = t.trim_start_matches('#').trim();
        if body.is_empty() || body.bytes().all(|b| b == b'=') {
            return;
        }
        let (k, v) = match body.split_once(':') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (body, ""),
        };
        let h = &mut self.out.header;
        match k {
            "hostname" => h.hostname = Some(v.to_string()),
            "os release" => h.os_release = Some(v.to_string()),
            "perf version" => h.perf_version = Some(v.to_string()),
            "cmdline" => h.cmdline = Some(v.to_string()),
            "captured on" => h.captured_on = Some(v.to_string()),
            "event" => {
                if let Some(n) = v.strip_prefix("name = ") {
                    h.events.push(n.split(',').next().unwrap_or(n).trim().to_string());
                }
            }
            "clockid" => {
                let c = h.clock.get_or_insert_with(Default::default);
                let mut it = v.split_whitespace();
                c.clockid = it.next().map(str::to_string);
                c.clockid_num = it.next().and_then(|n| n.trim_matches(['(', ')']).parse().ok());
            }
            "clockid frequency" => {
                h.clock.get_or_insert_with(Default::default).frequency = Some(v.to_string());
            }
            "reference time" | "clock reference" => {
                // `2026-11-29 20:56:39.542709 = 1795985799.542709 (TOD) = 496.880904846 (monotonic)`
                let c = h.clock.get_or_insert_with(Default::default);
                let mut parts = v.split(" = ");
                c.tod_text = parts.next().map(|s| s.trim().to_string());
                for p in parts {
                    let mut w = p.split_whitespace();
                    let num = w.next().and_then(|n| n.parse::<f64>().ok()).filter(|n| n.is_finite());
                    match w.next() {
                        Some("(TOD)") => c.tod_epoch = num,
                        Some(_) => c.perf_time = num,
                        None => {}
                    }
                }
            }
            _ => {}
        }
        h.raw.push((k.to_string(), v.to_string()));
    }

    fn start_sample(&mut self, h: &Header<'_>) {
        let out = &mut self.out;
        out.samples += 1;
        let event = h.event.unwrap_or("");
        match out.events.get_mut(event) {
            Some(n) => *n += 1,
            None => {
                out.events.insert(event.to_string(), 1);
            }
        }
        let ts = h.time.and_then(|t| t.parse::<f64>().ok()).filter(|t| t.is_finite());
        if let Some(t) = ts {
            out.first_ts = Some(out.first_ts.map_or(t, |f| f.min(t)));
            out.last_ts = Some(out.last_ts.map_or(t, |l| l.max(t)));
        }
        let l = &mut out.layout;
        l.pid_tid += u64::from(h.pid.is_some());
        l.cpu += u64::from(h.cpu);
        l.time += u64::from(h.time.is_some());
        l.time_ns += u64::from(h.time.and_then(|t| t.split_once('.')).is_some_and(|(_, f)| f.len() >= 9));
        l.period += u64::from(h.period.is_some());

        // inferno's choice of the folded event kind.
        let mut fold = true;
        match inferno_event_key(h) {
            Some(k) => match &out.collapse_event {
                Some(e) => fold = e == k,
                None => out.collapse_event = Some(k.to_string()),
            },
            None => self.mixed = true,
        }
        self.mixed |= !fold;
        let c = &mut self.cur;
        c.active = true;
        c.comm.clear();
        c.comm.push_str(h.comm);
        c.pid = h.pid.and_then(|p| p.parse().ok());
        c.tid = h.tid.parse().ok();
        c.ts = ts;
        c.weight = if h.time.is_some() { h.period.unwrap_or(1) } else { 1 };
        c.fold = fold;
        c.fsync = false;
        c.class = None;
        c.frames = 0;
        c.chain = false;
        c.buf.clear();
        c.units.clear();

        let tracepoint = is_tracepoint(event);
        if tracepoint {
            self.tracepoint(h, event, ts);
        } else if !h.rest.is_empty() {
            // `cpu-clock:pppH:  ffffffff8158e3e1 next_uptodate_folio+0xc1 ([kernel.kallsyms])`
            self.out.layout.inline_ip += 1;
            if self.add_frame(h.rest) {
                self.finish_sample();
            }
        }
    }

    /// Aggregates a tracepoint hit (payload on the header line).
    fn tracepoint(&mut self, h: &Header<'_>, event: &str, ts: Option<f64>) {
        let name = event.split_once(':').map_or(event, |(_, n)| n);
        let Some(sec) = ts.map(|t| t.floor() as i64) else { return };
        if name == "sys_enter_fsync" || name == "sys_enter_fdatasync" || name == "sys_enter_sync_file_range" {
            *self.out.fsync_per_sec.entry(sec).or_insert(0) += 1;
        }
        if event.starts_with("writeback:") {
            let mut reason = "";
            let mut pages = 0u64;
            for w in h.rest.split_whitespace() {
                if let Some(r) = w.strip_prefix("reason=") {
                    reason = r;
                } else if let Some(p) = w.strip_prefix("nr_pages=") {
                    pages = p.parse().unwrap_or(0);
                }
            }
            let e = self.wb.entry((sec, event.to_string(), reason.to_string())).or_insert((0, 0));
            e.0 = e.0.saturating_add(1);
            e.1 = e.1.saturating_add(pages);
        }
        let (rwbs, bytes, dev) =
            if event.starts_with("block:") { block_payload(h.rest) } else { ("", 0, None) };
        let e = self
            .tp
            .entry((sec, event.to_string(), h.comm.to_string(), rwbs.to_string(), dev))
            .or_insert((0, 0));
        e.0 = e.0.saturating_add(1);
        e.1 = e.1.saturating_add(bytes);
    }

    /// Adds a frame line to the open sample; false when it is not a frame.
    fn try_frame(&mut self, t: &str) -> bool {
        if !self.cur.active || !self.add_frame(t) {
            return false;
        }
        self.cur.chain = true;
        true
    }

    fn add_frame(&mut self, t: &str) -> bool {
        let Some((pc, rest)) = frame_pc(t) else { return false };
        // The same text after the pc folds the same way (but in a Java thread's comm).
        let java = self.cur.comm.starts_with("java");
        let pc = hex_value(pc);
        if !java && let Some(f) = self.frame_folds.get(pc, rest) {
            f.apply(&mut self.cur);
            return true;
        }
        let Some(f) = FrameFold::of(rest, java, &mut self.scratch) else { return false };
        f.apply(&mut self.cur);
        if !java {
            self.frame_folds.put(pc, rest, f);
        }
        true
    }

    /// Closes the open sample: thread stats, fsync series, folded stack.
    fn finish_sample(&mut self) {
        if !self.cur.active {
            return;
        }
        let c = &mut self.cur;
        c.active = false;
        self.out.callchain_samples += u64::from(c.chain);
        let list = self.threads.entry((c.pid, c.tid)).or_default();
        let st = match list.iter_mut().position(|s| s.comm == c.comm) {
            Some(i) => &mut list[i],
            None => {
                list.push(ThreadStat { pid: c.pid, tid: c.tid, comm: c.comm.clone(), ..Default::default() });
                let n = list.len() - 1;
                &mut list[n]
            }
        };
        st.samples += 1;
        if let (Some(k), Some(t)) = (c.class, c.ts) {
            let e = self.classes.entry((t.floor() as i64, k, c.comm.clone(), c.tid)).or_insert(0);
            *e = e.saturating_add(1);
        }
        if c.fsync {
            st.fsync_samples += 1;
            if let Some(t) = c.ts {
                *self.out.fsync_per_sec.entry(t.floor() as i64).or_insert(0) += 1;
            }
        }
        let bucket = c.ts.filter(|_| c.fold).map(|t| (t * 10.0).floor() as i64);
        if let Some(b) = bucket {
            *self.out.sample_buckets.entry(b).or_insert(0) += 1;
        }
        if c.fold && !c.units.is_empty() {
            let k = &mut self.key;
            k.clear();
            for ch in c.comm.chars() {
                k.push(if ch == ' ' { '_' } else { ch });
            }
            if self.opts.pid || self.opts.tid {
                k.push('-');
                match c.pid {
                    Some(p) => k.push_str(&p.to_string()),
                    None => k.push('?'),
                }
                if self.opts.tid {
                    k.push('/');
                    if let Some(t) = c.tid {
                        k.push_str(&t.to_string());
                    }
                }
            }
            for &(s, e) in c.units.iter().rev() {
                k.push(';');
                k.push_str(c.buf.get(s..e).unwrap_or(""));
            }
            let n = self.stacks.len() as u32;
            let id = match self.stacks.get_mut(k.as_str()) {
                Some(e) => {
                    e.0 = e.0.saturating_add(c.weight);
                    e.1
                }
                None => {
                    self.stacks.insert(k.clone(), (c.weight, n));
                    n
                }
            };
            if let Some(b) = bucket {
                let len = self.timed.len();
                match self.timed.get_mut(&(b, id)) {
                    Some(v) => v.0 += 1,
                    None if len < MAX_STACK_BUCKETS => {
                        self.timed.insert((b, id), (1, len as u32));
                    }
                    None => self.out.stack_buckets_dropped += 1,
                }
            }
        }
    }

    /// Ends the stream and returns the aggregates with the diagnostics.
    pub fn finish(mut self) -> Parsed<PerfScript> {
        self.finish_sample();
        let mut out = self.out;
        // Stack ids become indexes in `collapsed`'s (sorted) order.
        let mut keyed: Vec<(String, (u64, u32))> = self.stacks.into_iter().collect();
        keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut rank = vec![0u32; keyed.len()];
        for (i, (_, (_, id))) in keyed.iter().enumerate() {
            rank[*id as usize] = i as u32;
        }
        out.collapsed = keyed.into_iter().map(|(k, (w, _))| (k, w)).collect();
        let mut timed: Vec<(i64, u32, u64)> =
            self.timed.into_iter().map(|((b, id), (n, _))| (b, rank[id as usize], n)).collect();
        timed.sort_unstable();
        out.stack_buckets = timed;
        let mut threads: Vec<ThreadStat> = self.threads.into_values().flatten().collect();
        threads.sort_by(|a, b| b.samples.cmp(&a.samples).then(a.tid.cmp(&b.tid)).then(a.comm.cmp(&b.comm)));
        out.threads = threads;
        out.tracepoints = self
            .tp
            .into_iter()
            .map(|((sec, event, comm, rwbs, dev), (count, bytes))| TraceSecond {
                sec,
                event,
                comm,
                count,
                bytes,
                rwbs,
                dev,
            })
            .collect();
        out.stack_seconds = self
            .classes
            .into_iter()
            .map(|((sec, class, comm, tid), samples)| StackSecond { sec, class, comm, tid, samples })
            .collect();
        out.writeback = self
            .wb
            .into_iter()
            .map(|((sec, event, reason), (count, nr_pages))| WritebackSecond {
                sec,
                event,
                reason,
                count,
                nr_pages,
            })
            .collect();
        if let Some(c) = &out.header.clock {
            out.wall_offset = match (c.tod_epoch, c.perf_time) {
                (Some(t), Some(p)) => Some(t - p),
                _ if c.clockid.as_deref() == Some("realtime") => Some(0.0),
                _ => None,
            };
        }
        Parsed { value: out, diagnostics: self.diags, lines: self.lines, skipped_lines: self.skipped }
    }
}

/// `254,0 WS 262144 () 37076480 + 512 0x2,0,4 [dd]` (issue),
/// `254,0 WS () 170885432 + 128 0x2,0,4 [0]` (complete),
/// `254,0 W 9965072 + 8 [ckpt_fsync]` (bio_queue: a sector, no bytes field) -> (rwbs, bytes,
/// device).
fn block_payload(p: &str) -> (&str, u64, Option<(u32, u32)>) {
    let mut it = p.split_whitespace();
    let dev = it.next().unwrap_or("");
    let Some((major, minor)) = dev.split_once(',') else {
        return ("", 0, None);
    };
    let dev = major.parse().ok().zip(minor.parse().ok());
    let rwbs = it.next().unwrap_or("");
    let mut bytes = None;
    let mut sectors = None;
    let mut prev_plus = false;
    let mut first: Option<u64> = None;
    for (n, w) in it.enumerate() {
        if n == 0 && is_digits(w) {
            first = w.parse::<u64>().ok();
        }
        // The first number is the bytes field unless a `+` follows it (then it is the sector).
        if n == 1 && w != "+" {
            bytes = first;
        }
        if prev_plus {
            sectors = w.parse::<u64>().ok();
            break;
        }
        prev_plus = w == "+";
    }
    let b = bytes.filter(|&b| b > 0).or_else(|| sectors.map(|s| s.saturating_mul(512))).unwrap_or(0);
    (rwbs, b, dev)
}

impl Summary for Box<PerfScript> {
    fn records(&self) -> usize {
        self.as_ref().records()
    }
    fn variant(&self) -> Variant {
        self.as_ref().variant()
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        self.as_ref().time_range()
    }
}

impl Summary for PerfScript {
    fn records(&self) -> usize {
        self.samples as usize
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        let l = &self.layout;
        let frac = |n: u64| {
            if n == 0 {
                "no"
            } else if n == self.samples {
                "yes"
            } else {
                "some"
            }
        };
        v.insert("callchains", frac(self.callchain_samples).to_string());
        v.insert("inline_ip", frac(l.inline_ip).to_string());
        v.insert("pid_tid", frac(l.pid_tid).to_string());
        v.insert("cpu", frac(l.cpu).to_string());
        v.insert("period", frac(l.period).to_string());
        let time = if l.time == 0 {
            "none"
        } else if l.time_ns > 0 {
            "ns"
        } else {
            "us"
        };
        v.insert("time", time.to_string());
        v.insert("events", self.events.keys().cloned().collect::<Vec<_>>().join(","));
        v.insert("header", if self.header.raw.is_empty() { "no" } else { "yes" }.to_string());
        if let Some(c) = self.header.clock.as_ref().and_then(|c| c.clockid.clone()) {
            v.insert("clockid", c);
        }
        if let Some(p) = &self.header.perf_version {
            v.insert("perf_version", p.clone());
        }
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        let (a, b) = (self.first_ts?, self.last_ts?);
        Some(match self.wall_offset {
            Some(o) => (Stamp::Epoch(a + o), Stamp::Epoch(b + o)),
            None => (Stamp::SinceBoot(a), Stamp::SinceBoot(b)),
        })
    }
}

/// The `perf_script` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Box<PerfScript>;
    const ID: &'static str = "perf_script";
    const SAMPLE: &'static str = "redo_sim 15546  1065.348856:   10101010 cpu-clock:pppH: ";
    const DESCRIPTION: &'static str = "perf script output (samples, call chains, tracepoints, --header)";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        if head.starts_with(b"# ========") {
            return Sniff::Yes;
        }
        // Only whole lines: the last one may be cut at the 1 KiB limit.
        let whole = match memchr::memrchr(b'\n', head) {
            Some(i) => &head[..i],
            None => head,
        };
        let mut toks = Vec::new();
        let mut prev_header_no_time = false;
        let mut unsure = false;
        for l in Lines::new(whole).take(40) {
            let text = l.text();
            let t = text.trim_end();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            if prev_header_no_time && frame_parts(t).is_some_and(|f| f.2.is_some()) {
                return Sniff::Yes;
            }
            prev_header_no_time = false;
            if let Some(h) = parse_header(t, &mut toks) {
                if h.time.is_some() && h.event.is_some() {
                    return Sniff::Yes;
                }
                prev_header_no_time = h.event.is_some();
                unsure = true;
            }
        }
        if unsure { Sniff::Unsure } else { Sniff::No }
    }

    fn parse(input: &[u8]) -> Parsed<Box<PerfScript>> {
        parse_with(input, CollapseOptions::default()).map(Box::new)
    }
}

/// Parses with folding options (`--pid` / `--tid` root frames).
pub fn parse_with(input: &[u8], opts: CollapseOptions) -> Parsed<PerfScript> {
    let mut c = Collector::with_options(opts);
    let n = c.feed_lines(input, 1);
    let mut p = c.finish();
    p.lines = n;
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    type Hdr = (String, Option<String>, String, Option<String>, Option<u64>, Option<String>, String);

    fn hdr(s: &str) -> Option<Hdr> {
        let mut t = Vec::new();
        parse_header(s, &mut t).map(|h| {
            (
                h.comm.to_string(),
                h.pid.map(str::to_string),
                h.tid.to_string(),
                h.time.map(str::to_string),
                h.period,
                h.event.map(str::to_string),
                h.rest.to_string(),
            )
        })
    }

    /// A real fsync stack (MariaDB on ext4 without a journal, `samples/mx_ext4_db_340b_durable`):
    /// the outermost reason is `do_fsync`, under which the thread waits on a buffer write.
    const FSYNC_SAMPLE: &str = "mariadbd 22844/23660  2359.545200:   20408163 cpu-clock:ppp: 
	ffffffff813a4413 finish_task_switch.isra.0+0x93 ([kernel.kallsyms])
	ffffffff821fb70f io_schedule+0x3f ([kernel.kallsyms])
	ffffffff81720951 __sync_dirty_buffer+0xa1 ([kernel.kallsyms])
	ffffffff817acd56 ext4_sync_file+0x226 ([kernel.kallsyms])
	ffffffff81711bbb do_fsync+0x3b ([kernel.kallsyms])
	ffffffff81711c13 __x64_sys_fdatasync+0x13 ([kernel.kallsyms])

";

    #[test]
    fn stack_classes_take_the_outermost_reason_per_thread_and_second() {
        let flusher = "kworker/u8:2-fl   311/311   2360.100000:   20408163 cpu-clock:ppp: 
	ffffffff81790c2e ext4_writepages+0x2e ([kernel.kallsyms])
	ffffffff816a0d11 do_writepages+0xd1 ([kernel.kallsyms])
	ffffffff81770a3e writeback_sb_inodes+0x1fe ([kernel.kallsyms])
	ffffffff81771223 wb_writeback+0x193 ([kernel.kallsyms])
	ffffffff817726e1 wb_workfn+0x2d1 ([kernel.kallsyms])

";
        let text = format!("{FSYNC_SAMPLE}{FSYNC_SAMPLE}{flusher}");
        let p = parse_with(text.as_bytes(), CollapseOptions::default()).value;
        let got: Vec<(i64, StackClass, &str, Option<u32>, u64)> =
            p.stack_seconds.iter().map(|s| (s.sec, s.class, s.comm.as_str(), s.tid, s.samples)).collect();
        assert_eq!(
            got,
            [
                (2359, StackClass::Fsync, "mariadbd", Some(23660), 2),
                (2360, StackClass::Flusher, "kworker/u8:2-fl", Some(311), 1)
            ]
        );
        assert_eq!(StackClass::of_symbol("balance_dirty_pages+0x3a1"), Some(StackClass::Throttle));
        assert_eq!(StackClass::of_symbol("ext4_sync_file+0x226"), None);
        // A writer throttled inside its buffered write is throttled, not merely dirtying.
        let held = "dd 9/9 10.5: 1 cpu-clock:ppp: 
	ffffffff81 io_schedule_timeout+0x1 ([kernel.kallsyms])
	ffffffff82 balance_dirty_pages+0x3a1 ([kernel.kallsyms])
	ffffffff83 generic_perform_write+0x10 ([kernel.kallsyms])
	ffffffff84 vfs_write+0x10 ([kernel.kallsyms])

";
        let p = parse_with(held.as_bytes(), CollapseOptions::default()).value;
        assert_eq!(p.stack_seconds[0].class, StackClass::Throttle);
    }

    #[test]
    fn folded_samples_are_counted_per_100_ms_and_stack() {
        let flusher = "kworker/u8:2-fl   311/311   2359.580000:   20408163 cpu-clock:ppp: 
	ffffffff81790c2e ext4_writepages+0x2e ([kernel.kallsyms])

";
        // Two fsync samples at 2359.5452, one flusher sample at 2359.58 (same bucket), a
        // third fsync sample a second later.
        let later = FSYNC_SAMPLE.replace("2359.545200", "2360.999999");
        // A sample without a call chain counts per 100 ms too, with no stack.
        let bare = "mariadbd 22844/23660  2360.050000:   20408163 cpu-clock:ppp: \n\n";
        let text = format!("{FSYNC_SAMPLE}{FSYNC_SAMPLE}{flusher}{bare}{later}");
        let p = parse_with(text.as_bytes(), CollapseOptions::default()).value;
        assert_eq!(
            p.sample_buckets.iter().map(|(b, n)| (*b, *n)).collect::<Vec<_>>(),
            [(23595, 3), (23600, 1), (23609, 1)]
        );
        // Stack ids index `collapsed` in its order: `kworker...` (0) sorts before `mariadbd...` (1).
        let keys: Vec<&String> = p.collapsed.keys().collect();
        assert!(keys[0].starts_with("kworker/u8:2-fl;") && keys[1].starts_with("mariadbd;"), "{keys:?}");
        assert_eq!(p.stack_buckets, [(23595, 0, 1), (23595, 1, 2), (23609, 1, 1)]);
        assert_eq!(p.stack_buckets_dropped, 0);
    }

    #[test]
    fn header_forms() {
        let h = hdr("perf   977/977   [000] 7628263.042515: cycles:").unwrap();
        assert_eq!((h.0.as_str(), h.1.as_deref(), h.2.as_str()), ("perf", Some("977"), "977"));
        assert_eq!(h.5.as_deref(), Some("cycles"));
        let h = hdr("dd 29776 666709.771979:   10101010 cpu-clock:").unwrap();
        assert_eq!((h.4, h.3.as_deref()), (Some(10101010), Some("666709.771979")));
        let h = hdr("func_ab 15294 cpu-clock:").unwrap();
        assert_eq!((h.0.as_str(), h.3, h.5.as_deref()), ("func_ab", None, Some("cpu-clock")));
        let h = hdr("emulator  4152 75695.008865:          1 cycles:u:").unwrap();
        assert_eq!((h.4, h.5.as_deref()), (Some(1), Some("cycles:u")));
        let h = hdr("       sha256sum 11774   896.954534487:    1001001 cpu-clock:pppH:  ffffffff8158e3e1 next_uptodate_folio+0xc1 ([kernel.kallsyms])").unwrap();
        assert_eq!(h.0, "sha256sum");
        assert_eq!(h.6, "ffffffff8158e3e1 next_uptodate_folio+0xc1 ([kernel.kallsyms])");
        let h = hdr("V8 WorkerThread 24636/25607 [000] 94564.109216: cycles:").unwrap();
        assert_eq!(h.0, "V8 WorkerThread");
        let h = hdr(" kworker/u8:3-ev 11414 [001]  1053.636102:   writeback:writeback_start: bdi 254:0: sb_dev 0:0 nr_pages=1 reason=periodic").unwrap();
        assert_eq!((h.0.as_str(), h.5.as_deref()), ("kworker/u8:3-ev", Some("writeback:writeback_start")));
        assert!(h.6.starts_with("bdi 254:0:"));
        let h = hdr("Web Content 2 1234 5.000001: cycles:").unwrap();
        assert_eq!((h.0.as_str(), h.2.as_str()), ("Web Content 2", "1234"));
        assert!(hdr("\tffffffff8104f45a native_write_msr_safe ([kernel.kallsyms])").is_none());
        assert!(hdr("             993 main (/home/user/noploop)").is_none());
        assert!(is_tracepoint("block:block_rq_issue"));
        assert!(!is_tracepoint("cycles:uppp"));
        assert!(!is_tracepoint("cpu-clock"));
    }

    #[test]
    fn folding_rules() {
        let mut s = String::new();
        fix_rust_symbol(
            "_$LT$std..fs..ReadDir$u20$as$u20$core..iter..traits..iterator..Iterator$GT$::next::hc14f1750ca79129b",
            &mut s,
        );
        assert_eq!(s, "<std::fs::ReadDir as core::iter::traits::iterator::Iterator>::next");
        let mut o = String::new();
        push_func(
            &mut o,
            "StealTask::do_it(GCTaskManager*, unsigned int)",
            Some("/x/libjvm.so"),
            false,
            false,
        );
        assert_eq!(o, "StealTask::do_it");
        o.clear();
        push_func(&mut o, "net/http.(*Client).Do", None, false, false);
        assert_eq!(o, "net/http.(*Client).Do");
        o.clear();
        push_func(&mut o, "[unknown]", Some("/usr/bin/sha256sum"), false, false);
        assert_eq!(o, "[sha256sum]");
        o.clear();
        push_func(&mut o, "Ljava/util/zip/Inflater;::inflateBytes", Some("/tmp/perf-1.map"), true, false);
        assert_eq!(o, "java/util/zip/Inflater:::inflateBytes");
        assert_eq!(
            block_payload("254,0 WS 262144 () 37076480 + 512 0x2,0,4 [dd]"),
            ("WS", 262144, Some((254, 0)))
        );
        assert_eq!(block_payload("254,0 WS () 170885432 + 128 0x2,0,4 [0]"), ("WS", 65536, Some((254, 0))));
        assert_eq!(block_payload("8,0 W 0 () 123 + 8 [kworker/u8:3]"), ("W", 4096, Some((8, 0))));
        // block_bio_queue prints the sector where rq_issue prints bytes (a real line of samples/ix_ext4_appfsync_12s).
        assert_eq!(block_payload("254,0 W 9965072 + 8 [perf-exec]"), ("W", 4096, Some((254, 0))));
        // A real line of samples/ix_ext4_loop_journal_commit15: jbd2 submitting to loop0.
        assert_eq!(block_payload("7,0 WS 268416 + 840 [jbd2/loop0-8]"), ("WS", 430080, Some((7, 0))));
        assert_eq!(block_payload("not a device"), ("", 0, None));
    }

    #[test]
    fn lines_fed_at_once_equal_lines_fed_one_by_one() {
        // CRLF, a frame seen twice (its folding kept), and a damaged byte (the lines
        // are then checked one by one): the same aggregates and diagnostics either way.
        let good = format!("{FSYNC_SAMPLE}{FSYNC_SAMPLE}").replace('\n', "\r\n");
        let bad = [good.as_bytes(), b"\tffffffff81 caf\xe9+0x1 ([kernel.kallsyms])\nJUNK\n"].concat();
        for text in [good.as_bytes(), &bad[..]] {
            let mut one = Collector::new();
            for l in Lines::new(text) {
                one.feed_line(l.no, l.bytes);
            }
            let mut all = Collector::new();
            assert_eq!(all.feed_lines(text, 1), Lines::new(text).count());
            let (one, all) = (one.finish(), all.finish());
            assert_eq!(format!("{:?}", all.value), format!("{:?}", one.value));
            assert_eq!((all.diagnostics, all.lines), (one.diagnostics, one.lines));
        }
        let p = parse_with(&bad, CollapseOptions::default()).value;
        assert_eq!(p.collapsed.values().sum::<u64>(), 2 * 20408163, "{:?}", p.collapsed);
    }

    #[test]
    fn stream_with_odd_lines() {
        let input = b"# ========\n# hostname : vm\n# reference time: 2026-11-29 20:56:39.542709 = 1795985799.542709 (TOD) = 496.880904846 (monotonic)\n# ========\n#\n\
a 1/2 [000] 497.000001: 1 cycles:\n\tffff1 fsync+0x1 (/lib/libc.so)\n\tffff2 main (/bin/a)\n\
a 1/2 [000] 498.5: 1 cycles:\n\n\tffff2 main (/bin/a)\n\nTHIS IS JUNK\n\tffff9 orphan (/x)\n";
        let p = Fmt::parse(input);
        let v = &p.value;
        assert_eq!(v.samples, 2);
        assert_eq!(v.header.hostname.as_deref(), Some("vm"));
        assert!((v.wall_offset.unwrap() - (1795985799.542709 - 496.880904846)).abs() < 1e-6);
        assert_eq!(v.collapsed.get("a;main;fsync"), Some(&1));
        assert_eq!(v.collapsed.get("a;main"), Some(&1));
        assert_eq!(v.threads[0].fsync_samples, 1);
        assert_eq!(v.fsync_per_sec.get(&497), Some(&1));
        assert_eq!(p.skipped_lines, 2);
        assert_eq!(p.diagnostics[0].kind, DiagKind::Malformed);
        assert_eq!(p.diagnostics[1].kind, DiagKind::NoHeader);
        assert_eq!(Fmt::sniff(input), Sniff::Yes);
        assert_eq!(Fmt::sniff(b"MemTotal:  123 kB\n"), Sniff::No);
        for junk in [&b""[..], b"\xff\xfe(\n)\n", b"1 2 3:\n\t ( )\n"] {
            let _ = Fmt::parse(junk);
        }
    }
}
