//! The typed catalogue of timeline columns. Every column a source emits and
//! every column an analysis, rule or chart reads is a [`Col`]; its
//! [`Col::name`] is the column's name in the timeline and in every table
//! (`dev.vda.w_bytes_s`, `mem.dirty_bytes`, ...), with its unit and a
//! one-line meaning. A typo is a compile error, not a silently empty column.
//!
//! `docs/columns.md` is generated from [`markdown`] and checked by a test.

use std::fmt;

/// Declares a metric enum: variant = (name part, unit, meaning).
macro_rules! metrics {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $v:ident = ($key:literal, $unit:literal, $meaning:literal)),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name { $($(#[$vdoc])* $v),+ }
        impl $name {
            /// Every metric of this group, in catalogue order.
            pub const ALL: &'static [$name] = &[$($name::$v),+];
            /// The metric's part of the column name.
            pub fn key(self) -> &'static str { match self { $($name::$v => $key),+ } }
            /// The unit of its values.
            pub fn unit(self) -> &'static str { match self { $($name::$v => $unit),+ } }
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
        WBytesS = ("w_bytes_s", "B/s", "bytes written to the device per second (wkB/s, wMB/s)"),
        /// Read bytes.
        RBytesS = ("r_bytes_s", "B/s", "bytes read from the device per second"),
        /// Write requests.
        WS = ("w_s", "1/s", "write requests completed per second"),
        /// Read requests.
        RS = ("r_s", "1/s", "read requests completed per second"),
        /// Flush requests.
        FS = ("f_s", "1/s", "flush requests completed per second (iostat >= 12.x)"),
        /// Merged writes.
        WrqmS = ("wrqm_s", "1/s", "write requests merged per second"),
        /// Write latency.
        WAwaitMs = ("w_await_ms", "ms", "mean time of a write request, queue included"),
        /// Read latency.
        RAwaitMs = ("r_await_ms", "ms", "mean time of a read request, queue included"),
        /// Flush latency.
        FAwaitMs = ("f_await_ms", "ms", "mean time of a flush request"),
        /// Latency of all requests.
        AwaitMs = ("await_ms", "ms", "mean time of any request (older iostat, sar -d)"),
        /// Queue size.
        AquSz = ("aqu_sz", "1", "average number of requests in flight (aqu-sz, avgqu-sz)"),
        /// Utilisation.
        UtilPct = ("util_pct", "%", "share of the second the device had requests in flight"),
        /// Write request size.
        WReqBytes = ("w_req_bytes", "B", "mean size of a write request (wareq-sz)"),
        /// Transfers.
        Tps = ("tps", "1/s", "transfers (requests) per second"),
    }
}

metrics! {
    /// Per-device counters of `/proc/diskstats` snapshots (`ds.<device>.<metric>`).
    DsMetric {
        /// Write bytes.
        WBytesS = ("w_bytes_s", "B/s", "sectors written x 512 per second between two snapshots"),
        /// Write requests.
        WS = ("w_s", "1/s", "writes completed per second between two snapshots"),
        /// Mean write request size.
        WReqBytes = ("w_req_bytes", "B", "sectors written x 512 / writes completed between two snapshots (mean write request size)"),
        /// Flushes.
        FS = ("f_s", "1/s", "flush requests completed per second (kernel >= 5.5)"),
        /// Read bytes.
        RBytesS = ("r_bytes_s", "B/s", "sectors read x 512 per second between two snapshots"),
        /// Read requests.
        RS = ("r_s", "1/s", "reads completed per second between two snapshots"),
        /// Mean read request size.
        RReqBytes = ("r_req_bytes", "B", "sectors read x 512 / reads completed between two snapshots (mean read request size)"),
        /// Discarded bytes.
        DBytesS = ("d_bytes_s", "B/s", "sectors discarded x 512 per second (kernel >= 4.18)"),
        /// Discard requests.
        DS = ("d_s", "1/s", "discard requests completed per second (kernel >= 4.18)"),
    }
}

metrics! {
    /// CPU of all cores (`cpu.<metric>`): iostat avg-cpu, else sar -u or mpstat.
    CpuMetric {
        /// User.
        UserPct = ("user_pct", "%", "CPU time in user space, guests included (sar -u %user; -u ALL and mpstat: %usr + %guest)"),
        /// System.
        SystemPct = (
            "system_pct",
            "%",
            "CPU time in the kernel, interrupts included (sar -u and iostat %system; -u ALL and mpstat: %sys + %irq + %soft)"
        ),
        /// I/O wait.
        IowaitPct = ("iowait_pct", "%", "idle CPU time with I/O outstanding"),
        /// Idle.
        IdlePct = ("idle_pct", "%", "idle CPU time"),
    }
}

metrics! {
    /// Per-core CPU (`cpu.<n>.<metric>`): sar -P ALL, mpstat -P ALL; `<n>` is the core number as
    /// sar prints it (`sadf -p`'s `cpu0` is core `0`).
    CoreMetric {
        /// Busy.
        BusyPct = ("busy_pct", "%", "100 - %idle of the core"),
        /// I/O wait.
        IowaitPct = ("iowait_pct", "%", "iowait of the core"),
    }
}

metrics! {
    /// `vmstat` columns (`vmstat.<field>`), as printed.
    VmstatField {
        /// Runnable.
        R = ("r", "1", "runnable processes"),
        /// Blocked.
        B = ("b", "1", "processes in uninterruptible sleep"),
        /// User.
        Us = ("us", "1", "user CPU %"),
        /// System.
        Sy = ("sy", "1", "system CPU %"),
        /// Idle.
        Id = ("id", "1", "idle CPU %"),
        /// Wait.
        Wa = ("wa", "1", "iowait CPU %"),
        /// Blocks out.
        Bo = ("bo", "1", "blocks (1 kB) written out per second"),
        /// Blocks in.
        Bi = ("bi", "1", "blocks (1 kB) read in per second"),
    }
}

metrics! {
    /// Memory gauges (`mem.<metric>`): /proc/meminfo snapshots, else sar -r; the dirty
    /// thresholds from /proc/vmstat snapshots.
    MemMetric {
        /// Dirty.
        DirtyBytes = ("dirty_bytes", "B", "page cache waiting to be written back (Dirty)"),
        /// Writeback.
        WritebackBytes = ("writeback_bytes", "B", "page cache being written back now (Writeback)"),
        /// FilePmdMapped.
        FilePmdMappedBytes = ("file_pmd_mapped_bytes", "B", "file pages mapped with PMD (2 MiB) entries"),
        /// MemFree + Active(file) + Inactive(file).
        DirtyableBytes = ("dirtyable_bytes", "B", "MemFree + Active(file) + Inactive(file): the memory vm.dirty_ratio is a share of"),
        /// nr_dirty_threshold.
        DirtyLimitBytes = ("dirty_limit_bytes", "B", "the kernel's dirty limit (/proc/vmstat nr_dirty_threshold x 4 KiB pages)"),
        /// nr_dirty_background_threshold.
        DirtyBackgroundLimitBytes = ("dirty_background_limit_bytes", "B", "where background writeback starts (/proc/vmstat nr_dirty_background_threshold x 4 KiB pages)"),
    }
}

metrics! {
    /// /proc/vmstat counters per second (`vm.<counter>_s`).
    VmCounter {
        /// nr_dirtied.
        NrDirtiedS = ("nr_dirtied_s", "1/s", "pages dirtied per second (nr_dirtied)"),
        /// nr_written.
        NrWrittenS = ("nr_written_s", "1/s", "pages written back per second (nr_written)"),
        /// pgpgout.
        PgpgoutS = ("pgpgout_s", "1/s", "kB paged out per second (pgpgout; sar -B pgpgout/s)"),
        /// thp_file_mapped.
        ThpFileMappedS = ("thp_file_mapped_s", "1/s", "file THPs mapped per second"),
        /// thp_fault_alloc.
        ThpFaultAllocS = ("thp_fault_alloc_s", "1/s", "THPs allocated on faults per second"),
        /// nr_vmscan_immediate_reclaim.
        VmscanImmediateS = ("nr_vmscan_immediate_reclaim_s", "1/s", "pages reclaim found dirty or under writeback and marked to free once written, per second (nr_vmscan_immediate_reclaim)"),
        /// nr_vmscan_write.
        VmscanWriteS = ("nr_vmscan_write_s", "1/s", "pages written by reclaim itself per second (nr_vmscan_write)"),
    }
}

metrics! {
    /// perf series (`perf.<metric>`).
    PerfMetric {
        /// fsync samples.
        FsyncSamplesS = ("fsync_samples_s", "1/s", "perf samples inside fsync/fdatasync per second"),
        /// Block issue bytes.
        RqIssueWBytesS = ("rq_issue_w_bytes_s", "B/s", "bytes of write requests issued (block_rq_issue)"),
        /// Sampling span.
        SamplesSeen = ("samples_seen", "1", "marks the first and last second perf sampled"),
    }
}

metrics! {
    /// Binary log series (`binlog.<metric>`).
    BinlogMetric {
        /// Transactions.
        TrxS = ("trx_s", "1/s", "transactions committed per second (this server's id)"),
        /// Bytes.
        BytesS = ("bytes_s", "B/s", "binlog bytes written per second"),
        /// Rows.
        RowsS = ("rows_s", "1/s", "rows changed per second"),
        /// Growth.
        LocalBytesS = ("local_bytes_s", "B/s", "growth of the local binlog (SHOW MASTER STATUS position)"),
    }
}

metrics! {
    /// mysqladmin extended-status counters per second (`mysql.<Counter>_s`).
    MysqlCounter {
        /// Data fsyncs.
        InnodbDataFsyncsS = ("Innodb_data_fsyncs_s", "1/s", "InnoDB fsync() calls per second"),
        /// Log fsyncs.
        InnodbOsLogFsyncsS = ("Innodb_os_log_fsyncs_s", "1/s", "InnoDB redo log fsyncs per second"),
        /// Binlog commits.
        BinlogCommitsS = ("Binlog_commits_s", "1/s", "transactions written to the binlog per second"),
        /// Group commits.
        BinlogGroupCommitsS = ("Binlog_group_commits_s", "1/s", "binlog group commits per second"),
        /// Commits.
        ComCommitS = ("Com_commit_s", "1/s", "COMMIT statements per second"),
        /// Handler commits.
        HandlerCommitS = ("Handler_commit_s", "1/s", "storage engine commits per second"),
        /// Questions.
        QuestionsS = ("Questions_s", "1/s", "statements per second"),
        /// Data written.
        InnodbDataWrittenS = ("Innodb_data_written_s", "1/s", "InnoDB bytes written per second"),
    }
}

metrics! {
    /// Replication series of `SHOW SLAVE STATUS` (`repl.<metric>`, `repl.<connection>.<metric>`).
    ReplMetric {
        /// Lag.
        SecondsBehindS = ("seconds_behind_s", "s", "Seconds_Behind_Master"),
        /// Relay space.
        RelayLogSpaceBytes = ("relay_log_space_bytes", "B", "Relay_Log_Space"),
        /// Backlog.
        BacklogBytes = ("backlog_bytes", "B", "source binlog bytes received but not executed"),
        /// Received.
        ReceivedBytesS = ("received_bytes_s", "B/s", "source binlog bytes received per second"),
        /// Executed.
        ExecutedBytesS = ("executed_bytes_s", "B/s", "source binlog bytes executed per second"),
    }
}

metrics! {
    /// sar activities without a better source (`sar.<metric>`).
    SarMetric {
        /// sar -b wtps.
        IoWS = ("io_w_s", "1/s", "write requests per second of all devices (sar -b wtps)"),
        /// sar -b bwrtn/s.
        IoWBytesS = ("io_w_bytes_s", "B/s", "bytes written per second of all devices (sar -b)"),
        /// sar -b bread/s.
        IoRBytesS = ("io_r_bytes_s", "B/s", "bytes read per second of all devices (sar -b)"),
        /// sar -q runq-sz.
        RunqSz = ("runq_sz", "1", "run queue length (sar -q)"),
        /// sar -q blocked.
        Blocked = ("blocked", "1", "tasks blocked on I/O (sar -q)"),
        /// sar -W pswpout/s.
        PswpoutS = ("pswpout_s", "1/s", "pages swapped out per second (sar -W)"),
    }
}

metrics! {
    /// Per-interface network rates (`net.<iface>.<metric>`, sar -n DEV).
    NetMetric {
        /// Received.
        RxBytesS = ("rx_bytes_s", "B/s", "bytes received per second"),
        /// Sent.
        TxBytesS = ("tx_bytes_s", "B/s", "bytes sent per second"),
    }
}

metrics! {
    /// Host-wide series of pt-stalk samples (`top -b`, `/proc/interrupts`, `netstat -s`).
    HostMetric {
        /// top D state.
        TopDState = ("top.d_state", "1", "processes in D state (top -b)"),
        /// top running.
        TopRunning = ("top.running", "1", "running tasks (top -b)"),
        /// top wa.
        TopCpuWaPct = ("top.cpu_wa_pct", "%", "iowait of all CPUs (top -b)"),
        /// Interrupts.
        IrqTotalS = ("irq.total_s", "1/s", "interrupts per second, all lines (/proc/interrupts)"),
        /// Retransmissions.
        NetTcpRetransS = ("net.tcp_retrans_s", "1/s", "TCP segments retransmitted per second (netstat -s)"),
        /// Established.
        NetTcpEstablished = ("net.tcp_established", "1", "TCP connections established (netstat -s)"),
        /// /proc/stat procs_blocked.
        StatProcsBlocked = (
            "stat.procs_blocked",
            "1",
            "tasks waiting for I/O (/proc/stat procs_blocked: the kernel's nr_iowait, not every D-state task)"
        ),
        /// /proc/stat procs_running.
        StatProcsRunning = ("stat.procs_running", "1", "runnable tasks (/proc/stat procs_running)"),
        /// /proc/stat ctxt.
        StatCtxtS = ("stat.ctxt_s", "1/s", "context switches per second (/proc/stat ctxt)"),
        /// /proc/stat processes.
        StatForksS = ("stat.forks_s", "1/s", "processes created per second (/proc/stat processes)"),
    }
}

metrics! {
    /// Sources read only for their time range (another file of the same family feeds the timeline).
    SeenOf {
        /// An iostat not chosen.
        Iostat = ("iostat.seen", "1", "an iostat file's reports (its numbers come from the chosen iostat)"),
        /// A pidstat not chosen.
        Pidstat = ("pidstat.seen", "1", "a pidstat file's rows (attribution comes from the chosen pidstat)"),
        /// A sar file used for nothing.
        Sar = ("sar.seen", "1", "a sar file's rows whose activities feed no column"),
    }
}

metrics! {
    /// Resources of pressure stall information (`psi.<resource>.<kind>`).
    PsiResource {
        /// I/O.
        Io = ("io", "%", "I/O"),
        /// CPU.
        Cpu = ("cpu", "%", "CPU"),
        /// Memory.
        Memory = ("memory", "%", "memory"),
    }
}

metrics! {
    /// Kinds of pressure stall (`psi.<resource>.<kind>`, /proc/pressure/*).
    PsiKind {
        /// some.
        SomePct = ("some_pct", "%", "share of the second at least one task was stalled on the resource (PSI some, from total)"),
        /// full.
        FullPct = ("full_pct", "%", "share of the second all non-idle tasks were stalled on the resource (PSI full, from total)"),
    }
}

/// Direction of a dstat disk column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DstatDir {
    /// `writ`.
    Writ,
    /// `read`.
    Read,
}

impl DstatDir {
    fn key(self) -> &'static str {
        match self {
            DstatDir::Writ => "writ",
            DstatDir::Read => "read",
        }
    }
}

