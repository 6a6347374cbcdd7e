#!/bin/sh
# Capture the Galera sample (issue 38, seed 000 reproduced): samples/collect.sh on each node of galera_cluster.sh at
# once, a write load on node1 only.
# usage: run_galera.sh CASE_DIR [CAPTURE_S] [LOAD_S] [THREADS] [PERF_HZ]   (PERF_HZ 0: no -P, for trials)
#  Before: the cluster is restarted with its gcache file systems unmounted in between (their page cache dropped, so
#  that the gcache is faulted in again by the load: on XFS with read_ahead_kb 4096 the mmap read-around grows to
#  2 MiB folios), then WARM_S (default 60) seconds of the load, not captured.  Then, started together: for each node N
#    collect.sh -d CAPTURE_S -i 1 -p PID_N -S 30 -P -F PERF_HZ -M "-uroot --socket=SOCK_N" -m 200 -w W/nodeN -o W/nodeN.tar.gz
#  (COLLECT=path overrides the collector; -P profiles system-wide, perf record -a, filtered to PID_N: issue 41),
#  tools/galera_sampler.py (wsrep status, loop device stats, per-thread write_bytes of every node, the perf
#  processes' CPU ticks: truth/sampler.jsonl), ps snapshots every 10 s, and after 10 s
#  tiny_trx.py --threads THREADS --duration LOAD_S on node1's socket.
#  After: each capture unpacked into CASE_DIR/capture/nodeN (tools/gz_big.sh), the collectors' output in truth/,
#  the gcache's resident folio sizes (tools/folio_probe.c -r) in truth/nodeN_folios.txt.
set -eu
CASE=$1; SECS=${2:-150}; LOAD=${3:-130}; THREADS=${4:-4}; HZ=${5:-49}
HERE=$(cd "$(dirname "$0")" && pwd)
COLLECT=${COLLECT:-$HERE/../collect.sh}
B=/var/tmp/iosift_galera; W=/var/tmp/iosift_galera_cap
PY=/usr/bin/python3
mkdir -p "$CASE/truth" "$W"
cc -O2 -o "$W/folio_probe" "$HERE/folio_probe.c"
PSL=; SAMP=
cleanup() {
    set +e
    [ -z "$PSL" ] || kill "$PSL" 2>/dev/null
    [ -z "$SAMP" ] || kill "$SAMP" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# 1. cold gcache: stop, unmount (drops the files' page cache), start again (mounts, node1 bootstraps)
sh "$HERE/galera_cluster.sh" stop
for n in 1 2 3; do ! mountpoint -q "$B/node$n/gcache" || umount "$B/node$n/gcache"; done
sh "$HERE/galera_cluster.sh" start > "$CASE/truth/cluster_start.txt" 2>&1
for n in 1 2 3; do
    mariadb --defaults-file="$B/node$n/my.cnf" -N -B -e "SELECT @@hostname, @@port, @@wsrep_node_name, @@wsrep_provider_options, @@innodb_flush_log_at_trx_commit, @@wsrep_slave_threads; SHOW GLOBAL STATUS LIKE 'wsrep_%'" > "$CASE/truth/node${n}_before.txt"
    cp "$B/node$n/my.cnf" "$CASE/truth/node$n.my.cnf"
done
{ echo "TS $(date +%s.%N)"; losetup -l; for n in 1 2 3; do dev=$(findmnt -rno SOURCE "$B/node$n/gcache");
  echo "node$n $dev read_ahead_kb=$(cat "/sys/block/${dev#/dev/}/queue/read_ahead_kb") $(findmnt -rno FSTYPE,OPTIONS "$B/node$n/gcache")"; done
  sysctl vm.dirty_expire_centisecs vm.dirty_writeback_centisecs vm.dirty_background_ratio vm.dirty_ratio; } > "$CASE/truth/setup.txt"
echo "node1 $(cat $B/node1/mariadbd.pid) node2 $(cat $B/node2/mariadbd.pid) node3 $(cat $B/node3/mariadbd.pid)" > "$CASE/truth/pids.txt"
# 2. warm-up (not captured): WARM_S seconds of the same load, so that the gcache's read-around
#    has grown to its largest folios (it starts small after the cold start) as on a node that has run for long
if [ "${WARM_S:-60}" -gt 0 ]; then
    $PY "$HERE/tiny_trx.py" --socket "$B/node1/mariadb.sock" --threads "$THREADS" --duration "${WARM_S:-60}" \
        --out "$CASE/truth/warmup" > "$CASE/truth/warmup.stdout" 2>&1
fi
sync; sleep 5

# 3. the collectors, the sampler, the load
( i=0; while [ $i -lt $(( (SECS + 20) / 10 )) ]; do echo "TS $(date +%s.%N) $(date -u '+%F %T')";
  ps -eLo pid,tid,pcpu,comm --sort=-pcpu | head -16; sleep 10; i=$((i+1)); done ) > "$CASE/truth/ps-snapshots.txt" 2>&1 &
PSL=$!
$PY "$HERE/galera_sampler.py" --base "$B" --duration "$((SECS + 5))" --out "$CASE/truth/sampler" > "$CASE/truth/sampler.stdout" 2>&1 &
SAMP=$!
rm -f "$W"/*.tar.gz
CPS=; PERF="-P -F $HZ"; [ "$HZ" != 0 ] || PERF=
for n in 1 2 3; do
    # a work directory per node: the collectors name their output directory by host and second
    mkdir -p "$W/node$n"
    echo "sh $COLLECT -d $SECS -i 1 -p $(cat $B/node$n/mariadbd.pid) -S 30 $PERF -M \"-uroot --socket=$B/node$n/mariadb.sock\" -m 200 -w $W/node$n -o $W/node$n.tar.gz" >> "$CASE/truth/collect_cmd.txt"
    # shellcheck disable=SC2086 # $PERF: two words or none
    sh "$COLLECT" -d "$SECS" -i 1 -p "$(cat "$B/node$n/mariadbd.pid")" -S 30 $PERF \
        -M "-uroot --socket=$B/node$n/mariadb.sock" -m 200 -w "$W/node$n" -o "$W/node$n.tar.gz" > "$CASE/truth/collect_node$n.stdout" 2>&1 &
    CPS="$CPS $!"
done
sleep 10
echo "load_start $(date +%s.%N)" > "$CASE/truth/load_timeline.txt"
$PY "$HERE/tiny_trx.py" --socket "$B/node1/mariadb.sock" --threads "$THREADS" --duration "$LOAD" --out "$CASE/truth/tiny_trx" \
    > "$CASE/truth/tiny_trx.stdout" 2>&1
echo "load_end $(date +%s.%N)" >> "$CASE/truth/load_timeline.txt"
for p in $CPS; do wait "$p" || true; done
wait "$SAMP" || true; SAMP=
kill "$PSL" 2>/dev/null || true; PSL=
for n in 1 2 3; do
    mariadb --defaults-file="$B/node$n/my.cnf" -N -B -e "SHOW GLOBAL STATUS LIKE 'wsrep_%'" > "$CASE/truth/node${n}_after.txt"
    ls -l "$B/node$n/gcache" > "$CASE/truth/node${n}_gcache_ls.txt"
    fincore "$B/node$n/gcache/"* >> "$CASE/truth/node${n}_gcache_ls.txt" 2>&1 || true
    # the folio sizes of the gcache's resident pages (mincore first: the probe reads nothing in)
    for f in "$B/node$n/gcache/"galera.cache "$B/node$n/gcache/"gcache.page.*; do
        if [ -f "$f" ]; then "$W/folio_probe" -r "$f" >> "$CASE/truth/node${n}_folios.txt" 2>&1 || true; fi
    done
    rm -rf "$CASE/capture/node$n"; mkdir -p "$CASE/capture/node$n"
    tar -C "$CASE/capture/node$n" --strip-components=1 -xzf "$W/node$n.tar.gz"
    sh "$HERE/gz_big.sh" "$CASE/capture/node$n"
done
rm -f "$W"/*.tar.gz
gzip -9f "$CASE/truth/sampler.jsonl"
du -sh "$CASE/capture/"*
