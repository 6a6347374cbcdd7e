#!/usr/bin/env python3
"""A straightforward Python iostat -x -t parser, the baseline of bench/compare.sh.

Honest and simple, the way one would write it in a notebook: split each line on
whitespace, map the device columns by header name, convert every value with float()
(decimal comma accepted), keep one dict per device row with the report's stamp.
Prints: reports, device rows, elapsed seconds (parse only) and MB/s.

Usage: py_iostat.py FILE
"""
import sys
import time


def parse(lines):
    reports = []
    cur = None
    header = None
    cpu_header = None
    mode = None
    for line in lines:
        f = line.split()
        if not f:
            mode = None
            continue
        if f[0] == "Linux":
            continue
        if len(f) == 2 and f[0].count("/") == 2 and f[1].count(":") == 2:
            cur = {"stamp": f[0] + " " + f[1], "cpu": None, "devices": []}
            reports.append(cur)
            continue
        if f[0] == "avg-cpu:":
            cpu_header = f[1:]
            mode = "cpu"
            continue
        if f[0] in ("Device", "Device:"):
            header = f[1:]
            mode = "dev"
            continue
        if cur is None:
            continue
        if mode == "cpu":
            cur["cpu"] = dict(zip(cpu_header, (float(x.replace(",", ".")) for x in f)))
        elif mode == "dev":
            row = dict(zip(header, (float(x.replace(",", ".")) for x in f[1:])))
            row["device"] = f[0]
            cur["devices"].append(row)
    return reports


def main():
    path = sys.argv[1]
    with open(path, "rb") as fh:
        data = fh.read()
    t0 = time.perf_counter()
    c0 = time.process_time()
    reports = parse(data.decode("utf-8", "replace").splitlines())
    cpu = time.process_time() - c0
    wall = time.perf_counter() - t0
    rows = sum(len(r["devices"]) for r in reports)
    print(f"py_iostat reports={len(reports)} rows={rows} bytes={len(data)} parse_s={wall:.3f} "
          f"cpu_s={cpu:.3f} mb_s={len(data) / 1e6 / max(cpu, 1e-9):.1f}")


if __name__ == "__main__":
    main()
