#!/usr/bin/env python3
"""galera_truth.py - ground truth of the Galera sample (issue 38) from the sampler's log, the load's log and the
gcache probes, independent of iosift.  Writes CASE_DIR/truth.json (hand-entered fields from truth/extra.json).

Reads truth/sampler.jsonl (or .jsonl.gz).  Per node (truth.json "nodes"."nodeN"):
  gcache_device            the loop device holding the node's gcache (only the gcache is on it: its writes are the
                           gcache's writeback, ground truth of the bursts)
  gcache_bursts            runs of seconds the loop device wrote >= 1 MiB: start epoch/UTC, seconds, bytes
  gcache_main_bursts / period_s   the bursts of >= 8 MiB and the median spacing of their starts
  gcache_written_bytes     what the loop device wrote from the load's start to the capture's end
  gcache_appended_bytes    write-set bytes the node put into its gcache meanwhile (wsrep_replicated_bytes +
                           wsrep_received_bytes): what the stores changed, at most
  amplification_written_vs_appended
  dirtiers                 the node's threads by /proc/TID/io write_bytes over the capture (what the kernel charged
                           them: whole folios for mmap stores), named by performance_schema, else "galera provider
                           thread (not in performance_schema)"; charged_in_2mib_steps: the charge is a multiple of 2 MiB
  folios                   truth/nodeN_folios.txt (folio_probe -r of the gcache after the capture)
  flow_control             wsrep_flow_control_sent / _recv / _paused_ns deltas over the capture and the seconds
                           the counters rose (sampler, 1 s)
Cluster: "flow_control_sent_by" (nodes whose own _sent rose), the load (tiny_trx.json), "collector_cpu" (the perf
processes' CPU per 10 s window from their /proc ticks, 1 s samples: windows of 10 samples, the last one the last
10 samples; issue 41).
usage: galera_truth.py CASE_DIR
"""
import collections
import gzip
import json
import os
import statistics
import sys
import time

CASE = sys.argv[1]
T = os.path.join(CASE, "truth")
MIB = 1 << 20


def utc(t):
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t))


SAMPLER = os.path.join(T, "sampler.jsonl")
rows = [json.loads(line) for line in (gzip.open(SAMPLER + ".gz", "rt") if os.path.exists(SAMPLER + ".gz") else open(SAMPLER))]
head = rows[0]
hz = head["hz"]
names = collections.defaultdict(dict)
samples = collections.defaultdict(list)
perf = []
for r in rows[1:]:
    if "threads" in r:
        names[r["node"]].update(r["threads"])
    elif "wsrep" in r:
        samples[r["node"]].append(r)
    elif "perf" in r:
        perf.append(r)
load = json.load(open(os.path.join(T, "tiny_trx.json")))
extra = json.load(open(os.path.join(T, "extra.json"))) if os.path.exists(os.path.join(T, "extra.json")) else {}


def num(s, k):
    try:
        return float(s["wsrep"].get(k, "nan"))
    except ValueError:
        return float("nan")


def bursts(ss):
    """Runs of seconds with >= 1 MiB written by the node's loop device (sectors x 512)."""
    out, cur = [], None
    for a, b in zip(ss, ss[1:]):
        w = (b["loop"]["stat"][6] - a["loop"]["stat"][6]) * 512
        if w >= MIB:
            if cur and b["t"] - cur["end"] <= 1.5:
                cur["bytes"] += w
                cur["end"] = b["t"]
            else:
                cur = {"start": a["t"], "end": b["t"], "bytes": w}
                out.append(cur)
    return [{"start_epoch": round(x["start"], 1), "start_utc": utc(x["start"]), "seconds": round(x["end"] - x["start"]),
             "bytes": x["bytes"]} for x in out]


def folios(n):
    p = os.path.join(T, "node%d_folios.txt" % n)
    if not os.path.exists(p):
        return None
    hist = {}
    for line in open(p):
        parts = line.strip().split(",")
        if len(parts) == 3 and parts[0].isdigit():
            hist[int(parts[0])] = {"folios": int(parts[1]), "pages": int(parts[2])}
    pages = sum(v["pages"] for v in hist.values())
    big = sum(v["pages"] for k, v in hist.items() if k >= 2048)
    return {"kib": hist, "resident_pages": pages, "share_in_2mib_folios": round(big / pages, 3) if pages else None}


def dirtiers(n, ss):
    first, last = ss[0]["tio"], ss[-1]["tio"]
    out = []
    for tid, v in last.items():
        b = v[0] - first.get(tid, [0, 0])[0]
        if b <= 0:
            continue
        name = names[n].get(tid) or "galera provider thread (not in performance_schema)"
        out.append({"tid": int(tid), "name": name, "write_bytes": b, "charged_in_2mib_steps": b % (2 * MIB) == 0})
    out.sort(key=lambda d: -d["write_bytes"])
    return out[:8]


