//! Time charts of the page as inline SVG written here (not by plotters), so
//! that the small script of [`script`] can read them: every panel carries its
//! plot rectangle, its y range and its unit, every series its values
//! (`data-v`, the numbers drawn, one per point) and its label. With scripts
//! off the SVG is a complete static chart; with scripts on the page gets
//! hover values, one crosshair shared by every time panel, drag to zoom (all
//! time charts follow), double-click to reset and legend toggles.
//!
//! Capture text (series labels come from device and category names) goes
//! through maud, which escapes it in text and attributes alike.

use super::charts::TimePlot;
use super::charts::axis::{DATE_TICKS_FROM_S, TICK_STEPS, panel_y_range, stack, tick_pattern, time_ticks};
use super::fmt::num;
use maud::{Markup, html};
use plotters::style::RGBColor;
use std::fmt::Write;

/// Width of the SVG coordinate system of a full-width chart.
pub(super) const W: f64 = 1000.0;
/// Left edge of the plot area (room for the y labels).
const LEFT: f64 = 64.0;
/// Right margin.
const RIGHT: f64 = 14.0;
/// Space under the last panel for the time labels.
const BOTTOM: f64 = 34.0;
/// Gap between panels.
const GAP: f64 = 14.0;

fn rgb(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// A value with four significant digits for `data-v` (empty when absent).
fn short(v: Option<f64>) -> String {
    match v {
        Some(v) if v.is_finite() => {
            let a = v.abs();
            if a == 0.0 {
                "0".into()
            } else if a >= 1000.0 {
                format!("{v:.0}")
            } else {
                let d = (3 - a.log10().floor() as i32).clamp(0, 8) as usize;
                let s = format!("{v:.d$}");
                if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s }
            }
        }
        _ => String::new(),
    }
}

/// The step path of values (a value covers its bucket), gaps break it;
/// as an area down to `base` when `area`.
fn path(
    values: &[Option<f64>],
    step: f64,
    x: &dyn Fn(f64) -> f64,
    y: &dyn Fn(f64) -> f64,
    area: Option<f64>,
) -> String {
    let mut d = String::new();
    let mut run: Vec<(f64, f64)> = Vec::new();
    let flush = |run: &mut Vec<(f64, f64)>, d: &mut String| {
        if run.is_empty() {
            return;
        }
        for (k, (px, py)) in run.iter().enumerate() {
            let _ = write!(d, "{}{:.1},{:.1}", if k == 0 { "M" } else { "L" }, px, py);
        }
        if let Some(b) = area
            && let (Some(last), Some(first)) = (run.last(), run.first())
        {
            let _ = write!(d, "L{:.1},{:.1}L{:.1},{:.1}Z", last.0, y(b), first.0, y(b));
        }
        run.clear();
    };
    for (i, v) in values.iter().enumerate() {
        match v {
            Some(v) if v.is_finite() => {
                run.push((x(i as f64 * step), y(*v)));
                run.push((x((i + 1) as f64 * step), y(*v)));
            }
            _ => flush(&mut run, &mut d),
        }
    }
    flush(&mut run, &mut d);
    d
}

/// About five round y ticks in `lo..hi`.
fn y_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = hi - lo;
    if !(span.is_finite() && span > 0.0) {
        return Vec::new();
    }
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step =
        [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * mag).find(|s| span / s <= 6.0).unwrap_or(10.0 * mag);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 && out.len() < 12 {
        out.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
        t += step;
    }
    out
}