/// One timeline column.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Col {
    /// `dev.<device>.<metric>`.
    Dev(String, DevMetric),
    /// `ds.<device>.<metric>`.
    Ds(String, DsMetric),
    /// `cpu.<metric>`.
    Cpu(CpuMetric),
    /// `cpu.<core>.<metric>`.
    Core(String, CoreMetric),
    /// `cat.<category>.w_bytes_s`: bytes written per second by one write-source category (pidstat).
    Category(&'static str),
    /// `thr.<tid>.w_bytes_s`: bytes written per second by one thread (pidstat kB_wr/s).
    Thread(u32),
    /// `proc.<pid>.cpu_pct`: CPU of a database server process (top -b).
    ProcCpu(u32),
    /// `vmstat.<field>`.
    Vmstat(VmstatField),
    /// `mem.<metric>`.
    Mem(MemMetric),
    /// `vm.<counter>_s`.
    Vm(VmCounter),
    /// `perf.<metric>`.
    Perf(PerfMetric),
    /// `binlog.<metric>`.
    Binlog(BinlogMetric),
    /// `mysql.<Counter>_s`.
    Mysql(MysqlCounter),
    /// `repl.<metric>` (default connection: `None`) or `repl.<connection>.<metric>`.
    Repl(Option<String>, ReplMetric),
    /// `dstat.dsk/<device>:<writ|read>`, bytes per second.
    Dstat(String, DstatDir),
    /// `sar.<metric>`.
    Sar(SarMetric),
    /// `net.<iface>.<metric>`.
    Net(String, NetMetric),
    /// Host-wide series (`top.*`, `irq.*`, `net.tcp_*`).
    Host(HostMetric),
    /// `<family>.seen`.
    Seen(SeenOf),
    /// `psi.<resource>.<kind>`.
    Psi(PsiResource, PsiKind),
}

