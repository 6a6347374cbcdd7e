//! The stamps of a file's samples noted as it is read without keeping its rows (a
//! drained parse: `pidstat`, `vmstat`), to repair those that break their run's series
//! at its end as the whole-file parse does ([`super::series::repair_runs`]). A stretch of
//! samples whose stamps step by one same amount is one entry, so a regular series of
//! millions of samples (a 200 MB `vmstat -t 1`: 1.75 million rows) holds a few entries and
//! each sample's line (4 bytes), where the stamps themselves took 24 bytes each:
//!
//! ```text
//!  3  0      0 19443496  13144 3326196    0    0   456     0  619  294 95  5  0  0  0 2026-11-29 19:37:20  <- a stretch: 19:37:20,
//!  3  0      0 19443496  13144 3326196    0    0 11116     4  614  376 99  2  0  0  0 2026-11-29 19:37:21  <- then 1 s steps
//! ```
//!
//! A run whose stamps all step by one same amount has nothing to repair (no stamp lies
//! outside its neighbours); any other run is spelled out and given to
//! [`super::series::place`].

use super::series::place;
use super::time::Stamp;
use super::{DiagKind, Diags};

/// Samples whose stamps step by one same amount, in one run.
#[derive(Debug, Clone)]
struct Stretch {
    /// The run (banner, appended collector run) of its samples.
    run: usize,
    /// Samples in the stretch.
    count: usize,
    /// Seconds from one stamp to the next ([`Stamp::shifted`] of the one before gives it
    /// exactly); 0 for a stretch of one sample or of samples without stamps.
    step: f64,
    /// The first sample's stamp (`None`: unreadable, as are all of the stretch's).
    first: Option<Stamp>,
    /// The last sample's stamp.
    last: Option<Stamp>,
}

/// The stamps of a file's samples, in file order (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct StampLog {
    stretches: Vec<Stretch>,
    /// Each sample's line (a line past `u32::MAX` is noted as that), for the diagnostics.
    lines: Vec<u32>,
}

/// What [`StampLog::repair`] found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Repaired {
    /// The stamps placed by their series: (index of the sample in file order, stamp), in order.
    pub placed: Vec<(usize, Stamp)>,
    /// The first stamp of the file, repaired.
    pub first: Option<Stamp>,
    /// The last stamp of the file, repaired.
    pub last: Option<Stamp>,
}

impl StampLog {
    /// Notes the next sample: its run, its (first) line, its stamp as read.
    pub fn push(&mut self, run: usize, line: usize, stamp: Option<Stamp>) {
        self.lines.push(u32::try_from(line).unwrap_or(u32::MAX));
        if let Some(s) = self.stretches.last_mut()
            && s.run == run
        {
            match (s.last, stamp) {
                (None, None) if s.first.is_none() => {
                    s.count += 1;
                    return;
                }
                (Some(a), Some(b)) => {
                    let step = if s.count == 1 { b.series_secs() - a.series_secs() } else { s.step };
                    if a.shifted(step) == Some(b) {
                        (s.step, s.last, s.count) = (step, stamp, s.count + 1);
                        return;
                    }
                }
                _ => {}
            }
        }
        self.stretches.push(Stretch { run, count: 1, step: 0.0, first: stamp, last: stamp });
    }

    /// Samples noted.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// True when no sample was noted.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Places the stamps that break their run's series, as [`super::series::repair_runs`]
    /// does over the samples themselves (their diagnostics into `d`, sorted by line).
    pub fn repair(self, d: &mut Diags) -> Repaired {
        let mut out = Repaired::default();
        let (mut at, mut k) = (0, 0);
        while at < self.stretches.len() {
            let run = self.stretches[at].run;
            let end = at + self.stretches[at..].iter().take_while(|s| s.run == run).count();
            let part = &self.stretches[at..end];
            let n: usize = part.iter().map(|s| s.count).sum();
            if !regular(part) {
                let stamps: Vec<Option<Stamp>> = part.iter().flat_map(spelled).collect();
                for p in place(&stamps) {
                    let line = self.lines.get(k + p.at).copied().unwrap_or(u32::MAX);
                    d.note(line as usize, DiagKind::BadTime, &p.why);
                    out.placed.push((k + p.at, p.stamp));
                }
            }
            (at, k) = (end, k + n);
        }
        d.list.sort_by_key(|x| x.line);
        out.first = self.end_stamp(&out.placed, false);
        out.last = self.end_stamp(&out.placed, true);
        out
    }

