//! End-to-end tests of the report renderers on a synthetic [`Report`]: a
//! 10-minute timeline whose main device writes 150 MiB/s bursts every 31 s
//! over a 5 MiB/s baseline, a Dirty sawtooth that drops at each burst, write
//! sources, a perf flame graph, and hostile capture text (a thread named
//! `<script>alert(1)</script>`, an input path containing `<b>`) that must come
//! out escaped everywhere. A Chromium test (skipped when `chromium` is not on
//! PATH) loads the page headless, takes a screenshot and checks the DOM.

use crate::common;

use iosift::analysis::bursts::Burst;
use iosift::bundle::Problem;
use iosift::model::*;
use iosift::report::{BatchRow, terminal_summary, write_batch_index, write_report};
use iosift::table::columns::*;
use iosift::table::timeline::Series;
use iosift::table::{Cell, Timeline};
use iosift::verdict::{Actor, Actors, IssuerClass, Metric, Role, Unit};
use iosift_parsers::{DiagKind, Diagnostic};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const T0: i64 = 1_714_557_600; // 2024-05-01 10:00:00 UTC
const LEN: usize = 600;
const MIB: f64 = 1024.0 * 1024.0;
const PERIOD: usize = 31;
const HOSTILE: &str = "<script>alert(1)</script>";
const HOSTILE_ESCAPED: &str = "&lt;script&gt;alert(1)&lt;/script&gt;";

fn in_burst(i: usize) -> bool {
    i % PERIOD >= 10 && i % PERIOD < 13
}

/// The unit of a timeline column.
type ColUnit = iosift::table::columns::Unit;

fn series(unit: &str, source: &str, f: impl Fn(usize) -> Option<f64>) -> Series {
    let unit = match unit {
        "B/s" => ColUnit::BytesPerS,
        "B" => ColUnit::Bytes,
        "1/s" => ColUnit::PerS,
        "ms" => ColUnit::Ms,
        "%" => ColUnit::Pct,
        "s" => ColUnit::S,
        _ => ColUnit::One,
    };
    Series { values: (0..LEN).map(|i| Cell::new(f(i))).collect(), unit, source: source.into() }
}

fn timeline() -> Timeline {
    let mut t = Timeline::rows(T0, LEN);
    let io = "iostat-x-t.txt";
    let gap = |i: usize| (300..306).contains(&i);
    let mut put = |name: &str, s: Series| {
        t.insert(Col::parse(name).unwrap_or_else(|| panic!("{name} is no column")), s);
    };
    put(
        "dev.vda.w_bytes_s",
        series("B/s", io, |i| (!gap(i)).then(|| if in_burst(i) { 150.0 * MIB } else { 5.0 * MIB })),
    );
    put("dev.vda.r_bytes_s", series("B/s", io, |i| (!gap(i)).then_some(MIB * (1.0 + (i % 7) as f64 / 7.0))));
    put("dev.vda.w_await_ms", series("ms", io, |i| Some(if in_burst(i) { 45.0 } else { 1.5 })));
    put("dev.vda.f_await_ms", series("ms", io, |i| Some(if in_burst(i) { 20.0 } else { 0.8 })));
    put("dev.vda.aqu_sz", series("count", io, |i| Some(if in_burst(i) { 60.0 } else { 0.4 })));
    put("dev.vda.util_pct", series("%", io, |i| Some(if in_burst(i) { 99.0 } else { 7.0 })));
    put("dev.vda.f_s", series("1/s", io, |i| Some(40.0 + (i % 5) as f64)));
    // Dirty rises 4 MiB/s and drops at each burst; Writeback spikes during bursts.
    put(
        "mem.dirty_bytes",
        series("B", "meminfo", |i| Some(20.0 * MIB + 4.0 * MIB * ((i + PERIOD - 13) % PERIOD) as f64)),
    );
    put(
        "mem.writeback_bytes",
        series("B", "meminfo", |i| Some(if in_burst(i) { 90.0 * MIB } else { 0.5 * MIB })),
    );
    put(
        "cat.replication_applier.w_bytes_s",
        series("B/s", "pidstat", |i| Some(2.5 * MIB + (i % 3) as f64 * MIB)),
    );
    put("cat.replication_receiver.w_bytes_s", series("B/s", "pidstat", |_| Some(1.0 * MIB)));
    put("cat.engine_redo.w_bytes_s", series("B/s", "pidstat", |_| Some(0.3 * MIB)));
    put("binlog.trx_s", series("1/s", "binlog", |i| Some(480.0 + (i * 7 % 40) as f64)));
    put("binlog.bytes_s", series("B/s", "binlog", |i| Some(2.0 * MIB + (i * 13 % 17) as f64 * 1e4)));
    t
}

fn bursts(t: &Timeline) -> Vec<Burst> {
    let w = t.get(&Col::Dev("vda".into(), DevMetric::WBytesS)).unwrap();
    let mut out: Vec<Burst> = Vec::new();
    for (i, v) in w.iter().enumerate() {
        let Some(v) = v.get() else { continue };
        if v < 100.0 * MIB {
            continue;
        }
        match out.last_mut() {
            Some(b) if b.end + 1 == i => {
                b.end = i;
                b.total += v;
            }
            _ => out.push(Burst { start: i, end: i, peak: i, peak_value: v, total: v }),
        }
    }
    out
}

fn acf(t: &Timeline) -> Vec<f64> {
    let w: Vec<f64> = t
        .get(&Col::Dev("vda".into(), DevMetric::WBytesS))
        .unwrap()
        .iter()
        .map(|v| v.unwrap_or(5.0 * MIB))
        .collect();
    let mean = w.iter().sum::<f64>() / w.len() as f64;
    let var: f64 = w.iter().map(|x| (x - mean).powi(2)).sum();
    (0..120)
        .map(|lag| w.iter().zip(&w[lag..]).map(|(a, b)| (a - mean) * (b - mean)).sum::<f64>() / var)
        .collect()
}

fn input(path: &str, format: Option<&'static str>, skipped: usize) -> InputInfo {
    let mut variant = BTreeMap::new();
    if format.is_some() {
        variant.insert("layout", "sysstat-12".to_string());
        variant.insert("locale", "C".to_string());
    }
    InputInfo {
        path: path.into(),
        format,
        records: if format.is_some() { 600 } else { 0 },
        lines: 1210,
        skipped_lines: skipped,
        anchored_by: format.map(|_| "banner-date+time-of-day"),
        uncertainty_s: format.map(|_| 0.5),
        variant,
        diagnostics: (0..skipped)
            .map(|k| Diagnostic::new(17 + k, DiagKind::Malformed, "garbage <i>line</i> & more"))
            .collect(),
        diagnostics_total: skipped,
        note: format.is_none().then(|| "not recognised".to_string()),
    }
}

