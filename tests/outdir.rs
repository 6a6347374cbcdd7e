//! Output folders never lose the user's files (issue 17): a folder that is not an
//! iosift report is refused with exit 2, a rerun keeps the user's files, an output
//! folder is never read back as input, batch folder names stay unique after pt-stalk
//! samples are split, and bundles named like the overview's files do not break it.
//! Every case builds its input from the repository's samples in a temporary folder.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_iosift");

fn sample(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(rel)
}

/// A small real capture (iostat -xm 1, 30 s).
fn derived() -> PathBuf {
    sample("ext4_dioread_nolock_derived/capture")
}

fn run(args: &[&std::ffi::OsStr], cwd: &Path) -> Output {
    Command::new(BIN).args(args).current_dir(cwd).output().expect("run iosift")
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

fn copy_into(from: &Path, to: &Path, files: &[&str]) {
    std::fs::create_dir_all(to).unwrap();
    for f in files {
        std::fs::copy(from.join(f), to.join(f)).unwrap();
    }
}

#[test]
fn analyze_refuses_a_folder_that_is_not_a_report_and_keeps_its_files() {
    let tmp = tempfile::tempdir().unwrap();
    let x = tmp.path().join("X");
    std::fs::create_dir_all(x.join("charts")).unwrap();
    std::fs::write(x.join("index.html"), "hi").unwrap();
    std::fs::write(x.join("charts/flame-prod.svg"), "x").unwrap();
    let o = run(&[os("analyze"), derived().as_os_str(), os("-o"), x.as_os_str()], tmp.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(&x.display().to_string()) && err.contains("not an iosift report"), "{err}");
    assert_eq!(std::fs::read_to_string(x.join("index.html")).unwrap(), "hi");
    assert_eq!(std::fs::read_to_string(x.join("charts/flame-prod.svg")).unwrap(), "x");
    assert!(!x.join("findings.json").exists());
    // Nothing left beside it either.
    let names: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from("X")]);
}

#[test]
fn rerun_keeps_the_users_files_and_drops_stale_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let x = tmp.path().join("r");
    let o = run(&[os("analyze"), derived().as_os_str(), os("-o"), x.as_os_str(), os("-q")], tmp.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let marker = std::fs::read_to_string(x.join(".iosift-report")).unwrap();
    assert!(marker.starts_with("iosift ") && marker.contains("findings.json\n"), "{marker}");
    std::fs::write(x.join("charts/flame-stale.svg"), "old").unwrap();
    std::fs::write(x.join("my-notes.txt"), "mine").unwrap();
    // flame-stale.svg is listed as ours by a previous run's marker: it goes.
    std::fs::write(x.join(".iosift-report"), format!("{marker}charts/flame-stale.svg\n")).unwrap();
    let o = run(&[os("analyze"), derived().as_os_str(), os("-o"), x.as_os_str(), os("-q")], tmp.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(x.join("findings.json").is_file() && x.join("tables/timeline.parquet").is_file());
    assert!(!x.join("charts/flame-stale.svg").exists());
    assert_eq!(std::fs::read_to_string(x.join("my-notes.txt")).unwrap(), "mine");
    let names: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from("r")], "no staging folder left");
}

#[test]
fn an_output_folder_is_never_read_as_input() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("case");
    copy_into(&derived(), &cap, &["iostat-xm-1.txt", "uname-a.txt"]);
    let inner = cap.join("report");
    let o = run(&[os("analyze"), cap.as_os_str(), os("-o"), inner.as_os_str(), os("-q")], tmp.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Second run: the report inside the input is skipped (and said), not analyzed.
    let o = run(&[os("analyze"), cap.as_os_str(), os("-o"), inner.as_os_str(), os("--json")], tmp.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let paths: Vec<&str> =
        doc["bundle"]["inputs"].as_array().unwrap().iter().map(|i| i["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["iostat-xm-1.txt", "uname-a.txt"], "{paths:?}");
    // The report folder itself given as input: a clear error naming it.
    let o = run(&[os("analyze"), inner.as_os_str(), os("-o"), tmp.path().join("o2").as_os_str()], tmp.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("iosift report folder") && err.contains(&inner.display().to_string()), "{err}");
}

#[test]
fn batch_into_its_input_is_refused_and_batch_dot_skips_its_reports() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tickets");
    copy_into(&derived(), &dir.join("a"), &["iostat-xm-1.txt"]);
    let o = run(&[os("batch"), dir.as_os_str(), os("-o"), dir.as_os_str(), os("-q")], tmp.path());
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!dir.join("a/index.html").exists() && !dir.join("index.html").exists());
    // `batch .` twice: the second run does not analyze ./reports.
    for _ in 0..2 {
        let o = run(&[os("batch"), os("."), os("-q")], &dir);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let s: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("reports/summary.json")).unwrap()).unwrap();
    let names: Vec<&str> =
        s["bundles"].as_array().unwrap().iter().map(|b| b["dir_name"].as_str().unwrap()).collect();
    assert_eq!(names, ["a"]);
}

