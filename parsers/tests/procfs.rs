//! Real-file tests of the /proc series parsers (`proc_meminfo`, `proc_vmstat`,
//! `proc_diskstats`) and the `TS` block splitter, on the shared corpus, the
//! s1 bundle and fixtures made on this machine.

#[macro_use]
#[path = "support/shared.rs"]
mod support;

use iosift_parsers::common::decode::maybe_gunzip;
use iosift_parsers::common::{DiagKind, Format, Sniff};
use iosift_parsers::detect;
use iosift_parsers::procfs::tsblocks::{self, Layout};
use iosift_parsers::procfs::{diskstats as proc_diskstats, meminfo as proc_meminfo, vmstat as proc_vmstat};
use std::path::{Path, PathBuf};

fn shared() -> PathBuf {
    support::root()
}

fn read(p: impl AsRef<Path>) -> Vec<u8> {
    let p = p.as_ref();
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn fixture(name: &str) -> Vec<u8> {
    read(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/procfs")).join(name))
}

const S1: &str = "bundles/s1_mmap_writeback/2026_11_29_19_37_19";

const MINE: &[&str] = &["proc_meminfo", "proc_vmstat", "proc_diskstats"];

/// (corpus file, expected id) of the manifest.
fn manifest() -> Vec<(String, String)> {
    let text = String::from_utf8(read(shared().join("corpus/MANIFEST.tsv"))).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut it = l.split('\t');
            Some((it.next()?.to_string(), it.next()?.trim().to_string()))
        })
        .collect()
}

#[test]
fn corpus_detection_and_zero_diagnostics() {
    need_shared!();
    let mut checked = 0;
    for (file, want) in manifest() {
        let path = shared().join("corpus").join(&file);
        let mut files = vec![path.clone()];
        if path.is_dir() {
            files = std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()).collect();
            assert!(!MINE.contains(&want.as_str()), "{file}");
        }
        assert!(files.iter().all(|f| f.is_file()), "{file}: nested directory");
        if files.len() > 1 {
            for f in files {
                let raw = read(&f);
                let data = maybe_gunzip(&raw, 1 << 30).unwrap();
                if let Some(d) = detect(&data) {
                    assert!(!MINE.contains(&d.format.id), "{} detected as {}", f.display(), d.format.id);
                }
            }
            continue;
        }
        let raw = read(&path);
        let data = maybe_gunzip(&raw, 1 << 30).unwrap();
        let got = detect(&data);
        let got_id = got.as_ref().map(|d| d.format.id);
        if MINE.contains(&want.as_str()) {
            let d = got.unwrap_or_else(|| panic!("{file}: not detected, want {want}"));
            assert_eq!(d.format.id, want, "{file}");
            let diags: Vec<_> = d
                .parsed
                .diagnostics
                .iter()
                // sysstat's test fixture has one hand-edited 17-field line (`sds`).
                .filter(|x| !(file.contains("sysstat-tests") && x.kind == DiagKind::FieldCount))
                .collect();
            assert!(diags.is_empty(), "{file}: {diags:?}");
            assert!(d.parsed.value.summary().records() > 0, "{file}");
            checked += 1;
        } else if let Some(id) = got_id {
            assert!(!MINE.contains(&id), "{file} (want {want}) detected as {id}");
        }
    }
    assert_eq!(checked, 38);
}

