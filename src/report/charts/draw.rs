//! The generic renderer: draws a [`Spec`] on any plotters backend, one function
//! per kind of plot. It only reads the description: the only arithmetic is
//! stacking and the steps of a series.

use super::axis::{TimeAxis, panel_y_range, stack, tick_pattern, time_ticks};
use super::plot::{BarPlot, Plot, Spec, TimePanel, TimePlot, XyPlot};
use super::style::{ALERT, FONT, GREY, GRID};
use crate::report::fmt::num;
use plotters::chart::MeshStyle;
use plotters::coord::Shift;
use plotters::coord::ranged1d::SegmentValue;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Draws on any backend.
pub(super) fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, spec: &Spec) -> Result<(), String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let body = root.titled(&spec.title, (FONT, 19)).map_err(|e| e.to_string())?;
    match &spec.plot {
        Plot::Time(p) => draw_time(&body, p),
        Plot::Xy(p) => draw_xy(&body, p),
        Plot::Bars(p) => draw_bars(&body, p),
    }
}

/// Splits values into runs of present points drawn as steps: a value covers its
/// whole bucket `[i * step, (i + 1) * step)`, as a per-second rate does. Gaps break lines.
fn runs(values: &[Option<f64>], step: usize) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut cur = Vec::new();
    for (i, v) in values.iter().enumerate() {
        match v {
            Some(v) if v.is_finite() => {
                cur.push(((i * step) as f64, *v));
                cur.push((((i + 1) * step) as f64, *v));
            }
            _ => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn draw_time<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, p: &TimePlot) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let n = p.panels.len().max(1);
    let areas = area.split_evenly((n, 1));
    let x_max = p.len.max(1) as f64;
    // Ticks on round wall-clock times of the display zone (its offset at the start).
    let off = i64::from(p.zone.rule.offset_at(p.t0));
    let ticks = time_ticks(p.t0.saturating_add(off), p.len.max(1));
    let t0 = p.t0;
    let zone = p.zone.clone();
    let pattern = tick_pattern(x_max);
    let fmt_x = move |x: &f64| zone.format(t0.saturating_add(x.round() as i64), pattern);
    let x_desc = time_desc(p, x_max);
    let fmt_y = |y: &f64| num(*y);
    for (i, (panel, a)) in p.panels.iter().zip(areas.iter()).enumerate() {
        let last = i + 1 == n;
        let cum = stack(panel);
        let (y0, y1) = panel_y_range(panel, &cum, 1.3);
        let mut chart = ChartBuilder::on(a)
            .margin_left(8)
            .margin_right(34)
            .margin_top(6)
            .x_label_area_size(if last { 44 } else { 22 })
            .y_label_area_size(70)
            .build_cartesian_2d(TimeAxis { end: x_max, ticks: ticks.clone() }, y0..y1)
            .map_err(e)?;
        let mut mesh = chart.configure_mesh();
        mesh.x_labels(12)
            .y_labels(5)
            .x_label_formatter(&fmt_x)
            .y_label_formatter(&fmt_y)
            .y_desc(panel.y_desc.as_str());
        styled(&mut mesh);
        if last {
            mesh.x_desc(x_desc.as_str());
        }
        mesh.draw().map_err(e)?;
        draw_layers(&mut chart, panel, &cum, p.step, (x_max, y0, y1)).map_err(e)?;
        legend(&mut chart).map_err(e)?;
    }
    Ok(())
}

/// The x description of a time chart: the zone and the day, or the first and last days.
fn time_desc(p: &TimePlot, x_max: f64) -> String {
    let day_a = p.zone.format(p.t0, "%Y-%m-%d");
    let day_b = p.zone.format(p.t0.saturating_add(x_max as i64 - 1), "%Y-%m-%d");
    let label = &p.zone.label;
    if day_a == day_b {
        format!("time, {label} ({day_a})")
    } else {
        format!("time, {label} ({day_a} to {day_b})")
    }
}

/// The grid, label and description styles of every chart's mesh.
fn styled<X: Ranged, Y: Ranged, DB: DrawingBackend>(mesh: &mut MeshStyle<'_, '_, X, Y, DB>) {
    mesh.light_line_style(GRID)
        .bold_line_style(RGBColor(215, 215, 215))
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14));
}

/// The data of one time panel over its drawn axes, bottom to top: the burst spans, the stacked
/// layers (cumulative `cum`, top layer first), the guide, the lines, the marks.
fn draw_layers<'a, DB: DrawingBackend + 'a>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<TimeAxis, RangedCoordf64>>,
    panel: &TimePanel,
    cum: &[Vec<Option<f64>>],
    step: usize,
    (x_max, y0, y1): (f64, f64, f64),
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    chart.draw_series(
        panel
            .spans
            .iter()
            .map(|&(s, t)| Rectangle::new([(s, y0), (t.max(s + 1.0), y1)], ALERT.mix(0.16).filled())),
    )?;
    for (k, layer) in panel.stacked.iter().enumerate().rev() {
        let color = layer.color;
        let Some(c) = cum.get(k) else { continue };
        for (r, run) in runs(c, step).into_iter().enumerate() {
            let series = AreaSeries::new(run, 0.0, color.mix(0.75).filled()).border_style(color);
            let anno = chart.draw_series(series)?;
            if r == 0 {
                anno.label(layer.label.as_str())
                    .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], color.filled()));
            }
        }
    }
    if let Some((g, label)) = &panel.guide {
        let g = *g;
        chart
            .draw_series(std::iter::once(PathElement::new(vec![(0.0, g), (x_max, g)], GREY.stroke_width(1))))?
            .label(label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], GREY.stroke_width(1)));
    }
    for line in &panel.lines {
        let style = line.color.stroke_width(line.width);
        for (r, run) in runs(&line.values, step).into_iter().enumerate() {
            let anno = chart.draw_series(LineSeries::new(run, style))?;
            if r == 0 {
                anno.label(line.label.as_str())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], style.stroke_width(3)));
            }
        }
    }
    chart.draw_series(
        panel.marks.iter().filter(|m| m.1.is_finite()).map(|&(x, y)| Circle::new((x, y), 3, ALERT.filled())),
    )?;
    Ok(())
}

