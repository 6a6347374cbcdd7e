//! The numbers a diff compares, measured on one capture over its compared
//! span: the main device (write rate, IOPS, flushes, request size, latency,
//! utilisation), write bursts (count, size, period), writes per category and
//! of the top thread, the database (commit rate, flushes per second and per
//! transaction, fsync share, bytes per transaction, group commit), memory
//! (Dirty and FilePmdMapped peaks), replication lag, CPU iowait.
//!
//! Everything is read through the public [`Report`] and its [`Timeline`]
//! (`report.timeline.get(name)`); nothing is recomputed from the inputs.
//!
//! Rates of a database workload are means over its *load window*: the seconds
//! from the first to the last whose commit rate reaches a quarter of the
//! commit rate's 90th percentile (a 60 s benchmark inside a 75 s capture is
//! compared over its 60 s, not diluted by the idle seconds around it).

use crate::analysis::stats::{mean, median, present, quantile};
use crate::model::Report;
use crate::table::Timeline;
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

fn source_of(tl: &Timeline, name: &str) -> Option<String> {
    tl.columns.get(name).map(|s| s.source.clone())
}

/// The rows of a capture's timeline that are compared.
#[derive(Debug, Clone)]
pub struct Span {
    /// The compared rows (from the alignment point, as long as the shorter capture).
    pub rows: Range<usize>,
    /// The load window inside them (`rows` when the capture has no commit rate).
    pub load: Range<usize>,
    /// The column the load window was found on.
    pub load_by: Option<String>,
}

/// Commit counters, best first: the server's own count of binlog commits, then the
/// decoded binlog's transactions, then statement commits.
pub const COMMIT_COLUMNS: &[&str] =
    &["mysql.Binlog_commits_s", "binlog.trx_s", "mysql.Com_commit_s", "mysql.Handler_commit_s"];

fn col<'a>(tl: &'a Timeline, name: &str, rows: &Range<usize>) -> Option<&'a [crate::table::Cell]> {
    let v = tl.get(name)?;
    v.get(rows.start.min(v.len())..rows.end.min(v.len()))
}

fn mean_of(tl: &Timeline, name: &str, rows: &Range<usize>) -> Val {
    let value = col(tl, name, rows).and_then(|v| mean(&present(v)));
    Val { value, source: value.and(source_of(tl, name)) }
}

fn median_of(tl: &Timeline, name: &str, rows: &Range<usize>) -> Val {
    let value = col(tl, name, rows).and_then(|v| median(&present(v)));
    Val { value, source: value.and(source_of(tl, name)) }
}

fn max_of(tl: &Timeline, name: &str, rows: &Range<usize>) -> Val {
    let value = col(tl, name, rows).and_then(|v| present(v).into_iter().reduce(f64::max));
    Val { value, source: value.and(source_of(tl, name)) }
}

