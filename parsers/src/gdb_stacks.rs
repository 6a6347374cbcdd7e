//! `gdb_stacks`: gdb's `thread apply all bt` output, one snapshot or many: what
//! pt-stalk `--collect-gdb` writes to `<prefix>-stacktrace`, what `pt-pmp
//! --save-samples` keeps, and what `samples/collect.sh -G` writes (a `TS` line
//! before each snapshot). Every thread's stack, innermost frame first, and
//! where it waits ([`Wait`]: fsync, a mutex, a condition, a network read, ...).
//!
//! Real sample (`samples/replica_io_bound_gdb/capture/2026_12_05_19_44_44-stacktrace.gz`:
//! gdb 13.1 attached to MariaDB 10.11's replica by `gdb -ex "set pagination 0" -ex
//! "thread apply all bt" --batch -p 9098`, from line 230, shortened where `...`;
//! the second snapshot's IO thread, syncing the relay log):
//!
//! ```text
//! TS 1796499890.945397973 2026-12-05 19:44:50
//! [New LWP 9101]
//! [Thread debugging using libthread_db enabled]
//! Using host libthread_db library "/lib/x86_64-linux-gnu/libthread_db.so.1".
//! 0x00007f56c511a26f in __GI___poll (fds=0x5633bb880528, nfds=3, timeout=-1) at ../sysdeps/unix/sysv/linux/poll.c:29
//! ...
//! Thread 15 (Thread 0x7f56a80806c0 (LWP 13881) "mariadbd"):
//! #0  0x00007f56c511cd0a in __GI_fdatasync (fd=50) at ../sysdeps/unix/sysv/linux/fdatasync.c:28
//! #1  0x00005633ace54fbe in my_sync ()
//! #2  0x00005633acad5797 in MYSQL_BIN_LOG::flush_and_sync(bool*) ()
//! #3  0x00005633acae4526 in MYSQL_BIN_LOG::write_event_buffer(unsigned char*, unsigned int) ()
//! #4  0x00005633ac6e0223 in ?? ()
//! #5  0x00005633ac6e2462 in handle_slave_io ()
//! #6  0x00005633acbda647 in ?? ()
//! #7  0x00007f56c50a71f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442
//! #8  0x00007f56c51278ec in clone3 () at ../sysdeps/unix/sysv/linux/x86_64/clone3.S:81
//! ...
//! [Inferior 1 (process 9098) detached]
//! ```
//!
//! pt-stalk's own `-stacktrace` (`samples/replica_io_bound_gdb/pt_stalk/`) is the same
//! gdb output without `TS` lines (pt-stalk's file-name prefix is its time).
//! Snapshots are separated by `TS` lines, by gdb's `[Inferior 1 (process N)
//! detached]`, or by a thread number seen twice. pt-pmp writes its `TS` line
//! after each snapshot and with the fields swapped (`date +'TS %N.%s %F %T'`:
//! nanoseconds, a dot, then the epoch): both are read. The thread's `LWP` is
//! the Linux TID that `performance_schema.threads.THREAD_OS_ID` names.

use crate::common::scrub::Identifiers;
use crate::common::ts::{TsLine, parse_ts_line, ts_range};
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};

/// Where a thread waits: the innermost frame of its stack that says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Wait {
    /// `fsync`, `fdatasync`, `sync_file_range`, `my_sync`: flushing a file.
    Fsync,
    /// `__lll_lock_wait`, `pthread_mutex_lock`, `pthread_rwlock_*`, InnoDB's `srw_mutex`/`ssux_lock`.
    Mutex,
    /// `pthread_cond_wait`/`timedwait`/`clockwait`, `psi_cond_wait`: waiting to be signalled.
    Cond,
    /// `vio_read`, `vio_io_wait`, `my_net_read*`, `cli_safe_read*`, `recv`: reading from a socket.
    NetRead,
    /// `poll`, `epoll_wait`, `select` with no network read above it (e.g. accepting connections).
    Poll,
    /// `nanosleep`, `my_sleep`, `os_thread_sleep`.
    Sleep,
    /// `io_uring` completions, `io_getevents` (asynchronous I/O).
    Aio,
    /// `sigtimedwait`, `sigwait`, `sigsuspend` (a signal handler thread).
    Signal,
    /// None of these: running, or in a call iosift does not classify.
    Other,
}

