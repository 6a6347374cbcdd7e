//! A memory budget for the rows of a very long `pidstat` file, as
//! [`crate::iostat::budget`] is for iostat: when the parsed rows would pass the
//! budget, consecutive reports of a run are merged two to one (and again, four to
//! one, ...), so days of `pidstat -d -t 1` keep a bounded number of rows at a
//! coarser interval instead of exhausting memory ([`crate::pidstat::Pidstat::merged`]
//! says by how much; the caller says so in the analysis).
//!
//! A report is the run of rows with one sample time (`19:37:20 ... |__gcache-w0`).
//! pidstat prints only the tasks that did something in an interval, so a task
//! missing from one of the merged reports did nothing in it: a merged rate is the
//! sum of `rate x reports` over the reports it was printed in, divided by all the
//! reports merged (`kB_wr/s` 10 then absent then 20 merge to 10). `iodelay` (clock
//! ticks in the interval) and the `-r`/`-u`/... columns of `other` are averaged the
//! same way. A merged report keeps the sample time and lines of its last report and
//! the interval start (`prev_stamp`) of its first: stamps mark the end of an
//! interval. Since-boot reports are never merged, nor reports of different runs.

use super::types::Row;
use std::collections::HashMap;

/// A halving that keeps more than this fraction of the rows ends the merging.
const MIN_SHRINK: (usize, usize) = (7, 8);

/// Approximate heap bytes of one row (what the budget counts).
pub fn row_bytes(r: &Row) -> usize {
    std::mem::size_of::<Row>()
        // Counted as if not shared (the budget stays what it was with a copy per row).
        + r.command.len()
        + r.leader.as_ref().map_or(0, |l| l.len())
        + r.user.as_ref().map_or(0, String::capacity)
        + r.policy.as_ref().map_or(0, String::capacity)
        + r.other.capacity() * std::mem::size_of::<(String, f64)>()
}

/// One report: its rows are `rows[start..end]` and it stands for `count` printed reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    /// First row.
    pub start: usize,
    /// One past the last row.
    pub end: usize,
    /// Printed reports it stands for.
    pub count: u32,
}

/// True when two rows belong to one report.
fn same_report(a: &Row, b: &Row) -> bool {
    a.run == b.run && a.stamp == b.stamp && a.since_boot == b.since_boot
}

/// True when reports starting with rows `a` and `b` may be merged.
fn mergeable(a: &Row, b: &Row) -> bool {
    a.run == b.run && !a.since_boot && !b.since_boot
}

/// The per-interval values a merge averages (`kB_rd/s`, `kB_wr/s`, `kB_ccwr/s`, `iodelay`,
/// NaN where not printed; the `other` columns are handled beside them).
fn amounts(r: &mut Row) -> &mut [f64; 4] {
    &mut r.io.0
}

/// Row indexes by task ids (TGID, TID).
type ByIds = HashMap<(Option<u32>, Option<u32>), Vec<usize>>;

/// Reports of at most this many rows are searched row by row for a task; larger ones
/// through a map of task ids (built once per merge).
const SCAN_ROWS: usize = 64;

/// Merges report `rows[b..]` (standing for `wb` printed reports) into report `rows[a..b]`
/// (standing for `wa`) where they lie: [`merge`] without moving either report out.
fn merge_tail(rows: &mut Vec<Row>, a: usize, b: usize, wa: u32, wb: u32, at: &mut Option<ByIds>) {
    let n = rows.len();
    let end = merge_range(rows, a, b, n, wa, wb, at);
    rows.truncate(end);
}

