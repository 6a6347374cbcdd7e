//! `index.html`: one self-contained page, story first: what happened, per
//! finding, in plain words beside its key chart; then the system box; then
//! the evidence (collapsed); then every chart and table. Inline CSS, time
//! charts as inline SVG with one small inline script of the project's
//! ([`super::live::script`]: hover, shared crosshair, zoom, legend toggles; and
//! [`super::heat_script::SCRIPT`]: the perf heat map's range flame graph),
//! other charts as SVG data URIs, flame graphs (one per process) in sandboxed
//! frames so their own search and zoom work; a Content-Security-Policy that
//! forbids every network request. Readable with scripts off, printable to
//! PDF (the verdict on page 1).
//!
//! Everything is rendered with maud, which escapes every interpolated string:
//! thread names, file paths, quoted input lines and diagnostics are capture
//! text and must never become markup; their control and bidirectional
//! characters (`U+202E`, BEL) are written as visible escapes, as on the
//! terminal ([`crate::term::safe_doc`]). The page is deterministic: no wall-clock
//! time, and every list is in a stable order.

use super::charts::{Chart, Section};
use super::findings::{ranked, sev_word};
use super::flame::Flame;
use super::fmt::{bytes_h, full, instant, json_cell, num};
use crate::model::{Finding, Report};
use crate::table::Cell;
use crate::verdict::{Metric, Unit};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use maud::{DOCTYPE, Markup, PreEscaped, html};

