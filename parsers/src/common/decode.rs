//! Transparent gzip decoding with an output limit (a gzip bomb is an error,
//! not an out-of-memory kill).

use std::borrow::Cow;
use std::io::Read;

/// Why a buffer could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// The gzip stream is corrupt or cut short; holds what was decoded before the error.
    Corrupt { decoded: usize, message: String },
    /// Decoding would exceed the limit in bytes.
    TooLarge { limit: u64 },
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::Corrupt { decoded, message } => {
                write!(f, "corrupt gzip stream after {decoded} bytes: {message}")
            }
            DecodeError::TooLarge { limit } => {
                write!(f, "decompressed size exceeds the limit of {limit} bytes")
            }
        }
    }
}

impl std::error::Error for DecodeError {}

/// True when the buffer starts with the gzip magic bytes.
pub fn is_gzip(input: &[u8]) -> bool {
    input.starts_with(&[0x1f, 0x8b])
}

/// Decodes gzip input (all members), or borrows non-gzip input unchanged.
pub fn maybe_gunzip(input: &[u8], limit: u64) -> Result<Cow<'_, [u8]>, DecodeError> {
    if !is_gzip(input) {
        return Ok(Cow::Borrowed(input));
    }
    let mut out = Vec::with_capacity(input.len().saturating_mul(4).min(limit as usize));
    let mut dec = flate2::read::MultiGzDecoder::new(input).take(limit.saturating_add(1));
    match dec.read_to_end(&mut out) {
        Ok(_) if out.len() as u64 > limit => Err(DecodeError::TooLarge { limit }),
        Ok(_) => Ok(Cow::Owned(out)),
        Err(e) => Err(DecodeError::Corrupt { decoded: out.len(), message: e.to_string() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn plain_passes_and_gzip_decodes() {
        assert_eq!(&*maybe_gunzip(b"abc", 10).unwrap(), b"abc");
        assert_eq!(&*maybe_gunzip(&gz(b"hello"), 10).unwrap(), b"hello");
    }

    #[test]
    fn bomb_is_limited() {
        let big = gz(&vec![0u8; 100_000]);
        assert_eq!(maybe_gunzip(&big, 1000), Err(DecodeError::TooLarge { limit: 1000 }));
    }

    #[test]
    fn truncated_is_corrupt() {
        let g = gz(&vec![b'x'; 10_000]);
        assert!(matches!(maybe_gunzip(&g[..g.len() / 2], 1 << 20), Err(DecodeError::Corrupt { .. })));
    }
}