def flow(ss):
    d = {}
    for k in ("wsrep_flow_control_sent", "wsrep_flow_control_recv", "wsrep_flow_control_paused_ns"):
        d[k.replace("wsrep_flow_control_", "") + "_delta"] = num(ss[-1], k) - num(ss[0], k)
        d[k.replace("wsrep_flow_control_", "") + "_first_last"] = [num(ss[0], k), num(ss[-1], k)]
    span = ss[-1]["t"] - ss[0]["t"]
    d["paused_share_pct"] = round(100 * d["paused_ns_delta"] / 1e9 / span, 4) if span > 0 else None
    for k, key in (("sent_at", "wsrep_flow_control_sent"), ("recv_at", "wsrep_flow_control_recv")):
        d[k] = [{"epoch": round(b["t"], 1), "utc": utc(b["t"]), "count": num(b, key) - num(a, key)}
                for a, b in zip(ss, ss[1:]) if num(b, key) > num(a, key)]
    d["recv_queue_max"] = max(num(s, "wsrep_local_recv_queue") for s in ss)
    d["send_queue_max"] = max(num(s, "wsrep_local_send_queue") for s in ss)
    return d


def collector_cpu():
    """CPU of each perf process, percent of one CPU, per 10 s window (ticks from /proc/PID/stat)."""
    series = collections.defaultdict(list)
    args = {}
    for r in perf:
        for pid, p in r["perf"].items():
            series[pid].append((r["t"], p["ticks"]))
            args[pid] = p["args"]
    out = []
    for pid, pts in series.items():
        wins = []
        for i in range(0, len(pts) - 1, 10):
            j = min(i + 10, len(pts) - 1)
            # the last window is the last 10 samples (a shorter tail would read perf's exit, its
            # build-id pass over perf.data, as a share of a second or two)
            a, b = pts[max(0, j - 10)], pts[j]
            if b[0] > a[0]:
                wins.append(round(100 * (b[1] - a[1]) / hz / (b[0] - a[0]), 1))
        total = (pts[-1][1] - pts[0][1]) / hz
        out.append({"pid": int(pid), "args": args[pid], "seconds_seen": round(pts[-1][0] - pts[0][0]),
                    "cpu_s": round(total, 2), "cpu_pct_per_10s": wins, "cpu_pct_max_10s": max(wins) if wins else None})
    out.sort(key=lambda x: x["args"])
    return out


nodes = {}
load_start = load["start_epoch"]
for n in sorted(samples):
    ss = samples[n]
    after = [s for s in ss if s["t"] >= load_start]
    written = (after[-1]["loop"]["stat"][6] - after[0]["loop"]["stat"][6]) * 512 if len(after) > 1 else 0
    appended = sum(num(after[-1], k) - num(after[0], k) for k in ("wsrep_replicated_bytes", "wsrep_received_bytes"))
    bs = bursts(ss)
    main = [b for b in bs if b["bytes"] >= 8 * MIB]
    gaps = [b["start_epoch"] - a["start_epoch"] for a, b in zip(main, main[1:])]
    node = {
        "node": "node%d" % n,
        "pid": head["pids"][str(n)],
        "gcache_device": head["devs"][str(n)],
        "gcache_bursts": bs,
        "gcache_main_bursts": len(main),
        "period_s_measured": round(statistics.median(gaps), 1) if gaps else None,
        "gcache_written_bytes": written,
        "gcache_appended_bytes": int(appended),
        "amplification_written_vs_appended": round(written / appended, 2) if appended > 0 else None,
        "dirtiers": dirtiers(n, ss),
        "folios": folios(n),
        "flow_control": flow(ss),
    }
    node.update(extra.get("nodes", {}).get("node%d" % n, {}))
    nodes["node%d" % n] = node

truth = {
    "case": os.path.basename(os.path.abspath(CASE)),
    "load": {"node": "node1", "transactions": load["transactions"], "tps": round(load["tps"], 1),
             "start_epoch": round(load["start_epoch"], 1), "end_epoch": round(load["end_epoch"], 1),
             "start_utc": utc(load["start_epoch"]), "end_utc": utc(load["end_epoch"])},
    "flow_control_sent_by": [k for k, v in nodes.items() if v["flow_control"]["sent_delta"] > 0],
    "nodes": nodes,
    "collector_cpu": collector_cpu(),
}
for k, v in extra.items():
    if k != "nodes":
        truth[k] = v
with open(os.path.join(CASE, "truth.json"), "w") as f:
    json.dump(truth, f, indent=1)
    f.write("\n")
print(json.dumps({k: {"bursts": v["gcache_main_bursts"], "period": v["period_s_measured"],
                      "amp": v["amplification_written_vs_appended"], "fc": v["flow_control"]["sent_delta"]}
                  for k, v in nodes.items()}))
