//! pidstat / pidstat_json on real files: the shared corpus, the bundles and our fixtures.

#[macro_use]
#[path = "support/shared.rs"]
mod support;

use iosift_parsers::common::{Format, Stamp};
use iosift_parsers::pidstat::json as pidstat_json;
use iosift_parsers::pidstat::{self, Pidstat, Row};
use iosift_parsers::{Summary, detect};
use std::path::{Path, PathBuf};

const FIX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/pidstat");

fn read(p: impl AsRef<Path>) -> Vec<u8> {
    std::fs::read(p.as_ref()).unwrap_or_else(|e| panic!("{}: {e}", p.as_ref().display()))
}

fn shared(rel: &str) -> Vec<u8> {
    read(support::root().join(rel))
}

fn fixture(name: &str) -> Vec<u8> {
    read(Path::new(FIX).join(name))
}

fn parse_clean(bytes: &[u8]) -> Pidstat {
    let p = pidstat::Fmt::parse(bytes);
    assert!(p.diagnostics.is_empty(), "unexpected diagnostics: {:#?}", p.diagnostics);
    p.value
}

fn tod(s: &str) -> Option<Stamp> {
    Some(Stamp::TimeOfDay(chrono::NaiveTime::parse_from_str(s, "%H:%M:%S").unwrap()))
}

fn find<'a>(rows: &'a [Row], stamp: &str, tgid: Option<u32>, tid: Option<u32>) -> &'a Row {
    rows.iter()
        .find(|r| r.stamp == tod(stamp) && r.tgid == tgid && r.tid == tid)
        .unwrap_or_else(|| panic!("no row {stamp} {tgid:?} {tid:?}"))
}

fn manifest() -> Vec<(PathBuf, String)> {
    let text = String::from_utf8(shared("corpus/MANIFEST.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut it = l.split('\t');
            Some((support::root().join("corpus").join(it.next()?), it.next()?.to_string()))
        })
        .collect()
}

fn fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(FIX)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    v.sort();
    v
}

