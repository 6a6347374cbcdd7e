//! THE list of formats. Adding a format is one module implementing
//! [`Format`] plus one line in the `formats!` invocation below; order is
//! priority when several sniffers say [`Sniff::Yes`]. A line may add the
//! format's [`Extra`] facts: how a large file of it is parsed as a stream of
//! lines ([`Stream`]), and the words of a file name that say an empty file is
//! its output (`hints`).

use crate::common::{Format, LineSource, Parsed, SNIFF_BYTES, Sniff, SourceLine, Summary};

/// From what size on disk a file of a format is streamed (the application sets the sizes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamFrom {
    /// Only large files: perf scripts and decoded binlogs (their collectors keep little per line).
    Large,
    /// Series (iostat, pidstat, vmstat, dool/dstat CSV, `TS`-framed /proc files): their
    /// records are kept, but no whole-file buffer is made.
    Series,
}

/// The memory budgets of streamed series (bytes; 0: no limit), set by the application:
/// past one, a parser merges or thins what it keeps (and says so).
#[derive(Debug, Clone, Copy, Default)]
pub struct Budgets {
    /// Parsed rows of an iostat.
    pub iostat_rows: usize,
    /// Parsed rows of a pidstat.
    pub pidstat_rows: usize,
    /// Snapshots of a `TS`-framed /proc series.
    pub snapshots: usize,
}

/// How a format is parsed from lines fed one at a time (a file streamed from disk).
#[derive(Debug, Clone, Copy)]
pub struct Stream {
    /// From what size on disk it is streamed.
    pub from: StreamFrom,
    parse: fn(&mut Lines<'_>, &Budgets) -> Parsed<Data>,
}

impl Stream {
    /// Parses the lines of `src` within the budgets.
    pub fn parse(&self, src: &mut dyn LineSource, budgets: &Budgets) -> Parsed<Data> {
        (self.parse)(&mut Lines(src), budgets)
    }
}

/// A [`LineSource`] behind a reference (the parsers read a sized source).
pub struct Lines<'a>(&'a mut dyn LineSource);

impl LineSource for Lines<'_> {
    fn next_line(&mut self) -> Option<SourceLine<'_>> {
        self.0.next_line()
    }
    fn len_hint(&self) -> usize {
        self.0.len_hint()
    }
}

/// What a line of the registry may add to a format.
#[derive(Debug, Clone, Copy)]
pub struct Extra {
    /// How a large file of it is streamed (`None`: it is read whole).
    pub stream: Option<Stream>,
    /// Words of a file name that say an empty file is its output (a run killed before its
    /// first line, or whose stdout went to `--output`).
    pub hints: &'static [&'static str],
}

impl Extra {
    /// No streaming, no hints.
    const NONE: Extra = Extra { stream: None, hints: &[] };
}

