//! Throughput of the `mysqlbinlog` parser on a real listing: the first 64 MB
//! of the s2a bundle's `mariadb-binlog -vv --base64-output=decode-rows`
//! output (decoded from the shared bundle at bench time).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use iosift_parsers::Format;
use iosift_parsers::common::decode::maybe_gunzip;
use iosift_parsers::mysqlbinlog::Fmt;

const SIZE: usize = 64 << 20;

fn input() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/bundles/s2a_mariadb_durable/binlog-mariadb-bin.000002-decoded.txt.gz"
    );
    let raw = std::fs::read(path).expect("the s2a bundle is needed for this bench");
    let mut data = maybe_gunzip(&raw, 1 << 32).expect("gunzip").into_owned();
    // Cut at a line end after SIZE bytes.
    if data.len() > SIZE {
        let end = data[SIZE..].iter().position(|&b| b == b'\n').map_or(data.len(), |p| SIZE + p + 1);
        data.truncate(end);
    }
    assert!(data.len() >= 20 << 20);
    data
}

fn bench(c: &mut Criterion) {
    let data = input();
    let mut g = c.benchmark_group("mysqlbinlog");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.sample_size(10);
    g.bench_function("parse_mariadb_vv_64MB", |b| {
        b.iter(|| {
            let p = Fmt::parse(std::hint::black_box(&data));
            assert!(p.value.transactions.len() > 40_000);
            p.value.transactions.len()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
