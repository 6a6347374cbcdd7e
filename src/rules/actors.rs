//! A rule's verdict from the write episodes it explains: the writers and the
//! issuer the episodes *measured* (`analysis::episodes`), merged over the
//! episodes, and what they cost. Rules use this instead of asserting an issuer
//! of their own: a writeback story is told only for episodes measured as
//! writeback, and a finding whose episodes cost nothing is information.

use crate::analysis::episodes::Episode;
use crate::model::Severity;
use crate::verdict::{Actor, Actors, IssuerClass, Role};
use std::collections::BTreeMap;

/// Bytes, thread id and witness of one writer.
type Charged = (f64, Option<u32>, &'static str);

/// What the episodes of a finding say.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EpisodeVerdict {
    /// The episodes' issuer class that carries the most bytes among the measured ones,
    /// with the share of all the episodes' bytes it carries.
    pub class: Option<(IssuerClass, f64)>,
    /// Writers and issuers for the finding.
    pub actors: Actors,
    /// Episodes that cost something, and all of them.
    pub costly: usize,
    /// Episodes.
    pub episodes: usize,
    /// The first costly episode's harm in words, else the first one's.
    pub harm: String,
}

impl EpisodeVerdict {
    /// `when_costly` when a third of the episodes (at least one) cost something, else
    /// information: one slow second among many harmless flushes is no pattern.
    pub fn severity(&self, when_costly: Severity) -> Severity {
        if self.costly > 0 && 3 * self.costly >= self.episodes { when_costly } else { Severity::Info }
    }

    /// True when the measured class is one of `classes`.
    pub fn is(&self, classes: &[IssuerClass]) -> bool {
        self.class.is_some_and(|(c, _)| classes.contains(&c))
    }

    /// The issuer in one sentence for a summary.
    pub fn issuer_sentence(&self) -> String {
        match (self.class, self.actors.issuers.first()) {
            (Some((c, share)), Some(a)) => format!(
                "Issued by {}{} (measured: {}{})",
                c.words(),
                a.comm.as_ref().map(|n| format!(", {n}")).unwrap_or_default(),
                a.source,
                if share < 0.99 {
                    format!("; {:.0} % of the episodes' bytes", 100.0 * share)
                } else {
                    String::new()
                }
            ),
            (_, Some(a)) => {
                format!("The issuer is {}", a.note.clone().unwrap_or_else(|| "not measured".into()))
            }
            _ => "No write episode of the finding's window to measure the issuer".into(),
        }
    }
}

/// The episodes of `device` overlapping rows `first..=last`.
pub fn overlapping<'a>(episodes: &'a [Episode], device: &str, first: usize, last: usize) -> Vec<&'a Episode> {
    episodes.iter().filter(|e| e.device == device && e.end >= first && e.start <= last).collect()
}

/// The verdict of `episodes`.
pub fn verdict(episodes: &[&Episode]) -> EpisodeVerdict {
    let total: f64 = episodes.iter().map(|e| e.bytes).sum();
    let mut by_class: BTreeMap<IssuerClass, f64> = BTreeMap::new();
    for e in episodes {
        if let Some(c) = e.issuer.class {
            *by_class.entry(c).or_default() += e.bytes;
        }
    }
    // The class must carry half the bytes whose issuer was measured and a quarter of all.
    let measured: f64 = by_class.values().sum();
    let best = by_class.iter().max_by(|a, b| a.1.total_cmp(b.1)).map(|(c, b)| {
        (*c, if total > 0.0 { b / total } else { 0.0 }, if measured > 0.0 { b / measured } else { 0.0 })
    });
    let class =
        best.filter(|(_, all, of_measured)| *all >= 0.25 && *of_measured >= 0.5).map(|(c, all, _)| (c, all));
    let best = best.map(|(c, all, _)| (c, all));
    // The issuer: the measured actor of the largest episode of the class; else the
    // largest episode's not-measured note.
    let largest = |want: Option<IssuerClass>| {
        episodes
            .iter()
            .filter(|e| want.is_none() || e.issuer.class == want)
            .max_by(|a, b| a.bytes.total_cmp(&b.bytes))
    };
    let mut issuers: Vec<Actor> = Vec::new();
    if let (None, Some((c, share))) = (class, best) {
        issuers.push(Actor::not_measured(
            Role::Issuer(c),
            format!(
                "the episodes' issuers disagree or are not told apart (best: {}, {:.0} % of their bytes)",
                c.id(),
                100.0 * share
            ),
        ));
    } else if let Some(e) = largest(class.map(|c| c.0)) {
        let mut a = e.issuer.issuer.clone();
        if let Some((rc, why)) = &e.issuer.runner_up {
            let note = format!("runner-up {}: {why}", rc.id());
            a.note = Some(a.note.map_or(note.clone(), |n| format!("{n}; {note}")));
        }
        issuers.push(a);
    }
    // Writers: bytes per comm over the episodes, most first.
    let mut writers: BTreeMap<String, Charged> = BTreeMap::new();
    let mut unmeasured: Option<Actor> = None;
    for e in episodes {
        for w in &e.writers {
            match (&w.comm, w.measured) {
                (Some(c), true) => {
                    let x = writers.entry(c.clone()).or_insert((0.0, w.tid, w.source));
                    x.0 += w.share.unwrap_or(0.0) * e.bytes;
                }
                _ => unmeasured = unmeasured.or_else(|| Some(w.clone())),
            }
        }
    }
    let wtotal: f64 = writers.values().map(|x| x.0).sum();
    let mut wl: Vec<(String, Charged)> = writers.into_iter().collect();
    wl.sort_by(|a, b| b.1.0.total_cmp(&a.1.0));
    let mut writers: Vec<Actor> = wl
        .into_iter()
        .take(3)
        .map(|(c, (b, tid, src))| {
            Actor::measured(Role::Writer, &c, tid, (wtotal > 0.0).then(|| b / wtotal), src)
        })
        .collect();
    if writers.is_empty()
        && let Some(u) = unmeasured
    {
        writers.push(u);
    }
    let costly: Vec<&&Episode> = episodes.iter().filter(|e| e.harm.costly).collect();
    let harm = costly
        .first()
        .map(|e| &e.harm.words)
        .or(episodes.first().map(|e| &e.harm.words))
        .cloned()
        .unwrap_or_default();
    EpisodeVerdict {
        class,
        actors: Actors { writers, issuers, bound: vec![] },
        costly: costly.len(),
        episodes: episodes.len(),
        harm,
    }
}

