//! `mounts`: mounted file systems and their options, from every listing a
//! capture may hold.
//!
//! Real samples (`corpus/context/*mount*`, `tests/fixtures/context/`,
//! `bundles/*/system-info.txt`):
//!
//! ```text
//! /dev/sda2 on / type ext4 (rw,relatime,data=ordered)                        mount
//! /dev/sda1 on /media/ingo/Ubuntu 22.04.3 LTS amd64 type iso9660 (ro,nosuid) mount, spaces in the path
//! /dev/vda / ext4 rw,relatime,discard,resv_strict,resuid=65534,resgid=65534 0 0   /proc/mounts, fstab (`\040` = space)
//! 30 1 253:0 / / rw,relatime shared:1 - ext4 /dev/mapper/ubuntu--vg-ubuntu--lv rw   /proc/PID/mountinfo
//! TARGET SOURCE   FSTYPE OPTIONS                                                    SIZE AVAIL
//! /      /dev/vda ext4   rw,relatime,discard,resv_strict,resuid=65534,resgid=65534  252G 73.3G   findmnt
//! │ ├─/sys/fs/cgroup                          tmpfs   tmpfs    rw,relatime,mode=755   findmnt tree
//! /dev/sda7 333G 35G 281G 12% / on / type ext4 (rw,errors=remount-ro,commit=0)     pt-summary df+mount join
//!   Filesystem                       Size Used Type  Opts Mountpoint            pt-summary table
//! == /proc/fs/ext4/vda/options                                                   ext4 effective options,
//! dioread_nolock                                                                 one per line
//! /proc/fs/ext4/vda/options:dioread_nolock                                       (or `grep -H .`)
//! ```
//!
//! Tabular forms (findmnt, pt-summary) are read by header name, never by
//! position; a findmnt row whose cell count differs from the header is cut at
//! the header's column starts. Columns besides source/target/type/options
//! (SIZE, AVAIL, df sizes) are kept in [`Mount::extra`]. For mountinfo, the
//! per-mount options come first and the super-block options not already
//! present follow (ext4 `data=`, `dioread_nolock`, ... live there).

use crate::common::scrub::Identifiers;
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};

/// Which listing a mount came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// `mount` output: `dev on /mnt type ext4 (rw,relatime)`.
    Mount,
    /// `/proc/mounts`, `/etc/fstab`, `findmnt -n` rows: `dev mnt type opts [0 0]`.
    ProcMounts,
    /// `/proc/PID/mountinfo`.
    MountInfo,
    /// `findmnt` with a header line.
    Findmnt,
    /// pt-summary's joined `df` + `mount` lines or its "Mounted Filesystems" table.
    PtSummary,
    /// `/proc/fs/ext4/<dev>/options`: the effective ext4 options, target unknown.
    Ext4Options,
}

/// One mounted (or configured) file system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// 1-based line (for ext4 options, the line of the first option).
    pub line: usize,
    /// Device or pseudo source (`/dev/vda`, `tmpfs`); for [`Origin::Ext4Options`]
    /// the device name under `/proc/fs/ext4/` (`vda`, `dm-0`).
    pub source: String,
    /// Mount point with escapes decoded; empty for [`Origin::Ext4Options`].
    pub target: String,
    /// File system type (`ext4`).
    pub fstype: String,
    /// Options in order (`rw`, `relatime`, `data=ordered`).
    pub options: Vec<String>,
    /// Which listing it came from.
    pub origin: Origin,
    /// Other columns by header name (`SIZE` -> `252G`; pt-summary df: `size`, `used`, `avail`, `use%`).
    pub extra: Vec<(String, String)>,
}

impl Mount {
    /// True when an option is set: `has_option("noatime")`, or by key for
    /// `key=value` options (`has_option("stripe")` for `stripe=0`).
    /// An entry for `/proc/fs/ext4/<dev>/options` (effective options, no mount point).
    fn ext4_options(line: usize, dev: &str) -> Mount {
        Mount {
            line,
            source: dev.to_string(),
            target: String::new(),
            fstype: "ext4".to_string(),
            options: Vec::new(),
            origin: Origin::Ext4Options,
            extra: Vec::new(),
        }
    }

    pub fn has_option(&self, name: &str) -> bool {
        self.options.iter().any(|o| o == name || o.split_once('=').is_some_and(|(k, _)| k == name))
    }

