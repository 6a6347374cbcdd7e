//! Output folders that never lose a report nor the user's files.
//!
//! A folder iosift writes holds a marker file, [`MARKER`] (format in [`marker`]): the
//! version, the command that wrote it, the capture it is of (its inputs) and every file
//! of the folder iosift wrote. Rules, checked before any work ([`Target::settle`]) and
//! again when the report is put in place:
//!
//! - a folder that exists, is not empty and has no marker is refused ([`OutputError::NotOurs`]);
//!   so is a path that is not a folder, and a mount point ([`OutputError::MountPoint`]: a
//!   folder cannot be put in its place; write into a folder inside it);
//! - a report of another command is refused ([`OutputError::OtherKind`]: `tables -o`
//!   into an `analyze` report would delete its pages);
//! - a default output folder ([`Target::default_at`], `reports/<name>`) is never another
//!   capture's: when `<name>` holds a report of another capture (or anything not ours),
//!   `<name>-2`, `<name>-3`, ... is used (the first free one or the one holding this
//!   capture), and a note says so;
//! - an explicit `-o` naming a report of another capture replaces it (as asked), unless
//!   the folder holds files the user put there: those would end up in another capture's
//!   report, so that is refused ([`OutputError::OtherCapture`], naming the files);
//! - `-o` naming a symbolic link is resolved once: the report goes into the folder the
//!   link names, the link stays, and a note says so;
//! - everything is written into a fresh hidden folder beside the target
//!   (`.<name>.iosift-tmp-<pid>-...`, locked while the run lives), and put in place in one
//!   step: `renameat2(RENAME_EXCHANGE)` swaps it with the earlier report, so the path
//!   always holds a whole report, whenever the run is killed. Where the file system
//!   cannot exchange, the earlier report is renamed aside first, and a run killed between
//!   the two renames is repaired by the next run ([`sweep`]);
//! - the user's files in an earlier report of the same capture (files its marker does
//!   not list) are hard-linked (or copied) into the new report before the swap, so they
//!   stay at the same path; then the old report's listed files are deleted. A user's file
//!   whose name the new report took stays in the hidden `.<name>.iosift-old-...` folder,
//!   and a note says so;
//! - nothing is ever removed through a symbolic link: removal opens each folder with
//!   `O_NOFOLLOW` and unlinks a link as a link ([`tree`]);
//! - hidden folders of dead runs are cleaned by the next run into the same folder
//!   ([`sweep`]), never a live run's;
//! - a folder with the marker is never read as input ([`is_report_folder`]).

pub(crate) mod marker;
mod sweep;
mod tree;

use marker::Marker;
pub use marker::{Kind, Origin};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use sweep::Hidden;
use tree::What;

/// Name of the marker file of a folder iosift wrote.
pub const MARKER: &str = ".iosift-report";

/// How many numbered names a default output folder tries (`<name>-2` .. `<name>-999`).
const MAX_NUMBERED: usize = 999;

/// Why an output folder cannot be used. Every variant names the path.
#[derive(Debug)]
pub enum OutputError {
    /// The folder exists, holds files and is not an iosift report (no marker).
    NotOurs(PathBuf),
    /// The path exists and is not a folder (a file, a device).
    NotAFolder(PathBuf),
    /// The path is a symbolic link to nothing.
    DanglingLink {
        /// The link.
        path: PathBuf,
        /// What it names.
        to: PathBuf,
    },
    /// The folder is a mount point: a report cannot be renamed in its place.
    MountPoint(PathBuf),
    /// The folder is the output of another command.
    OtherKind {
        /// The folder.
        path: PathBuf,
        /// The command that wrote it.
        found: Kind,
        /// The command that would replace it.
        wanted: Kind,
    },
    /// The folder is another capture's report and holds files the user put there.
    OtherCapture {
        /// The folder.
        path: PathBuf,
        /// The capture it is a report of.
        capture: String,
        /// The user's files (relative paths).
        user_files: Vec<String>,
    },
    /// Every numbered name of a default output folder is taken.
    NoFreeName(PathBuf),
    /// A file system operation failed.
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
}

