//! One file scrubbed as a stream: its compression (gzip, zstd, xz, bzip2) decoded and
//! encoded again, its format detected from its head, then line by line through the
//! format's handler and the generic patterns. Memory holds one line and the head, never
//! the file (a binary file, the sa file of sadc, is read whole up to [`BINARY_MAX`]).

use super::codec::Codec;
use super::formats::Handler;
use super::generic::{Generic, Learnt};
use super::shape::Mapper;
use std::io::{BufRead, BufReader, Read, Write};

/// How much of a file its format is detected from.
const HEAD: usize = 256 << 10;

/// Of a binary file, this much is read and rewritten; the rest is copied as it is.
const BINARY_MAX: u64 = 256 << 20;

/// How one file was scrubbed (for the summary).
#[derive(Debug, Clone)]
pub struct FileDone {
    /// Its (scrubbed) name in the output.
    pub name: String,
    /// The format it was read as (`None`: no format reads it: generic patterns only).
    pub format: Option<&'static str>,
    /// The scrubber used (`fields`, `binlog`, `generic`, ...).
    pub how: &'static str,
}

/// What the pass does with names.
pub(crate) struct Pass<'a> {
    /// The generic patterns.
    pub generic: &'a Generic,
    /// Tokens.
    pub m: &'a mut Mapper,
    /// Learns names (pass 1) instead of writing.
    pub learn: Option<&'a mut Learnt>,
    /// Files done (pass 2).
    pub done: Vec<FileDone>,
    /// Hears which file is being read (the progress line).
    pub stage: &'a dyn Fn(String),
}

impl Pass<'_> {
    /// Scrubs `r` (a file named `name`, shown as `shown`) into `w`.
    pub(crate) fn file(
        &mut self,
        name: &str,
        shown: &str,
        r: impl Read,
        w: &mut dyn Write,
    ) -> std::io::Result<()> {
        let pass =
            if self.learn.is_some() { "learning names (pass 1 of 2)" } else { "writing (pass 2 of 2)" };
        (self.stage)(format!("scrubbing, {pass}: {shown}"));
        let mut r = r;
        let head = read_head(&mut r, HEAD)?;
        let codec = Codec::sniff(&head);
        if codec != Codec::Plain {
            let inner = codec.reader(std::io::Cursor::new(head).chain(r))?;
            let base = strip_ext(name);
            let mut enc = codec.writer(w)?;
            self.file(base, shown, inner, &mut enc)?;
            enc.finish()?;
            return Ok(());
        }
        let base = name.rsplit('/').next().unwrap_or(name);
        if head.iter().take(8192).any(|&b| b == 0) {
            return self.binary(shown, head, r, w);
        }
        let format = iosift_parsers::detect(&head).map(|d| d.format);
        let mut h = Handler::new(format, base);
        if self.learn.is_none() {
            self.done.push(FileDone {
                name: shown.to_string(),
                format: format.map(|f| f.id),
                how: h.label(),
            });
        }
        let mut rd = BufReader::with_capacity(1 << 16, std::io::Cursor::new(head).chain(r));
        let mut line = Vec::new();
        loop {
            line.clear();
            if rd.read_until(b'\n', &mut line)? == 0 {
                break;
            }
            let nl = line.last() == Some(&b'\n');
            let body = if nl { &line[..line.len() - 1] } else { &line[..] };
            let (body, cr) = match body.strip_suffix(b"\r") {
                Some(b) => (b, true),
                None => (body, false),
            };
            if let Some(l) = self.learn.as_deref_mut() {
                self.generic.learn_hosts(body, l);
                h.line(body, self.m, Some(l));
                continue;
            }
            let own = h.line(body, self.m, None);
            w.write_all(&self.generic.line(&own, self.m))?;
            if cr {
                w.write_all(b"\r")?;
            }
            if nl {
                w.write_all(b"\n")?;
            }
        }
        Ok(())
    }

    /// A binary file: the hostnames learnt, where they stand as C strings (`\0vm\0`),
    /// replaced by as many other bytes.
    fn binary(
        &mut self,
        shown: &str,
        head: Vec<u8>,
        mut r: impl Read,
        w: &mut dyn Write,
    ) -> std::io::Result<()> {
        if self.learn.is_none() {
            self.done.push(FileDone { name: shown.to_string(), format: None, how: "binary" });
        }
        let mut data = head;
        (&mut r).take(BINARY_MAX).read_to_end(&mut data)?;
        if self.learn.is_some() {
            return std::io::copy(&mut r, &mut std::io::sink()).map(|_| ());
        }
        for host in self.generic.hosts_any() {
            let pat: Vec<u8> = [&[0u8][..], host, &[0u8][..]].concat();
            let tok = self.m.host(host).into_bytes();
            let mut same: Vec<u8> = tok.iter().copied().filter(u8::is_ascii_alphanumeric).collect();
            same.resize(host.len(), b'x');
            let mut at = 0;
            while let Some(i) = memchr::memmem::find(&data[at..], &pat).map(|i| i + at) {
                // A NUL-padded field (sa's nodename, 65 bytes) takes the whole token, as the
                // text files show it; otherwise as many bytes as the name had.
                let end = i + 1 + tok.len();
                let padded = end < data.len() && data[i + 1 + host.len()..=end].iter().all(|&b| b == 0);
                let new: &[u8] = if padded { &tok } else { &same };
                data[i + 1..i + 1 + new.len()].copy_from_slice(new);
                at = i + 1 + new.len();
            }
        }
        w.write_all(&data)?;
        // Past BINARY_MAX: copied as it is.
        std::io::copy(&mut r, w).map(|_| ())
    }
}

/// Up to `n` bytes from the start of `r`.
fn read_head(r: &mut impl Read, n: usize) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(n.min(1 << 16));
    r.take(n as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// `x.txt.gz` -> `x.txt`.
fn strip_ext(name: &str) -> &str {
    for ext in [".gz", ".zst", ".xz", ".bz2"] {
        if let Some(b) = name.strip_suffix(ext) {
            return b;
        }
    }
    name
}
