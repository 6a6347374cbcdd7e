//! `dmesg`: the kernel's ring buffer as `dmesg` prints it (pt-stalk `-dmesg`: the messages of the
//! minute before the collection started), with seconds since boot, `-T` wall-clock times or
//! `--time-format iso` stamps, and `-x` facility/level prefixes. What an I/O incident needs from
//! it: hung tasks (with the kernel functions they wait in), I/O errors, file-system errors and
//! OOM kills. Every other message is counted, not kept.
//!
//! Real sample (`samples/pt_stalk_hung_task/capture/2026_12_05_20_47_08-dmesg`, kernel 6.18, a
//! `dd` blocked on a frozen ext4):
//!
//! ```text
//! [ 4128.001219] INFO: task dd:26513 blocked for more than 5 seconds.
//! [ 4128.002612]       Not tainted 6.18.44-fc-v1294 #1
//! [ 4128.003619] "echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.
//! [ 4128.005263] task:dd              state:D stack:0     pid:26513 tgid:26513 ppid:26370 task_flags:0x400000 flags:0x00080001
//! [ 4128.005286] Call Trace:
//! [ 4128.005289]  <TASK>
//! [ 4128.005293]  __schedule+0x3dc/0xf60
//! [ 4128.005306]  schedule+0x23/0xa0
//! [ 4128.005316]  percpu_rwsem_wait+0x15f/0x1d0
//! [ 4128.005316]  ? __pfx_percpu_rwsem_wake_function+0x10/0x10
//! [ 4128.005331]  mnt_want_write+0x96/0xc0
//! [ 4128.005421]  </TASK>
//! ```
//!
//! I/O error lines follow the kernel's own formats (block/blk-core.c `blk_print_req_error`,
//! fs/buffer.c `buffer_io_error`, ext4 `__ext4_error`, XFS `xfs_alert`), which the capture made
//! here could not produce (this kernel has no device-mapper `error` target): a hand-written
//! fixture quotes them (`parsers/tests/fixtures/dmesg/io-errors.txt`, labelled as such).

use crate::common::lines::count_lines;
use crate::common::scrub::Identifiers;
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};
use chrono::{DateTime, NaiveDateTime};

/// What a notable kernel message says.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// `INFO: task dd:26513 blocked for more than 5 seconds.`
    HungTask {
        /// The task's command.
        task: String,
        /// Its pid.
        pid: u32,
        /// How long it had been blocked, at least.
        secs: u64,
        /// The reliable frames of its call trace, innermost first (`__schedule`, `schedule`, ...).
        stack: Vec<String>,
    },
    /// `I/O error, dev sda, sector 2048 op 0x1:(WRITE) ...`, `Buffer I/O error on dev sda1, ...`,
    /// `blk_update_request: I/O error, dev sda, sector 2048`.
    IoError {
        /// The device.
        device: String,
    },
    /// `EXT4-fs error (device sda1): ...`, `XFS (sdb1): metadata I/O error ...`, `XFS (sdb1): Corruption ...`.
    FsError {
        /// The device.
        device: String,
    },
    /// `Out of memory: Killed process 1234 (mariadbd) ...`.
    OomKill {
        /// The victim's pid.
        pid: u32,
        /// The victim's command.
        task: String,
    },
}

/// A notable message.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// 1-based line.
    pub line: usize,
    /// When the kernel logged it.
    pub stamp: Option<Stamp>,
    /// What it says.
    pub kind: Kind,
    /// The message as printed (without its time stamp).
    pub text: String,
}

/// A parsed kernel log.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Dmesg {
    /// Notable messages, in file order.
    pub events: Vec<Event>,
    /// Messages read (lines with a time stamp).
    pub messages: usize,
    /// The stamps' form: `since_boot`, `ctime` (`-T`), `iso`.
    pub clock: Option<&'static str>,
    /// First and last stamps.
    pub range: Option<(Stamp, Stamp)>,
}

impl Dmesg {
    /// The hung-task reports.
    pub fn hung_tasks(&self) -> impl Iterator<Item = &Event> {
        self.events.iter().filter(|e| matches!(e.kind, Kind::HungTask { .. }))
    }
}

