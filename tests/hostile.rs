//! Hostile input at the bundle level, through `iosift::bundle::load` and
//! `iosift::analyze::analyze`: real capture files cut at report boundaries,
//! binary garbage, NUL bytes, invalid UTF-8, a single 50 MB line (not 1 GB:
//! the point is linear behaviour, and `cargo test` must stay fast), 2 million
//! tiny lines, overflowing / negative / NaN numbers, time going backwards,
//! duplicate stamps, two runs concatenated, gzip and zip bombs, tar entries
//! with `../` and absolute paths and links, archives nested too deep and too
//! many files. Each gives a problem, a diagnostic or a limit error that names
//! the limit and the flag raising it; the rest of the bundle is analyzed;
//! nothing panics and nothing is written anywhere.

use crate::common;

use iosift::analyze::analyze;
use iosift::bundle::{Bundle, BundleError, Limits, load};
use iosift::model::{InputInfo, Report};
use iosift::pipeline::Options;
use std::io::Write;
use std::path::Path;

/// A real file of the s1 bundle, or `None` (with a note) when ../shared is missing.
fn s1(name: &str) -> Option<Vec<u8>> {
    let p = common::support::path("bundles/s1_mmap_writeback").join(name);
    match std::fs::read(&p) {
        Ok(b) => Some(b),
        Err(_) => {
            common::support::skip(&format!("{} not found", p.display()));
            None
        }
    }
}

/// Writes `files` into a fresh folder and returns it.
fn folder(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, data) in files {
        std::fs::write(dir.path().join(name), data).unwrap();
    }
    dir
}

fn small_limits() -> Limits {
    Limits { max_total_bytes: 8 << 20, max_files: 50, max_depth: 3 }
}

fn load_dir(dir: &Path, limits: &Limits) -> Bundle {
    load(&[dir.to_path_buf()], limits).expect("bundle loads")
}

fn input<'r>(r: &'r Report, name: &str) -> &'r InputInfo {
    r.doc.bundle.inputs.iter().find(|i| i.path.ends_with(name)).unwrap_or_else(|| {
        panic!("no input {name}: {:?}", r.doc.bundle.inputs.iter().map(|i| &i.path).collect::<Vec<_>>())
    })
}

/// The first 60 s of s1's iostat (sysstat 12.7, `-x -t`, C locale).
fn iostat_head() -> Option<Vec<u8>> {
    let all = s1("iostat-x-t.txt")?;
    let text = String::from_utf8(all).unwrap();
    Some(text.split_inclusive("\n\n\n").take(60).collect::<String>().into_bytes())
}

fn vda_writes(r: &Report) -> Vec<f64> {
    r.timeline.get("dev.vda.w_bytes_s").map(|s| s.iter().flatten().collect()).unwrap_or_default()
}

#[test]
fn files_cut_at_every_report_boundary_are_analyzed() {
    let (Some(io), Some(vm)) = (iostat_head(), s1("vmstat-t.txt")) else { return };
    // Offsets just after each blank line (the report boundaries), the first 40.
    let cuts: Vec<usize> =
        io.windows(2).enumerate().filter(|(_, w)| w == b"\n\n").map(|(i, _)| i + 2).take(40).collect();
    assert_eq!(cuts.len(), 40);
    for (k, &cut) in cuts.iter().enumerate() {
        // At the boundary, and 10 bytes into the next line (a torn last line).
        for end in [cut, (cut + 10).min(io.len())] {
            let dir = folder(&[("iostat-x-t.txt", &io[..end]), ("vmstat-t.txt", &vm)]);
            let r = analyze(&load_dir(dir.path(), &small_limits()), &Options::default());
            let i = input(&r, "iostat-x-t.txt");
            let reports = String::from_utf8_lossy(&io[..end]).matches("avg-cpu").count();
            // The banner alone (cut 0) is no report: then the file is listed as unrecognised.
            assert_eq!(i.format, (reports > 0).then_some("iostat"), "cut {k} at {end}");
            assert!(
                i.records + 1 >= reports && i.records <= reports,
                "cut {k} at {end}: {} records for {reports} report headers",
                i.records
            );
            // vmstat is complete whatever happens to iostat.
            let v = input(&r, "vmstat-t.txt");
            assert_eq!(v.format, Some("vmstat"));
            assert_eq!(v.skipped_lines, 0);
            assert!(v.records >= 200, "vmstat rows {}", v.records);
        }
    }
}

