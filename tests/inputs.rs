//! Hostile inputs at the bundle level (issue 17): devices and FIFOs inside folders are
//! refused with a problem instead of blocking, `--max-bytes` counts bytes actually read
//! (a `/proc` file reports size 0), a UTF-8 byte order mark does not hide a
//! format, empty files are not counted as inputs, duplicate tar member names are
//! noted. Pipes named on the command line (`<(zcat x)`, `/dev/stdin`) are read, bounded,
//! and an allocation that fails reading one is a problem for it (issue 33); `--taxonomy`
//! reads at most 1 MiB of a regular file or a pipe. Inputs are generated from the
//! repository's samples in a temporary folder.

use crate::common;

use iosift::bundle::{BundleError, Limits, load};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_iosift");

fn sample(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(rel)
}

fn mkfifo(p: &Path) {
    let ok = Command::new("mkfifo").arg(p).status().unwrap().success();
    assert!(ok, "mkfifo {}", p.display());
}

/// What is written to a command's stdin (on a thread of its own).
type Feed = Box<dyn FnOnce(ChildStdin) + Send>;

/// Runs a command to its end, killed after 60 s (a blocking read would otherwise hang the
/// test), `feed` writing its stdin; returns its exit code, stdout and stderr.
fn finish(cmd: &mut Command, feed: Option<Feed>) -> (Option<i32>, String, String) {
    cmd.stdin(if feed.is_some() { Stdio::piped() } else { Stdio::null() });
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let writer = feed.map(|f| {
        let stdin = child.stdin.take().unwrap();
        std::thread::spawn(move || f(stdin))
    });
    let (out, err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out = std::thread::spawn(move || std::io::read_to_string(out).unwrap_or_default());
    let err = std::thread::spawn(move || std::io::read_to_string(err).unwrap_or_default());
    let t = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{cmd:?} did not finish in 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    if let Some(w) = writer {
        w.join().unwrap();
    }
    (status.code(), out.join().unwrap(), err.join().unwrap())
}

/// Runs iosift with `args`; returns its exit code and stderr.
fn run_bounded(args: &[&str]) -> (Option<i32>, String) {
    let (code, _, err) = finish(Command::new(BIN).args(args), None);
    (code, err)
}

/// Writes `data` to stdin, then closes it (a reader that stops early ends the writing).
fn feed(data: Vec<u8>) -> Option<Feed> {
    Some(Box::new(move |mut w: ChildStdin| {
        let _ = std::io::Write::write_all(&mut w, &data);
    }))
}

#[test]
fn devices_and_fifos_inside_folders_are_refused_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o");
    let (code, err) =
        run_bounded(&["analyze", "/dev/zero", "--max-bytes", "1000000", "-o", out.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("/dev/zero") && err.contains("character device"), "{err}");
    // Inside a folder: the FIFO is a problem (nobody may ever write to it), the real file is read.
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
fn pipes_named_on_the_command_line_are_read() {
    let vmstat = std::fs::read(sample("replica_sql_bound/capture/vmstat-t.txt")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let read = |out: &str, name: &str| {
        let at = out.find(&format!("{name}\n  format: vmstat")).unwrap_or_else(|| panic!("{out}"));
        assert!(out[at..].contains("records: 75"), "{out}");
    };
    // `/dev/stdin`, a pipe from the program before (`zcat x | iosift inspect /dev/stdin`).
    let (code, out, err) = finish(Command::new(BIN).args(["inspect", "/dev/stdin"]), feed(vmstat.clone()));
    assert_eq!(code, Some(0), "{err}");
    read(&out, "stdin");
    // A named FIFO, written to by a program started before or after iosift.
    let fifo = tmp.path().join("pipe");
    mkfifo(&fifo);
    let writer = {
        let (fifo, vmstat) = (fifo.clone(), vmstat.clone());
        std::thread::spawn(move || std::fs::write(fifo, vmstat))
    };
    let (code, out, err) = finish(Command::new(BIN).arg("inspect").arg(&fifo), None);
    // A reader that never opened it would leave the writer blocked in its open: open it here.
    let _release = std::fs::OpenOptions::new().read(true).write(true).open(&fifo).unwrap();
    writer.join().unwrap().unwrap();
    assert_eq!(code, Some(0), "{err}");
    read(&out, "pipe");
    // bash's `<(...)`, a /dev/fd/N path.
    if Path::new("/bin/bash").exists() {
        let script = r#"exec "$0" inspect <(cat "$1")"#;
        let mut cmd = Command::new("/bin/bash");
        cmd.args(["-c", script, BIN]).arg(sample("replica_sql_bound/capture/vmstat-t.txt"));
        let (code, out, err) = finish(&mut cmd, None);
        assert_eq!(code, Some(0), "{err}");
        assert!(out.contains("  format: vmstat\n") && out.contains("records: 75"), "{out}");
    }
    // Bounded like any input: past --max-bytes it is the limit's error.
    let (code, _, err) = finish(
        Command::new(BIN).args(["inspect", "/dev/stdin", "--max-bytes", "1000"]),
        feed(vmstat.clone()),
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("stdin: more than 1000 bytes read, past the total size limit of 1000 bytes (raise with --max-bytes)"),
        "{err}"
    );
}

#[test]
fn an_allocation_failure_reading_a_pipe_is_a_problem_for_it() {
    // 400 MB through a pipe into a process capped at 300 MiB of address space.
    let Some(mut limited) = common::address_space_limited(300 << 20, BIN) else {
        println!("skipped: prlimit not found");
        return;
    };
    let zeros: Feed = Box::new(|mut w: ChildStdin| {
        let chunk = vec![0u8; 1 << 20];
        for _ in 0..400 {
            if std::io::Write::write_all(&mut w, &chunk).is_err() {
                break;
            }
        }
    });
    let (code, _, err) = finish(limited.args(["inspect", "/dev/stdin"]), Some(zeros));
    assert_eq!(code, Some(1), "no abort (134): {err}");
    assert!(err.contains("iosift: stdin: cannot read it: out of memory: "), "{err}");
}

#[test]
fn the_taxonomy_is_a_small_regular_file_or_a_pipe() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("cap");
    std::fs::create_dir(&cap).unwrap();
    std::fs::copy(sample("replica_sql_bound/capture/vmstat-t.txt"), cap.join("vmstat-t.txt")).unwrap();
    let out = tmp.path().join("o");
    let analyze = |taxonomy: &Path| {
        let mut cmd = common::address_space_limited(1 << 30, BIN).unwrap_or_else(|| Command::new(BIN));
        cmd.arg("analyze").arg(&cap).arg("-q").arg("-o").arg(&out).arg("--taxonomy").arg(taxonomy);
        finish(&mut cmd, None)
    };
    // /dev/zero never ends: read whole, it grew until memory ran out.
    let (code, _, err) = analyze(Path::new("/dev/zero"));
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        err,
        "iosift: --taxonomy /dev/zero: a character device: not read (give a regular file or a pipe)\n"
    );
    let big = tmp.path().join("big.toml");
    std::fs::write(&big, "# padding\n".repeat(200_000)).unwrap();
    let (code, _, err) = analyze(&big);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("big.toml: larger than 1048576 bytes: not read"), "{err}");
    // A FIFO with a writer is read.
    let fifo = tmp.path().join("taxonomy");
    mkfifo(&fifo);
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, "[comm]\nmysqld = \"connection\"\n"))
    };
    let (code, _, err) = analyze(&fifo);
    let _release = std::fs::OpenOptions::new().read(true).write(true).open(&fifo).unwrap();
    writer.join().unwrap().unwrap();
    assert_eq!(code, Some(0), "{err}");
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

