//! Archives customers send (issue 17): `.tar.xz`, `.xz`, `.tar.bz2`, `.bz2`, pre-POSIX
//! (v7) tar and zip members compressed with bzip2, LZMA, xz and zstd are read in
//! place; 7-Zip, RAR, lzip, lz4 and `compress` files are named as unsupported; the
//! members of an encrypted zip are named in one problem. Every archive is generated
//! here from the repository's samples.

mod common;

use common::archives::{self, Seed};
use iosift::bundle::{BundleError, Limits, load};
use std::path::{Path, PathBuf};

fn sample(rel: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(rel)).unwrap()
}

fn write(dir: &Path, name: &str, data: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, data).unwrap();
    p
}

#[test]
fn every_compression_and_archive_kind_is_read_in_place() {
    let vm = sample("replica_sql_bound/capture/vmstat-t.txt");
    let io = sample("replica_sql_bound/capture/iostat-x-t.txt");
    let members = [("cap/vmstat-t.txt", &vm[..]), ("cap/iostat-x-t.txt", &io[..])];
    let tmp = tempfile::tempdir().unwrap();
    for seed in Seed::ALL {
        let bytes = seed.build(&members);
        let path = write(tmp.path(), seed.file_name(), &bytes);
        let b = load(&[path], &Limits::default()).unwrap();
        assert!(b.problems.is_empty(), "{seed:?}: {:?}", b.problems);
        let got: Vec<(&str, &[u8])> = b.files.iter().map(|f| (f.name.as_str(), &f.data[..])).collect();
        let want: Vec<(String, &[u8])> = if seed.is_single_stream() {
            vec![(seed.file_name().to_string(), &vm[..])]
        } else {
            let mut w: Vec<_> =
                members.iter().map(|(n, d)| (format!("{}!{n}", seed.file_name()), *d)).collect();
            w.sort();
            w
        };
        let want: Vec<(&str, &[u8])> = want.iter().map(|(n, d)| (n.as_str(), *d)).collect();
        assert!(got == want, "{seed:?}: {:?}", got.iter().map(|(n, d)| (n, d.len())).collect::<Vec<_>>());
    }
}

#[test]
fn a_tar_xz_capture_is_analyzed_like_its_folder() {
    let vm = sample("replica_sql_bound/capture/vmstat-t.txt");
    let io = sample("replica_sql_bound/capture/iostat-x-t.txt");
    let tmp = tempfile::tempdir().unwrap();
    let bytes = Seed::TarXz.build(&[("cap/vmstat-t.txt", &vm[..]), ("cap/iostat-x-t.txt", &io[..])]);
    let path = write(tmp.path(), "case.tar.xz", &bytes);
    let b = load(&[path], &Limits::default()).unwrap();
    assert_eq!(b.name, "case");
    let r = iosift::analyze::analyze(&b, &iosift::pipeline::Options::default());
    let inputs = &r.doc.bundle.inputs;
    let fmt = |p: &str| inputs.iter().find(|i| i.path == p).and_then(|i| i.format);
    assert_eq!(fmt("case.tar.xz!cap/vmstat-t.txt"), Some("vmstat"), "{inputs:?}");
    assert_eq!(fmt("case.tar.xz!cap/iostat-x-t.txt"), Some("iostat"), "{inputs:?}");
    let vmi = inputs.iter().find(|i| i.path == "case.tar.xz!cap/vmstat-t.txt").unwrap();
    // The folder's vmstat-t.txt has these records too (samples/replica_sql_bound).
    assert!(vmi.records > 50, "{vmi:?}");
}

#[test]
fn unsupported_archives_are_named_by_their_magic() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("cap");
    std::fs::create_dir(&cap).unwrap();
    let kinds: [(&str, &[u8], &str); 5] = [
        ("a.7z", b"7z\xBC\xAF\x27\x1C\x00\x04rest", "7-Zip"),
        ("a.rar", b"Rar!\x1A\x07\x01\x00rest", "RAR"),
        ("a.lz", b"LZIP\x01\x0crest", "lzip"),
        ("a.lz4", b"\x04\x22\x4D\x18rest", "lz4"),
        ("a.Z", b"\x1F\x9D\x90rest", "compress"),
    ];
    for (n, d, _) in &kinds {
        write(&cap, n, d);
    }
    let b = load(&[cap], &Limits::default()).unwrap();
    assert!(b.files.is_empty(), "{:?}", b.files.iter().map(|f| &f.name).collect::<Vec<_>>());
    for (n, _, kind) in kinds {
        let p = b.problems.iter().find(|p| p.name == n).unwrap_or_else(|| panic!("{n}: {:?}", b.problems));
        assert!(p.message.contains(kind) && p.message.contains("not supported"), "{p:?}");
    }
}

