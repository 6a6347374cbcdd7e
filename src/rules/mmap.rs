//! `mmap_large_folio_writeback` (case 1): periodic writeback of an mmap'd
//! file amplified by large folios: a 4 kB store dirties a whole folio (up to
//! 2 MB) and writeback writes all of it. Gate: XFS on Linux >= 5.18 or ext4
//! on >= 6.16; evidence: FilePmdMapped / thp_file_mapped, large write
//! requests in the bursts, pidstat charging whole folios.

use crate::table::Cell;

use super::evidence::{ctx_evidence, mib, mount_evidence, opt};
use super::inputs::{Available, DeviceWrites, Missing, Series};
use super::{Decision, Outcome};
use crate::analysis::periodicity::PeriodicityView;
use crate::analysis::stats::{mean, median};
use crate::analysis::writeback::WritebackWindow;
use crate::attribution::is_gcache_file;
use crate::model::{Evidence, Finding, Severity};
use crate::pipeline::{Sourced, ThreadTotal};
use crate::table::columns::{Col, DevMetric, DsMetric, GaleraMetric, VmCounter};
use crate::verdict::{Device, Metric, Unit};
use iosift_parsers::mounts::Mount;
use iosift_parsers::smaps::Mapping;
use std::collections::BTreeMap;

/// Rule id.
pub(crate) const ID: &str = "mmap_large_folio_writeback";

/// The rule's declaration to the report: title and key charts.
pub(crate) const SPEC: crate::verdict::RuleSpec = crate::verdict::RuleSpec {
    id: ID,
    title: "Large-folio writeback of an mmap'd file",
    key_charts: &[],
    headline: Some(("burst_bytes_median", "bursts of")),
    measure: Some("bursts.median_bytes"),
    decisive: &[],
};

/// Fewer bursts than this are not a repeated writeback.
pub(crate) const MIN_BURSTS: usize = 2;
/// System-wide folio counters count only with this many bursts ...
pub(crate) const PERIODIC_BURSTS: usize = 3;
/// ... and a period of this confidence, carried by bursts holding this share of the bursts' bytes.
pub(crate) const PERIODIC_CONFIDENCE: f64 = 0.5;
/// See [`PERIODIC_CONFIDENCE`].
pub(crate) const PERIODIC_SHARE: f64 = 0.5;
/// Write requests in the bursts at least this large (bytes) are whole folios.
pub(crate) const BIG_REQUEST_BYTES: f64 = 128.0 * 1024.0;

/// What the rule reads.
#[derive(Debug, Clone)]
pub(crate) struct Inputs<'a> {
    /// The main device's writes.
    pub writes: DeviceWrites<'a>,
    /// Their bursts and period.
    pub periodicity: &'a PeriodicityView,
    /// The device's write request sizes (`dev.<device>.w_req_bytes`).
    pub requests: Option<Series<'a>>,
    /// smaps mappings.
    pub mappings: &'a [Sourced<Mapping>],
    /// `FilePmdMapped` of /proc/meminfo (kB).
    pub meminfo_file_pmd_mapped_kb: Option<&'a Sourced<u64>>,
    /// `thp_file_mapped` per second (/proc/vmstat).
    pub thp_file_mapped: Option<Series<'a>>,
    /// Mounts.
    pub mounts: &'a [Sourced<Mount>],
    /// `uname -r`.
    pub kernel: Option<&'a Sourced<String>>,
    /// pidstat write totals per thread.
    pub threads: &'a BTreeMap<u32, ThreadTotal>,
    /// performance_schema's thread names (names the mapping's dirtiers).
    pub thread_map: &'a BTreeMap<u32, String>,
    /// Galera: write-set bytes this node put into its gcache per second (wsrep_replicated_bytes,
    /// wsrep_received_bytes), what a gcache's stores changed at most.
    pub galera_appended: [Option<Series<'a>>; 2],
    /// pidstat bytes/s per thread with a timeline column.
    pub thread_writes: BTreeMap<u32, &'a [Cell]>,
    /// The writeback tunables (dirty mmap pages are written when they expire).
    pub window: WritebackWindow,
    /// The write episodes with their measured cost: the severity follows them.
    pub episodes: &'a [crate::analysis::episodes::Episode],
}

/// Picks the inputs.
pub(crate) fn gather<'a>(a: &Available<'a>) -> Result<Inputs<'a>, Vec<Missing>> {
    let (Some(writes), Some(periodicity)) = (a.device_writes(), a.periodicity()) else {
        return Err(vec![Missing::DeviceWrites]);
    };
    let thread_writes =
        a.threads().keys().filter_map(|tid| Some((*tid, a.series(&Col::Thread(*tid))?.values))).collect();
    Ok(Inputs {
        requests: a
            .series(&Col::Dev(writes.device.to_string(), DevMetric::WReqBytes))
            .or_else(|| a.series(&Col::Ds(writes.device.to_string(), DsMetric::WReqBytes))),
        window: a.window(),
        writes,
        periodicity,
        mappings: a.mappings(),
        meminfo_file_pmd_mapped_kb: a.meminfo_file_pmd_mapped_kb(),
        thp_file_mapped: a.series(&Col::Vm(VmCounter::ThpFileMappedS)),
        mounts: a.mounts(),
        kernel: a.kernel(),
        threads: a.threads(),
        thread_map: a.thread_map(),
        galera_appended: [GaleraMetric::ReplicatedBytesS, GaleraMetric::ReceivedBytesS]
            .map(|m| a.series(&Col::Galera(m))),
        thread_writes,
        episodes: a.episodes(),
    })
}

