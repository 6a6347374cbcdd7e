//! Accuracy: every sample in `samples/` with a `truth.json` is analyzed, and
//! each expectation (`expect_fire`, `expect_not_fire`) is compared with the
//! rule's outcome. The rule x case matrix is printed and kept in
//! `docs/accuracy.md` (generated; `IOSIFT_UPDATE_DOCS=1 cargo test --test
//! accuracy` rewrites it).
//!
//! Besides fire / quiet, a truth.json with `writers`, `issuers`, `period_s` or `healthy`
//! (issue 34) is checked on the findings that fired as expected: the verdict's writers
//! name one of the workload's writers (or say "not measured" where the capture lacks
//! pidstat); its measured issuer class is one of the workload's
//! (or it says "not measured" where the capture lacks perf and the trace, the witnesses that
//! name a thread); periodic_write_bursts' period is within 1.5 s of the workload's; a healthy
//! capture has no warning-or-worse finding. Whether those hold is reported per set, with
//! the false-alarm rate (warnings on healthy captures and on expectations to stay quiet).
//!
//! Asserted: an expectation naming a rule iosift does not have fails; every fire / quiet
//! expectation of the samples outside the scenario matrices holds; in the matrices
//! (`"half": "dev" | "check" | "heldout"`, issues 14 and 34) every expectation holds except the
//! misses listed in [`KNOWN_MISSES`] with their reason, and a listed miss that
//! now holds fails too (so the list only shrinks). Actor, period and health expectations
//! are asserted on the issuer matrix's development half; elsewhere they are measured and
//! reported (the check half is not tuned on).

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
    // The issuer matrix (samples/ix_*, issue 34), captured 2026-12-05 02:55-03:45 UTC while other
    // helpers built Rust and ran MariaDB on the same disk; its halves were fixed before any analysis.
    (
        "ix_ext4_db_relaxed_healthy",
        "periodic_write_bursts",
        "development half, not solved: the binlog's ~28 MB written back every 31 s is one burst among the other tenants' larger ones on vda (period 31.0 s at confidence 0.23); the flusher, not mariadbd, submits it, so no submitter series carries it. The capture gets no finding at all, so it stays healthy",
    ),
    // Issue 34, third session: the check-half miss ix_ext4_loop_journal_commit7_noperf (and its development
    // twin commit15) was fixed after it was seen: a stacked device's bursts are read against its own
    // scale, its periodic bursts are episodes, the bios of an episode are its device's (and those stacked
    // on it), and the writer of periodic bursts is the thread that dirtied, between two bursts, what the
    // next wrote. The check half is therefore no longer untuned for that case.
    // Issue 34: the period is found from the series alone (no longer drawn to the writeback window).
    // Two check-half misses measured untuned were then fixed, so they are no longer untuned:
    // ix_ext4_appfsync_15s_noperf (the checkpoint's flushes twice vda's busy floor: bursts are also
    // read over their local floor when the strict scan finds fewer than three, and a foreign burst
    // between a train's members cancels one member instead of the whole train) and
    // ix_xfs_loop_sync_other_25s_noperf (loop0's own 25 s period was not looked at because it is not
    // the writeback window's: a stacked device is read for any period). The held-out issuer matrix
    // (samples/ixh_*) measures the rules untuned again.
    (
        "mx_ext4_loop_mmap_mixed_nosmaps_expire4500",
        "periodic_write_bursts",
        "development half, not solved blind to the tunables: loop0's flushes are 347 MB over 5-15 s, 30-50 MB bursts from 41 to 76 s and 403 MB at 108 s: merged, the middle one lasts 35 s (no beat of a period that short), apart they are of other size classes; before, the window-drawn search took 5, 41, 69 and 108 s as 39 s, inside the window's band",
    ),
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

/// What a verdict expectation checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Writer,
    Issuer,
    Period,
    Healthy,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Writer => "writer",
            Kind::Issuer => "issuer",
            Kind::Period => "period",
            Kind::Healthy => "healthy",
        }
    }
}

/// One verdict expectation (writer, issuer, period, health) and what iosift said.
struct Check {
    case: String,
    half: String,
    rule: String,
    kind: Kind,
    want: String,
    got: String,
    holds: bool,
}

