//! Folded stacks: `analyze` and `tables` write `stacks/<perf file>.folded` (every stack of
//! a perf script) and `stacks/<perf file>-<process>.folded` (one process's), the input of
//! flamegraph.pl, inferno-flamegraph, speedscope and difffolded.
//!
//! The whole-file output of real samples equals, byte for byte, what inferno's
//! `collapse-perf` (the Rust port of FlameGraph's stackcollapse-perf.pl, checked against
//! that script's own expected outputs in inferno's test suite) prints for the same perf
//! script with its defaults. When FlameGraph's `stackcollapse-perf.pl` is on PATH it is run
//! too and must agree; otherwise the test says so. Each process's file feeds inferno's
//! flame graph.

mod common;

use std::io::Read;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_iosift");

fn perf_script(sample: &str, file: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(sample).join("capture").join(file);
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&p).unwrap()).read_to_end(&mut out).unwrap();
    out
}

/// What inferno-collapse-perf prints for `script` with its default options (one thread).
fn inferno_collapse(script: &[u8]) -> String {
    use inferno::collapse::Collapse;
    let mut opt = inferno::collapse::perf::Options::default();
    opt.nthreads = 1;
    let mut out = Vec::new();
    inferno::collapse::perf::Folder::from(opt).collapse(script, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn run(cmd: &str, sample: &str, out: &Path) {
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(sample);
    let o = Command::new(BIN).arg(cmd).arg(&input).arg("-o").arg(out).arg("-q").output().unwrap();
    assert!(o.status.success(), "iosift {cmd} {sample}: {}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn folded_stacks_match_collapse_perf_and_draw() {
    let tmp = tempfile::tempdir().unwrap();
    let perl_script = common::on_path("stackcollapse-perf.pl");
    if perl_script.is_none() {
        eprintln!("skipped: stackcollapse-perf.pl not on PATH; compared with inferno's collapse-perf only");
    }
    let mut checked = 0;
    for (sample, file, stem) in [
        ("mariadb_fsync_durable", "perf-profile.script.txt.gz", "perf-profile.script"),
        ("mmap_large_folio", "perf-profile.script.txt.gz", "perf-profile.script"),
        ("replica_io_bound", "perf-profile.script.txt.gz", "perf-profile.script"),
    ] {
        let script = perf_script(sample, file);
        let want = inferno_collapse(&script);
        assert!(want.lines().count() > 10, "{sample} {file} has stacks");
        for cmd in ["analyze", "tables"] {
            let out = tmp.path().join(format!("{cmd}-{sample}"));
            if !out.exists() {
                run(cmd, sample, &out);
            }
            let dir = out.join("stacks");
            let got = std::fs::read_to_string(dir.join(format!("{stem}.folded")))
                .unwrap_or_else(|e| panic!("{cmd} {sample}: {stem}.folded: {e}"));
            assert!(got == want, "{cmd} {sample} {stem}.folded differs from inferno-collapse-perf");
            // The processes' files hold every line of the whole, each once, by first frame.
            let mut lines: Vec<String> = Vec::new();
            for e in std::fs::read_dir(&dir).unwrap() {
                let name = e.unwrap().file_name().to_string_lossy().into_owned();
                let Some(process) =
                    name.strip_prefix(&format!("{stem}-")).and_then(|n| n.strip_suffix(".folded"))
                else {
                    continue;
                };
                let text = std::fs::read_to_string(dir.join(&name)).unwrap();
                for l in text.lines() {
                    let first = l.split(';').next().unwrap();
                    let safe = iosift::report::flame::safe_stem(first);
                    assert!(process == safe || process.starts_with(&format!("{safe}-")), "{name}: {l}");
                    lines.push(l.to_string());
                }
                if cmd == "analyze" {
                    // A process's folded stacks draw with inferno, as a user's flamegraph run would.
                    let mut opt = inferno::flamegraph::Options::default();
                    let mut svg = Vec::new();
                    inferno::flamegraph::from_lines(&mut opt, text.lines(), &mut svg).unwrap();
                    let svg = String::from_utf8(svg).unwrap();
                    assert!(svg.starts_with("<?xml") && svg.contains("<svg"), "{name}");
                }
            }
            lines.sort();
            let mut whole: Vec<String> = want.lines().map(str::to_string).collect();
            whole.sort();
            assert_eq!(lines, whole, "{cmd} {sample}: the processes' files are the whole, split");
            checked += 1;
        }
        if let Some(pl) = &perl_script {
            let mut child = Command::new(pl)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            use std::io::Write;
            child.stdin.take().unwrap().write_all(&script).unwrap();
            let o = child.wait_with_output().unwrap();
            assert_eq!(String::from_utf8_lossy(&o.stdout), want, "stackcollapse-perf.pl on {sample} {file}");
        }
    }
    assert_eq!(checked, 6);
    // A perf script of tracepoints without call chains folds to nothing: no file.
    let trace = inferno_collapse(&perf_script("mmap_large_folio", "perf-trace.script.txt.gz"));
    let stacks = tmp.path().join("analyze-mmap_large_folio").join("stacks");
    assert_eq!(trace.is_empty(), !stacks.join("perf-trace.script.folded").exists(), "{trace:.200}");
}
