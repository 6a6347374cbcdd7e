//! The write episodes table: every significant burst of each written device,
//! who issued it and why (measured, with the runner-up, or "not measured" and
//! the missing witness), who wrote its data and what it cost, whether or not a
//! finding explains it. Rendered from findings.json's `episodes`.

use super::fmt::full;
use crate::model::Report;
use maud::{Markup, html};

/// The episodes section.
pub(super) fn section(report: &Report) -> Markup {
    let eps = &report.doc.episodes;
    html! {
        section #episodes {
            h2 { "Write episodes" }
            @if eps.is_empty() {
                p.muted { "No significant write episode (16 MiB or more in a burst) on any device, or no one-second device series." }
            } @else {
                p { (eps.len()) " significant write episodes (bursts of 16 MiB or more, and the periodic bursts of a device stacked on a disk, however small), each with its issuer measured from the capture's own witnesses (trace, perf call chains, Dirty, flush requests, pidstat) or marked not measured." }
                table {
                    tr { th { "device" } th { "when (" (report.display.label) ")" } th { "MiB" } th { "issued by" } th { "wrote the data" } th { "cost" } }
                    @for e in eps {
                        tr {
                            td { (e.device) }
                            td { (full(&report.display, e.start_epoch)) @if e.end_epoch > e.start_epoch { " +" (e.end_epoch - e.start_epoch) " s" } }
                            td.n { (format!("{:.0}", e.bytes / crate::rules::evidence::MIB)) }
                            td {
                                @match e.issuer.class {
                                    Some(c) => { (c.words()) @if let Some(n) = &e.issuer.issuer.comm { ": " (n) } " (" (e.issuer.issuer.source) ")" }
                                    None => { span.muted { (e.issuer.issuer.note.as_deref().unwrap_or("not measured")) } }
                                }
                                @if let Some((c, why)) = &e.issuer.runner_up { br; span.src { "runner-up " (c.id()) ": " (why) } }
                            }
                            td { @for (i, w) in e.writers.iter().enumerate() {
                                @if i > 0 { ", " }
                                @match &w.comm { Some(c) => { (c) } None => { span.muted { (w.note.as_deref().unwrap_or("not measured")) } } }
                            } }
                            td { (e.harm.words) }
                        }
                    }
                }
            }
        }
    }
}