impl Wait {
    /// Every kind, in display order.
    pub const ALL: [Wait; 9] = [
        Wait::Fsync,
        Wait::Mutex,
        Wait::Cond,
        Wait::NetRead,
        Wait::Poll,
        Wait::Sleep,
        Wait::Aio,
        Wait::Signal,
        Wait::Other,
    ];

    /// Its snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Wait::Fsync => "fsync",
            Wait::Mutex => "mutex",
            Wait::Cond => "cond",
            Wait::NetRead => "net_read",
            Wait::Poll => "poll",
            Wait::Sleep => "sleep",
            Wait::Aio => "aio",
            Wait::Signal => "signal",
            Wait::Other => "other",
        }
    }
}

/// What one function name says about a wait, before the frames above it are seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Says {
    /// This kind, whatever called it.
    Is(Wait),
    /// `poll`/`select`: a network read when a `vio_*` frame called it, else [`Wait::Poll`].
    Polls,
    /// Nothing (application code, futex helpers, `??`).
    Nothing,
}

/// `__GI___poll` -> `poll`, `__libc_recv` -> `recv`, `pthread_cond_wait@@GLIBC_2.3.2` -> `pthread_cond_wait`.
fn bare(name: &str) -> &str {
    let name = name.split("@@").next().unwrap_or(name);
    let name = name.strip_prefix("__GI_").unwrap_or(name);
    let name = name.strip_prefix("__libc_").unwrap_or(name);
    name.trim_start_matches('_')
}

fn says(function: &str) -> Says {
    let f = bare(function);
    let has = |p: &[&str]| p.iter().any(|p| f.contains(p));
    if has(&["fsync", "fdatasync", "sync_file_range"]) || f == "my_sync" {
        Says::Is(Wait::Fsync)
    } else if has(&["mutex_lock", "lll_lock_wait", "rwlock", "srw_mutex", "srw_lock", "ssux_lock"]) {
        Says::Is(Wait::Mutex)
    } else if has(&["pthread_cond_", "psi_cond_", "condition_variable"]) {
        Says::Is(Wait::Cond)
    } else if has(&[
        "vio_read",
        "vio_io_wait",
        "vio_socket_io_wait",
        "my_net_read",
        "net_read_packet",
        "my_real_read",
    ]) || has(&["cli_safe_read"])
        || matches!(f, "recv" | "recvfrom" | "recvmsg" | "read_event")
    {
        Says::Is(Wait::NetRead)
    } else if matches!(f, "poll" | "ppoll" | "select" | "pselect" | "epoll_wait" | "epoll_pwait") {
        Says::Polls
    } else if has(&["nanosleep"]) || matches!(f, "sleep" | "usleep" | "my_sleep" | "os_thread_sleep") {
        Says::Is(Wait::Sleep)
    } else if has(&["io_uring", "io_getevents", "aio_suspend"]) {
        Says::Is(Wait::Aio)
    } else if has(&["sigtimedwait", "sigwait", "sigsuspend"]) {
        Says::Is(Wait::Signal)
    } else {
        Says::Nothing
    }
}

