//! A rule's verdict from the write episodes it explains: the writers and the
//! issuer the episodes *measured* (`analysis::episodes`), merged over the
//! episodes, and what they cost. Rules use this instead of asserting an issuer
//! of their own: a writeback story is told only for episodes measured as
//! writeback, and a finding whose episodes cost nothing is information.

use crate::analysis::episodes::Episode;
use crate::model::Severity;
use crate::table::Cell;
use crate::verdict::{Actor, Actors, IssuerClass, Role};
use std::collections::BTreeMap;

/// Bytes, thread id and witness of one writer.
type Charged = (f64, Option<u32>, &'static str);

/// What the episodes of a finding say.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct EpisodeVerdict {
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
    pub(crate) fn severity(&self, when_costly: Severity) -> Severity {
        if self.costly > 0 && 3 * self.costly >= self.episodes { when_costly } else { Severity::Info }
    }

    /// [`Self::severity`] for a repeating pattern (periodic bursts): it must also cost at
    /// least [`REPEATED_COSTS`] times; one slow second of a pattern seen twice is no pattern.
    pub(crate) fn severity_repeated(&self, when_costly: Severity) -> Severity {
        if self.costly >= REPEATED_COSTS { self.severity(when_costly) } else { Severity::Info }
    }

    /// The cost in words, with how many episodes cost something when not all did.
    pub(crate) fn cost_words(&self) -> String {
        if self.harm.is_empty() && self.episodes == 0 {
            // Bursts too small for episodes of their own (a Galera gcache's 15 MiB on its own
            // device): "Cost: ." said nothing.
            return "not measured (no write episode in the finding's window)".into();
        }
        if self.costly > 0 && self.costly < self.episodes {
            format!("{} ({} of {} episodes cost something)", self.harm, self.costly, self.episodes)
        } else {
            self.harm.clone()
        }
    }

    /// True when the measured class is one of `classes`.
    pub(crate) fn is(&self, classes: &[IssuerClass]) -> bool {
        self.class.is_some_and(|(c, _)| classes.contains(&c))
    }

    /// The issuer in one sentence for a summary.
    pub(crate) fn issuer_sentence(&self) -> String {
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

/// A repeating pattern warns only when this many of its episodes cost something
/// ([`EpisodeVerdict::severity_repeated`]).
pub(crate) const REPEATED_COSTS: usize = 2;

/// The episodes of `device` overlapping rows `first..=last`, each re-issue of a stacked
/// device's writes replaced by that device's episodes ([`through_reissues`]).
pub(crate) fn overlapping<'a>(
    episodes: &'a [Episode],
    device: &str,
    first: usize,
    last: usize,
) -> Vec<&'a Episode> {
    let mine: Vec<&Episode> =
        episodes.iter().filter(|e| e.device == device && e.end >= first && e.start <= last).collect();
    through_reissues(episodes, &mine)
}

/// The episodes of `device` overlapping any of `bursts` (each once, re-issues through to
/// the device above): what a rule's own bursts did, other writers' episodes between them
/// left out.
pub(crate) fn of_bursts<'a>(
    episodes: &'a [Episode],
    device: &str,
    bursts: &[&crate::analysis::bursts::Burst],
) -> Vec<&'a Episode> {
    let mut out: Vec<&Episode> = Vec::new();
    for b in bursts {
        for e in overlapping(episodes, device, b.start, b.end) {
            push_once(&mut out, e);
        }
    }
    out
}

/// Appends `e` unless `out` holds that very episode already.
fn push_once<'a>(out: &mut Vec<&'a Episode>, e: &'a Episode) {
    if !out.iter().any(|x| std::ptr::eq(*x, e)) {
        out.push(e);
    }
}

