//! `iostat -o JSON` (sysstat ≥ 11.5.1), normalised into the same [`Iostat`] value as the
//! text reports.
//!
//! A real file (sysstat 12.6.1, `LC_ALL=de_DE.UTF-8 iostat -x -t -o JSON 1 30`, bundle
//! `s4_locale_variants`; numbers use a decimal point, the date and time stamp stay localized):
//!
//! ```text
//! {"sysstat": {
//!     "hosts": [
//!         {
//!             "nodename": "vm",
//!             "sysname": "Linux",
//!             "release": "6.18.44-fc-v669",
//!             "machine": "x86_64",
//!             "number-of-cpus": 2,
//!             "date": "29.11.2026",
//!             "statistics": [
//!                 {
//!                     "timestamp": "29.11.2026 19:52:39",
//!                     "avg-cpu":  {"user": 70.60, "nice": 0.00, "system": 12.64, "iowait": 0.42, "steal": 0.08, "idle": 16.26},
//!                     "disk": [
//!                         {"disk_device": "vda", "r/s": 423.89, "w/s": 1180.44, "d/s": 14.41, "f/s": 233.15, "rkB/s": 15366.56, "wkB/s": 34930.57, …, "rrqm": 1.70, …, "aqu-sz": 0.79, "util": 10.05}
//!                     ]
//!                 },
//! ```
//!
//! sysstat writes one JSON item per line, so the file is read line by line: every report and
//! row keeps its line number, and a file cut by SIGINT (invalid JSON before 12.1.4) still
//! yields every complete row. Keys are the text header names without `%` (`"rrqm"`,
//! `"util"`) and are mapped by the same table as the text parser. A compact (one-line)
//! document, e.g. re-formatted by `jq -c`, is walked as a whole instead.

use super::metrics::{CpuAvg, DeviceMetrics};
use super::types::{DeviceRow, Iostat};
use super::{Builder, Col, classify, set};
use crate::common::scrub::Identifiers;
use crate::common::sysstat::{Banner, parse_date, parse_stamp_line};
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff};
use serde_json::{Map, Value};

/// Maps a JSON key (`"rkB/s"`, `"rrqm"`, `"util"`) to a column.
fn json_col(key: &str) -> (Col, Option<&'static str>) {
    match key {
        "rrqm" => classify("%rrqm"),
        "wrqm" => classify("%wrqm"),
        "drqm" => classify("%drqm"),
        "util" => classify("%util"),
        "disk_device" => (Col::Device, None),
        k => classify(k),
    }
}

fn cpu_of(m: &Map<String, Value>) -> CpuAvg {
    let g = |k: &str| m.get(k).and_then(Value::as_f64);
    CpuAvg::from_options([g("user"), g("nice"), g("system"), g("iowait"), g("steal"), g("idle")])
}

/// Converts one `{"disk_device": …}` object; `None` without a device name.
fn row_of(b: &mut Builder, m: &Map<String, Value>, line: usize) -> Option<DeviceRow> {
    let device = b.names.get(m.get("disk_device")?.as_str()?);
    let mut metrics = DeviceMetrics::default();
    for (k, v) in m {
        let (col, unit) = json_col(k);
        if let (Col::Val(f, mult), Some(x)) = (col, v.as_f64()) {
            set(&mut metrics, f, x * mult);
            b.layout_mask |= 1u64 << (f as u32);
            if unit.is_some() && b.out.unit.is_none() {
                b.out.unit = unit;
            }
        }
    }
    Some(DeviceRow { line, device, m: metrics })
}

fn banner_of(h: &Map<String, Value>) -> Option<Banner> {
    let s = |k: &str| h.get(k).and_then(Value::as_str).map(str::to_string);
    let date_text = s("date").unwrap_or_default();
    let d = parse_date(&date_text);
    let b = Banner {
        sysname: s("sysname").unwrap_or_default(),
        release: s("release").unwrap_or_default(),
        nodename: s("nodename")?,
        date_text,
        date: d.date,
        date_alt: d.alt,
        date_form: d.form,
        machine: s("machine"),
        cpus: h.get("number-of-cpus").and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok()),
    };
    Some(b)
}

fn set_stamp(b: &mut Builder, text: &str, line: usize, d: &mut Diags) {
    match parse_stamp_line(text) {
        Some(s) => {
            if b.out.stamp_form.is_none() {
                b.out.stamp_form = Some(match s {
                    crate::common::Stamp::Zoned(_) => "iso-zoned",
                    crate::common::Stamp::Epoch(_) => "epoch",
                    crate::common::Stamp::TimeOfDay(_) => "time-of-day",
                    crate::common::Stamp::Local(_)
                    | crate::common::Stamp::NoYear { .. }
                    | crate::common::Stamp::SinceBoot(_) => {
                        parse_date(text.split_whitespace().next().unwrap_or("")).form
                    }
                });
            }
            if let Some(r) = b.current() {
                r.stamp = Some(s);
            }
        }
        None => d.note(line, DiagKind::BadTime, text),
    }
}