fn report() -> Report {
    let timeline = timeline();
    let bursts = bursts(&timeline);
    let mut m1 = BTreeMap::new();
    m1.insert("period_s", Metric::num(31.0, Unit::Seconds));
    m1.insert("period_confidence", Metric::num(0.93, Unit::Fraction));
    m1.insert("bursts", Metric::num(bursts.len() as f64, Unit::Count));
    m1.insert("burst_bytes_median", Metric::num(450.0 * MIB, Unit::Bytes));
    let mut m2 = BTreeMap::new();
    m2.insert("burst_bytes_median", Metric::num(450.0 * MIB, Unit::Bytes));
    m2.insert("file_pmd_mapped_kb", Metric::num(2048.0, Unit::KiB));
    m2.insert("amplification_estimate", Metric::opt(None, Unit::Ratio));
    let findings = vec![
        Finding {
            rule: "periodic_write_bursts",
            severity: Severity::Warning,
            confidence: 0.93,
            summary: "vda writes come in 450 MiB bursts every 31.0 s, near the 35 s writeback window".into(),
            window: Some(Window { start: "2024-05-01T10:00:00Z".into(), end: "2024-05-01T10:09:59Z".into() }),
            metrics: m1,
            evidence: vec![Evidence {
                file: "iostat-x-t.txt".into(),
                lines: Some([120, 180]),
                metric: "wkB/s".into(),
                value: serde_json::json!(153600.0),
                quote: Some("vda  0.00 14123.00 0.00 153600.00 <peak> & co".into()),
            }],
            remedies: vec!["Lower vm.dirty_expire_centisecs to spread writeback".into()],
            actors: Actors {
                writers: vec![Actor::measured(
                    Role::Writer,
                    "mstore-0",
                    Some(4242),
                    Some(0.97),
                    "pidstat -d",
                )],
                issuers: vec![Actor::unnamed(
                    Role::Issuer(IssuerClass::WritebackAge),
                    "meminfo",
                    "the thread is not named: no writeback/block trace (collect.sh -T)",
                )],
                bound: vec![],
            },
        },
        Finding {
            rule: "mmap_large_folio_writeback",
            severity: Severity::Critical,
            confidence: 0.8,
            summary: "Large-folio writeback of an mmap'd file".into(),
            window: None,
            metrics: m2,
            evidence: vec![Evidence {
                file: "meminfo".into(),
                lines: Some([7, 7]),
                metric: "FilePmdMapped".into(),
                value: serde_json::json!(2048),
                quote: None,
            }],
            remedies: vec!["madvise(MADV_RANDOM) on the mapping".into(), "lower read_ahead_kb".into()],
            actors: Actors::default(),
        },
    ];
    let doc = FindingsDoc {
        iosift_version: "0.1.0".into(),
        bundle: BundleInfo {
            name: "synthetic-case".into(),
            inputs: vec![
                input("iostat-x-t.txt", Some("iostat"), 0),
                input("<b>bold</b>/pidstat.txt", Some("pidstat"), 2),
                input("notes.txt", None, 0),
            ],
            problems: vec![],
        },
        clock: ClockInfo {
            timezone: "UTC".into(),
            timezone_source: "pt-stalk TS epoch vs local time".into(),
            start: Some("2024-05-01T10:00:00Z".into()),
            end: Some("2024-05-01T10:09:59Z".into()),
            bin_s: 1,
            warnings: vec!["perf aligned by matching".into()],
            perf_offset_s: Some(1_714_500_000.25),
            perf_anchored_by: Some("perf-aligned"),
        },
        findings,
        checked: vec![
            Checked {
                rule: "ext4_dioread_nolock_nodelalloc",
                outcome: "skipped",
                reason: None,
                missing: vec!["mounts".into(), "uname".into()],
            },
            Checked {
                rule: "fsync_bound_small_transactions",
                outcome: "passed",
                reason: Some("transactions average 64 KiB".into()),
                missing: vec![],
            },
        ],
        episodes: vec![],
        galera: None,
    };
    let periodicity = PeriodicityView {
        bursts,
        threshold: 60.0 * MIB,
        period_s: Some(31.0),
        confidence: Some(0.93),
        acf: acf(&timeline),
        periodogram: (5..=150)
            .map(|p| (p as f64, if p == 31 { 1.0 } else { 0.05 + 0.3 / p as f64 }))
            .collect(),
        writeback_window_s: Some((35.0, false)),
        shared_with: vec![("mem.writeback_bytes".into(), 31.0, 0.9)],
        chain: Vec::new(),
        ..PeriodicityView::of(Col::Dev("vda".into(), DevMetric::WBytesS))
    };
    let curve = |best: i64, r: f64| -> Vec<(i64, f64)> {
        (-30..=30).map(|l| (l, r * (-(((l - best) as f64) / 6.0).powi(2)).exp())).collect()
    };
    Report {
        doc,
        timeline,
        main_device: Some("vda".into()),
        periodicity: Some(periodicity),
        correlations: vec![
            Correlation {
                a: "mem.dirty_bytes".into(),
                b: "dev.vda.w_bytes_s".into(),
                label: "Dirty -> device writes".into(),
                best_lag_s: 2,
                best_r: 0.81,
                n: 590,
                curve: curve(2, 0.81),
                shuffled_r: 0.12,
            },
            Correlation {
                a: "binlog.bytes_s".into(),
                b: "dev.vda.w_bytes_s".into(),
                label: "binlog bytes -> device writes".into(),
                best_lag_s: 0,
                best_r: 0.04,
                n: 594,
                curve: curve(0, 0.04),
                shuffled_r: 0.11,
            },
        ],
        write_sources: vec![
            WriteSource {
                category: "replication_applier".into(),
                column: Col::Category("replication_applier"),
                total_bytes: 2100.0 * MIB,
                top_threads: vec![
                    ("galera_applier".into(), 4101, 1500.0 * MIB),
                    (HOSTILE.into(), 4102, 600.0 * MIB),
                ],
            },
            WriteSource {
                category: "replication_receiver".into(),
                column: Col::Category("replication_receiver"),
                total_bytes: 600.0 * MIB,
                top_threads: vec![("galera_recv-0".into(), 4099, 600.0 * MIB)],
            },
            WriteSource {
                category: "engine_redo".into(),
                column: Col::Category("engine_redo"),
                total_bytes: 180.0 * MIB,
                top_threads: vec![("ib_log_writer".into(), 4000, 180.0 * MIB)],
            },
        ],
        flames: vec![FlameInput {
            title: "perf-mysqld.script.txt: all samples".into(),
            stem: "perf-mysqld".into(),
            folded: vec![
                "mysqld;handle_connection;ha_commit_trans;MYSQL_BIN_LOG::commit;fsync 812".into(),
                "mysqld;handle_connection;dispatch_command;mysql_execute_command 300".into(),
                format!("mysqld;{HOSTILE};do_thing 5"),
            ],
            count_name: "samples".into(),
        }],
        perf_heat: Vec::new(),
        fsync_shares: vec![
            FsyncShare { comm: "connection".into(), tid: Some(5001), samples: 1200, fsync_samples: 812 },
            FsyncShare { comm: HOSTILE.into(), tid: Some(5002), samples: 100, fsync_samples: 40 },
            FsyncShare { comm: "ib_log_flush".into(), tid: None, samples: 90, fsync_samples: 60 },
        ],
        stacks: None,
        binlog: Some(BinlogView {
            file: "binlog-summary.json".into(),
            transactions: 290_000,
            mean_bytes: 4300.0,
            median_bytes: 3900.0,
            size_histogram: vec![(1024, 5000), (4096, 200_000), (16384, 80_000), (65536, 5000)],
            per_table: vec![("shop.orders".into(), 200_000), ("shop.<items>".into(), 90_000)],
            ..Default::default()
        }),
        problems: vec![Problem { name: "broken.tar.gz".into(), message: "truncated archive".into() }],
        state: Vec::new(),
        display: Default::default(),
        window_error: None,
        captures: Vec::new(),
        measures: Default::default(),
        context: Default::default(),
        shared: Default::default(),
        system: Default::default(),
        host: Default::default(),
    }
}

