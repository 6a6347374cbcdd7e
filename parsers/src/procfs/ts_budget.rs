//! Memory budget of a streamed `TS`-framed series (pt-stalk's `meminfo`, `procvmstat` and
//! `diskstats` files): past the budget, every other kept snapshot is dropped, the later
//! of each pair staying, then every other again, ... A series of days at 1 s becomes one
//! at 2, 4, ... s:
//!
//! ```text
//! TS 1795981039.666693755 2026-11-29 19:37:19   <- dropped (one in two kept)
//! ...
//! TS 1795981040.680128146 2026-11-29 19:37:20   <- kept
//! ```
//!
//! Counters (`/proc/vmstat`, `/proc/diskstats`) lose nothing over the whole capture: the
//! difference of two kept snapshots spans the dropped ones. Gauges (`/proc/meminfo`) keep
//! real samples at their own times, fewer of them. The last snapshot read is always kept
//! (the end of the capture), so a thinned series still spans the whole file.

/// A snapshot a [`Thinning`] can keep or drop.
pub trait Snapshot {
    /// Its first line (for the diagnostic of the first one dropped).
    fn first_line(&self) -> usize;
    /// About the bytes it holds, its own and on the heap.
    fn bytes(&self) -> usize;
}

/// Thins a growing list of snapshots to stay within a budget of bytes.
#[derive(Debug, Clone)]
pub struct Thinning {
    /// Most bytes the kept snapshots may hold (0: no limit).
    budget: usize,
    /// Bytes the kept snapshots hold.
    held: usize,
    /// One snapshot in `stride` is kept (a power of two; 1: all).
    pub stride: u32,
    /// Snapshots offered so far.
    arrivals: u64,
    /// The list's last element is the latest snapshot, not one of the kept (see [`Thinning::push`]).
    tail: bool,
    /// First line of the first snapshot dropped, if any.
    pub first_dropped_line: Option<usize>,
}

impl Thinning {
    /// A thinning within `budget` bytes (0: keeps every snapshot).
    pub fn new(budget: usize) -> Self {
        Thinning { budget, held: 0, stride: 1, arrivals: 0, tail: false, first_dropped_line: None }
    }

    /// Appends the next snapshot of the file. The kept snapshots are the arrivals whose
    /// number is a multiple of [`Thinning::stride`]; the latest one offered stays at the
    /// end of `list` until the next is offered, so `list` always ends with the last
    /// snapshot read. Halves the kept ones while they hold more than the budget.
    pub fn push<T: Snapshot>(&mut self, list: &mut Vec<T>, item: T) {
        if self.tail
            && let Some(t) = list.pop()
        {
            self.dropped(t.first_line());
        }
        self.arrivals += 1;
        let keep = self.arrivals.is_multiple_of(u64::from(self.stride));
        if keep {
            self.held += item.bytes();
        }
        list.push(item);
        self.tail = !keep;
        while self.budget > 0 && self.held > self.budget && self.stride < 1 << 30 {
            self.halve(list);
        }
    }

    /// Notes a dropped snapshot's line (the earliest one).
    fn dropped(&mut self, line: usize) {
        if self.first_dropped_line.is_none_or(|l| line < l) {
            self.first_dropped_line = Some(line);
        }
    }

    /// Keeps every second of the kept snapshots (the later of each pair: arrivals
    /// `2s, 4s, ...` of `s, 2s, 3s, ...`) and doubles the stride; the latest arrival stays
    /// last, kept if its number falls on the new stride.
    fn halve<T: Snapshot>(&mut self, list: &mut Vec<T>) {
        let Some(latest) = list.pop() else { return };
        let mut j = 0usize;
        let mut first = None;
        list.retain(|x| {
            j += 1;
            let keep = j.is_multiple_of(2);
            if !keep && first.is_none() {
                first = Some(x.first_line());
            }
            keep
        });
        if let Some(l) = first {
            self.dropped(l);
        }
        self.stride *= 2;
        self.held = list.iter().map(Snapshot::bytes).sum();
        let keep = self.arrivals.is_multiple_of(u64::from(self.stride));
        if keep {
            self.held += latest.bytes();
        }
        // Not kept at the new stride: it is dropped when the next snapshot arrives.
        list.push(latest);
        self.tail = !keep;
    }
}

impl Thinning {
    /// The diagnostic of a thinned file (noted at its first dropped snapshot), when any was dropped
    /// by the budget; `budget` is the one it was made with.
    pub fn note(&self, diags: &mut crate::common::Diags) {
        if self.stride > 1 {
            diags.note(
                self.first_dropped_line.unwrap_or(1),
                crate::common::DiagKind::Unsupported,
                format!(
                    "one snapshot in {} kept to hold the parsed snapshots within {} MB of memory: counters span the dropped ones, gauges are sampled every {} snapshots",
                    self.stride,
                    self.budget >> 20,
                    self.stride
                ),
            );
        }
    }
}

/// The `snapshots_thinned` variant value of a thinned file (the pipeline's warning reads it).
pub fn thinned_variant(stride: u32) -> String {
    format!("1 in {stride} (memory budget)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq)]
    struct S(usize);

    impl Snapshot for S {
        fn first_line(&self) -> usize {
            self.0 * 10
        }
        fn bytes(&self) -> usize {
            100
        }
    }

    #[test]
    fn keeps_one_in_a_power_of_two_and_always_the_last() {
        for n in [1usize, 2, 3, 7, 8, 9, 100, 1001] {
            let mut t = Thinning::new(1000);
            let mut list = Vec::new();
            for i in 1..=n {
                t.push(&mut list, S(i));
                // Within the budget (the latest may be over it by one snapshot).
                let kept = list.len() - usize::from(t.tail);
                assert!(kept * 100 <= 1000, "n {n} i {i}");
            }
            let s = t.stride as usize;
            let mut want: Vec<usize> = (1..=n).filter(|a| a % s == 0).collect();
            if want.last() != Some(&n) {
                want.push(n);
            }
            assert_eq!(list.iter().map(|x| x.0).collect::<Vec<_>>(), want, "n {n}");
            assert!(list.len() * 100 <= 1100, "n {n}");
            assert_eq!(t.first_dropped_line, (s > 1 || list.len() < n).then_some(10), "n {n}");
        }
    }

    #[test]
    fn no_budget_keeps_everything() {
        let mut t = Thinning::new(0);
        let mut list = Vec::new();
        for i in 1..=50 {
            t.push(&mut list, S(i));
        }
        assert_eq!((list.len(), t.stride, t.first_dropped_line), (50, 1, None));
    }
}