/// Finds the mount holding `path` (longest target prefix), or the device's mount.
pub(crate) fn mount_for<'a>(
    mounts: &'a [Sourced<Mount>],
    path: Option<&str>,
    dev: Option<&str>,
) -> Option<&'a Sourced<Mount>> {
    let real = |m: &&Sourced<Mount>| !m.value.target.is_empty();
    if let Some(best) = path.and_then(|p| crate::analysis::stack::mount_of(mounts, p)) {
        return Some(best);
    }
    if let Some(d) = dev {
        let hit = mounts.iter().filter(real).find(|m| m.value.source.ends_with(&format!("/{d}")));
        if hit.is_some() {
            return hit;
        }
    }
    mounts.iter().filter(real).find(|m| m.value.target == "/")
}

/// Is (fs, kernel) in the range where mmap'd file pages get large folios?
pub(crate) fn large_folio_gate(fstype: &str, kernel: (u32, u32, u32)) -> Option<bool> {
    let k = (kernel.0, kernel.1);
    match fstype {
        "xfs" => Some(k >= (5, 18)),
        "ext4" => Some(k >= (6, 16)),
        "btrfs" | "bcachefs" | "erofs" | "nfs" | "tmpfs" => Some(k >= (6, 1)),
        _ => None,
    }
}

/// How strongly one piece of evidence speaks for large-folio amplification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Strength {
    /// Speaks against it.
    Against,
    /// Not measured in this capture.
    Unknown,
    /// Consistent, but other causes give it too.
    Supporting,
    /// System-wide: counts other processes' mappings as well.
    Medium,
    /// Measured on the written mapping or the writer itself.
    Strong,
}

impl Strength {
    /// Lower-case word for the finding.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Strength::Against => "against",
            Strength::Unknown => "not measured",
            Strength::Supporting => "supporting",
            Strength::Medium => "medium",
            Strength::Strong => "strong",
        }
    }
}

/// Amplification (device bytes per flush / 4 kB per dirtying event) at least this
/// large is strong evidence: 4 kB-granular writeback writes each dirtied page once.
pub(crate) const STRONG_AMPLIFICATION: f64 = 8.0;

/// What the rule concluded: the bursts, the large folios and the amplification, each
/// piece of evidence with its strength, the gate and what the bursts cost.
#[derive(Debug, Clone)]
pub(crate) struct Verdict {
    /// Median bytes of a burst.
    pub burst_bytes_median: f64,
    /// The device written.
    pub device: Device,
    /// FilePmdMapped of the written mapping (smaps), KiB.
    pub smaps_file_pmd_mapped_kb: Option<u64>,
    /// FilePmdMapped of /proc/meminfo (system-wide), KiB.
    pub meminfo_file_pmd_mapped_kb: Option<u64>,
    /// The written mapping's size, KiB.
    pub mapping_size_kb: Option<u64>,
    /// Its share in large folios (smaps FilePmdMapped over its size), 0..1.
    pub file_pmd_mapped_share: Option<f64>,
    /// Device bytes per flush over 4 kB per dirtying event (an upper bound), or, for a
    /// Galera gcache, device bytes over the write-set bytes appended to it.
    pub amplification_estimate: Option<f64>,
    /// The amplification is the gcache's written over appended bytes.
    pub amplification_of_appended: bool,
    /// Mean write request size in the bursts, bytes.
    pub burst_request_bytes_mean: Option<f64>,
    /// The folio size pidstat charges in, KiB.
    pub folio_kb_from_pidstat: Option<u64>,
    /// The large folios are known from pidstat's whole-folio charges of the mapping's
    /// dirtiers (FilePmdMapped 0: large folios mapped by page table entries, not PMDs).
    pub folios_from_charges: bool,
    /// The mapping owner's dirtiers, named (`mariadbd tid 17470 (Galera provider thread, ...)`).
    pub dirtiers: Option<String>,
    /// thp_file_mapped events over the capture.
    pub thp_file_mapped_increase: f64,
    /// `uname -r`.
    pub kernel: Option<String>,
    /// The file system holding the file.
    pub filesystem: Option<String>,
    /// The written mapping's path.
    pub mapped_file: Option<String>,
    /// Kernel and file system cache mmap'd file pages in large folios (None: not known).
    pub gate: Option<bool>,
    /// Strength of the large-folio evidence.
    pub large_folios: Strength,
    /// Strength of the amplification.
    pub amplification: Strength,
    /// Strength of the request size.
    pub request_size: Strength,
    /// Episodes of the periodic bursts.
    pub episodes: usize,
    /// Those that cost latency, blocked tasks or commits.
    pub episodes_costly: usize,
    /// Their cost in words, when there are episodes.
    pub cost: Option<String>,
    /// Severity, confidence, evidence.
    pub basis: super::Basis,
}

/// The mean request size in words (`512.0 kB`, `unknown`).
fn request_text(req: Option<f64>) -> String {
    req.map_or("unknown".to_string(), |r| format!("{:.1} KiB", r / 1024.0))
}

