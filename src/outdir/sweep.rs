//! The hidden folders runs leave beside an output folder: `.<name>.iosift-tmp-<pid>-...`
//! (a report being written) and `.<name>.iosift-old-<pid>-...` (a replaced report being
//! emptied). A run killed at the wrong moment leaves them behind; the next run that writes
//! `<name>` looks at them first:
//!
//! - a folder is a dead run's when its process is gone (`kill(pid, 0)`: no such process;
//!   never our own pid) and no process holds its lock (a live run keeps its staging
//!   folder `flock`ed, which also covers runs in another pid namespace);
//! - when `<name>` itself is missing (a run without `RENAME_EXCHANGE` killed between its
//!   two renames), the newest dead folder holding a marker is renamed back into place;
//! - a dead run's folder untouched for [`STALE_AFTER`] is cleaned: without a marker (a
//!   half-written report) it is removed; with one, the files its marker lists and the
//!   entries the report at `<name>` holds too (the user's files carried over) are
//!   removed, and anything else (a user's file) stays.

use super::tree;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a dead run's folder is left alone before it is cleaned.
pub(super) const STALE_AFTER: Duration = Duration::from_secs(5 * 60);

/// Which hidden folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Hidden {
    /// `.<name>.iosift-tmp-...`: a report being written (or, for an instant after the
    /// exchange, the report it replaced).
    Tmp,
    /// `.<name>.iosift-old-...`: a replaced report.
    Old,
}

impl Hidden {
    fn word(self) -> &'static str {
        match self {
            Hidden::Tmp => "tmp",
            Hidden::Old => "old",
        }
    }
}

/// The name of a hidden folder of `name` for this process: `.<name>.iosift-<tmp|old>-<pid>-<n>-<nanos>`.
pub(super) fn hidden_name(name: &str, which: Hidden) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    format!(".{name}.iosift-{}-{}-{n}-{nanos}", which.word(), std::process::id())
}

/// The kind and pid of a hidden folder of `name` (`None` for any other entry).
fn parse(entry: &str, name: &str) -> Option<(Hidden, u32)> {
    let rest = entry.strip_prefix('.')?.strip_prefix(name)?.strip_prefix(".iosift-")?;
    let (which, rest) = match rest.split_once('-')? {
        ("tmp", r) => (Hidden::Tmp, r),
        ("old", r) => (Hidden::Old, r),
        _ => return None,
    };
    let nums: Vec<&str> = rest.split('-').collect();
    let digits = |s: &&str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if nums.len() != 3 || !nums.iter().all(digits) {
        return None;
    }
    Some((which, nums[0].parse().ok()?))
}

/// True when the process `pid` may be running (ours, alive, or not ours to signal).
fn alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    let Some(p) = i32::try_from(pid).ok().and_then(rustix::process::Pid::from_raw) else { return false };
    !matches!(rustix::process::test_kill_process(p), Err(e) if e == rustix::io::Errno::SRCH)
}

/// True when a process holds the lock of the folder `dir` (a live run's staging folder).
fn locked(dir: &Path) -> bool {
    let Ok(fd) = tree::open_folder(dir) else { return false };
    matches!(
        rustix::fs::flock(&fd, rustix::fs::FlockOperation::NonBlockingLockExclusive),
        Err(e) if e == rustix::io::Errno::WOULDBLOCK
    )
}

/// Locks the staging folder `dir` for as long as the returned descriptor lives.
pub(super) fn lock(dir: &Path) -> Option<std::os::fd::OwnedFd> {
    let fd = tree::open_folder(dir).ok()?;
    rustix::fs::flock(&fd, rustix::fs::FlockOperation::NonBlockingLockExclusive).ok()?;
    Some(fd)
}

/// A dead run's hidden folder.
struct Left {
    path: PathBuf,
    which: Hidden,
    pid: u32,
    age: Duration,
    marked: bool,
}

/// Restores `target` when missing and cleans the stale hidden folders beside it (see the
/// module doc). Returns notes for the user.
pub(super) fn sweep(target: &Path) -> Vec<String> {
    let (parent, name) = super::split(target);
    let Ok(rd) = std::fs::read_dir(&parent) else { return Vec::new() };
    let mut left: Vec<Left> = rd
        .flatten()
        .filter_map(|e| {
            let (which, pid) = parse(&e.file_name().to_string_lossy(), &name)?;
            let path = e.path();
            let m = path.symlink_metadata().ok().filter(|m| m.is_dir())?;
            if alive(pid) || locked(&path) {
                return None;
            }
            let age = m.modified().ok().and_then(|t| t.elapsed().ok()).unwrap_or_default();
            let marked = super::marker::Marker::read(&path).is_some();
            Some(Left { path, which, pid, age, marked })
        })
        .collect();
    let mut notes = Vec::new();
    if target.symlink_metadata().is_err() {
        // A finished report (Tmp with a marker) before the one it replaced (Old); the newest first.
        left.sort_by_key(|l| (l.which != Hidden::Tmp, l.age));
        if let Some(i) = left.iter().position(|l| l.marked)
            && std::fs::rename(&left[i].path, target).is_ok()
        {
            let l = left.remove(i);
            notes.push(format!(
                "{}: restored from {}, which an interrupted run (pid {}) left",
                target.display(),
                l.path.display(),
                l.pid
            ));
        }
    }
    for l in left.iter().filter(|l| l.age >= STALE_AFTER) {
        if l.marked {
            let kept = super::retire(&l.path, target, &Default::default());
            if !kept.is_empty() {
                notes.push(format!(
                    "{}: left by an interrupted run (pid {}); kept, it holds files iosift did not write: {}",
                    l.path.display(),
                    l.pid,
                    kept.join(", ")
                ));
            }
        } else if l.which == Hidden::Tmp {
            // A report never finished: every file in it was written by that run.
            let _ = std::fs::remove_dir_all(&l.path);
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_names_parse_back() {
        let n = hidden_name("r", Hidden::Tmp);
        assert_eq!(parse(&n, "r"), Some((Hidden::Tmp, std::process::id())));
        assert_eq!(parse(".r.iosift-old-12-0-5", "r"), Some((Hidden::Old, 12)));
        assert_eq!(parse(".r.iosift-old-12-0-5", "r.iosift-old-12"), None);
        assert_eq!(parse(".r-2.iosift-old-12-0-5", "r"), None);
        assert_eq!(parse(".r.iosift-tmp-12-0", "r"), None);
        assert_eq!(parse(".r.iosift-new-12-0-5", "r"), None);
        assert!(alive(std::process::id()));
        // Above the largest pid Linux hands out (2^22).
        assert!(!alive(4_194_399));
    }
}
