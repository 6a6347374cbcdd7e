//! Periodicity charts: the autocorrelation and the periodogram of the analysed
//! series.

use super::axis::y_range_of;
use super::plot::{Draft, HEIGHT, Plot, XyLine, XyPlot};
use super::style::{ALERT, PALETTE, WINDOW};
use crate::model::Report;

/// Autocorrelation of the analysed series with the period and the writeback window marked.
pub fn autocorrelation(report: &Report) -> Option<Draft> {
    let p = report.periodicity.as_ref()?;
    if p.acf.len() < 2 {
        return None;
    }
    let points: Vec<(f64, f64)> = p.acf.iter().enumerate().map(|(i, v)| (i as f64, *v)).collect();
    let mut vmarks = Vec::new();
    let mut caption = format!(
        "Correlation of {} with itself shifted by each lag: peaks at multiples of the period.",
        p.series
    );
    if let Some(ps) = p.period_s {
        vmarks.push((ps, format!("period {ps:.1} s"), ALERT));
    }
    if let Some((w, from_capture)) = p.writeback_window_s {
        let src = if from_capture { "from the capture" } else { "kernel defaults" };
        vmarks.push((w, format!("dirty_expire + dirty_writeback = {w:.0} s ({src})"), WINDOW));
        caption.push_str(&format!(
            " The orange line is the flusher's window (dirty_expire_centisecs + dirty_writeback_centisecs, {src}): \
             a period near it points at page-cache writeback."
        ));
    }
    let x1 = (p.acf.len() - 1) as f64;
    let mut title = format!("Autocorrelation of {}", p.series);
    if let Some(ps) = p.period_s {
        title.push_str(&format!(" (period {ps:.1} s)"));
    }
    Some(Draft {
        title,
        caption,
        height: HEIGHT,
        plot: Plot::Xy(XyPlot {
            x_desc: "lag, s".into(),
            y_desc: "autocorrelation".into(),
            x_range: (0.0, x1.max(1.0)),
            y_range: (-1.05, 1.05),
            lines: vec![XyLine { label: "ACF".into(), points, color: PALETTE[0] }],
            vmarks,
            points: Vec::new(),
        }),
    })
}

/// Periodogram: power by period.
pub fn periodogram(report: &Report) -> Option<Draft> {
    let p = report.periodicity.as_ref()?;
    let mut pts: Vec<(f64, f64)> =
        p.periodogram.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite() && *x > 0.0).collect();
    if pts.len() < 2 {
        return None;
    }
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    let x0 = pts.first().map(|p| p.0).unwrap_or(0.0);
    let x1 = pts.last().map(|p| p.0).unwrap_or(1.0);
    let (_, y1) = y_range_of(pts.iter().map(|p| &p.1));
    let mut vmarks = Vec::new();
    if let Some(ps) = p.period_s {
        vmarks.push((ps, format!("period {ps:.1} s"), ALERT));
    }
    if let Some((w, _)) = p.writeback_window_s {
        vmarks.push((w, format!("writeback window {w:.0} s"), WINDOW));
    }
    Some(Draft {
        title: format!("Periodogram of {}", p.series),
        caption: "Power of each period in the series (normalised): one tall peak means one dominant rhythm."
            .into(),
        height: HEIGHT,
        plot: Plot::Xy(XyPlot {
            x_desc: "period, s".into(),
            y_desc: "power".into(),
            x_range: (x0, x1),
            y_range: (0.0, y1),
            lines: vec![XyLine { label: "power".into(), points: pts, color: PALETTE[0] }],
            vmarks,
            points: Vec::new(),
        }),
    })
}
