//! One large buffered write as the page cache saw it, on per-second slices:
//! the writer's dirtying capped by what the kernel counted as dirtied, the
//! seconds it ran, how much of its data the page cache held at once (oldest
//! dirtied written first), the drain of that data, the device that carried
//! it, and the dirty thresholds of the kernel.
//!
//! The rules `buffered_write_burst` and `buffered_writer_dirty_throttle` read
//! these; nothing here decides whether a rule fires.

use crate::table::Cell;
use crate::table::cell::at;

/// Bytes of one page in `/proc/vmstat` page counts.
pub(crate) const PAGE_BYTES: f64 = 4096.0;

/// A second a thread was charged at least this many bytes counts in [`reached_at_once`].
pub(crate) const CHARGE_MIN_BYTES: f64 = 1024.0 * 1024.0;

/// The share of a thread's bytes in `rows` (seconds it was charged at least 1 MiB) that a
/// device wrote within a second: at least 80 % of them in the second before, of or after
/// (the samplers' phases differ), on the busiest of `devices`. pidstat charges an O_DIRECT
/// write (and a write flushed at once) when it is submitted and a buffered one when it is
/// dirtied: only the first reach the disk in the same seconds, where a write the page cache
/// absorbs is dirtied faster than the disk writes it. Dirty cannot tell them apart when
/// others dirty memory at the same time.
pub(crate) fn reached_at_once(
    rates: &[f64],
    rows: std::ops::RangeInclusive<usize>,
    devices: &[&[Cell]],
) -> f64 {
    let (mut hit, mut total) = (0.0, 0.0);
    for r in rows.filter(|&r| r < rates.len()) {
        let x = rates[r].max(0.0);
        total += x;
        if x < CHARGE_MIN_BYTES {
            continue;
        }
        let dev = devices.iter().map(|d| bytes(d, r.saturating_sub(1), r + 1)).fold(0.0, f64::max);
        if dev >= 0.8 * x {
            hit += x;
        }
    }
    if total > 0.0 { hit / total } else { 0.0 }
}

/// A thread's bytes per second, capped at what the kernel dirtied around that second
/// (`nr_dirtied` pages/s of the rows before, at and after it, +10 % and 1 MiB for the
/// two samplers' different phases). pidstat charges a parent the I/O of a child it reaps:
/// a one-second "write" of gigabytes that dirtied nothing is capped away here.
pub(crate) fn capped(writer: &[Cell], dirtied_pages: Option<&[Cell]>) -> Vec<f64> {
    (0..writer.len())
        .map(|r| {
            let w = at(writer, r).unwrap_or(0.0).max(0.0);
            let Some(d) = dirtied_pages else { return w };
            let near = [r.checked_sub(1), Some(r), Some(r + 1)]
                .into_iter()
                .flatten()
                .filter_map(|k| at(d, k))
                .reduce(f64::max);
            match near {
                Some(p) => w.min(p * PAGE_BYTES * 1.1 + 1024.0 * 1024.0),
                None => w,
            }
        })
        .collect()
}

/// The seconds a writer ran: the first and last row with at least 1 % of its peak rate.
pub(crate) fn run(rates: &[f64]) -> Option<(usize, usize)> {
    let peak = rates.iter().copied().fold(0.0, f64::max);
    if peak <= 0.0 {
        return None;
    }
    let on = |x: &f64| *x >= 0.01 * peak;
    Some((rates.iter().position(on)?, rates.iter().rposition(on)?))
}

/// The writer's data still dirty at one second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Held {
    /// The row.
    pub row: usize,
    /// The writer's bytes among the dirty pages then.
    pub bytes: f64,
    /// All dirty bytes then (`Dirty`).
    pub dirty: f64,
    /// True when estimated from `nr_dirtied` (oldest dirtied written first), false when
    /// from the rise of `Dirty` since the writer started.
    pub by_dirtied: bool,
}

/// The most of the writer's data the page cache held at once, over rows `from..=to`.
///
/// With `nr_dirtied`: the dirty pages at row `r` are the last `Dirty(r)` bytes dirtied
/// (the flusher writes the oldest dirtied inodes first), so walking back from `r` over the
/// bytes dirtied per second until `Dirty(r)` is covered, the writer's share of them is
/// its data still dirty. Without it: the rise of `Dirty` since the writer started, at most
/// what it wrote since.
pub(crate) fn held(
    rates: &[f64],
    dirty: &[Cell],
    dirtied_pages: Option<&[Cell]>,
    from: usize,
    to: usize,
) -> Option<Held> {
    let mut best: Option<Held> = None;
    let before = (0..=from).rev().find_map(|k| at(dirty, k)).unwrap_or(0.0);
    let to = to.min(dirty.len().saturating_sub(1));
    // Running sums make each row O(log n), not a walk back over the capture (a day of
    // rows made this quadratic: 42 % of a 1.1 GB bundle's analysis).
    let back = dirtied_pages.map(|dp| DirtiedSums::new(rates, dp, to));
    let mut wrote = 0.0;
    for r in from..=to {
        if let Some(&x) = rates.get(r) {
            wrote += x;
        }
        let Some(d) = at(dirty, r) else { continue };
        let h = match &back {
            Some(b) => Held { row: r, bytes: b.writers_share(r, d), dirty: d, by_dirtied: true },
            None => Held { row: r, bytes: (d - before).clamp(0.0, wrote), dirty: d, by_dirtied: false },
        };
        if best.is_none_or(|b| h.bytes > b.bytes) {
            best = Some(h);
        }
    }
    best
}

