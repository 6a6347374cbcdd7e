//! Stamps that break their file's series (issue 33). A collector prints one stamp per
//! report, each an interval after the one before; one garbled stamp (a digit replaced,
//! `19:25:40` printed as `09:25:40`, a line cut) would otherwise move its report hours
//! away, stretch the capture to a day and squeeze every chart, and a time of day that
//! jumps back would roll the rest of the file to the next day.
//!
//! A stamp breaks the series when the stamps on both sides of it agree with each other
//! and with the interval (the later is at most the steps between them times the interval
//! after the earlier) while it lies outside them. Up to three such stamps in a row are
//! caught. It is then placed between its neighbours (linearly, by its position) and a
//! diagnostic names its line. A step that the stamps after it continue is the series
//! itself, not a break: a daylight saving time change, a stall of the collector, a clock
//! set. The first and the last stamp have a neighbour on one side only: they break the
//! series when they are out of order (beyond the tolerance) or more than ten intervals
//! (at least 10 min) away, unless by about an hour (a daylight saving time change).
//!
//! A sample without a readable stamp in a stamped series (its stamp line was cut or
//! garbled beyond reading) is placed the same way, not at the file's start.

use super::time::Stamp;
use super::{DiagKind, Diags};

/// Most stamps in a row that can break the series together and still be found.
const RUN: usize = 3;

/// A daylight saving time change, in seconds: a step of about this much at either end
/// of a series is not taken for a break.
const DST_S: f64 = 3600.0;

/// A sample placed by its series.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    /// Index of the sample in the slice given to [`place`].
    pub at: usize,
    /// The stamp its neighbours and the interval give it (of the kind of its neighbours).
    pub stamp: Stamp,
    /// The diagnostic's text: what was read, its neighbours, where it was placed.
    pub why: String,
}

/// The samples of one series (one run of one file, in file order; `None` for a sample
/// whose stamp could not be read) that their series places: each stamp that breaks the
/// series, and each sample without a stamp that a stamped sample anchors.
pub fn place(stamps: &[Option<Stamp>]) -> Vec<Placed> {
    let known = axis(stamps);
    if known.is_empty() || (known.len() < 3 && known.len() == stamps.len()) {
        return Vec::new();
    }
    let iv = interval(&known);
    let bad = breaks(&known, iv);
    let good: Vec<(usize, f64)> = known.iter().zip(&bad).filter(|(_, b)| !**b).map(|(k, _)| *k).collect();
    let tol = iv.max(2.0);
    let mut out = Vec::new();
    let mut bad_at = known.iter().zip(&bad).filter(|(_, b)| **b).map(|(k, _)| k.0).peekable();
    // Index into `good` of the first good stamp after the current sample.
    let mut next = 0;
    for (i, s) in stamps.iter().enumerate() {
        let broken = bad_at.next_if_eq(&i).is_some();
        if s.is_some() && !broken {
            continue;
        }
        while next < good.len() && good[next].0 < i {
            next += 1;
        }
        let (l, r) = (next.checked_sub(1).map(|j| good[j]), good.get(next).copied());
        let steps = |a: usize, b: usize| (b - a) as f64;
        let (secs, from) = match (l, r) {
            (Some(l), Some(r)) if r.1 - l.1 >= 0.0 && r.1 - l.1 <= steps(l.0, r.0) * iv + tol => {
                // On the interval's grid from the one before (a pidstat row between two
                // reports one interval apart goes with the later report, not half-way).
                let lin = (r.1 - l.1) * steps(l.0, i) / steps(l.0, r.0);
                (l.1 + ((lin / iv).round() * iv).min(r.1 - l.1), l)
            }
            (Some(l), _) => (l.1 + steps(l.0, i) * iv, l),
            (None, Some(r)) => (r.1 - steps(i, r.0) * iv, r),
            (None, None) => continue,
        };
        let Some(stamp) = stamps[from.0].and_then(|n| n.shifted(secs - from.1)) else { continue };
        let around =
            |x: Option<(usize, f64)>| x.and_then(|x| stamps[x.0]).map_or("none".into(), |s| s.display());
        let context = format!("{} before, {} after, every {} s", around(l), around(r), fmt_secs(iv));
        let why = match s {
            Some(read) => {
                format!(
                    "time stamp {} breaks its series ({context}): read as {}",
                    read.display(),
                    stamp.display()
                )
            }
            None => {
                format!("no readable time stamp: placed at {} by its series ({context})", stamp.display())
            }
        };
        out.push(Placed { at: i, stamp, why });
    }
    out
}

