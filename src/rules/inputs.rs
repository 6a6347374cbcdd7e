//! What the rules can read: [`Available`], assembled in one place from the
//! pipeline and the analysis views (the only code of `rules/` that looks
//! inside the [`Pipeline`]). Each rule's `gather` picks its typed inputs from
//! it, or names what is [`Missing`]; the skip reason is that name's text.

use crate::table::Cell;

use super::evidence::{line_evidence, num};
use crate::analysis::device::MainDevice;
use crate::analysis::periodicity::PeriodicityView;
use crate::analysis::replication::{EventLag, ReplicaView, ThreadFsync};
use crate::analysis::writeback::WritebackWindow;
use crate::analysis::{BinlogInput, HeartbeatInput, PerfInput, Records, StackInput, StatusInput, Views};
use crate::model::Evidence;
use crate::pipeline::{Context, LineIndex, ParsedFile, Pipeline, Sourced, ThreadTotal};
use crate::table::Timeline;
use crate::table::columns::Col;
use crate::verdict::{Device, DeviceStack};
use iosift_parsers::mounts::Mount;
use iosift_parsers::smaps::Mapping;
use std::collections::BTreeMap;
use std::fmt;

/// An input a rule needs and the capture lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// The main device's write bytes/s.
    DeviceWrites,
    /// The main device's `%util`.
    DeviceUtilisation,
    /// Evidence of large folios on file mappings.
    FolioCounters,
    /// Write request sizes of the main device.
    RequestSizes,
    /// `uname -r`.
    KernelRelease,
    /// Mounts with their options.
    MountOptions,
    /// Transactions per second.
    CommitRate,
    /// Device or InnoDB flushes per second.
    FlushRate,
    /// A TS-framed `SHOW SLAVE STATUS` series.
    ReplicaStatus,
    /// Per-thread write bytes.
    WriterThreads,
    /// Dirty page-cache memory per second.
    DirtyMemory,
    /// The dirty thresholds.
    DirtyLimits,
    /// Timeline rows of one second: the rules that follow bursts, flushes and holds second
    /// by second do not run on the wider rows of a capture of days sampled coarsely.
    OneSecondRows,
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Missing::DeviceWrites => "device write throughput (iostat -x or /proc/diskstats series)",
            Missing::DeviceUtilisation => "device utilisation (iostat -x %util)",
            Missing::FolioCounters => {
                "smaps of the writer (FilePmdMapped) or /proc/meminfo or /proc/vmstat (thp_file_mapped)"
            }
            Missing::RequestSizes => "iostat -x request sizes",
            Missing::KernelRelease => "kernel release (uname -r)",
            Missing::MountOptions => "mount options (mount, /proc/mounts or findmnt)",
            Missing::CommitRate => "commit rate (decoded binlog or mysqladmin extended-status)",
            Missing::FlushRate => "flush rate (iostat -x f/s, /proc/diskstats or Innodb_data_fsyncs)",
            Missing::WriterThreads => "per-thread write bytes (pidstat -d) of a process that is not a kernel issuer",
            Missing::DirtyMemory => "dirty memory per second (/proc/meminfo Dirty snapshots or sar -r)",
            Missing::DirtyLimits => {
                "dirty thresholds (/proc/vmstat nr_dirty_threshold, or sysctl vm.dirty_bytes / vm.dirty_ratio with /proc/meminfo)"
            }
            Missing::OneSecondRows => {
                "one-second timeline rows (this capture of days, sampled coarsely, has wider rows: use --from/--to for 1 s rows of a part)"
            }
            Missing::ReplicaStatus => {
                "replica status series (SHOW SLAVE STATUS / SHOW REPLICA STATUS every interval, TS-framed)"
            }
        })
    }
}

/// The typed records of a pipeline the analysis reads (perf scripts, the chosen binlog,
/// replica status series), through the source adapters.
pub(crate) fn records(p: &Pipeline) -> Records<'_> {
    let mut r = Records { perf_offset: p.perf_offset.map(|o| o.0), ..Records::default() };
    for (i, f) in p.files.iter().enumerate() {
        if let Some(script) = crate::source::perf(f) {
            r.perf.push(PerfInput { name: &f.name, base: &f.base, script });
        }
        if let Some(status) = crate::source::replica_status(f) {
            r.status.push(StatusInput { file: i, status });
        }
        if let Some(heartbeat) = crate::source::heartbeat(f) {
            r.heartbeat.push(HeartbeatInput { file: i, heartbeat });
        }
        if let Some(stacks) = crate::source::stacks(f) {
            r.stacks.push(StackInput { name: &f.name, stacks });
        }
    }
    r.binlog = p.binlog.and_then(|i| {
        let f = &p.files[i];
        crate::source::binlog(f).map(|binlog| BinlogInput { file: i, name: &f.name, base: &f.base, binlog })
    });
    r
}

