//! Reading directories, tar (plain or compressed, see `codec`) and zip inputs in place.
//! Entries with absolute paths, `..` components or links are never followed
//! or written anywhere: they are only read as data, and links are skipped
//! with a problem note. A large compressed tar is read as a stream, each member
//! straight into its own buffer; zip members that share data are refused
//! (`zip_members`).

mod zip_members;

use super::codec::{self, Codec, Decoded, Measured};
use super::{BundleError, InputFile, Limits, Problem, SERIES_STREAM_MIN_BYTES, Streamed, stream_min_bytes};
use iosift_parsers::common::decode::is_gzip;
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// Files and problems collected so far, with the limits being enforced.
pub(super) struct Accumulator<'l> {
    pub files: Vec<InputFile>,
    pub problems: Vec<Problem>,
    limits: &'l Limits,
    total: u64,
}

impl<'l> Accumulator<'l> {
    pub(super) fn new(limits: &'l Limits) -> Self {
        Accumulator { files: Vec::new(), problems: Vec::new(), limits, total: 0 }
    }

    fn remaining(&self) -> u64 {
        self.limits.max_total_bytes.saturating_sub(self.total)
    }

    fn problem(&mut self, name: &str, message: impl Into<String>) {
        self.problems.push(Problem { name: name.to_string(), message: message.into() });
    }

    /// Adds raw bytes found under `name`: decompresses gzip, descends into archives,
    /// strips a UTF-8 byte order mark. Plain files are kept as given (no copy).
    fn add(&mut self, name: &str, raw: Arc<[u8]>, depth: usize) -> Result<(), BundleError> {
        if self.files.len() >= self.limits.max_files {
            return Err(BundleError::Limit(format!(
                "more than {} files in the bundle (raise with --max-files)",
                self.limits.max_files
            )));
        }
        if raw.is_empty() {
            // Still listed as an input: an empty file named after a tool is that tool's output
            // (a run killed before its first line), which the inventory shows with 0 records.
            self.problem(name, "empty file (0 bytes): nothing to read");
        }
        let codec = Codec::sniff(&raw);
        let (data, gzipped): (Arc<[u8]>, bool) = match codec {
            Some(codec) => match self.decompress(name, codec, &raw, depth)? {
                Some(data) => (data, codec == Codec::Gzip),
                None => return Ok(()),
            },
            None => (raw, false),
        };
        if codec::is_tar(&data) {
            return self.add_tar(name, &data[..], data.len() as u64, depth);
        }
        if let Some(kind) = codec::unsupported_container(&data) {
            self.problem(
                name,
                format!("{kind}: not supported; unpack it and give iosift the files (or a .tar.gz/.zip)"),
            );
            return Ok(());
        }
        if data.starts_with(b"PK\x03\x04") || data.starts_with(b"PK\x05\x06") {
            return self.add_zip(name, &data, depth);
        }
        // UTF-16 (a capture saved by a Windows tool) is read as the UTF-8 it says.
        let data = match codec::decode_utf16(&data) {
            Some(utf8) => Arc::from(utf8),
            None => data,
        };
        // Only a file that was not decompressed: `sa.bin.gz` decodes to binary sar data.
        if codec.is_none()
            && let Some(kind) = codec::damaged_magic(name, &data)
        {
            self.problem(
                name,
                format!("named like a {kind} file but its first bytes are not {kind}'s: damaged at the start, read as it is"),
            );
        }
        // A UTF-8 byte order mark (Windows editors) hides the first line from every sniffer.
        let data = match data.strip_prefix(b"\xEF\xBB\xBF") {
            Some(rest) => Arc::from(rest),
            None => data,
        };
        self.total += data.len() as u64;
        if self.total > self.limits.max_total_bytes {
            return Err(BundleError::Limit(format!(
                "the bundle is larger than {} bytes decompressed (raise with --max-bytes)",
                self.limits.max_total_bytes
            )));
        }
        self.files.push(InputFile { name: name.to_string(), data, gzipped, stream: None });
        Ok(())
    }

