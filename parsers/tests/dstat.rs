//! dstat / dool / pcp-dstat: CSV (`dstat_csv`) and terminal layout (`dstat_text`)
//! on real files: the shared corpus, the s1 bundle's `dool.csv` and the
//! fixtures in `tests/fixtures/dstat/` (see its README for the commands).

#[macro_use]
#[path = "support/shared.rs"]
mod support;

use chrono::{NaiveDate, NaiveTime};
use iosift_parsers::common::{DiagKind, Format, Parsed, Stamp, Summary};
use iosift_parsers::detect;
use iosift_parsers::dstat_csv::{self, Dstat, Unit};
use iosift_parsers::dstat_text;

const FIX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/dstat");

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn corpus(name: &str) -> Vec<u8> {
    read(&format!("{}/corpus/dstat/{name}", support::root().display()))
}

fn fixture(name: &str) -> Vec<u8> {
    read(&format!("{FIX}/{name}"))
}

fn csv(bytes: &[u8]) -> Parsed<Dstat> {
    let p = dstat_csv::Fmt::parse(bytes);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    p
}

fn text(bytes: &[u8]) -> Parsed<Dstat> {
    let p = dstat_text::Fmt::parse(bytes);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    p
}

const MIB: f64 = 1024.0 * 1024.0;

fn hms(h: u32, m: u32, s: u32) -> NaiveTime {
    NaiveTime::from_hms_opt(h, m, s).unwrap()
}

#[test]
fn manifest_detection() {
    need_shared!();
    let manifest =
        String::from_utf8(read(&format!("{}/corpus/MANIFEST.tsv", support::root().display()))).unwrap();
    let mut checked = 0;
    for line in manifest.lines().filter(|l| !l.starts_with('#')) {
        let Some((file, expected)) = line.split_once('\t') else { continue };
        let path = format!("{}/corpus/{file}", support::root().display());
        if !std::path::Path::new(&path).is_file() {
            continue; // directories (sysfs trees) are for other formats
        }
        let bytes = read(&format!("{}/corpus/{file}", support::root().display()));
        let got = detect(&bytes).map(|d| d.format.id);
        let ours = |id: &str| id == "dstat_csv" || id == "dstat_text";
        if ours(expected) {
            if bytes.is_empty() {
                // `generated__dstat_csv*.txt`: dstat wrote nothing to stdout; no content to detect
                // (the CLI has to fall back on the file name).
                assert_eq!(got, None, "{file}");
                continue;
            }
            assert_eq!(got, Some(expected), "{file}");
            checked += 1;
            // Real tool output: no diagnostics.
            let d = detect(&bytes).unwrap();
            assert!(d.parsed.diagnostics.is_empty(), "{file}: {:?}", d.parsed.diagnostics);
        } else if expected != "-" {
            assert!(!got.is_some_and(ours), "{file} ({expected}) detected as {got:?}");
        }
    }
    assert_eq!(checked, 18);
}

#[test]
fn fixtures_detect() {
    for (f, id) in [
        ("dool_append.csv", "dstat_csv"),
        ("dool_epoch_bits.csv", "dstat_csv"),
        ("dool_top.csv", "dstat_csv"),
        ("dstat_crash.csv", "dstat_csv"),
        ("dool_tcdngy.txt", "dstat_text"),
        ("dool_t_D_nocolor.txt", "dstat_text"),
        ("dool_epoch_bits_text.txt", "dstat_text"),
        ("dool_ascii.txt", "dstat_text"),
        ("dool_tty_narrow.txt", "dstat_text"),
        ("dstat_tcdngy.txt", "dstat_text"),
        ("dstat_top.txt", "dstat_text"),
        ("dstat_T_D_bits.txt", "dstat_text"),
        ("dstat_tty_narrow.txt", "dstat_text"),
        ("dstat_wide.txt", "dstat_text"),
        ("dstat_diskutil_exc.txt", "dstat_text"),
    ] {
        let got = detect(&fixture(f)).map(|d| d.format.id);
        assert_eq!(got, Some(id), "{f}");
    }
}

