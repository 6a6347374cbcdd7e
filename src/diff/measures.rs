//! The numbers a diff compares, measured on one capture over its compared
//! span: the main device (write rate, IOPS, flushes, request size, latency,
//! utilisation), write bursts (count, size, period), writes per category and
//! of the top thread, the database (commit rate, flushes per second and per
//! transaction, fsync share, bytes per transaction, group commit), memory
//! (Dirty and FilePmdMapped peaks), replication lag, CPU iowait.
//!
//! Everything is read through the public [`Report`] and its [`Timeline`]. A number a
//! finding also states comes from the rules' own function ([`crate::analysis::measures::Measures`]):
//! the commit and flush rates from [`LoadRates::over`], the lag from the best witness of the
//! replication rule ([`crate::analysis::measures::LagMeasure`]), the bursts from the periodicity
//! analysis' periodic bursts; over a whole capture the diff and the report read the same.
//!
//! Rates of a database workload are means over its *load window*: the seconds with at least
//! [`LoadRates::ACTIVE_TRX_S`] commits, the window of the fsync rule (a 60 s benchmark inside
//! a 75 s capture is compared over its 60 s, not diluted by the idle seconds around it).

use crate::analysis::measures::LoadRates;
use crate::model::Report;
use crate::stats::{mean, median};
use crate::table::Timeline;
use crate::table::columns::{Col, CpuMetric, DevMetric, MemMetric, MysqlCounter};
use std::ops::Range;

/// One measured number.
#[derive(Debug, Clone)]
pub struct Measure {
    /// Stable key of the diff.json contract (`db.commit_rate`).
    pub key: String,
    /// What it is, in words.
    pub label: String,
    /// Group (`device`, `bursts`, `writes`, `database`, `memory`, `replication`, `cpu`).
    pub group: &'static str,
    /// Unit (`B/s`, `B`, `1/s`, `ms`, `%`, `s`, `1`).
    pub unit: &'static str,
    /// The value (`None`: the capture cannot tell).
    pub value: Option<f64>,
    /// What it is about in this capture (`vda`, `mstore-0 (tid 20843)`), when it varies.
    pub note: Option<String>,
    /// The input file it was read from (the timeline column's source), when one file holds it.
    pub source: Option<String>,
}

/// A value with the input file of its timeline column.
#[derive(Debug, Clone, Default)]
pub struct Val {
    /// The value.
    pub value: Option<f64>,
    /// The column's input file.
    pub source: Option<String>,
}

impl From<Option<f64>> for Val {
    fn from(value: Option<f64>) -> Self {
        Val { value, source: None }
    }
}

fn source_of(tl: &Timeline, col: &Col) -> Option<String> {
    tl.series(col).map(|s| s.source.clone())
}

/// The main device's column of a report for `metric`: on the series the periodicity was
/// analysed on (iostat's or /proc/diskstats'), else iostat's of the main device; `None`
/// when /proc/diskstats has no such metric.
pub(super) fn device_col(r: &Report, metric: DevMetric) -> Option<Col> {
    let writes = r
        .periodicity
        .as_ref()
        .map(|p| p.series.clone())
        .or_else(|| r.main_device.as_ref().map(|d| Col::Dev(d.clone(), DevMetric::WBytesS)))?;
    let d = writes.device()?.to_string();
    if matches!(writes, Col::Ds(..)) {
        Some(Col::Ds(d, metric.on_diskstats()?))
    } else {
        Some(Col::Dev(d, metric))
    }
}

/// The rows of a capture's timeline that are compared.
#[derive(Debug, Clone)]
pub struct Span {
    /// The compared rows (from the alignment point, as long as the shorter capture).
    pub rows: Range<usize>,
    /// The load window inside them (every compared row when the capture has no commit rate).
    pub load: Vec<usize>,
    /// The commit and flush rates over the load window (the fsync rule's function).
    pub rates: Option<LoadRates>,
}

impl Span {
    /// The column the load window was found on.
    pub fn load_by(&self) -> Option<&Col> {
        self.rates.as_ref().map(|r| &r.commit_column)
    }

    /// Every compared row.
    fn all(&self) -> Vec<usize> {
        self.rows.clone().collect()
    }
}

fn values(tl: &Timeline, col: &Col, rows: &[usize]) -> Option<Vec<f64>> {
    let v = tl.get(col)?;
    Some(rows.iter().filter_map(|&r| crate::table::cell::at(v, r)).collect())
}

fn mean_of(tl: &Timeline, col: &Col, rows: &[usize]) -> Val {
    let value = values(tl, col, rows).and_then(|v| mean(&v));
    Val { value, source: value.and(source_of(tl, col)) }
}