#[test]
fn an_encrypted_zip_is_one_problem_naming_its_members() {
    let tmp = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..29).map(|i| format!("cap/file-{i:02}.txt")).collect();
    let members: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"secret\n"[..])).collect();
    let z = archives::encrypted_flag(archives::zip(&members, zip::CompressionMethod::Stored));
    let path = write(tmp.path(), "enc.zip", &z);
    let b = load(&[path], &Limits::default()).unwrap();
    assert!(b.files.is_empty());
    assert_eq!(b.problems.len(), 1, "{:?}", b.problems);
    let p = &b.problems[0];
    assert_eq!(p.name, "enc.zip");
    assert!(p.message.contains("encrypted (password protected)"), "{p:?}");
    assert!(p.message.contains("29 members (cap/file-00.txt, cap/file-01.txt,"), "{p:?}");
    assert!(p.message.ends_with("cap/file-09.txt and 19 more)"), "{p:?}");
}

#[test]
fn a_tar_header_claiming_more_than_the_archive_holds_is_cut_short_not_a_size_limit() {
    let vm = sample("replica_sql_bound/capture/vmstat-t.txt");
    let mut t = archives::tar(&[("cap/a.txt", b"first\n"), ("cap/vmstat-t.txt", &vm[..])]);
    // The second header's size field (offset 124, 11 octal digits) claims 8 GiB.
    let h = 512 + 512;
    t[h + 124..h + 136].copy_from_slice(b"77777777777\0");
    let sum: u32 = t[h..h + 512]
        .iter()
        .enumerate()
        .map(|(i, &b)| if (148..156).contains(&i) { 32 } else { u32::from(b) })
        .sum();
    t[h + 148..h + 156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    let tmp = tempfile::tempdir().unwrap();
    let b = load(&[write(tmp.path(), "c.tar", &t)], &Limits::default()).unwrap();
    let names: Vec<&str> = b.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["c.tar!cap/a.txt", "c.tar!cap/vmstat-t.txt"], "{:?}", b.problems);
    assert!(b.files[1].data.starts_with(&vm), "what the archive holds is read");
    let p = &b.problems[0];
    assert_eq!(p.name, "c.tar!cap/vmstat-t.txt");
    assert!(p.message.contains("cut short") && p.message.contains("8589934591 bytes its header"), "{p:?}");
}

#[test]
fn a_bomb_of_every_kind_stops_at_max_bytes() {
    let zeros = vec![0u8; 4 << 20];
    let tmp = tempfile::tempdir().unwrap();
    let limits = Limits { max_total_bytes: 1 << 20, ..Limits::default() };
    for seed in Seed::ALL {
        let bytes = seed.build(&[("cap/zeros.txt", &zeros[..])]);
        let path = write(tmp.path(), seed.file_name(), &bytes);
        match load(&[path], &limits) {
            Err(BundleError::Limit(m)) => assert!(m.contains("--max-bytes"), "{seed:?}: {m}"),
            other => panic!("{seed:?}: {:?}", other.map(|b| (b.files.len(), b.problems))),
        }
    }
}

#[test]
fn an_lzma_member_announcing_a_4_gib_dictionary_is_a_problem_not_an_allocation() {
    let vm = sample("replica_sql_bound/capture/vmstat-t.txt");
    let mut z = archives::zip_lzma(&[("cap/vmstat-t.txt", &vm[..]), ("cap/iostat.txt", b"second\n")]);
    // Local header (30 bytes) + name, then 09 14 05 00, the properties byte and the dictionary size.
    let at = 30 + "cap/vmstat-t.txt".len() + 5;
    z[at..at + 4].copy_from_slice(&[0xFF; 4]);
    let tmp = tempfile::tempdir().unwrap();
    let b = load(&[write(tmp.path(), "big-dict.zip", &z)], &Limits::default()).unwrap();
    let names: Vec<&str> = b.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["big-dict.zip!cap/iostat.txt"], "the other member is read");
    assert_eq!(b.problems.len(), 1, "{:?}", b.problems);
    let p = &b.problems[0];
    assert_eq!(p.name, "big-dict.zip!cap/vmstat-t.txt");
    assert!(p.message.contains("dict size too large"), "{p:?}");
}

#[test]
fn a_zip_member_in_a_method_not_read_is_named_with_its_method() {
    let mut z = archives::zip(
        &[("cap/a.txt", b"first\n"), ("cap/b.txt", b"second\n")],
        zip::CompressionMethod::Stored,
    );
    // Member b becomes PPMd (method 98) in its local (offset 8) and central (offset 10) headers.
    let local = z.windows(4).enumerate().filter(|(_, w)| *w == b"PK\x03\x04").map(|(i, _)| i).nth(1).unwrap();
    let central =
        z.windows(4).enumerate().filter(|(_, w)| *w == b"PK\x01\x02").map(|(i, _)| i).nth(1).unwrap();
    z[local + 8..local + 10].copy_from_slice(&98u16.to_le_bytes());
    z[central + 10..central + 12].copy_from_slice(&98u16.to_le_bytes());
    let tmp = tempfile::tempdir().unwrap();
    let b = load(&[write(tmp.path(), "ppmd.zip", &z)], &Limits::default()).unwrap();
    let names: Vec<&str> = b.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["ppmd.zip!cap/a.txt"]);
    assert_eq!(b.problems.len(), 1, "{:?}", b.problems);
    assert_eq!(b.problems[0].name, "ppmd.zip!cap/b.txt");
    assert!(
        b.problems[0].message.starts_with("compressed with PPMd (method 98), which iosift does not read"),
        "{:?}",
        b.problems
    );
}
