//! A deterministic mutation loop over the archive readers (issue 17: "fuzz the archive
//! readers you add"; no cargo-fuzz, which needs nightly). Every kind of
//! tests/common/archives.rs is generated from real sample files, then cut, bit-flipped,
//! overwritten and given bogus sizes and counts; each mutant is loaded as a bundle.
//!
//! Asserted for every mutant: no panic, under 10 s, the process's peak memory stays
//! under 1 GiB, and never silently wrong: when a checksummed stream (gzip, zstd with
//! its frame checksum, xz, bzip2) decodes to anything but the original files, the
//! bundle carries a problem or the load stops with a limit error. A sample of mutants
//! also goes through the whole analysis.

use crate::common;

use common::archives::{self, Seed};
use iosift::bundle::{BundleError, Limits, load};
use std::path::Path;
use std::time::{Duration, Instant};

/// Mutants per kind (15 kinds).
const CASES: usize = 200;

/// xorshift64*: the same mutants on every run and machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One mutation of `orig`, and what it did (printed with a failure).
fn mutate(rng: &mut Rng, orig: &[u8]) -> (String, Vec<u8>) {
    let mut m = orig.to_vec();
    let len = m.len();
    match rng.below(6) {
        0 => {
            let at = rng.below(len);
            m.truncate(at);
            (format!("cut at {at}"), m)
        }
        1 => {
            let n = 1 + rng.below(8);
            let mut at = Vec::new();
            for _ in 0..n {
                let i = rng.below(len);
                m[i] ^= 1 << rng.below(8);
                at.push(i);
            }
            (format!("bits flipped at {at:?}"), m)
        }
        2 => {
            let at = rng.below(len);
            let n = (1 + rng.below(16)).min(len - at);
            for b in &mut m[at..at + n] {
                *b = rng.next() as u8;
            }
            (format!("{n} random bytes at {at}"), m)
        }
        3 => {
            // A bogus size, count or offset: headers sit in the first and last bytes (and
            // anywhere in a zip or tar: local headers, LZMA dictionary sizes).
            let at = match rng.below(3) {
                0 => rng.below(len.min(64)),
                1 => len.saturating_sub(1 + rng.below(64)),
                _ => rng.below(len),
            };
            let v: [u8; 4] = match rng.below(3) {
                0 => [0xFF; 4],
                1 => [0x7F, 0xFF, 0xFF, 0xFF],
                _ => (rng.next() as u32).to_le_bytes(),
            };
            for (k, b) in v.iter().enumerate() {
                if at + k < len {
                    m[at + k] = *b;
                }
            }
            (format!("bogus u32 {v:02x?} at {at}"), m)
        }
        4 => {
            let at = rng.below(len);
            let n = (512 + rng.below(4096)).min(len - at);
            m[at..at + n].fill(0);
            (format!("{n} zero bytes at {at}"), m)
        }
        _ => {
            let a = rng.below(len);
            let b = (a + 1 + rng.below(2048)).min(len);
            let piece = m[a..b].to_vec();
            let at = rng.below(len);
            m.splice(at..at, piece);
            (format!("bytes {a}..{b} inserted at {at}"), m)
        }
    }
}

/// Peak resident memory of this process (`VmHWM`), in bytes.
fn peak_rss() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

fn sample(rel: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(rel)).unwrap()
}

/// The first `n` bytes of a text, cut after a line.
fn head(data: &[u8], n: usize) -> Vec<u8> {
    let cut = data[..n.min(data.len())].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    data[..cut].to_vec()
}

/// The name the suite knows this test by, to run it again alone.
const ALONE_TEST: &str = "fuzz_archives::mutated_archives_never_panic_hang_or_mislead";
/// Set in the child process that runs the mutants alone.
const ALONE_ENV: &str = "IOSIFT_FUZZ_ARCHIVES_ALONE";

