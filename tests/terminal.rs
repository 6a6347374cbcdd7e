//! What reaches the user's terminal (issue 17): capture-controlled names with a
//! right-to-left override or an escape sequence are shown escaped on stdout and
//! stderr; UTF-16 captures (Windows tools) are decoded; every error names its path.
//! Inputs are generated from the repository's samples in a temporary folder.

use crate::common;

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_iosift");

fn sample(rel: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(rel)).unwrap()
}

fn run(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    let o = Command::new(BIN).args(args).output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn raw_controls(s: &str) -> Vec<char> {
    s.chars()
        .filter(|&c| (c.is_control() && c != '\n' && c != '\t') || ('\u{202a}'..='\u{202e}').contains(&c))
        .collect()
}

#[test]
fn names_with_overrides_and_escapes_reach_the_terminal_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("cap");
    std::fs::create_dir(&cap).unwrap();
    // "vmstat\u{202e}txt.exe" shows as "vmstatexe.txt" unescaped; ESC[2J clears the screen.
    std::fs::write(cap.join("vmstat\u{202e}exe.txt"), sample("replica_sql_bound/capture/vmstat-t.txt"))
        .unwrap();
    std::fs::write(cap.join("empty\x1b[2J"), b"").unwrap();
    let (code, out, err) = run(&["inspect".as_ref(), cap.as_os_str()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(raw_controls(&out).is_empty() && raw_controls(&err).is_empty(), "{out:?} {err:?}");
    assert!(out.contains("vmstat\\u{202e}exe.txt\n  format: vmstat"), "{out}");
    assert!(err.contains("iosift: empty\\x1b[2J: empty file"), "{err}");
    let (_, json, _) = run(&["inspect".as_ref(), "--json".as_ref(), cap.as_os_str()]);
    assert!(raw_controls(&json).is_empty() && json.contains("vmstat\\u202eexe.txt"), "{json}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(
        v["files"].as_array().unwrap().iter().any(|f| f["path"] == "vmstat\u{202e}exe.txt"),
        "the same JSON value"
    );
    // analyze: the terminal summary and the problems on stderr.
    let o = tmp.path().join("o");
    let (code, out, err) = run(&["analyze".as_ref(), cap.as_os_str(), "-o".as_ref(), o.as_os_str()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(raw_controls(&out).is_empty() && raw_controls(&err).is_empty(), "{out:?} {err:?}");
}

#[test]
fn a_utf16_capture_is_decoded() {
    let vm = sample("replica_sql_bound/capture/vmstat-t.txt");
    let text = String::from_utf8(vm).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("cap");
    std::fs::create_dir(&cap).unwrap();
    // PowerShell's `>` writes UTF-16LE with a byte order mark; some tools write it without.
    let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    std::fs::write(cap.join("vmstat-t.txt"), [&b"\xFF\xFE"[..], &le].concat()).unwrap();
    std::fs::write(tmp.path().join("plain-vmstat-t.txt"), &text).unwrap();
    let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    let cap2 = tmp.path().join("cap2");
    std::fs::create_dir(&cap2).unwrap();
    std::fs::write(cap2.join("vmstat-t.txt"), be).unwrap();
    let limits = iosift::bundle::Limits::default();
    let plain = iosift::bundle::load(&[tmp.path().join("plain-vmstat-t.txt")], &limits).unwrap();
    for dir in [cap, cap2] {
        let b = iosift::bundle::load(&[dir], &limits).unwrap();
        assert!(b.problems.is_empty(), "{:?}", b.problems);
        assert_eq!(&b.files[0].data[..], text.as_bytes());
        let r = iosift::analyze::analyze(&b, &iosift::pipeline::Options::default());
        let p = iosift::analyze::analyze(&plain, &iosift::pipeline::Options::default());
        let (i, j) = (&r.doc.bundle.inputs[0], &p.doc.bundle.inputs[0]);
        assert_eq!((i.format, i.records), (Some("vmstat"), j.records), "{i:?}");
    }
}

#[test]
fn output_errors_name_their_path() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/replica_sql_bound/capture");
    let file = tmp.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let under_file = file.join("report");
    let (code, _, err) =
        run(&["analyze".as_ref(), cap.as_os_str(), "-o".as_ref(), under_file.as_os_str(), "-q".as_ref()]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&file.display().to_string()) && err.contains("Not a directory (os error 20)"),
        "{err}"
    );
    // /proc refuses new folders: the message names where iosift tried to write.
    let (code, _, err) = run(&[
        "batch".as_ref(),
        cap.as_os_str(),
        "-o".as_ref(),
        "/proc/iosift-test-out".as_ref(),
        "-q".as_ref(),
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("/proc/iosift-test-out: cannot create the report beside it (")
            && err.contains("os error"),
        "{err}"
    );
}

#[test]
fn a_file_the_machine_cannot_hold_is_a_problem_not_an_abort() {
    // The address space is capped at 300 MiB; the 400 MB file is sparse.
    let Some(mut limited) = common::address_space_limited(300 << 20, BIN) else {
        println!("skipped: prlimit not found");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let big = tmp.path().join("iostat.txt");
    std::fs::File::create(&big).unwrap().set_len(400_000_000).unwrap();
    let o = limited.arg("inspect").arg(&big).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "no abort (134): {err}");
    assert!(
        err.contains("iostat.txt: cannot read") && err.contains("out of memory: 400000000 bytes"),
        "{err}"
    );
}

#[test]
fn problems_reach_stderr_when_the_summary_is_not_printed() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("cap");
    std::fs::create_dir(&cap).unwrap();
    std::fs::write(cap.join("vmstat-t.txt"), sample("replica_sql_bound/capture/vmstat-t.txt")).unwrap();
    std::fs::write(cap.join("c.7z"), b"7z\xBC\xAF\x27\x1C\x00\x04rest").unwrap();
    for flag in ["--json", "-q"] {
        let o = tmp.path().join(format!("o{flag}"));
        let (code, out, err) =
            run(&["analyze".as_ref(), cap.as_os_str(), flag.as_ref(), "-o".as_ref(), o.as_os_str()]);
        assert_eq!(code, Some(0), "{err}");
        assert!(err.contains("iosift: c.7z: a 7-Zip archive (.7z): not supported"), "{flag}: {err}");
        if flag == "--json" {
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["bundle"]["problems"][0]["name"], "c.7z");
        }
    }
}

/// Issue 33: a newline in an archive member's name forged lines of `inspect`'s listing
/// (`x` then a line `FORGED: iostat 1000 records`). Now the name is one line, `\n` escaped;
/// the JSON listing carries it as a JSON escape.
#[test]
fn a_newline_in_a_member_name_stays_on_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    let name = "x\nFORGED: iostat 1000 records";
    let mut t = tar::Builder::new(Vec::new());
    let vm = sample("replica_sql_bound/capture/vmstat-t.txt");
    let mut h = tar::Header::new_gnu();
    h.set_size(vm.len() as u64);
    h.set_mode(0o644);
    h.set_cksum();
    t.append_data(&mut h, name, vm.as_slice()).unwrap();
    // An empty member is a problem, printed on stderr: its name stays on its line too.
    let mut h = tar::Header::new_gnu();
    h.set_size(0);
    h.set_mode(0o644);
    h.set_cksum();
    t.append_data(&mut h, "e\nFORGED: problem", &[][..]).unwrap();
    let tarball = tmp.path().join("cap.tar");
    std::fs::write(&tarball, t.into_inner().unwrap()).unwrap();
    let (code, out, err) = run(&["inspect".as_ref(), tarball.as_os_str()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!out.lines().any(|l| l.starts_with("FORGED")), "{out}");
    assert!(out.lines().any(|l| l.ends_with("x\\nFORGED: iostat 1000 records")), "{out}");
    assert!(
        !err.lines().any(|l| l.starts_with("FORGED")) && err.contains("e\\nFORGED: problem: empty file"),
        "{err}"
    );
    let (_, json, _) = run(&["inspect".as_ref(), "--json".as_ref(), tarball.as_os_str()]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(
        v["files"].as_array().unwrap().iter().any(|f| f["path"].as_str().unwrap().ends_with(name)),
        "{json}"
    );
}
