//! Folded stacks: `analyze` and `tables` write `stacks/<perf file>.folded` (every stack of
//! a perf script) and `stacks/<perf file>-<process>.folded` (one process's), the input of
//! flamegraph.pl, inferno-flamegraph, speedscope and difffolded.
//!
//! The whole-file output of real samples equals, byte for byte, what inferno's
//! `collapse-perf` (the Rust port of FlameGraph's stackcollapse-perf.pl) prints for the same
//! perf script with its defaults, and, with each count divided by the sample period (iosift
//! and inferno weigh a stack by perf's period, the Perl script counts samples), what
//! FlameGraph's `stackcollapse-perf.pl` printed for it: stored once in
//! tests/fixtures/stackcollapse-perf (its README says how), and re-made by the script itself
//! when it is on PATH. Each process's file feeds inferno's flame graph.

use crate::common;

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

/// What FlameGraph's stackcollapse-perf.pl printed for a sample's perf script (stored once).
fn stored_stackcollapse(sample: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/stackcollapse-perf")
        .join(format!("{sample}.folded.gz"));
    let mut out = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&p).unwrap()).read_to_string(&mut out).unwrap();
    out
}

/// Folded lines with each count divided by the sample period: the period perf printed on the
/// script's first sample line (`mariadbd 22054/28923  1319.574614:   20408163 cpu-clock:pppH:`),
/// which must divide every count (one period per file).
fn per_sample(folded: &str, script: &[u8]) -> String {
    let text = String::from_utf8_lossy(&script[..script.len().min(4096)]);
    let header = text.lines().find(|l| !l.starts_with('#') && l.contains(" cpu-clock")).unwrap();
    let period: u64 = header.split(':').nth(1).unwrap().split_whitespace().next().unwrap().parse().unwrap();
    let mut out = String::new();
    for l in folded.lines() {
        let (stack, count) = l.rsplit_once(' ').unwrap();
        let count: u64 = count.parse().unwrap();
        assert_eq!(count % period, 0, "{l}: not a multiple of the period {period}");
        out.push_str(&format!("{stack} {}\n", count / period));
    }
    out
}

#[test]
fn folded_stacks_match_collapse_perf_and_draw() {
    let tmp = tempfile::tempdir().unwrap();
    let perl_script = common::on_path("stackcollapse-perf.pl");
    if perl_script.is_none() {
        eprintln!(
            "note: stackcollapse-perf.pl not on PATH; compared with its output stored in tests/fixtures/stackcollapse-perf"
        );
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
        let perl = stored_stackcollapse(sample);
        assert_eq!(
            per_sample(&want, &script),
            perl,
            "{sample}: per sample, stackcollapse-perf.pl's stored output"
        );
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
            assert_eq!(String::from_utf8_lossy(&o.stdout), perl, "stackcollapse-perf.pl on {sample} {file}");
        }
    }
    assert_eq!(checked, 6);
    // A perf script of tracepoints without call chains folds to nothing: no file.
    let trace = inferno_collapse(&perf_script("mmap_large_folio", "perf-trace.script.txt.gz"));
    let stacks = tmp.path().join("analyze-mmap_large_folio").join("stacks");
    assert_eq!(trace.is_empty(), !stacks.join("perf-trace.script.folded").exists(), "{trace:.200}");
}
