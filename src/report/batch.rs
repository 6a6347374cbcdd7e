//! The overview of a batch run (`iosift batch`), made for triage: `index.html`
//! with one line per capture (its host, start and duration, worst severity, the
//! top finding's title and its number, and a small matrix of every rule's
//! severity), failed captures first with their error, then by severity and
//! start; a filter by rule and severity; links only to reports that were
//! written. `summary.json` holds the same rows in the same order.

use maud::{DOCTYPE, Markup, PreEscaped, html};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// One capture of a batch run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BatchRow {
    /// Bundle name (capture text: escaped when shown).
    pub bundle: String,
    /// Folder of its report under the batch output (sanitised by the caller).
    pub dir_name: String,
    /// Its report's page relative to the overview (`name/index.html`), only once written.
    pub report: Option<String>,
    /// The host that made the capture, when a file names it.
    pub host: Option<String>,
    /// First second of its timeline (RFC 3339).
    pub start: Option<String>,
    /// Last second of its timeline (RFC 3339).
    pub end: Option<String>,
    /// Seconds from `start` to `end`.
    pub duration_s: Option<f64>,
    /// Rule id of the top finding.
    pub top_rule: Option<String>,
    /// Its title on the page.
    pub title: Option<String>,
    /// Its severity (`critical`, `warning`, `info`): the capture's worst.
    pub severity: Option<String>,
    /// Its summary.
    pub summary: Option<String>,
    /// Detected write period, seconds.
    pub period_s: Option<f64>,
    /// The top finding's headline number in words (`period 31.0 s`, `lag up to 97 s`), from
    /// the metric its rule declares ([`crate::verdict::RuleSpec::headline`]).
    pub number: Option<String>,
    /// Every rule that fired, with its severity.
    pub rules: BTreeMap<String, String>,
    /// Findings in all.
    pub findings: usize,
    /// Input files.
    pub inputs: usize,
    /// Why the bundle could not be analysed.
    pub error: Option<String>,
    /// Its input-level problems (as in its findings.json `bundle.problems`).
    pub problems: Vec<crate::bundle::Problem>,
}

/// `summary.json` document.
#[derive(Serialize)]
struct BatchDoc<'a> {
    iosift_version: &'a str,
    /// Captures in all, and how many failed.
    captures: usize,
    failed: usize,
    bundles: Vec<&'a BatchRow>,
}

