#!/usr/bin/env python3
"""pair_truth.py CASE_DIR NAME [--offset SECONDS] - ground truth of a pair_* case (run_pair.sh): where the replica's
lag is born, measured from the two servers themselves, and the true clock offset between the two captures.

Both servers ran on one host, so one clock: every series below is read on the true time axis. For a shifted copy
(shift_capture.py, --offset N) the replica's stamps are read back by N first (its truth is the original's) and
clock_offset_s says N.
Reads, for the case in CASE_DIR:
  capture/primary/PREFIX-master-status     the source's binary log position every second: its production (bytes/s)
  capture/replica/PREFIX-slave-status      Read_Master_Log_Pos (received), Exec_Master_Log_Pos (executed),
                                           Seconds_Behind_Master, Relay_Log_Space, the IO/SQL thread states
  capture/replica/PREFIX-heartbeat         pt-heartbeat's row (the source's clock) read with the replica's NOW(6)
  capture/replica/pidstat-d-t-h.txt        the replica's IO and SQL threads (THREAD_OS_ID in mysql-threads.tsv):
                                           iodelay (clock ticks of block I/O wait per second) and kB written per s
  truth/tc.txt, truth/load_timeline.txt, truth/tiny_trx.json, truth/settings_before.txt
Every rate is the least-squares slope over the load window (load_start + 5 s to load_end) in bytes per second.
The bottleneck, from those numbers only:
  received < 0.8 x source production   the IO side: `link` when tc shaped the source's port and the received rate is
                                       >= 0.8 x the class's rate; `replica_io_thread_flushes` when the IO thread writes
                                       >= 4 x the bytes it receives (pidstat kB_wr/s: every flush rewrites the relay
                                       log's last partial 4 KiB block, so a flush per ~100-byte event writes ~40x) or
                                       waits on block I/O >= 30 % of the time (pidstat iodelay, 0 unless the kernel's
                                       task_delayacct is on, as here); else `io_thread_unexplained`
  executed < 0.8 x received            `sql_thread`
  otherwise                            `source_production` (the replica keeps up: the lag is the source's pace)
Writes CASE_DIR/truth.json (merged with CASE_DIR/truth/extra.json, the hand-written fields).
"""
import argparse
import datetime as dt
import glob
import gzip
import json
import os
import re

from truthlib import op as opener, slope, source_time

ap = argparse.ArgumentParser()
ap.add_argument("case_dir")
ap.add_argument("name")
ap.add_argument("--offset", type=int, default=0)
a = ap.parse_args()
cap = os.path.join(a.case_dir, "capture")
tru = os.path.join(a.case_dir, "truth")
OFF = a.offset


def one(side, pattern):
    hits = sorted(glob.glob(os.path.join(cap, side, pattern)))
    return hits[0] if hits else None


def r1(x, n=1):
    return None if x is None else round(x, n)


def records(path, side_off):
    """TS-stamped snapshots: [(epoch, [lines])], the epoch read back by the side's offset."""
    out = []
    for line in opener(path):
        line = line.rstrip("\n")
        if line.startswith("TS "):
            out.append((float(line.split()[1]) - side_off, []))
        elif out:
            out[-1][1].append(line)
    return out


timeline = dict(l.split()[:2] for l in open(os.path.join(tru, "load_timeline.txt")))
load_start, load_end = float(timeline["load_start"]), float(timeline["load_end"])
win = (load_start + 5, load_end)
inwin = lambda t: win[0] <= t <= win[1]

# ---- the source: SHOW MASTER STATUS every second (primary's clock, never shifted)
src = []
for t, lines in records(one("primary", "*-master-status*"), 0):
    if len(lines) >= 2:
        f = lines[1].split("\t")
        src.append((t, f[0], int(f[1])))
src_file = src[0][1]
src_rate = slope([(t, p) for t, f, p in src if inwin(t) and f == src_file])

# ---- the replica's status series
rows = []
for t, lines in records(one("replica", "*-slave-status*"), OFF):
    d = {"ts": t}
    for line in lines:
        m = re.match(r"\s*([A-Za-z_]+): ?(.*)$", line)
        if m:
            d[m.group(1)] = m.group(2).strip()
    if d.get("Connection_name", "") == "" and "Read_Master_Log_Pos" in d:
        rows.append(d)
