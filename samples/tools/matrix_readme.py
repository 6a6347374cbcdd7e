#!/usr/bin/env python3
"""matrix_readme.py CASE_DIR - write CASE_DIR/README.md of a scenario-matrix case from its truth.json and truth/ logs.

The measured part (what ran, figures, foreign activity seen in truth/ps-snapshots.txt) is generated; the judgement
(title, what the case varies, what a correct analysis concludes, notes) is hand-written in truth/extra.json
("title", "varies", "conclusion", "notes")."""
import json
import os
import re
import sys

import truthlib

case = sys.argv[1].rstrip("/")
name = os.path.basename(case)
t = json.load(open(case + "/truth.json"))
tr = case + "/truth/"
env = t["scenario"]
cmd = open(tr + "command.txt").read().strip()
L = []
w = L.append


def folio_text(lines):
    """'before workload T', 'folio_kib,folios,pages', '2048,512,262144' ... -> 'before: 512 x 2048 KiB; after: ...'"""
    parts, cur = [], None
    for x in lines:
        if x.startswith(("before", "after")):
            cur = [x.split()[0] + ":"]
            parts.append(cur)
        elif re.match(r"^\d+,\d+,\d+$", x) and cur is not None:
            k, n, _ = x.split(",")
            cur.append("%s x %s KiB" % (n, k))
    return "; ".join(p[0] + " " + ", ".join(p[1:]) for p in parts)


