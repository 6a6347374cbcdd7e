#!/usr/bin/env bash
# Side-by-side throughput of iosift's parsers and alternatives on the same large files.
#
# Usage: bench/compare.sh [DIR] [RUNS] [--big GB]
#   DIR   inputs made by bench/generate.sh (default /var/tmp/iosift-bench; generated if missing)
#   RUNS  hyperfine runs per command (default 5)
#   --big GB  also time `iosift analyze` of a bundle of about GB GB (bench/generate.sh
#         --mb GB*1000/5 of iostat, pidstat, meminfo, perf and binlog, in DIR/big; deleted after)
#
# It ends with one table of issue 40's targets: each input's `iosift inspect` (or `analyze`)
# wall MB/s and peak RSS, the peer measured in the same run, the target and met / not met.
#
# For every input it times whole processes with hyperfine (same file, same run, interleaved
# by benchmark) and prints the median wall-clock time, the mean CPU time (user + sys), and
# MB/s (10^6 bytes) for both, plus each command's ratio to iosift:
#   iosift    parsers/examples/parse.rs in release (reads the file, parses it, prints counts;
#             the process frees what it built before exiting, which is counted); for perf
#             script, examples/perf_collapse.rs first (the application's parse in pieces)
#   python    bench/py_iostat.py / bench/py_pidstat.py (simple split-based parsers)
#   inferno   inferno-collapse-perf --nthreads 1 (and default threads) for perf script
#   wc -l     the floor: reading the bytes and counting lines
#   iosift inspect   the real CLI (`iosift inspect --json FILE`): the file is streamed from disk
#             (issue 19), so the figure includes detection, anchoring and the JSON
#   jc        `jc --iostat` / `jc --pidstat` / `jc --vmstat` (pip install jc), one run each
#             (they take minutes)
# Every command's peak RSS is measured once more with /usr/bin/time (one run).
# The machine may be shared: CPU-time figures are steadier than wall-clock ones.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
big=""
args=()
while [ $# -gt 0 ]; do
    case $1 in
        --big) big=$2; shift 2 ;;
        *) args+=("$1"); shift ;;
    esac
done
dir=${args[0]:-/var/tmp/iosift-bench}
runs=${args[1]:-5}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}

command -v hyperfine >/dev/null || { echo "hyperfine is needed (apt-get install -y hyperfine)" >&2; exit 1; }
inferno=$(command -v inferno-collapse-perf || true)
[ -z "$inferno" ] && [ -x /tmp/inferno_root/bin/inferno-collapse-perf ] && inferno=/tmp/inferno_root/bin/inferno-collapse-perf
[ -z "$inferno" ] && echo "note: inferno-collapse-perf not found (cargo install inferno); perf rows skip it" >&2

if [ ! -f "$dir/iostat-x-t.txt" ] || [ ! -f "$dir/vmstat-t.txt" ]; then "$here/generate.sh" "$dir"; fi
(cd "$root" && cargo build --release -q -p iosift-parsers --example parse)
parse="$CARGO_TARGET_DIR/release/examples/parse"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

iosift="$CARGO_TARGET_DIR/release/iosift"
(cd "$root" && cargo build --release -q --bin iosift --example perf_collapse)
collapse="$CARGO_TARGET_DIR/release/examples/perf_collapse"
jc=$(command -v jc || true)
[ -z "$jc" ] && echo "note: jc not found (pip install jc); its rows are skipped" >&2