/// The peak memory bound is of this test's own work, but every test of the suite shares one
/// process (and `VmHWM` is the process's): the mutants run again in a process of their own,
/// the suite's binary started with just this test.
#[test]
fn mutated_archives_never_panic_hang_or_mislead() {
    if std::env::var_os(ALONE_ENV).is_some() {
        return mutants_alone();
    }
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(&exe)
        .args(["--exact", ALONE_TEST, "--nocapture", "--test-threads=1"])
        .env(ALONE_ENV, "1")
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    println!("{text}");
    assert!(out.status.success(), "the mutants' own process failed: {}", out.status);
    assert!(text.contains("peak RSS"), "the mutants' own process did not run the test");
}

fn mutants_alone() {
    let vm = head(&sample("replica_sql_bound/capture/vmstat-t.txt"), 12_000);
    let io = head(&sample("replica_sql_bound/capture/iostat-x-t.txt"), 12_000);
    let members = [("cap/vmstat-t.txt", &vm[..]), ("cap/iostat-x-t.txt", &io[..])];
    let limits = Limits { max_total_bytes: 32 << 20, max_files: 1000, max_depth: 3 };
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x1057_0017_2026_1202);
    let mut failures = Vec::new();
    let mut counts = Vec::new();
    let started = Instant::now();
    for seed in Seed::ALL {
        let orig = seed.build(&members);
        let path = tmp.path().join(seed.file_name());
        std::fs::write(&path, &orig).unwrap();
        let clean = load(std::slice::from_ref(&path), &limits).unwrap();
        assert!(clean.problems.is_empty(), "{seed:?} unmutated: {:?}", clean.problems);
        let want: Vec<(String, Vec<u8>)> =
            clean.files.iter().map(|f| (f.name.clone(), f.data.to_vec())).collect();
        let (mut same, mut problem, mut limit) = (0, 0, 0);
        let mut kinds: std::collections::BTreeMap<String, usize> = Default::default();
        for case in 0..CASES {
            let (what, bytes) = mutate(&mut rng, &orig);
            std::fs::write(&path, &bytes).unwrap();
            let t = Instant::now();
            let res = std::panic::catch_unwind(|| load(std::slice::from_ref(&path), &limits));
            let took = t.elapsed();
            let tag = format!("{seed:?} case {case} ({what})");
            if took > Duration::from_secs(10) {
                failures.push(format!("{tag}: took {took:?}"));
            }
            match res {
                Err(_) => failures.push(format!("{tag}: panicked")),
                Ok(Err(BundleError::Limit(_))) => limit += 1,
                Ok(Err(e)) => failures.push(format!("{tag}: {e}")),
                Ok(Ok(b)) => {
                    let got: Vec<(String, Vec<u8>)> =
                        b.files.iter().map(|f| (f.name.clone(), f.data.to_vec())).collect();
                    if !b.problems.is_empty() {
                        problem += 1;
                        for p in &b.problems {
                            let words: Vec<&str> = p.message.split_whitespace().take(2).collect();
                            *kinds.entry(words.join(" ")).or_default() += 1;
                        }
                        if b.problems.iter().any(|p| p.message.trim().is_empty() || p.name.is_empty()) {
                            failures
                                .push(format!("{tag}: a problem without name or message: {:?}", b.problems));
                        }
                    } else if got == want {
                        same += 1;
                    } else if seed.is_checksummed() {
                        failures.push(format!(
                            "{tag}: decoded to other content without a problem: {:?}",
                            got.iter().map(|(n, d)| (n, d.len())).collect::<Vec<_>>()
                        ));
                    }
                    // The whole analysis on a sample of mutants: parsers meet damaged text.
                    if case % 30 == 0 {
                        let r = std::panic::catch_unwind(|| {
                            iosift::analyze::analyze(&b, &iosift::pipeline::Options::default())
                        });
                        if r.is_err() {
                            failures.push(format!("{tag}: analysis panicked"));
                        }
                    }
                }
            }
        }
        counts.push(format!(
            "{seed:?}: {CASES} mutants, {same} read unchanged, {problem} with a problem, {limit} limit errors; problems: {kinds:?}"
        ));
    }
    let peak = peak_rss();
    println!("{}\npeak RSS {} MiB, {:?}", counts.join("\n"), peak >> 20, started.elapsed());
    assert!(peak < 256 << 20, "peak RSS {} MiB (alone, the bound is 256 MiB)", peak >> 20);
    assert!(
        failures.is_empty(),
        "{} of {} mutants failed:\n{}",
        failures.len(),
        CASES * Seed::ALL.len(),
        failures.join("\n")
    );
}

