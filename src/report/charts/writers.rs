//! The write sources chart: bytes dirtied per thread category (pidstat -d),
//! stacked, with the device writes over them.

use super::plot::{Draft, HEIGHT, Plot, TimeLine, TimePanel};
use super::series::{MIB, bucket_note, burst_spans, column, line, time_plot};
use super::style::PALETTE;
use crate::model::Report;
use crate::report::fmt::bytes_h;
use crate::table::Col;
use crate::table::columns::DevMetric;
use plotters::prelude::BLACK;

/// Write sources stacked (pidstat, bytes dirtied per category) with device writes on top.
pub fn write_sources(report: &Report) -> Option<Draft> {
    let t = &report.timeline;
    let mut cats: Vec<(String, Col, f64)> = if report.write_sources.is_empty() {
        t.iter()
            .filter_map(|(c, s)| match c {
                Col::Category(name) => {
                    let total = s.values.iter().flatten().filter(|x| x.is_finite()).sum();
                    Some((name.to_string(), c.clone(), total))
                }
                Col::Dev(..)
                | Col::Ds(..)
                | Col::Cpu(_)
                | Col::Core(..)
                | Col::Thread(_)
                | Col::ProcCpu(_)
                | Col::Vmstat(_)
                | Col::Mem(_)
                | Col::Vm(_)
                | Col::Perf(_)
                | Col::Binlog(_)
                | Col::Mysql(_)
                | Col::Galera(_)
                | Col::Repl(..)
                | Col::Dstat(..)
                | Col::Sar(_)
                | Col::Net(..)
                | Col::Host(_)
                | Col::Seen(_)
                | Col::Psi(..)
                | Col::Submitter(_) => None,
            })
            .collect()
    } else {
        report.write_sources.iter().map(|w| (category_label(w), w.column.clone(), w.total_bytes)).collect()
    };
    // Largest at the bottom of the stack; ties by name (deterministic).
    cats.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
    let stacked: Vec<TimeLine> = cats
        .iter()
        .enumerate()
        .filter_map(|(i, (name, col, _))| {
            column(t, col).map(|v| line(t, v, name.clone(), 1.0 / MIB, PALETTE[i % PALETTE.len()], 1))
        })
        .collect();
    if stacked.is_empty() {
        return None;
    }
    let mut lines = Vec::new();
    let mut caption = "Bytes written per second by category of thread (pidstat -d, charged when pages are \
                       dirtied), stacked, largest category at the bottom."
        .to_string();
    let all: f64 = cats.iter().map(|c| c.2).filter(|v| v.is_finite()).sum();
    if let Some((name, _, top)) = cats.first()
        && all > 0.0
    {
        caption.push_str(&format!(
            " {name} wrote {:.0} % of the {} charged.",
            100.0 * top / all,
            bytes_h(all)
        ));
    }
    if let Some(dev) = report.main_device.as_deref()
        && let Some(w) = column(t, &Col::Dev(dev.to_string(), DevMetric::WBytesS))
    {
        lines.push(line(t, w, format!("device {dev} writes"), 1.0 / MIB, BLACK, 2));
        caption.push_str(&format!(
            " The black line is what the device {dev} wrote: a gap between the two is page-cache writeback \
             that no thread was charged for at that moment."
        ));
    }
    caption.push_str(&bucket_note(t));
    let panel = TimePanel {
        y_desc: "MiB/s".into(),
        stacked,
        lines,
        spans: burst_spans(report),
        ..Default::default()
    };
    Some(Draft {
        title: "Write sources (pidstat) vs device writes, MiB/s".into(),
        caption,
        height: HEIGHT,
        plot: Plot::Time(time_plot(t, &report.display, vec![panel])),
    })
}

/// A write-source category as a legend names it; `other` (threads no rule of the
/// taxonomy matched) names its most writing thread, so "other 100 %" says who.
pub fn category_label(w: &crate::model::WriteSource) -> String {
    match w.top_threads.first() {
        Some((name, tid, _)) if w.category == "other" => format!("other (mostly {name} [{tid}])"),
        _ => w.category.clone(),
    }
}