fn median_of(tl: &Timeline, col: &Col, rows: &[usize]) -> Val {
    let value = values(tl, col, rows).and_then(|v| median(&v));
    Val { value, source: value.and(source_of(tl, col)) }
}

fn max_of(tl: &Timeline, col: &Col, rows: &[usize]) -> Val {
    let value = values(tl, col, rows).and_then(|v| v.into_iter().reduce(f64::max));
    Val { value, source: value.and(source_of(tl, col)) }
}

/// The load window of the compared rows: the fsync rule's, on the columns it chose
/// ([`crate::analysis::measures::Measures::load`]).
pub fn span(r: &Report, rows: Range<usize>) -> Span {
    let tl = &r.timeline;
    if let Some(l) = &r.measures.load
        && let (Some(c), Some(f)) = (tl.get(&l.commit_column), tl.get(&l.flush_column))
    {
        let rates = LoadRates::over((&l.commit_column, c), (&l.flush_column, f), rows.clone(), tl.bin());
        if !rates.rows.is_empty() {
            return Span { load: rates.rows.clone(), rows, rates: Some(rates) };
        }
    }
    Span { load: rows.clone().collect(), rows, rates: None }
}

/// Every measure of a capture over its span.
pub fn measure(r: &Report, s: &Span) -> Vec<Measure> {
    let tl = &r.timeline;
    let mut out = Vec::new();
    let mut m = |key: &str, label: &str, group: &'static str, unit: &'static str, v: Val| {
        let Val { value, source } = v;
        out.push(Measure { key: key.into(), label: label.into(), group, unit, value, note: None, source });
    };
    // The main device (the column the periodicity was analysed on, or iostat's).
    let dev = device_col(r, DevMetric::WBytesS).and_then(|c| c.device().map(str::to_string));
    let w = &s.load;
    let dc = |metric: DevMetric, f: fn(&Timeline, &Col, &[usize]) -> Val| {
        device_col(r, metric).map_or_else(Val::default, |c| f(tl, &c, w))
    };
    m("device.w_bytes_s", "main device write rate (mean)", "device", "B/s", dc(DevMetric::WBytesS, mean_of));
    m("device.w_s", "main device writes per second (mean)", "device", "1/s", dc(DevMetric::WS, mean_of));
    m("device.f_s", "main device flushes per second (mean)", "device", "1/s", dc(DevMetric::FS, mean_of));
    m(
        "device.w_req_bytes",
        "main device write request size (median)",
        "device",
        "B",
        dc(DevMetric::WReqBytes, median_of),
    );
    m(
        "device.w_await_ms",
        "main device write latency (median)",
        "device",
        "ms",
        dc(DevMetric::WAwaitMs, median_of),
    );
    m(
        "device.r_await_ms",
        "main device read latency (median)",
        "device",
        "ms",
        dc(DevMetric::RAwaitMs, median_of),
    );
    m("device.util_pct", "main device utilisation (mean)", "device", "%", dc(DevMetric::UtilPct, mean_of));
    m("device.aqu_sz", "main device queue size (mean)", "device", "1", dc(DevMetric::AquSz, mean_of));
    bursts(r, s, &mut m);
    database(r, s, &mut m);
    let all = &s.all();
    m(
        "memory.dirty_peak",
        "Dirty peak (/proc/meminfo)",
        "memory",
        "B",
        max_of(tl, &Col::Mem(MemMetric::DirtyBytes), all),
    );
    m(
        "memory.file_pmd_mapped_peak",
        "FilePmdMapped peak (file pages mapped with huge folios)",
        "memory",
        "B",
        max_of(tl, &Col::Mem(MemMetric::FilePmdMappedBytes), all),
    );
    m("cpu.iowait_pct", "CPU iowait (mean)", "cpu", "%", mean_of(tl, &Col::Cpu(CpuMetric::IowaitPct), w));
    replication(r, s, &mut m);
    for ws in &r.write_sources {
        m(
            &format!("writes.{}", ws.category),
            &format!("writes of category {} (mean)", ws.category),
            "writes",
            "B/s",
            mean_of(tl, &ws.column, w),
        );
    }
    // Notes: the device, and the top writing thread.
    if let Some(name) = &dev {
        out.iter_mut().filter(|x| x.group == "device").for_each(|x| x.note = Some(name.clone()));
    }
    // The flush column (the device's, or this server's fsyncs) and the lag's witness.
    let flush_note = s.rates.as_ref().map(|x| x.flush_column.name());
    let witness = r.measures.lag.as_ref().map(|l| format!("witness: {}", l.series.witness.id()));
    for x in out.iter_mut() {
        match x.key.as_str() {
            "db.flushes_s" | "db.flushes_per_trx" => x.note.clone_from(&flush_note),
            "replication.lag_max" | "replication.lag_growth" => x.note.clone_from(&witness),
            _ => {}
        }
    }
    let top = r.write_sources.iter().flat_map(|w| w.top_threads.iter()).max_by(|a, b| a.2.total_cmp(&b.2));
    if let Some((comm, tid, _)) = top {
        out.push(Measure {
            key: "writes.top_thread".into(),
            label: "write rate of the top writing thread (mean)".into(),
            group: "writes",
            unit: "B/s",
            value: mean_of(tl, &Col::Thread(*tid), w).value,
            note: Some(format!("{comm} (tid {tid})")),
            source: source_of(tl, &Col::Thread(*tid)),
        });
    }
    out
}

