#!/usr/bin/env python3
"""replication_truth.py CASE_DIR CASE_NAME EXTRA_JSON - ground truth of a replication case (run_replication.sh).

Reads, for the case in CASE_DIR:
  truth/tiny_trx.json, truth/load_timeline.txt    the clients' own commit counts and load window (primary)
  truth/primary_status_{before,after}.txt         the primary's Binlog_commits / Binlog_group_commits deltas
  truth/settings_before.txt, truth/binlog_after.txt  primary and replica binlog positions before / after
  truth/heartbeat.csv                             the independent lag measurement (heartbeat.py)
  truth/primary_positions.txt                     the primary's own SHOW MASTER STATUS every second (when recorded):
                                                  when the source was at the positions the replica's threads report
  capture/*-slave-status, *-master-status, *-mysqladmin (.gz or not), iostat-x-t.txt, binlog-*-decoded.txt.gz,
          timeline.txt
  capture/*-stacktrace (collect.sh -G, when present)  gdb snapshots: per replication thread (its LWP from
                                                  mysql-threads*.tsv), snapshots and those whose frame #0 is fsync/fdatasync
and writes CASE_DIR/truth.json. EXTRA_JSON holds the hand-entered fields (expectations, configuration notes).
The status-series slope is the least-squares slope of Seconds_Behind_Master over the readings > 0: MariaDB prints 0
whenever its SQL thread has caught up with its IO thread, however far the IO thread is behind the source.
"""
import glob
import json
import os
import re
import sys

from truthlib import op as opener, slope, source_time

case_dir, name, extra = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
cap = os.path.join(case_dir, "capture")
tru = os.path.join(case_dir, "truth")


def one(pattern):
    hits = sorted(glob.glob(os.path.join(cap, pattern)))
    return hits[0] if hits else None


def status_pairs(path):
    out = {}
    for line in open(path):
        k, _, v = line.rstrip("\n").partition("\t")
        out[k] = int(v)
    return out


# ---- the replica status series (default connection)
series = []
cur = None
ts = None
for line in opener(one("*-slave-status*")):
    line = line.rstrip("\n")
    if line.startswith("TS "):
        ts = float(line.split()[1])
        continue
    if ". row " in line and line.strip().startswith("***"):
        cur = {"ts": ts}
        series.append(cur)
        continue
    m = re.match(r"\s*([A-Za-z_]+): ?(.*)$", line)
    if m and cur is not None:
        cur[m.group(1)] = m.group(2).strip()
series = [r for r in series if r.get("Connection_name", "") == ""]


def num(r, k):
    v = r.get(k, "NULL")
    return None if v in ("", "NULL") else int(v)


t_first = series[0]["ts"]
readings = [(r["ts"], num(r, "Seconds_Behind_Master")) for r in series if num(r, "Seconds_Behind_Master") is not None]
positive = [(t - t_first, v) for t, v in readings if v > 0]
first, last = series[0], series[-1]


def rate(key_file, key_pos):
    if first[key_file] != last[key_file]:
        return None
    return (num(last, key_pos) - num(first, key_pos)) / (last["ts"] - first["ts"])


backlog = lambda r: num(r, "Read_Master_Log_Pos") - num(r, "Exec_Master_Log_Pos") if r["Master_Log_File"] == r["Relay_Master_Log_File"] else None
status = {
    "file": os.path.basename(one("*-slave-status*")),
    "readings": len(series),
    "seconds_behind_first": readings[0][1] if readings else None,
    "seconds_behind_last": readings[-1][1] if readings else None,
    "seconds_behind_max": max(v for _, v in readings) if readings else None,
    "zero_readings": sum(1 for _, v in readings if v == 0),
    "positive_readings": len(positive),
    "lag_slope_s_per_s": round(slope(positive), 4) if len(positive) >= 5 else 0.0,
    "lag_slope_all_readings_s_per_s": round(slope([(t - t_first, v) for t, v in readings]) or 0.0, 4),
    "received_bytes_per_s": round(rate("Master_Log_File", "Read_Master_Log_Pos"), 1),
    "executed_bytes_per_s": round(rate("Relay_Master_Log_File", "Exec_Master_Log_Pos"), 1),
    "read_pos_first_last": [num(first, "Read_Master_Log_Pos"), num(last, "Read_Master_Log_Pos")],
    "exec_pos_first_last": [num(first, "Exec_Master_Log_Pos"), num(last, "Exec_Master_Log_Pos")],
    "backlog_bytes_first_last": [backlog(first), backlog(last)],
    "relay_log_space_first_last": [num(first, "Relay_Log_Space"), num(last, "Relay_Log_Space")],
    "window_epoch": [round(first["ts"], 3), round(last["ts"], 3)],
}

