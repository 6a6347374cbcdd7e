//! pidstat parser throughput on a real capture: the reports of
//! `bundles/s1_mmap_writeback/pidstat-d-t-h.txt` (sysstat 12.6.1, `-d -t -h 1 240`)
//! repeated with advancing times to >= 4 MB.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use iosift_parsers::common::Format;
use iosift_parsers::pidstat;
use std::hint::black_box;

const SRC: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/bundles/s1_mmap_writeback/pidstat-d-t-h.txt");

/// Shifts a leading `HH:MM:SS` by `secs`.
fn shift(line: &str, secs: u32) -> String {
    let b = line.as_bytes();
    if b.len() >= 8
        && b[2] == b':'
        && b[5] == b':'
        && let (Ok(h), Ok(m), Ok(s)) =
            (line[..2].parse::<u32>(), line[3..5].parse::<u32>(), line[6..8].parse::<u32>())
    {
        let t = (h * 3600 + m * 60 + s + secs) % 86400;
        return format!("{:02}:{:02}:{:02}{}", t / 3600, t / 60 % 60, t % 60, &line[8..]);
    }
    line.to_string()
}

fn input() -> Vec<u8> {
    let text = std::fs::read_to_string(SRC).expect("shared bundle s1 pidstat-d-t-h.txt");
    let mut lines = text.lines();
    let banner = lines.next().unwrap_or_default();
    let body: Vec<&str> = lines.collect();
    let span = 300; // the capture covers ~241 s; each copy starts 300 s later
    let mut out = String::with_capacity(5 << 20);
    out.push_str(banner);
    out.push('\n');
    let mut k = 0;
    while out.len() < 4 << 20 {
        for l in &body {
            out.push_str(&shift(l, k * span));
            out.push('\n');
        }
        k += 1;
    }
    out.into_bytes()
}

/// CPU time of this thread in ns (`/proc/thread-self/schedstat`), to report throughput per
/// CPU-second on a shared, loaded machine where wall time mostly measures waiting.
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat").ok()?.split_whitespace().next()?.parse().ok()
}

fn bench(c: &mut Criterion) {
    let data = input();
    let check = pidstat::Fmt::parse(&data);
    assert!(check.diagnostics.is_empty(), "{:?}", check.diagnostics.first());
    if let Some(t0) = cpu_ns() {
        let n = 20;
        for _ in 0..n {
            black_box(pidstat::Fmt::parse(black_box(&data)));
        }
        if let Some(t1) = cpu_ns() {
            let secs = (t1 - t0) as f64 / 1e9;
            eprintln!(
                "pidstat: {:.1} MB input, {} rows; {:.0} MB/s per CPU-second ({n} parses)",
                data.len() as f64 / 1e6,
                check.value.rows.len(),
                data.len() as f64 * n as f64 / 1e6 / secs
            );
        }
    }
    let mut g = c.benchmark_group("pidstat");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.bench_function("d_t_h_s1_x4MB", |b| b.iter(|| pidstat::Fmt::parse(black_box(&data))));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
