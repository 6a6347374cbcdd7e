//! Parsers for the files of Linux and MySQL I/O incident captures.
//!
//! One module per format (ids of the iosift contract), each implementing
//! [`common::Format`]: a content sniffer and a parser from bytes to a typed
//! value plus line-numbered diagnostics. No I/O beyond `&[u8]`, no panics on
//! any input, so every parser can be fuzzed. [`registry`] lists them all.

pub mod common;
pub mod registry;

pub mod binlogsum;
pub mod checksum_list;
pub mod clock_reference;
pub mod collector_cost;
pub mod csv_table;
pub mod dd_summary;
pub mod df;
pub mod dmesg;
pub mod dstat_csv;
pub mod dstat_text;
pub mod gdb_stacks;
pub mod innodb_status;
pub mod iostat;
pub mod mounts;
pub mod mpstat;
pub mod mysql_error_log;
pub mod mysql_option_file;
pub mod mysql_processlist;
pub mod mysql_replica_status;
pub mod mysql_threads;
pub mod mysql_variables;
pub mod mysqladmin_ext;
pub mod mysqlbinlog;
pub mod netstat;
pub mod perf_record_log;
pub mod perf_report;
pub mod perf_script;
pub mod pidstat;
pub mod pieces;
pub mod procfs;
pub mod ps;
pub mod pt_heartbeat;
pub mod pt_pmp;
pub mod sa_binary;
pub mod sadf;
pub mod sar;
pub mod sections;
pub mod smaps;
pub mod sysctl;
pub mod sysfs;
pub mod thread_list;
pub mod top;
pub mod uname;
pub mod vmstat;

pub use common::{DiagKind, Diagnostic, Format, Parsed, Sniff, Stamp, Summary};
pub use registry::{
    Budgets, Data, Detected, FORMATS, FormatInfo, Stream, StreamFrom, by_id, by_name_hint, detect,
};
