//! Output folders that never lose the user's files.
//!
//! A folder iosift writes holds a marker file, [`MARKER`], whose first line is
//! `iosift <version>` and whose other lines list every file of the folder that
//! iosift wrote (relative paths). Rules:
//!
//! - a folder that exists, is not empty and has no marker is refused ([`OutputError::NotOurs`]);
//! - everything is written into a fresh hidden folder beside the target
//!   (`.<name>.iosift-tmp-<pid>-<n>`) and renamed into place when complete, so two
//!   runs into one folder never mix: the folder is always one run's whole output;
//! - when an earlier report is replaced, only the files its marker lists are
//!   deleted; any other file in it (the user's) is moved into the new folder;
//! - a folder with the marker is never read as input ([`is_report_folder`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Name of the marker file of a folder iosift wrote.
pub const MARKER: &str = ".iosift-report";

/// Why an output folder cannot be used. Every variant names the path.
#[derive(Debug)]
pub enum OutputError {
    /// The folder exists, holds files and is not an iosift report (no marker).
    NotOurs(PathBuf),
    /// The path exists and is not a folder (a file, a link, a device).
    NotAFolder(PathBuf),
    /// A file system operation failed.
    Io { path: PathBuf, error: std::io::Error },
}

impl std::fmt::Display for OutputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OutputError::NotOurs(p) => write!(
                f,
                "{}: the output folder is not empty and is not an iosift report (no {MARKER} file); \
                 nothing was written: choose an empty or new folder",
                p.display()
            ),
            OutputError::NotAFolder(p) => {
                write!(f, "{}: the output path exists and is not a folder; nothing was written", p.display())
            }
            OutputError::Io { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for OutputError {}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> OutputError + '_ {
    move |error| OutputError::Io { path: path.to_path_buf(), error }
}

/// True when `dir` is a folder iosift wrote (it holds the marker file).
pub fn is_report_folder(dir: &Path) -> bool {
    dir.join(MARKER).symlink_metadata().is_ok_and(|m| m.is_file())
}

/// Checks that `target` may be written: absent, an empty folder, or an iosift report.
/// Another run may be renaming its report into place at this very moment (the path
/// briefly absent, then a different folder): a refusal is looked at again a few times,
/// so only a folder that stays foreign is refused.
pub fn check_target(target: &Path) -> Result<(), OutputError> {
    let mut tries = 0;
    loop {
        match check_once(target) {
            Err(OutputError::NotOurs(_)) if tries < 5 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            other => return other,
        }
    }
}

fn check_once(target: &Path) -> Result<(), OutputError> {
    if is_report_folder(target) {
        return Ok(());
    }
    match target.symlink_metadata() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(OutputError::Io { path: target.to_path_buf(), error: e }),
        Ok(m) if !m.is_dir() => Err(OutputError::NotAFolder(target.to_path_buf())),
        Ok(_) => {
            let mut rd = match std::fs::read_dir(target) {
                Ok(rd) => rd,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
                Err(e) => return Err(OutputError::Io { path: target.to_path_buf(), error: e }),
            };
            if rd.next().is_none() || is_report_folder(target) {
                Ok(())
            } else {
                Err(OutputError::NotOurs(target.to_path_buf()))
            }
        }
    }
}

/// A unique suffix for hidden folders beside the target (process id and a counter).
fn unique() -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("{}-{}-{nanos}", std::process::id(), N.fetch_add(1, Ordering::Relaxed))
}

/// The target's parent folder (`.` for a bare name) and its last component.
fn split(target: &Path) -> (PathBuf, String) {
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name =
        target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "report".into());
    (parent, name)
}

/// A report being written: a hidden folder beside the target, renamed into
/// place by [`Staging::commit`]; dropped uncommitted, it is removed.
#[derive(Debug)]
pub struct Staging {
    target: PathBuf,
    tmp: PathBuf,
    done: bool,
}