    /// Decompresses a gzip, zstd, xz or bzip2 stream (`.gz`, `.tar.zst`, `.tar.xz`, `.bz2`...)
    /// within the size limit; a damaged stream keeps the part before the damage, with a problem.
    /// A tar larger than the first pass keeps is read from a second decoder as a stream.
    /// `None`: nothing more to add (a streamed tar was read, or the problem says why not).
    fn decompress(
        &mut self,
        name: &str,
        codec: Codec,
        raw: &[u8],
        depth: usize,
    ) -> Result<Option<Arc<[u8]>>, BundleError> {
        let remaining = self.remaining();
        let stream = match codec::check(codec, raw, remaining) {
            Ok(stream) => stream,
            Err(why) => {
                self.problem(name, why);
                return Ok(None);
            }
        };
        let measured = match stream.decoder() {
            Ok(d) => codec::measure(d, remaining),
            Err(e) => Measured::Whole { data: Vec::new(), damage: Some(e.to_string()) },
        };
        if let Measured::Counted { len, tar: true, damage } = &measured {
            if let Some(e) = damage {
                self.problem(name, damaged(codec, *len, e));
            }
            match stream.decoder() {
                // Cut where the first pass ended: the tar reader meets an end, not the damage again.
                Ok(d) => self.add_tar(name, d.take(*len), *len, depth)?,
                Err(e) => self
                    .problem(name, format!("corrupt {} stream: {e}; nothing could be read", codec.label())),
            }
            return Ok(None);
        }
        match measured.finish(|| stream.decoder()) {
            Decoded::Data { data, damage: None } => Ok(Some(data)),
            Decoded::Data { data, damage: Some(e) } if data.is_empty() => {
                self.problem(name, format!("corrupt {} stream: {e}; nothing could be read", codec.label()));
                Ok(None)
            }
            Decoded::Data { data, damage: Some(e) } => {
                self.problem(name, damaged(codec, data.len() as u64, &e));
                Ok(Some(data))
            }
            Decoded::TooLarge => Err(BundleError::Limit(format!(
                "{name}: decompressing would pass the total size limit ({remaining} bytes left of {}; raise with --max-bytes)",
                self.limits.max_total_bytes
            ))),
            Decoded::OutOfMemory { wanted } => {
                self.problem(
                    name,
                    format!(
                        "out of memory decompressing it ({wanted} bytes could not be allocated): not read"
                    ),
                );
                Ok(None)
            }
        }
    }

    fn nested(&mut self, name: &str, depth: usize) -> bool {
        if depth >= self.limits.max_depth {
            self.problem(
                name,
                format!(
                    "archive nested deeper than {} levels: not opened (raise with --max-depth)",
                    self.limits.max_depth
                ),
            );
            return false;
        }
        true
    }