/// The verdict of a repeating pattern: [`verdict`] of its bursts' episodes, but its class is
/// the one most of the bursts measured (each burst votes with its largest measured
/// episode; the class needs more than half of the votes cast and a quarter of the bursts),
/// not the one carrying most bytes: another writer's data expiring in one burst's seconds
/// is one vote, not the pattern. `members`: each burst's episodes.
pub(crate) fn verdict_of_pattern(members: &[Vec<&Episode>]) -> EpisodeVerdict {
    let mut all: Vec<&Episode> = Vec::new();
    for e in members.iter().flatten() {
        push_once(&mut all, e);
    }
    let mut v = verdict(&all);
    let mut votes: BTreeMap<IssuerClass, usize> = BTreeMap::new();
    for m in members {
        let largest =
            m.iter().filter(|e| e.issuer.class.is_some()).max_by(|a, b| a.bytes.total_cmp(&b.bytes));
        if let Some(c) = largest.and_then(|e| e.issuer.class) {
            *votes.entry(c).or_default() += 1;
        }
    }
    let cast: usize = votes.values().sum();
    let Some((c, n)) = votes.into_iter().max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0))) else { return v };
    if 2 * n <= cast || 4 * n < members.len() || v.class.is_some_and(|(x, _)| x == c) {
        return v;
    }
    let Some(e) = all.iter().filter(|e| e.issuer.class == Some(c)).max_by(|a, b| a.bytes.total_cmp(&b.bytes))
    else {
        return v;
    };
    let note =
        format!("{n} of the pattern's {} bursts measured {}, {cast} measured at all", members.len(), c.id());
    v.class = Some((c, n as f64 / members.len() as f64));
    v.actors.issuers = vec![e.issuer.issuer.clone().with_note(match &e.issuer.issuer.note {
        Some(old) => format!("{old}; {note}"),
        None => note,
    })];
    v
}

