//! Report renderers: everything a person or a script reads after an analysis.
//!
//! [`write_report`] writes one report folder:
//!
//! ```text
//! DIR/index.html              one self-contained page (charts inline, one inline script, no network, printable)
//! DIR/findings.json           the findings document of the contract (pretty, trailing newline)
//! DIR/charts/<name>.png|.svg  each chart that has data, PNG 2000 px wide (names fixed: device-writes, ...)
//! DIR/charts/flame-<stem>.svg each perf flame graph, one per process (stem sanitised)
//! ```
//!
//! [`terminal_summary`] is what `iosift analyze` prints, and
//! [`write_batch_index`] the overview of `iosift batch`. Renderers only read
//! the [`crate::model::Report`]; they never parse or analyse. All output is
//! deterministic: the same report gives byte-identical files. File names come
//! from fixed names or sanitised stems, never from capture text.

mod batch;
pub mod charts;
mod episodes;
pub(crate) mod findings;
pub mod flame;
mod fmt;
mod galera;
mod heat;
mod heat_data;
mod heat_script;
mod hidpi;
mod html;
mod live;
pub(crate) mod markdown;
mod story;
pub mod summary;

pub use batch::{BatchRow, write_batch_index};
pub use findings::sev_word;
pub use fmt::headline;
pub use story::rule_title;
pub use summary::terminal_summary;

use crate::model::Report;
use anyhow::Context;
use std::path::{Path, PathBuf};

/// Writes a file, recording its path.
fn put(path: PathBuf, bytes: &[u8], written: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
    written.push(path);
    Ok(())
}

/// Writes the report folder `dir` (created if needed; meant to be a fresh folder:
/// [`crate::output::write_all`] stages one, so nothing of an earlier run stays) and returns the files
/// written: `findings.json`, the charts and flame graphs, then `index.html`.
/// A chart or flame graph that cannot be drawn is listed under "Problems" in
/// the page instead of failing the report.
pub fn write_report(report: &Report, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let charts_dir = dir.join("charts");
    std::fs::create_dir_all(&charts_dir).with_context(|| format!("creating {}", charts_dir.display()))?;
    let mut written = Vec::new();
    let mut json = serde_json::to_string_pretty(&report.doc)?;
    json.push('\n');
    put(dir.join("findings.json"), json.as_bytes(), &mut written)?;
    // The charts and the flame graphs drawn side by side.
    let ((charts, mut problems), (flames, flame_problems)) =
        rayon::join(|| charts::render_all(report), || flame::render_all(&report.flames));
    for c in &charts {
        put(charts_dir.join(format!("{}.png", c.name)), &c.png, &mut written)?;
        put(charts_dir.join(format!("{}.svg", c.name)), c.svg.as_bytes(), &mut written)?;
    }
    problems.extend(flame_problems);
    for f in &flames {
        put(charts_dir.join(format!("flame-{}.svg", f.stem)), &f.svg, &mut written)?;
    }
    put(dir.join("summary.md"), markdown::summary_md(report, &charts).as_bytes(), &mut written)?;
    let page = html::render(report, &charts, &flames, &problems);
    put(dir.join("index.html"), page.as_bytes(), &mut written)?;
    Ok(written)
}
