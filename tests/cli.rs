//! The command line as a newcomer meets it: clear errors with the right exit
//! status (1: nothing readable, 2: usage), no report for input that holds no
//! capture, the time forms people copy out of iostat and pidstat, default
//! output folders that do not collide, `--quiet`. Runs the real binary on the
//! repository's samples (nothing from `../shared`).

use crate::common;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_iosift");

/// A small real sample (6 files, 30 s, no zone in the capture: read as UTC).
fn derived() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/ext4_dioread_nolock_derived/capture"))
}

fn run(args: &[&str], cwd: &Path) -> Output {
    Command::new(BIN).args(args).current_dir(cwd).env_remove("NO_COLOR").output().expect("run iosift")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

/// `analyze ... --json` and the findings document it prints.
fn analyze_json(extra: &[&str]) -> serde_json::Value {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    let d = derived();
    let mut args = vec!["analyze", d.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let o = run(&args, tmp.path());
    assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn clock(doc: &serde_json::Value) -> (String, String) {
    (doc["clock"]["start"].as_str().unwrap().to_string(), doc["clock"]["end"].as_str().unwrap().to_string())
}

#[test]
fn input_with_no_capture_is_an_error_and_writes_no_report() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    std::fs::write(
        t.join("passwd"),
        "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n",
    )
    .unwrap();
    // A PNG header and chunk bytes.
    let png: Vec<u8> =
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0\x1f\xf3\xffa".to_vec();
    std::fs::write(t.join("chart.png"), &png).unwrap();
    std::fs::create_dir(t.join("empty")).unwrap();
    for (input, what) in
        [("passwd", "1 file: passwd (not recognised"), ("chart.png", "1 file"), ("empty", "0 files")]
    {
        let out = t.join(format!("out-{input}"));
        let o = run(&["analyze", input, "-o", out.to_str().unwrap()], t);
        let e = stderr(&o);
        assert_eq!(code(&o), 1, "{input}: {e}");
        assert!(e.contains(&format!("nothing in {input} is a capture iosift can read")), "{e}");
        assert!(e.contains(what), "{e}");
        assert!(!out.exists(), "{input}: a report was written");
        assert!(o.stdout.is_empty(), "{input}: {}", String::from_utf8_lossy(&o.stdout));
    }
    // A path that does not exist: the error names it.
    let o = run(&["analyze", "no/such/capture"], t);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("cannot read no/such/capture"), "{}", stderr(&o));
}

#[test]
fn batch_counts_a_bundle_of_noise_as_failed() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    std::fs::create_dir(t.join("in")).unwrap();
    let noise: Vec<u8> = (0u32..4096).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    std::fs::write(t.join("in/junk.tar.gz"), &noise).unwrap();
    let o = run(&["batch", "in", "-o", "out"], t);
    let (out, e) = (String::from_utf8_lossy(&o.stdout).into_owned(), stderr(&o));
    assert_eq!(code(&o), 1, "{out}{e}");
    assert!(out.contains("1 bundles, 0 analyzed, 1 failed"), "{out}");
    assert!(e.contains("junk.tar.gz"), "{e}");
}

