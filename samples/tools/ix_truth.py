#!/usr/bin/env python3
"""ix_truth.py CASE_DIR - ground truth of an issuer-matrix case (samples/ix_*, issue 34, made by tools/run_matrix.sh).

1. Runs matrix_truth.py CASE_DIR with IX_KEEP_TRACE=1: the matrix's common fields (devices, mount, sysctls, diskstats
   totals, SKIPPED.txt, the copy and db figures) into truth.json; the block trace stays in capture/ (it is the witness
   of who issued).
2. Adds, from the workload's own logs (truth/): its episodes - every timer tick of tools/periodic_writer (writes +
   fsync, stores + msync, O_DIRECT writes), every sync_file_range step, every `sync` of tools/sync_loop.sh - with their
   start/end epochs and bytes, the period measured from the log's own timestamps and the bytes per episode.
3. Where the capture holds the system-wide trace (collect.sh -T): per episode, the bytes of write bios
   (block:block_bio_queue, which runs in the submitting task's context) whose first sector lies in the workload's files
   (extents from truth/filefrag.txt / filefrag-files.txt, taken after the run), by the submitter's comm; the same for
   block:block_rq_issue; the writeback:writeback_start / _written reasons in the window; and the files' bytes submitted
   outside every episode. Episodes that the workload does not time itself (the ext4 journal's commits, the database's
   binlog writeback, the copy) are the bursts of those bios (gaps > GAP s). Per second write bytes of the workload's
   device from diskstats (always captured) are a second, coarser witness.
4. The contract fields of /work/notes/contract34.md: `witnesses` from the files in capture/; `half`, `writers`,
   `issuers`, `healthy`, `period_s` (when not measured here), `expect_fire` / `expect_not_fire`, title, conclusion and
   notes hand-entered in truth/extra.json from the setup (extra.json wins), never from iosift's output.
usage: ix_truth.py CASE_DIR [--extra-only]   (--extra-only: only re-apply truth/extra.json to truth.json)
"""
import bisect
import collections
import datetime
import glob
import json
import os
import re
import statistics
import subprocess
import sys

import truthlib
from truthlib import op

HERE = os.path.dirname(os.path.abspath(__file__))
case = sys.argv[1].rstrip("/")
cap, tr = case + "/capture/", case + "/truth/"
if len(sys.argv) > 2 and sys.argv[2] == "--extra-only":  # re-apply truth/extra.json (hand-written fields) only
    t = json.load(open(case + "/truth.json"))
    t.update(json.load(open(tr + "extra.json")))
    json.dump(t, open(case + "/truth.json", "w"), indent=1)
    sys.exit(0)
subprocess.run([sys.executable, HERE + "/matrix_truth.py", case], check=True, stdout=subprocess.DEVNULL,
               env=dict(os.environ, IX_KEEP_TRACE="1"))
if os.path.exists(tr + "trace_summary.json"):  # derived from the trace, which stays in capture/
    os.remove(tr + "trace_summary.json")
t = json.load(open(case + "/truth.json"))
extra = json.load(open(tr + "extra.json")) if os.path.exists(tr + "extra.json") else {}
env = t["scenario"]
work = env["work"]


def one(pattern):
    g = sorted(glob.glob(cap + pattern))
    return g[0] if g else None


