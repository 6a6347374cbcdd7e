//! A chart described as data before drawing: the [`Spec`] the renderer draws,
//! the [`Draft`] a builder returns (what [`super::CHARTS`] completes with the
//! chart's id and section), and the drawn [`Chart`].

use plotters::style::RGBColor;

/// Chart width in layout pixels (fits a ticket or an A4 page); PNGs are drawn at 2x (2000 px).
pub const WIDTH: u32 = 1000;
/// Height of a one-panel chart in pixels.
pub const HEIGHT: u32 = 360;

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

/// A chart as its builder describes it; its entry in [`super::CHARTS`] gives it
/// its file stem and its section ([`Draft::spec`]).
#[derive(Debug, Clone)]
pub struct Draft {
    /// Title drawn at the top.
    pub title: String,
    /// HTML caption.
    pub caption: String,
    /// Height in pixels.
    pub height: u32,
    /// The drawing.
    pub plot: Plot,
}

impl Draft {
    /// The spec of the chart named `name` in `section`.
    pub fn spec(self, name: &'static str, section: Section) -> Spec {
        Spec { name, title: self.title, caption: self.caption, section, height: self.height, plot: self.plot }
    }
}
