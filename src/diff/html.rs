//! The HTML page of a diff: one self-contained file (inline CSS and SVG, no
//! script, nothing fetched). Every text from the captures (bundle names,
//! summaries, thread names, context values) goes through maud's escaping.
//!
//! Charts overlay A and B on a relative time axis (seconds after each
//! capture's alignment point), drawn with the report's plotters charts
//! ([`crate::report::charts::render`] of an x/y [`Spec`]).

use super::{Change, DiffDoc};
use crate::model::Report;
use crate::report::charts::{self, Plot, Section, Spec, XyLine, XyPlot};
use crate::table::columns::{Col, DevMetric, MemMetric, ReplMetric};
use maud::{DOCTYPE, Markup, PreEscaped, html};
use plotters::style::RGBColor;

/// Colour of A (before) and B (after) in every chart.
const COLOR_A: RGBColor = RGBColor(31, 119, 180);
const COLOR_B: RGBColor = RGBColor(255, 127, 14);

/// Points per line at most: longer captures are averaged into buckets.
const MAX_POINTS: usize = 1500;

const MIB: f64 = 1024.0 * 1024.0;

/// A number with its unit, readable (`1.2 GiB`, `2772 /s`, `0.41 ms`).
pub(crate) fn value(v: Option<f64>, unit: &str) -> String {
    let Some(v) = v else { return "unknown".into() };
    let n = |x: f64| {
        if x == 0.0 {
            "0".to_string()
        } else if x.abs() >= 100.0 {
            format!("{x:.0}")
        } else if x.abs() >= 1.0 {
            format!("{x:.1}")
        } else {
            format!("{x:.3}")
        }
    };
    match unit {
        "B" | "B/s" => {
            let (mut x, mut u) = (v, 0);
            let units = ["B", "KiB", "MiB", "GiB", "TiB"];
            while x.abs() >= 1024.0 && u + 1 < units.len() {
                x /= 1024.0;
                u += 1;
            }
            format!("{} {}{}", n(x), units[u], if unit == "B/s" { "/s" } else { "" })
        }
        "1/s" => format!("{} /s", n(v)),
        "" | "1" => n(v),
        u => format!("{} {u}", n(v)),
    }
}

fn ratio(c: &Change) -> String {
    match (c.change, c.ratio) {
        ("appeared", _) => "appeared".into(),
        ("vanished", _) => "vanished".into(),
        (_, Some(r)) if r >= 1.0 => format!("x{:.2}", r),
        (_, Some(r)) => format!("/{:.2}", 1.0 / r),
        _ => "-".into(),
    }
}

/// The input files of a change's values: one line when both sides read the same file.
fn sources(c: &Change) -> Vec<String> {
    match (&c.source_a, &c.source_b) {
        (Some(a), Some(b)) if a == b => vec![a.clone()],
        (a, b) => [a.as_ref().map(|a| format!("A: {a}")), b.as_ref().map(|b| format!("B: {b}"))]
            .into_iter()
            .flatten()
            .collect(),
    }
}

/// Mean per bucket of `step` rows, as (relative second, value) points; `from` and `len`
/// in seconds, rows of `bin` seconds.
fn points(
    v: Option<&[crate::table::Cell]>,
    from: usize,
    len: usize,
    bin: usize,
    scale: f64,
) -> Vec<(f64, f64)> {
    let Some(v) = v else { return Vec::new() };
    let (from, len) = (from / bin, len / bin);
    let step = len.div_ceil(MAX_POINTS).max(1);
    let mut out = Vec::new();
    let mut i = 0;
    while i < len {
        let vals: Vec<f64> = (i..(i + step).min(len))
            .filter_map(|k| v.get(from + k).and_then(crate::table::Cell::get))
            .collect();
        if !vals.is_empty() {
            out.push(((i * bin) as f64, vals.iter().sum::<f64>() / vals.len() as f64 / scale));
        }
        i += step;
    }
    out
}