#[test]
fn garbage_nul_and_invalid_utf8_files_are_listed_and_the_rest_analyzed() {
    let Some(io) = iostat_head() else { return };
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let noise: Vec<u8> = (0..200_000)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        })
        .collect();
    let latin1 = b"Ger\xe4t  r/s  w/s\nsda \xb5 1,0 2,0\n".repeat(100);
    let dir = folder(&[
        ("iostat-x-t.txt", &io),
        ("noise.bin", &noise),
        ("zeros.txt", &[0u8; 100_000]),
        ("latin1.txt", &latin1),
        ("empty.txt", b""),
    ]);
    let r = analyze(&load_dir(dir.path(), &small_limits()), &Options::default());
    for name in ["noise.bin", "zeros.txt", "latin1.txt"] {
        let i = input(&r, name);
        assert_eq!(i.format, None, "{name}");
        assert!(i.note.as_deref().unwrap_or("").contains("not recognised"), "{name}: {:?}", i.note);
    }
    // An empty file is never counted as recognised (no format, no records) and a problem says so;
    // it stays in the inventory (an empty file named after a tool is that tool's killed run).
    let e = input(&r, "empty.txt");
    assert_eq!((e.format, e.records), (None, 0));
    let p = r.problems.iter().find(|p| p.name == "empty.txt").expect("empty.txt is a problem");
    assert!(p.message.contains("empty file"), "{p:?}");
    let w = vda_writes(&r);
    assert!(w.len() >= 55, "{} seconds of vda writes; inputs {:#?}", w.len(), r.doc.bundle.inputs);
    // Report 3 of s1 (19:37:21): vda wkB/s 4.00 (report 1 is since boot, not a rate of the capture).
    assert!(w.contains(&4096.0), "{:?}", &w[..5]);
    let i = input(&r, "iostat-x-t.txt");
    assert_eq!((i.format, i.records, i.skipped_lines), (Some("iostat"), 60, 0));
}

#[test]
fn a_50_mb_line_and_2_million_tiny_lines_do_not_stop_the_analysis() {
    let Some(io) = iostat_head() else { return };
    let long = b"x".repeat(50 << 20);
    let tiny = b"1\n".repeat(2_000_000);
    let dir = folder(&[("iostat-x-t.txt", &io), ("long.txt", &long), ("tiny.txt", &tiny)]);
    let limits = Limits { max_total_bytes: 64 << 20, ..small_limits() };
    let r = analyze(&load_dir(dir.path(), &limits), &Options::default());
    assert_eq!(input(&r, "long.txt").format, None);
    assert_eq!(input(&r, "tiny.txt").format, None);
    assert!(vda_writes(&r).len() >= 55);
}

/// The s1 iostat head with one edit, analyzed alone.
fn iostat_variant(edit: impl Fn(&str) -> String) -> Option<Report> {
    let io = String::from_utf8(iostat_head()?).unwrap();
    let dir = folder(&[("iostat-x-t.txt", edit(&io).as_bytes())]);
    Some(analyze(&load_dir(dir.path(), &small_limits()), &Options::default()))
}

#[test]
fn overflowing_negative_and_nan_rates_never_reach_the_timeline() {
    for bad in ["999999999999999999999999999999999999999999999999", "1e999", "nan", "-inf", "-44130.04"] {
        let Some(r) = iostat_variant(|t| t.replacen("44130.04", bad, 1)) else { return };
        let i = input(&r, "iostat-x-t.txt");
        assert_eq!(i.format, Some("iostat"), "{bad}");
        for (name, s) in &r.timeline.columns {
            for v in s.values.iter().flatten() {
                assert!(v.is_finite(), "{bad}: {name} holds {v}");
            }
        }
        let w = vda_writes(&r);
        assert!(w.len() >= 55, "{bad}: {} seconds", w.len());
        if bad.starts_with('-') {
            // A negative rate is what the file says: kept, never turned into a huge unsigned value.
            assert!(w.iter().all(|v| *v > -1e9), "{bad}");
        } else {
            assert!(i.diagnostics_total >= 1, "{bad}: no diagnostic");
        }
    }
}