#[test]
fn corpus_detection_and_no_diagnostics() {
    need_shared!();
    let mut problems = Vec::new();
    for (path, expected) in manifest() {
        if !path.is_file() {
            continue;
        }
        let bytes = read(&path);
        let got = detect(&bytes).map(|d| d.format.id);
        let mine = ["pidstat", "pidstat_json"];
        if mine.contains(&expected.as_str()) {
            if got != Some(expected.as_str()) {
                problems.push(format!("{}: detected {got:?}, want {expected}", path.display()));
                continue;
            }
            let d = detect(&bytes).unwrap();
            if !d.parsed.diagnostics.is_empty() {
                problems.push(format!("{}: {:#?}", path.display(), d.parsed.diagnostics));
            }
            if d.parsed.value.summary().records() == 0 && !path.to_string_lossy().contains("C-JSON") {
                problems.push(format!("{}: no records", path.display()));
            }
        } else if got.is_some_and(|g| mine.contains(&g)) && expected != "-" {
            problems.push(format!("{}: detected {got:?}, want {expected}", path.display()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn fixtures_detected_without_diagnostics() {
    for path in fixtures() {
        let bytes = read(&path);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let d = detect(&bytes).unwrap_or_else(|| panic!("{name}: not detected"));
        assert_eq!(d.format.id, "pidstat", "{name}");
        let expect_truncated = name.contains("truncated");
        let diags = &d.parsed.diagnostics;
        if expect_truncated {
            assert_eq!(diags.len(), 1, "{name}: {diags:#?}");
            assert_eq!(diags[0].kind, iosift_parsers::DiagKind::Truncated, "{name}");
        } else {
            assert!(diags.is_empty(), "{name}: {diags:#?}");
        }
        assert!(d.parsed.value.summary().records() > 0, "{name}");
    }
}

fn epoch(v: f64) -> Option<Stamp> {
    Some(Stamp::Epoch(v))
}

#[test]
fn s1_gcache_threads_steady_writes() {
    need_shared!();
    let p = parse_clean(&shared("bundles/s1_mmap_writeback/pidstat-d-t-h.txt"));
    assert!(p.layout.one_line && p.layout.threads);
    assert_eq!(p.banner.as_ref().unwrap().nodename, "vm");
    // `19:37:31        0         -     15574      0.00   1996.00      0.00       0  |__gcache-w0`
    let r = find(&p.rows, "19:37:31", Some(15545), Some(15574));
    assert_eq!(&*r.command, "gcache-w0");
    assert_eq!(r.kb_wr_s(), Some(1996.0));
    assert_eq!(r.prev_stamp, None, "-h has no header time");
    assert!(r.is_thread());
    // Steady ~1.8-2.0 MB/s (TRUTH.md): every full second of the run.
    let w0: Vec<f64> = p.rows.iter().filter(|r| r.tid == Some(15574)).filter_map(|r| r.kb_wr_s()).collect();
    assert!(w0.len() > 200, "{}", w0.len());
    let steady = w0.iter().filter(|v| (1700.0..=2100.0).contains(*v)).count();
    assert!(steady as f64 > 0.9 * w0.len() as f64, "{steady} of {}", w0.len());
    // `19:38:03        0     11414         -     20.00     76.00      0.00       0  kworker/u8:3+flush-254:0`
    let k = find(&p.rows, "19:38:03", Some(11414), None);
    assert_eq!((&*k.command, k.kb_rd_s(), k.kb_wr_s()), ("kworker/u8:3+flush-254:0", Some(20.0), Some(76.0)));
    assert!(!k.is_thread());
    let g = find(&p.rows, "19:38:03", Some(15545), None);
    assert_eq!(g.kb_wr_s(), Some(3560.0));
    assert!(p.averages.is_empty(), "-h prints no Average block");
}

#[test]
fn s1_pidstat_d_default_layout() {
    need_shared!();
    let p = parse_clean(&shared("bundles/s1_mmap_writeback/pidstat-d.txt"));
    assert!(!p.layout.threads && !p.layout.one_line);
    assert_eq!(p.layout.iodelay, Some(true));
    let g: Vec<&Row> = p.rows.iter().filter(|r| r.tgid == Some(15545)).collect();
    assert!(g.len() > 200);
    for r in &g {
        assert_eq!(&*r.command, "gcache_sim");
        assert!(r.prev_stamp.is_some() && r.stamp.is_some() && r.prev_stamp != r.stamp);
        assert_eq!(r.tid, None);
    }
    assert!(!p.averages.is_empty());
    assert_eq!(p.layout.average_label.as_deref(), Some("Average:"));
}

/// s4: the same 30 s printed under C, ISO, de_DE and en_US give the same numbers.
#[test]
fn s4_locale_variants_agree() {
    need_shared!();
    let load = |f: &str| parse_clean(&shared(&format!("bundles/s4_locale_variants/{f}")));
    let c = load("pidstat-d.C.txt");
    let variants = [load("pidstat-d.ISO.txt"), load("pidstat-d.de_DE.txt"), load("pidstat-d.en_US.txt")];
    assert!(variants[1].layout.decimal_comma && !variants[0].layout.decimal_comma);
    assert_eq!(variants[1].layout.average_label.as_deref(), Some("Durchschn.:"));
    assert_eq!(variants[2].layout.time_form, Some("12h"));
    assert_eq!(variants[1].banner.as_ref().unwrap().date_text, "29.11.2026");
    let key = |r: &Row| (format!("{:?}", r.stamp), r.tgid);
    for v in &variants {
        // `19:52:48        0      2016      0,00 524292,00      0,00       0  s4.sh` in every variant.
        let r = find(&v.rows, "19:52:48", Some(2016), None);
        assert_eq!((r.kb_wr_s(), &*r.command), (Some(524292.0), "s4.sh"));
        assert_eq!(r.prev_stamp, tod("19:52:47"));
        // Rows of the same second and PID agree (the tools read /proc a few ms apart).
        let mut common = 0;
        let mut agree = 0;
        for a in &c.rows {
            if let Some(b) = v.rows.iter().find(|b| key(b) == key(a)) {
                common += 1;
                let (x, y) = (a.kb_wr_s().unwrap(), b.kb_wr_s().unwrap());
                if (x - y).abs() <= (0.02 * x).max(16.0) && a.command == b.command {
                    agree += 1;
                }
            }
        }
        assert!(common >= 95 && agree + 2 >= common, "{common} common, {agree} agree");
        // cargo 31837 in the average block: `Durchschn.:  0  31837  46,32  2453,24  813,04  0  cargo`
        let a = v.averages.iter().find(|r| r.tgid == Some(31837)).unwrap();
        let ca = c.averages.iter().find(|r| r.tgid == Some(31837)).unwrap();
        assert!((a.kb_wr_s().unwrap() - ca.kb_wr_s().unwrap()).abs() < 0.02 * ca.kb_wr_s().unwrap());
    }
    let de = &variants[1];
    let a = de.averages.iter().find(|r| r.tgid == Some(31837)).unwrap();
    assert_eq!(
        (a.kb_rd_s(), a.kb_wr_s(), a.kb_ccwr_s(), a.iodelay()),
        (Some(46.32), Some(2453.24), Some(813.04), Some(0.0))
    );
    // -t -h variants: thread names with spaces, decimal comma.
    let th = load("pidstat-d-t-h.de_DE.txt");
    let iso = load("pidstat-d-t-h.ISO.txt");
    // `19:52:40        0         -      2011      0,00     15,24      0,00       0  |__lto cgu.01`
    let r = find(&th.rows, "19:52:40", Some(1658), Some(2011));
    assert_eq!((&*r.command, r.kb_wr_s()), ("lto cgu.01", Some(15.24)));
    let a = find(&th.rows, "19:52:43", Some(2285), None);
    let b = find(&iso.rows, "19:52:43", Some(2285), None);
    assert_eq!(a.kb_wr_s(), Some(416.0));
    assert!((a.kb_wr_s().unwrap() - b.kb_wr_s().unwrap()).abs() < 20.0);
}

#[test]
fn fixture_locales() {
    // de_DE: `20:56:11        0     12446      0,00   2457,60 …` style rows and `Durchschn.:`.
    let de = parse_clean(&fixture("de_DE_d.txt"));
    assert!(de.layout.decimal_comma);
    assert_eq!(de.rows.len(), 6);
    assert_eq!(de.averages.len(), 2);
    let fr = parse_clean(&fixture("fr_FR_d.txt"));
    // `20:56:11        0     12446      0,00   3357,38      0,00       0  load.sh`
    let r = find(&fr.rows, "20:56:11", Some(12446), None);
    assert_eq!(r.kb_wr_s(), Some(3357.38));
    // `Moyenne :     0     12447      0,00   1896,30      0,00       0  thrload` (U+202F before the colon)
    let a = fr.averages.iter().find(|r| r.tgid == Some(12447)).unwrap();
    assert_eq!((a.kb_wr_s(), &*a.command), (Some(1896.30), "thrload"));
    assert_eq!(fr.banner.as_ref().unwrap().date_text, "29/11/2026");
    // ja: `20時56分12秒     0     12447      0.00   1792.00      0.00       0  thrload`, `平均値:`
    let ja = parse_clean(&fixture("ja_JP_d.txt"));
    assert_eq!(ja.layout.time_form, Some("cjk"));
    assert_eq!(find(&ja.rows, "20:56:12", Some(12447), None).kb_wr_s(), Some(1792.0));
    assert_eq!(find(&ja.rows, "20:56:12", Some(12447), None).prev_stamp, tod("20:56:11"));
    assert_eq!(ja.layout.average_label.as_deref(), Some("平均値:"));
    assert_eq!(ja.averages[0].kb_wr_s(), Some(2835.69));
    // ko: `20시 56분 11초     0     12446      0.00   2418.90      0.00       0  load.sh`, `평균값:`
    let ko = parse_clean(&fixture("ko_KR_d.txt"));
    assert_eq!(ko.layout.time_form, Some("korean"));
    assert_eq!(find(&ko.rows, "20:56:11", Some(12446), None).kb_wr_s(), Some(2418.90));
    assert_eq!(ko.averages[1].kb_wr_s(), Some(1800.61));
    // en_US -t: `08:56:21 PM     0         -     12497      0.00    768.00      0.00       0  |__wr thread 0`
    let en = parse_clean(&fixture("en_US_dt.txt"));
    let r = find(&en.rows, "20:56:21", Some(12447), Some(12497));
    assert_eq!((&*r.command, r.kb_wr_s()), ("wr thread 0", Some(768.0)));
    assert_eq!(r.prev_stamp, tod("20:56:20"));
    let a = en.averages.iter().find(|r| r.tid == Some(12498)).unwrap();
    assert_eq!((a.tgid, a.kb_wr_s(), &*a.command), (Some(12447), Some(1018.91), "wr thread 1"));
    // --human in de_DE: `20:56:11        0     12446      0,0B      2,2M      0,0B       0  load.sh`
    let h = parse_clean(&fixture("de_DE_human_d.txt"));
    assert!(h.layout.human);
    let r = find(&h.rows, "20:56:11", Some(12446), None);
    assert_eq!((r.kb_rd_s(), r.kb_wr_s()), (Some(0.0), Some(2.2 * 1048576.0)));
}

#[test]
fn fixture_layouts() {
    // -l: `20:56:21        0     12447         -      0.00   1792.00      0.00       0  /root/.pyenv/versions/3.11.7/bin/python3 thr.py`
    let l = parse_clean(&fixture("C_dlt.txt"));
    let r = find(&l.rows, "20:56:21", Some(12447), None);
    assert_eq!(&*r.command, "/root/.pyenv/versions/3.11.7/bin/python3 thr.py");
    assert_eq!(r.kb_wr_s(), Some(1792.0));
    assert_eq!(&*find(&l.rows, "20:56:21", Some(12446), None).command, "/bin/bash ./load.sh");
    // -U: `USER` names.
    let u = parse_clean(&fixture("C_dU.txt"));
    assert!(u.layout.user_names);
    assert!(u.rows.iter().all(|r| r.user.as_deref() == Some("root") && r.uid.is_none()));
    // -H: `1795985772      0     12446      0.00   3041.58 …`
    let hh = parse_clean(&fixture("C_dH.txt"));
    assert_eq!(hh.layout.time_form, Some("epoch"));
    assert!(matches!(hh.rows[0].stamp, Some(Stamp::Epoch(_))));
    assert!(matches!(hh.rows[0].prev_stamp, Some(Stamp::Epoch(_))));
    // -u -r -d -w -v -R -s: 7 tables per interval, named extra values, policy.
    let m = parse_clean(&fixture("C_urdwvRs.txt"));
    let first_interval = m.tables.iter().filter(|t| !t.average && t.stamp == m.tables[0].stamp).count();
    assert_eq!(first_interval, 7);
    // Only active tasks are listed per table: `20:56:11  0  12446  126.95  0.00  4360  3168  0.01  load.sh`
    let ld: Vec<&Row> =
        m.rows.iter().filter(|r| r.tgid == Some(12446) && r.stamp == tod("20:56:11")).collect();
    assert_eq!(ld.len(), 3, "-r, -d and -w tables");
    assert!(ld.iter().any(|r| r.get("VSZ") == Some(4360.0) && r.get("minflt/s") == Some(126.95)));
    assert!(ld.iter().any(|r| r.get("cswch/s") == Some(5.67) && r.kb_wr_s().is_none()));
    assert!(ld.iter().any(|r| r.kb_wr_s() == Some(2904.96) && r.other.is_empty()));
    assert!(ld.iter().all(|r| r.prev_stamp == tod("20:56:10")));
    // -h all activities in one line: `20:56:11  0  12447  -  0.58 … 164384   14364 … 1347.37 … NORMAL  thrload`
    let h = parse_clean(&fixture("C_h_urdwvRs_t.txt"));
    // Its two reports print one `# Time UID TGID TID %usr ...` header each: one table.
    assert_eq!(h.tables.len(), 1, "{:?}", h.tables);
    assert!(h.rows.iter().any(|r| r.stamp == tod("20:56:12")) && h.rows.iter().all(|r| r.table == 0));
    let r = find(&h.rows, "20:56:11", Some(12447), None);
    assert_eq!(
        (r.get("%usr"), r.get("VSZ"), r.kb_wr_s(), r.get("fd-nr")),
        (Some(0.58), Some(164384.0), Some(1347.37), Some(5.0))
    );
    assert_eq!(r.policy.as_deref(), Some("NORMAL"));
    // since boot (no interval): header time = row time.
    let sb = parse_clean(&fixture("C_d_since_boot.txt"));
    assert!(sb.rows.iter().all(|r| r.since_boot));
    // Colours.
    let c = parse_clean(&fixture("C_colors_d.txt"));
    assert!(c.layout.ansi);
    assert_eq!(find(&c.rows, "20:56:11", Some(12446), None).kb_wr_s(), Some(2792.73));
    // Concatenated runs.
    let cc = parse_clean(&fixture("C_d_concat.txt"));
    assert_eq!(cc.banners.len(), 2);
    assert_eq!(find(&cc.rows, "20:56:30", Some(12447), None).run, 1);
    assert_eq!(cc.averages.len(), 4);
    // Truncated: the cut last line is reported, the rest kept.
    let t = pidstat::Fmt::parse(&fixture("C_d_truncated.txt"));
    assert_eq!(t.skipped_lines, 1);
    assert_eq!(t.value.rows.len(), 2);
}

#[test]
fn hand_written_old_layouts() {
    // sysstat <= 10.2.0: no iodelay; `-1.00` unreadable -> None.
    let o = parse_clean(&fixture("old_no_iodelay_d.txt"));
    assert_eq!(o.layout.iodelay, Some(false));
    let r = find(&o.rows, "10:15:02", Some(1803), None);
    assert_eq!((r.kb_rd_s(), r.kb_wr_s(), r.kb_ccwr_s(), r.iodelay()), (None, None, None, None));
    assert_eq!(find(&o.rows, "10:15:03", Some(2154), None).kb_wr_s(), Some(2048.0));
    // Old -h: right-aligned epoch.
    let h = parse_clean(&fixture("old_h_epoch_dt.txt"));
    let r = h.rows.iter().find(|r| r.tid == Some(2171)).unwrap();
    assert_eq!(
        (r.stamp, r.tgid, r.kb_wr_s(), r.iodelay()),
        (epoch(1646857494.0), Some(2154), Some(624.0), Some(1.0))
    );
    assert_eq!(&*r.command, "ib_log_writer");
}

#[test]
fn corpus_samples_values() {
    need_shared!();
    let p = |f: &str| parse_clean(&shared(&format!("corpus/pidstat/{f}")));
    // jc centos old -h: ` 1646857494     0         6 … -1.00     -1.00     -1.00      0.77      0.00  ksoftirqd/0`
    let j = p("jc__centos-7.7__pidstat-hdlrsuw.txt");
    let r = j.rows.iter().find(|r| r.tgid == Some(6)).unwrap();
    assert_eq!((r.stamp, r.kb_rd_s(), r.get("cswch/s")), (epoch(1646857494.0), None, Some(0.77)));
    assert_eq!(j.layout.iodelay, Some(false));
    // -l full command lines with spaces.
    let hl = p("jc__centos-7.7__pidstat-hl.txt");
    assert_eq!(&*hl.rows[0].command, "/usr/lib/systemd/systemd --switched-root --system --deserialize 22");
    // -t with (leader)__name and `|__dconf worker`.
    let at = p("sysstat-tests__expected1.pidstat-At-TTASK.txt");
    let f = at.rows.iter().find(|r| &*r.command == "firefox" && r.leader.is_some()).unwrap();
    assert_eq!((f.tgid, f.tid, f.leader.as_deref()), (Some(8741), Some(8741), Some("firefox")));
    let all = p("sysstat-tests__expected1.pidstat-At-TALL-ALL.txt");
    let d = all.rows.iter().find(|r| &*r.command == "dconf worker").unwrap();
    assert_eq!((d.tgid, d.tid), (Some(7900), Some(10334)));
    // -U user names.
    let u = p("sysstat-tests__expected.pidstat-U.txt");
    assert_eq!(u.rows[0].user.as_deref(), Some("testusr"));
    assert_eq!(u.rows[0].get("usr-ms"), Some(112090.0));
    // Zero-row headers.
    let z = p("sysstat-tests__expected1.pidstat-d-TTASK.txt");
    assert_eq!(z.rows.len(), 2);
    assert_eq!(z.rows[0].iodelay(), Some(253.0));
    assert_eq!(
        (z.rows[1].tgid, z.rows[1].kb_rd_s(), z.rows[1].prev_stamp),
        (Some(9009), Some(30.65), tod("12:53:22"))
    );
    assert!(z.tables.len() >= 3);
    // 12-hour since-boot table.
    let c = p("jc__centos-7.7__pidstat.txt");
    assert_eq!(c.rows[0].stamp, tod("12:06:39"));
    assert!(c.rows[0].since_boot);
    // --dec=1.
    let dec = p("sysstat-tests__expected.pidstat-dec.txt");
    assert_eq!(dec.rows[0].get("%CPU"), Some(0.1));
}

#[test]
fn json_values() {
    need_shared!();
    let j = pidstat_json::Fmt::parse(&shared(
        "corpus/pidstat/sysstat-tests__expected1.pidstat-At-TTASK-JSON.txt",
    ));
    assert!(j.diagnostics.is_empty(), "{:#?}", j.diagnostics);
    let v = j.value;
    assert_eq!(v.banner.as_ref().unwrap().nodename, "SYSSTAT.TEST");
    // `{"UID": "1000", "TGID": "7900", "TID": "", "kB_rd/s": 411.81, "kB_wr/s": 2.82, … "iodelay": 253, … "cmd": "gnome-shell"}`
    let r = v.rows.iter().find(|r| r.kb_rd_s() == Some(411.81)).unwrap();
    assert_eq!(
        (r.uid, r.tgid, r.tid, r.kb_wr_s(), r.iodelay()),
        (Some(1000), Some(7900), None, Some(2.82), Some(253.0))
    );
    assert_eq!(r.stamp, tod("12:53:22"));
    assert!(r.line > 0);
    let t = v.rows.iter().find(|r| &*r.command == "dconf worker" && r.kb_rd_s().is_some()).unwrap();
    assert_eq!(
        (t.tgid, t.tid, t.leader.as_deref(), t.kb_rd_s()),
        (Some(7900), Some(10334), Some("gnome-shell"), Some(0.01))
    );
    let cpu = v.rows.iter().find(|r| r.get("%CPU") == Some(412.96)).unwrap();
    assert_eq!(cpu.get("CPU"), Some(2.0));
    let c = pidstat_json::Fmt::parse(&shared("corpus/pidstat/sysstat-tests__expected1.pidstat-C-JSON.txt"));
    assert_eq!(c.value.rows.len(), 1);
    assert_eq!(c.value.rows[0].stamp, epoch(1591016004.0));
    assert_eq!(&*c.value.rows[0].command, "firefox");
    // Reports of an interval (`2 6`) are rates; without an interval (`-p ALL`, one report) the
    // figures are since each task started, as in the text form, and stay out of the rates.
    assert!(v.rows.iter().chain(&c.value.rows).all(|r| !r.since_boot));
    let all =
        pidstat_json::Fmt::parse(&shared("corpus/pidstat/sysstat-tests__expected.pidstat-At-ALL-JSON.txt"));
    assert!(all.diagnostics.is_empty(), "{:#?}", all.diagnostics);
    assert!(all.value.rows.len() > 10);
    assert!(all.value.rows.iter().all(|r| r.since_boot));
    assert_eq!(all.value.variant().get("since_boot").map(String::as_str), Some("yes"));
}

#[test]
fn variant_and_range() {
    let p = parse_clean(&fixture("en_US_dt.txt"));
    let v = p.variant();
    assert_eq!(v.get("time").map(String::as_str), Some("12h"));
    assert_eq!(v.get("ids").map(String::as_str), Some("TGID/TID (-t)"));
    assert_eq!(v.get("activities").map(String::as_str), Some("-d"));
    let (a, b) = p.time_range().unwrap();
    assert_eq!((Some(a), Some(b)), (tod("20:56:21"), tod("20:56:22")));
}

/// Under a memory budget the reports are merged and each thread's bytes are kept: a
/// merged rate times the printed reports it stands for equals the sum of their rates, for
/// every thread (a thread a report did not print wrote nothing in it). The real
/// `pidstat -d -t -h 1` of samples/mmap_large_folio (sysstat 12.6, kernel 6.18).
#[test]
fn a_memory_budget_merges_reports_and_keeps_each_threads_bytes() {
    use iosift_parsers::common::SliceSource;
    use iosift_parsers::pidstat::budget::row_bytes;
    use std::collections::BTreeMap;
    let raw = read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../samples/mmap_large_folio/capture/pidstat-d-t-h.txt.gz"),
    );
    let text = iosift_parsers::common::decode::maybe_gunzip(&raw, 1 << 30).unwrap();
    let whole = pidstat::parse_source_within(&mut SliceSource::new(&text), 0);
    assert_eq!(whole.value.merged, 0);
    let full: usize = whole.value.rows.iter().map(row_bytes).sum();
    let budget = full / 2;
    let part = pidstat::parse_source_within(&mut SliceSource::new(&text), budget);
    let p = &part.value;
    assert!(p.merged >= 4 && p.merged.is_power_of_two() && p.merged <= 16, "merged {}", p.merged);
    assert!(p.rows.iter().map(row_bytes).sum::<usize>() <= budget);
    assert!(p.rows.len() * 2 < whole.value.rows.len(), "{} of {}", p.rows.len(), whole.value.rows.len());
    // The printed reports, by stamp, in order.
    let mut stamps: Vec<Stamp> = Vec::new();
    for r in whole.value.rows.iter().filter(|r| !r.since_boot) {
        if stamps.last() != r.stamp.as_ref() {
            stamps.push(r.stamp.unwrap());
        }
    }
    let index = |s: &Stamp| stamps.iter().position(|x| x == s).expect("a printed stamp");
    let kb = |rows: &mut dyn Iterator<Item = &Row>| -> BTreeMap<u32, f64> {
        let mut m = BTreeMap::new();
        for r in rows {
            if let (Some(t), Some(v)) = (r.tid, r.kb_wr_s()) {
                *m.entry(t).or_default() += v;
            }
        }
        m
    };
    let want = kb(&mut whole.value.rows.iter().filter(|r| !r.since_boot));
    // Merged: each row's rate times the reports since the previous kept stamp.
    let mut got: BTreeMap<u32, f64> = BTreeMap::new();
    let (mut from, mut last) = (0usize, None);
    for r in p.rows.iter().filter(|r| !r.since_boot) {
        let k = index(r.stamp.as_ref().unwrap());
        if last != Some(k) {
            if let Some(l) = last {
                from = l + 1;
            }
            last = Some(k);
        }
        if let (Some(t), Some(v)) = (r.tid, r.kb_wr_s()) {
            *got.entry(t).or_default() += v * (k + 1 - from) as f64;
        }
    }
    assert_eq!(last, Some(stamps.len() - 1));
    assert_eq!(got.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>());
    let top = want.values().copied().fold(0.0, f64::max);
    assert!(top > 1e5, "{top}");
    for (t, a) in &want {
        assert!((a - got[t]).abs() <= 1e-6 * top, "tid {t}: {a} vs {}", got[t]);
    }
    assert_eq!(
        p.variant().get("reports_merged").map(String::as_str),
        Some(format!("{} to 1 (memory budget)", p.merged).as_str())
    );
    let d = part.diagnostics.iter().find(|d| d.text.starts_with("reports merged")).expect("said");
    let first = whole.value.rows.iter().find(|r| !r.since_boot).unwrap();
    assert_eq!(d.line, first.line);
}

/// Issue 33: one row whose time is garbled (`01:26:00` among `19:26:00` rows) used to
/// roll the rest of the file to the next day (a time of day going back is midnight) and
/// a `23:59:60` row was dropped; now the row is placed with its report (a `bad_time`
/// diagnostic names its line) and a leap second is read as `23:59:59`.
#[test]
fn a_row_time_that_breaks_the_series_is_placed_by_it() {
    let text = String::from_utf8(read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../samples/mx_xfs_loop_mmap_2m/capture/pidstat-d-t-h.txt"),
    ))
    .unwrap();
    let clean = parse_clean(text.as_bytes());
    let at = text.find("\n19:26:00 ").unwrap() + 1;
    let line = text[..at].lines().count() + 1;
    for bad in ["01:26:00", "09:26:00", "19:56:00"] {
        let g = format!("{}{bad}{}", &text[..at], &text[at + 8..]);
        let p = pidstat::Fmt::parse(g.as_bytes());
        assert_eq!(p.value.rows, clean.rows, "{bad}");
        let d: Vec<_> = p.diagnostics.iter().filter(|d| d.text.contains("breaks its series")).collect();
        assert_eq!(d.len(), 1, "{bad}: {:#?}", p.diagnostics);
        assert_eq!(d[0].line, line);
        assert!(
            d[0].text.contains(&format!("time stamp {bad}")) && d[0].text.ends_with("read as 19:26:00"),
            "{d:?}"
        );
    }
    // A leap second: the row is kept, at 19:25:59 (its minute's last second).
    let g = text.replace("\n19:25:59 ", "\n19:25:60 ");
    let p = pidstat::Fmt::parse(g.as_bytes());
    assert!(p.diagnostics.is_empty(), "{:#?}", p.diagnostics);
    assert_eq!(p.value.rows, clean.rows);
}
