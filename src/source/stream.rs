//! Streaming parse of a large file from disk: a perf script or decoded binlog
//! is fed to its parser's collector line by line; iostat, pidstat, vmstat, dool/dstat
//! CSV and `TS`-framed /proc series are read through a [`FileSource`] (fixed-size
//! reads, lines handed to the parser as they arrive). Memory depends on the records kept (distinct stacks,
//! transactions, report rows), not on the size of the file, and no whole-file
//! buffer is ever made.

use crate::bundle::Streamed;
use iosift_parsers::common::{Line, LineSource, SourceLine};
use iosift_parsers::{Data, DiagKind, Diagnostic, Parsed};
use std::io::{BufRead, BufReader, Read};

/// Most bytes a streamed iostat's parsed rows may hold: past it, reports are merged two to
/// one (and again) so that weeks of `iostat -x 1` stay within memory at a coarser interval
/// (`iosift_parsers::iostat_budget`; a diagnostic and the file's variant say so). A row is
/// about 300 bytes (33 `f64` values), so this holds the rows of about 450 MB of `iostat -x -t`
/// text of one device (a 200 MB file, 4.4 days at 1 s, keeps every report in ~110 MB).
pub const IOSTAT_ROW_BUDGET: usize = 256 << 20;

/// Most bytes a streamed pidstat's parsed rows may hold: past it, reports are merged two to
/// one (and again) as for iostat (`iosift_parsers::pidstat_budget`). About the rows of 80 MB
/// of `pidstat -d -t` text: a pidstat of days at 1 s becomes a coarser one, which the
/// analysis states; a 200 MB file took 745 MB.
pub const PIDSTAT_ROW_BUDGET: usize = 256 << 20;

/// Most bytes the snapshots of a streamed `TS` series (pt-stalk `meminfo`, `procvmstat`,
/// `diskstats`) may hold: past it, one snapshot in 2, 4, ... is kept
/// (`iosift_parsers::ts_budget`; a diagnostic and the file's variant say so). A 200 MB
/// `meminfo` (2.3 days at 1 s) holds about 180 MB, a 200 MB `diskstats` about 700 MB.
pub const TS_SNAPSHOT_BUDGET: usize = 256 << 20;

/// Size of one read from the file (and the least the buffer holds).
const CHUNK: usize = 1 << 20;

/// Most whitespace looked through to tell whether a line is the last with content.
const LOOKAHEAD: usize = 16 << 20;

/// Lines of a file (gzip-decoded when it is), read in [`CHUNK`]-sized reads into
/// one reused buffer: the same lines, numbers, cut and last-content flags as
/// [`iosift_parsers::common::SliceSource`] over the whole file.
pub struct FileSource {
    reader: Box<dyn Read>,
    buf: Vec<u8>,
    /// Start of the unread part of `buf`.
    pos: usize,
    /// End of the valid bytes of `buf`.
    end: usize,
    /// The reader is exhausted.
    eof: bool,
    no: usize,
    len: usize,
    /// Bytes asked for per read.
    chunk: usize,
    /// The read error that ended the input early, if any.
    pub error: Option<String>,
}

impl FileSource {
    /// Opens a streamed file.
    pub fn open(st: &Streamed) -> std::io::Result<Self> {
        Self::with_chunk(st, CHUNK)
    }

    /// Opens a streamed file, reading `chunk` bytes at a time (small in tests, to cut lines).
    pub fn with_chunk(st: &Streamed, chunk: usize) -> std::io::Result<Self> {
        let chunk = chunk.max(1);
        let file = std::fs::File::open(&st.path)?;
        let len = file.metadata().map(|m| m.len() as usize).unwrap_or(0);
        let reader: Box<dyn Read> =
            if st.gz { Box::new(flate2::read::MultiGzDecoder::new(file)) } else { Box::new(file) };
        Ok(FileSource {
            reader,
            buf: vec![0; chunk],
            pos: 0,
            end: 0,
            eof: false,
            no: 0,
            len,
            chunk,
            error: None,
        })
    }

    /// Reads more bytes after `end`, keeping `buf[pos..end]` (moved to the front).
    /// False at the end of the input.
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
            // A line longer than the buffer: grow it (the line must be whole).
            self.buf.resize(self.buf.len() * 2, 0);
        }
        loop {
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
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
}

impl LineSource for FileSource {
    fn next_line(&mut self) -> Option<SourceLine<'_>> {
        // Offsets are relative to `pos`: a refill moves `buf[pos..end]` to the front.
        let mut scanned = 0;
        let nl = loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[self.pos + scanned..self.end]) {
                break Some(scanned + i);
            }
            scanned = self.end - self.pos;
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
        Some(SourceLine { line: Line { no: self.no, bytes: line }, cut: nl.is_none(), last_content })
    }

    fn len_hint(&self) -> usize {
        self.len
    }
}

