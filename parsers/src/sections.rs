//! `sections`: a file made of titled sections, each holding the output of one
//! command — the `system-info.txt` of iosift's collector (`### <command>`)
//! and pt-summary / pt-mysql-summary reports (`# Title ####`). Each section's
//! body is sniffed and parsed as its own format; the title picks the parser
//! when the body alone is ambiguous.
//!
//! Real samples (`bundles/s1_mmap_writeback/system-info.txt`,
//! `corpus/context/percona-toolkit__pt-summary_Linux_output_002.txt`):
//!
//! ```text
//! ### uname -r
//! 6.18.44-fc-v669
//! ### findmnt -T /var/lib/app
//! TARGET SOURCE   FSTYPE OPTIONS
//! /      /dev/vda ext4   rw,relatime,discard,resv_strict,resuid=65534,resgid=65534
//! ### kernel.perf_event_paranoid
//! 2
//! # Mounted Filesystems ########################################
//!   Filesystem                       Size Used Type  Opts Mountpoint
//!   /dev/hda1                         99M  13% ext3  rw   /boot
//! ```
//!
//! Rules:
//! * The first header style seen (`###` or pt-summary) splits the file; lines
//!   before the first header form an untitled section (`line` 0).
//! * Nesting is bounded: a section is never parsed as `sections` again.
//! * A title naming a parser (`uname`, `sysctl`, `findmnt`, `mount`,
//!   `/sys/block/...`, `SHOW GLOBAL VARIABLES`, `performance_schema.threads`,
//!   `mysqladmin ext`, pt-summary's "Mounted Filesystems" and "Disk Schedulers
//!   And Queue Size") is tried first; a title that is a sysctl key with a
//!   one-value body (`### kernel.perf_event_paranoid` / `2`) becomes a
//!   `sysctl` entry. Otherwise the body goes through content detection.
//! * A section nobody recognises keeps its text and gets one `unsupported`
//!   note, never one diagnostic per line.
//! * Line numbers of nested results and diagnostics are whole-file numbers.

use crate::common::lines::count_lines;
use crate::common::scrub::Identifiers;
use crate::common::{DiagKind, Diagnostic, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};
use crate::registry::{Data, by_id};

/// Longest body text a section keeps, in bytes.
pub const MAX_TEXT: usize = 64 * 1024;

/// Total padding (bytes) spent re-parsing other crates' formats at their
/// whole-file line numbers; beyond it, nested line numbers stay section-relative
/// and a note says so.
const MAX_PADDING: usize = 64 * 1024 * 1024;

/// The header style of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Style {
    /// `### <command>` (iosift's collector).
    Hashes,
    /// `# Title ######` (pt-summary, pt-mysql-summary).
    PtSummary,
}

/// One section.
#[derive(Debug)]
pub struct Section {
    /// The title (`uname -r`, `Mounted Filesystems`); empty for text before the first header.
    pub title: String,
    /// 1-based line of the header (0 for text before the first header).
    pub line: usize,
    /// Lines in the body.
    pub body_lines: usize,
    /// Format id the body was parsed as.
    pub format: Option<&'static str>,
    /// The parsed body (line numbers are whole-file numbers).
    pub data: Option<Box<Data>>,
    /// Diagnostics of the body, with whole-file line numbers.
    pub diagnostics: Vec<Diagnostic>,
    /// The body text (lossy UTF-8), capped at [`MAX_TEXT`] bytes.
    pub text: String,
}

/// The parsed sections.
#[derive(Debug, Default)]
pub struct Sections {
    /// Sections in file order.
    pub sections: Vec<Section>,
    /// The header style, when the file has headers.
    pub style: Option<Style>,
}

impl Sections {
    /// The parsed bodies of a format (`find("sysctl")`).
    pub fn find<'a>(&'a self, format_id: &'a str) -> impl Iterator<Item = &'a Data> + 'a {
        self.sections.iter().filter(move |s| s.format == Some(format_id)).filter_map(|s| s.data.as_deref())
    }

    /// The first section whose title starts with `prefix`.
    pub fn by_title(&self, prefix: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.title.starts_with(prefix))
    }
}

