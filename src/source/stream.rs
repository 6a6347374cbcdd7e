//! Streaming parse of a large file from disk: a perf script or decoded binlog
//! is fed to its parser's collector line by line; iostat, pidstat, vmstat, dool/dstat
//! CSV and `TS`-framed /proc series are read through a [`FileSource`] (fixed-size
//! reads, lines handed to the parser as they arrive). Memory depends on the records kept (distinct stacks,
//! transactions, report rows), not on the size of the file, and no whole-file
//! buffer is ever made.

use crate::bundle::Streamed;
use iosift_parsers::common::{Line, LineSource, SourceLine};
use iosift_parsers::{Data, DiagKind, Diagnostic, Parsed};
use std::io::Read;

/// Most bytes a streamed iostat's parsed rows may hold: past it, reports are merged two to
/// one (and again) so that weeks of `iostat -x 1` stay within memory at a coarser interval
/// (`iosift_parsers::iostat_budget`; a diagnostic and the file's variant say so). A row is
/// about 300 bytes (33 `f64` values), so this holds the rows of about 450 MB of `iostat -x -t`
/// text of one device (a 200 MB file, 4.4 days at 1 s, keeps every report in ~110 MB).
/// Only a file the pieces cannot read is held so: the others keep no rows (`super::replay`).
pub(crate) const IOSTAT_ROW_BUDGET: usize = 256 << 20;

/// Most bytes a streamed pidstat's parsed rows may hold: past it, reports are merged two to
/// one (and again) as for iostat (`iosift_parsers::pidstat::budget`). About the rows of 80 MB
/// of `pidstat -d -t` text: a pidstat of days at 1 s becomes a coarser one, which the
/// analysis states; a 200 MB file took 745 MB. Only a file the pieces cannot read is held
/// so: the others keep no rows (`super::replay`).
pub(crate) const PIDSTAT_ROW_BUDGET: usize = 256 << 20;

/// Most bytes the snapshots of a streamed `TS` series (pt-stalk `meminfo`, `procvmstat`,
/// `diskstats`) may hold: past it, one snapshot in 2, 4, ... is kept
/// (`iosift_parsers::procfs::ts_budget`; a diagnostic and the file's variant say so). A 200 MB
/// `meminfo` (2.3 days at 1 s) holds about 180 MB, a 200 MB `diskstats` about 700 MB.
pub(crate) const TS_SNAPSHOT_BUDGET: usize = 256 << 20;

/// Size of one read from the file (and the least the buffer holds).
const CHUNK: usize = 1 << 20;

/// Most whitespace looked through to tell whether a line is the last with content.
const LOOKAHEAD: usize = 16 << 20;

/// Longest line held: a longer one (a run of NULs where a crashed writer left a hole, a
/// binary file behind a text head) is skipped to its newline with one diagnostic, and the
/// rest of the file is read. The buffer never grows past about twice this plus [`LOOKAHEAD`].
pub(crate) const MAX_LINE: usize = 16 << 20;
const _: () = assert!(MAX_LINE == super::pieces::MAX_LINE);

/// Lines of a file (gzip-decoded when it is), read in [`CHUNK`]-sized reads into
/// one reused buffer: the same lines, numbers, cut and last-content flags as
/// [`iosift_parsers::common::SliceSource`] over the whole file, but for lines longer than
/// [`MAX_LINE`], which are skipped and listed in `long_lines`. The file is read up to the
/// size it had when the bundle was listed ([`Streamed::len`]).
pub(crate) struct FileSource {
    reader: Box<dyn Read>,
    /// The file, to tell at its end whether it grew while read.
    file: std::fs::File,
    buf: Vec<u8>,
    /// Start of the unread part of `buf`.
    pos: usize,
    /// End of the valid bytes of `buf`.
    end: usize,
    /// The reader is exhausted.
    eof: bool,
    no: usize,
    /// Bytes on disk read (the size when listed).
    len: u64,
    /// Bytes asked for per read.
    chunk: usize,
    /// Longest line kept.
    max_line: usize,
    /// Lines longer than `max_line`, skipped: (line number, bytes).
    pub long_lines: Vec<(usize, u64)>,
    /// The file was longer at its end than when listed: only its first `len` bytes were read.
    pub grew: bool,
    /// The read error that ended the input early, if any.
    pub error: Option<String>,
}