/// Feeds every line of the file to `feed`; returns the line count and a read error, if any.
fn for_each_line(st: &Streamed, mut feed: impl FnMut(usize, &[u8])) -> (usize, Option<String>) {
    let file = match std::fs::File::open(&st.path) {
        Ok(f) => f,
        Err(e) => return (0, Some(e.to_string())),
    };
    let reader: Box<dyn Read> =
        if st.gz { Box::new(flate2::read::MultiGzDecoder::new(file)) } else { Box::new(file) };
    let mut r = BufReader::with_capacity(1 << 20, reader);
    let mut buf = Vec::with_capacity(4096);
    let mut no = 0;
    loop {
        buf.clear();
        match r.read_until(b'\n', &mut buf) {
            Ok(0) => return (no, None),
            Ok(_) => {
                no += 1;
                let mut line = buf.as_slice();
                if let [head @ .., b'\n'] = line {
                    line = head;
                }
                if let [head @ .., b'\r'] = line {
                    line = head;
                }
                feed(no, line);
            }
            Err(e) => return (no, Some(e.to_string())),
        }
    }
}

/// Lines `a..=b` (1-based) of a streamed file, with their `\n`s (for evidence quotes).
pub fn line_range(st: &Streamed, a: usize, b: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let Ok(mut src) = FileSource::open(st) else { return out };
    while let Some(l) = src.next_line() {
        if l.line.no > b {
            break;
        }
        if l.line.no >= a {
            out.extend_from_slice(l.line.bytes);
            out.push(b'\n');
        }
    }
    out
}

/// Parses a streamed file with its format's line collector; returns its format id and
/// the parse. The bundle streams only formats that have a collector or read a
/// [`LineSource`] ([`crate::bundle::STREAMED`]);
/// any other id is reported, never parsed as something else.
pub fn parse(st: &Streamed) -> Option<(&'static str, Parsed<Data>)> {
    parse_with_chunk(st, CHUNK)
}

/// [`parse`], reading `chunk` bytes at a time.
fn parse_with_chunk(st: &Streamed, chunk: usize) -> Option<(&'static str, Parsed<Data>)> {
    let (parsed, err, lines): (Parsed<Data>, Option<String>, usize) = match st.format {
        "perf_script" => {
            let mut c = iosift_parsers::perf_script::Collector::new();
            let (n, err) = for_each_line(st, |no, l| c.feed_line(no, l));
            (c.finish().map(|v| Data::PerfScript(Box::new(v))), err, n)
        }
        "mysqlbinlog" => {
            let mut c = iosift_parsers::mysqlbinlog::Collector::new();
            let (n, err) = for_each_line(st, |no, l| c.feed_line(no, l));
            (c.finish().map(Data::Mysqlbinlog), err, n)
        }
        "iostat" | "pidstat" | "vmstat" | "dstat_csv" | "proc_meminfo" | "proc_vmstat" | "proc_diskstats" => {
            let mut src = match FileSource::with_chunk(st, chunk) {
                Ok(s) => s,
                Err(e) => {
                    let mut p = iosift_parsers::by_id(st.format)?.parse(b"");
                    p.diagnostics.push(Diagnostic::new(1, DiagKind::Truncated, format!("cannot read: {e}")));
                    return Some((st.format, p));
                }
            };
            use iosift_parsers::{
                dstat_csv, iostat, pidstat, proc_diskstats, proc_meminfo, proc_vmstat, vmstat,
            };
            let parsed = match st.format {
                "iostat" => iostat::parse_source_within(&mut src, IOSTAT_ROW_BUDGET).map(Data::Iostat),
                "pidstat" => pidstat::parse_source_within(&mut src, PIDSTAT_ROW_BUDGET).map(Data::Pidstat),
                "vmstat" => vmstat::parse_source(&mut src).map(Data::Vmstat),
                "dstat_csv" => dstat_csv::parse_source(&mut src).map(Data::DstatCsv),
                "proc_meminfo" => {
                    proc_meminfo::parse_source_within(&mut src, TS_SNAPSHOT_BUDGET).map(Data::ProcMeminfo)
                }
                "proc_vmstat" => {
                    proc_vmstat::parse_source_within(&mut src, TS_SNAPSHOT_BUDGET).map(Data::ProcVmstat)
                }
                _ => {
                    proc_diskstats::parse_source_within(&mut src, TS_SNAPSHOT_BUDGET).map(Data::ProcDiskstats)
                }
            };
            let n = parsed.lines;
            (parsed, src.error.take(), n)
        }
        _ => return None,
    };
    let mut parsed = parsed;
    parsed.lines = parsed.lines.max(lines);
    if let Some(e) = err {
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
        let st = Streamed { path: path.to_path_buf(), gz, format };
        let (_, streamed) = parse_with_chunk(&st, chunk).unwrap();
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
        for case in std::fs::read_dir(samples).unwrap().flatten() {
            let Ok(files) = std::fs::read_dir(case.path().join("capture")) else { continue };
            for f in files.flatten() {
                let name = f.file_name().to_string_lossy().into_owned();
                let format = match () {
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
            }
        }
        assert!(n >= 20, "{n} files");
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
        let st = Streamed { path: path.clone(), gz: true, format: "perf_script" };
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
}
