//! Throughput of the iostat parser on a real capture: the reports of
//! `shared/bundles/s1_mmap_writeback/iostat-x-t.txt` (sysstat 12.6.1, `iostat -x -t 1 240`)
//! repeated with advancing `-t` stamps until the input is >= 4 MB.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use iosift_parsers::common::Format;
use std::hint::black_box;

fn source(rel: &str) -> Vec<u8> {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/").to_string() + rel;
    std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// Banner + the reports repeated, each stamp line rewritten one second after the previous.
fn build_text(min_len: usize) -> Vec<u8> {
    let src = String::from_utf8(source("bundles/s1_mmap_writeback/iostat-x-t.txt")).unwrap();
    let mut lines = src.lines();
    let banner = lines.next().unwrap();
    let mut reports: Vec<Vec<&str>> = Vec::new();
    for l in lines {
        if l.starts_with("11/29/26 ") {
            reports.push(Vec::new());
        }
        if let Some(r) = reports.last_mut() {
            r.push(l);
        }
    }
    let mut t = chrono::NaiveDate::from_ymd_opt(2026, 11, 29).unwrap().and_hms_opt(19, 37, 19).unwrap();
    let mut out = String::with_capacity(min_len + 4096);
    out.push_str(banner);
    out.push_str("\n\n");
    'outer: loop {
        for r in &reports {
            out.push_str(&t.format("%m/%d/%y %H:%M:%S").to_string());
            out.push('\n');
            for l in &r[1..] {
                out.push_str(l);
                out.push('\n');
            }
            t += chrono::Duration::seconds(1);
            if out.len() >= min_len {
                break 'outer;
            }
        }
    }
    out.into_bytes()
}

/// CPU seconds (user + system) of this process, from /proc/self/stat (clock ticks of 10 ms).
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn bench(c: &mut Criterion) {
    let text = build_text(4 << 20);
    // On a loaded machine wall-clock throughput is noisy: also print MB per CPU-second.
    if std::env::var_os("IOSIFT_BENCH_CPU").is_some() {
        let t0 = cpu_seconds().unwrap_or(0.0);
        let n = 100;
        for _ in 0..n {
            black_box(iosift_parsers::iostat::Fmt::parse(black_box(&text)));
        }
        let dt = cpu_seconds().unwrap_or(0.0) - t0;
        let mb = (text.len() * n) as f64 / 1e6;
        println!("iostat text: {mb:.0} MB in {dt:.2} CPU-s = {:.0} MB/s per CPU", mb / dt);
    }
    let n = iosift_parsers::iostat::Fmt::parse(&text);
    assert!(n.diagnostics.is_empty());
    assert!(n.value.reports.len() > 7000);
    let mut g = c.benchmark_group("iostat");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("text_x_t_4MB", |b| b.iter(|| iosift_parsers::iostat::Fmt::parse(black_box(&text))));
    let json = source("bundles/s1_mmap_writeback/iostat-x-t.json");
    g.throughput(Throughput::Bytes(json.len() as u64));
    g.bench_function("json_x_t_240", |b| {
        b.iter(|| iosift_parsers::iostat::json::Fmt::parse(black_box(&json)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
