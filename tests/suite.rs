//! The integration tests, one test crate (one binary to build and link, instead of one per
//! file each linking polars). Each module is one area; run one with a filter on its path,
//! e.g. `cargo test --test suite snapshots::`.

mod common;

mod accuracy;
mod analyze;
mod architecture;
mod archives;
mod batch;
mod bounds;
mod chromium_bundles;
mod cli;
mod cluster;
mod collect;
mod collector;
mod columns_doc;
mod diff;
mod field;
mod fuzz_archives;
mod galera;
mod heat;
mod hostile;
mod inputs;
mod markdown;
mod numbers;
mod outdir;
mod pairs;
mod pdf;
mod pressure;
mod pt_stalk_sar;
mod report;
mod scrub;
mod snapshots;
mod stacks;
mod tables;
mod terminal;
mod time;
mod witnesses;