impl Col {
    /// The column's name in the timeline and tables.
    pub fn name(&self) -> String {
        match self {
            Col::Dev(d, m) => format!("dev.{d}.{}", m.key()),
            Col::Ds(d, m) => format!("ds.{d}.{}", m.key()),
            Col::Cpu(m) => format!("cpu.{}", m.key()),
            Col::Core(c, m) => format!("cpu.{c}.{}", m.key()),
            Col::Category(c) => format!("cat.{c}.w_bytes_s"),
            Col::Thread(t) => format!("thr.{t}.w_bytes_s"),
            Col::ProcCpu(p) => format!("proc.{p}.cpu_pct"),
            Col::Vmstat(f) => format!("vmstat.{}", f.key()),
            Col::Mem(m) => format!("mem.{}", m.key()),
            Col::Vm(m) => format!("vm.{}", m.key()),
            Col::Perf(m) => format!("perf.{}", m.key()),
            Col::Binlog(m) => format!("binlog.{}", m.key()),
            Col::Mysql(m) => format!("mysql.{}", m.key()),
            Col::Repl(None, m) => format!("repl.{}", m.key()),
            Col::Repl(Some(c), m) => format!("repl.{c}.{}", m.key()),
            Col::Dstat(d, dir) => format!("dstat.dsk/{d}:{}", dir.key()),
            Col::Sar(m) => format!("sar.{}", m.key()),
            Col::Net(i, m) => format!("net.{i}.{}", m.key()),
            Col::Host(m) => m.key().to_string(),
            Col::Seen(s) => s.key().to_string(),
            Col::Psi(r, k) => format!("psi.{}.{}", r.key(), k.key()),
        }
    }

