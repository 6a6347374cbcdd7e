//! Captures that do not belong together: one input holding the files of
//! several captures (a folder of three incidents, two hosts' collections side
//! by side) is found out here, so that no finding mixes their evidence. The
//! CLI refuses such an input for `iosift analyze` (naming the captures and
//! pointing at `iosift batch`), and `iosift batch` analyzes each on its own.
//!
//! The evidence is the files' own: the host that wrote them and when they were
//! sampled.
//! * Host: the `uname -a` node name (`Linux vm 6.18.44-fc-v669 #1 SMP ... x86_64
//!   GNU/Linux`, also as a `### uname -a` section of `system-info.txt`), the
//!   sysstat banner (`Linux 6.18.44-fc-v669 (vm) <TAB>2026-12-02 <TAB>_x86_64_<TAB>(2 CPU)`),
//!   perf's header (`# hostname : vm`), `sadf`'s host column, pt-stalk's
//!   `<prefix>-hostname` file. Compared by their first label, case-insensitively.
//! * Time: the anchored span of the files that sample the host over the capture
//!   (iostat, pidstat, sar, vmstat, dstat, /proc series, mysqladmin). Logs, binlogs
//!   and snapshots are left out: an error log or a binlog reaches back days before the
//!   capture it belongs to; so is perf, whose clock is set for the whole input from one
//!   reference (in a mixed input, another capture's).
//!
//! * Database server: the `port`, `server_id` and `wsrep_node_name` of a folder's SHOW
//!   VARIABLES: a primary and its replica, or three Galera nodes, captured on one host at
//!   the same time are as many captures (their folders are never joined).
//!
//! Files in one folder are one capture unless their hosts differ or their spans
//! lie more than [`FOLDER_GAP_S`] apart; folders are one capture when their hosts
//! agree and their spans overlap or lie at most [`ACROSS_GAP_S`] apart. Files that
//! carry neither (sysctl, mounts, a my.cnf) go with the captures of their folder,
//! or with every capture when their folder has none.

use super::{FileClock, ParsedFile};
use crate::bundle::folder_of;
use crate::clock::Anchoring;
use std::collections::BTreeMap;

/// Files of one folder whose sampled spans lie further apart than this (seconds) are
/// two captures: a collector's files start and stop within seconds of each other.
pub const FOLDER_GAP_S: f64 = 600.0;

/// Folders whose sampled spans lie further apart than this (seconds) are two captures.
pub const ACROSS_GAP_S: f64 = 120.0;

/// Formats whose records sample the host over the capture: their span is when the
/// capture was made.
const SAMPLERS: [&str; 16] = [
    "iostat",
    "iostat_json",
    "pidstat",
    "pidstat_json",
    "sar",
    "sadf",
    "sa_binary",
    "mpstat",
    "vmstat",
    "dstat_csv",
    "dstat_text",
    "proc_meminfo",
    "proc_vmstat",
    "proc_diskstats",
    "proc_pressure",
    "mysqladmin_ext",
];

/// One capture of an input: its files and what places it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Capture {
    /// A name for it: the folder its files share (`mx_ext4_db_340b_durable/capture`), else
    /// its host and start.
    pub name: String,
    /// Indices of its files in the bundle (files with no evidence of their own may be in
    /// several captures).
    pub files: Vec<usize>,
    /// The host that wrote it, when a file names it.
    pub host: Option<String>,
    /// First and last sampled instant (epoch seconds), when any file samples over time.
    pub span: Option<(f64, f64)>,
    /// The database server its folder's SHOW VARIABLES describe (`port 3320, server_id 1`).
    pub server: Option<String>,
}

/// What one file says about its capture.
#[derive(Debug, Clone, Default)]
struct Evidence {
    host: Option<String>,
    span: Option<(f64, f64)>,
    server: Option<String>,
}

/// A set of files placed together, while grouping.
#[derive(Debug, Clone)]
struct Group {
    files: Vec<usize>,
    host: Option<String>,
    span: Option<(f64, f64)>,
    /// The database server of its folder: the folders of two servers of one host
    /// (a primary and its replica, three Galera nodes) are two captures.
    server: Option<String>,
}

