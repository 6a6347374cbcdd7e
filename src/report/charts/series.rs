//! What the builders share to read the timeline and the analyses: columns with
//! data, values bucketed to at most [`MAX_POINTS`] points (the maximum per
//! bucket: maxima keep short bursts visible, means would flatten them), time
//! plots, burst spans, and caption helpers.

use super::plot::{TimeLine, TimePanel, TimePlot};
use crate::model::Report;
use crate::table::{Cell, Col, Timeline};
use plotters::style::RGBColor;

/// Most points a time series is drawn with; longer timelines take the maximum per bucket.
pub(super) const MAX_POINTS: usize = 1500;
/// Bytes in a MiB.
pub(super) const MIB: f64 = 1024.0 * 1024.0;

/// Bucketed (max per `step` seconds) and scaled values of a column.
pub(super) fn bucket(values: &[Cell], step: usize, scale: f64) -> Vec<Option<f64>> {
    let step = step.max(1);
    values
        .chunks(step)
        .map(|c| {
            c.iter()
                .flatten()
                .filter(|v| v.is_finite())
                .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
        })
        .map(|v| v.map(|v| v * scale))
        .collect()
}

/// A timeline column with at least one finite value.
pub(super) fn column<'a>(t: &'a Timeline, col: &Col) -> Option<&'a [Cell]> {
    named(t, &col.name())
}

/// A column by name (one found by iterating the timeline) with at least one finite value.
pub(super) fn named<'a>(t: &'a Timeline, name: &str) -> Option<&'a [Cell]> {
    let v = t.get(name)?;
    v.iter().flatten().any(|x| x.is_finite()).then_some(v)
}

/// `1 burst`, `3 bursts`.
pub(super) fn plural(n: usize, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

/// The second of the largest value, the largest value and the mean of the present values.
pub(super) fn peak_mean(v: &[Cell]) -> Option<(usize, f64, f64)> {
    let mut best: Option<(usize, f64)> = None;
    let (mut sum, mut n) = (0.0, 0usize);
    for (i, x) in v.iter().enumerate() {
        if let Some(x) = x.get().filter(|x| x.is_finite()) {
            sum += x;
            n += 1;
            if best.is_none_or(|b| x > b.1) {
                best = Some((i, x));
            }
        }
    }
    best.map(|(i, x)| (i, x, sum / n as f64))
}

/// Seconds per point for a timeline.
pub(super) fn step_of(t: &Timeline) -> usize {
    t.len.div_ceil(MAX_POINTS).max(1)
}

/// Caption note when points are bucketed.
pub(super) fn bucket_note(t: &Timeline) -> String {
    let (step, bin) = (step_of(t), t.bin());
    match (step, bin) {
        (1, 1) => String::new(),
        (_, 1) => format!(" Each point is the maximum of {step} s."),
        (1, _) => format!(" Each point is the mean of {bin} s (the timeline's rows)."),
        _ => format!(" Each point is the maximum of {step} means of {bin} s (the timeline's rows)."),
    }
}

/// A time plot of `panels` over the timeline: x in seconds from `t0`, one point per
/// [`step_of`] rows of [`Timeline::bin`] seconds.
pub(super) fn time_plot(t: &Timeline, zone: &crate::clock::DisplayZone, panels: Vec<TimePanel>) -> TimePlot {
    let bin = t.bin() as usize;
    TimePlot { t0: t.t0, step: step_of(t) * bin, len: t.len * bin, panels, zone: zone.clone() }
}

pub(super) fn line(
    t: &Timeline,
    values: &[Cell],
    label: impl Into<String>,
    scale: f64,
    color: RGBColor,
    width: u32,
) -> TimeLine {
    TimeLine { label: label.into(), values: bucket(values, step_of(t), scale), color, width }
}

/// Burst spans (seconds from t0) and peak marks of the periodicity view.
pub(super) fn burst_spans(report: &Report) -> Vec<(f64, f64)> {
    report
        .periodicity
        .as_ref()
        .map(|p| p.bursts.iter().map(|b| (b.start as f64, (b.end + 1) as f64)).collect())
        .unwrap_or_default()
}

/// Median of burst totals when the bursts were found on `column`.
pub(super) fn burst_median(report: &Report, column: &str) -> Option<f64> {
    let p = report.periodicity.as_ref().filter(|p| p.series == column)?;
    let mut v: Vec<f64> = p.bursts.iter().map(|b| b.total).filter(|v| v.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    Some(if v.len() % 2 == 1 { v[m] } else { (v[m - 1] + v[m]) / 2.0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peak_and_mean_skip_values_that_are_not_finite() {
        let v = crate::table::cell::cells([Some(1.0), Some(f64::INFINITY), None, Some(3.0)]);
        assert_eq!(peak_mean(&v), Some((3, 3.0, 2.0)));
    }

    #[test]
    fn bucket_keeps_peaks_and_gaps() {
        let v = crate::table::cell::cells([Some(1.0), Some(9.0), None, None, Some(2.0), Some(f64::NAN)]);
        assert_eq!(bucket(&v, 2, 1.0), vec![Some(9.0), None, Some(2.0)]);
        assert_eq!(bucket(&v, 1, 2.0)[1], Some(18.0));
    }
}