/// Streamed from [`StreamFrom::Series`] sizes on.
const fn series(parse: fn(&mut Lines<'_>, &Budgets) -> Parsed<Data>) -> Option<Stream> {
    Some(Stream { from: StreamFrom::Series, parse })
}

/// Streamed from [`StreamFrom::Large`] sizes on.
const fn large(parse: fn(&mut Lines<'_>, &Budgets) -> Parsed<Data>) -> Option<Stream> {
    Some(Stream { from: StreamFrom::Large, parse })
}

/// A perf script fed to its collector line by line.
fn perf_lines(src: &mut Lines<'_>, _: &Budgets) -> Parsed<Data> {
    let mut c = crate::perf_script::Collector::new();
    while let Some(l) = src.next_line() {
        c.feed_line(l.line.no, l.line.bytes);
    }
    c.finish().map(|v| Data::PerfScript(Box::new(v)))
}

/// A decoded binlog fed to its collector line by line.
fn binlog_lines(src: &mut Lines<'_>, _: &Budgets) -> Parsed<Data> {
    let mut c = crate::mysqlbinlog::Collector::new();
    while let Some(l) = src.next_line() {
        c.feed_line(l.line.no, l.line.bytes);
    }
    c.finish().map(Data::Mysqlbinlog)
}

macro_rules! formats {
    ($( $variant:ident => $($module:ident)::+ $({ $($field:ident : $value:expr),* $(,)? })? ),* $(,)?) => {
        /// The typed result of parsing a file of any format.
        #[derive(Debug)]
        pub enum Data {
            $(
                #[doc = concat!("Parsed `", stringify!($($module)::+), "`.")]
                $variant(<crate::$($module)::+::Fmt as Format>::Output),
            )*
        }

        impl Data {
            /// The format-independent view of the value.
            pub fn summary(&self) -> &dyn Summary {
                match self {
                    $( Data::$variant(v) => v, )*
                }
            }
        }

        /// Static facts about one format (for `iosift formats`).
        #[derive(Debug, Clone, Copy)]
        pub struct FormatInfo {
            /// Format id of the contract.
            pub id: &'static str,
            /// One-line description.
            pub description: &'static str,
            /// A real sample line.
            pub sample: &'static str,
            /// Streaming and name hints.
            pub extra: Extra,
            /// Which of its fields identify a customer (for `iosift scrub`).
            pub identifiers: crate::common::scrub::Identifiers,
            sniff: fn(&[u8]) -> Sniff,
            parse: fn(&[u8]) -> Parsed<Data>,
        }

        impl FormatInfo {
            /// Runs this format's sniffer on the head of a file.
            pub fn sniff(&self, head: &[u8]) -> Sniff {
                (self.sniff)(&head[..head.len().min(SNIFF_BYTES)])
            }
            /// Parses a whole (decompressed) file as this format.
            pub fn parse(&self, input: &[u8]) -> Parsed<Data> {
                (self.parse)(input)
            }
        }

        /// Every format, in priority order.
        // A line that gives every extra field leaves the struct update without effect.
        #[allow(clippy::needless_update)]
        pub static FORMATS: &[FormatInfo] = &[
            $(
                FormatInfo {
                    id: <crate::$($module)::+::Fmt as Format>::ID,
                    description: <crate::$($module)::+::Fmt as Format>::DESCRIPTION,
                    sample: <crate::$($module)::+::Fmt as Format>::SAMPLE,
                    extra: Extra { $($($field: $value,)*)? ..Extra::NONE },
                    identifiers: <crate::$($module)::+::Fmt as Format>::IDENTIFIERS,
                    sniff: <crate::$($module)::+::Fmt as Format>::sniff,
                    parse: |input| <crate::$($module)::+::Fmt as Format>::parse(input).map(Data::$variant),
                },
            )*
        ];
    };
}

formats! {
    Iostat => iostat {
        stream: series(|s, b| crate::iostat::parse_source_within(s, b.iostat_rows).map(Data::Iostat)),
        hints: &["iostat"],
    },
    IostatJson => iostat::json,
    Pidstat => pidstat {
        stream: series(|s, b| crate::pidstat::parse_source_within(s, b.pidstat_rows).map(Data::Pidstat)),
        hints: &["pidstat"],
    },
    PidstatJson => pidstat::json,
    Sar => sar { stream: series(|s, _| crate::sar::parse_source(s, crate::sar::Source::SarText).map(Data::Sar)) },
    Sadf => sadf,
    SaBinary => sa_binary,
    Mpstat => mpstat { stream: series(|s, _| crate::mpstat::parse_source(s).map(Data::Mpstat)) },
    Ps => ps,
    Top => top,
    Netstat => netstat,
    Interrupts => procfs::interrupts,
    Df => df,
    Vmstat => vmstat {
        stream: series(|s, _| crate::vmstat::parse_source(s).map(Data::Vmstat)),
        hints: &["vmstat"],
    },
    DstatCsv => dstat_csv { stream: series(|s, _| crate::dstat_csv::parse_source(s).map(Data::DstatCsv)) },
    DstatText => dstat_text {
        stream: series(|s, _| crate::dstat_text::parse_source(s).map(Data::DstatText)),
        hints: &["dstat", "dool"],
    },
    ProcMeminfo => procfs::meminfo {
        stream: series(|s, b| crate::procfs::meminfo::parse_source_within(s, b.snapshots).map(Data::ProcMeminfo)),
    },
    ProcVmstat => procfs::vmstat {
        stream: series(|s, b| crate::procfs::vmstat::parse_source_within(s, b.snapshots).map(Data::ProcVmstat)),
    },
    ProcDiskstats => procfs::diskstats {
        stream: series(|s, b| crate::procfs::diskstats::parse_source_within(s, b.snapshots).map(Data::ProcDiskstats)),
    },
    ProcPressure => procfs::pressure,
    ProcStat => procfs::stat,
    Smaps => smaps,
    PerfScript => perf_script { stream: large(perf_lines), hints: &["perf"] },
    GdbStacks => gdb_stacks,
    PtPmp => pt_pmp,
    Mysqlbinlog => mysqlbinlog { stream: large(binlog_lines), hints: &["binlog"] },
    Binlogsum => binlogsum,
    MysqlVariables => mysql_variables,
    MysqlThreads => mysql_threads,
    MysqladminExt => mysqladmin_ext,
    MysqlReplicaStatus => mysql_replica_status,
    PtHeartbeat => pt_heartbeat,
    Uname => uname,
    Mounts => mounts,
    Sysctl => sysctl { hints: &["sysctl"] },
    Sysfs => sysfs,
    ClockReference => clock_reference,
    PerfReport => perf_report,
    ThreadList => thread_list,
    InnodbStatus => innodb_status,
    MysqlErrorLog => mysql_error_log,
    MysqlOptionFile => mysql_option_file,
    MysqlProcesslist => mysql_processlist,
    DdSummary => dd_summary,
    ChecksumList => checksum_list,
    PerfRecordLog => perf_record_log,
    CollectorCost => collector_cost,
    Dmesg => dmesg,
    CsvTable => csv_table,
    Sections => sections,
}

/// The format whose name hints a file name (lower case) contains, first in registry order.
pub fn by_name_hint(base: &str) -> Option<&'static FormatInfo> {
    FORMATS.iter().find(|f| f.extra.hints.iter().any(|h| base.contains(h)))
}

/// Looks a format up by id.
pub fn by_id(id: &str) -> Option<&'static FormatInfo> {
    FORMATS.iter().find(|f| f.id == id)
}