/// A time chart as inline SVG with its legend. `id` is unique on the page; `w` is
/// the width of its coordinate system (the figure scales to its column);
/// `panel_h` is the height of one panel; `window` shades a span (seconds from t0)
/// in every panel, e.g. the window of a finding.
pub(super) fn time_chart(p: &TimePlot, id: &str, w: f64, panel_h: f64, window: Option<(f64, f64)>) -> Markup {
    let n = p.panels.len().max(1);
    let h = n as f64 * panel_h + (n - 1) as f64 * GAP + BOTTOM;
    let len = p.len.max(1) as f64;
    let (x0, x1) = (LEFT, w - RIGHT);
    let x = move |t: f64| x0 + (t / len).clamp(-0.01, 1.01) * (x1 - x0);
    let off = i64::from(p.zone.rule.offset_at(p.t0));
    // About one time label per 90 units of width (ten on a full-width chart).
    let max_ticks = ((w - LEFT - RIGHT) / 90.0).floor().clamp(3.0, 10.0) as usize;
    let mut ticks = time_ticks(p.t0.saturating_add(off), p.len.max(1));
    while ticks.len() > max_ticks + 1 {
        ticks = ticks.into_iter().step_by(2).collect();
    }
    let pattern = tick_pattern(len);
    let fmt_t = |t: f64| p.zone.format(p.t0.saturating_add(t.round() as i64), pattern);
    let day = p.zone.format(p.t0, "%Y-%m-%d");
    html! {
        div.tc id=(id) data-t0=(p.t0) data-step=(p.step) data-len=(p.len) data-off=(off) data-zone=(p.zone.label) data-mt=(max_ticks) {
            svg.tcs viewBox=(format!("0 0 {w:.0} {h:.0}")) role="img" {
                @for (k, panel) in p.panels.iter().enumerate() {
                    @let top = k as f64 * (panel_h + GAP) + 4.0;
                    @let bottom = top + panel_h - 8.0;
                    @let cum = stack(panel);
                    @let (lo, hi) = panel_y_range(panel, &cum, 1.0);
                    @let y = move |v: f64| bottom - ((v - lo) / (hi - lo)).clamp(-0.05, 1.05) * (bottom - top);
                    @let clip = format!("{id}-c{k}");
                    g.panel data-x0=(x0) data-x1=(x1) data-top=(format!("{top:.1}")) data-bottom=(format!("{bottom:.1}"))
                        data-lo=(short(Some(lo))) data-hi=(short(Some(hi))) data-unit=(panel.y_desc) {
                        clipPath id=(clip) { rect x=(x0) y=(format!("{top:.1}")) width=(x1 - x0) height=(format!("{:.1}", bottom - top)) {} }
                        rect.bg x=(x0) y=(format!("{top:.1}")) width=(x1 - x0) height=(format!("{:.1}", bottom - top)) fill="#fff" stroke="#c8c8c8" {}
                        @for t in y_ticks(lo, hi) {
                            line x1=(x0) x2=(x1) y1=(format!("{:.1}", y(t))) y2=(format!("{:.1}", y(t))) stroke="#ececec" {}
                            text.yl x=(x0 - 6.0) y=(format!("{:.1}", y(t) + 4.0)) text-anchor="end" { (num(t)) }
                        }
                        text.yd x="12" y=(format!("{:.1}", (top + bottom) / 2.0)) transform=(format!("rotate(-90 12 {:.1})", (top + bottom) / 2.0)) text-anchor="middle" { (panel.y_desc) }
                        g.xg {
                            @for t in &ticks {
                                line x1=(format!("{:.1}", x(*t))) x2=(format!("{:.1}", x(*t))) y1=(format!("{top:.1}")) y2=(format!("{bottom:.1}")) stroke="#ececec" {}
                            }
                        }
                        g.data clip-path=(format!("url(#{clip})")) {
                            g.spans {
                                @for (s, e) in &panel.spans {
                                    rect data-s=(s) data-e=(e) x=(format!("{:.1}", x(*s))) y=(format!("{top:.1}")) width=(format!("{:.1}", (x(*e) - x(*s)).max(1.0))) height=(format!("{:.1}", bottom - top)) fill="#d62728" fill-opacity="0.16" {}
                                }
                                @if let Some((s, e)) = window {
                                    rect.win data-s=(s) data-e=(e) x=(format!("{:.1}", x(s))) y=(format!("{top:.1}")) width=(format!("{:.1}", (x(e) - x(s)).max(2.0))) height=(format!("{:.1}", bottom - top)) fill="#0969da" fill-opacity="0.13" {}
                                }
                            }
                            @for (j, layer) in panel.stacked.iter().enumerate().rev() {
                                @let c = rgb(layer.color);
                                @let vals = cum.get(j).cloned().unwrap_or_default();
                                g.ser data-kind="area" data-label=(layer.label) data-k=(format!("{k}:s{j}"))
                                    data-v=(vals.iter().map(|v| short(*v)).collect::<Vec<_>>().join(","))
                                    data-r=(layer.values.iter().map(|v| short(*v)).collect::<Vec<_>>().join(",")) {
                                    path d=(path(&vals, p.step as f64, &x, &y, Some(lo.max(0.0)))) fill=(c) fill-opacity="0.75" stroke=(c) stroke-width="1" {}
                                }
                            }
                            @if let Some((g, label)) = &panel.guide {
                                g.guide data-label=(label) {
                                    line x1=(x0) x2=(x1) y1=(format!("{:.1}", y(*g))) y2=(format!("{:.1}", y(*g))) stroke="#969696" stroke-dasharray="5 3" {}
                                }
                            }
                            @for (j, l) in panel.lines.iter().enumerate() {
                                @let c = rgb(l.color);
                                g.ser data-kind="line" data-label=(l.label) data-k=(format!("{k}:l{j}"))
                                    data-v=(l.values.iter().map(|v| short(*v)).collect::<Vec<_>>().join(",")) {
                                    path d=(path(&l.values, p.step as f64, &x, &y, None)) fill="none" stroke=(c) stroke-width=(l.width.max(1) as f64 * 0.9) {}
                                }
                            }
                            g.marks {
                                @for (mx, my) in panel.marks.iter().filter(|m| m.0.is_finite() && m.1.is_finite()) {
                                    circle data-x=(mx) cx=(format!("{:.1}", x(*mx))) cy=(format!("{:.1}", y(*my))) r="3.5" fill="#d62728" {}
                                }
                            }
                        }
                        @if k + 1 == n {
                            g.xl {
                                @for t in &ticks {
                                    text x=(format!("{:.1}", x(*t))) y=(format!("{:.1}", bottom + 16.0)) text-anchor="middle" { (fmt_t(*t)) }
                                }
                            }
                            text.xd x=(format!("{:.1}", (x0 + x1) / 2.0)) y=(format!("{:.1}", bottom + 31.0)) text-anchor="middle" { "time, " (p.zone.label) " (" (day) ")" }
                        }
                        line.xh x1="0" x2="0" y1=(format!("{top:.1}")) y2=(format!("{bottom:.1}")) stroke="#444" stroke-width="1" visibility="hidden" {}
                        rect.sel x="0" y=(format!("{top:.1}")) width="0" height=(format!("{:.1}", bottom - top)) fill="#0969da" fill-opacity="0.15" visibility="hidden" {}
                        rect.ov x=(x0) y=(format!("{top:.1}")) width=(x1 - x0) height=(format!("{:.1}", bottom - top)) fill="transparent" {}
                    }
                }
            }
            (legend(p, window))
        }
    }
}

