//! A replica's lag measured from every witness the capture holds, each a
//! series on the replica's clock with its uncertainty (issue 34):
//!
//! - **pt-heartbeat**: the source stamps a row with its clock every second;
//!   read on the replica, `replica now - newest stamp` is the lag, from the
//!   source's side (up to one update interval high).
//! - **commit timestamps** (MySQL 8): each GTID event of a replica's binlog
//!   carries the source's commit time (`original_committed_timestamp`) and the
//!   replica's own (`immediate_commit_timestamp`), in microseconds.
//! - **binlog events**: a replica with `log_slave_updates` writes the
//!   source's transactions into its own binlog with the source's times; the
//!   replica's `SHOW MASTER STATUS` series says when it wrote them.
//! - **Seconds_Behind_Master**: the SQL thread's view only: it reads 0
//!   whenever the SQL thread has executed all the IO thread received, however
//!   far the IO thread is behind the source.
//!
//! [`Witnesses::best`] picks the series the rule speaks from; the others
//! support or contradict it ([`Witnesses::sbm_zero_while_behind`]).

use super::replication::{ReplicaView, TimedEvent, slope};
use super::{BinlogInput, HeartbeatInput, StatusInput};
use crate::clock::Zone;
use iosift_parsers::pt_heartbeat::Row;

/// A witness of the lag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Witness {
    /// pt-heartbeat rows read on the replica.
    Heartbeat,
    /// MySQL 8's original and immediate commit timestamps in the replica's binlog.
    CommitTimestamps,
    /// The source's event times in the replica's binlog, timed by its `SHOW MASTER STATUS` series.
    BinlogEvents,
    /// `Seconds_Behind_Master` of `SHOW SLAVE STATUS`.
    SecondsBehind,
}

impl Witness {
    /// Stable id (findings.json `lag_witness`).
    pub fn id(self) -> &'static str {
        match self {
            Witness::Heartbeat => "pt_heartbeat",
            Witness::CommitTimestamps => "commit_timestamps",
            Witness::BinlogEvents => "binlog_events",
            Witness::SecondsBehind => "seconds_behind_master",
        }
    }

    /// In words, for the page.
    pub fn words(self) -> &'static str {
        match self {
            Witness::Heartbeat => "pt-heartbeat rows (the source's clock) read on the replica",
            Witness::CommitTimestamps => {
                "the source's and the replica's commit times of each transaction in the replica's binlog (MySQL 8)"
            }
            Witness::BinlogEvents => {
                "the source's commit times in the replica's binlog, timed by its SHOW MASTER STATUS positions"
            }
            Witness::SecondsBehind => "Seconds_Behind_Master (the SQL thread's view only)",
        }
    }
}

/// One lag reading.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LagPoint {
    /// When (epoch, the replica's clock).
    pub epoch: f64,
    /// How far behind the source, seconds.
    pub lag_s: f64,
    /// The input line it was read from.
    pub line: usize,
}

/// The lag over the capture according to one witness.
#[derive(Debug, Clone, PartialEq)]
pub struct LagSeries {
    /// Which witness.
    pub witness: Witness,
    /// The bundle file the points' lines are in.
    pub file: usize,
    /// The readings, in time order.
    pub points: Vec<LagPoint>,
    /// How far a reading may be off, seconds.
    pub uncertainty_s: f64,
    /// How it was measured, in a sentence.
    pub how: String,
}

impl LagSeries {
    /// The first reading.
    pub fn first(&self) -> Option<&LagPoint> {
        self.points.first()
    }

    /// The last reading.
    pub fn last(&self) -> Option<&LagPoint> {
        self.points.last()
    }

    /// Least-squares growth (s per s), from 5 readings on.
    pub fn growth(&self) -> Option<f64> {
        let t0 = self.first()?.epoch;
        let pts: Vec<(f64, f64)> = self.points.iter().map(|p| (p.epoch - t0, p.lag_s)).collect();
        if pts.len() >= 5 { slope(&pts) } else { None }
    }

    /// Seconds between the first and the last reading.
    pub fn span_s(&self) -> f64 {
        match (self.first(), self.last()) {
            (Some(a), Some(b)) => b.epoch - a.epoch,
            _ => 0.0,
        }
    }

    /// The largest reading.
    pub fn max_s(&self) -> Option<f64> {
        self.points.iter().map(|p| p.lag_s).max_by(f64::total_cmp)
    }