/// Where a stack waits: the innermost frame (first in `frames`) that names a wait;
/// `poll`/`select` under a `vio_*` caller is a network read.
///
/// `__GI___poll, vio_io_wait, vio_socket_io_wait, vio_read, ..., handle_slave_io` -> [`Wait::NetRead`];
/// `__futex_abstimed_wait_common64, ..., ___pthread_cond_wait, psi_cond_wait, ...` -> [`Wait::Cond`].
pub fn classify<'a>(frames: impl IntoIterator<Item = &'a str>) -> Wait {
    let mut polled = false;
    for f in frames {
        match says(f) {
            Says::Is(Wait::NetRead) => return Wait::NetRead,
            Says::Is(w) if !polled => return w,
            Says::Polls => polled = true,
            Says::Is(_) | Says::Nothing => {}
        }
    }
    if polled { Wait::Poll } else { Wait::Other }
}

/// The function a thread was started in: the outermost frame that is not the C
/// library's or an unnamed one (`handle_slave_io`, `handle_one_connection`, `mysqld_main`).
pub fn entry<'a, I>(frames: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
    I::IntoIter: DoubleEndedIterator,
{
    frames.into_iter().rev().find(|f| {
        let b = bare(f);
        !(b.starts_with("??")
            || b.contains("::??")
            || matches!(
                b,
                "clone" | "clone3" | "start_thread" | "start" | "start_main_impl" | "start_call_main"
            )
            || b.starts_with("libc_start")
            || b.starts_with("std::thread")
            || b.starts_with("std::_"))
    })
}

/// One thread's stack in one snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadStack {
    /// 1-based line of its `Thread N (...)` header.
    pub line: usize,
    /// Index of its snapshot in [`GdbStacks::snapshots`].
    pub snapshot: usize,
    /// gdb's thread number (`Thread 13`).
    pub gdb_id: u32,
    /// The Linux thread id (`LWP 9146`), when printed.
    pub lwp: Option<u32>,
    /// The thread's name as gdb prints it (`"mariadbd"`: its comm), when printed.
    pub name: Option<String>,
    /// Function names, innermost first, without argument lists (`??` when gdb has no symbol).
    pub frames: Vec<String>,
    /// Where it waits ([`classify`] of the frames).
    pub wait: Wait,
}

/// A stack of function names, innermost first (a gdb thread's, a pt-pmp line's).
pub trait Frames {
    /// The function names, innermost first.
    fn frames(&self) -> &[String];
    /// The function the thread was started in ([`entry`]).
    fn entry(&self) -> Option<&str> {
        entry(self.frames().iter().map(String::as_str))
    }
}

impl Frames for ThreadStack {
    fn frames(&self) -> &[String] {
        &self.frames
    }
}

/// One `thread apply all bt` run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    /// 1-based line where it starts.
    pub line: usize,
    /// Its `TS` line (before it, or after it in pt-pmp's files).
    pub ts: Option<TsLine>,
    /// The process (`[Inferior 1 (process 9098) detached]`), when printed.
    pub pid: Option<u32>,
    /// Threads listed.
    pub threads: usize,
}

/// The parsed file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GdbStacks {
    /// The snapshots, in file order.
    pub snapshots: Vec<Snapshot>,
    /// Every thread of every snapshot, in file order.
    pub threads: Vec<ThreadStack>,
}

/// `Thread 13 (Thread 0x7f56a80806c0 (LWP 9146) "mariadbd"):` -> (13, Some(9146), Some("mariadbd")).
/// Also `Thread 2 (LWP 1234):` and `Thread 1 (process 1234):`.
fn thread_header(t: &str) -> Option<(u32, Option<u32>, Option<String>)> {
    let rest = t.strip_prefix("Thread ")?;
    let (num, rest) = rest.split_once(' ')?;
    let id: u32 = num.parse().ok()?;
    let rest = rest.strip_suffix(':').unwrap_or(rest);
    if !(rest.starts_with('(') && rest.ends_with(')')) {
        return None;
    }
    let after = |key: &str| -> Option<u32> {
        let s = &rest[rest.find(key)? + key.len()..];
        let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        s[..end].parse().ok()
    };
    let lwp = after("(LWP ").or_else(|| after("(process "));
    let name = rest.find('"').and_then(|a| {
        let s = &rest[a + 1..];
        s.rfind('"').map(|b| s[..b].to_string())
    });
    Some((id, lwp, name))
}

