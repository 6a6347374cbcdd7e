#!/usr/bin/env python3
"""mariadb_truth.py - ground truth of a MariaDB sample (samples/mariadb_*): writes CASE/truth.json.

Inputs: truth/tiny_trx.json (driver totals, connection ids, client TIDs), truth/load_timeline.txt,
capture/*-mysqladmin[.gz] (absolute counters per second), capture/iostat-x-t.txt[.gz] (vda),
capture/mysql-threads.tsv (THREAD_OS_ID of the driver connections), capture/pidstat-d-t-h.txt[.gz],
capture/binlog-*-decoded.txt.gz (the decoded window), capture/perf-profile.script.txt.gz.
usage: mariadb_truth.py CASE_DIR NAME '{"extra": "json"}'
"""
import collections
import datetime
import glob
import gzip
import json
import re
import statistics
import sys

import truthlib

case, name = sys.argv[1], sys.argv[2]
extra = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
cap = case + "/capture/"


def op(path):
    return gzip.open(path, "rt", errors="replace") if path.endswith(".gz") else open(path, errors="replace")


def one(pattern):
    g = sorted(glob.glob(cap + pattern))
    return g[0] if g else None


drv = json.load(open(case + "/truth/tiny_trx.json"))
t0, t1 = drv["start_epoch"], drv["end_epoch"]
load_secs = set(range(int(t0) + 1, int(t1)))  # whole seconds inside the load

delta = truthlib.mysqladmin_delta(one("*-mysqladmin*"))


io = {}
hdr = None
stamp = None
for line in op(one("iostat-x-t.txt*")):
    p = line.split()
    if len(p) == 1 and re.match(r"\d{4}-\d\d-\d\dT", p[0]):
        stamp = int(datetime.datetime.strptime(p[0], "%Y-%m-%dT%H:%M:%S%z").timestamp())
    elif p and p[0] == "Device":
        hdr = p
    elif p and p[0] == "vda" and stamp is not None:
        io[stamp] = dict(zip(hdr[1:], map(float, p[1:])))
ls = [io[s] for s in sorted(io) if s in load_secs]


def mean(k):
    return round(statistics.mean(r[k] for r in ls), 2) if ls else None


def med(k):
    return round(statistics.median(r[k] for r in ls), 2) if ls else None


# driver connections -> server TIDs
conn_ids = {c["connection_id"] for c in drv["connections"]}
tids, roles = [], collections.Counter()
seen = set()
for path in sorted(glob.glob(cap + "mysql-threads*.tsv")):
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) < 7 or f[0] == "THREAD_ID" or f[6] in seen:
            continue
        seen.add(f[6])
        roles[f[1]] += 1
        if f[3].isdigit() and int(f[3]) in conn_ids and f[6].isdigit():
            tids.append(int(f[6]))

# pidstat: kB written by the connection threads vs all of mariadbd (thread rows, sum of kB_wr/s x 1 s)
conn_kb = all_kb = 0.0
tgid_of_mariadbd = None
ps = one("pidstat-d-t-h.txt*")
cols = None
for line in op(ps):
    p = line.split()
    if line.startswith("# Time"):
        cols = p[1:]
        continue
    if not cols or len(p) < len(cols) or not re.match(r"\d\d:\d\d:\d\d", p[0]):
        continue
    r = dict(zip(cols, p))
    cmd = " ".join(p[len(cols) - 1:])
    if r.get("TID") == "-" and cmd == "mariadbd":
        tgid_of_mariadbd = r["TGID"]
    if r.get("TGID") == "-" and r.get("TID", "").isdigit():
        kb = float(r["kB_wr/s"])
        if int(r["TID"]) in tids:
            conn_kb += kb
        if cmd.endswith("mariadbd"):
            all_kb += kb

# decoded binlog window; perf: share of mariadbd samples with fsync/fdatasync in the stack
trx_bytes, per_sec, cids = truthlib.binlog_transactions(sorted(glob.glob(cap + "binlog-*-decoded.txt*")))
pp = one("perf-profile.script.txt*")
samples, fs = truthlib.perf_fsync_share(pp) if pp else (0, 0)

res = {
    "case": name,
    "load": {"connections": drv["threads"], "duration_s": drv["duration_s"], "start_epoch": round(t0, 3), "end_epoch": round(t1, 3),
             "transactions": drv["transactions"], "tps": round(drv["tps"], 1), "by_kind": drv["transactions_by_kind"],
             "latency_us": drv["latency_us"]},
    "mysqladmin_deltas": {k: delta(k) for k in ("Binlog_commits", "Binlog_group_commits", "Innodb_data_fsyncs",
                                                  "Innodb_os_log_written", "Com_insert", "Com_update")},
    "iostat_vda_during_load": {"seconds": len(ls), "w_s_mean": mean("w/s"), "wkB_s_mean": mean("wkB/s"), "f_s_mean": mean("f/s"),
                               "f_s_median": med("f/s"), "wareq_sz_median_kB": med("wareq-sz"), "util_mean": mean("%util"),
                               "w_await_median_ms": med("w_await")},
    "driver_connection_server_tids": sorted(tids),
    "pidstat_kB_written": {"driver_connection_threads": round(conn_kb), "all_mariadbd_threads": round(all_kb)},
    "binlog_window": {"transactions": len(trx_bytes), "bytes_per_trx_mean": round(statistics.mean(trx_bytes), 1) if trx_bytes else None,
                      "bytes_per_trx_median": statistics.median(trx_bytes) if trx_bytes else None,
                      "distinct_commit_ids": len(cids), "header_seconds": len(per_sec),
                      "trx_per_header_second_max": max(per_sec.values()) if per_sec else None},
    "perf_mariadbd_samples": samples, "perf_samples_in_fsync_share": round(fs / samples, 3) if samples else None,
}
bc, bg = res["mysqladmin_deltas"]["Binlog_commits"], res["mysqladmin_deltas"]["Binlog_group_commits"]
res["trx_per_group_commit"] = round(bc / bg, 2) if bc and bg else None
res.update(extra)
json.dump(res, open(case + "/truth.json", "w"), indent=1)
print(json.dumps(res, indent=1))
