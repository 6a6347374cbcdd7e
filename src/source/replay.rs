//! A large `iostat` binned as it is read, without keeping its rows: the first read
//! ([`parse`]) keeps only the file's summary (reports, devices, first and last stamps, the
//! stamps its series repaired: [`iosift_parsers::iostat::drained`]); every visit of the
//! adapter reads the file again and is handed each report as its batch is merged
//! ([`each_report`]), which it bins and drops. A file in memory hands its kept reports to
//! the same visit, so both go through one code path. Memory no longer grows with the file
//! (a 200 MB `iostat -x -t` kept about 190 MB of rows).
//!
//! ```text
//! 11/29/26 19:37:19                                  <- report 1: binned, dropped
//! avg-cpu:  %user   %nice %system %iowait  %steal   %idle
//!           61.51    0.00    9.68    0.50    0.07   28.23
//! Device            r/s     rkB/s ...
//! vda            688.75  27025.48 ...
//! 11/29/26 19:37:20                                  <- report 2 ...
//! ```

use super::ParsedFile;
use super::pieces::{PIECE, drive_with};
use crate::bundle::Streamed;
use iosift_parsers::Parsed;
use iosift_parsers::iostat::{Iostat, Report, pieces};

/// Reads a streamed `iostat` keeping none of its reports (`None`: a file the pieces cannot
/// read, which is parsed whole).
pub(crate) fn parse(st: &Streamed) -> Option<Parsed<Iostat>> {
    parse_in(st, PIECE)
}

/// [`parse`] in pieces of at least `piece` bytes.
fn parse_in(st: &Streamed, piece: usize) -> Option<Parsed<Iostat>> {
    let mut p = drive_with(st, pieces::drained(), piece, |p| drop(p.take_reports()))?;
    p.value.reports = Vec::new();
    Some(p)
}

/// Hands every report of `io` (the value of `file`) to `f`, in file order: the reports kept
/// in memory, or those of the file read again when its first read kept none ([`parse`]),
/// with the stamps that read repaired and its dates read day-first when the bundle said so.
/// A file that can no longer be read as it was hands the reports read until then.
pub(crate) fn each_report(file: &ParsedFile, io: &Iostat, f: impl FnMut(&Report)) {
    each_in(file, io, f, PIECE);
}

/// [`each_report`], the file read in pieces of at least `piece` bytes.
fn each_in(file: &ParsedFile, io: &Iostat, mut f: impl FnMut(&Report), piece: usize) {
    let (Some(d), Some(st)) = (&io.drained, &file.stream) else {
        io.reports.iter().for_each(f);
        return;
    };
    let mut k = 0;
    let mut hand = |reports: Vec<Report>| {
        for mut r in reports {
            d.fix(k, &mut r);
            k += 1;
            if d.day_first {
                super::dayfirst::swap_stamp(&mut r.stamp);
            }
            f(&r);
        }
    };
    if let Some(rest) = drive_with(st, pieces::replay(), piece, |p| hand(p.take_reports())) {
        hand(rest.value.reports);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iosift_parsers::Summary;

    /// The file at `path` as a streamed file and as a parsed one whose value is `io`.
    fn file(path: &std::path::Path) -> (Streamed, ParsedFile) {
        let len = std::fs::metadata(path).unwrap().len();
        let st = Streamed { path: path.to_path_buf(), gz: false, format: "iostat", len };
        let input = crate::bundle::InputFile {
            name: "iostat.txt".into(),
            data: std::fs::read(path).unwrap().into(),
            gzipped: false,
            stream: None,
        };
        let mut f = super::super::parse_file(&input);
        f.stream = Some(st.clone());
        (st, f)
    }

    /// A drained read of `path` in pieces of `piece` bytes has the whole parse's summary and
    /// diagnostics, and reading it again hands the whole parse's reports, stamps repaired.
    fn same(path: &std::path::Path, piece: usize) {
        let whole = iosift_parsers::iostat::parse_text(&std::fs::read(path).unwrap());
        let (st, mut f) = file(path);
        let at = format!("{} (pieces of {piece} bytes)", path.display());
        let p = parse_in(&st, piece).expect("cut in pieces");
        assert!(p.value.reports.is_empty(), "{at}");
        assert_eq!(p.diagnostics, whole.diagnostics, "{at}");
        assert_eq!((p.lines, p.skipped_lines), (whole.lines, whole.skipped_lines), "{at}");
        let (a, b) = (&p.value, &whole.value);
        assert_eq!(a.records(), b.records(), "{at}");
        assert_eq!(a.variant(), b.variant(), "{at}");
        assert_eq!(format!("{:?}", a.time_range()), format!("{:?}", b.time_range()), "{at}");
        // Each device's writes summed as the reports kept give them, to the bit.
        let mut sums = std::collections::BTreeMap::new();
        b.reports.iter().for_each(|r| r.add_write_sums(&mut sums));
        assert!(sums.values().any(|w| *w > 0.0), "{at}");
        assert_eq!(a.drained.as_ref().map(|d| &d.write_sums), Some(&sums), "{at}");
        f.data = Some(iosift_parsers::Data::Iostat(p.value.clone()));
        let mut again = Vec::new();
        each_in(&f, &p.value, |r| again.push(format!("{r:?}")), piece);
        let want: Vec<String> = b.reports.iter().map(|r| format!("{r:?}")).collect();
        assert_eq!(again, want, "{at}");
    }

    #[test]
    fn an_iostat_read_without_its_rows_and_read_again_equals_the_whole_parse() {
        let path = std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/samples/mariadb_fsync_durable/capture/iostat-x-t.txt"
        ));
        for piece in [1, 700, 5000] {
            same(&path, piece);
        }
        // A garbled stamp mid-file: the first read repairs it from its run's series, and the
        // report read again carries the repaired stamp.
        let text = std::fs::read_to_string(&path).unwrap();
        // `2026-11-29T21:10:19+0000` printed as `2026-11-29T01:10:19+0000`.
        let stamps: Vec<&str> = text.lines().filter(|l| l.starts_with("2026-11-29T2")).collect();
        let bad = stamps[stamps.len() / 2];
        let garbled = text.replacen(bad, &bad.replace("T2", "T0"), 1);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("iostat-x-t.txt");
        std::fs::write(&p, &garbled).unwrap();
        let whole = iosift_parsers::iostat::parse_text(garbled.as_bytes());
        assert!(whole.diagnostics.iter().any(|d| d.kind == iosift_parsers::DiagKind::BadTime));
        for piece in [1, 5000] {
            same(&p, piece);
        }
    }
}
