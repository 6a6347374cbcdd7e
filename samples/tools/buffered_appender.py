#!/usr/bin/env python3
"""buffered_appender.py FILE MB_PER_S SECONDS LOG [COMM] - a second, steady buffered writer (foreign load for the matrix).

Appends MB_PER_S MiB per second to FILE in four write() calls a second (no fsync, no O_DIRECT: page cache only, so the
kernel's writeback flushes it). LOG gets one line per write: epoch,bytes,total_bytes; the first line names the pid.
COMM (optional, <= 15 characters): the process renames itself with prctl(PR_SET_NAME) so that perf, pidstat and the
block trace name it (otherwise it is `python3`)."""
import ctypes
import os
import sys
import time

path, rate, secs, log = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
if len(sys.argv) > 5:
    ctypes.CDLL(None).prctl(15, sys.argv[5].encode()[:15], 0, 0, 0)  # 15 = PR_SET_NAME
chunk = b"appender" * int(rate * (1 << 20) / 4 / 8)
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
total = 0
with open(log, "w") as out:
    out.write("# pid %d file %s rate_MiB_s %g\n" % (os.getpid(), path, rate))
    t0 = time.time()
    k = 0
    while time.time() - t0 < secs:
        total += os.write(fd, chunk)
        out.write("%.3f,%d,%d\n" % (time.time(), len(chunk), total))
        out.flush()
        k += 1
        time.sleep(max(0.0, t0 + k * 0.25 - time.time()))
os.close(fd)
