//! `sadf`: sysstat's data-file exporter in its three machine-readable forms,
//! read into the same tables as `sar` text ([`crate::sar::Sar`]), with the
//! column names `sar` prints, so every form gives the same series.
//!
//! Real samples (`samples/sar_mariadb/capture/`, sysstat 12.6.1, `sadf -d|-p|-j sa.bin -- -b -B -d -p ...`):
//!
//! ```text
//! # hostname;interval;timestamp;DEV;tps;rkB/s;wkB/s;dkB/s;areq-sz;aqu-sz;await;%util
//! vm;1;2026-12-01 19:14:14 UTC;vda;7514.00;0.00;34916.00;8.00;4.65;0.45;0.06;29.20
//! ```
//!
//! `sadf -p` (TAB-separated: host, interval, timestamp, item or `-`, field, value):
//!
//! ```text
//! vm\t1\t2026-12-01 19:14:14 UTC\tall\t%usr\t81.41
//! vm\t1\t2026-12-01 19:14:14 UTC\t-\tpgpgout/s\t34932.00
//! ```
//!
//! `sadf -j`:
//!
//! ```text
//! {"timestamp": {"date": "2026-12-01", "time": "19:14:14", "utc": 1, "interval": 1},
//!  "cpu-load": [{"cpu": "all", "usr": 81.41, "nice": 0.00, "sys": 17.09, ...}],
//!  "disk": [{"disk-device": "vda", "tps": 7514.0, "rkB": 0.0, "wkB": 34916.0, ..., "util-percent": 29.2}],
//!  "memory": {"memfree": 14739632, ..., "dirty": 47156, ...}, ...}
//! ```
//!
//! Time stamps are UTC (`... UTC`, `"utc": 1`) unless sadf ran with `-T`/`-t`
//! (local time, kept as [`Stamp::Local`]) or `-U` (epoch seconds). In `-d`
//! the CPU item `-1` is `all`. `LINUX-RESTART` records become restarts.

use crate::common::number::parse_f64;
use crate::common::scrub::{Ident, Identifiers};
use crate::common::sysstat::{JsonKind, json_banner, json_time};
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp};
use crate::sar::{Activity, Row, Sar, Source, Table, identify};
use chrono::{NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};
use serde_json::Value;

mod horizontal;

/// Reads a sadf time stamp: `2026-12-01 19:14:14 UTC`, `2026-12-01 19:14:14` (local), epoch seconds (`-U`).
/// With `-T` a sysstat that names the local zone prints its abbreviation (`2026-12-01 20:14:14 CET`):
/// a wall-clock time of an ambiguous zone, read as local time like the unlabelled form.
fn parse_stamp(s: &str) -> Option<Stamp> {
    let t = s.trim();
    if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        return t.parse::<f64>().ok().map(Stamp::Epoch);
    }
    let (body, utc) = match t.strip_suffix(" UTC").or_else(|| t.strip_suffix(" GMT")) {
        Some(b) => (b, true),
        None => match t.rsplit_once(' ') {
            Some((b, zone))
                if (2..=5).contains(&zone.len()) && zone.bytes().all(|c| c.is_ascii_uppercase()) =>
            {
                (b, false)
            }
            _ => (t, false),
        },
    };
    let n = NaiveDateTime::parse_from_str(body, "%Y-%m-%d %H:%M:%S").ok()?;
    Some(if utc { Stamp::Zoned(Utc.from_utc_datetime(&n).fixed_offset()) } else { Stamp::Local(n) })
}

/// The item of a `-d` / `-p` record: `-1` is the CPU `all`; `-` means none; cores are
/// named as sar and mpstat print them (`0`; `sadf -p` prints `cpu0`).
fn item_of(s: &str, activity: Activity) -> Option<String> {
    match s {
        "-" => None,
        "-1" if activity == Activity::Cpu => Some("all".to_string()),
        _ if activity == Activity::Cpu => Some(core_name(s).to_string()),
        _ => Some(s.to_string()),
    }
}

/// A core as sar and mpstat name it: `cpu0` (sadf -p) is `0`.
fn core_name(s: &str) -> &str {
    match s.strip_prefix("cpu") {
        Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => n,
        _ => s,
    }
}

