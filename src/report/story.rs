//! The top of the page: per finding, in plain words, what happened, when
//! (host local time and UTC), who wrote and who issued the I/O, how sure the
//! rule is and what to change, with the finding's key chart beside it; then
//! the system box. Every finding is rendered the same generic way: the Who
//! rows from its verdict's typed actors, the title and key chart from its
//! rule's declaration (a new rule needs nothing here).

use super::charts::Chart;
use super::findings::{ranked, sev_word};
use super::fmt::full;
use crate::model::{Finding, Report, Severity};
use crate::system::{Fact, SystemBox};
use crate::verdict::Actor;
use maud::{Markup, html};

/// Name prefixes of physical disks (always listed in the system box).
const PHYSICAL: [&str; 4] = ["sd", "vd", "nvme", "xvd"];

/// Height of one panel of a key chart.
const KEY_PANEL_H: f64 = 130.0;
/// Width of a key chart's coordinate system (about its size on screen: text stays legible).
const KEY_W: f64 = 600.0;

/// A rule's title on the page: its [`crate::verdict::RuleSpec`]'s, else its id in words.
pub fn rule_title(rule: &str) -> String {
    crate::rules::spec(rule).map_or_else(|| title_of(rule), |s| s.title.to_string())
}

/// The rule id in words (`fsync_bound_small_transactions` -> `Fsync bound small transactions`).
pub(super) fn title_of(rule: &str) -> String {
    let w = rule.replace('_', " ");
    let mut c = w.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

/// How sure, in words.
fn sure(confidence: f64) -> String {
    let word = if confidence >= 0.8 {
        "high"
    } else if confidence >= 0.5 {
        "moderate"
    } else {
        "low: read the evidence before acting"
    };
    format!("{:.0} % ({word})", confidence * 100.0)
}

/// Epoch seconds of an RFC 3339 instant.
fn epoch(rfc3339: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(rfc3339).ok().map(|d| d.timestamp())
}

/// The chart that shows a finding best: the first of its rule's declared key charts
/// ([`crate::verdict::RuleSpec`]) the report drew, else the device writes, else the first
/// time chart.
pub(super) fn key_chart<'a>(f: &Finding, charts: &'a [Chart]) -> Option<&'a Chart> {
    let by = |n: &str| charts.iter().find(|c| c.name == n && c.time.is_some());
    let wanted = crate::rules::spec(f.rule).map_or(&[][..], |s| s.key_charts);
    wanted
        .iter()
        .find_map(|n| by(n))
        .or_else(|| by("device-writes"))
        .or_else(|| charts.iter().find(|c| c.time.is_some()))
}

/// One actor in words: `mstore-0 [4242], 97 % (pidstat -d)`, or its "not measured" note.
fn actor(a: &Actor) -> String {
    let mut s = match &a.comm {
        Some(c) => c.clone(),
        None if !a.measured => return a.note.clone().unwrap_or_else(|| "not measured".into()),
        None => String::new(),
    };
    if let Some(t) = a.tid {
        s.push_str(&format!(" [{t}]"));
    }
    if let Some(x) = a.share.filter(|x| *x < 0.995) {
        s.push_str(&format!(", {:.0} %", 100.0 * x));
    }
    if !a.source.is_empty() {
        s.push_str(&format!(" ({})", a.source));
    }
    if let Some(n) = &a.note {
        s.push_str(if s.is_empty() { "" } else { "; " });
        s.push_str(n);
    }
    s
}

/// Who dirtied or submitted the data: the verdict's writers.
pub(super) fn who_wrote(f: &Finding) -> String {
    if f.actors.writers.is_empty() {
        return "not part of this finding".into();
    }
    f.actors.writers.iter().map(actor).collect::<Vec<_>>().join("; ")
}

/// Who issued the block writes and why, and the thread that bounds: the verdict's issuers and bound.
pub(super) fn who_issued(f: &Finding) -> String {
    let mut out: Vec<String> = f
        .actors
        .issuers
        .iter()
        .map(|a| match a.issuer_class() {
            Some(c) if a.measured => format!("{}: {}", c.words(), actor(a)),
            _ => actor(a),
        })
        .collect();
    out.extend(f.actors.bound.iter().map(|a| format!("bound by {}", actor(a))));
    if out.is_empty() {
        return "not part of this finding".into();
    }
    out.join("; ")
}