    /// The unit of its values.
    pub fn unit(&self) -> &'static str {
        match self {
            Col::Dev(_, m) => m.unit(),
            Col::Ds(_, m) => m.unit(),
            Col::Cpu(m) => m.unit(),
            Col::Core(_, m) => m.unit(),
            Col::Category(_) | Col::Thread(_) | Col::Dstat(..) => "B/s",
            Col::ProcCpu(_) => "%",
            Col::Vmstat(f) => f.unit(),
            Col::Mem(m) => m.unit(),
            Col::Vm(m) => m.unit(),
            Col::Perf(m) => m.unit(),
            Col::Binlog(m) => m.unit(),
            Col::Mysql(m) => m.unit(),
            Col::Repl(_, m) => m.unit(),
            Col::Sar(m) => m.unit(),
            Col::Net(_, m) => m.unit(),
            Col::Host(m) => m.unit(),
            Col::Seen(s) => s.unit(),
            Col::Psi(_, k) => k.unit(),
        }
    }

    /// One line on what it measures.
    pub fn meaning(&self) -> &'static str {
        match self {
            Col::Dev(_, m) => m.meaning(),
            Col::Ds(_, m) => m.meaning(),
            Col::Cpu(m) => m.meaning(),
            Col::Core(_, m) => m.meaning(),
            Col::Category(_) => {
                "bytes per second charged by pidstat to the threads of one write-source category"
            }
            Col::Thread(_) => "bytes per second charged by pidstat to one thread (kB_wr/s)",
            Col::ProcCpu(_) => "CPU of one database server process (top -b)",
            Col::Dstat(..) => "bytes per second of one disk (dstat dsk/<device>)",
            Col::Vmstat(f) => f.meaning(),
            Col::Mem(m) => m.meaning(),
            Col::Vm(m) => m.meaning(),
            Col::Perf(m) => m.meaning(),
            Col::Binlog(m) => m.meaning(),
            Col::Mysql(m) => m.meaning(),
            Col::Repl(_, m) => m.meaning(),
            Col::Sar(m) => m.meaning(),
            Col::Net(_, m) => m.meaning(),
            Col::Host(m) => m.meaning(),
            Col::Seen(s) => s.meaning(),
            Col::Psi(_, k) => k.meaning(),
        }
    }

    /// The column a name denotes (the inverse of [`Col::name`]).
    pub fn parse(name: &str) -> Option<Col> {
        if let Some(m) = HostMetric::from_key(name) {
            return Some(Col::Host(m));
        }
        if let Some(s) = SeenOf::from_key(name) {
            return Some(Col::Seen(s));
        }
        let (group, rest) = name.split_once('.')?;
        // The entity is between the first and the last dot (device names hold no dot, but
        // connection names and dm names could: take the last part as the metric).
        let entity = |rest: &str| rest.rsplit_once('.').map(|(e, m)| (e.to_string(), m.to_string()));
        Some(match group {
            "dev" => {
                let (d, m) = entity(rest)?;
                Col::Dev(d, DevMetric::from_key(&m)?)
            }
            "ds" => {
                let (d, m) = entity(rest)?;
                Col::Ds(d, DsMetric::from_key(&m)?)
            }
            "cpu" => match CpuMetric::from_key(rest) {
                Some(m) => Col::Cpu(m),
                None => {
                    let (c, m) = entity(rest)?;
                    Col::Core(c, CoreMetric::from_key(&m)?)
                }
            },
            "cat" => {
                let c = rest.strip_suffix(".w_bytes_s")?;
                Col::Category(crate::attribution::CATEGORIES.iter().copied().find(|k| *k == c)?)
            }
            "thr" => Col::Thread(rest.strip_suffix(".w_bytes_s")?.parse().ok()?),
            "proc" => Col::ProcCpu(rest.strip_suffix(".cpu_pct")?.parse().ok()?),
            "vmstat" => Col::Vmstat(VmstatField::from_key(rest)?),
            "mem" => Col::Mem(MemMetric::from_key(rest)?),
            "vm" => Col::Vm(VmCounter::from_key(rest)?),
            "perf" => Col::Perf(PerfMetric::from_key(rest)?),
            "binlog" => Col::Binlog(BinlogMetric::from_key(rest)?),
            "mysql" => Col::Mysql(MysqlCounter::from_key(rest)?),
            "repl" => match ReplMetric::from_key(rest) {
                Some(m) => Col::Repl(None, m),
                None => {
                    let (c, m) = entity(rest)?;
                    Col::Repl(Some(c), ReplMetric::from_key(&m)?)
                }
            },
            "dstat" => {
                let (d, dir) = rest.strip_prefix("dsk/")?.rsplit_once(':')?;
                let dir = match dir {
                    "writ" => DstatDir::Writ,
                    "read" => DstatDir::Read,
                    _ => return None,
                };
                Col::Dstat(d.to_string(), dir)
            }
            "sar" => Col::Sar(SarMetric::from_key(rest)?),
            "psi" => {
                let (r, k) = rest.split_once('.')?;
                Col::Psi(PsiResource::from_key(r)?, PsiKind::from_key(k)?)
            }
            "net" => {
                let (i, m) = entity(rest)?;
                Col::Net(i, NetMetric::from_key(&m)?)
            }
            _ => return None,
        })
    }

    /// The device, thread, core, connection or interface the column is about, if any.
    pub fn entity(&self) -> Option<String> {
        match self {
            Col::Dev(d, _) | Col::Ds(d, _) | Col::Core(d, _) | Col::Dstat(d, _) | Col::Net(d, _) => {
                Some(d.clone())
            }
            Col::Repl(c, _) => c.clone(),
            Col::Thread(t) => Some(t.to_string()),
            Col::ProcCpu(p) => Some(p.to_string()),
            Col::Category(c) => Some((*c).to_string()),
            _ => None,
        }
    }
}

