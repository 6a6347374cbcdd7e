//! From a pipeline to a report: the analysis views (main device,
//! periodicity, lagged correlations, write sources, perf, binlog) and the
//! rules, assembled into the [`Report`] model.

use crate::analysis::{bursts, period, stats};
use crate::bundle::Bundle;
use crate::model::*;
use crate::pipeline::{self, Options, Pipeline};
use iosift_parsers::Data;

/// Everything the rules read: the pipeline plus the derived views.
pub struct Facts<'p> {
    /// The pipeline.
    pub p: &'p Pipeline,
    /// Main data device.
    pub device: Option<String>,
    /// Timeline column of the main device's write bytes/s.
    pub write_col: Option<String>,
    /// Periodicity view of the device writes.
    pub periodicity: Option<PeriodicityView>,
    /// Burst scan on the device writes.
    pub scan: Option<bursts::BurstScan>,
}

/// RFC 3339 of an epoch second.
pub fn rfc3339(epoch: i64) -> String {
    iosift_parsers::common::time::epoch_to_utc(epoch as f64)
        .map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default()
}

fn main_device(p: &Pipeline) -> Option<(String, String)> {
    let best = |prefix: &str| {
        p.timeline
            .columns
            .iter()
            .filter(|(k, _)| k.starts_with(prefix) && k.ends_with(".w_bytes_s"))
            .map(|(k, s)| (k.clone(), s.values.iter().flatten().sum::<f64>()))
            .filter(|(_, t)| *t > 0.0)
            .max_by(|a, b| a.1.total_cmp(&b.1))
    };
    let (col, _) = best("dev.").or_else(|| best("ds."))?;
    let dev = col.split('.').nth(1)?.to_string();
    Some((dev, col))
}

/// The writeback window from sysctl (dirty_expire + dirty_writeback), or the kernel defaults.
pub fn writeback_window(p: &Pipeline) -> (f64, bool) {
    let e = p.ctx.sysctl_f64("vm.dirty_expire_centisecs");
    let w = p.ctx.sysctl_f64("vm.dirty_writeback_centisecs");
    match (e, w) {
        (Some(e), Some(w)) => ((e + w) / 100.0, true),
        _ => ((e.unwrap_or(3000.0) + w.unwrap_or(500.0)) / 100.0, false),
    }
}

fn periodicity(p: &Pipeline, col: &str) -> (PeriodicityView, bursts::BurstScan) {
    let tl = &p.timeline;
    let series = tl.get(col).unwrap_or(&[]);
    let mut scan = bursts::detect(series, 8.0, 5.0, 4.0 * 1024.0 * 1024.0);
    // Keep the bursts of the dominant size class: small spikes of other
    // writers (a build, a log rotation) would blur the period. A burst counts
    // when it holds at least a quarter of the typical large burst.
    let mut totals: Vec<f64> = scan.bursts.iter().map(|b| b.total).collect();
    totals.sort_by(|a, b| b.total_cmp(a));
    if let Some(typical) = stats::median(&totals[..totals.len().min(5)]) {
        scan.bursts.retain(|b| b.total >= 0.25 * typical);
    }
    let onsets: Vec<f64> = scan.bursts.iter().map(|b| b.start as f64).collect();
    let max_lag = (series.len() / 2).min(600);
    let acf = period::autocorrelation(series, max_lag);
    let by_onset = period::onset_period(&onsets);
    let by_acf = period::acf_period(&acf, 3);
    let chosen = match (by_onset, by_acf) {
        (Some(o), _) if scan.bursts.len() >= 3 => Some(o),
        (_, Some(a)) => Some(a),
        (o, None) => o,
    };
    // Periodic writeback hides among other writers' bursts (a job every 5 s):
    // when the period found does not match the writeback window, look for a
    // chain of bursts spaced by the window itself.
    let (window, _) = writeback_window(p);
    let matches = |per: f64| (per - window).abs() <= 0.2 * window + 2.0;
    let chosen = match chosen {
        Some(c) if matches(c.period_s) && c.confidence >= 0.5 => Some(c),
        other => match comb_period(&onsets, window) {
            Some(comb) if other.as_ref().is_none_or(|o| comb.confidence >= 0.5 || o.confidence < 0.5) => {
                Some(comb)
            }
            _ => other,
        },
    };
    let max_p = (series.len() as f64 / 2.0).clamp(10.0, 600.0) as usize;
    let periods: Vec<f64> = (4..=max_p).map(|x| x as f64).collect();
    let pg = period::periodogram(series, &periods);
    let mut shared = Vec::new();
    if let Some(c) = &chosen {
        let mut others: Vec<String> = vec!["mem.dirty_bytes".into()];
        others.extend(tl.names_with_prefix("thr.").cloned());
        others.extend(tl.names_with_prefix("cat.").cloned());
        for o in others {
            let Some(v) = tl.get(&o) else { continue };
            // Dirty is a sawtooth: its drops carry the period.
            let s: Vec<Option<f64>> = if o == "mem.dirty_bytes" {
                let mut d = vec![None; v.len()];
                for i in 1..v.len() {
                    if let (Some(a), Some(b)) = (v[i - 1], v[i]) {
                        d[i] = Some((a - b).max(0.0));
                    }
                }
                d
            } else {
                v.to_vec()
            };
            if stats::present(&s).len() < 30 {
                continue;
            }
            let a = period::autocorrelation(&s, max_lag);
            if let Some(pp) = period::acf_period(&a, 3)
                && (pp.period_s - c.period_s).abs() <= 0.1 * c.period_s + 1.0
                && pp.confidence > 0.3
            {
                shared.push((o, pp.period_s, pp.confidence));
            }
        }
    }
    let view = PeriodicityView {
        series: col.to_string(),
        bursts: scan.bursts.clone(),
        threshold: scan.threshold,
        period_s: chosen.as_ref().map(|c| c.period_s),
        confidence: chosen.as_ref().map(|c| c.confidence),
        acf,
        periodogram: periods.into_iter().zip(pg).collect(),
        writeback_window_s: Some(writeback_window(p)),
        shared_with: shared,
    };
    (view, scan)
}