/// Parses `sadf -d` output.
pub fn parse_csv(input: &[u8]) -> Parsed<Sar> {
    let mut out = Sar::new(Source::SadfCsv);
    let mut d = Diags::default();
    let mut lines = Lines::new(input);
    let mut current: Option<(usize, bool)> = None;
    let mut across: Option<Vec<horizontal::Group>> = None;
    for line in lines.by_ref() {
        let text = line.text();
        let t = text.trim_end();
        if t.trim().is_empty() {
            continue;
        }
        if let Some(h) = t.strip_prefix("# ") {
            let f: Vec<&str> = h.split(';').collect();
            if f.len() < 4 || f[0] != "hostname" {
                d.skip(line.no, DiagKind::Malformed, t);
                current = None;
                continue;
            }
            let rest = &f[3..];
            across = None;
            if horizontal::is_horizontal(rest) {
                across = Some(horizontal::groups(rest, &mut out));
                out.horizontal = true;
                current = None;
                continue;
            }
            let has_item = rest[0].bytes().all(|b| b.is_ascii_uppercase()) && rest[0].len() >= 2;
            let (item, cols) = if has_item { (Some(rest[0]), &rest[1..]) } else { (None, rest) };
            let columns: Vec<String> = cols.iter().map(|c| c.to_string()).collect();
            let activity = identify(item, &columns);
            let table = out.table_index(Table { activity, item: item.map(str::to_string), columns });
            current = Some((table, has_item));
            continue;
        }
        let f: Vec<&str> = t.split(';').collect();
        if f.len() >= 4 && f[3].starts_with("LINUX-RESTART") {
            if let Some(s) = parse_stamp(f[2]) {
                out.restarts.push((line.no, s));
            }
            continue;
        }
        if f.len() >= 4 && f[3].starts_with("COM ") {
            continue;
        }
        if let Some(groups) = &across {
            if f.len() < 4 {
                d.skip(line.no, DiagKind::FieldCount, t);
                continue;
            }
            let Some(stamp) = parse_stamp(f[2]) else {
                d.skip(line.no, DiagKind::BadTime, t);
                continue;
            };
            let pieces = match horizontal::split(groups, &f[3..]) {
                Ok(p) => p,
                Err(why) => {
                    d.skip(line.no, DiagKind::Malformed, format!("{why}: {t}"));
                    continue;
                }
            };
            out.host.get_or_insert_with(|| f[0].to_string());
            for (table, item, vals) in pieces {
                let activity = out.tables[table].activity;
                let item = item.and_then(|i| item_of(i, activity));
                let values = values_of(vals, line.no, t, &mut d);
                out.rows.push(Row { line: line.no, table, stamp, interval_s: parse_f64(f[1]), item, values });
            }
            continue;
        }
        let Some((table, has_item)) = current else {
            d.skip(line.no, DiagKind::NoHeader, t);
            continue;
        };
        let width = out.tables[table].columns.len() + 3 + usize::from(has_item);
        if f.len() != width {
            d.skip(line.no, DiagKind::FieldCount, t);
            continue;
        }
        let Some(stamp) = parse_stamp(f[2]) else {
            d.skip(line.no, DiagKind::BadTime, t);
            continue;
        };
        out.host.get_or_insert_with(|| f[0].to_string());
        let activity = out.tables[table].activity;
        let item = has_item.then(|| item_of(f[3], activity)).flatten();
        let vals = &f[3 + usize::from(has_item)..];
        let values = values_of(vals, line.no, t, &mut d);
        out.rows.push(Row { line: line.no, table, stamp, interval_s: parse_f64(f[1]), item, values });
    }
    d.finish(out, lines.line_no())
}

fn values_of(vals: &[&str], no: usize, t: &str, d: &mut Diags) -> Vec<Option<f64>> {
    vals.iter()
        .map(|v| {
            let x = parse_f64(v);
            if x.is_none() {
                d.note(no, DiagKind::BadNumber, format!("{v:?} in: {t}"));
            }
            x
        })
        .collect()
}

