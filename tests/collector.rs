//! What observing cost (issue 41), on the real capture
//! `samples/collector_watchdog_perf_spin`: MariaDB clients that disconnect
//! during the capture make `perf record -p` spin; collect.sh's watchdog restarts
//! it as `perf record -a`. The event is in the capture and read, the note is on
//! the page, and no finding names the collector's processes. An older capture
//! without the record says its cost was not measured. And on the three-node Galera
//! capture made with `-P` system-wide from the start, every collector process of
//! every node stayed under its budget (issue 41's first "done when").

use iosift::analyze::analyze;
use iosift::bundle::{Limits, load};
use iosift::model::Report;
use iosift::pipeline::Options;
use iosift::table::Col;
use iosift::table::columns::HostMetric;
use std::path::PathBuf;

fn sample(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("samples").join(name)
}

fn analyzed(name: &str) -> Report {
    let b = load(&[sample(name).join("capture")], &Limits::default()).expect("bundle loads");
    analyze(&b, &Options::default())
}

fn truth(name: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(sample(name).join("truth.json")).expect("truth.json");
    serde_json::from_str(&text).expect("truth.json parses")
}

/// The page of a report.
fn page(r: &Report) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    iosift::report::write_report(r, dir.path()).expect("report written");
    std::fs::read_to_string(dir.path().join("index.html")).expect("index.html")
}

const CASE: &str = "collector_watchdog_perf_spin";