/// Splits `"key": value` (the value still JSON text).
fn key_value(t: &str) -> Option<(&str, &str)> {
    let rest = t.strip_prefix('"')?;
    let end = rest.find('"')?;
    let key = &rest[..end];
    let v = rest[end + 1..].trim_start().strip_prefix(':')?.trim();
    Some((key, v))
}

/// Parses `iostat -o JSON` output.
pub fn parse_json(input: &[u8]) -> Parsed<Iostat> {
    let mut b = Builder::default();
    let mut d = Diags::default();
    let first_line = Lines::new(input).find(|l| !l.is_blank());
    let line_mode = first_line.is_some_and(|l| {
        let t = l.text();
        let t = t.trim();
        t.starts_with("{\"sysstat\"") && t.len() < 20
    });
    let n_lines = if line_mode {
        parse_lines(input, &mut b, &mut d)
    } else {
        match serde_json::from_slice::<Value>(input) {
            Ok(v) => walk(&mut b, &v, &mut d),
            Err(e) => d.skip(e.line().max(1), DiagKind::Malformed, format!("invalid JSON: {e}")),
        }
        crate::common::lines::count_lines(input)
    };
    let mut out = b.finish();
    out.json = true;
    // A garbled `timestamp` is placed by its run's series, as in the text form.
    crate::common::series::repair_runs(&mut out.reports, |r| r.run, |r| &mut r.stamp, |r| r.line, &mut d);
    d.finish(out, n_lines)
}

/// Reads the JSON of `iostat -o JSON` line by line (one object a line, as sysstat prints
/// it), so each row keeps its line number; the number of lines read.
fn parse_lines(input: &[u8], b: &mut Builder, d: &mut Diags) -> usize {
    let mut n_lines = 0;
    let mut host = Map::new();
    let mut host_line = 0usize;
    let mut stats_open = false;
    let mut disk_open = false;
    for line in Lines::new(input) {
        n_lines = line.no;
        let no = line.no;
        let text = line.text();
        let t = text.trim();
        let t = t.strip_suffix(',').unwrap_or(t).trim_end();
        if t.is_empty() {
            continue;
        }
        match t {
            "{\"sysstat\": {" | "{\"sysstat\":{" | "\"hosts\": [" | "\"hosts\":[" | "}}" | "}" => {
                continue;
            }
            "{" => {
                if stats_open {
                    b.start_report(no, None);
                } else {
                    host.clear();
                    host_line = no;
                }
                continue;
            }
            "]" => {
                if disk_open {
                    disk_open = false;
                } else if stats_open {
                    stats_open = false;
                    b.finish_report();
                }
                continue;
            }
            _ => {}
        }
        if t.starts_with("{\"disk_device\"") {
            match serde_json::from_str::<Map<String, Value>>(t) {
                Ok(m) if b.current().is_some() => match row_of(b, &m, no) {
                    Some(row) => b.push_row(row, false),
                    None => d.skip(no, DiagKind::Malformed, t),
                },
                Ok(_) => d.skip(no, DiagKind::NoHeader, t),
                Err(_) => d.skip(no, DiagKind::Truncated, t),
            }
            continue;
        }
        let Some((key, v)) = key_value(t) else {
            d.skip(no, DiagKind::Malformed, t);
            continue;
        };
        match key {
            "statistics" if v == "[" => {
                let banner = banner_of(&host);
                b.start_run(host_line, banner, false);
                stats_open = true;
            }
            "disk" if v == "[" => disk_open = true,
            "timestamp" => match serde_json::from_str::<String>(v) {
                Ok(s) => set_stamp(b, &s, no, d),
                Err(_) => d.skip(no, DiagKind::BadTime, t),
            },
            "avg-cpu" => match serde_json::from_str::<Map<String, Value>>(v) {
                Ok(m) => {
                    let cpu = cpu_of(&m);
                    if let Some(r) = b.current() {
                        r.cpu = Some(cpu);
                    }
                }
                Err(_) => d.skip(no, DiagKind::Truncated, t),
            },
            _ if !stats_open => match serde_json::from_str::<Value>(v) {
                Ok(val) => {
                    host.insert(key.to_string(), val);
                }
                Err(_) => d.skip(no, DiagKind::Malformed, t),
            },
            _ => d.skip(no, DiagKind::Malformed, t),
        }
    }
    n_lines
}

