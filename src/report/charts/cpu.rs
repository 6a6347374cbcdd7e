//! CPU charts: all cores and each core's busy share; the kernel's runnable and
//! blocked tasks.

use super::plot::{Draft, HEIGHT, Plot, TimeLine, TimePanel};
use super::series::{bucket_note, burst_spans, column, line, peak_mean, time_plot};
use super::style::{ALERT, PALETTE};
use crate::model::Report;
use crate::report::fmt::num;
use crate::table::Col;
use crate::table::columns::{CoreMetric, CpuMetric, HostMetric};

/// CPU of all cores (user, system, iowait) and each core's busy share (iostat avg-cpu, sar -u or mpstat).
pub fn cpu_usage(report: &Report) -> Option<Draft> {
    let t = &report.timeline;
    let mut top = Vec::new();
    for (i, (c, label)) in
        [(CpuMetric::UserPct, "%user"), (CpuMetric::SystemPct, "%system"), (CpuMetric::IowaitPct, "%iowait")]
            .iter()
            .enumerate()
    {
        if let Some(v) = column(t, &Col::Cpu(*c)) {
            top.push(line(t, v, *label, 1.0, PALETTE[i], 2));
        }
    }
    let cores: Vec<Col> = t
        .iter()
        .filter(|(c, _)| matches!(c, Col::Core(_, CoreMetric::BusyPct)))
        .map(|(c, _)| c.clone())
        .collect();
    let bottom: Vec<TimeLine> = cores
        .iter()
        .take(PALETTE.len())
        .enumerate()
        .filter_map(|(i, c)| {
            let core = c.entity().unwrap_or_default();
            column(t, c)
                .map(|v| line(t, v, format!("CPU {core} busy"), 1.0, PALETTE[(i + 3) % PALETTE.len()], 1))
        })
        .collect();
    if top.is_empty() && bottom.is_empty() {
        return None;
    }
    let source = std::iter::once(Col::Cpu(CpuMetric::UserPct))
        .chain(cores.first().cloned())
        .find_map(|c| t.series(&c))
        .map_or(String::new(), |s| s.source.clone());
    let panels: Vec<TimePanel> = [top, bottom]
        .into_iter()
        .filter(|l| !l.is_empty())
        .map(|lines| TimePanel {
            y_desc: "%".into(),
            lines,
            spans: burst_spans(report),
            y_range: Some((0.0, 105.0)),
            ..Default::default()
        })
        .collect();
    let h = if panels.len() == 2 { 520 } else { HEIGHT };
    Some(Draft {
        title: format!("CPU, % ({source})"),
        caption: format!(
            "Top: all cores (user, system, iowait; steal is not a timeline series of iosift). Bottom: each core's \
             busy share (100 - %idle). A saturated CPU bounds a commit rate as surely as a slow flush.{}",
            bucket_note(t)
        ),
        height: h,
        plot: Plot::Time(time_plot(t, &report.display, panels)),
    })
}

/// The kernel's runnable tasks and tasks waiting for I/O (`/proc/stat` procs_running and
/// procs_blocked, e.g. pt-stalk's `-procstat`).
pub(super) fn tasks(report: &Report) -> Option<Draft> {
    let t = &report.timeline;
    let blocked = column(t, &Col::Host(HostMetric::StatProcsBlocked));
    let running = column(t, &Col::Host(HostMetric::StatProcsRunning));
    if blocked.is_none() && running.is_none() {
        return None;
    }
    let mut lines = Vec::new();
    if let Some(v) = running {
        lines.push(line(t, v, "running (procs_running)", 1.0, PALETTE[0], 2));
    }
    if let Some(v) = blocked {
        lines.push(line(t, v, "blocked in I/O (procs_blocked)", 1.0, ALERT, 2));
    }
    let most = blocked.and_then(peak_mean).map_or(String::new(), |(at, peak, _)| match peak {
        0.0 => " No task was counted as blocked in I/O.".to_string(),
        n => format!(
            " At most {} blocked in I/O, at {}.",
            num(n),
            report.display.format(t.epoch(at), "%H:%M:%S")
        ),
    });
    let panel = TimePanel { y_desc: "tasks".into(), lines, ..Default::default() };
    Some(Draft {
        title: "Tasks running and blocked in I/O (/proc/stat)".into(),
        caption: format!(
            "Runnable tasks (procs_running) and tasks waiting for I/O (procs_blocked) in the /proc/stat \
             snapshots.{most}{}",
            bucket_note(t)
        ),
        height: HEIGHT,
        plot: Plot::Time(time_plot(t, &report.display, vec![panel])),
    })
}