def utc(e):
    import datetime
    return datetime.datetime.fromtimestamp(int(e), datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def mb(x):
    return "%.1f MB" % (x / 1e6) if x is not None else "-"


w("# %s - REAL capture (scenario matrix): %s" % (name, t.get("title", "")))
w("")
w("Matrix half: **%s**. Varies: %s." % (t.get("half", "?"), t.get("varies", "")))
w("")
date = t.get("capture_date_utc", "")
w("## What ran (%s, host `vm`, kernel %s, see ../README.md)" % (date, t["kernel"]))
w("`%s` (driver: `tools/run_matrix.sh`, documented in `tools/README.md`), i.e.:" % cmd)
dev_line = {"vda": "the root ext4 on `/dev/vda` (plain virtio disk, no journal, read_ahead_kb 8192)",
            }.get(t["device"], "a fresh %s on `/dev/%s`: `fallocate -l 6G /var/tmp/iosift_mx/loop.img; losetup --direct-io=on --find "
                  "--show loop.img; mkfs.%s`, mounted on `/var/tmp/iosift_mx/mnt` (backing file on vda's ext4)" % (t["fs"], t["device"], t["fs"]))
w("- Storage: %s. Mount: `%s`." % (dev_line, " ".join(t["mount"] or [])))
sd = t["sysctl_during"]
w("- Tunables during the run (`truth/sysctl_during.txt`): `dirty_expire_centisecs=%s`, `dirty_writeback_centisecs=%s`, "
  "`dirty_bytes=%s`, `dirty_background_bytes=%s`, `dirty_ratio=%s`, `dirty_background_ratio=%s`; the values before "
  "(`truth/sysctl_before.txt`) were restored after the capture (`truth/sysctl_after.txt`)." % (
      sd["vm.dirty_expire_centisecs"], sd["vm.dirty_writeback_centisecs"], sd["vm.dirty_bytes"], sd["vm.dirty_background_bytes"],
      sd["vm.dirty_ratio"], sd["vm.dirty_background_ratio"]))
wr = t["writer"]
if env["work"] == "mmap":
    prep = {"2m": "written with `dd bs=2M count=512 conv=fsync` (2 MiB writes leave 2 MiB folios)",
            "order0": "written with 2 MiB writes, then `tools/cache_order0` (fdatasync, FADV_DONTNEED, FADV_RANDOM, 4 KiB preads: order-0 folios), mapping `madvise(MADV_RANDOM)`",
            "mixed": "written with 2 MiB writes, then `python3 tools/cache_mixed.py FILE 0.5 14` (cache dropped with FADV_DONTNEED, one 4 KiB pread under FADV_RANDOM in half of the 2 MiB regions, then a sequential read with normal readahead)"}[env["folios"]]
    w("- File `%s` (1 GiB) %s. `tools/folio_probe` before/after (`truth/folios.txt`): %s." % (
        wr["mapped_file"], prep, folio_text(t["folios"])))
    w("- `mmap_store FILE %g 2 %d truth/mmap_store %s`: PID **%d**, threads %s (TIDs %s); `MAP_SHARED`, %g stores/s of 32 bytes "
      "at random offsets of uniformly random 4 KiB pages, never msync/fsync; %d stores. Started %s s before the collector." % (
          wr["store_rate_per_s"], int(env["secs"]) + int(env["prerun"]) + 10, wr["madvise"], wr["pid"], ", ".join("`%s`" % n for n in wr["thread_names"]),
          ", ".join(map(str, wr["tids"])), wr["store_rate_per_s"], wr["stores"], 2 + int(env["prerun"])))
elif env["work"] == "copy":
    w("- `%s` (buffered, no sync), PID **%d** (started blocked on a fifo so that its pid could be given to the collector), "
      "released 5 s after the collector started: %s -> %s UTC, dd's report: `%s`." % (
          wr["command"], wr["pid"], wr["start_utc"], wr["exit_utc"], wr["report"]))
else:
    w("- Server: private MariaDB (`tools/mariadb_instance.sh` with `IOSIFT_DB_DIR`/`IOSIFT_DB_PORT`; `truth/my.cnf`), datadir `%s`, "
      "TCP 127.0.0.1:%s, `log_bin` ROW, `performance_schema=ON`, `innodb_flush_method=O_DIRECT`; `mariadbd` **PID %d**; "
      "`sync_binlog=%d`, `innodb_flush_log_at_trx_commit=%d` (SET GLOBAL before the capture)." % (
          t["datadir"], env["port"], wr["mariadbd_pid"], t["sync_binlog"], t["innodb_flush_log_at_trx_commit"]))
    ld = t["load"]
    w("- 5 s after the collector: `python3 tools/tiny_trx.py --threads 4 --duration %d --payload %d` (driver PID %d, client TIDs %s, "
      "connection ids %s): closed loop of tiny autocommit transactions (65 %% 1-row INSERT%s, 25 %% 1-row UPDATE by PK, "
      "10 %% UPDATE+INSERT), %s -> %s UTC." % (
          ld["duration_s"], ld["payload_bytes"], wr["driver_pid"], ", ".join(map(str, wr["driver_client_tids"])),
          ", ".join(map(str, wr["driver_connection_ids"])), " with a %d-byte text column" % ld["payload_bytes"] if ld["payload_bytes"] else "",
          ld["start_utc"][11:], ld["end_utc"][11:]))
fl = t.get("foreign_ddirect")
if fl:
    w("- Foreign load added by the driver: `%s` on vda: **%s writes/s** of 4 KiB (O_DIRECT, no flush), %d writes." % (fl["command"], fl["writes_per_s"], fl["writes"]))
fb = t.get("foreign_buffered_appender")
if fb:
    w("- Foreign load added by the driver: a second buffered writer, `python3 tools/buffered_appender.py %s 4 ...` (pid %s): "
      "4 MiB/s in four `write()`s a second, no fsync; %s in total." % (fb["header"].split()[4], fb["header"].split()[2], mb(fb["bytes"])))
w("- Collector: `%s`; `SKIPPED.txt`: %s." % (t.get("collector_command", ""), "; ".join("`%s`" % s for s in t["collector_skipped"]) or "nothing skipped"))
if t.get("degrade_note"):
    w("- Collector degradation: %s." % t["degrade_note"])
w("- Capture: unpacked into `capture/`, files > 200 KB gzip'd (`tools/gz_big.sh`). Block trace: %s." % t["capture_perf_trace"])
w("- Device-mapper: %s; so no dm case could be made on this machine." % t["device_mapper"])
w("")
w("Regenerate (as root): `%s`, then `python3 samples/tools/matrix_truth.py samples/%s` (hand-entered fields: "
  "`truth/extra.json`) and `python3 samples/tools/matrix_readme.py samples/%s`. The system-wide trace of a new run will be "
  "different: other tenants' load is part of every capture." % (cmd, name, name))
w("")
w("## Ground truth (truth.json)")
w("Device of the workload's file: **%s** (%s); physical disk: **vda**. Stack: %s." % (t["device"], t["device_majmin"], t["device_stack"]))
if env["work"] == "mmap":
    w("")
    w("| burst (UTC) | kind | interval | bytes written for the file (trace) | requests | avg request | 4 KiB pages dirtied since previous flush | amplification | device bytes, burst + 2 s (diskstats %s) | avg request, all of %s |" % (t["device"], t["device"]))
    w("|---|---|---|---|---|---|---|---|---|---|")
    prev = None
    for b in t["bursts"]:
        w("| %s | %s | %s | %s | %d | %s kB | %d (%s) | %s | %s | %s kB |" % (
            b["start_utc"][11:], b["kind"], "-" if prev is None else "%d s" % (b["start_epoch"] - prev), mb(b["file_write_bytes_trace"]),
            b["file_write_requests_trace"], b["file_avg_request_kB_trace"], b["dirtied_pages_4k"], mb(b["dirtied_bytes_4k"]),
            "%sx" % b["amplification"] if b["amplification"] else "-", mb(b["device_write_bytes_diskstats_burst_plus_2s"]),
            b["device_avg_write_request_kB_diskstats_burst_plus_2s"]))
        prev = b["start_epoch"]
    w("")
    w("- Period **%s s** (intervals between full flushes %s); writeback_start reasons %s; burst issuers (trace): %s." % (
        t["period_s"], t["periods_s"], t["writeback_start_reasons"], ", ".join(sorted({k for b in t["bursts"] for k in b["issuers"]}))))
    w("- Amplification median **%s** (file bytes written per flush / 4 KiB x pages dirtied); dirtied per flush median %s." % (
        t["amplification_median"], mb(t["dirtied_bytes_per_flush_median"])))
    if t["bursts"] and "predicted_bytes_folio" in t["bursts"][0]:
        w("- Predicted from the folio size (distinct folio-sized ranges touched x folio size): %s." % ", ".join(mb(b["predicted_bytes_folio"]) for b in t["bursts"]))
    if t.get("backing_file_writers_on_vda_trace"):
        w("- Through the loop device: the loop workers write `loop.img` on vda (all of loop0's writes, the file's and any other's: %s in each burst second + 2 s; issuers %s)." % (
            ", ".join(mb(b.get("backing_file_bytes_on_vda_trace_burst_plus_2s")) for b in t["bursts"]), t["backing_file_writers_on_vda_trace"]))
    w("- smaps FilePmdMapped of the mapping: %s kB; meminfo FilePmdMapped min/max %s kB; thp_file_mapped first/last %s." % (
        t["smaps_mapping_FilePmdMapped_kB"] or "not captured", t["meminfo_FilePmdMapped_kB_min_max"], t["thp_file_mapped_first_last"]))
    w("- pidstat of the writer threads: median %s kB/s, max %s kB/s (charged when a clean folio is first dirtied)." % (
        t["pidstat_writer_thread_kB_wr_s_median"], t["pidstat_writer_thread_kB_wr_s_max"]))
elif env["work"] == "copy":
    d = t["device_while_dd_ran_diskstats"] or {}
    w("- dd: %s in %s s = **%s MB/s** dirtying rate; device %s while dd ran: %s MB/s mean, max %s MB/s, avg request %s kB, "
      "dd rate / device rate **%s**." % (mb(wr["bytes"]), wr["duration_s"], wr["rate_MB_per_s"], t["device"], d.get("write_MB_per_s_mean"),
                                         d.get("write_MB_per_s_max"), d.get("avg_write_request_kB"), t["dd_rate_over_device_rate_while_running"]))
    w("- Limits: dirty_bytes %s, dirty_background_bytes %s; nr_dirty_threshold median %s pages, nr_dirty_background_threshold median %s pages "
      "while dd ran; meminfo Dirty while dd ran min/median/max %s kB (whole capture %s kB), Dirty+Writeback %s kB against the "
      "balance_dirty_pages pause ceiling %s kB; dd's wchan (every 0.1 s): %s (share in balance_dirty_pages %s); dd's schedstat: %s. "
      "**Throttled: %s.**" % (
          t["dirty_limit_bytes"], t["dirty_background_limit_bytes"], t["nr_dirty_threshold_pages_median_during_dd"],
          t["nr_dirty_background_threshold_pages_median_during_dd"], t["dirty_kB_during_dd_min_median_max"], t["dirty_kB_min_max"],
          t["dirty_plus_writeback_kB_during_dd_min_median_max"], t["balance_dirty_pages_freerun_ceiling_kB"],
          t["dd_wchan_samples_while_running"] or "not sampled", t["dd_wchan_balance_dirty_pages_share"], t["dd_schedstat_while_running"] or "not sampled",
          t["throttled"]))
    src = ("trace: every write request of %s, whose fresh file system holds only dd's file" % t["device"]) if t["device"] != "vda" else \
        "trace: write requests in the file's extents from `filefrag -v`"
    w("- The file's bytes written (%s): %s, of which %s while dd ran and "
      "%s after it exited; last write %s s after dd exited; issuers %s; first writeback_start by reason %s (all reasons %s)." % (
          src, mb(t["file_bytes_written_trace"]), mb(t["file_bytes_written_trace_while_dd_ran"]), mb(t["file_bytes_written_trace_after_dd_exit"]),
          t["file_writeback_ends_after_dd_exit_s"], t["file_write_issuers_trace"],
          ", ".join("%s %s" % (k, utc(v)[11:]) for k, v in t["first_writeback_reason_epoch"].items()), t["writeback_start_reasons"]))
    w("- The file's writes per second (UTC: MB, seconds with > 1 MB): %s." % ", ".join(
        "%s: %.0f" % (utc(int(k))[11:], v * 1.048576) for k, v in t["file_write_MiB_by_second"].items() if v * 1.048576 > 1))
    w("- pidstat dd kB_wr/s median %s; perf (-F 49 on dd): %d samples, %d with `balance_dirty_pages` on the stack." % (
        t["pidstat_dd_kB_wr_s_median"], t["perf_dd_samples"], t["perf_dd_samples_in_balance_dirty_pages"]))
    if t.get("backing_file_bytes_on_vda_trace") is not None:
        w("- Through the loop device: %s written into `loop.img` on vda by %s." % (mb(t["backing_file_bytes_on_vda_trace"]), t["backing_file_writers_on_vda_trace"]))
else:
    ld, md = t["load"], t["mysqladmin_deltas"]
    w("- **%d transactions in %.0f s = %s TPS** (driver; `Binlog_commits` delta %s); latency p50 %s us, p99 %s us; kinds %s." % (
        ld["transactions"], ld["duration_s"], ld["tps"], md["Binlog_commits"], ld["latency_us"]["p50"], ld["latency_us"]["p99"], ld["by_kind"]))
    w("- `Binlog_group_commits` +%s -> **%s transactions per group commit**; `Innodb_data_fsyncs` +%s; `Innodb_os_log_written` +%s bytes." % (
        md["Binlog_group_commits"], t["trx_per_group_commit"], md["Innodb_data_fsyncs"], md["Innodb_os_log_written"]))
    bw = t["binlog_window"]
    w("- Decoded binlog window (`-W %s`): %d transactions, **%s bytes per transaction** (mean; median %s)." % (
        env["window"], bw["transactions"], bw["bytes_per_trx_mean"], bw["bytes_per_trx_median"]))
    for dev, d in t["device_during_load_diskstats"].items():
        if d:
            w("- diskstats %s during the load: %s writes/s, %s MB/s, **%s flushes/s**, avg write %s kB." % (
                dev, d["writes_per_s_mean"], d["write_MB_per_s_mean"], d["flushes_per_s_mean"], d["avg_write_request_kB"]))
    pk = t["pidstat_kB_written"]
    w("- Driver connections = server TIDs %s (performance_schema.threads); pidstat: they wrote %s kB of mariadbd's %s kB." % (
        wr["driver_connection_server_tids"], pk["driver_connection_threads"], pk["all_mariadbd_threads"]))
    w("- perf (-F 49, on-CPU): %s mariadbd samples, %s with fsync/fdatasync on the stack." % (t["perf_mariadbd_samples"], t["perf_samples_in_fsync_share"]))
for n in t.get("notes", []):
    w("- %s" % n)
L += truthlib.readme_tail(t, tr, "The VM is shared: other agents compile Rust (cargo/rustc/rust-lld, test binaries) and other helpers run MariaDB captures; their "
      "writes are on vda too (see `diskstats_whole_capture` in truth.json for the device totals).")
open(case + "/README.md", "w").write("\n".join(L) + "\n")
print("\n".join(L))