#[test]
fn batch_names_stay_unique_after_splitting_and_overview_names_are_free() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("in");
    // capP holds two pt-stalk samples; a sibling folder already has the name of one split.
    let src = sample("mmap_periodic_4k/capture");
    let cap = dir.join("capP");
    std::fs::create_dir_all(&cap).unwrap();
    let ds = std::fs::read(src.join("2026_11_29_21_02_16-diskstats")).unwrap();
    std::fs::write(cap.join("2026_11_29_21_02_16-diskstats"), &ds).unwrap();
    std::fs::write(cap.join("2026_11_29_21_10_00-diskstats"), &ds).unwrap();
    copy_into(&derived(), &dir.join("capP-2026_11_29_21_10_00"), &["iostat-xm-1.txt"]);
    copy_into(&derived(), &dir.join("index.html"), &["iostat-xm-1.txt"]);
    copy_into(&derived(), &dir.join("summary.json"), &["iostat-xm-1.txt"]);
    let out = tmp.path().join("out");
    let o = run(&[os("batch"), dir.as_os_str(), os("-o"), out.as_os_str(), os("-q")], tmp.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    let rows = s["bundles"].as_array().unwrap();
    let mut names: Vec<&str> = rows.iter().map(|b| b["dir_name"].as_str().unwrap()).collect();
    assert_eq!(rows.len(), 5, "{rows:?}");
    for r in rows {
        assert!(r["error"].is_null(), "{r}");
        let d = r["dir_name"].as_str().unwrap();
        assert!(out.join(d).join("findings.json").is_file(), "{d}");
    }
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 5, "{names:?}");
    assert!(out.join("index.html").is_file() && out.join(".iosift-report").is_file());
    // The sibling kept its own name; the split sample got another.
    let sib = rows.iter().find(|r| r["dir_name"] == "capP-2026_11_29_21_10_00").unwrap();
    assert!(sib["bundle"].as_str().unwrap().ends_with("capP-2026_11_29_21_10_00"), "{sib}");
}

// Issue 33: reports are never lost, nothing is removed through a link, mount points and
// folders of another command are refused before any work.

/// `o` of a run that must succeed (its stderr shown when it did not).
fn ok(o: Output) -> Output {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

/// [`run`], which must succeed.
fn run_ok(args: &[&std::ffi::OsStr], cwd: &Path) -> Output {
    ok(run(args, cwd))
}

/// The files a report's marker lists (its first line is `iosift <version>`).
fn listed(dir: &Path) -> Vec<String> {
    let m = std::fs::read_to_string(dir.join(".iosift-report")).unwrap_or_default();
    m.lines()
        .skip(1)
        .filter(|l| !l.starts_with("command: ") && !l.starts_with("capture: "))
        .map(String::from)
        .collect()
}

/// The whole report is at `dir`: its marker and every file it lists.
fn assert_whole(dir: &Path, what: &str) {
    let files = listed(dir);
    assert!(!files.is_empty(), "{what}: no report at {}", dir.display());
    for f in &files {
        assert!(dir.join(f).is_file(), "{what}: {f} missing from {}", dir.display());
    }
}

fn hidden(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    v.sort();
    v
}

/// Sets a folder's modification time `secs` seconds back.
fn age(dir: &Path, secs: u64) {
    let t = std::time::SystemTime::now() - std::time::Duration::from_secs(secs);
    std::fs::File::open(dir).unwrap().set_modified(t).unwrap();
}

/// A temporary folder, an output folder `x` in it and the sample to write there.
struct Scene {
    tmp: tempfile::TempDir,
    x: PathBuf,
    cap: PathBuf,
}

impl Scene {
    fn new() -> Scene {
        let tmp = tempfile::tempdir().unwrap();
        let x = tmp.path().join("x");
        Scene { tmp, x, cap: derived() }
    }

    /// `<command> <sample> -o x -q`.
    fn args<'a>(&'a self, command: &'a str) -> [&'a std::ffi::OsStr; 5] {
        [os(command), self.cap.as_os_str(), os("-o"), self.x.as_os_str(), os("-q")]
    }
}