    /// The lag at `t`, interpolated between the readings around it (within 2 s of the series).
    pub fn at(&self, t: f64) -> Option<f64> {
        let (a, b) = (self.first()?, self.last()?);
        if t < a.epoch - 2.0 || t > b.epoch + 2.0 {
            return None;
        }
        let k = self.points.partition_point(|p| p.epoch <= t);
        match (k.checked_sub(1).and_then(|i| self.points.get(i)), self.points.get(k)) {
            (Some(p), Some(q)) if q.epoch > p.epoch => {
                Some(p.lag_s + (q.lag_s - p.lag_s) * (t - p.epoch) / (q.epoch - p.epoch))
            }
            (Some(p), _) => Some(p.lag_s),
            (None, Some(q)) => Some(q.lag_s),
            (None, None) => None,
        }
    }
}

/// Every witness of one replication connection.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Witnesses {
    /// The series measured, in [`Witness`] order.
    pub series: Vec<LagSeries>,
    /// Witnesses in the capture that could not be used, and why.
    pub rejected: Vec<(Witness, String)>,
    /// Witnesses the capture lacks, and what would have recorded them.
    pub absent: Vec<(Witness, &'static str)>,
}

/// Readings a series needs to be weighed at all.
pub(crate) const MIN_POINTS: usize = 5;

impl Witnesses {
    /// The series of a witness.
    pub fn get(&self, w: Witness) -> Option<&LagSeries> {
        self.series.iter().find(|s| s.witness == w)
    }

    /// The series the lag is told from: a source-side witness (pt-heartbeat, binlog events) with
    /// [`MIN_POINTS`] readings over at least half of `span_s` (the status series' span), the most
    /// precise first; else `Seconds_Behind_Master`.
    pub fn best(&self, span_s: f64) -> Option<&LagSeries> {
        let source_side = self
            .series
            .iter()
            .filter(|s| s.witness != Witness::SecondsBehind)
            .filter(|s| s.points.len() >= MIN_POINTS && s.span_s() >= 0.5 * span_s)
            .min_by(|a, b| a.uncertainty_s.total_cmp(&b.uncertainty_s).then(a.witness.cmp(&b.witness)));
        source_side.or_else(|| self.get(Witness::SecondsBehind))
    }

    /// `Seconds_Behind_Master` readings of 0 taken while `best` measured the replica `min_s` seconds
    /// behind or more: (such readings, readings of 0 in `best`'s span, the largest lag `best` measured at one).
    pub fn sbm_zero_while_behind(
        view: &ReplicaView,
        best: &LagSeries,
        min_s: f64,
    ) -> (usize, usize, Option<f64>) {
        let (mut behind, mut zeros, mut worst): (usize, usize, Option<f64>) = (0, 0, None);
        for &(t, v, _) in &view.sbm_raw {
            let Some(lag) = best.at(t) else { continue };
            if v == 0.0 {
                zeros += 1;
                if lag >= min_s {
                    behind += 1;
                    worst = Some(worst.map_or(lag, |w: f64| w.max(lag)));
                }
            }
        }
        (behind, zeros, worst)
    }
}

/// The whole-second source times are centred (+0.5 s) and a write is placed within a 1 s position interval.
pub(crate) const BINLOG_UNCERTAINTY_S: f64 = 1.0;

/// The binlog-events series: the replicated transactions' lags, the median of each second of writes.
pub(crate) fn binlog_series(events: &[TimedEvent], file: usize) -> LagSeries {
    let readings = events.iter().map(|e| (e.written, e.written - e.source - 0.5, e.line as usize)).collect();
    LagSeries {
        witness: Witness::BinlogEvents,
        file,
        how: format!(
            "{} replicated transactions of the replica's binlog, each written a measured time after the source committed it (median per second)",
            events.len()
        ),
        points: per_second(readings),
        uncertainty_s: BINLOG_UNCERTAINTY_S,
    }
}

/// Lag points from `(when, lag, line)` readings: the median of each second, at its last reading.
fn per_second(mut r: Vec<(f64, f64, usize)>) -> Vec<LagPoint> {
    r.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut points = Vec::new();
    for chunk in r.chunk_by(|a, b| a.0.floor() == b.0.floor()) {
        let mut lags: Vec<f64> = chunk.iter().map(|x| x.1).collect();
        lags.sort_by(f64::total_cmp);
        let last = chunk[chunk.len() - 1];
        points.push(LagPoint { epoch: last.0, lag_s: lags[lags.len() / 2], line: last.2 });
    }
    points
}

