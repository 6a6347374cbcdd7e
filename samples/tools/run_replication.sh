#!/bin/sh
# Capture one replication case on the replica of mariadb_pair.sh with samples/collect.sh.
# usage: run_replication.sh CASE_DIR P_SYNC_BINLOG P_TRX_COMMIT R_SYNC_BINLOG R_TRX_COMMIT R_SYNC_RELAY_LOG \
#                           [THREADS] [LOAD_S] [CAPTURE_S] [BINLOG_WINDOW_S]
#  P_*: the primary's sync_binlog / innodb_flush_log_at_trx_commit; R_*: the replica's, and its sync_relay_log.
#  Before the capture the replica catches up (relaxed settings, until it has read and executed all the primary wrote),
#  both servers rotate their binary logs, the replica's settings are applied (STOP/START SLAVE).  Then:
#  collect.sh -p REPLICA_PID -P -F 49 -M "--defaults-file=REPLICA_CNF" -W BINLOG_WINDOW_S, heartbeat.py for the whole
#  capture, and 5 s in tiny_trx.py --threads THREADS --duration LOAD_S on the primary.
#  The primary's own SHOW MASTER STATUS every second goes to truth/primary_positions.txt (the source's positions).
# Optional, by environment (issue 34, the rx_* cases); each is undone on exit, failure included (trap):
#  RX_SHAPE_KBIT=N     the primary's port shaped on lo with tc htb before the load: a class of N kbit for
#                      `sport 3310`, everything else at line rate (this kernel has no netem/prio); removed on exit
#  RX_PT_HEARTBEAT=1   pt-heartbeat --update on the primary (percona.heartbeat, every 1 s) for the whole capture
#  RX_SCAN_ROWS=N      the replica's apply made CPU-bound: bench.accounts grown to N rows on the primary (replicated),
#                      then on the replica only (sql_log_bin=0) rebuilt without its PRIMARY KEY, the 1000 rows the load
#                      updates stored last: each replicated UPDATE scans ~N rows; the key is restored on exit
#  RX_PAYLOAD=BYTES    tiny_trx.py --payload BYTES
#  RX_GDB_EVERY=N      collect.sh -G N: gdb thread stacks of the replica every N s (+ pt-pmp's aggregate)
#  RX_STOP_PAIR=1      stop both servers (mariadb_pair.sh stop: by their pid files) on exit
set -eu
CASE=$1; PSB=$2; PTC=$3; RSB=$4; RTC=$5; RSR=$6; THREADS=${7:-8}; LOAD=${8:-65}; SECS=${9:-75}; WIN=${10:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
B=/var/tmp/iosift_repl; PC=$B/primary/my.cnf; RC=$B/replica/my.cnf; W=/var/tmp/iosift_repl_cap
PY=/usr/bin/python3
mkdir -p "$CASE/truth" "$W"
p() { mariadb --defaults-file="$PC" -N -B -e "$1"; }
r() { mariadb --defaults-file="$RC" -N -B -e "$1"; }
SHAPED=0; PTHB=; SCANNED=0; POSL=; PSL=
cleanup() {
    set +e
    [ -z "$PSL" ] || kill "$PSL" 2>/dev/null
    [ -z "$PTHB" ] || { kill "$PTHB" 2>/dev/null; echo "pt-heartbeat (pid $PTHB) stopped"; }
    [ -z "$POSL" ] || kill "$POSL" 2>/dev/null
    if [ "$SHAPED" = 1 ]; then tc qdisc del dev lo root && echo "tc qdisc on lo removed"; fi
    if [ "$SCANNED" = 1 ]; then
        r "STOP SLAVE SQL_THREAD; SET SESSION sql_log_bin=0; ALTER TABLE bench.accounts ADD PRIMARY KEY (id);
           START SLAVE SQL_THREAD;" && echo "replica bench.accounts PRIMARY KEY restored"
    fi
    [ "${RX_STOP_PAIR:-0}" != 1 ] || sh "$HERE/mariadb_pair.sh" stop
}
trap cleanup EXIT
trap 'exit 1' INT TERM
caught_up() {  # the replica has read and executed everything the primary wrote
    pf=$(p "SHOW MASTER STATUS" | cut -f1); pp=$(p "SHOW MASTER STATUS" | cut -f2)
    r "SHOW SLAVE STATUS" | awk -F'\t' -v f="$pf" -v pos="$pp" '$6==f && $7==pos && $22==pos {ok=1} END {exit !ok}'
}
# 1. catch up with relaxed replica settings
r "SET GLOBAL sync_binlog=0; SET GLOBAL innodb_flush_log_at_trx_commit=2; SET GLOBAL sync_relay_log=0;"
i=0; until caught_up; do i=$((i + 1)); [ $i -lt 600 ] || { echo "replica did not catch up" >&2; exit 1; }; sleep 1; done
# 2. fresh binary logs on both, this case's settings
p "SET GLOBAL sync_binlog=$PSB; SET GLOBAL innodb_flush_log_at_trx_commit=$PTC; FLUSH BINARY LOGS;"
i=0; until caught_up; do i=$((i + 1)); [ $i -lt 60 ] || { echo "replica did not follow the rotation" >&2; exit 1; }; sleep 1; done
if [ -n "${RX_SCAN_ROWS:-}" ]; then
    p "INSERT IGNORE INTO bench.accounts (id, balance, updated) SELECT seq, 1000, NOW(6) FROM bench.seq_1001_to_$RX_SCAN_ROWS"
    i=0; until caught_up; do i=$((i + 1)); [ $i -lt 300 ] || { echo "replica did not catch up" >&2; exit 1; }; sleep 1; done
    SCANNED=1
    r "STOP SLAVE SQL_THREAD; SET SESSION sql_log_bin=0; DROP TABLE IF EXISTS bench.accounts_scan;
       CREATE TABLE bench.accounts_scan LIKE bench.accounts; ALTER TABLE bench.accounts_scan DROP PRIMARY KEY;
       INSERT INTO bench.accounts_scan SELECT * FROM bench.accounts WHERE id > 1000;
       INSERT INTO bench.accounts_scan SELECT * FROM bench.accounts WHERE id <= 1000;
       RENAME TABLE bench.accounts TO bench.accounts_pk, bench.accounts_scan TO bench.accounts;
       DROP TABLE bench.accounts_pk; START SLAVE SQL_THREAD;"
    r "SELECT COUNT(*) FROM bench.accounts" > "$CASE/truth/replica_accounts_rows.txt"
    r "SHOW CREATE TABLE bench.accounts\G" >> "$CASE/truth/replica_accounts_rows.txt"
fi
if [ -n "${RX_PT_HEARTBEAT:-}" ]; then
    p "CREATE DATABASE IF NOT EXISTS percona"
    pt-heartbeat -S "$B/primary/mariadb.sock" -u root -D percona --create-table --update --interval 1 \
        > "$CASE/truth/pt-heartbeat.log" 2>&1 &
    PTHB=$!
    i=0; until caught_up; do i=$((i + 1)); [ $i -lt 60 ] || { echo "replica did not follow" >&2; exit 1; }; sleep 1; done
fi
r "STOP SLAVE; SET GLOBAL sync_binlog=$RSB; SET GLOBAL innodb_flush_log_at_trx_commit=$RTC; SET GLOBAL sync_relay_log=$RSR;
   FLUSH BINARY LOGS; START SLAVE;"
sleep 2
{ echo "primary"; p "SELECT @@server_id, @@sync_binlog, @@innodb_flush_log_at_trx_commit"; p "SHOW MASTER STATUS";
  echo "replica"; r "SELECT @@server_id, @@sync_binlog, @@innodb_flush_log_at_trx_commit, @@sync_relay_log, @@sync_master_info, @@slave_parallel_threads, @@log_slave_updates";
  r "SHOW MASTER STATUS"; } > "$CASE/truth/settings_before.txt"
p "SHOW GLOBAL STATUS WHERE Variable_name IN ('Binlog_commits','Binlog_group_commits','Com_commit','Innodb_data_fsyncs')" > "$CASE/truth/primary_status_before.txt"
RPID=$(cat "$B/replica/mariadbd.pid"); PPID_=$(cat "$B/primary/mariadbd.pid")
echo "primary_pid $PPID_ replica_pid $RPID${PTHB:+ pt_heartbeat_pid $PTHB}" > "$CASE/truth/pids.txt"
if [ -n "${RX_SHAPE_KBIT:-}" ]; then
    SHAPED=1
    tc qdisc add dev lo root handle 1: htb default 10
    tc class add dev lo parent 1: classid 1:10 htb rate 10gbit ceil 10gbit burst 4m cburst 4m quantum 200000
    tc class add dev lo parent 1: classid 1:20 htb rate "${RX_SHAPE_KBIT}kbit" ceil "${RX_SHAPE_KBIT}kbit"
    tc filter add dev lo parent 1: protocol ip prio 1 u32 match ip sport 3310 0xffff flowid 1:20
    { echo "TS $(date +%s.%N)"; tc qdisc show dev lo; tc class show dev lo; tc filter show dev lo; } > "$CASE/truth/tc.txt"
fi
( while :; do echo "$(date +%s.%N) $(p "SHOW MASTER STATUS" | cut -f1,2)"; sleep 1; done ) > "$CASE/truth/primary_positions.txt" 2>&1 &
POSL=$!
sync; sleep 2
( i=0; while [ $i -lt $(( (SECS + 10) / 10 )) ]; do echo "TS $(date +%s.%N) $(date -u '+%F %T')";
  ps -eLo pid,tid,pcpu,comm --sort=-pcpu | head -14; sleep 10; i=$((i+1)); done ) > "$CASE/truth/ps-snapshots.txt" 2>&1 &
PSL=$!
rm -f "$W"/*.tar.gz
sh "$HERE/../collect.sh" -d "$SECS" -i 1 -p "$RPID" -P -F 49 -M "--defaults-file=$RC" -W "$WIN" -m 300 -w "$W" \
    ${RX_GDB_EVERY:+-G "$RX_GDB_EVERY"} \
    -o "$W/capture.tar.gz" > "$CASE/truth/collect.stdout" 2>&1 &
CP=$!
$PY "$HERE/heartbeat.py" --primary-socket "$B/primary/mariadb.sock" --replica-socket "$B/replica/mariadb.sock" \
    --duration "$SECS" --out "$CASE/truth/heartbeat" > "$CASE/truth/heartbeat.stdout" 2>&1 &
HB=$!
sleep 5
echo "load_start $(date +%s.%N)" > "$CASE/truth/load_timeline.txt"
$PY "$HERE/tiny_trx.py" --socket "$B/primary/mariadb.sock" --threads "$THREADS" --duration "$LOAD" --out "$CASE/truth/tiny_trx" \
    ${RX_PAYLOAD:+--payload "$RX_PAYLOAD"} \
    > "$CASE/truth/tiny_trx.stdout" 2>&1
echo "load_end $(date +%s.%N)" >> "$CASE/truth/load_timeline.txt"
wait "$CP" || true
wait "$HB" || true
kill "$PSL" 2>/dev/null || true
if [ "$SHAPED" = 1 ]; then tc -s class show dev lo >> "$CASE/truth/tc.txt"; tc qdisc del dev lo root; SHAPED=0; fi
kill "$POSL" 2>/dev/null || true; POSL=
p "SHOW GLOBAL STATUS WHERE Variable_name IN ('Binlog_commits','Binlog_group_commits','Com_commit','Innodb_data_fsyncs')" > "$CASE/truth/primary_status_after.txt"
{ p "SHOW MASTER STATUS"; r "SHOW MASTER STATUS"; } > "$CASE/truth/binlog_after.txt"
cp "$PC" "$CASE/truth/primary.my.cnf"; cp "$RC" "$CASE/truth/replica.my.cnf"
rm -rf "$CASE/capture"; mkdir -p "$CASE/capture"
tar -C "$CASE/capture" --strip-components=1 -xzf "$W/capture.tar.gz"
sh "$HERE/gz_big.sh" "$CASE/capture"
du -sh "$CASE/capture"