/// Above the largest pid Linux hands out (2^22): never a live process.
const DEAD_PID: u32 = 4_194_399;

#[test]
fn two_captures_of_one_name_never_share_a_default_folder() {
    let tmp = tempfile::tempdir().unwrap();
    // Two customers' captures, both named `case`, in different folders.
    let (c1, c2) = (tmp.path().join("cust1/case"), tmp.path().join("cust2/case"));
    copy_into(&derived(), &c1, &["iostat-xm-1.txt", "uname-a.txt"]);
    copy_into(&derived(), &c2, &["iostat-xm-1.txt"]);
    let analyze = |c: &Path, extra: &[&str]| {
        let mut args = vec![os("analyze"), c.as_os_str(), os("-q")];
        args.extend(extra.iter().map(|s| os(s)));
        run(&args, tmp.path())
    };
    ok(analyze(&c1, &[]));
    let (r1, r2) = (tmp.path().join("reports/case"), tmp.path().join("reports/case-2"));
    let o = ok(analyze(&c2, &[]));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("reports/case-2"), "the folder used is said: {err}");
    let marker = |d: &Path| std::fs::read_to_string(d.join(".iosift-report")).unwrap();
    assert!(marker(&r1).contains(&format!("capture: \"{}\"", c1.canonicalize().unwrap().display())));
    assert!(marker(&r2).contains(&format!("capture: \"{}\"", c2.canonicalize().unwrap().display())));
    assert!(marker(&r2).contains("command: analyze\n"), "{}", marker(&r2));
    assert_whole(&r1, "customer 1");
    assert_whole(&r2, "customer 2");
    // Again, with a note the user left in the first report: into its own folder, the note
    // where the user left it; the other customer's run never takes it along.
    std::fs::write(r1.join("note.txt"), "customer 1").unwrap();
    ok(analyze(&c2, &[]));
    assert!(!r2.join("note.txt").exists(), "the note moved into the other customer's report");
    ok(analyze(&c1, &[]));
    assert_whole(&r1, "rerun");
    assert_eq!(std::fs::read_to_string(r1.join("note.txt")).unwrap(), "customer 1");
    assert!(!tmp.path().join("reports/case-3").exists());
    assert_eq!(hidden(&tmp.path().join("reports")), Vec::<String>::new());
    // An explicit -o naming the other customer's output with the user's note: refused,
    // untouched (`tables`, the same rule: quicker than `analyze`).
    let t = tmp.path().join("t");
    let tables =
        |c: &Path| run(&[os("tables"), c.as_os_str(), os("-o"), t.as_os_str(), os("-q")], tmp.path());
    ok(tables(&c1));
    std::fs::write(t.join("note.txt"), "customer 1").unwrap();
    let o = tables(&c2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("another capture") && err.contains("note.txt"), "{err}");
    assert!(marker(&t).contains(&c1.canonicalize().unwrap().display().to_string()));
    assert_eq!(std::fs::read_to_string(t.join("note.txt")).unwrap(), "customer 1");
    // Without user files, -o replaces it (as asked) and says so.
    std::fs::remove_file(t.join("note.txt")).unwrap();
    let o = tables(&c2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && err.contains("replacing the report of"), "{err}");
    assert!(marker(&t).contains(&c2.canonicalize().unwrap().display().to_string()));
    assert_whole(&t, "replaced");
}