/// The outcome of content detection.
#[derive(Debug)]
pub struct Detected {
    /// The chosen format.
    pub format: &'static FormatInfo,
    /// The parse made while deciding (reuse it instead of parsing again).
    pub parsed: Parsed<Data>,
}

/// Detects the format of a whole (decompressed) file and parses it.
///
/// The first format whose sniffer says [`Sniff::Yes`] wins. Otherwise every
/// [`Sniff::Unsure`] format is tried and the parse with records and the
/// smallest share of skipped lines wins. `None` when nothing fits.
pub fn detect(input: &[u8]) -> Option<Detected> {
    detect_except(input, &[])
}

/// [`detect`] with some formats left out (a `sections` body is never `sections` again).
pub fn detect_except(input: &[u8], except: &[&str]) -> Option<Detected> {
    let head = &input[..input.len().min(SNIFF_BYTES)];
    let mut unsure = Vec::new();
    for f in FORMATS.iter().filter(|f| !except.contains(&f.id)) {
        match f.sniff(head) {
            Sniff::Yes => {
                let parsed = f.parse(input);
                return Some(Detected { format: f, parsed });
            }
            Sniff::Unsure => unsure.push(f),
            Sniff::No => {}
        }
    }
    let mut best: Option<(f64, Detected)> = None;
    for f in unsure {
        let parsed = f.parse(input);
        let records = parsed.value.summary().records();
        // An unsure guess must explain most of the file: a parse that skips
        // more than a third of its lines is another format's text.
        if records == 0 || parsed.skipped_lines * 3 > parsed.lines.max(1) {
            continue;
        }
        let score = parsed.skipped_lines as f64 / parsed.lines.max(1) as f64;
        if best.as_ref().is_none_or(|(s, _)| score < *s) {
            best = Some((score, Detected { format: f, parsed }));
        }
    }
    best.map(|(_, d)| d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_detect_never_panics_on_garbage() {
        let mut ids: Vec<_> = FORMATS.iter().map(|f| f.id).collect();
        ids.sort();
        let n = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), n);
        for junk in [&b""[..], b"\0\0\0\xff\xfe", b"hello world\n", &[0xffu8; 4096]] {
            let _ = detect(junk);
        }
    }

    #[test]
    fn name_hints_and_streams_come_from_the_registry() {
        let id = |base: &str| by_name_hint(base).map(|f| f.id);
        assert_eq!(id("pidstat.txt"), Some("pidstat"));
        assert_eq!(id("dool-1s.txt"), Some("dstat_text"));
        assert_eq!(id("2026_11_29_19_37_19-iostat"), Some("iostat"));
        assert_eq!(id("uname.txt"), None);
        let streamed: Vec<(&str, StreamFrom)> =
            FORMATS.iter().filter_map(|f| f.extra.stream.map(|s| (f.id, s.from))).collect();
        assert_eq!(streamed.len(), 12);
        assert!(streamed.contains(&("perf_script", StreamFrom::Large)));
        assert!(streamed.contains(&("proc_diskstats", StreamFrom::Series)));
    }
}
