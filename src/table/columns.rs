//! The typed catalogue of timeline columns. Every column a source emits and
//! every column an analysis, rule or chart reads is a [`Col`]; its
//! [`Col::name`] is the column's name in the timeline and in every table
//! (`dev.vda.w_bytes_s`, `mem.dirty_bytes`, ...), with its unit and a
//! one-line meaning. A typo is a compile error, not a silently empty column.
//!
//! `docs/columns.md` is generated from [`markdown`] and checked by a test.

use std::fmt;

/// The unit of a column's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Unit {
    /// Bytes per second (`B/s`).
    BytesPerS,
    /// Bytes (`B`).
    Bytes,
    /// Events per second (`1/s`).
    PerS,
    /// Milliseconds (`ms`).
    Ms,
    /// Percent (`%`).
    Pct,
    /// Seconds (`s`).
    S,
    /// A plain number (`1`).
    One,
}

impl Unit {
    /// The unit as the tables and the catalogue write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::BytesPerS => "B/s",
            Unit::Bytes => "B",
            Unit::PerS => "1/s",
            Unit::Ms => "ms",
            Unit::Pct => "%",
            Unit::S => "s",
            Unit::One => "1",
        }
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Declares a metric enum: variant = (name part, unit, meaning).
macro_rules! metrics {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $v:ident = ($key:literal, $unit:ident, $meaning:literal)),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name { $($(#[$vdoc])* $v),+ }
        impl $name {
            /// Every metric of this group, in catalogue order.
            pub const ALL: &'static [$name] = &[$($name::$v),+];
            /// The metric's part of the column name.
            pub fn key(self) -> &'static str { match self { $($name::$v => $key),+ } }
            /// The unit of its values.
            pub fn unit(self) -> Unit { match self { $($name::$v => Unit::$unit),+ } }
            /// One line on what it measures.
            pub fn meaning(self) -> &'static str { match self { $($name::$v => $meaning),+ } }
            /// The metric whose name part is `key`.
            pub fn from_key(key: &str) -> Option<Self> { Self::ALL.iter().copied().find(|m| m.key() == key) }
        }
    };
}

metrics! {
    /// Per-device metrics (`dev.<device>.<metric>`): iostat -x, else `sar -d`.
    DevMetric {
        /// Write bytes.
        WBytesS = ("w_bytes_s", BytesPerS, "bytes written to the device per second (wkB/s, wMB/s)"),
        /// Read bytes.
        RBytesS = ("r_bytes_s", BytesPerS, "bytes read from the device per second"),
        /// Write requests.
        WS = ("w_s", PerS, "write requests completed per second"),
        /// Read requests.
        RS = ("r_s", PerS, "read requests completed per second"),
        /// Flush requests.
        FS = ("f_s", PerS, "flush requests completed per second (iostat >= 12.x)"),
        /// Merged writes.
        WrqmS = ("wrqm_s", PerS, "write requests merged per second"),
        /// Write latency.
        WAwaitMs = ("w_await_ms", Ms, "mean time of a write request, queue included"),
        /// Read latency.
        RAwaitMs = ("r_await_ms", Ms, "mean time of a read request, queue included"),
        /// Flush latency.
        FAwaitMs = ("f_await_ms", Ms, "mean time of a flush request"),
        /// Latency of all requests.
        AwaitMs = ("await_ms", Ms, "mean time of any request (older iostat, sar -d)"),
        /// Queue size.
        AquSz = ("aqu_sz", One, "average number of requests in flight (aqu-sz, avgqu-sz)"),
        /// Utilisation.
        UtilPct = ("util_pct", Pct, "share of the second the device had requests in flight"),
        /// Write request size.
        WReqBytes = ("w_req_bytes", Bytes, "mean size of a write request (wareq-sz)"),
        /// Transfers.
        Tps = ("tps", PerS, "transfers (requests) per second"),
    }
}

metrics! {
    /// Per-device counters of `/proc/diskstats` snapshots (`ds.<device>.<metric>`).
    DsMetric {
        /// Write bytes.
        WBytesS = ("w_bytes_s", BytesPerS, "sectors written x 512 per second between two snapshots"),
        /// Write requests.
        WS = ("w_s", PerS, "writes completed per second between two snapshots"),
        /// Mean write request size.
        WReqBytes = ("w_req_bytes", Bytes, "sectors written x 512 / writes completed between two snapshots (mean write request size)"),
        /// Flushes.
        FS = ("f_s", PerS, "flush requests completed per second (kernel >= 5.5)"),
        /// Read bytes.
        RBytesS = ("r_bytes_s", BytesPerS, "sectors read x 512 per second between two snapshots"),
        /// Read requests.
        RS = ("r_s", PerS, "reads completed per second between two snapshots"),
        /// Mean read request size.
        RReqBytes = ("r_req_bytes", Bytes, "sectors read x 512 / reads completed between two snapshots (mean read request size)"),
        /// Discarded bytes.
        DBytesS = ("d_bytes_s", BytesPerS, "sectors discarded x 512 per second (kernel >= 4.18)"),
        /// Discard requests.
        DS = ("d_s", PerS, "discard requests completed per second (kernel >= 4.18)"),
    }
}

metrics! {
    /// CPU of all cores (`cpu.<metric>`): iostat avg-cpu, else sar -u or mpstat.
    CpuMetric {
        /// User.
        UserPct = ("user_pct", Pct, "CPU time in user space, guests included (sar -u %user; -u ALL and mpstat: %usr + %guest)"),
        /// System.
        SystemPct = (
            "system_pct",
            Pct,
            "CPU time in the kernel, interrupts included (sar -u and iostat %system; -u ALL and mpstat: %sys + %irq + %soft)"
        ),
        /// I/O wait.
        IowaitPct = ("iowait_pct", Pct, "idle CPU time with I/O outstanding"),
        /// Idle.
        IdlePct = ("idle_pct", Pct, "idle CPU time"),
    }
}

metrics! {
    /// Per-core CPU (`cpu.<n>.<metric>`): sar -P ALL, mpstat -P ALL; `<n>` is the core number as
    /// sar prints it (`sadf -p`'s `cpu0` is core `0`).
    CoreMetric {
        /// Busy.
        BusyPct = ("busy_pct", Pct, "100 - %idle of the core"),
        /// I/O wait.
        IowaitPct = ("iowait_pct", Pct, "iowait of the core"),
    }
}

metrics! {
    /// `vmstat` columns (`vmstat.<field>`), as printed.
    VmstatField {
        /// Runnable.
        R = ("r", One, "runnable processes"),
        /// Blocked.
        B = ("b", One, "processes in uninterruptible sleep"),
        /// User.
        Us = ("us", One, "user CPU %"),
        /// System.
        Sy = ("sy", One, "system CPU %"),
        /// Idle.
        Id = ("id", One, "idle CPU %"),
        /// Wait.
        Wa = ("wa", One, "iowait CPU %"),
        /// Blocks out.
        Bo = ("bo", One, "blocks (1 kB) written out per second"),
        /// Blocks in.
        Bi = ("bi", One, "blocks (1 kB) read in per second"),
    }
}

metrics! {
    /// Memory gauges (`mem.<metric>`): /proc/meminfo snapshots, else sar -r; the dirty
    /// thresholds from /proc/vmstat snapshots.
    MemMetric {
        /// Dirty.
        DirtyBytes = ("dirty_bytes", Bytes, "page cache waiting to be written back (Dirty)"),
        /// Writeback.
        WritebackBytes = ("writeback_bytes", Bytes, "page cache being written back now (Writeback)"),
        /// FilePmdMapped.
        FilePmdMappedBytes = ("file_pmd_mapped_bytes", Bytes, "file pages mapped with PMD (2 MiB) entries"),
        /// MemFree + Active(file) + Inactive(file).
        DirtyableBytes = ("dirtyable_bytes", Bytes, "MemFree + Active(file) + Inactive(file): the memory vm.dirty_ratio is a share of"),
        /// nr_dirty_threshold.
        DirtyLimitBytes = ("dirty_limit_bytes", Bytes, "the kernel's dirty limit (/proc/vmstat nr_dirty_threshold x 4 KiB pages)"),
        /// nr_dirty_background_threshold.
        DirtyBackgroundLimitBytes = ("dirty_background_limit_bytes", Bytes, "where background writeback starts (/proc/vmstat nr_dirty_background_threshold x 4 KiB pages)"),
    }
}

metrics! {
    /// /proc/vmstat counters per second (`vm.<counter>_s`).
    VmCounter {
        /// nr_dirtied.
        NrDirtiedS = ("nr_dirtied_s", PerS, "pages dirtied per second (nr_dirtied)"),
        /// nr_written.
        NrWrittenS = ("nr_written_s", PerS, "pages written back per second (nr_written)"),
        /// pgpgout.
        PgpgoutS = ("pgpgout_s", PerS, "kB paged out per second (pgpgout; sar -B pgpgout/s)"),
        /// thp_file_mapped.
        ThpFileMappedS = ("thp_file_mapped_s", PerS, "file THPs mapped per second"),
        /// thp_fault_alloc.
        ThpFaultAllocS = ("thp_fault_alloc_s", PerS, "THPs allocated on faults per second"),
        /// nr_vmscan_immediate_reclaim.
        VmscanImmediateS = ("nr_vmscan_immediate_reclaim_s", PerS, "pages reclaim found dirty or under writeback and marked to free once written, per second (nr_vmscan_immediate_reclaim)"),
        /// nr_vmscan_write.
        VmscanWriteS = ("nr_vmscan_write_s", PerS, "pages written by reclaim itself per second (nr_vmscan_write)"),
    }
}

metrics! {
    /// perf series (`perf.<metric>`).
    PerfMetric {
        /// fsync samples.
        FsyncSamplesS = ("fsync_samples_s", PerS, "perf samples inside fsync/fdatasync per second"),
        /// Block issue bytes.
        RqIssueWBytesS = ("rq_issue_w_bytes_s", BytesPerS, "bytes of write requests issued (block_rq_issue)"),
        /// Sampling span.
        SamplesSeen = ("samples_seen", One, "marks the first and last second perf sampled"),
    }
}

metrics! {
    /// Binary log series (`binlog.<metric>`).
    BinlogMetric {
        /// Transactions.
        TrxS = ("trx_s", PerS, "transactions committed per second (this server's id)"),
        /// Bytes.
        BytesS = ("bytes_s", BytesPerS, "binlog bytes written per second"),
        /// Rows.
        RowsS = ("rows_s", PerS, "rows changed per second"),
        /// Growth.
        LocalBytesS = ("local_bytes_s", BytesPerS, "growth of the local binlog (SHOW MASTER STATUS position)"),
    }
}

metrics! {
    /// mysqladmin extended-status counters per second (`mysql.<Counter>_s`).
    MysqlCounter {
        /// Data fsyncs.
        InnodbDataFsyncsS = ("Innodb_data_fsyncs_s", PerS, "InnoDB fsync() calls per second"),
        /// Log fsyncs.
        InnodbOsLogFsyncsS = ("Innodb_os_log_fsyncs_s", PerS, "InnoDB redo log fsyncs per second"),
        /// Binlog commits.
        BinlogCommitsS = ("Binlog_commits_s", PerS, "transactions written to the binlog per second"),
        /// Group commits.
        BinlogGroupCommitsS = ("Binlog_group_commits_s", PerS, "binlog group commits per second"),
        /// Commits.
        ComCommitS = ("Com_commit_s", PerS, "COMMIT statements per second"),
        /// Handler commits.
        HandlerCommitS = ("Handler_commit_s", PerS, "storage engine commits per second"),
        /// Questions.
        QuestionsS = ("Questions_s", PerS, "statements per second"),
        /// Data written.
        InnodbDataWrittenS = ("Innodb_data_written_s", PerS, "InnoDB bytes written per second"),
    }
}

metrics! {
    /// Galera (wsrep) status of one node, from `mysqladmin extended-status` (`galera.<metric>`):
    /// the raw values as read (flow control, queues, the last committed seqno) and rates of the
    /// counters. Each node's capture has its own; a cluster is several captures.
    GaleraMetric {
        /// Paused share.
        FcPausedPct = (
            "fc_paused_pct",
            Pct,
            "share of the second replication was paused by flow control (rate of wsrep_flow_control_paused_ns)"
        ),
        /// wsrep_flow_control_paused.
        FcPaused = ("fc_paused", One, "wsrep_flow_control_paused as read (paused fraction since FLUSH STATUS)"),
        /// wsrep_flow_control_sent.
        FcSent = ("fc_sent", One, "wsrep_flow_control_sent as read (pause requests this node sent)"),
        /// wsrep_flow_control_recv.
        FcRecv = ("fc_recv", One, "wsrep_flow_control_recv as read (pause requests this node received)"),
        /// Sent per second.
        FcSentS = ("fc_sent_s", PerS, "flow-control pause requests this node sent per second"),
        /// Received per second.
        FcRecvS = ("fc_recv_s", PerS, "flow-control pause requests this node received per second"),
        /// Receive queue.
        RecvQueue = ("recv_queue", One, "wsrep_local_recv_queue: write sets received, not yet applied"),
        /// Send queue.
        SendQueue = ("send_queue", One, "wsrep_local_send_queue: write sets waiting to be sent"),
        /// Last committed seqno.
        LastCommitted = ("last_committed", One, "wsrep_last_committed: the cluster seqno this node committed last"),
        /// Seqnos per second.
        CommittedS = ("committed_s", PerS, "cluster write sets this node committed per second (wsrep_last_committed)"),
        /// Replicated.
        ReplicatedS = ("replicated_s", PerS, "write sets this node replicated to the others per second"),
        /// Replicated bytes.
        ReplicatedBytesS = ("replicated_bytes_s", BytesPerS, "bytes of write sets this node replicated per second"),
        /// Received.
        ReceivedS = ("received_s", PerS, "write sets this node received per second"),
        /// Received bytes.
        ReceivedBytesS = ("received_bytes_s", BytesPerS, "bytes of write sets this node received per second"),
        /// Certified.
        LocalCommitsS = ("local_commits_s", PerS, "local transactions certified and committed per second"),
        /// Certification failures.
        CertFailuresS = ("cert_failures_s", PerS, "local transactions that failed certification per second"),
    }
}

metrics! {
    /// Replication series of `SHOW SLAVE STATUS` (`repl.<metric>`, `repl.<connection>.<metric>`).
    ReplMetric {
        /// Lag.
        SecondsBehindS = ("seconds_behind_s", S, "Seconds_Behind_Master"),
        /// Relay space.
        RelayLogSpaceBytes = ("relay_log_space_bytes", Bytes, "Relay_Log_Space"),
        /// Backlog.
        BacklogBytes = ("backlog_bytes", Bytes, "source binlog bytes received but not executed"),
        /// Received.
        ReceivedBytesS = ("received_bytes_s", BytesPerS, "source binlog bytes received per second"),
        /// Executed.
        ExecutedBytesS = ("executed_bytes_s", BytesPerS, "source binlog bytes executed per second"),
    }
}

metrics! {
    /// sar activities without a better source (`sar.<metric>`).
    SarMetric {
        /// sar -b wtps.
        IoWS = ("io_w_s", PerS, "write requests per second of all devices (sar -b wtps)"),
        /// sar -b bwrtn/s.
        IoWBytesS = ("io_w_bytes_s", BytesPerS, "bytes written per second of all devices (sar -b)"),
        /// sar -b bread/s.
        IoRBytesS = ("io_r_bytes_s", BytesPerS, "bytes read per second of all devices (sar -b)"),
        /// sar -q runq-sz.
        RunqSz = ("runq_sz", One, "run queue length (sar -q)"),
        /// sar -q blocked.
        Blocked = ("blocked", One, "tasks blocked on I/O (sar -q)"),
        /// sar -W pswpout/s.
        PswpoutS = ("pswpout_s", PerS, "pages swapped out per second (sar -W)"),
    }
}

metrics! {
    /// Per-interface network rates (`net.<iface>.<metric>`, sar -n DEV).
    NetMetric {
        /// Received.
        RxBytesS = ("rx_bytes_s", BytesPerS, "bytes received per second"),
        /// Sent.
        TxBytesS = ("tx_bytes_s", BytesPerS, "bytes sent per second"),
    }
}

metrics! {
    /// Host-wide series of pt-stalk samples (`top -b`, `/proc/interrupts`, `netstat -s`).
    HostMetric {
        /// top D state.
        TopDState = ("top.d_state", One, "processes in D state (top -b)"),
        /// top running.
        TopRunning = ("top.running", One, "running tasks (top -b)"),
        /// top wa.
        TopCpuWaPct = ("top.cpu_wa_pct", Pct, "iowait of all CPUs (top -b)"),
        /// Interrupts.
        IrqTotalS = ("irq.total_s", PerS, "interrupts per second, all lines (/proc/interrupts)"),
        /// Retransmissions.
        NetTcpRetransS = ("net.tcp_retrans_s", PerS, "TCP segments retransmitted per second (netstat -s)"),
        /// Established.
        NetTcpEstablished = ("net.tcp_established", One, "TCP connections established (netstat -s)"),
        /// /proc/stat procs_blocked.
        StatProcsBlocked = (
            "stat.procs_blocked",
            One,
            "tasks waiting for I/O (/proc/stat procs_blocked: the kernel's nr_iowait, not every D-state task)"
        ),
        /// /proc/stat procs_running.
        StatProcsRunning = ("stat.procs_running", One, "runnable tasks (/proc/stat procs_running)"),
        /// /proc/stat ctxt.
        StatCtxtS = ("stat.ctxt_s", PerS, "context switches per second (/proc/stat ctxt)"),
        /// /proc/stat processes.
        StatForksS = ("stat.forks_s", PerS, "processes created per second (/proc/stat processes)"),
    }
}

metrics! {
    /// Sources read only for their time range (another file of the same family feeds the timeline).
    SeenOf {
        /// An iostat not chosen.
        Iostat = ("iostat.seen", One, "an iostat file's reports (its numbers come from the chosen iostat)"),
        /// A pidstat not chosen.
        Pidstat = ("pidstat.seen", One, "a pidstat file's rows (attribution comes from the chosen pidstat)"),
        /// A sar file used for nothing.
        Sar = ("sar.seen", One, "a sar file's rows whose activities feed no column"),
    }
}

metrics! {
    /// Resources of pressure stall information (`psi.<resource>.<kind>`).
    PsiResource {
        /// I/O.
        Io = ("io", Pct, "I/O"),
        /// CPU.
        Cpu = ("cpu", Pct, "CPU"),
        /// Memory.
        Memory = ("memory", Pct, "memory"),
    }
}

metrics! {
    /// Kinds of pressure stall (`psi.<resource>.<kind>`, /proc/pressure/*).
    PsiKind {
        /// some.
        SomePct = ("some_pct", Pct, "share of the second at least one task was stalled on the resource (PSI some, from total)"),
        /// full.
        FullPct = ("full_pct", Pct, "share of the second all non-idle tasks were stalled on the resource (PSI full, from total)"),
    }
}

impl DevMetric {
    /// The same metric of /proc/diskstats' series (`ds.<device>.<metric>`), if it has one.
    pub fn on_diskstats(self) -> Option<DsMetric> {
        match self {
            DevMetric::WBytesS => Some(DsMetric::WBytesS),
            DevMetric::RBytesS => Some(DsMetric::RBytesS),
            DevMetric::WS => Some(DsMetric::WS),
            DevMetric::RS => Some(DsMetric::RS),
            DevMetric::FS => Some(DsMetric::FS),
            DevMetric::WReqBytes => Some(DsMetric::WReqBytes),
            DevMetric::WrqmS
            | DevMetric::WAwaitMs
            | DevMetric::RAwaitMs
            | DevMetric::FAwaitMs
            | DevMetric::AwaitMs
            | DevMetric::AquSz
            | DevMetric::UtilPct
            | DevMetric::Tps => None,
        }
    }
}

metrics! {
    /// Direction of a dstat disk column (`dstat.dsk/<device>:<dir>`).
    DstatDir {
        /// `writ`.
        Writ = ("writ", BytesPerS, "bytes per second of one disk (dstat dsk/<device>)"),
        /// `read`.
        Read = ("read", BytesPerS, "bytes per second of one disk (dstat dsk/<device>)"),
    }
}

metrics! {
    /// The submitter analysis's own series (`sub.<metric>`).
    SubMetric {
        /// Bytes.
        WBytesS = ("w_bytes_s", BytesPerS, "bytes per second one submitter wrote (the submitter analysis's own series)"),
    }
}

/// The entity part of a column name: a device, core, interface, thread, write-source
/// category, replica connection or PSI resource.
trait Entity: Sized {
    /// Appends the entity and `sep` to a name (nothing for an absent one).
    fn write(&self, sep: &str, out: &mut String);
    /// The entity a name part denotes.
    fn read(s: &str) -> Option<Self>;
    /// The entity of a name without one (the default replica connection), if allowed.
    fn absent() -> Option<Self> {
        None
    }
    /// As [`Col::entity`] gives it.
    fn text(&self) -> Option<String>;
}

impl Entity for String {
    fn write(&self, sep: &str, out: &mut String) {
        out.push_str(self);
        out.push_str(sep);
    }
    fn read(s: &str) -> Option<Self> {
        Some(s.to_string())
    }
    fn text(&self) -> Option<String> {
        Some(self.clone())
    }
}

impl Entity for u32 {
    fn write(&self, sep: &str, out: &mut String) {
        out.push_str(&self.to_string());
        out.push_str(sep);
    }
    fn read(s: &str) -> Option<Self> {
        s.parse().ok()
    }
    fn text(&self) -> Option<String> {
        Some(self.to_string())
    }
}

impl Entity for &'static str {
    fn write(&self, sep: &str, out: &mut String) {
        out.push_str(self);
        out.push_str(sep);
    }
    fn read(s: &str) -> Option<Self> {
        crate::attribution::CATEGORIES.iter().copied().find(|k| *k == s)
    }
    fn text(&self) -> Option<String> {
        Some((*self).to_string())
    }
}