type Put<'a> = dyn FnMut(&str, &str, &'static str, &'static str, Val) + 'a;

fn bursts(r: &Report, s: &Span, m: &mut Put<'_>) {
    let Some(p) = &r.periodicity else { return };
    // The bursts the period was found on (the periodic rule's), those starting in the span.
    let inside: Vec<f64> =
        p.periodic_bursts().into_iter().filter(|b| s.rows.contains(&b.start)).map(|b| b.total).collect();
    m(
        "bursts.count",
        "periodic write bursts of the main device",
        "bursts",
        "1",
        Some(inside.len() as f64).into(),
    );
    m("bursts.median_bytes", "burst size (median bytes per burst)", "bursts", "B", median(&inside).into());
    m("bursts.period_s", "burst period", "bursts", "s", p.period_s.into());
}

fn database(r: &Report, s: &Span, m: &mut Put<'_>) {
    let tl = &r.timeline;
    let w = &s.load;
    let rate = |f: fn(&LoadRates) -> Option<f64>, col: fn(&LoadRates) -> &Col| Val {
        value: s.rates.as_ref().and_then(f),
        source: s.rates.as_ref().and_then(|x| source_of(tl, col(x))),
    };
    fn commits(x: &LoadRates) -> &Col {
        &x.commit_column
    }
    fn flushes(x: &LoadRates) -> &Col {
        &x.flush_column
    }
    m(
        "db.commit_rate",
        "commit rate (transactions per second)",
        "database",
        "1/s",
        rate(|x| Some(x.transactions_per_s), commits),
    );
    m(
        "db.flushes_s",
        "flushes per second during the load",
        "database",
        "1/s",
        rate(|x| Some(x.flushes_per_s), flushes),
    );
    m(
        "db.flushes_per_trx",
        "flushes per transaction",
        "database",
        "1",
        rate(LoadRates::flushes_per_transaction, flushes),
    );
    m(
        "db.innodb_fsyncs_s",
        "InnoDB fsyncs per second (Innodb_data_fsyncs)",
        "database",
        "1/s",
        mean_of(tl, &Col::Mysql(MysqlCounter::InnodbDataFsyncsS), w),
    );
    let group = match (
        mean_of(tl, &Col::Mysql(MysqlCounter::BinlogCommitsS), w).value,
        mean_of(tl, &Col::Mysql(MysqlCounter::BinlogGroupCommitsS), w).value,
    ) {
        (Some(c), Some(g)) if g > 0.0 => Some(c / g),
        _ => None,
    };
    m("db.trx_per_group_commit", "transactions per binlog group commit", "database", "1", group.into());
    m(
        "db.fsync_share",
        "share of perf samples in fsync paths",
        "database",
        "%",
        r.measures.fsync_sample_share.map(|x| 100.0 * x).into(),
    );
    let bytes = r.measures.bytes_per_transaction.as_ref();
    m(
        "db.bytes_per_trx",
        "binlog bytes per transaction (mean)",
        "database",
        "B",
        Val { value: bytes.map(|b| b.0), source: bytes.map(|b| b.1.clone()) },
    );
}

/// The lag of the replication rule's best witness, over the compared span.
fn replication(r: &Report, s: &Span, m: &mut Put<'_>) {
    let Some(lag) = &r.measures.lag else { return };
    let tl = &r.timeline;
    let (from, to) = (tl.epoch(s.rows.start) as f64, (tl.epoch(s.rows.end) - 1) as f64 + 0.999);
    let series = lag.within(from, to);
    let source = r.doc.bundle.inputs.get(series.file).map(|i| i.path.clone());
    m(
        "replication.lag_max",
        "replication lag, max",
        "replication",
        "s",
        Val { value: series.max_s(), source: source.clone() },
    );
    m(
        "replication.lag_growth",
        "replication lag growth (seconds per second, least squares)",
        "replication",
        "1",
        Val { value: series.growth(), source },
    );
}
