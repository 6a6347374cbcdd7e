//! Charts of the report, drawn with plotters into PNG (at 2x through
//! [`super::hidpi`], bundled DejaVu Sans, no fontconfig) and SVG (text escaped
//! by plotters' SVG backend).
//!
//! Every chart is first described as data (a [`Plot`]) by one function per
//! chart, which returns `None` when the capture lacks what it needs; one
//! generic renderer then draws the description on either backend, so the PNG
//! and the SVG of a chart always show the same thing. Renderers only read the
//! model: the only arithmetic here is unit scaling, stacking, and taking the
//! maximum per bucket when a long timeline has more seconds than pixels
//! (maxima keep short bursts visible, means would flatten them).

use super::fmt::{bytes_h, num};
use crate::model::Report;
use crate::table::columns::{
    BinlogMetric, CoreMetric, CpuMetric, DevMetric, MemMetric, MysqlCounter, ReplMetric,
};
use crate::table::{Cell, Col, Timeline};
use plotters::coord::Shift;
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

/// Chart width in layout pixels (fits a ticket or an A4 page); PNGs are drawn at 2x (2000 px).
pub const WIDTH: u32 = 1000;
/// Height of a one-panel chart in pixels.
pub const HEIGHT: u32 = 360;
/// Most points a time series is drawn with; longer timelines take the maximum per bucket.
const MAX_POINTS: usize = 1500;
/// Family name the bundled font is registered under.
const FONT: &str = "sans-serif";
/// DejaVu Sans (Bitstream Vera license, see `assets/fonts/LICENSE-DejaVu.txt`).
static DEJAVU_SANS: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
/// Bytes in a MiB.
const MIB: f64 = 1024.0 * 1024.0;

/// Colours of successive series (fixed: charts are deterministic).
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
    RGBColor(188, 189, 34),
    RGBColor(127, 127, 127),
    RGBColor(214, 39, 40),
];
/// Colour of bursts and of the detected period.
const ALERT: RGBColor = RGBColor(214, 39, 40);
/// Colour of the writeback-window marker.
const WINDOW: RGBColor = RGBColor(255, 127, 14);
/// Light grid lines.
const GRID: RGBColor = RGBColor(236, 236, 236);
/// Grey for secondary series and guides.
const GREY: RGBColor = RGBColor(150, 150, 150);

/// Where a chart belongs in the HTML report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// Timeline (device, memory, latency).
    Timeline,
    /// Write sources.
    Sources,
    /// Periodicity.
    Periodicity,
    /// Lagged correlation.
    Correlation,
    /// perf (fsync share).
    Perf,
    /// Binlog.
    Binlog,
}

/// A drawn chart.
#[derive(Debug, Clone)]
pub struct Chart {
    /// File stem under `charts/` (fixed names only).
    pub name: &'static str,
    /// Title (also drawn in the image).
    pub title: String,
    /// What the chart shows, for the HTML caption.
    pub caption: String,
    /// Report section.
    pub section: Section,
    /// PNG bytes.
    pub png: Vec<u8>,
    /// SVG text.
    pub svg: String,
    /// The time panels drawn, for the page's interactive SVG (time charts only).
    pub time: Option<TimePlot>,
}

/// A chart described as data, before drawing.
#[derive(Debug, Clone)]
pub struct Spec {
    /// File stem.
    pub name: &'static str,
    /// Title drawn at the top.
    pub title: String,
    /// HTML caption.
    pub caption: String,
    /// Section of the report.
    pub section: Section,
    /// Height in pixels.
    pub height: u32,
    /// The drawing.
    pub plot: Plot,
}

/// The three kinds of drawing.
#[derive(Debug, Clone)]
pub enum Plot {
    /// Panels sharing a time axis (in the display zone).
    Time(TimePlot),
    /// A numeric x axis (lags, periods).
    Xy(XyPlot),
    /// Horizontal bars with text labels.
    Bars(BarPlot),
}

/// One line or stacked layer of a time panel.
#[derive(Debug, Clone)]
pub struct TimeLine {
    /// Legend text.
    pub label: String,
    /// One value per point (already bucketed and scaled).
    pub values: Vec<Option<f64>>,
    /// Colour.
    pub color: RGBColor,
    /// Stroke width.
    pub width: u32,
}