/// The function of a frame line, without its argument list:
/// `#1  0x00005633acb4a04b in vio_io_wait ()` -> `vio_io_wait`;
/// `#0  __futex_abstimed_wait_common64 (private=0, ...) at ./nptl/futex-internal.c:57` -> `__futex_...`;
/// `#6  0x... in tpool::thread_pool_generic::wait_for_tasks(std::unique_lock<std::mutex>&, tpool::worker_data*) ()`
/// -> `tpool::thread_pool_generic::wait_for_tasks`. `None` when the line is not a frame.
fn frame(t: &str) -> Option<String> {
    let rest = t.strip_prefix('#')?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || !rest[digits..].starts_with(' ') {
        return None;
    }
    let mut rest = rest[digits..].trim_start();
    if rest.starts_with("0x") {
        let sp = rest.find(' ')?;
        rest = rest[sp..].trim_start().strip_prefix("in ")?;
    }
    Some(function_name(rest).to_string())
}

/// The function name at the start of `s`, cut before its argument list: at the
/// first `(` outside `<...>` (a C++ parameter list follows directly, gdb's argument
/// list after a space), or at the first space outside brackets.
fn function_name(s: &str) -> &str {
    let mut angle = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '<' => angle += 1,
            '>' => angle -= 1,
            '(' if angle <= 0 && i > 0 => return s[..i].trim_end(),
            ' ' if angle <= 0 => return &s[..i],
            _ => {}
        }
    }
    s
}

/// pt-pmp's `TS 123456789.1796500000 2026-12-05 19:45:12` (`%N.%s`) read as epoch 1796500000.123456789;
/// any other `TS` line as [`parse_ts_line`] reads it.
pub fn parse_any_ts(t: &str) -> Option<(TsLine, bool)> {
    let mut ts = parse_ts_line(t)?;
    let num = t.split_whitespace().nth(1)?;
    if let Some((a, b)) = num.split_once('.')
        && b.len() == 10
        && a.len() <= 9
        && !b.starts_with('0')
    {
        let epoch: f64 = b.parse().ok()?;
        let ns: f64 = a.parse().ok()?;
        ts.epoch = epoch + ns / 1e9;
        return Some((ts, true));
    }
    Some((ts, false))
}

