//! Axes shared by the drawn charts ([`super::draw`]), the page's live charts
//! ([`crate::report::live`], whose script recomputes the time ticks on zoom from
//! the same [`TICK_STEPS`] and [`DATE_TICKS_FROM_S`]) and the heat map: time ticks
//! on round wall-clock times, tick label patterns, y ranges and the stacking of layers.

use super::plot::TimePanel;
use plotters::prelude::*;

/// The steps of time ticks, seconds: the first that gives few enough ticks is used.
pub(crate) const TICK_STEPS: [i64; 18] =
    [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

/// From this span on (seconds), time tick labels carry the month and day ([`tick_pattern`]).
pub(crate) const DATE_TICKS_FROM_S: i64 = 2 * 86_400;

/// The strftime pattern of time tick labels over `span` seconds: the time of day, and the
/// month and day as well from two days on (a capture of days has its ticks at midnights).
pub(crate) fn tick_pattern(span: f64) -> &'static str {
    if span >= DATE_TICKS_FROM_S as f64 { "%m-%d %H:%M" } else { "%H:%M:%S" }
}

/// Tick positions (seconds from `t0`) at round wall-clock times of `t0`'s zone: multiples of 1 s .. 1 day,
/// at most about ten over `len` seconds.
pub(crate) fn time_ticks(t0: i64, len: usize) -> Vec<f64> {
    let len = len as i64;
    let step = TICK_STEPS.iter().copied().find(|s| len / s <= 10).unwrap_or(86400 * ((len / 86400 / 10) + 1));
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
pub(super) struct TimeAxis {
    /// Seconds covered.
    pub(super) end: f64,
    /// Tick positions.
    pub(super) ticks: Vec<f64>,
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
pub(crate) fn stack(panel: &TimePanel) -> Vec<Vec<Option<f64>>> {
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
pub(crate) fn panel_y_range(panel: &TimePanel, cum: &[Vec<Option<f64>>], headroom: f64) -> (f64, f64) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
