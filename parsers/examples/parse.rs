//! Parses one file with a given format id and prints what it found and how long it took.
//!
//! Used by `bench/compare.sh` to time iosift's parsers on the large inputs of
//! `bench/generate.sh`, side by side with other tools:
//!
//! ```text
//! cargo run --release -p iosift-parsers --example parse -- iostat /var/tmp/iosift-bench/iostat-x-t.txt
//! iostat records=57600 lines=... diagnostics=0 bytes=209715200 parse_s=0.41 cpu_s=0.41 mb_s=511.5
//! ```
//!
//! `parse_s` is the wall-clock time of the parse alone (the file is read into memory first),
//! `cpu_s` the CPU time this thread spent in it (from `/proc/thread-self/schedstat`), and
//! `mb_s` is input megabytes (10^6 bytes) per CPU-second. `--repeat N` parses N times and
//! prints the median, and `best_mb_s` from the fastest run (on a shared machine the least
//! disturbed one). `--collapsed` (perf_script) writes the collapsed stacks to stdout like
//! `inferno-collapse-perf` does, and sends the figures to stderr. `--stream` (perf_script)
//! reads the file in 1 MiB chunks into `perf_script::Collector` line by line, as
//! `inferno-collapse-perf` does, instead of reading it whole first (the timing then covers
//! reading + parsing).

use iosift_parsers::{Data, by_id};
use std::io::{Read, Write};
use std::time::Instant;

/// CPU time of the calling thread in seconds (`/proc/thread-self/schedstat`, nanoseconds).
fn thread_cpu_s() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|t| t.parse::<f64>().ok()))
        .map_or(0.0, |ns| ns / 1e9)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// perf_script through the streaming collector, 1 MiB reads, no whole-file buffer.
fn stream_perf(path: &str) -> std::io::Result<iosift_parsers::Parsed<iosift_parsers::Data>> {
    let mut f = std::fs::File::open(path)?;
    let mut c = iosift_parsers::perf_script::Collector::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut carry: Vec<u8> = Vec::new();
    let mut no = 0usize;
    let mut feed = |c: &mut iosift_parsers::perf_script::Collector, line: &[u8]| {
        no += 1;
        c.feed_line(no, line.strip_suffix(b"\r").unwrap_or(line));
    };
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        let mut rest = buf.get(..n).unwrap_or(&[]);
        while let Some(i) = memchr::memchr(b'\n', rest) {
            let (line, tail) = rest.split_at(i);
            if carry.is_empty() {
                feed(&mut c, line);
            } else {
                carry.extend_from_slice(line);
                feed(&mut c, &carry);
                carry.clear();
            }
            rest = tail.get(1..).unwrap_or(&[]);
        }
        carry.extend_from_slice(rest);
    }
    if !carry.is_empty() {
        feed(&mut c, &carry);
    }
    Ok(c.finish().map(|p| Data::PerfScript(Box::new(p))))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut repeat = 1usize;
    let mut collapsed = false;
    let mut stream = false;
    let mut pos = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--repeat" => repeat = it.next().and_then(|n| n.parse().ok()).unwrap_or(1).max(1),
            "--collapsed" => collapsed = true,
            "--stream" => stream = true,
            _ => pos.push(a.clone()),
        }
    }
    let [id, path] = pos.as_slice() else {
        eprintln!("usage: parse [--repeat N] [--collapsed] <format-id> <file>");
        std::process::exit(2);
    };
    let Some(fmt) = by_id(id) else {
        eprintln!("unknown format id {id}");
        std::process::exit(2);
    };
    let streaming = stream && fmt.id == "perf_script";
    let data = if streaming {
        Vec::new()
    } else {
        match std::fs::read(path) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(1);
            }
        }
    };
    let size = if streaming { std::fs::metadata(path).map_or(0, |m| m.len() as usize) } else { data.len() };
    let (mut walls, mut cpus) = (Vec::new(), Vec::new());
    let mut last = None;
    for _ in 0..repeat {
        drop(last.take());
        let (w0, c0) = (Instant::now(), thread_cpu_s());
        let parsed = if streaming {
            match stream_perf(path) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("{path}: {e}");
                    std::process::exit(1);
                }
            }
        } else {
            fmt.parse(std::hint::black_box(&data))
        };
        cpus.push(thread_cpu_s() - c0);
        walls.push(w0.elapsed().as_secs_f64());
        last = Some(parsed);
    }
    let Some(parsed) = last else { return };
    let best = cpus.iter().copied().fold(f64::INFINITY, f64::min);
    let (wall, cpu) = (median(&mut walls), median(&mut cpus));
    let mb = size as f64 / 1e6;
    let line = format!(
        "{id} records={} lines={} diagnostics={} bytes={size} parse_s={wall:.4} cpu_s={cpu:.4} mb_s={:.1} best_mb_s={:.1} wall_mb_s={:.1}",
        parsed.value.summary().records(),
        parsed.lines,
        parsed.diagnostics.len(),
        mb / cpu.max(1e-9),
        mb / best.max(1e-9),
        mb / wall.max(1e-9),
    );
    if collapsed {
        if let Data::PerfScript(p) = &parsed.value {
            let out = std::io::stdout();
            let mut out = std::io::BufWriter::new(out.lock());
            for (stack, n) in &p.collapsed {
                let _ = writeln!(out, "{stack} {n}");
            }
        }
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
}
