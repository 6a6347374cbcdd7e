//! Dictionary and window sizes read from the headers before a decoder allocates
//! them: the LZMA2 dictionary of every block of an xz stream (found by walking the
//! stream's structure, chunk headers included, without decoding), the dictionary of
//! a zip LZMA member and the window of every zstd frame. A size over the limit
//! ([`limit`]) is refused with a message naming it; it never reaches a decoder
//! (lzma-rust2 panics on a 4 GiB - 1 LZMA2 dictionary and allocates any other in full).

/// The largest LZMA/LZMA2 dictionary or zstd window decoded: 1 GiB (`xz -9` uses
/// 64 MiB; zstd decodes up to 128 MiB by default and `zstd --long=30` writes 1 GiB).
const MAX_WINDOW: u64 = 1 << 30;

/// `log2` of [`MAX_WINDOW`], for the zstd decoder's own limit.
pub(in crate::bundle) const MAX_WINDOW_LOG: u32 = 30;

/// Dictionaries up to this size are decoded whatever `--max-bytes` leaves (what
/// `xz -9` writes even for a small file).
const ALWAYS: u64 = 64 << 20;

/// The largest dictionary or window decoded with `remaining` bytes left under
/// `--max-bytes`: a stream cannot use more than it decodes to, so a dictionary past
/// what may still be decoded only costs memory (above [`ALWAYS`]).
pub(in crate::bundle) fn limit(remaining: u64) -> u64 {
    MAX_WINDOW.min(remaining.max(ALWAYS))
}

use std::ops::Range;

const XZ_MAGIC: &[u8; 6] = b"\xFD7zXZ\x00";
const LZMA2_FILTER: u64 = 0x21;

/// What the walk over an xz file found.
#[derive(Debug, PartialEq, Eq)]
pub(in crate::bundle) enum XzWalk {
    /// Every block header a decoder can reach lies in `streams` (the byte ranges of
    /// the file's streams, each decoded on its own) and asks for a dictionary within
    /// the limit. `trailing`: bytes follow the last stream that are no xz stream.
    /// `unreadable`: the last stream is cut before data the decoder cannot read:
    /// how many bytes decode before it, and why.
    Fine { streams: Vec<Range<usize>>, trailing: usize, unreadable: Option<(u64, String)> },
    /// A block asks for more than the limit (the message says how much).
    Refused(String),
}

/// How the walk over one stream ended.
enum Walked {
    /// At the end of its footer: another stream may follow.
    Footer,
    /// Where the decoder stops too (damage, the end of the data), or before a
    /// header the walk could not parse.
    Stopped,
    /// Before data lzma-rust2 0.13 cannot read: the bytes decoded before it, and why.
    Cut(u64, String),
}

/// Why a dictionary or window is refused, in one line naming its size.
fn too_large(what: &str, size: u64, limit: u64) -> String {
    let head = format!("dict size too large: {what} needs a {size}-byte dictionary ({})", human(size));
    if limit < MAX_WINDOW {
        format!("{head}, more than the {limit} bytes left to decode: not read (raise with --max-bytes)")
    } else {
        format!(
            "{head}; iosift decodes with at most {limit} bytes ({}): not read; recompress with a smaller dictionary (xz -9 uses 64 MiB)",
            human(limit)
        )
    }
}

/// `4.0 GiB`, `64 MiB`, `12 KiB`.
fn human(n: u64) -> String {
    match n {
        n if n >= 1 << 30 => format!("{:.1} GiB", n as f64 / (1u64 << 30) as f64),
        n if n >= 1 << 20 => format!("{} MiB", n >> 20),
        n => format!("{} KiB", n >> 10),
    }
}

/// The dictionary an LZMA2 property byte announces (xz file format 5.3.1).
fn lzma2_dict(prop: u8) -> Option<u64> {
    match prop {
        40 => Some(u64::from(u32::MAX)),
        0..40 => Some((2 | u64::from(prop & 1)) << (prop / 2 + 11)),
        _ => None,
    }
}

