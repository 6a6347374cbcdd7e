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
fn a_byte_order_mark_does_not_hide_the_format_and_empty_files_are_not_inputs() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("cap");
    std::fs::create_dir(&cap).unwrap();
    let vm = std::fs::read(sample("replica_sql_bound/capture/vmstat-t.txt")).unwrap();
    std::fs::write(cap.join("vmstat-t.txt"), [b"\xEF\xBB\xBF".as_slice(), &vm].concat()).unwrap();
    std::fs::write(cap.join("2026_12_01_19_14_16-meminfo"), b"").unwrap();
    let b = load(&[cap], &Limits::default()).unwrap();
    assert_eq!(b.files.len(), 1);
    assert_eq!(&b.files[0].data[..], &vm[..], "the mark is stripped, nothing else");
    let empty = b.problems.iter().find(|p| p.name.ends_with("-meminfo")).unwrap();
    assert!(empty.message.contains("empty file"), "{empty:?}");
    let r = iosift::analyze::analyze(&b, &iosift::pipeline::Options::default());
    let inputs = &r.doc.bundle.inputs;
    assert_eq!(inputs.len(), 1);
    assert_eq!(inputs[0].format, Some("vmstat"), "{:?}", inputs[0]);
    assert!(inputs[0].records > 0);
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
