//! Accuracy: every sample in `samples/` with a `truth.json` is analyzed, and
//! each expectation (`expect_fire`, `expect_not_fire`) is compared with the
//! rule's outcome. The rule x case matrix is printed and kept in
//! `docs/accuracy.md` (generated; `IOSIFT_UPDATE_DOCS=1 cargo test --test
//! accuracy` rewrites it).
//!
//! Asserted: an expectation naming a rule iosift does not have fails; every
//! expectation of the samples outside the scenario matrix holds; in the matrix
//! (`"half": "dev" | "check" | "heldout"`, issue 14) every expectation holds except the
//! misses listed in [`KNOWN_MISSES`] with their reason, and a listed miss that
//! now holds fails too (so the list only shrinks).

use iosift::analyze::analyze;
use iosift::bundle::{Limits, load};
use iosift::model::Report;
use iosift::pipeline::Options;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Matrix expectations known not to hold: (case, rule, why). The development half has none
/// left; the check half's were measured once, untuned, after the rules were tuned on the
/// development half (tuning on them would make the check half a second development half).
const KNOWN_MISSES: &[(&str, &str, &str)] = &[
    // The check half, measured once (2026-12-02 02:14 UTC) after the tuning on the development half, not tuned
    // on: 66 of 71 held. From 2026-12-03 (issue 14, third session) the check half has been seen and worked
    // on (flushes one writeback window apart, the periodic device stacked on the most written one, a
    // pool hovering at the freerun ceiling): it is a second development half now, and a new held-out set
    // (`"half": "heldout"`, captured after those changes) measures the rules instead.
    // The held-out set (samples/mh_*, 15 cases captured 2026-12-03 17:23-18:06 UTC by a helper who never ran
    // iosift on them), measured once at 18:27 UTC after the rule changes above were committed: 88 of 90 held.
    // Both misses were then fixed, so those two cases are no longer held out:
    // mh_ext4_mmap_2m_expire4500_appender (a tenant's small writes on a disk whose median rate is 0 chained
    // into the file's flush, so the chain saw neither its spacing nor its drop of Dirty: episodes are now
    // spaced where their bytes begin, and drained from Dirty's running maximum) and
    // mh_xfs_loop_copy_dirty_bytes_nosmaps (dd's 3 GB run and two small writebacks of its last pages taken as
    // a 16 s period not matching the writeback window: such a period now needs bursts of one size class).
    // Issue 34: the period is found from the series alone (no longer drawn to the writeback window).
    (
        "mx_ext4_loop_mmap_mixed_nosmaps_expire4500",
        "mmap_large_folio_writeback",
        "development half, not solved blind to the tunables: loop0 writes 383 MB at 0-15 s, 235 MB in small bursts over 41-76 s and 403 MB at 108 s, a period of 34.8 s (its truth's intervals, 41 and 66 s, are no single period); without smaps the rule needs bursts at the writeback window (50 s), which the window-drawn search found at 39 s by the width of its band",
    ),
    (
        "mx_ext4_mmap_order0_expire4500",
        "periodic_write_bursts",
        "the file's two 75 MB flushes 47 s apart are among a foreign writer's flushes of 143-147 MB (at 5, 11 and 26 s) and a 1.1 GB background flush; the third window (90-114 s) holds no flush (background writeback had taken the file's pages early): no complete chain of flushes, no period of the device's writes",
    ),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn outcome(r: &Report, rule: &str) -> String {
    if r.doc.findings.iter().any(|f| f.rule == rule) {
        return "fired".into();
    }
    r.doc.checked.iter().find(|c| c.rule == rule).map_or("absent".into(), |c| c.outcome.to_string())
}

/// One expectation and what iosift did.
struct Row {
    case: String,
    half: String,
    rule: String,
    fire: bool,
    actual: String,
}

impl Row {
    fn holds(&self) -> bool {
        (self.actual == "fired") == self.fire
    }
}

fn ids(truth: &serde_json::Value, key: &str) -> Vec<String> {
    truth[key]
        .as_array()
        .map_or_else(Vec::new, |a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect())
}

fn analyze_all() -> Vec<Row> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("samples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("truth.json").is_file())
        .collect();
    dirs.sort();
    let mut rows = Vec::new();
    for dir in dirs {
        let truth: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("truth.json")).unwrap()).unwrap();
        let b = load(&[dir.join("capture")], &Limits::default()).expect("sample loads");
        let r = analyze(&b, &Options::default());
        let case = dir.file_name().unwrap().to_string_lossy().into_owned();
        let half = truth["half"].as_str().unwrap_or("-").to_string();
        for (key, fire) in [("expect_fire", true), ("expect_not_fire", false)] {
            for rule in ids(&truth, key) {
                let actual = outcome(&r, &rule);
                rows.push(Row { case: case.clone(), half: half.clone(), rule, fire, actual });
            }
        }
    }
    rows
}