/// The longest chain of burst onsets spaced by a period near the writeback
/// window (window - 6 s .. window + 2 s, +- 2 s each step); at least 4 bursts.
fn comb_period(onsets: &[f64], window: f64) -> Option<period::Period> {
    let mut best: Option<Vec<f64>> = None;
    let lo = (window - 6.0).max(3.0).round() as i64;
    let hi = (window + 2.0).round() as i64;
    for per in lo..=hi {
        let per = per as f64;
        for (i, &start) in onsets.iter().enumerate() {
            let mut chain = vec![start];
            let mut last = start;
            for &o in &onsets[i + 1..] {
                if (o - last - per).abs() <= 2.0 {
                    chain.push(o);
                    last = o;
                }
            }
            if chain.len() >= 4 && best.as_ref().is_none_or(|b| chain.len() > b.len()) {
                best = Some(chain);
            }
        }
    }
    let chain = best?;
    let gaps: Vec<f64> = chain.windows(2).map(|w| w[1] - w[0]).collect();
    let per = stats::median(&gaps)?;
    let span = chain.last()? - chain.first()?;
    // Confidence: how many of the expected steps were found, scaled for few steps.
    let expected = (span / per).round().max(1.0);
    let found = (chain.len() - 1) as f64 / expected;
    let few = ((chain.len() - 1) as f64 / 4.0).min(1.0);
    Some(period::Period {
        period_s: per,
        confidence: (found * (0.6 + 0.4 * few)).clamp(0.0, 1.0),
        method: "burst-chain at the writeback window",
    })
}

fn correlations(p: &Pipeline, write_col: Option<&str>) -> Vec<Correlation> {
    let tl = &p.timeline;
    let mut pairs: Vec<(String, String, String)> = Vec::new();
    if let Some(w) = write_col {
        if tl.get("vm.nr_dirtied_s").is_some() {
            pairs.push((
                "vm.nr_dirtied_s".into(),
                w.into(),
                "pages dirtied (/proc/vmstat nr_dirtied) vs device writes".into(),
            ));
        }
        let cats: Vec<String> = tl.names_with_prefix("cat.").cloned().collect();
        if !cats.is_empty() {
            pairs.push((
                "pidstat.total".into(),
                w.into(),
                "bytes dirtied per pidstat (all threads) vs device writes".into(),
            ));
        }
        if tl.get("binlog.bytes_s").is_some() {
            pairs.push(("binlog.bytes_s".into(), w.into(), "binlog bytes vs device writes".into()));
        }
    }
    if tl.get("perf.fsync_samples_s").is_some() && tl.get("binlog.trx_s").is_some() {
        pairs.push((
            "binlog.trx_s".into(),
            "perf.fsync_samples_s".into(),
            "commit rate vs fsync samples (perf)".into(),
        ));
    }
    let total: Vec<Option<f64>> = {
        let cats: Vec<&[Option<f64>]> = tl.names_with_prefix("cat.").filter_map(|k| tl.get(k)).collect();
        (0..tl.len)
            .map(|i| {
                let vals: Vec<f64> = cats.iter().filter_map(|c| c[i]).collect();
                (!vals.is_empty()).then(|| vals.iter().sum())
            })
            .collect()
    };
    let mut out = Vec::new();
    for (a, b, label) in pairs {
        let av: &[Option<f64>] = if a == "pidstat.total" { &total } else { tl.get(&a).unwrap_or(&[]) };
        let bv = tl.get(&b).unwrap_or(&[]);
        let mut curve = Vec::new();
        for lag in -60i64..=60 {
            if let Some((r, _)) = stats::lagged_pearson(av, bv, lag as isize) {
                curve.push((lag, r));
            }
        }
        let Some(&(best_lag_s, best_r)) = curve.iter().max_by(|x, y| x.1.abs().total_cmp(&y.1.abs())) else {
            continue;
        };
        let n = stats::lagged_pearson(av, bv, best_lag_s as isize).map_or(0, |x| x.1);
        out.push(Correlation { a, b, label, best_lag_s, best_r, n, curve });
    }
    out
}

