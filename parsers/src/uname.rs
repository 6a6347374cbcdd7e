//! `uname`: the kernel identity of the capturing host, from `uname -a`,
//! `uname -r` (one token) or plain `uname` (the system name only).
//!
//! Real samples (`corpus/context/generated__ctx_uname_a.txt`, `jc__*uname*`):
//!
//! ```text
//! Linux vm 6.18.44-fc-v669 #1 SMP PREEMPT_DYNAMIC @0 x86_64 GNU/Linux
//! Linux localhost.localdomain 3.10.0-1062.1.2.el7.x86_64 #1 SMP Mon Sep 30 14:19:46 UTC 2019 x86_64 x86_64 x86_64 GNU/Linux
//! Linux mymachine 2.6.18-194.e15PAE #1 SMP Fri Apr 2 15:37:44 EDT 2010 i686 i686 i386 GNU/Linux
//! 6.18.44-fc-v669
//! ```
//!
//! `uname -a` prints `sysname nodename release version machine [processor
//! platform] operating-system`; processor and platform are left out when
//! "unknown". The version (`#1 SMP ...`) contains spaces, so the machine is
//! found from the end of the line. The full release string is kept: its
//! distribution suffix (`-25.al7`, `.el7`) tells backports apart.

use crate::common::scrub::Identifiers;
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};

/// The parsed `uname` output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Uname {
    /// 1-based line the identity was read from (0 when none was found).
    pub line: usize,
    /// Kernel name (`Linux`), absent for `uname -r`.
    pub sysname: Option<String>,
    /// Network node name (`vm`), only in `uname -a`.
    pub hostname: Option<String>,
    /// Kernel release exactly as printed (`6.18.44-fc-v669`); empty for bare `uname`.
    pub release: String,
    /// Kernel build version (`#1 SMP PREEMPT_DYNAMIC @0`), only in `uname -a`.
    pub version: Option<String>,
    /// Hardware name (`x86_64`), only in `uname -a`.
    pub machine: Option<String>,
}

impl Uname {
    /// The numeric `major.minor.patch` prefix of the release
    /// (`4.19.91-25.al7.x86_64` -> `(4, 19, 91)`; a missing patch is 0).
    pub fn kernel_version(&self) -> Option<(u32, u32, u32)> {
        kernel_version(&self.release)
    }

    /// Which form the file had: `uname -a`, `uname -r` or `uname -s`.
    pub fn layout(&self) -> &'static str {
        match (&self.hostname, &self.sysname) {
            (Some(_), _) => "uname -a",
            (None, Some(_)) => "uname -s",
            (None, None) => "uname -r",
        }
    }
}

/// Parses the `major.minor[.patch]` prefix of a kernel release string.
pub fn kernel_version(release: &str) -> Option<(u32, u32, u32)> {
    let mut parts = [0u32; 3];
    let mut n = 0;
    let mut rest = release;
    while n < 3 {
        let end = rest.bytes().position(|b| !b.is_ascii_digit()).unwrap_or(rest.len());
        if end == 0 {
            break;
        }
        parts[n] = rest.get(..end)?.parse().ok()?;
        n += 1;
        rest = rest.get(end..)?;
        match rest.strip_prefix('.') {
            Some(r) if n < 3 => rest = r,
            _ => break,
        }
    }
    (n >= 2).then_some((parts[0], parts[1], parts[2]))
}

/// Kernel names `uname -s` prints on the systems captures come from.
const SYSNAMES: &[&str] =
    &["Linux", "GNU/Linux", "FreeBSD", "Darwin", "SunOS", "AIX", "NetBSD", "OpenBSD", "HP-UX"];

fn is_sysname(t: &str) -> bool {
    SYSNAMES.contains(&t)
}

/// True for a token shaped like a kernel release: `6.1.0-13-amd64`, `3.10.0-1062.1.2.el7.x86_64`.
fn looks_like_release(t: &str) -> bool {
    kernel_version(t).is_some()
        && t.len() <= 128
        && t.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-+~".contains(&b))
}

/// True for a `uname -m/-p/-i` value.
fn is_arch(t: &str) -> bool {
    const EXACT: &[&str] = &[
        "x86_64",
        "amd64",
        "i386",
        "i486",
        "i586",
        "i686",
        "aarch64",
        "arm64",
        "ia64",
        "alpha",
        "s390",
        "s390x",
        "unknown",
        "loongarch64",
        "athlon",
    ];
    EXACT.contains(&t) || ["arm", "ppc", "mips", "riscv", "sparc", "sun4"].iter().any(|p| t.starts_with(p))
}

