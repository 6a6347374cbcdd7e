//! `pidstat -o JSON` (sysstat 12.7.7+), FORMATS.md §2.3. The output type is the
//! same [`Pidstat`] as the text format.
//!
//! A real sample (sysstat test suite, `expected1.pidstat-At-TTASK-JSON`):
//!
//! ```text
//! {"sysstat": {
//!   "hosts": [
//!     {
//!       "nodename": "SYSSTAT.TEST",
//!       "sysname": "Linux",
//!       "release": "1.2.3-TEST",
//!       "machine": "x86_64",
//!       "number-of-cpus": 9,
//!       "date": "06/01/20",
//!       "statistics": [
//!         {
//!           "timestamp": "12:53:22",
//!           "io": [
//!             {"UID": "1000", "TGID": "7900", "TID": "", "kB_rd/s": 411.81, "kB_wr/s": 2.82, "kB_ccwr/s": 0.00, "iodelay": 253, "leader": "", "cmd": "gnome-shell"},
//!             {"UID": "1000", "TGID": "7900", "TID": "10334", "kB_rd/s": 0.01, "kB_wr/s": 0.00, "kB_ccwr/s": 0.00, "iodelay": 0, "leader": "gnome-shell", "cmd": "dconf worker"}
//! ```
//!
//! `TID: ""` is a process row; a thread row names its TGID and its `leader`. JSON keys are
//! mapped to the text column names (`usr` -> `%usr`, `cpu` -> `%CPU`, `cpu_nr` -> `CPU`,
//! `MEM` -> `%MEM`), so [`crate::pidstat::Row::get`] works the same on both. Each activity
//! array becomes one [`crate::pidstat::Table`]. The JSON has no header time, so
//! `prev_stamp` is `None`.

use super::types::{IoValues, Pidstat, Row, Table, io_rate};
use crate::common::scrub::Identifiers;
use crate::common::sysstat::{json_banner, json_time};
use crate::common::{DiagKind, Diags, Format, Parsed, Sniff, Stamp, lines::count_lines};
use serde_json::{Map, Value};

/// The parsed output (shared with the text format).
pub type Output = Pidstat;

/// Text column name of a JSON key.
fn column_name(key: &str) -> &str {
    match key {
        "usr" => "%usr",
        "system" => "%system",
        "guest" => "%guest",
        "wait" => "%wait",
        "cpu" => "%CPU",
        "cpu_nr" => "CPU",
        "MEM" => "%MEM",
        k => k,
    }
}

fn id_of(v: Option<&Value>) -> Option<u32> {
    match v? {
        Value::String(s) => s.trim().parse().ok(),
        Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
        _ => None,
    }
}

/// Parses `pidstat -o JSON` output.
pub fn parse(input: &[u8]) -> Parsed<Pidstat> {
    let lines = count_lines(input);
    let mut diags = Diags::default();
    let mut out = Pidstat::default();
    let text = String::from_utf8_lossy(input);
    // Row line numbers: sysstat prints one task object per line.
    let row_lines: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            let t = l.trim_start();
            t.starts_with("{\"") && t.contains("\"cmd\"")
        })
        .map(|(i, _)| i + 1)
        .collect();
    let root: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            let kind = if e.is_eof() { DiagKind::Truncated } else { DiagKind::Malformed };
            diags.skip(e.line().max(1), kind, format!("invalid JSON: {e}"));
            return diags.finish(out, lines);
        }
    };
    let Some(hosts) = root.pointer("/sysstat/hosts").and_then(Value::as_array) else {
        diags.skip(1, DiagKind::Malformed, "no sysstat.hosts array");
        return diags.finish(out, lines);
    };
    let mut next_line = row_lines.into_iter();
    for (run, host) in hosts.iter().enumerate() {
        let b = json_banner(host);
        if out.banner.is_none() {
            out.banner = Some(b.clone());
        }
        out.banners.push(b);
        let stats = host.get("statistics").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
        // pidstat without an interval prints one report of figures since each task started
        // (the text form shows it by equal header and row times; JSON has no header time).
        // `pidstat -o JSON I 1` prints one report too: it is kept out of the rates as well.
        let since_start = stats.len() == 1;
        for st in stats {
            let Some(obj) = st.as_object() else { continue };
            let stamp = obj.get("timestamp").and_then(Value::as_str).and_then(json_time);
            if let Some(ts) = obj.get("timestamp").and_then(Value::as_str)
                && stamp.is_none()
            {
                diags.note(0, DiagKind::BadTime, ts);
            }
            if stamp.is_some() && out.layout.time_form.is_none() {
                out.layout.time_form = Some(match stamp {
                    Some(Stamp::Epoch(_)) => "epoch",
                    _ => "hh:mm:ss",
                });
            }
            for (activity, tasks) in obj {
                let Some(tasks) = tasks.as_array() else { continue };
                let table = out.tables.len();
                let mut columns: Vec<String> = Vec::new();
                for task in tasks {
                    let line = next_line.next().unwrap_or(0);
                    let Some(t) = task.as_object() else {
                        diags.skip(line, DiagKind::Malformed, task.to_string());
                        continue;
                    };
                    let mut r = task_row(t, line, stamp, run, table);
                    r.since_boot = since_start;
                    if t.contains_key("TGID") {
                        out.layout.threads = true;
                    }
                    if r.user.is_some() {
                        out.layout.user_names = true;
                    }
                    task_values(&mut r, t, &mut columns, &mut diags);
                    if t.contains_key("kB_rd/s") {
                        out.layout.iodelay = Some(t.contains_key("iodelay"));
                    }
                    out.rows.push(r);
                }
                out.tables.push(Table { line: 0, stamp, average: false, columns: columns.into() });
                let _ = activity;
            }
        }
    }
    diags.finish(out, lines)
}