/// Decides the rule.
///
/// Necessary: repeated write bursts on the device holding the file, and a kernel and
/// file system that cache mmap'd file pages in large folios (or an unknown gate). The
/// large folios themselves are the deciding evidence: FilePmdMapped of the written
/// `MAP_SHARED` mapping (strong), else, without smaps, the system-wide meminfo
/// FilePmdMapped with rising thp_file_mapped and bursts periodic at the writeback
/// window (medium). The amplification from pidstat's folio charges and the request
/// size only support (foreign small writes dilute request sizes; the block stack and
/// `max_sectors_kb` split them), and each piece's strength is said in the finding.
pub(crate) fn decide(i: &Inputs<'_>) -> Decision<Verdict> {
    let view = i.periodicity;
    if view.bursts.len() < MIN_BURSTS {
        return Decision::Pass(format!(
            "no repeated write bursts on the device ({} found)",
            view.bursts.len()
        ));
    }
    let dirt = super::mmap_writers::of(
        crate::analysis::stack::written_mapping(i.mappings),
        i.threads,
        &i.thread_writes,
        i.thread_map,
    );
    let f = Folio::of(i, dirt.folio_kb);
    if let Some(d) = f.screen(i) {
        return d;
    }
    let (burst_med, folio_kb, per_store) = amplification(i, &dirt);
    // A Galera gcache says what its stores changed: the write sets appended to it.
    let appended = f.path.as_deref().filter(|p| is_gcache_file(p)).and_then(|_| gcache_amplification(i));
    let amplification = appended.or(per_store);
    let evidence = f.evidence(i);
    let amp = match amplification {
        Some(a) if a >= STRONG_AMPLIFICATION => Strength::Strong,
        Some(_) => Strength::Against,
        None => Strength::Unknown,
    };
    let confidence: f64 = 0.45
        + if f.gate == Some(true) { 0.2 } else { 0.0 }
        + if f.folio == Strength::Strong { 0.15 } else { 0.05 }
        + if amp == Strength::Strong { 0.1 } else { 0.0 }
        + if f.request == Strength::Supporting { 0.05 } else { 0.0 };
    // Severity from what the periodic bursts cost: critical when a third of their episodes
    // (other writers' episodes between them left out) cost latency, blocked tasks or
    // commits; a warning when none did but the amplification is measured (the device writes
    // hundreds of times what the stores changed); else information.
    let eps = super::actors::of_bursts(i.episodes, i.writes.device, &view.periodic_bursts());
    let ev = super::actors::verdict(&eps);
    let severity = match ev.severity(Severity::Critical) {
        Severity::Critical => Severity::Critical,
        _ if amp == Strength::Strong => Severity::Warning,
        _ if ev.episodes == 0 => Severity::Warning,
        s @ Severity::Info | s @ Severity::Warning => s,
    };
    Decision::Fire(Verdict {
        burst_bytes_median: burst_med,
        device: i.writes.named(),
        smaps_file_pmd_mapped_kb: f.smaps_pmd,
        meminfo_file_pmd_mapped_kb: f.meminfo_pmd,
        mapping_size_kb: f.map_size,
        file_pmd_mapped_share: match (f.smaps_pmd, f.map_size) {
            (Some(p), Some(sz)) if sz > 0 => Some(p as f64 / sz as f64),
            _ => None,
        },
        amplification_estimate: amplification,
        amplification_of_appended: appended.is_some(),
        burst_request_bytes_mean: f.req,
        folio_kb_from_pidstat: folio_kb,
        folios_from_charges: f.by_charges,
        dirtiers: dirt.describe(),
        thp_file_mapped_increase: f.thp_rate,
        kernel: f.kernel.map(|k| k.value.clone()),
        filesystem: f.mount.map(|m| m.value.fstype.clone()),
        mapped_file: f.path,
        gate: f.gate,
        large_folios: f.folio,
        amplification: amp,
        request_size: f.request,
        episodes: ev.episodes,
        episodes_costly: ev.costly,
        cost: (ev.episodes > 0).then(|| ev.harm.clone()),
        basis: super::Basis {
            severity,
            confidence: (confidence.min(0.95) * 100.0).round() / 100.0,
            window: None,
            evidence,
            actors: crate::verdict::Actors { writers: dirt.actors(), ..Default::default() },
        },
    })
}

/// A series' value at a row, when there is one.
fn at(s: &Series<'_>, row: usize) -> Option<f64> {
    s.values.get(row).and_then(Cell::get)
}

/// What says whether the bursts write large folios of a mapped file: the written mapping,
/// the folio counters, the bursts' request sizes and the file system's gate.
struct Folio<'a> {
    /// The shared writable file mapping with the most dirty pages.
    file_map: Option<&'a Sourced<Mapping>>,
    /// Its FilePmdMapped (KiB).
    smaps_pmd: Option<u64>,
    /// Its size (KiB).
    map_size: Option<u64>,
    /// /proc/meminfo's FilePmdMapped (KiB).
    meminfo_pmd: Option<u64>,
    /// thp_file_mapped events over the capture.
    thp_rate: f64,
    /// The bursts are periodic at the writeback window and carry most of the bytes.
    periodic: bool,
    /// The large-folio evidence.
    folio: Strength,
    /// It comes from pidstat's whole-folio charges (smaps FilePmdMapped 0).
    by_charges: bool,
    /// Mean write request of the bursts (bytes).
    req: Option<f64>,
    /// The request-size evidence.
    request: Strength,
    /// The mapped file's path.
    path: Option<String>,
    /// Its mount (or the device's).
    mount: Option<&'a Sourced<Mount>>,
    /// `uname -r`.
    kernel: Option<&'a Sourced<String>>,
    /// Whether the file system on this kernel caches mmap'd file pages in large folios.
    gate: Option<bool>,
}