fn tmpdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn writes_every_file_with_valid_pngs() {
    let r = report();
    let tmp = tmpdir();
    let files = write_report(&r, tmp.path()).unwrap();
    let rel: Vec<String> =
        files.iter().map(|p| p.strip_prefix(tmp.path()).unwrap().to_string_lossy().into_owned()).collect();
    for name in [
        "device-writes",
        "write-sources",
        "dirty-writeback",
        "latency-queue",
        "autocorrelation",
        "periodogram",
        "correlations",
        "fsync-share",
        "binlog-rate",
        "binlog-sizes",
    ] {
        for ext in ["png", "svg"] {
            let f = format!("charts/{name}.{ext}");
            assert!(rel.contains(&f), "{f} missing from {rel:?}");
        }
        let png = read(&tmp.path().join(format!("charts/{name}.png")));
        assert!(png.len() > 5000, "{name}.png is {} bytes", png.len());
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{name}.png is not a PNG");
        // IHDR: width 2000 (drawn at 2x).
        assert_eq!(&png[16..20], &2000u32.to_be_bytes(), "{name}.png width");
        let svg = String::from_utf8(read(&tmp.path().join(format!("charts/{name}.svg")))).unwrap();
        assert!(svg.starts_with("<svg"), "{name}.svg");
        assert!(svg.contains("<text"), "{name}.svg has no text");
    }
    // One flame graph per process: the file's stem, then the process.
    assert!(rel.contains(&"charts/flame-perf-mysqld-mysqld.svg".to_string()), "{rel:?}");
    assert_eq!(rel.first().map(String::as_str), Some("findings.json"));
    assert_eq!(rel.last().map(String::as_str), Some("index.html"));
    let flame = String::from_utf8(read(&tmp.path().join("charts/flame-perf-mysqld-mysqld.svg"))).unwrap();
    assert!(flame.contains("MYSQL_BIN_LOG::commit"));
    assert!(!flame.contains(HOSTILE));
    // The device chart's title carries the period.
    let dev = String::from_utf8(read(&tmp.path().join("charts/device-writes.svg"))).unwrap();
    assert!(dev.contains("period 31.0 s"), "period in the chart title");
    assert!(dev.contains("10:05:00"), "UTC time labels");
}

#[test]
fn hostile_text_is_escaped_everywhere() {
    let r = report();
    let tmp = tmpdir();
    write_report(&r, tmp.path()).unwrap();
    let html = String::from_utf8(read(&tmp.path().join("index.html"))).unwrap();
    assert!(html.contains(HOSTILE_ESCAPED), "thread name shown escaped");
    // One script element: the project's own, after the content.
    assert_eq!(html.to_ascii_lowercase().matches("<script").count(), 1, "one script element in index.html");
    assert!(html.contains("<script>\n(function(){"), "the project's script");
    assert!(html.contains("&lt;b&gt;bold&lt;/b&gt;/pidstat.txt"));
    assert!(!html.contains("<b>bold"));
    assert!(html.contains("garbage &lt;i&gt;line&lt;/i&gt; &amp; more"), "diagnostic text escaped");
    assert!(html.contains("&lt;peak&gt; &amp; co"), "evidence quote escaped");
    assert!(html.contains("shop.&lt;items&gt;"));
    let svg = String::from_utf8(read(&tmp.path().join("charts/fsync-share.svg"))).unwrap();
    assert!(svg.contains(HOSTILE_ESCAPED), "thread name in the SVG chart, escaped");
    assert!(!svg.contains("<script"));
    // No external resources: every src is a data URI, no stylesheet links.
    for (i, _) in html.match_indices("src=\"") {
        assert!(html[i + 5..].starts_with("data:image/"), "external src at {i}");
    }
    assert!(!html.contains("<link"));
    // No reference that would fetch: no src, href or url() to http(s), in the page or in
    // the flame graphs' srcdoc (escaped); XML namespace names and comments are no requests.
    for pat in ["src=\"http", "href=\"http", "url(http", "src=&quot;http", "href=&quot;http", "@import"] {
        assert!(!html.contains(pat), "{pat} in index.html");
    }
    assert!(
        html.contains("Content-Security-Policy") && html.contains("default-src 'none'"),
        "no fetch allowed"
    );
}