impl FileSource {
    /// Opens a streamed file.
    pub(crate) fn open(st: &Streamed) -> std::io::Result<Self> {
        Self::with_limits(st, CHUNK, MAX_LINE)
    }

    /// Opens a streamed file, reading `chunk` bytes at a time (small in tests, to cut lines)
    /// and skipping lines longer than `max_line`. The file must still be a regular file.
    pub(crate) fn with_limits(st: &Streamed, chunk: usize, max_line: usize) -> std::io::Result<Self> {
        let chunk = chunk.max(1);
        let file = crate::bundle::open_regular(&st.path)?;
        let body = file.try_clone()?.take(st.len);
        let reader: Box<dyn Read> =
            if st.gz { Box::new(flate2::read::MultiGzDecoder::new(body)) } else { Box::new(body) };
        Ok(FileSource {
            reader,
            file,
            buf: vec![0; chunk],
            pos: 0,
            end: 0,
            eof: false,
            no: 0,
            len: st.len,
            chunk,
            max_line,
            long_lines: Vec::new(),
            grew: false,
            error: None,
        })
    }

    /// Lines read so far, skipped ones included.
    pub(crate) fn lines(&self) -> usize {
        self.no
    }

    /// Reads more bytes after `end`, keeping `buf[pos..end]` (moved to the front).
    /// False at the end of the input (or when the buffer cannot grow: `error` says so).
    fn refill(&mut self) -> bool {
        if self.eof {
            return false;
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
        }
        if self.buf.len() - self.end < self.chunk.div_ceil(2) {
            // A line longer than the buffer: grow it (the line must be whole), fallibly.
            let more = self.buf.len();
            if self.buf.try_reserve_exact(more).is_err() {
                self.error = Some(format!(
                    "out of memory: a line buffer of {} bytes could not be allocated",
                    self.buf.len() + more
                ));
                self.eof = true;
                return false;
            }
            self.buf.resize(self.buf.len() + more, 0);
        }
        loop {
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    self.grew = self.file.metadata().is_ok_and(|m| m.len() > self.len);
                    return false;
                }
                Ok(k) => {
                    self.end += k;
                    return true;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.error = Some(e.to_string());
                    self.eof = true;
                    return false;
                }
            }
        }
    }

    /// Skips a line found longer than `max_line` before its end (its start is
    /// `buf[pos..end]`): reads on to its newline, holding nothing.
    fn skip_line(&mut self) {
        let mut skipped = (self.end - self.pos) as u64;
        self.pos = self.end;
        while self.refill() {
            match memchr::memchr(b'\n', &self.buf[self.pos..self.end]) {
                Some(i) => {
                    skipped += i as u64;
                    self.pos += i + 1;
                    break;
                }
                None => {
                    skipped += (self.end - self.pos) as u64;
                    self.pos = self.end;
                }
            }
        }
        self.no += 1;
        self.long_lines.push((self.no, skipped));
    }

    /// The diagnostics of what the reader itself met: lines skipped for their length, a
    /// file that grew while read.
    fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut out: Vec<Diagnostic> = self
            .long_lines
            .iter()
            .map(|&(no, n)| {
                Diagnostic::new(
                    no,
                    DiagKind::Malformed,
                    format!(
                        "line of {n} bytes, longer than the {} bytes a line may have: skipped",
                        self.max_line
                    ),
                )
            })
            .collect();
        if self.grew {
            out.push(Diagnostic::new(
                self.no + 1,
                DiagKind::Truncated,
                format!("grew while it was read: its first {} bytes are analyzed", self.len),
            ));
        }
        out
    }
}