/// Lines gdb prints besides the stacks (kept silently).
fn is_gdb_chatter(t: &str) -> bool {
    t.starts_with("[New LWP ")
        || t.starts_with("[New Thread ")
        || t.starts_with("[Thread debugging using")
        || t.starts_with("Using host libthread_db")
        || t.starts_with("[Switching to ")
        || t.starts_with("Backtrace stopped")
        || t.starts_with("warning: ")
        || t.starts_with("Downloading ")
        || t.starts_with("Reading symbols")
        || t.starts_with("0x") && t.contains(" in ")
        // the source line gdb echoes for the current frame: `29\t../sysdeps/.../poll.c: No such file or directory.`
        || t.split_once('\t').is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// `[Inferior 1 (process 9098) detached]` -> 9098.
fn detached(t: &str) -> Option<u32> {
    let rest = t.strip_prefix("[Inferior ")?;
    let rest = &rest[rest.find("(process ")? + 9..];
    let end = rest.find(')')?;
    rest.ends_with("detached]").then(|| rest[..end].parse().ok())?
}

impl Summary for GdbStacks {
    fn records(&self) -> usize {
        self.threads.len()
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        v.insert("snapshots", self.snapshots.len().to_string());
        let mut pids: Vec<u32> = self.snapshots.iter().filter_map(|s| s.pid).collect();
        pids.sort_unstable();
        pids.dedup();
        if !pids.is_empty() {
            v.insert("pids", pids.iter().map(u32::to_string).collect::<Vec<_>>().join(","));
        }
        v.insert("timed_snapshots", self.snapshots.iter().filter(|s| s.ts.is_some()).count().to_string());
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        ts_range(self.snapshots.iter().map(|s| s.ts))
    }
}

/// The `gdb_stacks` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = GdbStacks;
    const ID: &'static str = "gdb_stacks";
    const SAMPLE: &'static str = "Thread 13 (Thread 0x7f56a80806c0 (LWP 9146) \"mariadbd\"):";
    const DESCRIPTION: &'static str = "gdb `thread apply all bt` output (pt-stalk -stacktrace, pt-pmp --save-samples), one or many snapshots";

    /// Yes on gdb's attach lines (`[New LWP N]`, `[Thread debugging using libthread_db enabled]`),
    /// a `Thread N (Thread 0x... (LWP N) ...):` header or a `#N  0x... in f ()` frame.
    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        for l in Lines::new(head).filter(|l| !l.is_blank()).take(40) {
            let text = l.text();
            let t = text.trim_end();
            if t.starts_with("[New LWP ")
                || t.starts_with("[New Thread 0x")
                || t.starts_with("[Thread debugging using libthread_db")
                || thread_header(t).is_some_and(|h| h.1.is_some())
            {
                return Sniff::Yes;
            }
            if t.starts_with('#')
                && let Some(rest) = t.get(1..)
                && let Some((n, r)) = rest.split_once(' ')
                && n.parse::<u32>().is_ok()
                && r.trim_start().starts_with("0x")
                && r.contains(" in ")
            {
                return Sniff::Yes;
            }
        }
        Sniff::No
    }

    fn parse(input: &[u8]) -> Parsed<GdbStacks> {
        let mut d = Diags::default();
        let mut out = GdbStacks::default();
        let mut lines = 0;
        // pt-pmp writes the TS line after its snapshot: known from the first content line.
        let mut ts_after: Option<bool> = None;
        // The open snapshot: (index, thread numbers seen); `None` after a boundary.
        let mut open: Option<(usize, Vec<u32>)> = None;
        let mut pending_ts: Option<TsLine> = None;
        let mut last_closed: Option<usize> = None;
        let mut cur: Option<ThreadStack> = None;
        let mut swapped = false;
        for l in Lines::new(input) {
            lines = l.no;
            if l.is_blank() {
                continue;
            }
            let text = l.clean_text();
            let t = text.trim_end();
            if let Some((ts, sw)) = parse_any_ts(t) {
                swapped |= sw;
                let after = *ts_after.get_or_insert(false);
                end_thread(&mut cur, &mut out);
                if after {
                    // Trailing: the snapshot just written (open, or closed by `detached`).
                    match open.take().map(|o| o.0).or(last_closed.take()) {
                        Some(i) if out.snapshots[i].ts.is_none() => out.snapshots[i].ts = Some(ts),
                        _ => d.note(l.no, DiagKind::Malformed, "TS line without a snapshot before it"),
                    }
                    last_closed = None;
                } else {
                    open = None;
                    pending_ts = Some(ts);
                }
                continue;
            }
            ts_after.get_or_insert(true);
            if let Some(pid) = detached(t) {
                end_thread(&mut cur, &mut out);
                match open.take() {
                    Some((i, _)) => {
                        out.snapshots[i].pid = Some(pid);
                        last_closed = Some(i);
                    }
                    None => d.note(l.no, DiagKind::Malformed, "detached without a snapshot"),
                }
                continue;
            }
            if let Some((id, lwp, name)) = thread_header(t) {
                end_thread(&mut cur, &mut out);
                let idx = enter_snapshot(&mut out, &mut open, &mut pending_ts, id, l.no);
                cur = Some(ThreadStack {
                    line: l.no,
                    snapshot: idx,
                    gdb_id: id,
                    lwp,
                    name,
                    frames: Vec::new(),
                    wait: Wait::Other,
                });
                continue;
            }
            if let Some(f) = frame(t) {
                match cur.as_mut() {
                    Some(c) => c.frames.push(f),
                    None if open.is_none() && last_closed.is_none() && out.snapshots.is_empty() => {
                        // A frame before any thread header: `bt` of one thread only.
                        d.skip(l.no, DiagKind::NoHeader, t);
                    }
                    None => d.skip(l.no, DiagKind::NoHeader, t),
                }
                continue;
            }
            if is_gdb_chatter(t) {
                continue;
            }
            if is_tool_message(t) {
                d.skip(l.no, DiagKind::ToolMessage, t);
                continue;
            }
            d.skip(l.no, DiagKind::Malformed, t);
        }
        end_thread(&mut cur, &mut out);
        if swapped {
            d.note(
                1,
                DiagKind::Unsupported,
                "TS lines read as pt-pmp writes them: nanoseconds.epoch (date +'TS %N.%s')",
            );
            d.list.sort_by_key(|x| x.line);
        }
        d.finish(out, lines)
    }
}