/// The window in host local time and UTC, with its length.
pub(super) fn when(f: &Finding, report: &Report) -> String {
    let Some(w) = &f.window else {
        return "the whole capture (the rule gives no window)".into();
    };
    let (Some(a), Some(b)) = (epoch(&w.start), epoch(&w.end)) else {
        return format!("{} to {}", w.start, w.end);
    };
    let utc = crate::clock::DisplayZone::default();
    let span = format!("{} s", b - a + 1);
    // A display zone of its own (--display-tz ZONE) comes first.
    let shown = if report.display.is_utc() || report.display.label == report.host.label {
        String::new()
    } else {
        format!(
            "{} {} to {} ({}); ",
            full(&report.display, a),
            report.display.offset_text(a),
            report.display.format(b, "%H:%M:%S"),
            report.display.label
        )
    };
    format!("{shown}{}", when_local_utc(report, &utc, a, b, &span))
}

/// The window in host local time and UTC.
fn when_local_utc(report: &Report, utc: &crate::clock::DisplayZone, a: i64, b: i64, span: &str) -> String {
    if report.host.rule.offset_at(a) == 0 && report.host.rule.offset_at(b) == 0 {
        return format!(
            "{} to {} UTC, host local time is UTC ({span})",
            full(utc, a),
            utc.format(b, "%H:%M:%S")
        );
    }
    format!(
        "{} to {} {} local; {} to {} UTC ({span})",
        full(&report.host, a),
        report.host.format(b, "%H:%M:%S"),
        report.host.offset_text(a),
        full(utc, a),
        utc.format(b, "%H:%M:%S")
    )
}

/// The plot with only its first `n` panels.
fn first_panels(t: &super::charts::TimePlot, n: usize) -> super::charts::TimePlot {
    let mut c = t.clone();
    c.panels.truncate(n);
    c
}

fn story(f: &Finding, report: &Report, charts: &[Chart], i: usize) -> Markup {
    let sev = sev_word(f.severity);
    let key = key_chart(f, charts);
    let t0 = report.timeline.t0;
    let window = f.window.as_ref().and_then(|w| {
        let (a, b) = (epoch(&w.start)?, epoch(&w.end)?);
        Some(((a - t0) as f64, (b - t0 + 1) as f64))
    });
    html! {
        div class={ "finding story " (sev) } {
            div {
                h3 { span class={ "sev " (sev) } { (sev) } " " (rule_title(f.rule)) " " span.rid { (f.rule) } }
                p.summary { (f.summary) }
                dl {
                    dt { "When" } dd { (when(f, report)) }
                    dt { "Who wrote" } dd { (who_wrote(f)) }
                    dt { "Who issued" } dd { (who_issued(f)) }
                    dt { "How sure" } dd { (sure(f.confidence)) }
                    dt { "What to change" } dd {
                        @if f.remedies.is_empty() { "the rule suggests no change" } @else {
                            ul { @for r in &f.remedies { li { (r) } } }
                        }
                    }
                }
            }
            @if let Some(c) = key {
                @if let Some(t) = &c.time {
                    @let compact = first_panels(t, 2);
                    figure {
                        div.ct { (c.title) }
                        (super::live::time_chart(&compact, &format!("key-{i}-{}", c.name), KEY_W, KEY_PANEL_H, window))
                        figcaption { "Blue: the finding's window. The full chart is under "
                            a href=(format!("#ch-{}", c.name)) { "its section" } "." }
                    }
                }
            } @else {
                p.muted { "No time series in the capture to chart this finding." }
            }
        }
    }
}

/// The capture in one line, above the stories: its worst finding with its headline number,
/// and how many findings of each severity.
pub(super) fn one_line(report: &Report) -> String {
    let fs = ranked(&report.doc.findings);
    let Some(f) = fs.first() else {
        return "Verdict: no rule fired on this capture.".into();
    };
    let title = rule_title(f.rule);
    let number = super::fmt::headline(f).map(|n| format!(" ({n})")).unwrap_or_default();
    let mut counts = Vec::new();
    for s in [Severity::Critical, Severity::Warning, Severity::Info] {
        let n = fs.iter().filter(|x| x.severity == s).count();
        if n > 0 {
            counts.push(format!("{n} {}", sev_word(s)));
        }
    }
    format!(
        "Verdict: {} {title}{number}; findings: {}.",
        sev_word(f.severity).to_uppercase(),
        counts.join(", ")
    )
}