#[test]
fn s1_meminfo_dirty_sawtooth() {
    need_shared!();
    let data = read(shared().join(format!("{S1}-meminfo")));
    assert_eq!(proc_meminfo::Fmt::sniff(&data), Sniff::Yes);
    let p = proc_meminfo::Fmt::parse(&data);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    let s = &p.value;
    assert_eq!(s.layout, Some(Layout::TsBefore));
    assert_eq!(s.snapshots.len(), 240);
    let first = &s.snapshots[0];
    assert_eq!(first.line, 1);
    assert_eq!(first.values.len(), 54);
    assert_eq!(first.get("MemTotal"), Some(24_684_084));
    assert_eq!(first.get("DirectMap1G"), Some(25_165_824));
    assert_eq!(first.get("HugePages_Total"), Some(0));
    assert!((first.epoch().unwrap() - 1_795_981_039.666_693_8).abs() < 1e-6);
    assert_eq!(s.snapshots[1].line, 56);
    assert!(s.snapshots.iter().all(|x| !x.truncated && x.ts.is_some()));

    // Drops of Dirty by more than 50 MB between consecutive snapshots.
    let mut drops = Vec::new();
    for w in s.snapshots.windows(2) {
        let (a, b) = (w[0].get("Dirty").unwrap(), w[1].get("Dirty").unwrap());
        if a > b && a - b > 50 * 1024 {
            drops.push((w[1].epoch().unwrap(), a, b));
        }
    }
    assert_eq!(drops.len(), 8, "{drops:?}");
    // First burst (TRUTH.md: 19:38:03): Dirty 161668 kB -> 45012 kB at TS 19:38:04.
    assert_eq!(drops[0].1, 161_668);
    assert_eq!(drops[0].2, 45_012);
    assert_eq!(s.snapshots.iter().find(|x| x.get("Dirty") == Some(45_012)).unwrap().line, 2476);
    // Chain the drops 30-33 s apart; the one drop that does not fit is the
    // foreign tenant's writeback at 19:39:48 (TRUTH.md).
    let mut chain = vec![drops[0].0];
    let mut foreign = Vec::new();
    for d in &drops[1..] {
        let gap = d.0 - chain.last().unwrap();
        if (30.0..=33.0).contains(&gap) {
            chain.push(d.0);
        } else {
            foreign.push(d.0);
        }
    }
    assert_eq!(chain.len(), 7, "{chain:?}");
    assert_eq!(foreign.len(), 1);
    assert!((foreign[0] - 1_795_981_189.0).abs() < 1.0, "{foreign:?}");
}

