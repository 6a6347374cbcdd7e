#!/usr/bin/env python3
"""matrix_truth.py CASE_DIR - ground truth of a scenario-matrix case (samples/mx_*, made by tools/run_matrix.sh).

Writes CASE_DIR/truth.json from the workload's own logs (truth/) and the capture's raw kernel counters; the analyzer's
own inputs are used only as independent measurements (diskstats, the perf block trace, meminfo, procvmstat, smaps),
never its conclusions. Hand-entered fields (expectations, half, notes) come from truth/extra.json and win.

Per workload (truth/matrix.env work=...):
  mmap  bursts of the mapped file: block_rq_issue writes of the file's device whose sectors lie in the file's extents
        (truth/filefrag.txt), per second (a burst: seconds with > 1 MiB, gaps <= 2 s); for each burst the 4 KiB pages the
        store log (truth/mmap_store.stores.csv) dirtied since the previous burst, amplification = file bytes / dirtied
        bytes; through a loop device, the loop worker's writes of the backing file on vda (truth/filefrag-loop.img.txt).
  copy  dd's timeline and report, the file's bytes written per second (trace, extents), Dirty against the limits
        (procvmstat nr_dirty_threshold / nr_dirty_background_threshold), dd's rate against the device's, writeback
        reasons, perf samples of dd in balance_dirty_pages.
  db    driver totals (truth/tiny_trx.json), mysqladmin counter deltas, decoded-binlog bytes per transaction, device
        flushes (diskstats), driver connection TIDs (performance_schema.threads) and their pidstat share, perf fsync share.
Device series are from diskstats (always captured), for the file's device and for vda (the physical disk).
usage: matrix_truth.py CASE_DIR
"""
import bisect
import collections
import datetime
import glob
import gzip
import json
import os
import re
import statistics
import sys

import truthlib

case = sys.argv[1].rstrip("/")
name = os.path.basename(case)
cap, tr = case + "/capture/", case + "/truth/"
env = dict(line.strip().split("=", 1) for line in open(tr + "matrix.env") if "=" in line)
extra = json.load(open(tr + "extra.json")) if os.path.exists(tr + "extra.json") else {}


def op(path):
    return gzip.open(path, "rt", errors="replace") if path.endswith(".gz") else open(path, errors="replace")


def one(pattern, where=cap):
    g = sorted(glob.glob(where + pattern))
    return g[0] if g else None


