//! Compressed streams customers send (gzip, zstd, xz, bzip2), recognised by their
//! magic bytes and decoded within a byte limit; archive and compression formats
//! iosift does not read are named, never "not recognised as any format".
//!
//! Decoding never trusts a header: dictionaries and windows are checked before a
//! decoder allocates them (`window`), and output is counted as it streams. A first
//! pass keeps up to 32 MiB and only counts the rest, so a bomb stops at the limit
//! with that much memory; a larger stream is then decoded again into one buffer of
//! its exact size. An allocation the machine cannot give is a problem, not an abort.

mod window;

use std::io::Read;
use std::ops::Range;
use std::sync::Arc;

/// A compression recognised by its magic bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Codec {
    /// `1f 8b` (`.gz`, `.tgz`).
    Gzip,
    /// `28 b5 2f fd` (`.zst`, `.tar.zst`).
    Zstd,
    /// `fd 37 7a 58 5a 00` (`.xz`, `.tar.xz`).
    Xz,
    /// `BZh1`..`BZh9` then the block magic `31 41 59 26 53 59` (`.bz2`, `.tar.bz2`).
    Bzip2,
}

impl Codec {
    /// The compression `data` starts with, if any.
    pub(super) fn sniff(data: &[u8]) -> Option<Codec> {
        if data.starts_with(b"\x1f\x8b") {
            Some(Codec::Gzip)
        } else if data.starts_with(b"\x28\xB5\x2F\xFD") {
            Some(Codec::Zstd)
        } else if data.starts_with(b"\xFD7zXZ\x00") {
            Some(Codec::Xz)
        } else if is_bzip2(data) {
            Some(Codec::Bzip2)
        } else {
            None
        }
    }

    /// The name used in messages.
    pub(super) fn label(self) -> &'static str {
        match self {
            Codec::Gzip => "gzip",
            Codec::Zstd => "zstd",
            Codec::Xz => "xz",
            Codec::Bzip2 => "bzip2",
        }
    }
}

/// "BZh" is also text ("BZh is just text"): a bzip2 stream has a block size digit
/// and the block magic (or, for an empty stream, the end-of-stream magic).
fn is_bzip2(data: &[u8]) -> bool {
    data.len() >= 10
        && data.starts_with(b"BZh")
        && (b'1'..=b'9').contains(&data[3])
        && (data[4..10] == *b"\x31\x41\x59\x26\x53\x59" || data[4..10] == *b"\x17\x72\x45\x38\x50\x90")
}

/// Output kept by the first pass of [`measure`]: a stream that decodes to more is
/// counted, not kept, and decoded again into a buffer of its exact size (or
/// streamed, a tar), so memory never grows by doubling towards `--max-bytes`.
const KEEP: usize = 32 << 20;

/// The first pass over a decoded stream.
#[derive(Debug)]
pub(super) enum Measured {
    /// The whole output (at most [`KEEP`] bytes); `damage` says why it ended early.
    Whole { data: Vec<u8>, damage: Option<String> },
    /// More than [`KEEP`] bytes: `len` bytes counted (then `damage`, if any), not kept.
    /// `tar` tells whether they start like a tar archive.
    Counted { len: u64, tar: bool, damage: Option<String> },
    /// The output would pass the limit (stopped there, without keeping it).
    TooLarge,
    /// A buffer of this many bytes could not be allocated.
    OutOfMemory { wanted: usize },
}

/// A stream decoded in full.
#[derive(Debug)]
pub(super) enum Decoded {
    /// The output; `damage` says why it ended early (the bytes before are kept).
    Data { data: Arc<[u8]>, damage: Option<String> },
    /// The output would pass the limit.
    TooLarge,
    /// A buffer of this many bytes could not be allocated.
    OutOfMemory { wanted: usize },
}

/// A compressed stream whose dictionaries and windows were checked: what a decoder
/// is given.
pub(super) struct Checked<'a> {
    codec: Codec,
    raw: &'a [u8],
    /// xz: the streams, decoded one after the other, and why decoding ends after
    /// them when bytes follow (no stream, or what the decoder cannot read, after
    /// so many bytes decoded).
    xz: (Vec<Range<usize>>, Option<XzEnd>),
}