/// Issue 36: the exit status follows failures (1 when any capture failed, even beside ones
/// that were analyzed; the count on stderr), the overview links only to reports that exist,
/// and zero jobs or a zero deadline is a usage error (2).
#[test]
fn batch_exits_1_when_any_capture_failed_and_2_on_zero_jobs_or_timeout() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    std::fs::create_dir_all(t.join("in/good")).unwrap();
    std::fs::write(t.join("in/good/vmstat-t.txt"), common::vmstat_text(3)).unwrap();
    std::fs::write(t.join("in/junk.tar.gz"), b"not a gzip stream at all").unwrap();
    let o = run(&["batch", "in", "-o", "out", "-q"], t);
    let e = stderr(&o);
    assert_eq!(code(&o), 1, "{e}");
    assert!(e.contains("1 of 2 captures failed"), "{e}");
    let page = std::fs::read_to_string(t.join("out/index.html")).unwrap();
    assert!(page.contains(r#"href="good/index.html""#), "{page}");
    assert!(!page.contains("junk/index.html") && !t.join("out/junk/index.html").exists());
    assert!(t.join("out/good/index.html").exists());
    // The failed row comes first.
    assert!(page.find("junk.tar.gz").unwrap() < page.find("good/index.html").unwrap());
    for (flag, value) in [("--jobs", "0"), ("--bundle-timeout", "0")] {
        let o = run(&["batch", "in", "-o", "out2", flag, value], t);
        assert_eq!(code(&o), 2, "{flag} {value}: {}", stderr(&o));
        assert!(stderr(&o).contains(flag), "{}", stderr(&o));
        assert!(!t.join("out2").exists());
    }
    // Everything analyzed: 0.
    std::fs::remove_file(t.join("in/junk.tar.gz")).unwrap();
    let o = run(&["batch", "in", "-o", "out3", "-q"], t);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn usage_errors_exit_2_and_say_what_to_give() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let d = derived();
    let d = d.to_str().unwrap();
    let out = t.join("r");
    let o_ = out.to_str().unwrap();
    std::fs::write(t.join("tax.toml"), "[comm]\n\"mysqld\" = \"no_such_category\"\n").unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--tz", "bogus"], "--tz: unknown time zone \"bogus\""),
        (vec!["--tz", "CST"], "ambiguous"),
        (vec!["--display-tz", "Mars/Base"], "--display-tz: unknown time zone"),
        (vec!["--from", "yesterday"], "--from: \"yesterday\" is not a time"),
        (vec!["--prefix", "nope"], "--prefix nope: no such pt-stalk sample"),
        (vec!["--taxonomy", "tax.toml"], "--taxonomy tax.toml"),
        (vec!["--taxonomy", "missing.toml"], "--taxonomy missing.toml"),
        // Reversed and outside windows name the capture's range.
        (
            vec!["--from", "00:00:20", "--to", "00:00:10"],
            "the capture covers 2022-03-15 00:00:00 UTC to 2022-03-15 00:00:30 UTC",
        ),
        (vec!["--from", "2022-03-16 00:00:00"], "holds no data: the capture covers 2022-03-15 00:00:00 UTC"),
        (vec!["--to", "-10m"], "holds no data"),
    ];
    for (extra, want) in cases {
        let mut args = vec!["analyze", d, "-o", o_];
        args.extend_from_slice(&extra);
        let o = run(&args, t);
        let e = stderr(&o);
        assert_eq!(code(&o), 2, "{extra:?}: {e}");
        assert!(e.contains(want), "{extra:?}: {e}");
        assert!(!out.exists(), "{extra:?}: a report was written");
    }
    // clap's own usage errors exit 2 as well.
    assert_eq!(code(&run(&["analyze"], t)), 2);
}

