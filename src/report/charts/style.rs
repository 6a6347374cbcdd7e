//! The look shared by every chart: the bundled font and the fixed colours
//! (charts are deterministic).

use plotters::prelude::*;
use std::sync::Once;

/// Family name the bundled font is registered under.
pub(super) const FONT: &str = "sans-serif";
/// DejaVu Sans (Bitstream Vera license, see `assets/fonts/LICENSE-DejaVu.txt`).
pub(super) static DEJAVU_SANS: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

/// Colours of successive series (fixed: charts are deterministic).
pub(super) const PALETTE: [RGBColor; 10] = [
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
pub(super) const ALERT: RGBColor = RGBColor(214, 39, 40);
/// Colour of the writeback-window marker.
pub(super) const WINDOW: RGBColor = RGBColor(255, 127, 14);
/// Light grid lines.
pub(super) const GRID: RGBColor = RGBColor(236, 236, 236);
/// Grey for secondary series and guides.
pub(super) const GREY: RGBColor = RGBColor(150, 150, 150);

/// Registers the bundled font once (plotters' ab_glyph backend has no system fonts).
pub(super) fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is compiled in and known to be valid; a failure would only mean no text.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, DEJAVU_SANS);
    });
}