impl<'a> Folio<'a> {
    /// Reads the evidence from the inputs; `charged_folio_kb` is the folio size pidstat charges
    /// the mapping's heaviest dirtier in.
    fn of(i: &Inputs<'a>, charged_folio_kb: Option<u64>) -> Self {
        let view = i.periodicity;
        // The written file mapping: the shared writable file mapping with the most dirty pages.
        let file_map = crate::analysis::stack::written_mapping(i.mappings);
        let smaps_pmd = file_map.and_then(|m| m.value.get("FilePmdMapped"));
        let map_size = file_map.and_then(|m| m.value.get("Size"));
        let meminfo_pmd = i.meminfo_file_pmd_mapped_kb.map(|s| s.value);
        let thp_rate: f64 = i.thp_file_mapped.map(|s| s.values.iter().flatten().sum()).unwrap_or(0.0);
        let burst_req: Vec<f64> = i
            .requests
            .map(|s| view.bursts.iter().filter_map(|b| at(&s, b.peak)).collect())
            .unwrap_or_default();
        let req = mean(&burst_req);
        // smaps of the written mapping is authoritative; system-wide counters
        // (meminfo FilePmdMapped, thp_file_mapped) also count other processes'
        // mappings (binaries, libraries), so alone they need periodic bursts at the
        // writeback window too (expiry-driven writeback is what dirty mmap pages get).
        // The periodic bursts must also carry most of the bytes: a period of a few bursts among a
        // copy's larger writeback is not what a mapped file's expiry writes.
        let periodic = view.periodic_bursts().len() >= PERIODIC_BURSTS
            && view.periodic_share() >= PERIODIC_SHARE
            && view.confidence.unwrap_or(0.0) >= PERIODIC_CONFIDENCE
            && view.period_s.is_some_and(|p| i.window.matches(p));
        // FilePmdMapped counts only folios mapped by a PMD (MADV_HUGEPAGE, aligned 2 MiB);
        // without it a mapping's large folios are mapped by page table entries, and pidstat's
        // whole-folio charges of its dirtier are what shows them (a Galera gcache).
        let by_charges = smaps_pmd.unwrap_or(0) == 0 && charged_folio_kb.is_some();
        let folio = match (file_map, smaps_pmd) {
            (Some(_), Some(v)) if v > 0 => Strength::Strong,
            (Some(_), _) if by_charges => Strength::Strong,
            (Some(_), _) => Strength::Against,
            // smaps of the captured processes without any shared writable file mapping:
            // they write with write(), not through a mapping.
            (None, _) if !i.mappings.is_empty() => Strength::Against,
            (None, _) if periodic && meminfo_pmd.is_some_and(|v| v > 0) && thp_rate > 0.0 => Strength::Medium,
            (None, _) if meminfo_pmd.is_some() || i.thp_file_mapped.is_some() => Strength::Against,
            (None, _) => Strength::Unknown,
        };
        let request = match req {
            Some(r) if r >= BIG_REQUEST_BYTES => Strength::Supporting,
            Some(_) => Strength::Against,
            None => Strength::Unknown,
        };
        let path = file_map.map(|m| m.value.path.clone());
        let mount = mount_for(i.mounts, path.as_deref(), Some(i.writes.device));
        let kernel = i.kernel;
        let kv = kernel.and_then(|k| iosift_parsers::uname::kernel_version(&k.value));
        let gate = match (mount, kv) {
            (Some(m), Some(k)) => large_folio_gate(&m.value.fstype, k),
            _ => None,
        };
        Folio {
            file_map,
            smaps_pmd,
            map_size,
            meminfo_pmd,
            thp_rate,
            periodic,
            folio,
            by_charges: by_charges && file_map.is_some(),
            req,
            request,
            path,
            mount,
            kernel,
            gate,
        }
    }

    /// The decision when the evidence already settles it (nothing measured, a file system
    /// without large folios, no large folios, or nothing tying them to the written file).
    fn screen(&self, i: &Inputs<'_>) -> Option<Decision<Verdict>> {
        let (file_map, folio, request) = (self.file_map, self.folio, self.request);
        if folio == Strength::Unknown && request == Strength::Unknown {
            return Some(Decision::Skip(vec![Missing::FolioCounters, Missing::RequestSizes]));
        }
        let req_text = request_text(self.req);
        if self.gate == Some(false) {
            let m = self.mount.map(|m| m.value.fstype.clone()).unwrap_or_default();
            return Some(Decision::Pass(format!(
                "{m} on kernel {} does not cache mmap'd file pages in large folios (XFS >= 5.18, ext4 >= 6.16)",
                self.kernel.map(|k| k.value.clone()).unwrap_or_default()
            )));
        }
        if folio < Strength::Medium {
            let why = match (file_map, folio) {
                (Some(_), _) => String::new(),
                (None, Strength::Against) if !i.mappings.is_empty() => {
                    " (smaps shows no shared writable file mapping: the captured processes write with write())"
                        .to_string()
                }
                (None, _) if !self.periodic => format!(
                    " (system-wide counters only, and the bursts are not periodic at the writeback window of {:.0} s)",
                    i.window.seconds()
                ),
                _ => String::new(),
            };
            return Some(Decision::Pass(format!(
                "no large-folio amplification: FilePmdMapped {} KiB{}{}{why}, burst writes average {req_text} per request",
                self.smaps_pmd.or(self.meminfo_pmd).map_or("unknown".into(), |v| v.to_string()),
                self.path.as_ref().map_or(String::new(), |p| format!(" for {p}")),
                if self.thp_rate > 0.0 || file_map.is_some() { "" } else { ", thp_file_mapped not rising" },
            )));
        }
        // System-wide counters count every process's mappings (a build's binaries too): they
        // point at the written file only when the bursts' write requests are whole folios.
        if folio == Strength::Medium && request != Strength::Supporting {
            return Some(Decision::Pass(format!(
                "system-wide FilePmdMapped {} KiB and thp_file_mapped rising, but no smaps of the writer and the bursts' writes average {req_text} per request: nothing ties the large folios to the written file",
                self.meminfo_pmd.unwrap_or(0)
            )));
        }
        None
    }