/// Found by `cargo fuzz run bundle` (fuzz/fuzz_targets/bundle.rs, issue 33): an xz
/// whose LZMA2 data starts with an uncompressed chunk of 65536 bytes (size field
/// `ff ff`), loaded as `input.tar.xz`. lzma-rust2 0.13 adds 1 to that u16: a panic
/// with overflow checks (tests, fuzzing), a misread chunk without.
const FUZZ_XZ_CHUNK: &[u8] = b"\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4F\x02\x00!\x01\x10\x00\x00\x00\xa8p\x8e\x86\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x00]\x05\xff\xe01'\x98Jc$\x04\x94\xb3J\xc8\xbc\xcfG\xde\xc83\xfa\xa7[M\xbb\xc7\xf7\x1c\xd2o.\xa9X\x06\x96B\x8b\x982\x03\x1f\x8b\x08\x08\x98\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xffV\x13k\x00\x03nested.input.ziptar\x09BZh91AY&SY\x8d&\xa6\xed\x00\x0b1\xff\x84\xf9\xf2\x00@Bk\xff\xf0\x1c\x05F\x84\xff\xef\xff\xf0\x00\x00\x80\x08`\x06\xff\x00\x00\x00j\xb2\xa2cR\xa0\x0b\x00\x074\xc4\xc0F\x98\x11\x84`\x00\x00\x02a\x18\x0d\x00\x13HJ\x9bj\x9e\x884\xd3I\xb9\xa8~\x96,\x00KIM\xcbI,I\xd5\xab\xca,`\xa0\x150\x00\x023\x13\x130\x0d\x04\xe8\xb4\xb1\x89\xb1\x09\x83\xa1\xa9\x00\x00\x08\x00\x22\x01\x85]\xcb\xb6\xda\xca\xe1\x01\x00\x00\xb8\x0b\x00\x00\x12\x00\x1c\x00c\x09[w\xd9\xbd|\x80\xe9\x11\x92";

#[test]
fn an_uncompressed_lzma2_chunk_of_64_kib_is_a_problem_not_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let limits = Limits { max_total_bytes: 256 * 1024, max_files: 64, max_depth: 3 };
    let fuzzed = tmp.path().join("input.tar.xz");
    std::fs::write(&fuzzed, FUZZ_XZ_CHUNK).unwrap();
    let b = load(std::slice::from_ref(&fuzzed), &limits).unwrap();
    assert!(b.files.is_empty());
    let p = &b.problems[0];
    assert_eq!(p.name, "input.tar.xz");
    assert!(p.message.contains("an uncompressed LZMA2 chunk of 65536 bytes at byte 24"), "{p:?}");
    // A valid xz (xz -t accepts it): 1000 bytes, then a chunk of 65536. The part
    // before that chunk is read, with a problem that says why the rest is not.
    let first: Vec<u8> = (0..1000u32).map(|i| b'a' + (i % 26) as u8).collect();
    let x = archives::xz_stored(&[&first, &vec![b'z'; 1 << 16]]);
    let path = tmp.path().join("stored.txt.xz");
    std::fs::write(&path, &x).unwrap();
    let b = load(std::slice::from_ref(&path), &Limits::default()).unwrap();
    assert_eq!(b.files.len(), 1);
    assert_eq!(b.files[0].data[..], first[..]);
    assert_eq!(b.problems.len(), 1, "{:?}", b.problems);
    assert_eq!(
        b.problems[0].message,
        "corrupt xz stream after 1000 bytes: an uncompressed LZMA2 chunk of 65536 bytes at byte 1027 \
         (valid, but the xz decoder, lzma-rust2 0.13, cannot read it); the part before the damage is analyzed"
    );
}