/// Splits a line into its stamp and message: `[ 4128.001219] msg`, `[Sat Dec  5 20:47:20 2026] msg`,
/// `2026-12-05T20:47:20,123456+00:00 msg`, each after an optional `kern  :info  : ` (`dmesg -x`).
fn split(line: &str) -> Option<(Stamp, &'static str, &str)> {
    let t = strip_level(line);
    if let Some(rest) = t.strip_prefix('[') {
        let (inside, msg) = rest.split_once(']')?;
        let inside = inside.trim();
        let msg = msg.strip_prefix(' ').unwrap_or(msg);
        if let Ok(secs) = inside.parse::<f64>() {
            return Some((Stamp::SinceBoot(secs), "since_boot", msg));
        }
        let n = NaiveDateTime::parse_from_str(
            &inside.split_whitespace().collect::<Vec<_>>().join(" "),
            "%a %b %d %H:%M:%S %Y",
        )
        .ok()?;
        return Some((Stamp::Local(n), "ctime", msg));
    }
    let (first, msg) = t.split_once(' ')?;
    let d = DateTime::parse_from_str(&first.replacen(',', ".", 1), "%Y-%m-%dT%H:%M:%S%.f%:z").ok()?;
    Some((Stamp::Zoned(d), "iso", msg))
}

/// Removes `dmesg -x`'s `kern  :info  : ` prefix.
fn strip_level(line: &str) -> &str {
    let mut parts = line.splitn(3, ':');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(f), Some(l), Some(rest))
            if !f.trim().is_empty()
                && f.trim().bytes().all(|b| b.is_ascii_lowercase())
                && l.trim().bytes().all(|b| b.is_ascii_lowercase())
                && !l.trim().is_empty() =>
        {
            rest.trim_start()
        }
        _ => line,
    }
}

/// The notable message a line is, if any (a hung task's stack is added later).
fn kind_of(msg: &str) -> Option<Kind> {
    // `INFO: task dd:26513 blocked for more than 5 seconds.` (kernel/hung_task.c)
    if let Some(r) = msg.trim().strip_prefix("INFO: task ") {
        let (who, rest) = r.split_once(" blocked for more than ")?;
        let (task, pid) = who.rsplit_once(':')?;
        let secs = rest.split_whitespace().next()?.parse().ok()?;
        return Some(Kind::HungTask {
            task: task.to_string(),
            pid: pid.parse().ok()?,
            secs,
            stack: Vec::new(),
        });
    }
    // `I/O error, dev sda, sector 2048 op 0x1:(WRITE) flags 0x0 phys_seg 1 prio class 2`
    // `blk_update_request: I/O error, dev sda, sector 2048` (kernels before 5.x)
    if let Some(i) = msg.find("I/O error, dev ") {
        let dev = msg[i + "I/O error, dev ".len()..].split([',', ' ']).next()?;
        return Some(Kind::IoError { device: dev.to_string() });
    }
    // `Buffer I/O error on dev sda1, logical block 0, async page read`
    if let Some(r) = msg
        .strip_prefix("Buffer I/O error on dev ")
        .or_else(|| msg.strip_prefix("Buffer I/O error on device "))
    {
        return Some(Kind::IoError { device: r.split([',', ' ']).next()?.to_string() });
    }
    // `EXT4-fs error (device sda1): ext4_find_entry:1455: inode #2: comm ls: reading directory lblock 0`
    if let Some(r) = msg.strip_prefix("EXT4-fs error (device ") {
        return Some(Kind::FsError { device: r.split(')').next()?.to_string() });
    }
    // `XFS (sdb1): metadata I/O error in "xfs_trans_read_buf_map" at daddr 0x2 len 1 error 5`
    if let Some(r) = msg.strip_prefix("XFS (") {
        let (dev, rest) = r.split_once("): ")?;
        let bad = ["I/O error", "Corruption", "corruption", "Log I/O Error", "shutdown"];
        return bad.iter().any(|b| rest.contains(b)).then(|| Kind::FsError { device: dev.to_string() });
    }
    // `Out of memory: Killed process 1234 (mariadbd) total-vm:...` (mm/oom_kill.c)
    if let Some(r) = msg.strip_prefix("Out of memory: Killed process ") {
        let (pid, rest) = r.split_once(' ')?;
        let task = rest.strip_prefix('(')?.split(')').next()?;
        return Some(Kind::OomKill { pid: pid.parse().ok()?, task: task.to_string() });
    }
    None
}

/// A call-trace frame of a hung task's report: ` __schedule+0x3dc/0xf60` -> `__schedule`;
/// unreliable frames (`? name+...`) and the `<TASK>` markers are not frames.
fn frame(msg: &str) -> Option<&str> {
    let t = msg.trim();
    if t.starts_with('?') || t.starts_with('<') {
        return None;
    }
    let (name, off) = t.split_once('+')?;
    (off.contains("/0x") && !name.is_empty() && !name.contains(' ')).then_some(name)
}