#[test]
fn page_has_every_section_in_order() {
    let r = report();
    let tmp = tmpdir();
    write_report(&r, tmp.path()).unwrap();
    let html = String::from_utf8(read(&tmp.path().join("index.html"))).unwrap();
    let pos = |s: &str| html.find(s).unwrap_or_else(|| panic!("{s} missing"));
    let order = [
        "id=\"verdict\"",
        "id=\"system\"",
        "id=\"evidence\"",
        "id=\"checked\"",
        "id=\"timeline\"",
        "id=\"sources\"",
        "id=\"periodicity\"",
        "id=\"correlation\"",
        "id=\"perf\"",
        "id=\"binlog\"",
        "id=\"inventory\"",
    ];
    for w in order.windows(2) {
        assert!(pos(w[0]) < pos(w[1]), "{} before {}", w[0], w[1]);
    }
    // Critical finding first although the document lists the warning first.
    assert!(pos("mmap_large_folio_writeback") < pos("periodic_write_bursts"));
    // Metrics, evidence with lines, remedies.
    // Metrics formatted by their typed unit, labelled by their key.
    assert!(html.contains("<td class=\"n\">31 s</td>"), "period metric in seconds");
    assert!(html.contains("<td class=\"n\">2048 KiB</td>"), "a KiB metric");
    assert!(html.contains("<td class=\"n\">0.93</td>"), "a fraction as it is");
    assert!(html.contains("<td>period confidence</td>"), "the key with spaces");
    assert!(html.contains("120–180"));
    assert!(html.contains("madvise(MADV_RANDOM) on the mapping"));
    assert!(html.contains("missing: mounts, uname"));
    assert!(html.contains("transactions average 64 KiB"));
    // Correlation table, bursts, inventory, problems.
    assert!(html.contains("Dirty -&gt; device writes"));
    assert!(html.contains("<td class=\"n\">+2 s</td>"));
    assert!(html.contains("2024-05-01 10:00:10"), "first burst start in UTC");
    assert!(
        html.contains("<td class=\"n\">150 MiB/s</td><td class=\"n\">450 MiB</td>"),
        "burst peak and volume"
    );
    assert!(html.contains("471859200 (450 MiB)"), "byte metrics in binary units");
    assert!(html.contains("banner-date+time-of-day"));
    assert!(html.contains("not recognised"));
    assert!(html.contains("truncated archive"));
    assert!(html.contains("galera_recv-0"));
    // Time charts inline (full charts and the key chart of each finding), the others as SVG images.
    assert_eq!(html.matches("data:image/png;base64,").count(), 0);
    assert_eq!(html.matches("data:image/svg+xml;base64,").count(), 5);
    assert_eq!(
        html.matches("<div class=\"tc\" id=\"ch-").count(),
        5,
        "device, sources, dirty, latency, binlog rate"
    );
    assert_eq!(html.matches("<div class=\"tc\" id=\"key-").count(), 2, "one key chart per finding");
    // The story: when, who, how sure, what to change, in words.
    assert!(html.contains("Who wrote") && html.contains("Who issued") && html.contains("How sure"));
    assert!(html.contains("<dd>85 % (high)</dd>") || html.contains("(high)"), "confidence in words");
    // The correlation at noise level is not shown as a result.
    assert!(html.contains("not above shuffled data"), "noise-level correlation flagged");
}

#[test]
fn two_renders_are_byte_identical() {
    let r = report();
    let (a, b) = (tmpdir(), tmpdir());
    let fa = write_report(&r, a.path()).unwrap();
    let fb = write_report(&r, b.path()).unwrap();
    assert_eq!(fa.len(), fb.len());
    for (x, y) in fa.iter().zip(&fb) {
        assert_eq!(x.strip_prefix(a.path()).unwrap(), y.strip_prefix(b.path()).unwrap());
        assert!(read(x) == read(y), "{} differs between renders", x.display());
    }
}

#[test]
fn findings_json_round_trips_with_contract_keys() {
    let r = report();
    let tmp = tmpdir();
    write_report(&r, tmp.path()).unwrap();
    let text = String::from_utf8(read(&tmp.path().join("findings.json"))).unwrap();
    assert!(text.ends_with("}\n"));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["iosift_version"], "0.1.0");
    assert_eq!(v["bundle"]["name"], "synthetic-case");
    let inp = &v["bundle"]["inputs"][0];
    for k in ["path", "format", "records", "skipped_lines", "anchored_by", "uncertainty_s"] {
        assert!(inp.get(k).is_some(), "inputs[].{k}");
    }
    assert_eq!(v["bundle"]["inputs"][2]["format"], serde_json::Value::Null);
    for k in ["timezone", "timezone_source", "start", "end"] {
        assert!(v["clock"].get(k).is_some(), "clock.{k}");
    }
    let f = &v["findings"][0];
    for k in ["rule", "severity", "confidence", "summary", "window", "metrics", "evidence", "remedies"] {
        assert!(f.get(k).is_some(), "findings[].{k}");
    }
    assert_eq!(f["rule"], "periodic_write_bursts");
    assert_eq!(f["severity"], "warning");
    assert_eq!(f["metrics"]["period_s"], 31.0);
    assert_eq!(f["evidence"][0]["lines"], serde_json::json!([120, 180]));
    assert_eq!(v["findings"][1]["metrics"]["amplification_estimate"], serde_json::Value::Null);
    assert_eq!(v["checked"][0]["outcome"], "skipped");
    assert_eq!(v["checked"][0]["missing"], serde_json::json!(["mounts", "uname"]));
    // The file holds exactly the model's document.
    assert_eq!(v, serde_json::to_value(&r.doc).unwrap());
    assert!(text.starts_with("{\n  \"iosift_version\": \"0.1.0\",\n  \"bundle\""), "contract key order");
}

#[test]
fn charts_without_data_are_left_out() {
    let mut r = report();
    r.timeline = Timeline::rows(T0, LEN);
    r.periodicity = None;
    r.correlations.clear();
    r.write_sources.clear();
    r.flames.clear();
    r.fsync_shares.clear();
    r.binlog = None;
    let tmp = tmpdir();
    let files = write_report(&r, tmp.path()).unwrap();
    // findings.json, summary.md, index.html.
    assert_eq!(files.len(), 3, "{files:?}");
    let html = String::from_utf8(read(&tmp.path().join("index.html"))).unwrap();
    assert!(html.contains("No device, CPU or memory series in the capture."));
    assert!(html.contains("No perf script output in the capture."));
    assert!(!html.contains("data:image/"));
    // Only Dirty: one chart.
    let mut t = Timeline::rows(T0, LEN);
    t.insert(Col::Mem(MemMetric::DirtyBytes), series("B", "m", |i| (i % 2 == 0).then_some(i as f64 * MIB)));
    r.timeline = t;
    let tmp = tmpdir();
    let files: Vec<PathBuf> = write_report(&r, tmp.path()).unwrap();
    assert_eq!(files.len(), 5, "{files:?}");
    assert!(tmp.path().join("charts/dirty-writeback.png").exists());
}