/// Merges report `rows[b..end]` into report `rows[a..b]` in place; returns the end of the
/// merged report, `rows[a..returned]`. The tasks of `b` that `a` lacks follow `a`'s rows, in
/// their order; the others are added into `a`'s rows, and what is left of them lies in
/// `rows[returned..end]` (to be dropped).
///
/// `at` is the map of `a`'s task ids when one was built (for a report of more than
/// [`SCAN_ROWS`] rows), kept up to date with the rows added to `a`: a caller merging report
/// after report into one keeps it between calls instead of rebuilding it per report (days of
/// `pidstat -d -t` merged 128 to 1 spent a third of the parse hashing the same tasks again).
fn merge_range(
    rows: &mut [Row],
    a: usize,
    b: usize,
    end: usize,
    wa: u32,
    wb: u32,
    at: &mut Option<ByIds>,
) -> usize {
    let (wa, wb) = (f64::from(wa), f64::from(wb));
    let total = wa + wb;
    let prev = rows.get(a).and_then(|r| r.prev_stamp);
    let (last_stamp, last_table) = rows.get(b).map_or((None, 0), |r| (r.stamp, r.table));
    let scale = |r: &mut Row, w: f64| {
        for v in amounts(r) {
            *v *= w;
        }
        for o in &mut r.other {
            o.1 *= w;
        }
    };
    for r in &mut rows[a..b] {
        scale(r, wa);
    }
    let same = |x: &Row, y: &Row| x.tgid == y.tgid && x.tid == y.tid && x.command == y.command;
    // Rows of `b` kept (tasks `a` lacks) are moved down to `write`.
    let mut write = b;
    for k in 0..end - b {
        let (head, tail) = rows.split_at_mut(b + k);
        let r = &mut tail[0];
        let a_rows = &mut head[a..b];
        let found = if a_rows.get(k).is_some_and(|x| same(x, r)) {
            Some(k)
        } else if a_rows.len() <= SCAN_ROWS {
            a_rows.iter().position(|x| same(x, r))
        } else {
            let map = at.get_or_insert_with(|| {
                let mut m = ByIds::with_capacity(a_rows.len());
                for (i, x) in a_rows.iter().enumerate() {
                    m.entry((x.tgid, x.tid)).or_default().push(i);
                }
                m
            });
            // Rows this merge added past `b` are in the map too, not yet in `a_rows`.
            map.get(&(r.tgid, r.tid))
                .and_then(|ix| ix.iter().copied().find(|&i| a_rows.get(i).is_some_and(|x| same(x, r))))
        };
        match found {
            Some(i) => {
                let m = &mut a_rows[i];
                for (acc, &v) in amounts(m).iter_mut().zip(amounts(r).iter()) {
                    if !v.is_nan() {
                        *acc = if acc.is_nan() { v * wb } else { *acc + v * wb };
                    }
                }
                for (name, v) in std::mem::take(&mut r.other) {
                    match m.other.iter_mut().find(|o| o.0 == name) {
                        Some(o) => o.1 += v * wb,
                        None => m.other.push((name, v * wb)),
                    }
                }
                // The last report's line.
                m.line = r.line;
            }
            None => {
                scale(r, wb);
                let ids = (r.tgid, r.tid);
                rows.swap(write, b + k);
                if let Some(map) = at.as_mut() {
                    map.entry(ids).or_default().push(write - a);
                }
                write += 1;
            }
        }
    }
    for m in &mut rows[a..write] {
        for v in amounts(m) {
            *v /= total;
        }
        for o in &mut m.other {
            o.1 /= total;
        }
        // Every task of the merged report ends with its last report.
        m.stamp = last_stamp;
        m.table = last_table;
        m.prev_stamp = prev;
    }
    write
}

/// Merges the last two reports of `rows` when together they stand for no more than
/// `factor` printed reports; returns true when merged.
pub fn merge_last(rows: &mut Vec<Row>, spans: &mut Vec<Span>, factor: u32) -> bool {
    merge_last_with(rows, spans, factor, &mut None)
}

/// The task-id map of the report being merged into, and the rows it covers (`start`, `end`).
type Cached = Option<(usize, usize, ByIds)>;

/// [`merge_last`] reusing `cache`, the map of the last-but-one report when it still covers
/// exactly that report's rows (and leaving in it the map of the merged report).
fn merge_last_with(rows: &mut Vec<Row>, spans: &mut Vec<Span>, factor: u32, cache: &mut Cached) -> bool {
    let n = spans.len();
    if n < 2 {
        return false;
    }
    let (a, b) = (spans[n - 2], spans[n - 1]);
    if a.count + b.count > factor || !mergeable(&rows[a.start], &rows[b.start]) {
        return false;
    }
    let mut at = match cache.take() {
        Some((start, end, map)) if start == a.start && end == a.end => Some(map),
        _ => None,
    };
    merge_tail(rows, a.start, b.start, a.count, b.count, &mut at);
    if let Some(map) = at {
        *cache = Some((a.start, rows.len(), map));
    }
    spans.truncate(n - 2);
    spans.push(Span { start: a.start, end: rows.len(), count: a.count + b.count });
    true
}

/// Moves `rows[from..from + len]` down to `rows[to..]` (`to <= from`), swapping what was
/// there up (rows about to be dropped).
fn move_down(rows: &mut [Row], from: usize, len: usize, to: usize) {
    if to < from {
        for k in 0..len {
            rows.swap(to + k, from + k);
        }
    }
}

