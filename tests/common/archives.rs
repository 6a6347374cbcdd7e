//! Generators of every archive and compression kind iosift reads (for tests/archives.rs
//! and the mutation loop of tests/fuzz_archives.rs): built in memory from given members
//! with the same crates customers' tools are compatible with (tar, flate2, zstd,
//! bzip2, lzma-rust2, zip), plus hand-built zips for LZMA members (zip cannot write
//! them) and for an overlapping-files zip bomb, and bombs made by repeating one
//! compressed piece (gigabytes decoded from kilobytes, without compressing gigabytes).

use std::io::Write;

/// One kind of input file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seed {
    Tar,
    TarV7,
    TarGz,
    TarZst,
    TarXz,
    TarBz2,
    Gz,
    Zst,
    Xz,
    Bz2,
    ZipDeflate,
    ZipBzip2,
    ZipXz,
    ZipZstd,
    ZipLzma,
}

impl Seed {
    /// Every kind.
    pub const ALL: [Seed; 15] = [
        Seed::Tar,
        Seed::TarV7,
        Seed::TarGz,
        Seed::TarZst,
        Seed::TarXz,
        Seed::TarBz2,
        Seed::Gz,
        Seed::Zst,
        Seed::Xz,
        Seed::Bz2,
        Seed::ZipDeflate,
        Seed::ZipBzip2,
        Seed::ZipXz,
        Seed::ZipZstd,
        Seed::ZipLzma,
    ];

    /// The file name a customer would give it.
    pub fn file_name(self) -> &'static str {
        match self {
            Seed::Tar => "c.tar",
            Seed::TarV7 => "c-v7.tar",
            Seed::TarGz => "c.tar.gz",
            Seed::TarZst => "c.tar.zst",
            Seed::TarXz => "c.tar.xz",
            Seed::TarBz2 => "c.tar.bz2",
            Seed::Gz => "vmstat-t.txt.gz",
            Seed::Zst => "vmstat-t.txt.zst",
            Seed::Xz => "vmstat-t.txt.xz",
            Seed::Bz2 => "vmstat-t.txt.bz2",
            Seed::ZipDeflate => "deflate.zip",
            Seed::ZipBzip2 => "bzip2.zip",
            Seed::ZipXz => "xz.zip",
            Seed::ZipZstd => "zstd.zip",
            Seed::ZipLzma => "lzma.zip",
        }
    }

    /// A compressed single file (it holds the first member's bytes only).
    pub fn is_single_stream(self) -> bool {
        matches!(self, Seed::Gz | Seed::Zst | Seed::Xz | Seed::Bz2)
    }

    /// True when every byte of the file is covered by a checksum, so any change to the
    /// decoded content must be detected (gzip/xz/bzip2 CRCs, a zstd frame checksum).
    pub fn is_checksummed(self) -> bool {
        matches!(
            self,
            Seed::TarGz
                | Seed::TarZst
                | Seed::TarXz
                | Seed::TarBz2
                | Seed::Gz
                | Seed::Zst
                | Seed::Xz
                | Seed::Bz2
        )
    }

    /// The file's bytes.
    pub fn build(self, members: &[(&str, &[u8])]) -> Vec<u8> {
        let first = members[0].1;
        match self {
            Seed::Tar => tar(members),
            Seed::TarV7 => tar_v7(members),
            Seed::TarGz => gzip(&tar(members)),
            Seed::TarZst => zstd(&tar(members)),
            Seed::TarXz => xz(&tar(members)),
            Seed::TarBz2 => bzip2(&tar(members)),
            Seed::Gz => gzip(first),
            Seed::Zst => zstd(first),
            Seed::Xz => xz(first),
            Seed::Bz2 => bzip2(first),
            Seed::ZipDeflate => zip(members, zip::CompressionMethod::Deflated),
            Seed::ZipBzip2 => zip(members, zip::CompressionMethod::Bzip2),
            Seed::ZipXz => zip(members, zip::CompressionMethod::Xz),
            Seed::ZipZstd => zip(members, zip::CompressionMethod::Zstd),
            Seed::ZipLzma => zip_lzma(members),
        }
    }
}