/// True for a `###` title that is a decoded binlog row image, not a section.
fn is_binlog_row(title: &str) -> bool {
    ["INSERT INTO", "UPDATE ", "DELETE FROM", "WHERE", "SET", "@"].iter().any(|p| title.starts_with(p))
}

/// Recognises a header line and returns its style and title.
fn header_of(line: &str) -> Option<(Style, &str)> {
    if let Some(rest) = line.strip_prefix("### ") {
        let title = rest.trim();
        if title.is_empty() || is_binlog_row(title) || rest.starts_with(' ') {
            return None;
        }
        return Some((Style::Hashes, title));
    }
    // `# Mounted Filesystems ########################################`
    let rest = line.strip_prefix("# ")?;
    let t = rest.trim_end();
    let title = t.trim_end_matches('#');
    if t.len() - title.len() < 4 {
        return None;
    }
    let title = title.trim();
    (!title.is_empty()).then_some((Style::PtSummary, title))
}

/// The format a title names, if any.
fn title_hint(title: &str) -> Option<&'static str> {
    let l = title.to_ascii_lowercase();
    let starts = |p: &str| l.starts_with(p);
    let has = |p: &str| l.contains(p);
    if starts("uname") {
        Some("uname")
    } else if starts("sysctl") || has("/proc/sys/") {
        Some("sysctl")
    } else if starts("findmnt")
        || starts("mount")
        || has("/proc/mounts")
        || has("mountinfo")
        || has("fstab")
        || has("/proc/fs/ext4")
        || l == "mounted filesystems"
    {
        Some("mounts")
    } else if has("/sys/block") || has("/sys/class/block") || starts("disk schedulers") {
        Some("sysfs")
    } else if has("performance_schema.threads") {
        Some("mysql_threads")
    } else if has("extended-status") || starts("mysqladmin ext") || has("global status") || has("show status")
    {
        Some("mysqladmin_ext")
    } else if has("variables") && (has("show") || starts("mysqladmin")) {
        Some("mysql_variables")
    } else {
        None
    }
}

/// `### kernel.perf_event_paranoid` + `2`: a one-value sysctl read.
fn sysctl_title_value(title: &str, body: &[u8], offset: usize) -> Option<crate::sysctl::Sysctl> {
    let key = title.strip_prefix("cat ").unwrap_or(title).trim();
    if !(key.contains('.') || key.starts_with("/proc/sys/")) {
        return None;
    }
    let key = crate::sysctl::normalize_key(key)?;
    let mut it = Lines::new(body).filter(|l| !l.is_blank());
    let (Some(v), None) = (it.next(), it.next()) else { return None };
    let value = v.clean_text().trim().to_string();
    if value.contains(" = ") || value.contains(':') {
        return None;
    }
    Some(crate::sysctl::Sysctl { entries: vec![(offset + v.no, key, value)] })
}