impl Staging {
    /// Checks the target ([`check_target`]) and creates the staging folder beside it.
    pub fn begin(target: &Path) -> Result<Staging, OutputError> {
        // `-o .` or `-o some/..`: name the folder itself, not `.`.
        let target = if target.file_name().is_none() {
            std::fs::canonicalize(target).map_err(io(target))?
        } else {
            target.to_path_buf()
        };
        check_target(&target)?;
        let (parent, name) = split(&target);
        std::fs::create_dir_all(&parent).map_err(io(&parent))?;
        let tmp = parent.join(format!(".{name}.iosift-tmp-{}", unique()));
        // Named by the folder the user asked for: the staging name means nothing to them.
        std::fs::create_dir(&tmp).map_err(|e| OutputError::Io {
            path: target.clone(),
            error: std::io::Error::new(
                e.kind(),
                format!("cannot create the report beside it ({e}; staging folder {})", tmp.display()),
            ),
        })?;
        Ok(Staging { target, tmp, done: false })
    }

    /// Where to write now.
    pub fn path(&self) -> &Path {
        &self.tmp
    }

    /// The folder the report will be in.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Writes the marker (listing every file written), then renames the folder
    /// into place. An earlier iosift report there is replaced: the files its
    /// marker lists are deleted, other files are moved into the new folder.
    /// Returns notes on files that could not be carried over.
    pub fn commit(mut self) -> Result<Vec<String>, OutputError> {
        let mut files = Vec::new();
        list_files(&self.tmp, &self.tmp, &mut files);
        files.sort();
        let mut marker = format!("iosift {}\n", env!("CARGO_PKG_VERSION"));
        for f in &files {
            marker.push_str(f);
            marker.push('\n');
        }
        let mpath = self.tmp.join(MARKER);
        std::fs::write(&mpath, marker).map_err(io(&mpath))?;
        let (parent, name) = split(&self.target);
        let mut olds = Vec::new();
        let mut last = None;
        for _ in 0..16 {
            match std::fs::rename(&self.tmp, &self.target) {
                Ok(()) => {
                    last = None;
                    break;
                }
                Err(e) => {
                    // Another run's report (or an empty folder) is in the way: move it aside
                    // (it may vanish meanwhile: a concurrent run moved it).
                    check_target(&self.target)?;
                    let old = parent.join(format!(".{name}.iosift-old-{}", unique()));
                    match std::fs::rename(&self.target, &old) {
                        Ok(()) => olds.push(old),
                        Err(e2) if e2.kind() == std::io::ErrorKind::NotFound => {}
                        Err(e2) => return Err(OutputError::Io { path: self.target.clone(), error: e2 }),
                    }
                    last = Some(e);
                }
            }
        }
        if let Some(e) = last {
            return Err(OutputError::Io { path: self.target.clone(), error: e });
        }
        self.done = true;
        let mut notes = Vec::new();
        for old in olds {
            notes.extend(retire(&old, &self.target));
        }
        Ok(notes)
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.done {
            // Only our own fresh folder: every file in it was written by this run.
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}

/// Relative paths of every regular file under `dir`.
fn list_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => list_files(root, &p, out),
            Ok(t) if t.is_file() => {
                if let Ok(rel) = p.strip_prefix(root) {
                    out.push(rel.to_string_lossy().into_owned());
                }
            }
            _ => {}
        }
    }
}

/// The files an old report's marker lists (empty without a marker: nothing is ours).
fn ours(old: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(old.join(MARKER)) else { return Vec::new() };
    let mut v: Vec<String> = text.lines().skip(1).filter(|l| !l.is_empty()).map(String::from).collect();
    v.push(MARKER.to_string());
    v
}

/// Empties a replaced report folder: deletes the files it lists as ours, moves
/// the rest into `new` (where the name is free), removes the folder when empty.
fn retire(old: &Path, new: &Path) -> Vec<String> {
    let listed = ours(old);
    for rel in &listed {
        if rel.split('/').any(|c| c == ".." || c.is_empty()) {
            continue;
        }
        let p = old.join(rel);
        if p.symlink_metadata().is_ok_and(|m| m.is_file()) {
            let _ = std::fs::remove_file(p);
        }
    }
    let mut rest = Vec::new();
    list_files(old, old, &mut rest);
    let mut notes = Vec::new();
    for rel in rest {
        let (from, to) = (old.join(&rel), new.join(&rel));
        let moved = !to.exists()
            && to.parent().is_none_or(|d| std::fs::create_dir_all(d).is_ok())
            && std::fs::rename(&from, &to).is_ok();
        if !moved {
            notes.push(format!(
                "{}: a file iosift did not write, kept in {} (the new report has a file of that name)",
                rel,
                old.display()
            ));
        }
    }
    remove_empty_dirs(old);
    notes
}