#[test]
fn the_watchdog_event_is_in_the_capture_and_read() {
    let (r, t) = (analyzed(CASE), truth(CASE));
    let c = r.doc.bundle.collector.as_ref().expect("the capture records the collector's cost");
    // The event, as collect.sh printed it on the terminal (truth/collect.stdout).
    let wd = &t["watchdog_terminal"];
    assert_eq!(c.events.len(), 1, "{:?}", c.events);
    let e = &c.events[0];
    assert_eq!(e.name, wd["tool"].as_str().unwrap());
    assert_eq!(e.action, wd["action"].as_str().unwrap());
    assert_eq!(u64::from(e.pid), wd["pid"].as_u64().unwrap());
    assert_eq!(e.share_pct, wd["share_pct"].as_f64().unwrap());
    assert_eq!(e.budget_pct, wd["budget_pct"].as_f64().unwrap());
    // The spin starts when the clients disconnect (their threads exit): the record samples
    // every 5 s, so the interval that shows it starts within 5 s of the disconnect.
    let disconnect = t["disconnect_epoch"].as_f64().unwrap();
    let from = c.spun_from.expect("a spin");
    assert!(
        from >= disconnect - 5.5 && from <= disconnect + 0.5,
        "spun from {from}, disconnect {disconnect}"
    );
    assert_eq!(c.spun_by.as_deref(), Some("perf-profile"));
    assert!(e.epoch > from, "the watchdog acted after the spin began");
    // perf -p's CPU in the record agrees with ps (whole seconds, truth/ps-snapshots.txt).
    let perf = c.processes.iter().find(|p| p.name == "perf-profile").expect("perf-profile's cost");
    let ps_cpu = t["perf_p"]["cpu_s_last_seen"].as_f64().unwrap();
    assert!((perf.cpu_s - ps_cpu).abs() <= 1.0, "record {} CPU s, ps {ps_cpu}", perf.cpu_s);
    // The inventory's note of the record names the event.
    let inv = r.doc.bundle.inputs.iter().find(|i| i.path == "collector-cost.txt").expect("the record");
    assert_eq!(inv.format, Some("collector_cost"));
    let note = inv.note.as_deref().unwrap_or("");
    assert!(note.contains("watchdog: perf-profile (pid 11579) restarted at 03:31:14 UTC"), "{note}");
    // The timeline: the collector's share of the machine peaks in the spin, before the restart.
    let tl = &r.timeline;
    let own = tl.get(&Col::Host(HostMetric::CollectorCpuPct)).expect("collector.cpu_pct");
    let (row, peak) = own
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.map(|v| (i, v)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .expect("values");
    let at = tl.epoch(row) as f64;
    assert!(at >= from - 1.0 && at <= e.epoch + 1.0, "peak at {at}");
    assert!(peak > 15.0, "peak {peak} % of the machine");
}

#[test]
fn the_note_is_on_the_page_and_no_finding_blames_the_workload_for_the_collector() {
    let (r, t) = (analyzed(CASE), truth(CASE));
    let c = r.doc.bundle.collector.as_ref().expect("record");
    let note = c.note.as_deref().expect("a capture-quality note");
    assert!(
        note.starts_with("Capture quality: the profiler (perf-profile) spun from 03:31:09 UTC"),
        "{note}"
    );
    let html = page(&r);
    assert!(html.contains("the profiler (perf-profile) spun from 03:31:09 UTC"), "the note on the page");
    assert!(html.contains(&format!("Collector cost: {:.1} % of the CPU", c.cpu_pct.unwrap())));
    // The collector's processes are never writers nor issuers: nothing in findings.json names them.
    let json = serde_json::to_string(&r.doc).unwrap();
    for comm in t["collector_not_writer"].as_array().unwrap() {
        let named = format!("\"comm\":\"{}\"", comm.as_str().unwrap());
        assert!(!json.contains(&named), "findings.json names {named}");
    }
    // The expected verdict holds, and no rule fires about the CPU the collector burned.
    let fired: Vec<&str> = r.doc.findings.iter().map(|f| f.rule).collect();
    for want in t["expect_fire"].as_array().unwrap() {
        assert!(fired.contains(&want.as_str().unwrap()), "{fired:?}");
    }
    for f in &r.doc.findings {
        assert!(!f.summary.to_lowercase().contains("cpu satur"), "{}", f.summary);
    }
}

#[test]
fn an_older_capture_says_its_cost_was_not_measured() {
    let r = analyzed("mariadb_fsync_durable");
    assert!(r.doc.bundle.collector.is_none());
    assert!(!serde_json::to_string(&r.doc).unwrap().contains("\"collector\""));
    assert!(page(&r).contains("Collector cost: not measured"));
}

/// The collector's budgets as `samples/collect.sh` declares them (its `BUDGETS` table:
/// `name %CPU window_s action`), so the test checks the script's own numbers.
fn budgets() -> Vec<(String, f64, f64)> {
    let script = std::fs::read_to_string(sample("collect.sh")).expect("samples/collect.sh");
    let table = script.split_once("BUDGETS='").expect("the BUDGETS table").1;
    let table = table.split_once('\'').expect("the table's end").0;
    table
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .map(|f| (f[0].to_string(), f[1].parse().expect("%CPU"), f[2].parse().expect("window")))
        .collect()
}

/// The raw `cpu` rows of a collector-cost.txt, read as awk would (split on blanks, no
/// parser): (pid, name, epoch, ticks), the ticks being utime + stime + cutime + cstime, or
/// utime + stime for the collector's own shell (`main_pid` of the header).
fn raw_cpu_rows(text: &str) -> Vec<(u32, String, f64, u64)> {
    let main = text
        .lines()
        .find_map(|l| l.strip_prefix("# clk_tck "))
        .and_then(|l| l.split_whitespace().skip_while(|w| *w != "main_pid").nth(1))
        .expect("main_pid in the header");
    text.lines()
        .filter(|l| l.starts_with("cpu "))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let t = |i: usize| f[i].parse::<u64>().expect("ticks");
            let own = if f[2] == main { 0 } else { t(7) + t(8) };
            (f[2].parse().expect("pid"), f[3].to_string(), f[1].parse().expect("epoch"), t(5) + t(6) + own)
        })
        .collect()
}