/// The commit-timestamps series (MySQL 8): the replicated transactions of the replica's binlog (another
/// server id than `own`, or `source`'s) with both commit times, the lag `immediate - original` at `immediate`.
pub(crate) fn commit_series(b: &BinlogInput<'_>, own: Option<u32>, source: Option<u64>) -> Option<LagSeries> {
    let readings: Vec<(f64, f64, usize)> = b
        .binlog
        .transactions
        .iter()
        .filter(|t| {
            t.server_id.is_some_and(|id| own != Some(id) && source.is_none_or(|s| s == u64::from(id)))
        })
        .filter_map(|t| {
            let (orig, imm) = t.commit_us?;
            Some((imm as f64 / 1e6, (imm - orig) as f64 / 1e6, t.start_line as usize))
        })
        .collect();
    if readings.is_empty() {
        return None;
    }
    let n = readings.len();
    Some(LagSeries {
        witness: Witness::CommitTimestamps,
        file: b.file,
        points: per_second(readings),
        uncertainty_s: 0.01,
        how: format!(
            "{n} replicated transactions of the replica's binlog with their original and immediate commit timestamps (median per second; the two hosts' clocks as they are)"
        ),
    })
}

/// A stamp read as UTC (`offset_s` 0) or as local time `offset_s` ahead of UTC.
fn stamp_epoch(r: &Row, offset_s: Option<i64>, zone: &Zone) -> f64 {
    match offset_s {
        Some(o) => r.stamp.and_utc().timestamp_micros() as f64 / 1e6 - o as f64,
        None => zone.local_to_epoch(r.stamp),
    }
}

/// The source's rows of the heartbeat file with the most rows: those of `source` (its server id), else of
/// the one other server than `own` with the most rows.
fn source_rows<'h>(
    hb: &[HeartbeatInput<'h>],
    source: Option<u64>,
    own: Option<u32>,
) -> (usize, Vec<&'h Row>) {
    let Some(f) = hb.iter().max_by_key(|f| (f.heartbeat.rows.len(), std::cmp::Reverse(f.file))) else {
        return (0, Vec::new());
    };
    let rows = &f.heartbeat.rows;
    let id = source.or_else(|| {
        let others = f.heartbeat.server_ids().into_iter().filter(|&i| own.is_none_or(|o| u64::from(o) != i));
        others.max_by_key(|&i| rows.iter().filter(|r| r.server_id == i).count())
    });
    (f.file, rows.iter().filter(|r| Some(r.server_id) == id && r.read_epoch().is_some()).collect())
}