/// Shifts the line numbers of this crate's context/MySQL results; `false`
/// for formats whose fields this module does not know.
fn shift_data(data: &mut Data, off: usize) -> bool {
    match data {
        Data::Uname(u) => {
            if u.line > 0 {
                u.line += off;
            }
        }
        Data::Mounts(m) => m.entries.iter_mut().for_each(|e| e.line += off),
        Data::Sysctl(s) => s.entries.iter_mut().for_each(|e| e.0 += off),
        Data::Sysfs(s) => s.entries.iter_mut().for_each(|e| e.line += off),
        Data::MysqlVariables(v) => v.vars.iter_mut().for_each(|e| e.0 += off),
        Data::MysqlThreads(t) => t.rows.iter_mut().for_each(|e| e.line += off),
        Data::MysqladminExt(a) => a.samples.iter_mut().for_each(|e| e.line += off),
        Data::CollectorCost(c) => {
            c.rows.iter_mut().for_each(|e| e.line += off);
            c.events.iter_mut().for_each(|e| e.line += off);
        }
        Data::Iostat(_)
        | Data::IostatJson(_)
        | Data::Pidstat(_)
        | Data::PidstatJson(_)
        | Data::Sar(_)
        | Data::Sadf(_)
        | Data::SaBinary(_)
        | Data::Mpstat(_)
        | Data::Ps(_)
        | Data::Top(_)
        | Data::Netstat(_)
        | Data::Interrupts(_)
        | Data::Df(_)
        | Data::Vmstat(_)
        | Data::DstatCsv(_)
        | Data::DstatText(_)
        | Data::ProcMeminfo(_)
        | Data::ProcVmstat(_)
        | Data::ProcDiskstats(_)
        | Data::ProcPressure(_)
        | Data::ProcStat(_)
        | Data::Smaps(_)
        | Data::PerfScript(_)
        | Data::GdbStacks(_)
        | Data::PtPmp(_)
        | Data::Mysqlbinlog(_)
        | Data::Binlogsum(_)
        | Data::MysqlReplicaStatus(_)
        | Data::PtHeartbeat(_)
        | Data::ClockReference(_)
        | Data::PerfReport(_)
        | Data::ThreadList(_)
        | Data::InnodbStatus(_)
        | Data::MysqlErrorLog(_)
        | Data::MysqlOptionFile(_)
        | Data::MysqlProcesslist(_)
        | Data::DdSummary(_)
        | Data::ChecksumList(_)
        | Data::PerfRecordLog(_)
        | Data::Dmesg(_)
        | Data::CsvTable(_)
        | Data::Sections(_) => return false,
    }
    true
}

/// Content detection like [`crate::registry::detect`], without `sections`.
fn detect_body(body: &[u8]) -> Option<(&'static str, Parsed<Data>)> {
    crate::registry::detect_except(body, &[Fmt::ID]).map(|d| (d.format.id, d.parsed))
}

/// Caps text at `max` bytes on a char boundary.
fn cap_text(s: String, max: usize) -> String {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    let mut t = s;
    t.truncate(end);
    t
}

/// Running state of one parse.
struct Ctx {
    padding_left: usize,
    skipped: usize,
    diags: Vec<Diagnostic>,
}