    /// Reads the tar archive `reader` holds (in memory, or streamed from a decoder):
    /// each member into a buffer of its size, never more than `bound` (the archive's
    /// size: a header's size is untrusted).
    fn add_tar(
        &mut self,
        name: &str,
        reader: impl Read,
        bound: u64,
        depth: usize,
    ) -> Result<(), BundleError> {
        if !self.nested(name, depth) {
            return Ok(());
        }
        let mut ar = tar::Archive::new(reader);
        let entries = match ar.entries() {
            Ok(e) => e,
            Err(e) => {
                self.problem(name, format!("unreadable tar archive: {e}"));
                return Ok(());
            }
        };
        let mut seen = HashMap::new();
        for entry in entries {
            let mut entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    self.problem(name, format!("tar archive damaged, later entries lost: {e}"));
                    break;
                }
            };
            let inner = entry.path().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
            let label = self.unique_label(&mut seen, format!("{name}!{}", clean_member(&inner)));
            match entry.header().entry_type() {
                tar::EntryType::Regular | tar::EntryType::Continuous => {}
                tar::EntryType::Directory => continue,
                tar::EntryType::Symlink | tar::EntryType::Link => {
                    self.problem(&label, "link entry skipped (links in archives are never followed)");
                    continue;
                }
                other => {
                    self.problem(&label, format!("tar entry of type {other:?} skipped"));
                    continue;
                }
            }
            let size = entry.size();
            // A size past the archive's end is a cut archive or a damaged header, not a big
            // file: what is there is read (and noted "cut short"), never "raise --max-bytes".
            if size > self.remaining() && size <= bound {
                return Err(BundleError::Limit(format!(
                    "{label}: {size} bytes would pass the total size limit of {} bytes (raise with --max-bytes)",
                    self.limits.max_total_bytes
                )));
            }
            let (buf, error) = match codec::read_up_to(&mut entry, size.min(bound)) {
                Ok(read) => read,
                Err(wanted) => {
                    self.problem(&label, out_of_memory(wanted));
                    continue;
                }
            };
            match error {
                Some(e) => self.problem(&label, format!("cut short: {e}; the part read is analyzed")),
                None if (buf.len() as u64) < size => self.problem(
                    &label,
                    format!(
                        "cut short: {} of the {size} bytes its header announces; the part read is analyzed",
                        buf.len()
                    ),
                ),
                None => {}
            }
            self.add(&label, buf, depth + 1)?;
        }
        Ok(())
    }

    /// `label`, or `label#k` for the k-th copy of a name an archive holds more than
    /// once (each copy is read; a problem says which is which). `seen` holds the
    /// labels given and, for each, the next copy number to try.
    fn unique_label(&mut self, seen: &mut HashMap<String, usize>, label: String) -> String {
        let Some(&next) = seen.get(&label) else {
            seen.insert(label.clone(), 2);
            return label;
        };
        let mut k = next;
        while seen.contains_key(&format!("{label}#{k}")) {
            k += 1;
        }
        seen.insert(label.clone(), k + 1);
        let copy = format!("{label}#{k}");
        seen.insert(copy.clone(), 2);
        self.problem(
            &label,
            format!("the archive holds this name more than once: the copy number {k} is read as {copy}"),
        );
        copy
    }

    fn add_zip(&mut self, name: &str, data: &[u8], depth: usize) -> Result<(), BundleError> {
        if !self.nested(name, depth) {
            return Ok(());
        }
        let mut z = match zip::ZipArchive::new(std::io::Cursor::new(data)) {
            Ok(z) => z,
            Err(e) => {
                self.problem(name, format!("unreadable zip archive: {e}"));
                return Ok(());
            }
        };
        let (plan, note) = zip_members::plan(data, &z);
        if let Some(note) = note {
            self.problem(name, note);
        }
        let len = data.len() as u64;
        let spans: Vec<_> = plan
            .iter()
            .map(|source| match source {
                zip_members::Source::Index(i) => zip_members::span(&mut z, *i, len),
                zip_members::Source::Alone(record) => zip_members::alone(data, &z, record)
                    .ok()
                    .and_then(|mut a| zip_members::span(&mut a, 0, len)),
            })
            .collect();
        let overlapping = zip_members::overlapping(&spans);
        let mut run =
            ZipRun { name, data, depth, failed: Vec::new(), shared: Vec::new(), seen: HashMap::new() };
        for (source, overlaps) in plan.iter().zip(overlapping) {
            match source {
                zip_members::Source::Index(i) => self.zip_member(&mut run, &mut z, *i, overlaps)?,
                zip_members::Source::Alone(record) => match zip_members::alone(data, &z, record) {
                    Ok(mut a) => self.zip_member(&mut run, &mut a, 0, overlaps)?,
                    Err(e) => {
                        let member = clean_member(&zip_members::record_name(data, record));
                        let label = self.unique_label(&mut run.seen, format!("{name}!{member}"));
                        self.problem(&label, format!("unreadable zip member: {e}"));
                    }
                },
            }
        }
        // Members that fail for one reason make one problem naming them (an encrypted zip
        // printed 29 nameless "zip entry N unreadable" lines).
        for (why, members) in run.failed {
            let (label, message) = match members.as_slice() {
                [one] => (format!("{name}!{one}"), why),
                many => (name.to_string(), format!("{why}: {} members ({})", many.len(), name_list(many))),
            };
            self.problem(&label, message);
        }
        if !run.shared.is_empty() {
            self.problem(
                name,
                format!(
                    "{} members share their compressed data with another member (an overlapping-files zip bomb): not read ({})",
                    run.shared.len(),
                    name_list(&run.shared)
                ),
            );
        }
        Ok(())
    }

    /// Reads member `i` of `z` (the archive, or one holding a copy of a name it
    /// drops): refused when its data overlaps another member's or its dictionary is
    /// too large, decoded within the size limit otherwise.
    fn zip_member<R: Read + std::io::Seek>(
        &mut self,
        run: &mut ZipRun<'_>,
        z: &mut zip::ZipArchive<R>,
        i: usize,
        overlaps: bool,
    ) -> Result<(), BundleError> {
        let member = z.name_for_index(i).map_or_else(|| format!("(entry {i})"), clean_member);
        if overlaps {
            run.shared.push(member);
            return Ok(());
        }
        let raw = z.by_index_raw(i).ok().map(|f| (f.compression(), f.data_start(), f.compressed_size()));
        let f = match z.by_index(i) {
            Ok(f) => f,
            Err(e) => {
                let why = zip_failure(&e, raw.map(|r| r.0));
                match run.failed.iter_mut().find(|(w, _)| *w == why) {
                    Some((_, members)) => members.push(member),
                    None => run.failed.push((why, vec![member])),
                }
                return Ok(());
            }
        };
        if f.is_dir() {
            return Ok(());
        }
        let label = self.unique_label(&mut run.seen, format!("{}!{member}", run.name));
        if f.is_symlink() {
            self.problem(&label, "link entry skipped (links in archives are never followed)");
            return Ok(());
        }
        if let Some((method, start, size)) = raw {
            let start = usize::try_from(start).unwrap_or(usize::MAX).min(run.data.len());
            let end =
                usize::try_from(size).map_or(run.data.len(), |n| start.saturating_add(n).min(run.data.len()));
            if let Some(why) = codec::zip_member_refused(method, &run.data[start..end], self.remaining()) {
                self.problem(&label, why);
                return Ok(());
            }
        }
        let measured = codec::measure(f, self.remaining());
        let buf = match measured.finish(|| z.by_index(i).map_err(std::io::Error::from)) {
            Decoded::Data { data, damage: Some(e) } if data.is_empty() => {
                self.problem(&label, format!("unreadable zip member: {e}"));
                return Ok(());
            }
            Decoded::Data { data, damage } => {
                if let Some(e) = damage {
                    self.problem(&label, format!("cut short: {e}; the part read is analyzed"));
                }
                data
            }
            Decoded::TooLarge => {
                return Err(BundleError::Limit(format!(
                    "{label}: decompressing would pass the total size limit of {} bytes (raise with --max-bytes)",
                    self.limits.max_total_bytes
                )));
            }
            Decoded::OutOfMemory { wanted } => {
                self.problem(&label, out_of_memory(wanted));
                return Ok(());
            }
        };
        self.add(&label, buf, run.depth + 1)
    }
}

