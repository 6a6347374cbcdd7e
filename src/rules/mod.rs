//! Rules: each is one file declaring its id ([`periodic::ID`], ...), its
//! typed inputs (`Inputs`, picked from [`Available`] by `gather`, or the
//! [`Missing`] ones), a `decide` that sees only those inputs and computes
//! everything the rule concludes ([`Decision`]: fire with the rule's typed
//! `Verdict`, pass with the reason, or, when a witness it needs turns out
//! empty, skip), and an `explain` that only writes the verdict as a
//! [`Finding`]: the summary, the remedies and the metrics with their units.
//! `check` is `decide` then `explain` ([`outcome`]). [`RULES`] lists them, in
//! the order they are reported.
//!
//! Adding a rule: a file with `pub const ID` (a rule id of DESIGN.md, never
//! renamed), `pub const SPEC` (its [`crate::verdict::RuleSpec`]: title and key
//! charts), `pub struct Inputs<'a>`, `pub fn gather(&Available) -> Result<Inputs,
//! Vec<Missing>>` (a new kind of input is a new [`Missing`] variant, whose text is
//! the skip reason, and an accessor on [`Available`] if the capture offers it),
//! `pub struct Verdict` (every number with its unit in its name or type, flag, name,
//! and a [`Basis`]: severity, confidence, window, evidence, actors),
//! `pub fn decide(&Inputs) -> Decision<Verdict>` (all the computing), `pub fn
//! explain(&Verdict) -> Finding` (only words, remedies and [`crate::verdict::Metric`]s;
//! no arithmetic beyond unit conversion for display), `pub fn check(&Inputs) ->
//! Outcome` (`outcome(decide(i), explain)`), unit tests on hand-built `Inputs` at
//! both sides of every threshold; then one `rule!(file)` line in [`RULES`] and its
//! `SPEC` in [`SPECS`] (`rule!(file, one_second)` when the rule reads second-by-second
//! shapes: bursts, flush lags, holds; it is then skipped on a timeline of wider rows,
//! where a row is a mean). The report needs nothing: it renders every finding from
//! its actors, window, metrics' units and the rule's `SPEC`.

pub(crate) mod actors;
pub(crate) mod buffered_burst;
pub(crate) mod dirty_throttle;
pub(crate) mod evidence;
pub(crate) mod ext4;
pub(crate) mod fsync;
pub(crate) mod inputs;
pub(crate) mod mmap;
pub(crate) mod mmap_writers;
pub(crate) mod periodic;
pub(crate) mod replication;
pub(crate) mod saturation;
/// The numbers a capture measures whatever its rules decide, by the rules' own functions
/// ([`fsync::load_rates`], [`replication::lag`]).
pub fn measure(a: &Available<'_>) -> crate::analysis::measures::Measures {
    crate::analysis::measures::Measures {
        load: fsync::gather(a).ok().map(|i| fsync::load_rates(&i)),
        lag: replication::gather(a).ok().and_then(|i| replication::lag(&i)),
        fsync_sample_share: a.fsync_sample_share(),
        bytes_per_transaction: a.binlog().map(|b| (b.mean_bytes, b.file.to_string())),
    }
}

#[cfg(test)]
mod testkit;

pub use inputs::{Available, Missing};

use crate::model::{Checked, Evidence, Finding, Severity, Window};
use crate::verdict::{Actors, Metric};
use std::collections::BTreeMap;

/// What a rule concluded.
#[derive(Debug)]
pub enum Outcome {
    /// The rule fired.
    Fire(Box<Finding>),
    /// The inputs were there and the condition does not hold.
    Pass(String),
    /// Inputs missing.
    Skip(Vec<Missing>),
}

/// What a rule's `decide` concluded from its inputs.
#[derive(Debug)]
pub enum Decision<V> {
    /// The rule fires with this verdict.
    Fire(V),
    /// The condition does not hold, for this reason.
    Pass(String),
    /// A witness the rule needs is there but tells nothing (mmap: neither folio counters
    /// nor request sizes measured).
    Skip(Vec<Missing>),
}

/// What every verdict holds besides its rule's own numbers and names.
#[derive(Debug, Clone)]
pub struct Basis {
    /// How bad.
    pub severity: Severity,
    /// How sure, 0..1.
    pub confidence: f64,
    /// The first and last epoch second it covers (None: the whole capture).
    pub window: Option<(i64, i64)>,
    /// Where the numbers come from.
    pub evidence: Vec<Evidence>,
    /// Who wrote, who issued and why, who bounds (empty: the window's episodes say).
    pub actors: Actors,
}

impl Basis {
    /// The finding of rule `rule` on this basis, with the words and numbers its `explain` wrote.
    pub fn finding(
        &self,
        rule: &'static str,
        summary: String,
        metrics: BTreeMap<&'static str, Metric>,
        remedies: Vec<String>,
    ) -> Finding {
        Finding {
            rule,
            severity: self.severity,
            confidence: self.confidence,
            summary,
            window: self.window.map(|(a, b)| Window::epochs(a, b)),
            metrics,
            evidence: self.evidence.clone(),
            remedies,
            actors: self.actors.clone(),
        }
    }
}

/// A decision as an outcome: a verdict is explained into its finding.
pub fn outcome<V>(d: Decision<V>, explain: fn(&V) -> Finding) -> Outcome {
    match d {
        Decision::Fire(v) => Outcome::Fire(Box::new(explain(&v))),
        Decision::Pass(reason) => Outcome::Pass(reason),
        Decision::Skip(missing) => Outcome::Skip(missing),
    }
}