/// The legend under a time chart: a toggle per series, the guides, the shaded spans.
fn legend(p: &TimePlot, window: Option<(f64, f64)>) -> Markup {
    html! {
        div.lg {
            @for (k, panel) in p.panels.iter().enumerate() {
                @for (j, layer) in panel.stacked.iter().enumerate() {
                    button.li type="button" data-k=(format!("{k}:s{j}")) { i style=(format!("background:{}", rgb(layer.color))) {} (layer.label) }
                }
                @for (j, l) in panel.lines.iter().enumerate() {
                    button.li type="button" data-k=(format!("{k}:l{j}")) { i style=(format!("background:{}", rgb(l.color))) {} (l.label) }
                }
                @if let Some((_, label)) = &panel.guide { span.lgs { i.dash {} (label) } }
            }
            @if p.panels.iter().any(|x| !x.spans.is_empty()) { span.lgs { i style="background:#f5c6c6" {} "device write bursts" } }
            @if window.is_some() { span.lgs { i style="background:#c3d9f5" {} "window of the finding" } }
        }
    }
}

/// The page's script: hover values, a shared crosshair, drag to zoom, double-click
/// to reset, legend toggles. It only reads the `data-*` attributes written by
/// [`time_chart`] and redraws paths and time labels; it loads nothing. Its time
/// ticks on zoom use the axis of the drawn charts ([`TICK_STEPS`], [`DATE_TICKS_FROM_S`]).
pub(super) fn script() -> String {
    let steps: Vec<String> = TICK_STEPS.iter().map(i64::to_string).collect();
    SCRIPT
        .replace("@TICK_STEPS@", &steps.join(","))
        .replace("@DATE_TICKS_FROM_S@", &DATE_TICKS_FROM_S.to_string())
}