    /// The value of a `key=value` option (`option_value("data")` -> `ordered`).
    pub fn option_value(&self, key: &str) -> Option<&str> {
        self.options.iter().find_map(|o| o.split_once('=').filter(|(k, _)| *k == key).map(|(_, v)| v))
    }
}

/// The parsed mounts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mounts {
    /// Entries in file order.
    pub entries: Vec<Mount>,
}

impl Mounts {
    /// The last entry mounted on `target` (the one in effect when mounts stack).
    pub fn by_target(&self, target: &str) -> Option<&Mount> {
        self.entries.iter().rev().find(|m| m.target == target)
    }
}

/// Decodes the octal escapes of /proc/mounts and fstab (`\040` space, `\011`
/// tab, `\012` newline, `\134` backslash) and findmnt's `\x20`.
pub fn unescape(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            let oct = b.get(i + 1..i + 4).filter(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)));
            if let Some(d) = oct {
                let v =
                    (u32::from(d[0] - b'0') << 6) | (u32::from(d[1] - b'0') << 3) | u32::from(d[2] - b'0');
                if let Ok(v) = u8::try_from(v) {
                    out.push(v);
                    i += 4;
                    continue;
                }
            }
            if b.get(i + 1) == Some(&b'x')
                && let Some(h) = b.get(i + 2..i + 4)
                && let Ok(hs) = std::str::from_utf8(h)
                && let Ok(v) = u8::from_str_radix(hs, 16)
            {
                out.push(v);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn split_opts(s: &str) -> Vec<String> {
    s.split(',').map(str::trim).filter(|o| !o.is_empty()).map(str::to_string).collect()
}

/// `dev on /mnt type ext4 (rw,relatime)`, with pt-summary's df columns in front
/// of `on` (`/dev/sda7 333G 35G 281G 12% / on / type ext4 (...)`).
fn parse_mount_line(no: usize, t: &str) -> Option<Mount> {
    let body = t.strip_suffix(')')?;
    let open = body.rfind(" (")?;
    let opts = body.get(open + 2..)?;
    let head = body.get(..open)?;
    let (src_part, rest) = head.split_once(" on ")?;
    let (target, fstype) = rest.rsplit_once(" type ")?;
    if fstype.contains(' ') || fstype.is_empty() {
        return None;
    }
    let toks: Vec<&str> = src_part.split_whitespace().collect();
    let (source, origin, extra) = match toks.as_slice() {
        [src, size, used, avail, pct, dfmnt @ ..] if pct.ends_with('%') && !dfmnt.is_empty() => {
            let extra = [("size", *size), ("used", *used), ("avail", *avail), ("use%", *pct)]
                .iter()
                .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                .chain(std::iter::once(("df_mountpoint".to_string(), dfmnt.join(" "))))
                .collect();
            ((*src).to_string(), Origin::PtSummary, extra)
        }
        _ => (src_part.to_string(), Origin::Mount, Vec::new()),
    };
    Some(Mount {
        line: no,
        source,
        target: target.to_string(),
        fstype: fstype.to_string(),
        options: split_opts(opts),
        origin,
        extra,
    })
}

/// `id parent maj:min root mnt opts [optional...] - fstype src superopts`.
fn parse_mountinfo(no: usize, toks: &[&str]) -> Option<Mount> {
    let [id, parent, majmin, _root, mnt, opts, rest @ ..] = toks else { return None };
    let num = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (maj, min) = majmin.split_once(':')?;
    if !(num(id) && num(parent) && num(maj) && num(min)) {
        return None;
    }
    let sep = rest.iter().position(|t| *t == "-")?;
    let after = rest.get(sep + 1..)?;
    let fstype = after.first()?;
    let mut options = split_opts(opts);
    if let Some(sup) = after.get(2) {
        for o in split_opts(sup) {
            if !options.contains(&o) {
                options.push(o);
            }
        }
    }
    Some(Mount {
        line: no,
        source: unescape(after.get(1).copied().unwrap_or("")),
        target: unescape(mnt),
        fstype: (*fstype).to_string(),
        options,
        origin: Origin::MountInfo,
        extra: Vec::new(),
    })
}

/// `/proc/mounts` / fstab: `src target fstype opts [freq [passno]]`.
fn parse_fstab(no: usize, toks: &[&str]) -> Option<Mount> {
    let [src, target, fstype, opts, tail @ ..] = toks else { return None };
    if tail.len() > 2 || !tail.iter().all(|t| t.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    let fs_ok = fstype.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-+".contains(&b));
    let target_ok = target.starts_with('/') || *target == "none" || *target == "swap";
    if !fs_ok || !target_ok || opts.contains(['(', ')']) {
        return None;
    }
    Some(Mount {
        line: no,
        source: unescape(src),
        target: unescape(target),
        fstype: (*fstype).to_string(),
        options: split_opts(opts),
        origin: Origin::ProcMounts,
        extra: Vec::new(),
    })
}

/// Which field a header column feeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    Target,
    Source,
    Fstype,
    Options,
    Other,
}

fn col_of(name: &str) -> Col {
    match name {
        // (lsblk's `MOUNTPOINT` is not taken: lsblk lists no options.)
        "TARGET" | "Mountpoint" => Col::Target,
        "SOURCE" | "Filesystem" => Col::Source,
        "FSTYPE" | "Type" => Col::Fstype,
        "OPTIONS" | "VFS-OPTIONS" | "FS-OPTIONS" | "Opts" => Col::Options,
        _ => Col::Other,
    }
}

/// A findmnt / pt-summary table header: the column names and their char offsets.
#[derive(Debug, Clone)]
struct Header {
    cols: Vec<(String, Col, usize)>,
    origin: Origin,
}

fn parse_header(t: &str) -> Option<Header> {
    if !(t.contains("TARGET") || t.contains("Mountpoint")) {
        return None;
    }
    let mut cols = Vec::new();
    let mut in_tok = false;
    let mut start = 0;
    let chars: Vec<char> = t.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if c.is_whitespace() {
            if in_tok {
                let name: String = chars.get(start..i)?.iter().collect();
                cols.push((name.clone(), col_of(&name), start));
                in_tok = false;
            }
        } else if !in_tok {
            in_tok = true;
            start = i;
        }
    }
    if in_tok {
        let name: String = chars.get(start..)?.iter().collect();
        cols.push((name.clone(), col_of(&name), start));
    }
    let has = |c: Col| cols.iter().any(|(_, k, _)| *k == c);
    if !(has(Col::Target) && (has(Col::Source) || has(Col::Fstype) || has(Col::Options))) {
        return None;
    }
    let origin = if cols.iter().any(|(n, _, _)| n == "TARGET") { Origin::Findmnt } else { Origin::PtSummary };
    Some(Header { cols, origin })
}