impl Group {
    /// Its first sampled instant; untimed groups sort last.
    fn start(&self) -> f64 {
        self.span.map_or(f64::INFINITY, |s| s.0)
    }

    fn of(files: Vec<usize>, ev: &[Evidence]) -> Group {
        let mut g = Group { files: Vec::new(), host: None, span: None, server: None };
        for i in files {
            g.add(i, &ev[i]);
        }
        g
    }

    fn add(&mut self, i: usize, e: &Evidence) {
        self.files.push(i);
        if self.host.is_none() {
            self.host.clone_from(&e.host);
        }
        self.span = join(self.span, e.span);
    }

    fn merge(&mut self, o: Group) {
        self.files.extend(o.files);
        if self.host.is_none() {
            self.host = o.host;
        }
        if self.server.is_none() {
            self.server = o.server;
        }
        self.span = join(self.span, o.span);
    }

    /// True when `o` may be the same capture: no two hosts, and spans at most `gap` apart
    /// (a group without a span joins on its host alone).
    fn fits(&self, o: &Group, gap: f64) -> bool {
        let hosts = match (&self.host, &o.host) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        let servers = match (&self.server, &o.server) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        let times = match (self.span, o.span) {
            (Some(a), Some(b)) => a.0 <= b.1 + gap && b.0 <= a.1 + gap,
            _ => self.host.is_some() && self.host == o.host,
        };
        hosts && servers && times
    }
}

/// The union of two spans.
fn join(a: Option<(f64, f64)>, b: Option<(f64, f64)>) -> Option<(f64, f64)> {
    match (a, b) {
        (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.max(b.1))),
        (a, b) => a.or(b),
    }
}

/// One folder's files (`idx`) in captures of their own, and the files that say nothing
/// (neither a time span nor a host).
fn folder_groups(idx: &[usize], ev: &[Evidence]) -> (Vec<Group>, Vec<usize>) {
    let timed: Vec<usize> = idx.iter().copied().filter(|&i| ev[i].span.is_some()).collect();
    let hosted: Vec<usize> =
        idx.iter().copied().filter(|&i| ev[i].span.is_none() && ev[i].host.is_some()).collect();
    let silent: Vec<usize> =
        idx.iter().copied().filter(|&i| ev[i].span.is_none() && ev[i].host.is_none()).collect();
    let mut groups = grouped(timed.into_iter().map(|i| Group::of(vec![i], ev)).collect(), FOLDER_GAP_S);
    // A file naming only its host (uname, perf) joins its folder's captures of that host
    // (or of none); naming another host, it is a capture of that host.
    let mut others: Vec<Group> = Vec::new();
    for i in hosted {
        let homes: Vec<usize> =
            (0..groups.len()).filter(|&k| groups[k].host.is_none() || groups[k].host == ev[i].host).collect();
        if homes.is_empty() {
            others.push(Group::of(vec![i], ev));
        }
        for k in homes {
            groups[k].add(i, &ev[i]);
        }
    }
    groups.extend(grouped(others, FOLDER_GAP_S));
    // The folder's database server (its SHOW VARIABLES), for every capture in it.
    let server = idx.iter().find_map(|&i| ev[i].server.clone());
    for g in &mut groups {
        g.server.clone_from(&server);
    }
    (groups, silent)
}