impl Entity for Option<String> {
    fn write(&self, sep: &str, out: &mut String) {
        if let Some(c) = self {
            c.write(sep, out);
        }
    }
    fn read(s: &str) -> Option<Self> {
        Some(Some(s.to_string()))
    }
    fn absent() -> Option<Self> {
        Some(None)
    }
    fn text(&self) -> Option<String> {
        self.clone()
    }
}

impl Entity for PsiResource {
    fn write(&self, sep: &str, out: &mut String) {
        out.push_str(self.key());
        out.push_str(sep);
    }
    fn read(s: &str) -> Option<Self> {
        PsiResource::from_key(s)
    }
    /// PSI columns are host-wide: the resource is part of what they measure.
    fn text(&self) -> Option<String> {
        None
    }
}

/// One behaviour of a column family of [`columns!`], by the family's kind:
/// - `plain(prefix, m)`: `<prefix><metric>`, one column per metric;
/// - `keyed(prefix, e, sep, m, doc)`: `<prefix><entity><sep><metric>`, per entity;
/// - `fixed(prefix, e, suffix, unit, meaning, doc)`: `<prefix><entity><suffix>`, one metric;
/// - `hidden(prefix, m)`: as `plain`, left out of the catalogue (a scratch column).
macro_rules! family {
    (name plain($p:literal, $m:ident)) => {
        format!("{}{}", $p, $m.key())
    };
    (name hidden($p:literal, $m:ident)) => {
        format!("{}{}", $p, $m.key())
    };
    (name keyed($p:literal, $e:ident, $sep:literal, $m:ident, $doc:literal)) => {{
        let mut s = String::from($p);
        $e.write($sep, &mut s);
        s.push_str($m.key());
        s
    }};
    (name fixed($p:literal, $e:ident, $suffix:literal, $unit:ident, $meaning:literal, $doc:literal)) => {{
        let mut s = String::from($p);
        $e.write($suffix, &mut s);
        s
    }};

    (unit plain($p:literal, $m:ident)) => {
        $m.unit()
    };
    (unit hidden($p:literal, $m:ident)) => {
        $m.unit()
    };
    (unit keyed($p:literal, $e:ident, $sep:literal, $m:ident, $doc:literal)) => {
        $m.unit()
    };
    (unit fixed($p:literal, $e:ident, $suffix:literal, $unit:ident, $meaning:literal, $doc:literal)) => {
        Unit::$unit
    };

    (meaning plain($p:literal, $m:ident)) => {
        $m.meaning()
    };
    (meaning hidden($p:literal, $m:ident)) => {
        $m.meaning()
    };
    (meaning keyed($p:literal, $e:ident, $sep:literal, $m:ident, $doc:literal)) => {
        $m.meaning()
    };
    (meaning fixed($p:literal, $e:ident, $suffix:literal, $unit:ident, $meaning:literal, $doc:literal)) => {
        $meaning
    };

    (entity plain($p:literal, $m:ident)) => {
        None
    };
    (entity hidden($p:literal, $m:ident)) => {
        None
    };
    (entity keyed($p:literal, $e:ident, $sep:literal, $m:ident, $doc:literal)) => {
        $e.text()
    };
    (entity fixed($p:literal, $e:ident, $suffix:literal, $unit:ident, $meaning:literal, $doc:literal)) => {
        $e.text()
    };

    (parse $name:ident, $ctor:path, [$M:ty], plain($p:literal, $m:ident)) => {
        $name.strip_prefix($p).and_then(<$M>::from_key).map($ctor)
    };
    (parse $name:ident, $ctor:path, [$M:ty], hidden($p:literal, $m:ident)) => {
        $name.strip_prefix($p).and_then(<$M>::from_key).map($ctor)
    };
    (parse $name:ident, $ctor:path, [$E:ty, $M:ty], keyed($p:literal, $e:ident, $sep:literal, $m:ident, $doc:literal)) => {
        $name.strip_prefix($p).and_then(|rest| {
            if let (Some(e), Some(m)) = (<$E as Entity>::absent(), <$M>::from_key(rest)) {
                return Some($ctor(e, m));
            }
            let (e, m) = rest.rsplit_once($sep)?;
            Some($ctor(<$E as Entity>::read(e)?, <$M>::from_key(m)?))
        })
    };
    (parse $name:ident, $ctor:path, [$E:ty], fixed($p:literal, $e:ident, $suffix:literal, $unit:ident, $meaning:literal, $doc:literal)) => {
        $name.strip_prefix($p).and_then(|r| r.strip_suffix($suffix)).and_then(<$E as Entity>::read).map($ctor)
    };

    (rows $out:ident, $ctor:path, [$M:ty], plain($p:literal, $m:ident)) => {
        for m in <$M>::ALL {
            $out.push((format!("{}{}", $p, m.key()), m.unit(), m.meaning()));
        }
    };
    (rows $out:ident, $ctor:path, [$M:ty], hidden($p:literal, $m:ident)) => {};
    (rows $out:ident, $ctor:path, [$E:ty, $M:ty], keyed($p:literal, $e:ident, $sep:literal, $m:ident, $doc:literal)) => {
        for m in <$M>::ALL {
            $out.push((format!("{}{}", $doc, m.key()), m.unit(), m.meaning()));
        }
    };
    (rows $out:ident, $ctor:path, [$E:ty], fixed($p:literal, $e:ident, $suffix:literal, $unit:ident, $meaning:literal, $doc:literal)) => {
        $out.push((format!("{}{}", $doc, $suffix), Unit::$unit, $meaning));
    };
}

