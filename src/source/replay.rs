//! A large `iostat`, `pidstat` or `vmstat` binned as it is read, without keeping its
//! records: the first read ([`parse`]) keeps only the file's summary (records, devices,
//! first and last stamps, the stamps its series repaired: [`iosift_parsers::iostat::drained`],
//! [`iosift_parsers::pidstat::drained`], [`iosift_parsers::vmstat::drained`]); every visit
//! of the adapter reads the file again and is handed each record as its piece is merged
//! ([`each_report`], [`each_row`], [`each_vmstat_row`]), which it bins and drops. A file in
//! memory hands its kept records to the same visit, so both go through one code path.
//! Memory no longer grows with the file (a 200 MB `iostat -x -t` kept about 190 MB of rows,
//! a `pidstat -d -t -h` 256 MB, a `vmstat -t` 520 MB).
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
use super::pieces::drive_with;

/// Bytes a piece holds at least: a quarter of a parse's ([`super::pieces::PIECE`]), as the
/// records of a batch of pieces (four per thread) are held until merged and handed on, and
/// the two batches being read (a 200 MB `pidstat -d -t -h` read in 1 MiB pieces held 22 MB
/// of rows and 19 MB of batches on 2 threads).
const PIECE: usize = super::pieces::PIECE / 4;
use crate::bundle::Streamed;
use iosift_parsers::iostat::{Iostat, Report};
use iosift_parsers::pidstat::{Pidstat, Row};
use iosift_parsers::pieces::Pieces;
use iosift_parsers::vmstat::Vmstat;
use iosift_parsers::{Data, Parsed};

/// A format whose pieces hand their records to the application as they are merged.
trait Drain: Pieces {
    /// One record (an iostat report, a pidstat row).
    type Record;
    /// The records merged so far and not yet taken, in file order.
    fn take(&mut self) -> Vec<Self::Record>;
    /// The records left in the finished parse (the last piece's).
    fn rest(out: &mut Self::Output) -> Vec<Self::Record>;
}

impl Drain for iosift_parsers::iostat::pieces::IostatPieces {
    type Record = Report;
    fn take(&mut self) -> Vec<Report> {
        self.take_reports()
    }
    fn rest(out: &mut Iostat) -> Vec<Report> {
        std::mem::take(&mut out.reports)
    }
}

impl Drain for iosift_parsers::pidstat::pieces::PidstatPieces {
    type Record = Row;
    fn take(&mut self) -> Vec<Row> {
        self.take_rows()
    }
    fn rest(out: &mut Pidstat) -> Vec<Row> {
        std::mem::take(&mut out.rows)
    }
}

impl Drain for iosift_parsers::vmstat::pieces::VmstatPieces {
    type Record = iosift_parsers::vmstat::Row;
    fn take(&mut self) -> Vec<Self::Record> {
        self.take_rows()
    }
    fn rest(out: &mut Vmstat) -> Vec<Self::Record> {
        std::mem::take(&mut out.rows)
    }
}

/// Reads a streamed `iostat`, `pidstat` or `vmstat` keeping none of its records (`None`: another
/// format, or a file the pieces cannot read, which is parsed whole).
pub(crate) fn parse(st: &Streamed) -> Option<Parsed<Data>> {
    parse_in(st, PIECE)
}

/// [`parse`] in pieces of at least `piece` bytes.
fn parse_in(st: &Streamed, piece: usize) -> Option<Parsed<Data>> {
    match st.format {
        "iostat" => {
            drained(st, iosift_parsers::iostat::pieces::drained(), piece).map(|p| p.map(Data::Iostat))
        }
        "pidstat" => {
            drained(st, iosift_parsers::pidstat::pieces::drained(), piece).map(|p| p.map(Data::Pidstat))
        }
        "vmstat" => {
            drained(st, iosift_parsers::vmstat::pieces::drained(), piece).map(|p| p.map(Data::Vmstat))
        }
        _ => None,
    }
}

/// The file read by `p` (a drained parse), each batch of records dropped as it is merged.
fn drained<P: Drain>(st: &Streamed, p: P, piece: usize) -> Option<Parsed<P::Output>> {
    let mut p = drive_with(st, p, piece, |p| drop(p.take()))?;
    drop(P::rest(&mut p.value));
    Some(p)
}

/// The file read again by `p`, each batch of records handed to `hand` as it is merged, in
/// file order (those read until then when it can no longer be read as it was).
fn replayed<P: Drain>(st: &Streamed, p: P, piece: usize, mut hand: impl FnMut(Vec<P::Record>)) {
    if let Some(mut rest) = drive_with(st, p, piece, |p| hand(p.take())) {
        hand(P::rest(&mut rest.value));
    }
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
    replayed(st, iosift_parsers::iostat::pieces::replay(), piece, |reports| {
        for mut r in reports {
            d.fix(k, &mut r);
            k += 1;
            if d.day_first {
                super::dayfirst::swap_stamp(&mut r.stamp);
            }
            f(&r);
        }
    });
}

