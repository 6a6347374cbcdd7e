//! Analysis on the 1 s timeline and the parsed records: robust statistics,
//! burst detection, periodicity (autocorrelation, periodogram, burst
//! intervals, the writeback window), lagged cross-correlation, the
//! replica's replication, and the report's views. [`Views::compute`] runs
//! them all; the rules read its results.
//!
//! Nothing here reads the pipeline or matches on the parsers' `Data`: the
//! typed records it needs come in as [`Records`].

pub(crate) mod buffered;
pub mod bursts;
pub(crate) mod collector;
pub(crate) mod correlate;
pub(crate) mod device;
pub(crate) mod episodes;
pub mod galera;
pub(crate) mod harm;
pub(crate) mod heat;
pub(crate) mod lag_witness;
pub(crate) mod measures;
pub(crate) mod period;
pub(crate) mod periodicity;
pub(crate) mod replica_bound;
pub(crate) mod replication;
pub mod shared;
pub(crate) mod stack;
pub(crate) use crate::stats;
pub(crate) mod submitters;
pub(crate) mod views;
pub(crate) mod waits;
pub(crate) mod writeback;

use crate::clock::Zone;
use crate::source::{Context, ThreadTotal};
use crate::table::Timeline;
use iosift_parsers::mysql_replica_status::ReplicaStatus;
use iosift_parsers::mysqlbinlog::Binlog;
use iosift_parsers::perf_script::PerfScript;
use std::collections::BTreeMap;

/// One `perf script` file.
#[derive(Debug, Clone, Copy)]
pub struct PerfInput<'a> {
    /// Name within the bundle.
    pub name: &'a str,
    /// Base name (for the flame graph's file name).
    pub base: &'a str,
    /// Its samples.
    pub script: &'a PerfScript,
}

/// One file of thread stacks (gdb snapshots or pt-pmp's aggregate).
#[derive(Debug, Clone, Copy)]
pub struct StackInput<'a> {
    /// Name within the bundle.
    pub name: &'a str,
    /// Its stacks.
    pub stacks: crate::source::Stacks<'a>,
}

/// The decoded binlog the timeline's commit rate came from.
#[derive(Debug, Clone, Copy)]
pub struct BinlogInput<'a> {
    /// Index of the file in the bundle's order.
    pub file: usize,
    /// Name within the bundle.
    pub name: &'a str,
    /// Base name (names the local binlog file it was decoded from).
    pub base: &'a str,
    /// Its transactions.
    pub binlog: &'a Binlog,
}

/// One `SHOW SLAVE STATUS` / `SHOW MASTER STATUS` series file.
#[derive(Debug, Clone, Copy)]
pub struct StatusInput<'a> {
    /// Index of the file in the bundle's order.
    pub file: usize,
    /// Its rows.
    pub status: &'a ReplicaStatus,
}

/// One pt-heartbeat rows file.
#[derive(Debug, Clone, Copy)]
pub struct HeartbeatInput<'a> {
    /// Index of the file in the bundle's order.
    pub file: usize,
    /// Its rows.
    pub heartbeat: &'a iosift_parsers::pt_heartbeat::Heartbeat,
}

/// The parsed records the analysis reads besides the timeline.
#[derive(Debug, Clone, Default)]
pub struct Records<'a> {
    /// Every perf script file, in bundle order.
    pub perf: Vec<PerfInput<'a>>,
    /// The chosen binlog.
    pub binlog: Option<BinlogInput<'a>>,
    /// Every replica status file, in bundle order.
    pub status: Vec<StatusInput<'a>>,
    /// perf time -> epoch offset (epoch = perf time + offset), when perf was anchored.
    pub perf_offset: Option<f64>,
    /// Every pt-heartbeat rows file, in bundle order.
    pub heartbeat: Vec<HeartbeatInput<'a>>,
    /// Every thread-stack file (gdb, pt-pmp), in bundle order.
    pub stacks: Vec<StackInput<'a>>,
    /// The collector's records of its own cost (`collector-cost.txt`) with their names, in
    /// bundle order.
    pub collector: Vec<(&'a str, &'a iosift_parsers::collector_cost::CollectorCost)>,
}