/// Draws the legend box of a chart (upper right).
fn legend<'a, DB: DrawingBackend + 'a, X: Ranged, Y: Ranged>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(190, 190, 190))
        .label_font((FONT, 13))
        .draw()
}

fn draw_xy<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, p: &XyPlot) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let sane = |r: (f64, f64)| {
        if r.0.is_finite() && r.1.is_finite() && r.1 > r.0 { r } else { (0.0, 1.0) }
    };
    let (x0, x1) = sane(p.x_range);
    let (y0, y1) = sane(p.y_range);
    let mut chart = ChartBuilder::on(area)
        .margin_left(8)
        .margin_right(34)
        .margin_top(6)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(e)?;
    let fmt = |v: &f64| num(*v);
    let mut mesh = chart.configure_mesh();
    mesh.x_labels(12)
        .y_labels(6)
        .x_label_formatter(&fmt)
        .y_label_formatter(&fmt)
        .x_desc(p.x_desc.as_str())
        .y_desc(p.y_desc.as_str());
    styled(&mut mesh);
    mesh.draw().map_err(e)?;
    if y0 < 0.0 && y1 > 0.0 {
        chart.draw_series(std::iter::once(PathElement::new(vec![(x0, 0.0), (x1, 0.0)], GREY))).map_err(e)?;
    }
    for (x, label, color) in &p.vmarks {
        let (x, color) = (*x, *color);
        if !x.is_finite() {
            continue;
        }
        chart
            .draw_series(std::iter::once(PathElement::new(vec![(x, y0), (x, y1)], color.stroke_width(2))))
            .map_err(e)?
            .label(label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(3)));
    }
    for line in &p.lines {
        let style = line.color.stroke_width(2);
        let pts: Vec<(f64, f64)> =
            line.points.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
        chart
            .draw_series(LineSeries::new(pts, style))
            .map_err(e)?
            .label(line.label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], style.stroke_width(3)));
    }
    chart
        .draw_series(
            p.points
                .iter()
                .filter(|(x, y, _)| x.is_finite() && y.is_finite())
                .map(|&(x, y, c)| Circle::new((x, y), 5, c.filled())),
        )
        .map_err(e)?;
    legend(&mut chart).map_err(e)
}

fn draw_bars<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, p: &BarPlot) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let n = p.labels.len().min(p.values.len());
    if n == 0 {
        return Ok(());
    }
    let max = p.values.iter().copied().filter(|v| v.is_finite()).fold(0.0f64, f64::max);
    let x1 = if max > 0.0 { max * 1.5 } else { 1.0 };
    let longest = p.labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let label_w = (longest as u32 * 8 + 16).clamp(60, 340);
    let ni = n as i32;
    let labels = &p.labels;
    // Bar 0 is drawn at the top: segment index `ni - 1 - i`.
    let fmt_y = move |v: &SegmentValue<i32>| match v {
        SegmentValue::CenterOf(k) => {
            let i = (ni - 1 - *k) as usize;
            labels.get(i).cloned().unwrap_or_default()
        }
        _ => String::new(),
    };
    let fmt_x = |v: &f64| num(*v);
    let mut chart = ChartBuilder::on(area)
        .margin_left(8)
        .margin_right(34)
        .margin_top(6)
        .x_label_area_size(44)
        .y_label_area_size(label_w)
        // At least two segments: plotters draws no key point on a one-value range, which left a
        // single-bucket histogram without its label.
        .build_cartesian_2d(0f64..x1, (0..(ni - 1).max(1)).into_segmented())
        .map_err(e)?;
    let mut mesh = chart.configure_mesh();
    mesh.disable_y_mesh()
        .x_labels(8)
        .y_labels(n + 1)
        .x_label_formatter(&fmt_x)
        .y_label_formatter(&fmt_y)
        .x_desc(p.x_desc.as_str())
        .y_desc(p.y_desc.as_str());
    styled(&mut mesh);
    mesh.draw().map_err(e)?;
    let color = p.color;
    chart
        .draw_series((0..n).map(|i| {
            let k = ni - 1 - i as i32;
            let v = p.values[i].max(0.0);
            let v = if v.is_finite() { v } else { 0.0 };
            let top = if k + 1 > (ni - 1).max(1) { SegmentValue::Last } else { SegmentValue::Exact(k + 1) };
            let mut r = Rectangle::new([(0.0, SegmentValue::Exact(k)), (v, top)], color.filled());
            r.set_margin(3, 3, 0, 0);
            r
        }))
        .map_err(e)?;
    let style = TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    chart
        .draw_series((0..n).filter_map(|i| {
            let k = ni - 1 - i as i32;
            let v = p.values[i];
            let note = p.notes.get(i)?;
            Some(Text::new(
                note.clone(),
                (if v.is_finite() { v.max(0.0) } else { 0.0 } + x1 * 0.01, SegmentValue::CenterOf(k)),
                style.clone(),
            ))
        }))
        .map_err(e)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_break_at_gaps() {
        let v = [Some(1.0), Some(2.0), None, Some(3.0)];
        let r = runs(&v, 10);
        assert_eq!(
            r,
            vec![vec![(0.0, 1.0), (10.0, 1.0), (10.0, 2.0), (20.0, 2.0)], vec![(30.0, 3.0), (40.0, 3.0)]]
        );
    }
}
