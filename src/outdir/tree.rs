//! File operations on output folders that never follow a symbolic link: listing,
//! removing (`openat`/`unlinkat` with `O_NOFOLLOW`, one component at a time, so a
//! link anywhere under the folder is removed as a link and never walked through),
//! and telling a mount point.

use rustix::fs::{AtFlags, Mode, OFlags};
use std::ffi::OsStr;
use std::os::fd::OwnedFd;
use std::path::{Component, Path, PathBuf};

/// What an entry is, read without following links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum What {
    /// A regular file.
    File,
    /// A symbolic link (never followed).
    Link,
    /// A folder.
    Dir,
    /// Anything else (a FIFO, a socket, a device).
    Other,
}

/// One entry under a folder.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    /// Path relative to the folder walked.
    pub rel: PathBuf,
    /// What it is.
    pub what: What,
}

impl Entry {
    /// The relative path as marker text (iosift's own names are ASCII).
    pub(super) fn text(&self) -> String {
        self.rel.to_string_lossy().into_owned()
    }
}

/// Every entry under `root`, parents before their children, sorted by name; links are
/// listed, never followed (a folder that is a link is an entry of kind [`What::Link`]).
pub(super) fn walk(root: &Path) -> Vec<Entry> {
    let mut out = Vec::new();
    walk_into(root, Path::new(""), &mut out);
    out
}

fn walk_into(root: &Path, rel: &Path, out: &mut Vec<Entry>) {
    let Ok(rd) = std::fs::read_dir(root.join(rel)) else { return };
    let mut entries: Vec<_> = rd.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        // `DirEntry::file_type` does not follow links.
        let what = match e.file_type() {
            Ok(t) if t.is_symlink() => What::Link,
            Ok(t) if t.is_dir() => What::Dir,
            Ok(t) if t.is_file() => What::File,
            _ => What::Other,
        };
        let r = rel.join(e.file_name());
        out.push(Entry { rel: r.clone(), what });
        if what == What::Dir {
            walk_into(root, &r, out);
        }
    }
}

/// The plain components of a relative path (`None` for `..`, absolute or empty paths).
fn parts(rel: &Path) -> Option<Vec<&OsStr>> {
    let v: Option<Vec<&OsStr>> = rel
        .components()
        .map(|c| match c {
            Component::Normal(n) => Some(n),
            _ => None,
        })
        .collect();
    v.filter(|v| !v.is_empty())
}

fn open_dir(at: impl std::os::fd::AsFd, name: impl rustix::path::Arg) -> std::io::Result<OwnedFd> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    Ok(rustix::fs::openat(at, name, flags, Mode::empty())?)
}

/// Opens the folder `path` for reading; fails when its last component is a link.
pub(super) fn open_folder(path: &Path) -> std::io::Result<OwnedFd> {
    open_dir(rustix::fs::CWD, path)
}

/// Removes `rel` under `root`: a file or a link is unlinked (a link is never followed),
/// a folder is removed when empty (`dir`). Every folder on the way is opened without
/// following links: when one of them is a link, nothing is removed (an error).
pub(super) fn remove(root: &Path, rel: &Path, dir: bool) -> std::io::Result<()> {
    let parts = parts(rel).ok_or_else(|| std::io::Error::other("not a plain relative path"))?;
    let mut fd = open_folder(root)?;
    for p in &parts[..parts.len() - 1] {
        fd = open_dir(&fd, *p)?;
    }
    let flags = if dir { AtFlags::REMOVEDIR } else { AtFlags::empty() };
    Ok(rustix::fs::unlinkat(&fd, parts[parts.len() - 1], flags)?)
}

/// Removes the empty folders under `root` (deepest first), then `root` when empty.
pub(super) fn remove_empty_dirs(root: &Path) {
    let mut dirs: Vec<Entry> = walk(root).into_iter().filter(|e| e.what == What::Dir).collect();
    dirs.reverse();
    for d in dirs {
        let _ = remove(root, &d.rel, true);
    }
    let _ = std::fs::remove_dir(root);
}

