//! Real-file tests of the `smaps` parser: bundle s1 (`gcache_sim.smaps`,
//! `gcache_sim.smaps_rollup`), the shared corpus and fixtures made on this machine.

#[macro_use]
#[path = "support/shared.rs"]
mod support;

use iosift_parsers::common::decode::maybe_gunzip;
use iosift_parsers::common::{Format, Sniff, Summary};
use iosift_parsers::{detect, smaps};
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

fn parse_clean(data: &[u8]) -> smaps::Smaps {
    assert_eq!(smaps::Fmt::sniff(data), Sniff::Yes);
    let p = smaps::Fmt::parse(data);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    assert_eq!(p.skipped_lines, 0);
    p.value
}

#[test]
fn s1_gcache_mapping() {
    need_shared!();
    let s = parse_clean(&read(shared().join("bundles/s1_mmap_writeback/gcache_sim.smaps")));
    assert!(!s.rollup);
    assert_eq!(s.mappings.len(), 29);
    // The file starts with a TS line: a separator, with its time.
    assert_eq!(s.separators.len(), 1);
    assert_eq!(s.separators[0].0, 1);
    assert_eq!(s.ts_lines.len(), 1);
    assert_eq!(s.ts_lines[0].1.local.unwrap().to_string(), "2026-11-29 19:38:27");
    assert!(s.time_range().is_some());

    let g: Vec<_> = s.by_path("/var/lib/app/gcache.dat").collect();
    assert_eq!(g.len(), 1);
    let g = g[0];
    assert_eq!(g.line, 252);
    assert_eq!((g.start, g.end), (0x7f26_bae0_0000, 0x7f26_fae0_0000));
    assert_eq!((g.perms.as_str(), g.offset, g.dev.as_str(), g.inode), ("rw-s", 0, "fe:00", 10_035_510));
    assert_eq!(g.get("Size"), Some(1_048_576));
    assert_eq!(g.get("Rss"), Some(1_048_576));
    assert_eq!(g.get("Private_Dirty"), Some(89_960));
    assert_eq!(g.get("Pss_Dirty"), Some(89_960));
    assert_eq!(g.get("FilePmdMapped"), Some(0));
    assert_eq!(g.get("AnonHugePages"), Some(0));
    assert_eq!(g.get("THPeligible"), Some(0));
    assert_eq!(g.vmflags, vec!["rd", "wr", "sh", "mr", "mw", "me", "ms", "rr"]);
    assert!(g.is_file());
    // Field order as printed (6.x set: Pss_Dirty and KSM present).
    let keys: Vec<&str> = g.fields.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(&keys[..6], &["Size", "KernelPageSize", "MMUPageSize", "Rss", "Pss", "Pss_Dirty"]);
    assert_eq!(keys.len(), 23);
    assert!(s.total("Rss") >= 1_048_576);
    assert_eq!(s.total("FilePmdMapped"), 0);
}

#[test]
fn s1_gcache_rollup() {
    need_shared!();
    let s = parse_clean(&read(shared().join("bundles/s1_mmap_writeback/gcache_sim.smaps_rollup")));
    assert!(s.rollup);
    assert_eq!(s.mappings.len(), 1);
    let r = &s.mappings[0];
    assert_eq!(r.path, "[rollup]");
    assert_eq!(r.perms, "---p");
    assert_eq!(r.get("Rss"), Some(1_050_108));
    assert_eq!(r.get("Pss_Dirty"), Some(90_160));
    assert_eq!(r.get("Pss_File"), Some(1_048_635));
    assert_eq!(r.get("Private_Dirty"), Some(90_160));
    assert_eq!(r.get("FilePmdMapped"), Some(0));
    assert!(r.vmflags.is_empty());
    assert_eq!(s.total("Private_Dirty"), 90_160);
    assert_eq!(s.variant().get("kind").map(String::as_str), Some("smaps_rollup"));
}