/// The text of [`script`] before the axis constants are put in.
const SCRIPT: &str = r##"
(function(){
"use strict";
var charts=[].slice.call(document.querySelectorAll("div.tc"));
if(!charts.length)return;
var NS=charts[0].querySelector("svg").namespaceURI;
var tip=document.createElement("div");tip.id="tip";tip.className="tip";tip.style.display="none";document.body.appendChild(tip);
function pad(n){return(n<10?"0":"")+n;}
function hms(e){var d=new Date(e*1000);return pad(d.getUTCHours())+":"+pad(d.getUTCMinutes())+":"+pad(d.getUTCSeconds());}
function tick(e,span){if(span<@DATE_TICKS_FROM_S@)return hms(e);var d=new Date(e*1000);return pad(d.getUTCMonth()+1)+"-"+pad(d.getUTCDate())+" "+hms(e).slice(0,5);}
function fmt(v){var a=Math.abs(v);if(a===0)return"0";if(a>=100)return v.toFixed(0);if(a>=10)return v.toFixed(1).replace(/\.0$/,"");if(a>=0.01)return v.toFixed(2).replace(/0$/,"").replace(/\.$/,"");return v.toExponential(1);}
var STEPS=[@TICK_STEPS@];
function parse(s){return s.split(",").map(function(x){return x===""?null:+x;});}
var C=charts.map(function(el){
  var c={el:el,mt:+el.dataset.mt||10,t0:+el.dataset.t0,step:+el.dataset.step,len:+el.dataset.len,off:+el.dataset.off,zone:el.dataset.zone,a:0,b:+el.dataset.len,panels:[]};
  [].slice.call(el.querySelectorAll("g.panel")).forEach(function(g){
    var p={g:g,x0:+g.dataset.x0,x1:+g.dataset.x1,top:+g.dataset.top,bottom:+g.dataset.bottom,lo:+g.dataset.lo,hi:+g.dataset.hi,unit:g.dataset.unit,ser:[]};
    [].slice.call(g.querySelectorAll("g.ser")).forEach(function(s){
      p.ser.push({g:s,kind:s.dataset.kind,label:s.dataset.label,k:s.dataset.k,v:parse(s.dataset.v),r:s.dataset.r?parse(s.dataset.r):null,path:s.querySelector("path")});
    });
    p.xh=g.querySelector("line.xh");p.sel=g.querySelector("rect.sel");p.ov=g.querySelector("rect.ov");
    c.panels.push(p);
  });
  return c;
});
function X(c,p,t){return p.x0+(t-c.a)/(c.b-c.a)*(p.x1-p.x0);}
function T(c,p,px){return c.a+(px-p.x0)/(p.x1-p.x0)*(c.b-c.a);}
function Y(p,v){var f=(v-p.lo)/(p.hi-p.lo);f=Math.max(-0.05,Math.min(1.05,f));return p.bottom-f*(p.bottom-p.top);}
function redraw(c){
  c.panels.forEach(function(p){
    p.ser.forEach(function(s){
      var d="",run=[],base=Y(p,Math.max(0,p.lo));
      function flush(){if(!run.length)return;run.forEach(function(q,k){d+=(k?"L":"M")+q[0].toFixed(1)+","+q[1].toFixed(1);});
        if(s.kind==="area")d+="L"+run[run.length-1][0].toFixed(1)+","+base.toFixed(1)+"L"+run[0][0].toFixed(1)+","+base.toFixed(1)+"Z";run=[];}
      var i0=Math.max(0,Math.floor(c.a/c.step)-1),i1=Math.min(s.v.length,Math.ceil(c.b/c.step)+1);
      for(var i=i0;i<i1;i++){var v=s.v[i];if(v===null){flush();continue;}
        var y=Y(p,v);run.push([X(c,p,i*c.step),y]);run.push([X(c,p,(i+1)*c.step),y]);}
      flush();s.path.setAttribute("d",d);
    });
    [].slice.call(p.g.querySelectorAll("g.spans rect")).forEach(function(r){
      var x=X(c,p,+r.dataset.s),w=Math.max(1,X(c,p,+r.dataset.e)-x);r.setAttribute("x",x.toFixed(1));r.setAttribute("width",w.toFixed(1));});
    [].slice.call(p.g.querySelectorAll("g.marks circle")).forEach(function(m){m.setAttribute("cx",X(c,p,+m.dataset.x).toFixed(1));});
    var span=c.b-c.a,st=STEPS[STEPS.length-1];for(var k=0;k<STEPS.length;k++){if(span/STEPS[k]<=c.mt){st=STEPS[k];break;}}
    var first=Math.ceil((c.t0+c.off+c.a)/st)*st-c.t0-c.off,ticks=[];for(var t=first;t<=c.b&&ticks.length<40;t+=st)ticks.push(t);
    var xg=p.g.querySelector("g.xg");while(xg.firstChild)xg.removeChild(xg.firstChild);
    ticks.forEach(function(t){var l=document.createElementNS(NS,"line");var x=X(c,p,t).toFixed(1);l.setAttribute("x1",x);l.setAttribute("x2",x);
      l.setAttribute("y1",p.top);l.setAttribute("y2",p.bottom);l.setAttribute("stroke","#ececec");xg.appendChild(l);});
    var xl=p.g.querySelector("g.xl");if(xl){while(xl.firstChild)xl.removeChild(xl.firstChild);
      ticks.forEach(function(t){var e=document.createElementNS(NS,"text");e.setAttribute("x",X(c,p,t).toFixed(1));e.setAttribute("y",(p.bottom+16).toFixed(1));
        e.setAttribute("text-anchor","middle");e.textContent=tick(c.t0+c.off+t,span);xl.appendChild(e);});}
  });
  c.el.dataset.range=c.a.toFixed(1)+"-"+c.b.toFixed(1);
}
function svgX(p,ev){var m=p.ov.getScreenCTM();if(!m)return null;var pt=p.ov.ownerSVGElement.createSVGPoint();pt.x=ev.clientX;pt.y=ev.clientY;return pt.matrixTransform(m.inverse()).x;}
var epochOf=null;
function cross(epoch){C.forEach(function(c){c.panels.forEach(function(p){
  var t=epoch===null?null:epoch-c.t0;
  if(t===null||t<c.a||t>c.b){p.xh.setAttribute("visibility","hidden");return;}
  var x=X(c,p,t);p.xh.setAttribute("x1",x);p.xh.setAttribute("x2",x);p.xh.setAttribute("visibility","visible");});});}
function show(c,p,t,ev){
  var i=Math.floor(t/c.step);if(i<0)i=0;var sec=c.t0+i*c.step;
  var rows=[hms(sec+c.off)+" "+c.zone+(c.off?" ("+hms(sec)+" UTC)":"")];
  p.ser.forEach(function(s){if(s.g.style.display==="none")return;var a=s.r||s.v;var v=a[i];
    rows.push(s.label+": "+(v===null||v===undefined?"no data":fmt(v)+" "+p.unit));});
  tip.textContent="";rows.forEach(function(r,k){var d=document.createElement(k?"div":"b");d.textContent=r;tip.appendChild(d);});
  tip.style.display="block";tip.style.left=(ev.pageX+14)+"px";tip.style.top=(ev.pageY+12)+"px";
}
var drag=null;
C.forEach(function(c){c.panels.forEach(function(p){
  p.ov.addEventListener("mousemove",function(ev){var px=svgX(p,ev);if(px===null)return;var t=T(c,p,px);
    cross(c.t0+t);show(c,p,t,ev);
    if(drag&&drag.p===p){var a=Math.min(drag.px,px),b=Math.max(drag.px,px);p.sel.setAttribute("x",a);p.sel.setAttribute("width",b-a);p.sel.setAttribute("visibility","visible");}});
  p.ov.addEventListener("mouseleave",function(){tip.style.display="none";cross(null);});
  p.ov.addEventListener("mousedown",function(ev){var px=svgX(p,ev);if(px===null)return;drag={c:c,p:p,px:px};ev.preventDefault();});
  p.ov.addEventListener("mouseup",function(ev){if(!drag||drag.p!==p){drag=null;return;}var px=svgX(p,ev);p.sel.setAttribute("visibility","hidden");
    var d=drag;drag=null;if(px===null||Math.abs(px-d.px)<4)return;
    var a=T(c,p,Math.min(d.px,px)),b=T(c,p,Math.max(d.px,px));zoom(c.t0+a,c.t0+b);});
  p.ov.addEventListener("dblclick",function(){zoom(null,null);});
});});
function zoom(ea,eb){C.forEach(function(c){
  if(ea===null){c.a=0;c.b=c.len;}else{c.a=Math.max(0,ea-c.t0);c.b=Math.min(c.len,eb-c.t0);if(c.b-c.a<2*c.step){c.a=0;c.b=c.len;}}
  redraw(c);});}
[].slice.call(document.querySelectorAll("div.tc button.li")).forEach(function(btn){
  btn.addEventListener("click",function(){var el=btn.closest("div.tc");var s=el.querySelector('g.ser[data-k="'+btn.dataset.k+'"]');if(!s)return;
    var off=s.style.display!=="none";s.style.display=off?"none":"";btn.classList.toggle("off",off);btn.setAttribute("aria-pressed",off?"false":"true");});
});
C.forEach(function(c){c.el.dataset.range=c.a.toFixed(1)+"-"+c.b.toFixed(1);c.el.classList.add("live");});
})();
"##;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_values_and_ticks() {
        assert_eq!(short(Some(150.0)), "150");
        assert_eq!(short(Some(0.123456)), "0.1235");
        assert_eq!(short(Some(12345.6)), "12346");
        assert_eq!(short(None), "");
        assert_eq!(y_ticks(0.0, 10.0), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert!(y_ticks(0.0, 0.0).is_empty());
    }

    #[test]
    fn the_script_ticks_with_the_charts_axis() {
        let s = script();
        assert!(s.contains(
            "var STEPS=[1,2,5,10,15,30,60,120,300,600,900,1800,3600,7200,10800,21600,43200,86400];"
        ));
        assert!(s.contains("if(span<172800)"));
        assert!(!s.contains('@'));
    }

    #[test]
    fn paths_break_at_gaps() {
        let id = |v: f64| v;
        assert_eq!(
            path(&[Some(1.0), None, Some(2.0)], 1.0, &id, &id, None),
            "M0.0,1.0L1.0,1.0M2.0,2.0L3.0,2.0"
        );
        assert_eq!(path(&[Some(1.0)], 2.0, &id, &id, Some(0.0)), "M0.0,1.0L2.0,1.0L2.0,0.0L0.0,0.0Z");
    }
}
