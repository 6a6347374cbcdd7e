//! `sysfs`: block-queue (and other `/sys`) attribute values as captures
//! record them: `grep -H . /sys/block/*/queue/*` lines, `path: value` lines,
//! loops with `== dev` headers, and pt-summary's "Disk Schedulers And Queue
//! Size" table.
//!
//! Real samples (`corpus/context/generated__ctx_sysblock_grep.txt`,
//! `generated__ctx_sysblock_loop.txt`, `bundles/*/system-info.txt`,
//! `tests/fixtures/context/sysblock-*.txt`, `percona-toolkit__pt-summary_Linux_output_002.txt`):
//!
//! ```text
//! /sys/block/vda/queue/read_ahead_kb:8192
//! /sys/block/vda/queue/scheduler: none [mq-deadline] kyber bfq
//! grep: /sys/block/zram0/queue/scheduler: No such file or directory
//! == vda
//! read_ahead_kb: 8192
//! cat: /sys/block/zram0/queue/scheduler: No such file or directory
//!          hda | [cfq] 128
//!         dm-0 | UNREADABLE
//! ```
//!
//! Units are the kernel's: `read_ahead_kb` KiB, `optimal_io_size` and
//! `minimum_io_size` bytes, `scheduler` a list with the active one in
//! brackets (see [`active_choice`]). Error messages of `cat`/`grep` become
//! [`DiagKind::ToolMessage`] diagnostics.

use crate::common::scrub::Identifiers;
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};

/// One attribute value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// 1-based line.
    pub line: usize,
    /// The path as the file gives it (`/sys/block/vda/queue/read_ahead_kb`), or
    /// the attribute name under a `== dev` header (`read_ahead_kb`).
    pub path: String,
    /// Block device (`vda`) from the path or the `== dev` header.
    pub device: Option<String>,
    /// Attribute name relative to the device's `queue/` (or the file name):
    /// `read_ahead_kb`, `iosched/fifo_batch`, `scheduler`.
    pub attr: String,
    /// The value, trimmed (`none [mq-deadline] kyber bfq`); may be empty.
    pub value: String,
}

/// The parsed attributes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sysfs {
    /// Entries in file order.
    pub entries: Vec<Entry>,
}

impl Sysfs {
    /// The value of `attr` of `device` (`get("vda", "read_ahead_kb")`). A
    /// block-queue attribute wins over a same-named one elsewhere (`bdi/read_ahead_kb`).
    pub fn get(&self, device: &str, attr: &str) -> Option<&str> {
        let mut found = None;
        for e in &self.entries {
            if e.device.as_deref() == Some(device) && e.attr == attr {
                if !e.path.contains("/bdi/") {
                    return Some(&e.value);
                }
                found.get_or_insert(e.value.as_str());
            }
        }
        found
    }

    /// The devices seen, in first-seen order.
    pub fn devices(&self) -> Vec<&str> {
        let mut v: Vec<&str> = Vec::new();
        for d in self.entries.iter().filter_map(|e| e.device.as_deref()) {
            if !v.contains(&d) {
                v.push(d);
            }
        }
        v
    }
}

/// The active choice of a bracket list: `none [mq-deadline] kyber bfq` -> `mq-deadline`,
/// `always [madvise] never` -> `madvise`.
pub fn active_choice(value: &str) -> Option<&str> {
    let start = value.find('[')?;
    let rest = value.get(start + 1..)?;
    let end = rest.find(']')?;
    rest.get(..end)
}

/// Splits a sysfs path into `(device, attr)`.
///
/// `/sys/block/vda/queue/iosched/fifo_batch` -> `(Some("vda"), "iosched/fifo_batch")`,
/// `/sys/block/vda/bdi/max_ratio` -> `(Some("vda"), "max_ratio")`,
/// `/sys/kernel/mm/transparent_hugepage/enabled` -> `(None, "enabled")`.
///
/// The block stack as `samples/collect.sh` records it (`grep -H . /sys/block/*/dev
/// /sys/block/*/*/dev /sys/block/*/slaves/*/dev /sys/block/*/loop/backing_file`):
/// `/sys/block/dm-0/slaves/vda1/dev:254:1` -> `(Some("dm-0"), "slaves/vda1")`,
/// `/sys/block/vda/holders/dm-0/dev` -> `(Some("vda"), "holders/dm-0")`,
/// `/sys/block/vda/vda1/dev:254:1` -> `(Some("vda"), "partition/vda1")`,
/// `/sys/block/loop0/loop/backing_file` -> `(Some("loop0"), "backing_file")`.
fn split_path(path: &str) -> (Option<String>, String) {
    let rest = path
        .strip_prefix("/sys/block/")
        .or_else(|| path.strip_prefix("/sys/class/block/"))
        .or_else(|| path.strip_prefix("/sys/dev/block/"));
    if let Some(rest) = rest
        && let Some((dev, attr)) = rest.split_once('/')
    {
        let parts: Vec<&str> = attr.split('/').collect();
        match parts.as_slice() {
            [kind @ ("slaves" | "holders"), other, "dev"] => {
                return (Some(dev.to_string()), format!("{kind}/{other}"));
            }
            [part, "dev"] if part.starts_with(dev) && *part != dev => {
                return (Some(dev.to_string()), format!("partition/{part}"));
            }
            _ => {}
        }
        let attr = attr.strip_prefix("queue/").unwrap_or_else(|| attr.rsplit('/').next().unwrap_or(attr));
        return (Some(dev.to_string()), attr.to_string());
    }
    let attr = path.rsplit('/').next().unwrap_or(path);
    (None, attr.to_string())
}