/// Places the samples of `items` (file order) that their series places ([`place`]),
/// each run (`run`: a banner, an appended collector run) on its own: `stamp` gives a
/// sample's stamp to read and set, `line` the line a diagnostic names.
pub fn repair_runs<T>(
    items: &mut [T],
    run: impl Fn(&T) -> usize,
    stamp: impl Fn(&mut T) -> &mut Option<Stamp>,
    line: impl Fn(&T) -> usize,
    d: &mut Diags,
) {
    let mut start = 0;
    while start < items.len() {
        let key = run(&items[start]);
        let end = start + items[start..].iter().take_while(|x| run(x) == key).count();
        let stamps: Vec<Option<Stamp>> = items[start..end].iter_mut().map(|x| *stamp(x)).collect();
        for p in place(&stamps) {
            let x = &mut items[start + p.at];
            d.note(line(x), DiagKind::BadTime, &p.why);
            *stamp(x) = Some(p.stamp);
        }
        start = end;
    }
    d.list.sort_by_key(|x| x.line);
}

/// [`repair_runs`] over the samples of a file noted as it was read without keeping them
/// (a drained parse): their `stamps` and, same order, their (run, line) in `at`. Each
/// placed stamp is set in `stamps`, its diagnostic noted in `d`; gives the (index, stamp)
/// of those placed, in file order.
pub fn repair_log(stamps: &mut [Option<Stamp>], at: &[(u32, u32)], d: &mut Diags) -> Vec<(usize, Stamp)> {
    let mut placed = Vec::new();
    let mut start = 0;
    while start < stamps.len().min(at.len()) {
        let run = at[start].0;
        let end = start + at[start..].iter().take_while(|a| a.0 == run).count();
        for p in place(&stamps[start..end]) {
            let i = start + p.at;
            d.note(at[i].1 as usize, DiagKind::BadTime, &p.why);
            stamps[i] = Some(p.stamp);
            placed.push((i, p.stamp));
        }
        start = end;
    }
    d.list.sort_by_key(|x| x.line);
    placed
}

/// The stamp a [`repair_log`] gave sample `k` (its list of placed stamps, in order), if any.
pub fn placed_at(placed: &[(usize, Stamp)], k: usize) -> Option<Stamp> {
    placed.binary_search_by_key(&k, |x| x.0).ok().map(|i| placed[i].1)
}

/// `1`, `0.5`.
fn fmt_secs(s: f64) -> String {
    let r = (s * 1000.0).round() / 1000.0;
    format!("{r}")
}

/// (index, seconds) of the stamps on one axis; times of day unwrapped across midnight
/// (a step is taken as the shorter way round the clock).
fn axis(stamps: &[Option<Stamp>]) -> Vec<(usize, f64)> {
    let mut out: Vec<(usize, f64)> = Vec::new();
    let mut prev: Option<(f64, f64)> = None;
    for (i, s) in stamps.iter().enumerate() {
        let Some(s) = s else { continue };
        let raw = s.series_secs();
        if !raw.is_finite() {
            continue;
        }
        let v = match (s, prev) {
            (Stamp::TimeOfDay(_), Some((p_raw, p_val))) => {
                let mut d = (raw - p_raw) % 86_400.0;
                if d > 43_200.0 {
                    d -= 86_400.0;
                } else if d <= -43_200.0 {
                    d += 86_400.0;
                }
                p_val + d
            }
            _ => raw,
        };
        prev = Some((raw, v));
        out.push((i, v));
    }
    out
}

/// The median step per sample between consecutive stamps (1 s when none moves forward).
fn interval(known: &[(usize, f64)]) -> f64 {
    let mut d: Vec<f64> = known
        .windows(2)
        .map(|w| (w[1].1 - w[0].1) / (w[1].0 - w[0].0) as f64)
        .filter(|d| *d > 0.0 && d.is_finite())
        .collect();
    if d.is_empty() {
        return 1.0;
    }
    d.sort_by(f64::total_cmp);
    d[(d.len() - 1) / 2]
}