/// The actors of a finding whose rule named none: the episodes of its window on any
/// device, and for a rule about flushes the threads perf saw in fsync; a finding
/// without a window (a configuration) has none.
pub fn of_window(a: &super::Available<'_>, f: &crate::model::Finding) -> Actors {
    let epoch = |t: &str| chrono::DateTime::parse_from_rfc3339(t).ok().map(|d| d.timestamp());
    // Without a window: the whole capture's episodes of the main device.
    let (s, e, main) = match &f.window {
        Some(w) => match (epoch(&w.start), epoch(&w.end)) {
            (Some(s), Some(e)) => (s, e, None),
            _ => return Actors::default(),
        },
        None => (i64::MIN, i64::MAX, a.device().map(|d| d.name.as_str())),
    };
    let eps: Vec<&Episode> = a
        .episodes()
        .iter()
        .filter(|x| x.end_epoch >= s && x.start_epoch <= e && main.is_none_or(|m| x.device == m))
        .collect();
    let mut actors = verdict(&eps).actors;
    if f.rule == super::fsync::ID {
        actors.issuers = fsync_threads(a);
        actors.writers = charged_threads(a);
    }
    actors
}

/// The threads perf saw in fsync, most samples first, as application-flush issuers.
pub fn fsync_threads(a: &super::Available<'_>) -> Vec<Actor> {
    let shares = a.fsync_shares();
    let total: u64 = shares.iter().map(|s| s.fsync_samples).sum();
    if total == 0 {
        return vec![Actor::not_measured(
            Role::Issuer(IssuerClass::ApplicationFlush),
            "no perf samples in fsync (collect.sh -P)",
        )];
    }
    let mut v: Vec<_> = shares.iter().filter(|s| s.fsync_samples > 0).collect();
    v.sort_by_key(|s| std::cmp::Reverse(s.fsync_samples));
    v.into_iter()
        .take(3)
        .map(|s| {
            Actor::measured(
                Role::Issuer(IssuerClass::ApplicationFlush),
                &s.comm,
                s.tid,
                Some(s.fsync_samples as f64 / total as f64),
                "perf",
            )
        })
        .collect()
}

/// The threads pidstat charged with the most bytes over the capture (kernel issuers left
/// out), as writers.
pub fn charged_threads(a: &super::Available<'_>) -> Vec<Actor> {
    // The database's threads when pidstat saw any (a build next to it writes more), else any.
    let all: Vec<(&u32, &crate::pipeline::ThreadTotal)> =
        a.threads().iter().filter(|(_, t)| t.category != "writeback" && t.bytes > 0.0).collect();
    let db: Vec<(&u32, &crate::pipeline::ThreadTotal)> =
        all.iter().copied().filter(|(_, t)| t.category != "other" || is_server(&t.comm)).collect();
    let mut v = if db.is_empty() { all } else { db };
    if v.is_empty() {
        return vec![Actor::not_measured(Role::Writer, "no per-thread writes (pidstat -d)")];
    }
    let total: f64 = v.iter().map(|x| x.1.bytes).sum();
    v.sort_by(|a, b| b.1.bytes.total_cmp(&a.1.bytes));
    v.into_iter()
        .take(3)
        .map(|(tid, t)| {
            Actor::measured(Role::Writer, &t.comm, Some(*tid), Some(t.bytes / total), "pidstat -d")
        })
        .collect()
}

/// A MySQL / MariaDB server's own comm.
fn is_server(comm: &str) -> bool {
    ["mysqld", "mariadbd"].iter().any(|p| comm.starts_with(p))
}
