//! Which zip members are read, and from where. The zip crate keeps one entry per
//! name (the last), so the central directory is walked here too: a name given twice
//! is read twice, the copy the crate drops through an archive that holds only its
//! record ([`Alone`]). Each member's local header and compressed data are compared
//! with the others': members whose data holds another member's header, or shares
//! another's data, are refused: that is how an overlapping-files zip bomb (David
//! Fifield's) makes a few kilobytes decode to gigabytes.

use std::collections::HashMap;
use std::io::{Cursor, Read, Seek, SeekFrom};
use std::ops::Range;
use zip::ZipArchive;
use zip::read::{ArchiveOffset, Config};

/// Where a member is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Source {
    /// The zip crate's entry of that index.
    Index(usize),
    /// A copy the crate's index dropped (same name as a later one): its central
    /// directory record, by position in the archive's bytes.
    Alone(Range<usize>),
}

/// The members in central directory order. `Some(note)` when the directory holds
/// more records than could be matched to names (those are not read).
pub(super) fn plan(data: &[u8], z: &ZipArchive<Cursor<&[u8]>>) -> (Vec<Source>, Option<String>) {
    let records = central_records(data, z.central_directory_start());
    let indexes = || (0..z.len()).map(Source::Index).collect();
    if records.len() <= z.len() {
        return (indexes(), None);
    }
    let name = |r: &Range<usize>| record_name_bytes(data, r);
    // The crate's index: names in the order they first appear, each holding its last record.
    let mut index: HashMap<&[u8], usize> = HashMap::new();
    let mut last: HashMap<&[u8], usize> = HashMap::new();
    for (k, r) in records.iter().enumerate() {
        let n = index.len();
        index.entry(name(r)).or_insert(n);
        last.insert(name(r), k);
    }
    if index.len() != z.len() {
        let note = format!(
            "the central directory holds {} records but {} names could be matched to them: {} not read",
            records.len(),
            z.len(),
            records.len() - z.len()
        );
        return (indexes(), Some(note));
    }
    let plan = records
        .iter()
        .enumerate()
        .map(
            |(k, r)| {
                if last[name(r)] == k { Source::Index(index[name(r)]) } else { Source::Alone(r.clone()) }
            },
        )
        .collect();
    (plan, None)
}

/// The name bytes of the central directory record at `record`.
fn record_name_bytes<'a>(data: &'a [u8], record: &Range<usize>) -> &'a [u8] {
    let n = usize::from(u16::from_le_bytes([data[record.start + 28], data[record.start + 29]]));
    &data[record.start + 46..record.start + 46 + n]
}

/// The name of the central directory record at `record`, for messages.
pub(super) fn record_name(data: &[u8], record: &Range<usize>) -> String {
    String::from_utf8_lossy(record_name_bytes(data, record)).into_owned()
}

/// The central directory records from `start` on: fixed 46 bytes, then the name,
/// extra field and comment (APPNOTE 4.3.12), as long as the signature holds.
fn central_records(data: &[u8], start: u64) -> Vec<Range<usize>> {
    let mut at = usize::try_from(start).unwrap_or(usize::MAX);
    let mut out = Vec::new();
    while let Some(h) = data.get(at..at.saturating_add(46))
        && h.starts_with(b"PK\x01\x02")
    {
        let field = |i: usize| usize::from(u16::from_le_bytes([h[i], h[i + 1]]));
        let end = at + 46 + field(28) + field(30) + field(32);
        if end > data.len() {
            break;
        }
        out.push(at..end);
        at = end;
    }
    out
}

/// An archive of one member: the bytes before the central directory, then only
/// `record` and an end record pointing at it (offsets as in the whole archive).
pub(super) fn alone<'a>(
    data: &'a [u8],
    z: &ZipArchive<Cursor<&[u8]>>,
    record: &Range<usize>,
) -> zip::result::ZipResult<ZipArchive<Alone<'a>>> {
    let too_far = || {
        zip::result::ZipError::UnsupportedArchive("a second copy of a name in a zip64 archive is not read")
    };
    let cd = usize::try_from(z.central_directory_start()).map_err(|_| too_far())?;
    let head = data.get(..cd).ok_or_else(too_far)?;
    let relative =
        u32::try_from(z.central_directory_start().saturating_sub(z.offset())).map_err(|_| too_far())?;
    let rec = &data[record.clone()];
    let mut tail = rec.to_vec();
    tail.extend_from_slice(b"PK\x05\x06\0\0\0\0\x01\0\x01\0");
    tail.extend_from_slice(&u32::try_from(rec.len()).map_err(|_| too_far())?.to_le_bytes());
    tail.extend_from_slice(&relative.to_le_bytes());
    tail.extend_from_slice(&[0, 0]);
    let config = Config { archive_offset: ArchiveOffset::Known(z.offset()) };
    ZipArchive::with_config(config, Alone { head, tail, pos: 0 })
}