/// The largest share of one CPU (percent) a process used over any `window` seconds of its
/// rows: from each row to the first row at least `window` - 0.5 s later (the watchdog's reading).
fn max_share(rows: &[(f64, u64)], window: f64, tck: f64) -> f64 {
    let mut max: f64 = 0.0;
    for (i, (t0, k0)) in rows.iter().enumerate() {
        if let Some((t1, k1)) = rows[i + 1..].iter().find(|(t1, _)| t1 - t0 >= window - 0.5) {
            max = max.max((k1 - k0) as f64 / tck / (t1 - t0) * 100.0);
        }
    }
    max
}

/// Done-when 1 of issue 41, on the three-node Galera capture (`samples/galera_gcache_xfs`,
/// `collect.sh -P` on every node, the profile system-wide from the start): each node's own
/// record shows every collector process under the budget collect.sh gives it over every
/// window of that budget (perf: 20 % of one CPU over 10 s), no watchdog event, and the
/// parser reads the raw rows as they are written. (That iosift's page of each node carries
/// no capture-quality note is checked with the page in tests/galera.rs.)
#[test]
fn every_galera_node_kept_every_collector_under_its_budget() {
    let dir = sample("galera_gcache_xfs").join("capture");
    if !dir.is_dir() {
        eprintln!("skipped: samples/galera_gcache_xfs not in this checkout");
        return;
    }
    let budgets = budgets();
    for node in ["node1", "node2", "node3"] {
        let raw = std::fs::read(dir.join(node).join("collector-cost.txt")).expect("the node's record");
        let text = String::from_utf8_lossy(&raw);
        assert!(!text.lines().any(|l| l.starts_with("event ")), "{node}: a watchdog event");
        let p = <iosift_parsers::collector_cost::Fmt as iosift_parsers::Format>::parse(&raw);
        assert!(p.diagnostics.is_empty(), "{node}: {:?}", p.diagnostics);
        let c = p.value;
        assert!(c.events.is_empty(), "{node}: {:?}", c.events);
        // The parser's rows are the raw rows, tick for tick.
        let rows = raw_cpu_rows(&text);
        assert_eq!(rows.len(), c.rows.len(), "{node}");
        for (r, (pid, name, epoch, ticks)) in c.rows.iter().zip(&rows) {
            assert_eq!((r.pid, &r.name, r.epoch, c.own_ticks(r)), (*pid, name, *epoch, *ticks), "{node}");
        }
        let tck = c.clk_tck.expect("clk_tck") as f64;
        let mut pids: Vec<(u32, &str)> = rows.iter().map(|(p, n, _, _)| (*p, n.as_str())).collect();
        pids.sort_unstable();
        pids.dedup();
        let mut perf = Vec::new();
        for (pid, name) in pids {
            let (_, pct, window) =
                budgets.iter().find(|b| b.0 == name).unwrap_or_else(|| panic!("{name}: no budget"));
            let series: Vec<(f64, u64)> =
                rows.iter().filter(|r| r.0 == pid).map(|(_, _, e, t)| (*e, *t)).collect();
            let share = max_share(&series, *window, tck);
            assert!(
                share <= *pct,
                "{node}: {name} (pid {pid}) used {share:.1} % of one CPU over {window} s, budget {pct} %"
            );
            if name == "perf-profile" {
                let span = series.last().unwrap().0 - series[0].0;
                let whole = (series.last().unwrap().1 - series[0].1) as f64 / tck / span * 100.0;
                perf.push(format!("{share:.1} % max over {window} s, {whole:.1} % over {span:.0} s"));
            }
        }
        // The profile ran (system-wide, watched) for the whole capture on every node.
        assert_eq!(perf.len(), 1, "{node}: one perf-profile process: {perf:?}");
        eprintln!("{node}: perf-profile {}", perf[0]);
        assert!(c.machine_share_pct().is_some_and(|s| s < 3.0), "{node}: {:?}", c.machine_share_pct());
    }
}
