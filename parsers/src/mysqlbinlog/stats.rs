//! Derived views of a [`Binlog`]: per-second series, transaction sizes,
//! tables, group commits.

use std::collections::{BTreeMap, HashSet};

use chrono::NaiveDateTime;

use super::types::{Binlog, Transaction};

/// The second a transaction is counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum SecondKey {
    /// `SET TIMESTAMP` epoch second (time-zone free).
    Epoch(i64),
    /// Header local time (zone of the machine that ran mysqlbinlog), when the file has no epochs.
    Local(NaiveDateTime),
}

/// Activity of one second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SecondStat {
    /// The second.
    pub sec: SecondKey,
    /// Transactions.
    pub transactions: u64,
    /// Bytes of those transactions.
    pub bytes: u64,
    /// Rows they changed.
    pub rows: u64,
    /// Group commits: distinct MariaDB `cid`s (plus transactions without one), or
    /// distinct MySQL `last_committed` values; equals `transactions` without either.
    pub group_commits: u64,
}

/// Distribution of transaction sizes (transactions with a known size).
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct SizeStats {
    /// Transactions counted.
    pub count: u64,
    /// Mean bytes.
    pub mean: f64,
    /// Median bytes (mean of the two middle values for an even count).
    pub median: f64,
    /// 90th percentile (nearest rank).
    pub p90: u64,
    /// 99th percentile (nearest rank).
    pub p99: u64,
    /// Largest.
    pub max: u64,
    /// Power-of-two buckets `(lower bound, count)`: bucket `b` holds sizes in `[b, 2b)`
    /// (the first bucket, 0, holds size 0), from the smallest to the largest non-empty one.
    pub histogram: Vec<(u64, u64)>,
}

/// How a transaction joins a group commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Group {
    Cid(u64),
    LastCommitted(i64),
    Alone,
}

fn group_of(t: &Transaction) -> Group {
    match (t.commit_id(), t.last_committed()) {
        (Some(c), _) => Group::Cid(c),
        (None, Some(l)) => Group::LastCommitted(l),
        _ => Group::Alone,
    }
}

impl Binlog {
    /// True when every transaction with a time has a `SET TIMESTAMP` epoch (then
    /// series use epochs), false when header local times must be used.
    pub fn epoch_basis(&self) -> bool {
        let mut any = false;
        for t in &self.transactions {
            if t.epoch.is_some() {
                any = true;
            } else if t.local.is_some() {
                return false;
            }
        }
        any
    }

    /// The second of a transaction on the file's basis (see [`Binlog::epoch_basis`]).
    pub fn second_of(&self, t: &Transaction, epoch_basis: bool) -> Option<SecondKey> {
        if epoch_basis { t.epoch.map(SecondKey::Epoch) } else { t.local.map(SecondKey::Local) }
    }

    /// Transactions, bytes, rows and group commits per second, in time order.
    pub fn per_second(&self) -> Vec<SecondStat> {
        let basis = self.epoch_basis();
        let mut map: BTreeMap<SecondKey, (SecondStat, Vec<Group>)> = BTreeMap::new();
        for t in &self.transactions {
            let Some(sec) = self.second_of(t, basis) else { continue };
            let e = map.entry(sec).or_insert_with(|| {
                (SecondStat { sec, transactions: 0, bytes: 0, rows: 0, group_commits: 0 }, Vec::new())
            });
            e.0.transactions += 1;
            e.0.bytes += t.bytes;
            e.0.rows += t.rows;
            match group_of(t) {
                Group::Alone => e.0.group_commits += 1,
                g @ Group::Cid(_) | g @ Group::LastCommitted(_) => {
                    if e.1.last() != Some(&g) {
                        e.1.push(g);
                    }
                }
            }
        }
        map.into_values()
            .map(|(mut s, groups)| {
                s.group_commits += distinct(groups);
                s
            })
            .collect()
    }

    /// Size distribution of the transactions whose size is known.
    pub fn size_stats(&self) -> SizeStats {
        let mut sizes: Vec<u64> = self.transactions.iter().map(|t| t.bytes).filter(|&b| b > 0).collect();
        if sizes.is_empty() {
            return SizeStats::default();
        }
        sizes.sort_unstable();
        let n = sizes.len();
        let sum: u128 = sizes.iter().map(|&b| u128::from(b)).sum();
        let median = if n % 2 == 1 {
            sizes[n / 2] as f64
        } else {
            (sizes[n / 2 - 1] as f64 + sizes[n / 2] as f64) / 2.0
        };
        let rank = |p: f64| sizes[((p * n as f64).ceil() as usize).clamp(1, n) - 1];
        let bucket = |b: u64| if b == 0 { 0 } else { 1u64 << (63 - b.leading_zeros()) };
        let mut histogram: Vec<(u64, u64)> = Vec::new();
        let (lo, hi) = (bucket(sizes[0]), bucket(sizes[n - 1]));
        let mut b = lo;
        loop {
            histogram.push((b, 0));
            if b >= hi {
                break;
            }
            b = if b == 0 { 1 } else { b << 1 };
        }
        for &s in &sizes {
            let k = bucket(s);
            if let Some(slot) = histogram.iter_mut().find(|(l, _)| *l == k) {
                slot.1 += 1;
            }
        }
        SizeStats {
            count: n as u64,
            mean: sum as f64 / n as f64,
            median,
            p90: rank(0.90),
            p99: rank(0.99),
            max: sizes[n - 1],
            histogram,
        }
    }

    /// Transactions touching each table, most first (ties by name).
    pub fn per_table(&self) -> Vec<(String, u64)> {
        let mut counts = vec![0u64; self.tables.len()];
        for t in &self.transactions {
            for &i in self.table_ids(t) {
                if let Some(c) = counts.get_mut(i as usize) {
                    *c += 1;
                }
            }
        }
        let mut v: Vec<(String, u64)> =
            self.tables.iter().cloned().zip(counts).filter(|(_, c)| *c > 0).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        v
    }

    /// Number of group commits, when the log tells (MariaDB `cid=`, MySQL
    /// `last_committed`): distinct group ids plus transactions committed alone.
    pub fn group_commits(&self) -> Option<u64> {
        if !self.transactions.iter().any(|t| t.commit_id().is_some() || t.last_committed().is_some()) {
            return None;
        }
        let mut alone = 0;
        let mut groups = Vec::new();
        for t in &self.transactions {
            match group_of(t) {
                Group::Alone => alone += 1,
                g @ Group::Cid(_) | g @ Group::LastCommitted(_) => {
                    if groups.last() != Some(&g) {
                        groups.push(g);
                    }
                }
            }
        }
        Some(alone + distinct(groups))
    }
}

fn distinct(groups: Vec<Group>) -> u64 {
    if groups.len() <= 1 {
        return groups.len() as u64;
    }
    groups.into_iter().collect::<HashSet<Group>>().len() as u64
}