/// A multibyte integer of the xz format at `*at` (at most 9 bytes); `None` when
/// the bytes run out or the encoding is invalid.
fn varint(data: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for i in 0..9 {
        let b = *data.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7F) << (7 * i);
        if b & 0x80 == 0 {
            return (i == 0 || b != 0).then_some(v);
        }
    }
    None
}

/// Size of the check field for an xz check type (xz file format 3.1.3).
fn check_size(kind: u8) -> usize {
    [0, 4, 4, 4, 8, 8, 8, 16, 16, 16, 32, 32, 32, 64, 64, 64][usize::from(kind & 0x0F)]
}

fn round4(n: usize) -> usize {
    n.div_ceil(4) * 4
}

/// Walks an xz file (streams, block headers, LZMA2 chunk headers, indexes, footers,
/// stream padding) and checks the dictionary of every LZMA2 filter. Where the walk
/// cannot tell what follows (a block header or index it cannot parse), the stream
/// given to the decoder ends there, so it never reaches a header that was not
/// checked. A walk that runs out of data, or meets data the decoder fails on itself,
/// reaches no further header: the rest of the file is given.
pub(in crate::bundle) fn xz(raw: &[u8], limit: u64) -> XzWalk {
    let mut streams = Vec::new();
    let mut start = 0;
    let mut count = Count { block: 0, decoded: 0 };
    loop {
        let (stream, walked) = match xz_stream(raw, start, &mut count, limit) {
            Ok(stream) => stream,
            Err(refused) => return XzWalk::Refused(refused),
        };
        let mut pos = stream.end;
        streams.push(stream);
        match walked {
            Walked::Footer => {}
            // The decoder stops in this stream: nothing after it is reached.
            Walked::Stopped => return XzWalk::Fine { streams, trailing: 0, unreadable: None },
            Walked::Cut(at, why) => {
                return XzWalk::Fine { streams, trailing: 0, unreadable: Some((at, why)) };
            }
        }
        // Stream padding (NUL bytes), then another stream, the end, or bytes that are neither.
        while raw.get(pos) == Some(&0) {
            pos += 1;
        }
        if !raw[pos..].starts_with(XZ_MAGIC) {
            return XzWalk::Fine { streams, trailing: raw.len() - pos, unreadable: None };
        }
        start = pos;
    }
}

/// Blocks met and bytes they decode to, so far.
struct Count {
    block: u64,
    decoded: u64,
}

/// The stream starting at `start`: its byte range, up to its footer or to where the
/// walk had to stop (see [`xz`]). `Err`: a dictionary over the limit.
fn xz_stream(
    raw: &[u8],
    start: usize,
    count: &mut Count,
    limit: u64,
) -> Result<(Range<usize>, Walked), String> {
    let whole = Ok((start..raw.len(), Walked::Stopped));
    let cut = |at: usize| Ok((start..at, Walked::Stopped));
    // Stream header: magic, two flag bytes (the second holds the check type), CRC32.
    if raw.len() - start < 12 {
        return whole;
    }
    let check = check_size(raw[start + 7]);
    let mut pos = start + 12;
    loop {
        let Some(&size) = raw.get(pos) else { return whole };
        if size == 0 {
            break;
        }
        count.block += 1;
        let header_end = pos + (usize::from(size) + 1) * 4;
        let Some(header) = raw.get(pos..header_end) else { return whole };
        let data = match block_filters(header, limit) {
            Ok(()) => header_end,
            Err(Some(dict)) => return Err(too_large(&format!("xz block {}", count.block), dict, limit)),
            Err(None) => return cut(pos),
        };
        // The LZMA2 chunks up to the end marker, then padding to 4 bytes and the check.
        let end = match lzma2_end(raw, data, &mut count.decoded) {
            Ok(end) => end,
            Err(None) => return whole,
            Err(Some(at)) => {
                let why = format!(
                    "an uncompressed LZMA2 chunk of 65536 bytes at byte {at} (valid, but the xz decoder, lzma-rust2 0.13, cannot read it)"
                );
                return Ok((start..at, Walked::Cut(count.decoded, why)));
            }
        };
        pos = header_end + round4(end - header_end) + check;
    }
    // Index: indicator, record count, records, padding, CRC32; then the 12-byte footer.
    let index = pos;
    let mut at = pos + 1;
    let Some(records) = varint(raw, &mut at) else { return cut(index) };
    for _ in 0..records {
        if varint(raw, &mut at).and_then(|_| varint(raw, &mut at)).is_none() {
            return cut(index);
        }
    }
    let footer = index + round4(at - index) + 4;
    if raw.get(footer + 10..footer + 12) != Some(b"YZ") {
        return cut(index);
    }
    Ok((start..footer + 12, Walked::Footer))
}

