//! The report's views of the capture: write sources (pidstat attribution by
//! category), perf (flame graph inputs, per-thread fsync shares) and the
//! decoded binlog's transaction sizes.

use super::{BinlogInput, PerfInput};
use crate::source::ThreadTotal;
use crate::table::Timeline;
use crate::table::columns::Col;
use serde::Serialize;
use std::collections::BTreeMap;

/// A flame graph input: collapsed stacks of one process or thread group.
#[derive(Debug, Clone, Serialize)]
pub struct FlameInput {
    /// Title (`perf-workload.script.txt: all samples`).
    pub title: String,
    /// File-name stem for the SVG (already sanitised).
    pub stem: String,
    /// `frame;frame;leaf count` lines.
    pub folded: Vec<String>,
    /// What the counts are: `samples`, or the sample period's unit when perf printed
    /// periods (the folded weights then sum the periods, not the samples).
    pub count_name: String,
}

/// Per-thread fsync share for the report.
#[derive(Debug, Clone, Serialize)]
pub struct FsyncShare {
    /// Thread name (untrusted: escape it).
    pub comm: String,
    /// Thread id.
    pub tid: Option<u32>,
    /// Samples.
    pub samples: u64,
    /// Samples with an fsync-like frame.
    pub fsync_samples: u64,
}

/// Binlog view for the report.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BinlogView {
    /// Source file.
    pub file: String,
    /// Transactions.
    pub transactions: u64,
    /// Mean bytes per transaction.
    pub mean_bytes: f64,
    /// Median bytes per transaction.
    pub median_bytes: f64,
    /// Histogram: (bucket lower bound in bytes, count); bucket `b` holds sizes in `[b, 2b)`.
    pub size_histogram: Vec<(u64, u64)>,
    /// Transactions per table: (table, count).
    pub per_table: Vec<(String, u64)>,
    /// Events by type as mysqlbinlog names them (`Write_rows`, `Query`, `Xid`, ...), most first.
    pub event_types: Vec<(String, u64)>,
    /// Transactions by kind (`DML`, `DDL`, `other`).
    pub kinds: Vec<(&'static str, u64)>,
    /// The largest transactions, largest first (at most [`LARGEST`]).
    pub largest: Vec<BigTransaction>,
}

/// Largest transactions kept in [`BinlogView::largest`].
pub(crate) const LARGEST: usize = 10;

/// One large binlog transaction.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BigTransaction {
    /// Bytes.
    pub bytes: u64,
    /// Epoch second of its header, when known.
    pub epoch: Option<i64>,
    /// Rows changed.
    pub rows: u64,
    /// Tables it changed.
    pub tables: Vec<String>,
    /// First line of the transaction in the decoded file.
    pub line: u32,
}

/// A stacked write-source group for the chart: (category, timeline column).
#[derive(Debug, Clone, Serialize)]
pub struct WriteSource {
    /// Category (`engine_redo`, `writeback`, ...).
    pub category: String,
    /// Timeline column with its bytes/s.
    pub column: Col,
    /// Total bytes over the capture.
    pub total_bytes: f64,
    /// Top threads in this category: (name, tid, bytes).
    pub top_threads: Vec<(String, u32, f64)>,
}

/// Every write-source category with a timeline column, with its five most writing threads.
pub(crate) fn write_sources(tl: &Timeline, threads: &BTreeMap<u32, ThreadTotal>) -> Vec<WriteSource> {
    let mut out = Vec::new();
    for cat in crate::attribution::CATEGORIES {
        let col = Col::Category(cat);
        let Some(v) = tl.get(&col) else { continue };
        // Bytes: each row's rate over the row's seconds.
        let total: f64 = v.iter().flatten().sum::<f64>() * tl.bin() as f64;
        let mut top: Vec<(String, u32, f64)> = threads
            .iter()
            .filter(|(_, t)| t.category == *cat)
            .map(|(tid, t)| (t.comm.clone(), *tid, t.bytes))
            .collect();
        top.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.1.cmp(&b.1)));
        top.truncate(5);
        out.push(WriteSource {
            category: cat.to_string(),
            column: col,
            total_bytes: total,
            top_threads: top,
        });
    }
    out
}