# bench NAME FILE  CMD...   (each CMD is "label=command"; RUNS from the environment of the call)
bench() {
    local name=$1 file=$2
    shift 2
    local args=() labels=()
    for c in "$@"; do
        labels+=("${c%%=*}")
        args+=(--command-name "${c%%=*}" "${c#*=}")
    done
    local n=${BENCH_RUNS:-$runs} warm=${BENCH_WARMUP:-1}
    hyperfine -N --warmup "$warm" --runs "$n" --export-json "$out/$name.json" "${args[@]}" >/dev/null 2>&1 ||
        hyperfine --warmup "$warm" --runs "$n" --export-json "$out/$name.json" "${args[@]}" >/dev/null
    # Peak RSS of each command, one more run each.
    : > "$out/$name.rss"
    for c in "$@"; do
        /usr/bin/time -f "%M" -o "$out/rss.one" sh -c "${c#*=} > /dev/null 2>&1" || true
        echo "$(cat "$out/rss.one")" >> "$out/$name.rss"
    done
    stat -c %s "$file" > "$out/$name.size"
    python3 - "$out/$name.json" "$name" "$(stat -c %s "$file")" "$out/${BASE:-$name}.base" "$out/$name.rss" <<'PY'
import json, os, sys
j = json.load(open(sys.argv[1])); name = sys.argv[2]; size = int(sys.argv[3]); basef = sys.argv[4]
rss = [l.strip() for l in open(sys.argv[5])]
rows = []
for k, r in enumerate(j["results"]):
    cpu = r["user"] + r["system"]
    mb = int(rss[k]) / 1024 if k < len(rss) and rss[k].isdigit() else float('nan')
    rows.append((r["command"], r["median"], cpu, mb, len(r["times"])))
if os.path.exists(basef):
    base = float(open(basef).read())
else:
    base = next((x for x in rows if x[0].startswith("iosift")), rows[0])[2]
    open(basef, "w").write(str(base))
print(f"\n## {name}  ({size / 1e6:.0f} MB)")
print(f"{'command':34} {'runs':>4} {'wall s':>8} {'MB/s':>8} {'CPU s':>8} {'MB/CPU-s':>9} {'RSS MB':>7} {'CPU / iosift':>13}")
for c, w, cpu, mb, n in rows:
    ratio = cpu / base if base else float('nan')
    print(f"{c:34} {n:4} {w:8.3f} {size / 1e6 / w:8.1f} {cpu:8.3f} {size / 1e6 / cpu:9.1f} {mb:7.0f} {ratio:12.2f}x")
PY
}

# one run each (jc and the Python baselines take tens of seconds per 200 MB)
slow() { BENCH_RUNS=1 BENCH_WARMUP=0 BASE=$1 bench "$1-others" "${@:2}"; }

echo "# iosift compare  $(date -u +%FT%TZ)  $(nproc) CPUs  load: $(cut -d' ' -f1-3 /proc/loadavg)"
bench iostat "$dir/iostat-x-t.txt" \
    "iosift iostat=$parse iostat $dir/iostat-x-t.txt" \
    "iosift inspect (CLI, streamed)=$iosift inspect --json $dir/iostat-x-t.txt" \
    "wc -l=wc -l $dir/iostat-x-t.txt"
alt=("python py_iostat.py=python3 $here/py_iostat.py $dir/iostat-x-t.txt")
[ -n "$jc" ] && alt+=("jc --iostat=sh -c '$jc --iostat < $dir/iostat-x-t.txt'")
slow iostat "$dir/iostat-x-t.txt" "${alt[@]}"
bench pidstat "$dir/pidstat-d-t-h.txt" \
    "iosift pidstat=$parse pidstat $dir/pidstat-d-t-h.txt" \
    "iosift inspect (CLI, streamed)=$iosift inspect --json $dir/pidstat-d-t-h.txt" \
    "wc -l=wc -l $dir/pidstat-d-t-h.txt"
alt=("python py_pidstat.py=python3 $here/py_pidstat.py $dir/pidstat-d-t-h.txt")
[ -n "$jc" ] && alt+=("jc --pidstat=sh -c '$jc --pidstat < $dir/pidstat-d-t-h.txt'")
slow pidstat "$dir/pidstat-d-t-h.txt" "${alt[@]}"
if [ -f "$dir/vmstat-t.txt" ]; then
    bench vmstat "$dir/vmstat-t.txt" \
        "iosift vmstat=$parse vmstat $dir/vmstat-t.txt" \
        "iosift inspect (CLI)=$iosift inspect --json $dir/vmstat-t.txt" \
        "wc -l=wc -l $dir/vmstat-t.txt"
    if [ -n "$jc" ]; then
        slow vmstat "$dir/vmstat-t.txt" "jc --vmstat=sh -c '$jc --vmstat < $dir/vmstat-t.txt'"
    fi