/// One zip archive being read: what its members share.
struct ZipRun<'a> {
    /// The archive's display name.
    name: &'a str,
    /// Its bytes.
    data: &'a [u8],
    /// Its nesting depth.
    depth: usize,
    /// Members that could not be opened, grouped by why.
    failed: Vec<(String, Vec<String>)>,
    /// Members refused because their data overlaps another member's.
    shared: Vec<String>,
    /// Labels given so far (a name twice is read as `name#2`).
    seen: HashMap<String, usize>,
}

/// "corrupt gzip stream after N bytes: ...": the bytes before the damage are kept.
fn damaged(codec: Codec, len: u64, e: &str) -> String {
    format!("corrupt {} stream after {len} bytes: {e}; the part before the damage is analyzed", codec.label())
}

/// The problem of a member whose buffer could not be allocated.
fn out_of_memory(wanted: usize) -> String {
    format!("out of memory reading it ({wanted} bytes could not be allocated): not read")
}

/// Why a zip member could not be opened, in words a user can act on.
fn zip_failure(e: &zip::result::ZipError, method: Option<zip::CompressionMethod>) -> String {
    use zip::result::ZipError;
    match e {
        ZipError::UnsupportedArchive(ZipError::PASSWORD_REQUIRED) => {
            "encrypted (password protected): not read; send the files without a password".to_string()
        }
        ZipError::UnsupportedArchive(_) if method.is_some() => {
            // Methods zip does not decode show as `Unsupported(id)` (APPNOTE 4.4.5 ids).
            let shown = method.map(|m| format!("{m:?}")).unwrap_or_default();
            let id = shown.strip_prefix("Unsupported(").and_then(|r| r.strip_suffix(')'));
            match id {
                Some("99") => {
                    "AES-encrypted (password protected): not read; send the files without a password"
                        .to_string()
                }
                Some(id) => {
                    let name = match id {
                        "6" => "implode (method 6)".to_string(),
                        "98" => "PPMd (method 98)".to_string(),
                        _ => format!("method {id}"),
                    };
                    format!(
                        "compressed with {name}, which iosift does not read: recompress with deflate, bzip2, xz or zstd"
                    )
                }
                None => format!("compressed with {shown}, which iosift does not read: {e}"),
            }
        }
        e => format!("unreadable zip member: {e}"),
    }
}