/// Everything the analysis derived, for the rules and the report.
#[derive(Debug, Clone, Default)]
pub struct Views {
    /// The main data device.
    pub device: Option<device::MainDevice>,
    /// The writeback tunables.
    pub window: writeback::WritebackWindow,
    /// Periodicity of the main device's writes.
    pub periodicity: Option<periodicity::PeriodicityView>,
    /// When the main device was chosen for its bytes alone (no file or datadir names it)
    /// and its writes show no writeback period: a device stacked on it (loop, dm, md)
    /// whose own writes do, with that periodicity. The stacked device's writes reach the
    /// main one mixed with everything else written there.
    pub stacked_periodicity: Option<(device::MainDevice, periodicity::PeriodicityView)>,
    /// Lagged correlations.
    pub correlations: Vec<correlate::Correlation>,
    /// Write sources (pidstat attribution).
    pub write_sources: Vec<views::WriteSource>,
    /// Flame graph inputs.
    pub flames: Vec<views::FlameInput>,
    /// fsync share per thread.
    pub fsync_shares: Vec<views::FsyncShare>,
    /// The sub-second heat map of each perf file with timed call stacks.
    pub perf_heat: Vec<heat::PerfHeat>,
    /// Share of all perf samples in fsync paths.
    pub fsync_sample_share: Option<f64>,
    /// On-CPU samples per command and those in `balance_dirty_pages`.
    pub dirty_throttle_samples: BTreeMap<String, views::StackShare>,
    /// The chosen binlog's transactions.
    pub binlog: Option<views::BinlogView>,
    /// The replica's connections.
    pub replicas: Vec<replication::ReplicaView>,
    /// perf samples of the replication threads.
    pub replica_threads: Option<replication::ThreadFsync>,
    /// Where threads wait, from gdb or pt-pmp stacks.
    pub stacks: Option<waits::StacksView>,
    /// What observing cost (`None`: the capture did not record it).
    pub collector: Option<collector::CollectorView>,
    /// pidstat's write totals per thread without the collector's own threads: the rules'
    /// writers and issuers are chosen among these.
    pub threads: BTreeMap<u32, ThreadTotal>,
    /// How late the replica wrote the source's transactions.
    pub event_lag: Option<replication::EventLag>,
    /// Status files showing the server is not a replica (pt-stalk's `SHOW SLAVE STATUS` answered
    /// nothing every time): bundle index and empty answers of each.
    pub not_a_replica: Vec<(usize, usize)>,
    /// The significant write episodes of every written device, with their measured issuer.
    pub episodes: Vec<episodes::Episode>,
    /// The large submitters of the block trace, with the period of their own bursts.
    pub submitters: Vec<submitters::Submitter>,
    /// This node's Galera status (flow control, queues, rates), on a Galera node.
    pub galera: Option<galera::GaleraView>,
}

/// The replica's connections with their lag witnesses and bound.
fn replicas(
    records: &Records<'_>,
    ctx: &Context,
    own: Option<u32>,
    zone: &Zone,
) -> Vec<replication::ReplicaView> {
    let mut views = replication::views(&records.status);
    let threads = replication::thread_fsync(&records.perf, &ctx.thread_map);
    let stacks = replica_bound::stack_profile(&records.perf);
    for v in &mut views {
        v.witnesses = lag_witness::witnesses(
            v,
            own,
            records.binlog.as_ref(),
            &records.status,
            &records.heartbeat,
            zone,
        );
        v.bound = replica_bound::bound(v, threads, stacks);
        v.bound.tid = v.bound.side.and_then(|s| {
            replication::thread_tid(&ctx.thread_map, if s == replica_bound::Side::Io { "io" } else { "sql" })
        });
    }
    views
}