/// The input files and the input line behind each evidence-bearing timeline cell.
#[derive(Debug, Clone, Copy)]
pub struct Cells<'a> {
    lines: &'a LineIndex,
    files: &'a [ParsedFile],
}

static NO_LINES: std::sync::LazyLock<LineIndex> = std::sync::LazyLock::new(LineIndex::new);

impl<'a> Cells<'a> {
    /// Cells of `files` located by `lines`.
    pub fn new(lines: &'a LineIndex, files: &'a [ParsedFile]) -> Self {
        Cells { lines, files }
    }

    /// No files: evidence names the column's source file without a line.
    pub fn none() -> Cells<'static> {
        Cells { lines: &NO_LINES, files: &[] }
    }

    /// Input file `i` (bundle order).
    pub fn file(&self, i: usize) -> Option<&'a ParsedFile> {
        self.files.get(i)
    }
}

/// One timeline column as a rule reads it, with what its evidence needs.
#[derive(Debug, Clone, Copy)]
pub struct Series<'a> {
    /// The column.
    pub col: &'a Col,
    /// Values per row (row 0 = epoch `t0`; a row is [`Series::bin`] seconds).
    pub values: &'a [Cell],
    /// The input file the column came from.
    pub source: &'a str,
    t0: i64,
    bin: i64,
    cells: Cells<'a>,
}

impl<'a> Series<'a> {
    /// A series of `values` starting at epoch second `t0`.
    pub fn new(col: &'a Col, values: &'a [Cell], source: &'a str, t0: i64, cells: Cells<'a>) -> Self {
        Series { col, values, source, t0, bin: 1, cells }
    }

    /// The series with rows of `bin` seconds (see [`Timeline::bin`]).
    pub fn with_bin(self, bin: i64) -> Self {
        Series { bin: bin.max(1), ..self }
    }

    /// Seconds per row (1 unless the capture was binned wider).
    pub fn bin(&self) -> i64 {
        self.bin
    }

    /// Seconds `rows` rows span.
    pub fn seconds(&self, rows: usize) -> f64 {
        (rows as i64 * self.bin) as f64
    }

    /// Epoch second of a row (the first second of its bin).
    pub fn epoch(&self, row: usize) -> i64 {
        self.t0.saturating_add((row as i64).saturating_mul(self.bin))
    }

    /// Evidence for the cell at `row`: the input line behind it (quoted) when known,
    /// else the column's source file.
    pub fn evidence(&self, row: usize, metric: &str, value: f64) -> Evidence {
        let epoch = self.epoch(row);
        let lines = self.cells.lines;
        let hit = lines.get(self.col, epoch).or_else(|| lines.get(self.col, epoch + self.bin));
        match hit.and_then(|(file, line)| Some((self.cells.file(file)?, line))) {
            Some((pf, line)) => line_evidence(pf, line, metric, value),
            None => Evidence {
                file: self.source.to_string(),
                lines: None,
                metric: metric.to_string(),
                value: num(value),
                quote: None,
            },
        }
    }
}

/// The main device's writes.
#[derive(Debug, Clone, Copy)]
pub struct DeviceWrites<'a> {
    /// Device name.
    pub device: &'a str,
    /// Its write bytes/s.
    pub series: Series<'a>,
    /// The block stack below it (loop, dm, md down to the physical disk), when resolved.
    pub stack: Option<&'a crate::analysis::stack::Resolved>,
}

impl DeviceWrites<'_> {
    /// `loop0 (loop on physical disk vda)`, or the device name.
    pub fn describe(&self) -> String {
        self.stack.map_or_else(|| self.device.to_string(), |s| s.describe())
    }

    /// The device as a verdict names it.
    pub fn named(&self) -> Device {
        Device {
            name: self.device.to_string(),
            described: self.describe(),
            stack: self.stack.map(|s| DeviceStack { physical: s.physical.clone(), chain: s.chain.clone() }),
        }
    }
}

