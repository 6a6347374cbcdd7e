//! pt-stalk `TS` framing lines: `TS <epoch>[.<ns>] [YYYY-MM-DD HH:MM:SS]`,
//! written by `date +"TS %s.%N %F %T"` before each snapshot (after it in old
//! bundles). The epoch is authoritative; the date is the capturing host's
//! local time, so the gap between the two gives its UTC offset.

use chrono::NaiveDateTime;

/// One `TS` line.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct TsLine {
    /// Epoch seconds (with nanoseconds when printed).
    pub epoch: f64,
    /// The local date and time printed after it, if any.
    #[serde(serialize_with = "ser_local")]
    pub local: Option<NaiveDateTime>,
}

fn ser_local<S: serde::Serializer>(v: &Option<NaiveDateTime>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(n) => s.serialize_some(&n.format("%Y-%m-%dT%H:%M:%S").to_string()),
        None => s.serialize_none(),
    }
}

impl TsLine {
    /// The UTC offset of the capturing host in seconds (local - UTC), rounded to
    /// the quarter hour, when the line carries a local time.
    pub fn utc_offset_s(&self) -> Option<i32> {
        let local = self.local?;
        let utc = super::time::epoch_to_utc(self.epoch.floor())?.naive_utc();
        let diff = (local - utc).num_seconds();
        let q = ((diff as f64) / 900.0).round() as i32 * 900;
        (q.abs() <= 14 * 3600).then_some(q)
    }
}

/// The local start time encoded in a pt-stalk file name prefix
/// (`2026_11_29_19_37_19-iostat`); the prefix may follow a label
/// (`host1__2026_11_29_19_37_19-iostat`).
pub fn pt_stalk_prefix(base_name: &str) -> Option<NaiveDateTime> {
    let b = base_name.as_bytes();
    (0..b.len().saturating_sub(19)).find_map(|i| {
        if b[i + 19] != b'-' || (i > 0 && b[i - 1].is_ascii_digit()) || !base_name.is_char_boundary(i) {
            return None;
        }
        NaiveDateTime::parse_from_str(base_name.get(i..i + 19)?, "%Y_%m_%d_%H_%M_%S").ok()
    })
}

/// Places the `TS` epochs of `items` (snapshots in file order; `ts` reads and sets one,
/// `line` is the line a diagnostic names) that break the file's series
/// ([`super::series`]): a garbled epoch would move its snapshot hours away. The local
/// time printed after it is kept as printed; snapshots without a `TS` line stay without.
pub fn place_by_series<T>(
    items: &mut [T],
    ts: impl Fn(&mut T) -> &mut Option<TsLine>,
    line: impl Fn(&T) -> usize,
    d: &mut super::Diags,
) {
    let stamps: Vec<Option<super::Stamp>> =
        items.iter_mut().map(|x| ts(x).map(|t| super::Stamp::Epoch(t.epoch))).collect();
    let placed = super::series::place(&stamps);
    for p in &placed {
        let x = &mut items[p.at];
        if let (Some(t), super::Stamp::Epoch(e)) = (ts(x).as_mut(), p.stamp) {
            t.epoch = e;
            d.note(line(x), super::DiagKind::BadTime, &p.why);
        }
    }
    if !placed.is_empty() {
        d.list.sort_by_key(|x| x.line);
    }
}

/// The first and last `TS` epochs of a file's snapshots in file order (`None` for a snapshot
/// without one): a file's time range, `None` when no snapshot has a `TS` line.
pub fn ts_range<I>(snapshots: I) -> Option<(super::Stamp, super::Stamp)>
where
    I: IntoIterator<Item = Option<TsLine>>,
{
    let mut it = snapshots.into_iter().flatten();
    let first = it.next()?;
    let last = it.last().unwrap_or(first);
    Some((super::Stamp::Epoch(first.epoch), super::Stamp::Epoch(last.epoch)))
}

/// Parses a `TS` line; `None` when the line is not one.
///
/// `TS 1795981039.666693755 2026-11-29 19:37:19`, `TS 1795981039`, `TS 1795981039.666693755`
pub fn parse_ts_line(line: &str) -> Option<TsLine> {
    let rest = line.strip_prefix("TS ")?;
    let mut it = rest.split_whitespace();
    let e = it.next()?;
    if !e.bytes().all(|b| b.is_ascii_digit() || b == b'.') || e.is_empty() || e.len() > 24 {
        return None;
    }
    let epoch: f64 = e.parse().ok()?;
    let local = match (it.next(), it.next()) {
        // chrono's own readers of `2026-11-29` and `19:37:19`, not a format string
        // interpreted per line (3 % of a diskstats parse).
        (Some(d), Some(t)) => {
            Some(NaiveDateTime::new(d.parse().ok()?, super::time::no_leap(t.parse().ok()?)))
        }
        (None, None) => None,
        _ => return None,
    };
    if it.next().is_some() {
        return None;
    }
    Some(TsLine { epoch, local })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ts_forms() {
        let t = parse_ts_line("TS 1795981039.666693755 2026-11-29 19:37:19").unwrap();
        assert!((t.epoch - 1_795_981_039.666_694).abs() < 1e-6);
        assert_eq!(t.utc_offset_s(), Some(0));
        assert_eq!(parse_ts_line("TS 1795981039").unwrap().local, None);
        assert!(parse_ts_line("TSX 1").is_none());
        assert!(parse_ts_line("TS abc").is_none());
        // The local part: a date and a time of day, both or neither.
        let l = parse_ts_line("TS 1795963039.5 2026-11-29 14:37:19").unwrap().local.unwrap();
        assert_eq!(l.to_string(), "2026-11-29 14:37:19");
        for bad in [
            "TS 1 2026-11-29",
            "TS 1 2026-13-29 14:37:19",
            "TS 1 2026-11-29 25:00:00",
            "TS 1 29/11/2026 14:37:19",
            "TS 1 -03:00:00 -0300",
        ] {
            assert!(parse_ts_line(bad).is_none(), "{bad}");
        }
    }
}
