//! The input line behind each evidence-bearing timeline cell ([`LineIndex`]), stored as
//! runs: a regular capture names its lines in arithmetic progressions (`iostat -x 1` of
//! one device: the row of `vda` every second, a fixed number of lines further each
//! time), so one run of 32 bytes stands for thousands of cells.

use crate::table::Col;
use std::collections::HashMap;

/// Input line of each (column, second) of every column whose adapter names its lines.
/// Per column, runs of cells in epoch-second order: a 1.1 GB bundle of 4.4 days named
/// 6.7 million cells, 107 MB (and twice that while the vectors grew) at 16 bytes a cell;
/// as runs it is a few hundred kB. A later line for the same second replaces an earlier
/// one. [`LineIndex::finish`] must run before [`LineIndex::get`].
#[derive(Debug, Clone, Default)]
pub struct LineIndex {
    cols: HashMap<Col, Vec<Run>>,
}

/// Cells `epoch + i * de` (line `line + i * dl`) of file `file`, for `i` in `0..n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    epoch: i64,
    file: u32,
    line: u32,
    n: u32,
    /// Seconds between cells (at least 1 once `n` > 1).
    de: u32,
    /// Lines between cells.
    dl: i32,
}

impl Run {
    fn single(epoch: i64, file: u32, line: u32) -> Self {
        Run { epoch, file, line, n: 1, de: 1, dl: 0 }
    }

    fn last_epoch(&self) -> i64 {
        self.epoch + i64::from(self.n - 1) * i64::from(self.de)
    }

    fn last_line(&self) -> i64 {
        i64::from(self.line) + i64::from(self.n - 1) * i64::from(self.dl)
    }

    /// The line of the cell at `epoch`, if the run has one there.
    fn line_at(&self, epoch: i64) -> Option<u32> {
        let off = epoch.checked_sub(self.epoch)?;
        if off < 0 || epoch > self.last_epoch() || off % i64::from(self.de) != 0 {
            return None;
        }
        u32::try_from(i64::from(self.line) + off / i64::from(self.de) * i64::from(self.dl)).ok()
    }

    /// Every cell, as (epoch, file, line).
    fn cells(&self) -> impl Iterator<Item = (i64, u32, u32)> + '_ {
        (0..self.n).map(|i| {
            let line = i64::from(self.line) + i64::from(i) * i64::from(self.dl);
            (self.epoch + i64::from(i) * i64::from(self.de), self.file, line as u32)
        })
    }
}

/// Appends a cell noted after every cell of `runs` (a cell of the last run's last second
/// replaces it; otherwise the last run grows when the cell continues its progression).
fn push(runs: &mut Vec<Run>, epoch: i64, file: u32, line: u32) {
    if let Some(r) = runs.last_mut() {
        let last = r.last_epoch();
        if last == epoch {
            if r.n == 1 {
                *r = Run::single(epoch, file, line);
            } else {
                r.n -= 1;
                runs.push(Run::single(epoch, file, line));
            }
            return;
        }
        if r.file == file && epoch > last {
            let (de, dl) = (epoch - last, i64::from(line) - r.last_line());
            if r.n == 1 {
                if let (Ok(de), Ok(dl)) = (u32::try_from(de), i32::try_from(dl)) {
                    (r.n, r.de, r.dl) = (2, de, dl);
                    return;
                }
            } else if de == i64::from(r.de) && dl == i64::from(r.dl) && r.n < u32::MAX {
                r.n += 1;
                return;
            }
        }
    }
    runs.push(Run::single(epoch, file, line));
}

impl LineIndex {
    /// An empty index.
    pub fn new() -> Self {
        LineIndex::default()
    }

    /// Notes that `line` of file `file` gave `col` its value at epoch second `epoch`
    /// (a file or line number past `u32::MAX` is not noted).
    pub fn insert(&mut self, col: &Col, epoch: i64, file: usize, line: usize) {
        let (Ok(file), Ok(line)) = (u32::try_from(file), u32::try_from(line)) else { return };
        let runs = match self.cols.get_mut(col) {
            Some(c) => c,
            None => self.cols.entry(col.clone()).or_default(),
        };
        push(runs, epoch, file, line);
    }

    /// Puts every column's cells in time order, the last line noted for a second winning.
    pub fn finish(&mut self) {
        for runs in self.cols.values_mut() {
            if runs.windows(2).all(|w| w[0].last_epoch() < w[1].epoch) {
                continue;
            }
            // Stable: the cells of one second keep the order they were noted in.
            let mut cells: Vec<(i64, u32, u32)> = runs.iter().flat_map(Run::cells).collect();
            cells.sort_by_key(|c| c.0);
            runs.clear();
            for (epoch, file, line) in cells {
                push(runs, epoch, file, line);
            }
            runs.shrink_to_fit();
        }
    }

