//! sar / sadf / mpstat / sa_binary on real files: the `samples/sar_mariadb`
//! capture (one `sadc -S XALL 1 120` run during the MariaDB tiny-transaction
//! load, rendered as sar text in C, de_DE, ja_JP and en_US, and as `sadf -d`,
//! `-p`, `-j`), the pt-stalk `-mpstat` files, and the field's sysstat 10 files.

use iosift_parsers::common::decode::maybe_gunzip;
use iosift_parsers::common::{Format, Stamp, Summary};
use iosift_parsers::sar::{Activity, Sar};
use iosift_parsers::{detect, sa_binary};
use std::path::PathBuf;

#[path = "support/shared.rs"]
mod support;

fn sample(rel: &str) -> Vec<u8> {
    let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../samples")).join(rel);
    let raw = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    maybe_gunzip(&raw, 1 << 30).unwrap().into_owned()
}

/// Detects and parses a sample; it must be `id` and parse without a skipped line.
fn read(rel: &str, id: &str) -> Sar {
    let bytes = sample(rel);
    let d = detect(&bytes).unwrap_or_else(|| panic!("{rel}: not recognised"));
    assert_eq!(d.format.id, id, "{rel}");
    assert_eq!(
        d.parsed.skipped_lines,
        0,
        "{rel}: {:?}",
        &d.parsed.diagnostics[..5.min(d.parsed.diagnostics.len())]
    );
    assert!(d.parsed.diagnostics.is_empty(), "{rel}: {:?}", d.parsed.diagnostics);
    match d.parsed.value {
        iosift_parsers::Data::Sar(s) | iosift_parsers::Data::Sadf(s) | iosift_parsers::Data::Mpstat(s) => s,
        other => panic!("{rel}: {other:?}"),
    }
}

/// A stamp as UTC text: sadf prints UTC, sar text the reader's local time (UTC on the capturing host).
fn utc_text(s: &Stamp) -> String {
    match s {
        Stamp::Local(n) => n.format("%Y-%m-%dT%H:%M:%S").to_string(),
        other => other.utc().unwrap().naive_utc().format("%Y-%m-%dT%H:%M:%S").to_string(),
    }
}

/// The series compared across renderings: activity, item, column.
const SERIES: &[(Activity, Option<&str>, &str)] = &[
    (Activity::Cpu, Some("all"), "%usr"),
    (Activity::Cpu, Some("all"), "%sys"),
    (Activity::Cpu, Some("all"), "%iowait"),
    (Activity::Disk, Some("vda"), "tps"),
    (Activity::Disk, Some("vda"), "wkB/s"),
    (Activity::Disk, Some("vda"), "await"),
    (Activity::Disk, Some("vda"), "%util"),
    (Activity::Paging, None, "pgpgout/s"),
    (Activity::Io, None, "bwrtn/s"),
    (Activity::Memory, None, "kbdirty"),
    (Activity::Memory, None, "kbmemused"),
    (Activity::Queue, None, "runq-sz"),
    (Activity::Swapping, None, "pswpout/s"),
    (Activity::NetDev, Some("lo"), "rxpck/s"),
];

fn series(s: &Sar, (a, item, col): (Activity, Option<&str>, &str)) -> Vec<(String, f64)> {
    s.series(a, item, col).iter().map(|(t, v)| (utc_text(t), *v)).collect()
}

#[test]
fn every_rendering_of_one_sa_file_gives_the_same_series() {
    let c = read("sar_mariadb/capture/sar_C.txt", "sar");
    let renderings = [
        ("de_DE", read("sar_mariadb/capture/sar_de_DE.txt", "sar")),
        ("ja_JP", read("sar_mariadb/capture/sar_ja_JP.txt", "sar")),
        ("en_US", read("sar_mariadb/capture/sar_en_US.txt", "sar")),
        ("sadf -d", read("sar_mariadb/capture/sadf_d.csv", "sadf")),
        ("sadf -p", read("sar_mariadb/capture/sadf_p.txt.gz", "sadf")),
        ("sadf -j", read("sar_mariadb/capture/sadf_j.json.gz", "sadf")),
        ("sadf -dh", read("sar_mariadb/capture/sadf_dh_P_ALL.csv", "sadf")),
    ];
    assert!(renderings[6].1.horizontal);
    assert!(renderings[0].1.decimal_comma);
    assert_eq!(renderings[1].1.clock, Some("cjk"));
    assert_eq!(renderings[2].1.clock, Some("12h"));
    for &spec in SERIES {
        let want = series(&c, spec);
        // sadc 1 120: 120 records, 119 one-second intervals.
        assert_eq!(want.len(), 119, "{spec:?}");
        for (name, r) in &renderings {
            assert_eq!(series(r, spec), want, "{name}: {spec:?}");
        }
    }
    // Values as printed (sar_C.txt lines 249, 372, 494, 739).
    let at = |spec, t: &str| series(&c, spec).into_iter().find(|(s, _)| s == t).map(|(_, v)| v);
    assert_eq!(at((Activity::Paging, None, "pgpgout/s"), "2026-12-01T19:14:15"), Some(50460.0));
    assert_eq!(at((Activity::Io, None, "bwrtn/s"), "2026-12-01T19:14:16"), Some(102288.0));
    assert_eq!(at((Activity::Memory, None, "kbdirty"), "2026-12-01T19:14:16"), Some(131536.0));
    assert_eq!(at((Activity::Disk, Some("vda"), "wkB/s"), "2026-12-01T19:14:14"), Some(34916.0));
    assert_eq!(c.averages, 1 + 1 + 1 + 1 + 1 + 1 + 3 + 4);
    assert!(c.rows.iter().all(|r| r.interval_s == Some(1.0)));
}

