//! `pidstat -d` (text, with or without `-t`/`-h`, and JSON): bytes written
//! per thread (`thr.*`) and per write-source category (`cat.*`), and the
//! per-thread totals of the write-source table.

use super::{Adapter, Measure, Offer, Sink, ThreadTotal, Visit, stamp_epoch};
use crate::clock::{Anchoring, DayRoller};
use crate::table::Col;
use crate::table::columns::SeenOf;

/// A pidstat file.
pub(super) struct Pidstat<'d>(pub &'d iosift_parsers::pidstat::Pidstat);

impl<'d> Adapter<'d> for Pidstat<'d> {
    fn ambiguous_banner(&self) -> Option<&'d iosift_parsers::common::sysstat::Banner> {
        self.0.banner.as_ref()
    }

    fn offers(&self) -> Vec<Offer> {
        let p = self.0;
        let (rows, any_wr) = match &p.drained {
            Some(d) => (d.rows, d.any_wr),
            None => (p.rows.len(), p.rows.iter().any(|r| r.kb_wr_s().is_some())),
        };
        if !any_wr {
            return Vec::new();
        }
        // Per-thread (-t) beats per-process whatever the row counts.
        let score = rows as i64 + if p.layout.threads { 1 << 40 } else { 0 };
        vec![Offer { measure: Measure::ThreadWrites, tier: 3, score, why: "per-thread" }]
    }

    fn visit(&self, v: &mut Visit<'_>, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        let p = self.0;
        let zone = v.zone;
        let used = v.uses(Measure::ThreadWrites);
        let mut roller = Some(DayRoller::maybe(p.banner.as_ref().and_then(|b| b.date)));
        let mut anchoring = None;
        let threads_mode = p.layout.threads;
        let mut run = 0;
        // Each row binned as it comes (read again from disk when none were kept: `super::replay`).
        super::replay::each_row(v.file, p, |row| {
            if row.run != run {
                // Appended runs (a cron loop): each starts on its own banner's date, or on
                // the date of the `date` line before it.
                run = row.run;
                let date_line = p.date_lines.iter().rev().find(|d| d.line < row.line).map(|d| d.local.date());
                if let Some(d) = p.banners.get(run).and_then(|b| b.date).or(date_line) {
                    roller = Some(DayRoller::new(d));
                }
            }
            let Some((end, a)) = row.stamp.as_ref().and_then(|s| stamp_epoch(s, zone, roller.as_mut()))
            else {
                return;
            };
            anchoring.get_or_insert(a);
            let mut prev_roller = roller.clone();
            // The header's time starts the interval; `-h` has none (the cadence tells).
            let stated = row
                .prev_stamp
                .as_ref()
                .and_then(|s| stamp_epoch(s, zone, prev_roller.as_mut()))
                .map(|(p, _)| end - p);
            if row.since_boot {
                sink.sample(end);
                return;
            }
            let dt = sink.interval(end, stated);
            if !used {
                sink.gauge(&Col::Seen(SeenOf::Pidstat), end, 0.0);
                return;
            }
            if threads_mode && row.tid.is_none() {
                return;
            }
            let Some(kb) = row.kb_wr_s().filter(|v| *v >= 0.0) else { return };
            sink.at(row.line);
            let tid = row.tid.or(row.tgid);
            let cat = v.ctx.taxonomy.category(tid, &row.command, &v.ctx.thread_map);
            sink.rate(&Col::Category(cat), end, dt, kb * 1024.0);
            if let Some(t) = tid
                && kb > 0.0
            {
                sink.rate(&Col::Thread(t), end, dt, kb * 1024.0);
            }
            // Totals are counted on the fill pass only, so once.
            if let Some(t) = tid
                && v.filling
            {
                let e = v.out.threads.entry(t).or_insert_with(|| ThreadTotal {
                    comm: row.command.to_string(),
                    category: cat,
                    bytes: 0.0,
                    tgid: row.tgid,
                });
                e.bytes += kb * 1024.0 * dt;
            }
        });
        anchoring.map(|a| (a, 1.0))
    }
}
