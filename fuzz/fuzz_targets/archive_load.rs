//! Shared by the archive fuzz targets (`bundle`, `archive_streams`): bytes written
//! to a temp file and loaded as a bundle with small limits. Loading must return a
//! bundle (with problems) or a limit error, never panic, never write, never
//! allocate past libFuzzer's limits (`-rss_limit_mb`, `-malloc_limit_mb`).
//! Not a target itself (no `[[bin]]`): the targets include it with `#[path]`.

use crate::bundle::{BundleError, Limits, load};
use std::io::Write;

/// What `src/bundle/` uses of the root crate's `outdir`: only single files are
/// loaded here, never folders, so no folder is an iosift report.
pub mod outdir {
    pub fn is_report_folder(_: &std::path::Path) -> bool {
        false
    }
}

/// Loads `bytes` as `input.<ext>` and checks that the limits held.
pub fn load_checked(ext: &str, bytes: &[u8]) {
    let Ok(dir) = tempfile::tempdir() else { return };
    let path = dir.path().join(format!("input.{ext}"));
    let Ok(mut f) = std::fs::File::create(&path) else { return };
    if f.write_all(bytes).is_err() {
        return;
    }
    drop(f);
    let limits = Limits { max_total_bytes: 256 * 1024, max_files: 64, max_depth: 3 };
    match load(std::slice::from_ref(&path), &limits) {
        Ok(b) => {
            let total: usize = b.files.iter().map(|f| f.data.len()).sum();
            assert!(total as u64 <= limits.max_total_bytes);
            assert!(b.files.len() <= limits.max_files);
            assert!(
                b.problems.iter().all(|p| !p.name.is_empty() && !p.message.is_empty()),
                "{:?}",
                b.problems
            );
        }
        Err(BundleError::Limit(m)) => assert!(m.contains("raise with --max-"), "{m}"),
        Err(BundleError::Unreadable { .. }) => {}
    }
    // Nothing may have been written beside the input (links, `../` paths).
    let n = std::fs::read_dir(dir.path()).map(|d| d.count()).unwrap_or(1);
    assert_eq!(n, 1, "bundle loading wrote into the input's folder");
}