#[test]
fn human_values_read_in_their_columns_units() {
    // `sar -h` of the same binary file: sizes as absolute amounts with a binary suffix
    // (`34.1M` under `wkB/s`), percentages with `%`, one decimal. Every series equals the plain
    // rendering's to within half the printed last digit.
    let c = read("sar_mariadb/capture/sar_C.txt", "sar");
    let h = read("sar_mariadb/capture/sar_h_C.txt.gz", "sar");
    assert!(h.human && !c.human);
    for &spec in SERIES {
        let (want, got) = (series(&c, spec), series(&h, spec));
        assert_eq!(got.len(), want.len(), "{spec:?}");
        let column = spec.2;
        let kb = column.contains("kB") || column.starts_with("kb");
        for ((t, w), (u, g)) in want.iter().zip(&got) {
            assert_eq!(t, u);
            let tol = if column.starts_with('%') {
                0.0501
            } else if kb && *w != 0.0 {
                // The printed unit of a kB column's value: k, M or G.
                let k = (w.abs().max(1.0) * 1024.0).log(1024.0).floor();
                0.0501 * 1024f64.powf(k) / 1024.0
            } else {
                0.0
            };
            assert!((g - w).abs() <= tol, "{spec:?} at {t}: {g} vs {w} (tolerance {tol})");
        }
    }
    // As printed (sar_h_C.txt): vda `34.1M` wkB/s at 19:14:14 (34916.00 kB/s plain), `46.1M`
    // kbdirty at 19:14:14, `81.4%` %usr.
    let at = |spec, t: &str| series(&h, spec).into_iter().find(|(s, _)| s == t).map(|(_, v)| v);
    assert_eq!(at((Activity::Disk, Some("vda"), "wkB/s"), "2026-12-01T19:14:14"), Some(34.1 * 1024.0));
    assert_eq!(at((Activity::Memory, None, "kbdirty"), "2026-12-01T19:14:14"), Some(46.1 * 1024.0));
    assert_eq!(at((Activity::Cpu, Some("all"), "%usr"), "2026-12-01T19:14:14"), Some(81.4));
    assert_eq!(h.variant().get("human").map(String::as_str), Some("true"));
}

#[test]
fn devices_without_p_and_the_minus_a_mix() {
    let nop = read("sar_mariadb/capture/sar_d_nop_C.txt", "sar");
    let items: std::collections::BTreeSet<_> =
        nop.rows_of(Activity::Disk).filter_map(|r| r.item.clone()).collect();
    assert!(items.contains("vda"), "{items:?}");
    let c = read("sar_mariadb/capture/sar_C.txt", "sar");
    assert_eq!(
        series(&nop, (Activity::Disk, Some("vda"), "wkB/s")),
        series(&c, (Activity::Disk, Some("vda"), "wkB/s"))
    );
    let a = read("sar_mariadb/capture/sar_A_C.txt.gz", "sar");
    let acts = a.activities();
    for want in
        [Activity::Cpu, Activity::Disk, Activity::Paging, Activity::Memory, Activity::Irq, Activity::NetDev]
    {
        assert!(acts.contains(&want), "{want:?} not in {acts:?}");
    }
    assert_eq!(
        series(&a, (Activity::Memory, None, "kbdirty")),
        series(&c, (Activity::Memory, None, "kbdirty"))
    );
}

#[test]
fn several_days_concatenated() {
    let one = sample("sar_mariadb/capture/sar_C.txt");
    let text = String::from_utf8(one.clone()).unwrap();
    // The same report again as the next day's file (banner date moved by one day).
    let next = text.replacen("12/01/26", "12/02/26", 1);
    let both = format!("{text}\n{next}");
    let p = iosift_parsers::sar::Fmt::parse(both.as_bytes());
    assert_eq!(p.skipped_lines, 0);
    let s = p.value;
    assert_eq!(s.banners.len(), 2);
    let w = s.series(Activity::Disk, Some("vda"), "wkB/s");
    assert_eq!(w.len(), 238);
    assert_eq!(utc_text(&w[119].0), "2026-12-02T19:14:14");
}