# ---- the independent heartbeat lag (readings of stamps written during this capture only)
collect_start = None
for line in open(os.path.join(cap, "timeline.txt")):
    if line.startswith("collect_start "):
        collect_start = float(line.split()[1])
hb = []
for line in list(open(os.path.join(tru, "heartbeat.csv")))[1:]:
    e, lag, seen = (float(x) for x in line.strip().split(","))
    if seen >= collect_start:
        hb.append((e, lag))
heartbeat = {
    "valid_readings": len(hb),
    "first_epoch": round(hb[0][0], 3) if hb else None,
    "last_epoch": round(hb[-1][0], 3) if hb else None,
    "lag_first_s": round(hb[0][1], 3) if hb else None,
    "lag_last_s": round(hb[-1][1], 3) if hb else None,
    "lag_slope_s_per_s": round(slope([(e - hb[0][0], l) for e, l in hb]) or 0.0, 4) if hb else None,
}

# ---- the source's positions: how far behind the source the IO thread (Read_Master_Log_Pos) and the SQL thread
# (Exec_Master_Log_Pos) were at each status reading, from when the primary itself was at those positions
source_positions = None
pp = os.path.join(tru, "primary_positions.txt")
if os.path.exists(pp):
    at = []
    for line in open(pp):
        f = line.split()
        if len(f) == 3:
            at.append((float(f[0]), f[1], int(f[2])))

    io, ex = [], []
    for r in series:
        if r.get("ts") is None:
            continue
        t = source_time(at, r.get("Master_Log_File"), num(r, "Read_Master_Log_Pos") or 0)
        if t is not None:
            io.append((r["ts"], r["ts"] - t))
        t = source_time(at, r.get("Relay_Master_Log_File"), num(r, "Exec_Master_Log_Pos") or 0)
        if t is not None:
            ex.append((r["ts"], r["ts"] - t))

    def summary(pts):
        if not pts:
            return None
        return {"readings": len(pts), "first_epoch": round(pts[0][0], 3), "last_epoch": round(pts[-1][0], 3),
                "lag_first_s": round(pts[0][1], 3), "lag_last_s": round(pts[-1][1], 3),
                "lag_max_s": round(max(l for _, l in pts), 3),
                "lag_slope_s_per_s": round(slope([(e - pts[0][0], l) for e, l in pts]) or 0.0, 4)}

    source_positions = {"snapshots": len(at), "io_thread_received": summary(io), "sql_thread_executed": summary(ex)}

# ---- the clients (primary) and the primary's counters
trx = json.load(open(os.path.join(tru, "tiny_trx.json")))
pb = status_pairs(os.path.join(tru, "primary_status_before.txt"))
pa = status_pairs(os.path.join(tru, "primary_status_after.txt"))
settings = open(os.path.join(tru, "settings_before.txt")).read().split("\n")
p_start = settings[2].split("\t")
r_start = settings[5].split("\t")
after = [l.split("\t") for l in open(os.path.join(tru, "binlog_after.txt")).read().strip().split("\n")]
primary = {
    "sync_binlog_trx_commit": settings[1].split("\t")[1:3],
    "binlog_commits_delta": pa["Binlog_commits"] - pb["Binlog_commits"],
    "binlog_group_commits_delta": pa["Binlog_group_commits"] - pb["Binlog_group_commits"],
    "binlog_file": p_start[0],
    "binlog_bytes_written": int(after[0][1]) - int(p_start[1]) if after[0][0] == p_start[0] else None,
}
load = {
    "threads": trx["threads"],
    "duration_s": trx["duration_s"],
    "start_epoch": round(trx["start_epoch"], 3),
    "end_epoch": round(trx["end_epoch"], 3),
    "transactions": trx["transactions"],
    "tps": round(trx["tps"], 1),
    "by_kind": trx["transactions_by_kind"],
    "latency_us": trx["latency_us"],
}

# ---- the replica's own commits and binlog, on its clock
adm = one("*-mysqladmin*")
commits = []
for line in opener(adm):
    m = re.match(r"\|\s*Binlog_commits\s*\|\s*(\d+)\s*\|", line)
    if m:
        commits.append(int(m.group(1)))
src = [l.rstrip("\n") for l in opener(one("*-master-status*"))]
pos = []
t = None
for l in src:
    if l.startswith("TS "):
        t = float(l.split()[1])
    elif l.startswith("replica-bin."):
        f, p = l.split("\t")[:2]
        pos.append((t, f, int(p)))