/// Ends the thread being read: its wait classified, kept.
fn end_thread(cur: &mut Option<ThreadStack>, out: &mut GdbStacks) {
    if let Some(mut t) = cur.take() {
        t.wait = classify(t.frames.iter().map(String::as_str));
        out.threads.push(t);
    }
}

/// The snapshot a thread header (gdb thread `id`, at line `no`) belongs to: the open one,
/// or a new one (stamped by a pending TS line) when none is open or the open one already
/// has this thread number (a new snapshot without a boundary line).
fn enter_snapshot(
    out: &mut GdbStacks,
    open: &mut Option<(usize, Vec<u32>)>,
    pending_ts: &mut Option<TsLine>,
    id: u32,
    no: usize,
) -> usize {
    if open.as_ref().is_some_and(|o| o.1.contains(&id)) {
        *open = None;
    }
    let (idx, seen) = open.get_or_insert_with(|| {
        out.snapshots.push(Snapshot { line: no, ts: pending_ts.take(), pid: None, threads: 0 });
        (out.snapshots.len() - 1, Vec::new())
    });
    seen.push(id);
    out.snapshots[*idx].threads += 1;
    *idx
}

/// A message of gdb, ptrace or the collecting script instead of a stack.
fn is_tool_message(t: &str) -> bool {
    t.starts_with("ptrace:")
        || t.starts_with("Could not attach")
        || t.starts_with("No such process")
        || t.starts_with("awk: ")
        || t.contains("Operation not permitted")
}

#[cfg(test)]
mod tests {
    use super::*;

    const IO: &str = "Thread 13 (Thread 0x7f56a80806c0 (LWP 9146) \"mariadbd\"):
#0  0x00007f56c511a26f in __GI___poll (fds=0x7f56a807f6f8, nfds=1, timeout=60000) at ../sysdeps/unix/sysv/linux/poll.c:29
#1  0x00005633acb4a04b in vio_io_wait ()
#8  0x00005633ac6e2310 in handle_slave_io ()
#9  0x00005633acbda647 in ?? ()
#10 0x00007f56c50a71f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442
#11 0x00007f56c51278ec in clone3 () at ../sysdeps/unix/sysv/linux/x86_64/clone3.S:81
";

