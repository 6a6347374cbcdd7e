#!/usr/bin/env python3
"""galera_sampler.py - ground-truth sampler of the Galera sample (issue 38), beside the collectors.

Every --interval seconds, for each node N (1..3) of galera_cluster.sh, one JSON line per sample into OUT.jsonl:
  {"t": epoch, "node": N, "wsrep": {wsrep_* of SHOW GLOBAL STATUS}, "loop": {"dev": "loop0", "stat": [11 fields of
   /sys/block/loopN/stat]}, "tio": {tid: [write_bytes, cancelled_write_bytes] of /proc/PID/task/TID/io}}
and every sample one line {"t": epoch, "perf": {pid: {"ppid", "ticks" (utime+stime), "args"}}} for every running
`perf` process (the collectors' profilers: issue 41 asks what observing cost); clock ticks per second in "hz".
The thread map of each node (performance_schema.threads: thread_os_id -> name) is written at the start, every 10
samples and at the end ({"t", "node", "threads": {...}}).  The loop device of node N is the one holding its gcache mount (/proc/mounts).
usage: galera_sampler.py --base /var/tmp/iosift_galera --duration S --out PREFIX [--interval 1]
"""
import argparse
import json
import os
import time

import pymysql

ap = argparse.ArgumentParser()
ap.add_argument("--base", default="/var/tmp/iosift_galera")
ap.add_argument("--duration", type=float, required=True)
ap.add_argument("--interval", type=float, default=1.0)
ap.add_argument("--out", required=True)
args = ap.parse_args()
HZ = os.sysconf("SC_CLK_TCK")


def node_dev(n):
    target = "%s/node%d/gcache" % (args.base, n)
    with open("/proc/mounts") as f:
        for line in f:
            src, mnt = line.split()[:2]
            if mnt == target:
                return os.path.basename(src)
    return None


def pid_of(n):
    with open("%s/node%d/mariadbd.pid" % (args.base, n)) as f:
        return int(f.read().strip())


def task_io(pid):
    out = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/io" % (pid, tid)) as f:
                kv = dict(line.split(": ") for line in f.read().splitlines())
            out[tid] = [int(kv["write_bytes"]), int(kv["cancelled_write_bytes"])]
        except (OSError, KeyError, ValueError):
            pass
    return out


def perf_procs():
    out = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % p) as f:
                st = f.read()
            comm = st[st.index("(") + 1: st.rindex(")")]
            if comm != "perf":
                continue
            rest = st[st.rindex(")") + 2:].split()
            with open("/proc/%s/cmdline" % p, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            out[p] = {"ppid": int(rest[1]), "ticks": int(rest[11]) + int(rest[12]), "args": cmd}
        except (OSError, ValueError, IndexError):
            pass
    return out


conns = {n: pymysql.connect(unix_socket="%s/node%d/mariadb.sock" % (args.base, n), user="root", autocommit=True)
         for n in (1, 2, 3)}
devs = {n: node_dev(n) for n in conns}
pids = {n: pid_of(n) for n in conns}


def threads(out, n):
    cur = conns[n].cursor()
    cur.execute("SELECT thread_os_id, name FROM performance_schema.threads WHERE thread_os_id IS NOT NULL")
    out.write(json.dumps({"t": time.time(), "node": n, "pid": pids[n], "dev": devs[n],
                          "threads": {str(t): name for t, name in cur.fetchall()}}) + "\n")


with open(args.out + ".jsonl", "w") as out:
    out.write(json.dumps({"hz": HZ, "pids": pids, "devs": devs}) + "\n")
    for n in conns:
        threads(out, n)
    end = time.time() + args.duration
    nxt = time.time()
    k = 0
    while time.time() < end:
        k += 1
        if k % 10 == 0:  # the thread map again: connections come and go
            for n in conns:
                threads(out, n)
        for n, c in conns.items():
            cur = c.cursor()
            cur.execute("SHOW GLOBAL STATUS LIKE 'wsrep%'")
            wsrep = {k: v for k, v in cur.fetchall()}
            with open("/sys/block/%s/stat" % devs[n]) as f:
                stat = [int(x) for x in f.read().split()]
            out.write(json.dumps({"t": time.time(), "node": n, "wsrep": wsrep, "loop": {"dev": devs[n], "stat": stat},
                                  "tio": task_io(pids[n])}) + "\n")
        out.write(json.dumps({"t": time.time(), "perf": perf_procs()}) + "\n")
        out.flush()
        nxt += args.interval
        time.sleep(max(0.0, nxt - time.time()))
    for n in conns:
        threads(out, n)