    /// The (file index, line) behind `col` at epoch second `epoch`.
    pub fn get(&self, col: &Col, epoch: i64) -> Option<(usize, usize)> {
        let runs = self.cols.get(col)?;
        let i = runs.partition_point(|r| r.epoch <= epoch).checked_sub(1)?;
        let r = &runs[i];
        Some((r.file as usize, r.line_at(epoch)? as usize))
    }

    /// Drops the cells of the columns `keep` refuses (columns left out of the timeline).
    pub fn retain(&mut self, keep: impl Fn(&Col) -> bool) {
        self.cols.retain(|k, _| keep(k));
    }

    /// Number of cells noted.
    pub fn len(&self) -> usize {
        self.cols.values().flatten().map(|r| r.n as usize).sum()
    }

    /// No cell noted.
    pub fn is_empty(&self) -> bool {
        self.cols.values().all(Vec::is_empty)
    }

    /// Number of runs stored (what the index's memory is proportional to).
    pub fn runs(&self) -> usize {
        self.cols.values().map(Vec::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::columns::{BinlogMetric, DevMetric};
    use std::collections::BTreeMap;

    /// The index as plain cells: per second, the last line noted.
    fn naive(notes: &[(i64, u32, u32)]) -> BTreeMap<i64, (u32, u32)> {
        notes.iter().map(|&(e, f, l)| (e, (f, l))).collect()
    }

    #[test]
    fn runs_give_the_lines_of_every_cell_as_single_cells_would() {
        // A small deterministic generator (no dependency): progressions, repeats of a
        // second, gaps, out-of-order notes, a second file, lines that step back.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for case in 0..300 {
            let mut notes = Vec::new();
            let (mut e, mut l) = (1_700_000_000i64, 5u32);
            let (de, dl) = (1 + next(3) as i64, next(40) as u32);
            for _ in 0..next(200) {
                match next(10) {
                    0 => e -= next(50) as i64,
                    1 => {}
                    2 => e += 7,
                    3 => l = l.saturating_sub(next(30) as u32),
                    _ => e += de,
                }
                l += dl;
                let file = u32::from(next(12) == 0);
                notes.push((e, file, l));
            }
            let mut idx = LineIndex::new();
            for &(e, f, l) in &notes {
                idx.insert(&Col::Binlog(BinlogMetric::TrxS), e, f as usize, l as usize);
            }
            idx.finish();
            let want = naive(&notes);
            assert_eq!(idx.len(), want.len(), "case {case}");
            let lo = notes.iter().map(|n| n.0).min().unwrap_or(0);
            let hi = notes.iter().map(|n| n.0).max().unwrap_or(0);
            for epoch in lo - 3..=hi + 3 {
                let got = idx.get(&Col::Binlog(BinlogMetric::TrxS), epoch);
                let exp = want.get(&epoch).map(|&(f, l)| (f as usize, l as usize));
                assert_eq!(got, exp, "case {case} epoch {epoch}");
            }
        }
    }

    #[test]
    fn a_regular_capture_is_one_run_per_column() {
        let mut idx = LineIndex::new();
        for i in 0..100_000i64 {
            // `iostat -x 1` of one device: 7 lines per report.
            idx.insert(
                &Col::Dev("vda".into(), DevMetric::WBytesS),
                1_700_000_000 + i,
                2,
                10 + 7 * i as usize,
            );
            // pidstat merged 8 to 1: a cell every 8 s.
            idx.insert(&Col::Thread(7), 1_700_000_000 + 8 * i, 3, 4 + 30 * i as usize);
        }
        idx.finish();
        assert_eq!((idx.len(), idx.runs()), (200_000, 2));
        assert_eq!(idx.get(&Col::Dev("vda".into(), DevMetric::WBytesS), 1_700_000_005), Some((2, 45)));
        assert_eq!(idx.get(&Col::Thread(7), 1_700_000_016), Some((3, 64)));
        assert_eq!(idx.get(&Col::Thread(7), 1_700_000_017), None);
        assert_eq!(idx.get(&Col::Thread(7), 1_700_000_000 + 8 * 100_000), None);
        assert_eq!(idx.get(&Col::Binlog(BinlogMetric::TrxS), 1_700_000_000), None);
    }
}