/// Running sums over the rows that dirtied pages: bytes dirtied (`all`) and the writer's
/// part of them (`min(rate, all)`), so that walking back from a row until `Dirty` is
/// covered is a binary search.
struct DirtiedSums {
    /// `all[k]` summed over rows `< i`, at `i`.
    all: Vec<f64>,
    /// The writer's capped bytes summed over rows `< i`, at `i`.
    mine: Vec<f64>,
    /// Bytes dirtied per row (0 for rows that dirtied nothing).
    row_all: Vec<f64>,
    /// The writer's capped bytes per row.
    row_mine: Vec<f64>,
}

impl DirtiedSums {
    fn new(rates: &[f64], dp: &[Cell], to: usize) -> Self {
        let n = to + 1;
        let (mut all, mut mine) = (Vec::with_capacity(n + 1), Vec::with_capacity(n + 1));
        let (mut row_all, mut row_mine) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut sa, mut sm) = (0.0, 0.0);
        all.push(0.0);
        mine.push(0.0);
        for row in 0..n {
            let a = at(dp, row).unwrap_or(0.0) * PAGE_BYTES;
            let (a, w) =
                if a > 0.0 { (a, rates.get(row).copied().unwrap_or(0.0).min(a)) } else { (0.0, 0.0) };
            sa += a;
            sm += w;
            all.push(sa);
            mine.push(sm);
            row_all.push(a);
            row_mine.push(w);
        }
        DirtiedSums { all, mine, row_all, row_mine }
    }

    /// The writer's bytes among the last `dirty` bytes dirtied up to row `r`: whole rows
    /// back from `r` while they fit, then the fitting fraction of the row that covers it.
    fn writers_share(&self, r: usize, dirty: f64) -> f64 {
        if dirty <= 0.0 {
            return 0.0;
        }
        let end = self.all[r + 1];
        // The latest row k whose rows k..=r dirtied at least `dirty`.
        let fits = self.all[..=r].partition_point(|&s| end - s >= dirty);
        if fits == 0 {
            // Everything since the start is less than `dirty`: all of it counts.
            return self.mine[r + 1];
        }
        let k = fits - 1;
        let need = dirty - (end - self.all[k + 1]);
        let part =
            if self.row_all[k] > 0.0 { self.row_mine[k] * (need / self.row_all[k]).min(1.0) } else { 0.0 };
        self.mine[r + 1] - self.mine[k + 1] + part
    }
}

/// The drain of held data: `Dirty` falling by at least `bytes` after row `from`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Drain {
    /// First row after the held peak.
    pub start: usize,
    /// The row `Dirty` had fallen by `bytes`.
    pub end: usize,
    /// The row ending the second with the largest fall of `Dirty` (the main flush).
    pub main: usize,
    /// That fall, bytes.
    pub main_drop: f64,
}

/// The first row after `from` with `Dirty` at least `bytes` below `Dirty(from)`.
pub(crate) fn drain(dirty: &[Cell], from: usize, bytes: f64) -> Option<Drain> {
    let top = at(dirty, from)?;
    let end = (from + 1..dirty.len()).find(|&r| at(dirty, r).is_some_and(|d| d <= top - bytes))?;
    let (mut main, mut main_drop, mut prev) = (end, 0.0, top);
    for r in from + 1..=end {
        if let Some(d) = at(dirty, r) {
            if prev - d > main_drop {
                (main, main_drop) = (r, prev - d);
            }
            prev = d;
        }
    }
    Some(Drain { start: from + 1, end, main, main_drop })
}

/// Bytes a per-second rate series wrote over rows `from..=to`.
pub(crate) fn bytes(v: &[Cell], from: usize, to: usize) -> f64 {
    (from..=to).filter_map(|r| at(v, r)).filter(|x| *x > 0.0).sum()
}