/// True for a single safe path component (`[A-Za-z0-9._-]`, not starting with a dot).
pub(super) fn safe_component(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('.')
        && s.len() <= 255
        && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// Rank of a severity word, worst highest (none: 0).
fn rank(severity: Option<&str>) -> u8 {
    match severity {
        Some("critical") => 3,
        Some("warning") => 2,
        Some("info") => 1,
        _ => 0,
    }
}

/// Rows in output order: failed first, then worst severity, then start, then name.
fn sorted(rows: &[BatchRow]) -> Vec<&BatchRow> {
    let mut v: Vec<&BatchRow> = rows.iter().collect();
    v.sort_by(|a, b| {
        b.error
            .is_some()
            .cmp(&a.error.is_some())
            .then_with(|| rank(b.severity.as_deref()).cmp(&rank(a.severity.as_deref())))
            .then_with(|| a.start.cmp(&b.start))
            .then_with(|| a.bundle.cmp(&b.bundle))
            .then_with(|| a.dir_name.cmp(&b.dir_name))
    });
    v
}

/// `2026-12-05T03:52:47Z` -> `2026-12-05 03:52` (the seconds are in summary.json).
fn when(rfc3339: &str) -> String {
    let t = rfc3339.trim_end_matches('Z').replacen('T', " ", 1);
    t.get(..16).map_or(t.clone(), str::to_string)
}

/// `95` -> `1 m 35 s`.
fn span(s: f64) -> String {
    let s = s.max(0.0).round() as i64;
    match (s / 3600, s % 3600 / 60, s % 60) {
        (0, 0, x) => format!("{x} s"),
        (0, m, x) => format!("{m} m {x} s"),
        (h, m, _) => format!("{h} h {m} m"),
    }
}

/// A rule's column heading: the initials of up to three words of its title that say
/// something (`Periodic write bursts` -> `PWB`, `Large-folio writeback of an mmap'd file`
/// -> `LWM`).
fn initials(title: &str) -> String {
    title
        .split_whitespace()
        .filter(|w| w.len() > 2)
        .filter_map(|w| w.chars().next())
        .take(3)
        .collect::<String>()
        .to_uppercase()
}

/// The folder every row's bundle path starts with (`samples/`), shown once above the table
/// instead of on every line.
fn common_folder(rows: &[&BatchRow]) -> String {
    let Some(first) = rows.first() else { return String::new() };
    // Whole folders only (a cut after a `/`, a char boundary), never a whole bundle name.
    first
        .bundle
        .match_indices('/')
        .map(|(i, _)| &first.bundle[..=i])
        .take_while(|p| rows.iter().all(|r| r.bundle.starts_with(p) && r.bundle.len() > p.len()))
        .last()
        .unwrap_or("")
        .to_string()
}

/// Writes `dir/index.html` and `dir/summary.json`. A row links to its report only when
/// the report was written ([`BatchRow::report`]) under a safe folder name.
pub fn write_batch_index(rows: &[BatchRow], dir: &Path) -> anyhow::Result<()> {
    use anyhow::Context as _;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let rows = sorted(rows);
    let failed = rows.iter().filter(|r| r.error.is_some()).count();
    let doc = BatchDoc {
        iosift_version: env!("CARGO_PKG_VERSION"),
        captures: rows.len(),
        failed,
        bundles: rows.clone(),
    };
    let mut json = serde_json::to_string_pretty(&doc)?;
    json.push('\n');
    let summary = dir.join("summary.json");
    std::fs::write(&summary, json).with_context(|| format!("cannot write {}", summary.display()))?;
    let count =
        |sev: &str| rows.iter().filter(|r| r.error.is_none() && r.severity.as_deref() == Some(sev)).count();
    let quiet = rows.iter().filter(|r| r.error.is_none() && r.severity.is_none()).count();
    let specs = crate::rules::SPECS;
    let folder = common_folder(&rows);
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { "iosift batch: " (rows.len()) " captures" }
                style { (PreEscaped(CSS)) }
            }
            body { main {
                h1 { "iosift batch: " (rows.len()) " captures" }
                p.counts {
                    @if failed > 0 { span.bad { (failed) " failed" } ", " }
                    span.critical { (count("critical")) " critical" } ", "
                    span.warning { (count("warning")) " warning" } ", "
                    (count("info")) " info, " (quiet) " without findings. "
                    "Worst first; every number in summary.json."
                    @if !folder.is_empty() { " Captures under " code { (folder) } "." }
                }
                form.filter {
                    label { "rule " select #rule {
                        option value="" { "any" }
                        @for s in &specs { option value=(s.id) { (s.title) } }
                    } }
                    label { " severity at least " select #sev {
                        option value="0" { "any" }
                        option value="1" { "info" }
                        option value="2" { "warning" }
                        option value="3" { "critical" }
                    } }
                }
                table #rows {
                    thead { tr {
                        th { "capture" } th { "host" } th { "start (UTC)" } th { "duration" } th { "severity" }
                        th { "top finding" } th { "number" }
                        @for s in &specs { th.m title=(format!("{} ({})", s.title, s.id)) { (initials(s.title)) } }
                        th { "findings" }
                    } }
                    tbody {
                        @for r in &rows { (row(r, &rows, &folder)) }
                    }
                }
                script { (PreEscaped(FILTER)) }
            } }
        }
    };
    let index = dir.join("index.html");
    std::fs::write(&index, crate::term::safe_doc(page.into_string()))
        .with_context(|| format!("cannot write {}", index.display()))?;
    let md = dir.join("summary.md");
    std::fs::write(&md, overview_md(&rows, &folder))
        .with_context(|| format!("cannot write {}", md.display()))?;
    Ok(())
}

/// One capture's row of the overview table; `rows` are all of them (a bundle analysed
/// twice is told apart by its folder), `folder` their common folder.
fn row(r: &BatchRow, rows: &[&BatchRow], folder: &str) -> Markup {
    let specs = crate::rules::SPECS;
    html! {
        tr data-rules=(r.rules.keys().cloned().collect::<Vec<_>>().join(" "))
           data-sev=(if r.error.is_some() { 4 } else { rank(r.severity.as_deref()) }) {
            @let shared = rows.iter().filter(|o| o.bundle == r.bundle).count() > 1;
            @let label = r.bundle.get(folder.len()..).unwrap_or(&r.bundle).to_string()
                + &if shared { format!(" ({})", r.dir_name) } else { String::new() };
            td.cap title=(r.bundle) { @match r.report.as_deref().filter(|_| safe_component(&r.dir_name)) {
                Some(href) => a href=(href) { (label) },
                None => (label),
            } }
            td.h title=[r.host.as_deref()] { (r.host.as_deref().unwrap_or("-")) }
            td.t { (r.start.as_deref().map(when).unwrap_or_else(|| "-".into())) }
            td.n { (r.duration_s.map(span).unwrap_or_else(|| "-".into())) }
            @if let Some(e) = &r.error {
                td.bad { "failed" }
                td.bad colspan=(2 + specs.len() + 1) { (e) }
            } @else {
                td class=[r.severity.as_deref()] { (r.severity.as_deref().unwrap_or("-")) }
                td title=[r.summary.as_deref()] { (r.title.as_deref().unwrap_or("no finding")) }
                td.n { (r.number.as_deref().unwrap_or("")) }
                @for s in &specs {
                    @let sev = r.rules.get(s.id).map(String::as_str);
                    td.m class=[sev] title=[sev.map(|v| format!("{}: {v}", s.title))] {
                        (sev.and_then(|v| v.chars().next()).map(|c| c.to_ascii_uppercase().to_string()).unwrap_or_else(|| "·".into()))
                    }
                }
                td.n { (r.findings) }
            }
        }
    }
}

