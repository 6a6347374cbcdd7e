//! vmstat on real files: the shared corpus, the bundles and our fixtures.

#[macro_use]
#[path = "support/shared.rs"]
mod support;

use iosift_parsers::common::{Format, Stamp};
use iosift_parsers::vmstat::{self, Row, Vmstat};
use iosift_parsers::{Summary, detect};
use std::path::{Path, PathBuf};

const FIX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/vmstat");

fn read(p: impl AsRef<Path>) -> Vec<u8> {
    std::fs::read(p.as_ref()).unwrap_or_else(|e| panic!("{}: {e}", p.as_ref().display()))
}

fn parse_clean(bytes: &[u8]) -> Vmstat {
    let p = vmstat::Fmt::parse(bytes);
    assert!(p.diagnostics.is_empty(), "unexpected diagnostics: {:#?}", p.diagnostics);
    p.value
}

fn shared(rel: &str) -> Vmstat {
    parse_clean(&read(support::root().join(rel)))
}

fn fixture(name: &str) -> Vmstat {
    parse_clean(&read(Path::new(FIX).join(name)))
}

fn at(v: &Vmstat, ts: &str) -> Row {
    let want = chrono::NaiveDateTime::parse_from_str(ts, "%Y-%m-%d %H:%M:%S").unwrap();
    v.rows
        .iter()
        .find(|r| r.stamp == Some(Stamp::Local(want)))
        .cloned()
        .unwrap_or_else(|| panic!("no row {ts}"))
}

fn vals(r: &Row) -> Vec<f64> {
    r.values().to_vec()
}