impl OutputError {
    /// True for a refusal (the folder cannot be used: a usage error, exit status 2), false
    /// for a failed file system operation.
    pub fn is_refusal(&self) -> bool {
        !matches!(self, OutputError::Io { .. })
    }
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
            OutputError::DanglingLink { path, to } => write!(
                f,
                "{}: the output path is a symbolic link to {}, which does not exist; nothing was written",
                path.display(),
                to.display()
            ),
            OutputError::MountPoint(p) => write!(
                f,
                "{0}: the output folder is a mount point: a report cannot replace it; nothing was written: \
                 choose a folder inside it, e.g. {1}",
                p.display(),
                p.join("report").display()
            ),
            OutputError::OtherKind { path, found, wanted } => write!(
                f,
                "{}: the output folder was written by `iosift {}`; `iosift {}` would replace it \
                 (and delete its files); nothing was written: choose another folder",
                path.display(),
                found.as_str(),
                wanted.as_str()
            ),
            OutputError::OtherCapture { path, capture, user_files } => {
                const SHOWN: usize = 5;
                let mut files = user_files.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
                if user_files.len() > SHOWN {
                    files.push_str(&format!(" and {} more", user_files.len() - SHOWN));
                }
                write!(
                    f,
                    "{}: the output folder is the report of another capture ({capture}) and holds files \
                     iosift did not write ({files}); they would end up in this capture's report; \
                     nothing was written: move them out or choose another folder",
                    path.display()
                )
            }
            OutputError::NoFreeName(p) => write!(
                f,
                "{}: this name and {} numbered ones are taken by other captures' reports; \
                 nothing was written: choose a folder with -o",
                p.display(),
                MAX_NUMBERED - 1
            ),
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

/// Where an output goes: a folder, what writes it, and whether iosift chose the name.
#[derive(Debug, Clone)]
pub struct Target {
    /// The folder asked for (`-o`) or the default name.
    base: PathBuf,
    /// The folder that will be written (after [`Target::settle`]).
    path: PathBuf,
    origin: Origin,
    /// A default name: another number is taken rather than another capture's report.
    auto: bool,
    settled: bool,
    /// Notes [`Target::settle`] gave already (not repeated by [`Staging::commit`]).
    said: Vec<String>,
}

impl Target {
    /// The folder the user named (`-o`).
    pub fn explicit(path: &Path, origin: Origin) -> Target {
        Target {
            base: path.to_path_buf(),
            path: path.to_path_buf(),
            origin,
            auto: false,
            settled: false,
            said: Vec::new(),
        }
    }

    /// A default output folder (`reports/<name>`): never another capture's report.
    pub fn default_at(path: &Path, origin: Origin) -> Target {
        Target { auto: true, ..Target::explicit(path, origin) }
    }

    /// The folder that will be written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Checks the folder before any work and decides which it is: resolves a link, repairs
    /// and cleans what interrupted runs left beside it, refuses what must not be replaced,
    /// picks a numbered name for a default folder. Returns notes for the user (a link
    /// resolved, another name used, a report restored).
    pub fn settle(&mut self) -> Result<Vec<String>, OutputError> {
        let notes = self.settle_quietly()?;
        self.said.extend(notes.iter().cloned());
        Ok(notes)
    }

