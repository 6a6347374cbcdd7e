//! `summary.md` (issue 36): the Markdown a consultant pastes into a ticket renders as
//! CommonMark/GFM (parsed with pulldown-cmark, tables on) into the verdict, a table of the
//! capture and one section per finding; every image it links resolves to a PNG written beside
//! it; nothing from the capture becomes raw HTML. On three real samples of the repository.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use std::path::Path;

const BIN: &str = env!("CARGO_BIN_EXE_iosift");

/// Analyzes `case` into `out`; returns summary.md and what `--md` printed.
fn summary(case: &str, out: &Path) -> (String, String) {
    let cap = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(case).join("capture");
    let o = std::process::Command::new(BIN)
        .arg("analyze")
        .arg(&cap)
        .arg("-o")
        .arg(out)
        .arg("--md")
        .output()
        .unwrap();
    assert!(o.status.success(), "{case}: {}", String::from_utf8_lossy(&o.stderr));
    (
        std::fs::read_to_string(out.join("summary.md")).unwrap(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

#[test]
fn summary_md_renders_with_its_images_and_no_raw_html() {
    let tmp = tempfile::tempdir().unwrap();
    for (case, sections) in [("mmap_large_folio", 2), ("ixh_xfs_loop_msync_17s", 1), ("ixh_idle_d_noperf", 0)]
    {
        let out = tmp.path().join(case);
        let (md, printed) = summary(case, &out);
        assert_eq!(md, printed, "{case}: --md prints summary.md");
        let (mut h1, mut h2, mut tables, mut images, mut html) = (0, 0, 0, Vec::new(), Vec::new());
        let mut text = String::new();
        for ev in Parser::new_ext(&md, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH) {
            match ev {
                Event::Start(Tag::Heading { level, .. }) => match level as usize {
                    1 => h1 += 1,
                    _ => h2 += 1,
                },
                Event::Start(Tag::Table(_)) => tables += 1,
                Event::Start(Tag::Image { dest_url, .. }) => images.push(dest_url.to_string()),
                Event::Html(h) | Event::InlineHtml(h) => html.push(h.to_string()),
                Event::Text(t) => text.push_str(&t),
                Event::End(TagEnd::Paragraph | TagEnd::Heading(_)) => text.push('\n'),
                _ => {}
            }
        }
        assert_eq!((h1, h2, tables), (1, sections, 1), "{case}: {md}");
        assert!(html.is_empty(), "{case}: raw HTML {html:?}");
        assert_eq!(images.len(), sections, "{case}: one key chart per finding");
        for i in &images {
            assert!(i.starts_with("charts/") && i.ends_with(".png"), "{i}");
            assert!(out.join(i).is_file(), "{case}: {i} is not beside summary.md");
        }
        // The escapes render away: the verdict reads as plain words.
        let verdict = text.lines().find(|l| l.starts_with("Verdict")).unwrap_or_default().to_string();
        if sections == 0 {
            assert_eq!(verdict, "Verdict: no rule fired.");
        } else {
            assert!(!verdict.contains('\\'), "{verdict}");
        }
    }
}

/// Issue 36: the page says the capture in one line above the stories, with the same words
/// and number as summary.md's verdict.
#[test]
fn the_page_has_a_one_line_verdict_like_the_summary() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    let (md, _) = summary("mmap_large_folio", &out);
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    let line = "Verdict: CRITICAL Large-folio writeback of an mmap'd file (bursts of 762.2 MiB); findings: 1 critical, 1 warning.";
    assert!(page.contains(&format!("<p class=\"oneline\">{line}</p>")), "{page}");
    assert!(
        md.contains("**Verdict: CRITICAL Large-folio writeback of an mmap'd file** (bursts of 762.2 MiB)"),
        "{md}"
    );
}