    /// The finding's evidence: kernel, file system, the mapping, the counters, the first bursts.
    fn evidence(&self, i: &Inputs<'_>) -> Vec<Evidence> {
        let (view, col) = (i.periodicity, &i.writes.series);
        let mut evidence: Vec<Evidence> = Vec::new();
        if let Some(k) = self.kernel {
            evidence.push(ctx_evidence(k, "kernel release"));
        }
        if let Some(m) = self.mount {
            evidence.push(mount_evidence(m, "filesystem"));
        }
        if let Some(m) = self.file_map {
            evidence.push(Evidence {
                file: m.file.clone(),
                lines: Some([m.line, m.line]),
                metric: "FilePmdMapped (kB)".into(),
                value: opt(self.smaps_pmd.map(|v| v as f64)),
                quote: Some(format!("{} {}", m.value.perms, m.value.path)),
            });
        }
        if let Some(s) = i.meminfo_file_pmd_mapped_kb {
            evidence.push(ctx_evidence(s, "FilePmdMapped (kB, /proc/meminfo)"));
        }
        for b in view.bursts.iter().take(3) {
            evidence.push(col.evidence(b.peak, "wkB/s", b.peak_value / 1024.0));
            if let Some(req) = &i.requests
                && let Some(r) = at(req, b.peak)
            {
                let label =
                    if matches!(req.col, Col::Ds(..)) { "kB per write (diskstats)" } else { "wareq-sz (kB)" };
                evidence.push(req.evidence(b.peak, label, r / 1024.0));
            }
        }
        evidence
    }
}

/// The bursts' median size, the folio size pidstat charged the writer in (kB), and the
/// amplification: device bytes per burst over what the writer's stores dirtied.
fn amplification(i: &Inputs<'_>, dirt: &super::mmap_writers::Dirtiers) -> (f64, Option<u64>, Option<f64>) {
    let view = i.periodicity;
    let sizes: Vec<f64> = view.bursts.iter().map(|b| b.total).collect();
    let burst_med = median(&sizes).unwrap_or(0.0);
    // Amplification: pidstat charges a whole folio when a store dirties it; the folio size
    // is the common step of the heaviest dirtier's kB_wr/s values.
    let folio_kb = dirt.folio_kb;
    let writer = dirt.threads.first().and_then(|d| Some((d.tid, i.threads.get(&d.tid)?)));
    let period = view.period_s.unwrap_or(30.0);
    // Folio-dirtying events per period: everything the writer process's
    // threads were charged, in folios, over the seconds it was seen.
    let amplification = match (folio_kb, writer) {
        (Some(fk), Some((tid, w))) => i.thread_writes.get(&tid).and_then(|v| {
            let charged: f64 = match w.tgid {
                Some(pid) => i.threads.values().filter(|t| t.tgid == Some(pid)).map(|t| t.bytes).sum(),
                None => w.bytes,
            };
            let secs = v.iter().flatten().count().max(1) as f64;
            let events_per_period = charged / (fk as f64 * 1024.0) / secs * period;
            // At most folio/4 kB: every event a single 4 kB store.
            (events_per_period > 0.0).then(|| (burst_med / (events_per_period * 4096.0)).min(fk as f64 / 4.0))
        }),
        _ => None,
    };
    (burst_med, folio_kb, amplification)
}

/// Device bytes over the write-set bytes appended to a Galera gcache, over the seconds with
/// Galera status (`wsrep_replicated_bytes` + `wsrep_received_bytes`: what its stores changed,
/// headers aside). None without those columns or with nothing appended.
fn gcache_amplification(i: &Inputs<'_>) -> Option<f64> {
    let [a, b] = &i.galera_appended;
    let cols: Vec<&Series<'_>> = [a.as_ref(), b.as_ref()].into_iter().flatten().collect();
    let len = i.writes.series.values.len();
    let (mut written, mut appended) = (0.0, 0.0);
    for row in 0..len {
        let added: Vec<f64> = cols.iter().filter_map(|s| at(s, row)).collect();
        if added.is_empty() {
            continue;
        }
        appended += added.iter().sum::<f64>();
        written += at(&i.writes.series, row).unwrap_or(0.0);
    }
    (appended > 0.0).then(|| written / appended)
}

