//! The cluster page's charts: one line per node on the common axis (each node's own time
//! minus its clock offset, [`crate::cluster::offset`]), one chart per quantity: writes of
//! each node's main device, Dirty, commits per second, replication lag, Galera flow control
//! and receive queues.

use super::plot::{HEIGHT, Plot, Section, Spec, TimeLine, TimePanel, TimePlot};
use super::series::{MAX_POINTS, MIB};
use super::style::PALETTE;
use crate::model::Report;
use crate::table::columns::{DevMetric, GaleraMetric, MemMetric, MysqlCounter, ReplMetric};
use crate::table::{Col, Timeline};

/// One node as the charts see it: name, report, clock offset (seconds).
pub type NodeSeries<'a> = (&'a str, &'a Report, f64);

/// A node's column to draw, if it has one.
type Pick = dyn Fn(&Report) -> Option<Col>;

/// The first commit counter a node's capture has non-zero values of: binlog commits, COMMIT
/// statements, engine commits, Galera write sets committed (a Galera node without a binlog).
fn commits(r: &Report) -> Option<Col> {
    [
        Col::Mysql(MysqlCounter::BinlogCommitsS),
        Col::Mysql(MysqlCounter::ComCommitS),
        Col::Mysql(MysqlCounter::HandlerCommitS),
        Col::Galera(GaleraMetric::CommittedS),
    ]
    .into_iter()
    .find(|c| r.timeline.get(c).is_some_and(|v| v.iter().flatten().any(|x| x.is_finite() && x > 0.0)))
}