/// Walks a whole JSON document (compact files); every item gets line 1.
fn walk(b: &mut Builder, v: &Value, d: &mut Diags) {
    let hosts = v.get("sysstat").and_then(|s| s.get("hosts")).and_then(Value::as_array);
    let Some(hosts) = hosts else {
        d.skip(1, DiagKind::Malformed, "no sysstat.hosts array");
        return;
    };
    for h in hosts {
        let Some(hm) = h.as_object() else { continue };
        b.start_run(1, banner_of(hm), false);
        for st in hm.get("statistics").and_then(Value::as_array).into_iter().flatten() {
            b.start_report(1, None);
            if let Some(ts) = st.get("timestamp").and_then(Value::as_str) {
                set_stamp(b, ts, 1, d);
            }
            if let Some(c) = st.get("avg-cpu").and_then(Value::as_object) {
                let cpu = cpu_of(c);
                if let Some(r) = b.current() {
                    r.cpu = Some(cpu);
                }
            }
            for disk in st.get("disk").and_then(Value::as_array).into_iter().flatten() {
                if let Some(row) = disk.as_object().and_then(|m| row_of(b, m, 1)) {
                    b.push_row(row, false);
                }
            }
        }
    }
}

/// The `iostat_json` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Iostat;
    const ID: &'static str = "iostat_json";
    const SAMPLE: &'static str = r#"{"disk_device": "vda", "r/s": 423.89, "w/s": 1180.44, "d/s": 14.41, "f/s": 233.15, "rkB/s": 15366.56, "wkB/s": 34930.57, "util": 10.05}"#;
    const DESCRIPTION: &'static str = "sysstat iostat -o JSON (normalised like iostat text)";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let text = String::from_utf8_lossy(head);
        // The first statistics item is always within the first KiB (the banner keys take ~250 bytes).
        match crate::common::sysstat::json_kind(&text) {
            Some(crate::common::sysstat::JsonKind::Iostat) => Sniff::Yes,
            _ => Sniff::No,
        }
    }

    fn parse(input: &[u8]) -> Parsed<Iostat> {
        parse_json(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "{\"sysstat\": {\n\t\"hosts\": [\n\t\t{\n\t\t\t\"nodename\": \"vm\",\n\t\t\t\"sysname\": \"Linux\",\n\t\t\t\"release\": \"6.18.44-fc-v669\",\n\t\t\t\"machine\": \"x86_64\",\n\t\t\t\"number-of-cpus\": 2,\n\t\t\t\"date\": \"29.11.2026\",\n\t\t\t\"statistics\": [\n\t\t\t\t{\n\t\t\t\t\t\"timestamp\": \"29.11.2026 19:52:39\",\n\t\t\t\t\t\"avg-cpu\":  {\"user\": 70.60, \"nice\": 0.00, \"system\": 12.64, \"iowait\": 0.42, \"steal\": 0.08, \"idle\": 16.26},\n\t\t\t\t\t\"disk\": [\n\t\t\t\t\t\t{\"disk_device\": \"vda\", \"r/s\": 423.89, \"w/s\": 1180.44, \"wkB/s\": 34930.57, \"rrqm\": 1.70, \"util\": 10.05}\n\t\t\t\t\t]\n\t\t\t\t}\n\t\t\t]\n\t\t}\n\t]\n}}\n";

    #[test]
    fn line_mode_and_compact_agree() {
        let p = parse_json(DOC.as_bytes());
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let r = &p.value.reports[0];
        assert_eq!(r.line, 11);
        assert_eq!(r.devices[0].line, 15);
        assert_eq!(r.devices[0].m.w_bytes_s(), Some(34930.57 * 1024.0));
        assert_eq!(r.devices[0].m.rrqm_pct(), Some(1.70));
        assert_eq!(r.devices[0].m.util_pct(), Some(10.05));
        assert_eq!(r.cpu.unwrap().user(), Some(70.60));
        assert!(r.since_boot);
        assert_eq!(p.value.banner.as_ref().unwrap().cpus, Some(2));
        let v: Value = serde_json::from_str(DOC).unwrap();
        let compact = serde_json::to_string(&v).unwrap();
        let q = parse_json(compact.as_bytes());
        assert!(q.diagnostics.is_empty(), "{:?}", q.diagnostics);
        assert_eq!(q.value.reports[0].devices[0].m, r.devices[0].m);
        assert_eq!(q.value.reports[0].stamp, r.stamp);
        assert_eq!(Fmt::sniff(DOC.as_bytes()), Sniff::Yes);
        assert_eq!(Fmt::sniff(compact.as_bytes()), Sniff::Yes);
    }

    #[test]
    fn cut_anywhere_never_panics() {
        for i in 0..DOC.len() {
            let _ = parse_json(&DOC.as_bytes()[..i]);
        }
        let cut = &DOC[..DOC.find("\"rrqm\"").unwrap()];
        let p = parse_json(cut.as_bytes());
        assert_eq!(p.diagnostics.len(), 1);
        assert_eq!(p.diagnostics[0].kind, DiagKind::Truncated);
        assert_eq!(p.value.reports.len(), 1);
    }
}