/// Fields that open a new record in `sadf -p` output (the first column of an activity without items).
fn opens_record(field: &str) -> bool {
    identify(None, &[field.to_string()]) != Activity::Other
}

/// A `sadf -p` record being assembled: consecutive lines of one time and item.
struct Pending {
    line: usize,
    stamp_text: String,
    stamp: Stamp,
    interval: Option<f64>,
    item: Option<String>,
    fields: Vec<(String, Option<f64>)>,
}

/// Parses `sadf -p` output.
pub fn parse_lines(input: &[u8]) -> Parsed<Sar> {
    let mut out = Sar::new(Source::SadfLines);
    let mut d = Diags::default();
    let mut lines = Lines::new(input);
    let mut pending: Option<Pending> = None;
    fn flush(out: &mut Sar, p: Option<Pending>) {
        let Some(p) = p else { return };
        let columns: Vec<String> = p.fields.iter().map(|(c, _)| c.clone()).collect();
        let item_col = p.item.as_ref().map(|_| item_column(&columns));
        let activity = identify(item_col, &columns);
        let item = p.item.and_then(|i| item_of(&i, activity));
        let table = out.table_index(Table { activity, item: item_col.map(str::to_string), columns });
        let values = p.fields.into_iter().map(|(_, v)| v).collect();
        out.rows.push(Row { line: p.line, table, stamp: p.stamp, interval_s: p.interval, item, values });
    }
    for line in lines.by_ref() {
        let text = line.text();
        let t = text.trim_end();
        if t.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = t.split('\t').collect();
        if f.len() >= 4 && f[3].starts_with("LINUX-RESTART") {
            flush(&mut out, pending.take());
            if let Some(s) = parse_stamp(f[2]) {
                out.restarts.push((line.no, s));
            }
            continue;
        }
        if f.len() != 6 {
            d.skip(line.no, DiagKind::FieldCount, t);
            continue;
        }
        let Some(stamp) = parse_stamp(f[2]) else {
            d.skip(line.no, DiagKind::BadTime, t);
            continue;
        };
        out.host.get_or_insert_with(|| f[0].to_string());
        let item = (f[3] != "-").then(|| f[3].to_string());
        let value = parse_f64(f[5]);
        if value.is_none() {
            d.note(line.no, DiagKind::BadNumber, t);
        }
        let same = pending.as_ref().is_some_and(|p| {
            p.stamp_text == f[2]
                && p.item == item
                && !p.fields.iter().any(|(c, _)| c == f[4])
                && !(item.is_none() && opens_record(f[4]))
        });
        if !same {
            flush(&mut out, pending.take());
            pending = Some(Pending {
                line: line.no,
                stamp_text: f[2].to_string(),
                stamp,
                interval: parse_f64(f[1]),
                item,
                fields: Vec::new(),
            });
        }
        if let Some(p) = pending.as_mut() {
            p.fields.push((f[4].to_string(), value));
        }
    }
    flush(&mut out, pending);
    d.finish(out, lines.line_no())
}

/// The item column of an activity with items, from its field names (`sadf -p` does not print it).
fn item_column(columns: &[String]) -> &'static str {
    let has = |c: &str| columns.iter().any(|x| x == c);
    if has("%user") || has("%usr") || has("%idle") || has("MHz") {
        "CPU"
    } else if has("rxpck/s") || has("rxerr/s") {
        "IFACE"
    } else if has("%util") || has("rd_sec/s") || has("rkB/s") {
        "DEV"
    } else if has("%fsused") || has("MBfsfree") {
        "FILESYSTEM"
    } else if has("rcvin/s") {
        "TTY"
    } else {
        "ITEM"
    }
}