/// Writes the verdict as the finding.
pub(crate) fn explain(v: &Verdict) -> Finding {
    let mut metrics = BTreeMap::new();
    metrics.insert("burst_bytes_median", Metric::num(v.burst_bytes_median, Unit::Bytes));
    v.device.metrics(&mut metrics);
    metrics.insert(
        "file_pmd_mapped_kb",
        Metric::opt(v.smaps_file_pmd_mapped_kb.or(v.meminfo_file_pmd_mapped_kb).map(|v| v as f64), Unit::KiB),
    );
    metrics.insert("amplification_estimate", Metric::opt(v.amplification_estimate, Unit::Ratio));
    metrics.insert("burst_request_bytes_mean", Metric::opt(v.burst_request_bytes_mean, Unit::Bytes));
    metrics
        .insert("folio_kb_from_pidstat", Metric::opt(v.folio_kb_from_pidstat.map(|v| v as f64), Unit::KiB));
    metrics.insert("thp_file_mapped_increase", Metric::num(v.thp_file_mapped_increase, Unit::Count));
    metrics.insert("kernel", Metric::opt_text(v.kernel.clone()));
    metrics.insert("filesystem", Metric::opt_text(v.filesystem.clone()));
    metrics.insert("mapped_file", Metric::opt_text(v.mapped_file.clone()));
    metrics.insert("dirtiers", Metric::opt_text(v.dirtiers.clone()));
    metrics.insert("evidence_large_folios", Metric::text(v.large_folios.word()));
    metrics.insert("evidence_amplification", Metric::text(v.amplification.word()));
    metrics.insert("evidence_request_size", Metric::text(v.request_size.word()));
    metrics.insert("episodes_costly", Metric::num(v.episodes_costly as f64, Unit::Count));
    metrics.insert("episodes", Metric::num(v.episodes as f64, Unit::Count));
    let gate_text = match v.gate {
        Some(true) => "kernel and filesystem cache mmap'd file pages in large folios",
        _ => "kernel/filesystem gate not confirmed (kernel or mount missing)",
    };
    let folio_text = match (v.large_folios, v.smaps_file_pmd_mapped_kb, v.file_pmd_mapped_share) {
        (Strength::Strong, p, _) if v.folios_from_charges => format!(
            "strong: pidstat charges the mapping's dirtiers whole {} KiB folios (smaps FilePmdMapped {} KiB: the folios are mapped by page table entries, not PMDs)",
            v.folio_kb_from_pidstat.unwrap_or(0),
            p.unwrap_or(0)
        ),
        (Strength::Strong, Some(p), Some(share)) => format!(
            "strong: FilePmdMapped {p} KiB of the {} KiB mapping ({:.0} %)",
            v.mapping_size_kb.unwrap_or(0),
            100.0 * share
        ),
        (Strength::Strong, Some(p), _) => format!("strong: FilePmdMapped {p} KiB of the mapping"),
        _ => format!(
            "medium: system-wide FilePmdMapped {} KiB with thp_file_mapped rising, no smaps of the writer",
            v.meminfo_file_pmd_mapped_kb.unwrap_or(0)
        ),
    };
    let amp_text = match v.amplification_estimate {
        Some(a) if v.amplification_of_appended => format!(
            "{}: the device wrote {a:.1}x the write-set bytes appended to the gcache (wsrep_replicated_bytes + wsrep_received_bytes over the capture)",
            v.amplification.word()
        ),
        Some(a) => format!(
            "{}: up to {a:.0}x what 4 KiB-granular dirtying would write (pidstat's {} KiB folio charges)",
            v.amplification.word(),
            v.folio_kb_from_pidstat.unwrap_or(0)
        ),
        None => "not measured (needs per-thread write charges in folio steps, pidstat -d)".to_string(),
    };
    let req_word = match v.request_size {
        Strength::Supporting => "supporting",
        Strength::Against => {
            "not supporting (foreign small writes dilute it; the block stack splits requests)"
        }
        Strength::Unknown | Strength::Medium | Strength::Strong => "not measured",
    };
    let summary = format!(
        "Periodic writeback bursts of {} on {} while {} is mapped with large folios; {gate_text}. Large folios: {folio_text}. Amplification: {amp_text}. Request size {}: {req_word}.",
        mib(v.burst_bytes_median),
        v.device.described,
        v.mapped_file.clone().unwrap_or_else(|| "a file".into()),
        request_text(v.burst_request_bytes_mean),
    );
    let summary = match &v.dirtiers {
        Some(d) => format!("{summary} Dirtied by {d}."),
        None => summary,
    };
    let summary = match &v.cost {
        Some(harm) => format!("{summary} Cost: {harm}."),
        None => summary,
    };
    let remedies = vec![
        "Use madvise(MADV_RANDOM) on the mapping so the page cache keeps small folios.".into(),
        "Lower the device read-ahead (read_ahead_kb; it sets the folio size), at some cost to sequential reads.".into(),
        "Write the file with pwrite() instead of mmap stores (Linux >= 6.6 tracks dirty blocks per folio for write()).".into(),
        "On ext4, a kernel before 6.16; or a kernel built without CONFIG_TRANSPARENT_HUGEPAGE (disabling THP at boot is not enough).".into(),
    ];
    v.basis.finding(ID, summary, metrics, remedies)
}

