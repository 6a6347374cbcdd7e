//! The main data device: the device holding the written file when the
//! capture says which (smaps' device numbers of the writer's shared mapping,
//! else the mount of the database's `datadir`), else the most written device that is not merely the layer below another
//! written one (a loop device's disk carries the loop's writes too); iostat -x
//! columns, else /proc/diskstats snapshots.

use super::stack::{self, Resolved};
use crate::source::Context;
use crate::table::Timeline;
use crate::table::columns::{Col, DevMetric, DsMetric};

/// The main device and the timeline column of its write bytes/s.
#[derive(Debug, Clone, PartialEq)]
pub struct MainDevice {
    /// Device name (`vda`, `nvme0n1`).
    pub name: String,
    /// Its write bytes/s column (`dev.<name>.w_bytes_s`, else `ds.<name>.w_bytes_s`).
    pub writes: Col,
    /// Why this device: `holds /data/x (smaps device 07:00)`, `most written`.
    pub why: String,
    /// The stack below it, when resolved.
    pub stack: Option<Resolved>,
}

impl MainDevice {
    /// A device chosen for its writes alone (no stack known).
    pub fn plain(name: &str, writes: Col) -> MainDevice {
        MainDevice { name: name.to_string(), writes, why: MOST_WRITTEN.into(), stack: None }
    }

    /// `loop0 (loop on physical disk vda)`, or the name.
    pub fn describe(&self) -> String {
        self.stack.as_ref().map_or_else(|| self.name.clone(), Resolved::describe)
    }
}

/// [`MainDevice::why`] of a device chosen for its bytes alone.
pub(crate) const MOST_WRITTEN: &str = "most written";

/// A written device carrying at least this share of the bytes of a device below it is
/// analysed instead of that device (the lower one's writes are mostly its own).
pub(crate) const UPPER_SHARE: f64 = 0.25;

/// The main device with its stack: the written file's device, else the most written
/// device that is not the lower layer of another device writing a good part of it.
pub(crate) fn resolve_main(tl: &Timeline, ctx: &Context) -> Option<MainDevice> {
    let with_stack = |name: &str, why: String| {
        let (writes, _) = stack::write_series(tl, name)?;
        Some(MainDevice { name: name.to_string(), writes, why, stack: Some(stack::resolve(ctx, tl, name)) })
    };
    if let Some(m) = stack::written_mapping(&ctx.mappings)
        && let Some((dev, how)) = stack::mapping_device(ctx, &m.value)
        && let Some(dev) = stack::written_device(ctx, tl, &dev)
    {
        return with_stack(&dev, format!("holds {}, the writer's shared mapping ({how})", m.value.path));
    }
    // The database's data directory (`datadir`): the device its engine writes.
    if let Some(dir) = ctx.variable("datadir")
        && let Some(dev) = stack::path_device(ctx, dir.value.trim())
        && let Some(dev) = stack::written_device(ctx, tl, &dev)
    {
        return with_stack(&dev, format!("holds the database's datadir {}", dir.value.trim()));
    }
    let plain = main_device(tl)?;
    // A stacked device written through the most written one takes its place when it
    // carries a good part of its bytes.
    let lower_total = stack::total_written(tl, &plain.name);
    let upper = stack::devices(tl)
        .into_iter()
        .filter(|d| *d != plain.name && stack::kind(ctx, d).is_stacked())
        .map(|d| (stack::total_written(tl, &d), d))
        .filter(|(t, _)| *t >= UPPER_SHARE * lower_total)
        .filter(|(_, d)| stack::resolve(ctx, tl, d).physical.contains(&plain.name))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match upper {
        Some((t, d)) => with_stack(
            &d,
            format!(
                "written through {} ({:.0} % of its bytes), the device the file system is on",
                plain.name,
                100.0 * t / lower_total.max(1.0)
            ),
        ),
        None => with_stack(&plain.name, plain.why),
    }
}