/// The common axis: from the earliest corrected start to the latest corrected end.
fn axis(nodes: &[NodeSeries<'_>]) -> Option<(i64, usize)> {
    let spans = nodes.iter().filter(|(_, r, _)| r.timeline.len > 0).map(|(_, r, off)| {
        let t = &r.timeline;
        let off = off.round() as i64;
        (t.t0 - off, t.epoch(t.len - 1) + t.bin() - off)
    });
    let (start, end) = spans.fold(None, |acc: Option<(i64, i64)>, (a, b)| {
        Some(acc.map_or((a, b), |(x, y)| (x.min(a), y.max(b))))
    })?;
    usize::try_from(end - start).ok().filter(|&n| n > 0).map(|n| (start, n))
}

/// Keeps the largest value of a point.
fn put_max(points: &mut [Option<f64>], p: usize, x: f64) {
    points[p] = Some(points[p].map_or(x, |m| m.max(x)));
}

/// A one-panel time chart over the common axis `(t0, len, step)`.
fn spec(
    name: &'static str,
    title: String,
    caption: String,
    (t0, len, step): (i64, usize, usize),
    y_desc: &str,
    lines: Vec<TimeLine>,
    zone: &crate::clock::DisplayZone,
) -> Spec {
    Spec {
        name,
        title,
        caption,
        section: Section::Timeline,
        height: HEIGHT,
        plot: Plot::Time(TimePlot {
            t0,
            step,
            len,
            panels: vec![TimePanel { y_desc: y_desc.to_string(), lines, ..Default::default() }],
            zone: zone.clone(),
        }),
    }
}

/// A node's column on the common axis: per `step` seconds, the largest value.
fn on_axis(
    t: &Timeline,
    col: &Col,
    off: f64,
    t0: i64,
    len: usize,
    step: usize,
    scale: f64,
) -> Option<Vec<Option<f64>>> {
    let v = t.get(col)?;
    if !v.iter().flatten().any(|x| x.is_finite()) {
        return None;
    }
    let (bin, off) = (t.bin(), off.round() as i64);
    let points = len.div_ceil(step);
    let mut out = vec![None; points];
    for (row, cell) in v.iter().enumerate() {
        let Some(x) = cell.get().filter(|x| x.is_finite()) else { continue };
        let at = t.t0 + row as i64 * bin - off - t0;
        let Some(p) = usize::try_from(at).ok().map(|a| a / step).filter(|&p| p < points) else { continue };
        put_max(&mut out, p, x * scale);
    }
    Some(out)
}

/// The charts of a cluster page (only those with a line for at least one node).
pub fn overlays(nodes: &[NodeSeries<'_>], zone: &crate::clock::DisplayZone) -> Vec<Spec> {
    let Some((t0, len)) = axis(nodes) else { return Vec::new() };
    let step = len.div_ceil(MAX_POINTS).max(1);
    let quantities: [(&'static str, &str, &str, f64, &Pick); 6] = [
        ("cluster-device-writes", "Writes of each node's main device", "MiB/s", 1.0 / MIB, &|r| {
            r.main_device.clone().map(|d| Col::Dev(d, DevMetric::WBytesS))
        }),
        ("cluster-dirty", "Dirty page cache of each node", "MiB", 1.0 / MIB, &|_| {
            Some(Col::Mem(MemMetric::DirtyBytes))
        }),
        ("cluster-commits", "Commits per second of each node", "commits/s", 1.0, &commits),
        ("cluster-lag", "Seconds_Behind_Master of each replica", "s", 1.0, &|_| {
            Some(Col::Repl(None, ReplMetric::SecondsBehindS))
        }),
        (
            "cluster-flow-control",
            "Galera: share of each second replication stood paused by flow control",
            "%",
            1.0,
            &|_| Some(Col::Galera(GaleraMetric::FcPausedPct)),
        ),
        (
            "cluster-recv-queue",
            "Galera: write sets received and not yet applied (wsrep_local_recv_queue)",
            "write sets",
            1.0,
            &|_| Some(Col::Galera(GaleraMetric::RecvQueue)),
        ),
    ];
    let mut out = Vec::new();
    for (name, title, unit, scale, pick) in quantities {
        let lines: Vec<TimeLine> = nodes
            .iter()
            .enumerate()
            .filter_map(|(i, (n, r, off))| {
                let col = pick(r)?;
                let values = on_axis(&r.timeline, &col, *off, t0, len, step, scale)?;
                // A device series names its device; a commit series names its counter.
                let commits = name == "cluster-commits" && matches!(col, Col::Mysql(_) | Col::Galera(_));
                let label = if let Col::Dev(d, _) = &col {
                    format!("{n} ({d})")
                } else if commits {
                    format!("{n} ({})", col.name())
                } else {
                    n.to_string()
                };
                Some(TimeLine { label, values, color: PALETTE[i % PALETTE.len()], width: 2 })
            })
            .collect();
        if lines.is_empty() {
            continue;
        }
        let caption = format!(
            "One line per node on the common axis: each node's own times minus its clock offset (rounded to the \
             second; the offsets and how they were found are in the table above).{}",
            if step > 1 { format!(" Each point is the largest value of {step} s.") } else { String::new() }
        );
        out.push(spec(name, title.to_string(), caption, (t0, len, step), unit, lines, zone));
    }
    out
}

/// File stems of the chains' charts (the first four chains).
const CHAIN_NAMES: [&str; 4] = ["cluster-chain-1", "cluster-chain-2", "cluster-chain-3", "cluster-chain-4"];

/// One replication chain's debts, as its chart draws them.
pub struct ChainDebts<'a> {
    /// The source node.
    pub source: &'a str,
    /// The replica node.
    pub replica: &'a str,
    /// Where the lag is born, in words.
    pub verdict: &'a str,
    /// (seconds on the common axis, bytes not yet received, bytes received and not executed).
    pub debts: &'a [(f64, f64, Option<f64>)],
}

/// One chart per replication chain: the bytes not yet received and the bytes received and not
/// executed, on the common axis of `nodes`.
pub fn chains(
    nodes: &[NodeSeries<'_>],
    chains: &[ChainDebts<'_>],
    zone: &crate::clock::DisplayZone,
) -> Vec<Spec> {
    let Some((t0, len)) = axis(nodes) else { return Vec::new() };
    let step = len.div_ceil(MAX_POINTS).max(1);
    let points = len.div_ceil(step);
    let mut out = Vec::new();
    for (c, name) in chains.iter().zip(CHAIN_NAMES) {
        let (mut owed, mut behind) = (vec![None; points], vec![None; points]);
        for &(t, o, b) in c.debts {
            let Some(p) =
                usize::try_from(t.floor() as i64 - t0).ok().map(|a| a / step).filter(|&p| p < points)
            else {
                continue;
            };
            put_max(&mut owed, p, o / MIB);
            if let Some(b) = b {
                put_max(&mut behind, p, b / MIB);
            }
        }
        let lines = vec![
            TimeLine {
                label: "not yet received (link and IO thread)".into(),
                values: owed,
                color: PALETTE[3],
                width: 2,
            },
            TimeLine {
                label: "received, not executed (SQL thread)".into(),
                values: behind,
                color: PALETTE[2],
                width: 2,
            },
        ];
        let title = format!("{} -> {}: where the lag is born ({})", c.source, c.replica, c.verdict);
        let caption = format!(
            "The source's binlog end ({}'s SHOW MASTER STATUS, interpolated) minus the replica's Read_Master_Log_Pos, \
             and Read_Master_Log_Pos minus Exec_Master_Log_Pos, each reading of {} placed on the common axis. The \
             debt that grows is where the lag is born.",
            c.source, c.replica
        );
        out.push(spec(name, title, caption, (t0, len, step), "MiB", lines, zone));
    }
    out
}
