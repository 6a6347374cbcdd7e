#!/usr/bin/env python3
"""pair_readme.py CASE_DIR - the README of a pair_* case from its truth.json (pair_truth.py); the title, the command
and the notes are hand-written in truth/extra.json (`title`, `made_with`, `notes`)."""
import json
import os
import sys

case = sys.argv[1]
t = json.load(open(os.path.join(case, "truth.json")))
st = t["replica_threads_pidstat"]
link = t["link"]
off = t["clock_offset_s"]


def kb(x):
    return "%.1f kB/s" % (x / 1000) if x is not None else "n/a"


rows = [
    ("source binlog production (primary `SHOW MASTER STATUS`, slope)", kb(t["source_binlog_bytes_per_s"])),
    ("received by the IO thread (`Read_Master_Log_Pos`, slope)", "%s (%.0f %% of the source)" % (
        kb(t["received_bytes_per_s"]), 100 * t["received_over_source"])),
    ("executed by the SQL thread (`Exec_Master_Log_Pos`, slope)", "%s (%.0f %% of received)" % (
        kb(t["executed_bytes_per_s"]), 100 * t["executed_over_received"])),
    ("relay backlog (received - executed), max", "%d bytes" % t["relay_backlog_bytes_max"]),
    ("IO thread writes (pidstat kB_wr/s of `slave_io`)", "%.1f kB/s = %.1f x what it receives" % (
        st["slave_io"]["kb_wr_per_s"], t["io_thread_written_over_received"])
     if t["io_thread_written_over_received"] is not None else "not in pidstat"),
    ("SQL thread writes (pidstat kB_wr/s of `slave_sql`)", "%.1f kB/s" % st["slave_sql"]["kb_wr_per_s"]
     if st["slave_sql"]["kb_wr_per_s"] is not None else "not in pidstat"),
    ("link", "tc htb class 1:20 at %.1f kB/s on the primary's port" % (link["class_rate_bytes_per_s"] / 1000)
     if link["shaped"] else "lo, unshaped"),
    ("Seconds_Behind_Master first / last / max", "%s / %s / %s s" % (
        t["seconds_behind_master"]["first"], t["seconds_behind_master"]["last"], t["seconds_behind_master"]["max"])),
    ("IO thread behind the source (source positions) last, slope", "%.1f s, %.3f s/s" % (
        t["io_thread_lag_behind_source"]["lag_last_s"], t["io_thread_lag_behind_source"]["lag_slope_s_per_s"])),
    ("pt-heartbeat lag read on the replica, last, slope", "%.1f s, %.3f s/s" % (
        t["heartbeat_lag"]["lag_last_s"], t["heartbeat_lag"]["lag_slope_s_per_s"])),
    ("IO thread state (readings in the window)", ", ".join("`%s` %d" % kv for kv in t["io_thread_states"].items())),
]
out = ["# %s: %s" % (t["case"], t["title"]), "",
       "REAL captures of this machine (issue 38): the primary and the replica of `tools/mariadb_pair.sh` (MariaDB 10.11, "
       "one host, ports 3440/3441, datadirs under `/var/tmp/iosift_pairs`), each captured by its own `collect.sh` at "
       "the same time, pointed at its own server's pid and socket. %s" % t["design"], "",
       "Made with: %s" % t["made_with"], "",
       "Configuration: %s." % t["configuration"], "",
       "## Layout", "",
       "- `capture/primary/`: the primary's whole collect.sh capture (its binlog decode, `PREFIX-master-status` and "
       "`PREFIX-heartbeat` every second, no slave status: it is not a replica).",
       "- `capture/replica/`: the replica's (`PREFIX-slave-status` every second, its own binlog with "
       "`log_slave_updates`, `PREFIX-heartbeat` (pt-heartbeat's row as replicated)).",
       "- `truth/`: the driver's records (settings, pids, load log `tiny_trx.*`, `tc.txt` when shaped, ps snapshots, "
       "both collectors' stdout, both `my.cnf`); `truth.json` from `tools/pair_truth.py`.", "",
       "## Where the lag is born (measured from the servers, window = load start + 5 s to load end)", "",
       "| measure | value |", "|---|---|"]
out += ["| %s | %s |" % r for r in rows]
out += ["", "**Bottleneck: `%s`** (`truth.json` `bottleneck`, by the rule in `tools/pair_truth.py`; the design said "
        "`%s`)." % (t["bottleneck"], t["expect_bottleneck"]), "",
        "## Clock offset", "",
        "True offset replica minus primary: **%+d s** (uncertainty %.1f s; %s)." % (
            off["replica_minus_primary"], off["uncertainty_s"], off["method"]), "",
        "Shared events to estimate it from: pt-heartbeat's row (stamped by the primary's clock every second) read on "
        "the replica by collect.sh with the replica's `NOW(6)`: before the load (%d readings) %.3f-%.3f s after its "
        "stamp, on the true axis; the primary read its own row %.3f-%.3f s (mean %.3f) after the stamp (the 1 s "
        "update interval). During the load that difference is the lag (plus the offset)." % (
            t["heartbeat_lag"]["before_load"]["readings"], t["heartbeat_lag"]["before_load"]["lag_min_s"],
            t["heartbeat_lag"]["before_load"]["lag_max_s"], t["primary_heartbeat_age"]["min_s"],
            t["primary_heartbeat_age"]["max_s"], t["primary_heartbeat_age"]["mean_s"]), ""]
if t.get("notes"):
    out += ["## Notes", ""] + ["- " + n for n in t["notes"]] + [""]
open(os.path.join(case, "README.md"), "w").write("\n".join(out))