#[test]
fn rerun_into_the_same_folder_drops_stale_charts() {
    let tmp = tmpdir();
    let dir = tmp.path().join("r");
    iosift::output::write_all(&report(), &dir).unwrap();
    std::fs::write(dir.join("charts/mine.txt"), "keep").unwrap();
    let mut r = report();
    r.binlog = None;
    r.flames.clear();
    iosift::output::write_all(&r, &dir).unwrap();
    assert!(!dir.join("charts/binlog-sizes.png").exists());
    assert!(!dir.join("charts/flame-perf-mysqld.svg").exists());
    assert!(dir.join("charts/binlog-rate.png").exists());
    assert!(dir.join("charts/mine.txt").exists(), "files iosift did not write are left alone");
}

#[test]
fn long_timelines_are_bucketed_by_maximum() {
    // Two days: 172800 s, one 2 s burst every 31 s; bucketed to at most 1500 points.
    let len = 2 * 86400;
    let mut r = report();
    let mut t = Timeline::rows(T0, len);
    t.insert(
        Col::Dev("vda".into(), DevMetric::WBytesS),
        Series {
            values: (0..len)
                .map(|i| Cell::some(if i % PERIOD < 2 { 150.0 * MIB } else { 5.0 * MIB }))
                .collect(),
            unit: ColUnit::BytesPerS,
            source: "iostat".into(),
        },
    );
    r.timeline = t;
    r.periodicity = None;
    let start = Instant::now();
    let tmp = tmpdir();
    write_report(&r, tmp.path()).unwrap();
    assert!(start.elapsed() < Duration::from_secs(60), "took {:?}", start.elapsed());
    let svg = String::from_utf8(read(&tmp.path().join("charts/device-writes.svg"))).unwrap();
    assert!(svg.contains("2024-05-01 to 2024-05-03"), "date range on the time axis");
    // Maxima keep every bucket at the burst height: no point of the writes line is at the baseline.
    let html = String::from_utf8(read(&tmp.path().join("index.html"))).unwrap();
    assert!(html.contains("Each point is the maximum of 116 s."));
    let line = svg.split("stroke=\"#1F77B4\" stroke-width=\"2\" points=\"").nth(1).unwrap();
    let ys: Vec<i32> = line
        .split('"')
        .next()
        .unwrap()
        .split_whitespace()
        .map(|p| p.split(',').nth(1).unwrap().parse().unwrap())
        .collect();
    assert!(ys.len() >= 2000, "{} points", ys.len());
    assert!(ys.iter().all(|y| *y == ys[0]), "every bucket shows the peak");
}

#[test]
fn degenerate_inputs_do_not_panic() {
    let mut r = report();
    // One-second timeline, NaN and infinite values, bursts beyond the end, empty curves.
    let mut t = Timeline::rows(i64::MAX - 10, 1);
    t.insert(
        Col::Dev("vda".into(), DevMetric::WBytesS),
        Series { values: vec![Cell::some(f64::NAN)], unit: ColUnit::BytesPerS, source: "x".into() },
    );
    t.insert(
        Col::Mem(MemMetric::DirtyBytes),
        Series { values: vec![Cell::some(f64::INFINITY)], unit: ColUnit::Bytes, source: "x".into() },
    );
    t.insert(
        Col::Binlog(BinlogMetric::TrxS),
        Series { values: vec![Cell::some(-5.0)], unit: ColUnit::PerS, source: "x".into() },
    );
    r.timeline = t;
    if let Some(p) = r.periodicity.as_mut() {
        p.acf = vec![f64::NAN, 1.0, f64::INFINITY];
        p.periodogram = vec![(0.0, 1.0), (f64::NAN, 2.0)];
        p.period_s = Some(f64::NAN);
        p.threshold = f64::NAN;
    }
    r.correlations[0].curve = vec![(0, f64::NAN), (1, f64::NAN)];
    r.fsync_shares =
        vec![FsyncShare { comm: String::new(), tid: None, samples: 0, fsync_samples: u64::MAX / 2 }];
    r.flames[0].folded = vec!["no count here".into(), String::new()];
    if let Some(b) = r.binlog.as_mut() {
        b.size_histogram = vec![(u64::MAX, 1)];
        b.mean_bytes = f64::NAN;
    }
    let tmp = tmpdir();
    write_report(&r, tmp.path()).unwrap();
    assert!(tmp.path().join("index.html").exists());
}

#[test]
fn terminal_summary_says_what_was_read_and_found() {
    let r = report();
    let s = terminal_summary(&r, Path::new("reports/synthetic-case"));
    assert!(s.contains("iosift: synthetic-case, 2024-05-01 10:00:00 to 10:09:59 UTC (600 s)"), "{s}");
    assert!(
        s.contains("read 3 files: 2 recognised (iostat 1, pidstat 1), 1 not recognised; 2 lines skipped"),
        "{s}"
    );
    let crit = s.find("  CRITICAL mmap_large_folio_writeback, confidence 80 %\n").expect("critical finding");
    let warn = s
        .find("  WARNING periodic_write_bursts, confidence 93 %\n    vda writes come in 450 MiB bursts")
        .expect("warning");
    assert!(crit < warn);
    // Whole sentences (no "…" cut), wrapped at 100 columns, one confidence per finding.
    assert!(!s.contains('…'), "{s}");
    assert!(s.lines().all(|l| l.chars().count() <= 100 || !l.trim().contains(' ')), "{s}");
    assert!(!s.contains("(confidence 0."), "{s}");
    assert!(s.contains("problem: broken.tar.gz: truncated archive"));
    assert!(s.contains("skipped (missing inputs): ext4_dioread_nolock_nodelalloc"));
    assert!(s.contains("    Change: madvise(MADV_RANDOM) on the mapping\n"), "{s}");
    assert!(s.ends_with("report: reports/synthetic-case/index.html\n"), "{s}");
}

