#!/usr/bin/env python3
"""ix_readme.py CASE_DIR - write CASE_DIR/README.md of an issuer-matrix case (samples/ix_*) from its truth.json
(tools/ix_truth.py) and truth/ logs.

The measured part (what ran, the episodes from the workload's log and the trace, the foreign activity seen in
truth/ps-snapshots.txt) is generated; the judgement (title, conclusion, notes) is hand-written in truth/extra.json."""
import datetime
import json
import os
import sys

import truthlib

case = sys.argv[1].rstrip("/")
name = os.path.basename(case)
t = json.load(open(case + "/truth.json"))
tr = case + "/truth/"
env = t["scenario"]
work = env["work"]
cmd = open(tr + "command.txt").read().strip()
L = []
w = L.append


def hms(e):
    return datetime.datetime.fromtimestamp(e, datetime.timezone.utc).strftime("%H:%M:%S.%f")[:-3]


def mb(x):
    return "%.1f MB" % (x / 1e6) if x is not None else "-"


def comms(d):
    return ", ".join("%s %s" % (k, mb(v)) for k, v in d.items()) or "none"


def du(path):
    total = 0
    for root, _dirs, files in os.walk(path):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total


w("# %s - REAL capture (issuer matrix, issue 34): %s" % (name, t.get("title", "")))
w("")
HALF_NOTE = {"held": "held out: captured after the analysis changes of issue 34, never tuned on; "}
w("Half: **%s** (%sfixed in `tools/ix_plan.py` before anything was captured or analysed). Varies: %s." % (
    t.get("half", "?"), HALF_NOTE.get(t.get("half"), ""), t.get("varies", "")))
w("")
w("## What ran (%s, host `vm`, kernel %s, see ../README.md)" % (t.get("capture_date_utc", ""), t["kernel"]))
w("`%s` (driver: `tools/run_matrix.sh`, documented in `tools/README.md`), i.e.:" % cmd)
if t["device"] == "vda":
    w("- Storage: the root ext4 on `/dev/vda` (plain virtio disk, no journal). Mount: `%s`." % " ".join(t["mount"] or []))
else:
    w("- Storage: a fresh %s on `/dev/%s`: `fallocate -l 6G /var/tmp/iosift_mx/loop.img; losetup --direct-io=on --find --show loop.img; "
      "mkfs.%s%s`, mounted%s on `/var/tmp/iosift_mx/mnt` (backing file on vda's ext4). Mount: `%s`." % (
          t["fs"], t["device"], t["fs"], " -J size=%s" % env["jsize"] if env.get("jsize", "0") != "0" else "", " with `-o %s`" % env["mntopts"] if env.get("mntopts") else "", " ".join(t["mount"] or [])))
sd = t["sysctl_during"]
w("- Tunables during the run (`truth/sysctl_during.txt`): `dirty_expire_centisecs=%s`, `dirty_writeback_centisecs=%s`, `dirty_bytes=%s`, "
  "`dirty_background_bytes=%s`, `dirty_ratio=%s`, `dirty_background_ratio=%s` (the defaults of this host; restored afterwards, "
  "`truth/sysctl_after.txt`)." % (sd["vm.dirty_expire_centisecs"], sd["vm.dirty_writeback_centisecs"], sd["vm.dirty_bytes"],
                                  sd["vm.dirty_background_bytes"], sd["vm.dirty_ratio"], sd["vm.dirty_background_ratio"]))