fn write_sources(p: &Pipeline) -> Vec<WriteSource> {
    let tl = &p.timeline;
    let mut out = Vec::new();
    for cat in crate::attribution::CATEGORIES {
        let col = format!("cat.{cat}.w_bytes_s");
        let Some(v) = tl.get(&col) else { continue };
        let total: f64 = v.iter().flatten().sum();
        let mut top: Vec<(String, u32, f64)> = p
            .threads
            .iter()
            .filter(|(_, t)| t.category == *cat)
            .map(|(tid, t)| (t.comm.clone(), *tid, t.bytes))
            .collect();
        top.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.1.cmp(&b.1)));
        top.truncate(5);
        out.push(WriteSource {
            category: cat.to_string(),
            column: col,
            total_bytes: total,
            top_threads: top,
        });
    }
    out
}

fn perf_views(p: &Pipeline) -> (Vec<FlameInput>, Vec<FsyncShare>) {
    let mut flames = Vec::new();
    let mut shares = Vec::new();
    for f in &p.files {
        let Some(Data::PerfScript(ps)) = &f.data else { continue };
        if ps.collapsed.is_empty() {
            continue;
        }
        let mut folded: Vec<String> = ps.collapsed.iter().map(|(k, v)| format!("{k} {v}")).collect();
        folded.truncate(200_000);
        flames.push(FlameInput {
            title: format!("{}: {} samples", f.name, ps.samples),
            stem: crate::bundle::sanitize_file_name(f.base.trim_end_matches(".txt")),
            folded,
        });
        for t in &ps.threads {
            if t.samples > 0 {
                shares.push(FsyncShare {
                    comm: t.comm.clone(),
                    tid: t.tid,
                    samples: t.samples,
                    fsync_samples: t.fsync_samples,
                });
            }
        }
    }
    shares.sort_by(|a, b| {
        b.fsync_samples.cmp(&a.fsync_samples).then(b.samples.cmp(&a.samples)).then(a.tid.cmp(&b.tid))
    });
    shares.truncate(30);
    (flames, shares)
}

fn binlog_view(p: &Pipeline) -> Option<BinlogView> {
    p.binlog.map(|i| &p.files[i]).and_then(|f| {
        let Some(Data::Mysqlbinlog(b)) = &f.data else { return None };
        if b.transactions.is_empty() {
            return None;
        }
        let s = b.size_stats();
        Some(BinlogView {
            file: f.name.clone(),
            transactions: s.count,
            mean_bytes: s.mean,
            median_bytes: s.median,
            size_histogram: s.histogram.clone(),
            per_table: b.per_table(),
        })
    })
}

fn inventory(p: &Pipeline) -> Vec<InputInfo> {
    p.files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let c = p.clocks[i];
            let mut diagnostics = f.diagnostics.clone();
            diagnostics.truncate(20);
            InputInfo {
                path: f.name.clone(),
                format: f.format,
                records: f.records,
                lines: f.lines,
                skipped_lines: f.skipped_lines,
                anchored_by: c.map(|c| c.anchoring.as_str()),
                uncertainty_s: c.map(|c| c.uncertainty_s),
                variant: f.variant.clone(),
                diagnostics,
                diagnostics_total: f.diagnostics.len(),
                note: p.notes[i].clone().or_else(|| {
                    f.format.is_none().then(|| match iosift_parsers::common::pt_stalk::unread(&f.base) {
                        Some(what) => format!("pt-stalk collector file: {what}"),
                        None => "not recognised as any supported format".to_string(),
                    })
                }),
            }
        })
        .collect()
}

