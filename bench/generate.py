#!/usr/bin/env python3
"""Builds large benchmark inputs from the real captures in /work/shared/bundles.

Every output is a real capture repeated with advancing times, so the parsers see
exactly the lines the tools printed, only more of them:

  iostat-x-t.txt        s1 `iostat -x -t 1`: banner once, then the 240 reports repeated,
                        each `-t` stamp one second after the previous one
  pidstat-d-t-h.txt     s1 `pidstat -d -t -h 1`: banner once, then the 240 reports repeated,
                        the time column shifted by 240 s per copy (wrapping at midnight,
                        as a long pidstat run does)
  meminfo.ts            s1 pt-stalk `meminfo`: TS-framed snapshots, each TS line one second
                        after the previous (epoch, nanoseconds and local time rewritten)
  procvmstat.ts         s1 pt-stalk `procvmstat`, same framing
  diskstats.ts          s1 pt-stalk `diskstats`, same framing
  perf-workload.script  s1 `perf script` of `perf record -g`: the samples repeated, every
                        sample header's time shifted by 1000 s per copy
  binlog-decoded.txt    s2a `mariadb-binlog -vv --base64-output=decode-rows` output, decoded
                        from the bundle's .gz (279 MB) and concatenated --binlog-copies times
  vmstat-t.txt          s1 `vmstat -t 1`: its lines repeated (the header pair every 22 rows,
                        as vmstat prints it), each row's timestamp one second after the last

Usage: bench/generate.py [OUTDIR] [--mb N] [--binlog-copies N] [--only NAME,...]
OUTDIR defaults to /var/tmp/iosift-bench (never commit the outputs). --mb (default 200)
is the minimum size of each repeated file in MB (10^6 bytes). Deterministic: the same
arguments give byte-identical files. Prints one line per file with its size.
"""
import argparse
import datetime as dt
import gzip
import os
import re
import sys

SHARED = os.environ.get("IOSIFT_SHARED", "/work/shared")
S1 = os.path.join(SHARED, "bundles/s1_mmap_writeback")
S2A = os.path.join(SHARED, "bundles/s2a_mariadb_durable")


def read(path):
    with open(path, "r", encoding="utf-8", newline="") as f:
        return f.read()


class Sink:
    """Buffered writer that counts bytes."""

    def __init__(self, path):
        self.path = path
        self.f = open(path + ".tmp", "w", encoding="utf-8", newline="")
        self.n = 0
        self.buf = []
        self.blen = 0

    def write(self, s):
        self.buf.append(s)
        self.blen += len(s)
        self.n += len(s)  # the captures are ASCII
        if self.blen > 1 << 22:
            self.flush()

    def flush(self):
        self.f.write("".join(self.buf))
        self.buf.clear()
        self.blen = 0

    def close(self):
        self.flush()
        self.f.close()
        os.replace(self.path + ".tmp", self.path)
        print(f"{os.path.basename(self.path):24} {os.path.getsize(self.path) / 1e6:9.1f} MB")


def gen_iostat(out, min_bytes):
    lines = read(os.path.join(S1, "iostat-x-t.txt")).split("\n")
    banner = lines[0]
    stamp_re = re.compile(r"^\d\d/\d\d/\d\d \d\d:\d\d:\d\d$")
    reports = []
    for l in lines[1:]:
        if stamp_re.match(l):
            reports.append([])
        if reports:
            reports[-1].append(l)
    # Each report's body without its stamp line, with the blank lines iostat prints after it.
    bodies = ["\n".join(r[1:]) + "\n" for r in reports]
    bodies[-1] = bodies[-1].rstrip("\n") + "\n\n\n"
    t = dt.datetime(2026, 11, 29, 19, 37, 19)
    one = dt.timedelta(seconds=1)
    s = Sink(os.path.join(out, "iostat-x-t.txt"))
    s.write(banner + "\n\n")
    while s.n < min_bytes:
        for b in bodies:
            s.write(t.strftime("%m/%d/%y %H:%M:%S") + "\n" + b)
            t += one
            if s.n >= min_bytes:
                break
    s.close()


def hms(secs):
    secs %= 86400
    return f"{secs // 3600:02}:{secs // 60 % 60:02}:{secs % 60:02}"


