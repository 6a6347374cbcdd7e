//! The lagged correlation chart.

use super::plot::{Draft, HEIGHT, Plot, XyLine, XyPlot};
use super::style::PALETTE;
use crate::model::Report;

/// Lagged correlation curves with the best lag of each marked.
pub fn correlations(report: &Report) -> Option<Draft> {
    // Only pairs whose best |r| beats what the same lag search finds on shuffled data.
    let cs: Vec<_> =
        report.correlations.iter().filter(|c| c.curve.len() >= 2 && c.best_r.abs() > c.shuffled_r).collect();
    if cs.is_empty() {
        return None;
    }
    let mut lines = Vec::new();
    let mut points = Vec::new();
    let (mut x0, mut x1) = (f64::INFINITY, f64::NEG_INFINITY);
    for (i, c) in cs.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let pts: Vec<(f64, f64)> = c.curve.iter().map(|(l, r)| (*l as f64, *r)).collect();
        for (x, _) in &pts {
            x0 = x0.min(*x);
            x1 = x1.max(*x);
        }
        lines.push(XyLine {
            label: format!("{}: r = {:.2} at {:+} s (n = {})", c.label, c.best_r, c.best_lag_s, c.n),
            points: pts,
            color,
        });
        points.push((c.best_lag_s as f64, c.best_r, color));
    }
    Some(Draft {
        title: "Lagged correlation".into(),
        caption: format!(
            "Pearson r between two series with the second shifted by each lag (positive lag: the second \
                 follows the first). Dots mark the best lag of each pair. Shown: {} of {} pairs, those whose best \
                 |r| is above what the same search reaches on shuffled data.",
            cs.len(),
            report.correlations.len()
        ),
        height: HEIGHT,
        plot: Plot::Xy(XyPlot {
            x_desc: "lag, s".into(),
            y_desc: "r".into(),
            x_range: (x0, x1),
            y_range: (-1.05, 1.05),
            lines,
            vmarks: Vec::new(),
            points,
        }),
    })
}
