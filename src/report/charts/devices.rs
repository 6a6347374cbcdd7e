//! Charts of the main device: its write throughput with the bursts, and its
//! latency and queue (iostat -x).

use super::plot::{Draft, HEIGHT, Plot, TimePanel};
use super::series::{
    MIB, bucket_note, burst_median, burst_spans, column, line, named, peak_mean, plural, step_of, time_plot,
};
use super::style::{GREY, PALETTE};
use crate::model::Report;
use crate::report::fmt::{bytes_h, num};
use crate::table::Col;
use crate::table::columns::DevMetric;

/// Device write throughput of the main device, bursts shaded, peaks marked.
pub fn device_writes(report: &Report) -> Option<Draft> {
    let t = &report.timeline;
    let dev = report.main_device.as_deref()?;
    let wcol = Col::Dev(dev.to_string(), DevMetric::WBytesS).name();
    let w = named(t, &wcol)?;
    let step = step_of(t);
    let mut lines = vec![line(t, w, format!("{dev} writes"), 1.0 / MIB, PALETTE[0], 2)];
    if let Some(r) = column(t, &Col::Dev(dev.to_string(), DevMetric::RBytesS)) {
        lines.push(line(t, r, format!("{dev} reads"), 1.0 / MIB, GREY, 1));
    }
    let per = report.periodicity.as_ref();
    let on_this = per.is_some_and(|p| p.series == wcol);
    let spans = burst_spans(report);
    let marks: Vec<(f64, f64)> = per
        .filter(|_| on_this)
        .map(|p| {
            p.bursts
                .iter()
                .map(|b| ((b.peak / step * step) as f64 + step as f64 / 2.0, b.peak_value / MIB))
                .collect()
        })
        .unwrap_or_default();
    let guide = per
        .filter(|p| on_this && p.threshold.is_finite() && p.threshold > 0.0)
        .map(|p| (p.threshold / MIB, "burst threshold".to_string()));
    let mut title = format!("Device {dev}: writes, MiB/s");
    let mut caption = format!("Write throughput of {dev} (the most written device), MiB/s per second.");
    if let Some((at, peak, mean)) = peak_mean(w) {
        caption.push_str(&format!(
            " Peak {}/s at {}, mean {}/s.",
            bytes_h(peak),
            report.display.format(t.epoch(at), "%H:%M:%S"),
            bytes_h(mean)
        ));
    }
    if let Some(p) = per {
        let n = p.bursts.len();
        if n > 0 {
            caption.push_str(&format!(" Shaded: {} found on {}", plural(n, "burst"), p.series));
            if on_this && guide.is_some() {
                caption.push_str(", red dots mark their peaks, the grey line is the burst threshold");
            } else if on_this {
                caption.push_str(&format!(
                    ", red dots mark their peaks; each second was measured against its own local floor (the median of the {} s around it), so no single threshold is drawn",
                    crate::analysis::bursts::FLOOR_WINDOW
                ));
            }
            caption.push('.');
        } else {
            caption.push_str(" No burst rose above the threshold.");
        }
        match (p.period_s, p.confidence) {
            (Some(ps), c) if n >= 2 && p.is_periodic() => {
                let c = c.map(|c| format!(", confidence {:.2}", c)).unwrap_or_default();
                title.push_str(&format!(" (period {ps:.1} s{c}, {n} bursts)"));
                caption.push_str(&format!(" Bursts repeat every {ps:.1} s{c}."));
            }
            (Some(ps), Some(c)) if n >= 2 => {
                title.push_str(&format!(" ({}, no confident period)", plural(n, "burst")));
                caption.push_str(&format!(
                    " No period stands out: the likeliest, every {ps:.1} s, has confidence {c:.2} (0.50 is needed)."
                ));
            }
            _ if n > 0 => {
                title.push_str(&format!(" ({}, no period)", plural(n, "burst")));
            }
            _ => {}
        }
        if let Some(m) = burst_median(report, &wcol) {
            caption.push_str(&format!(" Median burst volume {}.", bytes_h(m)));
        }
    }
    caption.push_str(&bucket_note(t));
    let panel = TimePanel { y_desc: "MiB/s".into(), lines, spans, marks, guide, ..Default::default() };
    Some(Draft {
        title,
        caption,
        height: HEIGHT,
        plot: Plot::Time(time_plot(t, &report.display, vec![panel])),
    })
}

/// Latency (await) and queue (aqu-sz, %util, f/s normalised) of the main device.
pub fn latency_queue(report: &Report) -> Option<Draft> {
    let t = &report.timeline;
    let dev = report.main_device.as_deref()?;
    let c = |m: DevMetric| column(t, &Col::Dev(dev.to_string(), m));
    let mut top = Vec::new();
    for (i, (m, label)) in
        [(DevMetric::WAwaitMs, "w_await"), (DevMetric::FAwaitMs, "f_await"), (DevMetric::RAwaitMs, "r_await")]
            .iter()
            .enumerate()
    {
        if let Some(v) = c(*m) {
            top.push(line(t, v, *label, 1.0, PALETTE[i], if i == 2 { 1 } else { 2 }));
        }
    }
    let mut bottom = Vec::new();
    for (i, (m, label)) in [
        (DevMetric::AquSz, "aqu-sz"),
        (DevMetric::UtilPct, "%util"),
        (DevMetric::FS, "f/s"),
        (DevMetric::WS, "w/s"),
    ]
    .iter()
    .enumerate()
    {
        if let Some(v) = c(*m) {
            let max = v.iter().flatten().filter(|x| x.is_finite()).fold(0.0f64, f64::max);
            if max > 0.0 {
                bottom.push(line(t, v, format!("{label} (max {})", num(max)), 1.0 / max, PALETTE[i + 3], 2));
            }
        }
    }
    if top.is_empty() && bottom.is_empty() {
        return None;
    }
    let spans = burst_spans(report);
    let mut panels = Vec::new();
    if !top.is_empty() {
        panels.push(TimePanel {
            y_desc: "ms".into(),
            lines: top,
            spans: spans.clone(),
            ..Default::default()
        });
    }
    if !bottom.is_empty() {
        panels.push(TimePanel {
            y_desc: "fraction of max".into(),
            lines: bottom,
            spans,
            y_range: Some((0.0, 1.75)),
            ..Default::default()
        });
    }
    let h = if panels.len() == 2 { 520 } else { HEIGHT };
    Some(Draft {
        title: format!("Device {dev}: latency and queue (iostat -x)"),
        caption: format!(
            "Top: average wait per write and per flush request (ms). Bottom: queue size, utilisation and request \
             rates, each divided by its maximum (in the legend) so they share one axis.{}",
            bucket_note(t)
        ),
        height: h,
        plot: Plot::Time(time_plot(t, &report.display, panels)),
    })
}
