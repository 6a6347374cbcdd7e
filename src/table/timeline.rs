//! The 1 s timeline every source is binned onto: one row per UTC second from
//! the bundle's first to its last anchored second, one column per metric.
//! Missing data stays `None` (a gap), never zero, and nothing is interpolated.

use std::collections::BTreeMap;

/// Longest interval (seconds) whose rate is spread over every second it covers.
pub const MAX_FILL_S: f64 = 60.0;

/// Longest timeline iosift builds (one week of seconds).
pub const MAX_LEN: usize = 7 * 24 * 3600;

/// One metric column.
#[derive(Debug, Clone)]
pub struct Series {
    /// Values per second (`None` = no data).
    pub values: Vec<Option<f64>>,
    /// Unit (`B/s`, `B`, `1/s`, `ms`, `%`, `count`).
    pub unit: &'static str,
    /// The input file it came from.
    pub source: String,
}

/// Per-second metrics on one UTC clock.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// Epoch second of row 0.
    pub t0: i64,
    /// Number of rows.
    pub len: usize,
    /// Columns by name (`dev.vda.w_bytes_s`, `mem.dirty_bytes`, ...).
    pub columns: BTreeMap<String, Series>,
}

impl Timeline {
    /// A timeline covering epoch seconds `[start, end]` (capped at [`MAX_LEN`]).
    pub fn new(start: f64, end: f64) -> Self {
        let t0 = start.floor() as i64;
        let len = ((end.ceil() as i64 - t0 + 1).max(1) as usize).min(MAX_LEN);
        Timeline { t0, len, columns: BTreeMap::new() }
    }

    /// Row of an epoch time, if inside.
    pub fn row(&self, epoch: f64) -> Option<usize> {
        let r = epoch.floor() as i64 - self.t0;
        (r >= 0 && (r as usize) < self.len).then_some(r as usize)
    }

    /// Epoch second of a row.
    pub fn epoch(&self, row: usize) -> i64 {
        self.t0 + row as i64
    }

    /// The column, created empty on first use.
    pub fn column_mut(&mut self, name: &str, unit: &'static str, source: &str) -> &mut Series {
        let len = self.len;
        self.columns.entry(name.to_string()).or_insert_with(|| Series {
            values: vec![None; len],
            unit,
            source: source.to_string(),
        })
    }

    /// A column's values.
    pub fn get(&self, name: &str) -> Option<&[Option<f64>]> {
        self.columns.get(name).map(|s| s.values.as_slice())
    }

    /// Sets a gauge sampled at `epoch`.
    pub fn set_gauge(&mut self, name: &str, unit: &'static str, source: &str, epoch: f64, v: f64) {
        if let Some(r) = self.row(epoch) {
            self.column_mut(name, unit, source).values[r] = Some(v);
        }
    }

    /// Spreads a rate measured over `(end - interval, end]` onto the seconds it
    /// covers (a 1 s report stamped 19:37:20 describes second 19:37:19).
    pub fn set_rate(
        &mut self,
        name: &str,
        unit: &'static str,
        source: &str,
        end: f64,
        interval: f64,
        v: f64,
    ) {
        let interval = if interval.is_finite() && interval > 0.0 { interval.min(MAX_FILL_S) } else { 1.0 };
        let first = (end - interval).round();
        let last = end.round() - 1.0;
        let mut t = first;
        while t <= last {
            if let Some(r) = self.row(t) {
                let col = self.column_mut(name, unit, source);
                col.values[r] = Some(col.values[r].unwrap_or(0.0) + v);
            }
            t += 1.0;
        }
    }

    /// Adds `v` to the second containing `epoch` (event counts and sums).
    pub fn add_event(&mut self, name: &str, unit: &'static str, source: &str, epoch: f64, v: f64) {
        if let Some(r) = self.row(epoch) {
            let col = self.column_mut(name, unit, source);
            col.values[r] = Some(col.values[r].unwrap_or(0.0) + v);
        }
    }

    /// Makes an event-count column dense (0 where no event) between the first and last
    /// seconds the source covered: for events, absence within coverage means zero.
    pub fn zero_fill(&mut self, name: &str, from: f64, to: f64) {
        let (Some(a), Some(b)) = (self.row(from), self.row(to)) else { return };
        if let Some(col) = self.columns.get_mut(name) {
            for v in &mut col.values[a..=b] {
                if v.is_none() {
                    *v = Some(0.0);
                }
            }
        }
    }

    /// Names of columns starting with a prefix.
    pub fn names_with_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a String> + 'a {
        self.columns.keys().filter(move |k| k.starts_with(prefix))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_cover_their_interval() {
        let mut t = Timeline::new(100.0, 110.0);
        t.set_rate("x", "1/s", "f", 103.0, 1.0, 5.0);
        assert_eq!(t.get("x").unwrap()[2], Some(5.0));
        assert_eq!(t.get("x").unwrap()[3], None);
        t.set_rate("y", "1/s", "f", 106.0, 3.0, 2.0);
        assert_eq!(&t.get("y").unwrap()[3..7], &[Some(2.0), Some(2.0), Some(2.0), None]);
        t.add_event("e", "count", "f", 101.5, 1.0);
        t.zero_fill("e", 100.0, 102.0);
        assert_eq!(&t.get("e").unwrap()[..4], &[Some(0.0), Some(1.0), Some(0.0), None]);
    }
}