/// One parsed line, or `None` when it is not uname output.
fn parse_line(no: usize, text: &str) -> Option<Uname> {
    let toks: Vec<&str> = text.split_whitespace().collect();
    match toks.as_slice() {
        // `uname -r`: `6.18.44-fc-v669`
        [rel] if looks_like_release(rel) => {
            Some(Uname { line: no, release: (*rel).to_string(), ..Uname::default() })
        }
        // `uname`: `Linux`
        [sys] if is_sysname(sys) => {
            Some(Uname { line: no, sysname: Some((*sys).to_string()), ..Uname::default() })
        }
        // `uname -a`: `Linux vm 6.18.44-fc-v669 #1 SMP PREEMPT_DYNAMIC @0 x86_64 GNU/Linux`
        [sys, host, rel, rest @ ..] if is_sysname(sys) && looks_like_release(rel) => {
            let mut rest = rest;
            // The trailing operating system (`GNU/Linux`), printed by GNU uname only.
            if let [head @ .., os] = rest
                && (is_sysname(os) || os.contains('/') || *os == "Android")
                && !is_arch(os)
            {
                rest = head;
            }
            // Up to three trailing architecture tokens: machine [processor platform].
            let arch_n = rest.iter().rev().take(3).take_while(|t| is_arch(t)).count();
            let split = rest.len().saturating_sub(arch_n);
            let (version, arch) = rest.split_at(split);
            let version = (!version.is_empty()).then(|| version.join(" "));
            Some(Uname {
                line: no,
                sysname: Some((*sys).to_string()),
                hostname: Some((*host).to_string()),
                release: (*rel).to_string(),
                version,
                machine: arch.first().map(|m| (*m).to_string()),
            })
        }
        _ => None,
    }
}

impl Summary for Uname {
    fn records(&self) -> usize {
        usize::from(self.line > 0)
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        if self.line > 0 {
            v.insert("layout", self.layout().to_string());
            if !self.release.is_empty() {
                v.insert("release", self.release.clone());
            }
            if let Some((a, b, c)) = self.kernel_version() {
                v.insert("kernel", format!("{a}.{b}.{c}"));
            }
            if let Some(m) = &self.machine {
                v.insert("machine", m.clone());
            }
        }
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        None
    }
}

/// The `uname` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Uname;
    const ID: &'static str = "uname";
    const SAMPLE: &'static str = "Linux vm 6.18.44-fc-v669 #1 SMP PREEMPT_DYNAMIC @0 x86_64 GNU/Linux";
    const DESCRIPTION: &'static str = "uname -a / uname -r (kernel release, machine)";

    /// Yes when the only non-blank line is `uname -a` output or a `uname -r`
    /// release with a suffix (`6.1.0-13-amd64`); Unsure for a bare `6.8.0` or `Linux`.
    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let mut lines = Lines::new(head).filter(|l| !l.is_blank());
        let (Some(first), None) = (lines.next(), lines.next()) else {
            return Sniff::No;
        };
        let text = first.text();
        match parse_line(1, &text) {
            Some(u) if u.hostname.is_some() => Sniff::Yes,
            Some(u) if u.release.contains(['-', '+']) => Sniff::Yes,
            Some(_) => Sniff::Unsure,
            None => Sniff::No,
        }
    }

    fn parse(input: &[u8]) -> Parsed<Uname> {
        let mut d = Diags::default();
        let mut out = Uname::default();
        let mut lines = 0;
        for l in Lines::new(input) {
            lines = l.no;
            if l.is_blank() {
                continue;
            }
            let text = l.clean_text();
            match parse_line(l.no, text.trim()) {
                Some(u) if out.line == 0 => out = u,
                Some(_) => d.skip(l.no, DiagKind::Unsupported, format!("second uname line: {text}")),
                None => d.skip(l.no, DiagKind::Malformed, &text),
            }
        }
        d.finish(out, lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uname_a_forms() {
        let u = parse_line(1, "Linux vm 6.18.44-fc-v669 #1 SMP PREEMPT_DYNAMIC @0 x86_64 GNU/Linux").unwrap();
        assert_eq!(u.hostname.as_deref(), Some("vm"));
        assert_eq!(u.release, "6.18.44-fc-v669");
        assert_eq!(u.version.as_deref(), Some("#1 SMP PREEMPT_DYNAMIC @0"));
        assert_eq!(u.machine.as_deref(), Some("x86_64"));
        assert_eq!(u.kernel_version(), Some((6, 18, 44)));
        let u = parse_line(
            1,
            "Linux mymachine 2.6.18-194.e15PAE #1 SMP Fri Apr 2 15:37:44 EDT 2010 i686 i686 i386 GNU/Linux",
        )
        .unwrap();
        assert_eq!(u.machine.as_deref(), Some("i686"));
        assert_eq!(u.version.as_deref(), Some("#1 SMP Fri Apr 2 15:37:44 EDT 2010"));
    }

    #[test]
    fn release_versions() {
        assert_eq!(kernel_version("4.19.91-25.al7.x86_64"), Some((4, 19, 91)));
        assert_eq!(kernel_version("5.15"), Some((5, 15, 0)));
        assert_eq!(kernel_version("2"), None);
        assert_eq!(kernel_version("99999999999.1.1"), None);
        assert_eq!(Fmt::sniff(b"6.1.0-13-amd64\n"), Sniff::Yes);
        assert_eq!(Fmt::sniff(b"12.6.1\n"), Sniff::Unsure);
        assert_eq!(Fmt::sniff(b"2\n"), Sniff::No);
        assert_eq!(Fmt::sniff(b"Linux 6.1.0-13-amd64 (host) \t11/29/2026 \t_x86_64_\t(8 CPU)\n"), Sniff::No);
    }

    #[test]
    fn garbage_is_reported() {
        let p = Fmt::parse(b"6.1.0-13-amd64\nhello world\n");
        assert_eq!(p.value.release, "6.1.0-13-amd64");
        assert_eq!(p.skipped_lines, 1);
    }
}