/// One panel of a time chart.
#[derive(Debug, Clone, Default)]
pub struct TimePanel {
    /// Y axis description.
    pub y_desc: String,
    /// Stacked areas, bottom layer first.
    pub stacked: Vec<TimeLine>,
    /// Lines drawn over the areas.
    pub lines: Vec<TimeLine>,
    /// Shaded x spans (seconds from t0, end exclusive).
    pub spans: Vec<(f64, f64)>,
    /// Marked points (x seconds, y).
    pub marks: Vec<(f64, f64)>,
    /// A horizontal guide (y, legend text).
    pub guide: Option<(f64, String)>,
    /// Fixed y range.
    pub y_range: Option<(f64, f64)>,
}

/// Panels over a shared time axis.
#[derive(Debug, Clone)]
pub struct TimePlot {
    /// Epoch second of x = 0.
    pub t0: i64,
    /// Seconds per point.
    pub step: usize,
    /// Seconds covered.
    pub len: usize,
    /// Panels, top first.
    pub panels: Vec<TimePanel>,
    /// The zone the axis labels show (`--display-tz`).
    pub zone: crate::clock::DisplayZone,
}

/// A line of an x/y chart.
#[derive(Debug, Clone)]
pub struct XyLine {
    /// Legend text.
    pub label: String,
    /// Points in x order.
    pub points: Vec<(f64, f64)>,
    /// Colour.
    pub color: RGBColor,
}

/// An x/y chart.
#[derive(Debug, Clone)]
pub struct XyPlot {
    /// X description.
    pub x_desc: String,
    /// Y description.
    pub y_desc: String,
    /// X range.
    pub x_range: (f64, f64),
    /// Y range.
    pub y_range: (f64, f64),
    /// Lines.
    pub lines: Vec<XyLine>,
    /// Vertical markers (x, legend text, colour).
    pub vmarks: Vec<(f64, String, RGBColor)>,
    /// Marked points (x, y, colour).
    pub points: Vec<(f64, f64, RGBColor)>,
}

/// Horizontal bars, first bar at the top.
#[derive(Debug, Clone)]
pub struct BarPlot {
    /// X description.
    pub x_desc: String,
    /// Y description (what the bar labels are).
    pub y_desc: String,
    /// Bar labels (may be capture text).
    pub labels: Vec<String>,
    /// Bar lengths.
    pub values: Vec<f64>,
    /// Text after each bar.
    pub notes: Vec<String>,
    /// Colour.
    pub color: RGBColor,
}

/// Registers the bundled font once (plotters' ab_glyph backend has no system fonts).
fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is compiled in and known to be valid; a failure would only mean no text.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, DEJAVU_SANS);
    });
}

/// The file stems of every chart iosift draws.
pub const NAMES: [&str; 13] = [
    "device-writes",
    "write-sources",
    "dirty-writeback",
    "latency-queue",
    "replication",
    "cpu-usage",
    "mysql-status",
    "autocorrelation",
    "periodogram",
    "correlations",
    "fsync-share",
    "binlog-rate",
    "binlog-sizes",
];

/// Every chart the report has data for, described and drawn. Charts that fail to
/// draw are left out and named in the second list.
pub fn render_all(report: &Report) -> (Vec<Chart>, Vec<String>) {
    let specs = specs(report);
    let mut charts = Vec::new();
    let mut failed = Vec::new();
    for s in specs {
        match render(&s) {
            Ok(c) => charts.push(c),
            Err(e) => failed.push(format!("chart {}: {e}", s.name)),
        }
    }
    (charts, failed)
}

