//! sar, sadf, sa files (through sadf) and mpstat on the timeline, one source
//! per measurement (docs/design-notes.md): device I/O from `sar -d` only
//! without an iostat (iostat -x is more precise: w/s, f/s, w_await), paging
//! (`pgpgout/s`) only without TS-framed `/proc/vmstat`, dirty memory
//! (`kbdirty`) only without TS-framed `/proc/meminfo`, CPU from iostat's
//! `avg-cpu` when it has one, else from the sar or mpstat file with the
//! finest interval. Renderings of the same data (sar text in several locales,
//! sadf, the sa file itself) cover the same seconds: the one with the most
//! rows is used and the others say so.

use super::{Filler, Sink, stamp_epoch};
use crate::clock::{Anchoring, DayRoller};
use iosift_parsers::Data;
use iosift_parsers::sar::{Activity, Row, Sar, Source};
use std::collections::BTreeMap;

/// Which measurements one sar-like file feeds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Uses {
    /// `dev.*` from `-d`.
    disk: bool,
    /// `cpu.*_pct` (all CPUs).
    cpu: bool,
    /// `cpu.N.*` per core.
    cores: bool,
    /// `vm.pgpgout_s` from `-B`.
    paging: bool,
    /// `mem.dirty_bytes` from `-r`.
    dirty: bool,
    /// `sar.*` and `net.*` columns (`-b`, `-q`, `-W`, `-n DEV`).
    extra: bool,
}

/// The sar tables of a file, when it has any (a sa file once read through sadf).
pub(super) fn sar_of(d: &Data) -> Option<&Sar> {
    match d {
        Data::Sar(s) | Data::Sadf(s) | Data::Mpstat(s) => Some(s),
        Data::SaBinary(b) => b.decoded.as_ref(),
        _ => None,
    }
}

/// A time span in epoch seconds.
type Span = (f64, f64);

fn overlaps(a: Span, b: Span) -> bool {
    a.0 <= b.1 && b.0 <= a.1
}

