//! Bundles read from a folder, a .tar.gz and a .zip give the same tables;
//! `iosift tables` Parquet reads back with the same row counts.

use iosift::bundle::{Limits, load};
use iosift::pipeline::{Options, run};
use polars::prelude::*;
use std::io::Write;
use std::path::PathBuf;

fn sample() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/mariadb_relaxed/capture"))
}

fn files() -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(sample())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    v.sort();
    v
}

#[test]
fn folder_targz_and_zip_give_the_same_timeline() {
    let tmp = tempfile::tempdir().unwrap();
    let tgz = tmp.path().join("capture.tar.gz");
    {
        let enc =
            flate2::write::GzEncoder::new(std::fs::File::create(&tgz).unwrap(), flate2::Compression::fast());
        let mut tb = tar::Builder::new(enc);
        for (name, data) in files() {
            let mut h = tar::Header::new_gnu();
            h.set_size(data.len() as u64);
            h.set_mode(0o644);
            h.set_cksum();
            tb.append_data(&mut h, format!("capture/{name}"), data.as_slice()).unwrap();
        }
        tb.into_inner().unwrap().finish().unwrap();
    }
    let zpath = tmp.path().join("capture.zip");
    {
        let mut z = ::zip::ZipWriter::new(std::fs::File::create(&zpath).unwrap());
        let opts =
            ::zip::write::SimpleFileOptions::default().compression_method(::zip::CompressionMethod::Deflated);
        for (name, data) in files() {
            z.start_file(format!("capture/{name}"), opts).unwrap();
            z.write_all(&data).unwrap();
        }
        z.finish().unwrap();
    }
    let opts = Options::default();
    let lim = Limits::default();
    let a = run(&load(&[sample()], &lim).unwrap(), &opts);
    let b = run(&load(&[tgz], &lim).unwrap(), &opts);
    let c = run(&load(&[zpath], &lim).unwrap(), &opts);
    assert!(a.timeline.len > 30);
    for other in [&b, &c] {
        assert_eq!(a.timeline.t0, other.timeline.t0);
        assert_eq!(a.timeline.len, other.timeline.len);
        let ka: Vec<_> = a.timeline.columns.keys().collect();
        let kb: Vec<_> = other.timeline.columns.keys().collect();
        assert_eq!(ka, kb);
        for (k, s) in &a.timeline.columns {
            assert_eq!(s.values, other.timeline.columns[k].values, "column {k}");
        }
    }
}

#[test]
fn parquet_reads_back_with_the_same_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let b = load(&[sample()], &Limits::default()).unwrap();
    let written = iosift::output::write_tables(
        &b,
        &Options::default(),
        tmp.path(),
        iosift::table::TableFormat::Parquet,
    )
    .unwrap();
    assert!(written.len() >= 5, "{written:?}");
    let p = run(&b, &Options::default());
    let tl = written.iter().find(|w| w.ends_with("timeline.parquet")).unwrap();
    let df = ParquetReader::new(std::fs::File::open(tl).unwrap()).finish().unwrap();
    assert_eq!(df.height(), p.timeline.len);
    assert_eq!(df.width(), p.timeline.columns.len() + 1);
    for w in &written {
        let df = ParquetReader::new(std::fs::File::open(w).unwrap()).finish().unwrap();
        assert!(df.height() > 0, "{}", w.display());
        assert!(df.column("time").is_ok());
    }
}
