//! Interval tools without a stated interval: `vmstat` (`vmstat.*`) and
//! `dstat`/`dool` disk columns (`dstat.dsk/*`). The cadence of the file's
//! own samples gives each rate its interval.

use super::{Adapter, Sink, Visit, stamp_epoch};
use crate::clock::{self, Anchoring, ZoneEvidence};
use crate::table::Col;
use crate::table::columns::{DstatDir, VmstatField};
use iosift_parsers::Stamp;

/// A vmstat file.
pub(super) struct Vmstat<'d>(pub &'d iosift_parsers::vmstat::Vmstat);

impl<'d> Adapter<'d> for Vmstat<'d> {
    fn zone_evidence(&self, file: &str, ev: &mut ZoneEvidence) {
        let v = self.0;
        if let Some(z) = &v.timezone {
            ev.note_name(z, &format!("vmstat -t header of {file}"));
            ev.vmstat_zones.push(z.clone());
        }
        for z in v.run_dates.iter().take(3).filter_map(|(_, d)| d.zone.as_ref()) {
            ev.note_name(z, &format!("date line of {file}"));
            ev.date_line_zones.push(z.clone());
        }
    }

    fn own_zone(&self) -> Option<(i32, String)> {
        let z = self.0.timezone.as_deref()?;
        clock::zone_abbreviation_offset(z).map(|o| (o, z.trim().to_string()))
    }

    fn visit(&self, vis: &mut Visit<'_>, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        let v = self.0;
        let zone = vis.zone;
        let mut anchoring = None;
        let mut run_first = 0;
        let mut run_len = 0usize;
        // Where each field is in a row's layout, found once per layout (rows share a few
        // static name lists).
        let mut layout: (&[&str], Vec<Option<usize>>) = (&[], Vec::new());
        // `-t` stamps in order (the repeated hour of a DST change in the series' order).
        let mut series = clock::DayRoller::default();
        // Each row binned as it comes (read again from disk when none were kept: `super::replay`).
        super::replay::each_vmstat_row(vis.file, v, |k, row| {
            if row.since_boot {
                run_first = k;
            }
            // `Wed Aug 28 16:02:01 IST 2019` before this run (cron `date; vmstat 1 7`).
            let dated = v.run_dates.iter().find(|(first, _)| *first == run_first).map(|(_, d)| {
                let off = d.zone.as_deref().and_then(clock::zone_abbreviation_offset);
                let base = match off {
                    Some(o) => d.local.and_utc().timestamp() as f64 - f64::from(o),
                    None => zone.local_to_epoch(d.local),
                };
                (base + (k - run_first) as f64, Anchoring::DateLineRun)
            });
            let timed = row.stamp.as_ref().and_then(|s| stamp_epoch(s, zone, Some(&mut series)));
            let Some((end, a)) = vis.fallback.prefix_only().place(timed, k as f64).or(dated) else {
                return;
            };
            run_len = run_len.max(k - run_first);
            anchoring.get_or_insert(a);
            if row.since_boot {
                sink.sample(end);
                return;
            }
            let dt = sink.interval(end, None);
            sink.at(row.line);
            if !std::ptr::eq(layout.0, row.names) {
                let at =
                    VmstatField::ALL.iter().map(|f| row.names.iter().position(|n| *n == f.key())).collect();
                layout = (row.names, at);
            }
            let values = row.values();
            for (f, at) in VmstatField::ALL.iter().zip(&layout.1) {
                if let Some(x) = at.and_then(|i| values.get(i)) {
                    sink.rate(&Col::Vmstat(*f), end, dt, *x);
                }
            }
        });
        // Rows after a date line are assumed 1 s apart: up to the run's length off.
        anchoring.map(|a| (a, if a == Anchoring::DateLineRun { run_len.max(1) as f64 } else { 1.0 }))
    }
}

/// A dstat or dool file (CSV or terminal text).
pub(super) struct Dstat<'d>(pub &'d iosift_parsers::dstat_csv::Dstat);

impl<'d> Adapter<'d> for Dstat<'d> {
    fn zone_evidence(&self, file: &str, ev: &mut ZoneEvidence) {
        for run in &self.0.runs {
            if let Some(z) = &run.meta.zone {
                ev.note_name(z, &format!("dstat Date: line of {file}"));
                ev.dstat_zones.push(z.clone());
            }
        }
    }

    fn visit(&self, v: &mut Visit<'_>, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        let d = self.0;
        let zone = v.zone;
        let mut anchoring = None;
        let mut yearless = 0usize;
        for run in &d.runs {
            let run_zone = run.meta.zone.as_deref().and_then(clock::zone_abbreviation_offset);
            for row in &run.rows {
                let e = match row.stamp.map(|s| (s, run.dated(s))) {
                    Some((_, Stamp::Epoch(e))) => Some((e, Anchoring::Epoch)),
                    Some((Stamp::NoYear { .. }, Stamp::Local(n))) => {
                        let e = match run_zone {
                            Some(off) => n.and_utc().timestamp() as f64 - f64::from(off),
                            None => zone.local_to_epoch(n),
                        };
                        Some((e, Anchoring::DateLineYear))
                    }
                    Some((_, Stamp::NoYear { .. })) => {
                        yearless += 1;
                        None
                    }
                    Some((_, ref s)) => stamp_epoch(s, zone, None),
                    None => None,
                };
                let Some((e, a)) = e else { continue };
                anchoring.get_or_insert(a);
                if row.since_boot {
                    sink.sample(e);
                    continue;
                }
                let dt = sink.interval(e, None);
                sink.at(row.line);
                for (ci, c) in run.columns.iter().enumerate() {
                    let dir = match c.name.as_str() {
                        "writ" => DstatDir::Writ,
                        "read" => DstatDir::Read,
                        _ => continue,
                    };
                    if let Some(dev) = c.group.strip_prefix("dsk/")
                        && let Some(Some(x)) = row.values.get(ci)
                    {
                        sink.rate(&Col::Dstat(dev.to_string(), dir), e, dt, *x);
                    }
                }
            }
        }
        if yearless > 0 {
            v.warn(format!(
                "{}: {yearless} rows have a day and month but no year (dstat -t terminal output has no Date: line) and are left out of the timeline; the CSV of dstat --output has the year",
                v.file.name
            ));
        }
        anchoring.map(|a| (a, 1.0))
    }
}
