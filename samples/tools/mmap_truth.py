#!/usr/bin/env python3
"""mmap_truth.py - ground truth of an mmap writeback sample (samples/mmap_*): writes CASE/truth.json.

Inputs (all in CASE/):
  capture/perf-trace.script.txt.gz  block:block_rq_issue + writeback:writeback_start (CLOCK_MONOTONIC)
  capture/timeline.txt              epoch_minus_CLOCK_MONOTONIC
  capture/iostat-x-t.txt            ISO-stamped iostat -x reports (device vda)
  truth/filefrag.txt                `filefrag -v` of the mapped file: its physical 4 KiB blocks, so every
                                    traced request can be attributed to the file (vda holds ext4 directly)
  truth/mmap_store.stores.csv[.gz]  every store of the workload (epoch, tid, page)
Burst = run of seconds (gaps <= 2 s) in which async writes (rwbs "W") to the file exceed 1 MiB.
For each burst: bytes the device wrote for the file (trace) and in total (iostat, burst seconds + 2 s, includes other
tenants' writes), and the stores made since the previous burst: distinct 4 KiB pages and distinct folio-sized file ranges.
amplification = file bytes (trace) / dirtied 4 KiB pages x 4096; amplification_iostat uses the iostat bytes instead.
usage: mmap_truth.py CASE_DIR CASE_NAME FOLIO_KIB [extra json]
"""
import bisect
import collections
import datetime
import gzip
import json
import os
import re
import statistics
import sys

case, name, folio_kib = sys.argv[1], sys.argv[2], int(sys.argv[3])
extra = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
cap = case + "/capture/"
off = None
for line in open(cap + "timeline.txt"):
    if line.startswith("epoch_minus_CLOCK_MONOTONIC"):
        off = float(line.split()[1])
        break

ext = []  # (first_sector, last_sector_exclusive)
for line in open(case + "/truth/filefrag.txt"):
    m = re.match(r"\s*\d+:\s+\d+\.\.\s*\d+:\s+(\d+)\.\.\s*(\d+):", line)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        ext.append((a * 8, (b + 1) * 8))
ext.sort()
starts = [e[0] for e in ext]


def in_file(sector, nsec):
    i = bisect.bisect_right(starts, sector) - 1
    return i >= 0 and sector < ext[i][1] or (i + 1 < len(ext) and sector + nsec > ext[i + 1][0])


rq = re.compile(r"^\s*(.+?)\s+(\d+)/(\d+)\s+\[\d+\]\s+([\d.]+):\s+block:block_rq_issue: \S+ (\S+) (\d+) \(\) (\d+) \+ (\d+)")
wbs = re.compile(r"^\s*(.+?)\s+(\d+)/(\d+)\s+\[\d+\]\s+([\d.]+):\s+writeback:writeback_start: .*reason=(\w+)")
file_w = collections.defaultdict(lambda: [0, 0])  # sec -> [requests, bytes]
file_comm = collections.defaultdict(collections.Counter)
wb_reasons = collections.Counter()
for line in gzip.open(cap + "perf-trace.script.txt.gz", "rt", errors="replace"):
    m = rq.match(line)
    if m:
        comm, _pid, _tid, t, rwbs, nbytes, sector, nsec = m.groups()
        if rwbs.startswith("W") and in_file(int(sector), int(nsec)):
            s = int(float(t) + off)
            file_w[s][0] += 1
            file_w[s][1] += int(nbytes)
            file_comm[s][re.sub(r"[-/].*", "", comm)] += 1
        continue
    m = wbs.match(line)
    if m:
        wb_reasons[m.group(5)] += 1

io = {}
cur = None
for line in open(cap + "iostat-x-t.txt"):
    p = line.split()
    if len(p) == 1 and re.match(r"\d{4}-\d\d-\d\dT", p[0]):
        cur = int(datetime.datetime.strptime(p[0], "%Y-%m-%dT%H:%M:%S%z").timestamp())
    elif p and p[0] == "Device":
        hdr = p
    elif p and p[0] == "vda" and cur is not None:
        io[cur] = dict(zip(hdr[1:], map(float, p[1:])))

stores = []
sp = case + "/truth/mmap_store.stores.csv"
for line in (gzip.open(sp + ".gz", "rt") if os.path.exists(sp + ".gz") else open(sp)):
    if line[0].isdigit():
        e, tid, pg = line.strip().split(",")
        stores.append((float(e), int(tid), int(pg)))

secs = sorted(s for s, v in file_w.items() if v[1] > (1 << 20))
bursts = []
for s in secs:
    if bursts and s - bursts[-1][-1] <= 2:
        bursts[-1].append(s)
    else:
        bursts.append([s])
out = []
prev_t = stores[0][0] - 0.001 if stores else 0
for b in bursts:
    t0, t1 = b[0], b[-1]
    # stores made since the previous flush started writing the file (the inode's dirty window)
    win = [x for x in stores if prev_t < x[0] <= t0 + 0.5]
    pages = {x[2] for x in win}
    ranges = {x[2] * 4 // folio_kib for x in win}
    fb = sum(file_w[s][1] for s in range(t0, t1 + 1))
    dev_kb = sum(io.get(s, {}).get("wkB/s", 0) for s in range(t0, t1 + 3))  # completions lag issue
    comm = collections.Counter()
    for s in range(t0, t1 + 1):
        comm.update(file_comm[s])
    out.append({
        "start_utc": datetime.datetime.fromtimestamp(t0, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S"),
        "start_epoch": t0, "seconds": t1 - t0 + 1,
        "file_write_bytes_trace": fb, "file_write_requests_trace": sum(file_w[s][0] for s in range(t0, t1 + 1)),
        "device_write_kB_iostat_burst_plus_2s": round(dev_kb, 1),
        "stores_in_window": len(win), "dirtied_pages_4k": len(pages), "dirtied_bytes_4k": len(pages) * 4096,
        "distinct_folio_ranges": len(ranges), "predicted_bytes_folio": len(ranges) * folio_kib * 1024,
        "amplification": round(fb / (len(pages) * 4096), 1) if pages else None,
        "amplification_iostat": round(dev_kb * 1024 / (len(pages) * 4096), 1) if pages else None,
        "issuers": dict(comm.most_common(4)),
    })
    prev_t = t0 + 0.5
starts_ = [b["start_epoch"] for b in out]
periods = [b - a for a, b in zip(starts_, starts_[1:])]
full = [b for b in out if b["stores_in_window"] > 0]
res = {
    "case": name,
    "bursts": out,
    "period_s": statistics.median(periods) if periods else None,
    "periods_s": periods,
    "burst_bytes_median": statistics.median(b["file_write_bytes_trace"] for b in out) if out else None,
    "dirtied_bytes_per_flush_median": statistics.median(b["dirtied_bytes_4k"] for b in full) if full else None,
    "amplification_median": statistics.median(b["amplification"] for b in full if b["amplification"]) if full else None,
    "amplification_iostat_median": statistics.median(b["amplification_iostat"] for b in full if b["amplification_iostat"]) if full else None,
    "writeback_start_reasons": dict(wb_reasons),
}
res.update(extra)
json.dump(res, open(case + "/truth.json", "w"), indent=1)
print(json.dumps({k: v for k, v in res.items() if k != "bursts"}, indent=1))
for b in out:
    print(b)