/// At most 10 names, then how many more (a problem stays one readable line).
fn name_list(names: &[String]) -> String {
    const SHOWN: usize = 10;
    let mut s = names.iter().take(SHOWN).map(String::as_str).collect::<Vec<_>>().join(", ");
    if names.len() > SHOWN {
        s.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    s
}

/// Member names are display labels only: strip leading `/` and `..` parts.
fn clean_member(inner: &str) -> String {
    inner
        .split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != "." && *p != "..")
        .collect::<Vec<_>>()
        .join("/")
}

/// Reads a directory tree (sorted, no symlinks followed outside files).
pub(super) fn read_dir(root: &Path, dir: &Path, acc: &mut Accumulator<'_>) -> Result<(), BundleError> {
    let mut entries: Vec<_> = match std::fs::read_dir(dir) {
        Ok(rd) => rd.filter_map(Result::ok).collect(),
        Err(e) => {
            acc.problem(&dir.display().to_string(), format!("cannot list directory: {e}"));
            return Ok(());
        }
    };
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let p = e.path();
        let ft = match e.file_type() {
            Ok(t) => t,
            Err(_) => continue,
        };
        let rel = p.strip_prefix(root).unwrap_or(&p).to_string_lossy().into_owned();
        if ft.is_symlink() {
            acc.problem(&rel, "symbolic link skipped");
        } else if ft.is_dir() && is_iosift_output(&p) {
            acc.problem(&rel, "an iosift report folder (it holds .iosift-report): not read as input");
        } else if ft.is_dir() {
            read_dir(root, &p, acc)?;
        } else if ft.is_file() {
            read_path(&p, &rel, 0, false, acc)?;
        } else {
            acc.problem(&rel, not_regular(&ft));
        }
    }
    Ok(())
}

/// A folder iosift wrote or is writing: it has the marker, or it is a staging
/// folder of a run (`.<name>.iosift-tmp-...`, `.<name>.iosift-old-...`).
pub(super) fn is_iosift_output(p: &Path) -> bool {
    let name = p.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    crate::outdir::is_report_folder(p)
        || (name.starts_with('.') && (name.contains(".iosift-tmp-") || name.contains(".iosift-old-")))
}

