//! The replication chart: a replica's lag over the bytes its threads received
//! and executed.

use super::plot::{Draft, HEIGHT, Plot, TimePanel};
use super::series::{bucket_note, column, line, time_plot};
use super::style::{ALERT, GREY, PALETTE};
use crate::model::Report;
use crate::table::Col;
use crate::table::columns::{BinlogMetric, ReplMetric};

/// A replica's lag (its own `SHOW SLAVE STATUS` series) over the source-binlog bytes its IO thread
/// received and its SQL thread executed per second, titled with the thread a verdict measured
/// as bounding it.
pub fn replication(report: &Report) -> Option<Draft> {
    let t = &report.timeline;
    let lag = column(t, &Col::Repl(None, ReplMetric::SecondsBehindS))?;
    // The thread a verdict measured as bounding the lag (a finding's typed actors).
    let bound = report.doc.findings.iter().flat_map(|f| &f.actors.bound).find(|a| a.measured);
    let mut panels = vec![TimePanel {
        y_desc: "seconds behind".into(),
        lines: vec![line(t, lag, "Seconds_Behind_Master", 1.0, ALERT, 2)],
        ..Default::default()
    }];
    let mut rates = Vec::new();
    for (col, label, color, width) in [
        (Col::Repl(None, ReplMetric::ReceivedBytesS), "received (IO thread)", PALETTE[0], 2),
        (Col::Repl(None, ReplMetric::ExecutedBytesS), "executed (SQL thread)", PALETTE[2], 2),
        (Col::Binlog(BinlogMetric::LocalBytesS), "own binlog written", GREY, 1),
    ] {
        if let Some(v) = column(t, &col) {
            rates.push(line(t, v, label, 1.0 / 1024.0, color, width));
        }
    }
    if !rates.is_empty() {
        panels.push(TimePanel { y_desc: "KiB/s".into(), lines: rates, ..Default::default() });
    }
    let title = match bound.and_then(|a| a.comm.as_deref()) {
        Some(who) => format!("Replication: lag, received and executed bytes per second; bound by {who}"),
        None => "Replication: lag, received and executed bytes per second".into(),
    };
    let h = if panels.len() == 2 { 480 } else { HEIGHT };
    Some(Draft {
        title,
        caption: format!(
            "The replica's own status series, on its clock: Seconds_Behind_Master (the server prints 0 whenever \
             the SQL thread has caught up with the IO thread, however far behind the source the IO thread is) and \
             the bytes of the source's binlog the IO thread received and the SQL thread executed per second \
             (Read_Master_Log_Pos and Exec_Master_Log_Pos deltas), with the replica's own binlog growth. Executed \
             equal to received while the lag grows: the IO thread is the bottleneck; received above executed with \
             a growing relay log: the SQL thread.{}",
            bucket_note(t)
        ),
        height: h,
        plot: Plot::Time(time_plot(t, &report.display, panels)),
    })
}