    fn settle_quietly(&mut self) -> Result<Vec<String>, OutputError> {
        let mut notes = Vec::new();
        let mut base = self.base.clone();
        // `-o .` or `-o some/..`: name the folder itself, not `.`.
        if base.file_name().is_none() {
            base = std::fs::canonicalize(&base).map_err(io(&base))?;
        }
        if !self.auto && base.symlink_metadata().is_ok_and(|m| m.is_symlink()) {
            let to = std::fs::read_link(&base).unwrap_or_default();
            let real = std::fs::canonicalize(&base)
                .map_err(|_| OutputError::DanglingLink { path: base.clone(), to })?;
            notes.push(format!(
                "{} is a symbolic link: the output goes into {} (the link is left as it is)",
                base.display(),
                real.display()
            ));
            base = real;
        }
        self.base = base.clone();
        if !self.auto {
            notes.extend(sweep::sweep(&base));
            notes.extend(retry_busy(|| verdict(&base, &self.origin, false))?);
            self.path = base;
            self.settled = true;
            return Ok(notes);
        }
        let mut why_not = Vec::new();
        for k in 1..=MAX_NUMBERED {
            let cand = if k == 1 { base.clone() } else { numbered(&base, k) };
            if cand.symlink_metadata().is_ok_and(|m| m.is_symlink()) {
                why_not.push(format!("{} is a symbolic link", cand.display()));
                continue;
            }
            notes.extend(sweep::sweep(&cand));
            match verdict(&cand, &self.origin, true) {
                Ok(_) => {
                    if let Some(first) = why_not.first() {
                        let more = match why_not.len() {
                            1 => String::new(),
                            n => format!(" (so are {} numbered names)", n - 1),
                        };
                        notes.push(format!("{first}{more}; this output goes into {}", cand.display()));
                    }
                    self.path = cand;
                    self.settled = true;
                    return Ok(notes);
                }
                Err(e) => why_not.push(reason(&cand, &e)),
            }
        }
        Err(OutputError::NoFreeName(base))
    }
}

/// `<base>-<k>`.
fn numbered(base: &Path, k: usize) -> PathBuf {
    let (_, name) = split(base);
    base.with_file_name(format!("{name}-{k}"))
}

/// Why a default folder was passed over, in a few words.
fn reason(p: &Path, e: &OutputError) -> String {
    let what = match e {
        OutputError::OtherCapture { capture, .. } => format!("the report of another capture ({capture})"),
        OutputError::OtherKind { found, .. } => format!("the output of `iosift {}`", found.as_str()),
        OutputError::MountPoint(_) => "a mount point".into(),
        OutputError::NotOurs(_) => "a folder iosift did not write".into(),
        OutputError::NotAFolder(_) => "not a folder".into(),
        other @ OutputError::DanglingLink { .. }
        | other @ OutputError::NoFreeName(_)
        | other @ OutputError::Io { .. } => other.to_string(),
    };
    format!("{} is {what}", p.display())
}

/// Another run may be renaming its report into place at this very moment (without
/// `RENAME_EXCHANGE`, the path is briefly absent, then a different folder): a refusal as
/// not ours is looked at again a few times, so only a folder that stays foreign is refused.
fn retry_busy<T>(mut f: impl FnMut() -> Result<T, OutputError>) -> Result<T, OutputError> {
    let mut tries = 0;
    loop {
        match f() {
            Err(OutputError::NotOurs(_)) if tries < 5 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            other => return other,
        }
    }
}

/// What is at an output path now.
enum Found {
    /// Nothing, or an empty folder: a plain rename puts the report there.
    Free,
    /// A report that may be replaced.
    Report(Marker),
}

/// May `origin` write `path` now? A note when a report of another capture is replaced
/// (never for a default folder, `auto`: that is refused).
fn verdict(path: &Path, origin: &Origin, auto: bool) -> Result<Option<String>, OutputError> {
    look(path, origin, auto).map(|(_, note)| note)
}

/// [`verdict`], also saying what is there.
fn look(path: &Path, origin: &Origin, auto: bool) -> Result<(Found, Option<String>), OutputError> {
    let meta = match path.symlink_metadata() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Found::Free, None)),
        Err(e) => return Err(OutputError::Io { path: path.to_path_buf(), error: e }),
        Ok(m) => m,
    };
    if !meta.is_dir() {
        return Err(OutputError::NotAFolder(path.to_path_buf()));
    }
    if tree::is_mount_point(path) {
        return Err(OutputError::MountPoint(path.to_path_buf()));
    }
    let Some(m) = Marker::read(path) else {
        return match std::fs::read_dir(path).map(|mut rd| rd.next().is_none()) {
            Ok(false) => Err(OutputError::NotOurs(path.to_path_buf())),
            Ok(true) => Ok((Found::Free, None)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((Found::Free, None)),
            Err(e) => Err(OutputError::Io { path: path.to_path_buf(), error: e }),
        };
    };
    if let Some(found) = m.kind
        && found != origin.kind()
    {
        return Err(OutputError::OtherKind { path: path.to_path_buf(), found, wanted: origin.kind() });
    }
    if m.same_capture(origin) {
        return Ok((Found::Report(m), None));
    }
    let user_files: Vec<String> =
        user_entries(path, &m).into_iter().filter(|e| e.what != What::Dir).map(|e| e.text()).collect();
    if auto || !user_files.is_empty() {
        return Err(OutputError::OtherCapture {
            path: path.to_path_buf(),
            capture: m.capture_text(),
            user_files,
        });
    }
    let note = format!("{}: replacing the report of {}", path.display(), m.capture_text());
    Ok((Found::Report(m), Some(note)))
}