/// Merges every pair of adjacent reports that may be merged, two to one, in place (rows
/// after the last span, a report still being read, are kept after them); returns the
/// number of reports removed.
pub fn halve(rows: &mut Vec<Row>, spans: &mut Vec<Span>) -> usize {
    let old = std::mem::take(spans);
    let before = old.len();
    let mut write = 0;
    let mut i = 0;
    while i < old.len() {
        let s = old[i];
        let (len, count, step) = match old.get(i + 1) {
            Some(t) if mergeable(&rows[s.start], &rows[t.start]) => {
                let e = merge_range(rows, s.start, t.start, t.end, s.count, t.count, &mut None);
                (e - s.start, s.count + t.count, 2)
            }
            _ => (s.end - s.start, s.count, 1),
        };
        move_down(rows, s.start, len, write);
        spans.push(Span { start: write, end: write + len, count });
        write += len;
        i += step;
    }
    let rest = old.last().map_or(0, |s| s.end);
    let open = rows.len() - rest;
    move_down(rows, rest, open, write);
    rows.truncate(write + open);
    before - spans.len()
}

/// Keeps the rows of a pidstat parse within a budget, one pushed row at a time.
#[derive(Debug, Default)]
pub struct Keeper {
    /// Most bytes the rows may hold (0: no limit).
    budget: usize,
    /// Bytes the rows hold (counted only under a budget).
    held: usize,
    /// Printed reports a kept report may stand for now (1 until the budget is first reached).
    pub factor: u32,
    /// The kept reports.
    spans: Vec<Span>,
    /// 1-based line of the first report merged, once any is.
    pub first_merged_line: Option<usize>,
    /// The task-id map of the report being merged into ([`merge_last_with`]).
    cache: Cached,
}

impl Keeper {
    /// A keeper of `budget` bytes (0: no limit, nothing is done).
    pub fn new(budget: usize) -> Self {
        Keeper { budget, factor: 1, ..Keeper::default() }
    }

