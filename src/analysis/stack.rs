//! The block stack: which device holds a file, and what that device is built
//! on, down to the physical disks. A loop device writes its backing file on
//! the device below; device-mapper and md devices write their slaves; a
//! partition is part of its disk.
//!
//! What each step rests on is kept ([`Basis`]): the capture's own records
//! (`/sys/block/*/slaves/*/dev`, `/sys/block/*/loop/backing_file`, a
//! partition's `/sys/block/vda/vda1/dev`, recorded by `samples/collect.sh` in
//! `sys-block-stack.txt`), or, when they are missing, the device below whose
//! writes carry the upper device's second by second.

use crate::table::Cell;

use super::stats;
use crate::source::{Context, Sourced};
use crate::table::Timeline;
use crate::table::columns::{Col, DevMetric, DsMetric};
use iosift_parsers::mounts::Mount;
use iosift_parsers::smaps::Mapping;

/// What kind of block device a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A whole disk (`vda`, `sda`, `nvme0n1`).
    Disk,
    /// A partition of a disk (`vda1`, `nvme0n1p2`).
    Partition,
    /// A loop device (`loop0`): writes go to its backing file.
    Loop,
    /// A device-mapper device (`dm-0`: LVM, dm-crypt, ...).
    DeviceMapper,
    /// An md RAID device (`md0`).
    Md,
    /// A memory-backed device (`zram0`, `ram0`): no disk below.
    Memory,
}

impl Kind {
    /// Lower-case name for findings (`loop`, `device-mapper`).
    pub fn label(self) -> &'static str {
        match self {
            Kind::Disk => "disk",
            Kind::Partition => "partition",
            Kind::Loop => "loop",
            Kind::DeviceMapper => "device-mapper",
            Kind::Md => "md",
            Kind::Memory => "memory",
        }
    }

    /// Is it stacked on other block devices?
    pub fn is_stacked(self) -> bool {
        matches!(self, Kind::Partition | Kind::Loop | Kind::DeviceMapper | Kind::Md)
    }
}

/// How a step down the stack is known.
#[derive(Debug, Clone, PartialEq)]
pub enum Basis {
    /// Recorded by the capture (sysfs slaves, partition, loop backing file and its mount).
    Recorded(String),
    /// Inferred: the lower device's writes carry this share of the upper one's, second by second.
    Inferred(f64),
    /// Nothing in the capture tells.
    Unknown,
}

/// A device and the stack below it.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The device (`loop0`).
    pub device: String,
    /// Its kind.
    pub kind: Kind,
    /// The physical disks at the bottom (`vda`); empty when not known.
    pub physical: Vec<String>,
    /// How the way down is known (the weakest step).
    pub basis: Basis,
    /// The stack in words: `loop0 (loop, backing file /var/tmp/x.img) -> vda`.
    pub chain: String,
}

impl Resolved {
    /// `loop0 (physical disk vda, inferred from write correlation)`, or just `vda`.
    pub fn describe(&self) -> String {
        if !self.kind.is_stacked() {
            return self.device.clone();
        }
        match (&self.basis, self.physical.as_slice()) {
            (_, []) => format!("{} ({}, the device below not recorded)", self.device, self.kind.label()),
            (Basis::Inferred(share), p) => format!(
                "{} ({} on physical disk {}: inferred, {} carries {:.0} % of its writes second by second)",
                self.device,
                self.kind.label(),
                p.join(", "),
                p.join(", "),
                share * 100.0
            ),
            (_, p) => format!("{} ({} on physical disk {})", self.device, self.kind.label(), p.join(", ")),
        }
    }
}

/// The kind of a device, from the capture's records and its name.
pub(crate) fn kind(ctx: &Context, name: &str) -> Kind {
    let digits_after = |p: &str| {
        name.strip_prefix(p).is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
    };
    if digits_after("loop") {
        Kind::Loop
    } else if digits_after("dm-") {
        Kind::DeviceMapper
    } else if digits_after("md") {
        Kind::Md
    } else if digits_after("zram") || digits_after("ram") {
        Kind::Memory
    } else if parent_disk(ctx, name).is_some() {
        Kind::Partition
    } else {
        Kind::Disk
    }
}

/// The disk a partition belongs to: recorded (`/sys/block/vda/vda1/dev`), else the
/// name without its partition number when that disk is known (`vda1` -> `vda`,
/// `nvme0n1p2` -> `nvme0n1`).
fn parent_disk(ctx: &Context, name: &str) -> Option<String> {
    let key = format!("partition/{name}");
    if let Some(((disk, _), _)) = ctx.sysfs.iter().find(|((_, a), _)| *a == key) {
        return Some(disk.clone());
    }
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
    if stem.len() == name.len() || stem.is_empty() {
        return None;
    }
    let stem = if stem.ends_with('p') && stem[..stem.len() - 1].ends_with(|c: char| c.is_ascii_digit()) {
        &stem[..stem.len() - 1]
    } else {
        stem
    };
    let known = |d: &str| ctx.block_majmin.contains_key(d) || ctx.sysfs.keys().any(|(dev, _)| dev == d);
    (known(stem) && stem != name && !stem.ends_with("loop")).then(|| stem.to_string())
}