/// True for findmnt's tree-drawing characters.
fn is_tree_char(c: char) -> bool {
    matches!(c, '├' | '└' | '│' | '─' | '|' | '`' | '-')
}

fn parse_table_row(no: usize, t: &str, h: &Header) -> Option<Mount> {
    let toks: Vec<&str> = t.split_whitespace().collect();
    let cells: Vec<String> = if toks.len() == h.cols.len() {
        toks.iter().map(|s| (*s).to_string()).collect()
    } else {
        // Cut at the header's column starts (findmnt pads every column).
        let chars: Vec<char> = t.chars().collect();
        let mut v = Vec::with_capacity(h.cols.len());
        for (i, (_, _, start)) in h.cols.iter().enumerate() {
            let end = h.cols.get(i + 1).map_or(chars.len(), |c| c.2).min(chars.len());
            let s = (*start).min(end);
            v.push(chars.get(s..end)?.iter().collect::<String>().trim().to_string());
        }
        if v.iter().filter(|c| !c.is_empty()).count() < 2 {
            return None;
        }
        v
    };
    let mut m = Mount {
        line: no,
        source: String::new(),
        target: String::new(),
        fstype: String::new(),
        options: Vec::new(),
        origin: h.origin,
        extra: Vec::new(),
    };
    for ((name, col, _), cell) in h.cols.iter().zip(cells) {
        match col {
            Col::Target => {
                let t = cell.trim_start_matches(|c: char| is_tree_char(c) || c.is_whitespace());
                m.target = unescape(t);
            }
            Col::Source => m.source = unescape(&cell),
            Col::Fstype => m.fstype = cell,
            Col::Options => {
                for o in split_opts(&cell) {
                    if !m.options.contains(&o) {
                        m.options.push(o);
                    }
                }
            }
            Col::Other => m.extra.push((name.clone(), cell)),
        }
    }
    (!m.target.is_empty()).then_some(m)
}