#[test]
fn a_killed_run_always_leaves_the_previous_report_whole() {
    use rustix::process::{Pid, Signal, kill_process};
    let sc = Scene::new();
    let (tmp, x, args) = (&sc.tmp, sc.x.clone(), sc.args("tables"));
    let t = std::time::Instant::now();
    run_ok(&args, tmp.path());
    let took = t.elapsed().as_micros() as u64 + 1;
    assert_whole(&x, "first run");
    // Killed at pseudo-random points over a whole run, by SIGTERM, SIGINT or SIGKILL.
    let mut seed = std::process::id() as u64 ^ took;
    for k in 0..20 {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let at = (seed >> 33) % (took + took / 5);
        let child = Command::new(BIN).args(args).current_dir(tmp.path()).spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_micros(at));
        let sig = [Signal::TERM, Signal::INT, Signal::KILL][k % 3];
        let _ = kill_process(Pid::from_raw(child.id() as i32).unwrap(), sig);
        let _ = child.wait_with_output();
        assert_whole(&x, &format!("killed by {sig:?} after {at} us"));
    }
    // What the killed runs left beside it is cleaned once stale (their pids are gone).
    for h in hidden(tmp.path()) {
        age(&tmp.path().join(h), 3600);
    }
    run_ok(&args, tmp.path());
    assert_whole(&x, "after the kills");
    assert_eq!(hidden(tmp.path()), Vec::<String>::new());
}

#[test]
fn stale_folders_of_dead_runs_are_cleaned_and_a_lost_report_restored() {
    let sc = Scene::new();
    let (tmp, x, args) = (&sc.tmp, sc.x.clone(), sc.args("tables"));
    run_ok(&args, tmp.path());
    std::fs::write(x.join("note.txt"), "mine").unwrap();
    // A run without RENAME_EXCHANGE killed between its two renames: the report moved aside
    // (.x.iosift-old-), the new one complete beside it (.x.iosift-tmp-, the user's note
    // hard-linked in), nothing at x.
    let (old, new) = (
        tmp.path().join(format!(".x.iosift-old-{DEAD_PID}-0-1")),
        tmp.path().join(format!(".x.iosift-tmp-{DEAD_PID}-1-2")),
    );
    std::fs::create_dir(&new).unwrap();
    for f in listed(&x).iter().map(String::as_str).chain([".iosift-report"]) {
        std::fs::copy(x.join(f), new.join(f)).unwrap();
    }
    std::fs::hard_link(x.join("note.txt"), new.join("note.txt")).unwrap();
    std::fs::rename(&x, &old).unwrap();
    // Half-written folders of dead runs (no marker), one fresh, one an hour old, and one of
    // a live process (this test): only the stale dead one goes.
    let fresh = tmp.path().join(format!(".x.iosift-tmp-{DEAD_PID}-2-3"));
    let stale = tmp.path().join(format!(".x.iosift-tmp-{DEAD_PID}-3-4"));
    let live = tmp.path().join(format!(".x.iosift-tmp-{}-4-5", std::process::id()));
    for d in [&fresh, &stale, &live] {
        std::fs::create_dir(d).unwrap();
        std::fs::write(d.join("timeline.csv"), "half").unwrap();
    }
    for d in [&old, &stale, &live] {
        age(d, 3600);
    }
    let o = run_ok(&args, tmp.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("restored"), "{err}");
    assert_whole(&x, "restored and replaced");
    assert_eq!(std::fs::read_to_string(x.join("note.txt")).unwrap(), "mine");
    let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
    let mut want = vec![name(&fresh), name(&live)];
    want.sort();
    assert_eq!(hidden(tmp.path()), want);
}