/// The entries of a report folder its marker does not list (the user's), links not followed.
/// A folder is listed when it holds no file of ours.
fn user_entries(dir: &Path, m: &Marker) -> Vec<tree::Entry> {
    let listed: HashSet<&str> = m.files.iter().map(String::as_str).collect();
    let ours_under: HashSet<String> = m
        .files
        .iter()
        .flat_map(|f| {
            let p = Path::new(f);
            p.ancestors().skip(1).map(|a| a.to_string_lossy().into_owned()).collect::<Vec<_>>()
        })
        .collect();
    tree::walk(dir)
        .into_iter()
        .filter(|e| {
            let t = e.text();
            match e.what {
                What::Dir => !ours_under.contains(&t),
                What::File | What::Link | What::Other => !listed.contains(t.as_str()),
            }
        })
        .collect()
}

/// A report being written: a hidden folder beside the target, put in place by
/// [`Staging::commit`]; dropped uncommitted, it is removed.
#[derive(Debug)]
pub struct Staging {
    target: Target,
    tmp: PathBuf,
    notes: Vec<String>,
    /// Held while the run lives: tells a sweeping run this folder is not stale.
    _lock: Option<std::os::fd::OwnedFd>,
    done: bool,
}

impl Staging {
    /// Settles the target (unless done already) and creates the staging folder beside it.
    pub fn begin(target: &Target) -> Result<Staging, OutputError> {
        let mut target = target.clone();
        let notes = if target.settled { Vec::new() } else { target.settle()? };
        let (parent, name) = split(&target.path);
        std::fs::create_dir_all(&parent).map_err(io(&parent))?;
        let tmp = parent.join(sweep::hidden_name(&name, Hidden::Tmp));
        // Named by the folder the user asked for: the staging name means nothing to them.
        std::fs::create_dir(&tmp).map_err(|e| OutputError::Io {
            path: target.path.clone(),
            error: std::io::Error::new(
                e.kind(),
                format!("cannot create the report beside it ({e}; staging folder {})", tmp.display()),
            ),
        })?;
        let lock = sweep::lock(&tmp);
        Ok(Staging { target, tmp, notes, _lock: lock, done: false })
    }

    /// Where to write now.
    pub fn path(&self) -> &Path {
        &self.tmp
    }

    /// The folder the report will be in.
    pub fn target(&self) -> &Path {
        &self.target.path
    }