/// `== /proc/fs/ext4/vda/options` -> `vda`.
fn ext4_header(t: &str) -> Option<&str> {
    let p = t.strip_prefix("==")?.trim();
    let p = p.strip_suffix("==").unwrap_or(p).trim();
    ext4_dev(p)
}

/// `/proc/fs/ext4/vda/options` -> `vda`.
fn ext4_dev(p: &str) -> Option<&str> {
    let dev = p.strip_prefix("/proc/fs/ext4/")?.strip_suffix("/options")?;
    (!dev.is_empty() && !dev.contains(['/', ' '])).then_some(dev)
}

/// One ext4 option line: `dioread_nolock`, `commit=5`, `errors=continue`.
fn is_option_token(t: &str) -> bool {
    !t.is_empty()
        && !t.contains(char::is_whitespace)
        && t.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && t.bytes().all(|b| b.is_ascii_graphic())
}

/// What the line parser is inside of.
enum State {
    Plain,
    Table(Header),
    Ext4(usize),
}

impl Summary for Mounts {
    fn records(&self) -> usize {
        self.entries.len()
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        let mut kinds: Vec<&str> = Vec::new();
        for m in &self.entries {
            let k = match m.origin {
                Origin::Mount => "mount",
                Origin::ProcMounts => "proc_mounts",
                Origin::MountInfo => "mountinfo",
                Origin::Findmnt => "findmnt",
                Origin::PtSummary => "pt-summary",
                Origin::Ext4Options => "ext4_options",
            };
            if !kinds.contains(&k) {
                kinds.push(k);
            }
        }
        if !kinds.is_empty() {
            v.insert("layout", kinds.join(","));
        }
        if let Some(root) = self.by_target("/") {
            v.insert("root", format!("{} {} {}", root.source, root.fstype, root.options.join(",")));
        }
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        None
    }
}

