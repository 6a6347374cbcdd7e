//! Context files of the host: `uname -r`, mounts, sysctl, block-queue
//! attributes in sysfs, smaps, a collector's clock reference, and the
//! `system-info.txt`-like files whose sections hold any of them.

use super::{Adapter, Context, Sourced};

/// `uname -a` / `-r`.
pub(super) struct Uname<'d>(pub &'d iosift_parsers::uname::Uname);
/// `/proc/mounts`, `mount`.
pub(super) struct Mounts<'d>(pub &'d iosift_parsers::mounts::Mounts);
/// `sysctl -a`.
pub(super) struct Sysctl<'d>(pub &'d iosift_parsers::sysctl::Sysctl);
/// `/sys/block/*/queue/*`.
pub(super) struct Sysfs<'d>(pub &'d iosift_parsers::sysfs::Sysfs);
/// `/proc/PID/smaps`.
pub(super) struct Smaps<'d>(pub &'d iosift_parsers::smaps::Smaps);
/// A file of sections, each parsed as its own format.
pub(super) struct Sections<'d>(pub &'d iosift_parsers::sections::Sections);
/// epoch - CLOCK_MONOTONIC readings of a collector.
pub(super) struct ClockRef<'d>(pub &'d iosift_parsers::clock_reference::ClockReference);
/// The kernel log (`dmesg`, pt-stalk `-dmesg`).
pub(super) struct Dmesg<'d>(pub &'d iosift_parsers::dmesg::Dmesg);

impl<'d> Adapter<'d> for Dmesg<'d> {
    fn context(&self, file: &str, ctx: &mut Context) {
        ctx.kernel_log_files.push(file.to_string());
        for e in &self.0.events {
            ctx.kernel_log.push(Sourced { value: e.clone(), file: file.to_string(), line: e.line });
        }
    }
}

fn sourced(v: String, file: &str, line: usize) -> Sourced<String> {
    Sourced { value: v, file: file.to_string(), line }
}

impl<'d> Adapter<'d> for Uname<'d> {
    fn host(&self) -> Option<String> {
        self.0.hostname.clone()
    }
    fn context(&self, file: &str, ctx: &mut Context) {
        let u = self.0;
        if ctx.kernel.is_none() && !u.release.is_empty() {
            ctx.kernel = Some(sourced(u.release.clone(), file, u.line));
        }
    }
}

impl<'d> Adapter<'d> for Mounts<'d> {
    fn context(&self, file: &str, ctx: &mut Context) {
        for e in &self.0.entries {
            ctx.mounts.push(Sourced { value: e.clone(), file: file.to_string(), line: e.line });
        }
    }
}

impl<'d> Adapter<'d> for Sysctl<'d> {
    fn context(&self, file: &str, ctx: &mut Context) {
        for (line, k, v) in &self.0.entries {
            ctx.sysctl.entry(k.clone()).or_insert_with(|| sourced(v.clone(), file, *line));
        }
    }
}

impl<'d> Adapter<'d> for Sysfs<'d> {
    fn context(&self, file: &str, ctx: &mut Context) {
        for e in &self.0.entries {
            // `/sys/kernel/mm/transparent_hugepage/enabled:always [madvise] never`
            if let Some((_, rest)) = e.path.split_once("transparent_hugepage/") {
                ctx.thp
                    .entry(rest.to_string())
                    .or_insert_with(|| sourced(e.value.trim().to_string(), file, e.line));
            }
            if let Some(dev) = &e.device {
                ctx.sysfs
                    .entry((dev.clone(), e.attr.clone()))
                    .or_insert_with(|| sourced(e.value.clone(), file, e.line));
            }
        }
    }
}

impl<'d> Adapter<'d> for Smaps<'d> {
    fn context(&self, file: &str, ctx: &mut Context) {
        for m in &self.0.mappings {
            ctx.mappings.push(Sourced { value: m.clone(), file: file.to_string(), line: m.line });
        }
    }
}

impl<'d> Adapter<'d> for Sections<'d> {
    /// The host its `uname` section names.
    fn host(&self) -> Option<String> {
        self.0.find("uname").find_map(|d| super::of(d).host())
    }
    /// Each section's own adapter adds its context (a section is never a sections file again).
    fn context(&self, file: &str, ctx: &mut Context) {
        for sec in &self.0.sections {
            if let Some(inner) = &sec.data {
                super::of(inner).context(file, ctx);
            }
        }
    }
}

impl<'d> Adapter<'d> for ClockRef<'d> {
    fn clock_reference(&self) -> Option<&'d iosift_parsers::clock_reference::ClockReference> {
        Some(self.0)
    }
}