/// Evaluates the rule: [`decide`], then [`explain`].
pub(crate) fn check(i: &Inputs<'_>) -> Outcome {
    super::outcome(decide(i), explain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Views;
    use crate::rules::testkit::{
        burst, episode, fired, mount, passed, series, skipped, sourced, thread, vals, view,
    };
    use crate::table::Timeline;
    use crate::verdict::IssuerClass;

    const MB: f64 = 1024.0 * 1024.0;

    /// The shared file mapping of a writer: `rw-s /data/table.ibd` with `FilePmdMapped`.
    fn mapping(pmd_kb: u64) -> Sourced<Mapping> {
        let mut m = sourced(Mapping {
            line: 12,
            perms: "rw-s".into(),
            path: "/data/table.ibd".into(),
            fields: vec![("Shared_Dirty".into(), 4096), ("FilePmdMapped".into(), pmd_kb)],
            ..Default::default()
        });
        m.line = 12;
        m
    }

    struct Case {
        bursts: usize,
        confidence: f64,
        request: Option<f64>,
        mappings: Vec<Sourced<Mapping>>,
        meminfo: Option<Sourced<u64>>,
        thp: Option<Vec<Cell>>,
        mounts: Vec<Sourced<Mount>>,
        kernel: Option<Sourced<String>>,
        /// The bursts' episodes: None for none, else whether they cost something.
        costly: Option<bool>,
        /// Galera write-set bytes appended per second (every row).
        appended: Option<f64>,
    }

    impl Case {
        /// XFS on 6.1 with a 2 MB-folio mapping and 512 kB requests in 3 periodic bursts.
        fn large_folios() -> Case {
            Case {
                bursts: 3,
                confidence: 0.9,
                request: Some(512.0 * 1024.0),
                mappings: vec![mapping(2048)],
                meminfo: None,
                thp: None,
                mounts: vec![mount("/dev/vda", "/data", "xfs", "rw,relatime")],
                kernel: Some(sourced("6.1.0-13-amd64".to_string())),
                costly: None,
                appended: None,
            }
        }

        fn run(&self) -> Outcome {
            self.run_with(true)
        }

        /// As [`Case::run`] without pidstat's per-thread charges (no amplification).
        fn run_without_charges(&self) -> Outcome {
            self.run_with(false)
        }

        fn run_with(&self, charges: bool) -> Outcome {
            let w = vals(&[1.0; 120]);
            let app = self.appended.map(|a| vals(&[a; 120]));
            let req = self.request.map(|r| vals(&[r; 120]));
            let bursts: Vec<_> = (0..self.bursts).map(|k| burst(5 + 30 * k, 90.0 * MB, 300.0 * MB)).collect();
            let episodes: Vec<_> = self
                .costly
                .map(|c| {
                    bursts.iter().map(|b| episode(b, IssuerClass::WritebackAge, "kworker/u8:1", c)).collect()
                })
                .unwrap_or_default();
            let v = view(bursts, Some(30.0), Some(self.confidence));
            // pidstat charges whole 2 MB folios to the writer.
            let tw = vals(&[2048.0 * 1024.0, 4096.0 * 1024.0, 2048.0 * 1024.0, 6144.0 * 1024.0]);
            let threads: BTreeMap<u32, ThreadTotal> =
                [(42, thread("writer", "app", 12.0 * MB))].into_iter().collect();
            check(&Inputs {
                writes: DeviceWrites { device: "vda", series: series("dev.vda.w_bytes_s", &w), stack: None },
                periodicity: &v,
                requests: req.as_deref().map(|r| series("dev.vda.w_req_bytes", r)),
                mappings: &self.mappings,
                meminfo_file_pmd_mapped_kb: self.meminfo.as_ref(),
                thp_file_mapped: self.thp.as_deref().map(|t| series("vm.thp_file_mapped_s", t)),
                mounts: &self.mounts,
                kernel: self.kernel.as_ref(),
                threads: &threads,
                thread_map: &BTreeMap::new(),
                galera_appended: [app.as_deref().map(|a| series("galera.replicated_bytes_s", a)), None],
                thread_writes: if charges {
                    [(42, tw.as_slice())].into_iter().collect()
                } else {
                    BTreeMap::new()
                },
                window: WritebackWindow::from_centisecs(Some(2500.0), Some(500.0)),
                episodes: &episodes,
            })
        }
    }

    #[test]
    fn fires_on_large_folios_with_large_requests() {
        let f = fired(Case::large_folios().run());
        assert_eq!((f.rule, f.confidence), (ID, 0.95));
        assert_eq!(
            (&f.metrics["evidence_large_folios"].value, &f.metrics["evidence_amplification"].value),
            (&serde_json::Value::from("strong"), &serde_json::Value::from("strong"))
        );
        assert_eq!(f.metrics["folio_kb_from_pidstat"].value, 2048.0);
        assert_eq!(f.metrics["file_pmd_mapped_kb"].value, 2048.0);
        assert_eq!(f.metrics["filesystem"].value, "xfs");
        let files: Vec<(&str, Option<[usize; 2]>)> =
            f.evidence.iter().map(|e| (e.file.as_str(), e.lines)).collect();
        assert_eq!(
            &files[..3],
            [("ctx.txt", Some([3, 3])), ("ctx.txt", Some([3, 3])), ("ctx.txt", Some([12, 12]))]
        );
        assert_eq!(f.evidence[2].quote.as_deref(), Some("rw-s /data/table.ibd"));
    }

    /// Issue 34: amplified writeback is critical when its episodes cost something, else
    /// information (a host's builds mapped with large folios, nobody waiting).
    #[test]
    fn severity_follows_the_episodes_cost() {
        let mut c = Case::large_folios();
        // No episode measured: no cost known, a warning.
        let f = fired(c.run());
        assert_eq!(
            (f.severity, f.metrics["evidence_amplification"].value.as_str()),
            (Severity::Warning, Some("strong"))
        );
        c.costly = Some(true);
        let f = fired(c.run());
        assert_eq!(
            (f.severity, f.metrics["episodes_costly"].value.as_f64()),
            (Severity::Critical, Some(3.0))
        );
        assert!(f.summary.ends_with("Cost: write await 80 ms."), "{}", f.summary);
        // Nobody waited, but the device wrote hundreds of times what the stores changed.
        c.costly = Some(false);
        let f = fired(c.run());
        assert_eq!((f.severity, f.metrics["episodes_costly"].value.as_f64()), (Severity::Warning, Some(0.0)));
        // Nobody waited and the amplification is not measured (no pidstat folio steps).
        c.request = None;
        c.mappings = vec![mapping(2048)];
        let f = fired(c.run_without_charges());
        assert_eq!(f.metrics["evidence_amplification"].value.as_str(), Some("not measured"));
        assert_eq!(f.severity, Severity::Info);
    }

    #[test]
    fn burst_count_edge() {
        let mut c = Case::large_folios();
        c.bursts = 2;
        fired(c.run());
        c.bursts = 1;
        assert_eq!(passed(c.run()), "no repeated write bursts on the device (1 found)");
    }

    /// Request size supports, never gates: foreign small writes dilute it (issue 14: 26 kB
    /// per request under a `dd oflag=direct` load while 2 MB folios were written back).
    #[test]
    fn request_size_supports_never_gates() {
        let mut c = Case::large_folios();
        c.request = Some(BIG_REQUEST_BYTES);
        let big = fired(c.run());
        assert_eq!(big.metrics["evidence_request_size"].value, "supporting");
        c.request = Some(BIG_REQUEST_BYTES - 1.0);
        let small = fired(c.run());
        assert_eq!(small.metrics["evidence_request_size"].value, "against");
        assert!(small.confidence < big.confidence, "{} {}", small.confidence, big.confidence);
        assert!(small.summary.contains("Request size 128.0 KiB: not supporting"), "{}", small.summary);
        c.request = None;
        assert_eq!(fired(c.run()).metrics["evidence_request_size"].value, "not measured");
    }

    #[test]
    fn private_mappings_are_not_written_back() {
        // A library's data segment (`rw-p`) is anonymous once written: no file writeback.
        let mut c = Case::large_folios();
        c.mappings[0].value.perms = "rw-p".into();
        let r = passed(c.run());
        assert!(r.contains("smaps shows no shared writable file mapping"), "{r}");
    }

    #[test]
    fn amplification_strength_edge() {
        // Charges of 2 MB folios: 512x at most; the strength word follows the estimate.
        let f = fired(Case::large_folios().run());
        let a = f.metrics["amplification_estimate"].value.as_f64().unwrap();
        assert!(a >= STRONG_AMPLIFICATION, "{a}");
        assert!(f.summary.contains("Amplification: strong: up to"), "{}", f.summary);
    }

    #[test]
    fn smaps_without_pmd_mappings_nor_folio_charges_passes() {
        let mut c = Case::large_folios();
        c.mappings = vec![mapping(0)];
        assert!(
            passed(c.run_without_charges())
                .starts_with("no large-folio amplification: FilePmdMapped 0 KiB for /data/table.ibd")
        );
    }

    #[test]
    fn a_gcache_amplification_is_written_over_appended_write_sets() {
        let mut c = Case::large_folios();
        c.mappings[0].value.path = "/var/lib/mysql/galera.cache".into();
        c.appended = Some(0.5);
        let f = fired(c.run());
        assert_eq!(f.metrics["amplification_estimate"].value.as_f64(), Some(2.0));
        assert_eq!(f.metrics["evidence_amplification"].value, "against");
        assert!(f.summary.contains("the device wrote 2.0x the write-set bytes appended"), "{}", f.summary);
        c.appended = Some(0.05);
        let f = fired(c.run());
        assert_eq!(f.metrics["evidence_amplification"].value, "strong");
        // Not a gcache: the appended bytes say nothing about the file's stores.
        c.mappings[0].value.path = "/data/table.ibd".into();
        let f = fired(c.run());
        assert!(f.summary.contains("what 4 KiB-granular dirtying would write"), "{}", f.summary);
    }

    #[test]
    fn pte_mapped_large_folios_are_shown_by_whole_folio_charges() {
        // Issue 38: a Galera gcache on XFS has 2 MiB folios mapped by page table entries
        // (FilePmdMapped 0); pidstat charging its dirtier whole 2 MiB folios shows them.
        let mut c = Case::large_folios();
        c.mappings = vec![mapping(0)];
        let f = fired(c.run());
        assert_eq!(f.metrics["evidence_large_folios"].value, "strong");
        assert!(
            f.summary.contains("pidstat charges the mapping's dirtiers whole 2048 KiB folios"),
            "{}",
            f.summary
        );
        assert!(f.summary.contains("Dirtied by writer tid 42 (12.0 MiB)"), "{}", f.summary);
        assert_eq!(f.actors.writers[0].tid, Some(42));
    }

    #[test]
    fn system_wide_counters_need_periodic_bursts() {
        let mut c = Case::large_folios();
        c.mappings = Vec::new();
        c.meminfo = Some(sourced(4096));
        c.thp = Some(vals(&[0.0, 2.0, 0.0]));
        assert_eq!((c.bursts, c.confidence), (PERIODIC_BURSTS, 0.9));
        c.confidence = PERIODIC_CONFIDENCE;
        fired(c.run());
        // Issue 34: without whole-folio write requests nothing ties them to the written file.
        c.request = Some(64.0 * 1024.0);
        assert!(passed(c.run()).contains("nothing ties the large folios to the written file"));
        c.request = Some(512.0 * 1024.0);
        c.confidence = PERIODIC_CONFIDENCE - 0.01;
        passed(c.run());
        c.confidence = 0.9;
        c.bursts = PERIODIC_BURSTS - 1;
        passed(c.run());
        // thp_file_mapped not rising is no evidence either.
        c.bursts = PERIODIC_BURSTS;
        c.thp = Some(vals(&[0.0, 0.0]));
        assert!(
            passed(c.run())
                .ends_with(", thp_file_mapped not rising, burst writes average 512.0 KiB per request")
        );
    }

    #[test]
    fn kernel_gate_edges() {
        for (fs, kernel, fires) in [
            ("xfs", "5.18.0", true),
            ("xfs", "5.17.15", false),
            ("ext4", "6.16.0", true),
            ("ext4", "6.15.9", false),
        ] {
            let mut c = Case::large_folios();
            c.mounts = vec![mount("/dev/vda", "/data", fs, "rw")];
            c.kernel = Some(sourced(kernel.to_string()));
            match c.run() {
                Outcome::Fire(_) => assert!(fires, "{fs} {kernel}"),
                Outcome::Pass(r) => {
                    assert!(!fires, "{fs} {kernel}");
                    assert!(r.contains("does not cache mmap'd file pages in large folios"), "{r}");
                }
                Outcome::Skip(m) => panic!("{m:?}"),
            }
        }
        // Without a kernel the gate is not confirmed: lower confidence.
        let mut c = Case::large_folios();
        c.kernel = None;
        assert_eq!(fired(c.run()).confidence, 0.75);
    }

    #[test]
    fn skips_without_folio_counters_or_request_sizes() {
        let mut c = Case::large_folios();
        c.mappings = Vec::new();
        c.request = None;
        match c.run() {
            Outcome::Skip(m) => assert_eq!(
                m.iter().map(ToString::to_string).collect::<Vec<_>>(),
                [
                    "smaps of the writer (FilePmdMapped) or /proc/meminfo or /proc/vmstat (thp_file_mapped)",
                    "iostat -x request sizes"
                ]
            ),
            other => panic!("{other:?}"),
        }
        let (tl, views) = (Timeline::default(), Views::default());
        assert_eq!(
            skipped(ID, &Available::bare(&tl, &views)),
            ["device write throughput (iostat -x or /proc/diskstats series)"]
        );
    }
}