/// One flame graph per perf file with stacks, and the 30 threads with the most fsync samples.
pub(crate) fn perf_views(perf: &[PerfInput<'_>]) -> (Vec<FlameInput>, Vec<FsyncShare>) {
    let mut flames = Vec::new();
    let mut shares = Vec::new();
    for f in perf {
        let ps = f.script;
        if ps.collapsed.is_empty() {
            continue;
        }
        let mut folded: Vec<String> = ps.collapsed.iter().map(|(k, v)| format!("{k} {v}")).collect();
        // inferno-collapse-perf weighs a stack by the sample period when perf printed one:
        // the counts are samples only when they add up to the folded event's sample count.
        let weight: u64 = ps.collapsed.values().fold(0u64, |a, v| a.saturating_add(*v));
        let event = ps.collapse_event.as_deref();
        let folded_samples = event.and_then(|e| ps.events.get(e)).copied().unwrap_or(ps.samples);
        let count_name = match event {
            _ if weight == folded_samples => "samples".to_string(),
            Some(e) if e.starts_with("cpu-clock") || e.starts_with("task-clock") => {
                "ns (sum of sample periods)".into()
            }
            Some(e) => format!("{} period units", e.split(':').next().unwrap_or(e)),
            None => "period units".into(),
        };
        folded.truncate(200_000);
        flames.push(FlameInput {
            title: format!("{}: {} samples", f.name, ps.samples),
            stem: crate::bundle::sanitize_file_name(f.base.trim_end_matches(".txt")),
            folded,
            count_name,
        });
        for t in &ps.threads {
            if t.samples > 0 {
                shares.push(FsyncShare {
                    comm: t.comm.clone(),
                    tid: t.tid,
                    samples: t.samples,
                    fsync_samples: t.fsync_samples,
                });
            }
        }
    }
    shares.sort_by(|a, b| {
        b.fsync_samples.cmp(&a.fsync_samples).then(b.samples.cmp(&a.samples)).then(a.tid.cmp(&b.tid))
    });
    shares.truncate(30);
    (flames, shares)
}

/// Share of all perf samples (every file, every thread) in fsync paths; `None` without samples.
pub(crate) fn fsync_sample_share(perf: &[PerfInput<'_>]) -> Option<f64> {
    let (mut s, mut fs) = (0u64, 0u64);
    for f in perf {
        for t in &f.script.threads {
            s += t.samples;
            fs += t.fsync_samples;
        }
    }
    (s > 0).then(|| fs as f64 / s as f64)
}

/// Transaction sizes and tables of the chosen binlog, when it holds transactions.
pub(crate) fn binlog_view(binlog: Option<&BinlogInput<'_>>) -> Option<BinlogView> {
    let f = binlog?;
    if f.binlog.transactions.is_empty() {
        return None;
    }
    let s = f.binlog.size_stats();
    Some(BinlogView {
        file: f.name.to_string(),
        transactions: s.count,
        mean_bytes: s.mean,
        median_bytes: s.median,
        size_histogram: s.histogram.clone(),
        per_table: f.binlog.per_table(),
        event_types: {
            let mut v: Vec<(String, u64)> = f.binlog.events.iter().map(|(k, n)| (k.clone(), *n)).collect();
            v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            v
        },
        kinds: {
            use iosift_parsers::mysqlbinlog::TrxKind;
            let n = |k: TrxKind| f.binlog.transactions.iter().filter(|t| t.kind == k).count() as u64;
            vec![("DML", n(TrxKind::Dml)), ("DDL", n(TrxKind::Ddl)), ("other", n(TrxKind::Other))]
        },
        largest: {
            let mut v: Vec<&iosift_parsers::mysqlbinlog::Transaction> =
                f.binlog.transactions.iter().collect();
            v.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.start_line.cmp(&b.start_line)));
            v.iter()
                .take(LARGEST)
                .map(|t| BigTransaction {
                    bytes: t.bytes,
                    epoch: t.epoch,
                    rows: t.rows,
                    tables: f.binlog.table_names(t).map(str::to_string).collect(),
                    line: t.start_line,
                })
                .collect()
        },
    })
}

/// On-CPU profile samples of one command and those inside `balance_dirty_pages` (the
/// kernel pausing a dirtier at the dirty limit).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StackShare {
    /// Samples (weights of the folded stacks).
    pub samples: u64,
    /// Of which with `balance_dirty_pages` on the stack.
    pub balance_dirty_pages: u64,
}

/// Per command (the first field of a folded stack): its on-CPU samples and those in
/// `balance_dirty_pages`, over the perf files of a CPU sampling event (`cpu-clock`,
/// `task-clock`, `cycles`) with call chains.
pub(crate) fn dirty_throttle_samples(perf: &[PerfInput<'_>]) -> BTreeMap<String, StackShare> {
    let mut out: BTreeMap<String, StackShare> = BTreeMap::new();
    for f in perf {
        let ps = f.script;
        let cpu = ps
            .collapse_event
            .as_deref()
            .is_some_and(|e| ["cpu-clock", "task-clock", "cycles"].iter().any(|k| e.starts_with(k)));
        if !cpu || ps.callchain_samples == 0 {
            continue;
        }
        // `dd;entry_SYSCALL_64;...;balance_dirty_pages;io_schedule_timeout 1` -> weight.
        for (stack, w) in &ps.collapsed {
            let comm = stack.split(';').next().unwrap_or("");
            let e = out.entry(comm.to_string()).or_default();
            e.samples += w;
            if stack.split(';').any(|f| f.starts_with("balance_dirty_pages")) {
                e.balance_dirty_pages += w;
            }
        }
    }
    out
}