wr = t.get("writer", {})
if work in ("fsync", "msync", "odirect", "sfr", "append"):
    what = {"fsync": "every %g s `write()` %d MiB over the file in place (1 MiB writes), then `fsync()`" % (wr["period_design_s"], wr["size_mib"]),
            "msync": "the %d MiB file mapped `MAP_SHARED`; every %g s an 8-byte store into every 4 KiB page, then `msync(MS_SYNC)`" % (wr["size_mib"], wr["period_design_s"]),
            "odirect": "every %g s %d MiB written over the file with `O_DIRECT` in 1 MiB aligned `write()`s, no fsync" % (wr["period_design_s"], wr["size_mib"]),
            "sfr": "appends at %d MiB/s in 1 MiB `write()`s, `sync_file_range(SYNC_FILE_RANGE_WRITE)` on every completed 8 MiB step" % wr["size_mib"],
            "append": "every 100 ms a 4 KiB buffered append to `append.log`, every second a new 1 KiB file `small-NNNNN`; never fsync"}[work]
    w("- Workload: `periodic_writer %s %s %s %s %g truth/periodic_writer.csv` (`tools/periodic_writer.c`), PID **%d** (one thread, comm "
      "**`%s`**): %s; started 2 s before the collector; every operation in `truth/periodic_writer.csv` (epochs, bytes, tid)." % (
          work, wr["file"], env["mib"], env["period"], wr["duration_s"], wr["pid"], wr["comm"], what))
elif work == "sync_other":
    sl = t["sync_loop"]
    w("- Workload: `python3 tools/buffered_appender.py %s/appender.dat %s ... truth/appender.log appender` (PID **%d**, comm **`appender`**): "
      "%s MiB/s in four buffered `write()`s a second, no fsync; and `sh tools/sync_loop.sh %s ... truth/sync_loop.log` (PID %d): "
      "`sync` every %g s on an absolute schedule, each sync's start/end epochs and pid logged." % (
          "/var/tmp/iosift_mx/mnt" if t["device"] != "vda" else "/var/tmp/iosift_mx", env["mib"], wr["pid"], env["mib"], env["period"],
          sl["pid"], sl["period_design_s"]))
elif work == "appender":
    w("- Workload: `python3 tools/buffered_appender.py %s/appender.dat %s ... truth/appender.log appender` (PID **%d**, "
      "comm **`appender`**): %s MiB/s in four buffered `write()`s a second, never fsync, no sync; %d writes, %s logged; started 2 s before "
      "the collector." % ("/var/tmp/iosift_mx/mnt" if t["device"] != "vda" else "/var/tmp/iosift_mx", env["mib"], wr["pid"], env["mib"], wr["writes_logged"], mb(wr["bytes"])))
elif work == "copy":
    w("- Workload: `%s` (buffered, no sync), PID **%d**, released 5 s after the collector started: %s -> %s UTC; dd's report: `%s`." % (
        wr["command"], wr["pid"], wr["start_utc"], wr["exit_utc"], wr["report"]))
elif work == "db":
    ld = t["load"]
    w("- Server: private MariaDB 10.11 (`tools/mariadb_instance.sh`; `truth/my.cnf`), datadir `%s`, `log_bin` ROW, "
      "`innodb_flush_method=O_DIRECT`; `mariadbd` **PID %d**; `sync_binlog=%d`, `innodb_flush_log_at_trx_commit=%d`." % (
          t["datadir"], wr["mariadbd_pid"], t["sync_binlog"], t["innodb_flush_log_at_trx_commit"]))
    w("- Load: `python3 tools/tiny_trx.py --threads %d --duration %d --payload %d` 5 s after the collector: %d transactions, **%s TPS**, "
      "latency p50 %s us, p99 %s us." % (ld["connections"], ld["duration_s"], ld["payload_bytes"], ld["transactions"], ld["tps"],
                                         ld["latency_us"]["p50"], ld["latency_us"]["p99"]))
else:
    w("- No workload of ours: the collector alone on the shared host.")
w("- Collector: `%s`; `SKIPPED.txt`: %s." % (t.get("collector_command", ""), "; ".join("`%s`" % s for s in t["collector_skipped"]) or "nothing skipped"))
if os.path.exists(tr + "degrade.txt"):
    w("- Degraded collector: %s." % open(tr + "degrade.txt").read().strip())
w("- Capture: `capture/` (%s; files > 200 KB gzip'd by `tools/gz_big.sh`)%s." % (
    mb(du(case + "/capture")), ", of which the system-wide trace `perf-trace.script.txt.gz` %s" % mb(t["trace_bytes_gz"]) if t.get("trace_bytes_gz") else ""))
