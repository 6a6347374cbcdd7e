//! `pt_pmp`: pt-pmp's aggregated stacks, one line per distinct stack: how many
//! threads (over every snapshot it read) had it, then its functions innermost
//! first, joined by commas (pt-pmp's awk over gdb's `thread apply all bt`, then
//! `sort | uniq -c | sort -r -n -k 1,1`). A library is named in parentheses when
//! gdb printed `from /lib/...`; `::??` is a frame without a symbol.
//!
//! Real sample (`samples/replica_io_bound_gdb/capture/2026_12_05_19_44_44-pmp`: pt-pmp
//! 3.2.1 over the 16 gdb snapshots of a MariaDB 10.11 replica, lines 1 and 11):
//!
//! ```text
//!      92 __futex_abstimed_wait_common64,__futex_abstimed_wait_common,__GI___futex_abstimed_wait_cancelable64,__pthread_cond_wait_common,___pthread_cond_clockwait64,___pthread_cond_clockwait64,tpool::thread_pool_generic::wait_for_tasks,tpool::thread_pool_generic::get_task,tpool::thread_pool_generic::worker_main,libstdc++::??(libstdc++.so.6),start_thread,clone3
//!      15 __GI_fdatasync,my_sync,MYSQL_BIN_LOG::flush_and_sync,MYSQL_BIN_LOG::write_event_buffer,::??,handle_slave_io,::??,start_thread,clone3
//! ```
//!
//! The thread identity (LWP) is gone in this form: a stack is told apart by its
//! functions only ([`Frames::entry`]: `handle_slave_io` is the IO thread).
//! pt-pmp's awk prints a warning on stderr (`awk: cmd. line:12: warning: regexp
//! escape sequence ...`) that a capture may have kept: a tool message.

use crate::common::number::parse_u64;
use crate::common::scrub::Identifiers;
use crate::common::ts::{TsLine, ts_range};
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};
use crate::gdb_stacks::{Frames, Wait, classify, parse_any_ts};

/// One aggregated stack.
#[derive(Debug, Clone, PartialEq)]
pub struct PmpStack {
    /// 1-based line.
    pub line: usize,
    /// Threads (times snapshots) with this stack.
    pub count: u64,
    /// Functions, innermost first, without pt-pmp's `(library)` suffix.
    pub frames: Vec<String>,
    /// Where it waits.
    pub wait: Wait,
}

impl Frames for PmpStack {
    fn frames(&self) -> &[String] {
        &self.frames
    }
}

/// The parsed file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PtPmp {
    /// Stacks in file order (most frequent first, as pt-pmp sorts them).
    pub stacks: Vec<PmpStack>,
    /// `TS` lines, when a collector framed the output.
    pub ts: Vec<TsLine>,
}

impl PtPmp {
    /// Threads counted over all stacks.
    pub fn total(&self) -> u64 {
        self.stacks.iter().map(|s| s.count).sum()
    }
}

/// `fdatasync(libc.so.6)` -> `fdatasync`; `libstdc++::??(libstdc++.so.6)` -> `libstdc++::??`.
fn strip_library(f: &str) -> &str {
    match f.strip_suffix(')').and_then(|s| s.rfind('(').map(|i| (s, i))) {
        Some((s, i)) if i > 0 && !s[i + 1..].contains(['(', ')']) => &f[..i],
        _ => f,
    }
}

/// `      3 a,b,c` -> (3, "a,b,c"): a count, one space, a comma-joined list without spaces.
fn split_line(t: &str) -> Option<(u64, &str)> {
    let (n, rest) = t.trim_start().split_once(' ')?;
    let count = parse_u64(n)?;
    (!rest.is_empty() && !rest.contains(char::is_whitespace)).then_some((count, rest))
}

/// Frames of the C library and thread start that an aggregated pt-pmp line holds.
fn threadish(frame: &str) -> bool {
    let f = strip_library(frame);
    matches!(f, "start_thread" | "clone" | "clone3" | "_start")
        || f.ends_with("::??")
        || ["pthread_", "poll", "futex", "lll_lock", "__libc_start", "nanosleep", "epoll_wait", "select"]
            .iter()
            .any(|p| f.contains(p))
}

impl Summary for PtPmp {
    fn records(&self) -> usize {
        self.stacks.len()
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        v.insert("threads_counted", self.total().to_string());
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        ts_range(self.ts.iter().copied().map(Some))
    }
}

