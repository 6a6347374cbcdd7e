//! MySQL charts: status counters (commits, fsyncs, group commit) and the
//! binary log (rates and transaction sizes).

use super::plot::{BarPlot, Draft, HEIGHT, Plot, TimePanel};
use super::series::{MIB, bucket_note, burst_spans, column, line, peak_mean, time_plot};
use super::style::PALETTE;
use crate::model::Report;
use crate::report::fmt::{bytes_h, num};
use crate::table::columns::{BinlogMetric, GaleraMetric, MysqlCounter};
use crate::table::{Cell, Col};

/// The lines of one panel: each Galera column the capture has, labelled with its status name.
fn galera_lines(report: &Report, metrics: &[(GaleraMetric, &str)]) -> Vec<super::plot::TimeLine> {
    let t = &report.timeline;
    metrics
        .iter()
        .enumerate()
        .filter_map(|(i, (m, label))| {
            column(t, &Col::Galera(*m)).map(|v| line(t, v, *label, 1.0, PALETTE[i % PALETTE.len()], 2))
        })
        .collect()
}

/// One Galera node (wsrep status of mysqladmin extended-status): write sets per second,
/// its receive and send queues, and flow control (the share of each second replication was
/// paused, the pause requests this node sent).
pub(super) fn galera(report: &Report) -> Option<Draft> {
    let t = &report.timeline;
    let rates = galera_lines(
        report,
        &[
            (GaleraMetric::CommittedS, "committed (wsrep_last_committed)"),
            (GaleraMetric::ReceivedS, "received (wsrep_received)"),
            (GaleraMetric::ReplicatedS, "replicated (wsrep_replicated)"),
        ],
    );
    if rates.is_empty() {
        return None;
    }
    let queues = galera_lines(
        report,
        &[
            (GaleraMetric::RecvQueue, "wsrep_local_recv_queue"),
            (GaleraMetric::SendQueue, "wsrep_local_send_queue"),
        ],
    );
    let flow = galera_lines(
        report,
        &[
            (GaleraMetric::FcPausedPct, "paused % (wsrep_flow_control_paused_ns)"),
            (GaleraMetric::FcSentS, "pause requests sent/s (wsrep_flow_control_sent)"),
        ],
    );
    let mut panels =
        vec![TimePanel { y_desc: "write sets per s".into(), lines: rates, ..Default::default() }];
    for (desc, lines) in [("queued write sets", queues), ("% / per s", flow)] {
        if !lines.is_empty() {
            panels.push(TimePanel { y_desc: desc.into(), lines, ..Default::default() });
        }
    }
    let caption = format!(
        "Galera status of this node from mysqladmin extended-status: write sets committed, received and          replicated per second; its receive and send queues as read; flow control: the share of each second          replication was paused and the pause requests this node sent (a node that sends them pauses the          cluster).{}",
        bucket_note(t)
    );
    let height = HEIGHT + 140 * (panels.len() as u32 - 1);
    Some(Draft {
        title: "Galera: write sets, queues and flow control".into(),
        caption,
        height,
        plot: Plot::Time(time_plot(t, &report.display, panels)),
    })
}

/// MySQL status counters (mysqladmin extended-status): commits and fsyncs per second,
/// and the group-commit ratio (binlog commits per group commit, the one division here).
pub fn mysql_status(report: &Report) -> Option<Draft> {
    let t = &report.timeline;
    let mut top = Vec::new();
    let commits = [MysqlCounter::BinlogCommitsS, MysqlCounter::ComCommitS, MysqlCounter::HandlerCommitS]
        .into_iter()
        .find_map(|m| column(t, &Col::Mysql(m)).map(|v| (m, v)));
    if let Some((m, v)) = commits {
        top.push(line(t, v, format!("commits/s ({})", m.key().trim_end_matches("_s")), 1.0, PALETTE[2], 2));
    }
    for (i, m) in [MysqlCounter::InnodbDataFsyncsS, MysqlCounter::InnodbOsLogFsyncsS].into_iter().enumerate()
    {
        if let Some(v) = column(t, &Col::Mysql(m)) {
            top.push(line(t, v, format!("{} ({})", m.meaning(), m.key()), 1.0, PALETTE[i], 2));
        }
    }
    if top.is_empty() {
        return None;
    }
    let mut panels = vec![TimePanel {
        y_desc: "per s".into(),
        lines: top,
        spans: burst_spans(report),
        ..Default::default()
    }];
    let mut caption = String::from(
        "Commits and fsync() calls per second from mysqladmin extended-status deltas: fsyncs that follow \
         commits one for one mean every commit waits for the disk.",
    );
    if let (Some(c), Some(g)) = (
        column(t, &Col::Mysql(MysqlCounter::BinlogCommitsS)),
        column(t, &Col::Mysql(MysqlCounter::BinlogGroupCommitsS)),
    ) {
        let ratio: Vec<Cell> = c
            .iter()
            .zip(g)
            .map(|(c, g)| match (c.get(), g.get()) {
                (Some(c), Some(g)) if g > 0.0 => Cell::some(c / g),
                _ => Cell::GAP,
            })
            .collect();
        if let Some((_, peak, mean)) = peak_mean(&ratio) {
            caption.push_str(&format!(
                " Bottom: binlog commits per group commit, mean {}, at most {} (1 = no grouping).",
                num(mean),
                num(peak)
            ));
            panels.push(TimePanel {
                y_desc: "commits per group".into(),
                lines: vec![line(t, &ratio, "group-commit ratio", 1.0, PALETTE[3], 2)],
                ..Default::default()
            });
        }
    }
    caption.push_str(
        " Threads_running and the InnoDB history list length are not timeline series of iosift: their \
         snapshots are under Database and host state.",
    );
    caption.push_str(&bucket_note(t));
    let h = if panels.len() == 2 { 480 } else { HEIGHT };
    Some(Draft {
        title: "MySQL: commits and fsyncs per second".into(),
        caption,
        height: h,
        plot: Plot::Time(time_plot(t, &report.display, panels)),
    })
}

