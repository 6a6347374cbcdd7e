#!/bin/sh
# Capture one mmap writeback case with samples/collect.sh.
# usage: run_mmap.sh large_folio|order0 CASE_DIR [RATE] [SECONDS]
#   large_folio: file written with 2 MiB writes -> 2 MiB page-cache folios, no madvise
#   order0:      file's cache dropped and re-read with 4 KiB preads under FADV_RANDOM
#                (order-0 folios), mapping madvise(MADV_RANDOM)
set -eu
MODE=$1; CASE=$2; RATE=${3:-20}; SECS=${4:-140}
HERE=$(cd "$(dirname "$0")" && pwd)
W=/var/tmp/iosift_mm; F=$W/gcache.dat
mkdir -p "$W" "$CASE/truth"
cc -O2 -pthread -o "$W/mmap_store" "$HERE/mmap_store.c"
cc -O2 -o "$W/folio_probe" "$HERE/folio_probe.c"
cc -O2 -o "$W/cache_order0" "$HERE/cache_order0.c"
rm -f "$F"
dd if=/dev/zero of="$F" bs=2M count=512 conv=fsync status=none
if [ "$MODE" = order0 ]; then
    "$W/cache_order0" "$F" > "$CASE/truth/cache_prep.txt"; ADV=random
else
    echo "written with: dd if=/dev/zero of=$F bs=2M count=512 conv=fsync" > "$CASE/truth/cache_prep.txt"; ADV=none
fi
sync; sleep 3
{ echo "before workload $(date +%s.%N)"; "$W/folio_probe" "$F"; } > "$CASE/truth/folios.txt"
filefrag -v "$F" > "$CASE/truth/filefrag.txt"
# foreign-activity ground truth (not capture input)
( i=0; while [ $i -lt $(( (SECS + 20) / 10 )) ]; do echo "TS $(date +%s.%N) $(date -u '+%F %T')";
  ps -eLo pid,tid,pcpu,comm --sort=-pcpu | head -12; sleep 10; i=$((i+1)); done ) > "$CASE/truth/ps-snapshots.txt" 2>&1 &
PSL=$!
"$W/mmap_store" "$F" "$RATE" 2 $((SECS + 10)) "$CASE/truth/mmap_store" "$ADV" > "$CASE/truth/mmap_store.stdout" 2>&1 &
MP=$!
sleep 2
sh "$HERE/../collect.sh" -d "$SECS" -i 1 -p "$MP" -S 30 -P -T -m 200 -w "$W" -o "$W/capture.tar.gz" > "$CASE/truth/collect.stdout" 2>&1
wait "$MP" || true
{ echo "after workload $(date +%s.%N)"; "$W/folio_probe" "$F"; } >> "$CASE/truth/folios.txt"
kill "$PSL" 2>/dev/null || true
rm -rf "$CASE/capture"; mkdir -p "$CASE/capture"
tar -C "$CASE/capture" --strip-components=1 -xzf "$W/capture.tar.gz"
sh "$HERE/gz_big.sh" "$CASE/capture"
ls -la "$CASE/capture"
