//! sar, sadf, sa files (through sadf) and mpstat on the timeline, one source
//! per measurement (docs/design-notes.md): device I/O from `sar -d` only
//! without an iostat (iostat -x is more precise: w/s, f/s, w_await), paging
//! (`pgpgout/s`) only without TS-framed `/proc/vmstat`, dirty memory
//! (`kbdirty`) only without TS-framed `/proc/meminfo`, CPU from iostat's
//! `avg-cpu` when it has one, else from the sar or mpstat file with the
//! finest interval. Renderings of the same data (sar text in several locales,
//! sadf, the sa file itself) cover the same seconds: the one with the most
//! rows is used and the others say so. All of this is declared as offers of
//! tier 1 (a general collector) and decided by [`super::choose`].

use super::{Adapter, Measure, Offer, Sink, Visit, stamp_epoch};
use crate::clock::{Anchoring, DayRoller};
use crate::table::Col;
use crate::table::columns::{CoreMetric, CpuMetric, DevMetric, NetMetric, SarMetric, SeenOf, VmCounter};
use iosift_parsers::sar::{Activity, Row, Sar, Source};

/// A sar-like file (sar text, sadf, a decoded sa file, mpstat).
pub(super) struct SarSource<'d>(pub &'d Sar);

impl<'d> Adapter<'d> for SarSource<'d> {
    fn ambiguous_banner(&self) -> Option<&'d iosift_parsers::common::sysstat::Banner> {
        self.0.banners.iter().map(|(_, b)| b).find(|b| b.date_alt.is_some())
    }

    fn offers(&self) -> Vec<Offer> {
        let s = self.0;
        let acts = s.activities();
        let has = |a| acts.contains(&a);
        let rows = s.rows.len() as i64;
        let mut out = Vec::new();
        let offer = |measure, score, why| Offer { measure, tier: 1, score, why };
        if s.source != Source::MpstatText {
            out.push(offer(Measure::SarSeries, rows, "same seconds"));
            if has(Activity::Disk) {
                out.push(offer(Measure::DeviceIo, rows, "same seconds"));
            }
            if has(Activity::Paging) {
                out.push(offer(Measure::Paging, rows, "same seconds"));
            }
            if has(Activity::Memory) {
                out.push(offer(Measure::DirtyMemory, rows, "same seconds"));
            }
        }
        if has(Activity::Cpu) {
            // The finest interval first, then the most rows.
            let interval = s.rows.iter().find_map(|r| r.interval_s).unwrap_or(1e6);
            let score = -((interval * 1000.0) as i64) * (1 << 32) + rows;
            out.push(offer(Measure::Cpu, score, "finer interval"));
            out.push(offer(Measure::CpuCores, score, "finer interval"));
        }
        out
    }

    fn visit(&self, v: &mut Visit<'_>, sink: &mut dyn Sink) -> Option<(Anchoring, f64)> {
        let s = self.0;
        let (disk, cpu, cores) = (v.uses(Measure::DeviceIo), v.uses(Measure::Cpu), v.uses(Measure::CpuCores));
        let (paging, dirty, extra) =
            (v.uses(Measure::Paging), v.uses(Measure::DirtyMemory), v.uses(Measure::SarSeries));
        let nothing = !(disk || cpu || cores || paging || dirty || extra);
        let prefix_date = crate::clock::pt_stalk_prefix(&v.file.base).map(|n| n.date());
        let text = matches!(s.source, Source::SarText | Source::MpstatText);
        let mut roller = Some(DayRoller::maybe(prefix_date));
        let mut anchoring = None;
        for r in &s.rows {
            let Some((end, a)) = stamp_epoch(&r.stamp, v.zone, roller.as_mut()) else { continue };
            let a = if text && a == Anchoring::LocalDateTime { Anchoring::BannerDateTimeOfDay } else { a };
            anchoring.get_or_insert(a);
            let dt = r.interval_s.filter(|d| *d > 0.0).unwrap_or(1.0);
            let t = s.table(r);
            sink.at(r.line);
            let get = |c: &str| s.get(r, c);
            match t.activity {
                Activity::Disk if disk => disk_row(s, r, end, dt, sink),
                Activity::Cpu if cpu || cores => cpu_row(s, r, (end, dt), (cpu, cores), sink),
                Activity::Paging if paging => {
                    if let Some(x) = get("pgpgout/s") {
                        sink.rate(&Col::Vm(VmCounter::PgpgoutS), end, dt, x);
                    }
                }
                Activity::Memory if dirty => {
                    if let Some(x) = get("kbdirty") {
                        sink.gauge(&Col::Mem(crate::table::columns::MemMetric::DirtyBytes), end, x * 1024.0);
                    }
                }
                Activity::Io if extra => {
                    for (k, x) in [
                        (SarMetric::IoWS, get("wtps")),
                        (SarMetric::IoWBytesS, get("bwrtn/s").map(|b| b * 512.0)),
                        (SarMetric::IoRBytesS, get("bread/s").map(|b| b * 512.0)),
                    ] {
                        if let Some(x) = x {
                            sink.rate(&Col::Sar(k), end, dt, x);
                        }
                    }
                }
                Activity::Queue if extra => {
                    for (k, x) in [(SarMetric::RunqSz, get("runq-sz")), (SarMetric::Blocked, get("blocked"))]
                    {
                        if let Some(x) = x {
                            sink.gauge(&Col::Sar(k), end, x);
                        }
                    }
                }
                Activity::Swapping if extra => {
                    if let Some(x) = get("pswpout/s") {
                        sink.rate(&Col::Sar(SarMetric::PswpoutS), end, dt, x);
                    }
                }
                Activity::NetDev if extra => {
                    let iface = r.item.as_deref().unwrap_or("?");
                    for (k, c) in [(NetMetric::RxBytesS, "rxkB/s"), (NetMetric::TxBytesS, "txkB/s")] {
                        if let Some(x) = get(c) {
                            sink.rate(&Col::Net(iface.to_string(), k), end, dt, x * 1024.0);
                        }
                    }
                }
                Activity::Cpu
                | Activity::Pcsw
                | Activity::Irq
                | Activity::Swapping
                | Activity::Paging
                | Activity::Io
                | Activity::Memory
                | Activity::MemoryPages
                | Activity::SwapSpace
                | Activity::Hugepages
                | Activity::Ktables
                | Activity::Queue
                | Activity::Tty
                | Activity::Disk
                | Activity::NetDev
                | Activity::NetEdev
                | Activity::Network
                | Activity::Power
                | Activity::Filesystem
                | Activity::Psi
                | Activity::Other => {
                    if nothing {
                        sink.gauge(&Col::Seen(SeenOf::Sar), end, 0.0);
                    }
                }
            }
        }
        anchoring.map(|a| (a, if text { 1.0 } else { 0.5 }))
    }
}

