//! Bundles read from a folder, a .tar.gz and a .zip give the same tables;
//! `iosift tables` Parquet reads back with the same row counts, with names a
//! notebook needs no quotes for, entities filled, a threads table and every
//! thread in the per-source tables; `iosift batch`'s dataset reads as one
//! table in DuckDB across bundles.

use crate::common;

use iosift::bundle::{Limits, load};
use iosift::pipeline::{Options, run};
use iosift::table::Col;
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
        let ka: Vec<_> = a.timeline.iter().map(|(c, _)| c).collect();
        let kb: Vec<_> = other.timeline.iter().map(|(c, _)| c).collect();
        assert_eq!(ka, kb);
        for (k, s) in a.timeline.iter() {
            assert_eq!(Some(s.values.as_slice()), other.timeline.get(k), "column {k}");
        }
    }
}

/// `iosift tables` of the sample into a temporary folder.
fn write_sample_tables() -> (tempfile::TempDir, iosift::bundle::Bundle, Vec<PathBuf>) {
    let tmp = tempfile::tempdir().unwrap();
    let b = load(&[sample()], &Limits::default()).unwrap();
    let written = iosift::output::write_tables(
        &b,
        &Options::default(),
        tmp.path(),
        iosift::table::TableFormat::Parquet,
    )
    .unwrap();
    (tmp, b, written)
}

#[test]
fn parquet_reads_back_with_the_same_rows() {
    let (_tmp, b, written) = write_sample_tables();
    assert!(written.len() >= 5, "{written:?}");
    let p = run(&b, &Options::default());
    let tl = written.iter().find(|w| w.ends_with("timeline.parquet")).unwrap();
    let df = ParquetReader::new(std::fs::File::open(tl).unwrap()).finish().unwrap();
    assert_eq!(df.height(), p.timeline.len);
    assert_eq!(df.width(), p.timeline.column_count() + 1);
    // Besides the tables, the folded stacks of the capture's perf scripts (tests/stacks.rs).
    let (tables, other): (Vec<_>, Vec<_>) =
        written.iter().partition(|w| w.extension().is_some_and(|e| e == "parquet"));
    assert!(other.iter().all(|w| w.extension().is_some_and(|e| e == "folded")), "{other:?}");
    for w in tables {
        let df = ParquetReader::new(std::fs::File::open(w).unwrap()).finish().unwrap();
        assert!(df.height() > 0, "{}", w.display());
        let stem = w.file_stem().unwrap().to_string_lossy();
        if stem != "columns" && stem != "threads" {
            assert!(df.column("time").is_ok(), "{}", w.display());
        }
    }
}

fn read(p: &std::path::Path) -> DataFrame {
    ParquetReader::new(std::fs::File::open(p).unwrap()).finish().unwrap()
}

