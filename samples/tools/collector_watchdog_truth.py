#!/usr/bin/env python3
"""collector_watchdog_truth.py CASE_DIR: ground truth of samples/collector_watchdog_perf_spin (issue 41).

Independent of the capture's own record (collector-cost.txt) except where named:
- the clients' disconnect (the spin's trigger) from the driver's events.txt and tiny_trx_1.json;
- perf's CPU from ps snapshots every 2 s (`cputimes`, whole seconds) by pid;
- perf's poll rate from `strace -c -f -p PERF` for 2 s during the spin;
- the watchdog's action as collect.sh printed it on the terminal (collect.stdout);
- perf's wake-ups from the record logs in capture/.
Writes CASE_DIR/truth.json; hand-entered fields come from truth/extra.json.
"""
import json
import os
import re
import sys

case = sys.argv[1]
T = os.path.join(case, "truth")
C = os.path.join(case, "capture")


def events():
    out = {}
    for line in open(os.path.join(T, "events.txt")):
        w = line.split()
        if len(w) >= 2:
            out[w[0]] = float(w[1]) if w[0] != "mariadbd_pid" else int(w[1])
    return out


def perf_cpu():
    """{pid: [(epoch, cpu_s)]} of the processes named perf in the ps snapshots."""
    per, t = {}, None
    for line in open(os.path.join(T, "ps-snapshots.txt")):
        w = line.split()
        if w and w[0] == "TS":
            t = float(w[1])
        elif len(w) > 6 and w[5] == "perf" and "record" in w[7:9]:
            per.setdefault(int(w[0]), []).append((t, int(w[3]), " ".join(w[6:])))
    return per


def strace_polls():
    for line in open(os.path.join(T, "strace-perf.txt")):
        w = line.split()
        if len(w) >= 5 and w[-1] == "poll":
            return int(w[3])
    return None


def wakeups(name):
    m = re.search(r"Woken up (\d+) times", open(os.path.join(C, name)).read())
    return int(m.group(1)) if m else None


def watchdog_line():
    for line in open(os.path.join(T, "collect.stdout")):
        m = re.match(r"collect.sh: WATCHDOG (\w+) (\S+) \(pid (\d+)\): ([\d.]+) % of one CPU over (\d+) s, budget (\d+) %", line)
        if m:
            return {"action": m.group(1), "tool": m.group(2), "pid": int(m.group(3)), "share_pct": float(m.group(4)),
                    "window_s": int(m.group(5)), "budget_pct": int(m.group(6))}
    return None


def load(name):
    j = json.load(open(os.path.join(T, name + ".json")))
    return {"start_epoch": round(j["start_epoch"], 3), "end_epoch": round(j["end_epoch"], 3),
            "transactions": j["transactions"], "tps": round(j["transactions"] / (j["end_epoch"] - j["start_epoch"]), 1),
            "connections": j["threads"]}


ev = events()
cpu = perf_cpu()
first_pid = min(cpu, key=lambda p: cpu[p][0][0])
spin = [(t, s) for t, s, _ in cpu[first_pid]]
before = [x for x in spin if x[0] <= ev["load1_end"]]
after = spin[-1]
wd = watchdog_line()
truth = {
    "case": os.path.basename(os.path.abspath(case)),
    "load_before_capture": load("tiny_trx_1"),
    "load_after_spin": load("tiny_trx_2"),
    "disconnect_epoch": round(ev["load1_end"], 3),
    "collect_start_epoch": round(ev["collect_start"], 3),
    "perf_p": {
        "pid": first_pid,
        "cpu_s_before_disconnect": before[-1][1] if before else None,
        "cpu_s_last_seen": after[1],
        "last_seen_epoch": round(after[0], 3),
        "share_one_cpu_after_disconnect_pct": round(100.0 * (after[1] - before[-1][1]) / (after[0] - before[-1][0]), 1)
        if before and after[0] > before[-1][0] else None,
        "strace_polls_per_s": (strace_polls() or 0) / 2.0,
        "wakeups": wakeups("perf-profile-1.record.log"),
    },
    "perf_a": {"wakeups": wakeups("perf-profile.record.log")},
    "watchdog_terminal": wd,
}
extra = os.path.join(T, "extra.json")
if os.path.exists(extra):
    truth.update(json.load(open(extra)))
json.dump(truth, open(os.path.join(case, "truth.json"), "w"), indent=1, sort_keys=False)
print(json.dumps(truth, indent=1))