    /// The first (or, `last`, the last) stamp of the file once `placed` are set.
    fn end_stamp(&self, placed: &[(usize, Stamp)], last: bool) -> Option<Stamp> {
        // The read stamp nearest that end, and its index.
        let mut k = 0;
        let mut read: Option<(usize, Stamp)> = None;
        for s in &self.stretches {
            if let (Some(f), Some(l)) = (s.first, s.last) {
                if !last && read.is_none() {
                    read = Some((k, f));
                }
                if last {
                    read = Some((k + s.count - 1, l));
                }
            }
            k += s.count;
        }
        let beyond = |i: usize| read.is_none_or(|(r, _)| if last { i >= r } else { i <= r });
        let placed = if last { placed.last() } else { placed.first() };
        match placed {
            Some(&(i, s)) if beyond(i) => Some(s),
            _ => read.map(|(_, s)| s),
        }
    }
}

/// True when the stamps of a run's stretches all step by one same amount (of at most half
/// a day: a time of day is unwrapped the shorter way round), which nothing breaks.
fn regular(part: &[Stretch]) -> bool {
    let Some(step) = part.iter().find(|s| s.count > 1).map(|s| s.step) else {
        return part.len() == 1 && part[0].first.is_some();
    };
    step > 0.0
        && step <= 43_200.0
        && part.iter().all(|s| s.first.is_some() && (s.count == 1 || s.step == step))
        && part.windows(2).all(|w| w[0].last.and_then(|l| l.shifted(step)) == w[1].first)
}

/// The stamps of a stretch's samples, one by one.
fn spelled(s: &Stretch) -> impl Iterator<Item = Option<Stamp>> + '_ {
    std::iter::successors(Some(s.first), move |x| Some(x.and_then(|x| x.shifted(s.step)))).take(s.count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveTime;

    fn tod(s: &str) -> Option<Stamp> {
        Some(Stamp::TimeOfDay(NaiveTime::parse_from_str(s, "%H:%M:%S").unwrap()))
    }

    /// The log of `stamps` (one run, line = index + 1) repairs as `repair_runs` does.
    fn same(stamps: &[Option<Stamp>]) -> Repaired {
        let mut log = StampLog::default();
        let mut items: Vec<(usize, Option<Stamp>)> = Vec::new();
        for (i, s) in stamps.iter().enumerate() {
            log.push(0, i + 1, *s);
            items.push((i + 1, *s));
        }
        let (mut a, mut b) = (Diags::default(), Diags::default());
        let got = log.repair(&mut a);
        super::super::series::repair_runs(&mut items, |_| 0, |x| &mut x.1, |x| x.0, &mut b);
        assert_eq!(a.list, b.list);
        let want: Vec<(usize, Stamp)> = items
            .iter()
            .zip(stamps)
            .enumerate()
            .filter(|(_, ((_, s), read))| s != *read)
            .map(|(i, ((_, s), _))| (i, s.unwrap()))
            .collect();
        assert_eq!(got.placed, want);
        assert_eq!(got.first, items.iter().find_map(|x| x.1));
        assert_eq!(got.last, items.iter().rev().find_map(|x| x.1));
        got
    }

    #[test]
    fn a_regular_series_is_one_stretch_and_a_broken_one_is_repaired_as_the_whole_parse_does() {
        let mut log = StampLog::default();
        let regular = ["23:59:58", "23:59:59", "00:00:00", "00:00:01", "00:00:02"].map(tod);
        regular.iter().for_each(|s| log.push(0, 1, *s));
        assert_eq!(log.stretches.len(), 1);
        assert!(same(&regular).placed.is_empty());
        let broken = ["19:25:38", "19:25:39", "09:25:40", "19:25:41", "19:25:42"].map(tod);
        assert_eq!(same(&broken).placed.len(), 1);
        assert_eq!(same(&[None, tod("19:25:39"), tod("19:25:40"), tod("19:25:41"), None]).placed.len(), 2);
        let ends = ["09:25:38", "19:25:39", "19:25:40", "19:25:41", "23:59:59"].map(tod);
        assert!(!same(&ends).placed.is_empty());
        same(&[None, None]);
        same(&[tod("19:25:38"), tod("19:25:40"), tod("19:25:41"), tod("19:25:43")]);
    }
}
