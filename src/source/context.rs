//! Context gathered from the small files of a bundle (and the sections of
//! `system-info.txt`-like files) through their adapters: kernel, mounts,
//! sysctl, block-queue attributes, MySQL variables, the thread map, smaps;
//! plus the evidence of the capturing host's time zone.

use super::ParsedFile;
use crate::clock::ZoneEvidence;
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
    /// Transparent huge page settings (`enabled`, `defrag`, `shmem_enabled`, ...: the
    /// path after `transparent_hugepage/`) -> value (`always [madvise] never`).
    pub thp: BTreeMap<String, Sourced<String>>,
    /// smaps mappings (with their file).
    pub mappings: Vec<Sourced<Mapping>>,
    /// `FilePmdMapped` from /proc/meminfo (max seen, kB).
    pub meminfo_file_pmd_mapped_kb: Option<Sourced<u64>>,
    /// Block devices by name -> (major, minor), from /proc/diskstats (the file's first
    /// snapshot that lists the device).
    pub block_majmin: BTreeMap<String, Sourced<(u32, u32)>>,
    /// Write-source categories (built in, with the user's overrides).
    pub taxonomy: crate::attribution::Taxonomy,
    /// Boot time, epoch seconds (/proc/stat `btime`): places the kernel log's seconds since boot.
    pub btime: Option<Sourced<u64>>,
    /// Notable kernel messages (hung tasks, I/O and file-system errors, OOM kills), in file order.
    pub kernel_log: Vec<Sourced<iosift_parsers::dmesg::Event>>,
    /// The kernel logs read (file names), whether or not they held a notable message.
    pub kernel_log_files: Vec<String>,
}

impl Context {
    /// Gathers the context from parsed files (sections included). Configured values
    /// (option files) come last: running values (SHOW VARIABLES) win over them.
    pub fn gather(files: &[ParsedFile]) -> Context {
        let mut c = Context::default();
        for late in [false, true] {
            for f in files {
                if let Some(d) = &f.data {
                    let a = super::of(d);
                    if a.late_context() == late {
                        a.context(&f.name, &mut c);
                    }
                }
            }
        }
        c
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
pub(crate) fn zone_evidence(files: &[ParsedFile], ev: &mut ZoneEvidence) {
    for f in files {
        if let Some(d) = &f.data {
            super::of(d).zone_evidence(&f.name, ev);
        }
    }
}