/// The device stacked on `main` (a loop device on its disk, a dm or md device over it) whose
/// writes carry a period (whatever it matches), with their periodicity: used when `main` was chosen for
/// its bytes alone (`most written`: no written file or datadir names the device) and its own
/// writes, the stacked device's mixed with every other writer of the disk, show none.
/// However little the stacked device writes beside the disk's other tenants, its bursts are
/// read against its own scale ([`stacked_burst_floor`]): a file system set up on its own
/// device is the workload's, and its journal's commits of a few hundred kB are its bursts.
pub(crate) fn stacked_periodic(
    tl: &Timeline,
    ctx: &Context,
    main: &MainDevice,
    window: super::writeback::WritebackWindow,
) -> Option<(MainDevice, super::periodicity::PeriodicityView)> {
    if main.why != MOST_WRITTEN {
        return None;
    }
    stack::devices(tl)
        .into_iter()
        .filter(|d| *d != main.name && stack::kind(ctx, d).is_stacked())
        .filter_map(|d| {
            let r = stack::resolve(ctx, tl, &d);
            if !r.physical.contains(&main.name) {
                return None;
            }
            let (writes, _) = stack::write_series(tl, &d)?;
            let tunables = super::writeback::Tunables::for_device(window, &ctx.mounts, &d);
            let floor = stacked_burst_floor(tl.get(&writes).unwrap_or(&[]));
            let view = super::periodicity::periodicity_over(tl, &writes, &tunables, floor);
            // Any period, not only the writeback window's: an application's timer on the
            // stacked device is hidden in the disk's mixed writes just the same.
            view.is_periodic().then(|| {
                let why = format!("stacked on {} (the most written device), its writes periodic", main.name);
                (MainDevice { name: d.clone(), writes, why, stack: Some(r) }, view)
            })
        })
        .max_by(|a, b| a.1.confidence.unwrap_or(0.0).total_cmp(&b.1.confidence.unwrap_or(0.0)))
}

/// The smallest second a burst of a stacked device writes: [`STACKED_FLOOR_MEANS`] times its
/// mean rate over the capture, within [`STACKED_FLOOR_MIN`] and the main device's
/// [`super::periodicity::MIN_BURST_BYTES_S`].
pub(crate) fn stacked_burst_floor(series: &[crate::table::Cell]) -> f64 {
    let mean = super::stats::mean(&super::stats::present(series)).unwrap_or(0.0);
    (STACKED_FLOOR_MEANS * mean).clamp(STACKED_FLOOR_MIN, super::periodicity::MIN_BURST_BYTES_S)
}

/// See [`stacked_burst_floor`].
pub(crate) const STACKED_FLOOR_MEANS: f64 = 2.0;
/// See [`stacked_burst_floor`]: 64 KiB, below which a second is a trickle.
pub(crate) const STACKED_FLOOR_MIN: f64 = 64.0 * 1024.0;

/// The most written device: iostat's columns first, /proc/diskstats' when iostat has none.
pub(crate) fn main_device(tl: &Timeline) -> Option<MainDevice> {
    let best = |want: fn(&Col) -> bool| {
        tl.iter()
            .filter(|(c, _)| want(c))
            .map(|(c, s)| (c, s.values.iter().flatten().sum::<f64>()))
            .filter(|(_, t)| *t > 0.0)
            .max_by(|a, b| a.1.total_cmp(&b.1))
    };
    let (writes, _) = best(|c| matches!(c, Col::Dev(_, DevMetric::WBytesS)))
        .or_else(|| best(|c| matches!(c, Col::Ds(_, DsMetric::WBytesS))))?;
    Some(MainDevice::plain(&writes.entity()?, writes.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tl(cols: &[(&str, &[f64])]) -> Timeline {
        let mut t = Timeline::new(0.0, 3.0);
        for (name, vals) in cols {
            for (i, v) in vals.iter().enumerate() {
                t.set_gauge(&Col::parse(name).expect("a column"), "test", i as f64, *v);
            }
        }
        t
    }

    #[test]
    fn most_written_iostat_device_wins_over_diskstats() {
        let t = tl(&[
            ("dev.vda.w_bytes_s", &[1.0, 2.0]),
            ("dev.vdb.w_bytes_s", &[5.0]),
            ("ds.vdc.w_bytes_s", &[9.0]),
        ]);
        let d = main_device(&t).unwrap();
        assert_eq!((d.name.as_str(), d.writes.name()), ("vdb", "dev.vdb.w_bytes_s".to_string()));
        let t = tl(&[("dev.vda.w_bytes_s", &[0.0]), ("ds.vdc.w_bytes_s", &[9.0])]);
        assert_eq!(main_device(&t).unwrap().writes.name(), "ds.vdc.w_bytes_s");
        assert_eq!(main_device(&tl(&[("dev.vda.w_bytes_s", &[0.0])])), None);
    }
}