fn set_name(half: &str) -> &'static str {
    match half {
        "dev" => "matrix, development half",
        "check" => "matrix, check half",
        "heldout" => "matrix, held-out set",
        _ => "other samples",
    }
}

const SETS: [&str; 4] = ["dev", "check", "heldout", "-"];

/// `docs/accuracy.md` from the rows.
fn markdown(rows: &[Row]) -> String {
    let rules: Vec<&str> = iosift::rules::RULES.iter().map(|(id, _)| *id).collect();
    let mut s = String::from(
        "# Accuracy: rules x samples\n\n\
         Generated by `tests/accuracy.rs` from every `samples/*/truth.json` (`expect_fire`, \
         `expect_not_fire`, written from each workload's own logs) and iosift's analysis of \
         `samples/*/capture`; the test checks this file is current (`IOSIFT_UPDATE_DOCS=1 cargo \
         test --test accuracy` rewrites it). The scenario matrix (`samples/mx_*`, issue 14) was split \
         into a development half, which the rules were tuned on, and a check half, which they were \
         not; the check half's first measurement (66 of 71 held, 2026-12-02) is in the git history of \
         this file. The check half has since been worked on too, so the held-out set \
         (`samples/mh_*`, captured after those changes) is what measures the rules now: its first \
         measurement held 88 of 90; both misses were then fixed, so those two cases \
         (`mh_ext4_mmap_2m_expire4500_appender`, `mh_xfs_loop_copy_dirty_bytes_nosmaps`) are no \
         longer held out.\n\n\
         ## Summary\n\n| set | cases | expectations | hold | miss |\n|---|---|---|---|---|\n",
    );
    for set in SETS {
        let r: Vec<&Row> = rows.iter().filter(|x| x.half == set).collect();
        let mut cases: Vec<&str> = r.iter().map(|x| x.case.as_str()).collect();
        cases.dedup();
        let hold = r.iter().filter(|x| x.holds()).count();
        s +=
            &format!("| {} | {} | {} | {hold} | {} |\n", set_name(set), cases.len(), r.len(), r.len() - hold);
    }
    s += "\n## Per rule (hold / expectations)\n\n| rule | development half | check half | held-out set | other samples |\n|---|---|---|---|---|\n";
    for rule in &rules {
        let cell = |set: &str| {
            let r: Vec<&Row> = rows.iter().filter(|x| x.half == set && x.rule == *rule).collect();
            if r.is_empty() {
                "-".to_string()
            } else {
                format!("{} / {}", r.iter().filter(|x| x.holds()).count(), r.len())
            }
        };
        s += &format!(
            "| `{rule}` | {} | {} | {} | {} |\n",
            cell("dev"),
            cell("check"),
            cell("heldout"),
            cell("-")
        );
    }
    s += "\n## Rule x case\n\n\
          Each cell: the expectation (`fire` or `quiet`), then `ok` or `MISS` with what the rule did \
          (`fired`, `passed`, `skipped`); empty: no expectation.\n";
    for set in SETS {
        s += &format!(
            "\n### {}\n\n| case | {} |\n|---|{}\n",
            set_name(set),
            rules.join(" | "),
            "---|".repeat(rules.len())
        );
        let mut grid: BTreeMap<&str, BTreeMap<&str, &Row>> = BTreeMap::new();
        for r in rows.iter().filter(|x| x.half == set) {
            grid.entry(&r.case).or_default().insert(&r.rule, r);
        }
        for (case, by_rule) in grid {
            let cells: Vec<String> = rules
                .iter()
                .map(|rule| match by_rule.get(rule) {
                    None => String::new(),
                    Some(r) => {
                        let want = if r.fire { "fire" } else { "quiet" };
                        if r.holds() {
                            format!("{want} ok")
                        } else {
                            format!("{want} **MISS** ({})", r.actual)
                        }
                    }
                })
                .collect();
            s += &format!("| {case} | {} |\n", cells.join(" | "));
        }
    }
    let misses: Vec<&Row> = rows.iter().filter(|r| !r.holds()).collect();
    s += "\n## Misses and why\n\n";
    if misses.is_empty() {
        s += "None.\n";
    }
    for r in misses {
        let why = KNOWN_MISSES
            .iter()
            .find(|k| k.0 == r.case && k.1 == r.rule)
            .map_or("not explained (the test fails)", |k| k.2);
        s += &format!(
            "- `{}` ({}): `{}` expected to {}, {}: {why}\n",
            r.case,
            set_name(&r.half),
            r.rule,
            if r.fire { "fire" } else { "stay quiet" },
            r.actual
        );
    }
    s
}