    /// Writes the marker (listing every file written), then puts the folder in place
    /// (see the module doc). Returns notes for the user: the target settled here (a link
    /// resolved, another name), a report of another capture replaced, user files that
    /// could not be carried over.
    pub fn commit(mut self) -> Result<Vec<String>, OutputError> {
        let files: Vec<String> =
            tree::walk(&self.tmp).into_iter().filter(|e| e.what == What::File).map(|e| e.text()).collect();
        // Written whole or not at all (a run killed while writing it leaves no marker).
        let mpath = self.tmp.join(MARKER);
        let part = self.tmp.join(format!("{MARKER}.part"));
        std::fs::write(&part, self.target.origin.marker_text(&files)).map_err(io(&mpath))?;
        std::fs::rename(&part, &mpath).map_err(io(&mpath))?;
        let mut carried = HashSet::new();
        let mut last = None;
        for _ in 0..16 {
            let auto = self.target.auto;
            let found = match retry_busy(|| look(&self.target.path, &self.target.origin, auto)) {
                Ok((found, note)) => {
                    self.note(note);
                    found
                }
                Err(e) if self.target.auto && e.is_refusal() => {
                    self.repick(&mut carried)?;
                    continue;
                }
                Err(e) => return Err(e),
            };
            let target = self.target.path.clone();
            let step = match found {
                Found::Free => std::fs::rename(&self.tmp, &target).map(|()| None),
                Found::Report(m) => {
                    for e in user_entries(&target, &m) {
                        if carry_in(&target, &self.tmp, &e) {
                            carried.insert(e.text());
                        }
                    }
                    self.swap()
                }
            };
            match step {
                Ok(old) => {
                    self.done = true;
                    let mut notes = std::mem::take(&mut self.notes);
                    if let Some(old) = old {
                        for kept in retire(&old, &target, &carried) {
                            notes.push(format!(
                                "{kept}: a file iosift did not write, kept in {} (the new report has a \
                                 file of that name, or it appeared while the report was replaced)",
                                old.display()
                            ));
                        }
                    }
                    return Ok(notes);
                }
                // The path changed meanwhile (another run): look again.
                Err(e) => last = Some(e),
            }
        }
        Err(OutputError::Io {
            path: self.target.path.clone(),
            error: last.unwrap_or_else(|| std::io::Error::other("the output folder kept changing")),
        })
    }

    /// Another capture took the default name meanwhile: the next free one, the staging
    /// folder renamed beside it, without what was carried over from the folder passed over.
    fn repick(&mut self, carried: &mut HashSet<String>) -> Result<(), OutputError> {
        for rel in carried.drain() {
            let _ = tree::remove(&self.tmp, Path::new(&rel), false);
        }
        for n in self.target.settle_quietly()? {
            self.note(Some(n));
        }
        let (parent, name) = split(&self.target.path);
        let tmp = parent.join(sweep::hidden_name(&name, Hidden::Tmp));
        std::fs::rename(&self.tmp, &tmp).map_err(io(&self.target.path))?;
        self.tmp = tmp;
        Ok(())
    }

    /// Keeps a note for the user, unless said already.
    fn note(&mut self, note: Option<String>) {
        if let Some(n) = note
            && !self.notes.contains(&n)
            && !self.target.said.contains(&n)
        {
            self.notes.push(n);
        }
    }

    /// Puts the staging folder in place of the report at the target; returns where the
    /// replaced report is now (a hidden `.<name>.iosift-old-...` folder).
    fn swap(&mut self) -> std::io::Result<Option<PathBuf>> {
        let target = self.target.path.clone();
        let (parent, name) = split(&target);
        let old = parent.join(sweep::hidden_name(&name, Hidden::Old));
        match exchange(&self.tmp, &target) {
            Ok(()) => {
                // The staging name now holds the replaced report.
                self.done = true;
                if std::fs::rename(&self.tmp, &old).is_ok() {
                    Ok(Some(old))
                } else {
                    Ok(Some(self.tmp.clone()))
                }
            }
            Err(e) if exchange_unsupported(&e) => {
                // Two renames; a run killed between them is repaired by the next ([`sweep`]).
                std::fs::rename(&target, &old)?;
                if let Err(e) = std::fs::rename(&self.tmp, &target) {
                    let _ = std::fs::rename(&old, &target);
                    return Err(e);
                }
                Ok(Some(old))
            }
            Err(e) => Err(e),
        }
    }
}