/// Seconds of CPU at or above this busy share (user + system + the rest, iowait counted as
/// idle) make the CPU note.
pub(super) const CPU_BUSY_PCT: f64 = 90.0;
/// ... when there are at least this many of them.
pub(super) const CPU_BUSY_MIN_S: usize = 10;

/// A note when the capture's CPU was saturated (no rule reads it: a device can look fine while
/// the CPU bounds the work): its busy seconds, their share and the peak.
pub(super) fn cpu_note(report: &Report) -> Option<String> {
    use crate::table::columns::{Col, CpuMetric};
    let tl = &report.timeline;
    let idle = tl.get(&Col::Cpu(CpuMetric::IdlePct))?;
    let iowait = tl.get(&Col::Cpu(CpuMetric::IowaitPct));
    // The collector's own CPU (its record, issue 41) is not the workload's: discounted.
    let own = tl.get(&Col::Host(crate::table::columns::HostMetric::CollectorCpuPct));
    let busy: Vec<f64> = (0..idle.len())
        .filter_map(|i| {
            let w = iowait.and_then(|c| c.get(i)?.get()).unwrap_or(0.0);
            let c = own.and_then(|c| c.get(i)?.get()).unwrap_or(0.0);
            idle.get(i)?.get().map(|x| (100.0 - x - w - c).clamp(0.0, 100.0))
        })
        .collect();
    let hot = busy.iter().filter(|b| **b >= CPU_BUSY_PCT).count();
    if hot < CPU_BUSY_MIN_S || busy.is_empty() {
        return None;
    }
    let rows = tl.bin().max(1) as usize;
    let peak = busy.iter().copied().fold(0.0, f64::max);
    let discounted = if own.is_some() { ", the collector's own CPU discounted" } else { "" };
    Some(format!(
        "CPU: busy (iowait counted as idle{discounted}) at {CPU_BUSY_PCT:.0} % or more for {} s of {} ({:.0} %), up to {peak:.0} %: the CPU may bound the work where the devices look fine.",
        hot * rows,
        busy.len() * rows,
        100.0 * hot as f64 / busy.len() as f64
    ))
}

/// The capture-quality note of the collector's own cost (issue 41), when it is worth one.
pub(super) fn collector_note(report: &Report) -> Option<&str> {
    report.doc.bundle.collector.as_ref()?.note.as_deref()
}

/// What observing cost, in one line for the inventory: the collector's CPU and its
/// heaviest processes, or "not measured" for a capture without the record.
pub(super) fn collector_cost_line(report: &Report) -> String {
    let Some(c) = &report.doc.bundle.collector else {
        return "Collector cost: not measured (the capture has no collector-cost.txt: a collector \
                before issue 41, or another tool)."
            .into();
    };
    let top: Vec<String> = c
        .processes
        .iter()
        .take(3)
        .map(|p| format!("{} (pid {}) {:.1} CPU s", p.name, p.pid, p.cpu_s))
        .collect();
    let share = c.cpu_pct.map(|p| format!("{p:.1} % of the CPU")).unwrap_or_else(|| "unknown".into());
    let events = if c.events.is_empty() {
        String::new()
    } else {
        format!("; the watchdog acted {} time(s)", c.events.len())
    };
    format!("Collector cost: {share} ({}){events}.", top.join(", "))
}

/// The verdict: one story per finding, worst first.
pub(super) fn verdict(report: &Report, charts: &[Chart]) -> Markup {
    let fs = ranked(&report.doc.findings);
    let passed = report.doc.checked.iter().filter(|c| c.outcome == "passed").count();
    let skipped = report.doc.checked.len() - passed;
    html! {
        section #verdict {
            h2 { "What happened" }
            p.oneline { (one_line(report)) }
            @if let Some(n) = collector_note(report) { p.quality { b { (n) } } }
            @if let Some(n) = cpu_note(report) { p.cpu { (n) } }
            @if fs.is_empty() {
                p.summary { "No rule fired: " (passed) " rules checked the capture and passed, " (skipped)
                    " could not run for lack of inputs (listed under Checked)." }
            }
            @for (i, f) in fs.iter().enumerate() { (story(f, report, charts, i)) }
        }
    }
}

fn fact_row(k: &str, f: &Fact) -> Markup {
    // Where it was read, on hover: an archive's `capture.tgz!dir/file:line` inline made the
    // box thousands of pixels tall.
    html! { tr { th { (k) } td title={ "read from " (f.source) } { (f.value) } } }
}