num = lambda r, k: None if r.get(k, "NULL") in ("", "NULL") else int(r[k])
same = [r for r in rows if inwin(r["ts"]) and r["Master_Log_File"] == src_file]
recv_rate = slope([(r["ts"], num(r, "Read_Master_Log_Pos")) for r in same])
exec_rate = slope([(r["ts"], num(r, "Exec_Master_Log_Pos")) for r in same if r["Relay_Master_Log_File"] == src_file])
sbm = [(r["ts"], num(r, "Seconds_Behind_Master")) for r in rows if num(r, "Seconds_Behind_Master") is not None]
backlog = [num(r, "Read_Master_Log_Pos") - num(r, "Exec_Master_Log_Pos") for r in same
           if r["Relay_Master_Log_File"] == r["Master_Log_File"]]
states = {}
for r in rows:
    if inwin(r["ts"]):
        states[r.get("Slave_IO_State", "")] = states.get(r.get("Slave_IO_State", ""), 0) + 1


def lag_series(file_key, pos_key):
    pts = []
    for r in rows:
        t = source_time(src, r.get(file_key), num(r, pos_key) or 0)
        if t is not None:
            pts.append((r["ts"], r["ts"] - t))
    return pts


def lag_summary(pts):
    if not pts:
        return None
    w = [(t, l) for t, l in pts if inwin(t)]
    return {"readings": len(pts), "lag_first_s": r1(pts[0][1], 3), "lag_last_s": r1(pts[-1][1], 3),
            "lag_max_s": r1(max(l for _, l in pts), 3), "lag_slope_s_per_s": r1(slope(w), 4)}


io_lag, sql_lag = lag_series("Master_Log_File", "Read_Master_Log_Pos"), lag_series("Relay_Master_Log_File", "Exec_Master_Log_Pos")