#[test]
fn replacing_a_report_never_follows_a_link() {
    let sc = Scene::new();
    let (tmp, x, args) = (&sc.tmp, sc.x.clone(), sc.args("analyze"));
    run_ok(&args, tmp.path());
    // charts/ made a link to a shared folder holding files of the same names.
    let shared = tmp.path().join("shared");
    std::fs::rename(x.join("charts"), &shared).unwrap();
    std::os::unix::fs::symlink(&shared, x.join("charts")).unwrap();
    let before: Vec<String> = std::fs::read_dir(&shared)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(before.len() >= 10, "{before:?}");
    let o = run_ok(&args, tmp.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_whole(&x, "after the link");
    assert!(x.join("charts").symlink_metadata().unwrap().is_dir(), "a fresh charts folder");
    for f in &before {
        assert!(shared.join(f).is_file(), "{f} deleted through the link");
    }
    assert!(err.contains("charts"), "the link left aside is said: {err}");
    // -o itself a link: resolved once and said; the link stays, its folder gets the report
    // and keeps the user's note.
    let real = tmp.path().join("real");
    run_ok(&[os("tables"), derived().as_os_str(), os("-o"), real.as_os_str(), os("-q")], tmp.path());
    std::fs::write(real.join("note.txt"), "mine").unwrap();
    let link = tmp.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let o = run_ok(&[os("tables"), derived().as_os_str(), os("-o"), link.as_os_str()], tmp.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("symbolic link") && err.contains(&real.display().to_string()), "{err}");
    assert_eq!(std::fs::read_link(&link).unwrap(), real);
    assert_whole(&real, "through -o link");
    assert_eq!(std::fs::read_to_string(real.join("note.txt")).unwrap(), "mine");
}

#[test]
fn a_mount_point_is_refused_before_any_work() {
    let tmp = tempfile::tempdir().unwrap();
    // The check comes before the input is read: a missing input is not even looked at.
    let missing = tmp.path().join("no-such-capture");
    let o = run(&[os("analyze"), missing.as_os_str(), os("-o"), os("/proc")], tmp.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("/proc: the output folder is a mount point") && err.contains("/proc/report"),
        "{err}"
    );
    // An empty mounted folder (what ended in "Device or resource busy" after the whole run),
    // where an unprivileged mount namespace is allowed.
    let mnt = tmp.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let script = format!(
        "mount -t tmpfs none {m} || exit 99; exec {BIN} analyze {d} -o {m}",
        m = mnt.display(),
        d = derived().display()
    );
    let o =
        Command::new("unshare").args(["--user", "--map-root-user", "--mount", "sh", "-c", &script]).output();
    match o {
        Ok(o)
            if o.status.code() != Some(99)
                && o.status.code().is_some()
                && !String::from_utf8_lossy(&o.stderr).contains("unshare:") =>
        {
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{err}");
            assert!(err.contains("is a mount point") && !err.contains("busy"), "{err}");
            assert!(o.stdout.is_empty(), "no analysis ran: {}", String::from_utf8_lossy(&o.stdout));
        }
        _ => println!("skipped the tmpfs half: no unprivileged mount namespace here"),
    }
}

#[test]
fn a_folder_of_another_command_is_refused_not_emptied() {
    let tmp = tempfile::tempdir().unwrap();
    // An analyze report as iosift wrote them before the marker named the command (the
    // command is told by its files then).
    let x = tmp.path().join("x");
    std::fs::create_dir_all(x.join("charts")).unwrap();
    for f in ["index.html", "findings.json", "charts/cpu.svg"] {
        std::fs::write(x.join(f), "report").unwrap();
    }
    std::fs::write(x.join(".iosift-report"), "iosift 0.1.0\ncharts/cpu.svg\nfindings.json\nindex.html\n")
        .unwrap();
    let o = run(&[os("tables"), derived().as_os_str(), os("-o"), x.as_os_str()], tmp.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("`iosift analyze`") && err.contains("`iosift tables`"), "{err}");
    assert!(x.join("index.html").is_file() && x.join("findings.json").is_file());
    assert_whole(&x, "the analyze report");
    // And the other way round.
    let t = tmp.path().join("t");
    run_ok(&[os("tables"), derived().as_os_str(), os("-o"), t.as_os_str()], tmp.path());
    let o = run(&[os("analyze"), derived().as_os_str(), os("-o"), t.as_os_str(), os("-q")], tmp.path());
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(t.join("timeline.parquet").is_file());
}