impl Filler<'_> {
    /// Rough epoch span of a sar file (for telling renderings of the same seconds apart).
    fn sar_span(&self, s: &Sar) -> Option<Span> {
        let e = |r: &Row| stamp_epoch(&r.stamp, self.zone, None).map(|x| x.0);
        let (a, b) = (s.rows.iter().find_map(e)?, s.rows.iter().rev().find_map(e)?);
        Some((a.min(b), a.max(b)))
    }

    /// Picks, per measurement, the sar-like files used (see the module doc) and notes the others.
    pub(super) fn choose_sar(&mut self) {
        let files = self.files;
        // Files left out of the timeline (another capture's times) are not candidates.
        let cands: Vec<(usize, &Sar)> = files
            .iter()
            .enumerate()
            .filter(|(i, _)| !self.excluded[*i])
            .filter_map(|(i, f)| Some((i, sar_of(f.data.as_ref()?)?)))
            .collect();
        if cands.is_empty() {
            return;
        }
        let iostat_cpu = self.chosen_iostat.is_some_and(|i| match &files[i].data {
            Some(Data::Iostat(io) | Data::IostatJson(io)) => io.reports.iter().any(|r| r.cpu.is_some()),
            _ => false,
        });
        let meminfo = files.iter().any(|f| {
            matches!(&f.data, Some(Data::ProcMeminfo(s)) if s.snapshots.iter().any(|x| x.ts.is_some() && x.get("Dirty").is_some()))
        });
        let procvmstat = files.iter().any(
            |f| matches!(&f.data, Some(Data::ProcVmstat(s)) if s.snapshots.iter().any(|x| x.ts.is_some())),
        );
        // The sar family: the largest rendering of each span of seconds.
        let mut family: Vec<(usize, &Sar)> =
            cands.iter().copied().filter(|(_, s)| s.source != Source::MpstatText).collect();
        family.sort_by_key(|(i, s)| (std::cmp::Reverse(s.rows.len()), *i));
        let mut taken: Vec<(usize, Option<Span>)> = Vec::new();
        for &(i, s) in &family {
            let span = self.sar_span(s);
            match taken.iter().find(|(_, t)| match (span, t) {
                (Some(a), Some(b)) => overlaps(a, *b),
                _ => false,
            }) {
                Some(&(used, _)) => {
                    self.notes[i] = Some(format!(
                        "sar series taken from {} (same seconds; not counted twice)",
                        files[used].name
                    ));
                }
                None => taken.push((i, span)),
            }
        }
        let mut uses: BTreeMap<usize, Uses> = BTreeMap::new();
        for &(i, _) in &taken {
            let s = cands.iter().find(|(j, _)| *j == i).map(|x| x.1);
            let has = |a| s.is_some_and(|s| s.activities().contains(&a));
            let u = Uses {
                disk: self.chosen_iostat.is_none() && has(Activity::Disk),
                paging: !procvmstat && has(Activity::Paging),
                dirty: !meminfo && has(Activity::Memory),
                extra: true,
                ..Default::default()
            };
            let mut deferred = Vec::new();
            if has(Activity::Disk) && !u.disk {
                let io = self.chosen_iostat.map(|c| files[c].name.as_str()).unwrap_or("iostat");
                deferred.push(format!("device I/O from {io} (iostat -x is more precise)"));
            }
            if has(Activity::Paging) && !u.paging {
                deferred.push("paging from /proc/vmstat".to_string());
            }
            if has(Activity::Memory) && !u.dirty {
                deferred.push("dirty memory from /proc/meminfo".to_string());
            }
            if !deferred.is_empty() {
                self.notes[i] = Some(format!("{} (one source per measurement)", deferred.join("; ")));
            }
            uses.insert(i, u);
        }
        // CPU: the finest interval among the sar family and mpstat files, per span of seconds.
        let interval = |s: &Sar| s.rows.iter().find_map(|r| r.interval_s).unwrap_or(f64::INFINITY);
        let mut cpu: Vec<(usize, &Sar)> = cands
            .iter()
            .copied()
            .filter(|(i, s)| {
                (s.source == Source::MpstatText || uses.contains_key(i))
                    && s.activities().contains(&Activity::Cpu)
            })
            .collect();
        cpu.sort_by(|a, b| interval(a.1).total_cmp(&interval(b.1)).then(b.1.rows.len().cmp(&a.1.rows.len())));
        let mut cpu_taken: Vec<(usize, Option<Span>)> = Vec::new();
        for &(i, s) in &cpu {
            let span = self.sar_span(s);
            if let Some(&(used, _)) =
                cpu_taken.iter().find(|(_, t)| matches!((span, t), (Some(a), Some(b)) if overlaps(a, *b)))
            {
                if s.source == Source::MpstatText {
                    self.notes[i] = Some(format!(
                        "CPU taken from {} (finer interval; not counted twice)",
                        files[used].name
                    ));
                }
                continue;
            }
            cpu_taken.push((i, span));
            let u = uses.entry(i).or_default();
            u.cpu = !iostat_cpu;
            u.cores = true;
            if iostat_cpu && s.source == Source::MpstatText {
                self.notes[i] =
                    Some("CPU of all cores from iostat avg-cpu; per-core CPU from here".to_string());
            }
        }
        self.sar_uses = uses;
    }

    /// Emits a sar-like file's points; returns how its times were anchored.
    pub(super) fn visit_sar(&self, i: usize, s: &Sar, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        let u = self.sar_uses.get(&i).copied().unwrap_or_default();
        let f = &self.files[i];
        let prefix_date = crate::clock::pt_stalk_prefix(&f.base).map(|n| n.date());
        let text = matches!(s.source, Source::SarText | Source::MpstatText);
        let mut roller = prefix_date.map(DayRoller::new);
        let mut anchoring = None;
        for r in &s.rows {
            let Some((end, a)) = stamp_epoch(&r.stamp, self.zone, roller.as_mut()) else { continue };
            let a = if text && a == Anchoring::LocalDateTime { Anchoring::BannerDateTimeOfDay } else { a };
            anchoring.get_or_insert(a);
            let dt = r.interval_s.filter(|d| *d > 0.0).unwrap_or(1.0);
            let t = s.table(r);
            sink.at(r.line);
            let v = |c: &str| s.get(r, c);
            let any = |cs: &[&str]| cs.iter().find_map(|c| v(c));
            match t.activity {
                Activity::Disk if u.disk => {
                    let dev = r.item.as_deref().unwrap_or("?");
                    let col = |k: &str| format!("dev.{dev}.{k}");
                    let kb = |c: &str| v(c).map(|x| x * 1024.0);
                    let sectors = |c: &str| v(c).map(|x| x * 512.0);
                    for (k, unit, x) in [
                        ("tps", "1/s", v("tps")),
                        ("r_bytes_s", "B/s", kb("rkB/s").or_else(|| sectors("rd_sec/s"))),
                        ("w_bytes_s", "B/s", kb("wkB/s").or_else(|| sectors("wr_sec/s"))),
                        ("aqu_sz", "1", any(&["aqu-sz", "avgqu-sz"])),
                        ("await_ms", "ms", v("await")),
                        ("util_pct", "%", v("%util")),
                    ] {
                        if let Some(x) = x {
                            sink.rate(&col(k), unit, end, dt, x);
                        }
                    }
                }
                Activity::Cpu if u.cpu || u.cores => {
                    let item = r.item.as_deref().unwrap_or("all");
                    let user = any(&["%user", "%usr"]);
                    let system = any(&["%system", "%sys"]);
                    let (iowait, idle) = (v("%iowait"), v("%idle"));
                    if item == "all" && u.cpu {
                        for (k, x) in [
                            ("cpu.user_pct", user),
                            ("cpu.system_pct", system),
                            ("cpu.iowait_pct", iowait),
                            ("cpu.idle_pct", idle),
                        ] {
                            if let Some(x) = x {
                                sink.rate(k, "%", end, dt, x);
                            }
                        }
                    } else if item != "all" && u.cores {
                        if let Some(idle) = idle {
                            sink.rate(&format!("cpu.{item}.busy_pct"), "%", end, dt, 100.0 - idle);
                        }
                        if let Some(w) = iowait {
                            sink.rate(&format!("cpu.{item}.iowait_pct"), "%", end, dt, w);
                        }
                    }
                }
                Activity::Paging if u.paging => {
                    if let Some(x) = v("pgpgout/s") {
                        sink.rate("vm.pgpgout_s", "1/s", end, dt, x);
                    }
                }
                Activity::Memory if u.dirty => {
                    if let Some(x) = v("kbdirty") {
                        sink.gauge("mem.dirty_bytes", "B", end, x * 1024.0);
                    }
                }
                Activity::Io if u.extra => {
                    for (k, unit, x) in [
                        ("sar.io_w_s", "1/s", v("wtps")),
                        ("sar.io_w_bytes_s", "B/s", v("bwrtn/s").map(|b| b * 512.0)),
                        ("sar.io_r_bytes_s", "B/s", v("bread/s").map(|b| b * 512.0)),
                    ] {
                        if let Some(x) = x {
                            sink.rate(k, unit, end, dt, x);
                        }
                    }
                }
                Activity::Queue if u.extra => {
                    for (k, x) in [("sar.runq_sz", v("runq-sz")), ("sar.blocked", v("blocked"))] {
                        if let Some(x) = x {
                            sink.gauge(k, "1", end, x);
                        }
                    }
                }
                Activity::Swapping if u.extra => {
                    if let Some(x) = v("pswpout/s") {
                        sink.rate("sar.pswpout_s", "1/s", end, dt, x);
                    }
                }
                Activity::NetDev if u.extra => {
                    let iface = r.item.as_deref().unwrap_or("?");
                    for (k, c) in [("rx_bytes_s", "rxkB/s"), ("tx_bytes_s", "txkB/s")] {
                        if let Some(x) = v(c) {
                            sink.rate(&format!("net.{iface}.{k}"), "B/s", end, dt, x * 1024.0);
                        }
                    }
                }
                _ => {
                    if u == Uses::default() {
                        sink.gauge("sar.seen", "1", end, 0.0);
                    }
                }
            }
        }
        anchoring.map(|a| (a, if text { 1.0 } else { 0.5 }))
    }
}