/// Inline stylesheet.
const CSS: &str = r#"
body{font-family:"DejaVu Sans",Verdana,Arial,sans-serif;font-size:14px;color:#1d1d1f;margin:0;background:#fff}
main{max-width:1080px;margin:0 auto;padding:12px 24px 48px}
h1{font-size:24px;margin:16px 0 4px} h2{font-size:19px;border-bottom:2px solid #d0d7de;padding-bottom:3px;margin-top:34px}
h3{font-size:16px;margin:18px 0 6px}
.meta{color:#57606a} nav{position:sticky;top:0;z-index:5;background:#fff;border-bottom:1px solid #d0d7de;padding:4px 0;font-size:13px} nav a{margin-right:10px}
p.oneline{font-size:16px;font-weight:bold;margin:4px 0 10px} p.cpu{margin:-4px 0 10px;color:#9a6700}
table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}
th,td{border:1px solid #d0d7de;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f3f5f7} td.n{text-align:right;font-variant-numeric:tabular-nums}
table.inv{table-layout:fixed;width:100%} table.inv td{overflow-wrap:anywhere}
pre{background:#f6f8fa;border:1px solid #d0d7de;padding:6px 8px;white-space:pre-wrap;word-break:break-all;font-size:12px;margin:4px 0}
.finding{border:1px solid #d0d7de;border-left:6px solid #8c959f;border-radius:4px;padding:8px 14px;margin:12px 0;break-inside:avoid}
.finding.critical{border-left-color:#cf222e} .finding.warning{border-left-color:#d4a72c} .finding.info{border-left-color:#0969da}
.sev{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-size:12px;font-weight:bold;text-transform:uppercase}
.sev.critical{background:#cf222e} .sev.warning{background:#9a6700} .sev.info{background:#0969da}
.summary{font-size:15px;margin:6px 0}
figure{margin:14px 0;break-inside:avoid} figure img{max-width:100%;height:auto;border:1px solid #eaeef2}
figcaption{color:#57606a;font-size:13px;margin-top:4px}
.muted{color:#6e7781} .ok{color:#1a7f37} .skip{color:#9a6700} .bad{color:#cf222e}
.story{display:grid;grid-template-columns:minmax(0,5fr) minmax(0,6fr);gap:14px;align-items:start}
.story h3{margin-top:4px} .story dl{margin:4px 0;display:grid;grid-template-columns:max-content 1fr;gap:3px 10px}
.story dt{font-weight:bold;color:#57606a} .story dd{margin:0} .story ul{margin:2px 0;padding-left:18px}
.story figure{margin:0} .rid{font-family:monospace;font-size:12px;color:#57606a}
.sys{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:4px 22px}
.sys td{overflow-wrap:anywhere}
.sys table{width:100%} .sys h3{margin:10px 0 2px;font-size:14px} .src{color:#8c959f;font-size:11px}
details.finding{padding:6px 14px} details summary{cursor:pointer}
.ct{font-weight:bold;font-size:14px;margin:4px 0 2px}
.tc svg{width:100%;height:auto;display:block;font-size:12px;font-family:"DejaVu Sans",Verdana,Arial,sans-serif;user-select:none}
.tc text{fill:#333} .tc .yd,.tc .xd{font-size:12px;fill:#57606a} .tc.live rect.ov{cursor:crosshair}
.lg{display:flex;flex-wrap:wrap;gap:4px 12px;font-size:12px;margin:2px 0 0 60px}
.lg button,.lg .lgs{font:inherit;background:none;border:0;padding:1px 2px;color:#1d1d1f;display:inline-flex;align-items:center;gap:5px}
.lg button{cursor:pointer} .lg button.off{color:#aab1b8;text-decoration:line-through} .lg i{display:inline-block;width:14px;height:8px}
.lg i.dash{border-top:2px dashed #969696;height:0}
.tip{position:absolute;z-index:10;background:rgba(255,255,255,.96);border:1px solid #8c959f;border-radius:3px;padding:4px 7px;font-size:12px;pointer-events:none;box-shadow:0 1px 4px rgba(0,0,0,.15)}
iframe.flame{width:100%;height:560px;border:1px solid #eaeef2}
.hm svg,.hfg svg{width:100%;height:auto;display:block;font-size:12px;font-family:"DejaVu Sans",Verdana,Arial,sans-serif;user-select:none}
.hm text{fill:#333} .hm .yd,.hm .xd{fill:#57606a} .hm.live rect.hov{cursor:crosshair} .hm .lg{margin-left:64px}
.hfg svg{font-size:11px} .hfg rect{stroke:#fff;stroke-width:0.5} .hfg text{fill:#1d1d1f;pointer-events:none} .hft{margin:8px 0 4px;font-size:13px}
@media print{main{max-width:none;padding:0} h2{break-after:avoid} nav,.lg button.off{display:none} a{color:inherit;text-decoration:none}
 .story{grid-template-columns:minmax(0,1fr) minmax(0,1fr)}
 #verdict{break-after:page} iframe.flame{height:420px} .tip{display:none}}
"#;

/// Most rows of a long table (the rest are counted).
const MAX_ROWS: usize = 100;

fn data_uri(mime: &str, bytes: &[u8]) -> String {
    format!("data:{mime};base64,{}", STANDARD.encode(bytes))
}

/// The page's Content-Security-Policy: nothing may be fetched (images only as
/// data URIs, styles and the one script inline; frames only from `srcdoc`).
const CSP: &str = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; \
                   frame-src 'self' about: data:; base-uri 'none'; form-action 'none'";

/// Renders the page.
pub(super) fn render(
    report: &Report,
    charts: &[Chart],
    flames: &[Flame],
    render_problems: &[String],
) -> String {
    let doc = &report.doc;
    // Named after the host and the capture's start where the capture says them, then the
    // bundle (whose folder is often just `capture`).
    let start = doc.clock.start.as_deref().map(|t| instant(&report.display, t));
    let title = match (report.host(), start) {
        (Some(h), Some(t)) => format!("iosift report: {h}, {t} ({})", doc.bundle.name),
        (Some(h), None) => format!("iosift report: {h} ({})", doc.bundle.name),
        (None, Some(t)) => format!("iosift report: {}, {t}", doc.bundle.name),
        (None, None) => format!("iosift report: {}", doc.bundle.name),
    };
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(CSP);
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(CSS)) }
            }
            body { main {
                h1 { (title) }
                p.meta {
                    "iosift " (doc.iosift_version) " · "
                    (doc.bundle.inputs.len()) " input files · "
                    (doc.clock.start.as_deref().map_or("?".into(), |t| instant(&report.display, t))) " to "
                    (doc.clock.end.as_deref().map_or("?".into(), |t| instant(&report.display, t)))
                    " · host time zone " (doc.clock.timezone) " (" (doc.clock.timezone_source) "); "
                    "times below are shown in " (report.display.label) " (--display-tz utc|host|ZONE); "
                    "sizes in binary units (1 MiB = 1024 KiB = 1,048,576 bytes), as the tools count their kB"
                }
                nav {
                    a href="#verdict" { "What happened" } a href="#episodes" { "Episodes" } @if report.doc.galera.is_some() { a href="#galera" { "Galera" } } a href="#system" { "System" } a href="#evidence" { "Evidence" }
                    a href="#checked" { "Checked" } a href="#timeline" { "Timeline" }
                    a href="#sources" { "Write sources" } a href="#periodicity" { "Periodicity" }
                    a href="#correlation" { "Correlation" } a href="#perf" { "perf" } a href="#binlog" { "Binlog" }
                    a href="#state" { "State" } a href="#inventory" { "Inventory" }
                }
                (super::story::verdict(report, charts))
                (super::episodes::section(report))
                (super::galera::section(report))
                (super::story::system_box(&report.system))
                (evidence(report))
                (checked(report))
                section #timeline {
                    h2 { "Timeline" }
                    (clock_warnings(report))
                    (charts_of(charts, Section::Timeline, "No device, CPU or memory series in the capture."))
                }
                (sources(report, charts))
                (periodicity(report, charts))
                (correlation(report, charts))
                (perf(report, charts, flames))
                (binlog(report, charts))
                (state(report))
                (inventory(report, render_problems))
            }
            @if charts.iter().any(|c| c.time.is_some()) || !report.perf_heat.is_empty() {
                script { (PreEscaped(super::live::script())) (PreEscaped(super::heat_script::SCRIPT)) }
            }
            }
        }
    };
    crate::term::safe_doc(page.into_string())
}

/// The evidence of every finding, collapsed: its numbers (named as the rule names
/// them) and the quoted input lines under their column headers.
fn evidence(report: &Report) -> Markup {
    let fs = ranked(&report.doc.findings);
    html! {
        @if !fs.is_empty() {
            section #evidence {
                h2 { "Evidence" }
                p.muted { "The numbers behind each finding and the input lines they were read from (click to open)." }
                @for f in &fs { (finding_evidence(f, &report.display)) }
            }
        }
    }
}

fn finding_evidence(f: &Finding, zone: &crate::clock::DisplayZone) -> Markup {
    let sev = sev_word(f.severity);
    html! {
        details class={ "finding " (sev) } {
            summary { b { (f.rule) } " · " (f.metrics.len()) " numbers, " (f.evidence.len()) " quoted inputs" }
            @if !f.metrics.is_empty() {
                table { tr { th { "number" } th { "value" } th { "key in findings.json" } }
                    @for (k, m) in &f.metrics { tr { td { (k.replace('_', " ")) } td.n { (metric_cell(m, zone)) } td { code { (k) } } } } }
            }
            @if !f.evidence.is_empty() {
                table {
                    tr { th { "file" } th { "lines" } th { "metric" } th { "value" } }
                    @for e in &f.evidence {
                        tr {
                            td { (e.file) }
                            td.n { @match e.lines { Some([a, b]) if a == b => { (a) } Some([a, b]) => { (a) "–" (b) } None => { "-" } } }
                            td { (e.metric) }
                            td.n { (json_cell(&e.value)) }
                        }
                        @if let Some(q) = &e.quote {
                            tr { td colspan="4" { pre { (q) } } }
                        }
                    }
                }
            }
        }
    }
}

/// A metric's value formatted by its [`Unit`], never by its key: byte counts and rates also
/// in binary units (`471859200 (450 MiB)`), an instant in the display zone, other numbers
/// with their unit's symbol (`31 s`, `12.5 %`, `200 /s`); names, flags, lists and plain
/// numbers (counts, shares, ratios, settings, thread ids) as they are.
fn metric_cell(m: &Metric, zone: &crate::clock::DisplayZone) -> String {
    let v = json_cell(&m.value);
    let Some(x) = m.value.as_f64() else { return v };
    let symbol = match m.unit {
        Unit::Bytes if x.abs() >= 1024.0 => return format!("{v} ({})", bytes_h(x)),
        Unit::BytesPerSecond if x.abs() >= 1024.0 => return format!("{v} ({}/s)", bytes_h(x)),
        Unit::EpochSeconds => return format!("{v} ({} {})", full(zone, x.floor() as i64), zone.label),
        Unit::Bytes => "B",
        Unit::BytesPerSecond => "B/s",
        Unit::Seconds => "s",
        Unit::Milliseconds => "ms",
        Unit::SecondsPerSecond => "s/s",
        Unit::KiB => "KiB",
        // The contract's value stays in MB/s; the page shows it in binary units like the rest.
        Unit::MegabytesPerSecond => return format!("{v} MB/s ({}/s)", bytes_h(x * 1e6)),
        Unit::Percent => "%",
        Unit::PerSecond => "/s",
        Unit::Fraction
        | Unit::Ratio
        | Unit::Count
        | Unit::ThreadId
        | Unit::Setting
        | Unit::Text
        | Unit::Flag
        | Unit::List => return v,
    };
    format!("{v} {symbol}")
}

fn checked(report: &Report) -> Markup {
    let c = &report.doc.checked;
    html! {
        section #checked {
            h2 { "Checked" }
            @if c.is_empty() { p.muted { "No other rule was checked." } } @else {
                table {
                    tr { th { "rule" } th { "outcome" } th { "reason / missing inputs" } }
                    @for r in c {
                        tr {
                            td { (r.rule) }
                            td class=(if r.outcome == "passed" { "ok" } else { "skip" }) { (r.outcome) }
                            td {
                                @if let Some(reason) = &r.reason { (reason) }
                                @if !r.missing.is_empty() {
                                    @if r.reason.is_some() { br; }
                                    "missing: " (r.missing.join(", "))
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn clock_warnings(report: &Report) -> Markup {
    let w = &report.doc.clock.warnings;
    html! {
        @if !w.is_empty() {
            p { b { "Clock warnings" } }
            ul { @for x in w { li { (x) } } }
        }
    }
}

fn charts_of(charts: &[Chart], section: Section, empty: &str) -> Markup {
    let cs: Vec<&Chart> = charts.iter().filter(|c| c.section == section).collect();
    html! {
        @if cs.is_empty() && !empty.is_empty() { p.muted { (empty) } }
        @for c in cs { (figure(c)) }
    }
}

/// One chart: time charts as the page's interactive SVG, the others as their SVG image.
pub(super) fn figure(c: &Chart) -> Markup {
    html! {
        figure {
            @if let Some(t) = &c.time {
                div.ct { (c.title) }
                (super::live::time_chart(t, &format!("ch-{}", c.name), super::live::W, 200.0, None))
            } @else {
                img src=(data_uri("image/svg+xml", c.svg.as_bytes())) alt=(c.title) width="1000";
            }
            figcaption { (c.caption) " Files: charts/" (c.name) ".png (2000 px), charts/" (c.name) ".svg." }
        }
    }
}

fn sources(report: &Report, charts: &[Chart]) -> Markup {
    let ws = &report.write_sources;
    let total: f64 = ws.iter().map(|w| w.total_bytes).filter(|v| v.is_finite()).sum();
    html! {
        section #sources {
            h2 { "Write sources" }
            (charts_of(charts, Section::Sources, if ws.is_empty() { "No per-thread write data (pidstat -d) in the capture." } else { "" }))
            @if !ws.is_empty() {
                table {
                    tr { th { "category" } th { "written" } th { "share" } th { "top threads (name [tid]: bytes)" } }
                    @for w in ws {
                        tr {
                            td { (w.category) }
                            td.n { (bytes_h(w.total_bytes)) }
                            td.n { (if total > 0.0 { format!("{:.1} %", 100.0 * w.total_bytes / total) } else { "-".into() }) }
                            td { @for (i, (name, tid, b)) in w.top_threads.iter().enumerate() {
                                @if i > 0 { br; } (name) " [" (tid) "]: " (bytes_h(*b))
                            } }
                        }
                    }
                }
            }
        }
    }
}

fn periodicity(report: &Report, charts: &[Chart]) -> Markup {
    // Bytes per second series show peaks and totals in binary units.
    let bytes = report
        .periodicity
        .as_ref()
        .and_then(|p| report.timeline.series(&p.series))
        .is_some_and(|s| s.unit == crate::table::columns::Unit::BytesPerS);
    html! {
        section #periodicity {
            h2 { "Periodicity" }
            @if let Some(p) = &report.periodicity {
                table {
                    tr { th { "series" } td { (p.series) } }
                    tr { th { "period" } td { (p.period_s.map(|v| format!("{v:.1} s")).unwrap_or_else(|| "none found".into())) } }
                    tr { th { "confidence" } td { (p.confidence.map(|v| format!("{v:.2}")).unwrap_or_else(|| "-".into())) } }
                    tr { th { "matches" } td { (crate::analysis::periodicity::match_text(p)) } }
                    tr { th { "bursts" } td { (p.bursts.len()) (if !p.threshold.is_finite() { format!(" over the local floor (the median of the {} s around each second)", crate::analysis::bursts::FLOOR_WINDOW) } else if bytes { format!(" above {}/s", bytes_h(p.threshold)) } else { format!(" above {}", num(p.threshold)) }) } }
                    tr { th { "writeback window" } td { @match p.writeback_window_s {
                        Some((w, true)) => { (format!("{w:.0} s (dirty_expire + dirty_writeback, from the capture)")) }
                        Some((w, false)) => { (format!("{w:.0} s (kernel defaults; the capture has no vm.dirty_* values)")) }
                        None => { "unknown" }
                    } } }
                    tr { th { "series sharing the period" } td {
                        @if p.shared_with.is_empty() { "none" }
                        @for (i, (c, ps, conf)) in p.shared_with.iter().enumerate() {
                            @if i > 0 { br; } (c) ": " (format!("{ps:.1} s, confidence {conf:.2}"))
                        }
                    } }
                }
                (charts_of(charts, Section::Periodicity, ""))
                @if !p.bursts.is_empty() {
                    h3 { "Bursts" }
                    table {
                        tr { th { "#" } th { "start (" (report.display.label) ")" } th { "duration" } th { "peak at" } th { "peak" } th { "total" } }
                        @for (i, b) in p.bursts.iter().take(MAX_ROWS).enumerate() {
                            tr {
                                td.n { (i + 1) }
                                td { (full(&report.display, report.timeline.epoch(b.start))) }
                                td.n { (b.end.saturating_sub(b.start) + 1) " s" }
                                td { (full(&report.display, report.timeline.epoch(b.peak))) }
                                td.n { (if bytes { format!("{}/s", bytes_h(b.peak_value)) } else { num(b.peak_value) }) }
                                td.n { (if bytes { bytes_h(b.total) } else { num(b.total) }) }
                            }
                        }
                    }
                    @if p.bursts.len() > MAX_ROWS { p.muted { "and " (p.bursts.len() - MAX_ROWS) " more" } }
                }
            } @else {
                p.muted { "No periodicity analysis: no device write series." }
            }
        }
    }
}

fn correlation(report: &Report, charts: &[Chart]) -> Markup {
    let cs = &report.correlations;
    let real = cs.iter().filter(|c| c.best_r.abs() > c.shuffled_r).count();
    html! {
        section #correlation {
            h2 { "Correlation" }
            @if cs.is_empty() { p.muted { "No pair of series to correlate." } } @else {
                p { "Each pair's best |r| over lags of ±60 s is compared with the best |r| the same search finds \
                     when the leading series is shuffled (" (crate::analysis::correlate::SHUFFLES) " permutations" "): only a pair above it is charted \
                     as a relation; " (real) " of " (cs.len()) " pairs are." }
                (charts_of(charts, Section::Correlation, ""))
                table {
                    tr { th { "pair" } th { "leading" } th { "following" } th { "best lag" } th { "r" } th { "shuffled data reach" } th { "n" } th { "verdict" } }
                    @for c in cs {
                        tr {
                            td { (c.label) } td { (c.a) } td { (c.b) }
                            td.n { (format!("{:+} s", c.best_lag_s)) }
                            td.n { (format!("{:.2}", c.best_r)) }
                            td.n { (format!("{:.2}", c.shuffled_r)) }
                            td.n { (c.n) }
                            @if c.best_r.abs() > c.shuffled_r { td.ok { "above shuffled data" } }
                            @else { td.muted { "not above shuffled data: noise, not shown" } }
                        }
                    }
                }
            }
        }
    }
}

fn perf(report: &Report, charts: &[Chart], flames: &[Flame]) -> Markup {
    let fs = &report.fsync_shares;
    let total: u64 = fs.iter().map(|s| s.fsync_samples).sum();
    let mut rows: Vec<_> = fs.iter().collect();
    rows.sort_by(|a, b| {
        b.fsync_samples.cmp(&a.fsync_samples).then_with(|| a.comm.cmp(&b.comm)).then(a.tid.cmp(&b.tid))
    });
    html! {
        section #perf {
            h2 { "perf: flame graphs and fsync" }
            @if flames.is_empty() && fs.is_empty() { p.muted { "No perf script output in the capture." } }
            (super::heat::section(report))
            @if !report.perf_heat.is_empty() && !flames.is_empty() { h3 { "Where: flame graphs of the whole file, per process" } }
            @for f in flames {
                figure {
                    iframe.flame sandbox="allow-scripts" title=(f.title) srcdoc=(String::from_utf8_lossy(&f.svg)) {}
                    figcaption { (f.title) ", " (f.stacks) " distinct stacks; fsync-like frames in red. Click a frame to zoom,                         Ctrl-F to search. File: charts/flame-" (f.stem) ".svg." }
                }
            }
            (charts_of(charts, Section::Perf, ""))
            @if !rows.is_empty() {
                table {
                    tr { th { "thread" } th { "tid" } th { "samples" } th { "in fsync" } th { "share of all fsync samples" } }
                    @for s in rows.iter().take(MAX_ROWS) {
                        tr {
                            td { (s.comm) }
                            td.n { (s.tid.map(|t| t.to_string()).unwrap_or_else(|| "-".into())) }
                            td.n { (s.samples) }
                            td.n { (s.fsync_samples) }
                            td.n { (if total > 0 { format!("{:.1} %", 100.0 * s.fsync_samples as f64 / total as f64) } else { "-".into() }) }
                        }
                    }
                }
                @if rows.len() > MAX_ROWS { p.muted { "and " (rows.len() - MAX_ROWS) " more threads" } }
            }
            (stacks(report))
        }
    }
}

/// Where threads wait, from gdb snapshots or pt-pmp's aggregate, beside perf's flame graphs.
fn stacks(report: &Report) -> Markup {
    use iosift_parsers::gdb_stacks::Wait;
    let Some(v) = &report.stacks else {
        return html! {
            h3 { "Thread stacks: where threads wait" }
            p.muted { "Not measured: the capture has no gdb thread stacks (thread apply all bt, pt-stalk -stacktrace, \
                       collect.sh -G) and no pt-pmp output." }
        };
    };
    // Only the kinds some thread waits in.
    let kinds: Vec<Wait> =
        Wait::ALL.into_iter().filter(|w| v.threads.iter().any(|t| t.count(*w) > 0)).collect();
    let files: Vec<String> = v.files.iter().map(|(f, form)| format!("{f} ({form})")).collect();
    html! {
        h3 { "Thread stacks: where threads wait" }
        p { "From " (v.described()) " in " (files.join(", ")) ". Each thread's stacks by where the innermost frame \
             that says so waits (fsync, a mutex, a condition, a network read, poll, sleep, asynchronous I/O, a signal; \
             other: running or unclassified), as a share of its stacks. Threads are named through \
             performance_schema.threads (LWP = THREAD_OS_ID) where the capture has it, else by the function they \
             started in." }
        @if !v.ignored.is_empty() {
            p.muted { "Not counted again: " (v.ignored.join(", ")) " (pt-pmp's aggregate of the same gdb snapshots)." }
        }
        table {
            tr {
                th { "thread" } th { "named by" } th { "LWP" } th { "stacks" }
                @for w in &kinds { th { (w.as_str()) } }
            }
            @for t in v.threads.iter().take(MAX_ROWS) {
                tr {
                    td { (t.thread) }
                    td { (t.named_by) }
                    td.n { (t.lwp.map(|l| l.to_string()).unwrap_or_else(|| "-".into())) }
                    td.n { (t.stacks) }
                    @for w in &kinds {
                        td.n { (if t.count(*w) > 0 { format!("{:.0} %", 100.0 * t.share(*w)) } else { "-".into() }) }
                    }
                }
            }
        }
        @if v.threads.len() > MAX_ROWS { p.muted { "and " (v.threads.len() - MAX_ROWS) " more threads" } }
    }
}

fn binlog(report: &Report, charts: &[Chart]) -> Markup {
    html! {
        section #binlog {
            h2 { "Binlog" }
            @if let Some(b) = &report.binlog {
                table {
                    tr { th { "file" } td { (b.file) } }
                    tr { th { "transactions" } td.n { (b.transactions) } }
                    tr { th { "mean size" } td.n { (bytes_h(b.mean_bytes)) } }
                    tr { th { "median size" } td.n { (bytes_h(b.median_bytes)) } }
                }
                (charts_of(charts, Section::Binlog, ""))
                @if b.kinds.iter().any(|k| k.1 > 0) || !b.event_types.is_empty() {
                    h3 { "Statement types" }
                    table {
                        tr { th { "transactions by kind" } th { "count" } }
                        @for (k, n) in b.kinds.iter().filter(|k| k.1 > 0) { tr { td { (k) } td.n { (n) } } }
                    }
                    table {
                        tr { th { "events by type (mysqlbinlog)" } th { "count" } }
                        @for (k, n) in b.event_types.iter().take(MAX_ROWS) { tr { td { (k) } td.n { (n) } } }
                    }
                }
                @if !b.largest.is_empty() {
                    h3 { "Largest transactions" }
                    table {
                        tr { th { "size" } th { "time (" (report.display.label) ")" } th { "rows" } th { "tables" } th { "line in " (b.file) } }
                        @for t in &b.largest {
                            tr {
                                td.n { (bytes_h(t.bytes as f64)) }
                                td { (t.epoch.map(|e| full(&report.display, e)).unwrap_or_else(|| "-".into())) }
                                td.n { (t.rows) }
                                td { (t.tables.join(", ")) }
                                td.n { (t.line) }
                            }
                        }
                    }
                }
                (per_minute(report))
                @if !b.per_table.is_empty() {
                    h3 { "Transactions per table" }
                    table {
                        tr { th { "table" } th { "transactions" } }
                        @for (t, n) in b.per_table.iter().take(MAX_ROWS) { tr { td { (t) } td.n { (n) } } }
                    }
                    @if b.per_table.len() > MAX_ROWS { p.muted { "and " (b.per_table.len() - MAX_ROWS) " more tables" } }
                }
            } @else {
                (charts_of(charts, Section::Binlog, "No binlog data in the capture."))
            }
        }
    }
}

/// Binlog transactions and bytes per minute (sums of the timeline's per-second series).
fn per_minute(report: &Report) -> Markup {
    use crate::table::columns::{BinlogMetric, Col};
    let t = &report.timeline;
    // Rows wider than a minute cannot be told apart by minute.
    if t.bin() > 60 {
        return html! {};
    }
    let (Some(trx), bytes) =
        (t.get(&Col::Binlog(BinlogMetric::TrxS)), t.get(&Col::Binlog(BinlogMetric::BytesS)))
    else {
        return html! {};
    };
    let mut rows: Vec<(i64, f64, f64)> = Vec::new();
    for (i, v) in trx.iter().enumerate() {
        let Some(v) = v.get().filter(|v| v.is_finite()) else { continue };
        let minute = t.epoch(i).div_euclid(60) * 60;
        let b = bytes.and_then(|b| b.get(i).and_then(Cell::get)).filter(|b| b.is_finite()).unwrap_or(0.0);
        // Sums of per-second rates: a row of a wider bin holds `bin` seconds of them.
        let (v, b) = (v * t.bin() as f64, b * t.bin() as f64);
        match rows.last_mut() {
            Some(r) if r.0 == minute => {
                r.1 += v;
                r.2 += b;
            }
            _ => rows.push((minute, v, b)),
        }
    }
    html! {
        @if !rows.is_empty() {
            h3 { "Per minute" }
            table {
                tr { th { "minute (" (report.display.label) ")" } th { "transactions" } th { "bytes" } }
                @for (m, n, b) in rows.iter().take(MAX_ROWS) {
                    tr { td { (full(&report.display, *m)) } td.n { (format!("{n:.0}")) } td.n { (bytes_h(*b)) } }
                }
            }
            @if rows.len() > MAX_ROWS { p.muted { "and " (rows.len() - MAX_ROWS) " more minutes" } }
        }
    }
}

fn state(report: &Report) -> Markup {
    html! {
        section #state {
            h2 { "Database and host state" }
            @if report.state.is_empty() {
                p.muted { "No InnoDB status, processlist, top or netstat snapshot in the capture." }
            } @else {
                table {
                    tr { th { "what" } th { "value" } th { "from" } }
                    @for s in report.state.iter().take(MAX_ROWS) {
                        tr {
                            td { (s.what) } td { (s.value) }
                            td { (s.file) @if let Some(l) = s.line { " line " (l) } }
                        }
                    }
                }
            }
        }
    }
}

fn inventory(report: &Report, render_problems: &[String]) -> Markup {
    let inputs = &report.doc.bundle.inputs;
    html! {
        section #inventory {
            h2 { "Inventory" }
            p { "Every input file, how it was recognised and anchored on the clock, and what was skipped." }
            table.inv {
                colgroup {
                    col style="width:24%"; col style="width:10%"; col style="width:20%"; col style="width:9%";
                    col style="width:5%"; col style="width:6%"; col style="width:6%"; col style="width:6%"; col style="width:14%";
                }
                tr { th { "path" } th { "format" } th { "variant" } th { "anchored by" } th { "± s" }
                     th { "records" } th { "lines" } th { "skipped" } th { "diagnostics" } }
                @for i in inputs {
                    tr {
                        td { (i.path) @if let Some(n) = &i.note { br; span.muted { (n) } } }
                        td { @if let Some(f) = i.format { (f) } @else { span.bad { "not recognised" } } }
                        td { @for (j, (k, v)) in i.variant.iter().enumerate() { @if j > 0 { br; } (k) "=" (v) } }
                        td { (i.anchored_by.unwrap_or("-")) }
                        td.n { (i.uncertainty_s.map(num).unwrap_or_else(|| "-".into())) }
                        td.n { (i.records) }
                        td.n { (i.lines) }
                        td.n class=[(i.skipped_lines > 0).then_some("bad")] { (i.skipped_lines) }
                        td {
                            @if !i.diagnostics.is_empty() {
                                pre { @for d in &i.diagnostics { "line " (d.line) " " (d.kind.as_str()) ": " (d.text) "\n" } }
                            }
                            @if i.diagnostics_total > i.diagnostics.len() {
                                span.muted { (i.diagnostics_total - i.diagnostics.len()) " more" }
                            }
                        }
                    }
                }
            }
            @if !report.problems.is_empty() || !render_problems.is_empty() {
                h3 { "Problems" }
                ul {
                    @for p in &report.problems { li { b { (p.name) } ": " (p.message) } }
                    @for p in render_problems { li { (p) } }
                }
            }
        }
    }
}
