//! Helpers shared by the integration tests: finding a program on PATH,
//! running it with a timeout, a headless Chromium command line, and (`support`)
//! the one place that finds the shared folder.

#![allow(dead_code)]

/// Archives of every kind iosift reads, generated in memory.
pub mod archives;

/// Finding `../shared` (or `$IOSIFT_SHARED`); prints visible skip lines without it.
#[path = "../../parsers/tests/support/shared.rs"]
pub mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The program's path when it is on PATH.
pub fn on_path(bin: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?.to_str()?.split(':').map(|d| Path::new(d).join(bin)).find(|p| p.is_file())
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