w("")
w("Regenerate (as root): `%s`, then `python3 samples/tools/ix_truth.py samples/%s` and `python3 samples/tools/ix_readme.py samples/%s` "
  "(expectations: `tools/ix_plan.py`; hand-written judgement: `truth/extra.json`). A new run differs: other tenants' load is part "
  "of every capture." % (cmd, name, name))
w("")
w("## Ground truth (truth.json)")
w("- Witnesses in the capture: %s." % ", ".join("%s %s" % (k, "yes" if v else "**no**") for k, v in t["witnesses"].items()))
w("- Writers (dirtied or submitted the data): %s; issuers (who issued the block writes, and why): %s." % (
    ", ".join("`%s`" % x for x in t["writers"]) or "none", ", ".join("%s (`%s`)" % (i["class"], i["comm"]) for i in t["issuers"]) or "none"))
if t.get("perf_profile_stack_marks"):
    w("- perf profile (`-P`: on-CPU samples of the selected processes; a thread waiting on its flush is off-CPU and not sampled): %s." % "; ".join(
        "`%s` %s" % (c, ", ".join("%s %d" % kv for kv in m.items())) for c, m in t["perf_profile_stack_marks"].items()))
if t.get("period_s") is not None:
    w("- Period: **%s s**%s." % (t["period_s"], "; measured from the workload's own log: %s s (intervals %s)" % (
        t["period_s_measured_from_log"], t["intervals_s_from_log"]) if t.get("period_s_measured_from_log") is not None else ""))
if t.get("period_s_measured_trace") is not None:
    w("- Period measured from the trace's bursts: %s s (intervals %s)." % (t["period_s_measured_trace"], t.get("journal_commit_intervals_s_trace") or t.get("intervals_s_trace")))
if t.get("period_s_measured_diskstats") is not None:
    w("- Period measured from the device's bursts in diskstats (1 s resolution): %s s (intervals %s)." % (
        t["period_s_measured_diskstats"], t["device_burst_intervals_s_diskstats"]))
if t.get("bytes_per_episode_from_log_median") is not None:
    w("- Bytes per episode from the workload's log (median): %s; episodes in the capture: %s." % (mb(t["bytes_per_episode_from_log_median"]), t.get("episodes_in_capture")))
if t.get("healthy"):
    w("- Healthy: no warning-or-worse finding is expected.")
eps = [e for e in t["episodes"] if e.get("in_capture")]
if eps and work != "sfr":
    w("")
    w("| episode | start (UTC) | interval | bytes (workload log; db/copy: trace) | flush call | bios of the workload's files (trace, by submitter) | requests issued by | writeback reasons in the window |")
    w("|---|---|---|---|---|---|---|---|")
    prev = None
    for e in eps:
        tr_ = e.get("trace", {})
        logb = next((e[k] for k in ("dirtied_or_written_bytes", "appended_bytes_since_previous_sync", "logged_bytes_since_previous_commit",
                                     "bytes_trace") if k in e), None)
        fl = "%s %.3f s" % (e["flush_op"], e["flush_s"]) if e.get("flush_op") else ("sync %.3f s" % e["sync_s"] if "sync_s" in e else "-")
        w("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            e["k"], hms(e["start_epoch"]), "-" if prev is None else "%.2f s" % (e["start_epoch"] - prev), mb(logb), fl,
            comms(tr_.get("files_bio_bytes_by_comm", {})) if tr_ else ("no trace; diskstats %s" % mb(e["device_bytes_diskstats"])
                                                                      if "device_bytes_diskstats" in e else "no trace"), comms(tr_.get("files_rq_issue_bytes_by_comm", {})) if tr_ else "-",
            ", ".join("%s x%d" % kv for kv in tr_.get("writeback_reasons", {}).items()) or "-" if tr_ else "-"))
        prev = e["start_epoch"]
    w("")