/// The device with these numbers: smaps' `07:00` (hex) or sysfs' `7:0` (decimal).
pub(crate) fn by_numbers(ctx: &Context, hex: &str) -> Option<String> {
    let (a, b) = hex.split_once(':')?;
    let (maj, min) = (u32::from_str_radix(a, 16).ok()?, u32::from_str_radix(b, 16).ok()?);
    ctx.block_majmin.iter().find(|(_, v)| v.value == (maj, min)).map(|(k, _)| k.clone())
}

/// The device a mount's source names (`/dev/loop0` -> `loop0`).
fn mount_device(m: &Mount) -> Option<String> {
    let d = m.source.strip_prefix("/dev/")?;
    (!d.contains('/')).then(|| d.to_string())
}

/// The mount holding `path` (longest target prefix).
pub(crate) fn mount_of<'a>(mounts: &'a [Sourced<Mount>], path: &str) -> Option<&'a Sourced<Mount>> {
    mounts
        .iter()
        .filter(|m| !m.value.target.is_empty() && path.starts_with(&m.value.target))
        .max_by_key(|m| m.value.target.len())
}

/// The devices right below `name`, as recorded, with the words that say how.
fn recorded_lower(ctx: &Context, name: &str, k: Kind) -> Option<(Vec<String>, String)> {
    match k {
        Kind::Partition => parent_disk(ctx, name).map(|d| (vec![d], "partition".to_string())),
        Kind::Loop => {
            let f = ctx.sysfs.get(&(name.to_string(), "backing_file".to_string()))?;
            let m = mount_of(&ctx.mounts, f.value.trim())?;
            let d = mount_device(&m.value)?;
            Some((vec![d], format!("backing file {}", f.value.trim())))
        }
        Kind::DeviceMapper | Kind::Md => {
            let slaves: Vec<String> = ctx
                .sysfs
                .keys()
                .filter(|(d, _)| d == name)
                .filter_map(|(_, a)| a.strip_prefix("slaves/").map(String::from))
                .collect();
            (!slaves.is_empty()).then(|| (slaves, "slaves".to_string()))
        }
        Kind::Disk | Kind::Memory => None,
    }
}

/// The per-second write bytes of a device (iostat's column, else diskstats').
pub(crate) fn write_series<'t>(tl: &'t Timeline, name: &str) -> Option<(Col, &'t [Cell])> {
    [Col::Dev(name.to_string(), DevMetric::WBytesS), Col::Ds(name.to_string(), DsMetric::WBytesS)]
        .into_iter()
        .find_map(|c| tl.get(&c).map(|s| (c, s)))
}

/// The share of `upper`'s written bytes that `lower` also wrote within a second of
/// them (0..1): a device below another writes what the upper one writes.
pub(crate) fn coverage(upper: &[Cell], lower: &[Cell]) -> Option<f64> {
    let (mut total, mut carried) = (0.0, 0.0);
    for (i, u) in upper.iter().enumerate() {
        let Some(u) = u.get().filter(|u| *u > 0.0) else { continue };
        let near = (i.saturating_sub(1)..=(i + 1).min(lower.len().saturating_sub(1)))
            .filter_map(|j| lower.get(j).and_then(Cell::get))
            .fold(0.0, f64::max);
        total += u;
        carried += u.min(near);
    }
    (total > 0.0).then(|| carried / total)
}

/// A lower device whose writes carry at least this share of the upper one's counts.
pub(crate) const CARRIES: f64 = 0.8;

/// The device below `name` inferred from the writes: the disk (not loop, not memory)
/// that carries the most of its writes, at least [`CARRIES`].
fn inferred_lower(ctx: &Context, tl: &Timeline, name: &str) -> Option<(String, f64)> {
    let (_, up) = write_series(tl, name)?;
    let mut best: Option<(String, f64)> = None;
    for other in devices(tl) {
        if other == name || matches!(kind(ctx, &other), Kind::Loop | Kind::Memory) {
            continue;
        }
        let Some((_, low)) = write_series(tl, &other) else { continue };
        if let Some(c) = coverage(up, low)
            && c >= CARRIES
            && best.as_ref().is_none_or(|b| c > b.1)
        {
            best = Some((other, c));
        }
    }
    best
}