/// The sar column a `sadf -j` key stands for, in one activity (`usr` -> `%usr`, `wkB` -> `wkB/s`,
/// `dirty` -> `kbdirty`, `util-percent` -> `%util`).
fn json_column(activity: Activity, key: &str) -> String {
    if let Some(k) = key.strip_suffix("-percent") {
        return match (activity, k) {
            (Activity::Memory, "memused") => "%memused".into(),
            (Activity::Memory, "commit") => "%commit".into(),
            (_, "vmeff") => "%vmeff".into(),
            _ => format!("%{k}"),
        };
    }
    match activity {
        Activity::Cpu => format!("%{key}"),
        Activity::Memory | Activity::SwapSpace | Activity::Hugepages => match key {
            "inactive" => "kbinact".into(),
            "stack" | "kstack" => "kbkstack".into(),
            _ => format!("kb{key}"),
        },
        Activity::Queue | Activity::Ktables => key.to_string(),
        Activity::Io => match key {
            "tps" | "rtps" | "wtps" | "dtps" => key.to_string(),
            _ => format!("{key}/s"),
        },
        Activity::Disk => match key {
            "tps" | "areq-sz" | "aqu-sz" | "await" | "avgrq-sz" | "avgqu-sz" | "svctm" | "r_await"
            | "w_await" => key.to_string(),
            _ => format!("{key}/s"),
        },
        Activity::Paging | Activity::Swapping | Activity::NetDev | Activity::NetEdev | Activity::Pcsw => {
            format!("{key}/s")
        }
        Activity::Irq
        | Activity::MemoryPages
        | Activity::Tty
        | Activity::Network
        | Activity::Power
        | Activity::Filesystem
        | Activity::Psi
        | Activity::Other => key.to_string(),
    }
}

/// The activity of a `sadf -j` statistics key, the key naming items in it, and the sar item column.
fn json_activity(key: &str) -> Option<(Activity, Option<(&'static str, &'static str)>)> {
    Some(match key {
        "cpu-load" | "cpu-load-all" => (Activity::Cpu, Some(("cpu", "CPU"))),
        "process-and-context-switch" => (Activity::Pcsw, None),
        "swap-pages" => (Activity::Swapping, None),
        "paging" => (Activity::Paging, None),
        "io" => (Activity::Io, None),
        "memory" => (Activity::Memory, None),
        "hugepages" => (Activity::Hugepages, None),
        "kernel" => (Activity::Ktables, None),
        "queue" => (Activity::Queue, None),
        "disk" => (Activity::Disk, Some(("disk-device", "DEV"))),
        "net-dev" => (Activity::NetDev, Some(("iface", "IFACE"))),
        "net-edev" => (Activity::NetEdev, Some(("iface", "IFACE"))),
        _ => return None,
    })
}

/// Flattens a JSON object of numbers (nested objects too: `io-reads: {rtps, bread}`) into key/value pairs.
fn flatten<'v>(v: &'v Value, out: &mut Vec<(&'v str, Option<f64>)>, skip: Option<&str>) {
    let Some(o) = v.as_object() else { return };
    for (k, x) in o {
        if Some(k.as_str()) == skip {
            continue;
        }
        match x {
            Value::Object(_) => flatten(x, out, skip),
            Value::Number(n) => out.push((k, n.as_f64())),
            _ => {}
        }
    }
}

/// Line numbers of every `"timestamp"` key, in order (JSON rows point at them).
fn timestamp_lines(input: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    for l in Lines::new(input) {
        let n = memchr::memmem::find_iter(l.bytes, b"\"timestamp\"").count();
        out.extend(std::iter::repeat_n(l.no, n));
    }
    out
}

/// The time of a `sadf -j` sample: `{"date": "2026-12-01", "time": "19:14:14", "utc": 1, "interval": 1}`.
fn json_stamp(ts: &Value) -> Option<Stamp> {
    let date = NaiveDate::parse_from_str(ts.get("date")?.as_str()?, "%Y-%m-%d").ok()?;
    let time = NaiveTime::parse_from_str(ts.get("time")?.as_str()?, "%H:%M:%S").ok()?;
    let n = date.and_time(time);
    Some(if ts.get("utc").and_then(Value::as_i64) == Some(1) {
        Stamp::Zoned(Utc.from_utc_datetime(&n).fixed_offset())
    } else {
        Stamp::Local(n)
    })
}

/// Parses `sadf -j` output.
pub fn parse_json(input: &[u8]) -> Parsed<Sar> {
    parse_json_as(input, Source::SadfJson)
}