#[test]
fn time_backwards_duplicates_and_two_runs_concatenated() {
    // Two copies of the same run: every stamp appears twice, and time goes
    // back 60 s at the join.
    let Some(r) = iostat_variant(|t| format!("{t}{t}")) else { return };
    let i = input(&r, "iostat-x-t.txt");
    assert_eq!(i.format, Some("iostat"));
    assert_eq!(i.records, 120);
    let w = vda_writes(&r);
    assert!((55..=61).contains(&w.len()), "{} seconds for a duplicated 60 s run", w.len());
    // Report 2's time set before report 1's.
    let Some(r) = iostat_variant(|t| t.replacen("11/29/26 19:37:20", "11/29/26 19:37:10", 1)) else { return };
    assert_eq!(input(&r, "iostat-x-t.txt").records, 60);
    assert!(r.timeline.len <= 80, "timeline of {} s", r.timeline.len);
}

#[test]
fn a_stamp_decades_away_keeps_the_timeline_bounded() {
    let Some(r) = iostat_variant(|t| t.replacen("11/29/26 19:37:21", "01/01/70 00:00:01", 1)) else { return };
    assert!(r.timeline.len <= iosift::table::timeline::MAX_LEN, "timeline of {} s", r.timeline.len);
}

fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A gzip bomb: the same 1 MiB-of-zeros member `members` times (about 1 KiB each).
fn gzip_bomb(members: usize) -> Vec<u8> {
    gz(&vec![0u8; 1 << 20]).repeat(members)
}

#[test]
fn gzip_bomb_hits_max_bytes_with_a_clear_error() {
    let bomb = gzip_bomb(64);
    assert!(bomb.len() < 100 * 1024);
    let dir = folder(&[("vmstat-t.txt.gz", &bomb), ("uname-r.txt", b"6.18.44-fc-v669\n")]);
    let limits = small_limits();
    match load(&[dir.path().to_path_buf()], &limits) {
        Err(BundleError::Limit(m)) => {
            assert!(m.contains("8388608"), "limit named: {m}");
            assert!(m.contains("--max-bytes"), "flag named: {m}");
            assert!(m.contains("vmstat-t.txt.gz"), "file named: {m}");
        }
        other => panic!("{:?}", other.map(|b| b.files.len())),
    }
    // Within the limit it loads.
    let dir = folder(&[("vmstat-t.txt.gz", &gzip_bomb(4))]);
    let b = load_dir(dir.path(), &limits);
    assert_eq!(b.files[0].data.len(), 4 << 20);
    assert!(b.files[0].gzipped);
}

#[test]
fn zip_bomb_hits_max_bytes_with_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("capture.zip");
    {
        let mut z = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
        let opts =
            zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        z.start_file("capture/small.txt", opts).unwrap();
        z.write_all(b"hello\n").unwrap();
        z.start_file("capture/bomb.txt", opts).unwrap();
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..32 {
            z.write_all(&zeros).unwrap();
        }
        z.finish().unwrap();
    }
    assert!(std::fs::metadata(&path).unwrap().len() < 100 * 1024);
    match load(std::slice::from_ref(&path), &small_limits()) {
        Err(BundleError::Limit(m)) => {
            assert!(m.contains("8388608") && m.contains("--max-bytes") && m.contains("bomb.txt"), "{m}");
        }
        other => panic!("{:?}", other.map(|b| b.files.len())),
    }
}

/// A tar entry with a raw name (no validation, as an attacker would write it).
fn raw_entry(tb: &mut tar::Builder<Vec<u8>>, name: &[u8], kind: tar::EntryType, link: &[u8], data: &[u8]) {
    let mut h = tar::Header::new_gnu();
    h.as_old_mut().name[..name.len()].copy_from_slice(name);
    h.as_old_mut().linkname[..link.len()].copy_from_slice(link);
    h.set_entry_type(kind);
    h.set_size(data.len() as u64);
    h.set_mode(0o644);
    h.set_cksum();
    tb.append(&h, data).unwrap();
}

