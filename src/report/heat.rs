//! The perf heat map of the page (FlameScope's sub-second view): one column per
//! second of the capture, one row per 100 ms of the second, each cell coloured by
//! the samples perf took in it, the device write bursts marked under the time
//! axis. Drawn as inline SVG (one path per colour level, complete with scripts
//! off); the page's script ([`super::heat_script::SCRIPT`]) reads the cells and
//! the call tree from `data-heat` ([`super::heat_data`]), shows a cell's time and
//! count on hover, and draws the flame graph of a dragged (or clicked) range under
//! the map; a double-click goes back to the whole capture.

use super::charts::axis::{tick_pattern, time_ticks};
use super::fmt::full;
use crate::analysis::heat::{PerfHeat, ROWS};
use crate::model::Report;
use maud::{Markup, html};
use std::fmt::Write;

/// Width of the SVG coordinate system.
const W: f64 = 1000.0;
/// Left edge of the cells (room for the row labels).
const LEFT: f64 = 64.0;
/// Right margin.
const RIGHT: f64 = 14.0;
/// Top margin.
const TOP: f64 = 6.0;
/// Height of a row (100 ms).
const RH: f64 = 14.0;

/// Colour levels, light to dark (a cell with one sample is already visible on white).
pub(super) const LEVELS: [&str; 8] =
    ["#fee6ce", "#fdd0a2", "#fdae6b", "#fd8d3c", "#f16913", "#d94801", "#a63603", "#7f2704"];

/// The level (1..=8) of `count` samples when the fullest cell holds `max`; 0 for none.
fn level(count: u32, max: u32) -> usize {
    if count == 0 || max == 0 {
        return 0;
    }
    (u64::from(count) * LEVELS.len() as u64).div_ceil(u64::from(max)).clamp(1, LEVELS.len() as u64) as usize
}

/// The counts each level stands for: (level, lowest, highest), levels without a whole count left out.
fn legend(max: u32) -> Vec<(usize, u32, u32)> {
    let n = LEVELS.len() as u64;
    (1..=LEVELS.len())
        .filter_map(|k| {
            let lo = (k as u64 - 1) * u64::from(max) / n + 1;
            let hi = k as u64 * u64::from(max) / n;
            (lo <= hi).then_some((k, lo as u32, hi as u32))
        })
        .collect()
}

/// One path per level: a run of cells of the same level in a row is one rectangle,
/// in cell units (`M col row h run v 1 h -run z`).
fn level_paths(h: &PerfHeat, max: u32) -> Vec<(usize, String)> {
    let mut paths = vec![String::new(); LEVELS.len() + 1];
    for row in 0..ROWS {
        let mut col = 0;
        while col < h.cols {
            let l = level(h.counts[col * ROWS + row], max);
            let mut end = col + 1;
            while end < h.cols && level(h.counts[end * ROWS + row], max) == l {
                end += 1;
            }
            if l > 0 {
                let _ = write!(paths[l], "M{col} {row}h{}v1h-{}z", end - col, end - col);
            }
            col = end;
        }
    }
    paths.into_iter().enumerate().filter(|(_, p)| !p.is_empty()).collect()
}

/// The device write bursts as column spans `[a, b)` of the map.
fn burst_columns(report: &Report, h: &PerfHeat) -> Vec<(i64, i64)> {
    let tl = &report.timeline;
    let Some(p) = &report.periodicity else { return Vec::new() };
    p.bursts
        .iter()
        .map(|b| (tl.epoch(b.start) - h.t0, tl.epoch(b.end) + tl.bin() - h.t0))
        .filter(|&(a, b)| b > 0 && a < h.cols as i64)
        .map(|(a, b)| (a.max(0), b.min(h.cols as i64)))
        .collect()
}