def gen_pidstat(out, min_bytes):
    text = read(os.path.join(S1, "pidstat-d-t-h.txt"))
    banner, rest = text.split("\n", 1)
    # Reports: a blank line, the `# Time ...` header, rows that start with HH:MM:SS.
    blocks = [b for b in rest.split("\n\n") if b.strip()]
    parsed = []
    for b in blocks:
        rows = []
        for l in b.split("\n"):
            m = re.match(r"^(\d\d):(\d\d):(\d\d)(.*)$", l)
            if m:
                h, mi, se, tail = m.groups()
                rows.append((int(h) * 3600 + int(mi) * 60 + int(se), tail))
            else:
                rows.append((None, l))
        parsed.append(rows)
    times = [t for rows in parsed for t, _ in rows if t is not None]
    span = max(times) - min(times) + 1
    s = Sink(os.path.join(out, "pidstat-d-t-h.txt"))
    s.write(banner + "\n")
    k = 0
    while s.n < min_bytes:
        shift = k * span
        for rows in parsed:
            s.write("\n" + "".join((hms(t + shift) + tail if t is not None else tail) + "\n" for t, tail in rows))
            if s.n >= min_bytes:
                break
        k += 1
    s.close()


def gen_ts(out, src_suffix, name, min_bytes):
    text = read(os.path.join(S1, "2026_11_29_19_37_19-" + src_suffix))
    bodies = [b.split("\n", 1)[1] for b in text.split("TS ") if b]
    epoch = 1795981039
    base = dt.datetime(2026, 11, 29, 19, 37, 19)
    s = Sink(os.path.join(out, name))
    i = 0
    while s.n < min_bytes:
        for b in bodies:
            local = base + dt.timedelta(seconds=i)
            s.write(f"TS {epoch + i}.{(i * 7919) % 1000000000:09} {local:%Y-%m-%d %H:%M:%S}\n{b}")
            i += 1
            if s.n >= min_bytes:
                break
    s.close()


def gen_perf(out, min_bytes):
    lines = read(os.path.join(S1, "perf-workload.script.txt")).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    # `redo_sim 15546  1065.348856:   10101010 cpu-clock:pppH: `
    head_re = re.compile(r"^(\S.*?\s)(\d+\.\d+)(:.*)$")
    items = []
    for l in lines:
        m = head_re.match(l) if l and l[0] not in " \t" else None
        items.append((m.group(1), float(m.group(2)), m.group(3)) if m else l)
    s = Sink(os.path.join(out, "perf-workload.script"))
    k = 0
    while s.n < min_bytes:
        add = 1000.0 * k
        s.write("".join((f"{it[0]}{it[1] + add:.6f}{it[2]}\n" if isinstance(it, tuple) else it + "\n") for it in items))
        k += 1
    s.close()


def gen_vmstat(out, min_bytes):
    lines = read(os.path.join(S1, "vmstat-t.txt")).rstrip("\n").split("\n")
    stamp = re.compile(r"^(.*\S)\s+(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)$")
    t = dt.datetime(2026, 11, 29, 19, 37, 19)
    one = dt.timedelta(seconds=1)
    s = Sink(os.path.join(out, "vmstat-t.txt"))
    while s.n < min_bytes:
        for l in lines:
            m = stamp.match(l)
            if m:
                s.write(f"{m.group(1)} {t.strftime('%Y-%m-%d %H:%M:%S')}\n")
                t += one
            else:
                s.write(l + "\n")
            if s.n >= min_bytes and m:
                break
    s.close()


def gen_binlog(out, copies):
    src = os.path.join(S2A, "binlog-mariadb-bin.000002-decoded.txt.gz")
    path = os.path.join(out, "binlog-decoded.txt")
    with open(path + ".tmp", "wb") as f:
        for _ in range(copies):
            with gzip.open(src, "rb") as g:
                while True:
                    chunk = g.read(1 << 22)
                    if not chunk:
                        break
                    f.write(chunk)
    os.replace(path + ".tmp", path)
    print(f"{'binlog-decoded.txt':24} {os.path.getsize(path) / 1e6:9.1f} MB")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", nargs="?", default="/var/tmp/iosift-bench")
    ap.add_argument("--mb", type=float, default=200.0)
    ap.add_argument("--binlog-copies", type=int, default=1)
    ap.add_argument("--only", default="iostat,pidstat,meminfo,procvmstat,diskstats,perf,binlog,vmstat")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    n = int(a.mb * 1e6)
    only = set(a.only.split(","))
    if "iostat" in only:
        gen_iostat(a.outdir, n)
    if "pidstat" in only:
        gen_pidstat(a.outdir, n)
    if "meminfo" in only:
        gen_ts(a.outdir, "meminfo", "meminfo.ts", n)
    if "procvmstat" in only:
        gen_ts(a.outdir, "procvmstat", "procvmstat.ts", n)
    if "diskstats" in only:
        gen_ts(a.outdir, "diskstats", "diskstats.ts", n)
    if "perf" in only:
        gen_perf(a.outdir, n)
    if "binlog" in only:
        gen_binlog(a.outdir, max(1, a.binlog_copies))
    if "vmstat" in only:
        gen_vmstat(a.outdir, n)


if __name__ == "__main__":
    sys.exit(main())