/// `picked` with each episode that re-issues a stacked device's writes (`reissue_of`)
/// replaced by the episodes of that device in its seconds (one second of slack), which
/// carry the issuer of the data: a loop, dm or md worker is never the story. A re-issue
/// whose device has no episode then stays. Each episode once, in `picked`'s order.
pub(crate) fn through_reissues<'a>(all: &'a [Episode], picked: &[&'a Episode]) -> Vec<&'a Episode> {
    let mut out: Vec<&Episode> = Vec::new();
    for e in picked {
        let above: Vec<&Episode> = match &e.reissue_of {
            Some(up) => all
                .iter()
                .filter(|u| {
                    &u.device == up && u.end_epoch + 1 >= e.start_epoch && u.start_epoch <= e.end_epoch + 1
                })
                .collect(),
            None => Vec::new(),
        };
        if above.is_empty() {
            push_once(&mut out, e);
        }
        for u in above {
            push_once(&mut out, u);
        }
    }
    out
}

/// The verdict of `episodes`.
pub(crate) fn verdict(episodes: &[&Episode]) -> EpisodeVerdict {
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

/// A thread's dirtying between two periodic bursts must come within this factor of what
/// the second burst wrote ([`writers_by_volume`]) ...
pub(crate) const VOLUME_FACTOR: f64 = 1.5;
/// ... for at least this share of the intervals.
pub(crate) const VOLUME_SHARE: f64 = 0.6;

/// The writers of periodic bursts by volume: the threads (pidstat's series, bytes/s) whose
/// writes from one burst's start to the next one's start come within [`VOLUME_FACTOR`] of
/// what the next burst wrote, in [`VOLUME_SHARE`] of the intervals (at least two). Buffered
/// data written on a period is what was dirtied over the period: the thread that dirtied it
/// matches burst after burst, a thread whose data went to another device does not. Best
/// match first; empty when no thread matches (several threads sharing the dirtying, or
/// no per-thread series).
pub(crate) fn writers_by_volume(
    bursts: &[crate::analysis::bursts::Burst],
    series: &[(u32, super::inputs::Series<'_>)],
    threads: &BTreeMap<u32, crate::source::ThreadTotal>,
) -> Vec<Actor> {
    let pairs: Vec<(usize, usize, f64)> =
        bursts.windows(2).map(|w| (w[0].start, w[1].start, w[1].total)).filter(|p| p.2 > 0.0).collect();
    if pairs.len() < 2 {
        return Vec::new();
    }
    let mut found: Vec<(f64, u32, &str, f64)> = series
        .iter()
        .filter_map(|(tid, s)| {
            let t = threads.get(tid)?;
            if crate::attribution::is_kernel_issuer(&t.comm) {
                return None;
            }
            let ratios: Vec<f64> = pairs
                .iter()
                .map(|&(a, b, burst)| {
                    let dirtied: f64 = s
                        .values
                        .get(a..b.min(s.values.len()))
                        .unwrap_or(&[])
                        .iter()
                        .filter_map(Cell::get)
                        .sum();
                    dirtied / burst
                })
                .collect();
            let close = ratios.iter().filter(|r| (1.0 / VOLUME_FACTOR..=VOLUME_FACTOR).contains(*r)).count();
            let share = close as f64 / ratios.len() as f64;
            let median = crate::analysis::stats::median(&ratios).unwrap_or(0.0);
            (close >= 2 && share >= VOLUME_SHARE).then_some((share, *tid, t.comm.as_str(), median))
        })
        .collect();
    found.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    found
        .into_iter()
        .take(3)
        .map(|(share, tid, comm, median)| {
            Actor::measured(Role::Writer, comm, Some(tid), Some(share), "pidstat -d").with_note(format!(
                "dirtied between bursts what the next burst wrote in {:.0} % of {} intervals (median {:.2} times)",
                100.0 * share,
                pairs.len(),
                median
            ))
        })
        .collect()
}

/// The actors of a finding whose rule named none: the episodes of its window on any
/// device, and for a rule about flushes the threads perf saw in fsync; a finding
/// without a window (a configuration) has none.
pub(crate) fn of_window(a: &super::Available<'_>, f: &crate::model::Finding) -> Actors {
    let epoch = |t: &str| chrono::DateTime::parse_from_rfc3339(t).ok().map(|d| d.timestamp());
    // Without a window: the whole capture's episodes of the main device.
    let (s, e, main) = match &f.window {
        Some(w) => match (epoch(&w.start), epoch(&w.end)) {
            (Some(s), Some(e)) => (s, e, None),
            _ => return Actors::default(),
        },
        None => (i64::MIN, i64::MAX, a.device().map(|d| d.name.as_str())),
    };
    let picked: Vec<&Episode> = a
        .episodes()
        .iter()
        .filter(|x| x.end_epoch >= s && x.start_epoch <= e && main.is_none_or(|m| x.device == m))
        .collect();
    let eps = through_reissues(a.episodes(), &picked);
    let mut actors = verdict(&eps).actors;
    if f.rule == super::fsync::ID {
        actors.issuers = fsync_threads(a);
        actors.writers = charged_threads(a);
    }
    actors
}

/// The threads perf saw in fsync, most samples first, as application-flush issuers.
pub(crate) fn fsync_threads(a: &super::Available<'_>) -> Vec<Actor> {
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
pub(crate) fn charged_threads(a: &super::Available<'_>) -> Vec<Actor> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testkit::{burst, series, thread, vals};

    const MB: f64 = 1e6;

    /// Bursts of `mb` MB at seconds 10, 20, 30, 40 and 50; one thread dirties 0.1 MB/s (what
    /// each burst writes), another 10 MB/s (its data goes elsewhere), a third none.
    fn bursts(mb: f64) -> Vec<crate::analysis::bursts::Burst> {
        [10, 20, 30, 40, 50].iter().map(|&at| burst(at, mb * MB, mb * MB)).collect()
    }

    #[test]
    fn a_repeating_pattern_warns_when_it_costs_twice_and_a_third_of_its_episodes() {
        let v = |costly, episodes| EpisodeVerdict {
            costly,
            episodes,
            harm: "await".into(),
            ..Default::default()
        };
        // One costly flush of two: a single-episode finding would warn, a pattern does not.
        assert_eq!(v(1, 2).severity(Severity::Warning), Severity::Warning);
        assert_eq!(v(1, 2).severity_repeated(Severity::Warning), Severity::Info);
        assert_eq!(v(2, 3).severity_repeated(Severity::Warning), Severity::Warning);
        // Twice, but not a third of them.
        assert_eq!(v(2, 7).severity_repeated(Severity::Warning), Severity::Info);
        assert_eq!(v(1, 2).cost_words(), "await (1 of 2 episodes cost something)");
        assert_eq!(v(2, 2).cost_words(), "await");
    }

    #[test]
    fn a_patterns_class_is_what_most_of_its_bursts_measured_not_the_largest_bytes() {
        use crate::rules::testkit::episode;
        let ep = |start: usize, mb: f64, class: IssuerClass| {
            episode(&burst(start, mb * MB, mb * MB), class, "w", false)
        };
        // Three 40 MB flushes of the application, one of them alongside 150 MB of other data
        // expiring (an episode measured as writeback by age): by bytes writeback_age wins,
        // by bursts the application's flush.
        let (a, b, c) = (
            ep(10, 40.0, IssuerClass::ApplicationFlush),
            ep(20, 40.0, IssuerClass::ApplicationFlush),
            ep(30, 190.0, IssuerClass::WritebackAge),
        );
        let d = ep(40, 40.0, IssuerClass::ApplicationFlush);
        assert_eq!(verdict(&[&a, &b, &c, &d]).class.map(|x| x.0), Some(IssuerClass::WritebackAge));
        let v = verdict_of_pattern(&[vec![&a], vec![&b], vec![&c], vec![&d]]);
        assert_eq!(v.class, Some((IssuerClass::ApplicationFlush, 0.75)));
        assert!(
            v.actors.issuers[0].note.as_deref().unwrap().contains("3 of the pattern's 4 bursts"),
            "{v:?}"
        );
        // Two votes against two: no majority, the bytes' verdict stands.
        let e = ep(50, 190.0, IssuerClass::WritebackAge);
        let v = verdict_of_pattern(&[vec![&a], vec![&b], vec![&c], vec![&e]]);
        assert_eq!(v.class.map(|x| x.0), Some(IssuerClass::WritebackAge));
    }

    #[test]
    fn a_reissue_of_a_stacked_devices_writes_is_told_by_that_devices_episodes() {
        use crate::rules::testkit::episode;
        let at = |start: usize, device: &str, class: IssuerClass, reissue: Option<&str>| {
            let mut e = episode(&burst(start, MB, MB), class, "w", false);
            (e.device, e.start_epoch, e.end_epoch) =
                (device.into(), 1000 + start as i64, 1000 + start as i64);
            e.reissue_of = reissue.map(str::to_string);
            e
        };
        let all = vec![
            at(10, "loop0", IssuerClass::ApplicationFlush, None),
            at(11, "vda", IssuerClass::StackedReissue, Some("loop0")),
            // A re-issue whose stacked device has no episode then: it stays.
            at(40, "vda", IssuerClass::StackedReissue, Some("loop0")),
            at(60, "vda", IssuerClass::WritebackAge, None),
        ];
        let classes =
            |v: Vec<&Episode>| v.iter().map(|e| (e.device.clone(), e.issuer.class)).collect::<Vec<_>>();
        assert_eq!(
            classes(overlapping(&all, "vda", 0, 100)),
            [
                ("loop0".to_string(), Some(IssuerClass::ApplicationFlush)),
                ("vda".to_string(), Some(IssuerClass::StackedReissue)),
                ("vda".to_string(), Some(IssuerClass::WritebackAge)),
            ]
        );
        // Each episode once, though picked on both devices.
        let picked: Vec<&Episode> = all.iter().take(2).collect();
        assert_eq!(through_reissues(&all, &picked).len(), 1);
        assert_eq!(
            verdict(&overlapping(&all, "vda", 0, 20)).class,
            Some((IssuerClass::ApplicationFlush, 1.0))
        );
    }

    #[test]
    fn the_writer_of_periodic_bursts_is_the_thread_that_dirtied_each_ones_bytes_between_them() {
        let (steady, heavy) = (vals(&[0.1 * MB; 60]), vals(&[10.0 * MB; 60]));
        let s = vec![(7, series("thr.7.w_bytes_s", &steady)), (9, series("thr.9.w_bytes_s", &heavy))];
        let threads = BTreeMap::from([
            (7, thread("small_append", "other", 6.0 * MB)),
            (9, thread("rustc", "other", 600.0 * MB)),
        ]);
        let w = writers_by_volume(&bursts(1.0), &s, &threads);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].comm.as_deref(), Some("small_append"));
        assert_eq!(w[0].share, Some(1.0));
        assert!(w[0].note.as_deref().unwrap().contains("100 % of 4 intervals"), "{w:?}");
        // Bursts twice what it dirtied between them (2 MB against 1 MB: beyond the factor of 1.5).
        assert!(writers_by_volume(&bursts(2.0), &s, &threads).is_empty());
        // At 1.4 MB, within the factor: it matches.
        assert_eq!(writers_by_volume(&bursts(1.4), &s, &threads).len(), 1);
        // Two bursts make one interval: no verdict.
        assert!(writers_by_volume(&bursts(1.0)[..2], &s, &threads).is_empty());
        // The flusher's own series never names a writer.
        let k = BTreeMap::from([(7, thread("kworker/u8:0", "writeback", 6.0 * MB))]);
        assert!(writers_by_volume(&bursts(1.0), &s[..1], &k).is_empty());
    }
}