#[test]
fn tar_traversal_absolute_paths_and_links_are_read_in_place() {
    let Some(vm) = s1("vmstat-t.txt") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let inner = tmp.path().join("inner");
    std::fs::create_dir(&inner).unwrap();
    let escape = format!("iosift-hostile-escape-{}", std::process::id());
    let mut tb = tar::Builder::new(Vec::new());
    raw_entry(&mut tb, format!("../../{escape}").as_bytes(), tar::EntryType::Regular, b"", b"pwned\n");
    raw_entry(&mut tb, format!("/tmp/{escape}-abs").as_bytes(), tar::EntryType::Regular, b"", b"pwned\n");
    raw_entry(&mut tb, b"capture/../../vmstat-t.txt", tar::EntryType::Regular, b"", &vm);
    raw_entry(&mut tb, b"capture/passwd", tar::EntryType::Symlink, b"/etc/passwd", b"");
    raw_entry(&mut tb, b"capture/hard", tar::EntryType::Link, b"../../etc/shadow", b"");
    raw_entry(&mut tb, b"capture/dev", tar::EntryType::Char, b"", b"");
    let ar = tb.into_inner().unwrap();
    let path = inner.join("capture.tar");
    std::fs::write(&path, &ar).unwrap();

    let b = load(std::slice::from_ref(&path), &small_limits()).expect("loads");
    let names: Vec<&str> = b.files.iter().map(|f| f.name.as_str()).collect();
    // Names are display labels with `..` and leading `/` removed.
    assert!(names.contains(&"capture.tar!capture/vmstat-t.txt"), "{names:?}");
    assert!(names.contains(&format!("capture.tar!{escape}").as_str()), "{names:?}");
    assert!(names.contains(&format!("capture.tar!tmp/{escape}-abs").as_str()), "{names:?}");
    assert!(names.iter().all(|n| !n.contains("..") && !n.contains("!/")), "{names:?}");
    // Links are skipped with a problem, never followed.
    let probs: Vec<String> = b.problems.iter().map(|p| format!("{}: {}", p.name, p.message)).collect();
    assert!(
        probs.iter().any(|p| p.contains("capture/passwd") && p.contains("link entry skipped")),
        "{probs:?}"
    );
    assert!(
        probs.iter().any(|p| p.contains("capture/hard") && p.contains("link entry skipped")),
        "{probs:?}"
    );
    assert!(probs.iter().any(|p| p.contains("capture/dev") && p.contains("skipped")), "{probs:?}");
    assert!(b.files.iter().all(|f| *f.data != *std::fs::read("/etc/passwd").unwrap_or_default()));
    // Nothing was written: not beside the archive, not two levels up, not in /tmp.
    assert_eq!(std::fs::read_dir(&inner).unwrap().count(), 1);
    assert!(!tmp.path().join(&escape).exists());
    assert!(!Path::new("/").join(&escape).exists());
    assert!(!Path::new("/tmp").join(format!("{escape}-abs")).exists());
    // And the good member is analyzed.
    let r = analyze(&b, &Options::default());
    assert_eq!(input(&r, "capture/vmstat-t.txt").format, Some("vmstat"));
    assert!(r.problems.len() >= 3);
}

#[test]
fn symlinks_in_a_folder_are_skipped_with_a_problem() {
    let dir = folder(&[("uname.txt", b"Linux vm 6.18.44 #1 SMP x86_64 GNU/Linux\n")]);
    std::os::unix::fs::symlink("/etc/passwd", dir.path().join("passwd")).unwrap();
    std::os::unix::fs::symlink("/", dir.path().join("root")).unwrap();
    let b = load_dir(dir.path(), &small_limits());
    assert_eq!(b.files.len(), 1);
    let probs: Vec<_> = b.problems.iter().map(|p| (p.name.as_str(), p.message.as_str())).collect();
    assert_eq!(probs, vec![("passwd", "symbolic link skipped"), ("root", "symbolic link skipped")]);
}

fn tar_of(name: &str, data: &[u8]) -> Vec<u8> {
    let mut tb = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_ustar();
    h.set_size(data.len() as u64);
    h.set_mode(0o644);
    h.set_cksum();
    tb.append_data(&mut h, name, data).unwrap();
    tb.into_inner().unwrap()
}

