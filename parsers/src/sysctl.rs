//! `sysctl`: kernel tunables as `sysctl -a`, `sysctl <keys>`, pt-summary or
//! a `/proc/sys` loop print them.
//!
//! Real samples (`corpus/context/generated__ctx_sysctl_vm_dirty.txt`,
//! `generated__ctx_proc_sys_vm_dirty.txt`, `jc__centos-7.7_sysctl-a.txt`,
//! `tests/fixtures/context/sysctl-a-nonroot.txt`; `\t` marks a TAB):
//!
//! ```text
//! vm.dirty_expire_centisecs = 3000
//! vm.lowmem_reserve_ratio = 256\t256\t32\t0\t0
//! /proc/sys/vm/dirty_ratio = 20
//! dev.cdrom.info = drive name:\t\tsr0
//! sysctl: permission denied on key 'kernel.cad_pid'
//! ```
//!
//! Keys are normalised to the dotted form (`/proc/sys/vm/dirty_ratio` ->
//! `vm.dirty_ratio`; a dot inside a path component becomes `/`, as sysctl
//! prints `net.ipv4.conf.eth0/1.rp_filter`). Multi-line values (`dev.cdrom.info`)
//! come as repeated keys and are all kept. `sysctl:` messages that non-root
//! runs interleave are reported as [`DiagKind::ToolMessage`]. The BSD form
//! `vm.dirty_ratio: 20` is accepted too.

use crate::common::scrub::Identifiers;
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};

/// The parsed tunables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sysctl {
    /// `(line, dotted key, value)` in file order; the value is trimmed, may be empty.
    pub entries: Vec<(usize, String, String)>,
}

impl Sysctl {
    /// The first value of a key; `key` may be dotted (`vm.dirty_ratio`) or a
    /// `/proc/sys/...` path.
    pub fn get(&self, key: &str) -> Option<&str> {
        let k = normalize_key(key)?;
        self.entries.iter().find(|(_, ek, _)| *ek == k).map(|(_, _, v)| v.as_str())
    }

    /// The first value of a key as an integer (`vm.dirty_ratio` -> 20).
    pub fn get_i64(&self, key: &str) -> Option<i64> {
        crate::common::number::parse_i64(self.get(key)?)
    }
}