/// The bytes of [`alone`]'s archive, read in place (no copy of the archive).
pub(super) struct Alone<'a> {
    head: &'a [u8],
    tail: Vec<u8>,
    pos: u64,
}

impl Read for Alone<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let head = self.head.len() as u64;
        let (part, at) =
            if self.pos < head { (self.head, self.pos) } else { (&self.tail[..], self.pos - head) };
        let at = usize::try_from(at).unwrap_or(usize::MAX).min(part.len());
        let n = buf.len().min(part.len() - at);
        buf[..n].copy_from_slice(&part[at..at + n]);
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for Alone<'_> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let len = (self.head.len() + self.tail.len()) as i128;
        let pos = match to {
            SeekFrom::Start(p) => i128::from(p),
            SeekFrom::End(d) => len + i128::from(d),
            SeekFrom::Current(d) => i128::from(self.pos) + i128::from(d),
        };
        self.pos = u64::try_from(pos)
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "seek before the start"))?;
        Ok(self.pos)
    }
}

/// Where a member lies in the archive: its local header's offset and its
/// compressed data (never past the archive's end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Span {
    header: u64,
    data: Range<u64>,
}

/// Member `i`'s span; `None` when its local header cannot be read (it fails later).
pub(super) fn span<R: Read + Seek>(z: &mut ZipArchive<R>, i: usize, archive_len: u64) -> Option<Span> {
    let f = z.by_index_raw(i).ok()?;
    let start = f.data_start().min(archive_len);
    Some(Span {
        header: f.header_start(),
        data: start..start.saturating_add(f.compressed_size()).min(archive_len),
    })
}

/// For each member, whether it is refused for sharing data with another: first
/// those whose data holds another member's local header (Fifield's bomb quotes the
/// next header in each member's data; a bogus size spans the members after it),
/// then, of the rest, those whose data overlaps another's (members pointing at the
/// same data). The innermost member of a quoted chain, or the members a bogus
/// size spans, are read.
pub(super) fn overlapping(spans: &[Option<Span>]) -> Vec<bool> {
    let mut headers: Vec<u64> = spans.iter().flatten().map(|s| s.header).collect();
    headers.sort_unstable();
    let mut refused: Vec<bool> = spans
        .iter()
        .map(|s| {
            s.as_ref().is_some_and(|s| {
                let first = headers.partition_point(|&h| h < s.data.start);
                headers.get(first).is_some_and(|&h| h < s.data.end)
            })
        })
        .collect();
    // Sorted by start, a range overlaps an earlier one when it starts before the
    // furthest end so far, and a later one when it ends after the next start.
    let mut order: Vec<(u64, u64, usize)> = spans
        .iter()
        .enumerate()
        .filter(|(i, _)| !refused[*i])
        .filter_map(|(i, s)| s.as_ref().filter(|s| !s.data.is_empty()).map(|s| (s.data.start, s.data.end, i)))
        .collect();
    order.sort_unstable();
    let mut reach = 0;
    for (k, &(start, end, i)) in order.iter().enumerate() {
        let later = order.get(k + 1).is_some_and(|&(next, _, _)| next < end);
        refused[i] = (k > 0 && start < reach) || later;
        reach = reach.max(end);
    }
    refused
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(v: &[(u64, u64, u64)]) -> Vec<Option<Span>> {
        v.iter().map(|&(header, start, end)| Some(Span { header, data: start..end })).collect()
    }

    #[test]
    fn a_quoted_chain_is_refused_but_its_innermost_member() {
        // Fifield's full overlap: each member's data quotes the next header, all end at the kernel.
        let chain: Vec<_> = (0..5).map(|i| (100 * i, 100 * i + 40, 1000)).collect();
        assert_eq!(overlapping(&spans(&chain)), [true, true, true, true, false]);
    }

    #[test]
    fn members_sharing_data_are_refused_and_apart_ones_read() {
        // Headers quoted in extra fields: every member's data is the same kernel.
        let shared = spans(&[(0, 100, 200), (10, 100, 200), (20, 100, 200), (200, 240, 300)]);
        assert_eq!(overlapping(&shared), [true, true, true, false]);
        // Two records pointing at one local header.
        let same = spans(&[(0, 40, 90), (0, 40, 90), (90, 130, 150)]);
        assert_eq!(overlapping(&same), [true, true, false]);
        let mut apart = spans(&[(0, 40, 90), (90, 130, 150)]);
        apart.push(None);
        assert_eq!(overlapping(&apart), [false, false, false]);
    }

    #[test]
    fn a_bogus_size_spanning_later_members_refuses_only_that_member() {
        let bogus = spans(&[(0, 40, 500), (200, 240, 300), (300, 340, 400)]);
        assert_eq!(overlapping(&bogus), [true, false, false]);
    }
}