# ---- pt-heartbeat read on the replica: its NOW(6) minus the source's stamp (both the host's clock, less the shift)
hb = []
cols = None
for t, lines in records(one("replica", "*-heartbeat*"), OFF):
    for line in lines:
        f = line.split("\t")
        if "server_epoch" in f:
            cols = f
        elif cols and len(f) == len(cols) and f[cols.index("server_id")] == "1":
            stamp = dt.datetime.strptime(f[cols.index("ts")], "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=dt.timezone.utc)
            hb.append((t, float(f[cols.index("server_epoch")]) - OFF - stamp.timestamp()))
hbw = [(t, l) for t, l in hb if inwin(t)]
# the primary reading its own row: the age of pt-heartbeat's stamp when read (0 to its 1 s interval, no lag, no offset)
age = []
cols = None
for t, lines in records(one("primary", "*-heartbeat*"), 0):
    for line in lines:
        f = line.split("\t")
        if "server_epoch" in f:
            cols = f
        elif cols and len(f) == len(cols):
            stamp = dt.datetime.strptime(f[cols.index("ts")], "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=dt.timezone.utc)
            age.append(float(f[cols.index("server_epoch")]) - stamp.timestamp())
pre = [l for t, l in hb if t < load_start]

# ---- the replica's IO and SQL threads in pidstat (iodelay: clock ticks of block I/O delay, 100 per second)
tids = {}
for row in open(os.path.join(cap, "replica", "mysql-threads.tsv")):
    c = row.rstrip("\n").split("\t")
    if len(c) == 7 and c[1] in ("thread/sql/slave_io", "thread/sql/slave_sql") and c[6].isdigit():
        tids[c[6]] = c[1].split("/")[-1]
day = None
per = {v: {"seconds": 0, "iodelay_ticks": 0, "kb_wr": 0.0} for v in tids.values()}
hdr = None
for line in opener(one("replica", "pidstat-d-t-h.txt*")):
    f = line.split()
    if line.startswith("Linux ") and day is None:
        day = re.search(r"\d{4}-\d\d-\d\d", line).group(0)
    elif line.startswith("# Time"):
        hdr = f[1:]
    elif hdr and len(f) == len(hdr) and re.match(r"\d\d:\d\d:\d\d$", f[0]) and f[hdr.index("TID")] in tids:
        t = dt.datetime.strptime(day + " " + f[0], "%Y-%m-%d %H:%M:%S").replace(tzinfo=dt.timezone.utc).timestamp() - OFF
        if inwin(t):
            d = per[tids[f[hdr.index("TID")]]]
            d["seconds"] += 1
            d["iodelay_ticks"] += int(f[hdr.index("iodelay")])
            d["kb_wr"] += float(f[hdr.index("kB_wr/s")])
threads = {k: {"seconds_seen": v["seconds"],
               "iodelay_share": r1(v["iodelay_ticks"] / 100 / v["seconds"], 3) if v["seconds"] else None,
               "kb_wr_per_s": r1(v["kb_wr"] / v["seconds"]) if v["seconds"] else None} for k, v in per.items()}

# ---- the link: tc's class for the source's port (sent bytes at the end / the window), when shaped
link = {"shaped": False}
tcp = os.path.join(tru, "tc.txt")
if os.path.exists(tcp):
    text = open(tcp).read()
    rate = re.search(r"class htb 1:20 .*?rate (\d+)([KMG]?)bit", text)
    mult = {"": 1, "K": 1000, "M": 1000000, "G": 1000000000}[rate.group(2)]
    sent = re.findall(r"class htb 1:20 [^\n]*\n Sent (\d+) bytes", text)
    link = {"shaped": True, "class_rate_bytes_per_s": int(rate.group(1)) * mult / 8,
            "class_sent_bytes": int(sent[-1]) if sent else None}

# ---- the verdict from the numbers
recv_share = recv_rate / src_rate if src_rate else None
exec_share = exec_rate / recv_rate if recv_rate else None
io_wait = (threads.get("slave_io") or {}).get("iodelay_share") or 0.0
io_kb = (threads.get("slave_io") or {}).get("kb_wr_per_s")
io_amp = io_kb * 1024 / recv_rate if io_kb is not None and recv_rate else None
if recv_share is not None and recv_share < 0.8:
    if link["shaped"] and recv_rate >= 0.8 * link["class_rate_bytes_per_s"]:
        bottleneck = "link"
    elif io_wait >= 0.3 or (io_amp or 0) >= 4:
        bottleneck = "replica_io_thread_flushes"
    else:
        bottleneck = "io_thread_unexplained"
elif exec_share is not None and exec_share < 0.8:
    bottleneck = "sql_thread"
else:
    bottleneck = "source_production"

trx = json.load(open(os.path.join(tru, "tiny_trx.json")))
settings = open(os.path.join(tru, "settings_before.txt")).read().split("\n")
truth = {
    "case": a.name,
    "nodes": {"primary": "capture/primary", "replica": "capture/replica"},
    "bottleneck": bottleneck,
    "clock_offset_s": {"replica_minus_primary": OFF, "uncertainty_s": 0.0,
                       "method": "both servers on one host (one clock)" + (
                           "; the replica's capture shifted by %+d s with tools/shift_capture.py" % OFF if OFF else "")},
    "window_epoch": [r1(win[0], 3), r1(win[1], 3)],
    "load_on_primary": {"threads": trx["threads"], "transactions": trx["transactions"], "tps": r1(trx["tps"])},
    "settings": {"run": settings[0], "primary": settings[2].split("\t"), "replica": settings[5].split("\t")},
    "source_binlog_bytes_per_s": r1(src_rate),
    "received_bytes_per_s": r1(recv_rate),
    "executed_bytes_per_s": r1(exec_rate),
    "received_over_source": r1(recv_share, 3),
    "executed_over_received": r1(exec_share, 3),
    "relay_backlog_bytes_max": max(backlog) if backlog else None,
    "io_thread_states": states,
    "replica_threads_pidstat": threads,
    "io_thread_written_over_received": r1(io_amp, 2),
    "link": link,
    "status_readings": len(rows),
    "seconds_behind_master": {"first": sbm[0][1] if sbm else None, "last": sbm[-1][1] if sbm else None,
                              "max": max(v for _, v in sbm) if sbm else None},
    "io_thread_lag_behind_source": lag_summary(io_lag),
    "sql_thread_lag_behind_source": lag_summary(sql_lag),
    "heartbeat_lag": {"readings": len(hb), "lag_first_s": r1(hb[0][1], 3) if hb else None,
                      "lag_last_s": r1(hb[-1][1], 3) if hb else None,
                      "lag_max_s": r1(max(l for _, l in hb), 3) if hb else None,
                      "lag_slope_s_per_s": r1(slope(hbw), 4),
                      "before_load": {"readings": len(pre), "lag_min_s": r1(min(pre), 3) if pre else None,
                                      "lag_max_s": r1(max(pre), 3) if pre else None}},
    "primary_heartbeat_age": {"readings": len(age), "min_s": r1(min(age), 3) if age else None,
                              "max_s": r1(max(age), 3) if age else None,
                              "mean_s": r1(sum(age) / len(age), 3) if age else None},
}
extra = os.path.join(tru, "extra.json")
if os.path.exists(extra):
    truth.update(json.load(open(extra)))
with open(os.path.join(a.case_dir, "truth.json"), "w") as f:
    json.dump(truth, f, indent=1)
    f.write("\n")
print(json.dumps({k: truth[k] for k in ("bottleneck", "source_binlog_bytes_per_s", "received_bytes_per_s",
                                        "executed_bytes_per_s", "replica_threads_pidstat", "link",
                                        "seconds_behind_master", "heartbeat_lag", "io_thread_lag_behind_source")},
                 indent=1))
