//! Archives customers send (issue 17): `.tar.xz`, `.xz`, `.tar.bz2`, `.bz2`, pre-POSIX
//! (v7) tar and zip members compressed with bzip2, LZMA, xz and zstd are read in
//! place; 7-Zip, RAR, lzip, lz4 and `compress` files are named as unsupported; the
//! members of an encrypted zip are named in one problem. Every archive is generated
//! here from the repository's samples.

use crate::common;

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

const BIN: &str = env!("CARGO_BIN_EXE_iosift");

/// An xz stream of `data` whose block header announces the LZMA2 dictionary
/// property `prop` (40: 4 GiB - 1), with the header's CRC32 made right again.
fn xz_with_dictionary(data: &[u8], prop: u8) -> Vec<u8> {
    let mut x = archives::xz(data);
    let size = (usize::from(x[12]) + 1) * 4;
    // Block header: size, flags (one filter, no sizes), filter 0x21 (LZMA2), 1 property byte.
    assert_eq!(&x[13..16], &[0, 0x21, 1]);
    x[16] = prop;
    let crc = archives::crc32(&x[12..12 + size - 4]);
    x[12 + size - 4..12 + size].copy_from_slice(&crc.to_le_bytes());
    x
}

#[test]
fn an_xz_announcing_a_4_gib_dictionary_is_a_problem_naming_it_not_a_panic() {
    let vm = sample("replica_sql_bound/capture/vmstat-t.txt");
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("cap");
    std::fs::create_dir(&cap).unwrap();
    let big = write(&cap, "big-dict.xz", &xz_with_dictionary(&vm, 40));
    write(&cap, "vmstat-t.txt.xz", &archives::xz(&vm));
    let b = load(&[cap], &Limits::default()).unwrap();
    let names: Vec<&str> = b.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["vmstat-t.txt.xz"], "the other file is read");
    assert_eq!(b.problems.len(), 1, "{:?}", b.problems);
    assert_eq!(b.problems[0].name, "big-dict.xz");
    let want = "dict size too large: xz block 1 needs a 4294967295-byte dictionary (4.0 GiB); iosift decodes with at most 1073741824 bytes (1.0 GiB): not read";
    assert!(b.problems[0].message.starts_with(want), "{:?}", b.problems);
    // The binary ended with a panic (exit 101) in lzma-rust2 before.
    let o = std::process::Command::new(BIN).arg("inspect").arg(&big).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("big-dict.xz: {want}")), "{err}");
}

#[test]
fn a_zstd_frame_asking_for_a_2_gib_window_is_refused_naming_it() {
    // A second frame: no single segment, window byte 0xA8 (2^31 bytes), one empty last raw block.
    let z = [&archives::zstd(b"first\n")[..], b"\x28\xB5\x2F\xFD\x00\xA8\x01\x00\x00"].concat();
    let tmp = tempfile::tempdir().unwrap();
    let b = load(&[write(tmp.path(), "w.zst", &z)], &Limits::default()).unwrap();
    assert!(b.files.is_empty());
    assert_eq!(b.problems.len(), 1, "{:?}", b.problems);
    assert_eq!(b.problems[0].name, "w.zst");
    assert!(
        b.problems[0]
            .message
            .starts_with("dict size too large: zstd frame 2 needs a 2147483648-byte dictionary (2.0 GiB)"),
        "{:?}",
        b.problems
    );
}

#[test]
fn a_zip_whose_members_overlap_is_refused_naming_them_and_the_rest_is_read() {
    let vm = sample("replica_sql_bound/capture/vmstat-t.txt");
    let z = archives::overlapping_zip(&[("cap/vmstat-t.txt", &vm[..])], 1 << 20, 12);
    // The bomb is real: every member decodes to the kernel.
    let mut za = zip::ZipArchive::new(std::io::Cursor::new(&z)).unwrap();
    for i in [0, 11] {
        let n = std::io::copy(&mut za.by_name(&format!("bomb/{i:04}.txt")).unwrap(), &mut std::io::sink());
        assert_eq!(n.unwrap(), 1 << 20);
    }
    let tmp = tempfile::tempdir().unwrap();
    let limits = Limits { max_total_bytes: 4 << 20, ..Limits::default() };
    let b = load(&[write(tmp.path(), "overlap.zip", &z)], &limits).unwrap();
    let names: Vec<&str> = b.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["overlap.zip!cap/vmstat-t.txt"]);
    assert_eq!(b.files[0].data[..], vm[..]);
    assert_eq!(b.problems.len(), 1, "{:?}", b.problems);
    assert_eq!(b.problems[0].name, "overlap.zip");
    assert_eq!(
        b.problems[0].message,
        "12 members share their compressed data with another member (an overlapping-files zip bomb): not read \
         (bomb/0000.txt, bomb/0001.txt, bomb/0002.txt, bomb/0003.txt, bomb/0004.txt, bomb/0005.txt, \
         bomb/0006.txt, bomb/0007.txt, bomb/0008.txt, bomb/0009.txt and 2 more)"
    );
}

