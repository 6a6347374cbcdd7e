//! The perf chart: threads in fsync.

use super::plot::{BarPlot, Draft, Plot};
use super::style::PALETTE;
use crate::model::Report;

/// Longest bar label drawn (characters).
const MAX_LABEL: usize = 40;

/// A label cut to [`MAX_LABEL`] characters.
fn short(s: &str) -> String {
    if s.chars().count() > MAX_LABEL {
        let mut t: String = s.chars().take(MAX_LABEL - 1).collect();
        t.push('…');
        t
    } else {
        s.to_string()
    }
}

/// Most bars in a bar chart.
const MAX_BARS: usize = 15;

/// fsync samples per thread (perf).
pub fn fsync_share(report: &Report) -> Option<Draft> {
    let mut rows: Vec<_> = report.fsync_shares.iter().filter(|s| s.fsync_samples > 0).collect();
    if rows.is_empty() {
        return None;
    }
    let total: u64 = rows.iter().map(|s| s.fsync_samples).sum();
    rows.sort_by(|a, b| {
        b.fsync_samples.cmp(&a.fsync_samples).then_with(|| a.comm.cmp(&b.comm)).then(a.tid.cmp(&b.tid))
    });
    let more = rows.len().saturating_sub(MAX_BARS);
    rows.truncate(MAX_BARS);
    let labels = rows
        .iter()
        .map(|s| match s.tid {
            Some(t) => format!("{} [{t}]", short(&s.comm)),
            None => short(&s.comm),
        })
        .collect();
    let values = rows.iter().map(|s| s.fsync_samples as f64).collect();
    let notes = rows
        .iter()
        .map(|s| {
            format!(
                "{:.0} % (in fsync {:.0} % of its time)",
                100.0 * s.fsync_samples as f64 / total.max(1) as f64,
                100.0 * s.fsync_samples as f64 / s.samples.max(1) as f64
            )
        })
        .collect();
    let n = MAX_BARS.min(report.fsync_shares.len());
    let mut caption = format!(
        "perf samples with an fsync-like frame (fsync, fdatasync, sync_file_range, ...) per thread, {total} in all."
    );
    if more > 0 {
        caption.push_str(&format!(" {more} more threads are in the table."));
    }
    Some(Draft {
        title: "Threads in fsync (perf samples)".into(),
        caption,
        height: (90 + 26 * n as u32).max(240),
        plot: Plot::Bars(BarPlot {
            x_desc: "samples in fsync".into(),
            y_desc: "thread [tid]".into(),
            labels,
            values,
            notes,
            color: PALETTE[0],
        }),
    })
}
