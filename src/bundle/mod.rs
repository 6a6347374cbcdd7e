//! Capture bundles: what the user points iosift at (a directory, `.tar`,
//! `.tar.gz`/`.tgz`, `.tar.zst`, `.tar.xz`, `.tar.bz2`, `.zip`, single `.gz`/`.zst`/
//! `.xz`/`.bz2` files or loose files) turned into
//! named in-memory files. Archives are read in place, never extracted to
//! disk; limits on total bytes, file count and archive nesting keep hostile
//! input (bombs, millions of entries) from exhausting the machine.

mod archive;
mod codec;
mod limits;
mod open;

pub use limits::Limits;
pub use open::{open_regular, read_option_file};

use std::fmt;
use std::path::{Path, PathBuf};

/// One input file of a bundle, decompressed.
#[derive(Debug, Clone)]
pub struct InputFile {
    /// Path as shown to the user: relative to the bundle root, or `archive.tgz!inner/path`.
    pub name: String,
    /// The decompressed bytes (shared: the pipeline keeps them for evidence quotes without a copy).
    pub data: std::sync::Arc<[u8]>,
    /// True when the file was gzip-compressed.
    pub gzipped: bool,
    /// Set for a large file of a [`stream_min_bytes`] format on disk: it is parsed by
    /// streaming it from disk, and `data` holds only its head (for display).
    pub stream: Option<Streamed>,
}

/// A large file parsed by streaming rather than held in memory.
#[derive(Debug, Clone)]
pub struct Streamed {
    /// Where it is.
    pub path: PathBuf,
    /// Gzip-compressed.
    pub gz: bool,
    /// Format id (one of [`stream_min_bytes`]).
    pub format: &'static str,
    /// Its size on disk when it was listed: it is read up to there (a file still being
    /// written is not followed).
    pub len: u64,
}

/// Files at least this large on disk are streamed when they are a perf script or a decoded binlog.
pub const STREAM_MIN_BYTES: u64 = 128 << 20;

/// Files at least this large on disk are streamed when they are iostat, pidstat, vmstat,
/// dstat/dool CSV or text, sar or mpstat text, or `TS`-framed /proc series (no whole-file buffer
/// is made; iostat, pidstat and vmstat keep no rows either, the others keep their records).
pub const SERIES_STREAM_MIN_BYTES: u64 = 16 << 20;

/// The size from which a file of format `id` is streamed from disk: `None` for a format
/// the registry does not stream ([`iosift_parsers::Stream`]).
pub fn stream_min_bytes(id: &str) -> Option<u64> {
    use iosift_parsers::StreamFrom;
    Some(match iosift_parsers::by_id(id)?.extra.stream?.from {
        StreamFrom::Large => STREAM_MIN_BYTES,
        StreamFrom::Series => SERIES_STREAM_MIN_BYTES,
    })
}

impl InputFile {
    /// The last path component of the name (inside archives too).
    pub fn base_name(&self) -> &str {
        let n = self.name.rsplit(['/', '!']).next().unwrap_or(&self.name);
        n.strip_suffix(".gz").unwrap_or(n)
    }
}

/// A file or archive member that could not be read, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// Which input.
    pub name: String,
    /// What went wrong, in words a user can act on.
    pub message: String,
}

/// The files of one capture.
#[derive(Debug, Clone, Default)]
pub struct Bundle {
    /// Display name (directory or archive name, sanitised for use as a folder name).
    pub name: String,
    /// Files read, in stable (sorted) order.
    pub files: Vec<InputFile>,
    /// Inputs that could not be read.
    pub problems: Vec<Problem>,
}

/// Why nothing could be loaded.
#[derive(Debug)]
pub enum BundleError {
    /// A path given on the command line does not exist or cannot be read.
    Unreadable { path: PathBuf, error: std::io::Error },
    /// A limit was hit (the message names the limit and the flag that raises it).
    Limit(String),
}