impl Views {
    /// Runs every analysis.
    pub fn compute(
        tl: &Timeline,
        ctx: &Context,
        threads: &BTreeMap<u32, ThreadTotal>,
        zone: &Zone,
        records: &Records<'_>,
    ) -> Views {
        // The collector's own processes are never writers nor issuers (issue 41).
        let collector = collector::view(&records.collector);
        let kept = collector::without_collector(threads, collector.as_ref());
        let threads = &kept;
        let device = device::resolve_main(tl, ctx);
        let window = writeback::WritebackWindow::from_centisecs(
            ctx.sysctl_f64("vm.dirty_expire_centisecs"),
            ctx.sysctl_f64("vm.dirty_writeback_centisecs"),
        );
        // Bursts and periods are found second by second: not in the wider rows of a capture
        // of days sampled coarsely (its rules that read them are skipped and say why).
        let one_second = tl.bin() == 1;
        // The kernel intervals a period found on the main device is tested against.
        let tunables = device.as_ref().map(|d| writeback::Tunables::for_device(window, &ctx.mounts, &d.name));
        // The correlations need nothing else: on the other core while the periods are found.
        let (correlations, periodicity) = rayon::join(
            || correlate::correlations(tl, device.as_ref().map(|d| &d.writes)),
            || {
                device
                    .as_ref()
                    .zip(tunables.as_ref())
                    .filter(|_| one_second)
                    .map(|(d, t)| periodicity::periodicity(tl, &d.writes, t))
            },
        );
        let stacked_periodicity = device
            .as_ref()
            .filter(|_| one_second)
            .filter(|_| !periodicity.as_ref().is_some_and(|p| p.is_periodic()))
            .and_then(|d| device::stacked_periodic(tl, ctx, d, window));
        let (flames, fsync_shares) = views::perf_views(&records.perf);
        let bios = episodes::bio_devices(ctx, tl);
        let mut episodes =
            if one_second { episodes::of_all(tl, threads, window, records, &bios) } else { Vec::new() };
        let perf = episodes::perf_pairs(records);
        let inp = episodes::Inputs { tl, threads, window, perf: &perf, majmin: &bios };
        // The periodic bursts of a stacked device too small for episodes of their own are
        // episodes too: their issuer is measured as any other's.
        if let Some((d, view)) = &stacked_periodicity
            && !episodes.iter().any(|e| e.device == d.name)
        {
            episodes.extend(episodes::of_bursts(&inp, &d.name, &view.periodic_bursts()));
        }
        let submitters = device
            .as_ref()
            .zip(tunables.as_ref())
            .filter(|_| one_second)
            .map(|(d, t)| submitters::of(&inp, &d.name, t))
            .unwrap_or_default();
        let own = ctx.variable("server_id").and_then(|s| s.value.trim().parse::<u32>().ok());
        Views {
            correlations,
            write_sources: views::write_sources(tl, threads),
            flames,
            fsync_shares,
            perf_heat: heat::of_perf(&records.perf, records.perf_offset, tl),
            fsync_sample_share: views::fsync_sample_share(&records.perf),
            dirty_throttle_samples: views::dirty_throttle_samples(&records.perf),
            binlog: views::binlog_view(records.binlog.as_ref()),
            replicas: replicas(records, ctx, own, zone),
            replica_threads: replication::thread_fsync(&records.perf, &ctx.thread_map),
            stacks: waits::view(&records.stacks, &ctx.thread_map),
            event_lag: replication::event_lag(own, records.binlog.as_ref(), &records.status, zone),
            not_a_replica: records
                .status
                .iter()
                .filter(|s| s.status.not_a_replica())
                .map(|s| (s.file, s.status.empty_answers))
                .collect(),
            device,
            collector,
            threads: kept.clone(),
            window,
            periodicity,
            stacked_periodicity,
            episodes,
            submitters,
            galera: galera::view(tl, ctx),
        }
    }
}
