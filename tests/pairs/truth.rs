//! Each pair sample's truth.json recomputed from its raw files: the source's binary log production (the primary's
//! `PREFIX-master-status`), the replica's received and executed rates and `Seconds_Behind_Master`
//! (`PREFIX-slave-status`), the pt-heartbeat lag (`PREFIX-heartbeat`), the IO thread's writes (pidstat), the link's
//! rate (`truth/tc.txt`); the bottleneck they imply is the one the case was made for, and the clock offset is the
//! shift the copy was made with.

use super::{PAIRS, find, json, samples, text};
use std::path::Path;

/// `TS EPOCH ...` snapshots of a collect.sh series: (epoch less the side's clock offset, the lines after it).
fn records(text: &str, offset: f64) -> Vec<(f64, Vec<&str>)> {
    let mut out: Vec<(f64, Vec<&str>)> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("TS ") {
            let t: f64 = rest.split(' ').next().unwrap().parse().unwrap();
            out.push((t - offset, Vec::new()));
        } else if let Some(last) = out.last_mut() {
            last.1.push(line);
        }
    }
    out
}

fn slope(p: &[(f64, f64)]) -> f64 {
    let n = p.len() as f64;
    let (mx, my) = (p.iter().map(|x| x.0).sum::<f64>() / n, p.iter().map(|x| x.1).sum::<f64>() / n);
    let sxx: f64 = p.iter().map(|x| (x.0 - mx).powi(2)).sum();
    p.iter().map(|x| (x.0 - mx) * (x.1 - my)).sum::<f64>() / sxx
}

fn close(what: &str, got: f64, truth: &serde_json::Value) {
    let want = truth.as_f64().unwrap_or_else(|| panic!("{what}: truth.json has no number: {truth}"));
    assert!(
        (got - want).abs() <= 0.002 * want.abs() + 0.01,
        "{what}: raw files give {got}, truth.json {want}"
    );
}

/// `slave-status` rows of the default connection: (epoch, Read_Master_Log_Pos, Exec_Master_Log_Pos, SBM, file).
fn status_rows(text: &str, offset: f64) -> Vec<(f64, f64, f64, Option<i64>, String)> {
    let mut out = Vec::new();
    for (t, lines) in records(text, offset) {
        let get = |k: &str| {
            lines.iter().find_map(|l| {
                l.trim_start().strip_prefix(k).and_then(|r| r.strip_prefix(": ")).map(str::trim)
            })
        };
        let (Some(read), Some(exec)) = (get("Read_Master_Log_Pos"), get("Exec_Master_Log_Pos")) else {
            continue;
        };
        if get("Connection_name").unwrap_or("").is_empty() {
            let sbm = get("Seconds_Behind_Master").and_then(|v| v.parse().ok());
            let file = get("Master_Log_File").unwrap_or("").to_string();
            out.push((t, read.parse().unwrap(), exec.parse().unwrap(), sbm, file));
        }
    }
    out
}

/// pidstat's mean kB_wr/s of thread TID over the window, the header's date and each line's HH:MM:SS less the offset.
fn pidstat_kb_wr(text: &str, tid: &str, win: (f64, f64), offset: f64) -> f64 {
    let day =
        text.lines().next().unwrap().split('\t').map(str::trim).find(|f| f.len() == 10 && f.contains('-'));
    let day = chrono::NaiveDate::parse_from_str(day.unwrap(), "%Y-%m-%d").unwrap();
    let (mut n, mut sum) = (0.0, 0.0);
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let Ok(hms) = chrono::NaiveTime::parse_from_str(f.first().copied().unwrap_or(""), "%H:%M:%S") else {
            continue;
        };
        let t = day.and_time(hms).and_utc().timestamp() as f64 - offset;
        if f.len() == 9 && f[3] == tid && t >= win.0 && t <= win.1 {
            n += 1.0;
            sum += f[5].parse::<f64>().unwrap();
        }
    }
    assert!(n > 10.0, "pidstat has thread {tid} in {n} seconds of the window");
    sum / n
}

fn check_case(case: &str, offset: i64) {
    let dir = samples().join(case);
    let t = json(&dir.join("truth.json"));
    let off = offset as f64;
    assert_eq!(t["clock_offset_s"]["replica_minus_primary"], offset, "{case}: the true offset");
    let times: Vec<f64> = text(&dir.join("truth/load_timeline.txt"))
        .lines()
        .map(|l| l.split(' ').nth(1).unwrap().parse().unwrap())
        .collect();
    let win = (times[0] + 5.0, times[1]);
    let inwin = |x: f64| x >= win.0 && x <= win.1;
    // the source: SHOW MASTER STATUS every second
    let src: Vec<(f64, String, f64)> =
        records(&text(&find(&dir.join("capture/primary"), "-master-status")), 0.0)
            .into_iter()
            .filter_map(|(t, l)| {
                let f: Vec<&str> = l.get(1)?.split('\t').collect();
                Some((t, f[0].to_string(), f[1].parse().ok()?))
            })
            .collect();
    let file = src[0].1.clone();
    let pts: Vec<(f64, f64)> = src.iter().filter(|s| inwin(s.0) && s.1 == file).map(|s| (s.0, s.2)).collect();
    let source = slope(&pts);
    close(&format!("{case}: source bytes/s"), source, &t["source_binlog_bytes_per_s"]);
    // the replica's status series
    let rows = status_rows(&text(&find(&dir.join("capture/replica"), "-slave-status")), off);
    let w: Vec<_> = rows.iter().filter(|r| inwin(r.0) && r.4 == file).collect();
    let received = slope(&w.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>());
    let executed = slope(&w.iter().map(|r| (r.0, r.2)).collect::<Vec<_>>());
    close(&format!("{case}: received bytes/s"), received, &t["received_bytes_per_s"]);
    close(&format!("{case}: executed bytes/s"), executed, &t["executed_bytes_per_s"]);
    let sbm: Vec<i64> = rows.iter().filter_map(|r| r.3).collect();
    assert_eq!(t["seconds_behind_master"]["max"], *sbm.iter().max().unwrap(), "{case}: SBM max");
    assert_eq!(t["seconds_behind_master"]["last"], *sbm.last().unwrap(), "{case}: SBM last");
    check_heartbeat(case, &dir, &t, off);
    check_bottleneck(case, &dir, &t, (source, received, executed), win, off);
}

