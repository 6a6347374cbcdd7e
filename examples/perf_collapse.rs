//! Collapses a perf script the way `iosift inspect` and `analyze` read it (the file
//! loaded as a one-file bundle and parsed by `iosift::pipeline::parse_file`: a large file
//! is streamed from disk and cut in pieces parsed on every core, `RAYON_NUM_THREADS`
//! threads) and writes the folded stacks to stdout like `inferno-collapse-perf` does; the
//! figures go to stderr in `parsers/examples/parse.rs`'s form. `bench/compare.sh` times it
//! beside `parse --stream` (one thread) and inferno:
//!
//! ```text
//! cargo build --release --example perf_collapse
//! target/release/examples/perf_collapse /var/tmp/iosift-bench/perf-workload.script > folded.txt
//! perf_script records=... lines=... diagnostics=0 bytes=200100000 parse_s=1.21 wall_mb_s=165.4 streamed=yes threads=2
//! ```

use iosift_parsers::Data;
use std::io::Write;
use std::time::Instant;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: perf_collapse <perf script>");
        std::process::exit(2);
    };
    let t0 = Instant::now();
    let bundle =
        match iosift::bundle::load_one(std::path::Path::new(&path), &iosift::bundle::Limits::default()) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(1);
            }
        };
    let Some(file) = bundle.files.first() else {
        eprintln!("{path}: nothing read");
        std::process::exit(1);
    };
    let parsed = iosift::pipeline::parse_file(file);
    let wall = t0.elapsed().as_secs_f64();
    let Some(Data::PerfScript(p)) = &parsed.data else {
        eprintln!("{path}: not a perf script ({:?})", parsed.format);
        std::process::exit(1);
    };
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    for (stack, n) in &p.collapsed {
        let _ = writeln!(out, "{stack} {n}");
    }
    let _ = out.flush();
    let size = std::fs::metadata(&path).map_or(0, |m| m.len());
    eprintln!(
        "perf_script records={} lines={} diagnostics={} bytes={size} parse_s={wall:.4} wall_mb_s={:.1} streamed={} threads={}",
        p.samples,
        parsed.lines,
        parsed.diagnostics.len(),
        size as f64 / 1e6 / wall.max(1e-9),
        if file.stream.is_some() { "yes" } else { "no" },
        rayon::current_num_threads(),
    );
}