/// The chosen decoded binlog, as evidence.
#[derive(Debug, Clone, Copy)]
pub struct BinlogFacts<'a> {
    /// Its file.
    pub file: &'a str,
    /// Mean bytes per transaction.
    pub mean_bytes: f64,
}

/// Everything the rules may read.
#[derive(Debug, Clone, Copy)]
pub struct Available<'a> {
    timeline: &'a Timeline,
    cells: Cells<'a>,
    ctx: &'a Context,
    threads: &'a BTreeMap<u32, ThreadTotal>,
    views: &'a Views,
    binlog: Option<BinlogFacts<'a>>,
}

impl<'a> Available<'a> {
    /// What a pipeline and its views offer (`records` from [`records`] of the same pipeline).
    pub fn new(p: &'a Pipeline, records: &Records<'a>, views: &'a Views) -> Self {
        Available {
            timeline: &p.timeline,
            cells: Cells::new(&p.lines, &p.files),
            ctx: &p.ctx,
            threads: &p.threads,
            views,
            binlog: records
                .binlog
                .map(|b| BinlogFacts { file: b.name, mean_bytes: b.binlog.size_stats().mean }),
        }
    }

    /// A timeline and views without input files, context, threads or binlog (for tests).
    pub fn bare(timeline: &'a Timeline, views: &'a Views) -> Self {
        static CTX: std::sync::LazyLock<Context> = std::sync::LazyLock::new(Context::default);
        static THREADS: BTreeMap<u32, ThreadTotal> = BTreeMap::new();
        Available { timeline, cells: Cells::none(), ctx: &CTX, threads: &THREADS, views, binlog: None }
    }

    /// Seconds per timeline row (1 unless the capture was binned wider).
    pub fn bin(&self) -> i64 {
        self.timeline.bin()
    }

