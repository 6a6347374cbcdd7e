//! A plotters backend wrapper that draws a chart laid out at `w x h` into a
//! bitmap of `2w x 2h` (paste-ready PNGs at 2x), with its own text rendering.
//!
//! Coordinates, stroke widths and radii are doubled on the way to the inner
//! backend. Text is drawn here with ab_glyph at twice the size, each glyph at
//! its outline's pixel bounds: plotters 0.3.7's ab_glyph text drops the
//! glyph's left side bearing and places glyphs by their top instead of the
//! baseline, which printed "21:1 0:20" for 21:10:20 and raised the full stop
//! to mid-height ("0·37"). Layout (`estimate_text_size`) is given in the
//! chart's own units, so plotters lays the chart out as before.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};

/// The scale factor.
pub(super) const SCALE: i32 = 2;

/// A style with its stroke width scaled.
struct Scaled(BackendColor, u32);

impl BackendStyle for Scaled {
    fn color(&self) -> BackendColor {
        self.0
    }
    fn stroke_width(&self) -> u32 {
        self.1
    }
}

fn scaled<S: BackendStyle>(s: &S) -> Scaled {
    Scaled(s.color(), s.stroke_width().max(1) * SCALE as u32)
}

fn up((x, y): BackendCoord) -> BackendCoord {
    (x * SCALE, y * SCALE)
}

/// Draws on `inner` (of twice the size) with the font `font`.
pub(super) struct HiDpi<B> {
    inner: B,
    font: FontRef<'static>,
}

impl<B: DrawingBackend> HiDpi<B> {
    /// Wraps a backend of twice the logical size; `None` when the font does not load.
    pub(super) fn new(inner: B, font: &'static [u8]) -> Option<Self> {
        Some(HiDpi { inner, font: FontRef::try_from_slice(font).ok()? })
    }

    /// Width, ascent and descent (negative) of `text` at `px` pixels per em.
    fn measure(&self, text: &str, px: f32) -> (f32, f32, f32) {
        let f = self.font.as_scaled(PxScale::from(px));
        let mut w = 0.0;
        let mut prev = None;
        for c in text.chars() {
            let id = f.glyph_id(c);
            if let Some(p) = prev {
                w += f.kern(p, id);
            }
            w += f.h_advance(id);
            prev = Some(id);
        }
        (w, f.ascent(), f.descent())
    }
}

/// The ab_glyph scale of a plotters font size (plotters' own ab_glyph backend uses it as is).
fn px_of(size: f64) -> f32 {
    size as f32
}

impl<B: DrawingBackend> DrawingBackend for HiDpi<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        let (w, h) = self.inner.get_size();
        (w / SCALE as u32, h / SCALE as u32)
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.present()
    }

    fn draw_pixel(
        &mut self,
        p: BackendCoord,
        c: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let (x, y) = up(p);
        for dx in 0..SCALE {
            for dy in 0..SCALE {
                self.inner.draw_pixel((x + dx, y + dy), c)?;
            }
        }
        Ok(())
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_line(up(from), up(to), &scaled(style))
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        ul: BackendCoord,
        br: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let (a, b) = (up(ul), up(br));
        if fill {
            // A filled rectangle covers its last logical pixel too.
            self.inner.draw_rect(a, (b.0 + SCALE - 1, b.1 + SCALE - 1), &scaled(style), true)
        } else {
            self.inner.draw_rect(a, b, &scaled(style), false)
        }
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_path(path.into_iter().map(up), &scaled(style))
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_circle(up(center), radius * SCALE as u32, &scaled(style), fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.fill_polygon(vert.into_iter().map(up), &scaled(style))
    }

    fn estimate_text_size<TStyle: BackendTextStyle>(
        &self,
        text: &str,
        style: &TStyle,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        let (w, a, d) = self.measure(text, px_of(style.size()));
        Ok((w.ceil() as u32, (a - d).ceil() as u32))
    }

    fn draw_text<TStyle: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let px = px_of(style.size()) * SCALE as f32;
        let (w, ascent, descent) = self.measure(text, px);
        let h = ascent - descent;
        let dx = match style.anchor().h_pos {
            HPos::Left => 0.0,
            HPos::Right => -w,
            HPos::Center => -w / 2.0,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0.0,
            VPos::Center => -h / 2.0,
            VPos::Bottom => -h,
        };
        let trans = style.transform();
        let origin = up(pos);
        let font = self.font.clone();
        let f = font.as_scaled(PxScale::from(px));
        let mut caret = 0.0f32;
        let mut prev = None;
        let mut pixels: Vec<(i32, i32, f32)> = Vec::new();
        for c in text.chars() {
            let id = f.glyph_id(c);
            if let Some(p) = prev {
                caret += f.kern(p, id);
            }
            prev = Some(id);
            let glyph = id.with_scale_and_position(PxScale::from(px), point(dx + caret, dy + ascent));
            caret += f.h_advance(id);
            if let Some(o) = font.outline_glyph(glyph) {
                let b = o.px_bounds();
                o.draw(|x, y, cov| {
                    if cov > 0.0 {
                        pixels.push((b.min.x as i32 + x as i32, b.min.y as i32 + y as i32, cov));
                    }
                });
            }
        }
        let (iw, ih) = self.inner.get_size();
        for (x, y, cov) in pixels {
            let (x, y) = trans.transform(x, y);
            let (x, y) = (origin.0 + x, origin.1 + y);
            if x >= 0 && y >= 0 && (x as u32) < iw && (y as u32) < ih {
                let c = BackendColor { alpha: color.alpha * f64::from(cov.min(1.0)), rgb: color.rgb };
                self.inner.draw_pixel((x, y), c)?;
            }
        }
        Ok(())
    }
}
