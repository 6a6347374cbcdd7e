#!/usr/bin/env python3
"""ix_plan.py [CASE ...] - the issuer matrix (samples/ix_*, issue 34) as planned, before any capture or analysis.

For every case: its half (development / check, fixed here before anything was captured or analysed; "held" for the
held-out set samples/ixh_*, captured after the analysis changes and never tuned on), the
run_matrix.sh command that captures it, and the expectations that follow from the setup alone (who dirtied, who issued
and why, the period the workload's own timer or the kernel imposes, healthy or not, which rules must / must not
fire). Writes them into samples/CASE/truth/extra.json, merged with what is already there (the hand-written title,
conclusion and notes added after the capture, and any planned value corrected after the capture from the workload's logs
and trace, which a note in extra.json states: those are kept), and prints each command.
usage: ix_plan.py [CASE ...]   (no argument: every case)
"""
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
NOT_PERIODIC_RULES = ["mmap_large_folio_writeback", "buffered_writer_dirty_throttle", "ext4_dioread_nolock_nodelalloc",
                      "fsync_bound_small_transactions"]
ALL_RULES = ["periodic_write_bursts", "mmap_large_folio_writeback", "fsync_bound_small_transactions", "buffered_write_burst",
             "buffered_writer_dirty_throttle", "ext4_dioread_nolock_nodelalloc", "replication_lag", "device_saturation"]
LOOP_XFS = "fs=xfs dev=loop"
LOOP_EXT4 = "fs=ext4 dev=loop"


def periodic(comm, cls, period, extra_not=()):
    return {"writers": [comm], "issuers": [{"class": cls, "comm": comm if cls != "journal" else "jbd2"}], "period_s": period,
            "expect_fire": ["periodic_write_bursts"], "expect_not_fire": NOT_PERIODIC_RULES + list(extra_not)}


def sfr(comm):
    return {"writers": [comm], "issuers": [{"class": "application_flush", "comm": comm}], "expect_fire": [],
            "expect_not_fire": ["periodic_write_bursts"] + NOT_PERIODIC_RULES}


def copy():
    return {"writers": ["dd"], "issuers": [{"class": "writeback_background", "comm": "kworker"}], "expect_fire": ["buffered_write_burst"],
            "expect_not_fire": ["periodic_write_bursts"] + NOT_PERIODIC_RULES}


def sync_other(period):
    return {"writers": ["appender"], "issuers": [{"class": "sync_other", "comm": "sync"}], "period_s": period,
            "expect_fire": ["periodic_write_bursts"], "expect_not_fire": NOT_PERIODIC_RULES}


def db_healthy():
    return {"writers": ["mariadbd"], "issuers": [{"class": "writeback_age", "comm": "kworker"}], "healthy": True,
            "expect_fire": ["periodic_write_bursts"],
            "expect_not_fire": ["fsync_bound_small_transactions", "mmap_large_folio_writeback", "buffered_write_burst",
                                "buffered_writer_dirty_throttle", "ext4_dioread_nolock_nodelalloc", "replication_lag",
                                "device_saturation"]}


def idle():
    return {"writers": [], "issuers": [], "healthy": True, "expect_fire": [], "expect_not_fire": ALL_RULES}


def reclaim():
    return {"writers": ["dd"], "issuers": [{"class": "reclaim", "comm": "kworker"}],
            "expect_fire": [], "expect_not_fire": ["periodic_write_bursts", "mmap_large_folio_writeback", "fsync_bound_small_transactions",
                                                   "ext4_dioread_nolock_nodelalloc", "replication_lag"]}


