#!/bin/sh
# The collector's watchdog acting on a real perf spin (issue 41): a private MariaDB
# (mariadb_instance.sh with IOSIFT_DB_DIR / IOSIFT_DB_PORT) with thread_cache_size=0, so that a
# client's server thread exits when the client disconnects.  Clients connected BEFORE collect.sh
# starts are threads in `perf record -p`'s thread map; when they disconnect during the capture their
# threads exit and perf 6.1 spins (samples/README.md, "Why perf 6.1 spins").  collect.sh's watchdog
# must stop it and restart it as `perf record -a`.  -P -R: the per-process profile (collect.sh's -P is
# system-wide from the start since issue 41; the sample was made with -P when -P meant -p).
# usage: run_collector_watchdog.sh CASE_DIR [CAPTURE_S]
# Run under `flock /work/capture.lock`.  Leaves the server running only on failure (stop: see below).
set -eu
CASE=$1; SECS=${2:-60}
HERE=$(cd "$(dirname "$0")" && pwd)
B=${IOSIFT_DB_DIR:-/var/tmp/iosift_h41/db}; PORT=${IOSIFT_DB_PORT:-3430}
W=$(dirname "$B")/cap
CNF=$B/my.cnf
IOSIFT_DB_DIR="$B"; IOSIFT_DB_PORT="$PORT"; export IOSIFT_DB_DIR IOSIFT_DB_PORT
mkdir -p "$CASE/truth" "$W"
T=$CASE/truth
# the server must not inherit flock's descriptor of the capture lock (fd 3 under `flock FILE CMD`):
# it would hold the lock as long as it runs
sh "$HERE/mariadb_instance.sh" start > "$T/instance.txt" 3>&-
q() { mariadb --defaults-file="$CNF" -N -B -e "$1"; }
q "SET GLOBAL thread_cache_size=0; SET GLOBAL sync_binlog=1; SET GLOBAL innodb_flush_log_at_trx_commit=1; FLUSH BINARY LOGS; TRUNCATE bench.orders; TRUNCATE bench.audit;"
q "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('thread_cache_size','sync_binlog','innodb_flush_log_at_trx_commit','version')" > "$T/variables.txt"
PID=$(cat "$B/mariadbd.pid")
echo "mariadbd_pid $PID" > "$T/events.txt"
ev() { echo "$1 $(date +%s.%N) $(date -u '+%F %T')" >> "$T/events.txt"; }
# ps of the collector's perf and of mariadbd every 2 s: an independent view of their CPU.
( while :; do echo "TS $(date +%s.%N) $(date -u '+%F %T')";
  ps -eo pid,ppid,pcpu,cputimes,nlwp,comm,args --sort=-pcpu | awk 'NR==1 || /perf|mariadbd|iostat|pidstat|vmstat/' | head -12
  sleep 2; done ) > "$T/ps-snapshots.txt" 2>&1 &
PSL=$!
trap 'kill $PSL 2>/dev/null || true; [ -f "$B/mariadbd.pid" ] && sh "$HERE/mariadb_instance.sh" stop 2>/dev/null || true' EXIT
# first clients: connected before the collector starts, gone 20 s into the capture
ev load1_start
/usr/bin/python3 "$HERE/tiny_trx.py" --socket "$B/mariadb.sock" --threads 4 --duration 23 --out "$T/tiny_trx_1" \
    > "$T/tiny_trx_1.stdout" 2>&1 &
L1=$!
sleep 3
rm -f "$W"/*.tar.gz
ev collect_start
sh "$HERE/../collect.sh" -d "$SECS" -i 1 -p "$PID" -P -R -F 49 -M "--defaults-file=$CNF" -W 10 -m 100 -w "$W" \
    -o "$W/capture.tar.gz" > "$T/collect.stdout" 2>&1 &
CP=$!
wait "$L1" || true
ev load1_end
sleep 2
# the spin, seen from outside: perf's syscalls for 2 s (strace -c), if strace is installed
PP=$(awk '$2 == "perf-profile" {print $1}' "$W"/iosift-*/collectors.pids 2>/dev/null | head -1)
if [ -n "$PP" ] && command -v strace > /dev/null; then
    ev strace_start
    timeout 2 strace -c -f -p "$PP" > "$T/strace-perf.txt" 2>&1 || true
    ev strace_end
fi
# second clients: new connections (not in perf's thread map), through the rest of the capture
ev load2_start
/usr/bin/python3 "$HERE/tiny_trx.py" --socket "$B/mariadb.sock" --threads 4 --duration $((SECS - 30)) --out "$T/tiny_trx_2" \
    > "$T/tiny_trx_2.stdout" 2>&1 || true
ev load2_end
wait "$CP" || true
ev collect_end
q "SHOW GLOBAL STATUS WHERE Variable_name IN ('Binlog_commits','Threads_created','Connections','Com_commit')" > "$T/status_after.txt"
cp "$CNF" "$T/my.cnf"
rm -rf "$CASE/capture"; mkdir -p "$CASE/capture"
tar -C "$CASE/capture" --strip-components=1 -xzf "$W/capture.tar.gz"
sh "$HERE/gz_big.sh" "$CASE/capture" > /dev/null 2>&1 || true
sh "$HERE/mariadb_instance.sh" stop
ev server_stopped