#[test]
fn corpus_generations() {
    need_shared!();
    let c = |n: &str| read(shared().join("corpus/smaps").join(n));
    // 5.x: `THPeligible:\t\t0` (two TABs).
    let s = parse_clean(&c("jc__linux-proc__pid_smaps.txt"));
    assert_eq!(s.mappings[0].path, "/usr/lib/systemd/systemd");
    assert_eq!(s.mappings[0].get("THPeligible"), Some(0));
    assert_eq!(s.mappings[0].get("Size"), Some(208));
    // A `(deleted)` path keeps its suffix.
    let s = parse_clean(&c("pcp-qa__procpid-5.5.7_proc_1_smaps.txt"));
    let del = s.mappings.iter().find(|m| m.line == 323).unwrap();
    assert_eq!(del.path, "/etc/selinux/targeted/contexts/files/file_contexts.bin (deleted)");
    // 4.x: no FilePmdMapped / THPeligible.
    let s = parse_clean(&c("prometheus-procfs__proc_26231_smaps.txt"));
    assert_eq!(s.mappings[0].start, 0x0040_0000);
    assert_eq!(s.mappings[0].get("Size"), Some(8_900));
    assert!(s.mappings.iter().all(|m| m.get("FilePmdMapped").is_none()));
    let s = parse_clean(&c("prometheus-procfs__proc_26231_smaps_rollup.txt"));
    assert!(s.rollup);
    assert_eq!(s.mappings[0].end, 0xffff_ffff_ff60_1000);
    assert_eq!(s.total("Rss"), 29_948);
    // Anonymous mapping with a trailing space after the inode: empty path.
    let s = parse_clean(&c("sysstat-tests__root1_proc_8741_smaps.txt"));
    assert_eq!(s.mappings[0].path, "");
    assert_eq!(s.mappings[0].get("Size"), Some(4));
}

#[test]
fn fixtures_self_and_concatenated() {
    let s = parse_clean(&fixture("self_smaps.txt"));
    assert_eq!(s.mappings.len(), 39);
    let heap = s.mappings.iter().find(|m| m.path == "[heap]").unwrap();
    assert_eq!((heap.line, heap.get("Size"), heap.get("Rss")), (126, Some(132), Some(16)));
    assert!(s.separators.is_empty());

    let s = parse_clean(&fixture("self_smaps_rollup.txt"));
    assert!(s.rollup);
    assert_eq!(s.mappings[0].get("Rss"), Some(1_828));
    assert_eq!(s.mappings[0].get("Pss_File"), Some(88));

    let s = parse_clean(&fixture("concat_smaps.txt"));
    assert_eq!(s.mappings.len(), 67);
    assert_eq!(s.separators, vec![(1, "== 4406".to_string()), (1102, "== 4401".to_string())]);
    let memfd = s.mappings.iter().find(|m| m.line == 1503).unwrap();
    assert_eq!(memfd.path, "/memfd:sealed-91173221a7ea (deleted)");
    assert_eq!(memfd.get("Rss"), Some(40));
    assert_eq!(memfd.vmflags, vec!["rd", "mr", "mw", "me"]);
    assert_eq!(s.variant().get("separators").map(String::as_str), Some("2"));
}

#[test]
fn corpus_detection() {
    need_shared!();
    let manifest = String::from_utf8(read(shared().join("corpus/MANIFEST.tsv"))).unwrap();
    let mut n = 0;
    for line in manifest.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let mut it = line.split('\t');
        let (Some(file), Some(want)) = (it.next(), it.next()) else { continue };
        let path = shared().join("corpus").join(file);
        let files: Vec<PathBuf> = if path.is_dir() {
            std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()).collect()
        } else {
            vec![path]
        };
        for f in files {
            let raw = read(&f);
            let data = maybe_gunzip(&raw, 1 << 30).unwrap();
            let det = detect(&data);
            let got = det.as_ref().map(|d| d.format.id);
            if want.trim() == "smaps" {
                assert_eq!(got, Some("smaps"), "{file}");
                let p = &det.as_ref().unwrap().parsed;
                assert!(p.diagnostics.is_empty(), "{file}: {:?}", p.diagnostics);
                assert!(p.value.summary().records() > 0);
                n += 1;
            } else {
                assert_ne!(got, Some("smaps"), "{} (want {want})", f.display());
            }
        }
    }
    assert_eq!(n, 10);
}