/// The caption: what is counted, whose samples, what the colour means, what was left out.
fn caption(report: &Report, h: &PerfHeat, max: u32) -> String {
    let z = &report.display;
    let mut s = format!(
        "{}: {} samples{} per 100 ms (rows, the first 100 ms of each second at the top) of each second (columns), \
         {} to {} {}; ",
        h.file,
        h.samples,
        h.event.as_deref().map(|e| format!(" of {e}")).unwrap_or_default(),
        full(z, h.t0),
        full(z, h.t0 + h.cols as i64 - 1),
        z.label
    );
    let procs: Vec<String> = h.processes.iter().take(5).map(|(n, k)| format!("{n} {k}")).collect();
    let _ = write!(s, "by command (perf's comm, the flame graphs' first frame): {}", procs.join(", "));
    if h.processes.len() > 5 {
        let _ = write!(s, " and {} more", h.processes.len() - 5);
    }
    let _ = write!(s, ". Darker is more samples in that 100 ms (the fullest cell holds {max}).");
    if !burst_columns(report, h).is_empty() {
        s.push_str(" Red under the time axis: device write bursts.");
    }
    s.push_str(
        " Drag across the map (or click a cell) to draw the flame graph of that range below; double-click for the whole map.",
    );
    if h.outside > 0 {
        let _ = write!(s, " {} samples outside these seconds are not shown.", h.outside);
    }
    if let Some(n) = &h.clip_note {
        let _ = write!(s, " {}{}.", n[..1].to_uppercase(), &n[1..]);
    }
    if h.tree.cut > 0 {
        let _ = write!(
            s,
            " The range flame graphs keep the heaviest call paths: {} rarer frames are cut, their samples count at their caller.",
            h.tree.cut
        );
    }
    if h.no_stack > 0 {
        let _ = write!(
            s,
            " {} of the samples have no call stack (on the map, not in the range flame graphs).",
            h.no_stack
        );
    }
    s
}

