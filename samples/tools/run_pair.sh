#!/bin/sh
# Capture BOTH sides of the mariadb_pair.sh pair at the same time (issue 38, the pair_* samples): collect.sh on the
# primary (its pid, its socket) and collect.sh on the replica (its pid, its socket), started together, with
# pt-heartbeat --update on the primary for the whole capture and a tiny_trx.py load on the primary.
# usage: run_pair.sh CASE_DIR flush_bound|link_shaped|keeps_up [THREADS] [LOAD_S] [CAPTURE_S] [BINLOG_WINDOW_S]
#   flush_bound   the replica durable: sync_binlog=1, innodb_flush_log_at_trx_commit=1, sync_relay_log=1 (its IO thread
#                 flushes the relay log after every event it receives); the link (lo) unshaped
#   link_shaped   the replica relaxed (0 / 2 / sync_relay_log=0); the primary's port shaped on lo with tc htb: a class
#                 of PAIR_SHAPE_KBIT kbit (default 1000) for `sport PRIMARY_PORT`, everything else at line rate (this
#                 kernel has no netem/prio); the qdisc is removed after the capture and on any exit
#   keeps_up      the negative: the primary durable (sync_binlog=1, innodb_flush_log_at_trx_commit=1: a slower source),
#                 the replica relaxed, the link unshaped: the replica keeps up, the source's pace is the only limit
#   The primary is relaxed in the first two (sync_binlog=0, innodb_flush_log_at_trx_commit=2): the same production.
# Environment: IOSIFT_REPL_DIR (default /var/tmp/iosift_pairs), IOSIFT_REPL_PRIMARY_PORT (3440),
#   IOSIFT_REPL_REPLICA_PORT (3441): passed to mariadb_pair.sh, which starts the pair (and creates it on first use);
#   PAIR_STOP=0 leaves the pair running on exit (default: stopped by their pid files).
# Writes CASE_DIR/capture/primary/ and CASE_DIR/capture/replica/ (each a whole collect.sh capture, files over 200 KB
# gzip'd) and CASE_DIR/truth/ (settings, pids, tc rules and counters, the load's log, ps snapshots, both collectors'
# stdout, both my.cnf). Run it under flock /work/capture.lock.
set -eu
CASE=$1; MODE=$2; THREADS=${3:-2}; LOAD=${4:-85}; SECS=${5:-100}; WIN=${6:-2}
case $MODE in flush_bound|link_shaped|keeps_up) ;; *) echo "run_pair.sh: mode flush_bound, link_shaped or keeps_up" >&2; exit 2 ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
IOSIFT_REPL_DIR=${IOSIFT_REPL_DIR:-/var/tmp/iosift_pairs}
IOSIFT_REPL_PRIMARY_PORT=${IOSIFT_REPL_PRIMARY_PORT:-3440}
IOSIFT_REPL_REPLICA_PORT=${IOSIFT_REPL_REPLICA_PORT:-3441}
export IOSIFT_REPL_DIR IOSIFT_REPL_PRIMARY_PORT IOSIFT_REPL_REPLICA_PORT
B=$IOSIFT_REPL_DIR; PC=$B/primary/my.cnf; RC=$B/replica/my.cnf; W=$B-cap; T=$CASE/truth
KBIT=${PAIR_SHAPE_KBIT:-1000}
PY=/usr/bin/python3
mkdir -p "$T" "$W"
p() { mariadb --defaults-file="$PC" -N -B -e "$1"; }
r() { mariadb --defaults-file="$RC" -N -B -e "$1"; }
SHAPED=0; PTHB=; PSL=; CPP=; CPR=
cleanup() {
    set +e
    for x in $PSL $CPP $CPR; do kill "$x" 2>/dev/null; done
    [ -z "$PTHB" ] || { kill "$PTHB" 2>/dev/null; echo "pt-heartbeat (pid $PTHB) stopped"; }
    if [ "$SHAPED" = 1 ]; then tc qdisc del dev lo root && echo "tc qdisc on lo removed"; fi
    [ "${PAIR_STOP:-1}" != 1 ] || sh "$HERE/mariadb_pair.sh" stop
}
trap cleanup EXIT
trap 'exit 1' INT TERM
caught_up() {  # the replica has read and executed everything the primary wrote
    st=$(p "SHOW MASTER STATUS" | cut -f1,2)
    r "SHOW SLAVE STATUS" | awk -F'\t' -v f="${st%	*}" -v pos="${st#*	}" '$6==f && $7==pos && $22==pos {ok=1} END {exit !ok}'
}
wait_caught_up() {  # wait_caught_up SECONDS WHAT
    i=0; until caught_up; do i=$((i + 1)); [ $i -lt "$1" ] || { echo "replica did not $2" >&2; exit 1; }; sleep 1; done
}
sh "$HERE/mariadb_pair.sh" start
# 1. catch up relaxed, rotate both binary logs, pt-heartbeat on the primary (its table replicated before the capture)
r "SET GLOBAL sync_binlog=0; SET GLOBAL innodb_flush_log_at_trx_commit=2; SET GLOBAL sync_relay_log=0;"
wait_caught_up 600 "catch up"
if [ "$MODE" = keeps_up ]; then PSB=1; PTC=1; else PSB=0; PTC=2; fi
p "SET GLOBAL sync_binlog=$PSB; SET GLOBAL innodb_flush_log_at_trx_commit=$PTC; FLUSH BINARY LOGS;"
p "CREATE DATABASE IF NOT EXISTS percona"
pt-heartbeat -S "$B/primary/mariadb.sock" -u root -D percona --create-table --update --interval 1 \
    > "$T/pt-heartbeat.log" 2>&1 &
