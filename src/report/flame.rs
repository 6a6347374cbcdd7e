//! Flame graphs of perf call stacks, drawn with inferno from collapsed
//! (`frame;frame;leaf count`) lines, e.g.
//!
//! ```text
//! mysqld;handle_connection;ha_commit_trans;MYSQL_BIN_LOG::commit;fsync 812
//! ```
//!
//! Output is deterministic: colours come from inferno's FNV hash of the frame
//! name (`deterministic`), never from a random generator. Titles and frame
//! names are capture text; inferno escapes them as XML text.

use crate::model::FlameInput;
use inferno::flamegraph::{self, Options};

/// A drawn flame graph.
#[derive(Debug, Clone)]
pub struct Flame {
    /// Safe file stem (`flame-<stem>.svg`).
    pub stem: String,
    /// Title (capture text: escape it).
    pub title: String,
    /// Stack lines drawn.
    pub stacks: usize,
    /// The SVG.
    pub svg: Vec<u8>,
}

/// A file stem made of `[A-Za-z0-9_.-]`, not starting with a dot, at most 80 characters.
pub fn safe_stem(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' { c } else { '_' })
        .take(80)
        .collect();
    while out.starts_with('.') {
        out.replace_range(..1, "_");
    }
    if out.is_empty() { "flame".into() } else { out }
}

/// Draws one flame graph; `None` when it has no stacks.
pub fn render(f: &FlameInput) -> Result<Option<Vec<u8>>, String> {
    if f.folded.iter().all(|l| l.trim().is_empty()) {
        return Ok(None);
    }
    let mut opt = Options::default();
    opt.title = f.title.clone();
    opt.deterministic = true;
    opt.count_name = "samples".into();
    opt.image_width = Some(1200);
    let mut out = Vec::new();
    flamegraph::from_lines(&mut opt, f.folded.iter().map(String::as_str), &mut out)
        .map_err(|e| e.to_string())?;
    Ok(Some(out))
}

/// Every flame graph with stacks, with unique safe stems (`-2`, `-3` appended on collisions).
/// Failures are returned as messages.
pub fn render_all(flames: &[FlameInput]) -> (Vec<Flame>, Vec<String>) {
    let mut out: Vec<Flame> = Vec::new();
    let mut failed = Vec::new();
    for f in flames {
        let base = safe_stem(&f.stem);
        let mut stem = base.clone();
        let mut k = 2;
        while out.iter().any(|o| o.stem == stem) {
            stem = format!("{base}-{k}");
            k += 1;
        }
        match render(f) {
            Ok(Some(svg)) => out.push(Flame { stem, title: f.title.clone(), stacks: f.folded.len(), svg }),
            Ok(None) => {}
            Err(e) => failed.push(format!("flame graph {stem}: {e}")),
        }
    }
    (out, failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_are_safe() {
        assert_eq!(safe_stem("../etc/passwd"), "_._etc_passwd");
        assert_eq!(safe_stem(".hidden"), "_hidden");
        assert_eq!(safe_stem(""), "flame");
        assert_eq!(safe_stem("perf-1.script"), "perf-1.script");
    }

    #[test]
    fn flame_is_deterministic_and_escaped() {
        let f = FlameInput {
            title: "t <script>&".into(),
            stem: "x".into(),
            folded: vec!["a;b;fsync 10".into(), "a;c 5".into(), "<img>;x 1".into()],
        };
        let a = render(&f).unwrap().unwrap();
        let b = render(&f).unwrap().unwrap();
        assert_eq!(a, b);
        let s = String::from_utf8(a).unwrap();
        assert!(s.contains("t &lt;script&gt;&amp;"), "title escaped");
        assert!(!s.contains("<img>"));
        assert!(s.contains("fsync"));
        let (all, failed) = render_all(&[f.clone(), f]);
        assert!(failed.is_empty());
        assert_eq!(all.iter().map(|f| f.stem.as_str()).collect::<Vec<_>>(), ["x", "x-2"]);
    }
}