/// `dd` matches `dd`, `kworker` matches `kworker/u8:2-flush-254:0`; the kernel cuts names at 15.
fn same_comm(truth: &str, got: &str) -> bool {
    let t: String = truth.chars().take(15).collect();
    got == t || got.starts_with(&t) || t.starts_with(got) && got.len() >= 8
}

/// The verdict checks of one case.
fn verdict_checks(case: &str, half: &str, truth: &serde_json::Value, r: &Report) -> Vec<Check> {
    let mut out = Vec::new();
    let mk = |rule: &str, kind: Kind, want: String, got: String, holds: bool| Check {
        case: case.to_string(),
        half: half.to_string(),
        rule: rule.to_string(),
        kind,
        want,
        got,
        holds,
    };
    let writers = ids(truth, "writers");
    let issuers: Vec<(String, String)> = truth["issuers"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|i| {
                    (
                        i["class"].as_str().unwrap_or("").to_string(),
                        i["comm"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let w = &truth["witnesses"];
    let names_threads = w["perf"].as_bool().unwrap_or(true) || w["trace"].as_bool().unwrap_or(true);
    for rule in ids(truth, "expect_fire") {
        let Some(f) = r.doc.findings.iter().find(|f| f.rule == rule) else { continue };
        if !writers.is_empty() {
            let got: Vec<String> = f
                .actors
                .writers
                .iter()
                .map(|a| a.comm.clone().unwrap_or_else(|| "not measured".into()))
                .collect();
            let holds = f
                .actors
                .writers
                .iter()
                .any(|a| a.comm.as_deref().is_some_and(|c| writers.iter().any(|t| same_comm(t, c))))
                // Without pidstat, "not measured" is the honest answer.
                || (w["pidstat"].as_bool() == Some(false) && f.actors.writers.iter().all(|a| !a.measured));
            out.push(mk(&rule, Kind::Writer, writers.join(", "), got.join(", "), holds));
        }
        if !issuers.is_empty() {
            let a = f.actors.issuers.first();
            let class = a
                .filter(|a| a.measured)
                .map(|a| serde_json::to_value(a).unwrap()["class"].as_str().unwrap_or("").to_string());
            let got = match (a, &class) {
                (Some(a), Some(c)) => format!("{c} ({})", a.comm.as_deref().unwrap_or("thread not named")),
                (Some(_), None) => "not measured".to_string(),
                (None, _) => "no issuer".to_string(),
            };
            let holds = match &class {
                Some(c) => issuers.iter().any(|(tc, _)| tc == c),
                None => a.is_some() && !names_threads,
            };
            let want = issuers.iter().map(|(c, m)| format!("{c} ({m})")).collect::<Vec<_>>().join(", ");
            out.push(mk(&rule, Kind::Issuer, want, got, holds));
        }
        if rule == "periodic_write_bursts"
            && let Some(p) = truth["period_s"].as_f64()
        {
            let got = f.metrics.get("period_s").and_then(|m| m.value.as_f64());
            let holds = got.is_some_and(|g| (g - p).abs() <= 1.5);
            out.push(mk(
                &rule,
                Kind::Period,
                format!("{p:.1} s"),
                got.map_or("none".into(), |g| format!("{g:.1} s")),
                holds,
            ));
        }
    }
    if truth["healthy"].as_bool() == Some(true) {
        let loud: Vec<String> = r
            .doc
            .findings
            .iter()
            .filter(|f| f.severity >= iosift::model::Severity::Warning)
            .map(|f| format!("{} {:?}", f.rule, f.severity).to_lowercase())
            .collect();
        let holds = loud.is_empty();
        out.push(mk(
            "-",
            Kind::Healthy,
            "no warning".into(),
            if holds { "none".into() } else { loud.join(", ") },
            holds,
        ));
    }
    out
}

fn ids(truth: &serde_json::Value, key: &str) -> Vec<String> {
    truth[key]
        .as_array()
        .map_or_else(Vec::new, |a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect())
}

/// The set a case belongs to: its half, in the issuer matrix (`ix_*`, `rx_*`, and its
/// held-out set `ixh_*`, issue 34) apart.
fn set_of(case: &str, truth: &serde_json::Value) -> String {
    let half = truth["half"].as_str().unwrap_or("-");
    if (case.starts_with("ix_") || case.starts_with("ixh_") || case.starts_with("rx_")) && half != "-" {
        format!("ix-{half}")
    } else {
        half.to_string()
    }
}

fn analyze_all() -> (Vec<Row>, Vec<Check>) {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("samples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("truth.json").is_file())
        .collect();
    dirs.sort();
    // One case per core (the cases are independent); each report is dropped once its
    // expectations are read, and the results come back in name order.
    use rayon::prelude::*;
    // A cluster sample (`capture/node1`, `capture/node2`, ...) is one case per node, whose
    // expectations are the truth.json's `nodes.NODE` object.
    let cases: Vec<(String, PathBuf, serde_json::Value)> = dirs
        .iter()
        .flat_map(|dir| {
            let all: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(dir.join("truth.json")).unwrap()).unwrap();
            let case = dir.file_name().unwrap().to_string_lossy().into_owned();
            crate::common::sample_captures(&case, &dir.join("capture"))
                .into_iter()
                .map(|(name, path, node)| {
                    let truth = match node.as_deref().and_then(|n| all.get("nodes")?.get(n)) {
                        Some(t) => t.clone(),
                        None => all.clone(),
                    };
                    (name, path, truth)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let per_case: Vec<(Vec<Row>, Vec<Check>)> = cases
        .into_par_iter()
        .map(|(case, capture, truth)| {
            let b = load(&[capture], &Limits::default()).expect("sample loads");
            let r = analyze(&b, &Options::default());
            let half = set_of(&case, &truth);
            let mut rows = Vec::new();
            for (key, fire) in [("expect_fire", true), ("expect_not_fire", false)] {
                for rule in ids(&truth, key) {
                    let actual = outcome(&r, &rule);
                    rows.push(Row { case: case.clone(), half: half.clone(), rule, fire, actual });
                }
            }
            (rows, verdict_checks(&case, &half, &truth, &r))
        })
        .collect();
    let (mut rows, mut checks) = (Vec::new(), Vec::new());
    for (r, c) in per_case {
        rows.extend(r);
        checks.extend(c);
    }
    (rows, checks)
}

fn set_name(half: &str) -> &'static str {
    match half {
        "dev" => "matrix, development half",
        "check" => "matrix, check half",
        "heldout" => "matrix, held-out set",
        "ix-dev" => "issuer matrix, development half",
        "ix-check" => "issuer matrix, check half",
        "ix-held" => "issuer matrix, held-out set",
        _ => "other samples",
    }
}

const SETS: [&str; 7] = ["ix-dev", "ix-check", "ix-held", "dev", "check", "heldout", "-"];

/// `docs/accuracy.md` from the rows.
fn markdown(rows: &[Row], checks: &[Check]) -> String {
    let rules: Vec<&str> = iosift::rules::RULES.iter().map(|(id, _)| *id).collect();
    let mut s = String::from(
        "# Accuracy: rules x samples\n\n\
         Generated by `tests/accuracy.rs` from every `samples/*/truth.json` (`expect_fire`, \
         `expect_not_fire`, written from each workload's own logs) and iosift's analysis of \
         `samples/*/capture`; the test checks this file is current (`IOSIFT_UPDATE_DOCS=1 cargo \
         test --test suite accuracy` rewrites it). The scenario matrix (`samples/mx_*`, issue 14) was split \
         into a development half, which the rules were tuned on, and a check half, which they were \
         not; the check half's first measurement (66 of 71 held, 2026-12-02) is in the git history of \
         this file. The check half has since been worked on too, so the held-out set \
         (`samples/mh_*`, captured after those changes) is what measures the rules now: its first \
         measurement held 88 of 90; both misses were then fixed, so those two cases \
         (`mh_ext4_mmap_2m_expire4500_appender`, `mh_xfs_loop_copy_dirty_bytes_nosmaps`) are no \
         longer held out. The issuer matrix of issue 34 (`samples/ix_*`) has a development and a \
         check half too; its held-out set (`samples/ixh_*`, 9 cases captured 2026-12-05 \
         06:55-07:14 UTC by a helper who never ran iosift on them) was first measured after the \
         period and severity changes of that day: its rule expectations held 53 of 53, its \
         verdicts writer 8 / 8, issuer 4 / 8, period 5 / 6, healthy 1 / 2 (false alarms 1 / 47). \
         Two cases of ext4 data=journal (`ixh_ext4_loop_datajournal_10s`, `_noperf`) were added \
         after and first measured with their rules 12 of 12, periods 10 s, and issuers \
         not measured (with the trace) and direct_io (without): jbd2's share of the bios beside \
         the flusher was then counted as the journal's, which fixed the first. The held-out \
         healthy database (`ixh_ext4_db_relaxed_healthy_4t`) warned because one of its two \
         flushes dropped the commit rate for a second; periodic bursts now warn only when at \
         least two of their episodes cost something, so that expectation is no longer untuned \
         either. A second held-out set of 8 cases (`ixh_xfs_loop_msync_17s`, \
         `ixh_ext4_odirect_12s_noperf`, `ixh_ext4_loop_journal_commit10`, \
         `ixh_xfs_loop_copy1500_background`, `ixh_ext4_appfsync_7s_noperf`, \
         `ixh_xfs_loop_db_relaxed_healthy_3t`, `ixh_ext4_sfr_steps`, `ixh_idle_d_noperf`; captured \
         2026-12-05 13:21-13:38 UTC by a helper who never ran iosift on them, planned before) was \
         measured once at 13:49 UTC, untuned: its rule expectations held 47 of 49, its verdicts \
         writer 5 / 5, issuer 5 / 5, period 3 / 3, healthy 2 / 2 (false alarms 1 / 45). Both misses \
         were in `ixh_ext4_odirect_12s_noperf` (an O_DIRECT timer without perf among builds that \
         dirtied memory): buffered_write_burst took its writes for a buffered copy and \
         periodic_write_bursts found no period in the device's mixed writes. They were then fixed \
         (a writer charged in bursts whose bytes reach the disk in the same seconds is no absorbed \
         write; without the trace, such a thread's pidstat series is a submitter), so that case is \
         no longer held out.\n\n\
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
    s += &verdict_summary(rows, checks);
    s += "\n## Per rule (hold / expectations)\n\n| rule | issuer matrix, development half | issuer matrix, check half | issuer matrix, held-out set | development half | check half | held-out set | other samples |\n|---|---|---|---|---|---|---|---|\n";
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
            "| `{rule}` | {} | {} | {} | {} | {} | {} | {} |\n",
            cell("ix-dev"),
            cell("ix-check"),
            cell("ix-held"),
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
    s += &issuer_classes(checks);
    s += &verdict_details(checks);
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

/// The verdict expectations per set, and the false-alarm rate.
fn verdict_summary(rows: &[Row], checks: &[Check]) -> String {
    let mut s = String::from(
        "\n## Writers, issuers, periods, health (issue 34)\n\n\
         On the findings that fired as expected: the verdict's writers name one of the workload's, or \
         \"not measured\" where the capture has no pidstat (`writer`); its measured issuer class is the workload's, or \"not measured\" where the capture \
         has neither perf nor the trace (`issuer`); periodic_write_bursts' period is within 1.5 s of \
         the workload's (`period`); a healthy capture (a database or host with nothing wrong) has no \
         warning-or-worse finding (`healthy`). False alarms: warning-or-worse findings on healthy \
         captures, and findings of rules expected to stay quiet, over those expectations.\n\n\
         | set | writer | issuer | period | healthy | false alarms |\n|---|---|---|---|---|---|\n",
    );
    for set in SETS {
        let cell = |k: Kind| {
            let c: Vec<&Check> = checks.iter().filter(|c| c.half == set && c.kind == k).collect();
            if c.is_empty() {
                "-".to_string()
            } else {
                format!("{} / {}", c.iter().filter(|c| c.holds).count(), c.len())
            }
        };
        let quiet: Vec<&Row> = rows.iter().filter(|r| r.half == set && !r.fire).collect();
        let healthy: Vec<&Check> =
            checks.iter().filter(|c| c.half == set && c.kind == Kind::Healthy).collect();
        let alarms =
            quiet.iter().filter(|r| !r.holds()).count() + healthy.iter().filter(|c| !c.holds).count();
        let of = quiet.len() + healthy.len();
        let rate = if of == 0 {
            "-".to_string()
        } else {
            format!("{alarms} / {of} ({:.1} %)", 100.0 * alarms as f64 / of as f64)
        };
        s += &format!(
            "| {} | {} | {} | {} | {} | {rate} |\n",
            set_name(set),
            cell(Kind::Writer),
            cell(Kind::Issuer),
            cell(Kind::Period),
            cell(Kind::Healthy)
        );
    }
    s
}

/// Per issuer class of the truth: the cases where a finding measured it, and those where the
/// page said "not measured" (the witness missing).
fn issuer_classes(checks: &[Check]) -> String {
    // class -> (measured in, not measured in, another class in)
    type Cases = (Vec<String>, Vec<String>, Vec<String>);
    let mut by: BTreeMap<String, Cases> = BTreeMap::new();
    for c in checks.iter().filter(|c| c.kind == Kind::Issuer) {
        let wanted: Vec<&str> = c.want.split(", ").filter_map(|w| w.split(' ').next()).collect();
        // A case whose truth names several classes is listed under the one it measured.
        let hit: Vec<&str> = wanted.iter().copied().filter(|w| c.got.starts_with(w)).collect();
        for class in if hit.is_empty() { wanted } else { hit } {
            let class = class.to_string();
            let e = by.entry(class.clone()).or_default();
            let name = format!("`{}`", c.case);
            if c.got.starts_with(&class) {
                e.0.push(name);
            } else if c.got == "not measured" {
                e.1.push(name);
            } else {
                e.2.push(format!("{name} ({})", c.got));
            }
        }
    }
    let mut s = String::from(
        "\n## Issuer classes: measured, not measured\n\n\
         For each issuer class of the truths: the cases whose finding measured it, those whose page \
         said \"not measured\", and those that measured another class.\n\n\
         | class | measured | not measured | another class |\n|---|---|---|---|\n",
    );
    for (class, (mut yes, mut none, mut other)) in by {
        for v in [&mut yes, &mut none, &mut other] {
            v.dedup();
        }
        let (yes, none, other) = (yes.join(", "), none.join(", "), other.join(", "));
        s += &format!("| `{class}` | {yes} | {none} | {other} |\n");
    }
    s
}

/// Every verdict expectation, per set.
fn verdict_details(checks: &[Check]) -> String {
    let mut s = String::from(
        "\n## Verdict expectations, case by case\n\nEach row: the expectation, what the truth says, what iosift said.\n",
    );
    for set in SETS {
        let mut c: Vec<&Check> = checks.iter().filter(|c| c.half == set).collect();
        if c.is_empty() {
            continue;
        }
        c.sort_by(|a, b| a.case.cmp(&b.case).then(a.kind.cmp(&b.kind)));
        s += &format!(
            "\n### {}\n\n| case | rule | check | truth | iosift | |\n|---|---|---|---|---|---|\n",
            set_name(set)
        );
        for x in c {
            s += &format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                x.case,
                x.rule,
                x.kind.word(),
                x.want.replace('|', "/"),
                x.got.replace('|', "/"),
                if x.holds { "ok" } else { "**MISS**" }
            );
        }
    }
    s
}

#[test]
fn every_sample_meets_its_truth_json() {
    let (rows, checks) = analyze_all();
    let doc = markdown(&rows, &checks);
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
    // The issuer matrix's development half, which the episodes were tuned on, holds its verdicts.
    for c in checks.iter().filter(|c| c.half == "ix-dev" && !c.holds) {
        errors.push(format!(
            "{} ({}): {} {}: truth {}, iosift {}",
            c.case,
            set_name(&c.half),
            c.rule,
            c.kind.word(),
            c.want,
            c.got
        ));
    }
    assert!(errors.is_empty(), "{} expectation(s) fail:\n{}", errors.len(), errors.join("\n"));
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == doc,
        "docs/accuracy.md is stale: run IOSIFT_UPDATE_DOCS=1 cargo test --test suite accuracy"
    );
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
