#!/usr/bin/env python3
"""dd_truth.py - ground truth of samples/buffered_copy: writes CASE/truth.json.
Inputs: truth/dd_timeline.txt, truth/dd.stderr, truth/filefrag.txt (extents of dd's file, taken before it was deleted),
capture/iostat-x-t.txt[.gz], capture/*-meminfo[.gz], capture/perf-trace.script.txt.gz, capture/timeline.txt.
usage: dd_truth.py CASE_DIR"""
import bisect
import collections
import datetime
import glob
import gzip
import json
import re
import statistics
import sys

case = sys.argv[1]
cap = case + "/capture/"


def op(p):
    return gzip.open(p, "rt", errors="replace") if p.endswith(".gz") else open(p, errors="replace")


def one(pat):
    return sorted(glob.glob(cap + pat))[0]


tl = {}
for line in open(case + "/truth/dd_timeline.txt"):
    p = line.split()
    if p[0] in ("dd_start", "dd_exit"):
        tl[p[0]] = float(p[1])
    elif p[0] == "dd_pid":
        tl["dd_pid"] = int(p[1])
off = next(float(l.split()[1]) for l in open(cap + "timeline.txt") if l.startswith("epoch_minus_CLOCK_MONOTONIC"))
ext = []
for line in open(case + "/truth/filefrag.txt"):
    m = re.match(r"\s*\d+:\s+\d+\.\.\s*\d+:\s+(\d+)\.\.\s*(\d+):", line)
    if m:
        ext.append((int(m.group(1)) * 8, (int(m.group(2)) + 1) * 8))
ext.sort()
starts = [e[0] for e in ext]


def in_file(s):
    i = bisect.bisect_right(starts, s) - 1
    return i >= 0 and s < ext[i][1]


io, hdr, stamp = {}, None, None
for line in op(one("iostat-x-t.txt*")):
    p = line.split()
    if len(p) == 1 and re.match(r"\d{4}-\d\d-\d\dT", p[0]):
        stamp = int(datetime.datetime.strptime(p[0], "%Y-%m-%dT%H:%M:%S%z").timestamp())
    elif p and p[0] == "Device":
        hdr = p
    elif p and p[0] == "vda" and stamp is not None:
        io[stamp] = dict(zip(hdr[1:], map(float, p[1:])))
bgth, ts = {}, None
for line in op(one("*-procvmstat*")):
    if line.startswith("TS "):
        ts = float(line.split()[1])
    elif line.startswith("nr_dirty_background_threshold "):
        bgth[ts] = int(line.split()[1])
ddk = []
for line in op(one("pidstat-d-t-h.txt*")):
    p = line.split()
    if len(p) >= 9 and p[-1] == "dd" and p[2] == str(tl["dd_pid"]):
        ddk.append(float(p[5]))
dd_med = statistics.median(ddk) if ddk else None
dirty, ts = {}, None
for line in op(one("*-meminfo*")):
    if line.startswith("TS "):
        ts = float(line.split()[1])
    elif line.startswith("Dirty:"):
        dirty[ts] = int(line.split()[1])
rq = re.compile(r"^\s*(.+?)\s+(\d+)/(\d+)\s+\[\d+\]\s+([\d.]+):\s+block:block_rq_issue: \S+ (\S+) (\d+) \(\) (\d+) \+ (\d+)")
wbs = re.compile(r"^\s*(.+?)\s+(\d+)/(\d+)\s+\[\d+\]\s+([\d.]+):\s+writeback:writeback_start: .*reason=(\w+)")
fileb = collections.Counter()
allw = collections.Counter()
reasons = collections.Counter()
first_reason = {}
for line in op(one("perf-trace.script.txt*")):
    m = rq.match(line)
    if m:
        s = int(float(m.group(4)) + off)
        if m.group(5).startswith("W"):
            allw[s] += int(m.group(6))
            if in_file(int(m.group(7))):
                fileb[s] += int(m.group(6))
        continue
    m = wbs.match(line)
    if m:
        s = int(float(m.group(4)) + off)
        if s >= tl["dd_start"] - 1:
            reasons[m.group(5)] += 1
            first_reason.setdefault(m.group(5), s)
dd_secs = [s for s in sorted(fileb) if fileb[s] > 0]
last = max(dd_secs) if dd_secs else None
during = [io[s] for s in io if tl["dd_start"] <= s <= tl["dd_exit"] + 1]
res = {
    "case": "buffered_copy",
    "dd": {"command": "dd if=/dev/zero of=/var/tmp/x bs=10M count=200", "pid": tl["dd_pid"], "bytes": 2097152000,
           "start_epoch": round(tl["dd_start"], 3), "exit_epoch": round(tl["dd_exit"], 3),
           "duration_s": round(tl["dd_exit"] - tl["dd_start"], 2), "report": open(case + "/truth/dd.stderr").read().strip().splitlines()[-1]},
    "dirty_kB_max": max(dirty.values()), "dirty_kB_at_dd_start": dirty[min(dirty, key=lambda t: abs(t - tl["dd_start"]))],
    "file_bytes_written_trace": sum(fileb.values()),
    "file_writeback_first_epoch": min(dd_secs) if dd_secs else None, "file_writeback_last_epoch": last,
    "file_writeback_ends_after_dd_exit_s": round(last - tl["dd_exit"], 1) if last else None,
    "device_write_bytes_trace_total": sum(allw.values()),
    "iostat_vda_while_dd_ran": {"wkB_s_max": max(r["wkB/s"] for r in during), "wareq_sz_kB_max": max(r["wareq-sz"] for r in during),
                                "wareq_sz_kB_median": statistics.median(r["wareq-sz"] for r in during)},
    "writeback_start_reasons_after_dd_start": dict(reasons),
    "first_epoch_by_reason": first_reason,
    "file_write_MiB_by_second": {str(k): round(v / 1048576, 1) for k, v in sorted(fileb.items())},
    "nr_dirty_background_threshold_pages_min": min(bgth.values()) if bgth else None,
    "background_threshold_reached": bool(bgth) and max(dirty.values()) >= min(bgth.values()) * 4,
    "dd_pidstat_kB_wr_s_median": dd_med,
    "expect_fire": ["buffered_write_burst"],
    "expect_not_fire": ["mmap_large_folio_writeback", "fsync_bound_small_transactions", "ext4_dioread_nolock_nodelalloc", "buffered_writer_dirty_throttle"],
}
json.dump(res, open(case + "/truth.json", "w"), indent=1)
print(json.dumps(res, indent=1))