/// Checks a block header's filters: `Err(Some(dict))` when an LZMA2 dictionary is
/// over the limit, `Err(None)` when the header cannot be parsed or its last filter
/// is not LZMA2 (its data cannot be walked).
fn block_filters(header: &[u8], limit: u64) -> Result<(), Option<u64>> {
    let flags = *header.get(1).ok_or(None)?;
    if flags & 0x3C != 0 {
        return Err(None);
    }
    let mut at = 2;
    for present in [flags & 0x40 != 0, flags & 0x80 != 0] {
        if present {
            varint(header, &mut at).ok_or(None)?;
        }
    }
    let mut last = 0;
    for _ in 0..=(flags & 3) {
        last = varint(header, &mut at).ok_or(None)?;
        let size = varint(header, &mut at).ok_or(None)?;
        let props =
            usize::try_from(size).ok().and_then(|n| header.get(at..at.checked_add(n)?)).ok_or(None)?;
        at += props.len();
        if last == LZMA2_FILTER {
            let [prop] = props else { return Err(None) };
            let dict = lzma2_dict(*prop).ok_or(None)?;
            if dict > limit {
                return Err(Some(dict));
            }
        }
    }
    if last == LZMA2_FILTER { Ok(()) } else { Err(None) }
}

/// Where the LZMA2 stream starting at `at` ends (after its end marker), from the
/// chunk headers alone, adding what each chunk decodes to to `decoded`. `Err(None)` when the data runs out or a control byte is
/// invalid (the decoder stops there too); `Err(Some(at))` at an uncompressed chunk
/// of 65536 bytes, valid but past lzma-rust2 0.13 (its size + 1 overflows a u16: a
/// panic with overflow checks, a misread chunk without).
fn lzma2_end(raw: &[u8], mut at: usize, decoded: &mut u64) -> Result<usize, Option<usize>> {
    let be16 = |at: usize| {
        raw.get(at..at + 2).map(|b| usize::from(u16::from_be_bytes([b[0], b[1]])) + 1).ok_or(None)
    };
    loop {
        let control = *raw.get(at).ok_or(None)?;
        let (next, size) = match control {
            0 => return Ok(at + 1),
            1 | 2 if be16(at + 1)? == 1 << 16 => return Err(Some(at)),
            1 | 2 => (at + 3 + be16(at + 1)?, be16(at + 1)?),
            0x80.. => {
                let size = (usize::from(control & 0x1F) << 16) + be16(at + 1)?;
                (at + 5 + usize::from(control >= 0xC0) + be16(at + 3)?, size)
            }
            _ => return Err(None),
        };
        *decoded += size as u64;
        at = next;
    }
}

/// The dictionary of a zip LZMA member (APPNOTE 5.8.8: version, properties size,
/// the properties byte, then the dictionary size), refused over the limit.
pub(in crate::bundle) fn zip_lzma(member: &[u8], limit: u64) -> Option<String> {
    let dict = u64::from(u32::from_le_bytes(member.get(5..9)?.try_into().ok()?));
    (dict > limit).then(|| too_large("this LZMA member", dict, limit))
}

