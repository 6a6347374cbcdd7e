//! The memory chart: Dirty and Writeback (/proc/meminfo).

use super::plot::{Draft, HEIGHT, Plot, TimePanel};
use super::series::{MIB, bucket_note, burst_spans, column, line, peak_mean, time_plot};
use super::style::PALETTE;
use crate::model::Report;
use crate::report::fmt::bytes_h;
use crate::table::Col;
use crate::table::columns::MemMetric;

/// Dirty and Writeback memory.
pub fn dirty_writeback(report: &Report) -> Option<Draft> {
    let t = &report.timeline;
    let d = column(t, &Col::Mem(MemMetric::DirtyBytes));
    let w = column(t, &Col::Mem(MemMetric::WritebackBytes));
    if d.is_none() && w.is_none() {
        return None;
    }
    let mut lines = Vec::new();
    if let Some(d) = d {
        lines.push(line(t, d, "Dirty", 1.0 / MIB, PALETTE[1], 2));
    }
    if let Some(w) = w {
        lines.push(line(t, w, "Writeback", 1.0 / MIB, PALETTE[3], 2));
    }
    let panel = TimePanel { y_desc: "MiB".into(), lines, spans: burst_spans(report), ..Default::default() };
    Some(Draft {
        title: "Dirty and Writeback memory, MiB (/proc/meminfo)".into(),
        caption: format!(
            "Dirty: page cache waiting to be written; Writeback: being written now. A sawtooth that drops at each \
             shaded device burst is the flusher writing expired dirty data (page cache and free memory are not \
             timeline series of iosift).{}{}",
            d.and_then(peak_mean).map_or(String::new(), |(at, peak, _)| format!(
                " Dirty peaked at {} at {}.",
                bytes_h(peak),
                report.display.format(t.epoch(at), "%H:%M:%S")
            )),
            bucket_note(t)
        ),
        height: HEIGHT,
        plot: Plot::Time(time_plot(t, &report.display, vec![panel])),
    })
}