#[test]
fn times_as_people_write_them() {
    // The capture: 2022-03-15 00:00:00 .. 00:00:30, local times read as UTC.
    let full = analyze_json(&[]);
    assert_eq!(clock(&full), ("2022-03-15T00:00:00Z".into(), "2022-03-15T00:00:30Z".into()));
    let ten_to_twenty = ("2022-03-15T00:00:10Z".to_string(), "2022-03-15T00:00:20Z".to_string());
    for window in [
        ["--from", "00:00:10", "--to", "00:00:20"],
        ["--from", "2022-03-15 00:00:10", "--to", "2022-03-15 00:00:20"],
        ["--from", "2022-03-15T00:00:10Z", "--to", "2022-03-15T01:00:20+01:00"],
        ["--from", "1647302410", "--to", "1647302420"],
        ["--from", "+10s", "--to", "-10s"],
    ] {
        assert_eq!(clock(&analyze_json(&window)), ten_to_twenty, "{window:?}");
    }
    // An IANA zone for the host: the local times move by Berlin's winter offset.
    let berlin = analyze_json(&["--tz", "Europe/Berlin", "--from", "2022-03-15 00:00:10"]);
    assert_eq!(clock(&berlin), ("2022-03-14T23:00:10Z".into(), "2022-03-14T23:00:30Z".into()));
    assert_eq!(berlin["clock"]["timezone"], "Europe/Berlin");
    // The finding survives the window (its plateau is inside it).
    let rules: Vec<&str> =
        berlin["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap()).collect();
    assert_eq!(rules, ["ext4_dioread_nolock_nodelalloc"]);
}

#[test]
fn display_zone_reaches_summary_and_report() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    let d = derived();
    let o = run(
        &["analyze", d.to_str().unwrap(), "-o", out.to_str().unwrap(), "--display-tz", "Asia/Tokyo"],
        tmp.path(),
    );
    let s = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(s.contains("2022-03-15 09:00:00 to 09:00:30 Asia/Tokyo +09:00 (31 s)"), "{s}");
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("times below are shown in Asia/Tokyo"), "display zone not in the page");
    assert!(html.contains("2022-03-15 09:00:00 +09:00"), "window not in the display zone");
    // findings.json stays in UTC whatever is displayed.
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("findings.json")).unwrap()).unwrap();
    assert_eq!(doc["clock"]["start"], "2022-03-15T00:00:00Z");
}

#[test]
fn default_output_is_named_after_the_case_and_quiet_prints_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let d = derived();
    let o = run(&["analyze", d.to_str().unwrap(), "--quiet"], tmp.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(o.stdout.is_empty() && o.stderr.is_empty(), "--quiet printed: {:?}", o);
    // samples/ext4_dioread_nolock_derived/capture -> reports/ext4_dioread_nolock_derived
    assert!(tmp.path().join("reports/ext4_dioread_nolock_derived/index.html").is_file());
    let fixed = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/samples/ext4_dioread_nolock_derived_fixed_kernel/capture"
    ));
    let o = run(&["analyze", fixed.to_str().unwrap(), "-q"], tmp.path());
    assert_eq!(code(&o), 0);
    assert!(tmp.path().join("reports/ext4_dioread_nolock_derived_fixed_kernel/index.html").is_file());
    // --verbose lists every input with its format.
    let o = run(&["analyze", d.to_str().unwrap(), "-o", "v", "--verbose"], tmp.path());
    assert!(stderr(&o).contains("input iostat-xm-1.txt: iostat"), "{}", stderr(&o));
}

#[test]
fn inspect_json_gives_instants_or_null_and_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = [
        // pidstat -h: times of day under the banner's date.
        root.join("samples/mariadb_relaxed/capture/pidstat-d-t-h.txt"),
        // perf script without clock data: boot-relative times only (real perf 6.1 output).
        root.join("parsers/tests/fixtures/perf/tracepoints_callchain_head.txt"),
        // iostat without -t: no time at all, placed at the banner date.
        derived().join("iostat-xm-1.txt"),
    ];
    let mut args = vec!["inspect", "--json"];
    args.extend(files.iter().map(|p| p.to_str().unwrap()));
    let o = run(&args, tmp.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let f = doc["files"].as_array().unwrap();
    let is_rfc3339 =
        |v: &serde_json::Value| v.as_str().is_some_and(|s| chrono::DateTime::parse_from_rfc3339(s).is_ok());
    for r in f {
        for k in ["first", "last"] {
            assert!(r[k].is_null() || is_rfc3339(&r[k]), "{}: {k} = {}", r["path"], r[k]);
        }
    }
    assert_eq!(f[0]["format"], "pidstat");
    assert_eq!(f[0]["first"], "2026-11-29T21:12:08Z");
    assert_eq!(f[0]["time_basis"], "banner-date+time-of-day");
    assert_eq!(f[0]["as_printed"][0], "21:12:09");
    assert!(f[0]["zone"].as_str().unwrap().contains("assumed"), "{}", f[0]["zone"]);
    assert_eq!(f[1]["format"], "perf_script");
    assert!(f[1]["first"].is_null() && f[1]["time_basis"].is_null(), "{}", f[1]);
    assert_eq!(f[1]["as_printed"][0], "boot+506.414466s");
    assert_eq!(f[2]["inferred_times"], true);
    // Its banner says 03/15/2022: another capture than the 2026 pidstat, so it is not
    // placed at this bundle's start but at its own banner date (and left out of a timeline).
    assert_eq!(f[2]["time_basis"], "banner-date-midnight+interval");
    assert_eq!(f[2]["first"], "2022-03-15T00:00:00Z");
}