/// The overview in Markdown (`summary.md`): one table row per capture in the page's order,
/// each linking to its own summary.md when its report was written.
fn overview_md(rows: &[&BatchRow], folder: &str) -> String {
    use super::markdown::esc;
    let failed = rows.iter().filter(|r| r.error.is_some()).count();
    let mut s = format!("# iosift batch: {} captures, {failed} failed\n\n", rows.len());
    s.push_str("| capture | host | start | severity | top finding |\n|---|---|---|---|---|\n");
    for r in rows {
        let label = esc(r.bundle.get(folder.len()..).unwrap_or(&r.bundle));
        let cap = match (&r.report, safe_component(&r.dir_name)) {
            (Some(_), true) => format!("[{label}]({}/summary.md)", r.dir_name),
            _ => label,
        };
        let what = match &r.error {
            Some(e) => format!("failed: {}", esc(e)),
            None => {
                let t = r.title.as_deref().map_or_else(|| "no finding".to_string(), esc);
                r.number.as_deref().map_or(t.clone(), |n| format!("{t} ({})", esc(n)))
            }
        };
        s.push_str(&format!(
            "| {cap} | {} | {} | {} | {what} |\n",
            r.host.as_deref().map_or_else(|| "-".to_string(), esc),
            r.start.as_deref().map_or_else(|| "-".to_string(), |t| esc(&when(t))),
            if r.error.is_some() { "failed" } else { r.severity.as_deref().unwrap_or("-") },
        ));
    }
    s
}

/// Shows the rows that have the chosen rule and at least the chosen severity (failed rows
/// always).
const FILTER: &str = r#"
(function(){var r=document.getElementById('rule'),s=document.getElementById('sev');
function f(){var rule=r.value,sev=+s.value;document.querySelectorAll('#rows tbody tr').forEach(function(t){
var d=+t.dataset.sev,ok=d===4||((!rule||(' '+t.dataset.rules+' ').indexOf(' '+rule+' ')>=0)&&d>=sev);t.style.display=ok?'':'none';});}
r.onchange=f;s.onchange=f;})();
"#;