/// The captures of a bundle's parsed files (bundle order) and their clocks: one when the
/// files belong together (or carry no evidence), else one per capture, in time order.
///
/// `excluded`: the files the timeline leaves out as outside its main window (another
/// capture's series, named in the report): a capture all of whose telling files are left out
/// reaches no finding, and does not count.
pub fn of(files: &[ParsedFile], clocks: &[Option<FileClock>], excluded: &[bool]) -> Vec<Capture> {
    let ev: Vec<Evidence> = files
        .iter()
        .enumerate()
        .map(|(i, f)| Evidence {
            host: host_of(f),
            span: clocks.get(i).copied().flatten().and_then(|c| span_of(f, c)),
            server: crate::source::server(f),
        })
        .collect();
    let mut folders: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, f) in files.iter().enumerate() {
        folders.entry(folder_of(&f.name).to_string()).or_default().push(i);
    }
    // Each folder's files in captures of their own, and the files that say nothing.
    let mut parts: Vec<(String, Group)> = Vec::new();
    let mut silent: Vec<(String, usize)> = Vec::new();
    for (dir, idx) in &folders {
        let (groups, quiet) = folder_groups(idx, &ev);
        silent.extend(quiet.into_iter().map(|i| (dir.clone(), i)));
        parts.extend(groups.into_iter().map(|g| (dir.clone(), g)));
    }
    // Folders' captures joined across folders.
    let mut groups = grouped(parts.iter().map(|(_, g)| g.clone()).collect(), ACROSS_GAP_S);
    for g in &mut groups {
        g.files.sort_unstable();
        g.files.dedup();
    }
    // A capture counts when a file that tells of it enters the analysis.
    let enters = |g: &Group| {
        g.files.iter().any(|&f| {
            (ev[f].span.is_some() || ev[f].host.is_some()) && !excluded.get(f).copied().unwrap_or(false)
        })
    };
    if groups.iter().filter(|g| enters(g)).count() < 2 {
        return vec![
            Capture {
                name: String::new(),
                files: (0..files.len()).collect(),
                host: None,
                span: None,
                server: None,
            }
            .named(files, groups.first()),
        ];
    }
    // A silent file goes with the captures its folder's files are in; with all when its
    // folder has none.
    let mut out: Vec<Group> = groups;
    for (dir, i) in silent {
        let homes: Vec<usize> = (0..out.len())
            .filter(|&k| {
                out[k].files.iter().any(|&f| parts.iter().any(|(d, g)| d == &dir && g.files.contains(&f)))
            })
            .collect();
        let homes = if homes.is_empty() { (0..out.len()).collect() } else { homes };
        for k in homes {
            out[k].files.push(i);
        }
    }
    out.sort_by(|a, b| a.start().total_cmp(&b.start()));
    out.into_iter()
        .map(|mut g| {
            g.files.sort_unstable();
            g.files.dedup();
            Capture {
                name: String::new(),
                files: g.files.clone(),
                host: g.host.clone(),
                span: g.span,
                server: g.server.clone(),
            }
            .named(files, Some(&g))
        })
        .collect()
}

impl Capture {
    /// Names the capture after the folder its files share, else its host and start.
    fn named(mut self, files: &[ParsedFile], g: Option<&Group>) -> Capture {
        if let Some(g) = g {
            self.host.clone_from(&g.host);
            self.span = g.span;
            self.server.clone_from(&g.server);
        }
        let dirs: Vec<String> = self.files.iter().map(|&i| folder_of(&files[i].name).to_string()).collect();
        let common =
            dirs.iter().skip(1).fold(dirs.first().cloned().unwrap_or_default(), |acc, d| common_dir(&acc, d));
        self.name = if !common.is_empty() {
            common
        } else {
            let host = self.host.clone().unwrap_or_else(|| "unknown host".into());
            match self.span.and_then(|s| crate::clock::epoch_rfc3339(s.0.floor())) {
                Some(t) => format!("{host} from {t}"),
                None => host,
            }
        };
        self
    }

    /// One line for a message: name (under `root`, the folder given), host, span and files.
    pub fn describe(&self, root: Option<&str>) -> String {
        let when = self.span.and_then(|(a, b)| {
            Some(format!(
                "{} .. {}",
                crate::clock::epoch_rfc3339(a.floor())?,
                crate::clock::epoch_rfc3339(b.floor())?
            ))
        });
        let mut facts = Vec::new();
        if let Some(h) = &self.host {
            facts.push(format!("host {h}"));
        }
        if let Some(w) = when {
            facts.push(w);
        }
        if let Some(s) = &self.server {
            facts.push(format!("database {s}"));
        }
        facts.push(format!("{} files", self.files.len()));
        let name = match root {
            Some(r) if !self.name.is_empty() && !self.name.contains(' ') => {
                format!("{}/{}", r.trim_end_matches('/'), self.name)
            }
            _ => self.name.clone(),
        };
        format!("{name} ({})", facts.join(", "))
    }
}