if work == "sfr":
    w("- sync_file_range calls: %d (one per 8 MiB); append rate measured from the log %s MiB/s." % (wr["sync_file_range_calls"], wr["append_rate_MiB_s_measured"]))
    if t.get("sfr_trace"):
        s = t["sfr_trace"]
        w("- The file's bios (trace), whole capture: %s; submitted during the sync_file_range calls: %s; writeback reasons: %s." % (
            comms(s["file_bio_bytes_whole_capture_by_comm"]), comms(s["file_bio_bytes_during_sfr_calls_by_comm"]), s["writeback_reasons_whole_capture"]))
if work == "appender" and any("jbd2_bio_bytes" in e for e in eps):
    w("- jbd2's write bios on %s per commit (trace; with data=journal they go into the journal, outside the file's extents): %s." % (
        t["device"], ", ".join(mb(e["jbd2_bio_bytes"]) for e in eps)))
if work == "append":
    w("- The workload's log: %d appends (%s), %d files created; append interval median %s s." % (
        wr["appends"], mb(wr["append_bytes"]), wr["files_created"], wr["append_interval_s_median"]))
if "file_bio_bytes_outside_episodes_by_comm" in t:
    w("- The workload's file bytes submitted outside every episode window (trace): %s." % comms(t["file_bio_bytes_outside_episodes_by_comm"]))
if work == "db" and t.get("db_files_bio_bytes_whole_capture"):
    w("- The server's files, bios by submitter over the capture (trace, sectors in `truth/filefrag-files.txt`): %s." % "; ".join(
        "%s: %s" % (g, comms(v)) for g, v in t["db_files_bio_bytes_whole_capture"].items()))
if work == "copy":
    w("- dd %s in %s s (%s MB/s); Dirty while dd ran min/median/max %s kB; nr_dirty_background_threshold median %s pages; %s." % (
        mb(wr["bytes"]), wr["duration_s"], wr["rate_MB_per_s"], t["dirty_kB_during_dd_min_median_max"],
        t["nr_dirty_background_threshold_pages_median_during_dd"],
        "file bytes written (trace) while dd ran %s, after it exited %s; first writeback by reason %s" % (
            mb(t["file_bytes_written_trace_while_dd_ran"]), mb(t["file_bytes_written_trace_after_dd_exit"]), t["first_writeback_reason_epoch"])
        if t["witnesses"]["trace"] else "no trace: the file's writeback is seen only in the device's diskstats (below)"))
if t.get("trace_whole_capture"):
    x = t["trace_whole_capture"]
    w("- Trace, whole capture: events %s; write bios by submitter per device: %s; writeback reasons: %s." % (
        x["events"], "; ".join("%s: %s" % (d, comms(v)) for d, v in x["device_bio_bytes_by_comm"].items()), x["writeback_reasons"] or "none"))
if t.get("trace_whole_capture", {}).get("backing_loop_img_bio_bytes_by_comm"):
    w("- Through the loop device: bios of the backing file `loop.img` on vda (its extents in `truth/filefrag-loop.img-end.txt`), by "
      "submitter, whole capture: %s (the loop worker re-issues the upper device's writes: stacked re-issue, never a dirtier)." % comms(
          t["trace_whole_capture"]["backing_loop_img_bio_bytes_by_comm"]))
db_ = t.get("device_write_bursts_diskstats") or []
w("- diskstats of %s, seconds over %s/s grouped (every writer of the device, other tenants included): %s." % (
    t["device"], "%d KiB" % (t.get("device_write_bursts_diskstats_floor_bytes", 4 << 20) >> 10), ", ".join("%s +%ds %s" % (hms(b["start_epoch"])[:8], b["end_epoch"] - b["start_epoch"], mb(b["bytes"])) for b in db_[:12]) or "none"))
for n in t.get("notes", []):
    w("- %s" % n)
L += truthlib.readme_tail(t, tr, "The VM is shared with the lead and other helpers (Rust builds and tests, their MariaDB captures); their writes are on vda too "
      "and in the system-wide trace.")
open(case + "/README.md", "w").write("\n".join(L) + "\n")
print("\n".join(L))