    /// Notes the row just pushed on `rows` (call after every push): a report that starts
    /// closes the one before, which is merged into its predecessor while the factor allows,
    /// and every report is merged two to one when the budget is passed.
    pub fn pushed(&mut self, rows: &mut Vec<Row>) {
        if self.budget == 0 {
            return;
        }
        let Some(new) = rows.last() else { return };
        let starts = self.spans.last().is_none_or(|s| !same_report(&rows[s.start], new));
        let new_bytes = row_bytes(new);
        // The new row stays in place (a row is ~240 bytes): it is set aside only when a report
        // starts and the two before it are merged.
        if starts && self.factor > 1 && self.spans.len() >= 2 {
            let new = rows.pop().expect("the last row was just read");
            let from = self.spans[self.spans.len() - 2].start;
            let before: usize = rows[from..].iter().map(row_bytes).sum();
            if merge_last_with(rows, &mut self.spans, self.factor, &mut self.cache) {
                self.held = self.held - before + rows[from..].iter().map(row_bytes).sum::<usize>();
            }
            rows.push(new);
        }
        self.held += new_bytes;
        match self.spans.last_mut() {
            Some(s) if !starts => s.end = rows.len(),
            _ => self.spans.push(Span { start: rows.len() - 1, end: rows.len(), count: 1 }),
        }
        // Past the budget: every report (but the one being read, whose rows are still to
        // come) merged two to one, again until the rows fit (tasks printed in only some of
        // the reports make a merged report hold more rows than each of its own).
        while self.held > self.budget {
            if self.first_merged_line.is_none() {
                self.first_merged_line = rows.iter().find(|r| !r.since_boot).map(|r| r.line);
            }
            let open = self.spans.pop().expect("a span was just pushed or extended");
            let open_len = open.end - open.start;
            let before = rows.len() - open_len;
            self.cache = None;
            let removed = halve(rows, &mut self.spans);
            self.spans.push(Span { start: rows.len() - open_len, end: rows.len(), count: open.count });
            self.held = rows.iter().map(row_bytes).sum();
            if removed > 0 {
                self.factor = self.factor.saturating_mul(2);
            }
            if removed == 0 || (rows.len() - open_len) * MIN_SHRINK.1 > before * MIN_SHRINK.0 {
                // Nothing can be merged (one report, or since-boot only), or merging hardly
                // shrinks the rows (short-lived tasks, each in one report only): coarser
                // reports would lose detail without saving memory. Stop trying.
                self.budget = usize::MAX;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::Stamp;
    use chrono::NaiveTime;

    fn at(s: u32) -> Option<Stamp> {
        Some(Stamp::TimeOfDay(NaiveTime::from_hms_opt(19, 37, s).unwrap()))
    }

    fn row(line: usize, s: u32, tid: u32, kb: f64) -> Row {
        Row {
            line,
            stamp: at(s),
            prev_stamp: at(s - 1),
            since_boot: false,
            run: 0,
            table: 0,
            uid: Some(0),
            user: None,
            tgid: Some(100),
            tid: Some(tid),
            command: format!("w{tid}").into(),
            leader: None,
            io: super::super::types::IoValues([0.0, kb, 0.0, 2.0]),
            policy: None,
            other: Vec::new(),
        }
    }

    #[test]
    fn absent_tasks_did_nothing_and_the_last_report_gives_the_time() {
        // 19:37:10: w1 10 kB/s, w2 4 kB/s; 19:37:11: w1 20 kB/s only.
        let mut rows = vec![row(1, 10, 1, 10.0), row(2, 10, 2, 4.0), row(3, 11, 1, 20.0)];
        let mut spans = vec![Span { start: 0, end: 2, count: 1 }, Span { start: 2, end: 3, count: 1 }];
        assert!(merge_last(&mut rows, &mut spans, 2));
        assert_eq!(spans, vec![Span { start: 0, end: 2, count: 2 }]);
        assert_eq!(rows.len(), 2);
        let (w1, w2) = (&rows[0], &rows[1]);
        assert_eq!((w1.kb_wr_s(), w2.kb_wr_s()), (Some(15.0), Some(2.0)));
        assert_eq!((w1.iodelay(), w2.iodelay()), (Some(2.0), Some(1.0)));
        assert_eq!((w1.line, w2.line), (3, 2));
        for r in &rows {
            assert_eq!((r.stamp, r.prev_stamp), (at(11), at(9)));
        }
        // Past the factor: nothing more is merged.
        rows.push(row(4, 12, 1, 1.0));
        spans.push(Span { start: 2, end: 3, count: 1 });
        assert!(!merge_last(&mut rows, &mut spans, 2));
    }

    #[test]
    fn halving_weighs_by_reports_and_keeps_runs_and_since_boot_apart() {
        let mut rows = Vec::new();
        let mut spans = Vec::new();
        for (k, (kb, count)) in [(30.0, 3), (10.0, 1), (5.0, 1), (7.0, 1), (9.0, 1)].into_iter().enumerate() {
            let mut r = row(k + 1, 10 + k as u32, 1, kb);
            r.since_boot = k == 2;
            r.run = usize::from(k >= 4);
            spans.push(Span { start: rows.len(), end: rows.len() + 1, count });
            rows.push(r);
        }
        // (30 x 3 + 10) / 4 = 25; the since-boot report stays; 7 (run 0) and 9 (run 1) stay apart.
        assert_eq!(halve(&mut rows, &mut spans), 1);
        let kb: Vec<f64> = rows.iter().map(|r| r.kb_wr_s().unwrap()).collect();
        assert_eq!(kb, vec![25.0, 5.0, 7.0, 9.0]);
        assert_eq!(spans.iter().map(|s| s.count).collect::<Vec<_>>(), vec![4, 1, 1, 1]);
    }

    #[test]
    fn a_kept_task_map_merges_as_a_fresh_one() {
        // Reports of 100 tasks (past SCAN_ROWS): tasks come and go, and one id is reused
        // by another command; merged eight to one with the map kept and rebuilt per report.
        let report = |s: u32| -> Vec<Row> {
            let mut v: Vec<Row> = (0..100u32)
                .filter(|t| !(t + s).is_multiple_of(7))
                .map(|t| {
                    row(s as usize * 1000 + t as usize, 10 + s, 200 + t + (s % 3) * 50, f64::from(t + s))
                })
                .collect();
            let mut reused = row(s as usize * 1000 + 999, 10 + s, 201, 3.0);
            reused.command = format!("new{s}").into();
            v.push(reused);
            v
        };
        let (mut kept, mut fresh) = (Vec::new(), Vec::new());
        let (mut spans_k, mut spans_f) = (Vec::new(), Vec::new());
        let mut cache: Cached = None;
        for s in 0..12 {
            for (rows, spans) in [(&mut kept, &mut spans_k), (&mut fresh, &mut spans_f)] {
                let r = report(s);
                spans.push(Span { start: rows.len(), end: rows.len() + r.len(), count: 1 });
                rows.extend(r);
            }
            assert_eq!(
                merge_last_with(&mut kept, &mut spans_k, 8, &mut cache),
                merge_last(&mut fresh, &mut spans_f, 8)
            );
            assert!(cache.is_some() || s == 0);
            assert_eq!((&kept, &spans_k), (&fresh, &spans_f), "after report {s}");
        }
        assert_eq!(spans_k.iter().map(|s| s.count).collect::<Vec<_>>(), vec![8, 4]);
    }
}
