#!/usr/bin/env python3
"""derive_dioread_nolock.py - write the SYNTHETIC bundle `ext4_dioread_nolock_derived` (and its
negative variant) from the figures published in the Alibaba Cloud Linux 2 note (seed 002).

Nothing here was captured: the iostat plateau is the published line
  vdb  0.00  7194.00  0.00  57.00  0.00  28.05  1008.00  0.02  17.81  0.00  17.81  0.39  2.20
repeated for N one-second reports with small deterministic variation, keeping the identities
  wMB/s = w/s * avgrq-sz * 512 / 2^20   and   wrqm/s ~ w/s * (avgrq-sz / 8 - 1)
in the sysstat 9.1.2-11.5.x `iostat -xm 1` layout (no per-report timestamps, `Device:` header).
usage: derive_dioread_nolock.py OUTDIR KERNEL_RELEASE [REPORTS]
"""
import os
import random
import sys

out, release = sys.argv[1], sys.argv[2]
reports = int(sys.argv[3]) if len(sys.argv) > 3 else 30
rnd = random.Random(2)  # fixed seed: the files are reproducible byte for byte
host = "iZbp1f0xdioread01Z"
date = "03/15/2022"
os.makedirs(out, exist_ok=True)


def w(name, text):
    with open(os.path.join(out, name), "w") as f:
        f.write(text)


w("uname-r.txt", release + "\n")
w("uname-a.txt", "Linux %s %s #1 SMP Wed Mar 2 11:02:38 CST 2022 x86_64 x86_64 x86_64 GNU/Linux\n" % (host, release))
mounts = [
    "/dev/vda1 / ext4 rw,relatime,data=ordered 0 0",
    "/dev/vdb1 /data ext4 rw,relatime,dioread_nolock,nodelalloc,data=ordered 0 0",
    "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0",
    "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0",
    "tmpfs /dev/shm tmpfs rw,nosuid,nodev 0 0",
]
w("proc-mounts.txt", "\n".join(mounts) + "\n")
w("df-data.txt", "Filesystem     1K-blocks     Used Available Use% Mounted on\n"
  "/dev/vdb1      515928320 61234188 428463812  13% /data\n")
w("dd.txt", "$ dd if=/dev/zero of=/data/badfile bs=10M count=1000\n")

HDR = ("Device:         rrqm/s   wrqm/s     r/s     w/s    rMB/s    wMB/s avgrq-sz avgqu-sz"
       "   await r_await w_await  svctm  %util")


def row(dev, vals):
    # sysstat 11.x: "%-13s" device then "%8.2f" / "%9.2f" / "%7.2f" groups; plain whitespace matters only
    return "%-13s %8.2f %8.2f %7.2f %7.2f %8.2f %8.2f %8.2f %8.2f %7.2f %7.2f %7.2f %6.2f %6.2f" % ((dev,) + tuple(vals))


lines = ["Linux %s (%s) \t%s \t_x86_64_\t(8 CPU)" % (release, host, date), ""]
# report 1: averages since boot (a mostly idle VM)
lines += ["avg-cpu:  %user   %nice %system %iowait  %steal   %idle",
          "           0.41    0.00    0.52    0.03    0.00   99.04", "", HDR,
          row("vda", [0.01, 1.12, 0.35, 1.83, 0.01, 0.02, 28.61, 0.00, 1.21, 0.88, 1.27, 0.32, 0.07]),
          row("vdb", [0.00, 98.30, 0.02, 1.31, 0.00, 0.39, 603.55, 0.01, 12.40, 0.52, 12.41, 0.41, 0.05]), ""]
for i in range(reports):
    ws = 57 + rnd.choice([-2, -1, -1, 0, 0, 0, 1, 1, 2])
    rq = 1008.0 if rnd.random() < 0.7 else rnd.choice([1002.5, 1004.1, 1006.3, 1010.2, 1012.0])
    wmb = ws * rq * 512 / 1048576
    wrqm = ws * (rq / 8 - 1) + rnd.uniform(-60, 60)
    wait = 17.81 + rnd.uniform(-0.9, 0.9)
    svctm = 0.39 + rnd.uniform(-0.02, 0.02)
    util = ws * svctm / 10
    sysc = 12.77 + rnd.uniform(-0.8, 0.8)
    lines += ["avg-cpu:  %user   %nice %system %iowait  %steal   %idle",
              "%15.2f %7.2f %7.2f %7.2f %7.2f %7.2f" % (0.0, 0.0, sysc, 0.0, 0.0, 100 - sysc), "", HDR,
              row("vda", [0.0] * 13),
              row("vdb", [0.0, wrqm, 0.0, ws, 0.0, wmb, rq, 0.02, wait, 0.0, wait, svctm, util]), ""]
w("iostat-xm-1.txt", "\n".join(lines) + "\n")