impl fmt::Display for Col {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// One row of the catalogue: a name pattern, its unit and meaning.
fn rows() -> Vec<(String, &'static str, &'static str)> {
    let mut out = Vec::new();
    let mut add = |c: Col, pattern: String| out.push((pattern, c.unit(), c.meaning()));
    let d = || "DEV".to_string();
    for m in DevMetric::ALL {
        add(Col::Dev(d(), *m), format!("dev.<device>.{}", m.key()));
    }
    for m in DsMetric::ALL {
        add(Col::Ds(d(), *m), format!("ds.<device>.{}", m.key()));
    }
    for m in CpuMetric::ALL {
        add(Col::Cpu(*m), Col::Cpu(*m).name());
    }
    for m in CoreMetric::ALL {
        add(Col::Core(d(), *m), format!("cpu.<core>.{}", m.key()));
    }
    add(Col::Category("other"), "cat.<category>.w_bytes_s".into());
    add(Col::Thread(0), "thr.<tid>.w_bytes_s".into());
    add(Col::ProcCpu(0), "proc.<pid>.cpu_pct".into());
    for m in VmstatField::ALL {
        add(Col::Vmstat(*m), Col::Vmstat(*m).name());
    }
    for m in MemMetric::ALL {
        add(Col::Mem(*m), Col::Mem(*m).name());
    }
    for m in VmCounter::ALL {
        add(Col::Vm(*m), Col::Vm(*m).name());
    }
    for m in PerfMetric::ALL {
        add(Col::Perf(*m), Col::Perf(*m).name());
    }
    for m in BinlogMetric::ALL {
        add(Col::Binlog(*m), Col::Binlog(*m).name());
    }
    for m in MysqlCounter::ALL {
        add(Col::Mysql(*m), Col::Mysql(*m).name());
    }
    for m in ReplMetric::ALL {
        add(Col::Repl(None, *m), format!("repl[.<connection>].{}", m.key()));
    }
    add(Col::Dstat(d(), DstatDir::Writ), "dstat.dsk/<device>:writ".into());
    add(Col::Dstat(d(), DstatDir::Read), "dstat.dsk/<device>:read".into());
    for m in SarMetric::ALL {
        add(Col::Sar(*m), Col::Sar(*m).name());
    }
    for m in NetMetric::ALL {
        add(Col::Net(d(), *m), format!("net.<iface>.{}", m.key()));
    }
    for m in HostMetric::ALL {
        add(Col::Host(*m), Col::Host(*m).name());
    }
    for m in SeenOf::ALL {
        add(Col::Seen(*m), Col::Seen(*m).name());
    }
    for k in PsiKind::ALL {
        add(Col::Psi(PsiResource::Io, *k), format!("psi.<io|cpu|memory>.{}", k.key()));
    }
    out
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
            Col::Repl(None, ReplMetric::BacklogBytes),
            Col::Repl(Some("src2".into()), ReplMetric::SecondsBehindS),
            Col::Dstat("sda".into(), DstatDir::Read),
            Col::Sar(SarMetric::RunqSz),
            Col::Net("eth0".into(), NetMetric::TxBytesS),
            Col::Host(HostMetric::NetTcpRetransS),
            Col::Seen(SeenOf::Pidstat),
            Col::Psi(PsiResource::Memory, PsiKind::FullPct),
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