#[test]
fn s1_dool_csv() {
    need_shared!();
    let p = csv(&read(&format!("{}/bundles/s1_mmap_writeback/dool.csv", support::root().display())));
    let d = &p.value;
    assert_eq!(d.runs.len(), 1);
    let r = &d.runs[0];
    assert_eq!(r.meta.tool.as_deref(), Some("dool"));
    assert_eq!(r.meta.version.as_deref(), Some("1.3.8"));
    assert_eq!(r.meta.host.as_deref(), Some("vm"));
    assert_eq!(r.meta.date_text.as_deref(), Some("29 Nov 2026 19:37:19 UTC"));
    assert_eq!(r.meta.date, Some(NaiveDate::from_ymd_opt(2026, 11, 29).unwrap().and_time(hms(19, 37, 19))));
    assert_eq!(r.meta.zone.as_deref(), Some("UTC"));
    assert!(r.meta.cmdline.as_deref().unwrap().contains("-D total,vda --io --disk-util"));
    assert_eq!(r.rows.len(), 240);
    assert_eq!(r.columns.len(), 29);
    let w = r.column("dsk/vda:writ").unwrap();
    assert_eq!(r.columns[w].unit, Unit::BytesPerSec);
    assert_eq!(r.column("io/vda:writ").map(|i| r.columns[i].unit), Some(Unit::CountPerSec));
    assert_eq!(r.column("vda:util").map(|i| r.columns[i].unit), Some(Unit::Percent));
    assert_eq!(r.column("vda:wawait").map(|i| r.columns[i].unit), Some(Unit::Millis));
    // Two "free" columns, told apart by their group.
    assert!(r.column("memory usage:free").is_some() && r.column("virtual memory:free").is_some());
    // First row: since boot.
    assert!(r.rows[0].since_boot && !r.rows[1].since_boot);
    assert_eq!(r.rows[0].get(w), Some(361485766.594));
    // The first writeback burst, 19:38:03 (TRUTH.md), line 51 of the file.
    let burst = r.rows.iter().find(|x| x.line == 51).unwrap();
    assert_eq!(burst.stamp, Some(Stamp::NoYear { month: 11, day: 29, time: hms(19, 38, 3) }));
    assert_eq!(burst.get(w), Some(756678656.0));
    assert_eq!(burst.get(r.column("io/vda:writ").unwrap()), Some(16103.0));
    // top-bio cell kept as text.
    let top = r.column("top block-io:name read write").unwrap();
    assert_eq!(r.rows[1].text(top), Some("perf / 0:524288"));
    let cell = dstat_csv::parse_top_cell(r.rows[1].text(top).unwrap()).unwrap();
    assert_eq!((cell.name, cell.values), ("perf", vec![0.0, 524288.0]));
    let (a, b) = d.time_range().unwrap();
    assert_eq!(a, Stamp::NoYear { month: 11, day: 29, time: hms(19, 37, 19) });
    assert_eq!(b, Stamp::NoYear { month: 11, day: 29, time: hms(19, 41, 18) });
    assert_eq!(d.variant().get("time").map(String::as_str), Some("no-year"));
}

#[test]
fn perfkit_dstat_072_csv() {
    need_shared!();
    let p = csv(&corpus("PerfKitBenchmarker__dstat-result.csv"));
    let r = &p.value.runs[0];
    // The title says pcp-dstat 5.0.3; the body is dstat 0.7.2 style (bare nicks, `.0` floats).
    assert_eq!(r.meta.tool.as_deref(), Some("pcp-dstat"));
    assert_eq!(r.meta.version.as_deref(), Some("5.0.3"));
    assert_eq!(r.meta.host.as_deref(), Some("pkb-d43f64f0-0"));
    assert_eq!(r.meta.date_text.as_deref(), Some("05 Oct 2016 23:04:53 UTC"));
    assert!(r.meta.cmdline.as_deref().unwrap().starts_with("dstat --epoch -C total,0-0 -D total,sda"));
    assert_eq!(r.rows.len(), 383);
    assert_eq!(r.epoch_col, Some(0));
    assert_eq!(r.columns.len(), 62);
    // Bare nicks "read","writ" of dsk/sda get their group from the forward-filled group row.
    let sdaw = r.column("dsk/sda:writ").unwrap();
    assert_eq!(r.rows[0].get(sdaw), Some(280219.327));
    assert_eq!(r.rows[0].stamp, Some(Stamp::Epoch(1475708693.291)));
    assert!(r.rows[0].since_boot);
    let row = r.rows.iter().find(|x| x.stamp == Some(Stamp::Epoch(1475708700.292))).unwrap();
    assert_eq!(row.get(r.column("net/total:recv").unwrap()), Some(4280984.0));
    assert_eq!(row.get(r.column("memory usage:used").unwrap()), Some(2632650752.0));
    assert_eq!(r.column("interrupts:12").map(|i| r.columns[i].unit), Some(Unit::CountPerSec));
    assert_eq!(r.column("raw").map(|i| r.columns[i].group.as_str()), Some("raw"));
}

