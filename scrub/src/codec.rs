//! The compressions a scrubbed file or archive keeps: what is read gzip'd is written
//! gzip'd (zstd, xz and bzip2 likewise), each streamed (decoder in, encoder out).

use std::io::{Read, Write};

/// A stream compression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Codec {
    /// None.
    Plain,
    /// gzip.
    Gzip,
    /// zstd.
    Zstd,
    /// xz.
    Xz,
    /// bzip2.
    Bzip2,
}

impl Codec {
    /// By the magic bytes a stream starts with.
    pub(crate) fn sniff(head: &[u8]) -> Codec {
        if head.starts_with(&[0x1f, 0x8b]) {
            Codec::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Codec::Zstd
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
            Codec::Xz
        } else if head.starts_with(b"BZh") && head.len() > 3 && head[3].is_ascii_digit() {
            Codec::Bzip2
        } else {
            Codec::Plain
        }
    }

    /// A decoder of `r`.
    pub(crate) fn reader<'a>(self, r: impl Read + 'a) -> std::io::Result<Box<dyn Read + 'a>> {
        Ok(match self {
            Codec::Plain => Box::new(r),
            Codec::Gzip => Box::new(flate2::read::MultiGzDecoder::new(r)),
            Codec::Zstd => Box::new(zstd::stream::read::Decoder::new(r)?),
            Codec::Xz => Box::new(lzma_rust2::XzReader::new(r, true)),
            Codec::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(r)),
        })
    }

    /// An encoder into `w`; [`Encoder::finish`] ends the stream. Fast levels (gzip 1, xz 1):
    /// at the default ones (6) compressing took more time than the whole scrub of the text.
    pub(crate) fn writer<W: Write>(self, w: W) -> std::io::Result<Encoder<W>> {
        Ok(match self {
            Codec::Plain => Encoder::Plain(w),
            Codec::Gzip => Encoder::Gzip(flate2::write::GzEncoder::new(w, flate2::Compression::fast())),
            Codec::Zstd => Encoder::Zstd(zstd::stream::write::Encoder::new(w, 3)?),
            Codec::Xz => {
                Encoder::Xz(Box::new(lzma_rust2::XzWriter::new(w, lzma_rust2::XzOptions::with_preset(1))?))
            }
            Codec::Bzip2 => Encoder::Bzip2(bzip2::write::BzEncoder::new(w, bzip2::Compression::default())),
        })
    }
}

/// A stream being compressed.
pub(crate) enum Encoder<W: Write> {
    /// Not compressed.
    Plain(W),
    /// gzip.
    Gzip(flate2::write::GzEncoder<W>),
    /// zstd.
    Zstd(zstd::stream::write::Encoder<'static, W>),
    /// xz.
    Xz(Box<lzma_rust2::XzWriter<W>>),
    /// bzip2.
    Bzip2(bzip2::write::BzEncoder<W>),
}

impl<W: Write> Encoder<W> {
    /// Writes the end of the stream; returns the inner writer, flushed.
    pub(crate) fn finish(self) -> std::io::Result<W> {
        let mut w = match self {
            Encoder::Plain(w) => w,
            Encoder::Gzip(e) => e.finish()?,
            Encoder::Zstd(e) => e.finish()?,
            Encoder::Xz(e) => (*e).finish()?,
            Encoder::Bzip2(e) => e.finish()?,
        };
        w.flush()?;
        Ok(w)
    }
}

impl<W: Write> Write for Encoder<W> {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        match self {
            Encoder::Plain(w) => w.write(b),
            Encoder::Gzip(e) => e.write(b),
            Encoder::Zstd(e) => e.write(b),
            Encoder::Xz(e) => e.write(b),
            Encoder::Bzip2(e) => e.write(b),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Encoder::Plain(w) => w.flush(),
            Encoder::Gzip(e) => e.flush(),
            Encoder::Zstd(e) => e.flush(),
            Encoder::Xz(e) => e.flush(),
            Encoder::Bzip2(e) => e.flush(),
        }
    }
}