/// Inline stylesheet of the overview.
const CSS: &str = r#"
body{font-family:"DejaVu Sans",Verdana,Arial,sans-serif;font-size:14px;color:#1d1d1f;margin:0}
main{max-width:1400px;margin:0 auto;padding:12px 24px}
h1{font-size:20px;margin:6px 0} p.counts{margin:4px 0} form.filter{margin:6px 0 8px}
table{border-collapse:collapse;font-size:13px} th,td{border:1px solid #d0d7de;padding:2px 6px;text-align:left;vertical-align:top;white-space:nowrap}
th{background:#f3f5f7;position:sticky;top:0} td.n{text-align:right} td.m,th.m{text-align:center;width:2.2em;padding:2px}
td.cap{max-width:15em;overflow:hidden;text-overflow:ellipsis} td.h{max-width:6em;overflow:hidden;text-overflow:ellipsis} td.bad{white-space:normal;max-width:40em}
.critical{color:#cf222e;font-weight:bold} .warning{color:#9a6700;font-weight:bold} .info{color:#0969da} .bad{color:#cf222e}
@media print{main{padding:0;max-width:none} form.filter{display:none} table{font-size:9px;width:100%}
 th,td{padding:1px 3px} th{position:static} td.cap,td.h{max-width:none} td:nth-child(6){white-space:normal}
 td.m,th.m{width:auto}}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn row(b: &str, d: &str) -> BatchRow {
        BatchRow {
            bundle: b.into(),
            dir_name: d.into(),
            report: Some(format!("{d}/index.html")),
            top_rule: Some("periodic_write_bursts".into()),
            title: Some("Periodic write bursts".into()),
            severity: Some("warning".into()),
            summary: Some("<i>x</i>".into()),
            period_s: Some(31.04),
            number: Some("period 31.0 s".into()),
            findings: 1,
            inputs: 3,
            ..Default::default()
        }
    }

    #[test]
    fn failed_first_then_worst_then_earliest_and_links_only_to_written_reports() {
        let tmp = tempfile::tempdir().unwrap();
        let at = |b: &str, sev: Option<&str>, start: &str| BatchRow {
            severity: sev.map(String::from),
            start: Some(start.into()),
            rules: sev
                .map(|s| BTreeMap::from([("periodic_write_bursts".to_string(), s.to_string())]))
                .unwrap_or_default(),
            ..row(b, b)
        };
        let failed =
            BatchRow { error: Some("nothing could be read".into()), report: None, ..row("broken", "broken") };
        let rows = vec![
            at("late-warn", Some("warning"), "2026-12-05T10:00:00Z"),
            at("quiet", None, "2026-12-05T08:00:00Z"),
            at("crit", Some("critical"), "2026-12-05T11:00:00Z"),
            at("early-warn", Some("warning"), "2026-12-05T09:00:00Z"),
            failed,
        ];
        write_batch_index(&rows, tmp.path()).unwrap();
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(tmp.path().join("summary.json")).unwrap()).unwrap();
        let order: Vec<&str> =
            json["bundles"].as_array().unwrap().iter().map(|r| r["bundle"].as_str().unwrap()).collect();
        assert_eq!(order, ["broken", "crit", "early-warn", "late-warn", "quiet"]);
        assert_eq!((json["captures"].as_u64(), json["failed"].as_u64()), (Some(5), Some(1)));
        let html = std::fs::read_to_string(tmp.path().join("index.html")).unwrap();
        assert!(!html.contains("broken/index.html"), "a failed row links nowhere");
        assert!(html.contains(r#"<a href="crit/index.html">crit</a>"#));
        assert!(
            html.contains("1 failed") && html.contains("1 critical") && html.contains("2 warning"),
            "{html}"
        );
        assert!(html.contains(r#"data-rules="periodic_write_bursts" data-sev="3""#), "{html}");
        assert!(html.contains("2026-12-05 11:00<"));
        let md = std::fs::read_to_string(tmp.path().join("summary.md")).unwrap();
        assert!(md.starts_with("# iosift batch: 5 captures, 1 failed\n"), "{md}");
        assert!(md.contains("| broken | - | - | failed | failed: nothing could be read |"), "{md}");
        assert!(md.contains("| [crit](crit/summary.md) | - | 2026-12-05 11:00 | critical | Periodic write bursts (period 31.0 s) |"), "{md}");
    }

    #[test]
    fn overview_is_sorted_escaped_and_safe() {
        let tmp = tempfile::tempdir().unwrap();
        let rows = vec![row("zeta", "zeta"), row("<b>alpha", "../evil"), row("beta", "beta")];
        write_batch_index(&rows, tmp.path()).unwrap();
        let html = std::fs::read_to_string(tmp.path().join("index.html")).unwrap();
        assert!(html.contains("&lt;b&gt;alpha"));
        assert!(html.contains("&lt;i&gt;x&lt;/i&gt;"));
        assert!(!html.contains("../evil"));
        assert!(html.contains(r#"href="beta/index.html""#));
        assert!(html.find("beta/").unwrap() < html.find("zeta/").unwrap());
        assert!(html.contains("31.0 s"));
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(tmp.path().join("summary.json")).unwrap()).unwrap();
        assert_eq!(json["bundles"][0]["bundle"], "<b>alpha");
        assert_eq!(json["bundles"][2]["dir_name"], "zeta");
        // Deterministic whatever the input order.
        let tmp2 = tempfile::tempdir().unwrap();
        let mut rev = rows.clone();
        rev.reverse();
        write_batch_index(&rev, tmp2.path()).unwrap();
        for f in ["index.html", "summary.json"] {
            assert_eq!(
                std::fs::read(tmp.path().join(f)).unwrap(),
                std::fs::read(tmp2.path().join(f)).unwrap()
            );
        }
    }

    #[test]
    fn the_common_folder_is_shown_once() {
        let r = |b: &str| BatchRow { bundle: b.into(), ..Default::default() };
        let rows = [r("samples/a/capture"), r("samples/b"), r("samples/é/x")];
        assert_eq!(common_folder(&rows.iter().collect::<Vec<_>>()), "samples/");
        let rows = [r("samples/"), r("samples/b")];
        assert_eq!(common_folder(&rows.iter().collect::<Vec<_>>()), "");
        assert_eq!(common_folder(&[&r("x.tar.gz")]), "");
        assert_eq!(
            (initials("Large-folio writeback of an mmap'd file"), initials("Periodic write bursts")),
            ("LWM".into(), "PWB".into())
        );
    }
}