/// The load window of the compared rows: found on the first commit column with
/// activity (see the module doc).
pub fn span(tl: &Timeline, rows: Range<usize>) -> Span {
    for name in COMMIT_COLUMNS {
        let Some(v) = col(tl, name, &rows) else { continue };
        let Some(p90) = quantile(&present(v), 0.9).filter(|p| *p > 0.0) else { continue };
        let hot = |x: &crate::table::Cell| x.is_some_and(|x| x >= 0.25 * p90);
        let (Some(first), Some(last)) = (v.iter().position(hot), v.iter().rposition(hot)) else { continue };
        let load = rows.start + first..rows.start + last + 1;
        return Span { rows, load, load_by: Some(name.to_string()) };
    }
    Span { load: rows.clone(), rows, load_by: None }
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
    let dev_col = r
        .periodicity
        .as_ref()
        .map(|p| p.series.clone())
        .or_else(|| r.main_device.as_ref().map(|d| format!("dev.{d}.w_bytes_s")));
    let dev = dev_col.as_deref().and_then(|c| c.strip_suffix(".w_bytes_s")).map(str::to_string);
    let dc = |metric: &str| dev.as_ref().map(|d| format!("{d}.{metric}")).unwrap_or_default();
    let w = &s.load;
    m("device.w_bytes_s", "main device write rate (mean)", "device", "B/s", mean_of(tl, &dc("w_bytes_s"), w));
    m("device.w_s", "main device writes per second (mean)", "device", "1/s", mean_of(tl, &dc("w_s"), w));
    m("device.f_s", "main device flushes per second (mean)", "device", "1/s", mean_of(tl, &dc("f_s"), w));
    m(
        "device.w_req_bytes",
        "main device write request size (median)",
        "device",
        "B",
        median_of(tl, &dc("w_req_bytes"), w),
    );
    m(
        "device.w_await_ms",
        "main device write latency (median)",
        "device",
        "ms",
        median_of(tl, &dc("w_await_ms"), w),
    );
    m(
        "device.r_await_ms",
        "main device read latency (median)",
        "device",
        "ms",
        median_of(tl, &dc("r_await_ms"), w),
    );
    m("device.util_pct", "main device utilisation (mean)", "device", "%", mean_of(tl, &dc("util_pct"), w));
    m("device.aqu_sz", "main device queue size (mean)", "device", "1", mean_of(tl, &dc("aqu_sz"), w));
    bursts(r, s, &mut m);
    database(r, s, &mut m);
    let all = &s.rows;
    m("memory.dirty_peak", "Dirty peak (/proc/meminfo)", "memory", "B", max_of(tl, "mem.dirty_bytes", all));
    m(
        "memory.file_pmd_mapped_peak",
        "FilePmdMapped peak (file pages mapped with huge folios)",
        "memory",
        "B",
        max_of(tl, "mem.file_pmd_mapped_bytes", all),
    );
    m("cpu.iowait_pct", "CPU iowait (mean)", "cpu", "%", mean_of(tl, "cpu.iowait_pct", w));
    replication(tl, all, &mut m);
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
    if let Some(d) = &dev {
        let name = d.split('.').nth(1).unwrap_or(d).to_string();
        out.iter_mut().filter(|x| x.group == "device").for_each(|x| x.note = Some(name.clone()));
    }
    let top = r.write_sources.iter().flat_map(|w| w.top_threads.iter()).max_by(|a, b| a.2.total_cmp(&b.2));
    if let Some((comm, tid, _)) = top {
        out.push(Measure {
            key: "writes.top_thread".into(),
            label: "write rate of the top writing thread (mean)".into(),
            group: "writes",
            unit: "B/s",
            value: mean_of(tl, &format!("thr.{tid}.w_bytes_s"), w).value,
            note: Some(format!("{comm} (tid {tid})")),
            source: source_of(tl, &format!("thr.{tid}.w_bytes_s")),
        });
    }
    out
}

type Put<'a> = dyn FnMut(&str, &str, &'static str, &'static str, Val) + 'a;

fn bursts(r: &Report, s: &Span, m: &mut Put<'_>) {
    let Some(p) = &r.periodicity else { return };
    let inside: Vec<f64> = p.bursts.iter().filter(|b| s.rows.contains(&b.start)).map(|b| b.total).collect();
    m("bursts.count", "write bursts of the main device", "bursts", "1", Some(inside.len() as f64).into());
    m("bursts.median_bytes", "burst size (median bytes per burst)", "bursts", "B", median(&inside).into());
    m("bursts.period_s", "burst period", "bursts", "s", p.period_s.into());
}