/// The `mounts` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Mounts;
    const ID: &'static str = "mounts";
    const SAMPLE: &'static str = "/dev/sda2 on / type ext4 (rw,relatime,data=ordered)";
    const DESCRIPTION: &'static str =
        "mount, /proc/mounts, fstab, mountinfo, findmnt, /proc/fs/ext4/*/options";

    /// Yes on a first line of any known listing (a findmnt header, a `mount`
    /// line, a mountinfo line, a /proc/mounts line, an ext4 options header).
    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let mut it = Lines::new(head).filter(|l| !l.is_blank());
        let Some(first) = it.next() else { return Sniff::No };
        let text = first.clean_text();
        let t = text.trim_end();
        if ext4_header(t).is_some() {
            return Sniff::Yes;
        }
        if let Some((p, _)) = t.split_once(':')
            && ext4_dev(p).is_some()
        {
            return Sniff::Yes;
        }
        if parse_header(t).is_some() {
            return Sniff::Yes;
        }
        // A first line cut by the sniff window still counts when the next one parses.
        let toks: Vec<&str> = t.split_whitespace().collect();
        if parse_mount_line(1, t).is_some() || parse_mountinfo(1, &toks).is_some() {
            return Sniff::Yes;
        }
        if parse_fstab(1, &toks).is_some() {
            return if toks.len() == 6 { Sniff::Yes } else { Sniff::Unsure };
        }
        if t.starts_with('#') {
            // fstab comments
            return Sniff::Unsure;
        }
        Sniff::No
    }

    fn parse(input: &[u8]) -> Parsed<Mounts> {
        let mut d = Diags::default();
        let mut out = Mounts::default();
        let mut lines = 0;
        let mut state = State::Plain;
        for l in Lines::new(input) {
            lines = l.no;
            if l.is_blank() {
                continue;
            }
            let text = l.clean_text();
            let t = text.trim_end();
            // ext4: `== /proc/fs/ext4/vda/options` then one option per line.
            if let Some(dev) = ext4_header(t) {
                out.entries.push(Mount::ext4_options(l.no, dev));
                state = State::Ext4(out.entries.len() - 1);
                continue;
            }
            // `/proc/fs/ext4/vda/options:dioread_nolock` (grep -H .)
            if let Some((p, opt)) = t.split_once(':')
                && let Some(dev) = ext4_dev(p)
            {
                let opt = opt.trim();
                let idx = match out.entries.last() {
                    Some(m) if m.origin == Origin::Ext4Options && m.source == dev => out.entries.len() - 1,
                    _ => {
                        out.entries.push(Mount::ext4_options(l.no, dev));
                        out.entries.len() - 1
                    }
                };
                if let Some(m) = out.entries.get_mut(idx)
                    && !opt.is_empty()
                {
                    m.options.push(opt.to_string());
                }
                continue;
            }
            if let State::Ext4(idx) = state {
                let opt = t.trim();
                if is_option_token(opt) {
                    if let Some(m) = out.entries.get_mut(idx) {
                        m.options.push(opt.to_string());
                    }
                    continue;
                }
                state = State::Plain;
            }
            if let Some(h) = parse_header(t) {
                state = State::Table(h);
                continue;
            }
            if let State::Table(h) = &state
                && let Some(m) = parse_table_row(l.no, t, h)
            {
                out.entries.push(m);
                continue;
            }
            if t.trim_start().starts_with('#') {
                continue; // fstab comment
            }
            if let Some(m) = parse_mount_line(l.no, t) {
                out.entries.push(m);
                continue;
            }
            let toks: Vec<&str> = t.split_whitespace().collect();
            if let Some(m) = parse_mountinfo(l.no, &toks).or_else(|| parse_fstab(l.no, &toks)) {
                out.entries.push(m);
                continue;
            }
            d.skip(l.no, DiagKind::Malformed, t);
        }
        d.finish(out, lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mount_and_pt_summary_lines() {
        let m = parse_mount_line(
            1,
            "/dev/sda1 on /media/ingo/Ubuntu 22.04.3 LTS amd64 type iso9660 (ro,nosuid,nodev,relatime)",
        )
        .unwrap();
        assert_eq!(m.target, "/media/ingo/Ubuntu 22.04.3 LTS amd64");
        assert_eq!(m.fstype, "iso9660");
        assert!(m.has_option("ro"));
        let m = parse_mount_line(
            1,
            "/dev/sda7 333G 35G 281G 12% / on / type ext4 (rw,errors=remount-ro,commit=0)",
        )
        .unwrap();
        assert_eq!((m.source.as_str(), m.target.as_str(), m.origin), ("/dev/sda7", "/", Origin::PtSummary));
        assert_eq!(m.option_value("commit"), Some("0"));
    }

    #[test]
    fn fstab_escapes_and_mountinfo() {
        let p = Fmt::parse(
            b"# /etc/fstab\n/dev/sdb1 /mnt/my\\040disk xfs rw,noatime,nobarrier 0 2\n\
30 1 253:0 / / rw,relatime shared:1 - ext4 /dev/mapper/vg-lv rw,data=ordered\n",
        );
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        assert_eq!(p.value.entries[0].target, "/mnt/my disk");
        assert!(p.value.entries[0].has_option("nobarrier"));
        let root = p.value.by_target("/").unwrap();
        assert_eq!(root.options, vec!["rw", "relatime", "data=ordered"]);
    }

    #[test]
    fn findmnt_tree_and_ext4() {
        let p = Fmt::parse(
            "TARGET                 SOURCE   FSTYPE OPTIONS\n/                      /dev/vda ext4   rw,relatime\n\
│ ├─/sys/fs/cgroup       tmpfs    tmpfs  rw,mode=755\n└─/mnt                                 \n\
== /proc/fs/ext4/vda/options\nrw\ndioread_nolock\nnodelalloc\n"
                .as_bytes(),
        );
        let e = &p.value.entries;
        assert_eq!(e[1].target, "/sys/fs/cgroup");
        assert_eq!(e[1].fstype, "tmpfs");
        assert_eq!(e.last().unwrap().options, vec!["rw", "dioread_nolock", "nodelalloc"]);
        assert_eq!(e.last().unwrap().source, "vda");
        assert_eq!(p.skipped_lines, 1, "{:?}", p.diagnostics);
    }

    #[test]
    fn unescapes() {
        assert_eq!(unescape("a\\040b\\x20c\\134"), "a b c\\");
        assert_eq!(unescape("\\999\\"), "\\999\\");
    }
}