/// Parses sysstat JSON of CPU activities: `sadf -j` ([`Source::SadfJson`]) or `mpstat -o JSON`
/// ([`Source::MpstatJson`]: the same envelope, `"timestamp": "19:42:28"` a time of day on the
/// host's `"date"`, the interval from one report to the next).
pub fn parse_json_as(input: &[u8], source: Source) -> Parsed<Sar> {
    let mut out = Sar::new(source);
    let mut d = Diags::default();
    let n_lines = crate::common::lines::count_lines(input);
    let root: Value = match serde_json::from_slice(input) {
        Ok(v) => v,
        Err(e) => {
            d.skip(e.line().max(1), DiagKind::Malformed, format!("not valid JSON: {e}"));
            return d.finish(out, n_lines);
        }
    };
    let ts_lines = timestamp_lines(input);
    let mut k = 0usize;
    let hosts = root.pointer("/sysstat/hosts").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut unread = std::collections::BTreeSet::new();
    for (h, host) in hosts.iter().enumerate() {
        if let Some(n) = host.get("nodename").and_then(Value::as_str) {
            out.host.get_or_insert_with(|| n.to_string());
        }
        // mpstat: times of day on the host's date, placed and rolled over midnight by the clock
        // sar and mpstat text use (an hour back is a daylight saving change, not a new day).
        let mut date = None;
        if source == Source::MpstatJson {
            let line = ts_lines.get(k).copied().unwrap_or(1);
            let b = json_banner(host);
            date = b.date;
            out.banners.push((line, b));
        }
        let mut clock = crate::sar::Clock::default();
        let mut prev_epoch: Option<f64> = None;
        for st in host.get("statistics").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]) {
            let line = ts_lines.get(k).copied().unwrap_or(1);
            k += 1;
            let Some(ts) = st.get("timestamp") else { continue };
            let stamp = match ts {
                Value::String(s) => json_time(s),
                _ => json_stamp(ts),
            };
            let Some(stamp) = stamp else {
                d.skip(line, DiagKind::BadTime, ts.to_string());
                continue;
            };
            let (stamp, placed) = match stamp {
                Stamp::TimeOfDay(t) => {
                    let (day, interval) = clock.place(t);
                    let d = date.and_then(|d| d.checked_add_days(chrono::Days::new(day.max(0) as u64)));
                    (d.map_or(stamp, |d| Stamp::Local(d.and_time(t))), interval)
                }
                Stamp::Epoch(e) => (stamp, prev_epoch.replace(e).map(|p| e - p).filter(|x| *x > 0.0)),
                Stamp::Zoned(_) | Stamp::Local(_) | Stamp::NoYear { .. } | Stamp::SinceBoot(_) => {
                    (stamp, None)
                }
            };
            let interval = ts.get("interval").and_then(Value::as_f64).or(placed);
            let Some(obj) = st.as_object() else { continue };
            let at = At { line, stamp, interval, host: h };
            read_activities(&mut out, obj, at, &mut unread, &mut d);
        }
        for r in host.get("restarts").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]) {
            if let Some(s) = r.get("boot").and_then(json_stamp) {
                out.restarts.push((1, s));
            }
        }
    }
    if hosts.is_empty() {
        d.skip(1, DiagKind::Malformed, "no sysstat.hosts array");
    }
    // mpstat's first report has no previous one: it gets the file's usual interval.
    out.fill_intervals();
    d.finish(out, n_lines)
}

/// Where the values of one `statistics` object are: its line, time, interval and host.
#[derive(Clone, Copy)]
struct At {
    line: usize,
    stamp: Stamp,
    interval: Option<f64>,
    host: usize,
}

