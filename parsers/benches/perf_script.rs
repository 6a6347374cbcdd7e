//! Parse + collapse throughput of `perf_script` next to `inferno-collapse-perf`
//! on the same bytes: the s1 bundle's `perf-workload.script.txt` (perf 6.1,
//! `-g`, 480 samples) repeated to >= 20 MB with advancing time stamps.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use inferno::collapse::Collapse;
use iosift_parsers::Format;
use iosift_parsers::perf_script::Fmt;

const FILE: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/bundles/s1_mmap_writeback/perf-workload.script.txt");

/// The capture repeated, each copy shifted by 1000 s (headers' time stamps rewritten).
fn input() -> Vec<u8> {
    let base = std::fs::read(FILE).expect("s1 perf-workload.script.txt");
    let text = String::from_utf8_lossy(&base).into_owned();
    let mut out = Vec::with_capacity(21 << 20);
    let mut round = 0u32;
    while out.len() < 20 << 20 {
        for line in text.lines() {
            // `redo_sim 15546  1065.348856:   10101010 cpu-clock:pppH: `
            if !line.starts_with(['\t', ' '])
                && let Some((head, rest)) = line.split_once(':')
                && let Some((pre, ts)) = head.rsplit_once(' ')
                && let Ok(t) = ts.parse::<f64>()
            {
                out.extend_from_slice(
                    format!("{pre} {:.6}:{rest}\n", t + 1000.0 * f64::from(round)).as_bytes(),
                );
                continue;
            }
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
        round += 1;
    }
    out
}

fn bench(c: &mut Criterion) {
    let data = input();
    let mut g = c.benchmark_group("perf_script");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.sample_size(10);
    g.bench_function("iosift_parse_collapse", |b| {
        b.iter(|| {
            let p = Fmt::parse(black_box(&data));
            black_box(p.value.collapsed.len())
        })
    });
    g.bench_function("inferno_collapse_perf", |b| {
        b.iter(|| {
            let mut opt = inferno::collapse::perf::Options::default();
            opt.nthreads = 1;
            let mut folder = inferno::collapse::perf::Folder::from(opt);
            let mut out = Vec::new();
            folder.collapse(black_box(&data[..]), &mut out).expect("inferno");
            black_box(out.len())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
