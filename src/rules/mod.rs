//! Rules: each is one file declaring its id ([`periodic::ID`], ...), its
//! typed inputs (`Inputs`, picked from [`Available`] by `gather`, or the
//! [`Missing`] ones) and a `check` that sees only those inputs and fires (a
//! [`Finding`]), passes (with the reason) or is skipped (with what is
//! missing). [`RULES`] lists them, in the order they are reported.

pub mod evidence;
pub mod ext4;
pub mod fsync;
pub mod inputs;
pub mod mmap;
pub mod periodic;
pub mod replication;
pub mod saturation;

pub use inputs::{Available, Missing};

use crate::model::{Checked, Finding};

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

/// A rule run on what is available.
pub type Eval = fn(&Available<'_>) -> Outcome;

/// Gathers a rule's inputs and checks them, or skips with what is missing.
fn run<'a, I>(
    a: &Available<'a>,
    gather: fn(&Available<'a>) -> Result<I, Vec<Missing>>,
    check: fn(&I) -> Outcome,
) -> Outcome {
    match gather(a) {
        Ok(inputs) => check(&inputs),
        Err(missing) => Outcome::Skip(missing),
    }
}

macro_rules! rule {
    ($m:ident) => {
        ($m::ID, (|a| run(a, $m::gather, $m::check)) as Eval)
    };
}

/// Every rule: its id and its evaluation.
pub const RULES: [(&str, Eval); 6] =
    [rule!(periodic), rule!(mmap), rule!(ext4), rule!(fsync), rule!(saturation), rule!(replication)];

/// Runs every rule: the findings, and the rules that passed or were skipped.
pub fn evaluate(a: &Available<'_>) -> (Vec<Finding>, Vec<Checked>) {
    let mut findings = Vec::new();
    let mut checked = Vec::new();
    for (id, rule) in RULES {
        match rule(a) {
            Outcome::Fire(x) => findings.push(*x),
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