def utc(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def med(v):
    v = list(v)
    return statistics.median(v) if v else None


events = {}
for line in open(tr + "events.txt"):
    p = line.split()
    if len(p) >= 2:
        events[p[0]] = float(p[1]) if "." in p[1] else int(p[1])
off = next(float(l.split()[1]) for l in open(cap + "timeline.txt") if l.startswith("epoch_minus_CLOCK_MONOTONIC"))

# ------------------------------------------------------------------ devices
loopdev = None
if os.path.exists(tr + "losetup.txt"):
    m = re.search(r"^/dev/(loop\d+)\s", open(tr + "losetup.txt").read(), re.M)
    loopdev = m.group(1) if m else None
file_dev = loopdev or "vda"
majmin = {}
for line in op(one("*-diskstats*")):
    p = line.split()
    if len(p) >= 14 and p[0].isdigit():
        majmin[p[2]] = "%s,%s" % (p[0], p[1])

# diskstats: per device, per whole second: deltas of writes, sectors written, flushes
disk = collections.defaultdict(dict)  # dev -> sec -> {w, wbytes, f, wsec_merged}
prev, ts = {}, None
for line in op(one("*-diskstats*")):
    if line.startswith("TS "):
        ts = float(line.split()[1])
        continue
    p = line.split()
    if len(p) < 14 or p[2] not in (file_dev, "vda"):
        continue
    v = [int(x) for x in p[3:]]
    cur = {"w": v[4], "wsec": v[6], "f": v[15] if len(v) > 15 else 0}  # 16th field: flush requests completed
    if p[2] in prev:
        pt, pv = prev[p[2]]
        dt = ts - pt
        if 0.5 < dt < 2.5:
            disk[p[2]][int(round(ts))] = {"w": (cur["w"] - pv["w"]) / dt, "wbytes": (cur["wsec"] - pv["wsec"]) * 512 / dt,
                                          "f": (cur["f"] - pv["f"]) / dt}
    prev[p[2]] = (ts, cur)


def dev_summary(dev, secs=None):
    d = disk.get(dev, {})
    s = [d[k] for k in sorted(d) if secs is None or k in secs]
    if not s:
        return None
    tot_w = sum(x["w"] for x in s)
    tot_b = sum(x["wbytes"] for x in s)
    return {"seconds": len(s), "write_bytes_total": int(tot_b), "writes_per_s_mean": round(tot_w / len(s), 1),
            "write_MB_per_s_mean": round(tot_b / len(s) / 1e6, 2), "write_MB_per_s_max": round(max(x["wbytes"] for x in s) / 1e6, 1),
            "flushes_per_s_mean": round(sum(x["f"] for x in s) / len(s), 1),
            "avg_write_request_kB": round(tot_b / tot_w / 1024, 1) if tot_w else None}


# meminfo / procvmstat series
def proc_series(pattern, keys):
    out, ts = collections.defaultdict(dict), None
    path = one(pattern)
    if not path:
        return out
    for line in op(path):
        if line.startswith("TS "):
            ts = int(round(float(line.split()[1])))
            continue
        k = line.split(":")[0].split()[0] if line.strip() else ""
        if k in keys:
            out[k][ts] = int(line.replace(":", " ").split()[1])
    return out


mem = proc_series("*-meminfo*", {"Dirty", "Writeback", "FilePmdMapped", "FileHugePages"})
vms = proc_series("*-procvmstat*", {"nr_dirty_threshold", "nr_dirty_background_threshold", "thp_file_mapped", "nr_dirtied", "nr_written"})

# block trace (optional)
rq = re.compile(r"^\s*(.+?)\s+(\d+)/(\d+)\s+\[\d+\]\s+([\d.]+):\s+block:block_rq_issue: (\d+,\d+) (\S+) (\d+) \(\) (\d+) \+ (\d+)")
wbs = re.compile(r"^\s*(.+?)\s+(\d+)/(\d+)\s+\[\d+\]\s+([\d.]+):\s+writeback:writeback_start: .*reason=(\w+)")


def extents(path):
    ext = []
    if path and os.path.exists(path):
        for line in open(path):
            m = re.match(r"\s*\d+:\s+\d+\.\.\s*\d+:\s+(\d+)\.\.\s*(\d+):", line)
            if m:
                ext.append((int(m.group(1)) * 8, (int(m.group(2)) + 1) * 8))
    ext.sort()
    return ext


def in_ext(ext, starts, s):
    i = bisect.bisect_right(starts, s) - 1
    return i >= 0 and s < ext[i][1]


fext = extents(tr + "filefrag.txt")
fst = [e[0] for e in fext]
lext = extents(tr + "filefrag-loop.img-end.txt") or extents(tr + "filefrag-loop.img.txt")
lst = [e[0] for e in lext]
trace = one("perf-trace.script.txt*")
file_w = collections.defaultdict(lambda: [0, 0])     # sec -> [requests, bytes] for the workload's file
file_comm = collections.defaultdict(collections.Counter)
backing_w = collections.Counter()                     # sec -> bytes of loop.img written on vda
dev_w = collections.defaultdict(lambda: [0, 0])      # sec -> [requests, bytes] of every write of the file's device
dev_comm = collections.Counter()
backing_comm = collections.Counter()
reasons, first_reason = collections.Counter(), {}
if trace:
    fdev = majmin.get(file_dev)
    for line in op(trace):
        m = rq.match(line)
        if m:
            comm, _p, _t, t, dv, rwbs, nb, sector, _n = m.groups()
            if not rwbs.startswith("W"):
                continue
            s = int(float(t) + off)
            if dv == fdev:
                dev_w[s][0] += 1
                dev_w[s][1] += int(nb)
                dev_comm[re.sub(r"[-/:].*", "", comm)] += 1
            if dv == fdev and fext and in_ext(fext, fst, int(sector)):
                file_w[s][0] += 1
                file_w[s][1] += int(nb)
                file_comm[s][re.sub(r"[-/:].*", "", comm)] += 1
            elif loopdev and dv == majmin.get("vda") and lext and in_ext(lext, lst, int(sector)):
                backing_w[s] += int(nb)
                backing_comm[comm] += 1
            continue
        m = wbs.match(line)
        if m:
            s = int(float(m.group(4)) + off)
            reasons[m.group(5)] += 1
            first_reason.setdefault(m.group(5), s)

# The system-wide trace is large on this shared VM (other tenants' small writes): when it is over 1 MB gzip'd, the
# per-second figures derived from it are kept in truth/trace_summary.json and the trace leaves the capture.
# (Over 2.5 MB; the first cases were cut at 1 MB.)
trace_note = None
summary_path = tr + "trace_summary.json"
if trace:
    json.dump({"file_w": {str(k): v for k, v in file_w.items()}, "file_comm": {str(k): dict(v) for k, v in file_comm.items()},
               "backing_w": {str(k): v for k, v in backing_w.items()}, "backing_comm": dict(backing_comm),
               "reasons": dict(reasons), "first_reason": first_reason,
               "dev_w": {str(k): v for k, v in dev_w.items()}, "dev_comm": dict(dev_comm)}, open(summary_path, "w"))
    size = os.path.getsize(trace)
    # IX_KEEP_TRACE=1 (tools/ix_truth.py, the issuer matrix): the trace is the issuer's witness and stays
    if size > 2_500_000 and not os.environ.get("IX_KEEP_TRACE"):
        os.remove(trace)
        trace_note = ("perf-trace.script.txt.gz (%d bytes, collect.sh -T) removed from capture/ for size after deriving "
                      "truth/trace_summary.json from it" % size)
        open(tr + "trace_removed.txt", "w").write(trace_note + "\n")
elif os.path.exists(summary_path):
    sm_ = json.load(open(summary_path))
    for k, v in sm_["file_w"].items():
        file_w[int(k)] = v
    for k, v in sm_["file_comm"].items():
        file_comm[int(k)] = collections.Counter(v)
    for k, v in sm_["backing_w"].items():
        backing_w[int(k)] = v
    backing_comm.update(sm_["backing_comm"])
    reasons.update(sm_["reasons"])
    first_reason = sm_["first_reason"]
    for k, v in sm_.get("dev_w", {}).items():
        dev_w[int(k)] = v
    dev_comm.update(sm_.get("dev_comm", {}))
    trace_note = open(tr + "trace_removed.txt").read().strip() if os.path.exists(tr + "trace_removed.txt") else None

skipped = [l.strip() for l in open(cap + "SKIPPED.txt") if l.strip() and l.strip() != "nothing skipped"]
sysd = dict(l.strip().split("=", 1) for l in open(tr + "sysctl_during.txt") if "=" in l)
res = {
    "case": name,
    "scenario": env,
    "kernel": open(cap + "uname-r.txt").read().strip(),
    "fs": env["fs"],
    "device": file_dev,
    "device_majmin": majmin.get(file_dev),
    "physical_device": "vda",
    "device_stack": ("%s (loop, --direct-io=on, backing file /var/tmp/iosift_mx/loop.img on vda's ext4) -> vda" % loopdev) if loopdev else "vda",
    "mount": open(tr + "workload-mount.txt").read().split("\n")[1].split() if os.path.exists(tr + "workload-mount.txt") else None,
    "sysctl_during": sysd,
    "collector_skipped": skipped,
    "device_mapper": "not available: kernel without device-mapper (dmsetup: " + open(tr + "dm-check.txt").read().strip()[4:80] + "...)",
    "dirty_kB_min_max": [min(mem["Dirty"].values()), max(mem["Dirty"].values())] if mem["Dirty"] else None,
    "diskstats_whole_capture": {d: dev_summary(d) for d in sorted({file_dev, "vda"})},
    "writeback_start_reasons": dict(reasons),
    "capture_date_utc": "%s -> %s UTC" % (utc(events["collect_start"]), utc(events["collect_end"])[11:]),
    "collector_command": open(tr + "collect_cmd.txt").read().strip() if os.path.exists(tr + "collect_cmd.txt") else None,
    "capture_perf_trace": trace_note or ("in capture/" if trace else "not captured"),
}

# ------------------------------------------------------------------ foreign loads
if os.path.exists(tr + "ddirect.log"):
    tt = [float(l.split()[0]) for l in op(tr + "ddirect.log") if l[0].isdigit()]
    res["foreign_ddirect"] = {"command": "dd if=/dev/zero of=/var/tmp/iosift_mx/ddirect.dat bs=4k count=100 oflag=direct conv=notrunc, in a loop with sleep 0.06",
                              "device": "vda", "writes": 100 * len(tt),
                              "writes_per_s": round(100 * len(tt) / (tt[-1] - tt[0]), 1) if len(tt) > 1 else None}
ap = tr + "appender.log"
if os.path.exists(ap) or os.path.exists(ap + ".gz"):
    lines = list(op(ap if os.path.exists(ap) else ap + ".gz"))
    rows = [l.strip().split(",") for l in lines if l[0].isdigit()]
    res["foreign_buffered_appender"] = {"header": lines[0].strip(), "bytes": int(rows[-1][2]) if rows else 0,
                                        "start_epoch": float(rows[0][0]) if rows else None, "end_epoch": float(rows[-1][0]) if rows else None,
                                        "MiB_per_s": 4, "file": "appender.dat on the workload's file system"}

# ------------------------------------------------------------------ pidstat helper
def pidstat_rows():
    path = one("pidstat-d-t-h.txt*")
    if not path:
        return
    cols = None
    for line in op(path):
        p = line.split()
        if line.startswith("# Time"):
            cols = p[1:]
            continue
        if cols and len(p) >= len(cols) and re.match(r"\d\d:\d\d:\d\d", p[0]):
            r = dict(zip(cols, p))
            r["Command"] = " ".join(p[len(cols) - 1:])
            yield r


work = env["work"]
if work == "mmap":
    info = open(tr + "mmap_store.info").read()
    pid = int(re.search(r"^pid (\d+)", info, re.M).group(1))
    tids = {int(t): n for n, t in re.findall(r"^thread (\S+) tid (\d+)", info, re.M)}
    sp = tr + "mmap_store.stores.csv"
    stores = [(float(e), int(p)) for e, _t, p in (l.strip().split(",") for l in op(sp + ".gz" if os.path.exists(sp + ".gz") else sp) if l[0].isdigit())]
    secs = sorted(s for s, v in file_w.items() if v[1] > (1 << 20))
    # one flush of an inode can take several flusher wake-ups (XFS over loop: ~60 + ~60 + ~650 MB, 5 s apart):
    # seconds closer than 7 s belong to the same burst
    bursts = []
    for s in secs:
        if bursts and s - bursts[-1][-1] <= 6:
            bursts[-1].append(s)
        else:
            bursts.append([s])
    folio_kib = {"2m": 2048, "order0": 4}.get(env["folios"])
    out, prev_t = [], stores[0][0] - 0.001 if stores else 0
    for b in bursts:
        t0, t1 = b[0], b[-1]
        win = [x for x in stores if prev_t < x[0] <= t0 + 0.5]
        pages = {x[1] for x in win}
        fb = sum(file_w[s][1] for s in range(t0, t1 + 1))
        nreq = sum(file_w[s][0] for s in range(t0, t1 + 1))
        comm = collections.Counter()
        for s in range(t0, t1 + 1):
            comm.update(file_comm[s])
        dsum = dev_summary(file_dev, set(range(t0, t1 + 3)))
        e = {"start_utc": utc(t0), "start_epoch": t0, "seconds": t1 - t0 + 1, "file_write_bytes_trace": fb,
             "file_write_MB_by_second": {str(s): round(file_w[s][1] / 1e6, 1) for s in b},
             "file_write_requests_trace": nreq, "file_avg_request_kB_trace": round(fb / nreq / 1024, 1) if nreq else None,
             "device_write_bytes_diskstats_burst_plus_2s": dsum["write_bytes_total"] if dsum else None,
             "device_avg_write_request_kB_diskstats_burst_plus_2s": dsum["avg_write_request_kB"] if dsum else None,
             "stores_in_window": len(win), "dirtied_pages_4k": len(pages), "dirtied_bytes_4k": len(pages) * 4096,
             "amplification": round(fb / (len(pages) * 4096), 1) if pages else None, "issuers": dict(comm.most_common(3))}
        if folio_kib:
            ranges = {p * 4 // folio_kib for p in pages}
            e["distinct_folio_ranges"] = len(ranges)
            e["predicted_bytes_folio"] = len(ranges) * folio_kib * 1024
        if loopdev:
            e["backing_file_bytes_on_vda_trace_burst_plus_2s"] = sum(backing_w[s] for s in range(t0, t1 + 3))
        out.append(e)
        prev_t = t0 + 0.5
    # a flush of under 30 % of the largest one is partial (e.g. background writeback started by another tenant)
    big = max((b["file_write_bytes_trace"] for b in out), default=0)
    for b in out:
        b["kind"] = "full" if b["file_write_bytes_trace"] >= 0.3 * big else "partial"
    st = [b["start_epoch"] for b in out if b["kind"] == "full"]
    periods = [b - a for a, b in zip(st, st[1:])]
    full = [b for b in out if b["amplification"] and b["kind"] == "full"]
    # smaps of the mapping (when captured)
    pmd, sm = [], one("smaps-*.txt*")
    if sm:
        inmap = False
        for line in op(sm):
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                inmap = line.rstrip().endswith("gcache.dat")
            elif inmap and line.startswith("FilePmdMapped:"):
                pmd.append(int(line.split()[1]))
    wr = [float(r["kB_wr/s"]) for r in pidstat_rows() if r.get("TID", "").isdigit() and int(r["TID"]) in tids]
    res.update({
        "writer": {"pid": pid, "tids": sorted(tids), "thread_names": sorted(tids.values()), "program": "mmap_store",
                   "mapped_file": re.search(r" file (\S+)", info).group(1), "mapped_file_bytes": 1073741824,
                   "store_rate_per_s": float(env["rate"]), "store_bytes": 32,
                   "madvise": "random" if env["folios"] == "order0" else "none", "stores": len(stores)},
        "folios": open(tr + "folios.txt").read().strip().splitlines(),
        "bursts": out,
        "period_s": med(periods), "periods_s": periods,
        "burst_file_bytes_median": med(b["file_write_bytes_trace"] for b in out),
        "dirtied_bytes_per_flush_median": med(b["dirtied_bytes_4k"] for b in full),
        "amplification_median": med(b["amplification"] for b in full),
        "smaps_mapping_FilePmdMapped_kB": pmd or None,
        "meminfo_FilePmdMapped_kB_min_max": [min(mem["FilePmdMapped"].values()), max(mem["FilePmdMapped"].values())] if mem["FilePmdMapped"] else None,
        "thp_file_mapped_first_last": [vms["thp_file_mapped"][min(vms["thp_file_mapped"])], vms["thp_file_mapped"][max(vms["thp_file_mapped"])]] if vms["thp_file_mapped"] else None,
        "pidstat_writer_thread_kB_wr_s_median": med(wr), "pidstat_writer_thread_kB_wr_s_max": max(wr) if wr else None,
        "backing_file_writers_on_vda_trace": dict(backing_comm.most_common(4)) if loopdev else None,
    })
elif work == "copy":
    if loopdev:
        # the loop device's fresh file system holds only dd's file (plus its own metadata and journal): every write of
        # the loop device is the file's writeback (the extents of a delayed-allocation file are known only afterwards)
        file_w, file_comm = dev_w, collections.defaultdict(collections.Counter, {s: collections.Counter() for s in dev_w})
        for s in dev_w:
            file_comm[s]["(all issuers of the loop device, see device_write_issuers_trace)"] = dev_w[s][0]
    dd_pid = int(events["dd_pid"])
    t0, t1 = events["dd_start"], events["dd_exit"]
    rep = open(tr + "dd.stderr").read().strip().splitlines()
    nbytes = int(env["copy_mb"]) * 1048576
    fsecs = sorted(s for s, v in file_w.items() if v[1] > 0)
    dsecs = set(range(int(t0) + 1, int(t1)))
    dirty_during = [v for k, v in mem["Dirty"].items() if k in dsecs]
    thr = [v for k, v in vms["nr_dirty_threshold"].items() if k in dsecs]
    bthr = [v for k, v in vms["nr_dirty_background_threshold"].items() if k in dsecs]
    ddk = [float(r["kB_wr/s"]) for r in pidstat_rows() if r.get("TGID") == str(dd_pid) and r.get("TID") == "-"]
    # perf: dd's samples, and those with balance_dirty_pages on the stack
    samples = bdp = 0
    pp = one("perf-profile.script.txt*")
    if pp:
        cur, stack = None, []
        for line in op(pp):
            if line.startswith("#"):
                continue
            if not line.strip():
                if cur == dd_pid:
                    samples += 1
                    bdp += any("balance_dirty_pages" in s for s in stack)
                cur, stack = None, []
            elif not line.startswith("\t"):
                m = re.search(r"\s(\d+)/(\d+)\s", line)
                cur = int(m.group(1)) if m else None
            else:
                stack.append(line)
    dev_during = dev_summary(file_dev, dsecs)
    dwb = [mem["Dirty"][k] + mem["Writeback"].get(k, 0) for k in mem["Dirty"] if k in dsecs]
    freerun_kb = (med(thr) + med(bthr)) / 2 * 4 if thr and bthr else None
    # dd's own state sampled every 0.1 s (wchan) and its schedstat every 1 s, while it ran (after the fifo released it)
    wch = collections.Counter()
    if os.path.exists(tr + "dd_wchan.txt"):
        for line in open(tr + "dd_wchan.txt"):
            p = line.split()
            if len(p) >= 2 and t0 + 0.2 <= float(p[0]) <= t1:
                wch["%s %s" % (p[1], p[2] if len(p) > 2 else "-")] += 1
    nw = sum(wch.values())
    bdp_share = round(sum(v for k, v in wch.items() if "balance_dirty_pages" in k) / nw, 3) if nw else None
    sched = None
    if os.path.exists(tr + "dd_schedstat.txt"):
        ss = [(float(p[0]), int(p[1]), int(p[2])) for p in (l.split() for l in open(tr + "dd_schedstat.txt")) if len(p) >= 4 and float(p[0]) >= t0]
        if len(ss) > 1:
            span = ss[-1][0] - ss[0][0]
            sched = {"seconds": round(span, 1), "on_cpu_share": round((ss[-1][1] - ss[0][1]) / 1e9 / span, 3),
                     "runqueue_wait_share": round((ss[-1][2] - ss[0][2]) / 1e9 / span, 3)}
    res.update({
        "writer": {"pid": dd_pid, "comm": "dd", "command": "dd if=/dev/zero of=%s bs=10M count=%d" % (
            "/var/tmp/iosift_mx/mnt/copy.dat" if loopdev else "/var/tmp/iosift_mx/copy.dat", int(env["copy_mb"]) // 10),
            "bytes": nbytes, "start_epoch": round(t0, 3), "exit_epoch": round(t1, 3), "start_utc": utc(t0), "exit_utc": utc(t1),
            "duration_s": round(t1 - t0, 2), "report": rep[-1] if rep else None,
            "rate_MB_per_s": round(nbytes / (t1 - t0) / 1e6, 1)},
        "dirty_limit_bytes": int(sysd["vm.dirty_bytes"]) or None, "dirty_background_limit_bytes": int(sysd["vm.dirty_background_bytes"]) or None,
        "nr_dirty_threshold_pages_median_during_dd": med(thr), "nr_dirty_background_threshold_pages_median_during_dd": med(bthr),
        "dirty_kB_during_dd_min_median_max": [min(dirty_during), med(dirty_during), max(dirty_during)] if dirty_during else None,
        "file_bytes_written_trace": sum(v[1] for v in file_w.values()),
        "file_writeback_first_epoch": fsecs[0] if fsecs else None, "file_writeback_last_epoch": fsecs[-1] if fsecs else None,
        "file_writeback_ends_after_dd_exit_s": round(fsecs[-1] - t1, 1) if fsecs else None,
        "file_bytes_written_trace_while_dd_ran": sum(file_w[s][1] for s in fsecs if t0 <= s <= t1 + 1),
        "file_bytes_written_trace_after_dd_exit": sum(file_w[s][1] for s in fsecs if s > t1 + 1),
        "file_write_MiB_by_second": {str(s): round(file_w[s][1] / 1048576, 1) for s in fsecs},
        "file_write_issuers_trace": dict(sum((file_comm[s] for s in fsecs), collections.Counter()).most_common(5)),
        "device_write_MB_by_second_trace": {str(s): round(dev_w[s][1] / 1e6, 1) for s in sorted(dev_w) if dev_w[s][1] > 1e6},
        "device_write_issuers_trace": dict(dev_comm.most_common(5)),
        "first_writeback_reason_epoch": first_reason,
        "device_while_dd_ran_diskstats": dev_during,
        "dd_rate_over_device_rate_while_running": round(nbytes / (t1 - t0) / (dev_during["write_MB_per_s_mean"] * 1e6), 2) if dev_during and dev_during["write_MB_per_s_mean"] else None,
        "pidstat_dd_kB_wr_s_median": med(ddk),
        "perf_dd_samples": samples, "perf_dd_samples_in_balance_dirty_pages": bdp,
        "dirty_plus_writeback_kB_during_dd_min_median_max": [min(dwb), med(dwb), max(dwb)] if dwb else None,
        "balance_dirty_pages_freerun_ceiling_kB": freerun_kb,
        "dd_wchan_samples_while_running": dict(wch.most_common(6)) if nw else None,
        "dd_wchan_balance_dirty_pages_share": bdp_share,
        "dd_schedstat_while_running": sched,
        # held by the dirty limit: dd sleeping in balance_dirty_pages (wchan) when sampled, else Dirty+Writeback at the
        # ceiling above which balance_dirty_pages pauses dirtiers ((limit + background limit) / 2)
        "throttled": (bdp_share >= 0.1) if bdp_share is not None else bool(dwb and freerun_kb and med(dwb) >= 0.9 * freerun_kb),
        "backing_file_bytes_on_vda_trace": sum(backing_w.values()) if loopdev else None,
        "backing_file_writers_on_vda_trace": dict(backing_comm.most_common(4)) if loopdev else None,
    })
elif work == "db":
    drv = json.load(open(tr + "tiny_trx.json"))
    t0, t1 = drv["start_epoch"], drv["end_epoch"]
    load_secs = set(range(int(t0) + 1, int(t1)))
    delta = truthlib.mysqladmin_delta(one("*-mysqladmin*"))
    conn_ids = {c["connection_id"] for c in drv["connections"]}
    tids, seen = [], set()
    for path in sorted(glob.glob(cap + "mysql-threads*.tsv")):
        for line in open(path):
            f = line.rstrip("\n").split("\t")
            if len(f) >= 7 and f[0] != "THREAD_ID" and f[6] not in seen:
                seen.add(f[6])
                if f[3].isdigit() and int(f[3]) in conn_ids and f[6].isdigit():
                    tids.append(int(f[6]))
    conn_kb = all_kb = 0.0
    md_pid = int(events["mariadbd_pid"])
    for r in pidstat_rows():
        if r.get("TGID") == "-" and r.get("TID", "").isdigit() and r["Command"].endswith("mariadbd"):
            kb = float(r["kB_wr/s"])
            all_kb += kb
            conn_kb += kb if int(r["TID"]) in tids else 0
    trx_bytes = truthlib.binlog_transactions(sorted(glob.glob(cap + "binlog-*-decoded.txt*")))[0]
    pp = one("perf-profile.script.txt*")
    samples, fs = truthlib.perf_fsync_share(pp) if pp else (0, 0)
    bc, bg = delta("Binlog_commits"), delta("Binlog_group_commits")
    res.update({
        "writer": {"mariadbd_pid": md_pid, "driver_pid": drv["pid"], "driver_connection_ids": sorted(conn_ids),
                   "driver_client_tids": sorted(c["client_tid"] for c in drv["connections"]), "driver_connection_server_tids": sorted(tids)},
        "server": "MariaDB 10.11 (Debian 1:10.11.19-0+deb12u1), private instance, 127.0.0.1:%s" % env["port"],
        "datadir": "/var/tmp/iosift_mx/%sdb%s/data" % ("mnt/" if loopdev else "", env["port"]),
        "sync_binlog": 1 if env["durable"] == "1" else 0, "innodb_flush_log_at_trx_commit": 1 if env["durable"] == "1" else 2,
        "fsync_bound": env["durable"] == "1",
        "load": {"connections": drv["threads"], "duration_s": drv["duration_s"], "payload_bytes": drv.get("payload_bytes", 0),
                 "start_epoch": round(t0, 3), "end_epoch": round(t1, 3), "start_utc": utc(t0), "end_utc": utc(t1),
                 "transactions": drv["transactions"], "tps": round(drv["tps"], 1), "by_kind": drv["transactions_by_kind"],
                 "latency_us": drv["latency_us"]},
        "mysqladmin_deltas": {k: delta(k) for k in ("Binlog_commits", "Binlog_group_commits", "Innodb_data_fsyncs",
                                                      "Innodb_os_log_written", "Binlog_bytes_written", "Com_insert", "Com_update")},
        "trx_per_group_commit": round(bc / bg, 2) if bc and bg else None,
        "binlog_window": {"transactions": len(trx_bytes), "bytes_per_trx_mean": round(statistics.mean(trx_bytes), 1) if trx_bytes else None,
                          "bytes_per_trx_median": med(trx_bytes)},
        "device_during_load_diskstats": {d: dev_summary(d, load_secs) for d in sorted({file_dev, "vda"})},
        "pidstat_kB_written": {"driver_connection_threads": round(conn_kb), "all_mariadbd_threads": round(all_kb)},
        "perf_mariadbd_samples": samples, "perf_samples_in_fsync_share": round(fs / samples, 3) if samples else None,
    })
res.update(extra)
json.dump(res, open(case + "/truth.json", "w"), indent=1)
print(json.dumps({k: v for k, v in res.items() if k not in ("bursts", "file_write_MiB_by_second")}, indent=1)[:6000])
for b in res.get("bursts", []):
    print(b)