fn opt_row(k: &str, f: &Option<Fact>, absent: &str) -> Markup {
    html! {
        @match f {
            Some(f) => { (fact_row(k, f)) }
            None => { tr { th { (k) } td.muted { (absent) } } }
        }
    }
}

/// The system box: what a consultant checks first, each value with where it was read.
pub(super) fn system_box(b: &SystemBox) -> Markup {
    html! {
        section #system {
            h2 { "System" }
            div.sys {
                div {
                    h3 { "Host" }
                    table {
                        (opt_row("kernel", &b.kernel, "not in the capture (uname -r)"))
                        (opt_row("CPUs", &b.cpus, "not in the capture (no per-core CPU series)"))
                        (opt_row("memory", &b.memory, "not read by iosift (MemTotal is not kept)"))
                    }
                    h3 { "Disks" }
                    @if b.disks.is_empty() { p.muted { "No block device in the capture." } } @else {
                        table {
                            tr { th { "device" } th { "stack" } th { "queue" } }
                            @for d in b.disks.iter().filter(|d| d.main || d.measured || PHYSICAL.iter().any(|p| d.name.starts_with(p))) {
                                tr {
                                    td { (d.name) @if d.main { " " b { "(most written)" } } @else if d.measured { " (measured)" } }
                                    td {
                                        @if d.stack.is_empty() { span.muted { "-" } } @else { (d.stack.join(" → ")) }
                                        @if let Some(n) = &d.stack_note { br; span.src { (n) } }
                                    }
                                    td { @for (j, (k, v)) in d.queue.iter().enumerate() { @if j > 0 { br; } (k) " = " (v.value) } }
                                }
                            }
                        }
                        @let quiet: Vec<&str> = b.disks.iter().filter(|d| !(d.main || d.measured || PHYSICAL.iter().any(|p| d.name.starts_with(p)))).map(|d| d.name.as_str()).collect();
                        @if !quiet.is_empty() { p.muted { "Also in the capture, without I/O series: " (quiet.join(", ")) "." } }
                    }
                }
                div {
                    h3 { "Filesystems" }
                    @if b.filesystems.is_empty() { p.muted { "No mount table in the capture (/proc/mounts, findmnt)." } } @else {
                        table {
                            tr { th { "mount" } th { "type" } th { "device" } th { "options" } }
                            @for m in &b.filesystems { tr { td { (m.target) } td { (m.fstype) } td { (m.source) } td { (m.options.replace(',', ", ")) } } }
                        }
                    }
                    h3 { "Writeback (vm.dirty_*)" }
                    @if b.vm.is_empty() { p.muted { "No vm sysctls in the capture: the kernel defaults are assumed." } } @else {
                        table { @for (k, f) in &b.vm { (fact_row(k, f)) } }
                    }
                    h3 { "Transparent huge pages" }
                    @if b.thp.is_empty() { p.muted { "Not in the capture (/sys/kernel/mm/transparent_hugepage)." } } @else {
                        table { @for (k, f) in &b.thp { (fact_row(k, f)) } }
                    }
                }
                div {
                    h3 { "MySQL durability" }
                    @if b.durability.is_empty() { p.muted { "No MySQL variables in the capture." } } @else {
                        table { @for (k, f) in &b.durability { (fact_row(k, f)) } }
                    }
                    h3 { "MySQL replication" }
                    @if b.replication.is_empty() { p.muted { "No replication variables in the capture." } } @else {
                        table { @for (k, f) in &b.replication { (fact_row(k, f)) } }
                    }
                    h3 { "Kernel log" }
                    @match &b.kernel_log {
                        None => { p.muted { "Not in the capture (dmesg, pt-stalk -dmesg)." } }
                        Some(events) if events.is_empty() => { p.muted { "No hung task, I/O error, file-system error or OOM kill in the kernel log." } }
                        Some(events) => { ul { @for f in events { li title={ "read from " (f.source) } { (f.value) } } } }
                    }
                    h3 { "What the capture lacked" }
                    @if b.lacked.is_empty() { p.muted { "Nothing a rule needed was missing." } } @else {
                        ul { @for l in &b.lacked { li { (l) } } }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_and_confidence() {
        assert_eq!(title_of("replication_lag"), "Replication lag");
        assert_eq!(sure(0.85), "85 % (high)");
    }
}