/// Reads one file from disk into the accumulator. It is opened without blocking and
/// what the opened handle is decides: a regular file is read (or streamed), a file without
/// a size (`/proc`) and a pipe named on the command line (`explicit`: `<(zcat x)`,
/// `/dev/stdin`) are read under deadlines, anything else (a FIFO put in a file's place,
/// a FIFO in a folder) is a problem.
pub(super) fn read_path(
    p: &Path,
    label: &str,
    depth: usize,
    explicit: bool,
    acc: &mut Accumulator<'_>,
) -> Result<(), BundleError> {
    use std::os::unix::fs::FileTypeExt;
    let cannot = |acc: &mut Accumulator<'_>, e: &dyn std::fmt::Display| {
        acc.problem(label, format!("cannot read {}: {e}", p.display()));
        Ok(())
    };
    let (file, meta) = match super::open::open(p) {
        Ok(x) => x,
        Err(super::open::OpenError::Special(ft)) => {
            acc.problem(label, not_regular(&ft));
            return Ok(());
        }
        Err(super::open::OpenError::Io(e)) => return cannot(acc, &e),
    };
    let len = meta.len();
    if meta.file_type().is_fifo() && explicit {
        return read_special(file, label, depth, (super::open::PIPE, false), acc);
    } else if !meta.is_file() {
        acc.problem(label, not_regular(&meta.file_type()));
        return Ok(());
    } else if len == 0 {
        return read_special(file, label, depth, (super::open::SIZELESS, true), acc);
    }
    if let Err(e) = super::open::set_blocking(&file) {
        return cannot(acc, &e);
    }
    let streamed =
        if len >= SERIES_STREAM_MIN_BYTES { streamable(&file, p, label, len, acc.remaining()) } else { None };
    // A streamed file counts like a read one: its size, or what it decompresses to.
    let (gz, counted) = streamed.as_ref().map_or((false, len), |(f, n)| (f.gzipped, *n));
    if counted > acc.remaining() {
        let max = acc.limits.max_total_bytes;
        return Err(BundleError::Limit(if gz {
            format!(
                "{label}: decompressing would pass the total size limit ({} bytes left of {max}; raise with --max-bytes)",
                acc.remaining()
            )
        } else {
            format!(
                "{label}: {len} bytes would pass the total size limit of {max} bytes (raise with --max-bytes)"
            )
        }));
    }
    if let Some((f, n)) = streamed {
        if acc.files.len() >= acc.limits.max_files {
            return Err(BundleError::Limit(format!(
                "more than {} files in the bundle (raise with --max-files)",
                acc.limits.max_files
            )));
        }
        acc.total += n;
        acc.files.push(f);
        return Ok(());
    }
    match read_limited(&file, len) {
        Ok((raw, grew)) => {
            if grew {
                acc.problem(label, format!("grew while it was read: its first {len} bytes are analyzed"));
            }
            acc.add(label, raw, depth)
        }
        Err(e) => cannot(acc, &e),
    }
}

/// Reads a file without a size (`regular`) or a pipe (`file`, opened `O_NONBLOCK`) within
/// `deadline` and the bytes left of the limit.
fn read_special(
    file: std::fs::File,
    label: &str,
    depth: usize,
    (deadline, regular): (super::open::Deadline, bool),
    acc: &mut Accumulator<'_>,
) -> Result<(), BundleError> {
    match super::open::read_special(file, acc.remaining(), deadline, regular) {
        Ok(raw) => acc.add(label, raw.into(), depth),
        Err(super::open::SpecialError::TooLarge) => Err(BundleError::Limit(format!(
            "{label}: more than {} bytes read, past the total size limit of {} bytes (raise with --max-bytes)",
            acc.remaining(),
            acc.limits.max_total_bytes
        ))),
        Err(e @ super::open::SpecialError::WouldBlock(_)) => {
            acc.problem(label, e.to_string());
            Ok(())
        }
        Err(e) => {
            acc.problem(label, format!("cannot read it: {e}"));
            Ok(())
        }
    }
}

/// Why a file that is not a regular file or folder is not read.
fn not_regular(ft: &std::fs::FileType) -> String {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_fifo() {
        return format!(
            "{}: not read inside a folder (reading it could block or never end; name it on the command line to read it)",
            super::open::kind(ft)
        );
    }
    format!(
        "{}: not read (only regular files and pipes are; reading it could block or never end)",
        super::open::kind(ft)
    )
}

/// The problem of a path given on the command line that is not read at all: a device
/// or socket (a pipe named there is read).
pub(super) fn not_regular_path(meta: &std::fs::Metadata) -> Option<String> {
    use std::os::unix::fs::FileTypeExt;
    let ft = meta.file_type();
    (!meta.is_file() && !meta.is_dir() && !ft.is_fifo()).then(|| not_regular(&ft))
}