/// The pt-heartbeat series of a connection. `Err` says why rows that are there cannot be used: none of the
/// source's server id, or a stamp that never moves while the SQL thread executes (pt-heartbeat not running:
/// the "lag" would only be the time since it stopped).
pub(crate) fn heartbeat_series(
    hb: &[HeartbeatInput<'_>],
    view: &ReplicaView,
    own: Option<u32>,
    zone: &Zone,
) -> Result<Option<LagSeries>, String> {
    if hb.iter().all(|f| f.heartbeat.rows.is_empty()) {
        return Ok(None);
    }
    let (file, rows) = source_rows(hb, view.source_server_id, own);
    if rows.is_empty() {
        let ids: Vec<String> =
            hb.iter().flat_map(|f| f.heartbeat.server_ids()).map(|i| i.to_string()).collect();
        return Err(format!(
            "its rows are stamped by server id {} only, not by the source{}",
            ids.join(", "),
            view.source_server_id.map_or(String::new(), |s| format!(" (server id {s})"))
        ));
    }
    // Local time or UTC (`--utc`): the reading server's offset (`server_now - server_utc`), else the capture's.
    let local = rows.iter().find_map(|r| r.server_offset_s());
    let read = |r: &Row, o: Option<i64>| r.read_epoch().unwrap_or(0.0) - stamp_epoch(r, o, zone);
    let mut candidates: Vec<(Option<i64>, &str)> = vec![(Some(0), "UTC")];
    if local != Some(0) && (local.is_some() || zone.offset_s != 0) {
        candidates.push((local, "local time"));
    }
    // A reading of the wrong zone is hours off: negative (more than 2 s), or the larger of the two.
    let score = |o: Option<i64>| {
        let lags: Vec<f64> = rows.iter().map(|r| read(r, o)).collect();
        let negative = lags.iter().filter(|&&l| l < -2.0).count();
        let mut abs: Vec<f64> = lags.iter().map(|l| l.abs()).collect();
        abs.sort_by(f64::total_cmp);
        (negative * 10 > lags.len(), abs[abs.len() / 2])
    };
    let (offset, zone_words) = candidates
        .iter()
        .copied()
        .min_by(|a, b| {
            let (sa, sb) = (score(a.0), score(b.0));
            sa.0.cmp(&sb.0).then(sa.1.total_cmp(&sb.1))
        })
        .unwrap_or((Some(0), "UTC"));
    let mut stamps: Vec<f64> = rows.iter().map(|r| stamp_epoch(r, offset, zone)).collect();
    stamps.sort_by(f64::total_cmp);
    stamps.dedup();
    let span = rows.last().and_then(|r| r.read_epoch()).unwrap_or(0.0)
        - rows.first().and_then(|r| r.read_epoch()).unwrap_or(0.0);
    let executed = view.executed_bytes_s.unwrap_or(0.0) * span;
    if stamps.len() == 1 && rows.len() >= MIN_POINTS && span >= 10.0 && executed > 0.0 {
        return Err(format!(
            "the source's row (server id {}, stamped {}) never changed in {} readings over {:.0} s while the SQL thread executed {:.0} KiB of the source's binlog: pt-heartbeat --update is not running on the source, and the time since its last stamp is no lag",
            rows[0].server_id,
            rows[0].stamp.format("%Y-%m-%d %H:%M:%S"),
            rows.len(),
            span,
            executed / 1024.0
        ));
    }
    // pt-heartbeat's interval: the smallest step between the stamps seen (1 s by default).
    let interval =
        stamps.windows(2).map(|w| w[1] - w[0]).filter(|d| *d > 0.005).fold(f64::INFINITY, f64::min);
    let interval = if interval.is_finite() { interval.clamp(0.01, 60.0) } else { 1.0 };
    let points: Vec<LagPoint> = rows
        .iter()
        .filter_map(|r| Some(LagPoint { epoch: r.read_epoch()?, lag_s: read(r, offset), line: r.line }))
        .collect();
    Ok(Some(LagSeries {
        witness: Witness::Heartbeat,
        file,
        how: format!(
            "{} readings of the source's pt-heartbeat row (server id {}, stamps in {zone_words} every {interval:.2} s): the replica's clock minus the newest stamp",
            points.len(),
            rows[0].server_id
        ),
        points,
        uncertainty_s: interval,
    }))
}

/// The `Seconds_Behind_Master` series as the status view keeps it.
pub(crate) fn sbm_series(view: &ReplicaView) -> Option<LagSeries> {
    (!view.lag.is_empty()).then(|| LagSeries {
        witness: Witness::SecondsBehind,
        file: view.file,
        points: view.lag.iter().map(|&(epoch, lag_s, line)| LagPoint { epoch, lag_s, line }).collect(),
        uncertainty_s: 1.0,
        how: format!(
            "{} Seconds_Behind_Master readings of SHOW SLAVE STATUS ({} readings of 0 left out)",
            view.lag.len(),
            view.zeros_dropped
        ),
    })
}

/// Every witness of `view`'s connection.
pub(crate) fn witnesses(
    view: &ReplicaView,
    own: Option<u32>,
    binlog: Option<&BinlogInput<'_>>,
    status: &[StatusInput<'_>],
    hb: &[HeartbeatInput<'_>],
    zone: &Zone,
) -> Witnesses {
    let mut w = Witnesses::default();
    match heartbeat_series(hb, view, own, zone) {
        Ok(Some(s)) => w.series.push(s),
        Ok(None) => w.absent.push((
            Witness::Heartbeat,
            "no pt-heartbeat rows in the capture (run pt-heartbeat --update on the source; collect.sh -M reads its table every interval)",
        )),
        Err(why) => w.rejected.push((Witness::Heartbeat, why)),
    }
    if let Some(s) = binlog.and_then(|b| commit_series(b, own, view.source_server_id)) {
        w.series.push(s);
    }
    let events = super::replication::timed_events(own, view.source_server_id, binlog, status, zone);
    match (events, binlog) {
        (Some(e), Some(b)) => w.series.push(binlog_series(&e, b.file)),
        (None, Some(_)) => w.absent.push((
            Witness::BinlogEvents,
            "the decoded binlog holds no source transactions timed by this server's SHOW MASTER STATUS series (log_slave_updates off, or the series missing)",
        )),
        _ => w.absent.push((
            Witness::BinlogEvents,
            "no decoded binlog of the replica (log_slave_updates=ON and collect.sh -M decode the window)",
        )),
    }
    if let Some(s) = sbm_series(view) {
        w.series.push(s);
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(w: Witness, pts: &[(f64, f64)], u: f64) -> LagSeries {
        LagSeries {
            witness: w,
            file: 0,
            points: pts.iter().map(|&(epoch, lag_s)| LagPoint { epoch, lag_s, line: 1 }).collect(),
            uncertainty_s: u,
            how: String::new(),
        }
    }

    #[test]
    fn interpolates_and_fits() {
        let s = series(
            Witness::Heartbeat,
            &[(10.0, 0.0), (12.0, 2.0), (14.0, 4.0), (16.0, 6.0), (18.0, 8.0)],
            1.0,
        );
        assert_eq!(s.at(11.0), Some(1.0));
        assert_eq!(s.at(7.0), None);
        assert_eq!(s.at(19.0), Some(8.0));
        assert!((s.growth().unwrap() - 1.0).abs() < 1e-12);
        assert_eq!((s.span_s(), s.max_s()), (8.0, Some(8.0)));
    }

    #[test]
    fn the_best_is_source_side_and_covers_the_capture() {
        let pts: Vec<(f64, f64)> = (0..10).map(|k| (k as f64 * 10.0, k as f64)).collect();
        let short: Vec<(f64, f64)> = (0..6).map(|k| (k as f64, k as f64)).collect();
        let w = Witnesses {
            series: vec![
                series(Witness::BinlogEvents, &short, 1.0),
                series(Witness::SecondsBehind, &pts, 1.0),
            ],
            ..Default::default()
        };
        // Binlog events over 5 s of a 90 s series: Seconds_Behind_Master it is.
        assert_eq!(w.best(90.0).unwrap().witness, Witness::SecondsBehind);
        let w = Witnesses {
            series: vec![
                series(Witness::Heartbeat, &pts, 1.0),
                series(Witness::BinlogEvents, &pts, 1.0),
                series(Witness::SecondsBehind, &pts, 1.0),
            ],
            ..Default::default()
        };
        assert_eq!(w.best(90.0).unwrap().witness, Witness::Heartbeat);
    }

    /// A heartbeat file of `n` readings one second apart from epoch 1000 (UTC host unless `now`/`utc` say
    /// otherwise), the row stamped `stamp(k)` at reading k.
    fn hb_file(
        n: usize,
        now_utc: (&str, &str),
        stamp: impl Fn(usize) -> String,
    ) -> iosift_parsers::pt_heartbeat::Heartbeat {
        use iosift_parsers::Format;
        let mut t = String::new();
        for k in 0..n {
            t.push_str(&format!(
                "TS {}.0\nserver_epoch\tserver_now\tserver_utc\tts\tserver_id\tfile\tposition\n{}.0\t{}\t{}\t{}\t1\tb.000001\t{}\n",
                1000 + k,
                1000 + k,
                now_utc.0,
                now_utc.1,
                stamp(k),
                100 * k
            ));
        }
        iosift_parsers::pt_heartbeat::Fmt::parse(t.as_bytes()).value
    }

    fn utc(epoch: f64) -> String {
        let d = chrono::DateTime::from_timestamp_micros((epoch * 1e6) as i64).unwrap().naive_utc();
        d.format("%Y-%m-%dT%H:%M:%S%.6f").to_string()
    }

    #[test]
    fn heartbeat_rows_measure_and_a_frozen_row_is_refused() {
        let view =
            ReplicaView { source_server_id: Some(1), executed_bytes_s: Some(1e3), ..Default::default() };
        let zone = Zone::assumed_utc();
        // Stamped every second, applied 0.5 s per s late: lag 0.2 s + 0.5 s per reading.
        let hb = hb_file(12, ("", ""), |k| utc(1000.0 + 0.5 * k as f64 - 0.2));
        let input = [HeartbeatInput { file: 4, heartbeat: &hb }];
        let s = heartbeat_series(&input, &view, Some(2), &zone).unwrap().unwrap();
        assert_eq!((s.file, s.points.len(), s.points[0].line), (4, 12, 3));
        assert!((s.points[11].lag_s - 5.7).abs() < 1e-6, "{:?}", s.points[11]);
        assert!((s.growth().unwrap() - 0.5).abs() < 1e-9);
        assert!((s.uncertainty_s - 0.5).abs() < 1e-9);
        // The same stamp in every reading while the SQL thread executes: pt-heartbeat is not running.
        let frozen = hb_file(12, ("", ""), |_| utc(900.0));
        let input = [HeartbeatInput { file: 4, heartbeat: &frozen }];
        let why = heartbeat_series(&input, &view, Some(2), &zone).unwrap_err();
        assert!(why.contains("never changed in 12 readings"), "{why}");
        // Rows of another server only.
        let other = ReplicaView { source_server_id: Some(7), ..view };
        assert!(heartbeat_series(&input, &other, Some(2), &zone).unwrap_err().contains("server id 1 only"));
    }

    #[test]
    fn heartbeat_stamps_in_local_time_are_read_in_the_servers_zone() {
        let view = ReplicaView { source_server_id: Some(1), ..Default::default() };
        // A +02:00 host: pt-heartbeat writes local time (stamp = UTC + 2 h), 3 s behind.
        let local = |e: f64| utc(e + 7200.0);
        let hb = hb_file(6, ("1970-01-01 02:16:40", "1970-01-01 00:16:40"), |k| local(997.0 + k as f64));
        let input = [HeartbeatInput { file: 0, heartbeat: &hb }];
        let s = heartbeat_series(&input, &view, None, &Zone::assumed_utc()).unwrap().unwrap();
        assert!(s.points.iter().all(|p| (p.lag_s - 3.0).abs() < 1e-6), "{:?}", s.points);
        assert!(s.how.contains("stamps in local time"), "{}", s.how);
    }

    /// MySQL 8 GTID events (the format of the real 8.0 line of `mysqlbinlog`'s doc) of a replica 2 s, then 4 s behind.
    #[test]
    fn commit_timestamps_give_the_lag_of_each_transaction() {
        use iosift_parsers::Format;
        let trx = |at: u64, orig: i64, imm: i64, id: u32| {
            format!(
                "# at {at}\n#250508 17:06:18 server id {id}  end_log_pos {} CRC32 0xf5fa7824 \tGTID\tlast_committed=0\tsequence_number=1\trbr_only=yes\toriginal_committed_timestamp={orig}\timmediate_commit_timestamp={imm}\ttransaction_length=301\n# at {}\n#250508 17:06:18 server id {id}  end_log_pos {} CRC32 0x5ab245b8 \tXid = 12\nCOMMIT/*!*/;\n",
                at + 79,
                at + 100,
                at + 131
            )
        };
        let text = [
            trx(157, 1_000_000_000, 3_000_000, 1).replace("=3000000", "=1002000000"),
            trx(400, 1_001_000_000, 1_005_000_000, 1),
            trx(700, 1_005_000_000, 1_005_000_000, 2),
        ]
        .concat();
        let binlog = iosift_parsers::mysqlbinlog::Fmt::parse(text.as_bytes()).value;
        let b = BinlogInput { file: 9, name: "b", base: "b", binlog: &binlog };
        let s = commit_series(&b, Some(2), None).unwrap();
        let lags: Vec<(f64, f64)> = s.points.iter().map(|p| (p.epoch, p.lag_s)).collect();
        assert_eq!(lags, [(1002.0, 2.0), (1005.0, 4.0)]);
        assert_eq!((s.file, s.witness.id()), (9, "commit_timestamps"));
        assert!(commit_series(&b, Some(2), Some(5)).is_none());
    }

    #[test]
    fn binlog_seconds_take_the_median_centred() {
        let e = |written, source| TimedEvent { written, source, line: 7 };
        let s = binlog_series(&[e(100.2, 90.0), e(100.5, 91.0), e(100.9, 99.0), e(101.1, 95.0)], 3);
        assert_eq!(s.points.len(), 2);
        // Second 100: lags 10.2, 9.5, 1.9 -> median 9.5, centred 9.0; second 101: 6.1 - 0.5.
        assert!((s.points[0].lag_s - 9.0).abs() < 1e-9, "{:?}", s.points);
        assert!((s.points[1].lag_s - 5.6).abs() < 1e-9);
        assert_eq!((s.points[0].epoch, s.file), (100.9, 3));
    }
}