/// Every device with a write column, in name order.
pub(crate) fn devices(tl: &Timeline) -> Vec<String> {
    let mut v: Vec<String> = tl
        .iter()
        .filter(|(c, _)| matches!(c, Col::Dev(_, DevMetric::WBytesS) | Col::Ds(_, DsMetric::WBytesS)))
        .filter_map(|(c, _)| c.entity())
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Resolves `name` down to the physical disks.
pub(crate) fn resolve(ctx: &Context, tl: &Timeline, name: &str) -> Resolved {
    let k = kind(ctx, name);
    let mut chain = vec![name.to_string()];
    let mut basis = Basis::Recorded(String::new());
    let mut frontier = vec![name.to_string()];
    let mut physical: Vec<String> = Vec::new();
    let mut seen = 0;
    while let Some(d) = frontier.pop() {
        seen += 1;
        if seen > 32 {
            break;
        }
        let dk = kind(ctx, &d);
        if !dk.is_stacked() {
            let bottom = dk != Kind::Memory && !physical.contains(&d) && (d != name || dk == Kind::Disk);
            if bottom {
                physical.push(d);
            }
            continue;
        }
        let lower = match recorded_lower(ctx, &d, dk) {
            Some((l, how)) => {
                chain.push(format!("{d} ({}, {how})", dk.label()));
                Some(l)
            }
            None => match inferred_lower(ctx, tl, &d) {
                Some((l, share)) => {
                    if !matches!(basis, Basis::Unknown) {
                        basis = Basis::Inferred(share);
                    }
                    chain.push(format!("{d} ({}, inferred from writes)", dk.label()));
                    Some(vec![l])
                }
                None => {
                    basis = Basis::Unknown;
                    chain.push(format!("{d} ({}, below not recorded)", dk.label()));
                    None
                }
            },
        };
        frontier.extend(lower.into_iter().flatten());
    }
    chain.remove(0);
    let mut words = if chain.is_empty() { name.to_string() } else { chain.join(" -> ") };
    if !physical.is_empty() && k.is_stacked() {
        words.push_str(&format!(" -> {}", physical.join(", ")));
    }
    Resolved { device: name.to_string(), kind: k, physical, basis, chain: words }
}

/// The shared file mapping written through: the writable `MAP_SHARED` file mapping
/// (`rw-s`) with the most dirty pages (and, on a tie, the most resident ones). A private
/// mapping (`rw-p`, a library's data) is never written back to its file.
pub(crate) fn written_mapping(mappings: &[Sourced<Mapping>]) -> Option<&Sourced<Mapping>> {
    mappings.iter().filter(|m| m.value.is_file() && is_shared_writable(&m.value.perms)).max_by_key(|m| {
        m.value.get("Shared_Dirty").unwrap_or(0)
            + m.value.get("Private_Dirty").unwrap_or(0)
            + m.value.get("Rss").unwrap_or(0) / 64
    })
}

/// `rw-s`: writable and shared.
pub(crate) fn is_shared_writable(perms: &str) -> bool {
    let p = perms.as_bytes();
    p.get(1) == Some(&b'w') && p.get(3) == Some(&b's')
}

/// The device holding the written mapping's file: by the mapping's device numbers,
/// else by the mount of its path.
pub(crate) fn mapping_device(ctx: &Context, m: &Mapping) -> Option<(String, String)> {
    if let Some(d) = by_numbers(ctx, &m.dev) {
        return Some((d, format!("smaps device {}", m.dev)));
    }
    let mount = mount_of(&ctx.mounts, &m.path)?;
    mount_device(&mount.value).map(|d| (d, format!("mount {}", mount.value.target)))
}

/// The device of the mount holding `path` (`/var/lib/mysql` on `/dev/vda1` -> `vda1`).
pub(crate) fn path_device(ctx: &Context, path: &str) -> Option<String> {
    mount_device(&mount_of(&ctx.mounts, path)?.value)
}

/// `name` when the capture has its writes, else the disk it is a partition of when
/// that has them (iostat -x lists whole disks unless `-p` is given).
pub(crate) fn written_device(ctx: &Context, tl: &Timeline, name: &str) -> Option<String> {
    if total_written(tl, name) > 0.0 {
        return Some(name.to_string());
    }
    parent_disk(ctx, name).filter(|d| total_written(tl, d) > 0.0)
}

/// Total bytes written by a device over the capture.
pub(crate) fn total_written(tl: &Timeline, name: &str) -> f64 {
    write_series(tl, name).map_or(0.0, |(_, s)| stats::present(s).iter().sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tl(cols: &[(&str, &[f64])]) -> Timeline {
        let mut t = Timeline::new(0.0, 9.0);
        for (name, vals) in cols {
            for (i, v) in vals.iter().enumerate() {
                t.set_gauge(&Col::parse(name).expect("a column"), "test", i as f64, *v);
            }
        }
        t
    }

    fn ctx_with(
        majmin: &[(&str, (u32, u32))],
        sysfs: &[(&str, &str, &str)],
        mounts: &[(&str, &str)],
    ) -> Context {
        let mut c = Context::default();
        fn src<T>(value: T) -> Sourced<T> {
            Sourced { value, file: "f".into(), line: 1 }
        }
        for (n, mm) in majmin {
            c.block_majmin.insert(n.to_string(), src(*mm));
        }
        for (d, a, v) in sysfs {
            c.sysfs.insert((d.to_string(), a.to_string()), src(v.to_string()));
        }
        for (target, source) in mounts {
            c.mounts.push(src(Mount {
                line: 1,
                source: source.to_string(),
                target: target.to_string(),
                fstype: "ext4".into(),
                options: vec!["rw".into()],
                origin: iosift_parsers::mounts::Origin::Mount,
                extra: Vec::new(),
            }));
        }
        c
    }

    #[test]
    fn kinds_from_names_and_records() {
        let c =
            ctx_with(&[("vda", (254, 0)), ("nvme0n1", (259, 0))], &[("sda", "partition/sda3", "8:3")], &[]);
        assert_eq!(kind(&c, "loop0"), Kind::Loop);
        assert_eq!(kind(&c, "dm-3"), Kind::DeviceMapper);
        assert_eq!(kind(&c, "md127"), Kind::Md);
        assert_eq!(kind(&c, "zram0"), Kind::Memory);
        assert_eq!(kind(&c, "vda1"), Kind::Partition);
        assert_eq!(kind(&c, "nvme0n1p2"), Kind::Partition);
        assert_eq!(kind(&c, "sda3"), Kind::Partition);
        assert_eq!(kind(&c, "vda"), Kind::Disk);
        // A disk whose name ends in a digit is no partition when no shorter disk is known.
        assert_eq!(kind(&c, "nvme0n1"), Kind::Disk);
    }

    #[test]
    fn recorded_stack_goes_down_to_the_disk() {
        // loop0's backing file on / (vda1, a partition of vda); dm-0 on vdb and vdc.
        let c = ctx_with(
            &[("vda", (254, 0)), ("vda1", (254, 1)), ("loop0", (7, 0))],
            &[
                ("loop0", "backing_file", "/var/tmp/loop.img"),
                ("vda", "partition/vda1", "254:1"),
                ("dm-0", "slaves/vdb", "254:16"),
                ("dm-0", "slaves/vdc", "254:32"),
            ],
            &[("/", "/dev/vda1"), ("/mnt", "/dev/loop0")],
        );
        let t = tl(&[]);
        let r = resolve(&c, &t, "loop0");
        assert_eq!(r.physical, vec!["vda".to_string()]);
        assert_eq!(r.basis, Basis::Recorded(String::new()));
        assert_eq!(
            r.chain,
            "loop0 (loop, backing file /var/tmp/loop.img) -> vda1 (partition, partition) -> vda"
        );
        let mut p = resolve(&c, &t, "dm-0").physical;
        p.sort();
        assert_eq!(p, vec!["vdb".to_string(), "vdc".to_string()]);
        assert_eq!(resolve(&c, &t, "vda").physical, vec!["vda".to_string()]);
        assert_eq!(by_numbers(&c, "07:00").as_deref(), Some("loop0"));
        assert_eq!(by_numbers(&c, "fe:01").as_deref(), Some("vda1"));
    }

    #[test]
    fn unrecorded_loop_is_placed_by_its_writes() {
        let c = ctx_with(&[("vda", (254, 0)), ("loop0", (7, 0)), ("zram0", (253, 0))], &[], &[]);
        // vda carries loop0's writes (a second late once) plus its own; zram0 does not.
        let t = tl(&[
            ("ds.loop0.w_bytes_s", &[0.0, 100.0, 0.0, 0.0, 50.0, 0.0]),
            ("ds.vda.w_bytes_s", &[5.0, 5.0, 110.0, 5.0, 60.0, 5.0]),
            ("ds.zram0.w_bytes_s", &[0.0, 100.0, 0.0, 0.0, 50.0, 0.0]),
        ]);
        let r = resolve(&c, &t, "loop0");
        assert_eq!(r.physical, vec!["vda".to_string()]);
        assert_eq!(r.basis, Basis::Inferred(1.0));
        assert!(r.describe().contains("inferred"), "{}", r.describe());
        // Without a carrying disk the physical disk stays unknown.
        let t = tl(&[("ds.loop0.w_bytes_s", &[0.0, 100.0]), ("ds.vda.w_bytes_s", &[1.0, 1.0])]);
        let r = resolve(&c, &t, "loop0");
        assert!(r.physical.is_empty());
        assert_eq!(r.basis, Basis::Unknown);
        assert_eq!(coverage(&[Cell::some(10.0)], &[Cell::some(4.0)]), Some(0.4));
    }
}