#[test]
fn the_binary_file_is_recognised_with_its_version() {
    let bin = sample("sar_mariadb/capture/sa.bin.gz");
    let d = detect(&bin).expect("recognised");
    assert_eq!(d.format.id, "sa_binary");
    let h = sa_binary::header(&bin).unwrap();
    assert_eq!((h.version_text().as_str(), h.format_magic), ("12.6.1", 0x2175));
}

#[test]
fn cores_are_named_alike_in_sar_and_every_sadf_form() {
    // sar -A prints `0`, `sadf -d` `0`, `sadf -p` `cpu0`, `sadf -j` `"cpu": "0"`, `sadf -dh` `0`
    // (a repeating group after `-1`, the all-CPU item): all are core `0`.
    let a = read("sar_mariadb/capture/sar_A_C.txt.gz", "sar");
    let p = read("sar_mariadb/capture/sadf_p_P_ALL.txt.gz", "sadf");
    let h = read("sar_mariadb/capture/sadf_dh_P_ALL.csv", "sadf");
    for core in ["0", "1"] {
        for col in ["%usr", "%sys", "%soft", "%idle"] {
            let want = series(&a, (Activity::Cpu, Some(core), col));
            assert_eq!(want.len(), 119, "{core} {col}");
            assert_eq!(series(&p, (Activity::Cpu, Some(core), col)), want, "sadf -p {core} {col}");
            assert_eq!(series(&h, (Activity::Cpu, Some(core), col)), want, "sadf -dh {core} {col}");
        }
    }
    // sar_A_C.txt: `19:14:14          1     71.00      0.00     26.00 ...      3.00 ...`.
    let sys1 = series(&h, (Activity::Cpu, Some("1"), "%sys"));
    assert_eq!(sys1[0], ("2026-12-01T19:14:14".to_string(), 26.0));
    // sadf -dh splits devices from interfaces of the same width by their names.
    let items = |a| {
        let mut v: Vec<_> = h.rows_of(a).filter_map(|r| r.item.clone()).collect();
        v.sort();
        v.dedup();
        v
    };
    assert_eq!(items(Activity::Disk), ["loop0", "loop1", "vda"]);
    assert_eq!(items(Activity::NetDev), ["eth0", "ifb0", "ifb1", "lo"]);
}

#[test]
fn mpstat_json_reads_like_mpstat_text() {
    let j = read("mpstat_json/capture/mpstat_P_ALL.json", "mpstat");
    let t = read("mpstat_json/capture/mpstat_P_ALL.txt", "mpstat");
    assert_eq!(j.source, iosift_parsers::sar::Source::MpstatJson);
    assert_eq!(j.banners[0].1.nodename, "vm");
    let time = |s: &Sar, core| -> Vec<String> {
        s.series(Activity::Cpu, Some(core), "%usr")
            .iter()
            .map(|(st, _)| match st {
                Stamp::Local(t) => t.to_string(),
                other => panic!("{other:?}"),
            })
            .collect()
    };
    for core in ["all", "0", "1"] {
        // Two runs of the same five seconds (19:42:57 .. 19:43:01), each its own samples of /proc/stat.
        assert_eq!(time(&j, core), time(&t, core), "{core}");
        assert_eq!(time(&j, core).len(), 5);
        assert_eq!(time(&j, core)[0], "2026-12-05 19:42:57");
        for col in ["%usr", "%sys", "%idle"] {
            for ((_, a), (_, b)) in
                j.series(Activity::Cpu, Some(core), col).iter().zip(t.series(Activity::Cpu, Some(core), col))
            {
                assert!((a - b).abs() < 2.0, "{core} {col}: {a} vs {b}");
            }
        }
    }
    // mpstat_P_ALL.json line 15: `{"cpu": "0", "usr": 97.00, ..., "sys": 3.00, ...}`.
    assert_eq!(j.series(Activity::Cpu, Some("0"), "%usr")[0].1, 97.0);
    assert_eq!(j.series(Activity::Cpu, Some("0"), "%sys")[0].1, 3.0);
    assert!(j.rows.iter().all(|r| r.interval_s == Some(1.0)));
    // -A adds activities iosift does not read: each is named once, not silently dropped.
    let a = detect(&sample("mpstat_json/capture/mpstat_A.json")).unwrap();
    assert_eq!(a.format.id, "mpstat");
    let notes: Vec<String> = a.parsed.diagnostics.iter().map(|d| d.text.clone()).collect();
    for k in ["node-load", "sum-interrupts", "individual-interrupts", "soft-interrupts"] {
        assert_eq!(notes.iter().filter(|n| n.contains(k)).count(), 1, "{k}: {notes:?}");
    }
}