#[test]
fn batch_overview_links_each_bundle() {
    let tmp = tmpdir();
    let rows = vec![
        BatchRow {
            bundle: "seed-000".into(),
            dir_name: "seed-000".into(),
            report: Some("seed-000/index.html".into()),
            top_rule: Some("mmap_large_folio_writeback".into()),
            severity: Some("critical".into()),
            summary: Some("bursts every 33 s".into()),
            period_s: Some(33.0),
            number: Some("period 33.0 s".into()),
            findings: 2,
            inputs: 11,
            ..Default::default()
        },
        BatchRow {
            bundle: "broken".into(),
            dir_name: "broken".into(),
            error: Some("nothing could be read".into()),
            ..Default::default()
        },
    ];
    write_batch_index(&rows, tmp.path()).unwrap();
    let html = std::fs::read_to_string(tmp.path().join("index.html")).unwrap();
    assert!(html.contains(r#"<a href="seed-000/index.html">seed-000</a>"#));
    assert!(html.contains("nothing could be read"));
    assert!(html.contains("33.0 s"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.path().join("summary.json")).unwrap()).unwrap();
    assert_eq!(v["bundles"][0]["bundle"], "broken");
    assert_eq!(v["bundles"][1]["top_rule"], "mmap_large_folio_writeback");
    assert_eq!(v["bundles"][1]["period_s"], 33.0);
}

/// Writes the sample report where a person can look at it
/// (`target/tmp/report-sample/index.html`).
#[test]
fn sample_report_for_review() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-sample");
    let _ = std::fs::remove_dir_all(&dir);
    write_report(&report(), &dir).unwrap();
    assert!(dir.join("charts/device-writes.png").exists());
}

#[test]
fn chromium_renders_the_page() {
    let Some(chromium) = common::on_path("chromium") else {
        common::support::skip("chromium not found (CI installs Debian's chromium)");
        return;
    };
    let r = report();
    let tmp = tmpdir();
    write_report(&r, tmp.path()).unwrap();
    let index = tmp.path().join("index.html");
    let url = format!("file://{}", index.display());
    let page = common::load_page(&chromium, tmp.path(), &url);
    // A blank 1280x2000 page compresses to about 14 kB; the report's first screen is well over 100 kB.
    assert!(page.png.len() > 60_000, "screenshot is {} bytes (blank?)", page.png.len());
    assert!(page.console.is_empty(), "console messages: {:?}", page.console);
    let dom = page.dom;
    assert!(dom.contains("id=\"verdict\""), "DOM not dumped: {}", &dom[..dom.len().min(500)]);
    assert!(dom.contains(HOSTILE_ESCAPED), "hostile name is text in the DOM");
    assert_eq!(
        dom.to_ascii_lowercase().matches("<script").count(),
        1,
        "only the project's script in the DOM"
    );
}

/// Driven in the page after load (appended to a copy of index.html): hovers the device
/// chart at second 11 (a 150 MiB/s burst second of the synthetic timeline), drags from
/// second 100 to 200, clicks the first legend entry, double-clicks, and writes what it saw
/// into `<pre id="test-out">` as JSON.
const DRIVER: &str = r#"<script>
(function(){
var out={};
try{
  var c=document.getElementById("ch-device-writes"),p=c.querySelector("g.panel"),ov=p.querySelector("rect.ov");
  var r=ov.getBoundingClientRect(),len=+c.dataset.len,y=r.top+r.height/2;
  function at(t){return r.left+t/len*r.width;}
  function ev(type,t){ov.dispatchEvent(new MouseEvent(type,{clientX:at(t),clientY:y,pageX:at(t),pageY:y,bubbles:true}));}
  ev("mousemove",11.5);
  out.tip=document.getElementById("tip").textContent;
  out.tipShown=document.getElementById("tip").style.display;
  out.crosshairs=[].slice.call(document.querySelectorAll("line.xh")).filter(function(l){return l.getAttribute("visibility")==="visible";}).length;
  out.panels=document.querySelectorAll("div.tc g.panel").length;
  out.before=c.dataset.range;
  out.labelsBefore=[].slice.call(c.querySelectorAll("g.xl text")).map(function(t){return t.textContent;});
  ev("mousedown",100);ev("mousemove",200);ev("mouseup",200);
  out.after=c.dataset.range;
  out.otherAfter=document.getElementById("ch-dirty-writeback").dataset.range;
  out.labelsAfter=[].slice.call(c.querySelectorAll("g.xl text")).map(function(t){return t.textContent;});
  var btn=c.querySelector("button.li");
  out.legend=btn.textContent;
  btn.click();
  out.hidden=c.querySelector('g.ser[data-k="'+btn.dataset.k+'"]').style.display;
  ev("mousemove",150.5);
  out.tipHidden=document.getElementById("tip").textContent;
  ov.dispatchEvent(new MouseEvent("dblclick",{bubbles:true}));
  out.reset=c.dataset.range;
  out.resources=performance.getEntriesByType("resource").map(function(e){return e.name;});
}catch(e){out.error=String(e&&e.stack||e);}
var pre=document.createElement("pre");pre.id="test-out";pre.textContent=JSON.stringify(out);document.body.appendChild(pre);
})();
</script>"#;

#[test]
fn chromium_page_is_interactive() {
    let Some(chromium) = common::on_path("chromium") else {
        common::support::skip("chromium not found (CI installs Debian's chromium)");
        return;
    };
    let tmp = tmpdir();
    write_report(&report(), tmp.path()).unwrap();
    let html = std::fs::read_to_string(tmp.path().join("index.html")).unwrap();
    let (page, out) = common::drive(&chromium, tmp.path(), &html, DRIVER);
    // Hover: the time of second 11 and the value of the data at that second (150 MiB/s burst).
    let tip = out["tip"].as_str().unwrap();
    assert_eq!(out["tipShown"], "block");
    assert!(tip.starts_with("10:00:11 UTC"), "{tip}");
    assert!(tip.contains("vda writes: 150 MiB/s"), "{tip}");
    // reads: 1 + (11 mod 7) / 7 MiB/s.
    assert!(tip.contains("vda reads: 1.57 MiB/s"), "{tip}");
    // One crosshair over every time panel of the page.
    let panels = out["panels"].as_u64().unwrap();
    assert!(panels >= 6, "{out}");
    assert_eq!(out["crosshairs"].as_u64(), Some(panels), "{out}");
    // Drag from 100 s to 200 s: this chart and the others zoom to it; the labels follow.
    assert_eq!(out["before"], "0.0-600.0");
    let range: Vec<f64> = out["after"].as_str().unwrap().split('-').map(|v| v.parse().unwrap()).collect();
    assert!((range[0] - 100.0).abs() < 1.5 && (range[1] - 200.0).abs() < 1.5, "{out}");
    assert_eq!(out["otherAfter"], out["after"], "time charts zoom together");
    assert_ne!(out["labelsAfter"], out["labelsBefore"]);
    assert!(out["labelsAfter"].as_array().unwrap().iter().any(|l| l == "10:02:00"), "{out}");
    // A legend click hides the series, and the tooltip no longer lists it.
    assert_eq!(out["legend"], "vda writes");
    assert_eq!(out["hidden"], "none");
    let hidden_tip = out["tipHidden"].as_str().unwrap();
    assert!(!hidden_tip.contains("vda writes") && hidden_tip.contains("vda reads"), "{hidden_tip}");
    // Double-click resets the range.
    assert_eq!(out["reset"], "0.0-600.0");
    // No request: nothing in the resource timing, and no request started for the page in
    // Chromium's network log. Chromium's own background requests (network time, component
    // updates) have the initiator "not an origin"; a request of the page has its file origin
    // ("null") or a page origin as initiator.
    assert_eq!(out["resources"], serde_json::json!([]), "resources fetched");
    let log: serde_json::Value = serde_json::from_str(&page.net_log).expect("Chromium wrote a network log");
    let page_requests: Vec<&str> = log["events"]
        .as_array()
        .expect("network log events")
        .iter()
        .filter_map(|e| {
            let p = &e["params"];
            let initiator = p["initiator"].as_str()?;
            (initiator != "not an origin").then(|| p["url"].as_str().unwrap_or("?"))
        })
        .filter(|u| !u.starts_with("file:") && !u.starts_with("data:") && !u.starts_with("about:"))
        .collect();
    assert!(page_requests.is_empty(), "requests of the page: {page_requests:?}");
}

/// The page of a real sample (MariaDB with sync_binlog=1, perf, a decoded binlog and
/// mysqladmin counters): the story, the system box and the binlog tables carry its values.
#[test]
fn sample_page_tells_the_story() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/mariadb_fsync_durable/capture"));
    let b = iosift::bundle::load(&[dir.to_path_buf()], &iosift::bundle::Limits::default()).unwrap();
    let r = iosift::analyze::analyze(&b, &iosift::pipeline::Options::default());
    let tmp = tmpdir();
    write_report(&r, tmp.path()).unwrap();
    let html = std::fs::read_to_string(tmp.path().join("index.html")).unwrap();
    let pos = |s: &str| html.find(s).unwrap_or_else(|| panic!("{s} missing"));
    // Story first: the finding, its window in words, who was in fsync, its key chart.
    assert!(pos("Commits bound by fsync of small transactions") < pos("id=\"system\""));
    assert!(html.contains("2026-11-29 21:10:19 to 21:11:19 UTC, host local time is UTC (61 s)"));
    assert!(
        html.contains("the application&#39;s own flush (fsync / msync / sync_file_range): mariadbd [23183]")
            || html
                .contains("the application's own flush (fsync / msync / sync_file_range): mariadbd [23183]"),
        "who issued, from the verdict's actors"
    );
    assert!(html.contains("id=\"key-0-mysql-status\""), "the fsync finding's key chart is the MySQL status");
    // System box: kernel, sync_binlog with its source line, the mount options.
    // Provenance on hover, not inline (issue 36).
    assert!(html.contains("<td title=\"read from system-info.txt:8\">6.18.44-fc-v669</td>"), "{html}");
    assert!(html.contains("<th>sync_binlog</th><td title=\"read from mysql-variables.tsv:556\">1</td>"));
    assert!(html.contains("rw, relatime, discard"));
    // Binlog: statement types, largest transactions, per-minute table, a labelled histogram.
    for s in ["Statement types", "Write_rows", "Largest transactions", "Per minute", "256 B to &lt; 512 B"] {
        assert!(html.contains(s), "{s} missing");
    }
    // Captions from the data: bursts over the device's busy floor with a weak period (5 s at
    // 0.23) are no period, and no single threshold is drawn for them.
    assert!(html.contains("(4 bursts, no confident period)"));
    assert!(html.contains("No period stands out: the likeliest, every 5.0 s, has confidence 0.23"));
    assert!(html.contains("so no single threshold is drawn"));
    assert!(!html.contains("Bursts repeat every"));
}