fn database(r: &Report, s: &Span, m: &mut Put<'_>) {
    let tl = &r.timeline;
    let w = &s.load;
    let commits = s.load_by.as_deref().map(|c| mean_of(tl, c, w)).unwrap_or_default();
    let c = commits.value;
    m("db.commit_rate", "commit rate (transactions per second)", "database", "1/s", commits);
    let dev_f = r
        .periodicity
        .as_ref()
        .map(|p| p.series.replace(".w_bytes_s", ".f_s"))
        .or_else(|| r.main_device.as_ref().map(|d| format!("dev.{d}.f_s")));
    let flushes = match (c, dev_f) {
        (Some(_), Some(f)) => mean_of(tl, &f, w),
        _ => Val::default(),
    };
    let f = flushes.value;
    m("db.flushes_s", "device flushes per second during the load", "database", "1/s", flushes);
    let per_trx = match (f, c) {
        (Some(f), Some(c)) if c > 0.0 => Some(f / c),
        _ => None,
    };
    m("db.flushes_per_trx", "device flushes per transaction", "database", "1", per_trx.into());
    m(
        "db.innodb_fsyncs_s",
        "InnoDB fsyncs per second (Innodb_data_fsyncs)",
        "database",
        "1/s",
        mean_of(tl, "mysql.Innodb_data_fsyncs_s", w),
    );
    let group = match (
        mean_of(tl, "mysql.Binlog_commits_s", w).value,
        mean_of(tl, "mysql.Binlog_group_commits_s", w).value,
    ) {
        (Some(c), Some(g)) if g > 0.0 => Some(c / g),
        _ => None,
    };
    m("db.trx_per_group_commit", "transactions per binlog group commit", "database", "1", group.into());
    let (fs, all) =
        r.fsync_shares.iter().fold((0u64, 0u64), |(f, a), x| (f + x.fsync_samples, a + x.samples));
    m(
        "db.fsync_share",
        "share of perf samples in fsync paths",
        "database",
        "%",
        (all > 0).then(|| 100.0 * fs as f64 / all as f64).into(),
    );
    m(
        "db.bytes_per_trx",
        "binlog bytes per transaction (mean)",
        "database",
        "B",
        Val {
            value: r.binlog.as_ref().map(|b| b.mean_bytes),
            source: r.binlog.as_ref().map(|b| b.file.clone()),
        },
    );
}

fn replication(tl: &Timeline, rows: &Range<usize>, m: &mut Put<'_>) {
    let Some(v) = col(tl, "repl.seconds_behind_s", rows) else { return };
    let pts: Vec<(usize, f64)> = v.iter().enumerate().filter_map(|(i, x)| x.map(|x| (i, x))).collect();
    m(
        "replication.lag_max",
        "replication lag (Seconds_Behind_Master), max",
        "replication",
        "s",
        Val {
            value: pts.iter().map(|p| p.1).reduce(f64::max),
            source: source_of(tl, "repl.seconds_behind_s"),
        },
    );
    let growth = match (pts.first(), pts.last()) {
        (Some(a), Some(b)) if b.0 > a.0 => Some((b.1 - a.1) / (b.0 - a.0) as f64),
        _ => None,
    };
    m(
        "replication.lag_growth",
        "replication lag growth (seconds per second)",
        "replication",
        "1",
        Val { value: growth, source: source_of(tl, "repl.seconds_behind_s") },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_window_skips_idle_and_ramp_seconds() {
        // mysqladmin Binlog_commits per second of mariadb_fsync_durable, start and end
        // of the benchmark: idle, a partial first second (282), the load, idle.
        let commits =
            [0.0, 0.0, 0.0, 282.0, 1798.0, 1422.0, 1622.0, 1088.0, 1307.0, 969.0, 1324.0, 862.0, 0.0, 0.0];
        let mut tl = Timeline::new(100.0, 100.0 + commits.len() as f64 - 1.0);
        for (i, c) in commits.iter().enumerate() {
            tl.set_gauge("mysql.Binlog_commits_s", "1/s", "mysqladmin", 100.0 + i as f64, *c);
        }
        let s = span(&tl, 0..tl.len);
        assert_eq!(s.load, 4..12);
        assert_eq!(s.load_by.as_deref(), Some("mysql.Binlog_commits_s"));
        let m = mean_of(&tl, "mysql.Binlog_commits_s", &s.load);
        assert_eq!(m.value, Some(10392.0 / 8.0));
        assert_eq!(m.source.as_deref(), Some("mysqladmin"));
        // No commit column: the whole span.
        let empty = Timeline::new(100.0, 109.0);
        assert_eq!(span(&empty, 2..8).load, 2..8);
    }
}