#[test]
fn generated_dool_csv() {
    need_shared!();
    let p = csv(&corpus("generated__dool_epoch_Dvda.csv"));
    let r = &p.value.runs[0];
    assert_eq!(r.meta.version.as_deref(), Some("1.3.4"));
    assert_eq!(r.rows.len(), 4);
    assert_eq!(r.rows[1].stamp, Some(Stamp::Epoch(1795980859.548)));
    assert_eq!(r.rows[1].get(r.column("dsk/vda:writ").unwrap()), Some(565411840.0));
    assert_eq!(r.rows[1].get(r.column("io/vda:writ").unwrap()), Some(1278.0));
    assert_eq!(r.rows[1].get(r.column("memory usage:avai").unwrap()), Some(22594535424.0));

    let p = csv(&corpus("generated__dool_tcmdngy.csv"));
    let r = &p.value.runs[0];
    assert_eq!(r.rows[3].stamp, Some(Stamp::NoYear { month: 11, day: 29, time: hms(19, 34, 18) }));
    assert_eq!(r.rows[3].get(r.column("dsk/total:writ").unwrap()), Some(561184768.0));
    assert_eq!(r.rows[3].get(r.column("system:csw").unwrap()), Some(4876.0));
}

#[test]
fn debian_dstat_header_only_csv() {
    need_shared!();
    for f in
        ["generated__dstat_tcmdngy.csv", "generated__dstat_epoch_Dvda.csv", "generated__dstat_noheaders.csv"]
    {
        let p = csv(&corpus(f));
        assert_eq!(p.value.runs.len(), 1, "{f}");
        assert!(p.value.runs[0].rows.is_empty(), "{f}");
        assert_eq!(p.value.runs[0].meta.version.as_deref(), Some("0.8.0"));
    }
    let p = csv(&corpus("generated__dstat_epoch_Dvda.csv"));
    let r = &p.value.runs[0];
    assert_eq!((r.epoch_col, r.time_col), (Some(0), Some(1)));
    assert_eq!(r.column("dsk/vda:writ"), Some(10));
    let p = csv(&fixture("dstat_crash.csv"));
    assert_eq!(p.value.runs[0].columns.len(), 8);
    assert_eq!(p.value.variant().get("empty_runs").map(String::as_str), Some("1"));
}

#[test]
fn appended_runs_and_bits() {
    let p = csv(&fixture("dool_append.csv"));
    let d = &p.value;
    assert_eq!(d.runs.len(), 2);
    assert_eq!(d.runs[1].line, 11);
    assert_eq!(d.runs[1].meta.date_text.as_deref(), Some("29 Nov 2026 20:56:06 UTC"));
    assert_eq!(d.runs[1].meta.tool.as_deref(), Some("dool"));
    assert!(d.runs[1].rows[0].since_boot);
    assert_eq!(d.runs[1].rows[1].get(d.runs[1].column("dsk/total:writ").unwrap()), Some(80674816.0));
    assert_eq!(d.records(), 4);

    let p = csv(&fixture("dool_epoch_bits.csv"));
    let r = &p.value.runs[0];
    let c = r.column("dsk/total:read").unwrap();
    assert_eq!(r.columns[c].unit, Unit::BitsPerSec);
    assert_eq!(r.rows[1].get(c), Some(829685760.0));

    let p = csv(&fixture("dool_top.csv"));
    let r = &p.value.runs[0];
    assert_eq!(r.rows[0].text(r.column("top-io:name read write").unwrap()), Some("/ 11832214:12222108"));
    assert_eq!(r.rows[1].text(r.column("most expensive:cpu process").unwrap()), Some("rustc / 23%"));
}