/// The groups left when `groups` are merged wherever they [`Group::fits`] within `gap`:
/// in time order, each joins the first group it fits.
fn grouped(mut groups: Vec<Group>, gap: f64) -> Vec<Group> {
    groups.sort_by(|a, b| a.start().total_cmp(&b.start()));
    let mut out: Vec<Group> = Vec::new();
    for g in groups {
        match out.iter_mut().find(|o| o.fits(&g, gap)) {
            Some(o) => o.merge(g),
            None => out.push(g),
        }
    }
    // A merge widens a span: groups that now fit merge too.
    let mut k = 0;
    while k < out.len() {
        if let Some(j) = (k + 1..out.len()).find(|&j| out[k].fits(&out[j], gap)) {
            let o = out.remove(j);
            out[k].merge(o);
        } else {
            k += 1;
        }
    }
    out
}

/// The longest folder both are in.
fn common_dir(a: &str, b: &str) -> String {
    let (pa, pb): (Vec<&str>, Vec<&str>) = (a.split(['/', '!']).collect(), b.split(['/', '!']).collect());
    let n = pa.iter().zip(&pb).take_while(|(x, y)| x == y).count();
    let mut len = 0;
    for (k, part) in pa.iter().take(n).enumerate() {
        len += part.len() + usize::from(k > 0);
    }
    a[..len.min(a.len())].to_string()
}

/// The sampled span of a file: a sampler's anchored first and last instants, when its times
/// are its own (not inferred from the bundle, not aligned to another file).
fn span_of(f: &ParsedFile, c: FileClock) -> Option<(f64, f64)> {
    let own = !c.anchoring.is_inferred() && c.anchoring != Anchoring::PerfAligned;
    (own && f.format.is_some_and(|id| SAMPLERS.contains(&id)) && c.first.is_finite() && c.last.is_finite())
        .then_some((c.first, c.last))
}

/// The host a file names, by its first label in lower case (`vm.example.com` -> `vm`).
fn host_of(f: &ParsedFile) -> Option<String> {
    // pt-stalk's `<prefix>-hostname` holds the name alone: `db-01`.
    let hostname_file = || {
        f.base
            .ends_with("-hostname")
            .then(|| String::from_utf8_lossy(&f.raw[..f.raw.len().min(256)]).into_owned())
            .and_then(|text| {
                text.lines()
                    .next()
                    .map(str::trim)
                    .filter(|h| !h.is_empty() && !h.contains(char::is_whitespace))
                    .map(String::from)
            })
    };
    let named = f.variant.get("host").cloned().or_else(|| crate::source::host(f)).or_else(hostname_file)?;
    let short = named.trim().split('.').next()?.to_ascii_lowercase();
    (!short.is_empty()).then_some(short)
}

/// The refusal of `iosift analyze` for an input holding several captures: names them and
/// says how to analyze them (`given`: the input as the user gave it; `root`: the folder the
/// captures' names are under, when one folder was given).
pub fn refusal(captures: &[Capture], given: &str, root: Option<&str>) -> String {
    let why = {
        let hosts: Vec<&String> = captures.iter().filter_map(|c| c.host.as_ref()).collect();
        let mut distinct = hosts.clone();
        distinct.sort();
        distinct.dedup();
        let mut servers: Vec<&String> = captures.iter().filter_map(|c| c.server.as_ref()).collect();
        servers.sort();
        servers.dedup();
        // Servers are the reason when they alone tell the captures apart: same host, same time.
        let together = captures.iter().enumerate().all(|(i, a)| {
            captures[i + 1..].iter().all(|b| match (a.span, b.span) {
                (Some(x), Some(y)) => x.0 <= y.1 + ACROSS_GAP_S && y.0 <= x.1 + ACROSS_GAP_S,
                _ => true,
            })
        });
        if distinct.len() > 1 {
            "other hosts or times apart"
        } else if servers.len() > 1 && together {
            "other database servers"
        } else {
            "times apart"
        }
    };
    let list: Vec<String> = captures.iter().map(|c| c.describe(root)).collect();
    format!(
        "{given} holds {} captures that do not belong together ({why}): {}; one report would mix their evidence. Analyze each on its own (iosift analyze <its folder>), all of them one by one with iosift batch {given}, or, when they are the nodes of one cluster, side by side with iosift analyze --node NAME=<its folder> for each (or --nodes <the folder holding them>); no report written",
        captures.len(),
        list.join("; ")
    )
}

