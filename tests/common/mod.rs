//! Helpers shared by the integration tests: finding a program on PATH,
//! running it with a timeout or under an address-space limit, a headless Chromium
//! command line, and (`support`) the one place that finds the shared folder.

#![allow(dead_code)]

/// Archives of every kind iosift reads, generated in memory.
pub mod archives;

/// Finding `../shared` (or `$IOSIFT_SHARED`); prints visible skip lines without it.
#[path = "../../parsers/tests/support/shared.rs"]
pub mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Copies the files (not the subfolders) of folder `from` into `to` (created).
pub fn copy_files(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// The captures of one sample: `capture/` itself, or, when it holds only folders (one
/// capture per node of a cluster: `capture/node1`, `capture/node2`, ...), each of them as
/// `(CASE/NODE, path, Some(NODE))`, so that no test merges the nodes into one host.
pub fn sample_captures(case: &str, capture: &Path) -> Vec<(String, PathBuf, Option<String>)> {
    let entries: Vec<std::fs::DirEntry> =
        std::fs::read_dir(capture).map(|r| r.flatten().collect()).unwrap_or_default();
    let nodes = !entries.is_empty() && entries.iter().all(|e| e.file_type().is_ok_and(|t| t.is_dir()));
    if !nodes {
        return vec![(case.to_string(), capture.to_path_buf(), None)];
    }
    let mut out: Vec<(String, PathBuf, Option<String>)> = entries
        .iter()
        .map(|e| {
            let node = e.file_name().to_string_lossy().into_owned();
            (format!("{case}/{node}"), e.path(), Some(node))
        })
        .collect();
    out.sort();
    out
}

/// Every capture of `samples/` as `(snapshot name, folder)`, sorted: `CASE`, or `CASE__NODE`
/// for each node of a cluster sample ([`sample_captures`]): the names of
/// `tests/snapshots/analysis/`.
pub fn sample_snapshot_cases() -> Vec<(String, PathBuf)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(root.join("samples"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("capture").is_dir())
        .flat_map(|p| {
            let case = p.file_name().unwrap().to_string_lossy().into_owned();
            sample_captures(&case, &p.join("capture"))
                .into_iter()
                .map(|(name, dir, _)| (name.replace('/', "__"), dir))
        })
        .collect();
    out.sort();
    out
}

/// The program's path when it is on PATH.
pub fn on_path(bin: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?.to_str()?.split(':').map(|d| Path::new(d).join(bin)).find(|p| p.is_file())
}

/// `bin` under an address-space limit of `bytes` (`prlimit --as`, util-linux), with
/// one malloc arena so the room a run needs does not grow with the machine's cores.
/// `None` when prlimit is missing (the caller prints a skip line).
pub fn address_space_limited(bytes: u64, bin: &str) -> Option<Command> {
    let prlimit = ["/usr/bin/prlimit", "/bin/prlimit"].into_iter().find(|p| Path::new(p).exists())?;
    let mut c = Command::new(prlimit);
    c.arg(format!("--as={bytes}")).arg(bin).env("MALLOC_ARENA_MAX", "1");
    Some(c)
}

/// Runs a command with a timeout; returns (success, stdout, stderr).
pub fn run(cmd: &mut Command, timeout: Duration) -> (bool, String, String) {
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    let out = child.stdout.take().unwrap();
    let err = child.stderr.take().unwrap();
    let ho = std::thread::spawn(move || std::io::read_to_string(out).unwrap_or_default());
    let he = std::thread::spawn(move || std::io::read_to_string(err).unwrap_or_default());
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let (o, e) = (ho.join().unwrap(), he.join().unwrap());
    (status.is_some_and(|s| s.success()), o, e)
}

/// A headless Chromium command with no network chatter and its own profile.
pub fn chromium(bin: &Path, profile: &Path) -> Command {
    let mut c = Command::new(bin);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    c
}

/// What headless Chromium made of a page: a screenshot, the console lines of both
/// loads, the DOM after the page's scripts ran, and the network log (`--log-net-log`).
pub struct Page {
    /// PNG of the first `--window-size=1280,2000` of the page.
    pub png: Vec<u8>,
    /// `:CONSOLE` lines Chromium logged (errors of the page's scripts, CSP violations).
    pub console: Vec<String>,
    /// `--dump-dom` output.
    pub dom: String,
    /// The network log of the DOM load (JSON text, empty when Chromium wrote none).
    pub net_log: String,
}

/// Loads `url` twice in headless Chromium (profiles under `tmp`): a screenshot, then
/// the DOM. Panics when Chromium fails or the screenshot is not a PNG.
pub fn load_page(bin: &Path, tmp: &Path, url: &str) -> Page {
    let shot = tmp.join("shot.png");
    let (ok, _, err1) = run(
        chromium(bin, &tmp.join("p1"))
            .arg(format!("--screenshot={}", shot.display()))
            .arg("--window-size=1280,2000")
            .arg("--enable-logging=stderr")
            .arg("--v=0")
            .arg(url),
        Duration::from_secs(120),
    );
    assert!(ok, "chromium screenshot of {url} failed: {err1}");
    let png = std::fs::read(&shot).unwrap_or_default();
    assert!(png.starts_with(b"\x89PNG"), "no screenshot of {url}");
    let net = tmp.join("net-log.json");
    let (ok, dom, err2) = run(
        chromium(bin, &tmp.join("p2"))
            .arg("--enable-logging=stderr")
            .arg("--v=0")
            .arg(format!("--log-net-log={}", net.display()))
            .arg("--window-size=1280,2000")
            .arg("--dump-dom")
            .arg(url),
        Duration::from_secs(120),
    );
    assert!(ok, "chromium --dump-dom of {url} failed: {err2}");
    let console =
        err1.lines().chain(err2.lines()).filter(|l| l.contains(":CONSOLE")).map(str::to_string).collect();
    Page { png, console, dom, net_log: std::fs::read_to_string(&net).unwrap_or_default() }
}

/// Loads `html` with `driver` appended before `</body>` (a `<script>` that writes what it saw
/// as JSON into `<pre id="test-out">`, and `error` when it failed) in headless Chromium, as
/// `driven.html` under `tmp`. Returns the page and the driver's JSON; panics on a console
/// message or a driver error.
pub fn drive(bin: &Path, tmp: &Path, html: &str, driver: &str) -> (Page, serde_json::Value) {
    let driven = html.replacen("</body>", &format!("{driver}</body>"), 1);
    assert_ne!(driven, html, "the page has a body end");
    let test_page = tmp.join("driven.html");
    std::fs::write(&test_page, driven).unwrap();
    let page = load_page(bin, tmp, &format!("file://{}", test_page.display()));
    assert!(page.console.is_empty(), "console messages: {:?}", page.console);
    let dom = &page.dom;
    let start = dom.find("<pre id=\"test-out\">").expect("the driver ran") + "<pre id=\"test-out\">".len();
    let end = start + dom[start..].find("</pre>").unwrap();
    let text = dom[start..end].replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
    let out: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert!(out.get("error").is_none(), "driver failed: {}", out["error"]);
    (page, out)
}

/// A capture file as a crashed or still running writer leaves it: `head`, then a hole of
/// `hole` bytes (read back as NULs; sparse, so no disk is used), then `tail`.
pub fn with_hole(path: &Path, head: &[u8], hole: u64, tail: &[u8]) {
    use std::io::{Seek, SeekFrom, Write};
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(head).unwrap();
    f.seek(SeekFrom::Current(i64::try_from(hole).unwrap())).unwrap();
    f.write_all(tail).unwrap();
    f.set_len(head.len() as u64 + hole + tail.len() as u64).unwrap();
}

/// The `vmstat -t` of the replica_sql_bound sample (75 reports) repeated `k` times: more
/// than 64 KiB of text for `k >= 10`, so that a file starting with it is recognised from
/// its head (and streamed when it is large).
pub fn vmstat_text(k: usize) -> Vec<u8> {
    let one =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/replica_sql_bound/capture/vmstat-t.txt"))
            .unwrap();
    one.repeat(k)
}