/// One overlay chart; `None` when neither capture has the series.
fn overlay(
    name: &'static str,
    title: &str,
    y_desc: &str,
    scale: f64,
    cols: [Option<Col>; 2],
    reports: [&Report; 2],
    doc: &DiffDoc,
) -> Option<Spec> {
    let sides = [&doc.a, &doc.b];
    let mut lines = Vec::new();
    let mut y_max: f64 = 0.0;
    for k in 0..2 {
        let col = cols[k].as_ref();
        let pts = points(
            col.and_then(|c| reports[k].timeline.get(c)),
            sides[k].aligned_after_start_s,
            doc.compared_s,
            reports[k].timeline.bin() as usize,
            scale,
        );
        y_max = pts.iter().map(|p| p.1).fold(y_max, f64::max);
        if !pts.is_empty() {
            lines.push(XyLine {
                label: if k == 0 { "A".into() } else { "B".into() },
                points: pts,
                color: if k == 0 { COLOR_A } else { COLOR_B },
            });
        }
    }
    if lines.is_empty() {
        return None;
    }
    Some(Spec {
        name,
        title: title.to_string(),
        caption: String::new(),
        section: Section::Timeline,
        height: 300,
        plot: Plot::Xy(XyPlot {
            x_desc: "seconds after the alignment point".into(),
            y_desc: y_desc.to_string(),
            x_range: (0.0, doc.compared_s.max(2) as f64 - 1.0),
            y_range: (0.0, if y_max > 0.0 { y_max * 1.08 } else { 1.0 }),
            lines,
            vmarks: Vec::new(),
            points: Vec::new(),
        }),
    })
}

/// The overlay charts with data, drawn as SVG (title, svg).
fn overlays(doc: &DiffDoc, a: &Report, b: &Report) -> Vec<(String, String)> {
    let both = |m: DevMetric| [super::measures::device_col(a, m), super::measures::device_col(b, m)];
    let fixed = |c: Col| [Some(c.clone()), Some(c)];
    let specs = [
        overlay(
            "diff-device-writes",
            "Main device writes",
            "MiB/s",
            MIB,
            both(DevMetric::WBytesS),
            [a, b],
            doc,
        ),
        overlay(
            "diff-dirty",
            "Dirty (/proc/meminfo)",
            "MiB",
            MIB,
            fixed(Col::Mem(MemMetric::DirtyBytes)),
            [a, b],
            doc,
        ),
        overlay(
            "diff-commits",
            "Commit rate",
            "transactions/s",
            1.0,
            [doc.a.load_window_by.clone(), doc.b.load_window_by.clone()],
            [a, b],
            doc,
        ),
        overlay("diff-flushes", "Main device flushes", "flushes/s", 1.0, both(DevMetric::FS), [a, b], doc),
        overlay("diff-util", "Main device utilisation", "%", 1.0, both(DevMetric::UtilPct), [a, b], doc),
        overlay(
            "diff-lag",
            "Replication lag",
            "s",
            1.0,
            fixed(Col::Repl(None, ReplMetric::SecondsBehindS)),
            [a, b],
            doc,
        ),
    ];
    specs.into_iter().flatten().filter_map(|s| charts::render(&s).ok().map(|c| (c.title, c.svg))).collect()
}

fn change_rows(changes: &[Change]) -> Markup {
    html! {
        @for c in changes {
            tr class={ (c.change) @if c.deciding { " deciding" } } {
                td { (c.label) @if let Some(n) = c.note_a.as_ref().or(c.note_b.as_ref()) { " " span.note { "(" (n) ")" } } }
                td.num { (value(c.a, &c.unit)) }
                td.num { (value(c.b, &c.unit)) }
                td.num { (ratio(c)) }
                td.key {
                    (c.key)
                    @for src in sources(c) { br; span.src { (src) } }
                }
            }
        }
    }
}

