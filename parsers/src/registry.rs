//! THE list of formats. Adding a format is one module implementing
//! [`Format`] plus one line in the `formats!` invocation below; order is
//! priority when several sniffers say [`Sniff::Yes`].

use crate::common::{Format, Parsed, SNIFF_BYTES, Sniff, Summary};

macro_rules! formats {
    ($( $variant:ident => $module:ident ),* $(,)?) => {
        /// The typed result of parsing a file of any format.
        #[derive(Debug)]
        pub enum Data {
            $(
                #[doc = concat!("Parsed `", stringify!($module), "`.")]
                $variant(<crate::$module::Fmt as Format>::Output),
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
        pub static FORMATS: &[FormatInfo] = &[
            $(
                FormatInfo {
                    id: <crate::$module::Fmt as Format>::ID,
                    description: <crate::$module::Fmt as Format>::DESCRIPTION,
                    sample: <crate::$module::Fmt as Format>::SAMPLE,
                    sniff: <crate::$module::Fmt as Format>::sniff,
                    parse: |input| <crate::$module::Fmt as Format>::parse(input).map(Data::$variant),
                },
            )*
        ];
    };
}

formats! {
    Iostat => iostat,
    IostatJson => iostat_json,
    Pidstat => pidstat,
    PidstatJson => pidstat_json,
    Sar => sar,
    Sadf => sadf,
    SaBinary => sa_binary,
    Mpstat => mpstat,
    Ps => ps,
    Top => top,
    Netstat => netstat,
    Interrupts => interrupts,
    Df => df,
    Vmstat => vmstat,
    DstatCsv => dstat_csv,
    DstatText => dstat_text,
    ProcMeminfo => proc_meminfo,
    ProcVmstat => proc_vmstat,
    ProcDiskstats => proc_diskstats,
    ProcPressure => proc_pressure,
    ProcStat => proc_stat,
    Smaps => smaps,
    PerfScript => perf_script,
    GdbStacks => gdb_stacks,
    PtPmp => pt_pmp,
    Mysqlbinlog => mysqlbinlog,
    Binlogsum => binlogsum,
    MysqlVariables => mysql_variables,
    MysqlThreads => mysql_threads,
    MysqladminExt => mysqladmin_ext,
    MysqlReplicaStatus => mysql_replica_status,
    PtHeartbeat => pt_heartbeat,
    Uname => uname,
    Mounts => mounts,
    Sysctl => sysctl,
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
    Dmesg => dmesg,
    CsvTable => csv_table,
    Sections => sections,
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
}
