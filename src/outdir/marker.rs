//! The marker file of a folder iosift wrote ([`super::MARKER`]): which command wrote it,
//! of which capture, and every file it wrote.
//!
//! ```text
//! iosift 0.1.0
//! command: analyze
//! capture: "/home/me/tickets/4711/capture.tgz"
//! charts/cpu.png
//! findings.json
//! ...
//! ```
//!
//! The first line is `iosift <version>`. `command:` and `capture:` lines (one per input,
//! a JSON string) follow; every other line is a file of the folder iosift wrote (a
//! relative path: iosift writes only names of `[A-Za-z0-9._-]`, so a file line never reads
//! `command: ...`). Markers of earlier versions have no `command:` and no `capture:`
//! lines: the command is then told by the files (`findings.json`: analyze, `diff.json`:
//! diff, `summary.json`: batch, tables otherwise) and the capture is unknown.

use std::path::{Path, PathBuf};

/// The command that writes a kind of output folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `iosift analyze`: a report.
    Analyze,
    /// `iosift tables`: tables only.
    Tables,
    /// `iosift batch`: one report per bundle and an overview.
    Batch,
    /// `iosift diff`: the comparison of two captures.
    Diff,
}

impl Kind {
    /// The command's name (`analyze`, ...), as the marker records it.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Analyze => "analyze",
            Kind::Tables => "tables",
            Kind::Batch => "batch",
            Kind::Diff => "diff",
        }
    }

    fn parse(s: &str) -> Option<Kind> {
        [Kind::Analyze, Kind::Tables, Kind::Batch, Kind::Diff].into_iter().find(|k| k.as_str() == s)
    }

    /// The kind of a marker without a `command:` line, told by the files it lists.
    fn of_files(files: &[String]) -> Option<Kind> {
        let has = |f: &str| files.iter().any(|x| x == f);
        if has("findings.json") {
            Some(Kind::Analyze)
        } else if has("diff.json") {
            Some(Kind::Diff)
        } else if has("summary.json") {
            Some(Kind::Batch)
        } else if files.iter().any(|f| f.ends_with(".parquet") || f.ends_with(".csv")) {
            Some(Kind::Tables)
        } else {
            None
        }
    }
}

/// What an output folder is the output of: the command and the capture (its inputs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    kind: Kind,
    capture: Vec<String>,
}

impl Origin {
    /// The output of `kind` on `inputs` (each canonicalised, so `./x` and `/abs/x` are one
    /// capture). No inputs: an unknown capture (a library caller that did not say).
    /// The inputs of `diff` keep their order (A B is not B A); others are sorted.
    pub fn new(kind: Kind, inputs: &[PathBuf]) -> Origin {
        let mut capture: Vec<String> = inputs.iter().map(|p| path_text(&absolute(p))).collect();
        if kind != Kind::Diff {
            capture.sort();
        }
        Origin { kind, capture }
    }

    /// The command.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The marker's text: the version, the command, the capture, then `files`.
    pub(super) fn marker_text(&self, files: &[String]) -> String {
        let mut s = format!("iosift {}\ncommand: {}\n", env!("CARGO_PKG_VERSION"), self.kind.as_str());
        for c in &self.capture {
            s.push_str("capture: ");
            s.push_str(&serde_json::Value::String(c.clone()).to_string());
            s.push('\n');
        }
        for f in files {
            s.push_str(f);
            s.push('\n');
        }
        s
    }
}

/// The path made absolute and free of links (as is, when it cannot be resolved).
fn absolute(p: &Path) -> PathBuf {
    p.canonicalize().or_else(|_| std::path::absolute(p)).unwrap_or_else(|_| p.to_path_buf())
}

/// A path as marker text: UTF-8 as is, other bytes escaped (`\xff`).
fn path_text(p: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    match p.to_str() {
        Some(s) => s.to_string(),
        None => p.as_os_str().as_bytes().escape_ascii().to_string(),
    }
}

/// A marker read back.
#[derive(Debug, Clone)]
pub(super) struct Marker {
    /// The command that wrote the folder (told by its files for older markers; `None`
    /// when nothing tells).
    pub kind: Option<Kind>,
    /// The capture's inputs (empty: not recorded).
    pub capture: Vec<String>,
    /// The files iosift wrote (relative paths), the marker itself included.
    pub files: Vec<String>,
}

impl Marker {
    /// The marker of `dir` (`None` without one, or when it does not start with
    /// `iosift `). Read without following a link at its name.
    pub(super) fn read(dir: &Path) -> Option<Marker> {
        let p = dir.join(super::MARKER);
        if !p.symlink_metadata().is_ok_and(|m| m.is_file()) {
            return None;
        }
        let text = std::fs::read_to_string(p).ok()?;
        text.starts_with("iosift ").then(|| Marker::parse(&text))
    }

    fn parse(text: &str) -> Marker {
        let (mut command, mut capture, mut files) = (None, Vec::new(), Vec::new());
        for line in text.lines().skip(1).filter(|l| !l.is_empty()) {
            if let Some(c) = line.strip_prefix("command: ") {
                command = Some(Kind::parse(c));
            } else if let Some(c) = line.strip_prefix("capture: ") {
                capture.push(serde_json::from_str::<String>(c).unwrap_or_else(|_| c.to_string()));
            } else {
                files.push(line.to_string());
            }
        }
        let kind = match command {
            Some(k) => k,
            None => Kind::of_files(&files),
        };
        files.push(super::MARKER.to_string());
        Marker { kind, capture, files }
    }

    /// True when the folder is the output of `origin`'s capture (the same inputs; two
    /// unknown captures count as one).
    pub(super) fn same_capture(&self, origin: &Origin) -> bool {
        self.capture == origin.capture
    }

    /// The capture for messages.
    pub(super) fn capture_text(&self) -> String {
        if self.capture.is_empty() {
            "a capture it does not name (written by an earlier iosift or without its inputs)".into()
        } else {
            self.capture.join(", ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_round_trips_and_old_markers_are_told_by_their_files() {
        let o = Origin::new(Kind::Tables, &[PathBuf::from("/no/such/a\nb.tgz")]);
        let m = Marker::parse(&o.marker_text(&["timeline.csv".into()]));
        assert_eq!(m.kind, Some(Kind::Tables));
        assert_eq!(m.capture, ["/no/such/a\nb.tgz"]);
        assert_eq!(m.files, ["timeline.csv", super::super::MARKER]);
        assert!(m.same_capture(&o));
        assert!(!m.same_capture(&Origin::new(Kind::Tables, &[PathBuf::from("/no/such/c.tgz")])));
        let old = Marker::parse("iosift 0.1.0\nfindings.json\nindex.html\n");
        assert_eq!((old.kind, old.capture.len(), old.files.len()), (Some(Kind::Analyze), 0, 3));
        assert_eq!(Marker::parse("iosift 0.1.0\ncharts/x.svg\n").kind, None);
        // A diff's two inputs keep their order; other inputs are sorted.
        let (a, b) = (PathBuf::from("/a"), PathBuf::from("/b"));
        assert_ne!(
            Origin::new(Kind::Diff, &[a.clone(), b.clone()]),
            Origin::new(Kind::Diff, &[b.clone(), a.clone()])
        );
        assert_eq!(Origin::new(Kind::Analyze, &[a.clone(), b.clone()]), Origin::new(Kind::Analyze, &[b, a]));
    }
}