/// Reads a regular file of `len` bytes (as `fstat` said) into one shared buffer without
/// a second copy; a file that grows while read is cut at `len` (the flag says so), one
/// that shrinks keeps what is there.
fn read_limited(f: &std::fs::File, len: u64) -> std::io::Result<(Arc<[u8]>, bool)> {
    use std::os::unix::fs::FileExt;
    let n = usize::try_from(len).map_err(std::io::Error::other)?;
    // One allocation, filled in place: a Vec turned into an Arc<[u8]> is copied, which
    // doubled the peak (a 2 GiB file needed 4.1 GB). Asked fallibly, so a file the
    // machine cannot hold is a problem naming it, not an abort.
    let mut buf = super::codec::zeroed(n).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::OutOfMemory,
            format!("out of memory: {n} bytes could not be allocated"),
        )
    })?;
    let slot = Arc::get_mut(&mut buf).ok_or_else(|| std::io::Error::other("buffer shared"))?;
    let mut got = 0;
    while got < n {
        match f.read_at(&mut slot[got..], got as u64) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    if got < n {
        // Shrank while read: keep what is there.
        return Ok((Arc::from(&buf[..got]), false));
    }
    let mut probe = [0u8; 1];
    let grew = f.read_at(&mut probe, len).is_ok_and(|k| k > 0);
    Ok((buf, grew))
}

/// A large file of a streamed format (perf script, decoded binlog, iostat, pidstat, ...:
/// [`stream_min_bytes`]) is streamed: only its head is read here. Its format is the one
/// detection would choose (the first format sure of the head), so streaming never
/// changes what a file is read as. Returns it with the bytes it counts against the
/// limit: its size, or, gzipped, what it decompresses to (decoded here without being
/// kept, and only up to `limit + 1` bytes).
fn streamable(file: &std::fs::File, p: &Path, label: &str, len: u64, limit: u64) -> Option<(InputFile, u64)> {
    use std::os::unix::fs::FileExt;
    let mut head = vec![0u8; 64 * 1024];
    let n = file.read_at(&mut head, 0).ok()?;
    head.truncate(n);
    let gz = is_gzip(&head);
    let mut dec = None;
    if gz {
        let mut d = flate2::read::MultiGzDecoder::new(std::io::Read::take(Positioned(file, 0), len));
        let mut h = vec![0u8; 64 * 1024];
        let got = fill(&mut d, &mut h);
        h.truncate(got);
        head = h;
        dec = Some(d);
    }
    let sure = iosift_parsers::FORMATS.iter().find(|f| f.sniff(&head) == iosift_parsers::Sniff::Yes)?;
    let format = sure.id;
    stream_min_bytes(format).filter(|min| len >= *min)?;
    let counted = match dec {
        Some(mut d) => {
            let mut sink = vec![0u8; 64 * 1024];
            let mut total = head.len() as u64;
            while total <= limit {
                match fill(&mut d, &mut sink) {
                    0 => break,
                    k => total += k as u64,
                }
            }
            total
        }
        None => len,
    };
    let f = InputFile {
        name: label.to_string(),
        data: head.into(),
        gzipped: gz,
        stream: Some(Streamed { path: p.to_path_buf(), gz, format, len }),
    };
    Some((f, counted))
}

/// Reads until `buf` is full, the end or an error (a damaged stream ends what is read;
/// the parse says so); returns the bytes read.
fn fill(r: &mut impl Read, buf: &mut [u8]) -> usize {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    got
}

/// Reads a file from an offset on with positional reads (the handle's own position is
/// never used).
struct Positioned<'f>(&'f std::fs::File, u64);

impl Read for Positioned<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = std::os::unix::fs::FileExt::read_at(self.0, buf, self.1)?;
        self.1 += k as u64;
        Ok(k)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn a_fifo_put_in_a_files_place_is_refused_not_waited_on() {
        // The folder listed a regular file; what is opened is a FIFO nobody writes to.
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&p).status().unwrap().success());
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let limits = super::super::Limits::default();
            let mut acc = super::Accumulator::new(&limits);
            let r = super::read_path(&p, "fifo", 0, false, &mut acc);
            let _ = tx.send((r.is_ok(), acc.files.len(), acc.problems));
        });
        let (ok, files, problems) = rx.recv_timeout(Duration::from_secs(20)).expect("the read blocked");
        assert!(ok && files == 0, "{problems:?}");
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].message.starts_with("a named pipe (FIFO): not read inside a folder"),
            "{problems:?}"
        );
    }
}
