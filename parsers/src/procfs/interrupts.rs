//! `interrupts`: `/proc/interrupts`, one snapshot or pt-stalk `TS`-framed
//! (`-interrupts`).
//!
//! Real sample (`samples/pt_stalk_mariadb/capture/2026_12_01_19_14_22-interrupts`, kernel 6.18):
//!
//! ```text
//! TS 1796152464.035508605 2026-12-01 19:14:24
//!            CPU0       CPU1
//!  24:          1          0  IO-APIC   5-edge      ACPI:Ged
//!  31:          0         93 PCI-MSIX-0000:00:01.0   3-edge      virtio0-stats
//! LOC:     119837     120285   Local timer interrupts
//! ERR:          0
//! ```
//!
//! Each line is an IRQ (number or mnemonic), one counter per CPU of the
//! header (fewer for `ERR`/`MIS`), then the controller and the device names.
//! Counters are summed over CPUs per IRQ.

use crate::common::scrub::Identifiers;
use crate::common::{DiagKind, Diags, Format, Parsed, Sniff, Stamp, Summary, Variant};
use crate::procfs::tsblocks;

/// One IRQ line, summed over CPUs.
#[derive(Debug, Clone, PartialEq)]
pub struct Irq {
    /// `24`, `LOC`, `NMI`.
    pub irq: String,
    /// Total count over all CPUs.
    pub total: u64,
    /// Controller and device names (`PCI-MSIX-0000:00:01.0 3-edge virtio0-stats`).
    pub name: String,
}

/// One snapshot.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Snapshot {
    /// Its `TS` epoch, when framed.
    pub epoch: Option<f64>,
    /// 1-based first line.
    pub line: usize,
    /// CPUs in the header.
    pub cpus: usize,
    /// IRQ lines.
    pub irqs: Vec<Irq>,
}

impl Snapshot {
    /// All interrupts of the snapshot.
    pub fn total(&self) -> u64 {
        self.irqs.iter().map(|i| i.total).sum()
    }
}

/// A parsed `/proc/interrupts` file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Interrupts {
    /// Snapshots in file order.
    pub snapshots: Vec<Snapshot>,
}

impl Summary for Interrupts {
    fn records(&self) -> usize {
        self.snapshots.len()
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        if let Some(s) = self.snapshots.last() {
            v.insert("cpus", s.cpus.to_string());
            v.insert("irqs", s.irqs.len().to_string());
        }
        let timed: Vec<&Snapshot> = self.snapshots.iter().filter(|s| s.epoch.is_some()).collect();
        if let (Some(a), Some(b)) = (timed.first(), timed.last()) {
            let dt = b.epoch.unwrap_or(0.0) - a.epoch.unwrap_or(0.0);
            if dt > 0.0 {
                v.insert(
                    "interrupts_per_s",
                    format!("{:.0}", b.total().saturating_sub(a.total()) as f64 / dt),
                );
                // The busiest device IRQ over the capture.
                let busiest = b
                    .irqs
                    .iter()
                    .filter(|i| i.irq.bytes().all(|c| c.is_ascii_digit()))
                    .map(|i| {
                        let old = a.irqs.iter().find(|o| o.irq == i.irq).map_or(0, |o| o.total);
                        (i.total.saturating_sub(old), i)
                    })
                    .max_by_key(|(d, _)| *d);
                if let Some((d, i)) = busiest {
                    let dev = i.name.split_whitespace().last().unwrap_or("");
                    v.insert("busiest_device_irq", format!("{} {dev} {:.0}/s", i.irq, d as f64 / dt));
                }
            }
        }
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        crate::procfs::tsblocks::epoch_range(self.snapshots.iter().map(|s| s.epoch))
    }
}

/// True for the header `           CPU0       CPU1`.
fn is_header(t: &str) -> bool {
    let mut w = t.split_whitespace().peekable();
    w.peek().is_some() && w.all(|x| x.starts_with("CPU") && x[3..].bytes().all(|b| b.is_ascii_digit()))
}

/// The `interrupts` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Interrupts;
    const ID: &'static str = "interrupts";
    const SAMPLE: &'static str =
        " 31:          0         93 PCI-MSIX-0000:00:01.0   3-edge      virtio0-stats";
    const DESCRIPTION: &'static str = "/proc/interrupts, one snapshot or pt-stalk TS-framed";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        if tsblocks::first_data_line(head).is_some_and(|l| is_header(&l)) { Sniff::Yes } else { Sniff::No }
    }

    fn parse(input: &[u8]) -> Parsed<Interrupts> {
        let mut d = Diags::default();
        let blocks = tsblocks::split(input, &mut d);
        let mut out = Interrupts::default();
        for b in blocks {
            let mut s = Snapshot { epoch: b.ts.map(|t| t.epoch), line: b.first_line, ..Default::default() };
            for l in b.lines {
                if l.is_blank() {
                    continue;
                }
                let text = l.text();
                let t = text.trim_end();
                if is_header(t) {
                    s.cpus = t.split_whitespace().count();
                    continue;
                }
                let Some((irq, rest)) = t.trim_start().split_once(':') else {
                    d.skip(l.no, DiagKind::Malformed, t);
                    continue;
                };
                let toks: Vec<&str> = rest.split_whitespace().collect();
                let counts: Vec<u64> =
                    toks.iter().take(s.cpus.max(1)).map_while(|x| x.parse::<u64>().ok()).collect();
                if counts.is_empty() {
                    d.skip(l.no, DiagKind::BadNumber, t);
                    continue;
                }
                s.irqs.push(Irq {
                    irq: irq.trim().to_string(),
                    total: counts.iter().sum(),
                    name: toks[counts.len()..].join(" "),
                });
            }
            if !s.irqs.is_empty() {
                out.snapshots.push(s);
            }
        }
        d.finish(out, crate::common::lines::count_lines(input))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn irqs_summed_over_cpus() {
        let t = "TS 10.0 2026-12-01 19:14:24\n           CPU0       CPU1       \n 31:          0         93 PCI-MSIX-0000:00:01.0   3-edge      virtio0-stats\n\
LOC:     119837     120285   Local timer interrupts\nERR:          0\n\
TS 12.0 2026-12-01 19:14:26\n           CPU0       CPU1       \n 31:          0        193 PCI-MSIX-0000:00:01.0   3-edge      virtio0-stats\n\
LOC:     119837     120285   Local timer interrupts\nERR:          0\n";
        assert_eq!(Fmt::sniff(t.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(t.as_bytes());
        assert_eq!(p.skipped_lines, 0, "{:?}", p.diagnostics);
        assert_eq!(p.value.snapshots[0].total(), 93 + 240122);
        let v = p.value.variant();
        assert_eq!(v.get("interrupts_per_s").map(String::as_str), Some("50"));
        assert_eq!(v.get("busiest_device_irq").map(String::as_str), Some("31 virtio0-stats 50/s"));
    }
}
