//! `iosift scrub`: a copy of a capture without what identifies the customer (issue 39).
//!
//! A crate of its own (`iosift-scrub`, re-exported as `iosift::scrub`) so that debug builds
//! can optimize it: the tests scrub every sample (1.6 GB of text), which the unoptimized
//! line lexers and HMACs of a debug build of the main crate did at about 1 MB/s.
//!
//! Two passes over the input, both streamed: the first learns the names the bundle's own
//! files give (hostnames of banners and `uname`, users, schemas and tables of the MySQL
//! fields and SQL), the second writes every file through its format's handler
//! ([`formats`]: the registry's per-format [`iosift_parsers::common::scrub::Identifiers`])
//! and the generic patterns ([`generic`]), in the same layout ([`container`]: folder,
//! tar of any compression, zip, one file). Tokens are keyed ([`key`]) and shaped so every
//! format still parses ([`shape`]); the reverse map goes only where `--keep-map` says,
//! never into the output. `docs/scrub.md` says what is replaced, what is kept and why.

mod codec;
mod container;
mod fields;
mod formats;
mod generic;
pub mod key;
pub mod shape;
mod sql;
mod stream;

use container::Layout;
pub use key::{Key, KeyError};
pub use stream::FileDone;

use std::path::{Path, PathBuf};

/// What to scrub and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// The key of the tokens.
    pub key: Key,
    /// Remember originals for the reverse map.
    pub keep_map: bool,
    /// Words replaced wherever they appear (case-insensitive).
    pub keywords: Vec<String>,
    /// Paths under these roots are replaced component by component.
    pub roots: Vec<String>,
}

/// The path roots scrubbed when none is given: home folders.
pub const DEFAULT_ROOTS: &[&str] = &["/home", "/Users"];

/// Why a scrub failed.
#[derive(Debug)]
pub enum ScrubError {
    /// The output path exists and is not an empty folder (`scrub` writes only a new path).
    Occupied(PathBuf),
    /// Reading or writing failed.
    Io {
        /// What was being done.
        what: String,
        /// The error.
        error: std::io::Error,
    },
    /// The reverse map would go into the output.
    MapInOutput(PathBuf),
}

impl std::fmt::Display for ScrubError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScrubError::Occupied(p) => write!(
                f,
                "{}: the output path exists and is not an empty folder; nothing was written: choose a new path",
                p.display()
            ),
            ScrubError::Io { what, error } => write!(f, "{what}: {error}"),
            ScrubError::MapInOutput(p) => write!(
                f,
                "{}: the reverse map may not be written inside the scrubbed output (it holds the originals)",
                p.display()
            ),
        }
    }
}

impl std::error::Error for ScrubError {}

/// What a scrub did.
#[derive(Debug)]
pub struct Summary {
    /// Every file written, with its format and scrubber.
    pub files: Vec<FileDone>,
    /// Replacements by kind.
    pub counts: Vec<(shape::Kind, u64)>,
    /// Names learnt in the first pass.
    pub learnt: usize,
    /// Entries left out.
    pub skipped: Vec<String>,
    /// The reverse map (kind -> original -> token), with `keep_map`.
    pub map: Option<std::collections::BTreeMap<&'static str, std::collections::BTreeMap<String, String>>>,
}

impl Summary {
    /// The reverse map as JSON (only where `--keep-map` says; never in the output).
    pub fn map_json(&self) -> Option<String> {
        self.map.as_ref().and_then(|m| serde_json::to_string_pretty(m).ok()).map(|s| s + "\n")
    }
}

/// Refuses a map path inside `out` (or `out` itself).
pub fn check_map_path(map: &Path, out: &Path) -> Result<(), ScrubError> {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (m, o) = (abs(map), abs(out));
    if m.starts_with(&o) {
        return Err(ScrubError::MapInOutput(map.to_path_buf()));
    }
    Ok(())
}

