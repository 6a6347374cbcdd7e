//! `df`: `df -k` / `df -h` / `df -P` file-system usage, one snapshot or
//! pt-stalk `TS`-framed (`-df`).
//!
//! Real sample (`samples/pt_stalk_mariadb/capture/2026_12_01_19_14_22-df`, coreutils 9.1):
//!
//! ```text
//! TS 1796152464.035508605 2026-12-01 19:14:24
//! Filesystem              1K-blocks     Used Available Use% Mounted on
//! /dev/vda                264212084 21612584  73673304  23% /
//! ```
//!
//! A long file-system name may push the numbers to the next line (`df`
//! without `-P`): such a pair of lines is read as one row.

use crate::common::number::parse_human;
use crate::common::scrub::Identifiers;
use crate::common::{DiagKind, Diags, Format, Parsed, Sniff, Stamp, Summary, Variant};
use crate::procfs::tsblocks;

/// One file system.
#[derive(Debug, Clone, PartialEq)]
pub struct FsRow {
    /// 1-based line.
    pub line: usize,
    /// Device or source (`/dev/vda`, `tmpfs`).
    pub source: String,
    /// Size in kB (`-k`), or bytes read from `-h` suffixes / 1024.
    pub size_kb: Option<f64>,
    /// Used, same unit.
    pub used_kb: Option<f64>,
    /// Available, same unit.
    pub avail_kb: Option<f64>,
    /// `Use%`.
    pub use_pct: Option<f64>,
    /// Mount point.
    pub mount: String,
}

/// One snapshot.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Snapshot {
    /// Its `TS` epoch, when framed.
    pub epoch: Option<f64>,
    /// File systems.
    pub rows: Vec<FsRow>,
}

/// A parsed `df` file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Df {
    /// Snapshots in file order.
    pub snapshots: Vec<Snapshot>,
}

impl Summary for Df {
    fn records(&self) -> usize {
        self.snapshots.len()
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        if let Some(s) = self.snapshots.last() {
            let real: Vec<String> = s
                .rows
                .iter()
                .filter(|r| r.source.starts_with('/'))
                .map(|r| format!("{} on {} {}%", r.source, r.mount, r.use_pct.unwrap_or(0.0)))
                .collect();
            v.insert("filesystems", real.join(", "));
        }
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        crate::procfs::tsblocks::epoch_range(self.snapshots.iter().map(|s| s.epoch))
    }
}

fn is_header(t: &str) -> bool {
    t.starts_with("Filesystem") && (t.contains("Mounted on") || t.contains("Use%") || t.contains("Capacity"))
}

/// The `df` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Df;
    const ID: &'static str = "df";
    const SAMPLE: &'static str = "/dev/vda                264212084 21612584  73673304  23% /";
    const DESCRIPTION: &'static str = "df -k / -h / -P file-system usage, pt-stalk -df";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        if tsblocks::first_data_line(head).is_some_and(|l| is_header(&l)) { Sniff::Yes } else { Sniff::No }
    }

    fn parse(input: &[u8]) -> Parsed<Df> {
        let mut d = Diags::default();
        let blocks = tsblocks::split(input, &mut d);
        let mut out = Df::default();
        for b in blocks {
            let mut s = Snapshot { epoch: b.ts.map(|t| t.epoch), ..Default::default() };
            let mut carry: Option<(usize, String)> = None;
            for l in b.lines {
                if l.is_blank() {
                    continue;
                }
                let text = l.text();
                let t = text.trim_end();
                if is_header(t) {
                    continue;
                }
                let mut f: Vec<String> = t.split_whitespace().map(str::to_string).collect();
                let mut line = l.no;
                if f.len() == 1 {
                    carry = Some((l.no, f.remove(0)));
                    continue;
                }
                if let Some((no, src)) = carry.take() {
                    f.insert(0, src);
                    line = no;
                }
                if f.len() < 6 {
                    d.skip(l.no, DiagKind::FieldCount, t);
                    continue;
                }
                // `23%` (or `-` for a pseudo file system without blocks).
                let pct = f[4].strip_suffix('%').and_then(|x| x.parse::<f64>().ok());
                if pct.is_none() && f[4] != "-" {
                    d.skip(l.no, DiagKind::BadNumber, t);
                    continue;
                }
                let kb = |x: &str| parse_human(x);
                s.rows.push(FsRow {
                    line,
                    source: f[0].clone(),
                    size_kb: kb(&f[1]),
                    used_kb: kb(&f[2]),
                    avail_kb: kb(&f[3]),
                    use_pct: pct,
                    mount: f[5..].join(" "),
                });
            }
            if let Some((no, src)) = carry {
                d.skip(no, DiagKind::Truncated, src);
            }
            if !s.rows.is_empty() {
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
    fn rows_and_wrapped_names() {
        let t = "TS 1796152464.0 2026-12-01 19:14:24\nFilesystem              1K-blocks     Used Available Use% Mounted on\n\
/dev/vda                264212084 21612584  73673304  23% /\n/dev/mapper/very-long-volume-name\n  1000 500 500 50% /var/lib/my sql\n";
        assert_eq!(Fmt::sniff(t.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(t.as_bytes());
        assert_eq!(p.skipped_lines, 0, "{:?}", p.diagnostics);
        let r = &p.value.snapshots[0].rows;
        assert_eq!((r[0].use_pct, r[0].mount.as_str()), (Some(23.0), "/"));
        assert_eq!(
            (r[1].source.as_str(), r[1].mount.as_str(), r[1].line),
            ("/dev/mapper/very-long-volume-name", "/var/lib/my sql", 4)
        );
    }
}
