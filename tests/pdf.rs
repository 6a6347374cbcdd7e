//! The pages printed to PDF by headless Chromium (what a consultant attaches to a ticket)
//! cut no table: every cell of every table of the page is in the PDF's text, and no word
//! lies beyond the page's edge.
//!
//! Chromium drops what a too-wide table puts beyond the paper (a negative control below
//! shows it on a table of eight wide cells: five vanish), so a cell whose text is missing
//! from `pdftotext`'s output was cut. Wrapped cells come out in pieces, interleaved with
//! their neighbours and with line-break hyphens dropped: a cell counts as present when the
//! first and the last six characters of its text (without white space and hyphens) are.
//!
//! Pages: the reports of three real samples (one read from a tar.gz, whose inventory paths
//! are `archive!folder/file`), the diff of two of them and a batch overview. Needs
//! `chromium` and `pdftotext` (poppler-utils, which CI installs); says "skipped" without.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_iosift");

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(name).join("capture")
}

fn iosift(args: &[&std::ffi::OsStr]) {
    let o = Command::new(BIN).args(args).arg("-q").output().unwrap();
    // batch exits 1 when a capture failed; every capture here is readable.
    assert!(o.status.success(), "iosift {args:?}: {}", String::from_utf8_lossy(&o.stderr));
}

/// `s` without the elements named `tag` (from `<tag` to `</tag>`).
fn without(s: &str, tag: &str) -> String {
    let (open, close) = (format!("<{tag}"), format!("</{tag}>"));
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find(&open) {
        out.push_str(&rest[..i]);
        rest = rest[i..].find(&close).map_or("", |j| &rest[i + j + close.len()..]);
    }
    out + rest
}

/// Text without its tags, entities decoded.
fn text_of(s: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The text of every table cell of a page (scripts, styles, charts and closed details
/// left out: the print shows them closed).
fn cells(page: &str) -> Vec<String> {
    let mut s = page.to_string();
    for tag in ["script", "style", "svg", "details"] {
        s = without(&s, tag);
    }
    let mut out = Vec::new();
    let mut rest = s.as_str();
    while let Some(i) = rest.find("<td").into_iter().chain(rest.find("<th")).min() {
        let after = &rest[i + 3..];
        // `<th` also starts `<thead>`: only a cell's tag ends right there.
        if !after.starts_with(['>', ' ']) {
            rest = after;
            continue;
        }
        let Some(start) = after.find('>') else { break };
        let body = &after[start + 1..];
        let end = body.find("</t").unwrap_or(body.len());
        out.push(text_of(&body[..end]));
        rest = &body[end..];
    }
    out
}

/// The value of attribute `name` in a tag's text.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let i = tag.find(&format!("{name}=\""))? + name.len() + 2;
    Some(&tag[i..i + tag[i..].find('"')?])
}

fn squeeze(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace() && *c != '-' && *c != '\u{ad}').collect()
}

/// The cells of `page` missing from the PDF's text.
fn cut_cells(page: &str, pdf_text: &str) -> Vec<String> {
    let pdf = squeeze(pdf_text);
    cells(page)
        .into_iter()
        .filter(|c| {
            let tokens: Vec<String> = c.split_whitespace().map(squeeze).filter(|t| !t.is_empty()).collect();
            let (Some(first), Some(last)) = (tokens.first(), tokens.last()) else { return false };
            let head: String = first.chars().take(6).collect();
            let tail: String = last.chars().rev().take(6).collect::<Vec<_>>().into_iter().rev().collect();
            !pdf.contains(&head) || !pdf.contains(&tail)
        })
        .collect()
}