/// The activities of one `statistics` object into rows of `out` (`unread`: the
/// activities already noted as not read, by host).
fn read_activities(
    out: &mut Sar,
    obj: &serde_json::Map<String, Value>,
    at: At,
    unread: &mut std::collections::BTreeSet<(usize, String)>,
    d: &mut Diags,
) {
    let At { line, stamp, interval, host: h } = at;
    for (key, v) in obj {
        if key == "timestamp" {
            continue;
        }
        // `network: {net-dev: [...], net-edev: [...]}` nests one level more.
        let groups: Vec<(&str, &Value)> = if key == "network" {
            v.as_object().map(|o| o.iter().map(|(a, b)| (a.as_str(), b)).collect()).unwrap_or_default()
        } else {
            vec![(key.as_str(), v)]
        };
        for (gk, gv) in groups {
            let Some((activity, items)) = json_activity(gk) else {
                if unread.insert((h, gk.to_string())) {
                    d.note(line, DiagKind::Unsupported, format!("activity \"{gk}\" not read"));
                }
                continue;
            };
            let entries: Vec<&Value> = match gv {
                Value::Array(a) => a.iter().collect(),
                o @ Value::Object(_) => vec![o],
                _ => continue,
            };
            for e in entries {
                let mut fields = Vec::new();
                flatten(e, &mut fields, items.map(|(k, _)| k));
                let item = items.and_then(|(ik, _)| match e.get(ik)? {
                    Value::String(s) => item_of(s, activity),
                    Value::Number(n) => item_of(&n.to_string(), activity),
                    _ => None,
                });
                let columns: Vec<String> = fields.iter().map(|(c, _)| json_column(activity, c)).collect();
                let table =
                    out.table_index(Table { activity, item: items.map(|(_, c)| c.to_string()), columns });
                let values = fields.into_iter().map(|(_, v)| v).collect();
                out.rows.push(Row { line, table, stamp, interval_s: interval, item, values });
            }
        }
    }
}

/// The `sadf` format (`-d`, `-p` and `-j`).
pub struct Fmt;

impl Format for Fmt {
    type Output = Sar;
    const ID: &'static str = "sadf";
    const SAMPLE: &'static str =
        "vm;1;2026-12-01 19:14:14 UTC;vda;7514.00;0.00;34916.00;8.00;4.65;0.45;0.06;29.20";
    const DESCRIPTION: &'static str = "sysstat sadf -d / -p output and sadf -j JSON";

    const IDENTIFIERS: Identifiers =
        Identifiers::Fields(&[("hostname", Ident::Host), ("nodename", Ident::Host)]);
    fn sniff(head: &[u8]) -> Sniff {
        let text = String::from_utf8_lossy(head);
        let t = text.trim_start();
        match crate::common::sysstat::json_kind(t) {
            Some(JsonKind::Sadf) => return Sniff::Yes,
            Some(JsonKind::Unknown) => return Sniff::Unsure,
            Some(_) => return Sniff::No,
            None => {}
        }
        if t.starts_with("# hostname;interval;timestamp;") {
            return Sniff::Yes;
        }
        let first = t.lines().next().unwrap_or("");
        let f: Vec<&str> = first.split('\t').collect();
        // `vm\t1\t2026-12-01 19:14:14 UTC\t...`; with -U, epoch seconds (ten digits): a small
        // number is not a time (pt-summary's `dentry-state | 219818\t218527\t45\t...`).
        let stamp = match parse_stamp(f.get(2).copied().unwrap_or("")) {
            Some(Stamp::Epoch(e)) => e >= 1e8,
            s => s.is_some(),
        };
        if f.len() == 6 && parse_f64(f[1]).is_some() && stamp && !f[0].contains(char::is_whitespace) {
            return Sniff::Yes;
        }
        Sniff::No
    }