/// The descriptions of every chart that has data, in report order.
pub fn specs(report: &Report) -> Vec<Spec> {
    [
        device_writes(report),
        write_sources(report),
        dirty_writeback(report),
        latency_queue(report),
        replication(report),
        cpu_usage(report),
        mysql_status(report),
        autocorrelation(report),
        periodogram(report),
        correlations(report),
        fsync_share(report),
        binlog_rate(report),
        binlog_sizes(report),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Draws a spec as PNG and SVG. Its text is drawn [`visible`]: a control or
/// bidirectional character from the capture is written as an escape, as on the terminal.
pub fn render(spec: &Spec) -> Result<Chart, String> {
    let spec = &visible(spec);
    register_font();
    let (w, h) = (WIDTH, spec.height.clamp(200, 2000));
    let png = catch_unwind(AssertUnwindSafe(|| -> Result<Vec<u8>, String> {
        let (pw, ph) = (w * super::hidpi::SCALE as u32, h * super::hidpi::SCALE as u32);
        let mut buf = vec![0u8; pw as usize * ph as usize * 3];
        {
            let inner = BitMapBackend::with_buffer(&mut buf, (pw, ph));
            let root = super::hidpi::HiDpi::new(inner, DEJAVU_SANS)
                .ok_or_else(|| "the bundled font does not load".to_string())?
                .into_drawing_area();
            draw(&root, spec)?;
            root.present().map_err(|e| e.to_string())?;
        }
        let mut out = Vec::new();
        image::ImageEncoder::write_image(
            image::codecs::png::PngEncoder::new(&mut out),
            &buf,
            pw,
            ph,
            image::ColorType::Rgb8,
        )
        .map_err(|e| e.to_string())?;
        Ok(out)
    }))
    .map_err(|_| "the PNG renderer failed".to_string())??;
    let svg = catch_unwind(AssertUnwindSafe(|| -> Result<String, String> {
        let mut s = String::new();
        {
            let root = SVGBackend::with_string(&mut s, (w, h)).into_drawing_area();
            draw(&root, spec)?;
            root.present().map_err(|e| e.to_string())?;
        }
        Ok(s)
    }))
    .map_err(|_| "the SVG renderer failed".to_string())??;
    Ok(Chart {
        name: spec.name,
        title: spec.title.clone(),
        caption: spec.caption.clone(),
        section: spec.section,
        png,
        svg,
        time: match &spec.plot {
            Plot::Time(t) => Some(t.clone()),
            _ => None,
        },
    })
}

/// `spec` with every text written on one line and with visible escapes for control and
/// bidirectional characters ([`crate::term::one_line`], the terminal's rules): a thread,
/// device or file name from the capture holding `U+202E` or BEL would otherwise reorder
/// or hide the chart's text in the PNG, the SVG and the page's inline SVG.
pub fn visible(spec: &Spec) -> Spec {
    let v = |s: &mut String| {
        if let std::borrow::Cow::Owned(o) = crate::term::one_line(s) {
            *s = o;
        }
    };
    let mut spec = spec.clone();
    v(&mut spec.title);
    v(&mut spec.caption);
    match &mut spec.plot {
        Plot::Time(t) => {
            for p in &mut t.panels {
                v(&mut p.y_desc);
                p.stacked.iter_mut().chain(p.lines.iter_mut()).for_each(|l| v(&mut l.label));
                if let Some((_, g)) = &mut p.guide {
                    v(g);
                }
            }
        }
        Plot::Xy(x) => {
            [&mut x.x_desc, &mut x.y_desc].into_iter().for_each(v);
            x.lines.iter_mut().for_each(|l| v(&mut l.label));
            x.vmarks.iter_mut().for_each(|m| v(&mut m.1));
        }
        Plot::Bars(b) => {
            [&mut b.x_desc, &mut b.y_desc].into_iter().for_each(v);
            b.labels.iter_mut().chain(b.notes.iter_mut()).for_each(v);
        }
    }
    spec
}

/// Draws on any backend.
fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, spec: &Spec) -> Result<(), String> {
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

/// The strftime pattern of time tick labels over `span` seconds: the time of day, and the
/// month and day as well from two days on (a capture of days has its ticks at midnights).
pub(super) fn tick_pattern(span: f64) -> &'static str {
    if span >= 2.0 * 86_400.0 { "%m-%d %H:%M" } else { "%H:%M:%S" }
}

/// Tick positions (seconds from `t0`) at round wall-clock times of `t0`'s zone: multiples of 1 s .. 1 day,
/// at most about ten over `len` seconds.
pub(super) fn time_ticks(t0: i64, len: usize) -> Vec<f64> {
    const STEPS: [i64; 18] =
        [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];
    let len = len as i64;
    let step = STEPS.iter().copied().find(|s| len / s <= 10).unwrap_or(86400 * ((len / 86400 / 10) + 1));
    let first = t0.div_euclid(step).saturating_add(1).saturating_mul(step);
    let first = if t0.rem_euclid(step) == 0 { t0 } else { first };
    let mut out = Vec::new();
    let mut t = first;
    while t.saturating_sub(t0) <= len && out.len() < 64 {
        out.push((t - t0) as f64);
        match t.checked_add(step) {
            Some(n) => t = n,
            None => break,
        }
    }
    out
}

/// A y range that plotters can draw: finite, non-empty, starting at 0 for non-negative data.
pub(super) fn y_range_of<'a>(vals: impl Iterator<Item = &'a f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (0.0f64, f64::NEG_INFINITY);
    for v in vals.filter(|v| v.is_finite()) {
        lo = lo.min(*v);
        hi = hi.max(*v);
    }
    if !hi.is_finite() || hi <= lo {
        hi = lo + 1.0;
    }
    (lo, hi + (hi - lo) * 0.08)
}