#[test]
fn archives_nested_too_deep_are_not_opened() {
    // uname.txt inside 6 levels: tar.gz > tar > zip-less tar > ... (alternating gzip).
    let mut data = b"Linux vm 6.18.44 #1 SMP x86_64 GNU/Linux\n".to_vec();
    let mut name = "uname.txt".to_string();
    for level in 0..6 {
        let t = tar_of(&name, &data);
        (data, name) =
            if level % 2 == 0 { (gz(&t), format!("l{level}.tar.gz")) } else { (t, format!("l{level}.tar")) };
    }
    let dir = folder(&[(name.as_str(), &data), ("uname-r.txt", b"6.18.44-fc-v669\n")]);
    let b = load_dir(dir.path(), &small_limits());
    let p = b.problems.iter().find(|p| p.message.contains("nested deeper")).expect("depth problem");
    assert!(p.message.contains("3 levels") && p.message.contains("--max-depth"), "{}", p.message);
    assert_eq!(p.name, "l5.tar!l4.tar.gz!l3.tar!l2.tar.gz");
    // The inner file was not reached; the sibling file is there.
    assert!(b.files.iter().all(|f| !f.name.ends_with("uname.txt")));
    assert!(b.files.iter().any(|f| f.name == "uname-r.txt"));
    // Raising the limit reaches it.
    let deep = Limits { max_depth: 6, ..small_limits() };
    let b = load_dir(dir.path(), &deep);
    assert!(
        b.files.iter().any(|f| f.name.ends_with("!uname.txt")),
        "{:?}",
        b.files.iter().map(|f| &f.name).collect::<Vec<_>>()
    );
}

#[test]
fn too_many_files_and_too_many_bytes_name_their_flags() {
    let files: Vec<(String, Vec<u8>)> = (0..60).map(|i| (format!("f{i:02}.txt"), b"x\n".to_vec())).collect();
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, d)| (n.as_str(), d.as_slice())).collect();
    let dir = folder(&refs);
    match load(&[dir.path().to_path_buf()], &small_limits()) {
        Err(BundleError::Limit(m)) => {
            assert!(m.contains("more than 50 files") && m.contains("--max-files"), "{m}")
        }
        other => panic!("{:?}", other.map(|b| b.files.len())),
    }
    let tight = Limits { max_total_bytes: 100, ..small_limits() };
    let dir = folder(&[("a.txt", &[b'a'; 80]), ("b.txt", &[b'b'; 80])]);
    match load(&[dir.path().to_path_buf()], &tight) {
        Err(BundleError::Limit(m)) => assert!(m.contains("100 bytes") && m.contains("--max-bytes"), "{m}"),
        other => panic!("{:?}", other.map(|b| b.files.len())),
    }
}

#[test]
fn damaged_archives_keep_what_was_readable() {
    let Some(vm) = s1("vmstat-t.txt") else { return };
    // A .tar.gz cut in half: a problem, and the part before the damage is used.
    let mut tb = tar::Builder::new(Vec::new());
    for n in ["a", "b"] {
        let mut h = tar::Header::new_ustar();
        h.set_size(vm.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        tb.append_data(&mut h, format!("capture/{n}-vmstat-t.txt"), vm.as_slice()).unwrap();
    }
    let tgz = gz(&tb.into_inner().unwrap());
    let half = &tgz[..tgz.len() * 3 / 4];
    let dir = folder(&[("capture.tar.gz", half), ("garbage.zip", b"PK\x03\x04 not a zip at all")]);
    let b = load_dir(dir.path(), &small_limits());
    // Entry a is cut by the damage: the part read is kept.
    let a = b.files.iter().find(|f| f.name == "capture.tar.gz!capture/a-vmstat-t.txt").expect("entry a kept");
    assert!(a.data.len() > 10_000 && vm.starts_with(&a.data), "{} bytes", a.data.len());
    assert!(b.problems.iter().any(|p| p.message.contains("tar archive damaged")), "{:?}", b.problems);
    assert!(
        b.problems.iter().any(|p| p.name == "capture.tar.gz" && p.message.contains("corrupt gzip")),
        "{:?}",
        b.problems
    );
    assert!(
        b.problems.iter().any(|p| p.name == "garbage.zip" && p.message.contains("unreadable zip")),
        "{:?}",
        b.problems
    );
    let r = analyze(&b, &Options::default());
    assert_eq!(input(&r, "a-vmstat-t.txt").format, Some("vmstat"));
}