    fn parse(input: &[u8]) -> Parsed<Sar> {
        let head = &input[..input.len().min(256)];
        let t = String::from_utf8_lossy(head);
        let t = t.trim_start();
        if t.starts_with('{') {
            parse_json(input)
        } else if t.starts_with("# ") {
            parse_csv(input)
        } else {
            parse_lines(input)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zone_labels_of_minus_t() {
        // Hand-written from the shape `sadf -d -T` prints where the zone has a name.
        assert!(matches!(parse_stamp("2026-12-01 20:14:14 CET"), Some(Stamp::Local(_))));
        assert!(matches!(parse_stamp("2026-12-01 19:14:14 UTC"), Some(Stamp::Zoned(_))));
        assert!(parse_stamp("2026-12-01 20:14:14 Europe/Paris").is_none());
    }

    #[test]
    fn stamps() {
        assert_eq!(parse_stamp("2026-12-01 19:14:14 UTC").unwrap().display(), "2026-12-01T19:14:14+00:00");
        assert_eq!(parse_stamp("2026-12-01 19:14:14").unwrap().display(), "2026-12-01T19:14:14");
        assert_eq!(parse_stamp("1796152454"), Some(Stamp::Epoch(1796152454.0)));
        assert!(parse_stamp("19:14:14").is_none());
    }

    #[test]
    fn csv_cpu_all_and_restart() {
        let text = "# hostname;interval;timestamp;CPU;%user;%nice;%system;%iowait;%steal;%idle\n\
vm;-1;2026-12-01 19:00:00 UTC;LINUX-RESTART\t(2 CPU)\n\
vm;60;2026-12-01 19:01:00 UTC;-1;1.00;0.00;2.00;3.00;0.00;94.00\n\
vm;60;2026-12-01 19:01:00 UTC;0;1.00;0.00;2.00;3.00;0.00\n";
        let p = parse_csv(text.as_bytes());
        assert_eq!(p.value.restarts.len(), 1);
        assert_eq!(p.value.rows.len(), 1);
        assert_eq!(p.skipped_lines, 1);
        let r = &p.value.rows[0];
        assert_eq!(r.item.as_deref(), Some("all"));
        assert_eq!(p.value.get(r, "%iowait"), Some(3.0));
        assert_eq!(r.interval_s, Some(60.0));
    }

    #[test]
    fn lines_split_records_of_itemless_activities() {
        let text = "vm\t1\t2026-12-01 19:14:14 UTC\t-\tpgpgin/s\t0.00\n\
vm\t1\t2026-12-01 19:14:14 UTC\t-\tpgpgout/s\t34932.00\n\
vm\t1\t2026-12-01 19:14:14 UTC\t-\ttps\t7518.00\n\
vm\t1\t2026-12-01 19:14:14 UTC\t-\tbwrtn/s\t69864.00\n\
vm\t1\t2026-12-01 19:14:14 UTC\tvda\ttps\t7514.00\n\
vm\t1\t2026-12-01 19:14:14 UTC\tvda\t%util\t29.20\n";
        let p = parse_lines(text.as_bytes());
        assert_eq!(p.skipped_lines, 0);
        let s = &p.value;
        assert_eq!(s.rows.len(), 3);
        assert_eq!(s.series(Activity::Paging, None, "pgpgout/s")[0].1, 34932.0);
        assert_eq!(s.series(Activity::Io, None, "bwrtn/s")[0].1, 69864.0);
        assert_eq!(s.series(Activity::Disk, Some("vda"), "%util")[0].1, 29.2);
    }

    #[test]
    fn json_keys_become_sar_columns() {
        let text = r#"{"sysstat": {"hosts": [{"nodename": "vm", "statistics": [
{"timestamp": {"date": "2026-12-01", "time": "19:14:14", "utc": 1, "interval": 1},
 "memory": {"memfree": 14739632, "dirty": 47156, "memused-percent": 9.81},
 "io": {"tps": 7518.0, "io-writes": {"wtps": 7516.0, "bwrtn": 69864.0}},
 "network": {"net-dev": [{"iface": "lo", "rxpck": 1.0, "ifutil-percent": 0.0}]},
 "disk": [{"disk-device": "vda", "wkB": 34916.0, "util-percent": 29.2}]}]}]}}"#;
        let p = parse_json(text.as_bytes());
        assert_eq!(p.skipped_lines, 0, "{:?}", p.diagnostics);
        let s = &p.value;
        assert_eq!(s.series(Activity::Memory, None, "kbdirty")[0].1, 47156.0);
        assert_eq!(s.series(Activity::Memory, None, "%memused")[0].1, 9.81);
        assert_eq!(s.series(Activity::Io, None, "bwrtn/s")[0].1, 69864.0);
        assert_eq!(s.series(Activity::NetDev, Some("lo"), "%ifutil").len(), 1);
        assert_eq!(s.series(Activity::Disk, Some("vda"), "wkB/s")[0].1, 34916.0);
        assert_eq!(s.rows[0].line, 2);
        assert!(parse_json(b"{\"sysstat\": [").skipped_lines == 1);
    }
}