#[test]
fn tables_for_notebooks_names_entities_threads_and_every_source_row() {
    let (tmp, b, written) = write_sample_tables();
    let p = run(&b, &Options::default());
    // Column names: no dots, nothing to quote; the mapping table gives the old names.
    let tl = read(&tmp.path().join("timeline.parquet"));
    for n in tl.get_column_names() {
        assert!(n.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'), "{n}");
    }
    let cols = read(&tmp.path().join("columns.parquet"));
    assert_eq!(cols.height(), p.timeline.column_count());
    let col = cols.column("column").unwrap().str().unwrap();
    let old = cols.column("timeline_name").unwrap().str().unwrap();
    let i = (0..cols.height())
        .find(|&i| old.get(i) == Some("dev.vda.w_bytes_s"))
        .expect("dev.vda.w_bytes_s mapped");
    assert_eq!(col.get(i), Some("dev_vda_w_bytes_s"));
    assert!(tl.column("dev_vda_w_bytes_s").is_ok());
    // Threads: tid, tgid, name, category for every pidstat thread that wrote.
    let th = read(&tmp.path().join("threads.parquet"));
    assert_eq!(th.height(), p.threads.len());
    assert!(th.height() > 8, "only {} threads", th.height());
    let names = th.column("name").unwrap().str().unwrap();
    assert!((0..th.height()).any(|i| names.get(i) == Some("mariadbd")), "no mariadbd thread");
    // The pidstat source table holds every thread the timeline did not keep.
    let pid = written.iter().find(|w| w.to_string_lossy().ends_with("pidstat-d-t-h.txt.parquet")).unwrap();
    let df = read(pid);
    let ent = df.column("entity").unwrap().str().unwrap();
    let met = df.column("metric").unwrap().str().unwrap();
    let tids: std::collections::BTreeSet<&str> = (0..df.height())
        .filter(|&i| met.get(i) == Some("thr_w_bytes_s"))
        .filter_map(|i| ent.get(i))
        .collect();
    let kept = p.timeline.iter().filter(|(c, _)| matches!(c, Col::Thread(_))).count();
    assert!(tids.len() > kept, "{} threads in the source table, {kept} in the timeline", tids.len());
    // No empty entity anywhere.
    for w in written.iter().filter(|w| w.file_name().is_some_and(|n| n.to_string_lossy().starts_with('0'))) {
        let df = read(w);
        let e = df.column("entity").unwrap().str().unwrap();
        assert!((0..df.height()).all(|i| e.get(i).is_some_and(|x| !x.is_empty())), "{}", w.display());
    }
}

#[test]
fn batch_dataset_is_one_table_for_duckdb_across_bundles() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let have_duckdb = std::process::Command::new("python3")
        .args(["-c", "import duckdb"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_duckdb {
        common::support::skip("python3 with duckdb not found (CI installs it: pip install duckdb)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let inputs = [
        root.join("samples/ext4_dioread_nolock_derived"),
        root.join("samples/ext4_dioread_nolock_derived_fixed_kernel"),
    ];
    let rows = iosift::batch::run(&inputs, tmp.path(), 2, &Options::default(), &Limits::default()).unwrap();
    assert!(rows.iter().all(|r| r.error.is_none()), "{rows:?}");
    // What each bundle's timeline holds, counted by iosift itself.
    let cells = |case: &str| {
        let b = load(&[root.join("samples").join(case).join("capture")], &Limits::default()).unwrap();
        let p = run(&b, &Options::default());
        p.timeline
            .iter()
            .map(|(_, s)| s)
            .map(|s| s.values.iter().filter(|v| v.is_some()).count())
            .sum::<usize>()
    };
    let sql = format!(
        "select bundle, count(*), count(distinct metric), min(time) from read_parquet('{}/dataset/*/*.parquet', hive_partitioning=true) group by bundle order by bundle",
        tmp.path().display()
    );
    let script = format!(
        "import duckdb\nfor r in duckdb.sql(\"{sql}\").fetchall(): print(r[0], r[1], r[2], r[3].isoformat())"
    );
    let out = std::process::Command::new("python3").args(["-c", &script]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split(' ').collect()).collect();
    assert_eq!(lines.len(), 2, "{text}");
    for (l, case) in
        lines.iter().zip(["ext4_dioread_nolock_derived", "ext4_dioread_nolock_derived_fixed_kernel"])
    {
        assert_eq!(l[0], case, "{text}");
        assert_eq!(l[1].parse::<usize>().unwrap(), cells(case), "{text}");
        assert!(l[2].parse::<usize>().unwrap() >= 10, "{text}");
        assert!(l[3].starts_with("2022-03-15T00:00:00"), "{text}");
    }
}

/// A hand-written `pidstat -d -t -h 1` in the layout sysstat 12.6 prints (the header once, the
/// time on every row), 40 threads of one process, thread `5000 + k` writing `k` kB/s for 30 s:
/// more threads than the fill gives columns to (`THREAD_CANDIDATES`), so the first pass picks them.
#[test]
fn many_threads_keep_the_busiest_columns_and_every_total() {
    use iosift::pipeline::caps::{KEPT_THREADS, THREAD_CANDIDATES};
    let n = 40u32;
    assert!(n as usize > THREAD_CANDIDATES);
    let mut text = String::from(
        "Linux 6.18.44 (vm) \t11/29/26 \t_x86_64_\t(2 CPU)\n\n# Time        UID      TGID       TID   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command\n",
    );
    let all = (1..=n).sum::<u32>() as f64;
    for s in 0..30 {
        let t = format!("19:37:{:02}", 20 + s);
        text +=
            &format!("{t}        0      5000         -      0.00   {all:>7.2}      0.00       0  writer\n");
        for k in 1..=n {
            text += &format!(
                "{t}        0         -      {:>4}      0.00   {:>7.2}      0.00       0  |__w{k}\n",
                5000 + k,
                k as f64
            );
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("cap");
    std::fs::create_dir(&cap).unwrap();
    std::fs::write(cap.join("pidstat-d-t-h.txt"), text).unwrap();
    let b = load(&[cap], &Limits::default()).unwrap();
    let p = run(&b, &Options::default());
    // Every thread's total: 30 reports of 1 s.
    assert_eq!(p.threads.len(), n as usize);
    for k in [1, 20, 40] {
        let got = p.threads[&(5000 + k)].bytes;
        assert_eq!(got, k as f64 * 1024.0 * 30.0, "thread {k}");
    }
    // The columns: the busiest 8 (5033..=5040), each with its rate every second.
    let kept: Vec<String> =
        p.timeline.iter().filter(|(c, _)| matches!(c, Col::Thread(_))).map(|(c, _)| c.name()).collect();
    let want: Vec<String> =
        (5040 - KEPT_THREADS as u32 + 1..=5040).map(|t| format!("thr.{t}.w_bytes_s")).collect();
    assert_eq!(kept, want);
    let c = p.timeline.series(&Col::Thread(5040)).unwrap();
    assert_eq!(c.values.iter().flatten().filter(|v| *v == 40.0 * 1024.0).count(), 30);
    assert!(p.clock_warnings.iter().all(|w| !w.contains("per-thread column")), "{:?}", p.clock_warnings);
}

/// Issue 33: a thread named like a formula (`=HYPERLINK(...)`) is written to CSV as text
/// (OWASP: a `'` in front, the cell quoted where CSV needs it); numbers stay numbers and
/// Parquet keeps the raw name.
#[test]
fn csv_cells_a_spreadsheet_would_run_are_written_as_text() {
    let evil = r#"=HYPERLINK("http://evil.test/?q","open me")"#;
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("cap");
    std::fs::create_dir(&cap).unwrap();
    let mut pidstat = String::from(
        "Linux 6.18.44-fc-v669 (vm) \t2026-11-29 \t_x86_64_\t(2 CPU)\n\n\
         # Time        UID      TGID       TID   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command\n",
    );
    for s in 55..58 {
        pidstat.push_str(&format!(
            "21:13:{s}        0      4395         -      0.00  100.00      0.00       0  bash\n"
        ));
        pidstat.push_str(&format!(
            "21:13:{s}        0         -      4395      0.00  100.00      0.00       0  |__{evil}\n"
        ));
        pidstat.push_str(&format!(
            "21:13:{s}        0         -      4396      0.00   50.00      0.00       0  |__@SUM(1+1)\n"
        ));
    }
    std::fs::write(cap.join("pidstat-d-t-h.txt"), pidstat).unwrap();
    let b = load(&[cap], &Limits::default()).unwrap();
    let out = tmp.path().join("csv");
    let written =
        iosift::output::write_tables(&b, &Options::default(), &out, iosift::table::TableFormat::Csv).unwrap();
    let threads = written.iter().find(|w| w.ends_with("threads.csv")).expect("threads.csv");
    let text = std::fs::read_to_string(threads).unwrap();
    let row =
        |tid: &str| text.lines().find(|l| l.starts_with(&format!("{tid},"))).unwrap_or_default().to_string();
    let quoted = format!("\"'{}\"", evil.replace('"', "\"\""));
    assert!(row("4395").contains(&format!(",{quoted},")), "{text}");
    assert!(row("4396").contains(",'@SUM(1+1),"), "{text}");
    // The numbers of those rows are unchanged.
    assert!(row("4395").starts_with("4395,4395,") || row("4395").starts_with("4395,,"), "{text}");
    assert!(!text.lines().any(|l| l.contains(",=") || l.contains(",@")), "{text}");
    // Parquet keeps the raw name.
    let out = tmp.path().join("parquet");
    iosift::output::write_tables(&b, &Options::default(), &out, iosift::table::TableFormat::Parquet).unwrap();
    let th = read(&out.join("threads.parquet"));
    let names: Vec<&str> = th.column("name").unwrap().str().unwrap().iter().flatten().collect();
    assert!(names.contains(&evil), "{names:?}");
}
