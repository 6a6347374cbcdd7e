//! Hostile inputs at the bundle level (issue 17): FIFOs and devices are refused
//! with a problem instead of blocking, `--max-bytes` counts bytes actually read
//! (a `/proc` file reports size 0), a UTF-8 byte order mark does not hide a
//! format, empty files are not counted as inputs, duplicate tar member names are
//! noted. Inputs are generated from the repository's samples in a temporary folder.

use iosift::bundle::{BundleError, Limits, load};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_iosift");

fn sample(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(rel)
}

fn mkfifo(p: &Path) {
    let ok = Command::new("mkfifo").arg(p).status().unwrap().success();
    assert!(ok, "mkfifo {}", p.display());
}

/// Runs iosift, killed after 60 s (a blocking read would otherwise hang the test).
fn run_bounded(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            let o = child.wait_with_output().unwrap();
            return (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned());
        }
        if t.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("iosift {args:?} did not finish in 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn fifos_and_devices_are_refused_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("pipe");
    mkfifo(&fifo);
    let out = tmp.path().join("o");
    let (code, err) = run_bounded(&["analyze", fifo.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains(&fifo.display().to_string()) && err.contains("named pipe"), "{err}");
    let (code, err) =
        run_bounded(&["analyze", "/dev/zero", "--max-bytes", "1000000", "-o", out.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("/dev/zero") && err.contains("character device"), "{err}");
    // Inside a folder: the FIFO is a problem, the real file is read.
    let cap = tmp.path().join("cap");
    std::fs::create_dir(&cap).unwrap();
    std::fs::copy(sample("replica_sql_bound/capture/vmstat-t.txt"), cap.join("vmstat-t.txt")).unwrap();
    mkfifo(&cap.join("fifo"));
    let b = load(&[cap], &Limits::default()).unwrap();
    assert_eq!(b.files.len(), 1);
    let p = b.problems.iter().find(|p| p.name == "fifo").unwrap_or_else(|| panic!("{:?}", b.problems));
    assert!(p.message.contains("named pipe"), "{p:?}");
    // findings.json lists it under bundle.problems.
    let r = iosift::analyze::analyze(&b, &iosift::pipeline::Options::default());
    let doc = serde_json::to_value(&r.doc).unwrap();
    let probs = doc["bundle"]["problems"].as_array().unwrap();
    assert_eq!(probs.len(), 1, "{probs:?}");
    assert_eq!(probs[0]["name"], "fifo");
    assert!(probs[0]["message"].as_str().unwrap().contains("named pipe"));
    // So does the batch overview's row.
    let out = tmp.path().join("batch");
    let rows =
        iosift::batch::run(&[tmp.path().join("cap")], &out, 1, &Default::default(), &Limits::default())
            .unwrap();
    assert_eq!(rows[0].problems, b.problems);
    let s: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["bundles"][0]["problems"][0]["name"], "fifo");
}

#[test]
fn max_bytes_counts_what_is_read() {
    // /proc/self/maps says 0 bytes and holds a few kB.
    let limits = Limits { max_total_bytes: 100, ..Limits::default() };
    match load(&[PathBuf::from("/proc/self/maps")], &limits) {
        Err(BundleError::Limit(m)) => assert!(m.contains("--max-bytes") && m.contains("maps"), "{m}"),
        other => panic!("{other:?}"),
    }
    let b = load(&[PathBuf::from("/proc/self/maps")], &Limits::default()).unwrap();
    assert!(b.files[0].data.len() > 100);
}

#[test]
fn a_byte_order_mark_does_not_hide_the_format_and_empty_files_are_not_recognised() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("cap");
    std::fs::create_dir(&cap).unwrap();
    let vm = std::fs::read(sample("replica_sql_bound/capture/vmstat-t.txt")).unwrap();
    std::fs::write(cap.join("vmstat-t.txt"), [b"\xEF\xBB\xBF".as_slice(), &vm].concat()).unwrap();
    std::fs::write(cap.join("2026_12_01_19_14_16-meminfo"), b"").unwrap();
    let b = load(&[cap], &Limits::default()).unwrap();
    assert_eq!(b.files.len(), 2);
    let v = b.files.iter().find(|f| f.name == "vmstat-t.txt").unwrap();
    assert_eq!(&v.data[..], &vm[..], "the mark is stripped, nothing else");
    let empty = b.problems.iter().find(|p| p.name.ends_with("-meminfo")).unwrap();
    assert!(empty.message.contains("empty file"), "{empty:?}");
    let r = iosift::analyze::analyze(&b, &iosift::pipeline::Options::default());
    let inputs = &r.doc.bundle.inputs;
    let vi = inputs.iter().find(|i| i.path == "vmstat-t.txt").unwrap();
    assert_eq!(vi.format, Some("vmstat"), "{vi:?}");
    assert!(vi.records > 0);
    // The empty file stays listed (an empty file named after a tool is its killed run) with no records.
    let ei = inputs.iter().find(|i| i.path.ends_with("-meminfo")).unwrap();
    assert_eq!(ei.records, 0, "{ei:?}");
}