#[test]
fn every_sample_meets_its_truth_json() {
    let rows = analyze_all();
    let doc = markdown(&rows);
    // Straight to stderr, so the matrix shows in every run.
    use std::io::Write;
    let _ = std::io::stderr().write_all(doc.as_bytes());
    let path = root().join("docs/accuracy.md");
    if std::env::var_os("IOSIFT_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &doc).unwrap();
    }
    let known: Vec<&str> = iosift::rules::RULES.iter().map(|(id, _)| *id).collect();
    let mut errors = Vec::new();
    for r in &rows {
        if !known.contains(&r.rule.as_str()) {
            errors.push(format!("{}: expectation names {:?}, which is not a rule of iosift", r.case, r.rule));
            continue;
        }
        let listed = KNOWN_MISSES.iter().any(|k| k.0 == r.case && k.1 == r.rule);
        match (r.holds(), listed) {
            (false, false) => errors.push(format!(
                "{} ({}): {} expected to {}, {}",
                r.case,
                set_name(&r.half),
                r.rule,
                if r.fire { "fire" } else { "stay quiet" },
                r.actual
            )),
            (true, true) => {
                errors.push(format!("{}: {} now holds: remove it from KNOWN_MISSES", r.case, r.rule))
            }
            _ => {}
        }
    }
    for k in KNOWN_MISSES {
        assert!(
            rows.iter().any(|r| r.case == k.0 && r.rule == k.1),
            "KNOWN_MISSES names no expectation: {k:?}"
        );
    }
    assert!(rows.iter().filter(|r| r.half == "-").count() >= 40, "too few expectations outside the matrix");
    assert!(rows.iter().filter(|r| r.half == "dev").count() >= 50, "too few development-half expectations");
    assert!(errors.is_empty(), "{} expectation(s) fail:\n{}", errors.len(), errors.join("\n"));
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(have == doc, "docs/accuracy.md is stale: run IOSIFT_UPDATE_DOCS=1 cargo test --test accuracy");
}

/// The id check itself: a made-up expectation is refused.
#[test]
fn an_unknown_rule_id_is_not_a_rule() {
    let known: Vec<&str> = iosift::rules::RULES.iter().map(|(id, _)| *id).collect();
    assert!(!known.contains(&"buffered_write_storm"));
    for id in ["buffered_write_burst", "buffered_writer_dirty_throttle", "fsync_bound_small_transactions"] {
        assert!(known.contains(&id), "{id}");
    }
}