impl fmt::Display for BundleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BundleError::Unreadable { path, error } => write!(f, "cannot read {}: {error}", path.display()),
            BundleError::Limit(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for BundleError {}

/// Loads every path into one bundle (directories recursively, archives in place).
pub fn load(paths: &[PathBuf], limits: &Limits) -> Result<Bundle, BundleError> {
    let mut acc = archive::Accumulator::new(limits);
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| BundleError::Unreadable { path: p.clone(), error: e })?;
        if meta.is_dir() && archive::is_iosift_output(p) {
            return Err(BundleError::Unreadable {
                path: p.clone(),
                error: std::io::Error::other(
                    "this is an iosift report folder (it holds .iosift-report), not a capture",
                ),
            });
        } else if meta.is_dir() {
            archive::read_dir(p, p, &mut acc)?;
        } else if let Some(why) = archive::not_regular_path(&meta) {
            acc.problems.push(Problem { name: p.display().to_string(), message: why });
        } else {
            let label = p.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            archive::read_path(p, &label, 0, true, &mut acc)?;
        }
    }
    let mut files = acc.files;
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Bundle { name: bundle_name(paths), files, problems: acc.problems })
}

/// Folder names that say nothing about the capture: the parent folder names it.
pub const GENERIC_NAMES: &[&str] = &["capture", "captures", "data", "bundle", "collected", "output"];

/// A bundle's name from its paths: the directory or archive name, sanitised
/// (`case/capture` is named `case`).
pub fn bundle_name(paths: &[PathBuf]) -> String {
    let raw = match paths {
        [one] => {
            let c = one.canonicalize().unwrap_or_else(|_| one.clone());
            let name = c.file_name().map(|n| n.to_string_lossy().into_owned());
            // `case/capture` (how samples and many tickets lay a capture out) is named
            // after `case`: every `capture` folder would otherwise share one name.
            let generic =
                name.as_deref().is_some_and(|n| GENERIC_NAMES.contains(&n.to_ascii_lowercase().as_str()));
            let parent = c.parent().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned());
            match (name, parent) {
                (Some(_), Some(p)) if generic => p,
                (Some(n), _) => n,
                _ => one.to_string_lossy().into_owned(),
            }
        }
        _ => "bundle".to_string(),
    };
    let raw = [
        "tar.gz", "tgz", "tar.zst", "tzst", "tar.xz", "txz", "tar.bz2", "tbz2", "tar", "zip", "7z", "gz",
        "zst",
    ]
    .iter()
    .find_map(|ext| raw.strip_suffix(&format!(".{ext}")))
    .unwrap_or(&raw)
    .to_string();
    sanitize_file_name(&raw)
}

/// Turns untrusted text into a safe single path component: only
/// `[A-Za-z0-9._-]`, no leading dot, at most 80 bytes, never empty.
pub fn sanitize_file_name(raw: &str) -> String {
    let mut s: String = raw
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' { c } else { '_' })
        .take(80)
        .collect();
    while s.starts_with('.') {
        s.replace_range(0..1, "_");
    }
    if s.is_empty() { "unnamed".to_string() } else { s }
}

/// `<base><ext>`, or `<base>-2<ext>`, `-3`, ... the first name that `taken` does not hold:
/// how report folders, batch folders, flame graphs and folded stacks stay apart.
pub fn unique_name(base: &str, ext: &str, taken: impl Fn(&str) -> bool) -> String {
    let mut name = format!("{base}{ext}");
    let mut k = 2;
    while taken(&name) {
        name = format!("{base}-{k}{ext}");
        k += 1;
    }
    name
}

/// The folder of a file inside the bundle (`case/capture/iostat.txt` -> `case/capture`,
/// `a.tgz!x/y.txt` -> `a.tgz!x`); empty at the top.
pub fn folder_of(name: &str) -> &str {
    name.rfind(['/', '!']).map_or("", |i| &name[..i])
}

