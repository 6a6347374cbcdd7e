//! Events one node's capture shares with another's: what a cluster view needs to put
//! the nodes on one time axis ([`crate::cluster::offset`]) and to follow a transaction from
//! the source to a replica ([`crate::cluster::chain`]). Each node's report keeps them ([`Shared`]),
//! taken from its records when it is analyzed; the clocks are the node's own.
//!
//! * The source's own binlog end (`SHOW MASTER STATUS` rows of `collect.sh -M`'s
//!   `-slave-status` file, `TS` framed): when, on the source's clock, its binlog reached
//!   a position.
//! * A replica's `Read_Master_Log_Pos` (same file, `SHOW SLAVE STATUS`): when, on the
//!   replica's clock, its IO thread had received the source's binlog up to a position.
//! * pt-heartbeat rows read on a node (`-heartbeat`): the stamping server's clock in `ts`,
//!   the reading server's in `server_epoch`.
//! * Galera's `wsrep_last_committed` per second (the timeline's `wsrep` columns).

use crate::analysis::Records;
use serde::Serialize;

/// One `SHOW MASTER STATUS` reading: this node's binlog end at `epoch` (its clock).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OwnPos {
    /// When (this node's clock, epoch seconds).
    pub epoch: f64,
    /// Binlog file name.
    pub file: String,
    /// Its end position.
    pub pos: u64,
}

/// One `SHOW SLAVE STATUS` reading of a replica connection.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Received {
    /// When (this node's clock, epoch seconds).
    pub epoch: f64,
    /// `Master_Server_Id`, when printed.
    pub source_server_id: Option<u64>,
    /// `Master_Port`, when printed.
    pub source_port: Option<u64>,
    /// `Master_Log_File`: the source binlog the IO thread reads.
    pub file: String,
    /// `Read_Master_Log_Pos`.
    pub read_pos: u64,
    /// `Relay_Master_Log_File` / `Exec_Master_Log_Pos`: how far the SQL thread executed.
    pub exec: Option<(String, u64)>,
    /// `Seconds_Behind_Master`.
    pub seconds_behind: Option<u64>,
    /// `Slave_IO_State`.
    pub io_state: Option<String>,
}

/// One pt-heartbeat row read on this node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Beat {
    /// When it was read (this node's clock, epoch seconds).
    pub read_epoch: f64,
    /// The server that stamped it.
    pub server_id: u64,
    /// Its `ts`, a local time of the stamping server, as seconds since 1970 read as if UTC.
    pub stamp_naive_s: f64,
    /// The reading server's UTC offset (`server_now - server_utc`), when printed.
    pub reader_offset_s: Option<i64>,
}

/// What one node's capture holds of the events it shares with other nodes.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Shared {
    /// `server_id` (SHOW VARIABLES / my.cnf), when known.
    pub server_id: Option<u64>,
    /// `port`, when known.
    pub port: Option<u64>,
    /// The capture's UTC offset (local = UTC + offset), when the capture tells it.
    pub zone_offset_s: Option<i32>,
    /// This node's binlog end over time.
    pub own: Vec<OwnPos>,
    /// Its replica connections' readings over time.
    pub received: Vec<Received>,
    /// Heartbeat rows read on it.
    pub beats: Vec<Beat>,
    /// Galera's `wsrep_last_committed` per timeline row: (epoch, seqno), this node's clock.
    pub seqnos: Vec<(f64, f64)>,
}

impl Shared {
    /// Gathers the shared events of one node from its records and context.
    pub(crate) fn gather(
        records: &Records<'_>,
        ctx: &crate::source::Context,
        zone: &crate::clock::Zone,
        tl: &crate::table::Timeline,
    ) -> Shared {
        let num = |name: &str| ctx.variable(name).and_then(|v| v.value.trim().parse::<u64>().ok());
        let mut s = Shared {
            server_id: num("server_id"),
            port: num("port"),
            zone_offset_s: (!zone.assumed).then_some(zone.offset_s),
            ..Shared::default()
        };
        for f in &records.status {
            for b in &f.status.binlog {
                let Some(ts) = b.ts else { continue };
                s.own.push(OwnPos { epoch: ts.epoch, file: b.file.clone(), pos: b.position });
            }
            for c in &f.status.rows {
                let (Some(ts), Some(file), Some(read_pos)) = (c.ts, &c.source_log_file, c.read_pos) else {
                    continue;
                };
                s.received.push(Received {
                    epoch: ts.epoch,
                    source_server_id: c.source_server_id,
                    source_port: c.source_port,
                    file: file.clone(),
                    read_pos,
                    exec: c.exec_source_log_file.clone().zip(c.exec_pos),
                    seconds_behind: c.seconds_behind,
                    io_state: c.io_state.clone(),
                });
            }
        }
        for f in &records.heartbeat {
            for r in &f.heartbeat.rows {
                let Some(read_epoch) = r.read_epoch() else { continue };
                let naive = r.stamp.and_utc();
                s.beats.push(Beat {
                    read_epoch,
                    server_id: r.server_id,
                    stamp_naive_s: naive.timestamp() as f64
                        + f64::from(naive.timestamp_subsec_micros()) / 1e6,
                    reader_offset_s: r.server_offset_s(),
                });
            }
        }
        let seqno = crate::table::Col::Galera(crate::table::columns::GaleraMetric::LastCommitted);
        if let Some(v) = tl.get(&seqno) {
            s.seqnos = v
                .iter()
                .enumerate()
                .filter_map(|(row, c)| c.get().filter(|x| x.is_finite()).map(|x| (tl.epoch(row) as f64, x)))
                .collect();
        }
        let by_time = |a: f64, b: f64| a.total_cmp(&b);
        s.own.sort_by(|a, b| by_time(a.epoch, b.epoch));
        s.received.sort_by(|a, b| by_time(a.epoch, b.epoch));
        s.beats.sort_by(|a, b| by_time(a.read_epoch, b.read_epoch));
        s
    }
}