#[test]
fn sysstat_json_of_each_tool_goes_to_its_reader() {
    let cases =
        [("mpstat_json/capture/mpstat_P_ALL.json", "mpstat"), ("sar_mariadb/capture/sadf_j.json.gz", "sadf")];
    for (rel, id) in cases {
        assert_eq!(detect(&sample(rel)).unwrap().format.id, id, "{rel}");
    }
    // A sadf -j of other activities than the sample's (disk first, no CPU) is still sadf -j,
    // not iostat JSON (which also has a "disk" array).
    let sadf = String::from_utf8(sample("sar_mariadb/capture/sadf_j.json.gz")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&sadf).unwrap();
    let mut disk_only = v.clone();
    for st in disk_only["sysstat"]["hosts"][0]["statistics"].as_array_mut().unwrap() {
        let o = st.as_object_mut().unwrap();
        o.retain(|k, _| k == "timestamp" || k == "disk");
    }
    let text = serde_json::to_string_pretty(&disk_only).unwrap();
    let d = detect(text.as_bytes()).unwrap();
    assert_eq!(d.format.id, "sadf");
    assert!(d.parsed.value.summary().records() > 0);
}

#[test]
fn pt_stalk_mpstat_per_core() {
    let m = read("pt_stalk_mariadb/capture/2026_12_01_19_14_22-mpstat", "mpstat");
    let cores: std::collections::BTreeSet<_> = m.rows.iter().filter_map(|r| r.item.clone()).collect();
    assert_eq!(cores.into_iter().collect::<Vec<_>>(), ["0", "1", "all"]);
    // First sample, line 5: `19:14:24       0   71.29    0.00   28.71 ...`.
    let usr0 = m.series(Activity::Cpu, Some("0"), "%usr");
    assert_eq!(usr0.len(), 30);
    assert_eq!((utc_text(&usr0[0].0).as_str(), usr0[0].1), ("2026-12-01T19:14:24", 71.29));
    let overall = read("pt_stalk_mariadb/capture/2026_12_01_19_14_22-mpstat-overall", "mpstat");
    assert_eq!(overall.rows[0].interval_s, Some(30.0));
}

fn field(rel: &str) -> Option<Vec<u8>> {
    let rel = format!("field/{rel}");
    support::has(&rel).then(|| std::fs::read(support::path(&rel)).unwrap())
}

#[test]
fn field_sysstat_10_text_and_binary() {
    if let Some(b) = field("other/mw2q-monetdb-power-100g__sar-u.txt") {
        let d = detect(&b).expect("recognised");
        assert_eq!(d.format.id, "sar");
        let iosift_parsers::Data::Sar(s) = d.parsed.value else { panic!() };
        let u = s.series(Activity::Cpu, Some("all"), "%iowait");
        // `20:59:24        all     18.14      0.00      2.14     18.30      0.00     61.41`
        assert_eq!((utc_text(&u[1].0).as_str(), u[1].1), ("2015-11-25T20:59:24", 18.30));
        assert!(s.rows.iter().all(|r| r.interval_s == Some(60.0)));
    }
    if let Some(b) = field("other/mw2q-monetdb-power-100g__sar_raw.out") {
        let d = detect(&b).expect("recognised");
        assert_eq!(d.format.id, "sa_binary");
        assert_eq!(sa_binary::header(&b).unwrap().version_text(), "10.1.5");
    }
}

/// Issue 33: one garbled time (`01:14:20` among the `19:14:..` rows of the CPU table)
/// used to roll the rest of its table to the next day (a day more of capture); now it is
/// placed by its neighbours with a `bad_time` diagnostic on its line.
#[test]
fn a_time_that_breaks_the_series_is_placed_by_it() {
    let text = String::from_utf8(sample("sar_mariadb/capture/sar_C.txt")).unwrap();
    let clean = iosift_parsers::sar::parse_text(text.as_bytes(), iosift_parsers::sar::Source::SarText);
    let line = text.lines().position(|l| l.starts_with("19:14:20 ")).unwrap() + 1;
    let g = text.replacen("\n19:14:20 ", "\n01:14:20 ", 1);
    let p = iosift_parsers::sar::parse_text(g.as_bytes(), iosift_parsers::sar::Source::SarText);
    assert_eq!(p.value.rows, clean.value.rows);
    assert_eq!(p.diagnostics.len(), 1, "{:#?}", p.diagnostics);
    assert_eq!(p.diagnostics[0].line, line);
    assert!(p.diagnostics[0].text.ends_with("read as 19:14:20"), "{:?}", p.diagnostics[0]);
    assert_eq!(p.value.rows.last().unwrap().stamp, Stamp::Local("2026-12-01T19:16:12".parse().unwrap()));
}
