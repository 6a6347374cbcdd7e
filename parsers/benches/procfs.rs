//! Throughput of the `TS`-framed /proc series parsers on real pt-stalk data:
//! the meminfo and procvmstat files of bundle s1 (`../../shared/bundles/
//! s1_mmap_writeback`), their blocks repeated with advancing `TS` stamps
//! until each input is >= 4 MB.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use iosift_parsers::common::Format;
use iosift_parsers::procfs::{diskstats as proc_diskstats, meminfo as proc_meminfo, vmstat as proc_vmstat};
use std::hint::black_box;

const S1: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/bundles/s1_mmap_writeback/2026_11_29_19_37_19");

/// Repeats the real blocks of a TS-before file, rewriting every `TS` line
/// with a new, advancing stamp, until `min` bytes.
fn build(suffix: &str, min: usize) -> Vec<u8> {
    let path = format!("{S1}-{suffix}");
    let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let text = String::from_utf8(data).expect("utf-8");
    let bodies: Vec<&str> = text.split("TS ").filter(|b| !b.is_empty()).collect();
    let mut out = String::with_capacity(min + text.len());
    let mut epoch = 1_795_981_039u64;
    'outer: loop {
        for b in &bodies {
            // b = "<epoch> <date> <time>\n<body>"
            let body = b.split_once('\n').map_or("", |(_, rest)| rest);
            let secs = epoch % 86_400;
            out.push_str(&format!(
                "TS {epoch}.{:09} 2026-11-29 {:02}:{:02}:{:02}\n",
                epoch % 1_000_000_000,
                secs / 3600,
                secs / 60 % 60,
                secs % 60
            ));
            out.push_str(body);
            epoch += 1;
            if out.len() >= min {
                break 'outer;
            }
        }
    }
    out.into_bytes()
}

fn bench(c: &mut Criterion) {
    let meminfo = build("meminfo", 4 << 20);
    let vmstat = build("procvmstat", 4 << 20);
    let diskstats = build("diskstats", 4 << 20);
    // The combined meminfo+vmstat series (as one pt-stalk collection reads both).
    let both = meminfo.len() + vmstat.len();

    let mut g = c.benchmark_group("procfs");
    g.throughput(Throughput::Bytes(both as u64));
    g.bench_function("meminfo+vmstat", |b| {
        b.iter(|| {
            let m = proc_meminfo::Fmt::parse(black_box(&meminfo));
            let v = proc_vmstat::Fmt::parse(black_box(&vmstat));
            assert!(m.diagnostics.is_empty() && v.diagnostics.is_empty());
            (m.value.snapshots.len(), v.value.snapshots.len())
        })
    });
    g.throughput(Throughput::Bytes(meminfo.len() as u64));
    g.bench_function("meminfo", |b| b.iter(|| proc_meminfo::Fmt::parse(black_box(&meminfo))));
    g.throughput(Throughput::Bytes(vmstat.len() as u64));
    g.bench_function("vmstat", |b| b.iter(|| proc_vmstat::Fmt::parse(black_box(&vmstat))));
    g.throughput(Throughput::Bytes(diskstats.len() as u64));
    g.bench_function("diskstats", |b| b.iter(|| proc_diskstats::Fmt::parse(black_box(&diskstats))));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
