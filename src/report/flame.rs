//! Flame graphs of perf call stacks, drawn with inferno from collapsed
//! (`frame;frame;leaf count`) lines, e.g.
//!
//! ```text
//! mysqld;handle_connection;ha_commit_trans;MYSQL_BIN_LOG::commit;fsync 812
//! ```
//!
//! Output is deterministic: colours come from inferno's FNV hash of the frame
//! name (`deterministic`), never from a random generator. Titles and frame
//! names are capture text; inferno escapes them as XML text. Each perf file
//! gives one flame graph per process (its first frame), heaviest first;
//! frames on an fsync-like path are drawn red. The tooltip names the unit of
//! the counts (samples, or the sample period when perf printed one).

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

/// Most processes drawn per perf file (the rest are named in the caption of the last).
pub const MAX_PROCESSES: usize = 6;

/// The frames of the folded lines that are on an fsync-like path (highlighted).
fn fsync_frames(lines: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in lines {
        let stack = l.rsplit_once(' ').map_or(*l, |(s, _)| s);
        for f in stack.split(';').skip(1) {
            if iosift_parsers::perf_script::is_fsync_symbol(f) && !out.iter().any(|o| o == f) {
                out.push(f.to_string());
            }
        }
    }
    out.sort();
    out
}

/// Style added to inferno's: fsync-like frames in a strong red, whatever their hash colour.
const FSYNC_CSS: &str = "g.fsync rect{fill:#e5383b;stroke:#7a0c0e;stroke-width:0.6}";

/// Draws one flame graph of `lines`; `None` when it has no stacks. Frames on an
/// fsync-like path get the class `fsync` and are drawn red.
pub fn render_lines(title: &str, count_name: &str, lines: &[&str]) -> Result<Option<Vec<u8>>, String> {
    if lines.iter().all(|l| l.trim().is_empty()) {
        return Ok(None);
    }
    let mut opt = Options::default();
    opt.title = title.to_string();
    opt.deterministic = true;
    opt.count_name = count_name.to_string();
    opt.image_width = Some(1200);
    let attrs: String = fsync_frames(lines).iter().map(|f| format!("{f}\tclass=fsync\n")).collect();
    opt.func_frameattrs =
        inferno::flamegraph::FuncFrameAttrsMap::from_reader(attrs.as_bytes()).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    flamegraph::from_lines(&mut opt, lines.iter().copied(), &mut out).map_err(|e| e.to_string())?;
    let svg = String::from_utf8_lossy(&out).into_owned();
    let svg = match svg.find("<style type=\"text/css\">") {
        Some(i) => {
            let at = i + "<style type=\"text/css\">".len();
            format!("{}{FSYNC_CSS}{}", &svg[..at], &svg[at..])
        }
        None => svg,
    };
    // Frame names are capture text: their control and bidirectional characters are
    // shown as escapes, as on the terminal.
    Ok(Some(crate::term::safe_doc(svg).into_bytes()))
}

/// Draws the flame graph of every stack of a perf file; `None` when it has no stacks.
pub fn render(f: &FlameInput) -> Result<Option<Vec<u8>>, String> {
    let lines: Vec<&str> = f.folded.iter().map(String::as_str).collect();
    render_lines(&f.title, &f.count_name, &lines)
}

/// The process of a folded line: its first frame (`mysqld`, `kworker/u4:2-...`).
fn process_of(line: &str) -> &str {
    line.split(';').next().unwrap_or("").trim()
}

/// The weight of a folded line (its trailing count).
fn weight_of(line: &str) -> u64 {
    line.rsplit_once(' ').and_then(|(_, w)| w.trim().parse().ok()).unwrap_or(0)
}

