//! Context gathered from the small files of a bundle (and the sections of
//! `system-info.txt`-like files): kernel, mounts, sysctl, block-queue
//! attributes, MySQL variables, the thread map, smaps; plus the evidence of
//! the capturing host's time zone.

use super::ParsedFile;
use crate::clock::ZoneEvidence;
use iosift_parsers::Data;
use iosift_parsers::mounts::Mount;
use iosift_parsers::smaps::Mapping;
use std::collections::BTreeMap;

/// A value with the file and line it came from.
#[derive(Debug, Clone)]
pub struct Sourced<T> {
    /// The value.
    pub value: T,
    /// Input file.
    pub file: String,
    /// 1-based line.
    pub line: usize,
}

/// Facts about the host and the database gathered from the bundle.
#[derive(Debug, Default, Clone)]
pub struct Context {
    /// Kernel release (`uname -r`).
    pub kernel: Option<Sourced<String>>,
    /// Mounts (each with its file).
    pub mounts: Vec<Sourced<Mount>>,
    /// sysctl keys (dotted) -> value.
    pub sysctl: BTreeMap<String, Sourced<String>>,
    /// Block queue attributes: (device, attr) -> value.
    pub sysfs: BTreeMap<(String, String), Sourced<String>>,
    /// MySQL/MariaDB global variables (lower-case names).
    pub variables: BTreeMap<String, Sourced<String>>,
    /// OS thread id -> performance_schema thread name.
    pub thread_map: BTreeMap<u32, String>,
    /// smaps mappings (with their file).
    pub mappings: Vec<Sourced<Mapping>>,
    /// `FilePmdMapped` from /proc/meminfo (max seen, kB).
    pub meminfo_file_pmd_mapped_kb: Option<Sourced<u64>>,
    /// Write-source categories (built in, with the user's overrides).
    pub taxonomy: crate::attribution::Taxonomy,
}

impl Context {
    /// Gathers the context from parsed files (sections included).
    pub fn gather(files: &[ParsedFile]) -> Context {
        let mut c = Context::default();
        // Option files last: running values (SHOW VARIABLES) win over configured ones.
        let is_cnf = |d: &Data| matches!(d, Data::MysqlOptionFile(_));
        for pass in [false, true] {
            for f in files {
                if let Some(d) = &f.data
                    && is_cnf(d) == pass
                {
                    c.add(d, &f.name, 0);
                }
            }
        }
        c
    }

    fn add(&mut self, d: &Data, file: &str, depth: usize) {
        let s = |v: String, line: usize| Sourced { value: v, file: file.to_string(), line };
        match d {
            Data::Uname(u) if self.kernel.is_none() && !u.release.is_empty() => {
                self.kernel = Some(s(u.release.clone(), u.line));
            }
            Data::Mounts(m) => {
                for e in &m.entries {
                    self.mounts.push(Sourced { value: e.clone(), file: file.to_string(), line: e.line });
                }
            }
            Data::Sysctl(x) => {
                for (line, k, v) in &x.entries {
                    self.sysctl.entry(k.clone()).or_insert_with(|| s(v.clone(), *line));
                }
            }
            Data::Sysfs(x) => {
                for e in &x.entries {
                    if let Some(dev) = &e.device {
                        self.sysfs
                            .entry((dev.clone(), e.attr.clone()))
                            .or_insert_with(|| s(e.value.clone(), e.line));
                    }
                }
            }
            Data::MysqlVariables(v) => {
                for (line, k, val) in &v.vars {
                    self.variables.entry(k.to_ascii_lowercase()).or_insert_with(|| s(val.clone(), *line));
                }
            }
            Data::MysqlOptionFile(o) => {
                // my.cnf is the configured value; SHOW VARIABLES (the running value) wins when present.
                for name in
                    ["sync_binlog", "innodb_flush_log_at_trx_commit", "innodb_flush_method", "binlog_format"]
                {
                    if let Some(v) = o.get(name) {
                        self.variables.entry(name.to_string()).or_insert_with(|| s(v.to_string(), 0));
                    }
                }
            }
            Data::MysqlThreads(t) => {
                for th in &t.rows {
                    if let Some(os) = th.os_id {
                        self.thread_map.insert(os, th.name.clone());
                    }
                }
            }
            Data::Smaps(sm) => {
                for m in &sm.mappings {
                    self.mappings.push(Sourced { value: m.clone(), file: file.to_string(), line: m.line });
                }
            }
            Data::ProcMeminfo(series) => {
                for snap in &series.snapshots {
                    if let Some(v) = snap.get("FilePmdMapped")
                        && self.meminfo_file_pmd_mapped_kb.as_ref().is_none_or(|o| v > o.value)
                    {
                        self.meminfo_file_pmd_mapped_kb =
                            Some(Sourced { value: v, file: file.to_string(), line: snap.line });
                    }
                }
            }
            Data::Sections(secs) if depth == 0 => {
                for sec in &secs.sections {
                    if let Some(inner) = &sec.data {
                        self.add(inner, file, 1);
                    }
                }
            }
            _ => {}
        }
    }

    /// A sysctl value as a number.
    pub fn sysctl_f64(&self, key: &str) -> Option<f64> {
        self.sysctl.get(key)?.value.trim().parse().ok()
    }

    /// A MySQL variable (case-insensitive).
    pub fn variable(&self, name: &str) -> Option<&Sourced<String>> {
        self.variables.get(&name.to_ascii_lowercase())
    }
}

/// Collects time-zone evidence from every file.
pub fn zone_evidence(files: &[ParsedFile], ev: &mut ZoneEvidence) {
    let mut push_ts = |ts: &Option<iosift_parsers::common::ts::TsLine>| {
        if let Some(off) = ts.and_then(|t| t.utc_offset_s()) {
            ev.ts_offsets.push(off);
        }
    };
    for f in files {
        match &f.data {
            Some(Data::ProcMeminfo(s)) | Some(Data::ProcVmstat(s)) => {
                s.snapshots.iter().take(3).for_each(|x| push_ts(&x.ts));
            }
            Some(Data::ProcDiskstats(s)) => s.snapshots.iter().take(3).for_each(|x| push_ts(&x.ts)),
            Some(Data::MysqladminExt(s)) => s.samples.iter().take(3).for_each(|x| push_ts(&x.ts)),
            Some(Data::MysqlThreads(s)) => s.rows.iter().take(3).for_each(|x| push_ts(&x.ts)),
            _ => {}
        }
    }
    for f in files {
        match &f.data {
            Some(Data::Vmstat(v)) => {
                if let Some(z) = &v.timezone {
                    ev.note_name(z, &format!("vmstat -t header of {}", f.name));
                    ev.vmstat_zones.push(z.clone());
                }
                for z in v.run_dates.iter().take(3).filter_map(|(_, d)| d.zone.as_ref()) {
                    ev.note_name(z, &format!("date line of {}", f.name));
                    ev.date_line_zones.push(z.clone());
                }
            }
            Some(Data::Iostat(i)) | Some(Data::IostatJson(i)) => {
                for r in i.reports.iter().take(3) {
                    if let Some(iosift_parsers::Stamp::Zoned(d)) = r.stamp {
                        ev.iso_offsets.push(d.offset().local_minus_utc());
                    }
                }
            }
            Some(Data::DstatCsv(d)) | Some(Data::DstatText(d)) => {
                for run in &d.runs {
                    if let Some(z) = &run.meta.zone {
                        ev.note_name(z, &format!("dstat Date: line of {}", f.name));
                        ev.dstat_zones.push(z.clone());
                    }
                }
            }
            _ => {}
        }
    }
}