/// Removes `dir` and its sub-folders when they hold no file.
fn remove_empty_dirs(dir: &Path) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                remove_empty_dirs(&e.path());
            }
        }
    }
    let _ = std::fs::remove_dir(dir);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_a_folder_that_is_not_ours() {
        let tmp = tempfile::tempdir().unwrap();
        let x = tmp.path().join("x");
        std::fs::create_dir(&x).unwrap();
        std::fs::write(x.join("index.html"), "hi").unwrap();
        let e = Staging::begin(&x).unwrap_err();
        assert!(matches!(e, OutputError::NotOurs(_)));
        assert!(e.to_string().contains(&x.display().to_string()), "{e}");
        assert_eq!(std::fs::read_to_string(x.join("index.html")).unwrap(), "hi");
        // No staging folder left behind.
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
        let f = tmp.path().join("file");
        std::fs::write(&f, "").unwrap();
        assert!(matches!(Staging::begin(&f).unwrap_err(), OutputError::NotAFolder(_)));
    }

    #[test]
    fn replacing_keeps_the_users_files_and_drops_ours() {
        let tmp = tempfile::tempdir().unwrap();
        let x = tmp.path().join("x");
        let s = Staging::begin(&x).unwrap();
        std::fs::create_dir(s.path().join("charts")).unwrap();
        std::fs::write(s.path().join("charts/a.svg"), "run1").unwrap();
        std::fs::write(s.path().join("index.html"), "run1").unwrap();
        assert!(s.commit().unwrap().is_empty());
        assert!(is_report_folder(&x));
        std::fs::write(x.join("charts/mine.txt"), "keep").unwrap();
        std::fs::write(x.join("notes.md"), "keep").unwrap();
        let s = Staging::begin(&x).unwrap();
        std::fs::write(s.path().join("index.html"), "run2").unwrap();
        std::fs::write(s.path().join("notes.md"), "ours").unwrap();
        let notes = s.commit().unwrap();
        assert_eq!(std::fs::read_to_string(x.join("index.html")).unwrap(), "run2");
        assert!(!x.join("charts/a.svg").exists(), "a file of the old run is gone");
        assert_eq!(std::fs::read_to_string(x.join("charts/mine.txt")).unwrap(), "keep");
        // A user's file whose name the new run wrote is kept in the old folder, and said.
        assert_eq!(notes.len(), 1, "{notes:?}");
        let kept = std::fs::read_dir(tmp.path())
            .unwrap()
            .flatten()
            .find(|e| e.file_name().to_string_lossy().contains("iosift-old"))
            .unwrap();
        assert_eq!(std::fs::read_to_string(kept.path().join("notes.md")).unwrap(), "keep");
        let marker = std::fs::read_to_string(x.join(MARKER)).unwrap();
        assert!(marker.starts_with("iosift ") && marker.contains("index.html\n"), "{marker}");
    }

    #[test]
    fn concurrent_runs_never_mix() {
        let tmp = tempfile::tempdir().unwrap();
        let x = tmp.path().join("x");
        let runs: Vec<_> = (0..8)
            .map(|k| {
                let x = x.clone();
                std::thread::spawn(move || {
                    let s = Staging::begin(&x).unwrap();
                    for f in ["a", "b", "c", "d"] {
                        std::fs::write(s.path().join(f), format!("{k}")).unwrap();
                    }
                    s.commit().unwrap();
                })
            })
            .collect();
        for r in runs {
            r.join().unwrap();
        }
        let a = std::fs::read_to_string(x.join("a")).unwrap();
        for f in ["b", "c", "d"] {
            assert_eq!(std::fs::read_to_string(x.join(f)).unwrap(), a, "files of two runs mixed");
        }
        // Nothing left beside it but the report.
        let names: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("x")]);
    }
}
