//! `iostat`: placeholder until its parser lands (sniffs nothing, parses nothing).

use crate::common::{Format, Parsed, Sniff, Stamp, Summary, Variant, lines::count_lines};

/// Parsed content (placeholder).
#[derive(Debug, Clone, Default)]
pub struct Output;

impl Summary for Output {
    fn records(&self) -> usize {
        0
    }
    fn variant(&self) -> Variant {
        Variant::new()
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        None
    }
}

/// The `iostat` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Output;
    const ID: &'static str = "iostat";
    const SAMPLE: &'static str = "";
    const DESCRIPTION: &'static str = "not implemented yet";
    fn sniff(_head: &[u8]) -> Sniff {
        Sniff::No
    }
    fn parse(input: &[u8]) -> Parsed<Output> {
        Parsed::new(Output, count_lines(input))
    }
}