/// Swaps two folders in one step (`renameat2(RENAME_EXCHANGE)`).
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    #[cfg(test)]
    if tests::NO_EXCHANGE.with(|c| c.get()) {
        return Err(std::io::Error::from_raw_os_error(rustix::io::Errno::INVAL.raw_os_error()));
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::fs::{CWD, RenameFlags};
        Ok(rustix::fs::renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE)?)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = (a, b);
        Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
    }
}

/// The file system or the kernel cannot exchange: fall back to two renames.
fn exchange_unsupported(e: &std::io::Error) -> bool {
    use rustix::io::Errno;
    e.kind() == std::io::ErrorKind::Unsupported
        || [Errno::INVAL, Errno::NOSYS, Errno::OPNOTSUPP]
            .iter()
            .any(|x| e.raw_os_error() == Some(x.raw_os_error()))
}

/// Carries the user's entry `e` of the report `from` into the staging folder `to`.
fn carry_in(from: &Path, to: &Path, e: &tree::Entry) -> bool {
    // Its folders are made in the staging tree as real folders (never through a link).
    let mut dir = to.to_path_buf();
    for c in e.rel.parent().into_iter().flat_map(|p| p.components()) {
        dir.push(c);
        let made = match dir.symlink_metadata() {
            Ok(m) => m.is_dir(),
            Err(_) => std::fs::create_dir(&dir).is_ok(),
        };
        if !made {
            return false;
        }
    }
    tree::carry(&from.join(&e.rel), &to.join(&e.rel), e.what)
}