/// Refuses an output path that exists, unless it is an empty folder (not a link): a
/// scrubbed copy never replaces anything.
pub fn check_fresh(path: &Path) -> Result<(), ScrubError> {
    let io = |error| ScrubError::Io { what: path.display().to_string(), error };
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io(e)),
        Ok(m) if m.is_dir() => match std::fs::read_dir(path).map_err(io)?.next() {
            None => Ok(()),
            Some(_) => Err(ScrubError::Occupied(path.to_path_buf())),
        },
        Ok(_) => Err(ScrubError::Occupied(path.to_path_buf())),
    }
}

impl ScrubError {
    /// True when the user's output path was refused (nothing was read or written).
    pub fn is_refusal(&self) -> bool {
        match self {
            ScrubError::Occupied(_) | ScrubError::MapInOutput(_) => true,
            ScrubError::Io { .. } => false,
        }
    }
}

/// Scrubs `input` into `out` (which must not exist, or be an empty folder); `stage`
/// hears what is being done. The output appears only once complete.
pub fn scrub(
    input: &Path,
    out: &Path,
    opts: &Options,
    stage: &dyn Fn(String),
) -> Result<Summary, ScrubError> {
    check_fresh(out)?;
    let io = |what: String| move |error| ScrubError::Io { what, error };
    let layout = Layout::of(input).map_err(io(input.display().to_string()))?;
    let (parent, name) = (
        out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")),
        out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into()),
    );
    let staging = parent.join(format!(".{name}.iosift-scrub-{}", std::process::id()));
    let scratch = parent.join(format!(".{name}.iosift-scrub-scratch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).map_err(io(scratch.display().to_string()))?;
    let result = passes(layout, input, &staging, &scratch, opts, stage);
    let _ = std::fs::remove_dir_all(&scratch);
    match result {
        Ok(s) => {
            // An empty folder in the way is replaced by the rename; anything else was refused above.
            if out.is_dir() {
                let _ = std::fs::remove_dir(out);
            }
            std::fs::rename(&staging, out).map_err(io(out.display().to_string()))?;
            Ok(s)
        }
        Err(e) => {
            let _ = if layout == Layout::Dir {
                std::fs::remove_dir_all(&staging)
            } else {
                std::fs::remove_file(&staging)
            };
            Err(e)
        }
    }
}

/// The two passes: learn the bundle's names, then write.
fn passes(
    layout: Layout,
    input: &Path,
    staging: &Path,
    scratch: &Path,
    opts: &Options,
    stage: &dyn Fn(String),
) -> Result<Summary, ScrubError> {
    let io = |what: String| move |error| ScrubError::Io { what, error };
    let mut g = generic::Generic::new(&opts.keywords, &opts.roots);
    let mut learnt = generic::Learnt::default();
    let mut skipped = container::Skipped::default();
    let at = container::Paths { input, out: staging, scratch };
    stage(format!("scrubbing {}: learning the names it holds (pass 1 of 2)", input.display()));
    {
        let mut scratch_map = shape::Mapper::dry(opts.key.clone());
        let mut p = stream::Pass {
            generic: &g,
            m: &mut scratch_map,
            learn: Some(&mut learnt),
            done: Vec::new(),
            stage,
        };
        container::run(layout, &at, &mut p, &mut skipped).map_err(io(input.display().to_string()))?;
    }
    g.set_learnt(&learnt);
    stage(format!("scrubbing {}: writing (pass 2 of 2, {} names learnt)", input.display(), learnt.len()));
    if layout == Layout::Dir {
        std::fs::create_dir_all(staging).map_err(io(staging.display().to_string()))?;
    }
    let mut m = shape::Mapper::new(opts.key.clone(), opts.keep_map);
    let mut p = stream::Pass { generic: &g, m: &mut m, learn: None, done: Vec::new(), stage };
    container::run(layout, &at, &mut p, &mut skipped).map_err(io(input.display().to_string()))?;
    let files = std::mem::take(&mut p.done);
    Ok(Summary { files, counts: m.counts(), learnt: learnt.len(), skipped: skipped.0, map: m.map().cloned() })
}

/// The name a scrubbed bundle is shown by: `scrubbed-<tok>` of its own name (the name a
/// customer gave a folder or archive may name them).
pub fn bundle_name(original: &str, key: &Key) -> String {
    format!("scrubbed-{}", key.token("bundle", original.as_bytes(), 8))
}