/// pt-heartbeat's row (the source's `ts`, server_id 1) against the replica's `server_epoch`: the last lag.
/// And the shared events carry the offset: the smallest (replica's NOW(6) - source's stamp) over the capture, read as
/// written (no correction), is the true offset plus under a second of replication delay.
fn check_heartbeat(case: &str, dir: &Path, t: &serde_json::Value, off: f64) {
    let (mut last, mut least) = (None, f64::INFINITY);
    for (_, lines) in records(&text(&find(&dir.join("capture/replica"), "-heartbeat")), off) {
        let (Some(h), Some(row)) = (lines.first(), lines.get(1)) else { continue };
        let cols: Vec<&str> = h.split('\t').collect();
        let f: Vec<&str> = row.split('\t').collect();
        let at = |name: &str| f[cols.iter().position(|c| *c == name).unwrap()];
        let ts = chrono::NaiveDateTime::parse_from_str(at("ts"), "%Y-%m-%dT%H:%M:%S%.f").unwrap().and_utc();
        let stamp = ts.timestamp() as f64 + f64::from(ts.timestamp_subsec_micros()) / 1e6;
        let raw = at("server_epoch").parse::<f64>().unwrap() - stamp;
        least = least.min(raw);
        last = Some(raw - off);
    }
    assert!(
        least - off > 0.0 && least - off < 1.0,
        "{case}: least heartbeat difference {least} s, offset {off} s"
    );
    close(
        &format!("{case}: heartbeat lag last"),
        last.expect("heartbeat rows"),
        &t["heartbeat_lag"]["lag_last_s"],
    );
}

/// The bottleneck the numbers imply (pair_truth.py's rule, recomputed) is the case's design.
fn check_bottleneck(
    case: &str,
    dir: &Path,
    t: &serde_json::Value,
    rates: (f64, f64, f64),
    win: (f64, f64),
    off: f64,
) {
    let (source, received, executed) = rates;
    assert_eq!(t["bottleneck"], t["expect_bottleneck"], "{case}: measured against designed");
    assert!(executed >= 0.8 * received, "{case}: executed {executed} keeps up with received {received}");
    let behind = received < 0.8 * source;
    match t["expect_bottleneck"].as_str() {
        Some("link") => {
            assert!(behind, "{case}: received {received} vs source {source}: the IO side is behind");
            let tc = text(&dir.join("truth/tc.txt"));
            let class = tc.lines().find(|l| l.starts_with("class htb 1:20 ")).expect("the shaped class");
            // `class htb 1:20 root prio 0 rate 800Kbit ceil 800Kbit burst 1600b cburst 1600b`
            let f: Vec<&str> = class.split_whitespace().collect();
            let rate = f[f.iter().position(|x| *x == "rate").unwrap() + 1];
            let kbit: f64 =
                rate.strip_suffix("Kbit").and_then(|k| k.parse().ok()).unwrap_or_else(|| panic!("{class}"));
            assert!(
                received >= 0.8 * kbit * 125.0 && received <= kbit * 125.0,
                "{case}: received {received} at the link's {kbit} kbit"
            );
            let amplification = io_thread_amplification(case, dir, t, received, win, off);
            assert!(amplification < 4.0, "{case}: the IO thread writes {amplification} x what it receives");
        }
        Some("replica_io_thread_flushes") => {
            assert!(behind, "{case}: received {received} vs source {source}: the IO side is behind");
            assert!(!dir.join("truth/tc.txt").exists(), "{case}: the link is not shaped");
            let amplification = io_thread_amplification(case, dir, t, received, win, off);
            assert!(
                amplification >= 4.0,
                "{case}: the IO thread writes only {amplification} x what it receives"
            );
        }
        Some("source_production") => {
            assert!(!behind, "{case}: received {received} keeps up with the source's {source}");
            assert!(!dir.join("truth/tc.txt").exists(), "{case}: the link is not shaped");
        }
        other => panic!("{case}: expect_bottleneck {other:?}"),
    }
}

/// The replica's IO thread's bytes written (pidstat) over the bytes it received, as truth.json has it.
fn io_thread_amplification(
    case: &str,
    dir: &Path,
    t: &serde_json::Value,
    received: f64,
    win: (f64, f64),
    off: f64,
) -> f64 {
    let threads = text(&dir.join("capture/replica/mysql-threads.tsv"));
    let io_tid = threads
        .lines()
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|c| c.len() == 7 && c[1] == "thread/sql/slave_io");
    let io_tid = io_tid.expect("slave_io in mysql-threads.tsv")[6].to_string();
    let kb = pidstat_kb_wr(&text(&find(&dir.join("capture/replica"), "pidstat-")), &io_tid, win, off);
    let amplification = kb * 1024.0 / received;
    close(
        &format!("{case}: IO thread written / received"),
        amplification,
        &t["io_thread_written_over_received"],
    );
    amplification
}

#[test]
fn pair_truths_match_their_raw_files() {
    for (case, offset) in PAIRS {
        check_case(case, *offset);
    }
}
