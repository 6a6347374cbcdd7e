#!/bin/sh
# Capture one MariaDB durability case with samples/collect.sh (-M -P) against the private instance
# of mariadb_instance.sh.
# usage: run_mariadb.sh CASE_DIR SYNC_BINLOG FLUSH_LOG_AT_TRX_COMMIT BINLOG_WINDOW_S [LOAD_S] [CAPTURE_S]
set -eu
CASE=$1; SB=$2; TC=$3; WIN=$4; LOAD=${5:-60}; SECS=${6:-75}
HERE=$(cd "$(dirname "$0")" && pwd)
B=/var/tmp/iosift_db; CNF=$B/my.cnf; W=/var/tmp/iosift_cap
mkdir -p "$CASE/truth" "$W"
q() { mariadb --defaults-file="$CNF" -N -B -e "$1"; }
q "SET GLOBAL sync_binlog=$SB; SET GLOBAL innodb_flush_log_at_trx_commit=$TC; FLUSH BINARY LOGS; TRUNCATE bench.orders; TRUNCATE bench.audit;"
q "SHOW MASTER STATUS" > "$CASE/truth/binlog_before.txt"
sync; sleep 3
( i=0; while [ $i -lt $(( (SECS + 10) / 10 )) ]; do echo "TS $(date +%s.%N) $(date -u '+%F %T')";
  ps -eLo pid,tid,pcpu,comm --sort=-pcpu | head -12; sleep 10; i=$((i+1)); done ) > "$CASE/truth/ps-snapshots.txt" 2>&1 &
PSL=$!
rm -f "$W"/*.tar.gz
sh "$HERE/../collect.sh" -d "$SECS" -i 1 -n mariadbd -P -F 49 -M "--defaults-file=$CNF" -W "$WIN" -m 300 -w "$W" \
    -o "$W/capture.tar.gz" > "$CASE/truth/collect.stdout" 2>&1 &
CP=$!
sleep 5
echo "load_start $(date +%s.%N)" > "$CASE/truth/load_timeline.txt"
/usr/bin/python3 "$HERE/tiny_trx.py" --socket "$B/mariadb.sock" --threads 4 --duration "$LOAD" --out "$CASE/truth/tiny_trx" \
    > "$CASE/truth/tiny_trx.stdout" 2>&1
echo "load_end $(date +%s.%N)" >> "$CASE/truth/load_timeline.txt"
wait "$CP" || true
kill "$PSL" 2>/dev/null || true
q "SHOW MASTER STATUS" > "$CASE/truth/binlog_after.txt"
q "SHOW GLOBAL STATUS WHERE Variable_name IN ('Binlog_commits','Binlog_group_commits','Innodb_data_fsyncs','Innodb_os_log_written','Com_commit')" > "$CASE/truth/status_after.txt"
cp "$CNF" "$CASE/truth/my.cnf"
rm -rf "$CASE/capture"; mkdir -p "$CASE/capture"
tar -C "$CASE/capture" --strip-components=1 -xzf "$W/capture.tar.gz"
ls -la "$CASE/capture"