/// The bundles of `captures` (from [`of`] on `b`'s files), each named `<bundle>-<capture>`.
pub fn split(b: &crate::bundle::Bundle, captures: &[Capture]) -> Vec<crate::bundle::Bundle> {
    captures
        .iter()
        .map(|c| crate::bundle::Bundle {
            name: crate::bundle::sanitize_file_name(&format!("{}-{}", b.name, c.name)),
            files: c.files.iter().filter_map(|&i| b.files.get(i).cloned()).collect(),
            problems: b.problems.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, format: Option<&'static str>, host: Option<&str>) -> ParsedFile {
        let mut variant = BTreeMap::new();
        if let Some(h) = host {
            variant.insert("host", h.to_string());
        }
        ParsedFile {
            name: name.into(),
            base: name.rsplit('/').next().unwrap_or(name).into(),
            format,
            data: None,
            lines: 0,
            skipped_lines: 0,
            diagnostics: Vec::new(),
            variant,
            records: 1,
            raw: Vec::new().into(),
            stream: None,
        }
    }

    fn clock(first: f64, last: f64) -> Option<FileClock> {
        Some(FileClock { anchoring: Anchoring::Epoch, uncertainty_s: 0.0, first, last })
    }

    const T0: f64 = 1_796_152_000.0;

    /// SHOW VARIABLES of a server (values as `mariadb -B` prints them).
    fn variables(name: &str, vars: &[(&str, &str)]) -> ParsedFile {
        let v = iosift_parsers::mysql_variables::Variables {
            vars: vars.iter().enumerate().map(|(i, (k, v))| (i + 1, k.to_string(), v.to_string())).collect(),
            title: None,
        };
        ParsedFile {
            data: Some(iosift_parsers::Data::MysqlVariables(v)),
            ..file(name, Some("mysql_variables"), None)
        }
    }

    /// A primary and its replica captured on one host at the same time: two captures, told
    /// apart by their servers; the same server's two folders stay one.
    #[test]
    fn two_servers_of_one_host_at_one_time_are_two_captures() {
        let files = [
            file("p/iostat-x-t.txt", Some("iostat"), Some("vm")),
            variables("p/mysql-variables.tsv", &[("port", "3440"), ("server_id", "1"), ("wsrep_on", "OFF")]),
            file("r/iostat-x-t.txt", Some("iostat"), Some("vm")),
            variables("r/mysql-variables.tsv", &[("port", "3441"), ("server_id", "2")]),
        ];
        let clocks = [clock(T0, T0 + 90.0), None, clock(T0 + 1.0, T0 + 91.0), None];
        let c = of(&files, &clocks, &[]);
        assert_eq!(c.len(), 2, "{c:?}");
        assert_eq!(c[0].files, vec![0, 1]);
        assert_eq!(c[0].server.as_deref(), Some("port 3440, server_id 1"));
        assert!(refusal(&c, "x", None).contains("other database servers"));
        let same = [
            file("p/iostat-x-t.txt", Some("iostat"), Some("vm")),
            variables("p/mysql-variables.tsv", &[("port", "3440"), ("server_id", "1")]),
            file("p2/iostat-x-t.txt", Some("iostat"), Some("vm")),
            variables("p2/mysql-variables.tsv", &[("port", "3440"), ("server_id", "1")]),
        ];
        assert_eq!(of(&same, &clocks, &[]).len(), 1);
    }

    /// Three folders, 20 minutes and 2 days apart, each with an untimed file: three captures,
    /// each with its own untimed file.
    #[test]
    fn folders_apart_in_time_are_captures() {
        let files = [
            file("a/capture/iostat-x-t.txt", Some("iostat"), Some("vm")),
            file("a/capture/sysctl-vm.txt", Some("sysctl"), None),
            file("b/capture/iostat-x-t.txt", Some("iostat"), Some("vm")),
            file("b/capture/sysctl-vm.txt", Some("sysctl"), None),
            file("c/capture/vmstat-t.txt", Some("vmstat"), None),
            file("c/capture/findmnt.txt", Some("mounts"), None),
        ];
        let clocks = [
            clock(T0, T0 + 80.0),
            None,
            clock(T0 + 1300.0, T0 + 1380.0),
            None,
            clock(T0 - 2.0 * 86400.0, T0 - 2.0 * 86400.0 + 140.0),
            None,
        ];
        let c = of(&files, &clocks, &[]);
        assert_eq!(
            c.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            ["c/capture", "a/capture", "b/capture"]
        );
        assert_eq!(
            c.iter().map(|c| c.files.clone()).collect::<Vec<_>>(),
            [vec![4, 5], vec![0, 1], vec![2, 3]]
        );
        assert_eq!(c[1].host.as_deref(), Some("vm"));
        // 100 s apart across folders is one capture (ACROSS_GAP_S), 130 s two.
        let near =
            [clock(T0, T0 + 80.0), None, clock(T0 + 180.0, T0 + 300.0), None, clock(T0, T0 + 10.0), None];
        assert_eq!(of(&files, &near, &[]).len(), 1);
        let far =
            [clock(T0, T0 + 80.0), None, clock(T0 + 210.0, T0 + 300.0), None, clock(T0, T0 + 10.0), None];
        assert_eq!(of(&files, &far, &[]).len(), 2);
    }

    /// One folder: files of slightly different spans are one capture; spans 10 minutes
    /// apart or two hosts are two.
    #[test]
    fn a_folder_splits_only_on_hosts_or_long_gaps() {
        let files = [
            file("cap/iostat.txt", Some("iostat"), Some("vm")),
            file("cap/pidstat.txt", Some("pidstat"), Some("VM.example.com")),
            file("cap/meminfo", Some("proc_meminfo"), None),
            file("cap/mysqld.err", Some("mysql_error_log"), None),
        ];
        // The error log reaches back days: not a sampler, it places nothing.
        let clocks = [
            clock(T0, T0 + 90.0),
            clock(T0 + 5.0, T0 + 60.0),
            clock(T0 + 500.0, T0 + 590.0),
            clock(T0 - 9e5, T0),
        ];
        assert_eq!(of(&files, &clocks, &[]).len(), 1);
        let clocks = [clock(T0, T0 + 90.0), clock(T0 + 5.0, T0 + 60.0), clock(T0 + 691.0, T0 + 700.0), None];
        let c = of(&files, &clocks, &[]);
        assert_eq!(c.len(), 2);
        // The error log goes with both captures of its folder (it says nothing of its own).
        assert!(c.iter().all(|c| c.files.contains(&3)));
        let other = [
            file("cap/iostat.txt", Some("iostat"), Some("vm")),
            file("cap/pidstat.txt", Some("pidstat"), Some("db-02")),
            file("cap/meminfo", Some("proc_meminfo"), None),
            file("cap/mysqld.err", Some("mysql_error_log"), None),
        ];
        let c = of(&other, &[clock(T0, T0 + 90.0), clock(T0, T0 + 90.0), None, None], &[]);
        assert_eq!(
            c.iter().map(|c| c.host.clone()).collect::<Vec<_>>(),
            [Some("vm".into()), Some("db-02".into())]
        );
    }

    /// Without sysstat the sampled files name no host: `uname -a` and perf's header name it
    /// for their folder's capture; a file naming another host is a capture of its own.
    #[test]
    fn a_host_named_by_an_untimed_file_joins_its_folder() {
        let files = [
            file("cap/2026_12_01_19_28_00-diskstats", Some("proc_diskstats"), None),
            file("cap/uname-a.txt", Some("uname"), Some("vm")),
            file("cap/perf.script.txt", Some("perf_script"), Some("vm")),
        ];
        let clocks = [clock(T0, T0 + 95.0), None, clock(T0 + 3.0, T0 + 90.0)];
        let c = of(&files, &clocks, &[]);
        assert_eq!(c.len(), 1);
        let other = [
            file("cap/2026_12_01_19_28_00-diskstats", Some("proc_diskstats"), None),
            file("cap/uname-a.txt", Some("uname"), Some("vm")),
            file("cap/iostat.txt", Some("iostat"), Some("db-02")),
        ];
        let c = of(&other, &[clock(T0, T0 + 95.0), None, clock(T0, T0 + 95.0)], &[]);
        assert_eq!(
            c.iter().map(|c| c.host.clone()).collect::<Vec<_>>(),
            [Some("db-02".into()), Some("vm".into())]
        );
    }

    /// Another capture's lone series, which the timeline already leaves out (outside its main
    /// window), reaches no finding: one capture. With a file of its own that enters the
    /// analysis (its uname), it is a second capture.
    #[test]
    fn a_capture_counts_when_its_files_enter_the_analysis() {
        let files = [
            file("iostat-x-t.txt", Some("iostat"), Some("vm")),
            file("pidstat-d-t-h.txt", Some("pidstat"), Some("vm")),
            file("b/uname-a.txt", Some("uname"), Some("vm")),
        ];
        let clocks = [clock(T0, T0 + 90.0), clock(T0 + 2340.0, T0 + 2400.0), None];
        assert_eq!(of(&files[..2], &clocks[..2], &[false, true]).len(), 1);
        assert_eq!(of(&files[..2], &clocks[..2], &[false, false]).len(), 2);
        let far = [clock(T0, T0 + 90.0), clock(T0 + 2340.0, T0 + 2400.0), None];
        let moved = [
            file("iostat-x-t.txt", Some("iostat"), Some("vm")),
            file("b/pidstat-d-t-h.txt", Some("pidstat"), Some("vm")),
            file("b/uname-a.txt", Some("uname"), Some("vm")),
        ];
        assert_eq!(of(&moved, &far, &[false, true, false]).len(), 2);
    }

    /// A bundle without any evidence, or with one capture, is one capture of all files.
    #[test]
    fn one_capture_holds_every_file() {
        let files = [file("sysctl.txt", Some("sysctl"), None), file("x/y.cnf", None, None)];
        let c = of(&files, &[None, None], &[]);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].files, [0, 1]);
        assert_eq!(c[0].name, "unknown host");
    }

    #[test]
    fn folders_and_their_common_part() {
        assert_eq!(folder_of("a/b/c.txt"), "a/b");
        assert_eq!(folder_of("x.tgz!in/c.txt"), "x.tgz!in");
        assert_eq!(folder_of("c.txt"), "");
        assert_eq!(common_dir("a/b/c", "a/b/d"), "a/b");
        assert_eq!(common_dir("a/bc", "a/b"), "a");
        assert_eq!(common_dir("x", "y"), "");
    }

    #[test]
    fn the_refusal_names_every_capture_and_batch() {
        let c = |name: &str, host: &str, s: f64| Capture {
            name: name.into(),
            files: vec![0, 1],
            host: Some(host.into()),
            span: Some((s, s + 60.0)),
            server: None,
        };
        let m = refusal(&[c("a", "vm", T0), c("b", "db-02", T0)], "incidents", Some("incidents/"));
        assert!(m.starts_with("incidents holds 2 captures that do not belong together (other hosts or times apart): incidents/a (host vm, 2026-12-01T"), "{m}");
        assert!(m.contains("; incidents/b (host db-02, ") && m.contains("iosift batch incidents"), "{m}");
        assert!(
            refusal(&[c("a", "vm", T0), c("b", "vm", T0 + 900.0)], "x", None)
                .contains("(times apart): a (host vm")
        );
    }
}