/// The pt-stalk sample prefix of a file (`2026_11_29_19_37_19` of
/// `2026_11_29_19_37_19-meminfo`).
pub fn pt_stalk_prefix_of(f: &InputFile) -> Option<String> {
    let d = iosift_parsers::common::ts::pt_stalk_prefix(f.base_name())?;
    Some(d.format("%Y_%m_%d_%H_%M_%S").to_string())
}

/// Splits a bundle holding several pt-stalk samples (different prefixes) into
/// one bundle per sample; files without a prefix go with every sample. A
/// bundle with zero or one prefix is returned as it is, and so is one whose
/// folders each hold one prefix: pt-stalk writes its samples into one folder,
/// so a folder per prefix is a folder per capture (`incidents/a/capture`,
/// `incidents/b/capture`), which the analysis tells apart by host and time
/// ([`crate::pipeline::captures`]).
pub fn split_pt_stalk(b: Bundle) -> Vec<Bundle> {
    let mut prefixes: Vec<String> = b.files.iter().filter_map(pt_stalk_prefix_of).collect();
    prefixes.sort();
    prefixes.dedup();
    let mut by_folder: std::collections::BTreeMap<&str, std::collections::BTreeSet<String>> =
        Default::default();
    for f in &b.files {
        if let Some(p) = pt_stalk_prefix_of(f) {
            by_folder.entry(folder_of(&f.name)).or_default().insert(p);
        }
    }
    let folder_each = by_folder.len() > 1 && by_folder.values().all(|p| p.len() == 1);
    if prefixes.len() < 2 || folder_each {
        return vec![b];
    }
    prefixes
        .iter()
        .map(|p| Bundle {
            name: sanitize_file_name(&format!("{}-{p}", b.name)),
            files: b
                .files
                .iter()
                .filter(|f| pt_stalk_prefix_of(f).is_none_or(|q| &q == p))
                .cloned()
                .collect(),
            problems: b.problems.clone(),
        })
        .collect()
}

/// Reads a single path as files (used by `inspect`, which lists every file).
pub fn load_one(path: &Path, limits: &Limits) -> Result<Bundle, BundleError> {
    load(&[path.to_path_buf()], limits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pt_stalk_samples_split_into_bundles() {
        let f = |n: &str| InputFile {
            name: n.to_string(),
            data: Vec::new().into(),
            gzipped: false,
            stream: None,
        };
        let b = Bundle {
            name: "cap".into(),
            files: vec![
                f("2026_11_29_19_37_19-meminfo"),
                f("2026_11_29_19_49_32-meminfo"),
                f("sub/2026_11_29_19_49_32-iostat.gz"),
                f("system-info.txt"),
            ],
            problems: vec![],
        };
        let parts = split_pt_stalk(b);
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].name, "cap-2026_11_29_19_37_19");
        assert_eq!(parts[0].files.len(), 2);
        assert_eq!(parts[1].files.len(), 3);
        // A folder per prefix: captures of their own, left whole for the analysis to part.
        let b = Bundle {
            name: "incidents".into(),
            files: vec![
                f("a/capture/2026_11_29_21_05_20-meminfo"),
                f("a/capture/iostat-x-t.txt"),
                f("b/capture/2026_12_01_19_45_47-meminfo"),
                f("b/capture/iostat-x-t.txt"),
            ],
            problems: vec![],
        };
        assert_eq!(split_pt_stalk(b).len(), 1);
    }

    #[test]
    fn sanitize_blocks_traversal_and_markup() {
        assert_eq!(sanitize_file_name("../../etc/passwd"), "_._.._etc_passwd");
        assert_eq!(sanitize_file_name("<script>"), "_script_");
        assert_eq!(sanitize_file_name(""), "unnamed");
        assert_eq!(sanitize_file_name(".hidden"), "_hidden");
    }
}