#[test]
fn s1_procvmstat_nr_dirtied_monotonic() {
    need_shared!();
    let data = read(shared().join(format!("{S1}-procvmstat")));
    assert_eq!(proc_vmstat::Fmt::sniff(&data), Sniff::Yes);
    assert_eq!(proc_meminfo::Fmt::sniff(&data), Sniff::No);
    let p = proc_vmstat::Fmt::parse(&data);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    let s = &p.value;
    assert_eq!(s.snapshots.len(), 240);
    assert_eq!(s.snapshots[0].values.len(), 192);
    assert_eq!(s.snapshots[0].get("nr_dirtied"), Some(6_362_635));
    assert_eq!(s.snapshots[0].get("nr_written"), Some(5_765_866));
    // Every name is kept in file order, including 6.x-only ones.
    assert_eq!(&*s.snapshots[0].keys[1], "nr_free_pages_blocks");
    let dirtied: Vec<u64> = s.column("nr_dirtied").into_iter().map(Option::unwrap).collect();
    assert!(dirtied.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(*dirtied.last().unwrap(), 6_678_367);
    // ~3.7 MB/s of dirtying by gcache_sim + others over ~4 min: clearly growing.
    assert!(dirtied.last().unwrap() - dirtied[0] > 200_000);
    let v = iosift_parsers::Summary::variant(s);
    assert_eq!(v.get("kind").map(String::as_str), Some("vmstat"));
    assert_eq!(v.get("layout").map(String::as_str), Some("ts_before"));
}

#[test]
fn s1_diskstats_vda_has_20_fields() {
    need_shared!();
    let data = read(shared().join(format!("{S1}-diskstats")));
    assert_eq!(proc_diskstats::Fmt::sniff(&data), Sniff::Yes);
    let p = proc_diskstats::Fmt::parse(&data);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    let d = &p.value;
    assert_eq!(d.snapshots.len(), 240);
    let first = &d.snapshots[0];
    assert_eq!(first.devices.len(), 10);
    let vda = first.device("vda").unwrap();
    assert_eq!((vda.line, vda.major, vda.minor, vda.fields), (10, 254, 0, 20));
    assert_eq!(vda.reads, 723_945);
    assert_eq!(vda.sectors_written, 92_770_168);
    assert_eq!(vda.in_flight, 71);
    assert_eq!(vda.weighted_ms, 884_486);
    assert_eq!(vda.sectors_discarded, Some(52_616_792));
    assert_eq!(vda.flushes, Some(131_484));
    assert_eq!(vda.ms_flushing, Some(8_270));
    let last = d.snapshots.last().unwrap().device("vda").unwrap();
    assert_eq!(last.sectors_written, 95_190_208);
    assert_eq!(last.flushes, Some(142_235));
    // loop devices print 20 fields too.
    assert_eq!(&*first.devices[0].name, "loop0");
    assert_eq!(first.devices[0].discards, Some(0));
}

fn corpus(name: &str) -> Vec<u8> {
    read(shared().join("corpus").join(name))
}

#[test]
fn corpus_meminfo_single_snapshots() {
    need_shared!();
    let p = proc_meminfo::Fmt::parse(&corpus("proc-meminfo/jc__linux-proc__meminfo.txt"));
    assert!(p.diagnostics.is_empty());
    let s = &p.value;
    assert_eq!(s.layout, Some(Layout::Single));
    assert_eq!(s.snapshots.len(), 1);
    let snap = &s.snapshots[0];
    assert!(snap.ts.is_none() && !snap.truncated);
    assert_eq!(snap.get("Active(anon)"), Some(70_216));
    // line 43: `HugePages_Total:       0` (pages, no unit)
    assert_eq!(snap.get("HugePages_Total"), Some(0));
    let idx = snap.keys.iter().position(|k| &**k == "HugePages_Total").unwrap();
    assert_eq!(idx, 42, "file order kept");
    let p = proc_meminfo::Fmt::parse(&corpus("proc-meminfo/prometheus-procfs__proc_meminfo.txt"));
    assert_eq!(p.value.snapshots[0].get("MemFree"), Some(440_324));
    assert_eq!(p.value.snapshots[0].iter().next(), Some(("MemTotal", 15_666_184)));
    assert!(iosift_parsers::Summary::time_range(&p.value).is_none());
}

#[test]
fn corpus_pt_diskstats_layouts() {
    need_shared!();
    // `TS <epoch>` integer stamps, 14 fields, a device name with a slash.
    let p = proc_diskstats::Fmt::parse(&corpus("pt-stalk/percona-toolkit__pt-diskstats_diskstats-001.txt"));
    assert!(p.diagnostics.is_empty());
    let d = &p.value;
    assert_eq!(d.snapshots[0].ts.unwrap().epoch, 1_281_367_519.0);
    assert!(d.snapshots[0].ts.unwrap().local.is_none());
    let c = d.snapshots[1].device("cciss/c0d0").unwrap();
    assert_eq!((c.line, c.writes, c.sectors_written, c.fields), (12, 17_999_728, 811_402_788, 14));
    assert_eq!(c.discards, None);

    // `TS <epoch>.<frac> YYYY-MM-DDTHH:MM:SS` and 7-field partition lines (kernel < 2.6.25).
    let p = proc_diskstats::Fmt::parse(&corpus("pt-stalk/percona-toolkit__pt-diskstats_small.txt"));
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    let d = &p.value;
    assert_eq!(d.snapshots.len(), 11);
    let ts = d.snapshots[0].ts.unwrap();
    assert!((ts.epoch - 1_327_510_177.628).abs() < 1e-6);
    assert_eq!(ts.local.unwrap().to_string(), "2012-01-25 10:49:37");
    let sda = d.snapshots[0].device("sda").unwrap();
    assert_eq!((sda.fields, sda.weighted_ms), (14, 197_928_245));
    let sda2 = d.snapshots[0].device("sda2").unwrap();
    assert_eq!(sda2.fields, 7);
    assert_eq!(
        (sda2.reads, sda2.sectors_read, sda2.writes, sda2.sectors_written),
        (23_671_288, 753_256_530, 918_679_759, 3_054_471_032)
    );
}

#[test]
fn corpus_diskstats_mixed_field_counts() {
    need_shared!();
    let p = proc_diskstats::Fmt::parse(&corpus("diskstats/prometheus-procfs__proc_diskstats.txt"));
    assert!(p.diagnostics.is_empty());
    let s = &p.value.snapshots[0];
    let sdb = s.device("sdb").unwrap();
    assert_eq!(
        (sdb.line, sdb.fields, sdb.sectors_discarded, sdb.flushes),
        (47, 18, Some(1_925_173_784), None)
    );
    let sdc = s.device("sdc").unwrap();
    assert_eq!((sdc.fields, sdc.flushes, sdc.ms_flushing), (20, Some(127), Some(182)));
    assert_eq!(s.device("mmcblk0p1").unwrap().fields, 14);
    let v = iosift_parsers::Summary::variant(&p.value);
    assert_eq!(v.get("fields").map(String::as_str), Some("14,18,20"));

    // sysstat's test file has a 17-field line no kernel prints: kept, with a note.
    let p = proc_diskstats::Fmt::parse(&corpus("diskstats/sysstat-tests__root1_proc_diskstats.txt"));
    assert_eq!(p.diagnostics.len(), 1);
    assert_eq!((p.diagnostics[0].line, p.diagnostics[0].kind), (21, DiagKind::FieldCount));
    assert_eq!(p.skipped_lines, 0);
    let sds = p.value.snapshots[0].device("sds").unwrap();
    assert_eq!((sds.fields, sds.weighted_ms, sds.discards), (17, 7902, None));
}

#[test]
fn fixtures_ts_before_series() {
    let p = proc_meminfo::Fmt::parse(&fixture("meminfo_ts3.txt"));
    assert!(p.diagnostics.is_empty());
    let s = &p.value;
    assert_eq!(s.column("Dirty"), vec![Some(729_904), Some(713_460), Some(755_760)]);
    assert_eq!(s.snapshots.iter().map(|x| x.line).collect::<Vec<_>>(), vec![1, 56, 111]);
    assert_eq!(s.snapshots[2].ts.unwrap().utc_offset_s(), Some(0));
    let (a, b) = iosift_parsers::Summary::time_range(s).unwrap();
    assert!(a.display().starts_with("2026-11-29T21:01:19.2874"), "{}", a.display());
    assert!(b.display().starts_with("2026-11-29T21:01:21.31"));

    let p = proc_vmstat::Fmt::parse(&fixture("vmstat_ts3.txt"));
    assert!(p.diagnostics.is_empty());
    assert_eq!(p.value.column("nr_dirtied"), vec![Some(3_241_329), Some(3_246_254), Some(3_251_346)]);
    assert_eq!(p.value.snapshots[0].values.len(), 192);

    let p = proc_diskstats::Fmt::parse(&fixture("diskstats_ts2.txt"));
    assert!(p.diagnostics.is_empty());
    let vda = p.value.snapshots[1].device("vda").unwrap();
    assert_eq!((vda.line, vda.sectors_written, vda.flushes), (21, 21_571_200, Some(19_883)));
}

#[test]
fn fixture_ts_after_layout() {
    let data = fixture("meminfo_ts_after.txt");
    assert_eq!(proc_meminfo::Fmt::sniff(&data), Sniff::Yes);
    let p = proc_meminfo::Fmt::parse(&data);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    let s = &p.value;
    assert_eq!(s.layout, Some(Layout::TsAfter));
    assert_eq!(s.snapshots.len(), 3);
    // Same snapshots as the TS-before original, stamped by the TS line after them.
    assert_eq!(s.column("Dirty"), vec![Some(729_904), Some(713_460), Some(755_760)]);
    assert_eq!(s.snapshots.iter().map(|x| x.line).collect::<Vec<_>>(), vec![1, 56, 111]);
    assert!(s.snapshots[0].ts.unwrap().local.is_some());
    assert!((s.snapshots[1].epoch().unwrap() - 1_795_986_080.296_579_5).abs() < 1e-6);
    assert!(s.snapshots[1].ts.unwrap().local.is_none());
    assert_eq!(s.snapshots[2].epoch(), Some(1_795_986_081.0));
    assert!(s.snapshots.iter().all(|x| !x.truncated));
}

#[test]
fn fixture_truncated_last_block() {
    let data = fixture("meminfo_truncated.txt");
    let p = proc_meminfo::Fmt::parse(&data);
    let s = &p.value;
    assert_eq!(s.snapshots.len(), 3);
    assert!(!s.snapshots[1].truncated);
    let last = &s.snapshots[2];
    assert!(last.truncated);
    assert_eq!(last.line, 111);
    assert_eq!(last.get("MemTotal"), Some(24_684_084));
    // The cut `Dirty:      ` line is not trusted.
    assert_eq!(last.get("Dirty"), None);
    let kinds: Vec<_> = p.diagnostics.iter().map(|d| (d.line, d.kind)).collect();
    assert_eq!(kinds, vec![(130, DiagKind::Truncated), (130, DiagKind::Truncated)]);
    assert_eq!(p.skipped_lines, 1);
    assert_eq!(
        iosift_parsers::Summary::variant(s).get("truncated").map(String::as_str),
        Some("last snapshot")
    );
}

#[test]
fn fixture_numa_node_meminfo() {
    let data = fixture("node0_meminfo.txt");
    assert_eq!(proc_meminfo::Fmt::sniff(&data), Sniff::Yes);
    let p = proc_meminfo::Fmt::parse(&data);
    assert!(p.diagnostics.is_empty());
    let snap = &p.value.snapshots[0];
    assert_eq!(snap.values.len(), 36);
    assert_eq!(snap.node(0, "MemTotal"), Some(9_791_692));
    assert_eq!(snap.node(0, "FileHugePages"), Some(1_107_968));
    assert_eq!(snap.node(0, "HugePages_Surp"), Some(0));
    assert_eq!(snap.get("Node 0 MemFree"), Some(3_559_308));
    assert_eq!(snap.node(1, "MemTotal"), None);
    assert_eq!(iosift_parsers::Summary::variant(&p.value).get("numa").map(String::as_str), Some("per-node"));
}

#[test]
fn fixture_14_field_diskstats() {
    let data = fixture("diskstats_14.txt");
    assert_eq!(proc_diskstats::Fmt::sniff(&data), Sniff::Yes);
    let p = proc_diskstats::Fmt::parse(&data);
    assert!(p.diagnostics.is_empty());
    let d = &p.value;
    assert_eq!(d.snapshots.len(), 2);
    let vda = d.snapshots[0].device("vda").unwrap();
    assert_eq!((vda.fields, vda.sectors_written, vda.weighted_ms), (14, 21_560_840, 284_727));
    assert_eq!((vda.discards, vda.flushes), (None, None));
    assert!(d.snapshots[0].ts.unwrap().local.is_none());
}

#[test]
fn splitter_on_real_bundle_files() {
    need_shared!();
    for suffix in ["meminfo", "procvmstat", "diskstats"] {
        let data = read(shared().join(format!("{S1}-{suffix}")));
        let mut diags = iosift_parsers::common::Diags::default();
        let blocks = tsblocks::split(&data, &mut diags);
        assert_eq!(blocks.layout, Layout::TsBefore);
        assert_eq!(blocks.blocks.len(), 240, "{suffix}");
        assert!(diags.list.is_empty());
        let last = blocks.blocks.last().unwrap();
        assert!(!last.truncated);
        assert_eq!(last.ts.unwrap().local.unwrap().to_string(), "2026-11-29 19:41:18");
    }
}

/// The real pt-stalk `TS` series of samples/pt_stalk_mariadb (30 snapshots each, pt-stalk
/// 3.x on this machine), read in full and under a budget of a quarter of what they hold.
fn pt_stalk(kind: &str) -> Vec<u8> {
    read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../samples/pt_stalk_mariadb/capture/2026_12_01_19_14_22-{kind}")),
    )
}