/// `incidents/<case>/capture` for each case, copied from the samples.
fn incidents(root: &Path, cases: &[&str]) -> PathBuf {
    let inc = root.join("incidents");
    for c in cases {
        common::copy_files(&sample(&format!("{c}/capture")), &inc.join(c).join("capture"));
    }
    inc
}

/// The names of the files of a sample's capture folder.
fn files_of(case: &str) -> usize {
    std::fs::read_dir(sample(&format!("{case}/capture"))).unwrap().count()
}

/// Issue 34: a folder holding three incidents' captures (the same host, `vm`, on 2026-11-29
/// 21:05 and 2026-12-01 19:24 and 19:45) gave one report stitched from the three (its
/// CRITICAL mmap_large_folio_writeback next to the others' fsync findings, on one timeline of
/// two days). Now the analysis finds the three captures and makes no finding from them
/// together, and `iosift analyze` refuses the folder naming each one and `iosift batch`.
#[test]
fn captures_that_do_not_belong_together_are_refused_with_their_names() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = ["mx_ext4_db_340b_durable", "mmap_large_folio", "replica_io_bound"];
    let inc = incidents(tmp.path(), &cases);
    let b = load(std::slice::from_ref(&inc), &Limits::default()).unwrap();
    let r = iosift::analyze::analyze(&b, &iosift::pipeline::Options::default());
    // In time order, each with every file of its folder and nothing else.
    let names: Vec<&str> = r.captures.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["mmap_large_folio/capture", "replica_io_bound/capture", "mx_ext4_db_340b_durable/capture"]
    );
    for c in &r.captures {
        let case = c.name.trim_end_matches("/capture");
        assert_eq!(c.files.len(), files_of(case), "{}", c.name);
        assert!(c.files.iter().all(|&i| b.files[i].name.starts_with(&c.name)), "{}", c.name);
        assert_eq!(c.host.as_deref(), Some("vm"));
    }
    // replica_io_bound's sampled seconds: 19:23:58 (mysqladmin, the pt-stalk prefix) to 19:25:15.
    assert_eq!(r.captures[1].span.map(|s| (s.0 as i64, s.1 as i64)), Some((1_796_153_038, 1_796_153_115)));
    assert!(r.doc.findings.is_empty() && r.doc.checked.is_empty());
    let problem = r.doc.bundle.problems.iter().map(|p| p.message.as_str()).collect::<String>();
    assert!(problem.contains("holds 3 captures that do not belong together (times apart)"), "{problem}");
    let out = tmp.path().join("out");
    let (code, err) = run_bounded(&["analyze", inc.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    for case in cases {
        let named = format!("{}/{case}/capture (host vm, 2026-1", inc.display());
        assert!(err.contains(&named), "{named} not in {err}");
    }
    assert!(
        err.contains(&format!("iosift batch {}", inc.display())) && err.contains("no report written"),
        "{err}"
    );
    assert!(!out.exists());
}

/// Two captures of one host 20 minutes apart are two; two hosts' captures of the same
/// seconds are two; one capture whose files sit in two folders (and start and stop a
/// second or two apart) is one, with the findings it has alone.
#[test]
fn captures_are_told_apart_by_time_and_host_not_by_folders() {
    let tmp = tempfile::tempdir().unwrap();
    let opts = iosift::pipeline::Options::default();
    let analyze =
        |p: &Path| iosift::analyze::analyze(&load(&[p.to_path_buf()], &Limits::default()).unwrap(), &opts);
    let inc = incidents(&tmp.path().join("t"), &["replica_io_bound", "mx_ext4_db_340b_durable"]);
    let r = analyze(&inc);
    assert_eq!(r.captures.len(), 2);
    assert!(r.captures.iter().all(|c| c.host.as_deref() == Some("vm")));
    // The same copy twice, the second written on host db-02 (its banners and uname renamed).
    let two = tmp.path().join("h");
    let case = "mx_xfs_loop_copy_noperf";
    common::copy_files(&sample(&format!("{case}/capture")), &two.join("vm"));
    common::copy_files(&sample(&format!("{case}/capture")), &two.join("db02"));
    for f in ["iostat-x-t.txt", "pidstat-d-t-h.txt", "system-info.txt", "uname-a.txt"] {
        let p = two.join("db02").join(f);
        let text = std::fs::read_to_string(&p)
            .unwrap()
            .replace("(vm)", "(db-02)")
            .replace("Linux vm ", "Linux db-02 ");
        std::fs::write(&p, text).unwrap();
    }
    let r = analyze(&two);
    let hosts: Vec<Option<&str>> = r.captures.iter().map(|c| c.host.as_deref()).collect();
    assert_eq!(hosts.len(), 2, "{:?}", r.captures);
    assert!(hosts.contains(&Some("vm")) && hosts.contains(&Some("db-02")), "{hosts:?}");
    assert!(r.captures.iter().all(|c| c.files.len() == files_of(case)));
    let problem = r.doc.bundle.problems.iter().map(|p| p.message.as_str()).collect::<String>();
    assert!(problem.contains("(other hosts or times apart)"), "{problem}");
    // One capture in two folders: sysstat's files moved into a subfolder.
    let one = tmp.path().join("one").join("replica_io_bound");
    common::copy_files(&sample("replica_io_bound/capture"), &one);
    std::fs::create_dir(one.join("sysstat")).unwrap();
    for f in ["iostat-x-t.txt", "pidstat-d-t-h.txt"] {
        std::fs::rename(one.join(f), one.join("sysstat").join(f)).unwrap();
    }
    let r = analyze(&one);
    assert_eq!(r.captures.len(), 1);
    let alone = analyze(&sample("replica_io_bound/capture"));
    let rules = |r: &iosift::model::Report| r.doc.findings.iter().map(|f| f.rule).collect::<Vec<_>>();
    assert_eq!(rules(&r), rules(&alone));
    assert!(!rules(&r).is_empty());
}