impl LineSource for FileSource {
    fn next_line(&mut self) -> Option<SourceLine<'_>> {
        loop {
            // Offsets are relative to `pos`: a refill moves `buf[pos..end]` to the front.
            let mut scanned = 0;
            let nl = loop {
                if let Some(i) = memchr::memchr(b'\n', &self.buf[self.pos + scanned..self.end]) {
                    break Some(scanned + i);
                }
                scanned = self.end - self.pos;
                if scanned > self.max_line {
                    self.skip_line();
                    scanned = 0;
                    continue;
                }
                if !self.refill() {
                    break None;
                }
            };
            let avail = self.end - self.pos;
            if nl.is_none() && avail == 0 {
                return None;
            }
            let stop = nl.unwrap_or(avail);
            let next = nl.map_or(avail, |i| i + 1);
            if stop > self.max_line {
                // Longer than the cap, but whole in the buffer: skipped all the same.
                self.pos += next;
                self.no += 1;
                self.long_lines.push((self.no, stop as u64));
                continue;
            }
            // The last line with content? Look ahead (reading more) past whitespace; a
            // hostile run of more than LOOKAHEAD bytes of whitespace is taken as content.
            let has = self.buf[self.pos..self.pos + stop].iter().any(|b| !b.is_ascii_whitespace());
            let mut last_content = false;
            if has {
                let mut at = next;
                loop {
                    let rest = &self.buf[self.pos..self.end];
                    if iosift_parsers::common::lines::next_content(rest, at) < rest.len()
                        || rest.len() - next > LOOKAHEAD
                    {
                        break;
                    }
                    at = rest.len();
                    if !self.refill() {
                        last_content = true;
                        break;
                    }
                }
            }
            let start = self.pos;
            self.pos += next;
            self.no += 1;
            let mut line = &self.buf[start..start + stop];
            if let [head @ .., b'\r'] = line {
                line = head;
            }
            return Some(SourceLine {
                line: Line { no: self.no, bytes: line },
                cut: nl.is_none(),
                last_content,
            });
        }
    }

    fn len_hint(&self) -> usize {
        usize::try_from(self.len).unwrap_or(usize::MAX)
    }
}

/// Lines `a..=b` (1-based) of a streamed file, with their `\n`s (for evidence quotes);
/// a line skipped for its length is an empty line, so that the numbers still hold.
pub(crate) fn line_range(st: &Streamed, a: usize, b: usize) -> Vec<u8> {
    match FileSource::open(st) {
        Ok(src) => lines_of(src, a, b),
        Err(_) => Vec::new(),
    }
}

/// [`line_range`] of an open source.
fn lines_of(mut src: FileSource, a: usize, b: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut next = a;
    while let Some(l) = src.next_line() {
        if l.line.no > b {
            break;
        }
        if l.line.no >= a {
            out.resize(out.len() + (l.line.no - next), b'\n');
            out.extend_from_slice(l.line.bytes);
            out.push(b'\n');
            next = l.line.no + 1;
        }
    }
    out
}

/// Parses a streamed file with its format's line collector; returns its format id and
/// the parse. The bundle streams only the formats the registry gives a
/// [`iosift_parsers::Stream`] ([`crate::bundle::stream_min_bytes`]);
/// any other id is reported, never parsed as something else.
pub(crate) fn parse(st: &Streamed) -> Option<(&'static str, Parsed<Data>)> {
    // An iostat or a pidstat keeps no rows: each visit reads it again (`super::replay`).
    if let Some(p) = super::replay::parse(st) {
        return Some((st.format, p));
    }
    if let Some(p) = super::pieces::parse(st, &budgets()) {
        return Some((st.format, p));
    }
    parse_with(st, CHUNK, MAX_LINE)
}

/// The memory budgets of streamed series.
pub(crate) fn budgets() -> iosift_parsers::Budgets {
    iosift_parsers::Budgets {
        iostat_rows: IOSTAT_ROW_BUDGET,
        pidstat_rows: PIDSTAT_ROW_BUDGET,
        snapshots: TS_SNAPSHOT_BUDGET,
    }
}

/// [`parse`] on one thread, reading `chunk` bytes at a time and skipping lines longer than `max_line`.
fn parse_with(st: &Streamed, chunk: usize, max_line: usize) -> Option<(&'static str, Parsed<Data>)> {
    parse_within(st, chunk, max_line, &budgets())
}