/// Under a memory budget one snapshot in 2, 4, ... is kept (the later of each pair) and the
/// last one read always: each kept snapshot is the full parse's snapshot of the same `TS`,
/// value for value, so counters differenced between the first and last kept ones equal the
/// full series' (nothing is lost over the capture).
#[test]
fn a_memory_budget_keeps_one_snapshot_in_a_power_of_two_unchanged() {
    use iosift_parsers::common::SliceSource;
    use iosift_parsers::procfs::ts_budget::Snapshot;
    for kind in ["meminfo", "procvmstat", "diskstats"] {
        let text = pt_stalk(kind);
        // (snapshot epochs, their values as text, bytes held, stride, diagnostics) of a parse within `budget`.
        let run = |budget: usize| -> (Vec<f64>, Vec<String>, usize, u32, Vec<String>) {
            let mut src = SliceSource::new(&text);
            match kind {
                "diskstats" => {
                    let p = proc_diskstats::parse_source_within(&mut src, budget);
                    let s = &p.value.snapshots;
                    (
                        s.iter().map(|x| x.ts.unwrap().epoch).collect(),
                        s.iter().map(|x| format!("{:?}", x.devices)).collect(),
                        s.iter().map(Snapshot::bytes).sum(),
                        p.value.thinned,
                        p.diagnostics.iter().map(|d| format!("{} {}", d.line, d.text)).collect(),
                    )
                }
                _ => {
                    let p = if kind == "meminfo" {
                        proc_meminfo::parse_source_within(&mut src, budget)
                    } else {
                        proc_vmstat::parse_source_within(&mut src, budget)
                    };
                    let s = &p.value.snapshots;
                    (
                        s.iter().map(|x| x.ts.unwrap().epoch).collect(),
                        s.iter().map(|x| format!("{:?}", x.iter().collect::<Vec<_>>())).collect(),
                        s.iter().map(Snapshot::bytes).sum(),
                        p.value.thinned,
                        p.diagnostics.iter().map(|d| format!("{} {}", d.line, d.text)).collect(),
                    )
                }
            }
        };
        let (t_all, v_all, bytes_all, stride_all, d_all) = run(0);
        assert_eq!((t_all.len(), stride_all, d_all.len()), (30, 0, 0), "{kind}");
        let (t, v, bytes, stride, diags) = run(bytes_all / 4);
        // 30 snapshots within a quarter: one in 4 or 8 kept, plus the last.
        assert!(stride == 4 || stride == 8, "{kind}: stride {stride}");
        let s = stride as usize;
        let mut want: Vec<usize> = (1..=30).filter(|a| a % s == 0).map(|a| a - 1).collect();
        if want.last() != Some(&29) {
            want.push(29);
        }
        assert_eq!(t, want.iter().map(|&i| t_all[i]).collect::<Vec<_>>(), "{kind}");
        assert_eq!(v, want.iter().map(|&i| v_all[i].clone()).collect::<Vec<_>>(), "{kind}");
        // Within the budget, but for the last snapshot read (kept whatever its number).
        let last = bytes_all / 30;
        assert!(bytes <= bytes_all / 4 + 2 * last, "{kind}: {bytes} of {bytes_all}");
        assert_eq!(diags.len(), 1, "{kind}: {diags:?}");
        assert!(diags[0].starts_with("1 one snapshot in "), "{kind}: {diags:?}");
    }
}