    /// A timeline column.
    pub fn series(&self, col: &Col) -> Option<Series<'a>> {
        let (k, s) = self.timeline.entry(col)?;
        Some(Series::new(k, &s.values, &s.source, self.timeline.t0, self.cells).with_bin(self.timeline.bin()))
    }

    /// The first column of the timeline (in name order) that `want` accepts.
    pub fn first_column(&self, want: impl Fn(&Col) -> bool) -> Option<Series<'a>> {
        let (col, _) = self.timeline.iter().find(|(c, _)| want(c))?;
        self.series(col)
    }

    /// The main device.
    pub fn device(&self) -> Option<&'a MainDevice> {
        self.views.device.as_ref()
    }

    /// The main device's writes.
    pub fn device_writes(&self) -> Option<DeviceWrites<'a>> {
        let d = self.device()?;
        Some(DeviceWrites { device: &d.name, series: self.series(&d.writes)?, stack: d.stack.as_ref() })
    }

    /// The write bytes/s of every device: iostat's (`dev.*`), and /proc/diskstats' (`ds.*`)
    /// for the devices iostat does not report, in name order.
    pub fn all_device_writes(&self) -> Vec<DeviceWrites<'a>> {
        let name = |s: &Series<'a>| -> &'a str { s.col.device().unwrap_or_default() };
        let dev: Vec<Series<'a>> =
            self.typed_series(|c| matches!(c, Col::Dev(_, crate::table::columns::DevMetric::WBytesS)));
        let ds = self.typed_series(|c| matches!(c, Col::Ds(_, crate::table::columns::DsMetric::WBytesS)));
        // The main device's resolved stack (loop, dm, md down to the physical disk) goes with it.
        let main = self.device();
        let stack = |d: &str| main.filter(|m| m.name == d).and_then(|m| m.stack.as_ref());
        let mut out: Vec<DeviceWrites<'a>> = dev
            .into_iter()
            .map(|s| DeviceWrites { device: name(&s), stack: stack(name(&s)), series: s })
            .collect();
        for s in ds {
            if !out.iter().any(|d| d.device == name(&s)) {
                out.push(DeviceWrites { device: name(&s), stack: stack(name(&s)), series: s });
            }
        }
        out
    }

    fn typed_series(&self, want: impl Fn(&Col) -> bool) -> Vec<Series<'a>> {
        let tl = self.timeline;
        tl.iter().filter(|(c, _)| want(c)).filter_map(|(c, _)| self.series(c)).collect()
    }

    /// A sysctl value (`vm.dirty_bytes`).
    pub fn sysctl(&self, key: &str) -> Option<&'a Sourced<String>> {
        self.ctx.sysctl.get(key)
    }

    /// Periodicity of the main device's writes.
    pub fn periodicity(&self) -> Option<&'a PeriodicityView> {
        self.views.periodicity.as_ref()
    }

    /// The device stacked on the main one whose writes carry the writeback period when the
    /// main device's do not ([`crate::analysis::Views::stacked_periodicity`]), with its writes.
    pub fn stacked_periodic(&self) -> Option<(DeviceWrites<'a>, &'a PeriodicityView)> {
        let (d, view) = self.views.stacked_periodicity.as_ref()?;
        Some((
            DeviceWrites { device: &d.name, series: self.series(&d.writes)?, stack: d.stack.as_ref() },
            view,
        ))
    }

    /// perf samples in fsync per thread.
    pub fn fsync_shares(&self) -> &'a [crate::analysis::views::FsyncShare] {
        &self.views.fsync_shares
    }

    /// The write episodes of every written device, with their measured issuers.
    pub fn episodes(&self) -> &'a [crate::analysis::episodes::Episode] {
        &self.views.episodes
    }

    /// The writeback tunables.
    pub fn window(&self) -> WritebackWindow {
        self.views.window
    }

    /// pidstat write totals per thread id.
    pub fn threads(&self) -> &'a BTreeMap<u32, ThreadTotal> {
        self.threads
    }

    /// `uname -r`.
    pub fn kernel(&self) -> Option<&'a Sourced<String>> {
        self.ctx.kernel.as_ref()
    }

    /// Every mount.
    pub fn mounts(&self) -> &'a [Sourced<Mount>] {
        &self.ctx.mounts
    }

    /// performance_schema's thread names by OS thread id.
    pub fn thread_map(&self) -> &'a BTreeMap<u32, String> {
        &self.ctx.thread_map
    }

    /// smaps mappings.
    pub fn mappings(&self) -> &'a [Sourced<Mapping>] {
        &self.ctx.mappings
    }

    /// `FilePmdMapped` of /proc/meminfo (max seen, kB).
    pub fn meminfo_file_pmd_mapped_kb(&self) -> Option<&'a Sourced<u64>> {
        self.ctx.meminfo_file_pmd_mapped_kb.as_ref()
    }

    /// A MySQL variable (case-insensitive).
    pub fn variable(&self, name: &str) -> Option<&'a Sourced<String>> {
        self.ctx.variable(name)
    }

    /// The chosen binlog.
    pub fn binlog(&self) -> Option<BinlogFacts<'a>> {
        self.binlog
    }

    /// On-CPU perf samples of a command and those in `balance_dirty_pages`.
    pub fn dirty_throttle_samples(&self, comm: &str) -> Option<crate::analysis::views::StackShare> {
        self.views.dirty_throttle_samples.get(comm).copied()
    }

    /// Share of all perf samples in fsync paths.
    pub fn fsync_sample_share(&self) -> Option<f64> {
        self.views.fsync_sample_share
    }

    /// The replica's connections.
    pub fn replicas(&self) -> &'a [ReplicaView] {
        &self.views.replicas
    }

    /// Status files showing the server is not a replica: bundle index and empty answers of each.
    pub fn not_a_replica(&self) -> &'a [(usize, usize)] {
        &self.views.not_a_replica
    }

    /// perf samples of the replication threads.
    pub fn replica_threads(&self) -> Option<ThreadFsync> {
        self.views.replica_threads
    }

    /// Where threads wait, from gdb or pt-pmp stacks.
    pub fn stacks(&self) -> Option<&'a crate::analysis::waits::StacksView> {
        self.views.stacks.as_ref()
    }

    /// How late the replica wrote the source's transactions.
    pub fn event_lag(&self) -> Option<EventLag> {
        self.views.event_lag
    }

    /// Input file `i` (bundle order).
    pub fn file(&self, i: usize) -> Option<&'a ParsedFile> {
        self.cells.file(i)
    }

    /// The name of the perf script holding block tracepoints (the trace of collect.sh -T).
    pub fn trace_file(&self) -> Option<&'a str> {
        self.cells
            .files
            .iter()
            .find(|f| crate::source::perf(f).is_some_and(|p| !p.tracepoints.is_empty()))
            .map(|f| f.name.as_str())
    }

    /// The large submitters of the block trace, with the period of their own bursts.
    pub fn submitters(&self) -> &'a [crate::analysis::submitters::Submitter] {
        &self.views.submitters
    }
}