/// True when `a` and `b` are the same file or equal links (read without following either).
pub(super) fn same_entry(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (a.symlink_metadata(), b.symlink_metadata()) {
        (Ok(x), Ok(y)) if x.is_symlink() && y.is_symlink() => {
            matches!((std::fs::read_link(a), std::fs::read_link(b)), (Ok(p), Ok(q)) if p == q)
        }
        (Ok(x), Ok(y)) => x.is_file() && y.is_file() && x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// Puts a copy of the user's entry `from` at `to` without touching `from`: a file is
/// hard-linked (copied where links are not supported), a link is made again with the
/// same text. False when it could not be (the name is taken, an error).
pub(super) fn carry(from: &Path, to: &Path, what: What) -> bool {
    if to.symlink_metadata().is_ok() {
        return false;
    }
    match what {
        What::File => std::fs::hard_link(from, to).is_ok() || std::fs::copy(from, to).is_ok(),
        What::Link => std::fs::read_link(from).is_ok_and(|t| std::os::unix::fs::symlink(t, to).is_ok()),
        What::Dir => std::fs::create_dir(to).is_ok(),
        What::Other => false,
    }
}

/// True when `dir` (an existing folder, not a link) is a mount point: its device differs
/// from its parent's, or `/proc/self/mountinfo` lists it (a bind mount of the same device).
pub(super) fn is_mount_point(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(real) = dir.canonicalize() else { return false };
    let Some(parent) = real.parent() else { return true };
    match (real.symlink_metadata(), parent.metadata()) {
        (Ok(m), Ok(p)) if m.dev() != p.dev() => return true,
        _ => {}
    }
    let Ok(info) = std::fs::read("/proc/self/mountinfo") else { return false };
    use std::os::unix::ffi::OsStrExt;
    let want = real.as_os_str().as_bytes();
    info.split(|b| *b == b'\n')
        .filter_map(|line| line.split(|b| *b == b' ').nth(4))
        .any(|m| unescape_mount(m) == want)
}

/// A mount point as `/proc/self/mountinfo` writes it: space, tab, newline and backslash
/// as `\040`, `\011`, `\012`, `\134`.
fn unescape_mount(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let oct =
            s.get(i + 1..i + 4).filter(|d| s[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match oct {
            Some(d) => {
                out.push(d.iter().fold(0u8, |a, c| a.wrapping_mul(8).wrapping_add(c - b'0')));
                i += 4;
            }
            None => {
                out.push(s[i]);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removing_never_follows_a_link() {
        let tmp = tempfile::tempdir().unwrap();
        let (root, shared) = (tmp.path().join("root"), tmp.path().join("shared"));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&shared).unwrap();
        std::fs::write(shared.join("a.svg"), "theirs").unwrap();
        std::os::unix::fs::symlink(&shared, root.join("charts")).unwrap();
        // Through the link: refused, the shared file stays.
        assert!(remove(&root, Path::new("charts/a.svg"), false).is_err());
        assert_eq!(std::fs::read_to_string(shared.join("a.svg")).unwrap(), "theirs");
        // The link itself: removed as a link.
        let w = walk(&root);
        assert_eq!((w.len(), w[0].what), (1, What::Link));
        remove(&root, Path::new("charts"), false).unwrap();
        assert!(shared.join("a.svg").is_file() && root.join("charts").symlink_metadata().is_err());
        assert!(remove(&root, Path::new("../shared/a.svg"), false).is_err());
    }

    #[test]
    fn mount_points_are_told() {
        assert!(is_mount_point(Path::new("/proc")));
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("x")).unwrap();
        assert!(!is_mount_point(&tmp.path().join("x")));
        assert_eq!(unescape_mount(br"/mnt/a\040b\134"), b"/mnt/a b\\");
    }
}