/// Issue 33: a garbled `TS` epoch (`1796113130` for `1796153130`, 11 h early) used to move
/// its snapshot and stretch the capture; now it is placed between its neighbours with a
/// `bad_time` diagnostic on its line, in the whole-file and the streamed parse alike.
#[test]
fn a_ts_epoch_that_breaks_the_series_is_placed_by_it() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../samples/mx_xfs_loop_mmap_2m/capture");
    for (name, fmt) in
        [("2026_12_01_19_25_08-meminfo", "meminfo"), ("2026_12_01_19_25_08-diskstats", "diskstats")]
    {
        let text = String::from_utf8(read(dir.join(name))).unwrap();
        let line = text.lines().position(|l| l.starts_with("TS 1796153130.")).unwrap() + 1;
        let g = text.replacen("TS 1796153130.", "TS 1796113130.", 1);
        let parses = match fmt {
            "meminfo" => {
                let f = |b: &[u8]| {
                    let p = proc_meminfo::Fmt::parse(b);
                    (
                        p.value.snapshots.iter().map(|s| (s.line, s.ts.unwrap().epoch)).collect::<Vec<_>>(),
                        p.diagnostics,
                    )
                };
                [f(text.as_bytes()), f(g.as_bytes())]
            }
            _ => {
                let f = |b: &[u8]| {
                    let p = proc_diskstats::Fmt::parse(b);
                    (
                        p.value.snapshots.iter().map(|s| (s.line, s.ts.unwrap().epoch)).collect::<Vec<_>>(),
                        p.diagnostics,
                    )
                };
                [f(text.as_bytes()), f(g.as_bytes())]
            }
        };
        let [(clean, _), (placed, diags)] = parses;
        assert_eq!(clean.len(), placed.len());
        for (a, b) in clean.iter().zip(&placed) {
            assert_eq!(a.0, b.0);
            let off = if a.0 == line { 0.05 } else { 0.0 };
            assert!((a.1 - b.1).abs() <= off, "{name}: line {}: {} vs {}", a.0, a.1, b.1);
        }
        let d: Vec<_> = diags.iter().filter(|d| d.kind == DiagKind::BadTime).collect();
        assert_eq!(d.len(), 1, "{name}: {diags:#?}");
        assert_eq!(d[0].line, line);
        assert!(d[0].text.contains("2026-12-01T08:18:50"), "{:?}", d[0]);
    }
}