/// Hands every interval row of `p` (the value of `file`) to `f`, in file order, as
/// [`each_report`] does an iostat's reports.
pub(crate) fn each_row(file: &ParsedFile, p: &Pidstat, f: impl FnMut(&Row)) {
    each_row_in(file, p, f, PIECE);
}

/// [`each_row`], the file read in pieces of at least `piece` bytes.
fn each_row_in(file: &ParsedFile, p: &Pidstat, mut f: impl FnMut(&Row), piece: usize) {
    let (Some(d), Some(st)) = (&p.drained, &file.stream) else {
        p.rows.iter().for_each(f);
        return;
    };
    let mut samples = iosift_parsers::pidstat::Samples::default();
    replayed(st, iosift_parsers::pidstat::pieces::replay(), piece, |rows| {
        for mut r in rows {
            d.fix(&mut samples, &mut r);
            f(&r);
        }
    });
}

/// Hands every procs row of `v` (the value of `file`) to `f` with its index in the file, in
/// file order, as [`each_report`] does an iostat's reports.
pub(crate) fn each_vmstat_row(
    file: &ParsedFile,
    v: &Vmstat,
    f: impl FnMut(usize, &iosift_parsers::vmstat::Row),
) {
    each_vmstat_in(file, v, f, PIECE);
}