/// A GNU tar of the members.
pub fn tar(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut t = tar::Builder::new(Vec::new());
    for (name, data) in members {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        t.append_data(&mut h, name, *data).unwrap();
    }
    t.into_inner().unwrap()
}

/// A pre-POSIX (v7) tar: no `ustar` magic, only name, mode, size and checksum.
pub fn tar_v7(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut t = tar::Builder::new(Vec::new());
    for (name, data) in members {
        let mut h = tar::Header::new_old();
        h.set_path(name).unwrap();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(1_764_615_000);
        h.set_cksum();
        t.append(&h, *data).unwrap();
    }
    let out = t.into_inner().unwrap();
    assert_ne!(&out[257..262], b"ustar");
    out
}

pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// zstd with a frame checksum, as the `zstd` tool writes by default.
pub fn zstd(data: &[u8]) -> Vec<u8> {
    let mut e = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
    e.include_checksum(true).unwrap();
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// xz with the default CRC64 check, preset 1 (fast in a debug build).
pub fn xz(data: &[u8]) -> Vec<u8> {
    let mut w = lzma_rust2::XzWriter::new(Vec::new(), lzma_rust2::XzOptions::with_preset(1)).unwrap();
    w.write_all(data).unwrap();
    w.finish().unwrap()
}

pub fn bzip2(data: &[u8]) -> Vec<u8> {
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A zip whose members use `method`.
pub fn zip(members: &[(&str, &[u8])], method: zip::CompressionMethod) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let mut opts = zip::write::SimpleFileOptions::default().compression_method(method);
    if method == zip::CompressionMethod::Xz {
        opts = opts.compression_level(Some(1));
    }
    for (name, data) in members {
        w.start_file(*name, opts).unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// Sets the "encrypted" flag (bit 0 of the general purpose flags) of every member.
pub fn encrypted_flag(mut z: Vec<u8>) -> Vec<u8> {
    for (sig, off) in [(&b"PK\x03\x04"[..], 6), (b"PK\x01\x02", 8)] {
        let at: Vec<usize> = z.windows(4).enumerate().filter(|(_, w)| *w == sig).map(|(i, _)| i).collect();
        for i in at {
            z[i + off] |= 1;
        }
    }
    z
}

/// A zip with LZMA (method 14) members, laid out by hand (APPNOTE 4.3.7, 4.3.12, 4.3.16,
/// 5.8.8): each member's data is `09 14 05 00`, the 5 LZMA property bytes and the raw
/// LZMA stream with an end marker (flag bit 1).
pub fn zip_lzma(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in members {
        let opts = lzma_rust2::LzmaOptions::with_preset(1);
        let mut w = lzma_rust2::LzmaWriter::new_no_header(Vec::new(), &opts, true).unwrap();
        let props = w.props();
        w.write_all(data).unwrap();
        let stream = w.finish().unwrap();
        let mut comp = vec![9, 20, 5, 0, props];
        comp.extend_from_slice(&opts.dict_size.to_le_bytes());
        comp.extend_from_slice(&stream);
        let crc = crc32(data);
        let offset = out.len() as u32;
        let common = |v: &mut Vec<u8>| {
            v.extend_from_slice(&63u16.to_le_bytes()); // version needed: 6.3 (LZMA)
            v.extend_from_slice(&2u16.to_le_bytes()); // flags: end marker present
            v.extend_from_slice(&14u16.to_le_bytes()); // method: LZMA
            v.extend_from_slice(&[0, 0, 0x21, 0]); // 1980-01-01 00:00
            v.extend_from_slice(&crc.to_le_bytes());
            v.extend_from_slice(&(comp.len() as u32).to_le_bytes());
            v.extend_from_slice(&(data.len() as u32).to_le_bytes());
            v.extend_from_slice(&(name.len() as u16).to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes()); // extra length
        };
        out.extend_from_slice(b"PK\x03\x04");
        common(&mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&comp);
        central.extend_from_slice(b"PK\x01\x02");
        central.extend_from_slice(&0x031eu16.to_le_bytes()); // made by: Unix, 3.0
        common(&mut central);
        central.extend_from_slice(&[0; 6]); // comment length, disk, internal attributes
        central.extend_from_slice(&(0o100644u32 << 16).to_le_bytes());
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let cd_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    let n = (members.len() as u16).to_le_bytes();
    out.extend_from_slice(&n);
    out.extend_from_slice(&n);
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// `chunk` compressed once as `seed` (`Gz`, `Zst`, `Xz` or `Bz2`) and repeated `copies`
/// times: gzip members, zstd frames and bzip2 streams one after the other, xz blocks in
/// one stream. It decodes to `copies * chunk.len()` bytes.
pub fn repeated(seed: Seed, chunk: &[u8], copies: usize) -> Vec<u8> {
    match seed {
        Seed::Gz => gzip(chunk).repeat(copies),
        Seed::Zst => zstd(chunk).repeat(copies),
        Seed::Bz2 => bzip2(chunk).repeat(copies),
        Seed::Xz => xz_blocks(&xz(chunk), copies),
        other => panic!("{other:?} is not a single stream"),
    }
}

/// The one block of the single-block xz stream `one`, `copies` times in one stream,
/// with the index and footer written for them (xz file format 2.1.2, 4, 6).
fn xz_blocks(one: &[u8], copies: usize) -> Vec<u8> {
    let len = one.len();
    let backward = u32::from_le_bytes(one[len - 8..len - 4].try_into().unwrap()) as usize;
    let index_at = len - 12 - (backward + 1) * 4;
    assert_eq!(&one[index_at..index_at + 2], &[0, 1], "one block");
    // The record: two multibyte integers (unpadded and uncompressed sizes).
    let mut end = index_at + 2;
    for _ in 0..2 {
        while one[end] & 0x80 != 0 {
            end += 1;
        }
        end += 1;
    }
    let mut index = vec![0];
    let mut n = copies;
    while n >= 0x80 {
        index.push(n as u8 | 0x80);
        n >>= 7;
    }
    index.push(n as u8);
    index.extend(one[index_at + 2..end].repeat(copies));
    index.resize(index.len().div_ceil(4) * 4, 0);
    index.extend_from_slice(&crc32(&index).to_le_bytes());
    let mut footer = ((index.len() / 4 - 1) as u32).to_le_bytes().to_vec();
    footer.extend_from_slice(&one[6..8]);
    let mut out = one[..12].to_vec();
    out.extend(one[12..index_at].repeat(copies));
    out.extend(index);
    out.extend_from_slice(&crc32(&footer).to_le_bytes());
    out.extend(footer);
    out.extend_from_slice(b"YZ");
    out
}

/// An xz stream (no check) of one block whose LZMA2 data is `chunks` stored as
/// uncompressed chunks (control 1, then 2), each at most 65536 bytes (xz file
/// format 3, 4, 6; LZMA2 chunk headers as liblzma writes them).
pub fn xz_stored(chunks: &[&[u8]]) -> Vec<u8> {
    let varint = |mut n: usize, v: &mut Vec<u8>| {
        while n >= 0x80 {
            v.push(n as u8 | 0x80);
            n >>= 7;
        }
        v.push(n as u8);
    };
    let mut out = b"\xFD7zXZ\x00\x00\x00".to_vec();
    out.extend_from_slice(&crc32(&[0, 0]).to_le_bytes());
    // Block header: size 12, one filter, LZMA2 (0x21) with 1 property byte (dictionary 8 MiB).
    let mut header = vec![2, 0, 0x21, 1, 22, 0, 0, 0];
    header.extend_from_slice(&crc32(&header).to_le_bytes());
    let mut block = header;
    for (i, c) in chunks.iter().enumerate() {
        block.push(if i == 0 { 1 } else { 2 });
        block.extend_from_slice(&((c.len() - 1) as u16).to_be_bytes());
        block.extend_from_slice(c);
    }
    block.push(0);
    let unpadded = block.len();
    block.resize(unpadded.div_ceil(4) * 4, 0);
    out.extend(block);
    let mut index = vec![0, 1];
    varint(unpadded, &mut index);
    varint(chunks.iter().map(|c| c.len()).sum(), &mut index);
    index.resize(index.len().div_ceil(4) * 4, 0);
    index.extend_from_slice(&crc32(&index).to_le_bytes());
    let mut footer = ((index.len() / 4 - 1) as u32).to_le_bytes().to_vec();
    footer.extend_from_slice(&[0, 0]);
    out.extend(index);
    out.extend_from_slice(&crc32(&footer).to_le_bytes());
    out.extend(footer);
    out.extend_from_slice(b"YZ");
    out
}

/// A zip bomb of the overlapping-files kind (David Fifield, "A better zip bomb",
/// 2019, with the quoting in extra fields): after the stored members `before`,
/// `files` members that all decode one deflated kernel of `kernel` zero bytes. Each
/// member's local header holds the next member's in an extra field, so every member's
/// data starts at the kernel, and each one's range (header to data end) holds all
/// the later ones.
pub fn overlapping_zip(before: &[(&str, &[u8])], kernel: usize, files: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in before {
        let offset = out.len() as u32;
        let fields = fields(0, crc32(data), data.len(), data.len());
        out.extend(local(name, &fields, &[]));
        out.extend_from_slice(data);
        central.extend(central_record(name, &fields, offset));
    }
    let zeros = vec![0; kernel];
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(&zeros).unwrap();
    let deflated = e.finish().unwrap();
    let mut crc = flate2::Crc::new();
    crc.update(&zeros);
    let f = fields(8, crc.sum(), deflated.len(), kernel);
    let names: Vec<String> = (0..files).map(|i| format!("bomb/{i:04}.txt")).collect();
    // From the innermost header out: each holds the next in an extra field (id 0x9999).
    let mut header = Vec::new();
    for name in names.iter().rev() {
        let mut extra = Vec::new();
        if !header.is_empty() {
            extra.extend_from_slice(&0x9999u16.to_le_bytes());
            extra.extend_from_slice(&(header.len() as u16).to_le_bytes());
            extra.extend(header);
        }
        header = local(name, &f, &extra);
    }
    let base = out.len();
    out.extend(header);
    out.extend(deflated);
    let step = 30 + names[0].len() + 4;
    for (k, name) in names.iter().enumerate() {
        central.extend(central_record(name, &f, (base + k * step) as u32));
    }
    let cd_offset = out.len() as u32;
    let count = (before.len() + files) as u16;
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// The fields local and central headers share, from "version needed" to the sizes
/// (APPNOTE 4.3.7): method, CRC-32, compressed and uncompressed size.
fn fields(method: u16, crc: u32, compressed: usize, size: usize) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(&20u16.to_le_bytes()); // version needed: 2.0
    v.extend_from_slice(&0u16.to_le_bytes()); // flags
    v.extend_from_slice(&method.to_le_bytes());
    v.extend_from_slice(&[0, 0, 0x21, 0]); // 1980-01-01 00:00
    v.extend_from_slice(&crc.to_le_bytes());
    v.extend_from_slice(&(compressed as u32).to_le_bytes());
    v.extend_from_slice(&(size as u32).to_le_bytes());
    v
}

fn local(name: &str, fields: &[u8], extra: &[u8]) -> Vec<u8> {
    let mut v = b"PK\x03\x04".to_vec();
    v.extend_from_slice(fields);
    v.extend_from_slice(&(name.len() as u16).to_le_bytes());
    v.extend_from_slice(&(extra.len() as u16).to_le_bytes());
    v.extend_from_slice(name.as_bytes());
    v.extend_from_slice(extra);
    v
}

fn central_record(name: &str, fields: &[u8], offset: u32) -> Vec<u8> {
    let mut v = b"PK\x01\x02".to_vec();
    v.extend_from_slice(&0x031eu16.to_le_bytes()); // made by: Unix, 3.0
    v.extend_from_slice(fields);
    v.extend_from_slice(&(name.len() as u16).to_le_bytes());
    v.extend_from_slice(&[0; 8]); // extra and comment lengths, disk, internal attributes
    v.extend_from_slice(&(0o100644u32 << 16).to_le_bytes());
    v.extend_from_slice(&offset.to_le_bytes());
    v.extend_from_slice(name.as_bytes());
    v
}

/// CRC-32 (IEEE, reflected), bit by bit: small inputs only.
pub fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 { (c >> 1) ^ 0xEDB8_8320 } else { c >> 1 };
        }
    }
    !c
}