own_rate = (pos[-1][2] - pos[0][2]) / (pos[-1][0] - pos[0][0]) if pos and pos[0][1] == pos[-1][1] else None
replica = {
    "settings": dict(zip(["server_id", "sync_binlog", "innodb_flush_log_at_trx_commit", "sync_relay_log",
                          "sync_master_info", "slave_parallel_threads", "log_slave_updates"],
                         settings[4].split("\t"))),
    "binlog_commits_delta": commits[-1] - commits[0] if commits else None,
    "mysqladmin_samples": len(commits),
    "binlog_commits_per_s": round((commits[-1] - commits[0]) / (len(commits) - 1), 1) if len(commits) > 1 else None,
    "own_binlog_bytes_per_s": round(own_rate, 1) if own_rate is not None else None,
    "own_binlog_bytes_written": int(after[1][1]) - int(r_start[1]) if after[1][0] == r_start[0] else None,
}

# ---- the replica's decoded binlog: whose times do its events carry?
dec = one("binlog-*-decoded.txt.gz")
ids = {}
hdr_secs = {}
for line in opener(dec):
    m = re.match(r"#(\d{6} +\d+:\d\d:\d\d) server id (\d+) .*\tXid", line)
    if m:
        ids[m.group(2)] = ids.get(m.group(2), 0) + 1
        hdr_secs[m.group(1)] = hdr_secs.get(m.group(1), 0) + 1
binlog = {
    "file": os.path.basename(dec),
    "xid_events_by_server_id": ids,
    "header_seconds": len(hdr_secs),
    "first_header_time": min(hdr_secs) if hdr_secs else None,
    "last_header_time": max(hdr_secs) if hdr_secs else None,
    "xid_per_header_second_max": max(hdr_secs.values()) if hdr_secs else None,
}

# ---- iostat vda during the load (the whole device: primary, replica and foreign writers)
fs = []
cols = None
in_load = False
for line in open(os.path.join(cap, "iostat-x-t.txt")):
    if re.match(r"\d{4}-\d\d-\d\dT", line):
        import datetime
        e = datetime.datetime.strptime(line.strip(), "%Y-%m-%dT%H:%M:%S%z").timestamp()
        in_load = load["start_epoch"] + 1 <= e <= load["end_epoch"]
    elif line.startswith("Device"):
        cols = line.split()
    elif cols and line.startswith("vda ") and in_load:
        fs.append(float(line.split()[cols.index("f/s")]))
fs.sort()
iostat = {"seconds": len(fs), "vda_f_s_mean": round(sum(fs) / len(fs), 1) if fs else None,
          "vda_f_s_median": fs[len(fs) // 2] if fs else None}

# ---- gdb stacks (collect.sh -G): the replication threads' innermost frames, read with regular expressions only
stacks = None
st = one("*-stacktrace*")
if st:
    roles = {}
    for tf in glob.glob(os.path.join(cap, "mysql-threads*.tsv")):
        for row in open(tf):
            c = row.rstrip("\n").split("\t")
            if len(c) == 7 and c[1] in ("thread/sql/slave_io", "thread/sql/slave_sql") and c[6].isdigit():
                roles[c[6]] = c[1]
    per = {}
    lwp, first = None, False
    for line in opener(st):
        m = re.match(r"Thread \d+ \(.*\(LWP (\d+)\)", line)
        if m:
            lwp, first = m.group(1), True
            continue
        if line.startswith("#0 ") and first:
            first = False
            if lwp in roles:
                d = per.setdefault(roles[lwp], {"lwp": int(lwp), "snapshots": 0, "frame0_fsync": 0})
                d["snapshots"] += 1
                d["frame0_fsync"] += bool(re.search(r"fsync|fdatasync", line))
    for d in per.values():
        d["fsync_share"] = round(d["frame0_fsync"] / d["snapshots"], 4)
    stacks = {"file": os.path.basename(st),
              "snapshots": sum(1 for line in opener(st) if line.startswith("[Inferior ")),
              "threads": per}

truth = {"case": name, "load_on_primary": load, "primary": primary, "status_series": status, "heartbeat": heartbeat,
         "source_positions": source_positions,
         "replica": replica, "replica_binlog_window": binlog, "iostat_during_load": iostat}
if stacks:
    truth["gdb_stacks"] = stacks
truth.update(extra)
with open(os.path.join(case_dir, "truth.json"), "w") as f:
    json.dump(truth, f, indent=1)
    f.write("\n")
print(json.dumps({k: truth[k] for k in ("status_series", "heartbeat", "source_positions", "replica")}, indent=1))