/// A loop device over the virtual disk: the system box shows the stack the device
/// resolution found, and how it is known.
#[test]
fn system_box_shows_the_device_stack() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/mx_xfs_loop_mmap_2m/capture"));
    let b = iosift::bundle::load(&[dir.to_path_buf()], &iosift::bundle::Limits::default()).unwrap();
    let r = iosift::analyze::analyze(&b, &iosift::pipeline::Options::default());
    let d = r.system.disks.iter().find(|d| d.main).expect("the most written device");
    assert_eq!(d.stack, ["loop0", "vda"]);
    assert!(d.stack_note.as_deref().is_some_and(|n| n.contains("-> vda")), "{:?}", d.stack_note);
    let tmp = tmpdir();
    write_report(&r, tmp.path()).unwrap();
    let html = std::fs::read_to_string(tmp.path().join("index.html")).unwrap();
    assert!(html.contains("<td>loop0 <b>(most written)</b></td><td>loop0 → vda"));
}

/// Control and bidirectional characters left raw in `s` (as `term::safe` defines them).
fn raw_controls(s: &str) -> Vec<char> {
    s.chars()
        .filter(|&c| {
            (c.is_control() && c != '\n' && c != '\t')
                || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect()
}

/// Issue 33: a right-to-left override (`U+202E`) and BEL from a capture (a device name in
/// iostat, a thread name in pidstat, a file name) were escaped on the terminal but raw in
/// the HTML page, the SVG charts, the diff page and the batch page. Now they are written
/// as the terminal writes them (`\u{202e}`, `\x07`). The capture is the first 30 s of
/// samples/mx_xfs_loop_mmap_2m's iostat and pidstat, renamed.
#[test]
fn overrides_and_controls_from_a_capture_are_escaped_in_pages_and_charts() {
    let tmp = tmpdir();
    let cap = tmp.path().join("cap");
    std::fs::create_dir(&cap).unwrap();
    let sample = |n: &str, stop: &str| {
        let t = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/mx_xfs_loop_mmap_2m/capture").join(n),
        )
        .unwrap();
        t[..t.find(stop).unwrap()].to_string()
    };
    let io = sample("iostat-x-t.txt", "\n2026-12-01T19:25:41").replace("\nvda ", "\nv\u{202e}da\x07 ");
    let pid = sample("pidstat-d-t-h.txt", "\n19:25:41 ").replace("|__mariadbd", "|__a\u{202e}b\x07");
    std::fs::write(cap.join("iostat\u{202e}\x07.txt"), io).unwrap();
    std::fs::write(cap.join("pidstat-d-t-h.txt"), pid).unwrap();
    let iosift = |args: &[&std::ffi::OsStr]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_iosift")).args(args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    let out = tmp.path().join("out");
    iosift(&["analyze".as_ref(), cap.as_ref(), "-q".as_ref(), "-o".as_ref(), out.as_ref()]);
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert_eq!(raw_controls(&html), Vec::<char>::new());
    for shown in ["iostat\\u{202e}\\x07.txt", "v\\u{202e}da\\x07", "a\\u{202e}b\\x07"] {
        assert!(html.contains(shown), "{shown} in index.html");
    }
    let mut svgs = 0;
    for f in std::fs::read_dir(out.join("charts")).unwrap().flatten() {
        if f.path().extension().is_some_and(|e| e == "svg") {
            let svg = std::fs::read_to_string(f.path()).unwrap();
            assert_eq!(raw_controls(&svg), Vec::<char>::new(), "{}", f.path().display());
            svgs += 1;
        }
    }
    assert!(svgs > 3, "{svgs} charts");
    let cpu = std::fs::read_to_string(out.join("charts/cpu-usage.svg")).unwrap();
    assert!(cpu.contains("iostat\\u{202e}\\x07.txt"), "the file name in the chart's title");
    // The diff page (the capture against itself).
    let d = tmp.path().join("diff");
    iosift(&["diff".as_ref(), cap.as_ref(), cap.as_ref(), "-q".as_ref(), "-o".as_ref(), d.as_ref()]);
    let page = std::fs::read_to_string(d.join("index.html")).unwrap();
    assert_eq!(raw_controls(&page), Vec::<char>::new());
    assert!(page.contains("\\u{202e}"), "the names, escaped");
    // The batch page.
    let b = tmp.path().join("batch");
    std::fs::create_dir(&b).unwrap();
    let row = BatchRow {
        bundle: "cap\u{202e}\x07".into(),
        dir_name: "cap".into(),
        summary: Some("thread a\u{202e}b\x07".into()),
        inputs: 2,
        problems: vec![Problem { name: "x\u{202e}\x07".into(), message: "empty file".into() }],
        ..Default::default()
    };
    write_batch_index(&[row], &b).unwrap();
    let page = std::fs::read_to_string(b.join("index.html")).unwrap();
    assert_eq!(raw_controls(&page), Vec::<char>::new());
    assert!(page.contains("cap\\u{202e}\\x07") && page.contains("thread a\\u{202e}b\\x07"), "{page}");
}

/// The Who rows come from the verdict's measured actors (issue 34): on a real capture of an
/// application that fsyncs a 64 MiB checkpoint every 12 s among other tenants' writes, the
/// trace's bio submitter and the page name it; without perf and trace, the page says the
/// issuer was not measured and which witnesses were missing. Every episode is in the table.
#[test]
fn who_rows_are_the_verdicts_measured_actors_or_not_measured() {
    let page = |case: &str| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(case).join("capture");
        let b = iosift::bundle::load(&[dir], &iosift::bundle::Limits::default()).unwrap();
        let r = iosift::analyze::analyze(&b, &iosift::pipeline::Options::default());
        let tmp = tmpdir();
        write_report(&r, tmp.path()).unwrap();
        (std::fs::read_to_string(tmp.path().join("index.html")).unwrap(), r.doc.episodes.len())
    };
    let (html, episodes) = page("ix_ext4_appfsync_12s");
    assert!(
        html.contains(
            "<dt>Who issued</dt><dd>the application's own flush (fsync / msync / sync_file_range): ckpt_fsync"
        ),
        "who issued, measured"
    );
    assert!(html.contains("<dt>Who wrote</dt><dd>ckpt_fsync [6379]"), "who wrote, from pidstat");
    assert!(html.contains("id=\"episodes\"") && episodes >= 5, "{episodes} episodes");
    let rows = html.split("id=\"episodes\"").nth(1).unwrap().split("</table>").next().unwrap();
    assert_eq!(rows.matches("<tr>").count(), episodes + 1, "one row per episode");
    let (html, _) = page("ix_xfs_loop_msync_20s_noperf");
    assert!(
        html.contains("<dt>Who issued</dt><dd>not measured: no perf call chains, no writeback/block trace (collect.sh -T)</dd>"),
        "who issued, not measured"
    );
}

