//! What holds the files: a folder (walked, sorted), a tar (plain, gzip, zstd, xz, bzip2:
//! read and written as streams; a member is scrubbed into a scratch file first, since a
//! tar header gives the size before the data), a zip, or one file. Member and file names
//! are scrubbed too ([`super::generic::Generic::file_name`]); links and devices are left
//! out and listed.

use super::codec::Codec;
use super::stream::Pass;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The layout of the input (and so of the output).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// A folder.
    Dir,
    /// A tar, compressed by the codec.
    Tar(Codec),
    /// A zip.
    Zip,
    /// One file (compressed or not).
    File,
}

impl Layout {
    /// The layout of `path` (by its kind and name).
    pub(crate) fn of(path: &Path) -> std::io::Result<Layout> {
        if std::fs::metadata(path)?.is_dir() {
            return Ok(Layout::Dir);
        }
        let n = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
        let tar = |exts: &[&str]| exts.iter().any(|e| n.ends_with(e));
        Ok(if tar(&[".tar"]) {
            Layout::Tar(Codec::Plain)
        } else if tar(&[".tar.gz", ".tgz"]) {
            Layout::Tar(Codec::Gzip)
        } else if tar(&[".tar.zst", ".tzst"]) {
            Layout::Tar(Codec::Zstd)
        } else if tar(&[".tar.xz", ".txz"]) {
            Layout::Tar(Codec::Xz)
        } else if tar(&[".tar.bz2", ".tbz2"]) {
            Layout::Tar(Codec::Bzip2)
        } else if n.ends_with(".zip") {
            Layout::Zip
        } else {
            Layout::File
        })
    }
}

/// What was left out.
#[derive(Debug, Default)]
pub(crate) struct Skipped(pub Vec<String>);

/// Where a scrub reads and writes.
pub(crate) struct Paths<'p> {
    /// The capture.
    pub(crate) input: &'p Path,
    /// The scrubbed copy.
    pub(crate) out: &'p Path,
    /// A private folder for tar members.
    pub(crate) scratch: &'p Path,
}

/// Runs `pass` over the files of the input; writes them to the output unless learning.
pub(crate) fn run(
    layout: Layout,
    at: &Paths<'_>,
    pass: &mut Pass<'_>,
    skipped: &mut Skipped,
) -> std::io::Result<()> {
    let (input, out) = (at.input, at.out);
    match layout {
        Layout::Dir => dir(input, input, out, pass, skipped),
        Layout::Tar(c) => tar(c, at, pass, skipped),
        Layout::Zip => zip(input, out, pass, skipped),
        Layout::File => {
            let name = input.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let shown = pass.generic.file_name(&name, pass.m);
            let r = std::fs::File::open(input)?;
            let mut w = sink_or_file(pass, out)?;
            pass.file(&name, &shown, r, &mut w)?;
            w.flush()
        }
    }
}

fn sink_or_file(pass: &Pass<'_>, out: &Path) -> std::io::Result<Box<dyn Write>> {
    Ok(if pass.learn.is_some() {
        Box::new(std::io::sink())
    } else {
        Box::new(std::io::BufWriter::new(std::fs::File::create(out)?))
    })
}

/// A name with each component scrubbed.
fn scrub_rel(rel: &str, pass: &mut Pass<'_>) -> String {
    rel.split('/')
        .filter(|c| !c.is_empty() && *c != "." && *c != "..")
        .map(|c| pass.generic.file_name(c, pass.m))
        .collect::<Vec<_>>()
        .join("/")
}

fn dir(root: &Path, d: &Path, out: &Path, pass: &mut Pass<'_>, skipped: &mut Skipped) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(d)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        let rel = p.strip_prefix(root).unwrap_or(&p).to_string_lossy().into_owned();
        let meta = std::fs::symlink_metadata(&p)?;
        let shown = scrub_rel(&rel, pass);
        if meta.is_dir() {
            if pass.learn.is_none() {
                std::fs::create_dir_all(out.join(&shown))?;
            }
            dir(root, &p, out, pass, skipped)?;
        } else if meta.is_file() {
            let mut w = sink_or_file(pass, &out.join(&shown))?;
            pass.file(&rel, &shown, std::fs::File::open(&p)?, &mut w)?;
            w.flush()?;
        } else if pass.learn.is_none() {
            skipped.0.push(format!("{shown}: not a regular file (a link or device), left out"));
        }
    }
    Ok(())
}

fn tar(codec: Codec, at: &Paths<'_>, pass: &mut Pass<'_>, skipped: &mut Skipped) -> std::io::Result<()> {
    let (input, out, scratch) = (at.input, at.out, at.scratch);
    let mut ar = tar::Archive::new(codec.reader(std::io::BufReader::new(std::fs::File::open(input)?))?);
    let mut builder = match pass.learn {
        Some(_) => None,
        None => Some(tar::Builder::new(codec.writer(std::io::BufWriter::new(std::fs::File::create(out)?))?)),
    };
    for entry in ar.entries()? {
        let mut e = entry?;
        let rel = e.path()?.to_string_lossy().into_owned();
        let shown = scrub_rel(&rel, pass);
        let kind = e.header().entry_type();
        let Some(b) = builder.as_mut() else {
            if kind.is_file() {
                pass.file(&rel, &shown, &mut e, &mut std::io::sink())?;
            }
            continue;
        };
        let mut h = e.header().clone();
        if kind.is_dir() {
            h.set_size(0);
            b.append_data(&mut h, format!("{shown}/"), std::io::empty())?;
        } else if kind.is_file() {
            let tmp = scratch.join("member");
            {
                let mut w = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
                pass.file(&rel, &shown, &mut e, &mut w)?;
                w.flush()?;
            }
            h.set_size(std::fs::metadata(&tmp)?.len());
            b.append_data(&mut h, &shown, std::fs::File::open(&tmp)?)?;
            std::fs::remove_file(&tmp)?;
        } else {
            skipped.0.push(format!("{shown}: not a regular file (a link or device), left out"));
        }
    }
    if let Some(b) = builder {
        b.into_inner()?.finish()?.flush()?;
    }
    Ok(())
}

fn zip(input: &Path, out: &Path, pass: &mut Pass<'_>, skipped: &mut Skipped) -> std::io::Result<()> {
    let mut ar = zip::ZipArchive::new(std::fs::File::open(input)?).map_err(std::io::Error::other)?;
    let mut zw = match pass.learn {
        Some(_) => None,
        None => Some(zip::ZipWriter::new(std::fs::File::create(out)?)),
    };
    for i in 0..ar.len() {
        let mut f = ar.by_index(i).map_err(std::io::Error::other)?;
        let rel = f.name().to_string();
        let shown = scrub_rel(&rel, pass);
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .large_file(f.size() >= (4 << 30) - (64 << 20));
        if f.is_dir() {
            if let Some(z) = zw.as_mut() {
                z.add_directory(shown.as_str(), opts).map_err(std::io::Error::other)?;
            }
        } else if f.is_file() {
            match zw.as_mut() {
                Some(z) => {
                    z.start_file(shown.as_str(), opts).map_err(std::io::Error::other)?;
                    pass.file(&rel, &shown, &mut f, z)?;
                }
                None => pass.file(&rel, &shown, &mut f, &mut std::io::sink())?,
            }
        } else if zw.is_some() {
            skipped.0.push(format!("{shown}: not a regular file, left out"));
        }
    }
    if let Some(z) = zw {
        z.finish().map_err(std::io::Error::other)?;
    }
    Ok(())
}