/// A `cat:`/`grep:`/`ls:` error message about a file.
fn is_tool_message(line: &str) -> bool {
    ["cat: ", "grep: ", "ls: ", "head: ", "tail: ", "bash: ", "sh: "].iter().any(|p| line.starts_with(p))
}

/// `/sys/...:value` or `/sys/... : value` -> (path, value).
fn parse_path_line(line: &str) -> Option<(&str, &str)> {
    if !line.starts_with("/sys/") {
        return None;
    }
    let (p, v) = line.split_once(':')?;
    let p = p.trim_end();
    (!p.contains(char::is_whitespace)).then_some((p, v.trim()))
}

/// `== vda` / `== /sys/block/vda` -> device name.
fn parse_dev_header(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("==")?.trim();
    let rest = rest.strip_suffix("==").unwrap_or(rest).trim();
    if rest.is_empty() || rest.contains(char::is_whitespace) {
        return None;
    }
    let rest = rest.trim_end_matches('/');
    let rest = rest.strip_suffix("/queue").unwrap_or(rest);
    Some(rest.rsplit('/').next().unwrap_or(rest))
}

/// `attr: value` under a `== dev` header.
fn parse_attr_line(line: &str) -> Option<(&str, &str)> {
    let (a, v) = line.split_once(':')?;
    let ok =
        !a.is_empty() && a.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'/' || b == b'-');
    ok.then_some((a, v.trim()))
}

/// pt-summary: `         hda | [cfq] 128`, `        dm-0 | 128`, `        dm-0 | UNREADABLE`
/// -> (device, scheduler, nr_requests); both `None` for `UNREADABLE`.
type PtRow<'a> = (&'a str, Option<&'a str>, Option<&'a str>);

fn parse_pt_summary(line: &str) -> Option<PtRow<'_>> {
    let (dev, rest) = line.split_once(" | ")?;
    let dev = dev.trim();
    if dev.is_empty() || dev.contains(char::is_whitespace) {
        return None;
    }
    let rest = rest.trim();
    if rest == "UNREADABLE" {
        return Some((dev, None, None));
    }
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if digits(rest) {
        return Some((dev, None, Some(rest)));
    }
    let (sched, nr) = match rest.rsplit_once(' ') {
        Some((s, n)) if digits(n) => (s.trim(), Some(n)),
        _ => (rest, None),
    };
    if !sched.contains('[') {
        return None;
    }
    Some((dev, Some(sched), nr))
}

impl Summary for Sysfs {
    fn records(&self) -> usize {
        self.entries.len()
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        let layout = match self.entries.first() {
            Some(e) if e.path.starts_with("/sys/") => "path:value",
            Some(e) if e.path.starts_with("pt-summary") => "pt-summary",
            Some(_) => "== dev loop",
            None => return v,
        };
        v.insert("layout", layout.to_string());
        v.insert("devices", self.devices().join(","));
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        None
    }
}