/// Declares [`Col`], one line per column family: the variant, its fields and the names
/// they bind, and the family (see [`family!`]) its name, unit, meaning, entity, parsing and
/// catalogue rows all come from.
macro_rules! columns {
    ($($(#[$vdoc:meta])* $V:ident($($T:ty),+) [$($b:ident),+] => $kind:ident $args:tt,)+) => {
        /// One timeline column.
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Col {
            $($(#[$vdoc])* $V($($T),+),)+
        }

        impl Col {
            /// The column's name in the timeline and tables.
            pub fn name(&self) -> String {
                match self { $(Col::$V($($b),+) => family!(name $kind $args),)+ }
            }

            /// The unit of its values.
            pub fn unit(&self) -> Unit {
                match self { $(Col::$V($($b),+) => { $(let _ = $b;)+ family!(unit $kind $args) })+ }
            }

            /// One line on what it measures.
            pub fn meaning(&self) -> &'static str {
                match self { $(Col::$V($($b),+) => { $(let _ = $b;)+ family!(meaning $kind $args) })+ }
            }

            /// The device, thread, core, connection or interface the column is about, if any.
            pub fn entity(&self) -> Option<String> {
                match self { $(Col::$V($($b),+) => { $(let _ = $b;)+ family!(entity $kind $args) })+ }
            }

            /// The column a name denotes (the inverse of [`Col::name`]): the first family,
            /// in catalogue order, that reads it.
            pub fn parse(name: &str) -> Option<Col> {
                None$(.or_else(|| family!(parse name, Col::$V, [$($T),+], $kind $args)))+
            }
        }

        /// The catalogue: per family and metric, a name pattern, its unit and meaning.
        fn rows() -> Vec<(String, Unit, &'static str)> {
            let mut out = Vec::new();
            $(family!(rows out, Col::$V, [$($T),+], $kind $args);)+
            out
        }
    };
}

columns! {
    /// `dev.<device>.<metric>`.
    Dev(String, DevMetric) [d, m] => keyed("dev.", d, ".", m, "dev.<device>."),
    /// `ds.<device>.<metric>`.
    Ds(String, DsMetric) [d, m] => keyed("ds.", d, ".", m, "ds.<device>."),
    /// `cpu.<metric>`.
    Cpu(CpuMetric) [m] => plain("cpu.", m),
    /// `cpu.<core>.<metric>`.
    Core(String, CoreMetric) [c, m] => keyed("cpu.", c, ".", m, "cpu.<core>."),
    /// `cat.<category>.w_bytes_s`: bytes written per second by one write-source category (pidstat).
    Category(&'static str) [c] => fixed(
        "cat.",
        c,
        ".w_bytes_s",
        BytesPerS,
        "bytes per second charged by pidstat to the threads of one write-source category",
        "cat.<category>"
    ),
    /// `thr.<tid>.w_bytes_s`: bytes written per second by one thread (pidstat kB_wr/s).
    Thread(u32) [t] => fixed(
        "thr.",
        t,
        ".w_bytes_s",
        BytesPerS,
        "bytes per second charged by pidstat to one thread (kB_wr/s)",
        "thr.<tid>"
    ),
    /// `proc.<pid>.cpu_pct`: CPU of a database server process (top -b).
    ProcCpu(u32) [p] => fixed("proc.", p, ".cpu_pct", Pct, "CPU of one database server process (top -b)", "proc.<pid>"),
    /// `vmstat.<field>`.
    Vmstat(VmstatField) [f] => plain("vmstat.", f),
    /// `mem.<metric>`.
    Mem(MemMetric) [m] => plain("mem.", m),
    /// `vm.<counter>_s`.
    Vm(VmCounter) [m] => plain("vm.", m),
    /// `perf.<metric>`.
    Perf(PerfMetric) [m] => plain("perf.", m),
    /// `binlog.<metric>`.
    Binlog(BinlogMetric) [m] => plain("binlog.", m),
    /// `mysql.<Counter>_s`.
    Mysql(MysqlCounter) [m] => plain("mysql.", m),
    /// `galera.<metric>`.
    Galera(GaleraMetric) [m] => plain("galera.", m),
    /// `repl.<metric>` (default connection: `None`) or `repl.<connection>.<metric>`.
    Repl(Option<String>, ReplMetric) [c, m] => keyed("repl.", c, ".", m, "repl[.<connection>]."),
    /// `dstat.dsk/<device>:<writ|read>`, bytes per second.
    Dstat(String, DstatDir) [d, dir] => keyed("dstat.dsk/", d, ":", dir, "dstat.dsk/<device>:"),
    /// `sar.<metric>`.
    Sar(SarMetric) [m] => plain("sar.", m),
    /// `net.<iface>.<metric>`.
    Net(String, NetMetric) [i, m] => keyed("net.", i, ".", m, "net.<iface>."),
    /// Host-wide series (`top.*`, `irq.*`, `net.tcp_*`).
    Host(HostMetric) [m] => plain("", m),
    /// `<family>.seen`.
    Seen(SeenOf) [s] => plain("", s),
    /// `psi.<resource>.<kind>`.
    Psi(PsiResource, PsiKind) [r, k] => keyed("psi.", r, ".", k, "psi.<io|cpu|memory>."),
    /// `sub.w_bytes_s`: bytes per second one submitter wrote, on the scratch timeline of the
    /// submitter analysis (never a column of the capture's timeline, not in the catalogue).
    Submitter(SubMetric) [m] => hidden("sub.", m),
}

impl Col {
    /// The block device of a per-device column of iostat, `sar -d` or /proc/diskstats.
    pub fn device(&self) -> Option<&str> {
        if let Col::Dev(d, _) | Col::Ds(d, _) = self { Some(d) } else { None }
    }
}

impl fmt::Display for Col {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl serde::Serialize for Col {
    /// As its name (`dev.vda.w_bytes_s`): the findings and views name columns so.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

/// `docs/columns.md`: the catalogue as a Markdown table.
pub fn markdown() -> String {
    let mut s = String::from(
        "# Timeline columns\n\n\
         Generated from `src/table/columns.rs` (the typed catalogue `Col`); a test checks this file \
         is current (`IOSIFT_UPDATE_DOCS=1 cargo test --test suite columns_doc` rewrites it). Every column \
         of the 1 s timeline (`tables/timeline.parquet`, `iosift tables`) is one of these. Rates \
         are per second over the interval of the sample that covers the second; gauges are the \
         value sampled in that second. Every cell keeps the input file and line it came from \
         (the evidence of findings).\n\n\
         | column | unit | meaning |\n|---|---|---|\n",
    );
    for (p, u, m) in rows() {
        let u = u.as_str();
        s.push_str(&format!("| `{p}` | {u} | {m} |\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let cols = [
            Col::Dev("nvme0n1".into(), DevMetric::WAwaitMs),
            Col::Dev("dm-0".into(), DevMetric::WReqBytes),
            Col::Ds("loop0".into(), DsMetric::FS),
            Col::Cpu(CpuMetric::IowaitPct),
            Col::Core("3".into(), CoreMetric::BusyPct),
            Col::Category("engine_redo"),
            Col::Thread(4242),
            Col::ProcCpu(17),
            Col::Vmstat(VmstatField::Bo),
            Col::Mem(MemMetric::FilePmdMappedBytes),
            Col::Vm(VmCounter::NrDirtiedS),
            Col::Perf(PerfMetric::SamplesSeen),
            Col::Binlog(BinlogMetric::LocalBytesS),
            Col::Mysql(MysqlCounter::BinlogGroupCommitsS),
            Col::Galera(GaleraMetric::FcPausedPct),
            Col::Repl(None, ReplMetric::BacklogBytes),
            Col::Repl(Some("src2".into()), ReplMetric::SecondsBehindS),
            Col::Dstat("sda".into(), DstatDir::Read),
            Col::Sar(SarMetric::RunqSz),
            Col::Net("eth0".into(), NetMetric::TxBytesS),
            Col::Host(HostMetric::NetTcpRetransS),
            Col::Seen(SeenOf::Pidstat),
            Col::Psi(PsiResource::Memory, PsiKind::FullPct),
            Col::Submitter(SubMetric::WBytesS),
        ];
        for c in cols {
            assert_eq!(Col::parse(&c.name()).as_ref(), Some(&c), "{}", c.name());
        }
        assert_eq!(Col::Dev("vda".into(), DevMetric::WBytesS).name(), "dev.vda.w_bytes_s");
        assert_eq!(Col::Repl(Some("a".into()), ReplMetric::ReceivedBytesS).name(), "repl.a.received_bytes_s");
        assert_eq!(Col::Dstat("vda".into(), DstatDir::Writ).name(), "dstat.dsk/vda:writ");
    }

    #[test]
    fn unknown_names_are_none() {
        for n in
            ["dev.vda.w_byte_s", "mem.dirty", "cat.nosuch.w_bytes_s", "thr.x.w_bytes_s", "zzz", "cpu.idle"]
        {
            assert_eq!(Col::parse(n), None, "{n}");
        }
    }
}