const CSS: &str = "body{font-family:sans-serif;margin:2em;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:1em 0;width:100%}td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
td.num{text-align:right;white-space:nowrap}td.key,.note,.src{color:#777;font-size:85%}
tr.appeared td:first-child{border-left:4px solid #d62728}tr.vanished td:first-child{border-left:4px solid #2ca02c}
tr.same{color:#999}.a{color:#1f77b4;font-weight:bold}.b{color:#ff7f0e;font-weight:bold}
figure{margin:1em 0}figure svg{max-width:100%;height:auto}
ul.headline{font-size:110%;line-height:1.5}tr.deciding td:first-child{font-weight:bold}";

/// The page.
pub(crate) fn render(doc: &DiffDoc, a: &Report, b: &Report) -> String {
    let moved: Vec<Change> = doc.changes.iter().filter(|c| c.change != "same").cloned().collect();
    let same: Vec<Change> = doc.changes.iter().filter(|c| c.change == "same").cloned().collect();
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:";
                title { "iosift diff: " (doc.a.name) " vs " (doc.b.name) }
                style { (PreEscaped(CSS)) }
            }
            body {
                h1 { "What changed: " span.a { "A " (doc.a.name) } " \u{2192} " span.b { "B " (doc.b.name) } }
                p {
                    "Compared " (doc.compared_s) " s of each capture. "
                    @for (tag, s) in [("A", &doc.a), ("B", &doc.b)] {
                        (tag) " starts " (s.start.as_deref().unwrap_or("(no times)"))
                        ", aligned at " (s.aligned_at.as_deref().unwrap_or("-"))
                        @if let Some(by) = &s.load_window_by {
                            ", load window +" (s.load_window_s[0]) "..+" (s.load_window_s[1]) " s (by " (by) ")"
                        }
                        ". "
                    }
                }
                h2 { "What changed the verdict" }
                @if doc.headline.is_empty() { p { "Nothing: no finding, measure or setting changed." } }
                @else { ul.headline { @for h in &doc.headline { li { (h) } } } }
                h2 { "Findings" }
                @if doc.findings.is_empty() { p { "No rule fired in either capture." } }
                @else { table {
                    tr { th { "rule" } th { "change" } th { "A" } th { "B" } }
                    @for f in &doc.findings {
                        tr class=(f.change) {
                            td { (f.rule) }
                            td { (f.change) }
                            td { (f.summary_a.as_deref().unwrap_or("-")) }
                            td { (f.summary_b.as_deref().unwrap_or("-")) }
                        }
                    }
                } }
                @for f in doc.findings.iter().filter(|f| !f.metrics.is_empty()) {
                    details {
                        summary { "metrics of " (f.rule) }
                        table { tr { th { "metric" } th { "A" } th { "B" } th { "change" } th { "key" } } (change_rows(&f.metrics)) }
                    }
                }
                h2 { "Ranked changes" }
                table {
                    tr { th { "what" } th { "A" } th { "B" } th { "change" } th { "key" } }
                    (change_rows(&moved))
                }
                h2 { "Context that differs" }
                @if doc.context.is_empty() { p { "No difference in the context both captures hold." } }
                @else { table {
                    tr { th { "fact" } th { "A" } th { "B" } }
                    @for c in &doc.context {
                        tr {
                            td { (c.key) @if let Some(d) = &c.detail { br; span.note { (d) } } }
                            td { (c.a.as_deref().unwrap_or("(not in A)")) br; span.src { (c.source_a.as_deref().unwrap_or("")) } }
                            td { (c.b.as_deref().unwrap_or("(not in B)")) br; span.src { (c.source_b.as_deref().unwrap_or("")) } }
                        }
                    }
                } }
                p.note { (doc.context_same) " context facts are equal in both." }
                h2 { "Overlaid timelines" }
                @for (title, svg) in overlays(doc, a, b) {
                    figure { (PreEscaped(svg)) figcaption { (title) ": " span.a { "A" } " and " span.b { "B" } ", seconds after each alignment point." } }
                }
                h2 { "Unchanged (within 5 %)" }
                table { tr { th { "what" } th { "A" } th { "B" } th { "change" } th { "key" } } (change_rows(&same)) }
            }
        }
    };
    crate::term::safe_doc(page.into_string())
}