/// The `sysfs` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Sysfs;
    const ID: &'static str = "sysfs";
    const SAMPLE: &'static str = "/sys/block/vda/queue/read_ahead_kb:8192";
    const DESCRIPTION: &'static str = "grep . /sys/block/*/queue/* style `path:value` lines, `== dev` loops";

    /// Yes when the first non-blank line is `/sys/...:value` or `== dev` followed
    /// by `attr: value`.
    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let mut it = Lines::new(head).filter(|l| !l.is_blank());
        let Some(first) = it.next() else { return Sniff::No };
        let t = first.text();
        if parse_path_line(&t).is_some() {
            return Sniff::Yes;
        }
        if parse_dev_header(&t).is_some()
            && let Some(second) = it.next()
        {
            let s = second.text();
            if parse_attr_line(&s).is_some() || is_tool_message(&s) {
                return Sniff::Yes;
            }
        }
        Sniff::No
    }

    fn parse(input: &[u8]) -> Parsed<Sysfs> {
        let mut d = Diags::default();
        let mut out = Sysfs::default();
        let mut lines = 0;
        let mut dev: Option<String> = None;
        for l in Lines::new(input) {
            lines = l.no;
            if l.is_blank() {
                continue;
            }
            let text = l.clean_text();
            let t = text.trim_end();
            if is_tool_message(t) {
                d.skip(l.no, DiagKind::ToolMessage, t);
            } else if let Some((path, value)) = parse_path_line(t) {
                let (device, attr) = split_path(path);
                out.entries.push(Entry {
                    line: l.no,
                    path: path.to_string(),
                    device,
                    attr,
                    value: value.to_string(),
                });
            } else if let Some(h) = parse_dev_header(t) {
                dev = Some(h.to_string());
            } else if let (Some(dv), Some((a, v))) = (&dev, parse_attr_line(t)) {
                out.entries.push(Entry {
                    line: l.no,
                    path: a.to_string(),
                    device: Some(dv.clone()),
                    attr: a.to_string(),
                    value: v.to_string(),
                });
            } else if let Some((dv, sched, nr)) = parse_pt_summary(t) {
                let mut push = |attr: &str, value: &str| {
                    out.entries.push(Entry {
                        line: l.no,
                        path: format!("pt-summary:{dv}/{attr}"),
                        device: Some(dv.to_string()),
                        attr: attr.to_string(),
                        value: value.to_string(),
                    })
                };
                if let Some(s) = sched {
                    push("scheduler", s);
                }
                if let Some(n) = nr {
                    push("nr_requests", n);
                }
                if sched.is_none() && nr.is_none() {
                    d.note(l.no, DiagKind::ToolMessage, t);
                }
            } else {
                d.skip(l.no, DiagKind::Malformed, t);
            }
        }
        d.finish(out, lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_layouts() {
        let p = Fmt::parse(
            b"/sys/block/vda/queue/read_ahead_kb:8192\n/sys/block/vda/queue/scheduler: none [mq-deadline] kyber bfq \n\
grep: /sys/block/zram0/queue/scheduler: No such file or directory\n== zram0\nread_ahead_kb: 128\n\
cat: /sys/block/zram0/queue/iosched/fifo_batch: No such file or directory\niosched/fifo_batch: \n\
         hda | [cfq] 128\n        dm-0 | UNREADABLE\n        dm-1 | 128\n",
        );
        let s = &p.value;
        assert_eq!(s.get("vda", "read_ahead_kb"), Some("8192"));
        assert_eq!(s.get("vda", "scheduler").and_then(active_choice), Some("mq-deadline"));
        assert_eq!(s.get("zram0", "read_ahead_kb"), Some("128"));
        assert_eq!(s.get("zram0", "iosched/fifo_batch"), Some(""));
        assert_eq!(s.get("hda", "nr_requests"), Some("128"));
        assert_eq!(s.get("dm-1", "nr_requests"), Some("128"));
        assert_eq!(s.get("hda", "scheduler").and_then(active_choice), Some("cfq"));
        let kinds: Vec<_> = p.diagnostics.iter().map(|d| (d.line, d.kind)).collect();
        assert_eq!(
            kinds,
            vec![(3, DiagKind::ToolMessage), (6, DiagKind::ToolMessage), (9, DiagKind::ToolMessage)]
        );
    }

    #[test]
    fn paths_split() {
        assert_eq!(split_path("/sys/block/vda/bdi/max_ratio"), (Some("vda".into()), "max_ratio".into()));
        assert_eq!(split_path("/sys/kernel/mm/transparent_hugepage/enabled"), (None, "enabled".into()));
        assert_eq!(Fmt::sniff(b"== vda\nread_ahead_kb: 8192\n"), Sniff::Yes);
        // The block stack lines of samples/collect.sh (`grep -H . /sys/block/*/slaves/*/dev ...`).
        let p = Fmt::parse(
            b"/sys/block/dm-0/dev:252:0\n/sys/block/dm-0/slaves/vda1/dev:254:1\n/sys/block/vda/holders/dm-0/dev:252:0\n\
/sys/block/vda/vda1/dev:254:1\n/sys/block/loop0/loop/backing_file:/var/tmp/iosift_mx/loop.img\n",
        );
        let s = &p.value;
        assert_eq!(s.get("dm-0", "dev"), Some("252:0"));
        assert_eq!(s.get("dm-0", "slaves/vda1"), Some("254:1"));
        assert_eq!(s.get("vda", "holders/dm-0"), Some("252:0"));
        assert_eq!(s.get("vda", "partition/vda1"), Some("254:1"));
        assert_eq!(s.get("loop0", "backing_file"), Some("/var/tmp/iosift_mx/loop.img"));
        assert_eq!(Fmt::sniff(b"== /proc/fs/ext4/vda/options\nrw\n"), Sniff::No);
    }
}
