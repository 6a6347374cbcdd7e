//! Every number that reaches a chart or a rule is finite and plausible (issue 17):
//! an iostat `w_await` of 1.7e308 (it made the chart library loop forever) and a
//! `wkB/s` of 1.8e19 (a counter wrap: a 1.8e22-byte burst) become gaps with a
//! warning, and the report is written in bounded time. The input is the
//! repository's real `iostat -x -t` sample with two fields changed by the test.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_iosift");

/// The sample iostat with `w_await` of the 10th vda report set to 1.7e308 and
/// `wkB/s` of the 20th to 2^64.
fn poisoned_iostat() -> String {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/mmap_periodic_4k/capture/iostat-x-t.txt");
    let text = std::fs::read_to_string(src).unwrap();
    // Device r/s rkB/s rrqm/s %rrqm r_await rareq-sz w/s wkB/s wrqm/s %wrqm w_await ...
    let mut k = 0;
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("vda ") {
            k += 1;
            let mut f: Vec<String> = line.split_whitespace().map(String::from).collect();
            if k == 10 {
                f[11] = "1.7e308".into();
            }
            if k == 20 {
                f[8] = "18446744073709551615.00".into();
            }
            out.push_str(&f.join("   "));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    assert!(k > 20, "the sample has {k} vda reports");
    out
}

#[test]
fn absurd_values_become_gaps_and_the_report_finishes() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("cap");
    std::fs::create_dir(&cap).unwrap();
    std::fs::write(cap.join("iostat-x-t.txt"), poisoned_iostat()).unwrap();
    let out = tmp.path().join("r");
    let mut child = Command::new(BIN)
        .args(["analyze", cap.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"])
        .spawn()
        .unwrap();
    let t = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("analyze did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success());
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("findings.json")).unwrap()).unwrap();
    let warnings: Vec<&str> =
        doc["clock"]["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
    let about = |col: &str| warnings.iter().find(|w| w.contains(col) && w.contains("left out as impossible"));
    let wa = about("dev.vda.w_await_ms").unwrap_or_else(|| panic!("{warnings:?}"));
    assert!(wa.starts_with("iostat-x-t.txt: 1 value") && wa.contains("1.7e308"), "{wa}");
    let wb = about("dev.vda.w_bytes_s").unwrap_or_else(|| panic!("{warnings:?}"));
    assert!(wb.contains("1.888946593147858e22"), "{wb}");
    assert!(out.join("charts/device-writes.png").is_file());
}