#[test]
fn duplicate_tar_member_names_are_noted_and_both_read() {
    let tmp = tempfile::tempdir().unwrap();
    let vm = std::fs::read(sample("replica_sql_bound/capture/vmstat-t.txt")).unwrap();
    let mut t = tar::Builder::new(Vec::new());
    for data in [&vm[..], b"second copy\n"] {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        t.append_data(&mut h, "cap/vmstat-t.txt", data).unwrap();
    }
    let path = tmp.path().join("c.tar");
    std::fs::write(&path, t.into_inner().unwrap()).unwrap();
    let b = load(&[path], &Limits::default()).unwrap();
    let names: Vec<&str> = b.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["c.tar!cap/vmstat-t.txt", "c.tar!cap/vmstat-t.txt#2"]);
    let p = &b.problems[0];
    assert_eq!(p.name, "c.tar!cap/vmstat-t.txt");
    assert!(p.message.contains("more than once"), "{p:?}");
}

/// `printf 'hello\n' | xz`, `| zstd`, `| bzip2` (real tool output, xz 5.4, zstd 1.5, bzip2 1.0.8) and a 7z signature.
const XZ: &[u8] = b"\xfd\x37\x7a\x58\x5a\x00\x00\x04\xe6\xd6\xb4\x46\x02\x00\x21\x01\x16\x00\x00\x00\x74\x2f\xe5\xa3\x01\x00\x05\x68\x65\x6c\x6c\x6f\x0a\x00\x00\x00\xa5\x60\x97\xf1\x94\xf6\xfd\xe0\x00\x01\x1e\x06\xc1\x2f\xa4\x1d\x1f\xb6\xf3\x7d\x01\x00\x00\x00\x00\x04\x59\x5a";
const ZST: &[u8] = b"\x28\xb5\x2f\xfd\x24\x06\x31\x00\x00\x68\x65\x6c\x6c\x6f\x0a\x53\x88\xbd\x91";
const BZ2: &[u8] = b"\x42\x5a\x68\x39\x31\x41\x59\x26\x53\x59\xc1\xc0\x80\xe2\x00\x00\x01\x41\x00\x00\x10\x02\x44\xa0\x00\x30\xcd\x00\xc3\x46\x29\x97\x17\x72\x45\x38\x50\x90\xc1\xc0\x80\xe2";

#[test]
fn compressed_files_are_read_and_encrypted_zip_members_named() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("cap");
    std::fs::create_dir(&cap).unwrap();
    std::fs::write(cap.join("c.tar.xz"), XZ).unwrap();
    std::fs::write(cap.join("c.tar.zst"), ZST).unwrap();
    std::fs::write(cap.join("c.tar.bz2"), BZ2).unwrap();
    std::fs::write(cap.join("c.7z"), b"7z\xBC\xAF\x27\x1C\x00\x04rest").unwrap();
    std::fs::write(cap.join("BZh.txt"), b"BZh is just text here\n").unwrap();
    // A zip whose two members carry the "encrypted" flag (bit 0 of the general purpose flags).
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for n in ["cap/iostat.txt", "cap/vmstat.txt"] {
        w.start_file(n, opts).unwrap();
        std::io::Write::write_all(&mut w, b"secret\n").unwrap();
    }
    let mut z = w.finish().unwrap().into_inner();
    for sig in [&b"PK\x03\x04"[..], b"PK\x01\x02"] {
        let off = if sig == b"PK\x03\x04" { 6 } else { 8 };
        let at: Vec<usize> = z.windows(4).enumerate().filter(|(_, w)| *w == sig).map(|(i, _)| i).collect();
        for i in at {
            z[i + off] |= 1;
        }
    }
    std::fs::write(cap.join("enc.zip"), z).unwrap();
    let b = load(&[cap], &Limits::default()).unwrap();
    let msg = |n: &str| {
        b.problems
            .iter()
            .find(|p| p.name == n)
            .map(|p| p.message.clone())
            .unwrap_or_else(|| panic!("{n}: {:?}", b.problems))
    };
    assert!(msg("c.7z").contains("7-Zip"));
    // One problem for the zip, naming both members (29 nameless lines before).
    let enc = msg("enc.zip");
    assert!(enc.contains("encrypted") && enc.contains("2 members (cap/iostat.txt, cap/vmstat.txt)"), "{enc}");
    assert_eq!(b.problems.len(), 2, "{:?}", b.problems);
    let names: Vec<&str> = b.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        ["BZh.txt", "c.tar.bz2", "c.tar.xz", "c.tar.zst"],
        "text starting with BZh is still a file"
    );
    for f in &b.files[1..] {
        assert_eq!(&f.data[..], b"hello\n", "{} decoded from the real tool's output", f.name);
    }
}

#[test]
fn tar_zst_is_read_in_place_within_the_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let vm = std::fs::read(sample("replica_sql_bound/capture/vmstat-t.txt")).unwrap();
    let mut t = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_gnu();
    h.set_size(vm.len() as u64);
    h.set_mode(0o644);
    h.set_cksum();
    t.append_data(&mut h, "cap/vmstat-t.txt", &vm[..]).unwrap();
    let zst = zstd::encode_all(&t.into_inner().unwrap()[..], 3).unwrap();
    let path = tmp.path().join("c.tar.zst");
    std::fs::write(&path, &zst).unwrap();
    let b = load(std::slice::from_ref(&path), &Limits::default()).unwrap();
    assert_eq!(b.files.len(), 1, "{:?}", b.problems);
    assert_eq!(b.files[0].name, "c.tar.zst!cap/vmstat-t.txt");
    assert_eq!(&b.files[0].data[..], &vm[..]);
    let small = Limits { max_total_bytes: 1000, ..Limits::default() };
    match load(&[path], &small) {
        Err(BundleError::Limit(m)) => assert!(m.contains("--max-bytes"), "{m}"),
        other => panic!("{other:?}"),
    }
}
