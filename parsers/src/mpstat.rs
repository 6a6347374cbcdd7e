//! `mpstat`: sysstat `mpstat` text (`-P ALL`, `-u`, `-A`), as pt-stalk
//! collects it (`-mpstat`: `mpstat -P ALL 1 30`, `-mpstat-overall`:
//! `mpstat -P ALL 30 1`). Same grammar as `sar` text, so it is read by
//! [`crate::sar::parse_text`] into the same tables (activity `cpu`, item =
//! `all` or the core number).
//!
//! Real sample (`samples/pt_stalk_mariadb/capture/2026_12_01_19_14_22-mpstat`, sysstat 12.6.1):
//!
//! ```text
//! Linux 6.18.44-fc-v669 (vm) \t12/01/26 \t_x86_64_\t(2 CPU)
//!
//! 19:14:23     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle
//! 19:14:24     all   63.68    0.00   32.34    0.00    0.00    3.98    0.00    0.00    0.00    0.00
//! 19:14:24       0   71.29    0.00   28.71    0.00    0.00    0.00    0.00    0.00    0.00    0.00
//! 19:14:24       1   56.00    0.00   36.00    0.00    0.00    8.00    0.00    0.00    0.00    0.00
//! ```
//!
//! Told from `sar -u ALL` by its column order: `%iowait %irq` (sar: `%iowait %steal`).
//! The header's time is the start of the first interval, so a single
//! `-mpstat-overall` sample still has its 30 s interval.

use crate::common::scrub::Identifiers;
use crate::common::sysstat::parse_banner;
use crate::common::{Format, LineSource, Parsed, Sniff};
use crate::sar::{Sar, Source, TextReader, header_columns, is_mpstat_cpu_header, parse_text};

/// The `mpstat` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Sar;
    const ID: &'static str = "mpstat";
    const SAMPLE: &'static str =
        "19:14:24       0   71.29    0.00   28.71    0.00    0.00    0.00    0.00    0.00    0.00    0.00";
    const DESCRIPTION: &'static str = "sysstat mpstat text (CPU per core), pt-stalk -mpstat, mpstat -o JSON";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let text = String::from_utf8_lossy(head);
        if let Some(json) = crate::common::sysstat::json_kind(&text) {
            return if json == crate::common::sysstat::JsonKind::Mpstat { Sniff::Yes } else { Sniff::No };
        }
        let mut banner = false;
        for l in text.lines().take(16) {
            if parse_banner(l).is_some() {
                banner = true;
                continue;
            }
            if let Some(cols) = header_columns(l)
                && cols.first().map(String::as_str) == Some("CPU")
                && is_mpstat_cpu_header(&cols[1..])
            {
                return if banner { Sniff::Yes } else { Sniff::Unsure };
            }
        }
        Sniff::No
    }

    fn parse(input: &[u8]) -> Parsed<Sar> {
        if input.trim_ascii_start().starts_with(b"{") {
            crate::sadf::parse_json_as(input, Source::MpstatJson)
        } else {
            parse_text(input, Source::MpstatText)
        }
    }
}

/// Parses mpstat fed line by line (a file streamed from disk): text through sar's reader
/// as it comes; `mpstat -o JSON` (a first line with content starting with `{`) gathered
/// and parsed whole, as [`Fmt::parse`] does.
pub fn parse_source(src: &mut impl LineSource) -> Parsed<Sar> {
    let mut text = TextReader::new(Source::MpstatText);
    // The lines before the first with content, and then every line when it is JSON.
    let mut held: Vec<u8> = Vec::new();
    let mut json: Option<bool> = None;
    while let Some(sl) = src.next_line() {
        let l = &sl.line;
        if json.is_none() && !l.bytes.trim_ascii().is_empty() {
            json = Some(l.bytes.trim_ascii_start().starts_with(b"{"));
        }
        if json != Some(false) {
            held.extend_from_slice(l.bytes);
            if !sl.cut {
                held.push(b'\n');
            }
        }
        if json != Some(true) {
            text.feed(l);
        }
    }
    if json == Some(true) { crate::sadf::parse_json_as(&held, Source::MpstatJson) } else { text.finish() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sar::Activity;

    #[test]
    fn per_core_rows_and_the_interval_from_the_header() {
        let text = "Linux 6.18.44-fc-v669 (vm) \t12/01/26 \t_x86_64_\t(2 CPU)\n\n\
19:14:23     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle\n\
19:14:53     all   57.52    0.00   36.45    0.13    0.00    5.40    0.47    0.00    0.00    0.03\n\
19:14:53       0   62.54    0.00   36.82    0.13    0.00    0.00    0.47    0.00    0.00    0.03\n\n\
Average:     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle\n\
Average:     all   57.52    0.00   36.45    0.13    0.00    5.40    0.47    0.00    0.00    0.03\n";
        assert_eq!(Fmt::sniff(text.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(text.as_bytes());
        assert_eq!(p.skipped_lines, 0);
        let s = &p.value;
        assert_eq!(s.rows.len(), 2);
        assert_eq!(s.rows[1].interval_s, Some(30.0));
        assert_eq!(s.series(Activity::Cpu, Some("0"), "%sys")[0].1, 36.82);
        assert_eq!(s.averages, 2);
    }
}