/// Why xz decoding ends with an error after the streams given: after `at` decoded
/// bytes (data the decoder cannot read), or after the last stream (`None`).
#[derive(Debug, Clone)]
struct XzEnd {
    at: Option<u64>,
    why: String,
}

/// Checks every dictionary and window `raw` (which starts with `codec`'s magic)
/// announces, with `remaining` bytes left to decode; `Err` names the size refused.
pub(super) fn check(codec: Codec, raw: &[u8], remaining: u64) -> Result<Checked<'_>, String> {
    let limit = window::limit(remaining);
    let xz = match codec {
        Codec::Xz => match window::xz(raw, limit) {
            window::XzWalk::Fine { streams, trailing, unreadable } => {
                let why = format!("{trailing} bytes after the last xz stream are not xz data");
                let after = (trailing > 0).then_some(XzEnd { at: None, why });
                (streams, unreadable.map(|(at, why)| XzEnd { at: Some(at), why }).or(after))
            }
            window::XzWalk::Refused(why) => return Err(why),
        },
        Codec::Zstd => match window::zstd(raw, limit) {
            Some(why) => return Err(why),
            None => (Vec::new(), None),
        },
        // Blocks of at most 900 kB (the digit after `BZh`): nothing to check.
        Codec::Gzip | Codec::Bzip2 => (Vec::new(), None),
    };
    Ok(Checked { codec, raw, xz })
}

impl Checked<'_> {
    /// A decoder of the stream (each call starts again from the beginning).
    pub(super) fn decoder(&self) -> std::io::Result<Box<dyn Read + '_>> {
        let raw = self.raw;
        Ok(match self.codec {
            Codec::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(raw)),
            Codec::Zstd => {
                let mut d = zstd::stream::read::Decoder::with_buffer(raw)?;
                d.window_log_max(window::MAX_WINDOW_LOG)?;
                Box::new(d)
            }
            // Concatenated streams (`xz -c a b`) are one file, like gzip members: each is
            // decoded on its own (lzma-rust2 0.13 refuses a second stream).
            Codec::Xz => Box::new(XzStreams {
                raw,
                streams: self.xz.0.clone().into(),
                current: None,
                decoded: 0,
                end: self.xz.1.clone(),
            }),
            Codec::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(raw)),
        })
    }
}

/// The streams of an xz file, decoded one after the other; then `end` as the
/// error, when set. A stream cut before data the decoder cannot read is read up to
/// the bytes decoded before it (a read past them would lose them with the error).
struct XzStreams<'a> {
    raw: &'a [u8],
    streams: std::collections::VecDeque<Range<usize>>,
    current: Option<lzma_rust2::XzReader<&'a [u8]>>,
    decoded: u64,
    end: Option<XzEnd>,
}

impl XzStreams<'_> {
    fn end(&self) -> Option<std::io::Error> {
        let end = self.end.as_ref()?;
        Some(std::io::Error::new(std::io::ErrorKind::InvalidData, end.why.clone()))
    }
}

impl Read for XzStreams<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let room = match self.end.as_ref().and_then(|e| e.at) {
            Some(at) => usize::try_from(at.saturating_sub(self.decoded)).unwrap_or(usize::MAX),
            None => usize::MAX,
        };
        if room == 0 && !buf.is_empty() {
            return self.end().map_or(Ok(0), Err);
        }
        let n = room.min(buf.len());
        let buf = &mut buf[..n];
        loop {
            if let Some(r) = &mut self.current {
                match r.read(buf) {
                    Ok(0) if !buf.is_empty() => self.current = None,
                    Ok(n) => {
                        self.decoded += n as u64;
                        return Ok(n);
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && self.streams.is_empty() => {
                        return Err(self.end().unwrap_or(e));
                    }
                    Err(e) => return Err(e),
                }
            }
            match self.streams.pop_front() {
                Some(s) => self.current = Some(lzma_rust2::XzReader::new(&self.raw[s], false)),
                None => return self.end().map_or(Ok(0), Err),
            }
        }
    }
}