#[test]
fn dstat_terminal_layouts() {
    need_shared!();
    let p = text(&corpus("generated__dstat_tcdngy.txt"));
    let r = &p.value.runs[0];
    assert_eq!(r.rows.len(), 3);
    assert_eq!(r.rows[0].stamp, Some(Stamp::NoYear { month: 11, day: 29, time: hms(19, 34, 2) }));
    assert!(r.rows[0].since_boot);
    assert_eq!(r.rows[0].get(r.column("dsk/total:writ").unwrap()), Some(40.0 * MIB));
    assert_eq!(r.rows[0].get(r.column("system:int").unwrap()), Some(2241.0));

    let p = text(&corpus("generated__dstat_Tcmdr.txt"));
    let r = &p.value.runs[0];
    assert_eq!(r.rows[2].stamp, Some(Stamp::Epoch(1795980873.0)));
    assert_eq!(r.rows[2].get(r.column("io/total:writ").unwrap()), Some(20500.0));
    assert_eq!(r.rows[2].get(r.column("memory usage:free").unwrap()), Some(17.5 * 1024.0 * MIB));

    let p = text(&corpus("generated__dstat_t_D.txt"));
    let r = &p.value.runs[0];
    assert_eq!(r.rows[1].get(r.column("dsk/vda:writ").unwrap()), Some(68.0 * MIB));
    assert_eq!(r.rows[1].get(r.column("io/vda:writ").unwrap()), Some(1468.0));

    let p = text(&corpus("generated__dstat_timefmt.txt"));
    let r = &p.value.runs[0];
    let day = NaiveDate::from_ymd_opt(2026, 11, 29).unwrap();
    assert_eq!(r.rows[2].stamp, Some(Stamp::Local(day.and_time(hms(19, 34, 8)))));
    assert_eq!(r.rows[2].get(r.column("dsk/total:writ").unwrap()), Some(2612.0 * 1024.0));

    let p = text(&corpus("generated__dstat_color.txt"));
    let r = &p.value.runs[0];
    assert_eq!(r.rows[2].get(r.column("dsk/total:read").unwrap()), Some(128.0 * MIB));

    let p = text(&corpus("generated__dstat_default.txt"));
    assert_eq!(p.value.runs[0].rows[1].stamp, None);
    assert_eq!(p.value.runs[0].rows[1].get(0), Some(92.0));
}

#[test]
fn dool_terminal_layouts() {
    need_shared!();
    let p = text(&corpus("generated__dool_tcdngy.txt"));
    let r = &p.value.runs[0];
    assert_eq!(r.meta.tool.as_deref(), Some("dool"));
    assert_eq!(r.rows[1].stamp, Some(Stamp::NoYear { month: 11, day: 29, time: hms(19, 34, 14) }));
    assert_eq!(r.rows[1].get(r.column("dsk/total:writ").unwrap()), Some(567.0 * MIB));
    assert_eq!(r.rows[1].get(r.column("system:csw").unwrap()), Some(5289.0));

    // dool prints only terminal escapes to stdout when writing CSV.
    let p = text(&corpus("generated__dool_csv.txt"));
    assert_eq!(p.value.runs.len(), 0);

    // 1.3.8: `┊` between instances, `┼` in repeated headers, `>` truncation.
    let p = text(&fixture("dool_t_D_nocolor.txt"));
    let r = &p.value.runs[0];
    assert_eq!(r.rows[2].get(r.column("dsk/vda:writ").unwrap()), Some(81.0 * MIB));
    assert_eq!(r.rows[0].get(r.column("io/vda:writ").unwrap()), Some(37.0));
    let p = text(&fixture("dool_tty_narrow.txt"));
    assert_eq!(p.value.runs.len(), 1);
    let r = &p.value.runs[0];
    assert_eq!(r.rows.len(), 6);
    assert_eq!(r.columns.len(), 10);
    assert_eq!(r.rows[1].get(r.column("dsk/total:writ").unwrap()), Some(122.0 * MIB));
    let p = text(&fixture("dool_ascii.txt"));
    let r = &p.value.runs[0];
    assert_eq!(r.rows[1].get(r.column("dsk/vda:writ").unwrap()), Some(268.0 * MIB));
    let p = text(&fixture("dool_epoch_bits_text.txt"));
    assert_eq!(p.value.runs[0].rows[2].stamp, Some(Stamp::Epoch(1795985782.0)));
}