fi
for spec in proc_meminfo:meminfo.ts proc_vmstat:procvmstat.ts proc_diskstats:diskstats.ts; do
    f="$dir/${spec#*:}"
    bench "${spec%%:*}" "$f" \
        "iosift ${spec%%:*}=$parse ${spec%%:*} $f" \
        "iosift inspect (CLI, streamed)=$iosift inspect --json $f" \
        "wc -l=wc -l $f"
done
# The first row is the application's path (examples/perf_collapse.rs: the file streamed and
# cut in pieces on every core, as `inspect` and `analyze` read it), the second the same on one
# thread (the application's one-thread streamed parse); `--stream` reads 1 MiB chunks on one
# thread like `inferno --nthreads 1`; the last iosift row reads the file whole first.
perf_cmds=("iosift perf_script (pieces, every core)=$collapse $dir/perf-workload.script")
perf_cmds+=("iosift perf_script (app, 1 thread)=env RAYON_NUM_THREADS=1 $collapse $dir/perf-workload.script")
perf_cmds+=("iosift perf_script --stream=$parse --stream --collapsed perf_script $dir/perf-workload.script")
perf_cmds+=("iosift perf_script (whole)=$parse --collapsed perf_script $dir/perf-workload.script")
if [ -n "$inferno" ]; then
    perf_cmds+=("inferno 1 thread=$inferno --nthreads 1 $dir/perf-workload.script")
    perf_cmds+=("inferno default threads=$inferno $dir/perf-workload.script")
fi
perf_cmds+=("wc -l=wc -l $dir/perf-workload.script")
bench perf_script "$dir/perf-workload.script" "${perf_cmds[@]}"
bench mysqlbinlog "$dir/binlog-decoded.txt" \
    "iosift mysqlbinlog=$parse mysqlbinlog $dir/binlog-decoded.txt" \
    "iosift inspect (CLI, streamed)=$iosift inspect --json $dir/binlog-decoded.txt" \
    "wc -l=wc -l $dir/binlog-decoded.txt"

echo
echo "# in-process parse only (file already in memory), 5 parses: mb_s = median, best_mb_s = fastest,"
echo "# in MB per CPU-second of the parsing thread:"
for spec in iostat:iostat-x-t.txt pidstat:pidstat-d-t-h.txt proc_meminfo:meminfo.ts \
    proc_vmstat:procvmstat.ts proc_diskstats:diskstats.ts perf_script:perf-workload.script \
    mysqlbinlog:binlog-decoded.txt vmstat:vmstat-t.txt; do
    [ -f "$dir/${spec#*:}" ] || continue
    "$parse" --repeat 5 "${spec%%:*}" "$dir/${spec#*:}"
done

# analyze of a bundle: the bench files hard-linked into one folder (the 1.1 GB bundle), and
# with --big a generated one of about that many GB.
# whole NAME DIR: one timed `iosift analyze` (wall s, peak RSS KB, bytes of input) into $out/NAME.whole
# (--max-bytes: the default total size limit, 8 GiB, refuses the 10 GB bundle by design)
whole() {
    local name=$1 bundle=$2 report="$out/report-$1"
    local status=0
    /usr/bin/time -f "%e %M" -o "$out/$name.time" "$iosift" analyze "$bundle" --max-bytes 100000000000 -o "$report" \
        >/dev/null 2>"$out/$name.err" || status=$?
    # A failed run: its status instead of a figure (time(1) then writes a first line of its own).
    echo "$(tail -n 1 "$out/$name.time") $(du -sbL "$bundle" | cut -f1) $status" > "$out/$name.whole"
    [ "$status" = 0 ] || { echo "iosift analyze $bundle failed (exit $status):" >&2; tail -n 5 "$out/$name.err" >&2; }
    rm -rf "$report"
}
bundle="$out/bundle"
mkdir -p "$bundle"
for f in iostat-x-t.txt pidstat-d-t-h.txt meminfo.ts perf-workload.script binlog-decoded.txt; do
    ln "$dir/$f" "$bundle/$f" 2>/dev/null || cp "$dir/$f" "$bundle/$f"