/// Binlog transactions (and bytes) per second.
pub fn binlog_rate(report: &Report) -> Option<Draft> {
    let t = &report.timeline;
    let trx = column(t, &Col::Binlog(BinlogMetric::TrxS));
    let bytes = column(t, &Col::Binlog(BinlogMetric::BytesS));
    let spans = burst_spans(report);
    let mut panels = Vec::new();
    if let Some(v) = trx {
        panels.push(TimePanel {
            y_desc: "transactions/s".into(),
            lines: vec![line(t, v, "binlog transactions/s", 1.0, PALETTE[2], 2)],
            spans: spans.clone(),
            ..Default::default()
        });
    }
    if let Some(v) = bytes {
        panels.push(TimePanel {
            y_desc: "MiB/s".into(),
            lines: vec![line(t, v, "binlog MiB/s", 1.0 / MIB, PALETTE[4], 2)],
            spans,
            ..Default::default()
        });
    }
    if panels.is_empty() {
        return None;
    }
    let h = if panels.len() == 2 { 480 } else { HEIGHT };
    Some(Draft {
        title: "Binlog: transactions and bytes per second".into(),
        caption: format!(
            "Transactions and bytes written to the binary log per second; shaded: device write bursts. Binlog \
             traffic that stays flat through the bursts does not cause them.{}",
            bucket_note(t)
        ),
        height: h,
        plot: Plot::Time(time_plot(t, &report.display, panels)),
    })
}

/// Histogram of binlog transaction sizes.
pub fn binlog_sizes(report: &Report) -> Option<Draft> {
    let b = report.binlog.as_ref()?;
    if b.size_histogram.is_empty() {
        return None;
    }
    let total: u64 = b.size_histogram.iter().map(|h| h.1).sum();
    let mut rows: Vec<(u64, u64)> = b.size_histogram.clone();
    rows.sort_by_key(|r| r.0);
    rows.truncate(30);
    // Power-of-two buckets by lower bound: bucket b holds sizes in [b, 2b) (bucket 0: size 0).
    let range = |lb: u64| match lb {
        0 => "0 B".to_string(),
        _ => format!("{} to < {}", bytes_h(lb as f64), bytes_h(lb.saturating_mul(2) as f64)),
    };
    let labels = rows.iter().map(|(lb, _)| range(*lb)).collect();
    let values = rows.iter().map(|r| r.1 as f64).collect();
    let notes =
        rows.iter().map(|r| format!("{} ({:.0} %)", r.1, 100.0 * r.1 as f64 / total.max(1) as f64)).collect();
    Some(Draft {
        title: format!(
            "Binlog transaction sizes ({} transactions, median {}, mean {})",
            b.transactions,
            bytes_h(b.median_bytes),
            bytes_h(b.mean_bytes)
        ),
        caption: {
            let top = rows.iter().max_by_key(|r| r.1).copied().unwrap_or_default();
            format!(
                "Transactions by size in {}, smallest bucket at the top; the largest bucket, {}, holds {:.0} %.",
                b.file,
                range(top.0),
                100.0 * top.1 as f64 / total.max(1) as f64
            )
        },
        height: (90 + 26 * rows.len() as u32).max(240),
        plot: Plot::Bars(BarPlot {
            x_desc: "transactions".into(),
            y_desc: "transaction size".into(),
            labels,
            values,
            notes,
            color: PALETTE[2],
        }),
    })
}
