//! The scrubbing key and the keyed token function: HMAC-SHA256 of `kind NUL value`
//! under the key, truncated. The same key gives the same tokens in every file and every
//! bundle; without it a token cannot be turned back into the name (nor confirmed by guessing
//! names, unlike a plain hash).
//!
//! A key file holds the key as 64 hex digits (what [`Key::load_or_create`] writes, mode
//! 0600); any other content is used as the key's bytes as it is (a passphrase file).

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::io::Read;
use std::path::Path;

/// Why a key could not be had.
#[derive(Debug)]
pub enum KeyError {
    /// The key file could not be read or written.
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// The key file is empty.
    Empty(std::path::PathBuf),
}

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyError::Io { path, error } => write!(f, "{}: key file: {error}", path.display()),
            KeyError::Empty(p) => write!(f, "{}: the key file is empty", p.display()),
        }
    }
}

impl std::error::Error for KeyError {}

/// A secret key (never printed, never written into the output), with the HMAC state it
/// keys (computed once: keying hashes two blocks, as much again as a short name's digest).
#[derive(Clone)]
pub struct Key(Vec<u8>, Hmac<Sha256>);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(..)")
    }
}

impl Key {
    /// A key of these bytes (tests; a passphrase).
    pub fn from_bytes(b: &[u8]) -> Key {
        Key(b.to_vec(), <Hmac<Sha256> as Mac>::new_from_slice(b).expect("HMAC takes keys of any length"))
    }

    /// 32 random bytes from the kernel (`/dev/urandom`): a key for one run.
    pub fn random() -> std::io::Result<Key> {
        let mut b = vec![0u8; 32];
        std::fs::File::open("/dev/urandom")?.read_exact(&mut b)?;
        Ok(Key::from_bytes(&b))
    }

    /// The key of `path`; a missing file is created with a new random key (mode 0600,
    /// never over an existing file). Returns the key and whether it was created.
    pub fn load_or_create(path: &Path) -> Result<(Key, bool), KeyError> {
        let io = |error| KeyError::Io { path: path.to_path_buf(), error };
        match std::fs::read(path) {
            Ok(raw) => {
                let text = String::from_utf8_lossy(&raw);
                let t = text.trim();
                if t.is_empty() {
                    return Err(KeyError::Empty(path.to_path_buf()));
                }
                Ok((Key::from_bytes(&from_hex(t).unwrap_or_else(|| t.as_bytes().to_vec())), false))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                use std::io::Write;
                use std::os::unix::fs::OpenOptionsExt;
                let key = Key::random().map_err(io)?;
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(path)
                    .map_err(io)?;
                f.write_all(format!("{}\n", hex(&key.0)).as_bytes()).map_err(io)?;
                Ok((key, true))
            }
            Err(e) => Err(io(e)),
        }
    }

    /// The keyed digest of `value` in the namespace `kind`.
    pub fn digest(&self, kind: &str, value: &[u8]) -> [u8; 32] {
        let mut m = self.1.clone();
        m.update(kind.as_bytes());
        m.update(&[0]);
        m.update(value);
        m.finalize().into_bytes().into()
    }

    /// The first `n` hex digits (n <= 64) of [`Key::digest`].
    pub fn token(&self, kind: &str, value: &[u8], n: usize) -> String {
        let d = self.digest(kind, value);
        let mut h = hex(&d[..n.div_ceil(2).min(32)]);
        h.truncate(n);
        h
    }
}

/// Lower-case hex of bytes.
pub(crate) fn hex(b: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(2 * b.len());
    for x in b {
        s.push(DIGITS[usize::from(x >> 4)] as char);
        s.push(DIGITS[usize::from(x & 15)] as char);
    }
    s
}

/// The bytes of an even-length hex string.
fn from_hex(t: &str) -> Option<Vec<u8>> {
    if !t.len().is_multiple_of(2) || t.len() < 32 || !t.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    (0..t.len()).step_by(2).map(|i| u8::from_str_radix(&t[i..i + 2], 16).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_sha256_matches_rfc_4231_case_2() {
        // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
        let mut m = <Hmac<Sha256> as Mac>::new_from_slice(b"Jefe").unwrap();
        m.update(b"what do ya want for nothing?");
        let out: [u8; 32] = m.finalize().into_bytes().into();
        assert_eq!(hex(&out), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    }

    #[test]
    fn the_keyed_state_gives_what_keying_each_time_gives() {
        let k = Key::from_bytes(b"Jefe");
        let d = k.digest("x", b"y");
        let mut m = <Hmac<Sha256> as Mac>::new_from_slice(b"Jefe").unwrap();
        m.update(b"x\0y");
        let want: [u8; 32] = m.finalize().into_bytes().into();
        assert_eq!(d, want);
        assert_eq!(hex(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
        assert_eq!(k.token("x", b"y", 7), hex(&want)[..7]);
    }

    #[test]
    fn tokens_depend_on_key_kind_and_value() {
        let a = Key::from_bytes(b"k1");
        let b = Key::from_bytes(b"k2");
        assert_eq!(a.token("host", b"db1", 8), a.token("host", b"db1", 8));
        assert_ne!(a.token("host", b"db1", 8), b.token("host", b"db1", 8));
        assert_ne!(a.token("host", b"db1", 8), a.token("user", b"db1", 8));
        assert_eq!(a.token("host", b"db1", 8).len(), 8);
    }

    #[test]
    fn a_key_file_is_created_once_and_read_back() {
        let dir = std::env::temp_dir().join(format!("iosift-key-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("k");
        let _ = std::fs::remove_file(&p);
        let (k1, created) = Key::load_or_create(&p).unwrap();
        assert!(created);
        let (k2, created) = Key::load_or_create(&p).unwrap();
        assert!(!created);
        assert_eq!(k1.token("x", b"y", 16), k2.token("x", b"y", 16));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