/// A time axis in seconds from `t0` whose ticks (bold and light grid lines and
/// labels) fall on round UTC times, see [`time_ticks`].
#[derive(Debug, Clone)]
struct TimeAxis {
    /// Seconds covered.
    end: f64,
    /// Tick positions.
    ticks: Vec<f64>,
}

impl Ranged for TimeAxis {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let span = if self.end.is_finite() && self.end > 0.0 { self.end } else { 1.0 };
        let f = if v.is_finite() { (v / span).clamp(-1.0, 2.0) } else { 0.0 };
        limit.0 + ((limit.1 - limit.0) as f64 * f).round() as i32
    }

    fn key_points<H: plotters::coord::ranged1d::KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.max_num_points() == 0 { Vec::new() } else { self.ticks.clone() }
    }

    fn range(&self) -> std::ops::Range<f64> {
        0.0..self.end
    }
}

/// The stacked layers of a panel as cumulative sums, bottom layer first; a point is
/// absent only when the layer and every layer below it are.
pub(super) fn stack(panel: &TimePanel) -> Vec<Vec<Option<f64>>> {
    let mut cum: Vec<Vec<Option<f64>>> = Vec::new();
    for layer in &panel.stacked {
        let prev = cum.last();
        let next = layer
            .values
            .iter()
            .enumerate()
            .map(|(j, v)| {
                let below = prev.and_then(|p| p.get(j).copied().flatten());
                match (below, v.filter(|v| v.is_finite())) {
                    (None, None) => None,
                    (b, v) => Some(b.unwrap_or(0.0) + v.unwrap_or(0.0)),
                }
            })
            .collect();
        cum.push(next);
    }
    cum
}

/// The y range of a panel: its fixed range, else from the data (lines, the top of
/// the stack, the guide) with `headroom` (1.3: room for a legend box inside).
pub(super) fn panel_y_range(panel: &TimePanel, cum: &[Vec<Option<f64>>], headroom: f64) -> (f64, f64) {
    match panel.y_range {
        Some(r) if r.0.is_finite() && r.1.is_finite() && r.1 > r.0 => r,
        _ => {
            let (lo, hi) = y_range_of(
                panel
                    .lines
                    .iter()
                    .flat_map(|l| l.values.iter().flatten())
                    .chain(cum.last().into_iter().flat_map(|c| c.iter().flatten()))
                    .chain(panel.guide.iter().map(|g| &g.0)),
            );
            (lo, lo + (hi - lo) * headroom)
        }
    }
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
    let day_a = p.zone.format(t0, "%Y-%m-%d");
    let day_b = p.zone.format(t0.saturating_add(x_max as i64 - 1), "%Y-%m-%d");
    let label = &p.zone.label;
    let x_desc = if day_a == day_b {
        format!("time, {label} ({day_a})")
    } else {
        format!("time, {label} ({day_a} to {day_b})")
    };
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
            .light_line_style(GRID)
            .bold_line_style(RGBColor(215, 215, 215))
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .y_desc(panel.y_desc.as_str());
        if last {
            mesh.x_desc(x_desc.as_str());
        }
        mesh.draw().map_err(e)?;
        chart
            .draw_series(
                panel
                    .spans
                    .iter()
                    .map(|&(s, t)| Rectangle::new([(s, y0), (t.max(s + 1.0), y1)], ALERT.mix(0.16).filled())),
            )
            .map_err(e)?;
        for (k, layer) in panel.stacked.iter().enumerate().rev() {
            let color = layer.color;
            let Some(c) = cum.get(k) else { continue };
            for (r, run) in runs(c, p.step).into_iter().enumerate() {
                let series = AreaSeries::new(run, 0.0, color.mix(0.75).filled()).border_style(color);
                let anno = chart.draw_series(series).map_err(e)?;
                if r == 0 {
                    anno.label(layer.label.as_str())
                        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], color.filled()));
                }
            }
        }
        if let Some((g, label)) = &panel.guide {
            let g = *g;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(0.0, g), (x_max, g)],
                    GREY.stroke_width(1),
                )))
                .map_err(e)?
                .label(label.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], GREY.stroke_width(1)));
        }
        for line in &panel.lines {
            let style = line.color.stroke_width(line.width);
            for (r, run) in runs(&line.values, p.step).into_iter().enumerate() {
                let anno = chart.draw_series(LineSeries::new(run, style)).map_err(e)?;
                if r == 0 {
                    anno.label(line.label.as_str()).legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 16, y)], style.stroke_width(3))
                    });
                }
            }
        }
        chart
            .draw_series(
                panel
                    .marks
                    .iter()
                    .filter(|m| m.1.is_finite())
                    .map(|&(x, y)| Circle::new((x, y), 3, ALERT.filled())),
            )
            .map_err(e)?;
        legend(&mut chart).map_err(e)?;
    }
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
    chart
        .configure_mesh()
        .x_labels(12)
        .y_labels(6)
        .x_label_formatter(&fmt)
        .y_label_formatter(&fmt)
        .light_line_style(GRID)
        .bold_line_style(RGBColor(215, 215, 215))
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .x_desc(p.x_desc.as_str())
        .y_desc(p.y_desc.as_str())
        .draw()
        .map_err(e)?;
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
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_labels(8)
        .y_labels(n + 1)
        .x_label_formatter(&fmt_x)
        .y_label_formatter(&fmt_y)
        .light_line_style(GRID)
        .bold_line_style(RGBColor(215, 215, 215))
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .x_desc(p.x_desc.as_str())
        .y_desc(p.y_desc.as_str())
        .draw()
        .map_err(e)?;
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