#[test]
fn corpus_detection_and_no_diagnostics() {
    need_shared!();
    let text = String::from_utf8(read(support::root().join("corpus/MANIFEST.tsv"))).unwrap();
    let mut problems = Vec::new();
    for l in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let mut it = l.split('\t');
        let (Some(f), Some(expected)) = (it.next(), it.next()) else { continue };
        let path: PathBuf = support::root().join("corpus").join(f);
        if !path.is_file() {
            continue;
        }
        let bytes = read(&path);
        let got = detect(&bytes).map(|d| d.format.id);
        if expected == "vmstat" {
            match detect(&bytes) {
                Some(d) if d.format.id == "vmstat" => {
                    if !d.parsed.diagnostics.is_empty() {
                        problems.push(format!("{f}: {:#?}", d.parsed.diagnostics));
                    }
                    if d.parsed.value.summary().records() == 0 {
                        problems.push(format!("{f}: no records"));
                    }
                }
                _ => problems.push(format!("{f}: detected {got:?}")),
            }
        } else if got == Some("vmstat") && expected != "-" {
            problems.push(format!("{f}: detected vmstat, want {expected}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn fixtures_detected_without_diagnostics() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(FIX)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(files.len() >= 10);
    for path in files {
        let bytes = read(&path);
        let d = detect(&bytes).unwrap_or_else(|| panic!("{}: not detected", path.display()));
        assert_eq!(d.format.id, "vmstat", "{}", path.display());
        assert!(d.parsed.diagnostics.is_empty(), "{}: {:#?}", path.display(), d.parsed.diagnostics);
        assert!(d.parsed.value.summary().records() > 0);
    }
}

#[test]
fn s1_vmstat_t() {
    need_shared!();
    let v = shared("bundles/s1_mmap_writeback/vmstat-t.txt");
    assert_eq!(v.timezone.as_deref(), Some("UTC"));
    assert_eq!(v.rows.len(), 240, "headers reprinted every 21 rows are not rows");
    assert_eq!(v.runs, 1);
    // `14  0      0 19443496  13144 3326196    0    0 13551 22128 1438 2182 62 10 28  1  0 2026-11-29 19:37:19`
    let first = &v.rows[0];
    assert!(first.since_boot);
    assert_eq!(
        vals(first),
        [
            14., 0., 0., 19443496., 13144., 3326196., 0., 0., 13551., 22128., 1438., 2182., 62., 10., 28.,
            1., 0.
        ]
    );
    assert!(v.rows[1..].iter().all(|r| !r.since_boot));
    // The writeback bursts (TRUTH.md: 19:38:03, 19:39:06): `bo` 87152 and 125300.
    assert_eq!(at(&v, "2026-11-29 19:38:03").get("bo"), Some(87152.0));
    assert_eq!(at(&v, "2026-11-29 19:39:06").get("bo"), Some(125300.0));
    assert_eq!(at(&v, "2026-11-29 19:38:00").get("bo"), Some(560.0));
    let (a, b) = v.time_range().unwrap();
    assert_eq!(a.display(), "2026-11-29T19:37:19");
    assert!(b.display().starts_with("2026-11-29T19:41:"));
}

#[test]
fn s4_vmstat_de_de() {
    need_shared!();
    let v = shared("bundles/s4_locale_variants/vmstat-t.de_DE.txt");
    assert_eq!(v.timezone.as_deref(), Some("UTC"));
    assert!(v.translated);
    // ` 4  0      0 13015612  23992 10287308    0    0    36   584  901  949 92  7  1  0  0 2026-11-29 19:53:02`
    let r = at(&v, "2026-11-29 19:53:02");
    assert_eq!(
        (r.get("free"), r.get("cache"), r.get("bi"), r.get("bo"), r.get("us")),
        (Some(13015612.0), Some(10287308.0), Some(36.0), Some(584.0), Some(92.0))
    );
    assert_eq!(at(&v, "2026-11-29 19:53:01").get("st"), Some(3.0));
    assert!(v.rows[0].since_boot);
    assert_eq!(v.rows[0].get("bo"), Some(17517.0));
}

#[test]
fn fixtures_layouts() {
    // de -w: `  19    0            0     20857304        54296      3004172 … 18   6  76   0   0   0 2026-11-29 20:56:30`
    let w = fixture("de_DE_wt.txt");
    assert!(w.wide && w.translated);
    let r = at(&w, "2026-11-29 20:56:32");
    assert_eq!(
        (r.get("r"), r.get("free"), r.get("bo"), r.get("gu"), r.get("wa")),
        (Some(6.0), Some(20857304.0), Some(1051676.0), Some(0.0), Some(2.0))
    );
    assert_eq!(w.timezone.as_deref(), Some("UTC"));
    // fr -a: `libre  inact  actif` -> inact/active.
    let a = fixture("fr_FR_at.txt");
    let r = at(&a, "2026-11-29 20:56:31");
    assert_eq!((r.get("inact"), r.get("active"), r.get("buff")), (Some(2936964.0), Some(616544.0), None));
    // ko: translated column words, same positions.
    let k = fixture("ko_KR_t.txt");
    assert_eq!(at(&k, "2026-11-29 20:56:31").get("cs"), Some(2553.0));
    assert_eq!(k.timezone.as_deref(), Some("UTC"));
    // TZ=Europe/Berlin: `CET`.
    let t = fixture("TZ_t.txt");
    assert_eq!(t.timezone.as_deref(), Some("CET"));
    assert_eq!(at(&t, "2026-11-29 21:56:31").get("bo"), Some(4904.0));
    // -a -w on 4.0: `inact active` + `gu`.
    let aw = fixture("C_aw.txt");
    assert_eq!(aw.rows[2].get("inact"), Some(2949096.0));
    assert_eq!(aw.rows[2].get("gu"), Some(0.0));
    assert_eq!(aw.timezone, None);
    // -S M (not visible in the table): caller declares the unit.
    let mut m = fixture("C_SM_t.txt");
    assert!(!m.unit_known);
    assert_eq!(m.rows[0].get("free"), Some(20366.0));
    m.set_unit('M');
    assert_eq!(m.rows[0].get("free"), Some(20366.0 * 1024.0));
    // -S M -s: unit read from the lines, memory normalised to KiB.
    let s = fixture("C_SM_s.txt");
    assert_eq!((s.unit, s.unit_known), ('M', true));
    assert!(s.summary.contains(&("total memory".to_string(), 24105 * 1024)));
    assert!(s.summary.contains(&("paged in".to_string(), 2224961)));
    assert!(s.summary.contains(&("boot time".to_string(), 1795985302)));
    // translated -s.
    let ds = fixture("de_DE_s.txt");
    assert_eq!(ds.summary[0], ("Gesamtspeicher".to_string(), 24684084));
    assert_eq!(ds.summary.len(), 28);
    // translated -d -t: `vda    54775  11139 4449922   25635  18420  33447 3280696   26878      0      9 2026-11-29 20:56:31`
    let d = fixture("de_DE_dt.txt");
    assert_eq!(d.timezone.as_deref(), Some("UTC"));
    let vda: Vec<_> = d.disk_rows.iter().filter(|r| r.disk == "vda").collect();
    assert_eq!(vda.len(), 2);
    assert_eq!((vda[1].sample, vda[1].writes, vda[1].write_sectors, vda[1].io_sec), (1, 18420, 3280696, 9));
}

#[test]
fn corpus_values() {
    need_shared!();
    // Very old procps without `st`.
    let o = shared("corpus/vmstat/percona-toolkit__pt-summary_Linux_001_vmstat.txt");
    assert_eq!(o.layouts, ["no st (old procps)"]);
    assert_eq!(
        vals(&o.rows[1]),
        [0., 0., 0., 487528., 199604., 745220., 0., 0., 0., 8., 884., 2284., 28., 26., 46., 0.]
    );
    // Reprinted header in one run: only the first row is since boot.
    let long = shared("corpus/vmstat/jc__ubuntu-18.04__vmstat-1-long.txt");
    assert_eq!(long.rows.iter().filter(|r| r.since_boot).count(), 1);
    assert_eq!(long.runs, 1);
    // -w overflow: `   0    0            0      2430264      1011084     22658240 …`
    let xw = shared("corpus/vmstat/jc__generic__vmstat-extra-wide.txt");
    assert_eq!(xw.rows[0].get("cache"), Some(22658240.0));
    // PDT zone with -a -t.
    let at5 = shared("corpus/vmstat/jc__centos-7.7__vmstat-at-5-10.txt");
    assert_eq!(at5.timezone.as_deref(), Some("PDT"));
    assert_eq!(at5.rows[1].get("id"), Some(100.0));
    assert_eq!(at5.rows[1].get("active"), Some(312744.0));
    // -d: one header, ten disks per sample.
    let d = shared("corpus/vmstat/generated__vmstat_C_dt.txt");
    let vda: Vec<_> = d.disk_rows.iter().filter(|r| r.disk == "vda").collect();
    assert_eq!(
        (vda[0].reads, vda[0].read_sectors, vda[0].writes, vda[0].write_ms),
        (146835, 31101410, 425572, 589250)
    );
    assert_eq!(vda[1].sample, 1);
    let s = shared("corpus/vmstat/generated__vmstat_C_s.txt");
    assert!(s.summary.contains(&("forks".to_string(), 43189)));
    assert_eq!((s.unit, s.unit_known), ('K', true));
}

/// Issue 33: a garbled `-t` stamp (`09:26:00` among `19:26:00`) used to move its row 10 h
/// back; now it is placed by its neighbours with a `bad_time` diagnostic on its line.
#[test]
fn a_stamp_that_breaks_the_series_is_placed_by_it() {
    let text = String::from_utf8(read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../samples/mx_xfs_loop_mmap_2m/capture/vmstat-t.txt"),
    ))
    .unwrap();
    let clean = parse_clean(text.as_bytes());
    let line = text.lines().position(|l| l.ends_with("2026-12-01 19:26:00")).unwrap() + 1;
    for bad in ["2026-12-01 09:26:00", "2026-12-11 19:26:00", "2026-12-01 19:26:60"] {
        let g = text.replace("2026-12-01 19:26:00", bad);
        let p = vmstat::Fmt::parse(g.as_bytes());
        assert_eq!(p.value.rows, clean.rows, "{bad}");
        assert_eq!(p.diagnostics.len(), 1, "{bad}: {:#?}", p.diagnostics);
        assert_eq!(p.diagnostics[0].line, line);
        assert!(p.diagnostics[0].text.ends_with("read as 2026-12-01T19:26:00"), "{:?}", p.diagnostics[0]);
    }
}