/// Which of `known` break the series (see the module documentation).
fn breaks(known: &[(usize, f64)], iv: f64) -> Vec<bool> {
    let n = known.len();
    let mut bad = vec![false; n];
    if n < 3 {
        return bad;
    }
    let tol = iv.max(2.0);
    let steps = |a: usize, b: usize| (known[b].0 - known[a].0) as f64;
    let agree = |a: usize, b: usize| {
        let d = known[b].1 - known[a].1;
        d >= -tol && d <= steps(a, b) * iv + tol
    };
    // Stamp `e` at an end against its neighbour `x` (which agrees with `y` beyond it).
    let edge_bad = |e: usize, x: usize, y: usize| {
        if !agree(x.min(y), x.max(y)) {
            return false;
        }
        let (a, b) = if e < x { (e, x) } else { (x, e) };
        let lag = known[b].1 - known[a].1 - steps(a, b) * iv;
        let dst = (lag.abs() - DST_S).abs() <= tol + iv;
        let far = (10.0 * iv).max(600.0);
        !dst && (lag < -(tol + steps(a, b) * iv) || lag > far)
    };
    let mut left = 0;
    // The first stamp is judged by the ones after it only when those form a series
    // (two garbled stamps after a good first one agree with each other, not with the rest).
    let solid = (1..(RUN + 1).min(n - 1)).all(|j| agree(j, j + 1));
    if solid && edge_bad(0, 1, 2) {
        bad[0] = true;
        left = 1;
    }
    let mut before_left: Option<usize> = None;
    let mut k = left + 1;
    while k < n {
        let outside = |j: usize, r: usize| known[j].1 < known[left].1 - tol || known[j].1 > known[r].1 + tol;
        let run = (k + 1..=(k + RUN).min(n - 1)).find(|&r| agree(left, r) && (k..r).all(|j| outside(j, r)));
        if let Some(r) = run {
            bad[k..r].fill(true);
            k = r;
            continue;
        }
        if k == n - 1 && before_left.is_some_and(|b| edge_bad(k, left, b)) {
            bad[k] = true;
            break;
        }
        before_left = Some(left);
        left = k;
        k += 1;
    }
    bad
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{NaiveDate, NaiveTime};

    fn tod(s: &str) -> Option<Stamp> {
        Some(Stamp::TimeOfDay(NaiveTime::parse_from_str(s, "%H:%M:%S").unwrap()))
    }

    fn local(s: &str) -> Option<Stamp> {
        let d = NaiveDate::from_ymd_opt(2026, 10, 25).unwrap();
        tod(s).map(|t| match t {
            Stamp::TimeOfDay(t) => Stamp::Local(d.and_time(t)),
            _ => unreachable!(),
        })
    }

    fn placed(v: &[Option<Stamp>]) -> Vec<(usize, String)> {
        place(v).into_iter().map(|p| (p.at, p.stamp.display())).collect()
    }

    #[test]
    fn a_garbled_stamp_is_placed_between_its_neighbours() {
        let v =
            [local("19:25:38"), local("19:25:39"), local("09:25:40"), local("19:25:41"), local("19:25:42")];
        assert_eq!(placed(&v), [(2, "2026-10-25T19:25:40".to_string())]);
        let why = &place(&v)[0].why;
        assert!(why.contains("09:25:40") && why.contains("19:25:39 before"), "{why}");
        // A small garble (the seconds' digit) and two in a row.
        let v = [tod("19:25:38"), tod("19:25:39"), tod("19:25:49"), tod("19:25:41")];
        assert_eq!(placed(&v), [(2, "19:25:40".to_string())]);
        let v = [tod("19:25:38"), tod("01:25:39"), tod("01:25:40"), tod("19:25:41"), tod("19:25:42")];
        assert_eq!(placed(&v), [(1, "19:25:39".to_string()), (2, "19:25:40".to_string())]);
        // At either end.
        let v = [tod("09:25:38"), tod("19:25:39"), tod("19:25:40"), tod("19:25:41")];
        assert_eq!(placed(&v), [(0, "19:25:38".to_string())]);
        let v = [tod("19:25:38"), tod("19:25:39"), tod("19:25:40"), tod("23:59:59")];
        assert_eq!(placed(&v), [(3, "19:25:41".to_string())]);
    }

    #[test]
    fn a_step_the_series_continues_is_kept() {
        // Midnight, a stall of 5 min, a daylight saving time change (local times go back
        // an hour), the same at the ends, and jitter.
        for v in [
            vec![tod("23:59:58"), tod("23:59:59"), tod("00:00:00"), tod("00:00:01")],
            vec![tod("19:25:38"), tod("19:25:39"), tod("19:30:39"), tod("19:30:40")],
            vec![local("02:59:58"), local("02:59:59"), local("02:00:00"), local("02:00:01")],
            vec![local("02:59:59"), local("02:00:00"), local("02:00:01"), local("02:00:02")],
            vec![local("02:59:57"), local("02:59:58"), local("02:59:59"), local("02:00:00")],
            vec![tod("19:25:38"), tod("19:25:40"), tod("19:25:40"), tod("19:25:41"), tod("19:25:43")],
        ] {
            assert_eq!(placed(&v), [], "{v:?}");
        }
    }

    #[test]
    fn a_sample_without_a_stamp_is_placed_by_the_series() {
        let v = [tod("19:25:38"), tod("19:25:39"), None, tod("19:25:41")];
        let p = place(&v);
        assert_eq!(p.len(), 1);
        assert_eq!((p[0].at, p[0].stamp.display()), (2, "19:25:40".to_string()));
        assert!(p[0].why.starts_with("no readable time stamp"), "{}", p[0].why);
        assert_eq!(placed(&[None, tod("19:25:39"), tod("19:25:40")]), [(0, "19:25:38".to_string())]);
        assert_eq!(placed(&[None, None]), []);
    }
}