/// [`parse_with`] within `budgets`.
pub(super) fn parse_within(
    st: &Streamed,
    chunk: usize,
    max_line: usize,
    budgets: &iosift_parsers::Budgets,
) -> Option<(&'static str, Parsed<Data>)> {
    let mut src = match FileSource::with_limits(st, chunk, max_line) {
        Ok(s) => s,
        Err(e) => {
            let mut p = iosift_parsers::by_id(st.format)?.parse(b"");
            p.diagnostics.push(Diagnostic::new(1, DiagKind::Truncated, format!("cannot read: {e}")));
            return Some((st.format, p));
        }
    };
    let src = &mut src;
    let mut parsed = iosift_parsers::by_id(st.format)?.extra.stream?.parse(src, budgets);
    let lines = src.lines();
    parsed.lines = parsed.lines.max(lines);
    parsed.skipped_lines += src.long_lines.len();
    let own = src.diagnostics();
    if !own.is_empty() {
        // The reader's own diagnostics in line order among the parser's.
        parsed.diagnostics.extend(own);
        parsed.diagnostics.sort_by_key(|d| d.line);
    }
    if let Some(e) = src.error.take() {
        parsed.diagnostics.push(Diagnostic::new(
            lines + 1,
            DiagKind::Truncated,
            format!("reading stopped: {e}"),
        ));
    }
    Some((st.format, parsed))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Streamed (in reads of `chunk` bytes) and whole-file parses of `path` as `format` agree.
    fn same_parse(path: &std::path::Path, format: &'static str, chunk: usize) {
        let gz = path.extension().is_some_and(|e| e == "gz");
        let len = std::fs::metadata(path).unwrap().len();
        let st = Streamed { path: path.to_path_buf(), gz, format, len };
        let (_, streamed) = parse_with(&st, chunk, MAX_LINE).unwrap();
        let raw = std::fs::read(path).unwrap();
        let bytes = iosift_parsers::common::decode::maybe_gunzip(&raw, 1 << 30).unwrap();
        let whole = iosift_parsers::by_id(format).unwrap().parse(&bytes);
        let at = format!("{} (chunk {chunk})", path.display());
        assert_eq!(format!("{:?}", streamed.value), format!("{:?}", whole.value), "{at}");
        assert_eq!(streamed.diagnostics, whole.diagnostics, "{at}");
        assert_eq!((streamed.lines, streamed.skipped_lines), (whole.lines, whole.skipped_lines), "{at}");
    }

    #[test]
    fn streamed_series_equal_whole_file_parses() {
        let samples = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/samples"));
        let mut n = 0;
        let mut of: std::collections::BTreeMap<&str, usize> = Default::default();
        for case in std::fs::read_dir(samples).unwrap().flatten() {
            let Ok(files) = std::fs::read_dir(case.path().join("capture")) else { continue };
            for f in files.flatten() {
                let name = f.file_name().to_string_lossy().into_owned();
                let format = match () {
                    _ if name.starts_with("sar_") => "sar",
                    // `mpstat -o JSON` too: gathered and parsed whole by the stream.
                    _ if name.starts_with("mpstat") || name.contains("-mpstat") => "mpstat",
                    _ if name.contains("json") => continue,
                    _ if name.starts_with("iostat") => "iostat",
                    _ if name.starts_with("pidstat") => "pidstat",
                    _ if name.starts_with("vmstat") => "vmstat",
                    _ if name.ends_with("-meminfo") => "proc_meminfo",
                    _ if name.ends_with("-procvmstat") => "proc_vmstat",
                    _ if name.ends_with("-diskstats") => "proc_diskstats",
                    _ => continue,
                };
                for chunk in [CHUNK, 777] {
                    same_parse(&f.path(), format, chunk);
                }
                n += 1;
                *of.entry(format).or_default() += 1;
            }
        }
        assert!(n >= 20, "{n} files");
        for format in ["sar", "mpstat"] {
            assert!(of.get(format).is_some_and(|n| *n >= 5), "{of:?}");
        }
    }

    #[test]
    fn streamed_dstat_text_equals_whole_file_parses() {
        let fixtures =
            std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/parsers/tests/fixtures/dstat"));
        let mut n = 0;
        for f in std::fs::read_dir(fixtures).unwrap().flatten() {
            if f.path().extension().is_some_and(|e| e == "txt") {
                for chunk in [CHUNK, 777] {
                    same_parse(&f.path(), "dstat_text", chunk);
                }
                n += 1;
            }
        }
        assert!(n >= 5, "{n} dstat text files");
    }

    #[test]
    fn streamed_cut_and_odd_inputs_equal_whole_file_parses() {
        let dir = std::env::temp_dir().join(format!("iosift-stream-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let iostat = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/samples/mariadb_fsync_durable/capture/iostat-x-t.txt"
        ))
        .unwrap();
        let pidstat = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/samples/mariadb_fsync_durable/capture/pidstat-d-t-h.txt"
        ))
        .unwrap();
        let ts =
            |name: &str| std::fs::read(format!("{}/samples/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let meminfo = ts("pt_stalk_mariadb/capture/2026_12_01_19_14_22-meminfo");
        let vmstat = ts("pt_stalk_mariadb/capture/2026_12_01_19_14_22-procvmstat");
        let disk = ts("pt_stalk_mariadb/capture/2026_12_01_19_14_22-diskstats");
        let vmstat_t = ts("mariadb_fsync_durable/capture/vmstat-t.txt");
        let fixture = |name: &str| {
            std::fs::read(format!("{}/parsers/tests/fixtures/dstat/{name}", env!("CARGO_MANIFEST_DIR")))
                .unwrap()
        };
        let (dool_append, dool_bits) = (fixture("dool_append.csv"), fixture("dool_epoch_bits.csv"));
        // A bad TS line, blank lines before the first TS, a data-first (TS-after) file.
        let mut odd_ts = b"\n\n".to_vec();
        odd_ts.extend_from_slice(&meminfo);
        odd_ts.extend_from_slice(b"TS 17x\nMemTotal: 1 kB\nbad line\n");
        let mut data_first = b"MemTotal: 5 kB\nDirty: 1 kB\n".to_vec();
        data_first.extend_from_slice(&meminfo);
        for (format, text) in [
            ("iostat", &iostat),
            ("pidstat", &pidstat),
            ("proc_meminfo", &meminfo),
            ("proc_meminfo", &odd_ts),
            ("proc_meminfo", &data_first),
            ("proc_vmstat", &vmstat),
            ("proc_diskstats", &disk),
            ("vmstat", &vmstat_t),
            ("dstat_csv", &dool_append),
            ("dstat_csv", &dool_bits),
        ] {
            let cut = &text[..text.len() * 2 / 3];
            let crlf: Vec<u8> =
                text.iter().flat_map(|&b| if b == b'\n' { vec![b'\r', b'\n'] } else { vec![b] }).collect();
            let mut trailing = cut.to_vec();
            trailing.extend_from_slice(b"\n \n\n\t\n");
            let mut long = text[..2000.min(text.len())].to_vec();
            long.extend(std::iter::repeat_n(b'x', 5000));
            long.extend_from_slice(&text[2000.min(text.len())..]);
            for (k, body) in
                [cut.to_vec(), crlf, trailing, long, Vec::new(), b"\n\n".to_vec()].iter().enumerate()
            {
                let p = dir.join(format!("{format}-{}-{k}.txt", text.len()));
                std::fs::write(&p, body).unwrap();
                for chunk in [CHUNK, 64, 1] {
                    same_parse(&p, format, chunk);
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn streaming_equals_in_memory_parse() {
        let path = std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/samples/mariadb_fsync_durable/capture/perf-profile.script.txt.gz"
        ));
        let len = std::fs::metadata(&path).unwrap().len();
        let st = Streamed { path: path.clone(), gz: true, format: "perf_script", len };
        let (id, streamed) = parse(&st).unwrap();
        assert_eq!(id, "perf_script");
        let raw = std::fs::read(&path).unwrap();
        let bytes = iosift_parsers::common::decode::maybe_gunzip(&raw, 1 << 30).unwrap();
        let whole = iosift_parsers::by_id("perf_script").unwrap().parse(&bytes);
        let (Data::PerfScript(a), Data::PerfScript(b)) = (&streamed.value, &whole.value) else { panic!() };
        assert!(a.samples > 500, "{}", a.samples);
        assert_eq!(a.samples, b.samples);
        assert_eq!(a.collapsed, b.collapsed);
        assert_eq!(streamed.lines, whole.lines);
        assert_eq!(streamed.diagnostics, whole.diagnostics);
    }

    /// A plain file written to a temporary folder, as a [`Streamed`] of `format`.
    fn streamed(dir: &tempfile::TempDir, body: &[u8], format: &'static str) -> Streamed {
        let path = dir.path().join("f.txt");
        std::fs::write(&path, body).unwrap();
        Streamed { path, gz: false, format, len: body.len() as u64 }
    }

    #[test]
    fn lines_over_the_cap_are_skipped_to_their_newline_and_the_rest_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let long = vec![0u8; 5000];
        let body = [b"a\n".as_slice(), &long, b"\r\nb\n", &[b'x'; 1000], b"\n", &long].concat();
        let st = streamed(&dir, &body, "vmstat");
        for chunk in [CHUNK, 64, 1] {
            let mut src = FileSource::with_limits(&st, chunk, 1000).unwrap();
            let mut got = Vec::new();
            while let Some(l) = src.next_line() {
                got.push((l.line.no, String::from_utf8_lossy(l.line.bytes).into_owned()));
            }
            // A line of exactly the cap is kept; the one cut by the end of the file is skipped too.
            let want = vec![(1, "a".to_string()), (3, "b".to_string()), (4, "x".repeat(1000))];
            assert_eq!(got, want, "chunk {chunk}");
            assert_eq!(src.long_lines, [(2, 5001), (5, 5000)], "chunk {chunk} (the \\r is the line's)");
            assert_eq!((src.lines(), src.error.as_deref(), src.grew), (5, None, false));
        }
        // Evidence quotes keep the numbers: the skipped line is an empty one.
        let quoted = lines_of(FileSource::with_limits(&st, 64, 1000).unwrap(), 1, 3);
        assert_eq!(String::from_utf8_lossy(&quoted), "a\n\nb\n");
    }

    #[test]
    fn a_long_line_in_a_series_is_one_diagnostic_and_the_reports_after_it_are_kept() {
        let text = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/samples/mariadb_fsync_durable/capture/iostat-x-t.txt"
        ))
        .unwrap();
        // After the first report's blank line: a run of NULs where a writer left a hole.
        let at = text.windows(2).position(|w| w == b"\n\n").unwrap() + 2;
        let at = at + text[at..].windows(2).position(|w| w == b"\n\n").unwrap() + 2;
        let no = text[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        let body = [&text[..at], &[0u8; 3000][..], b"\n", &text[at..]].concat();
        let dir = tempfile::tempdir().unwrap();
        let st = streamed(&dir, &body, "iostat");
        let whole =
            iosift_parsers::by_id("iostat").unwrap().parse(&[&text[..at], b"\n", &text[at..]].concat());
        for chunk in [CHUNK, 64] {
            let (_, p) = parse_with(&st, chunk, 2048).unwrap();
            assert_eq!(format!("{:?}", p.value), format!("{:?}", whole.value), "chunk {chunk}");
            let d: Vec<_> = p.diagnostics.iter().filter(|d| !whole.diagnostics.contains(d)).collect();
            assert_eq!(d.len(), 1, "{d:?}");
            assert_eq!((d[0].line, d[0].kind), (no, DiagKind::Malformed));
            assert_eq!(d[0].text, "line of 3000 bytes, longer than the 2048 bytes a line may have: skipped");
            assert_eq!(p.skipped_lines, whole.skipped_lines + 1);
            assert_eq!(p.lines, whole.lines);
        }
    }

    #[test]
    fn a_perf_script_line_over_the_cap_is_skipped_too() {
        let dir = tempfile::tempdir().unwrap();
        let body =
            [b"mysqld 1 [000] 1.0: 1 cycles:\n\tffff f (k)\n\n".as_slice(), &[b'z'; 3000], b"\n"].concat();
        let st = streamed(&dir, &body, "perf_script");
        let (_, p) = parse_with(&st, 64, 2048).unwrap();
        assert_eq!(p.lines, 4);
        let long = p.diagnostics.iter().find(|d| d.line == 4).expect("the long line's diagnostic");
        assert_eq!(long.text, "line of 3000 bytes, longer than the 2048 bytes a line may have: skipped");
    }

    #[test]
    fn a_file_longer_than_when_listed_is_read_up_to_then() {
        let text = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/samples/mariadb_fsync_durable/capture/iostat-x-t.txt"
        ))
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut st = streamed(&dir, &text, "iostat");
        // Listed when it held its first half (up to a report's end); written on since.
        let half = text[..text.len() / 2].windows(2).rposition(|w| w == b"\n\n").unwrap() + 2;
        st.len = half as u64;
        let (_, p) = parse_with(&st, CHUNK, MAX_LINE).unwrap();
        let first = iosift_parsers::by_id("iostat").unwrap().parse(&text[..half]);
        assert_eq!(format!("{:?}", p.value), format!("{:?}", first.value));
        let grew = p.diagnostics.last().unwrap();
        assert_eq!(grew.kind, DiagKind::Truncated);
        assert_eq!(grew.text, format!("grew while it was read: its first {half} bytes are analyzed"));
    }
}