/// Normalises a key to the dotted sysctl form; `None` when it is not a key.
///
/// `/proc/sys/vm/dirty_ratio` -> `vm.dirty_ratio`, `vm/dirty_ratio` -> `vm.dirty_ratio`.
pub fn normalize_key(key: &str) -> Option<String> {
    let k = key.trim();
    if k.is_empty() || k.len() > 256 || k.contains(char::is_whitespace) {
        return None;
    }
    let path = k.strip_prefix("/proc/sys/").or_else(|| k.strip_prefix("proc/sys/"));
    let out = match path {
        Some(p) => p.split('/').map(|c| c.replace('.', "/")).collect::<Vec<_>>().join("."),
        None if k.contains('.') => k.to_string(),
        None if k.contains('/') && !k.starts_with('/') => k.replace('/', "."),
        None => return None,
    };
    let ok = out
        .split('.')
        .all(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-/+:@".contains(&b)))
        && out.as_bytes().first().is_some_and(|b| b.is_ascii_alphabetic());
    ok.then_some(out)
}

/// One `key = value` / `key: value` line, or `None`.
fn parse_kv(line: &str) -> Option<(String, String)> {
    let (k, v) = match line.split_once(" = ") {
        Some(kv) => kv,
        None => match line.strip_suffix(" =") {
            Some(k) => (k, ""),
            None => {
                let (k, v) = line.split_once(':')?;
                if !(v.is_empty() || v.starts_with(' ')) || k.starts_with('/') {
                    return None;
                }
                (k, v)
            }
        },
    };
    let key = normalize_key(k)?;
    Some((key, v.trim().to_string()))
}

/// True for a message the `sysctl` tool printed on stderr:
/// `sysctl: permission denied on key 'kernel.cad_pid'`,
/// `sysctl: reading key "net.ipv6.conf.all.stable_secret"`.
fn is_tool_message(line: &str) -> bool {
    line.starts_with("sysctl: ")
}

impl Summary for Sysctl {
    fn records(&self) -> usize {
        self.entries.len()
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        if let Some((_, k, _)) = self.entries.first() {
            v.insert("keys", self.entries.len().to_string());
            v.insert("first_key", k.clone());
        }
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        None
    }
}

/// The `sysctl` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Sysctl;
    const ID: &'static str = "sysctl";
    const SAMPLE: &'static str = "vm.dirty_expire_centisecs = 3000";
    const DESCRIPTION: &'static str = "sysctl -a and `name = value` lists (vm.dirty_*)";

    /// Yes when the complete lines of the head are `dotted.key = value` lines
    /// (or `sysctl:` messages), Unsure for `key: value` lists.
    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let mut eq = 0;
        let mut colon = 0;
        let complete = head.iter().rposition(|&b| b == b'\n').map_or(head.len(), |i| i + 1);
        for l in Lines::new(head.get(..complete).unwrap_or(head)) {
            if l.is_blank() {
                continue;
            }
            let t = l.text();
            if is_tool_message(&t) {
                continue;
            }
            match parse_kv(&t) {
                Some(_) if t.contains(" =") => eq += 1,
                Some(_) => colon += 1,
                None => return Sniff::No,
            }
        }
        if eq > 0 && colon == 0 {
            Sniff::Yes
        } else if eq + colon > 0 {
            Sniff::Unsure
        } else {
            Sniff::No
        }
    }

    fn parse(input: &[u8]) -> Parsed<Sysctl> {
        let mut d = Diags::default();
        let mut out = Sysctl::default();
        let mut lines = 0;
        for l in Lines::new(input) {
            lines = l.no;
            if l.is_blank() {
                continue;
            }
            let t = l.clean_text();
            if is_tool_message(&t) {
                d.skip(l.no, DiagKind::ToolMessage, &t);
                continue;
            }
            match parse_kv(&t) {
                Some((k, v)) => out.entries.push((l.no, k, v)),
                None => d.skip(l.no, DiagKind::Malformed, &t),
            }
        }
        d.finish(out, lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_normalise() {
        assert_eq!(normalize_key("/proc/sys/vm/dirty_ratio").as_deref(), Some("vm.dirty_ratio"));
        assert_eq!(
            normalize_key("/proc/sys/net/ipv4/conf/eth0.1/rp_filter").as_deref(),
            Some("net.ipv4.conf.eth0/1.rp_filter")
        );
        assert_eq!(normalize_key("vm/dirty_ratio").as_deref(), Some("vm.dirty_ratio"));
        assert_eq!(normalize_key("MemTotal"), None);
        assert_eq!(normalize_key("a b.c"), None);
    }

    #[test]
    fn lines_and_messages() {
        let p = Fmt::parse(
            b"vm.dirty_ratio = 20\nvm.lowmem_reserve_ratio = 256\t256\t32\t0\t0\ndev.cdrom.info = \n\
sysctl: permission denied on key 'kernel.cad_pid'\n/proc/sys/vm/dirty_bytes = 0\nkern.maxfiles: 12288\n",
        );
        assert_eq!(p.value.get("vm.dirty_ratio"), Some("20"));
        assert_eq!(p.value.get("/proc/sys/vm/dirty_bytes"), Some("0"));
        assert_eq!(p.value.get("vm.lowmem_reserve_ratio"), Some("256\t256\t32\t0\t0"));
        assert_eq!(p.value.get("dev.cdrom.info"), Some(""));
        assert_eq!(p.value.get("kern.maxfiles"), Some("12288"));
        assert_eq!(p.diagnostics.len(), 1);
        assert_eq!(p.diagnostics[0].kind, DiagKind::ToolMessage);
        assert_eq!(p.diagnostics[0].line, 4);
    }

    #[test]
    fn sniffing() {
        assert_eq!(Fmt::sniff(b"vm.dirty_ratio = 20\nvm.dirty_bytes = 0\n"), Sniff::Yes);
        assert_eq!(Fmt::sniff(b"MemTotal:       24684084 kB\n"), Sniff::No);
        assert_eq!(Fmt::sniff(b"innodb_flush_method = O_DIRECT\n"), Sniff::No);
        assert_eq!(Fmt::sniff(b"/sys/block/vda/queue/read_ahead_kb:8192\n"), Sniff::No);
    }
}