    #[test]
    fn one_snapshot_with_gdb_chatter() {
        let s = format!(
            "[New LWP 9101]\n[Thread debugging using libthread_db enabled]\n\
Using host libthread_db library \"/lib/x86_64-linux-gnu/libthread_db.so.1\".\n\
0x00007f56c511a26f in __GI___poll (fds=0x5633bb880528, nfds=3, timeout=-1) at ../sysdeps/unix/sysv/linux/poll.c:29\n\
29\t../sysdeps/unix/sysv/linux/poll.c: No such file or directory.\n\n{IO}\n\
Thread 14 (Thread 0x7756a17fe6c0 (LWP 9147) \"mariadbd\"):\n\
#0  __futex_abstimed_wait_common64 (private=0, cancel=true, abstime=0x0, op=393, expected=0, futex_word=0x5633bb8c292c) at ./nptl/futex-internal.c:57\n\
#4  ___pthread_cond_wait (cond=0x5633bb8c2900, mutex=0x5633bb8c23f8) at ./nptl/pthread_cond_wait.c:618\n\
#8  0x00005633ac6dc510 in handle_slave_sql ()\n\
[Inferior 1 (process 9098) detached]\n"
        );
        assert_eq!(Fmt::sniff(s.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(s.as_bytes());
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let g = &p.value;
        assert_eq!(g.snapshots.len(), 1);
        assert_eq!(g.snapshots[0].pid, Some(9098));
        assert_eq!(g.threads.len(), 2);
        let io = &g.threads[0];
        assert_eq!((io.gdb_id, io.lwp, io.name.as_deref()), (13, Some(9146), Some("mariadbd")));
        assert_eq!(io.frames[0], "__GI___poll");
        assert_eq!(io.wait, Wait::NetRead);
        assert_eq!(io.entry(), Some("handle_slave_io"));
        assert_eq!(g.threads[1].wait, Wait::Cond);
        assert_eq!(g.threads[1].entry(), Some("handle_slave_sql"));
    }

    #[test]
    fn frames_and_waits() {
        assert_eq!(
            frame("#6  0x00005633acdf8a01 in tpool::thread_pool_generic::wait_for_tasks(std::unique_lock<std::mutex>&, tpool::worker_data*) ()").as_deref(),
            Some("tpool::thread_pool_generic::wait_for_tasks")
        );
        assert_eq!(frame("#9  0x00005633acbda647 in ?? ()").as_deref(), Some("??"));
        assert_eq!(
            frame("#10 0x00007f56c4ed44a3 in ?? () from /lib/x86_64-linux-gnu/libstdc++.so.6").as_deref(),
            Some("??")
        );
        assert_eq!(frame("# not a frame"), None);
        assert_eq!(classify(["fdatasync", "my_sync", "MYSQL_BIN_LOG::sync_binlog_file"]), Wait::Fsync);
        assert_eq!(classify(["__lll_lock_wait", "___pthread_mutex_lock", "psi_mutex_lock"]), Wait::Mutex);
        assert_eq!(classify(["__GI___poll", "handle_connections_sockets", "mysqld_main"]), Wait::Poll);
        assert_eq!(classify(["__GI___sigtimedwait", "signal_hand"]), Wait::Signal);
        assert_eq!(classify(["MYSQL_BIN_LOG::write_event", "handle_slave_io"]), Wait::Other);
    }

    #[test]
    fn pt_pmp_trailing_swapped_ts_and_repeated_threads() {
        let s = format!(
            "{IO}[Inferior 1 (process 9098) detached]\nTS 123456789.1796500000 2026-12-05 19:45:12\n{IO}TS 5.1796500001 2026-12-05 19:45:13\n{IO}"
        );
        let p = Fmt::parse(s.as_bytes());
        let g = &p.value;
        assert_eq!(g.snapshots.len(), 3);
        assert!((g.snapshots[0].ts.unwrap().epoch - 1_796_500_000.123_456_7).abs() < 1e-6);
        assert!((g.snapshots[1].ts.unwrap().epoch - 1_796_500_001.0).abs() < 1e-6);
        assert_eq!(g.snapshots[2].ts, None);
        assert_eq!(p.skipped_lines, 0);
        assert_eq!(p.diagnostics.len(), 1, "{:?}", p.diagnostics);
    }

    #[test]
    fn garbage_is_diagnosed_not_fatal() {
        let p = Fmt::parse(b"#0  0x1 in orphan ()\nThread x (Thread 0x1 (LWP 1)):\nptrace: Operation not permitted.\n\xff\xfe\n");
        assert_eq!(p.skipped_lines, 4);
        assert!(p.value.threads.is_empty());
    }
}