/// A row of one task object, without its activity values.
fn task_row(t: &Map<String, Value>, line: usize, stamp: Option<Stamp>, run: usize, table: usize) -> Row {
    Row {
        line,
        stamp,
        prev_stamp: None,
        since_boot: false,
        run,
        table,
        uid: id_of(t.get("UID")),
        user: t.get("USER").and_then(Value::as_str).map(str::to_string),
        tgid: id_of(t.get("TGID")).or_else(|| id_of(t.get("PID"))),
        tid: id_of(t.get("TID")),
        command: t.get("cmd").and_then(Value::as_str).unwrap_or("").into(),
        leader: t.get("leader").and_then(Value::as_str).filter(|s| !s.is_empty()).map(Into::into),
        io: IoValues::NONE,
        policy: t.get("policy").and_then(Value::as_str).map(str::to_string),
        other: Vec::new(),
    }
}

/// The activity values of one task object into its row (`columns`: the table's, by name).
fn task_values(r: &mut Row, t: &Map<String, Value>, columns: &mut Vec<String>, diags: &mut Diags) {
    for (k, v) in t {
        if matches!(k.as_str(), "UID" | "USER" | "PID" | "TGID" | "TID" | "cmd" | "leader" | "policy") {
            continue;
        }
        let Some(x) = v.as_f64() else {
            diags.note(r.line, DiagKind::BadNumber, format!("{k}: {v}"));
            continue;
        };
        let io = io_rate(x);
        match k.as_str() {
            "kB_rd/s" => r.io.0[IoValues::KB_RD_S] = io,
            "kB_wr/s" => r.io.0[IoValues::KB_WR_S] = io,
            "kB_ccwr/s" => r.io.0[IoValues::KB_CCWR_S] = io,
            "iodelay" => r.io.0[IoValues::IODELAY] = x,
            other => r.other.push((column_name(other).to_string(), x)),
        }
        if !columns.iter().any(|c| c == column_name(k)) {
            columns.push(column_name(k).to_string());
        }
    }
}

/// The `pidstat_json` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Pidstat;
    const ID: &'static str = "pidstat_json";
    const SAMPLE: &'static str = r#"{"UID": "1000", "TGID": "7900", "TID": "", "kB_rd/s": 411.81, "kB_wr/s": 2.82, "kB_ccwr/s": 0.00, "iodelay": 253, "leader": "", "cmd": "gnome-shell"}"#;
    const DESCRIPTION: &'static str = "sysstat pidstat -o JSON (12.7.7+)";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        use crate::common::sysstat::{JsonKind, json_kind};
        match json_kind(&String::from_utf8_lossy(head)) {
            Some(JsonKind::Pidstat) => Sniff::Yes,
            Some(JsonKind::Unknown) => Sniff::Unsure,
            _ => Sniff::No,
        }
    }

    fn parse(input: &[u8]) -> Parsed<Pidstat> {
        parse(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_json() {
        let j = br#"{"sysstat": {"hosts": [{"nodename": "h", "sysname": "Linux", "release": "6", "machine": "x86_64",
"number-of-cpus": 2, "date": "06/01/20", "statistics": [{"timestamp": "1591016004", "io": [
{"UID": "0", "PID": "12", "kB_rd/s": -1.00, "kB_wr/s": 2.5, "kB_ccwr/s": 0.00, "iodelay": 3, "cmd": "a b"}
]}]}]}}"#;
        let p = parse(j);
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let r = &p.value.rows[0];
        assert_eq!((r.tgid, r.tid, r.kb_rd_s(), r.kb_wr_s()), (Some(12), None, None, Some(2.5)));
        assert_eq!(r.stamp, Some(Stamp::Epoch(1591016004.0)));
        assert_eq!(r.line, 3);
        assert_eq!(Fmt::sniff(j), Sniff::Yes);
        assert!(!parse(b"{\"sysstat\": {").diagnostics.is_empty());
    }
}