/// Issue 36: `--help` of iosift and of each command ends with examples that name the
/// command itself.
#[test]
fn every_help_has_examples_of_its_own_command() {
    let tmp = tempfile::tempdir().unwrap();
    for cmd in ["", "inspect", "formats", "analyze", "batch", "diff", "tables"] {
        let args: Vec<&str> = if cmd.is_empty() { vec!["--help"] } else { vec![cmd, "--help"] };
        let o = run(&args, tmp.path());
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        assert_eq!(code(&o), 0, "{cmd}: {}", stderr(&o));
        let ex = out.split("Examples:\n").nth(1).unwrap_or_else(|| panic!("{cmd}: no examples: {out}"));
        assert!(
            ex.lines().any(|l| l.trim_start().starts_with(&format!("iosift {cmd}").trim_end().to_string())),
            "{cmd}: {ex}"
        );
    }
}

/// Issue 36: the report and the summary name the host the capture names (its folder is
/// often just `capture`) and the capture's start.
#[test]
fn the_report_is_named_after_the_host_and_the_start() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/ixh_idle_d_noperf/capture");
    let out = tmp.path().join("r");
    let o = run(&["analyze", cap.to_str().unwrap(), "-o", out.to_str().unwrap()], tmp.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let first = String::from_utf8_lossy(&o.stdout).lines().next().unwrap_or("").to_string();
    assert!(first.starts_with("iosift: ixh_idle_d_noperf (host vm), 2026-12-05 13:38:15 to "), "{first}");
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(page.contains("<title>iosift report: vm, 2026-12-05 13:38:15 UTC (ixh_idle_d_noperf)</title>"));
}

/// Issue 36: `analyze` shows its stage on a terminal (under a pseudo-terminal from
/// `script`), and nothing when standard error is a pipe or with `-q`. The delay before the
/// line appears (2 s) is set to 0 here so that a quick sample shows it.
#[test]
fn analyze_shows_progress_on_a_terminal_and_not_when_piped() {
    let Some(script) = common::on_path("script") else {
        common::support::skip("script (util-linux) not found: no pseudo-terminal to test under");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let cap = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/mmap_large_folio/capture");
    let under_pty = |out: &str, quiet: bool| {
        let cmd = format!(
            "{BIN} analyze {}{} -o {}",
            cap.display(),
            if quiet { " -q" } else { "" },
            tmp.path().join(out).display()
        );
        let o = Command::new(&script)
            .args(["-qec", &cmd, "/dev/null"])
            .env("IOSIFT_PROGRESS_DELAY_MS", "0")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let tty = under_pty("a", false);
    assert!(tty.contains("analyzing (29 files, 3.8 MiB"), "{tty}");
    assert!(tty.contains("iosift: mmap_large_folio (host vm)"), "{tty}");
    assert!(!under_pty("b", true).contains("analyzing"));
    let mut piped = Command::new(BIN);
    piped.args(["analyze", cap.to_str().unwrap(), "-o", tmp.path().join("c").to_str().unwrap()]);
    let o = piped.env("IOSIFT_PROGRESS_DELAY_MS", "0").output().unwrap();
    assert!(o.status.success());
    assert!(!String::from_utf8_lossy(&o.stderr).contains("analyzing"), "{}", stderr(&o));
}
