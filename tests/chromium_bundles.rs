//! The report of every real bundle in `../shared/bundles` loads in headless
//! Chromium without console errors and gives a screenshot; a thread named
//! `<script>alert(1)</script>` planted in a real pidstat capture shows as text.

use crate::common;

use iosift::bundle::{Limits, load};
use iosift::pipeline::Options;
use std::path::Path;

fn render(dir: &Path, out: &Path) {
    let b = load(&[dir.to_path_buf()], &Limits::default()).unwrap();
    let r = iosift::analyze::analyze(&b, &Options::default());
    iosift::output::write_all(&r, out).unwrap();
}

fn check_in_chromium(chromium: &Path, out: &Path, tmp: &Path) -> String {
    let url = format!("file://{}", out.join("index.html").display());
    let page = common::load_page(chromium, tmp, &url);
    assert!(page.png.len() > 60_000, "screenshot of {} is {} bytes", out.display(), page.png.len());
    assert!(page.console.is_empty(), "console messages for {}: {:?}", out.display(), page.console);
    page.dom
}

#[test]
fn every_shared_bundle_report_renders() {
    let Some(chromium) = common::on_path("chromium") else {
        common::support::skip("chromium not found (CI installs Debian's chromium)");
        return;
    };
    let root = common::support::path("bundles");
    if !root.is_dir() {
        common::support::skip(&format!("{} not found", root.display()));
        return;
    }
    for name in ["s1_mmap_writeback", "s2a_mariadb_durable", "s3_buffered_dd", "s4_locale_variants"] {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("report");
        render(&root.join(name), &out);
        let dom = check_in_chromium(&chromium, &out, tmp.path());
        assert!(dom.contains("id=\"verdict\""), "{name}: no verdict section");
    }
}

#[test]
fn planted_hostile_thread_name_is_text() {
    let Some(chromium) = common::on_path("chromium") else {
        common::support::skip("chromium not found (CI installs Debian's chromium)");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("cap");
    std::fs::create_dir_all(&cap).unwrap();
    let src = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/mmap_large_folio/capture"));
    for f in ["iostat-x-t.txt", "2026_11_29_21_05_20-meminfo.gz", "perf-profile.script.txt.gz"] {
        std::fs::copy(src.join(f), cap.join(f)).unwrap();
    }
    // A real pidstat capture whose busiest writer thread is renamed to markup.
    let pid = iosift_parsers::common::decode::maybe_gunzip(
        &std::fs::read(src.join("pidstat-d-t-h.txt.gz")).unwrap(),
        1 << 30,
    )
    .unwrap()
    .into_owned();
    let text = String::from_utf8_lossy(&pid).replace("|__mstore-0", "|__<script>alert(1)</script>");
    assert!(text.contains("<script>alert(1)</script>"));
    std::fs::write(cap.join("pidstat-d-t-h.txt"), text).unwrap();
    let out = tmp.path().join("report");
    render(&cap, &out);
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "the planted name is shown escaped");
    let dom = check_in_chromium(&chromium, &out, tmp.path());
    // The only script element is the project's own (the page's charts); the planted one is text.
    assert_eq!(dom.to_ascii_lowercase().matches("<script").count(), 1, "one script element in the DOM");
    assert!(dom.contains("<script>\n(function(){"), "it is the project's script");
    assert!(dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "the name is text in the DOM");
}