fn sample(rel: &str) -> Vec<u8> {
    read(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../samples")).join(rel))
}

/// pt-stalk's `-dmesg` and `-procstat` of samples/pt_stalk_hung_task: a `dd` blocked on a frozen
/// ext4 (the kernel reported it after 5 s, hung_task_timeout_secs lowered to 5 for the run).
#[test]
fn pt_stalk_dmesg_hung_task_and_procstat() {
    use iosift_parsers::dmesg::Kind;
    use iosift_parsers::{Data, common::Stamp};
    let d = detect(&sample("pt_stalk_hung_task/capture/2026_12_05_20_47_09-dmesg")).unwrap();
    assert_eq!(d.format.id, "dmesg");
    assert!(d.parsed.diagnostics.is_empty(), "{:?}", d.parsed.diagnostics.first());
    let Data::Dmesg(k) = d.parsed.value else { panic!() };
    // 33 lines, each a message with its `[ seconds]` stamp.
    assert_eq!(k.messages, 33);
    assert_eq!(k.events.len(), 1);
    let e = &k.events[0];
    // Line 4: `[ 4111.777212] INFO: task dd:26513 blocked for more than 5 seconds.`
    assert_eq!((e.line, e.stamp), (4, Some(Stamp::SinceBoot(4111.777212))));
    let Kind::HungTask { task, pid, secs, stack } = &e.kind else { panic!("{:?}", e.kind) };
    assert_eq!((task.as_str(), *pid, *secs), ("dd", 26513, 5));
    // The reliable frames between `<TASK>` and `</TASK>` (the `? ...` ones left out).
    assert_eq!(
        stack[..6],
        [
            "__schedule",
            "schedule",
            "percpu_rwsem_wait",
            "__percpu_down_read",
            "mnt_want_write",
            "path_openat"
        ]
    );
    assert!(!stack.iter().any(|f| f.contains("__pfx_")));
    let p = detect(&sample("pt_stalk_hung_task/capture/2026_12_05_20_47_09-procstat")).unwrap();
    assert_eq!(p.format.id, "proc_stat");
    assert!(p.parsed.diagnostics.is_empty(), "{:?}", p.parsed.diagnostics.first());
    let Data::ProcStat(s) = p.parsed.value else { panic!() };
    // 30 `TS` snapshots; `btime 1796499514`; procs_blocked peaks at 3.
    assert_eq!(s.snapshots.len(), 30);
    assert_eq!(s.btime, Some(1796499514));
    assert_eq!(s.snapshots.iter().filter_map(|x| x.blocked).max(), Some(3));
    // `TS 1796503631.014891181 2026-12-05 20:47:11` (an f64 keeps the microseconds).
    assert!((s.snapshots[0].ts.unwrap().epoch - 1_796_503_631.014_891).abs() < 1e-6);
    assert_eq!(s.snapshots[0].cpu[..4], [724289, 818, 57889, 20447]);
}

/// The kernel's I/O-error, file-system-error and OOM formats in the three stamp forms
/// (a hand-written fixture, fixtures/dmesg/README.md says why).
#[test]
fn dmesg_io_errors_fixture() {
    use iosift_parsers::Data;
    use iosift_parsers::dmesg::Kind;
    let d = detect(&fixture("../dmesg/io-errors.txt")).unwrap();
    assert_eq!(d.format.id, "dmesg");
    assert!(d.parsed.diagnostics.is_empty(), "{:?}", d.parsed.diagnostics);
    let Data::Dmesg(k) = d.parsed.value else { panic!() };
    assert_eq!(k.messages, 8);
    let got: Vec<String> = k
        .events
        .iter()
        .map(|e| match &e.kind {
            Kind::IoError { device } => format!("io {device}"),
            Kind::FsError { device } => format!("fs {device}"),
            Kind::OomKill { pid, task } => format!("oom {task} {pid}"),
            Kind::HungTask { task, .. } => format!("hung {task}"),
        })
        .collect();
    assert_eq!(got, ["io sdb", "io sdb1", "fs sdb1", "fs sdc1", "io sdd", "oom mariadbd 4242", "io nvme0n1"]);
}

/// pt-mysql-summary's `--save-samples` `mysql-status` (SHOW GLOBAL STATUS in batch form,
/// `Aborted_clients\t0`) has the shape of /proc/vmstat but capitalised names: not /proc/vmstat.
/// Its first 16 lines, real (pt-mysql-summary 3.2.1 against MariaDB 10.11.19, made here on 2026-12-05).
#[test]
fn show_global_status_is_not_proc_vmstat() {
    let status = b"Aborted_clients\t0\n\
Aborted_connects\t0\n\
Aborted_connects_preauth\t0\n\
Access_denied_errors\t0\n\
Acl_column_grants\t0\n\
Acl_database_grants\t3\n\
Acl_function_grants\t0\n\
Acl_procedure_grants\t0\n\
Acl_package_spec_grants\t0\n\
Acl_package_body_grants\t0\n\
Acl_proxy_users\t2\n\
Acl_role_grants\t0\n\
Acl_roles\t1\n\
Acl_table_grants\t1\n\
Acl_users\t5\n\
Aria_pagecache_blocks_not_flushed\t5\n";
    assert_eq!(proc_vmstat::Fmt::sniff(status), Sniff::No);
    assert_ne!(detect(status).map(|d| d.format.id), Some("proc_vmstat"));
    // The same sniff still takes /proc/vmstat.
    assert_eq!(
        proc_vmstat::Fmt::sniff(b"nr_free_pages 3684210\nnr_zone_inactive_anon 7\nnr_dirty 58\n"),
        Sniff::Yes
    );
}