/// Runs the whole analysis of a bundle.
pub fn analyze(bundle: &Bundle, opts: &Options) -> Report {
    let p = pipeline::run(bundle, opts);
    let md = main_device(&p);
    let (periodicity, scan) = match &md {
        Some((_, col)) => {
            let (v, s) = periodicity(&p, col);
            (Some(v), Some(s))
        }
        None => (None, None),
    };
    let facts = Facts {
        p: &p,
        device: md.as_ref().map(|m| m.0.clone()),
        write_col: md.as_ref().map(|m| m.1.clone()),
        periodicity: periodicity.clone(),
        scan,
    };
    let (mut findings, checked) = crate::rules::evaluate(&facts);
    findings.sort_by(|a, b| {
        b.severity.cmp(&a.severity).then(b.confidence.total_cmp(&a.confidence)).then(a.rule.cmp(b.rule))
    });
    let correlations = correlations(&p, facts.write_col.as_deref());
    let write_sources = write_sources(&p);
    let (flames, fsync_shares) = perf_views(&p);
    let binlog = binlog_view(&p);
    let tl = &p.timeline;
    let doc = FindingsDoc {
        iosift_version: env!("CARGO_PKG_VERSION").to_string(),
        bundle: BundleInfo {
            name: bundle.name.clone(),
            inputs: inventory(&p),
            problems: bundle.problems.clone(),
        },
        clock: ClockInfo {
            timezone: p.zone.name.clone(),
            timezone_source: p.zone.source.clone(),
            start: (tl.len > 1).then(|| rfc3339(tl.t0)),
            end: (tl.len > 1).then(|| rfc3339(tl.epoch(tl.len - 1))),
            warnings: p.clock_warnings.clone(),
            perf_offset_s: p.perf_offset.map(|(o, _)| o),
            perf_anchored_by: p.perf_offset.map(|(_, a)| a.as_str()),
        },
        findings,
        checked,
    };
    Report {
        doc,
        timeline: p.timeline.clone(),
        main_device: facts.device.clone(),
        periodicity,
        correlations,
        write_sources,
        flames,
        fsync_shares,
        binlog,
        problems: bundle.problems.clone(),
        state: crate::state::gather(&p),
        display: display_zone(&p, &opts.display_tz),
        window_error: p.window_error.clone(),
    }
}

/// The zone of `--display-tz` for this bundle (`host` is the zone the clock decided).
fn display_zone(p: &Pipeline, choice: &crate::pipeline::DisplayTz) -> crate::clock::DisplayZone {
    use crate::pipeline::DisplayTz;
    match choice {
        DisplayTz::Utc => crate::clock::DisplayZone::default(),
        DisplayTz::Host => crate::clock::DisplayZone {
            rule: p.zone.rule,
            label: if p.zone.assumed {
                "UTC (host zone unknown)".into()
            } else {
                format!("{} (host)", p.zone.name)
            },
        },
        DisplayTz::Zone(rule, name) => crate::clock::DisplayZone { rule: *rule, label: name.clone() },
    }
}

/// The error when nothing in the bundle is a capture iosift can read (no input recognised
/// with records): names what was given and each file with why it was not used.
pub fn nothing_readable(report: &Report, given: &str) -> Option<String> {
    let inputs = &report.doc.bundle.inputs;
    if inputs.iter().any(|i| i.format.is_some() && i.records > 0) {
        return None;
    }
    const SHOWN: usize = 6;
    let mut why: Vec<String> = inputs
        .iter()
        .take(SHOWN)
        .map(|i| {
            let reason = match (i.format, &i.note) {
                (Some(f), _) => format!("{f} with no records"),
                (None, Some(n)) => n.clone(),
                (None, None) => "not recognised".into(),
            };
            format!("{} ({reason})", i.path)
        })
        .collect();
    if inputs.len() > SHOWN {
        why.push(format!("and {} more", inputs.len() - SHOWN));
    }
    why.extend(report.problems.iter().take(SHOWN).map(|p| format!("{}: {}", p.name, p.message)));
    let files = match inputs.len() {
        1 => "1 file".to_string(),
        n => format!("{n} files"),
    };
    let list = if why.is_empty() { String::new() } else { format!(": {}", why.join("; ")) };
    Some(format!("nothing in {given} is a capture iosift can read ({files}{list})"))
}
