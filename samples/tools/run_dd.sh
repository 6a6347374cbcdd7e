#!/bin/sh
# buffered_copy capture: collect.sh (-T) for SECONDS; 5 s in, a buffered dd of 2000 MiB, no sync.
# usage: run_dd.sh CASE_DIR [SECONDS]
set -eu
CASE=$1; SECS=${2:-90}
HERE=$(cd "$(dirname "$0")" && pwd)
W=/var/tmp/iosift_cap
mkdir -p "$CASE/truth" "$W"
rm -f /var/tmp/x "$W"/*.tar.gz; sync; sleep 3
( i=0; while [ $i -lt $(( (SECS + 10) / 10 )) ]; do echo "TS $(date +%s.%N) $(date -u '+%F %T')";
  ps -eLo pid,tid,pcpu,comm --sort=-pcpu | head -12; sleep 10; i=$((i+1)); done ) > "$CASE/truth/ps-snapshots.txt" 2>&1 &
PSL=$!
sh "$HERE/../collect.sh" -d "$SECS" -i 1 -T -m 200 -w "$W" -o "$W/capture.tar.gz" > "$CASE/truth/collect.stdout" 2>&1 &
CP=$!
sleep 5
echo "dd_start $(date +%s.%N) $(date -u '+%F %T')" > "$CASE/truth/dd_timeline.txt"
dd if=/dev/zero of=/var/tmp/x bs=10M count=200 2> "$CASE/truth/dd.stderr" &
DP=$!
echo "dd_pid $DP" >> "$CASE/truth/dd_timeline.txt"
wait "$DP"
echo "dd_exit $(date +%s.%N) $(date -u '+%F %T')" >> "$CASE/truth/dd_timeline.txt"
grep -E '^(Dirty|Writeback):' /proc/meminfo >> "$CASE/truth/dd_timeline.txt"
wait "$CP" || true
kill "$PSL" 2>/dev/null || true
grep -E '^(Dirty|Writeback):' /proc/meminfo >> "$CASE/truth/dd_timeline.txt"
filefrag -v /var/tmp/x > "$CASE/truth/filefrag.txt" 2>&1 || true
rm -f /var/tmp/x
rm -rf "$CASE/capture"; mkdir -p "$CASE/capture"
tar -C "$CASE/capture" --strip-components=1 -xzf "$W/capture.tar.gz"
sh "$HERE/gz_big.sh" "$CASE/capture"