/// Bucketed (max per `step` seconds) and scaled values of a column.
fn bucket(values: &[Cell], step: usize, scale: f64) -> Vec<Option<f64>> {
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
fn column<'a>(t: &'a Timeline, col: &Col) -> Option<&'a [Cell]> {
    let v = t.get(col)?;
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
fn step_of(t: &Timeline) -> usize {
    t.len.div_ceil(MAX_POINTS).max(1)
}

/// Caption note when points are bucketed.
fn bucket_note(t: &Timeline) -> String {
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
fn time_plot(t: &Timeline, zone: &crate::clock::DisplayZone, panels: Vec<TimePanel>) -> TimePlot {
    let bin = t.bin() as usize;
    TimePlot { t0: t.t0, step: step_of(t) * bin, len: t.len * bin, panels, zone: zone.clone() }
}

fn line(
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
fn burst_spans(report: &Report) -> Vec<(f64, f64)> {
    report
        .periodicity
        .as_ref()
        .map(|p| p.bursts.iter().map(|b| (b.start as f64, (b.end + 1) as f64)).collect())
        .unwrap_or_default()
}

/// Median of burst totals when the bursts were found on `column`.
fn burst_median(report: &Report, column: &Col) -> Option<f64> {
    let p = report.periodicity.as_ref().filter(|p| p.series == *column)?;
    let mut v: Vec<f64> = p.bursts.iter().map(|b| b.total).filter(|v| v.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    Some(if v.len() % 2 == 1 { v[m] } else { (v[m - 1] + v[m]) / 2.0 })
}

/// Device write throughput of the main device, bursts shaded, peaks marked.
pub fn device_writes(report: &Report) -> Option<Spec> {
    let t = &report.timeline;
    let dev = report.main_device.as_deref()?;
    let wcol = Col::Dev(dev.to_string(), DevMetric::WBytesS);
    let w = column(t, &wcol)?;
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
    Some(Spec {
        name: "device-writes",
        title,
        caption,
        section: Section::Timeline,
        height: HEIGHT,
        plot: Plot::Time(time_plot(t, &report.display, vec![panel])),
    })
}

/// Write sources stacked (pidstat, bytes dirtied per category) with device writes on top.
pub fn write_sources(report: &Report) -> Option<Spec> {
    let t = &report.timeline;
    let mut cats: Vec<(String, Col, f64)> = if report.write_sources.is_empty() {
        t.iter()
            .filter_map(|(c, s)| match c {
                Col::Category(name) => {
                    let total = s.values.iter().flatten().filter(|x| x.is_finite()).sum();
                    Some((name.to_string(), c.clone(), total))
                }
                _ => None,
            })
            .collect()
    } else {
        report.write_sources.iter().map(|w| (category_label(w), w.column.clone(), w.total_bytes)).collect()
    };
    // Largest at the bottom of the stack; ties by name (deterministic).
    cats.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
    let stacked: Vec<TimeLine> = cats
        .iter()
        .enumerate()
        .filter_map(|(i, (name, col, _))| {
            column(t, col).map(|v| line(t, v, name.clone(), 1.0 / MIB, PALETTE[i % PALETTE.len()], 1))
        })
        .collect();
    if stacked.is_empty() {
        return None;
    }
    let mut lines = Vec::new();
    let mut caption = "Bytes written per second by category of thread (pidstat -d, charged when pages are \
                       dirtied), stacked, largest category at the bottom."
        .to_string();
    let all: f64 = cats.iter().map(|c| c.2).filter(|v| v.is_finite()).sum();
    if let Some((name, _, top)) = cats.first()
        && all > 0.0
    {
        caption.push_str(&format!(
            " {name} wrote {:.0} % of the {} charged.",
            100.0 * top / all,
            bytes_h(all)
        ));
    }
    if let Some(dev) = report.main_device.as_deref()
        && let Some(w) = column(t, &Col::Dev(dev.to_string(), DevMetric::WBytesS))
    {
        lines.push(line(t, w, format!("device {dev} writes"), 1.0 / MIB, BLACK, 2));
        caption.push_str(&format!(
            " The black line is what the device {dev} wrote: a gap between the two is page-cache writeback \
             that no thread was charged for at that moment."
        ));
    }
    caption.push_str(&bucket_note(t));
    let panel = TimePanel {
        y_desc: "MiB/s".into(),
        stacked,
        lines,
        spans: burst_spans(report),
        ..Default::default()
    };
    Some(Spec {
        name: "write-sources",
        title: "Write sources (pidstat) vs device writes, MiB/s".into(),
        caption,
        section: Section::Sources,
        height: HEIGHT,
        plot: Plot::Time(time_plot(t, &report.display, vec![panel])),
    })
}

/// A write-source category as a legend names it; `other` (threads no rule of the
/// taxonomy matched) names its most writing thread, so "other 100 %" says who.
pub fn category_label(w: &crate::model::WriteSource) -> String {
    match w.top_threads.first() {
        Some((name, tid, _)) if w.category == "other" => format!("other (mostly {name} [{tid}])"),
        _ => w.category.clone(),
    }
}

/// Dirty and Writeback memory.
pub fn dirty_writeback(report: &Report) -> Option<Spec> {
    let t = &report.timeline;
    let d = column(t, &Col::Mem(MemMetric::DirtyBytes));
    let w = column(t, &Col::Mem(MemMetric::WritebackBytes));
    if d.is_none() && w.is_none() {
        return None;
    }
    let mut lines = Vec::new();
    if let Some(d) = d {
        lines.push(line(t, d, "Dirty", 1.0 / MIB, PALETTE[1], 2));
    }
    if let Some(w) = w {
        lines.push(line(t, w, "Writeback", 1.0 / MIB, PALETTE[3], 2));
    }
    let panel = TimePanel { y_desc: "MiB".into(), lines, spans: burst_spans(report), ..Default::default() };
    Some(Spec {
        name: "dirty-writeback",
        title: "Dirty and Writeback memory, MiB (/proc/meminfo)".into(),
        caption: format!(
            "Dirty: page cache waiting to be written; Writeback: being written now. A sawtooth that drops at each \
             shaded device burst is the flusher writing expired dirty data (page cache and free memory are not \
             timeline series of iosift).{}{}",
            d.and_then(peak_mean).map_or(String::new(), |(at, peak, _)| format!(
                " Dirty peaked at {} at {}.",
                bytes_h(peak),
                report.display.format(t.epoch(at), "%H:%M:%S")
            )),
            bucket_note(t)
        ),
        section: Section::Timeline,
        height: HEIGHT,
        plot: Plot::Time(time_plot(t, &report.display, vec![panel])),
    })
}

/// Latency (await) and queue (aqu-sz, %util, f/s normalised) of the main device.
pub fn latency_queue(report: &Report) -> Option<Spec> {
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
    Some(Spec {
        name: "latency-queue",
        title: format!("Device {dev}: latency and queue (iostat -x)"),
        caption: format!(
            "Top: average wait per write and per flush request (ms). Bottom: queue size, utilisation and request \
             rates, each divided by its maximum (in the legend) so they share one axis.{}",
            bucket_note(t)
        ),
        section: Section::Timeline,
        height: h,
        plot: Plot::Time(time_plot(t, &report.display, panels)),
    })
}

/// CPU of all cores (user, system, iowait) and each core's busy share (iostat avg-cpu, sar -u or mpstat).
pub fn cpu_usage(report: &Report) -> Option<Spec> {
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
    Some(Spec {
        name: "cpu-usage",
        title: format!("CPU, % ({source})"),
        caption: format!(
            "Top: all cores (user, system, iowait; steal is not a timeline series of iosift). Bottom: each core's \
             busy share (100 - %idle). A saturated CPU bounds a commit rate as surely as a slow flush.{}",
            bucket_note(t)
        ),
        section: Section::Timeline,
        height: h,
        plot: Plot::Time(time_plot(t, &report.display, panels)),
    })
}

/// MySQL status counters (mysqladmin extended-status): commits and fsyncs per second,
/// and the group-commit ratio (binlog commits per group commit, the one division here).
pub fn mysql_status(report: &Report) -> Option<Spec> {
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
    Some(Spec {
        name: "mysql-status",
        title: "MySQL: commits and fsyncs per second".into(),
        caption,
        section: Section::Timeline,
        height: h,
        plot: Plot::Time(time_plot(t, &report.display, panels)),
    })
}

/// Autocorrelation of the analysed series with the period and the writeback window marked.
pub fn autocorrelation(report: &Report) -> Option<Spec> {
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
    Some(Spec {
        name: "autocorrelation",
        title,
        caption,
        section: Section::Periodicity,
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
pub fn periodogram(report: &Report) -> Option<Spec> {
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
    Some(Spec {
        name: "periodogram",
        title: format!("Periodogram of {}", p.series),
        caption: "Power of each period in the series (normalised): one tall peak means one dominant rhythm."
            .into(),
        section: Section::Periodicity,
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

/// A replica's lag (its own `SHOW SLAVE STATUS` series) over the source-binlog bytes its IO thread
/// received and its SQL thread executed per second, titled with the thread a verdict measured
/// as bounding it.
pub fn replication(report: &Report) -> Option<Spec> {
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
    Some(Spec {
        name: "replication",
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
        section: Section::Timeline,
        height: h,
        plot: Plot::Time(time_plot(t, &report.display, panels)),
    })
}

/// Lagged correlation curves with the best lag of each marked.
pub fn correlations(report: &Report) -> Option<Spec> {
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
    Some(Spec {
        name: "correlations",
        title: "Lagged correlation".into(),
        caption: format!(
            "Pearson r between two series with the second shifted by each lag (positive lag: the second \
                 follows the first). Dots mark the best lag of each pair. Shown: {} of {} pairs, those whose best \
                 |r| is above what the same search reaches on shuffled data.",
            cs.len(),
            report.correlations.len()
        ),
        section: Section::Correlation,
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

/// Longest bar label drawn (characters).
const MAX_LABEL: usize = 40;

/// A label cut to [`MAX_LABEL`] characters.
fn short(s: &str) -> String {
    if s.chars().count() > MAX_LABEL {
        let mut t: String = s.chars().take(MAX_LABEL - 1).collect();
        t.push('…');
        t
    } else {
        s.to_string()
    }
}

/// Most bars in a bar chart.
const MAX_BARS: usize = 15;

/// fsync samples per thread (perf).
pub fn fsync_share(report: &Report) -> Option<Spec> {
    let mut rows: Vec<_> = report.fsync_shares.iter().filter(|s| s.fsync_samples > 0).collect();
    if rows.is_empty() {
        return None;
    }
    let total: u64 = rows.iter().map(|s| s.fsync_samples).sum();
    rows.sort_by(|a, b| {
        b.fsync_samples.cmp(&a.fsync_samples).then_with(|| a.comm.cmp(&b.comm)).then(a.tid.cmp(&b.tid))
    });
    let more = rows.len().saturating_sub(MAX_BARS);
    rows.truncate(MAX_BARS);
    let labels = rows
        .iter()
        .map(|s| match s.tid {
            Some(t) => format!("{} [{t}]", short(&s.comm)),
            None => short(&s.comm),
        })
        .collect();
    let values = rows.iter().map(|s| s.fsync_samples as f64).collect();
    let notes = rows
        .iter()
        .map(|s| {
            format!(
                "{:.0} % (in fsync {:.0} % of its time)",
                100.0 * s.fsync_samples as f64 / total.max(1) as f64,
                100.0 * s.fsync_samples as f64 / s.samples.max(1) as f64
            )
        })
        .collect();
    let n = MAX_BARS.min(report.fsync_shares.len());
    let mut caption = format!(
        "perf samples with an fsync-like frame (fsync, fdatasync, sync_file_range, ...) per thread, {total} in all."
    );
    if more > 0 {
        caption.push_str(&format!(" {more} more threads are in the table."));
    }
    Some(Spec {
        name: "fsync-share",
        title: "Threads in fsync (perf samples)".into(),
        caption,
        section: Section::Perf,
        height: (90 + 26 * n as u32).max(240),
        plot: Plot::Bars(BarPlot {
            x_desc: "samples in fsync".into(),
            y_desc: "thread [tid]".into(),
            labels,
            values,
            notes,
            color: PALETTE[0],
        }),
    })
}

/// Binlog transactions (and bytes) per second.
pub fn binlog_rate(report: &Report) -> Option<Spec> {
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
    Some(Spec {
        name: "binlog-rate",
        title: "Binlog: transactions and bytes per second".into(),
        caption: format!(
            "Transactions and bytes written to the binary log per second; shaded: device write bursts. Binlog \
             traffic that stays flat through the bursts does not cause them.{}",
            bucket_note(t)
        ),
        section: Section::Binlog,
        height: h,
        plot: Plot::Time(time_plot(t, &report.display, panels)),
    })
}

/// Histogram of binlog transaction sizes.
pub fn binlog_sizes(report: &Report) -> Option<Spec> {
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
    Some(Spec {
        name: "binlog-sizes",
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
        section: Section::Binlog,
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

    #[test]
    fn runs_break_at_gaps() {
        let v = [Some(1.0), Some(2.0), None, Some(3.0)];
        let r = runs(&v, 10);
        assert_eq!(
            r,
            vec![vec![(0.0, 1.0), (10.0, 1.0), (10.0, 2.0), (20.0, 2.0)], vec![(30.0, 3.0), (40.0, 3.0)]]
        );
    }

    #[test]
    fn ticks_fall_on_round_utc_times() {
        // 2024-05-01 10:00:07 UTC, 600 s: every minute from 10:01:00.
        let t = time_ticks(1_714_557_607, 600);
        assert_eq!(t.first(), Some(&53.0));
        assert_eq!(t[1] - t[0], 60.0);
        assert_eq!(t.len(), 10);
        assert_eq!(time_ticks(0, 5), vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
        assert!(time_ticks(i64::MAX - 3, 3).len() <= 4);
        assert!(time_ticks(0, 7 * 86400).len() <= 11);
    }

    #[test]
    fn y_range_is_never_empty() {
        assert_eq!(y_range_of([].iter()), (0.0, 1.08));
        let (lo, hi) = y_range_of([f64::NAN, 5.0].iter());
        assert_eq!(lo, 0.0);
        assert!(hi > 5.0);
    }

    #[test]
    fn every_spec_name_is_listed() {
        for n in ["device-writes", "binlog-sizes", "replication"] {
            assert!(NAMES.contains(&n));
        }
        assert_eq!(NAMES.len(), 13);
    }

    #[test]
    fn degenerate_bars_draw() {
        let spec = Spec {
            name: "t",
            title: "<t&>".into(),
            caption: String::new(),
            section: Section::Perf,
            height: 100,
            plot: Plot::Bars(BarPlot {
                x_desc: "x".into(),
                y_desc: "y".into(),
                labels: vec!["a".into()],
                values: vec![f64::NAN],
                notes: vec![],
                color: BLACK,
            }),
        };
        let c = render(&spec).unwrap();
        assert!(c.png.starts_with(b"\x89PNG"));
        assert!(c.svg.contains("&lt;t&amp;&gt;"));
    }

    #[test]
    fn capture_text_is_drawn_with_visible_escapes() {
        let spec = Spec {
            name: "t",
            title: "thread a\u{202e}b\x07".into(),
            caption: String::new(),
            section: Section::Perf,
            height: 200,
            plot: Plot::Bars(BarPlot {
                x_desc: "x".into(),
                y_desc: "y".into(),
                labels: vec!["txt.exe\u{2066}".into(), "two\nlines".into()],
                values: vec![1.0, 2.0],
                notes: vec!["\u{200f}n".into(), String::new()],
                color: BLACK,
            }),
        };
        let v = visible(&spec);
        assert_eq!(v.title, "thread a\\u{202e}b\\x07");
        let Plot::Bars(b) = &v.plot else { unreachable!() };
        assert_eq!(b.labels, ["txt.exe\\u{2066}", "two\\nlines"]);
        assert_eq!(b.notes[0], "\\u{200f}n");
        let c = render(&spec).unwrap();
        assert!(c.svg.contains("thread a\\u{202e}b\\x07"), "the PNG and SVG draw the escapes");
        assert!(!c.svg.contains(['\u{202e}', '\x07', '\u{2066}', '\u{200f}']));
        assert_eq!(c.title, v.title);
    }
}