# case -> (half, run_matrix.sh keys, what it varies, expectations)
CASES = {
    "ix_ext4_appfsync_12s": ("dev", "work=fsync mib=64 period=12 secs=90",
                             "application fsync timer (write 64 MiB in place + fsync every 12 s) / ext4 on vda / full collector",
                             periodic("ckpt_fsync", "application_flush", 12.0)),
    "ix_xfs_loop_appfsync_9s": ("check", "work=fsync mib=48 period=9 secs=90 " + LOOP_XFS,
                                "application fsync timer (48 MiB every 9 s) / XFS on loop / full collector",
                                periodic("ckpt_fsync", "application_flush", 9.0)),
    "ix_ext4_appfsync_15s_noperf": ("check", "work=fsync mib=64 period=15 secs=90 degrade=noperf",
                                    "application fsync timer (64 MiB every 15 s) / ext4 on vda / collector without perf",
                                    periodic("ckpt_fsync", "application_flush", 15.0)),
    "ix_ext4_msync_10s": ("dev", "work=msync mib=32 period=10 secs=90",
                          "periodic msync(MS_SYNC) of a 32 MiB MAP_SHARED file, every page dirtied, every 10 s / ext4 on vda / full collector",
                          periodic("ckpt_msync", "application_flush", 10.0)),
    "ix_xfs_loop_msync_20s_noperf": ("check", "work=msync mib=48 period=20 secs=90 degrade=noperf " + LOOP_XFS,
                                     "periodic msync(MS_SYNC) of a 48 MiB mapping every 20 s / XFS on loop / collector without perf",
                                     periodic("ckpt_msync", "application_flush", 20.0)),
    "ix_xfs_loop_sfr_steps": ("dev", "work=sfr mib=20 secs=90 " + LOOP_XFS,
                              "buffered append at 20 MiB/s with sync_file_range(WRITE) on every 8 MiB step / XFS on loop / full collector",
                              sfr("sfr_steps")),
    "ix_ext4_sfr_steps_noperf": ("check", "work=sfr mib=30 secs=90 degrade=noperf",
                                 "buffered append at 30 MiB/s with sync_file_range(WRITE) every 8 MiB / ext4 on vda / collector without perf",
                                 sfr("sfr_steps")),
    "ix_ext4_odirect_20s": ("dev", "work=odirect mib=128 period=20 secs=90",
                            "periodic O_DIRECT writes (128 MiB in 1 MiB writes every 20 s, no fsync) / ext4 on vda / full collector",
                            periodic("odirect_ckpt", "direct_io", 20.0, ["buffered_write_burst"])),
    "ix_xfs_loop_odirect_14s_nosysstat": ("check", "work=odirect mib=96 period=14 secs=90 degrade=nosysstat " + LOOP_XFS,
                                          "periodic O_DIRECT writes (96 MiB every 14 s) / XFS on loop / collector without sysstat",
                                          periodic("odirect_ckpt", "direct_io", 14.0, ["buffered_write_burst"])),
    "ix_ext4_loop_journal_commit15": ("dev", "work=append secs=90 mntopts=commit=15,nodelalloc " + LOOP_EXT4,
                                      "ext4 journal commits every 15 s (mount commit=15,nodelalloc: jbd2 writes the ordered data) of small buffered appends + a file a second / ext4 on loop / full collector",
                                      periodic("small_append", "journal", 15.0, ["buffered_write_burst"])),
    "ix_ext4_loop_journal_commit7_noperf": ("check", "work=append secs=90 degrade=noperf mntopts=commit=7,nodelalloc " + LOOP_EXT4,
                                            "ext4 journal commits every 7 s (commit=7,nodelalloc) / ext4 on loop / collector without perf",
                                            periodic("small_append", "journal", 7.0, ["buffered_write_burst"])),
    "ix_ext4_copy3g_background": ("dev", "work=copy copy_mb=3000 secs=90",
                                  "a 3 GB buffered dd (bs=10M, no sync), default sysctls: background writeback writes it as it goes / ext4 on vda / full collector",
                                  copy()),
    "ix_xfs_loop_copy3g_background_noperf": ("check", "work=copy copy_mb=3000 secs=90 degrade=noperf " + LOOP_XFS,
                                             "a 3 GB buffered dd, default sysctls / XFS on loop / collector without perf",
                                             copy()),
    "ix_ext4_sync_other_20s": ("dev", "work=sync_other mib=5 period=20 secs=90",
                               "a 5 MiB/s buffered appender and another process running `sync` every 20 s / ext4 on vda / full collector",
                               sync_other(20.0)),
    "ix_xfs_loop_sync_other_25s_noperf": ("check", "work=sync_other mib=5 period=25 secs=90 degrade=noperf " + LOOP_XFS,
                                          "a 5 MiB/s buffered appender and `sync` every 25 s / XFS on loop / collector without perf",
                                          sync_other(25.0)),
    "ix_ext4_db_relaxed_healthy": ("dev", "work=db durable=0 threads=2 payload=0 trace=1 secs=90 port=3405",
                                   "healthy MariaDB: sync_binlog=0, innodb_flush_log_at_trx_commit=2, 2 connections of tiny transactions / ext4 on vda / full collector (+ -T)",
                                   db_healthy()),
    "ix_xfs_loop_db_relaxed_healthy": ("check", "work=db durable=0 threads=2 payload=2000 trace=1 secs=90 port=3406 " + LOOP_XFS,
                                       "healthy MariaDB, relaxed durability, 2 connections, ~2 kB rows / XFS on loop / full collector (+ -T)",
                                       db_healthy()),
    # added after the 19 above were captured (the brief's optional case), planned before its own capture
    "ix_ext4_reclaim_memcg": ("dev", "work=copy copy_mb=6000 secs=90 memcg=256",
                              "a 6 GB buffered dd inside a 256 MiB memory cgroup (v1): its dirty pages are written by reclaim (reason=vmscan) / ext4 on vda / full collector",
                              reclaim()),
    "ix_idle_a": ("dev", "work=idle secs=90", "idle host (no workload of ours) / full collector (system-wide -P -T)", idle()),
    "ix_idle_b_noperf": ("check", "work=idle secs=90 degrade=noperf", "idle host / collector without perf", idle()),
    # The held-out set (half "held": captured after the analysis changes of issue 34, never tuned on), planned here
    # before any of its captures, by a helper who does not run iosift on them.
    "ixh_xfs_loop_appfsync_11s": ("held", "work=fsync mib=40 period=11 secs=90 " + LOOP_XFS,
                                  "application fsync timer (write 40 MiB in place + fsync every 11 s) / XFS on loop / full collector",
                                  periodic("ckpt_fsync", "application_flush", 11.0)),
    "ixh_ext4_appfsync_18s_nosysstat": ("held", "work=fsync mib=80 period=18 secs=100 degrade=nosysstat",
                                        "application fsync timer (80 MiB every 18 s) / ext4 on vda / collector without sysstat",
                                        periodic("ckpt_fsync", "application_flush", 18.0)),
    "ixh_ext4_msync_13s_noperf": ("held", "work=msync mib=40 period=13 secs=90 degrade=noperf",
                                  "periodic msync(MS_SYNC) of a 40 MiB MAP_SHARED file, every page dirtied, every 13 s / ext4 on vda / collector without perf",
                                  periodic("ckpt_msync", "application_flush", 13.0)),
    "ixh_xfs_loop_odirect_16s": ("held", "work=odirect mib=80 period=16 secs=90 " + LOOP_XFS,
                                 "periodic O_DIRECT writes (80 MiB in 1 MiB writes every 16 s, no fsync) / XFS on loop / full collector",
                                 periodic("odirect_ckpt", "direct_io", 16.0, ["buffered_write_burst"])),
    "ixh_ext4_sync_other_16s": ("held", "work=sync_other mib=6 period=16 secs=90",
                                "a 6 MiB/s buffered appender and another process running `sync` every 16 s / ext4 on vda / full collector",
                                sync_other(16.0)),
    "ixh_xfs_loop_sync_other_22s": ("held", "work=sync_other mib=4 period=22 secs=90 " + LOOP_XFS,
                                    "a 4 MiB/s buffered appender and `sync` every 22 s / XFS on loop / full collector",
                                    sync_other(22.0)),
    "ixh_ext4_db_relaxed_healthy_4t": ("held", "work=db durable=0 threads=4 payload=500 trace=1 secs=90 port=3407",
                                       "healthy MariaDB: sync_binlog=0, innodb_flush_log_at_trx_commit=2, 4 connections of tiny transactions with ~500-byte rows / ext4 on vda / full collector (+ -T)",
                                       db_healthy()),
    "ixh_ext4_copy2g_background_noperf": ("held", "work=copy copy_mb=2000 secs=90 degrade=noperf",
                                          "a 2 GB buffered dd (bs=10M, no sync), default sysctls: background writeback writes it as it goes / ext4 on vda / collector without perf",
                                          copy()),
    "ixh_idle_c": ("held", "work=idle secs=90", "idle host (no workload of ours) / full collector (system-wide -P -T)", idle()),
    # two more held-out journal cases (planned before their captures, by a helper who does not run iosift on them): the
    # journal class where jbd2 writes tens of MB per commit (data=journal), measured (-T) and with its witnesses missing
    "ixh_ext4_loop_datajournal_10s": ("held", "work=appender mib=8 jsize=1024 secs=90 mntopts=data=journal,commit=10 " + LOOP_EXT4,
                                      "an 8 MiB/s buffered appender that never flushes on ext4 mounted data=journal,commit=10 (1 GiB journal): jbd2 writes its data into the journal at every commit, ~80 MB every 10 s / ext4 on loop / full collector",
                                      periodic("appender", "journal", 10.0, ["buffered_write_burst"])),
    "ixh_ext4_loop_datajournal_10s_noperf": ("held", "work=appender mib=8 jsize=1024 secs=90 degrade=noperf mntopts=data=journal,commit=10 " + LOOP_EXT4,
                                             "an 8 MiB/s buffered appender on ext4 mounted data=journal,commit=10 (1 GiB journal) / ext4 on loop / collector without perf",
                                             periodic("appender", "journal", 10.0, ["buffered_write_burst"])),
    # second held-out set, planned 2026-12-05 before its captures, never analysed by the one who captured it
    "ixh_xfs_loop_msync_17s": ("held", "work=msync mib=36 period=17 secs=90 " + LOOP_XFS,
                               "periodic msync(MS_SYNC) of a 36 MiB MAP_SHARED file, every page dirtied, every 17 s / XFS on loop / full collector",
                               periodic("ckpt_msync", "application_flush", 17.0)),
    "ixh_ext4_odirect_12s_noperf": ("held", "work=odirect mib=64 period=12 secs=90 degrade=noperf",
                                    "periodic O_DIRECT writes (64 MiB in 1 MiB writes every 12 s, no fsync) / ext4 on vda / collector without perf",
                                    periodic("odirect_ckpt", "direct_io", 12.0, ["buffered_write_burst"])),
    "ixh_ext4_loop_journal_commit10": ("held", "work=append secs=90 mntopts=commit=10,nodelalloc " + LOOP_EXT4,
                                       "ext4 journal commits every 10 s (mount commit=10,nodelalloc: jbd2 writes the ordered data) of small buffered appends + a file a second / ext4 on loop / full collector",
                                       periodic("small_append", "journal", 10.0, ["buffered_write_burst"])),
    "ixh_xfs_loop_copy1500_background": ("held", "work=copy copy_mb=1500 secs=90 " + LOOP_XFS,
                                         "a 1.5 GB buffered dd (bs=10M, no sync), default sysctls / XFS on loop / full collector",
                                         copy()),
    "ixh_ext4_appfsync_7s_noperf": ("held", "work=fsync mib=24 period=7 secs=90 degrade=noperf",
                                    "application fsync timer (write 24 MiB in place + fsync every 7 s) / ext4 on vda / collector without perf",
                                    periodic("ckpt_fsync", "application_flush", 7.0)),
    "ixh_xfs_loop_db_relaxed_healthy_3t": ("held", "work=db durable=0 threads=3 payload=1000 trace=1 secs=90 port=3408 " + LOOP_XFS,
                                           "healthy MariaDB: sync_binlog=0, innodb_flush_log_at_trx_commit=2, 3 connections of tiny transactions with ~1 kB rows / XFS on loop / full collector (+ -T)",
                                           db_healthy()),
    "ixh_ext4_sfr_steps": ("held", "work=sfr mib=25 secs=90",
                           "buffered append at 25 MiB/s with sync_file_range(WRITE) on every 8 MiB step / ext4 on vda / full collector",
                           sfr("sfr_steps")),
    "ixh_idle_d_noperf": ("held", "work=idle secs=90 degrade=noperf", "idle host (no workload of ours) / collector without perf", idle()),
}
HALVES = ("dev", "check", "held")  # held: the held-out set (ixh_*), captured after the analysis changes, never tuned on
assert all(v[0] in HALVES for v in CASES.values())

if __name__ == "__main__":
    for name in sys.argv[1:] or CASES:
        half, keys, varies, exp = CASES[name]
        d = os.path.join(ROOT, name, "truth")
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "extra.json")
        cur = json.load(open(path)) if os.path.exists(path) else {}
        # a key already there is kept: the planned value, or one corrected after the capture from the workload's logs
        # and the trace (with a note in extra.json saying so); the half never changes
        assert cur.get("half", half) == half, name
        for k, v in {"half": half, "varies": varies, **exp}.items():
            cur.setdefault(k, v)
        json.dump(cur, open(path, "w"), indent=1)
        print("sh samples/tools/run_matrix.sh samples/%s %s" % (name, keys))