/// The reader.
#[derive(Debug, Clone, Copy)]
pub struct Fmt;

impl Format for Fmt {
    type Output = Dmesg;
    const ID: &'static str = "dmesg";
    const SAMPLE: &'static str = "[ 4128.001219] INFO: task dd:26513 blocked for more than 5 seconds.";
    const DESCRIPTION: &'static str = "kernel messages (dmesg, -T, --time-format iso, -x; pt-stalk -dmesg): hung tasks, I/O and file-system errors, OOM kills";

    /// Yes when most of the first lines are kernel messages with a dmesg time stamp.
    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let text = String::from_utf8_lossy(head);
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).take(12).collect();
        // The last line of the head may be cut.
        let whole = lines.len().saturating_sub(usize::from(lines.len() > 1 && !text.ends_with('\n')));
        let stamped = lines[..whole].iter().filter(|l| split(l).is_some()).count();
        if whole > 0 && stamped * 4 >= whole * 3 { Sniff::Yes } else { Sniff::No }
    }

    fn parse(input: &[u8]) -> Parsed<Dmesg> {
        let mut out = Dmesg::default();
        let mut d = Diags::default();
        // The hung task whose call trace is being read, until `</TASK>`.
        let mut trace: Option<usize> = None;
        for (l, text) in Lines::new(input).content() {
            let Some((stamp, clock, msg)) = split(text.trim_end()) else {
                d.skip(l.no, DiagKind::Malformed, text.trim_end());
                continue;
            };
            out.messages += 1;
            out.clock.get_or_insert(clock);
            out.range = Some(match out.range {
                None => (stamp, stamp),
                Some((a, _)) => (a, stamp),
            });
            if let Some(i) = trace {
                if msg.trim() == "</TASK>" {
                    trace = None;
                } else if let (Some(f), Some(Kind::HungTask { stack, .. })) =
                    (frame(msg), out.events.get_mut(i).map(|e| &mut e.kind))
                {
                    stack.push(f.to_string());
                }
                continue;
            }
            if let Some(kind) = kind_of(msg) {
                let hung = matches!(kind, Kind::HungTask { .. });
                out.events.push(Event { line: l.no, stamp: Some(stamp), kind, text: msg.trim().to_string() });
                if hung {
                    trace = Some(out.events.len() - 1);
                }
            }
        }
        let lines = count_lines(input);
        d.finish(out, lines)
    }
}

impl Summary for Dmesg {
    fn records(&self) -> usize {
        self.messages
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        if let Some(c) = self.clock {
            v.insert("clock", c.to_string());
        }
        let count = |f: fn(&Kind) -> bool| self.events.iter().filter(|e| f(&e.kind)).count();
        for (name, n) in [
            ("hung_tasks", count(|k| matches!(k, Kind::HungTask { .. }))),
            ("io_errors", count(|k| matches!(k, Kind::IoError { .. }))),
            ("fs_errors", count(|k| matches!(k, Kind::FsError { .. }))),
            ("oom_kills", count(|k| matches!(k, Kind::OomKill { .. }))),
        ] {
            if n > 0 {
                v.insert(name, n.to_string());
            }
        }
        v
    }

    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        // Seconds since boot place nothing on the wall clock by themselves.
        self.range.filter(|(a, _)| !matches!(a, Stamp::SinceBoot(_)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_of_every_form() {
        assert!(
            matches!(split("[ 4128.001219] x"), Some((Stamp::SinceBoot(s), "since_boot", "x")) if s == 4128.001219)
        );
        assert!(matches!(split("[Sat Dec  5 20:47:20 2026] x"), Some((Stamp::Local(_), "ctime", "x"))));
        assert!(matches!(split("2026-12-05T20:47:20,123456+00:00 x"), Some((Stamp::Zoned(_), "iso", "x"))));
        assert!(matches!(split("kern  :info  : [    1.000000] x"), Some((Stamp::SinceBoot(_), _, "x"))));
        assert!(split("Linux version 6.18").is_none());
    }

    #[test]
    fn notable_messages() {
        let k = kind_of("INFO: task kworker/u4:2:123 blocked for more than 120 seconds.").unwrap();
        assert_eq!(k, Kind::HungTask { task: "kworker/u4:2".into(), pid: 123, secs: 120, stack: vec![] });
        assert_eq!(kind_of("XFS (loop1): Unmounting Filesystem 3da7ec2c"), None);
        assert_eq!(frame(" ? __pfx_percpu_rwsem_wake_function+0x10/0x10"), None);
        assert_eq!(frame(" mnt_want_write+0x96/0xc0"), Some("mnt_want_write"));
    }
}
