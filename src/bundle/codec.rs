//! Compressed streams customers send (gzip, zstd, xz, bzip2), recognised by their
//! magic bytes and decoded within a byte limit; archive and compression formats
//! iosift does not read are named, never "not recognised as any format".
//!
//! Decoding never trusts a header: output is read in 64 KiB steps into a buffer
//! grown with `try_reserve`, so a bomb stops at the limit and an allocation the
//! machine cannot give is a problem, not an abort.

use std::io::Read;

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
    pub fn sniff(data: &[u8]) -> Option<Codec> {
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
    pub fn label(self) -> &'static str {
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

/// The outcome of decoding one stream.
#[derive(Debug)]
pub(super) enum Decoded {
    /// The whole stream; `damage` says why it ended early (the bytes before are kept).
    Data { data: Vec<u8>, damage: Option<String> },
    /// The output would pass `limit` bytes.
    TooLarge,
    /// A buffer of this many bytes could not be allocated.
    OutOfMemory { wanted: usize },
}

/// Decodes `raw` (which starts with `codec`'s magic) into at most `limit` bytes.
pub(super) fn decode(codec: Codec, raw: &[u8], limit: u64) -> Decoded {
    match codec {
        Codec::Gzip => read_capped(flate2::read::MultiGzDecoder::new(raw), limit),
        Codec::Zstd => match zstd::stream::read::Decoder::new(raw) {
            Ok(d) => read_capped(d, limit),
            Err(e) => Decoded::Data { data: Vec::new(), damage: Some(e.to_string()) },
        },
        // Concatenated streams (`xz -c a b`) are one file, like gzip members.
        Codec::Xz => read_capped(lzma_rust2::XzReader::new(raw, true), limit),
        Codec::Bzip2 => read_capped(bzip2::read::MultiBzDecoder::new(raw), limit),
    }
}

/// Reads `r` to its end or to `limit + 1` bytes, in steps, growing the buffer with
/// `try_reserve`. A read error keeps the bytes before it.
pub(super) fn read_capped(mut r: impl Read, limit: u64) -> Decoded {
    const STEP: usize = 64 * 1024;
    let mut out: Vec<u8> = Vec::new();
    loop {
        if out.len() as u64 > limit {
            return Decoded::TooLarge;
        }
        if out.capacity() - out.len() < STEP {
            // Doubling, as Vec does, but an allocation failure is an answer, not an abort.
            let want = out.capacity().max(STEP);
            if out.try_reserve(want).is_err() {
                return Decoded::OutOfMemory { wanted: out.len() + want };
            }
        }
        let start = out.len();
        let room = (out.capacity() - start).min(STEP);
        out.resize(start + room, 0);
        match r.read(&mut out[start..]) {
            Ok(0) => {
                out.truncate(start);
                return Decoded::Data { data: out, damage: None };
            }
            Ok(n) => out.truncate(start + n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => out.truncate(start),
            Err(e) => {
                out.truncate(start);
                return Decoded::Data { data: out, damage: Some(e.to_string()) };
            }
        }
    }
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
    fn capped_read_stops_at_the_limit() {
        let src = vec![7u8; 300_000];
        assert!(matches!(read_capped(&src[..], 299_999), Decoded::TooLarge));
        match read_capped(&src[..], 300_000) {
            Decoded::Data { data, damage: None } => assert_eq!(data.len(), 300_000),
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
