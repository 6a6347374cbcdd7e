//! Charts of the report, drawn with plotters into PNG (at 2x through
//! [`super::hidpi`], bundled DejaVu Sans, no fontconfig) and SVG (text escaped
//! by plotters' SVG backend).
//!
//! Every chart is one entry of [`CHARTS`]: its file stem, its section of the
//! page and its builder, one function per chart (in the module of its family)
//! that describes the chart as data (a [`Draft`] of a [`Plot`]) or returns
//! `None` when the capture lacks what it needs. One generic renderer
//! ([`render`]) then draws the description on either backend, so the PNG and
//! the SVG of a chart always show the same thing. Renderers only read the
//! model: the only arithmetic here is unit scaling, stacking, and taking the
//! maximum per bucket when a long timeline has more seconds than pixels
//! (maxima keep short bursts visible, means would flatten them).
//!
//! Adding a chart: its builder, `fn(&Report) -> Option<Draft>` in the module of its family,
//! and one entry in [`CHARTS`] (the `pub use`s of builders serve callers outside the charts).

pub(crate) mod axis;
pub mod cluster;
mod correlation;
mod cpu;
mod devices;
mod draw;
mod memory;
mod mysql;
mod perf;
mod periodicity;
mod plot;
mod render;
mod replication;
mod series;
mod style;
mod writers;

pub use correlation::correlations;
pub use cpu::cpu_usage;
pub use devices::{device_writes, latency_queue};
pub use memory::dirty_writeback;
pub use mysql::{binlog_rate, binlog_sizes, mysql_status};
pub use perf::fsync_share;
pub use periodicity::{autocorrelation, periodogram};
pub use plot::{
    BarPlot, Chart, Draft, HEIGHT, Plot, Section, Spec, TimeLine, TimePanel, TimePlot, WIDTH, XyLine, XyPlot,
};
pub use render::{render, visible};
pub use replication::replication;
pub use writers::{category_label, write_sources};

use crate::model::Report;

/// A chart iosift can draw: what the page and the files need beside the builder's description.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// File stem under `charts/` (fixed names only).
    pub id: &'static str,
    /// Where the chart belongs in the HTML report.
    pub section: Section,
    /// The chart described from the report, `None` when the capture lacks its data.
    pub build: fn(&Report) -> Option<Draft>,
}

/// Every chart iosift draws, in report order.
pub const CHARTS: &[Entry] = &[
    Entry { id: "device-writes", section: Section::Timeline, build: devices::device_writes },
    Entry { id: "write-sources", section: Section::Sources, build: writers::write_sources },
    Entry { id: "dirty-writeback", section: Section::Timeline, build: memory::dirty_writeback },
    Entry { id: "latency-queue", section: Section::Timeline, build: devices::latency_queue },
    Entry { id: "replication", section: Section::Timeline, build: replication::replication },
    Entry { id: "cpu-usage", section: Section::Timeline, build: cpu::cpu_usage },
    Entry { id: "tasks", section: Section::Timeline, build: cpu::tasks },
    Entry { id: "mysql-status", section: Section::Timeline, build: mysql::mysql_status },
    Entry { id: "galera", section: Section::Timeline, build: mysql::galera },
    Entry { id: "autocorrelation", section: Section::Periodicity, build: periodicity::autocorrelation },
    Entry { id: "periodogram", section: Section::Periodicity, build: periodicity::periodogram },
    Entry { id: "correlations", section: Section::Correlation, build: correlation::correlations },
    Entry { id: "fsync-share", section: Section::Perf, build: perf::fsync_share },
    Entry { id: "binlog-rate", section: Section::Binlog, build: mysql::binlog_rate },
    Entry { id: "binlog-sizes", section: Section::Binlog, build: mysql::binlog_sizes },
];

/// The file stems of every chart iosift draws (the ids of [`CHARTS`]).
pub const NAMES: [&str; CHARTS.len()] = {
    let mut names = [""; CHARTS.len()];
    let mut i = 0;
    while i < CHARTS.len() {
        names[i] = CHARTS[i].id;
        i += 1;
    }
    names
};

/// Every chart the report has data for, described and drawn. Charts that fail to
/// draw are left out and named in the second list.
pub fn render_all(report: &Report) -> (Vec<Chart>, Vec<String>) {
    use rayon::prelude::*;
    let specs = specs(report);
    // Each chart drawn on its own (on every core), kept in report order.
    let drawn: Vec<_> = specs.par_iter().map(render).collect();
    let mut charts = Vec::new();
    let mut failed = Vec::new();
    for (s, r) in specs.iter().zip(drawn) {
        match r {
            Ok(c) => charts.push(c),
            Err(e) => failed.push(format!("chart {}: {e}", s.name)),
        }
    }
    (charts, failed)
}

/// The descriptions of every chart that has data, in report order.
pub fn specs(report: &Report) -> Vec<Spec> {
    CHARTS.iter().filter_map(|c| (c.build)(report).map(|d| d.spec(c.id, c.section))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spec_name_is_listed() {
        for n in ["device-writes", "binlog-sizes", "replication"] {
            assert!(NAMES.contains(&n));
        }
        let mut ids = NAMES.to_vec();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), NAMES.len(), "chart ids are unique");
    }
}