/// The `pt_pmp` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = PtPmp;
    const ID: &'static str = "pt_pmp";
    const SAMPLE: &'static str = "      1 __GI___poll,vio_io_wait,vio_socket_io_wait,vio_read,vio_read_buff,::??,my_net_read_packet_reallen,cli_safe_read_reallen,handle_slave_io,::??,start_thread,clone3";
    const DESCRIPTION: &'static str = "pt-pmp's aggregated stacks (`count frame,frame,...`, innermost first)";

    /// Yes when every line of the head is `count frame,frame,...` and one holds at least
    /// three frames with a thread-start or libc wait frame (`start_thread`, `clone3`,
    /// `__GI___poll`, `pthread_cond_wait`, `::??`).
    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let mut seen = false;
        for l in Lines::new(head).filter(|l| !l.is_blank()).take(8) {
            let text = l.text();
            let t = text.trim_end();
            if parse_any_ts(t).is_some() {
                continue;
            }
            // A line cut by the end of the head still has this shape (no spaces after the count).
            let Some((_, frames)) = split_line(t) else { return Sniff::No };
            let list: Vec<&str> = frames.split(',').collect();
            if list.len() >= 3 && list.iter().any(|f| threadish(f)) {
                seen = true;
            }
        }
        if seen { Sniff::Yes } else { Sniff::No }
    }

    fn parse(input: &[u8]) -> Parsed<PtPmp> {
        let mut d = Diags::default();
        let mut out = PtPmp::default();
        let mut lines = 0;
        for l in Lines::new(input) {
            lines = l.no;
            if l.is_blank() {
                continue;
            }
            let text = l.clean_text();
            let t = text.trim_end();
            if let Some((ts, _)) = parse_any_ts(t) {
                out.ts.push(ts);
                continue;
            }
            if t.starts_with("awk: ") || t.starts_with("pt-pmp") || t.starts_with("Usage: ") {
                d.skip(l.no, DiagKind::ToolMessage, t);
                continue;
            }
            let Some((count, list)) = split_line(t) else {
                d.skip(l.no, DiagKind::Malformed, t);
                continue;
            };
            let frames: Vec<String> = list.split(',').map(|f| strip_library(f).to_string()).collect();
            let wait = classify(frames.iter().map(String::as_str));
            out.stacks.push(PmpStack { line: l.no, count, frames, wait });
        }
        d.finish(out, lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: &str = "      3 __futex_abstimed_wait_common64,__futex_abstimed_wait_common,__GI___futex_abstimed_wait_cancelable64,__pthread_cond_wait_common,___pthread_cond_wait,psi_cond_wait,::??,::??,start_thread,clone3
      1 liburing::??(liburing.so.2),__io_uring_get_cqe(liburing.so.2),::??,libstdc++::??(libstdc++.so.6),start_thread,clone3
      1 __GI___poll,vio_io_wait,vio_socket_io_wait,vio_read,vio_read_buff,::??,my_net_read_packet_reallen,cli_safe_read_reallen,handle_slave_io,::??,start_thread,clone3
      1 __GI___poll,handle_connections_sockets,mysqld_main,__libc_start_call_main,__libc_start_main_impl,_start";

    #[test]
    fn real_lines() {
        assert_eq!(Fmt::sniff(S.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(format!("{S}\nawk: cmd. line:12: warning: regexp escape sequence `\\#' is not a known regexp operator\n").as_bytes());
        assert_eq!(p.skipped_lines, 1);
        assert_eq!(p.diagnostics[0].kind, DiagKind::ToolMessage);
        let v = &p.value;
        assert_eq!(v.total(), 6);
        assert_eq!(v.stacks[0].wait, Wait::Cond);
        assert_eq!(v.stacks[1].frames[1], "__io_uring_get_cqe");
        assert_eq!(v.stacks[1].wait, Wait::Aio);
        assert_eq!(v.stacks[2].wait, Wait::NetRead);
        assert_eq!(v.stacks[2].entry(), Some("handle_slave_io"));
        assert_eq!(v.stacks[3].wait, Wait::Poll);
        assert_eq!(v.stacks[3].entry(), Some("mysqld_main"));
    }

    #[test]
    fn uniq_counts_of_other_things_are_not_pt_pmp() {
        assert_eq!(Fmt::sniff(b"     12 GET /index.html\n      3 POST /login\n"), Sniff::No);
        assert_eq!(Fmt::sniff(b"     12 a,b,c\n      3 d,e\n"), Sniff::No);
        assert_eq!(Fmt::sniff(b"total 12\n"), Sniff::No);
    }
}