/// The dictionary of a zip member's data refused before decoding, for the
/// methods that announce one (LZMA, xz), with `remaining` bytes left to decode.
pub(super) fn zip_member_refused(
    method: zip::CompressionMethod,
    data: &[u8],
    remaining: u64,
) -> Option<String> {
    let limit = window::limit(remaining);
    match method {
        zip::CompressionMethod::Lzma => window::zip_lzma(data, limit),
        zip::CompressionMethod::Xz => match window::xz(data, limit) {
            window::XzWalk::Refused(why) => Some(why),
            window::XzWalk::Fine { unreadable: Some((_, why)), .. } => Some(format!("{why}: not read")),
            // A single stream: the decoder stops where the walk did.
            window::XzWalk::Fine { .. } => None,
        },
        _ => None,
    }
}

/// First pass: reads `r` to its end or past `limit` bytes, keeping the first
/// [`KEEP`] bytes (grown with `try_reserve`) and only counting the rest. A read
/// error ends the stream: the bytes before it are what a second pass gives.
pub(super) fn measure(mut r: impl Read, limit: u64) -> Measured {
    const STEP: usize = 64 * 1024;
    let mut out: Vec<u8> = Vec::new();
    loop {
        if out.len() as u64 > limit {
            return Measured::TooLarge;
        }
        if out.len() >= KEEP {
            break;
        }
        if out.capacity() - out.len() < STEP {
            // Doubling, as Vec does, up to KEEP; an allocation failure is an answer, not an abort.
            let want = out.capacity().max(STEP).min(KEEP - out.len());
            if out.try_reserve_exact(want).is_err() {
                return Measured::OutOfMemory { wanted: out.len() + want };
            }
        }
        let start = out.len();
        let room = (out.capacity() - start).min(STEP);
        out.resize(start + room, 0);
        let got = r.read(&mut out[start..]);
        out.truncate(start + *got.as_ref().unwrap_or(&0));
        match got {
            Ok(0) => return Measured::Whole { data: out, damage: None },
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Measured::Whole { data: out, damage: Some(e.to_string()) },
        }
    }
    let tar = is_tar(&out);
    let mut len = out.len() as u64;
    drop(out);
    let mut scratch = vec![0u8; STEP];
    let damage = loop {
        if len > limit {
            return Measured::TooLarge;
        }
        match r.read(&mut scratch) {
            Ok(0) => break None,
            Ok(n) => len += n as u64,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => break Some(e.to_string()),
        }
    };
    Measured::Counted { len, tar, damage }
}

impl Measured {
    /// The whole output: kept by the first pass, or decoded again from `open`
    /// into one buffer of the size counted.
    pub(super) fn finish<R: Read>(self, open: impl FnOnce() -> std::io::Result<R>) -> Decoded {
        match self {
            Measured::Whole { data, damage } => Decoded::Data { data: data.into(), damage },
            Measured::Counted { len, damage, .. } => {
                let r = match open() {
                    Ok(r) => r,
                    Err(e) => return Decoded::Data { data: Arc::from(&[][..]), damage: Some(e.to_string()) },
                };
                match read_up_to(r, len) {
                    Ok((data, _)) => Decoded::Data { data, damage },
                    Err(wanted) => Decoded::OutOfMemory { wanted },
                }
            }
            Measured::TooLarge => Decoded::TooLarge,
            Measured::OutOfMemory { wanted } => Decoded::OutOfMemory { wanted },
        }
    }
}