/// [`each_vmstat_row`], the file read in pieces of at least `piece` bytes.
fn each_vmstat_in(
    file: &ParsedFile,
    v: &Vmstat,
    mut f: impl FnMut(usize, &iosift_parsers::vmstat::Row),
    piece: usize,
) {
    let (Some(d), Some(st)) = (&v.drained, &file.stream) else {
        v.rows.iter().enumerate().for_each(|(k, r)| f(k, r));
        return;
    };
    let mut k = 0;
    replayed(st, iosift_parsers::vmstat::pieces::replay(), piece, |rows| {
        for mut r in rows {
            if let Some(s) = d.fix(k) {
                r.stamp = Some(s);
            }
            f(k, &r);
            k += 1;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use iosift_parsers::Summary;

    /// The file at `path` as a streamed file of `format` and as a parsed one.
    fn file(path: &std::path::Path, format: &'static str) -> (Streamed, ParsedFile) {
        let len = std::fs::metadata(path).unwrap().len();
        let st = Streamed { path: path.to_path_buf(), gz: false, format, len };
        let input = crate::bundle::InputFile {
            name: format!("{format}.txt"),
            data: std::fs::read(path).unwrap().into(),
            gzipped: false,
            stream: None,
        };
        let mut f = super::super::parse_file(&input);
        f.stream = Some(st.clone());
        (st, f)
    }

    /// The drained read `p` has the whole parse's summary, diagnostics and line counts.
    fn same_summary<V: Summary>(p: &Parsed<V>, whole: &Parsed<V>, at: &str) {
        assert_eq!(p.diagnostics, whole.diagnostics, "{at}");
        assert_eq!((p.lines, p.skipped_lines), (whole.lines, whole.skipped_lines), "{at}");
        let (a, b) = (&p.value, &whole.value);
        assert_eq!(a.records(), b.records(), "{at}");
        assert_eq!(a.variant(), b.variant(), "{at}");
        assert_eq!(format!("{:?}", a.time_range()), format!("{:?}", b.time_range()), "{at}");
    }

    /// A drained read of `path` in pieces of `piece` bytes has the whole parse's summary and
    /// diagnostics, and reading it again hands the whole parse's reports, stamps repaired.
    fn same(path: &std::path::Path, piece: usize) {
        let whole = iosift_parsers::iostat::parse_text(&std::fs::read(path).unwrap());
        let (st, mut f) = file(path, "iostat");
        let at = format!("{} (pieces of {piece} bytes)", path.display());
        let p = parse_in(&st, piece).expect("cut in pieces").map(|d| {
            let Data::Iostat(io) = d else { panic!("not an iostat") };
            io
        });
        assert!(p.value.reports.is_empty(), "{at}");
        same_summary(&p, &whole, &at);
        let (a, b) = (&p.value, &whole.value);
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

    /// The pidstat or vmstat at `path` (`format`) read drained in pieces of `piece` bytes:
    /// the parsed file with that value, the rest of the parse, and where (for the messages).
    fn drained_file(
        path: &std::path::Path,
        format: &'static str,
        piece: usize,
    ) -> (ParsedFile, Parsed<()>, String) {
        let (st, mut f) = file(path, format);
        let mut p = parse_in(&st, piece).expect("cut in pieces").map(Some);
        f.data = p.value.take();
        (f, p.map(|_| ()), format!("{} (pieces of {piece} bytes)", path.display()))
    }

    /// `check` of the sample `name` (pieces of 1, 700, 5000 bytes), of it with `garble`
    /// applied (which its whole parse, `bad`, must find a broken stamp in) and of it twice
    /// in one file (a capture appended to another: two runs), in pieces of 1 and 700 bytes.
    fn each_variant(
        name: &str,
        garble: impl Fn(&str) -> String,
        bad: fn(&[u8]) -> Vec<iosift_parsers::Diagnostic>,
        check: impl Fn(&std::path::Path, usize),
    ) {
        let path = std::path::PathBuf::from(format!("{}/samples/{name}", env!("CARGO_MANIFEST_DIR")));
        for piece in [1, 700, 5000] {
            check(&path, piece);
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let garbled = garble(&text);
        assert!(bad(garbled.as_bytes()).iter().any(|d| d.kind == iosift_parsers::DiagKind::BadTime));
        let dir = tempfile::tempdir().unwrap();
        for (k, body) in [garbled, format!("{text}{text}")].iter().enumerate() {
            let p = dir.path().join(format!("{k}-{}", path.file_name().unwrap().to_string_lossy()));
            std::fs::write(&p, body).unwrap();
            for piece in [1, 700] {
                check(&p, piece);
            }
        }
    }

    /// A drained read of the pidstat at `path` in pieces of `piece` bytes is the whole
    /// parse without its rows, with its diagnostics; reading it again hands the whole
    /// parse's rows, stamps repaired.
    fn same_pidstat(path: &std::path::Path, piece: usize) {
        let whole = iosift_parsers::pidstat::parse(&std::fs::read(path).unwrap());
        let (f, p, at) = drained_file(path, "pidstat", piece);
        let Some(Data::Pidstat(a)) = &f.data else { panic!("not a pidstat") };
        same_summary(&p.map(|_| a.clone()), &whole, &at);
        let b = &whole.value;
        assert!(a.rows.is_empty(), "{at}");
        // All but the rows and their summary: banners, tables, averages, layout, date lines.
        let bare = |x: &Pidstat| format!("{:?}", Pidstat { rows: Vec::new(), drained: None, ..x.clone() });
        assert_eq!(bare(a), bare(b), "{at}");
        let mut again = Vec::new();
        each_row_in(&f, a, |r| again.push(format!("{r:?}")), piece);
        let want: Vec<String> = b.rows.iter().map(|r| format!("{r:?}")).collect();
        assert!(again == want, "{at}: rows read again differ");
    }

    #[test]
    fn a_pidstat_read_without_its_rows_and_read_again_equals_the_whole_parse() {
        // A garbled time mid-file (`21:1x:yy` printed as `01:1x:yy` on every row of one
        // report): the first read repairs it from its run's series, and the rows read again
        // carry the repaired time.
        let garble = |text: &str| {
            let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("21:1")).collect();
            let stamp = &rows[rows.len() / 2][..8];
            text.replace(&format!("\n{stamp} "), &format!("\n0{} ", &stamp[1..]))
        };
        let bad = |b: &[u8]| iosift_parsers::pidstat::parse(b).diagnostics;
        each_variant("mariadb_fsync_durable/capture/pidstat-d-t-h.txt", garble, bad, same_pidstat);
    }

    /// A drained read of the vmstat at `path` in pieces of `piece` bytes is the whole parse
    /// without its rows; reading it again hands the whole parse's rows, stamps repaired.
    fn same_vmstat(path: &std::path::Path, piece: usize) {
        let whole = iosift_parsers::vmstat::parse(&std::fs::read(path).unwrap());
        let (f, p, at) = drained_file(path, "vmstat", piece);
        let Some(Data::Vmstat(a)) = &f.data else { panic!("not a vmstat") };
        same_summary(&p.map(|_| a.clone()), &whole, &at);
        let b = &whole.value;
        assert!(a.rows.is_empty(), "{at}");
        let bare = |x: &Vmstat| format!("{:?}", Vmstat { rows: Vec::new(), drained: None, ..x.clone() });
        assert_eq!(bare(a), bare(b), "{at}");
        let mut again = Vec::new();
        each_vmstat_in(&f, a, |k, r| again.push(format!("{k} {r:?}")), piece);
        let want: Vec<String> = b.rows.iter().enumerate().map(|(k, r)| format!("{k} {r:?}")).collect();
        assert_eq!(again, want, "{at}");
    }

    #[test]
    fn a_vmstat_read_without_its_rows_and_read_again_equals_the_whole_parse() {
        // A garbled stamp mid-file (`2026-11-29 21:10:5x` printed as `2026-11-29 01:10:5x`).
        let garble = |text: &str| {
            let stamps: Vec<&str> =
                text.lines().filter_map(|l| l.find("2026-11-29 21:").map(|i| &l[i..])).collect();
            let bad = stamps[stamps.len() / 2];
            text.replacen(bad, &bad.replace(" 21:", " 01:"), 1)
        };
        let bad = |b: &[u8]| iosift_parsers::vmstat::parse(b).diagnostics;
        each_variant("mariadb_fsync_durable/capture/vmstat-t.txt", garble, bad, same_vmstat);
    }
}
