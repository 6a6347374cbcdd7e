//! Draws a [`Spec`] as PNG (at 2x through [`crate::report::hidpi`], bundled
//! DejaVu Sans, no fontconfig) and SVG (text escaped by plotters' SVG backend),
//! the same [`super::draw::draw`] on both backends.

use super::draw::draw;
use super::plot::{Chart, Plot, Spec, WIDTH};
use super::style::{DEJAVU_SANS, register_font};
use crate::report::hidpi;
use plotters::prelude::*;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Draws a spec as PNG and SVG. Its text is drawn [`visible`]: a control or
/// bidirectional character from the capture is written as an escape, as on the terminal.
pub fn render(spec: &Spec) -> Result<Chart, String> {
    let spec = &visible(spec);
    register_font();
    let (w, h) = (WIDTH, spec.height.clamp(200, 2000));
    let png = catch_unwind(AssertUnwindSafe(|| -> Result<Vec<u8>, String> {
        let (pw, ph) = (w * hidpi::SCALE as u32, h * hidpi::SCALE as u32);
        let mut buf = vec![0u8; pw as usize * ph as usize * 3];
        {
            let inner = BitMapBackend::with_buffer(&mut buf, (pw, ph));
            let root = hidpi::HiDpi::new(inner, DEJAVU_SANS)
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
            Plot::Xy(_) | Plot::Bars(_) => None,
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

#[cfg(test)]
mod tests {
    use super::super::plot::{BarPlot, Section};
    use super::*;

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