/// Reads at most `n` bytes of `r` into one buffer of `n` bytes (an input cut short
/// gives fewer, with the error if one ended it). `Err(n)` when the buffer cannot be
/// allocated.
pub(super) fn read_up_to(mut r: impl Read, n: u64) -> Result<(Arc<[u8]>, Option<std::io::Error>), usize> {
    let n = usize::try_from(n).map_err(|_| usize::MAX)?;
    let mut buf = zeroed(n).ok_or(n)?;
    let slot = Arc::get_mut(&mut buf).ok_or(n)?;
    let mut got = 0;
    let mut error = None;
    while got < n {
        match r.read(&mut slot[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    if got < n {
        buf = Arc::from(&buf[..got]);
    }
    Ok((buf, error))
}

/// A zeroed shared buffer of `n` bytes, or `None` when the machine cannot give it
/// (`Arc::new_uninit_slice` aborts on failure: a fallible reservation of the same
/// size is asked first and freed at once).
pub(super) fn zeroed(n: usize) -> Option<Arc<[u8]>> {
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(n).ok()?;
    drop(probe);
    let mut uninit = Arc::<[u8]>::new_uninit_slice(n);
    let slot = Arc::get_mut(&mut uninit)?;
    // SAFETY: `write_bytes` sets all `n` bytes of the fresh, unshared allocation, so
    // every element is an initialised u8 and `assume_init` is sound.
    Some(unsafe {
        std::ptr::write_bytes(slot.as_mut_ptr(), 0, n);
        uninit.assume_init()
    })
}

/// Archive and compression formats iosift does not read, by their magic bytes.
pub(super) fn unsupported_container(data: &[u8]) -> Option<&'static str> {
    const KINDS: [(&[u8], &str); 6] = [
        (b"7z\xBC\xAF\x27\x1C", "a 7-Zip archive (.7z)"),
        (b"Rar!\x1A\x07", "a RAR archive (.rar)"),
        (b"LZIP", "lzip-compressed (.lz)"),
        (b"\x04\x22\x4D\x18", "lz4-compressed (.lz4)"),
        (b"\x1F\x9D", "compress'ed (.Z)"),
        (b"MSCF\x00\x00\x00\x00", "a Microsoft cabinet (.cab)"),
    ];
    KINDS.iter().find(|(magic, _)| data.starts_with(magic)).map(|(_, k)| *k)
}

/// A file named like a compressed file or archive whose bytes are binary but start
/// like none: its first bytes are damaged (a customer's `.tar.xz` cut or overwritten
/// at the start). Text under such a name (a mislabelled log) is not flagged.
pub(super) fn damaged_magic(name: &str, data: &[u8]) -> Option<&'static str> {
    const NAMES: [(&str, &str); 11] = [
        (".gz", "gzip"),
        (".tgz", "gzip"),
        (".zst", "zstd"),
        (".tzst", "zstd"),
        (".xz", "xz"),
        (".txz", "xz"),
        (".bz2", "bzip2"),
        (".tbz2", "bzip2"),
        (".tbz", "bzip2"),
        (".zip", "zip"),
        (".tar", "tar"),
    ];
    let base = name.rsplit(['/', '!']).next().unwrap_or(name).to_ascii_lowercase();
    let (_, kind) = NAMES.iter().find(|(ext, _)| base.ends_with(ext))?;
    let head = &data[..data.len().min(8192)];
    let binary = head.contains(&0) || std::str::from_utf8(head).is_err_and(|e| e.error_len().is_some());
    binary.then_some(*kind)
}

/// UTF-16 text (Windows tools, PowerShell's `>` redirection): told by its byte order
/// mark, or without one by NUL bytes in every other position of an ASCII-range text.
/// `Some(little_endian, bytes to skip)`.
fn utf16_kind(data: &[u8]) -> Option<(bool, usize)> {
    if data.starts_with(b"\xFF\xFE") && !data.starts_with(b"\xFF\xFE\x00\x00") {
        return Some((true, 2));
    }
    if data.starts_with(b"\xFE\xFF") {
        return Some((false, 2));
    }
    let head = &data[..data.len().min(512) & !1];
    if head.len() < 64 {
        return None;
    }
    let text = |b: u8| b == b'\n' || b == b'\r' || b == b'\t' || (0x20..0x7f).contains(&b);
    let (even, odd): (Vec<u8>, Vec<u8>) =
        (head.iter().step_by(2).copied().collect(), head[1..].iter().step_by(2).copied().collect());
    if odd.iter().all(|&b| b == 0) && even.iter().all(|&b| text(b)) {
        return Some((true, 0));
    }
    if even.iter().all(|&b| b == 0) && odd.iter().all(|&b| text(b)) {
        return Some((false, 0));
    }
    None
}

/// UTF-16 text decoded to UTF-8 (unpaired surrogates become U+FFFD); `None` when the
/// data is not UTF-16 or the UTF-8 copy cannot be allocated.
pub(super) fn decode_utf16(data: &[u8]) -> Option<Vec<u8>> {
    let (le, skip) = utf16_kind(data)?;
    let units = data[skip..]
        .chunks_exact(2)
        .map(|p| if le { u16::from_le_bytes([p[0], p[1]]) } else { u16::from_be_bytes([p[0], p[1]]) });
    let mut out = String::new();
    out.try_reserve(data.len() / 2 + 16).ok()?;
    out.extend(char::decode_utf16(units).map(|r| r.unwrap_or('\u{FFFD}')));
    Some(out.into_bytes())
}

/// A tar archive: a ustar/GNU header (`ustar` at offset 257), or a pre-POSIX (v7)
/// header whose checksum (bytes 148..156, octal) matches the sum of its bytes.
pub(super) fn is_tar(data: &[u8]) -> bool {
    if data.len() < 512 {
        return false;
    }
    if &data[257..262] == b"ustar" {
        return true;
    }
    let h = &data[..512];
    // A v7 name is printable and NUL-padded; text files fail the checksum anyway.
    if h[0] == 0 || h[..100].iter().take_while(|&&b| b != 0).any(|&b| b < 0x20) {
        return false;
    }
    let field = &h[148..156];
    let digits: Vec<u8> =
        field.iter().copied().skip_while(|&b| b == b' ').take_while(u8::is_ascii_digit).collect();
    if digits.is_empty() || digits.iter().any(|&b| b > b'7') {
        return false;
    }
    let want = digits.iter().fold(0u32, |a, &d| a * 8 + u32::from(d - b'0'));
    let sum: u32 =
        h.iter().enumerate().map(|(i, &b)| if (148..156).contains(&i) { 32 } else { u32::from(b) }).sum();
    sum == want
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_is_kept_counted_or_stopped_at_the_limit() {
        let src = vec![7u8; 300_000];
        assert!(matches!(measure(&src[..], 299_999), Measured::TooLarge));
        match measure(&src[..], 300_000).finish(|| Ok(&src[..])) {
            Decoded::Data { data, damage: None } => assert_eq!(data.len(), 300_000),
            other => panic!("{other:?}"),
        }
        // Past what the first pass keeps: counted, then read again into its exact size.
        let big = vec![1u8; KEEP + 100_000];
        assert!(matches!(measure(&big[..], KEEP as u64), Measured::TooLarge));
        let m = measure(&big[..], u64::MAX);
        assert!(
            matches!(m, Measured::Counted { len, tar: false, damage: None } if len == big.len() as u64),
            "{m:?}"
        );
        match m.finish(|| Ok(&big[..])) {
            Decoded::Data { data, damage: None } => assert!(data.len() == big.len() && data[..] == big[..]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_damaged_stream_past_the_first_pass_keeps_the_bytes_before_the_damage() {
        struct Broken(usize);
        impl Read for Broken {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                if self.0 == 0 {
                    return Err(std::io::Error::other("bad block"));
                }
                let n = buf.len().min(self.0);
                buf[..n].fill(b'x');
                self.0 -= n;
                Ok(n)
            }
        }
        let n = KEEP + 12_345;
        let m = measure(Broken(n), u64::MAX);
        assert!(
            matches!(&m, Measured::Counted { len, damage: Some(e), .. } if *len == n as u64 && e == "bad block"),
            "{m:?}"
        );
        match m.finish(|| Ok(Broken(n))) {
            Decoded::Data { data, damage: Some(e) } => assert!(data.len() == n && e == "bad block"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn utf16_with_and_without_a_byte_order_mark_is_decoded() {
        let text = "procs -----------memory----------\r\n r  b   swpd   free   buff  cache\r\n 1  0      0 8935432  27468 12636192\r\n";
        let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        let with_bom = [&b"\xFF\xFE"[..], &le].concat();
        for d in [&with_bom, &le, &[&b"\xFE\xFF"[..], &be].concat(), &be] {
            assert_eq!(decode_utf16(d).as_deref(), Some(text.as_bytes()));
        }
        assert_eq!(decode_utf16(text.as_bytes()), None);
        assert_eq!(decode_utf16(b"\xFF\xFE\x00\x00utf-32"), None);
    }

    #[test]
    fn bzip2_magic_needs_the_block_magic() {
        assert_eq!(Codec::sniff(b"BZh is just text here\n"), None);
        assert_eq!(Codec::sniff(b"BZh91AY&SY\x00"), Some(Codec::Bzip2));
    }
}