/// The folded lines of a perf file grouped by process, heaviest first (ties by name).
pub fn by_process(folded: &[String]) -> Vec<(String, u64, Vec<&str>)> {
    let mut m: std::collections::BTreeMap<&str, (u64, Vec<&str>)> = std::collections::BTreeMap::new();
    for l in folded.iter().filter(|l| !l.trim().is_empty()) {
        let e = m.entry(process_of(l)).or_default();
        e.0 = e.0.saturating_add(weight_of(l));
        e.1.push(l);
    }
    let mut v: Vec<(String, u64, Vec<&str>)> =
        m.into_iter().map(|(k, (w, l))| (k.to_string(), w, l)).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

/// Every flame graph: one per process of each perf file (the [`MAX_PROCESSES`]
/// heaviest), with unique safe stems (`<file>-<process>`, `-2`, `-3` appended on
/// collisions). Failures are returned as messages.
pub fn render_all(flames: &[FlameInput]) -> (Vec<Flame>, Vec<String>) {
    let mut out: Vec<Flame> = Vec::new();
    let mut failed = Vec::new();
    for f in flames {
        let procs = by_process(&f.folded);
        let total: u64 = procs.iter().map(|p| p.1).fold(0u64, u64::saturating_add);
        for (name, w, lines) in procs.iter().take(MAX_PROCESSES) {
            let stem = crate::bundle::unique_name(&safe_stem(&format!("{}-{name}", f.stem)), "", |n| {
                out.iter().any(|o| o.stem == n)
            });
            let share = if total > 0 { 100.0 * *w as f64 / total as f64 } else { 0.0 };
            let title = format!("{}: process {name} ({share:.0} % of the {})", f.title, f.count_name);
            match render_lines(&title, &f.count_name, lines) {
                Ok(Some(svg)) => out.push(Flame { stem, title, stacks: lines.len(), svg }),
                Ok(None) => {}
                Err(e) => failed.push(format!("flame graph {stem}: {e}")),
            }
        }
    }
    (out, failed)
}

/// The folded stacks a report writes under `stacks/`, as (file name, text): per perf file every
/// stack (`<file>.folded`, what inferno-collapse-perf and FlameGraph's stackcollapse-perf.pl
/// print for that perf script) and per process its stacks (`<file>-<process>.folded`, every
/// process, not only the drawn ones). Lines `frame;frame;leaf count`, sorted, one per stack;
/// names made safe ([`safe_stem`]) and unique (`-2`, `-3` appended).
pub fn folded_files(flames: &[FlameInput]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut push = |base: String, lines: &[&str]| {
        let name = crate::bundle::unique_name(&base, ".folded", |n| out.iter().any(|o| o.0 == n));
        out.push((name, lines.iter().map(|l| format!("{l}\n")).collect()));
    };
    for f in flames {
        let all: Vec<&str> = f.folded.iter().map(String::as_str).filter(|l| !l.trim().is_empty()).collect();
        push(safe_stem(&f.stem), &all);
        for (name, _, lines) in by_process(&f.folded) {
            push(safe_stem(&format!("{}-{name}", f.stem)), &lines);
        }
    }
    out
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
            count_name: "samples".into(),
        };
        let a = render(&f).unwrap().unwrap();
        let b = render(&f).unwrap().unwrap();
        assert_eq!(a, b);
        let s = String::from_utf8(a).unwrap();
        assert!(s.contains("t &lt;script&gt;&amp;"), "title escaped");
        assert!(!s.contains("<img>"));
        assert!(s.contains("fsync"));
        assert!(s.contains(r#"class="fsync""#) && s.contains(FSYNC_CSS), "fsync frames highlighted");
        let (all, failed) = render_all(&[f.clone(), f]);
        assert!(failed.is_empty());
        // One per process: `a` (15) before `<img>` (1), in both files.
        assert_eq!(
            all.iter().map(|f| f.stem.as_str()).collect::<Vec<_>>(),
            ["x-a", "x-_img_", "x-a-2", "x-_img_-2"]
        );
        assert!(all[0].title.contains("process a (94 % of the samples)"), "{}", all[0].title);
    }

    #[test]
    fn frame_names_show_controls_and_overrides_escaped() {
        let svg = render_lines("t\u{202e}", "samples", &["a\u{202e}b\x07;fsync 3", "c 1"]).unwrap().unwrap();
        let s = String::from_utf8(svg).unwrap();
        assert!(!s.contains(['\u{202e}', '\x07']));
        assert!(s.contains("a\\u{202e}b\\x07"), "the frame, escaped as on the terminal");
    }
}