def utc(e):
    return datetime.datetime.fromtimestamp(e, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def med(v):
    v = list(v)
    return statistics.median(v) if v else None


def short(comm):
    """`kworker/u8:1-flush-254:0` -> `kworker`, `jbd2/loop0-8` -> `jbd2`, `ckpt_fsync` unchanged."""
    return re.sub(r"[-/:].*", "", comm.strip()) or comm


events = {}
for line in open(tr + "events.txt"):
    p = line.split()
    if len(p) >= 2:
        events[p[0]] = float(p[1])
# the collectors' window (timeline.txt): an episode is "in the capture" when it lies inside it
tl = {x.split()[0]: float(x.split()[1]) for x in open(cap + "timeline.txt") if len(x.split()) > 1 and x.split()[0].startswith("collectors_")}
c0, c1 = tl.get("collectors_started", events["collect_start"]), tl.get("collectors_end", events["collect_end"])
off = next(float(x.split()[1]) for x in open(cap + "timeline.txt") if x.startswith("epoch_minus_CLOCK_MONOTONIC"))
dev = t["device"]
devmm = t["device_majmin"]

# ------------------------------------------------------------------ witnesses (contract34.md)
witnesses = {"perf": bool(one("perf-profile.script.txt*")), "trace": bool(one("perf-trace.script.txt*")),
             "pidstat": bool(one("pidstat-d-t-h.txt*")), "meminfo": bool(one("*-meminfo*")), "iostat": bool(one("iostat-x-t.txt*"))}


# ------------------------------------------------------------------ the workload's files: extents (sectors of dev)
def filefrag(path):
    """filefrag -v output (one or several files) -> {file: [(first_sector, end_sector)]}."""
    out, cur, bs = collections.defaultdict(list), None, 4096
    if not os.path.exists(path):
        return out
    for line in open(path):
        m = re.match(r"File size of (\S+) is \d+ \(\d+ blocks? of (\d+) bytes\)", line)
        if m:
            cur, bs = m.group(1), int(m.group(2))
            continue
        m = re.match(r"\s*\d+:\s+\d+\.\.\s*\d+:\s+(\d+)\.\.\s*(\d+):", line)
        if m and cur:
            out[cur].append((int(m.group(1)) * bs // 512, (int(m.group(2)) + 1) * bs // 512))
    return out


files = filefrag(tr + "filefrag.txt")
files.update(filefrag(tr + "filefrag-files.txt"))
majmin_name = {}
for line in op(one("*-diskstats*")):
    p = line.split()
    if len(p) >= 14 and p[0].isdigit():
        majmin_name["%s,%s" % (p[0], p[1])] = p[2]
vda_mm = next((k for k, v in majmin_name.items() if v == "vda"), "254,0")
# per device: sorted extents (first sector, end sector, file); through a loop device, the backing file loop.img on vda
# too (its extents after the run), whose bios are the loop worker's re-issue of the upper device's writes
ext = {devmm: sorted((a, b, os.path.basename(f)) for f, v in files.items() for a, b in v)}
if dev != "vda":
    back = filefrag(tr + "filefrag-loop.img-end.txt") or filefrag(tr + "filefrag-loop.img.txt")
    ext[vda_mm] = sorted((a, b, "loop.img") for v in back.values() for a, b in v)
ext_starts = {d: [e[0] for e in v] for d, v in ext.items()}


def file_of(devid, sector):
    if devid not in ext:
        return None
    i = bisect.bisect_right(ext_starts[devid], sector) - 1
    return ext[devid][i][2] if i >= 0 and sector < ext[devid][i][1] else None


def file_group(name):
    """Files are grouped by role: the database's binlog / redo / tablespaces, the journal case's log and small files."""
    if name is None:
        return None
    for pat, g in ((r"^mariadb-bin\.\d+$", "binlog"), (r"^ib_logfile", "redo_log"), (r"^(ibdata|undo)", "system_undo"),
                   (r"\.ibd$", "tables"), (r"^small-\d+$", "small_files")):
        if re.search(pat, name):
            return g
    return name


# ------------------------------------------------------------------ the trace (collect.sh -T)
RE_BIO = re.compile(r"^\s*(.+?)\s+(\d+)/(\d+)\s+\[\d+\]\s+([\d.]+):\s+block:block_bio_queue: (\d+,\d+) (\S+) (\d+) \+ (\d+)")
RE_RQ = re.compile(r"^\s*(.+?)\s+(\d+)/(\d+)\s+\[\d+\]\s+([\d.]+):\s+block:block_rq_issue: (\d+,\d+) (\S+) \d+ \(\) (\d+) \+ (\d+)")
RE_WB = re.compile(r"^\s*(.+?)\s+(\d+)/(\d+)\s+\[\d+\]\s+([\d.]+):\s+writeback:(writeback_start|writeback_written): bdi ([\d:]+): .*reason=(\w+)")
bios, rqs, wbs, counts = [], [], [], collections.Counter()  # (epoch, comm, tid, dev, sector, bytes, file group)
trace_path = one("perf-trace.script.txt*")
if trace_path:
    for line in op(trace_path):
        if line.startswith("#"):
            continue
        for kind, rx in (("bio", RE_BIO), ("rq", RE_RQ), ("wb", RE_WB)):
            m = rx.match(line)
            if not m:
                continue
            counts[kind] += 1
            ep = float(m.group(4)) + off
            if kind == "wb":
                wbs.append((ep, m.group(5), m.group(7), m.group(6), short(m.group(1))))
            elif "W" in m.group(6):
                sec, nb = int(m.group(7)), int(m.group(8)) * 512
                fg = file_group(file_of(m.group(5), sec))
                (bios if kind == "bio" else rqs).append((ep, m.group(1).strip(), int(m.group(3)), m.group(5), sec, nb, fg))
            break
main_group = {"fsync": "ckpt.dat", "msync": "ckpt.dat", "odirect": "ckpt.dat", "sfr": "sfr.dat", "append": None,
              "sync_other": "appender.dat", "appender": "appender.dat", "copy": "copy.dat", "db": "binlog"}.get(work)


def window(a, b, group=None):
    """Trace figures of [a, b]: bios and requests of `group` (a file group, or None = every file of the workload) by comm,
    every write bio of each device by comm, writeback reasons."""
    fb, fr, db, rs = collections.Counter(), collections.Counter(), collections.defaultdict(collections.Counter), collections.Counter()
    bk = collections.Counter()
    lo = bisect.bisect_left(bios, (a,))
    for x in bios[lo:]:
        if x[0] > b:
            break
        db[majmin_name.get(x[3], x[3])][short(x[1])] += x[5]
        if x[6] == "loop.img":
            bk[short(x[1])] += x[5]
        elif x[6] is not None and (group is None or x[6] == group):
            fb[short(x[1])] += x[5]
    lo = bisect.bisect_left(rqs, (a,))
    for x in rqs[lo:]:
        if x[0] > b:
            break
        if x[6] is not None and x[6] != "loop.img" and (group is None or x[6] == group):
            fr[short(x[1])] += x[5]
    for x in wbs:
        if a <= x[0] <= b:
            rs["%s %s" % (x[1].replace("writeback_", ""), x[2])] += 1
    out = {"files_bio_bytes": sum(fb.values()), "files_bio_bytes_by_comm": dict(fb.most_common(6)),
            "files_rq_issue_bytes_by_comm": dict(fr.most_common(6)),
            "device_bio_bytes_by_comm": {d: dict(c.most_common(5)) for d, c in sorted(db.items())},
            "writeback_reasons": dict(rs)}
    if dev != "vda":
        out["backing_loop_img_bio_bytes_by_comm"] = dict(bk.most_common(4))
    return out


bios.sort()
rqs.sort()
wbs.sort()


def bursts_of(group, gap, comm_short=None):
    """Bursts of the bios of a file group (optionally only those submitted by one comm): runs with gaps <= gap s."""
    out = []
    for x in bios:
        if (x[6] is None or x[6] == "loop.img") if group is None else (x[6] != group):
            continue
        if comm_short and short(x[1]) != comm_short:
            continue
        if out and x[0] - out[-1][1] <= gap:
            out[-1][1] = x[0]
            out[-1][2] += x[5]
        else:
            out.append([x[0], x[0], x[5]])
    return out


# ------------------------------------------------------------------ diskstats of the workload's device per second
def disk_bursts(devname, min_bytes):
    prev, sec = None, {}
    ts = None
    for line in op(one("*-diskstats*")):
        if line.startswith("TS "):
            ts = float(line.split()[1])
            continue
        p = line.split()
        if len(p) >= 14 and p[2] == devname:
            w = int(p[9]) * 512
            if prev and 0.5 < ts - prev[0] < 2.5:
                sec[int(round(ts))] = (w - prev[1]) / (ts - prev[0])
            prev = (ts, w)
    out = []
    for s in sorted(k for k, v in sec.items() if v >= min_bytes):
        if out and s - out[-1][-1] <= 2:
            out[-1].append(s)
        else:
            out.append([s])
    return [{"start_epoch": b[0] - 1, "end_epoch": b[-1], "bytes": int(sum(sec[s] for s in b))} for b in out]


# ------------------------------------------------------------------ episodes from the workload's logs
res = {}
episodes = []
log_period = None


def in_capture(a):
    return c0 <= a <= c1


if work in ("fsync", "msync", "odirect", "sfr", "append"):
    info = dict(x.strip().split(" ", 1) for x in open(tr + "periodic_writer.csv.info") if " " in x)
    rows = []
    lp = tr + "periodic_writer.csv"
    for line in op(lp if os.path.exists(lp) else lp + ".gz"):
        p = line.strip().split(",")
        if len(p) == 7 and p[0][0].isdigit():
            rows.append((float(p[0]), float(p[1]), int(p[2]), p[3], int(p[4]), int(p[5]), int(p[6])))
    res["writer"] = {"program": "tools/periodic_writer", "mode": info["mode"], "pid": int(info["pid"]), "tid": int(info["tid"]),
                     "comm": info["comm"], "file": info["path"], "size_mib": int(info["size_mib"]),
                     "period_design_s": float(info["period_s"]), "duration_s": float(info["duration_s"]),
                     "operations_logged": len(rows)}
    if work in ("fsync", "msync", "odirect"):
        by = collections.defaultdict(list)
        for r in rows:
            if r[2] > 0:
                by[r[2]].append(r)
        for k in sorted(by):
            rs = by[k]
            a, b = min(r[0] for r in rs), max(r[1] for r in rs)
            wr = [r for r in rs if r[3] in ("write", "dirty", "dwrite")]
            fl = [r for r in rs if r[3] in ("fsync", "msync")]
            e = {"k": k, "start_epoch": round(a, 3), "end_epoch": round(b, 3), "start_utc": utc(a), "in_capture": in_capture(a) and in_capture(b),
                 "dirtied_or_written_bytes": sum(r[5] for r in wr), "write_phase_s": round(max(r[1] for r in wr) - min(r[0] for r in wr), 3)}
            if fl:
                e.update({"flush_op": fl[0][3], "flush_start_epoch": round(fl[0][0], 3), "flush_s": round(fl[0][1] - fl[0][0], 3)})
            e["tids"] = sorted({r[6] for r in rs})
            episodes.append(e)
    elif work == "sfr":
        st = [r for r in rows if r[3] == "sfr"]
        wr = [r for r in rows if r[3] == "write"]
        for r in st:
            episodes.append({"k": r[2], "start_epoch": round(r[0], 3), "end_epoch": round(r[1], 3), "start_utc": utc(r[0]),
                             "in_capture": in_capture(r[0]), "range_offset": r[4], "range_bytes": r[5], "sfr_call_s": round(r[1] - r[0], 4)})
        inc = [r for r in wr if in_capture(r[0])]
        res["writer"].update({"append_rate_MiB_s_measured": round(sum(r[5] for r in inc) / 1048576 / (inc[-1][0] - inc[0][0]), 2) if len(inc) > 1 else None,
                              "sync_file_range_calls": len(st), "step_bytes": 8 << 20})
    else:  # append: the log's own operations; the write episodes are the journal commits (from the trace below)
        ap = [r for r in rows if r[3] == "append"]
        cr = [r for r in rows if r[3] == "create"]
        res["writer"].update({"appends": len(ap), "append_bytes": sum(r[5] for r in ap), "files_created": len(cr),
                              "append_interval_s_median": round(med(b[0] - a[0] for a, b in zip(ap, ap[1:])), 4)})
elif work in ("sync_other", "appender"):
    ap_rows = [tuple(map(float, x.strip().split(","))) for x in op(tr + "appender.log") if x[0].isdigit()]
    res["writer"] = {"program": "tools/buffered_appender.py (comm appender)", "pid": int(events["appender_pid"]),
                     "MiB_per_s": float(env["mib"]), "writes_logged": len(ap_rows), "bytes": int(ap_rows[-1][2]) if ap_rows else 0}
    # the workload's own log is what it is; matrix_truth's generic "foreign appender" entry does not apply here
    t.pop("foreign_buffered_appender", None)
if work == "sync_other":
    hdr = open(tr + "sync_loop.log").readline().strip()
    syncs = [x.strip().split(",") for x in open(tr + "sync_loop.log") if x[0].isdigit()]
    res["sync_loop"] = {"program": "tools/sync_loop.sh", "pid": int(events["sync_loop_pid"]), "log_header": hdr,
                        "period_design_s": float(env["period"]), "syncs_logged": len(syncs)}
    prev = None
    for k, a, b, sp in syncs:
        a, b = float(a), float(b)
        dirt = sum(r[1] for r in ap_rows if (prev is None or r[0] > prev) and r[0] <= a)
        episodes.append({"k": int(k), "start_epoch": round(a, 3), "end_epoch": round(b, 3), "start_utc": utc(a), "in_capture": in_capture(a),
                         "sync_pid": int(sp), "sync_s": round(b - a, 3), "appended_bytes_since_previous_sync": int(dirt)})
        prev = a
# the journal cases (no timer of their own): what the workload's log wrote, (epoch, bytes), for the data of each commit
logged = ([(r[0], r[5]) for r in rows if r[3] in ("append", "create")] if work == "append" else
          [(r[0], r[1]) for r in ap_rows] if work == "appender" else [])

if episodes and work != "sfr":
    st = [e["start_epoch"] for e in episodes if e["in_capture"]]
    ivs = [round(b - a, 3) for a, b in zip(st, st[1:])]
    log_period = round(med(ivs), 2) if ivs else None
    res["period_s_measured_from_log"] = log_period
    res["intervals_s_from_log"] = ivs
    res["episodes_in_capture"] = len(st)
    key = "appended_bytes_since_previous_sync" if work == "sync_other" else "dirtied_or_written_bytes"
    res["bytes_per_episode_from_log_median"] = med(e[key] for e in episodes if e["in_capture"] and key in e)

# ------------------------------------------------------------------ per-episode trace figures
if trace_path:
    for e in episodes:
        if work == "sfr":
            continue
        a, b = e["start_epoch"] - 0.2, e["end_epoch"] + (0.5 if work != "odirect" else 0.2)
        e["trace"] = window(a, b, main_group)
    if work == "sfr":
        # every step: bios of the file submitted during the sync_file_range call (+50 ms), by comm; whole-capture split
        w = window(c0, c1, "sfr.dat")
        inside = collections.Counter()
        for e in episodes:
            if e["in_capture"]:
                for kk, v in window(e["start_epoch"] - 0.01, e["end_epoch"] + 0.05, "sfr.dat")["files_bio_bytes_by_comm"].items():
                    inside[kk] += v
        res["sfr_trace"] = {"file_bio_bytes_whole_capture_by_comm": w["files_bio_bytes_by_comm"],
                            "file_bio_bytes_during_sfr_calls_by_comm": dict(inside),
                            "writeback_reasons_whole_capture": w["writeback_reasons"]}
    # files' bytes submitted outside every episode window (e.g. by the flusher, had data aged)
    if episodes and work != "sfr":
        outside = collections.Counter()
        wins = [(e["start_epoch"] - 0.2, e["end_epoch"] + 0.5) for e in episodes]
        for x in bios:
            if x[6] == main_group and c0 <= x[0] <= c1 and not any(a <= x[0] <= b for a, b in wins):
                outside[short(x[1])] += x[5]
        res["file_bio_bytes_outside_episodes_by_comm"] = dict(outside)
    if work in ("append", "appender"):
        # the journal cases: bursts of jbd2's bios on the loop device (the commits), each with the files' data submitted in
        # it (append: data=ordered, jbd2 writes the files' data in place; appender: data=journal, jbd2 writes it into the
        # journal, outside the file's extents, and the flusher checkpoints it in place later)
        jb = bursts_of(None, 2.0)
        jall = []
        for x in bios:
            if short(x[1]) == "jbd2" and x[3] == devmm:
                if jall and x[0] - jall[-1][1] <= 2.0:
                    jall[-1][1] = x[0]
                    jall[-1][2] += x[5]
                else:
                    jall.append([x[0], x[0], x[5]])
        prev = None
        for k, (a, b, nb) in enumerate(jall, 1):
            w = window(a - 0.1, b + 0.1, None)
            # what the workload's log appended/created since the previous commit (the data this commit writes)
            logb = sum(n for ep, n in logged if (prev is None or ep > prev) and ep <= a)
            episodes.append({"k": k, "start_epoch": round(a, 3), "end_epoch": round(b, 3), "start_utc": utc(a), "in_capture": in_capture(a),
                             "jbd2_bio_bytes": nb, "logged_bytes_since_previous_commit": int(logb), "trace": w})
            prev = a
        # a commit that wrote the workload's data: append, its files' bios inside; appender, >= 1 MiB of jbd2 bios
        st = [e["start_epoch"] for e in episodes if e["in_capture"] and (
            e["trace"]["files_bio_bytes"] > 0 if work == "append" else e["jbd2_bio_bytes"] >= (1 << 20))]
        ivs = [round(y - x, 2) for x, y in zip(st, st[1:])]
        res["journal_commit_bursts_with_file_data"] = len(st)
        res["journal_commit_intervals_s_trace"] = ivs
        res["period_s_measured_trace"] = round(med(ivs), 2) if ivs else None
        res["files_data_bursts_trace"] = [[round(a, 2), round(b - a, 2), nb] for a, b, nb in jb]
    if work in ("db", "copy"):
        gap = 3.0 if work == "db" else 5.0
        for k, (a, b, nb) in enumerate(bursts_of(main_group, gap), 1):
            if nb < (1 << 20) and work == "db":
                continue
            episodes.append({"k": k, "start_epoch": round(a, 3), "end_epoch": round(b, 3), "start_utc": utc(a), "in_capture": in_capture(a),
                             "bytes_trace": nb, "trace": window(a - 0.1, b + 0.1, main_group)})
        st = [e["start_epoch"] for e in episodes if e["in_capture"]]
        ivs = [round(y - x, 2) for x, y in zip(st, st[1:])]
        res["intervals_s_trace"] = ivs
        if work == "db":
            res["period_s_measured_trace"] = round(med(ivs), 2) if ivs else None
            res["db_files_bio_bytes_whole_capture"] = {g: window(c0, c1, g)["files_bio_bytes_by_comm"]
                                                       for g in ("binlog", "redo_log", "system_undo", "tables")}
    wc = window(c0, c1, None)
    res["trace_whole_capture"] = {"events": dict(counts), "device_bio_bytes_by_comm": wc["device_bio_bytes_by_comm"],
                                  "backing_loop_img_bio_bytes_by_comm": wc.get("backing_loop_img_bio_bytes_by_comm"),
                                  "files_bio_bytes_by_comm": wc["files_bio_bytes_by_comm"], "writeback_reasons": wc["writeback_reasons"]}
    res["trace_bytes_gz"] = os.path.getsize(trace_path)

# perf profile (-P, on-CPU samples of the selected processes): the flush paths on the writer's stacks
PERF_MARKS = ["do_fsync", "__x64_sys_msync", "do_page_mkwrite", "ksys_sync_file_range", "__x64_sys_sync_file_range", "iomap_dio_rw", "__blkdev_direct_IO", "ksys_sync",
              "balance_dirty_pages", "wb_workfn", "submit_bio"]
pp = one("perf-profile.script.txt*")
if pp:
    marks = truthlib.perf_stack_marks(pp, PERF_MARKS)
    res["perf_profile_stack_marks"] = {c: {k: v for k, v in m.items() if v} for c, m in
                                       sorted(marks.items(), key=lambda kv: -kv[1]["samples"])[:6]}
# the memory cgroup of the reclaim case (cgroup v1 memory.stat at the start and at the end, and the limit's failcnt)
if os.path.exists(tr + "memcg_stat_start.txt"):
    def memstat(path):
        out = {}
        for line in open(path):
            p = line.split()
            if len(p) == 2 and p[1].isdigit():
                out[p[0]] = int(p[1])
            elif len(p) == 1 and p[0].isdigit():
                out["failcnt"] = int(p[0])
        return out
    first = open(tr + "memcg_stat_start.txt").readline().split()
    res["memcg"] = {"cgroup": first[3], "limit_bytes": int(first[5]), "stat_start": memstat(tr + "memcg_stat_start.txt"),
                    "stat_end": memstat(tr + "memcg_stat_end.txt") if os.path.exists(tr + "memcg_stat_end.txt") else None}
res["episodes"] = episodes
# the journal case writes < 1 MB per commit: its device's bursts need a lower floor
res["device_write_bursts_diskstats_floor_bytes"] = (64 << 10) if work == "append" else (4 << 20)
res["device_write_bursts_diskstats"] = disk_bursts(dev, res["device_write_bursts_diskstats_floor_bytes"])
if work in ("append", "appender") and not trace_path:
    # no trace: the commits are loop0's bursts in diskstats (the fresh file system holds only the workload's files)
    prev = None
    for k, b in enumerate(res["device_write_bursts_diskstats"], 1):
        a = b["start_epoch"]
        logb = sum(n for ep, n in logged if (prev is None or ep > prev) and ep <= a + 1)
        episodes.append({"k": k, "start_epoch": a, "end_epoch": b["end_epoch"], "start_utc": utc(a), "in_capture": in_capture(a + 1),
                         "device_bytes_diskstats": b["bytes"], "logged_bytes_since_previous_commit": int(logb)})
        prev = a + 1
    st = [e["start_epoch"] for e in episodes if e["in_capture"]]
    ivs = [y - x for x, y in zip(st, st[1:])]
    res["device_burst_intervals_s_diskstats"] = ivs
    res["period_s_measured_diskstats"] = med(ivs)
res["witnesses"] = witnesses
if log_period and "period_s" not in extra and work in ("fsync", "msync", "odirect", "sync_other"):
    res["period_s"] = log_period
t.update(res)
t.update(extra)
json.dump(t, open(case + "/truth.json", "w"), indent=1)
print(json.dumps({k: v for k, v in t.items() if k not in ("episodes", "file_write_MiB_by_second", "device_write_MB_by_second_trace")}, indent=1)[:5000])
for e in episodes[:40]:
    print(json.dumps(e))