/// The first zstd frame whose window is over the limit (the decoder refuses it
/// too, as "Frame requires too much memory"; this names the size). Frames and their
/// blocks are walked from their headers; skippable frames are skipped.
pub(in crate::bundle) fn zstd(raw: &[u8], limit: u64) -> Option<String> {
    let le = |at: usize, n: usize| {
        raw.get(at..at + n).map(|b| b.iter().rev().fold(0u64, |a, &x| a << 8 | u64::from(x)))
    };
    let mut at = 0;
    let mut frame = 0;
    loop {
        let magic = le(at, 4)?;
        if magic & !0xF == 0x184D_2A50 {
            at = at.checked_add(8 + usize::try_from(le(at + 4, 4)?).ok()?)?;
            continue;
        }
        if magic != 0xFD2F_B528 {
            return None;
        }
        frame += 1;
        let descriptor = *raw.get(at + 4)?;
        let single = descriptor & 0x20 != 0;
        let mut q = at + 5;
        let mut window = None;
        if !single {
            let w = *raw.get(q)?;
            q += 1;
            let base = 1u64 << (10 + (w >> 3));
            window = Some(base + base / 8 * u64::from(w & 7));
        }
        q += [0, 1, 2, 4][usize::from(descriptor & 3)];
        let content_bytes = match descriptor >> 6 {
            0 => usize::from(single),
            1 => 2,
            2 => 4,
            _ => 8,
        };
        let content = le(q, content_bytes)? + if content_bytes == 2 { 256 } else { 0 };
        q += content_bytes;
        let window = window.unwrap_or(content);
        if window > limit {
            return Some(too_large(&format!("zstd frame {frame}"), window, limit));
        }
        loop {
            let block = le(q, 3)?;
            let size = usize::try_from(block >> 3).ok()?;
            q += 3 + match (block >> 1) & 3 {
                1 => 1,
                3 => return None,
                _ => size,
            };
            if block & 1 == 1 {
                break;
            }
        }
        at = q + if descriptor & 4 != 0 { 4 } else { 0 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn one_stream(bytes: Range<usize>) -> XzWalk {
        XzWalk::Fine { streams: vec![bytes], trailing: 0, unreadable: None }
    }

    fn xz_of(data: &[u8], preset: u32) -> Vec<u8> {
        let mut w =
            lzma_rust2::XzWriter::new(Vec::new(), lzma_rust2::XzOptions::with_preset(preset)).unwrap();
        w.write_all(data).unwrap();
        w.finish().unwrap()
    }

    #[test]
    fn lzma2_dictionary_sizes_follow_the_format() {
        assert_eq!(lzma2_dict(0), Some(4096));
        assert_eq!(lzma2_dict(1), Some(6144));
        assert_eq!(lzma2_dict(18), Some(2 << 20));
        assert_eq!(lzma2_dict(37), Some(3 << 29));
        assert_eq!(lzma2_dict(40), Some(u64::from(u32::MAX)));
        assert_eq!(lzma2_dict(41), None);
    }

    #[test]
    fn a_valid_xz_is_walked_to_its_end() {
        let text: Vec<u8> =
            (0..200_000u32).flat_map(|i| format!("line {i} {}\n", i * 7919 % 1000).into_bytes()).collect();
        let x = xz_of(&text, 1);
        assert_eq!(xz(&x, MAX_WINDOW), one_stream(0..x.len()));
        // Two streams with padding between them, then bytes that are no stream.
        let second = xz_of(b"second\n", 1);
        let two = [&x[..], &[0; 8], &second, b"junk"].concat();
        let at = x.len() + 8;
        assert_eq!(
            xz(&two, MAX_WINDOW),
            XzWalk::Fine { streams: vec![0..x.len(), at..at + second.len()], trailing: 4, unreadable: None }
        );
    }

    #[test]
    fn a_second_stream_asking_for_4_gib_is_refused_naming_its_block() {
        let one = xz_of(b"first\n", 1);
        let mut second = xz_of(b"second\n", 1);
        // Block header at 12: size, flags (one filter), id 0x21, props size 1, the dictionary byte.
        assert_eq!(&second[14..16], &[0x21, 1]);
        second[16] = 40;
        let two = [&one[..], &second].concat();
        match xz(&two, MAX_WINDOW) {
            XzWalk::Refused(m) => {
                assert!(
                    m.starts_with(
                        "dict size too large: xz block 2 needs a 4294967295-byte dictionary (4.0 GiB)"
                    ),
                    "{m}"
                )
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_unparsable_block_header_stops_the_decoder_before_it() {
        let mut x = xz_of(b"data\n", 1);
        x[13] |= 0x3C; // reserved flag bits
        assert_eq!(xz(&x, MAX_WINDOW), one_stream(0..12));
        // Cut inside the block: nothing after it can be reached, all is given.
        let x = xz_of(b"data\n", 1);
        assert_eq!(xz(&x[..20], MAX_WINDOW), one_stream(0..20));
    }

    #[test]
    fn a_64_kib_uncompressed_chunk_cuts_the_stream_counting_what_decodes_before() {
        // One block: an LZMA chunk of 300 bytes (control 0xE0, sizes - 1, props), an
        // uncompressed chunk of 1000 (control 2), then one of 65536 at byte 12 + 12 + 6 + 10 + 3 + 1000.
        let mut x = XZ_MAGIC.to_vec();
        x.extend_from_slice(&[0; 6]);
        x.extend_from_slice(&[2, 0, 0x21, 1, 22, 0, 0, 0, 0, 0, 0, 0]);
        x.extend_from_slice(&[0xE0, 0x01, 0x2B, 0x00, 0x09, 0x5D]);
        x.extend_from_slice(&[0; 10]);
        x.extend_from_slice(&[2, 0x03, 0xE7]);
        x.extend_from_slice(&[b'a'; 1000]);
        x.extend_from_slice(&[2, 0xFF, 0xFF]);
        x.extend_from_slice(&[b'z'; 100]);
        let at = 12 + 12 + 6 + 10 + 3 + 1000;
        match xz(&x, MAX_WINDOW) {
            XzWalk::Fine { streams, trailing: 0, unreadable: Some((1300, why)) } => {
                assert_eq!((streams.len(), streams[0].clone()), (1, 0..at));
                assert!(
                    why.starts_with(&format!("an uncompressed LZMA2 chunk of 65536 bytes at byte {at}")),
                    "{why}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn zstd_windows_are_read_from_frame_headers() {
        let frame = zstd::encode_all(&b"some text\n"[..], 3).unwrap();
        assert_eq!(zstd(&frame, MAX_WINDOW), None);
        let two = [&frame[..], &frame].concat();
        assert_eq!(zstd(&two, MAX_WINDOW), None);
        // A second frame without single segment and a 2 GiB window (exponent 21).
        let big = [&frame[..], b"\x28\xB5\x2F\xFD\x00\xA8\x01\x00\x00"].concat();
        let m = zstd(&big, MAX_WINDOW).unwrap();
        assert!(m.contains("zstd frame 2 needs a 2147483648-byte dictionary (2.0 GiB)"), "{m}");
    }

    #[test]
    fn a_zip_lzma_dictionary_is_read_after_the_version_and_properties() {
        assert_eq!(zip_lzma(&[9, 20, 5, 0, 0x5D, 0, 0, 0x10, 0], MAX_WINDOW), None);
        let m = zip_lzma(&[9, 20, 5, 0, 0x5D, 0xFF, 0xFF, 0xFF, 0xFF], MAX_WINDOW).unwrap();
        assert!(m.contains("4294967295-byte"), "{m}");
        // 128 MiB with 100 MiB left under --max-bytes: over what can still be decoded.
        let m = zip_lzma(&[9, 20, 5, 0, 0x5D, 0, 0, 0, 8], limit(100 << 20)).unwrap();
        assert!(m.ends_with("needs a 134217728-byte dictionary (128 MiB), more than the 104857600 bytes left to decode: not read (raise with --max-bytes)"), "{m}");
        assert_eq!(limit(1 << 20), 64 << 20);
        assert_eq!(limit(8 << 30), MAX_WINDOW);
    }
}