done
whole analyze "$bundle"
if [ -n "$big" ]; then
    "$here/generate.sh" "$dir/big" --mb $((big * 1000 / 5)) --binlog-copies $((big * 1000 / 5 / 279 + 1)) \
        --only iostat,pidstat,meminfo,perf,binlog >/dev/null
    whole analyze_big "$dir/big"
    rm -rf "$dir/big"
fi

echo
echo "# issue 40 targets (whole processes, $(nproc) CPUs, this run)"
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
def row(name, label):
    # (wall MB/s, RSS MB) of the command `label` in bench NAME, or None.
    try:
        j = json.load(open(f"{out}/{name}.json"))
        rss = [l.strip() for l in open(f"{out}/{name}.rss")]
    except OSError:
        return None
    for k, r in enumerate(j["results"]):
        if r["command"].startswith(label):
            mb = int(rss[k]) / 1024 if k < len(rss) and rss[k].isdigit() else float("nan")
            return r["median"], mb
    return None
def mbps(name, label, file_mb):
    r = row(name, label)
    return (file_mb / r[0], r[1]) if r else (float("nan"), float("nan"))
print(f"{'input':28} {'iosift':>18} {'peak RSS':>9}  {'peer (same run)':30} {'target':34} {'met':>4}")
def line(inp, val, rss, peer, target, ok):
    print(f"{inp:28} {val:>18} {rss:>9}  {peer:30} {target:34} {'yes' if ok else 'NO':>4}")
files = dict(iostat="iostat-x-t.txt", pidstat="pidstat-d-t-h.txt", vmstat="vmstat-t.txt",
             proc_diskstats="diskstats.ts", proc_meminfo="meminfo.ts", proc_vmstat="procvmstat.ts",
             perf_script="perf-workload.script")
mb = {k: float(open(f"{out}/{k}.size").read()) / 1e6 for k in files if os.path.exists(f"{out}/{k}.size")}
for name, want in [("iostat", 1000), ("pidstat", 500), ("vmstat", 500), ("proc_diskstats", 500),
                   ("proc_meminfo", 500), ("proc_vmstat", 500)]:
    if name not in mb:
        continue
    v, rss = mbps(name, "iosift inspect", mb[name])
    wc, _ = mbps(name, "wc -l", mb[name])
    jc, _ = mbps(f"{name}-others", "jc", mb[name])
    peer = f"wc -l {wc:.0f}" + (f", jc {jc:.1f}" if jc == jc else "") + " MB/s"
    line(f"{name} inspect", f"{v:.0f} MB/s", f"{rss:.0f} MB", peer,
         f">= {want} MB/s, RSS < 64 MB", v >= want and rss < 64)
if "perf_script" in mb:
    v, rss = mbps("perf_script", "iosift perf_script (pieces, every core)", mb["perf_script"])
    inf, _ = mbps("perf_script", "inferno default", mb["perf_script"])
    line("perf script (collapsed)", f"{v:.0f} MB/s", f"{rss:.0f} MB", f"inferno default {inf:.0f} MB/s",
         ">= 1.5x inferno default threads", v >= 1.5 * inf)
for name, label, secs, mem in [("analyze", "analyze 1.1 GB bundle", 3, 300), ("analyze_big", "analyze big bundle", 30, 500)]:
    p = f"{out}/{name}.whole"
    if not os.path.exists(p):
        continue
    wall, kb, size, status = open(p).read().split()
    wall, rss = float(wall), int(kb) / 1024
    shown = f"{wall:.2f} s" if status == "0" else f"failed ({status})"
    line(f"{label} ({int(size) / 1e9:.1f} GB)", shown, f"{rss:.0f} MB", "",
         f"< {secs} s, < {mem} MB", status == "0" and wall < secs and rss < mem)
PY