#[test]
fn dstat_tty_repeats_and_top() {
    let p = text(&fixture("dstat_tty_narrow.txt"));
    assert_eq!(p.value.runs.len(), 1);
    let r = &p.value.runs[0];
    assert_eq!(r.rows.len(), 6);
    assert!(r.rows[0].since_boot && !r.rows[5].since_boot);
    assert_eq!(r.rows[5].get(r.column("dsk/total:writ").unwrap()), Some(6204.0 * 1024.0));

    let p = text(&fixture("dstat_top.txt"));
    let r = &p.value.runs[0];
    assert_eq!(r.rows[1].text(r.column("most expensive:block i/o process").unwrap()), Some("rustc 0 15M"));
    assert_eq!(r.rows[1].text(r.column("most expensive:cpu process").unwrap()), Some("cc1 48"));

    let p = text(&fixture("dstat_wide.txt"));
    let r = &p.value.runs[0];
    assert_eq!(r.columns.len(), 43);
    assert_eq!(r.rows[1].get(r.column("load avg:1m").unwrap()), Some(3.83));
    assert_eq!(r.rows[1].get(r.column("virtual memory:minpf").unwrap()), Some(69000.0));
}

#[test]
fn exceptions_are_tool_messages() {
    let p = dstat_text::Fmt::parse(&fixture("dstat_diskutil_exc.txt"));
    let kinds: Vec<_> = p.diagnostics.iter().map(|d| (d.line, d.kind)).collect();
    assert_eq!(kinds, vec![(2, DiagKind::ToolMessage), (3, DiagKind::ToolMessage)]);
    let p = dstat_text::Fmt::parse(&fixture("dstat_diskutil_stderr.txt"));
    assert!(!p.diagnostics.is_empty());
    assert!(p.diagnostics.iter().all(|d| d.kind == DiagKind::ToolMessage), "{:?}", p.diagnostics);
    assert_eq!(p.skipped_lines, p.diagnostics.len());
}

#[test]
fn pcp_dstat_samples_do_not_break() {
    need_shared!();
    // QA harness output (not a real file layout): parsed as text, harness lines reported.
    let p = dstat_text::Fmt::parse(&corpus("pcp-qa__1187.out.txt"));
    let r = &p.value.runs[0];
    assert!(r.rows[0].values.iter().all(Option::is_none) && !r.rows[0].since_boot);
    assert_eq!(r.rows[1].get(r.column("net/total:recv").unwrap()), Some(455.0));
    assert_eq!(r.rows[1].get(r.column("dsk/total:writ").unwrap()), Some(235.0 * 1024.0));
}

#[test]
fn cut_and_mangled_inputs_never_panic() {
    need_shared!();
    let mut inputs = vec![
        corpus("generated__dool_tcdngy.txt"),
        corpus("generated__dstat_t_D.txt"),
        corpus("generated__dool_epoch_Dvda.csv"),
        corpus("pcp-qa__1856.out.txt"),
        fixture("dool_tty_narrow.txt"),
        fixture("dool_append.csv"),
        fixture("dstat_diskutil_stderr.txt"),
    ];
    inputs.push(
        read(&format!("{}/bundles/s1_mmap_writeback/dool.csv", support::root().display()))[..4000].to_vec(),
    );
    for b in &inputs {
        for cut in (0..b.len()).step_by(5) {
            let part = &b[..cut];
            let _ = dstat_csv::Fmt::parse(part);
            let _ = dstat_text::Fmt::parse(part);
            let _ = dstat_text::Fmt::sniff(part);
            let _ = dstat_csv::Fmt::sniff(part);
        }
        // Swap bytes around: quotes, separators, box characters cut in half.
        let mut m = b.clone();
        for i in (0..m.len()).step_by(11) {
            m[i] = [b'"', b',', b'|', b':', 0xe2, b'-', b'\r', b'9'][i % 8];
        }
        let _ = dstat_csv::Fmt::parse(&m);
        let _ = dstat_text::Fmt::parse(&m);
    }
}