/// The heat map of one perf file, `k`-th on the page, with the flame graph of its range.
pub(super) fn figure(report: &Report, h: &PerfHeat, k: usize) -> Markup {
    let max = h.counts.iter().copied().max().unwrap_or(0);
    let cols = h.cols.max(1);
    let cw = (W - LEFT - RIGHT) / cols as f64;
    let bottom = TOP + RH * ROWS as f64;
    let height = bottom + 44.0;
    let z = &report.display;
    let off = i64::from(z.rule.offset_at(h.t0));
    let ticks = time_ticks(h.t0.saturating_add(off), cols);
    let pattern = tick_pattern(cols as f64);
    let x = |t: f64| LEFT + t * cw;
    let id = format!("heat-{k}");
    html! {
        figure.heat {
            div.ct { "perf samples per 100 ms: " (h.file) }
            div.hm id=(id) data-t0=(h.t0) data-cols=(h.cols) data-rows=(ROWS) data-off=(off) data-zone=(z.label)
                data-x0=(LEFT) data-x1=(W - RIGHT) data-top=(TOP) data-bottom=(bottom) data-heat=(super::heat_data::json(h)) {
                svg viewBox=(format!("0 0 {W:.0} {height:.0}")) role="img" {
                    rect x=(LEFT) y=(TOP) width=(W - LEFT - RIGHT) height=(bottom - TOP) fill="#fff" stroke="#c8c8c8" {}
                    g.cells transform=(format!("translate({LEFT} {TOP}) scale({cw:.5} {RH})")) shape-rendering="crispEdges" {
                        @for (l, d) in level_paths(h, max) {
                            path data-l=(l) fill=(LEVELS[l - 1]) d=(d) {}
                        }
                        path.hsel fill="#0969da" fill-opacity="0.18" stroke="#0969da" stroke-width="1.5" vector-effect="non-scaling-stroke" d="" {}
                    }
                    @for (row, label) in [(0, "0"), (5, "500"), (ROWS, "1000")] {
                        text.yl x=(LEFT - 6.0) y=(format!("{:.1}", TOP + RH * row as f64 + 4.0)) text-anchor="end" { (label) }
                    }
                    text.yd x="12" y=(format!("{:.1}", (TOP + bottom) / 2.0)) transform=(format!("rotate(-90 12 {:.1})", (TOP + bottom) / 2.0)) text-anchor="middle" { "ms into the second" }
                    g.bw {
                        @for (a, b) in burst_columns(report, h) {
                            rect data-s=(a) data-e=(b) x=(format!("{:.1}", x(a as f64))) y=(format!("{:.1}", bottom + 1.0)) width=(format!("{:.1}", ((b - a) as f64 * cw).max(1.0))) height="5" fill="#d62728" {}
                        }
                    }
                    @for t in &ticks {
                        line x1=(format!("{:.1}", x(*t))) x2=(format!("{:.1}", x(*t))) y1=(format!("{bottom:.1}")) y2=(format!("{:.1}", bottom + 8.0)) stroke="#8c959f" {}
                        text.xl x=(format!("{:.1}", x(*t))) y=(format!("{:.1}", bottom + 20.0)) text-anchor="middle" { (z.format(h.t0.saturating_add(*t as i64), pattern)) }
                    }
                    text.xd x=(format!("{:.1}", (W + LEFT - RIGHT) / 2.0)) y=(format!("{:.1}", bottom + 37.0)) text-anchor="middle" {
                        "time, " (z.label) " (" (z.format(h.t0, "%Y-%m-%d")) "), one column per second"
                    }
                    rect.hov x=(LEFT) y=(TOP) width=(W - LEFT - RIGHT) height=(bottom - TOP) fill="transparent" {}
                }
                div.lg {
                    span.lgs { "samples per 100 ms:" }
                    @for (l, lo, hi) in legend(max) {
                        span.lgs { i style=(format!("background:{}", LEVELS[l - 1])) {} @if lo == hi { (lo) } @else { (lo) "–" (hi) } }
                    }
                    @if !burst_columns(report, h).is_empty() { span.lgs { i style="background:#d62728" {} "device write bursts" } }
                    span.lgs { i style="background:#c3d9f5" {} "selected range" }
                }
            }
            figcaption { (caption(report, h, max)) }
            div.hfg id=(format!("{id}-fg")) {
                p.hft { "Flame graph of a range: drawn by the page's script (scripts are off); the flame graphs of the whole file are below." }
            }
        }
    }
}

/// The heat maps of the perf section; a note when perf has stacks but no map.
pub(super) fn section(report: &Report) -> Markup {
    html! {
        @if !report.perf_heat.is_empty() {
            h3 { "When: samples per 100 ms" }
            @for (k, h) in report.perf_heat.iter().enumerate() { (figure(report, h, k)) }
        } @else if !report.flames.is_empty() {
            p.muted { "No sub-second heat map: the perf samples have no time stamps, or perf's clock could not be tied to the capture's (see the clock warnings)." }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_legend() {
        assert_eq!(level(0, 10), 0);
        assert_eq!(level(1, 10), 1);
        assert_eq!(level(10, 10), 8);
        assert_eq!(level(5, 10), 4);
        // Few samples: only the levels a whole count falls in.
        assert_eq!(legend(3), [(3, 1, 1), (6, 2, 2), (8, 3, 3)]);
        assert_eq!(legend(16)[0], (1, 1, 2));
        assert!(legend(0).is_empty());
    }

    #[test]
    fn runs_of_a_level_are_one_rectangle() {
        // 3 columns: row 0 holds 4, 4, 0; row 1 holds 0, 0, 1.
        let mut counts = vec![0u32; 3 * ROWS];
        counts[0] = 4;
        counts[ROWS] = 4;
        counts[2 * ROWS + 1] = 1;
        let h = PerfHeat { cols: 3, counts, ..Default::default() };
        assert_eq!(level_paths(&h, 4), [(2, "M2 1h1v1h-1z".to_string()), (8, "M0 0h2v1h-2z".to_string())]);
    }
}
