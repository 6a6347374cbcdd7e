//! Reading binary sa files (`sa_binary`) through the `sadf` found on PATH.
//!
//! The parsers crate does no I/O: it only recognises a sa file and reads the
//! sysstat version in its header. Here the bytes are written to a private
//! temporary file and `sadf -j FILE -- <activities>` is run on it; its JSON is
//! parsed by the `sadf` parser and kept in [`SaFile::decoded`], with the
//! command and the `sadf` version in [`SaFile::reader`] (shown in the
//! inventory). The file format is never guessed: when the `sadf` on PATH
//! cannot read the file (another sysstat generation), the file is left
//! undecoded with a diagnostic naming the sysstat version to use.

use iosift_parsers::common::{DiagKind, Diagnostic};
use iosift_parsers::sa_binary::SaFile;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The sar activities asked of `sadf`: everything that bears on I/O and its context.
const ACTIVITIES: &[&str] =
    &["-u", "ALL", "-P", "ALL", "-d", "-p", "-b", "-B", "-r", "ALL", "-q", "-W", "-n", "DEV"];

/// What went wrong reading a sa file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SadfError {
    /// No `sadf` on PATH.
    NotFound,
    /// The temporary copy could not be written or `sadf` could not be started.
    Io(String),
    /// This `sadf` cannot read the file's format.
    VersionMismatch {
        /// Path of the `sadf` run.
        sadf: PathBuf,
        /// Its sysstat version.
        sadf_version: String,
        /// What sadf said.
        message: String,
    },
    /// `sadf` failed otherwise.
    Failed(String),
}

impl std::fmt::Display for SadfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SadfError::NotFound => f.write_str("no sadf on PATH (install sysstat)"),
            SadfError::Io(e) => write!(f, "could not run sadf: {e}"),
            SadfError::VersionMismatch { sadf, sadf_version, message } => {
                write!(f, "{} (sysstat {sadf_version}) cannot read this file: {message}", sadf.display())
            }
            SadfError::Failed(e) => write!(f, "sadf failed: {e}"),
        }
    }
}

/// The `sadf` on PATH.
pub(crate) fn sadf_on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join("sadf")).find(|p| p.is_file())
}

/// `sadf -V`: `sysstat version 12.6.1`.
fn sadf_version(sadf: &Path) -> String {
    let out = Command::new(sadf).arg("-V").env("LC_ALL", "C").output();
    let text =
        out.map(|o| format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)));
    text.ok()
        .and_then(|t| {
            t.lines().find_map(|l| l.strip_prefix("sysstat version ").map(|v| v.trim().to_string()))
        })
        .unwrap_or_else(|| "unknown".to_string())
}

/// A temporary file removed when dropped.
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn temp_copy(bytes: &[u8]) -> std::io::Result<TempFile> {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let p = std::env::temp_dir().join(format!("iosift-sa-{}-{n}.bin", std::process::id()));
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(&p)?;
    std::io::Write::write_all(&mut f, bytes)?;
    Ok(TempFile(p))
}

/// Runs `sadf -j` on the bytes of a sa file; returns the command line used and its JSON.
pub(crate) fn run_sadf(bytes: &[u8]) -> Result<(String, Vec<u8>), SadfError> {
    let sadf = sadf_on_path().ok_or(SadfError::NotFound)?;
    let version = sadf_version(&sadf);
    let tmp = temp_copy(bytes).map_err(|e| SadfError::Io(e.to_string()))?;
    let out = Command::new(&sadf)
        .arg("-j")
        .arg(&tmp.0)
        .arg("--")
        .args(ACTIVITIES)
        .env("LC_ALL", "C")
        .output()
        .map_err(|e| SadfError::Io(e.to_string()))?;
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
    if !out.status.success() {
        let first: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).take(3).collect();
        let message = first.join("; ").replace(&tmp.0.display().to_string(), "FILE");
        if stderr.contains("cannot read the format") || stderr.contains("Invalid system activity file") {
            return Err(SadfError::VersionMismatch { sadf, sadf_version: version, message });
        }
        return Err(SadfError::Failed(message));
    }
    let cmd = format!("{} -j FILE -- {} (sysstat {version})", sadf.display(), ACTIVITIES.join(" "));
    Ok((cmd, out.stdout))
}

/// Reads a recognised sa file through `sadf`, filling [`SaFile::decoded`] and
/// [`SaFile::reader`]; a failure becomes a diagnostic naming the sysstat to use.
/// Returns the diagnostics to add to the file's (problems of sadf's JSON are prefixed).
pub(crate) fn decode(sa: &mut SaFile, bytes: &[u8]) -> Vec<Diagnostic> {
    match run_sadf(bytes) {
        Ok((cmd, json)) => {
            let p = iosift_parsers::sadf::parse_json(&json);
            sa.reader = Some(cmd);
            sa.decoded = Some(p.value);
            p.diagnostics
                .into_iter()
                .map(|d| Diagnostic::new(1, d.kind, format!("sadf -j output line {}: {}", d.line, d.text)))
                .collect()
        }
        Err(e) => {
            let h = sa.header;
            // The advice first: a diagnostic keeps 200 characters; the variant keeps sadf's own words.
            let msg = match &e {
                SadfError::VersionMismatch { sadf, sadf_version, .. } => format!(
                    "sa file of sysstat {v} (format 0x{f:04x}): {s} is sysstat {sadf_version} and cannot read it; \
                     use sadf of sysstat {v} (`sadf -j FILE -- -A > FILE.json`) or convert: `sadf -c FILE > NEW`",
                    v = h.version_text(),
                    f = h.format_magic,
                    s = sadf.display(),
                ),
                other @ SadfError::NotFound | other @ SadfError::Io(_) | other @ SadfError::Failed(_) => {
                    format!("sa file of sysstat {} not read: {other}", h.version_text())
                }
            };
            sa.reader = Some(format!("not read: {e}"));
            vec![Diagnostic::new(1, DiagKind::ToolMessage, msg)]
        }
    }
}