#[test]
fn an_overlapping_zip_bomb_under_a_memory_limit_is_a_problem_not_an_abort() {
    // 40 members of 8 MiB each (320 MiB) from 8 KiB, under a 256 MiB address space.
    let Some(mut limited) = common::address_space_limited(256 << 20, BIN) else {
        println!("skipped: prlimit not found");
        return;
    };
    let vm = sample("replica_sql_bound/capture/vmstat-t.txt");
    let z = archives::overlapping_zip(&[("cap/vmstat-t.txt", &vm[..])], 8 << 20, 40);
    let tmp = tempfile::tempdir().unwrap();
    let o = limited.arg("inspect").arg(write(tmp.path(), "overlap.zip", &z)).output().unwrap();
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "no abort (134): {err}");
    assert!(err.contains("overlap.zip: 40 members share their compressed data with another member"), "{err}");
    assert!(out.contains("overlap.zip!cap/vmstat-t.txt\n  format: vmstat"), "{out}");
}

#[test]
fn a_zip_holding_a_name_twice_reads_both_copies_with_a_problem() {
    let mut z = archives::zip(
        &[("cap/a.txt", b"first copy\n"), ("cap/b.txt", b"second copy\n"), ("cap/c.txt", b"other\n")],
        zip::CompressionMethod::Deflated,
    );
    // Member b is renamed a, in its local header and in the central directory.
    let at: Vec<usize> =
        z.windows(9).enumerate().filter(|(_, w)| *w == b"cap/b.txt").map(|(i, _)| i).collect();
    assert_eq!(at.len(), 2);
    for i in at {
        z[i + 4] = b'a';
    }
    let tmp = tempfile::tempdir().unwrap();
    let b = load(&[write(tmp.path(), "twice.zip", &z)], &Limits::default()).unwrap();
    let got: Vec<(&str, &[u8])> = b.files.iter().map(|f| (f.name.as_str(), &f.data[..])).collect();
    assert_eq!(
        got,
        [
            ("twice.zip!cap/a.txt", &b"first copy\n"[..]),
            ("twice.zip!cap/a.txt#2", b"second copy\n"),
            ("twice.zip!cap/c.txt", b"other\n")
        ]
    );
    assert_eq!(b.problems.len(), 1, "{:?}", b.problems);
    assert_eq!(b.problems[0].name, "twice.zip!cap/a.txt");
    assert_eq!(
        b.problems[0].message,
        "the archive holds this name more than once: the copy number 2 is read as twice.zip!cap/a.txt#2"
    );
}

#[test]
fn bombs_of_every_stream_kind_stop_at_max_bytes_in_bounded_memory() {
    // 320 MiB of zeros each, --max-bytes 256 MiB, a 200 MiB address space: the bomb must
    // be refused at the limit without growing a buffer towards it.
    let Some(_) = common::address_space_limited(0, BIN) else {
        println!("skipped: prlimit not found");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let chunk = vec![0u8; 4 << 20];
    let runs: Vec<(&str, std::process::Child)> = [Seed::Gz, Seed::Zst, Seed::Xz, Seed::Bz2]
        .into_iter()
        .map(|seed| {
            let path = write(tmp.path(), seed.file_name(), &archives::repeated(seed, &chunk, 80));
            let child = common::address_space_limited(200 << 20, BIN)
                .unwrap()
                .args(["inspect", "--max-bytes", &(256u64 << 20).to_string()])
                .arg(path)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            (seed.file_name(), child)
        })
        .collect();
    for (name, child) in runs {
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{name}: no abort (134): {err}");
        let want = format!(
            "{name}: decompressing would pass the total size limit (268435456 bytes left of 268435456; raise with --max-bytes)"
        );
        assert!(err.contains(&want), "{name}: {err}");
    }
}

#[test]
fn a_large_gz_and_tgz_cost_about_their_decoded_size_in_memory() {
    // 96 MiB of text from each, under a 224 MiB address space: besides the ~76 MiB a
    // run needs, the decoded bytes fit once, not twice (.gz) or three times (.tgz members).
    let Some(_) = common::address_space_limited(0, BIN) else {
        println!("skipped: prlimit not found");
        return;
    };
    let line = format!("{:<63}\n", "gzipped text of no capture format, 64 bytes a line");
    let chunk = line.repeat(16384).into_bytes();
    let piece = archives::gzip(&chunk);
    let mut tgz = Vec::new();
    for name in ["cap/one.txt", "cap/two.txt"] {
        let mut h = tar::Header::new_gnu();
        h.set_path(name).unwrap();
        h.set_size(48 << 20);
        h.set_mode(0o644);
        h.set_cksum();
        tgz.extend(archives::gzip(h.as_bytes()));
        tgz.extend(piece.repeat(48));
    }
    tgz.extend(archives::gzip(&[0; 1024]));
    let tmp = tempfile::tempdir().unwrap();
    let runs: Vec<_> = [("big.txt.gz", piece.repeat(96)), ("big.tgz", tgz)]
        .into_iter()
        .map(|(name, bytes)| {
            let child = common::address_space_limited(224 << 20, BIN)
                .unwrap()
                .arg("inspect")
                .arg(write(tmp.path(), name, &bytes))
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            (name, child)
        })
        .collect();
    for (name, child) in runs {
        let o = child.wait_with_output().unwrap();
        let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        // Exit 1: no file is of a known format (the text is none); 134 was an abort.
        assert_eq!((o.status.code(), err.as_ref()), (Some(1), ""), "{name}: {out}");
        let want: &[&str] = if name == "big.tgz" {
            &[
                "big.tgz!cap/one.txt\n  format: not recognised\n  records: 0, lines: 786432,",
                "big.tgz!cap/two.txt\n",
            ]
        } else {
            &["big.txt.gz\n  format: not recognised\n  records: 0, lines: 1572864,"]
        };
        for w in want {
            assert!(out.contains(w), "{name}: {out}");
        }
    }
}