/// Prints `html` to PDF; returns (pages, the text, words beyond a page's edge).
fn print(chromium: &Path, html: &Path, tmp: &Path) -> (usize, String, Vec<String>) {
    let pdf = tmp.join(format!("{}.pdf", html.parent().unwrap().file_name().unwrap().to_string_lossy()));
    let (ok, _, err) = common::run(
        common::chromium(chromium, &tmp.join("profile"))
            .arg("--no-pdf-header-footer")
            .arg(format!("--print-to-pdf={}", pdf.display()))
            .arg(format!("file://{}", html.display())),
        Duration::from_secs(120),
    );
    assert!(ok && pdf.exists(), "chromium --print-to-pdf of {} failed: {err}", html.display());
    let text = Command::new("pdftotext").arg(&pdf).arg("-").output().unwrap();
    assert!(text.status.success());
    let bbox = Command::new("pdftotext").arg("-bbox").arg(&pdf).arg("-").output().unwrap();
    let bbox = String::from_utf8_lossy(&bbox.stdout).into_owned();
    // `<page width="612.000000" height="792.000000">` then `<word xMin=".." yMin=".." xMax=".." yMax="..">text</word>`.
    let mut outside = Vec::new();
    let mut pages = 0;
    for page in bbox.split("<page ").skip(1) {
        pages += 1;
        let width: f64 = attr(page, "width").and_then(|w| w.parse().ok()).unwrap();
        for word in page.split("<word ").skip(1) {
            let x0: f64 = attr(word, "xMin").and_then(|w| w.parse().ok()).unwrap();
            let x1: f64 = attr(word, "xMax").and_then(|w| w.parse().ok()).unwrap();
            if x0 < -0.5 || x1 > width + 0.5 {
                let text = word.split('>').nth(1).unwrap_or("").split('<').next().unwrap_or("");
                outside.push(format!("page {pages}: {text} at {x0:.0}..{x1:.0} of {width:.0}"));
            }
        }
    }
    (pages, String::from_utf8_lossy(&text.stdout).into_owned(), outside)
}

#[test]
fn printed_pages_cut_no_table() {
    let Some(chromium) = common::on_path("chromium") else {
        common::support::skip("chromium not found (CI installs Debian's chromium)");
        return;
    };
    if common::on_path("pdftotext").is_none() {
        common::support::skip("pdftotext not found (CI installs poppler-utils)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();

    // Negative control: a table wider than the paper loses cells, and the check sees it.
    let wide = t.join("wide");
    std::fs::create_dir_all(&wide).unwrap();
    let row: String = (0..8).map(|i| format!("<td>column{i}_{}_end{i}</td>", "x".repeat(30))).collect();
    std::fs::write(
        wide.join("index.html"),
        format!("<html><body><table><tr>{row}</tr></table></body></html>"),
    )
    .unwrap();
    let (_, text, _) = print(&chromium, &wide.join("index.html"), t);
    let cut = cut_cells(&std::fs::read_to_string(wide.join("index.html")).unwrap(), &text);
    assert!(cut.len() >= 3, "the control table should lose cells in print: {cut:?}");

    // A tar.gz of a real capture: its inventory names `archive!folder/file`.
    let tgz = t.join("replica_io_bound.tar.gz");
    let st = Command::new("tar")
        .arg("-czf")
        .arg(&tgz)
        .arg("-C")
        .arg(sample("replica_io_bound").parent().unwrap())
        .arg("capture")
        .status()
        .unwrap();
    assert!(st.success());
    let mut pages: Vec<PathBuf> = Vec::new();
    for (name, input) in [
        ("pt_stalk_mariadb", sample("pt_stalk_mariadb")),
        ("mmap_large_folio", sample("mmap_large_folio")),
        ("replica_tgz", tgz.clone()),
    ] {
        let out = t.join(name);
        iosift(&["analyze".as_ref(), input.as_os_str(), "-o".as_ref(), out.as_os_str()]);
        pages.push(out.join("index.html"));
    }
    let diff = t.join("diff");
    iosift(&[
        "diff".as_ref(),
        sample("replica_io_bound").as_os_str(),
        sample("replica_sql_bound").as_os_str(),
        "-o".as_ref(),
        diff.as_os_str(),
    ]);
    pages.push(diff.join("index.html"));
    let batch_in = t.join("batch-in");
    std::fs::create_dir_all(&batch_in).unwrap();
    for s in ["mariadb_fsync_durable", "mariadb_relaxed", "replica_sql_bound"] {
        common::copy_files(&sample(s), &batch_in.join(s));
    }
    let batch = t.join("batch");
    iosift(&[
        "batch".as_ref(),
        batch_in.as_os_str(),
        "-o".as_ref(),
        batch.as_os_str(),
        "--jobs".as_ref(),
        "1".as_ref(),
    ]);
    pages.push(batch.join("index.html"));

    for page in &pages {
        let html = std::fs::read_to_string(page).unwrap();
        let (n, text, outside) = print(&chromium, page, t);
        let cut = cut_cells(&html, &text);
        let total = cells(&html).len();
        eprintln!("{}: {n} pages, {total} table cells, {} cut", page.display(), cut.len());
        assert!(total > 0, "{} has tables", page.display());
        assert!(cut.is_empty(), "{}: cells cut in print: {cut:?}", page.display());
        assert!(outside.is_empty(), "{}: words beyond the page: {outside:?}", page.display());
    }
}