/// The device metrics of one `sar -d` row.
fn disk_row(s: &Sar, r: &Row, end: f64, dt: f64, sink: &mut dyn Sink) {
    let get = |c: &str| s.get(r, c);
    let any = |cs: &[&str]| cs.iter().find_map(|c| get(c));
    let dev = r.item.as_deref().unwrap_or("?");
    let kb = |c: &str| get(c).map(|x| x * 1024.0);
    let sectors = |c: &str| get(c).map(|x| x * 512.0);
    for (k, x) in [
        (DevMetric::Tps, get("tps")),
        (DevMetric::RBytesS, kb("rkB/s").or_else(|| sectors("rd_sec/s"))),
        (DevMetric::WBytesS, kb("wkB/s").or_else(|| sectors("wr_sec/s"))),
        (DevMetric::AquSz, any(&["aqu-sz", "avgqu-sz"])),
        (DevMetric::AwaitMs, get("await")),
        (DevMetric::UtilPct, get("%util")),
    ] {
        if let Some(x) = x {
            sink.rate(&Col::Dev(dev.to_string(), k), end, dt, x);
        }
    }
}

/// The CPU of one row: of all cores (`cpu`), or of one core (`cores`).
fn cpu_row(s: &Sar, r: &Row, (end, dt): (f64, f64), (cpu, cores): (bool, bool), sink: &mut dyn Sink) {
    let get = |c: &str| s.get(r, c);
    let item = r.item.as_deref().unwrap_or("all");
    // One meaning whatever the form: `sar -u` (and iostat, vmstat) count guest time in
    // %user and interrupts in %system; `-u ALL` and mpstat print them apart.
    let plus =
        |base: &str, parts: &[&str]| get(base).map(|b| b + parts.iter().filter_map(|c| get(c)).sum::<f64>());
    let user = get("%user").or_else(|| plus("%usr", &["%guest"]));
    let system = get("%system").or_else(|| plus("%sys", &["%irq", "%soft"]));
    let (iowait, idle) = (get("%iowait"), get("%idle"));
    if item == "all" && cpu {
        for (k, x) in [
            (CpuMetric::UserPct, user),
            (CpuMetric::SystemPct, system),
            (CpuMetric::IowaitPct, iowait),
            (CpuMetric::IdlePct, idle),
        ] {
            if let Some(x) = x {
                sink.rate(&Col::Cpu(k), end, dt, x);
            }
        }
    } else if item != "all" && cores {
        if let Some(idle) = idle {
            sink.rate(&Col::Core(item.to_string(), CoreMetric::BusyPct), end, dt, 100.0 - idle);
        }
        if let Some(w) = iowait {
            sink.rate(&Col::Core(item.to_string(), CoreMetric::IowaitPct), end, dt, w);
        }
    }
}
