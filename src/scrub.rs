//! `iosift scrub` and `analyze --scrub`: the workspace crate `iosift-scrub` (scrub/),
//! re-exported whole. It is a crate of its own so that debug builds optimize it (the test
//! suite scrubs every sample).

pub use iosift_scrub::*;