/// The device that carried a write: among the series that wrote at least `need` bytes in
/// rows `from..=to`, the one that wrote the least over `span` (the file's own device: the
/// devices under it add other tenants' writes, and loop, dm or md devices above a disk
/// write no more than their file systems).
pub(crate) fn carrier(
    devices: &[&[Cell]],
    from: usize,
    to: usize,
    need: f64,
    span: (usize, usize),
) -> Option<usize> {
    devices
        .iter()
        .enumerate()
        .filter(|(_, v)| bytes(v, from, to) >= need)
        .min_by(|a, b| bytes(a.1, span.0, span.1).total_cmp(&bytes(b.1, span.0, span.1)))
        .map(|(i, _)| i)
}

/// Where the kernel throttles dirtiers, bytes: below `freerun` a dirtier is never paused
/// (mm/page-writeback.c: `dirty_freerun_ceiling`, halfway between the background
/// threshold and the limit), near `limit` it is held to the device's pace.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Limits {
    /// The dirty limit.
    pub limit: f64,
    /// Where background writeback starts.
    pub background: f64,
}

impl Limits {
    /// The freerun ceiling: `(limit + background) / 2`.
    pub(crate) fn freerun(&self) -> f64 {
        (self.limit + self.background) / 2.0
    }
}

/// The limits of the sysctls: `dirty_bytes` when set, else `dirty_ratio` % of `dirtyable`
/// memory; the background ones alike (the kernel's `domain_dirty_limits`).
pub(crate) fn limits_from_sysctl(
    dirty_bytes: Option<f64>,
    dirty_ratio: Option<f64>,
    background_bytes: Option<f64>,
    background_ratio: Option<f64>,
    dirtyable: Option<f64>,
) -> Option<Limits> {
    let pick = |b: Option<f64>, ratio: Option<f64>| match b {
        Some(b) if b > 0.0 => Some(b),
        _ => Some(ratio? / 100.0 * dirtyable?),
    };
    let limit = pick(dirty_bytes, dirty_ratio)?;
    let mut background = pick(background_bytes, background_ratio)?;
    // The kernel keeps the background threshold below the limit (half of it otherwise).
    if background >= limit {
        background = limit / 2.0;
    }
    Some(Limits { limit, background })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: &[f64]) -> Vec<Cell> {
        x.iter().map(|y| Cell::some(*y)).collect()
    }

    const MB: f64 = 1e6;

    #[test]
    fn a_reaped_childs_charge_is_capped_at_what_was_dirtied() {
        // perf reaping dd: 3 GB in one second pidstat row, 10 pages dirtied around it.
        let w = v(&[0.0, 3000.0 * MB, 0.0]);
        let d = v(&[10.0, 10.0, 10.0]);
        let c = capped(&w, Some(&d));
        assert!((c[1] - (10.0 * PAGE_BYTES * 1.1 + 1048576.0)).abs() < 1e-6);
        assert_eq!(capped(&w, None)[1], 3000.0 * MB);
    }

    #[test]
    fn run_edges_are_one_percent_of_the_peak() {
        assert_eq!(run(&[0.0, 0.99, 100.0, 1.0, 0.0]), Some((2, 3)));
        assert_eq!(run(&[0.0, 0.0]), None);
    }

    #[test]
    fn held_walks_back_over_the_dirtied_pages() {
        // 4 s at 100 MB/s with nothing else dirtying: 400 MB dirty at row 3 are all the writer's.
        let pages = 100.0 * MB / PAGE_BYTES;
        let rates = [100.0 * MB; 4];
        let dirty = v(&[100.0 * MB, 200.0 * MB, 300.0 * MB, 400.0 * MB]);
        let dp = v(&[pages; 4]);
        let h = held(&rates, &dirty, Some(&dp), 0, 3).unwrap();
        assert_eq!((h.row, h.by_dirtied), (3, true));
        assert!((h.bytes - 400.0 * MB).abs() < 1.0, "{}", h.bytes);
        // Half the dirtying is someone else's: half the pool is the writer's.
        let dp = v(&[2.0 * pages; 4]);
        let h = held(&rates, &dirty, Some(&dp), 0, 3).unwrap();
        assert!((h.bytes - 200.0 * MB).abs() < 1.0, "{}", h.bytes);
        // Without nr_dirtied: the rise since the start.
        let h = held(&rates, &dirty, None, 0, 3).unwrap();
        assert!((h.bytes - 300.0 * MB).abs() < 1.0 && !h.by_dirtied, "{}", h.bytes);
    }

    /// The walk back as first written (one row at a time), to check the running sums against.
    fn walked(rates: &[f64], dirty: f64, dp: &[Cell], r: usize) -> f64 {
        let (mut need, mut mine, mut k) = (dirty, 0.0, r as isize);
        while need > 0.0 && k >= 0 {
            let row = k as usize;
            let all = at(dp, row).unwrap_or(0.0) * PAGE_BYTES;
            let w = rates.get(row).copied().unwrap_or(0.0).min(all.max(0.0));
            if all > 0.0 {
                mine += w * (need / all).min(1.0);
                need -= all;
            }
            k -= 1;
        }
        mine
    }

    #[test]
    fn running_sums_give_the_walk_back() {
        // Uneven dirtying with gaps and rows of nothing, a writer sometimes above it.
        let n = 300;
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as f64 / (1u64 << 31) as f64
        };
        let dp: Vec<Cell> = (0..n)
            .map(|k| {
                if k % 17 == 3 {
                    None
                } else if k % 11 == 0 {
                    Some(0.0)
                } else {
                    Some(next() * 5000.0)
                }
            })
            .map(Cell::new)
            .collect();
        let rates: Vec<f64> = (0..n).map(|_| next() * 30.0 * MB).collect();
        let sums = DirtiedSums::new(&rates, &dp, n - 1);
        for r in [0, 1, 10, 57, 150, 299] {
            for dirty in [0.0, 1.0, 4096.0, 5.0 * MB, 80.0 * MB, 1e12] {
                let (a, b) = (sums.writers_share(r, dirty), walked(&rates, dirty, &dp, r));
                assert!((a - b).abs() <= 1e-6 * b.abs().max(1.0), "row {r}, dirty {dirty}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn drain_finds_the_fall_and_the_main_flush() {
        let dirty = v(&[900.0, 1000.0, 950.0, 300.0, 100.0]);
        let d = drain(&dirty, 1, 500.0).unwrap();
        assert_eq!((d.start, d.end, d.main, d.main_drop), (2, 3, 3, 650.0));
        assert_eq!(drain(&dirty, 1, 950.0), None);
    }

    #[test]
    fn the_carrier_is_the_least_written_device_that_carried_it() {
        let loop0 = v(&[0.0, 500.0, 500.0]);
        let vda = v(&[300.0, 600.0, 500.0]);
        let other = v(&[1.0, 1.0, 1.0]);
        let devs: [&[Cell]; 3] = [&vda, &loop0, &other];
        assert_eq!(carrier(&devs, 1, 2, 900.0, (0, 2)), Some(1));
        assert_eq!(carrier(&devs, 1, 2, 1500.0, (0, 2)), None);
    }

    #[test]
    fn limits_from_bytes_or_ratio() {
        let l = limits_from_sysctl(Some(128.0), Some(0.0), Some(64.0), Some(0.0), None).unwrap();
        assert_eq!((l.limit, l.background, l.freerun()), (128.0, 64.0, 96.0));
        let l = limits_from_sysctl(Some(0.0), Some(20.0), Some(0.0), Some(10.0), Some(1000.0)).unwrap();
        assert_eq!((l.limit, l.background), (200.0, 100.0));
        assert_eq!(limits_from_sysctl(Some(0.0), Some(20.0), None, Some(10.0), None), None);
        // A background threshold at or above the limit is half the limit.
        let l = limits_from_sysctl(Some(100.0), None, Some(100.0), None, None).unwrap();
        assert_eq!(l.background, 50.0);
    }

    #[test]
    fn bytes_written_within_a_second_of_their_charge_reached_the_disk_at_once() {
        const M: f64 = 1024.0 * 1024.0;
        let c = |x: f64| Cell::from(Some(x));
        // 64 MiB charged at rows 3 and 15; the device writes them at rows 2 and 15 (the
        // samplers a second apart), and 30 MiB at row 9 that nobody was charged for.
        let mut rates = vec![0.0; 20];
        (rates[3], rates[15]) = (64.0 * M, 64.0 * M);
        let mut dev = vec![c(0.0); 20];
        (dev[2], dev[9], dev[15]) = (c(64.0 * M), c(30.0 * M), c(52.0 * M));
        assert_eq!(reached_at_once(&rates, 0..=19, &[&dev]), 1.0);
        // 80 % is the floor: 51 MiB of 64 at row 15 is not enough.
        dev[15] = c(51.0 * M);
        assert_eq!(reached_at_once(&rates, 0..=19, &[&dev]), 0.5);
        // Two seconds apart is not at once; a buffered writer dirtying 300 MiB a second
        // while the disk writes 100 is not either.
        let mut dev = vec![c(0.0); 20];
        (dev[1], dev[15]) = (c(64.0 * M), c(100.0 * M));
        rates[15] = 300.0 * M;
        assert_eq!(reached_at_once(&rates, 0..=19, &[&dev]), 0.0);
        // Charges under 1 MiB count in the total only.
        assert_eq!(reached_at_once(&[0.5 * M], 0..=0, &[&[c(M)][..]]), 0.0);
    }
}
