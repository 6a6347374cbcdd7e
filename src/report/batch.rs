//! The overview of a batch run (`iosift batch`): `index.html` with one row per
//! bundle linking to its report, and `summary.json` with the same rows.
//! Rows are sorted by bundle name, so the output does not depend on the order
//! in which parallel jobs finished.

use maud::{DOCTYPE, PreEscaped, html};
use serde::Serialize;
use std::path::Path;

/// One bundle of a batch run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BatchRow {
    /// Bundle name (capture text: escaped when shown).
    pub bundle: String,
    /// Folder of its report under the batch output (sanitised by the caller).
    pub dir_name: String,
    /// Rule id of the top finding.
    pub top_rule: Option<String>,
    /// Its severity (`critical`, `warning`, `info`).
    pub severity: Option<String>,
    /// Its summary.
    pub summary: Option<String>,
    /// Detected write period, seconds.
    pub period_s: Option<f64>,
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
    bundles: Vec<&'a BatchRow>,
}

/// True for a single safe path component (`[A-Za-z0-9._-]`, not starting with a dot).
fn safe_component(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('.')
        && s.len() <= 255
        && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// Rows in output order.
fn sorted(rows: &[BatchRow]) -> Vec<&BatchRow> {
    let mut v: Vec<&BatchRow> = rows.iter().collect();
    v.sort_by(|a, b| a.bundle.cmp(&b.bundle).then_with(|| a.dir_name.cmp(&b.dir_name)));
    v
}

/// Writes `dir/index.html` and `dir/summary.json`. A row whose `dir_name` is not a
/// safe folder name gets no link.
pub fn write_batch_index(rows: &[BatchRow], dir: &Path) -> anyhow::Result<()> {
    use anyhow::Context as _;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let rows = sorted(rows);
    let doc = BatchDoc { iosift_version: env!("CARGO_PKG_VERSION"), bundles: rows.clone() };
    let mut json = serde_json::to_string_pretty(&doc)?;
    json.push('\n');
    let summary = dir.join("summary.json");
    std::fs::write(&summary, json).with_context(|| format!("cannot write {}", summary.display()))?;
    let with_findings = rows.iter().filter(|r| r.findings > 0).count();
    let failed = rows.iter().filter(|r| r.error.is_some()).count();
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { "iosift batch: " (rows.len()) " bundles" }
                style { (PreEscaped(CSS)) }
            }
            body { main {
                h1 { "iosift batch: " (rows.len()) " bundles" }
                p { (with_findings) " with findings, " (failed) " failed. Details: summary.json." }
                table {
                    tr { th { "bundle" } th { "top finding" } th { "severity" } th { "summary" }
                         th { "period" } th { "findings" } th { "inputs" } th { "error" } }
                    @for r in &rows {
                        tr {
                            td { @if safe_component(&r.dir_name) {
                                a href={ (r.dir_name) "/index.html" } { (r.bundle) }
                            } @else { (r.bundle) } }
                            td { (r.top_rule.as_deref().unwrap_or("-")) }
                            td class=[r.severity.as_deref()] { (r.severity.as_deref().unwrap_or("-")) }
                            td { (r.summary.as_deref().unwrap_or("")) }
                            td.n { (r.period_s.filter(|p| p.is_finite()).map(|p| format!("{p:.1} s")).unwrap_or_else(|| "-".into())) }
                            td.n { (r.findings) }
                            td.n { (r.inputs) }
                            td.bad { (r.error.as_deref().unwrap_or("")) }
                        }
                    }
                }
            } }
        }
    };
    let index = dir.join("index.html");
    std::fs::write(&index, crate::term::safe_doc(page.into_string()))
        .with_context(|| format!("cannot write {}", index.display()))?;
    Ok(())
}

/// Inline stylesheet of the overview.
const CSS: &str = r#"
body{font-family:"DejaVu Sans",Verdana,Arial,sans-serif;font-size:14px;color:#1d1d1f;margin:0}
main{max-width:1200px;margin:0 auto;padding:12px 24px}
table{border-collapse:collapse;font-size:13px} th,td{border:1px solid #d0d7de;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f3f5f7} td.n{text-align:right} .critical{color:#cf222e;font-weight:bold} .warning{color:#9a6700} .bad{color:#cf222e}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn row(b: &str, d: &str) -> BatchRow {
        BatchRow {
            bundle: b.into(),
            dir_name: d.into(),
            top_rule: Some("periodic_write_bursts".into()),
            severity: Some("warning".into()),
            summary: Some("<i>x</i>".into()),
            period_s: Some(31.04),
            findings: 1,
            inputs: 3,
            error: None,
            problems: vec![],
        }
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
        assert!(html.find("beta").unwrap() < html.find("zeta").unwrap());
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
}