/// Empties a replaced report folder `old`: removes the files its marker lists, the
/// entries carried into `new` (the user's, now there too), then empty folders, the
/// marker last; never follows a link. Returns the entries kept (the user's, not in `new`).
fn retire(old: &Path, new: &Path, carried: &HashSet<String>) -> Vec<String> {
    let listed: HashSet<String> =
        Marker::read(old).map(|m| m.files).unwrap_or_default().into_iter().collect();
    let mut kept = Vec::new();
    // The marker last: a run killed meanwhile leaves a folder that still says what is ours.
    let mut entries = tree::walk(old);
    entries.sort_by_key(|e| e.rel == Path::new(MARKER));
    for e in entries {
        let t = e.text();
        if e.what == What::Dir {
            continue;
        }
        let ours = listed.contains(&t)
            || carried.contains(&t)
            || tree::same_entry(&old.join(&e.rel), &new.join(&e.rel));
        if !(ours && tree::remove(old, &e.rel, false).is_ok()) && old.join(&e.rel).symlink_metadata().is_ok()
        {
            kept.push(t);
        }
    }
    tree::remove_empty_dirs(old);
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        /// Makes [`exchange`] fail as on a file system without `RENAME_EXCHANGE`.
        pub(super) static NO_EXCHANGE: Cell<bool> = const { Cell::new(false) };
    }

    fn explicit(p: &Path) -> Target {
        Target::explicit(p, Origin::new(Kind::Analyze, &[]))
    }

    #[test]
    fn refuses_a_folder_that_is_not_ours() {
        let tmp = tempfile::tempdir().unwrap();
        let x = tmp.path().join("x");
        std::fs::create_dir(&x).unwrap();
        std::fs::write(x.join("index.html"), "hi").unwrap();
        let e = Staging::begin(&explicit(&x)).unwrap_err();
        assert!(matches!(e, OutputError::NotOurs(_)));
        assert!(e.to_string().contains(&x.display().to_string()), "{e}");
        assert_eq!(std::fs::read_to_string(x.join("index.html")).unwrap(), "hi");
        // No staging folder left behind.
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
        let f = tmp.path().join("file");
        std::fs::write(&f, "").unwrap();
        assert!(matches!(Staging::begin(&explicit(&f)).unwrap_err(), OutputError::NotAFolder(_)));
    }

    fn replace_keeping_the_users_files(exchange: bool) {
        NO_EXCHANGE.with(|c| c.set(!exchange));
        let tmp = tempfile::tempdir().unwrap();
        let x = tmp.path().join("x");
        let s = Staging::begin(&explicit(&x)).unwrap();
        std::fs::create_dir(s.path().join("charts")).unwrap();
        std::fs::write(s.path().join("charts/a.svg"), "run1").unwrap();
        std::fs::write(s.path().join("index.html"), "run1").unwrap();
        assert!(s.commit().unwrap().is_empty());
        assert!(is_report_folder(&x));
        std::fs::write(x.join("charts/mine.txt"), "keep").unwrap();
        std::fs::write(x.join("notes.md"), "keep").unwrap();
        std::fs::create_dir_all(x.join("my/deep")).unwrap();
        std::fs::write(x.join("my/deep/n.txt"), "keep").unwrap();
        std::os::unix::fs::symlink("/etc", x.join("etc-link")).unwrap();
        let s = Staging::begin(&explicit(&x)).unwrap();
        std::fs::write(s.path().join("index.html"), "run2").unwrap();
        std::fs::write(s.path().join("notes.md"), "ours").unwrap();
        let notes = s.commit().unwrap();
        NO_EXCHANGE.with(|c| c.set(false));
        assert_eq!(std::fs::read_to_string(x.join("index.html")).unwrap(), "run2");
        assert!(!x.join("charts/a.svg").exists(), "a file of the old run is gone");
        assert_eq!(std::fs::read_to_string(x.join("charts/mine.txt")).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(x.join("my/deep/n.txt")).unwrap(), "keep");
        assert_eq!(std::fs::read_link(x.join("etc-link")).unwrap(), Path::new("/etc"));
        // A user's file whose name the new run wrote is kept in the old folder, and said.
        assert_eq!(notes.len(), 1, "{notes:?}");
        let kept = std::fs::read_dir(tmp.path())
            .unwrap()
            .flatten()
            .find(|e| e.file_name().to_string_lossy().contains("iosift-old"))
            .unwrap();
        assert_eq!(std::fs::read_to_string(kept.path().join("notes.md")).unwrap(), "keep");
        assert_eq!(std::fs::read_dir(kept.path()).unwrap().count(), 1, "only the user's file stays there");
        let marker = std::fs::read_to_string(x.join(MARKER)).unwrap();
        assert!(marker.starts_with("iosift ") && marker.contains("index.html\n"), "{marker}");
        assert!(marker.contains("command: analyze\n") && !marker.contains("mine.txt"), "{marker}");
    }

    #[test]
    fn replacing_keeps_the_users_files_and_drops_ours() {
        replace_keeping_the_users_files(true);
    }

    #[test]
    fn replacing_without_exchange_keeps_the_users_files_too() {
        replace_keeping_the_users_files(false);
    }

    #[test]
    fn concurrent_runs_never_mix() {
        let tmp = tempfile::tempdir().unwrap();
        let x = tmp.path().join("x");
        let runs: Vec<_> = (0..8)
            .map(|k| {
                let x = x.clone();
                std::thread::spawn(move || {
                    let s = Staging::begin(&explicit(&x)).unwrap();
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

    /// While reports replace one another, the path always holds a whole report (before
    /// `RENAME_EXCHANGE`, it was missing between two renames).
    #[test]
    fn the_path_always_holds_a_whole_report() {
        let tmp = tempfile::tempdir().unwrap();
        let x = tmp.path().join("x");
        let write = |k: usize| {
            let s = Staging::begin(&explicit(&x)).unwrap();
            std::fs::write(s.path().join("index.html"), format!("{k}")).unwrap();
            s.commit().unwrap();
        };
        write(0);
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let watcher = {
            let (x, stop) = (x.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut missing = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    if !x.join("index.html").is_file() {
                        missing += 1;
                    }
                }
                missing
            })
        };
        for k in 1..300 {
            write(k);
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(watcher.join().unwrap(), 0, "times the path held no report");
    }
}
