//! Analysis kernels on the 1 s timeline: robust statistics, burst
//! detection, periodicity (autocorrelation, periodogram, burst intervals) and
//! lagged cross-correlation.

pub mod bursts;
pub mod period;
pub mod replication;
pub mod stats;