PTHB=$!
sleep 2
wait_caught_up 60 "follow the rotation"
# 2. this case's replica settings (STOP/START SLAVE so that the IO thread reopens the relay log with them)
if [ "$MODE" = flush_bound ]; then RSB=1; RTC=1; RSR=1; else RSB=0; RTC=2; RSR=0; fi
r "STOP SLAVE; SET GLOBAL sync_binlog=$RSB; SET GLOBAL innodb_flush_log_at_trx_commit=$RTC; SET GLOBAL sync_relay_log=$RSR;
   FLUSH BINARY LOGS; START SLAVE;"
sleep 2
{ echo "mode $MODE threads $THREADS load_s $LOAD capture_s $SECS binlog_window_s $WIN shape_kbit $([ "$MODE" = link_shaped ] && echo "$KBIT" || echo none)"
  echo "primary"; p "SELECT @@server_id, @@port, @@sync_binlog, @@innodb_flush_log_at_trx_commit"; p "SHOW MASTER STATUS"
  echo "replica"; r "SELECT @@server_id, @@port, @@sync_binlog, @@innodb_flush_log_at_trx_commit, @@sync_relay_log, @@sync_master_info, @@slave_parallel_threads, @@log_slave_updates"
  r "SHOW MASTER STATUS"; } > "$T/settings_before.txt"
RPID=$(cat "$B/replica/mariadbd.pid"); PPID_=$(cat "$B/primary/mariadbd.pid")
echo "primary_pid $PPID_ replica_pid $RPID pt_heartbeat_pid $PTHB" > "$T/pids.txt"
if [ "$MODE" = link_shaped ]; then
    SHAPED=1
    tc qdisc add dev lo root handle 1: htb default 10
    tc class add dev lo parent 1: classid 1:10 htb rate 10gbit ceil 10gbit burst 4m cburst 4m quantum 200000
    tc class add dev lo parent 1: classid 1:20 htb rate "${KBIT}kbit" ceil "${KBIT}kbit"
    tc filter add dev lo parent 1: protocol ip prio 1 u32 match ip sport "$IOSIFT_REPL_PRIMARY_PORT" 0xffff flowid 1:20
    { echo "TS $(date +%s.%N)"; tc qdisc show dev lo; tc class show dev lo; tc filter show dev lo; } > "$T/tc.txt"
fi
sync; sleep 2
( i=0; while [ $i -lt $(( (SECS + 10) / 10 )) ]; do echo "TS $(date +%s.%N) $(date -u '+%F %T')";
  ps -eLo pid,tid,pcpu,comm --sort=-pcpu | head -14; sleep 10; i=$((i+1)); done ) > "$T/ps-snapshots.txt" 2>&1 &
PSL=$!
rm -rf "$W/primary" "$W/replica"; mkdir -p "$W/primary" "$W/replica"
# 3. both collectors at once, each pointed at its own server
sh "$HERE/../collect.sh" -d "$SECS" -i 1 -p "$PPID_" -P -F 19 -M "--defaults-file=$PC" -W "$WIN" -m 300 -w "$W/primary" \
    -o "$W/primary/capture.tar.gz" > "$T/collect.primary.stdout" 2>&1 &
CPP=$!
sh "$HERE/../collect.sh" -d "$SECS" -i 1 -p "$RPID" -P -F 19 -M "--defaults-file=$RC" -W "$WIN" -m 300 -w "$W/replica" \
    -o "$W/replica/capture.tar.gz" > "$T/collect.replica.stdout" 2>&1 &
CPR=$!
sleep 5
echo "load_start $(date +%s.%N)" > "$T/load_timeline.txt"
$PY "$HERE/tiny_trx.py" --socket "$B/primary/mariadb.sock" --threads "$THREADS" --duration "$LOAD" --out "$T/tiny_trx" \
    > "$T/tiny_trx.stdout" 2>&1
echo "load_end $(date +%s.%N)" >> "$T/load_timeline.txt"
wait "$CPP" || true
wait "$CPR" || true
CPP=; CPR=
kill "$PSL" 2>/dev/null || true; PSL=
if [ "$SHAPED" = 1 ]; then
    { echo "TS $(date +%s.%N)"; tc -s class show dev lo; } >> "$T/tc.txt"
    tc qdisc del dev lo root; SHAPED=0; echo "tc qdisc on lo removed"
fi
{ p "SHOW MASTER STATUS"; r "SHOW MASTER STATUS"; r "SHOW SLAVE STATUS\G"; } > "$T/after.txt"
cp "$PC" "$T/primary.my.cnf"; cp "$RC" "$T/replica.my.cnf"
for side in primary replica; do
    rm -rf "$CASE/capture/$side"; mkdir -p "$CASE/capture/$side"
    tar -C "$CASE/capture/$side" --strip-components=1 -xzf "$W/$side/capture.tar.gz"
    sh "$HERE/gz_big.sh" "$CASE/capture/$side"
done
rm -rf "$W"
du -sh "$CASE/capture/primary" "$CASE/capture/replica"
