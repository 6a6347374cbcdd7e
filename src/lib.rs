//! iosift: analyzer for Linux and MySQL I/O incident captures.
//!
//! Pipeline: [`bundle`] (discover and read inputs) -> `iosift_parsers`
//! (parse each file) -> clock (one UTC timeline) -> tables (polars) ->
//! analysis -> rules -> report.

#![warn(unreachable_pub)]

pub mod analysis;
pub mod analyze;
pub mod attribution;
pub mod batch;
pub mod bundle;
pub mod clock;
pub mod cluster;
pub mod diff;
pub mod inspect;
pub(crate) mod memory;
pub mod model;
pub mod outdir;
pub mod output;
pub mod pipeline;
pub mod progress;
pub mod report;
pub mod rules;
pub(crate) mod sadf;
pub mod scrub;
pub(crate) mod source;
pub(crate) mod state;
pub(crate) mod stats;
pub(crate) mod system;
pub mod table;
pub mod term;
pub mod verdict;