/// A rule run on what is available.
pub type Eval = fn(&Available<'_>) -> Outcome;

/// Gathers a rule's inputs and checks them, or skips with what is missing. A rule that
/// follows bursts, flushes and holds second by second (`one_second`) is skipped on the
/// wider rows of a capture of days sampled coarsely ([`Missing::OneSecondRows`]).
fn run<'a, I>(
    a: &Available<'a>,
    gather: fn(&Available<'a>) -> Result<I, Vec<Missing>>,
    check: fn(&I) -> Outcome,
    one_second: bool,
) -> Outcome {
    if one_second && a.bin() > 1 {
        return Outcome::Skip(vec![Missing::OneSecondRows]);
    }
    match gather(a) {
        Ok(inputs) => check(&inputs),
        Err(missing) => Outcome::Skip(missing),
    }
}

macro_rules! rule {
    ($m:ident) => {
        ($m::ID, (|a| run(a, $m::gather, $m::check, false)) as Eval)
    };
    ($m:ident, one_second) => {
        ($m::ID, (|a| run(a, $m::gather, $m::check, true)) as Eval)
    };
}

/// Every rule: its id and its evaluation.
pub const RULES: [(&str, Eval); 8] = [
    rule!(periodic, one_second),
    rule!(mmap, one_second),
    rule!(ext4),
    rule!(fsync),
    rule!(saturation),
    rule!(replication),
    rule!(buffered_burst, one_second),
    rule!(dirty_throttle, one_second),
];

/// Every rule's declaration to the report, in [`RULES`] order.
pub const SPECS: [crate::verdict::RuleSpec; 8] = [
    periodic::SPEC,
    mmap::SPEC,
    ext4::SPEC,
    fsync::SPEC,
    saturation::SPEC,
    replication::SPEC,
    buffered_burst::SPEC,
    dirty_throttle::SPEC,
];

/// The declaration of rule `id`.
pub fn spec(id: &str) -> Option<crate::verdict::RuleSpec> {
    SPECS.iter().find(|s| s.id == id).copied()
}

/// Runs every rule: the findings, and the rules that passed or were skipped.
pub fn evaluate(a: &Available<'_>) -> (Vec<Finding>, Vec<Checked>) {
    let mut findings = Vec::new();
    let mut checked = Vec::new();
    for (id, rule) in RULES {
        match rule(a) {
            Outcome::Fire(mut x) => {
                // What the rule did not name comes from the episodes of its window.
                let found = actors::of_window(a, &x);
                if x.actors.writers.is_empty() {
                    x.actors.writers = found.writers;
                }
                if x.actors.issuers.is_empty() {
                    x.actors.issuers = found.issuers;
                }
                findings.push(*x)
            }
            Outcome::Pass(reason) => {
                checked.push(Checked { rule: id, outcome: "passed", reason: Some(reason), missing: vec![] })
            }
            Outcome::Skip(missing) => checked.push(Checked {
                rule: id,
                outcome: "skipped",
                reason: None,
                missing: missing.iter().map(Missing::to_string).collect(),
            }),
        }
    }
    (findings, checked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Views;
    use crate::table::Timeline;

    #[test]
    fn every_rule_is_listed_once_with_its_own_id() {
        let ids: Vec<&str> = RULES.iter().map(|(id, _)| *id).collect();
        assert_eq!(
            ids,
            [
                periodic::ID,
                mmap::ID,
                ext4::ID,
                fsync::ID,
                saturation::ID,
                replication::ID,
                buffered_burst::ID,
                dirty_throttle::ID
            ]
        );
        let specs: Vec<&str> = SPECS.iter().map(|s| s.id).collect();
        assert_eq!(specs, ids);
        let mut unique = ids.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 8);
    }

    #[test]
    fn wider_rows_skip_the_second_by_second_rules_and_only_them() {
        let (tl, views) = (Timeline::binned(0.0, 6000.0, 600), Views::default());
        let (_, checked) = evaluate(&Available::bare(&tl, &views));
        let one_second: Vec<&str> = checked
            .iter()
            .filter(|c| c.missing == [Missing::OneSecondRows.to_string()])
            .map(|c| c.rule)
            .collect();
        assert_eq!(one_second, [periodic::ID, mmap::ID, buffered_burst::ID, dirty_throttle::ID]);
    }

    #[test]
    fn an_empty_capture_skips_every_rule_with_the_generated_reasons() {
        let (tl, views) = (Timeline::default(), Views::default());
        let (findings, checked) = evaluate(&Available::bare(&tl, &views));
        assert!(findings.is_empty());
        let got: Vec<(&str, &str, Vec<String>)> =
            checked.iter().map(|c| (c.rule, c.outcome, c.missing.clone())).collect();
        let want = |id, m: &[Missing]| (id, "skipped", m.iter().map(Missing::to_string).collect::<Vec<_>>());
        assert_eq!(
            got,
            vec![
                want(periodic::ID, &[Missing::DeviceWrites]),
                want(mmap::ID, &[Missing::DeviceWrites]),
                want(ext4::ID, &[Missing::KernelRelease, Missing::MountOptions]),
                want(fsync::ID, &[Missing::CommitRate, Missing::FlushRate]),
                want(saturation::ID, &[Missing::DeviceUtilisation]),
                want(replication::ID, &[Missing::ReplicaStatus]),
                want(
                    buffered_burst::ID,
                    &[Missing::WriterThreads, Missing::DirtyMemory, Missing::DeviceWrites]
                ),
                want(
                    dirty_throttle::ID,
                    &[Missing::WriterThreads, Missing::DirtyMemory, Missing::DeviceWrites]
                ),
            ]
        );
        assert_eq!(checked[0].missing, ["device write throughput (iostat -x or /proc/diskstats series)"]);
    }
}
