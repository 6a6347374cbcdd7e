#!/usr/bin/env bash
# Before/after comparison of two builds of parsers/examples/parse on the same inputs,
# alternating A and B ROUNDS times so that both see the same machine load.
# Prints, per format, the median over rounds of each build's median and best MB/CPU-s.
#
# Usage: bench/ab.sh BIN_A BIN_B [DIR] [ROUNDS]
# Build a baseline with e.g.:
#   git archive <commit> Cargo.toml Cargo.lock parsers | tar -x -C /tmp/base && mkdir /tmp/base/src &&
#   echo 'fn main(){}' > /tmp/base/src/main.rs && find /tmp/base -name '*.rs' -exec touch {} + &&
#   (cd /tmp/base && cargo build --release -p iosift-parsers --example parse)
set -euo pipefail
a=$1 b=$2 dir=${3:-/var/tmp/iosift-bench} rounds=${4:-3}
specs="iostat:iostat-x-t.txt pidstat:pidstat-d-t-h.txt proc_meminfo:meminfo.ts proc_vmstat:procvmstat.ts proc_diskstats:diskstats.ts perf_script:perf-workload.script mysqlbinlog:binlog-decoded.txt"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for r in $(seq "$rounds"); do
    for s in $specs; do
        for which in A B; do
            bin=$a; [ "$which" = B ] && bin=$b
            line=$("$bin" --repeat 5 "${s%%:*}" "$dir/${s#*:}")
            echo "$which ${s%%:*} $(echo "$line" | grep -o ' mb_s=[0-9.]*' | cut -d= -f2) $(echo "$line" | grep -o 'best_mb_s=[0-9.]*' | cut -d= -f2)" >> "$tmp"
        done
    done
done
python3 - "$tmp" <<'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1])]
fmts = list(dict.fromkeys(r[1] for r in rows))
print(f"{'format':16} {'A median':>9} {'B median':>9} {'B/A':>6}   {'A best':>7} {'B best':>7}")
for f in fmts:
    def med(w, k):
        v = [float(r[k]) for r in rows if r[0] == w and r[1] == f and len(r) > k]
        return st.median(v) if v else float('nan')
    a, b = med("A", 2), med("B", 2)
    ab, bb = med("A", 3), med("B", 3)
    print(f"{f:16} {a:9.1f} {b:9.1f} {b / a:6.2f}   {ab:7.1f} {bb:7.1f}")
PY
