#!/usr/bin/env python3
"""A straightforward Python pidstat -d [-t] [-h] parser, the baseline of bench/compare.sh.

Honest and simple: split each line on whitespace, map columns by the `# Time ...` header
name, float() the numeric columns (decimal comma accepted), keep TGID/TID as ints (`-` as
None) and the command (the rest of the line, `|__` prefix kept), one dict per row.
Prints: rows, elapsed seconds (parse only) and MB/s.

Usage: py_pidstat.py FILE
"""
import sys
import time

INTS = {"UID", "USER", "PID", "TGID", "TID", "iodelay"}


def parse(lines):
    rows = []
    header = None
    for line in lines:
        if not line.strip():
            continue
        if line.startswith("Linux "):
            continue
        if line.startswith("#"):
            header = line[1:].split()
            continue
        if header is None:
            continue
        # The command may contain spaces: split only as many times as there are columns.
        f = line.split(None, len(header) - 1)
        if len(f) != len(header) or f[0].startswith("Average"):
            continue
        row = {}
        for name, v in zip(header, f):
            if name == "Command" or name == "Time":
                row[name] = v
            elif name in INTS:
                row[name] = None if v == "-" else int(v) if v.isdigit() else v
            else:
                row[name] = float(v.replace(",", "."))
        rows.append(row)
    return rows


def main():
    path = sys.argv[1]
    with open(path, "rb") as fh:
        data = fh.read()
    t0 = time.perf_counter()
    c0 = time.process_time()
    rows = parse(data.decode("utf-8", "replace").splitlines())
    cpu = time.process_time() - c0
    wall = time.perf_counter() - t0
    print(f"py_pidstat rows={len(rows)} bytes={len(data)} parse_s={wall:.3f} "
          f"cpu_s={cpu:.3f} mb_s={len(data) / 1e6 / max(cpu, 1e-9):.1f}")


if __name__ == "__main__":
    main()