/// Parses one section body that starts after line `offset`.
fn parse_section(title: String, line: usize, body: &[u8], offset: usize, ctx: &mut Ctx) -> Section {
    let body_lines = count_lines(body);
    let text = cap_text(String::from_utf8_lossy(body).into_owned(), MAX_TEXT);
    let mut sec =
        Section { title, line, body_lines, format: None, data: None, diagnostics: Vec::new(), text };
    if body.iter().all(|b| b.is_ascii_whitespace()) {
        return sec;
    }
    let mut chosen: Option<(&'static str, Parsed<Data>)> = None;
    if let Some(s) = sysctl_title_value(&sec.title, body, offset) {
        // Already at whole-file numbers.
        sec.format = Some(crate::sysctl::Fmt::ID);
        sec.data = Some(Box::new(Data::Sysctl(s)));
        return sec;
    }
    if let Some(f) = title_hint(&sec.title).and_then(by_id) {
        let p = f.parse(body);
        if p.value.summary().records() > 0 {
            chosen = Some((f.id, p));
        }
    }
    if chosen.is_none() {
        chosen = detect_body(body);
    }
    // A section no parser recognises (`### date`, `### lsblk`) is the tool's own
    // output, not an error: it is kept as text and listed in the variant
    // (`text_sections`), so the report still says what was not interpreted.
    let Some((id, mut parsed)) = chosen else {
        return sec;
    };
    if offset > 0 && !shift_data(&mut parsed.value, offset) {
        // Another module's format: re-parse with the body at its whole-file lines.
        if offset <= ctx.padding_left
            && let Some(f) = by_id(id)
        {
            ctx.padding_left -= offset;
            let mut padded = vec![b'\n'; offset];
            padded.extend_from_slice(body);
            parsed = f.parse(&padded);
        } else {
            let d = Diagnostic::new(
                line,
                DiagKind::Unsupported,
                format!("line numbers inside section `{}` are relative to line {line}", sec.title),
            );
            sec.diagnostics.push(d.clone());
            ctx.diags.push(d);
            parsed.diagnostics.iter_mut().for_each(|d| d.line += offset);
        }
    } else {
        parsed.diagnostics.iter_mut().for_each(|d| d.line += offset);
    }
    ctx.skipped += parsed.skipped_lines;
    ctx.diags.extend(parsed.diagnostics.iter().cloned());
    sec.diagnostics.extend(parsed.diagnostics);
    sec.format = Some(id);
    sec.data = Some(Box::new(parsed.value));
    sec
}

impl Summary for Sections {
    fn records(&self) -> usize {
        self.sections.len()
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        if let Some(s) = self.style {
            v.insert(
                "style",
                match s {
                    Style::Hashes => "###",
                    Style::PtSummary => "pt-summary",
                }
                .to_string(),
            );
        }
        let mut ids: Vec<&str> = self.sections.iter().filter_map(|s| s.format).collect();
        ids.sort_unstable();
        ids.dedup();
        v.insert("formats", ids.join(","));
        v.insert("parsed", self.sections.iter().filter(|s| s.format.is_some()).count().to_string());
        let text: Vec<&str> = self
            .sections
            .iter()
            .filter(|s| s.format.is_none() && s.body_lines > 0 && !s.title.is_empty())
            .map(|s| s.title.as_str())
            .collect();
        if !text.is_empty() {
            v.insert("text_sections", text.join("; "));
        }
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        let ranges: Vec<(Stamp, Stamp)> =
            self.sections.iter().filter_map(|s| s.data.as_ref()?.summary().time_range()).collect();
        match (ranges.first(), ranges.last()) {
            (Some(a), Some(b)) => Some((a.0, b.1)),
            _ => None,
        }
    }
}

/// The `sections` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Sections;
    const ID: &'static str = "sections";
    const SAMPLE: &'static str = "### uname -r";
    const DESCRIPTION: &'static str =
        "a file of `### <command>` (or pt-summary `# Title ###`) sections, each parsed as its own format";

    /// Yes with two headers of one style in the head (or one pt-summary header
    /// after pt-summary's `Name | value` lines); Unsure with one `###` header.
    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let (mut hashes, mut pt, mut bars) = (0, 0, 0);
        for l in Lines::new(head) {
            let t = l.text();
            match header_of(&t) {
                Some((Style::Hashes, _)) => hashes += 1,
                Some((Style::PtSummary, _)) => pt += 1,
                None if t.contains(" | ") && t.starts_with(' ') => bars += 1,
                None => {}
            }
        }
        if hashes >= 2 || pt >= 2 || (pt == 1 && bars >= 2) {
            Sniff::Yes
        } else if hashes == 1 || pt == 1 {
            Sniff::Unsure
        } else {
            Sniff::No
        }
    }

    fn parse(input: &[u8]) -> Parsed<Sections> {
        let mut out = Sections::default();
        let mut ctx = Ctx { padding_left: MAX_PADDING, skipped: 0, diags: Vec::new() };
        // (title, header line, body start offset)
        let mut cur: (String, usize, usize) = (String::new(), 0, 0);
        for l in Lines::new(input) {
            let Some(first) = l.bytes.first() else { continue };
            if *first != b'#' {
                continue;
            }
            let t = l.clean_text();
            let Some((style, title)) = header_of(t.trim_end()) else { continue };
            if *out.style.get_or_insert(style) != style {
                continue;
            }
            let start = l.bytes.as_ptr() as usize - input.as_ptr() as usize;
            let body = input.get(cur.2..start).unwrap_or_default();
            if cur.1 > 0 || body.iter().any(|b| !b.is_ascii_whitespace()) {
                let (title0, line0, _) = std::mem::take(&mut cur);
                out.sections.push(parse_section(title0, line0, body, line0, &mut ctx));
            }
            let after = (start + l.bytes.len()).min(input.len());
            let after = match input.get(after..) {
                Some([b'\r', b'\n', ..]) => after + 2,
                Some([b'\n', ..]) => after + 1,
                _ => after,
            };
            cur = (title.to_string(), l.no, after);
        }
        let body = input.get(cur.2..).unwrap_or_default();
        if cur.1 > 0 || body.iter().any(|b| !b.is_ascii_whitespace()) {
            let (title0, line0, _) = cur;
            out.sections.push(parse_section(title0, line0, body, line0, &mut ctx));
        }
        ctx.diags.sort_by_key(|d| d.line);
        Parsed { value: out, diagnostics: ctx.diags, lines: count_lines(input), skipped_lines: ctx.skipped }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "### date\nSun Nov 29 19:37:18 UTC 2026\n### uname -r\n6.18.44-fc-v669\n\
### sysctl vm.dirty_* vm.*\nvm.dirty_expire_centisecs = 3000\nbogus line here\n\
### kernel.perf_event_paranoid\n2\n### findmnt -T /x\nTARGET SOURCE   FSTYPE OPTIONS\n/      /dev/vda ext4   rw,relatime\n";

    #[test]
    fn sections_are_parsed_with_file_line_numbers() {
        assert_eq!(Fmt::sniff(SAMPLE.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(SAMPLE.as_bytes());
        let s = &p.value;
        assert_eq!(s.sections.len(), 5);
        assert_eq!(s.sections[0].format, None);
        assert_eq!(s.sections[1].format, Some("uname"));
        let Some(Data::Sysctl(sc)) = s.find("sysctl").next() else { panic!() };
        assert_eq!(sc.entries[0], (6, "vm.dirty_expire_centisecs".to_string(), "3000".to_string()));
        let all: Vec<_> = s.find("sysctl").collect();
        let Data::Sysctl(p2) = all[1] else { panic!() };
        assert_eq!(p2.entries[0], (9, "kernel.perf_event_paranoid".to_string(), "2".to_string()));
        let Some(Data::Mounts(m)) = s.find("mounts").next() else { panic!() };
        assert_eq!(m.entries[0].line, 12);
        assert!(m.entries[0].has_option("relatime"));
        let lines: Vec<_> = p.diagnostics.iter().map(|d| (d.line, d.kind)).collect();
        assert_eq!(lines, vec![(7, DiagKind::Malformed)]);
        assert_eq!(p.skipped_lines, 1);
    }

    #[test]
    fn pt_summary_headers() {
        let t = "    Hostname | h\n    Platform | Linux\n# Mounted Filesystems ################\n\
  Filesystem                       Size Used Type  Opts Mountpoint\n  /dev/hda1                         99M  13% ext3  rw   /boot\n\
# Disk Schedulers And Queue Size ######\n         hda | [cfq] 128\n";
        assert_eq!(Fmt::sniff(t.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(t.as_bytes());
        let s = &p.value;
        assert_eq!(s.style, Some(Style::PtSummary));
        assert_eq!(s.sections.len(), 3);
        assert_eq!(s.sections[0].line, 0);
        let Some(Data::Mounts(m)) = s.find("mounts").next() else { panic!() };
        assert_eq!((m.entries[0].target.as_str(), m.entries[0].line), ("/boot", 5));
        let Some(Data::Sysfs(f)) = s.find("sysfs").next() else { panic!() };
        assert_eq!(f.get("hda", "scheduler"), Some("[cfq]"));
    }

    #[test]
    fn binlog_rows_are_not_headers() {
        assert_eq!(Fmt::sniff(b"### INSERT INTO `a`.`b`\n### SET\n###   @1=1\n"), Sniff::No);
        assert_eq!(cap_text("é".repeat(10), 3), "é");
    }
}