/// Issue 36: a capture whose CPU was saturated says so above the stories (no rule reads the
/// CPU), only with at least 10 s at 90 % busy or more, iowait counted as idle.
#[test]
fn a_saturated_cpu_is_said_above_the_stories() {
    let page = |busy_s: usize, iowait: f64| {
        let mut r = report();
        r.timeline.insert(
            Col::Cpu(CpuMetric::IdlePct),
            series("%", "iostat", |i| Some(if i < busy_s { 2.0 } else { 60.0 })),
        );
        r.timeline.insert(Col::Cpu(CpuMetric::IowaitPct), series("%", "iostat", |_| Some(iowait)));
        let tmp = tmpdir();
        write_report(&r, tmp.path()).unwrap();
        String::from_utf8(read(&tmp.path().join("index.html"))).unwrap()
    };
    let hot = page(40, 0.0);
    assert!(
        hot.contains("CPU: busy (iowait counted as idle) at 90 % or more for 40 s of 600 (7 %), up to 98 %"),
        "{hot}"
    );
    assert!(!page(9, 0.0).contains("class=\"cpu\""), "9 s is not enough");
    assert!(!page(40, 10.0).contains("class=\"cpu\""), "88 % busy and 10 % iowait is not saturated");
}

/// Issue 36: the inventory is laid out in the page's width (fixed columns, long archive paths
/// and variant values wrapped anywhere), not wider than the page and cut in the PDF.
#[test]
fn the_inventory_fits_the_page() {
    let tmp = tmpdir();
    write_report(&report(), tmp.path()).unwrap();
    let html = String::from_utf8(read(&tmp.path().join("index.html"))).unwrap();
    assert!(html.contains("table.inv{table-layout:fixed;width:100%} table.inv td{overflow-wrap:anywhere}"));
    let inv = &html[html.find("<section id=\"inventory\">").unwrap()..];
    assert!(inv.contains("<table class=\"inv\"><colgroup>"), "{}", &inv[..300.min(inv.len())]);
}
