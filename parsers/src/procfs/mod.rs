//! The files of `/proc`: `meminfo`, `vmstat`, `diskstats`, `pressure/*`, `stat` and
//! `interrupts`, each one snapshot or a series framed by pt-stalk's `TS` lines, and the
//! framing itself: [`tsblocks`] splits a whole file into blocks, [`tsstream`] feeds them
//! one at a time and [`ts_budget`] thins a long streamed series. (Other pt-stalk
//! collectors, `df`, `netstat`, `ps`, `pt-heartbeat`, `smaps`, use the same framing.)

pub mod diskstats;
pub mod interrupts;
pub mod meminfo;
pub mod pressure;
pub mod stat;
pub mod ts_budget;
pub mod tsblocks;
pub mod tspieces;
pub mod tsstream;
pub mod vmstat;
