#!/bin/sh
# The pt_stalk_mariadb and sar_mariadb captures: pt-stalk (Debian percona-toolkit 3.2.1) and a
# sysstat `sadc 1 120` run against a private MariaDB (mariadb_instance.sh with its own directory
# and port) while tiny_trx.py commits tiny transactions.
# usage: run_pt_stalk.sh PT_CASE_DIR SAR_CASE_DIR
# Needs: sysstat, percona-toolkit, mariadb-server, python3-pymysql, locales de_DE.UTF-8 ja_JP.UTF-8 en_US.UTF-8.
set -eu
PT=$1; SAR=$2
HERE=$(cd "$(dirname "$0")" && pwd)
export IOSIFT_DB_DIR=/var/tmp/iosift_ptstalk IOSIFT_DB_PORT=3320
B=$IOSIFT_DB_DIR; CNF=$B/my.cnf; W=/var/tmp/iosift_ptstalk_cap
rm -rf "$W"; mkdir -p "$W/pt" "$PT/truth" "$SAR"
sh "$HERE/mariadb_instance.sh" start
q() { mariadb --defaults-file="$CNF" -N -B -e "$1"; }
q "TRUNCATE bench.orders; TRUNCATE bench.audit; FLUSH BINARY LOGS;"
q "SHOW GLOBAL STATUS WHERE Variable_name IN ('Binlog_commits','Com_commit','Handler_commit','Com_insert','Com_update','Com_begin')" > "$PT/truth/status_before.txt"
sync; sleep 2
# sysstat's collector, every activity (XALL: disks and partitions, interrupts, ...), 120 s.
/usr/lib/sysstat/sadc -S XALL 1 120 "$W/sa.bin" &
SADC=$!
sleep 3
echo "load_start $(date +%s.%N)" > "$PT/truth/load_timeline.txt"
/usr/bin/python3 "$HERE/tiny_trx.py" --socket "$B/mariadb.sock" --threads 4 --duration 100 --out "$PT/truth/tiny_trx" \
    > "$PT/truth/tiny_trx.stdout" 2>&1 &
LOAD=$!
sleep 5
echo "pt_stalk_start $(date +%s.%N)" >> "$PT/truth/load_timeline.txt"
pt-stalk --no-stalk --iterations 2 --run-time 30 --sleep 35 --dest "$W/pt" --pid "$W/pt-stalk.pid" \
    --defaults-file "$CNF" > "$PT/truth/pt-stalk.stdout" 2>&1
echo "pt_stalk_end $(date +%s.%N)" >> "$PT/truth/load_timeline.txt"
wait "$LOAD"
echo "load_end $(date +%s.%N)" >> "$PT/truth/load_timeline.txt"
q "SHOW GLOBAL STATUS WHERE Variable_name IN ('Binlog_commits','Com_commit','Handler_commit','Com_insert','Com_update','Com_begin')" > "$PT/truth/status_after.txt"
wait "$SADC"
cp "$CNF" "$PT/truth/my.cnf"
sh "$HERE/mariadb_instance.sh" stop
rm -rf "$PT/capture"; mkdir -p "$PT/capture"; cp -a "$W/pt/." "$PT/capture/"
sh "$HERE/gz_big.sh" "$PT/capture"
# The sa file and its renderings: sar text in three locales (24 h) and en_US (12 h AM/PM),
# sadf -d (CSV), -p (one value a line) and -j (JSON), all from the same file.
A="-b -B -d -p -q -r ALL -u ALL -W -n DEV"
mkdir -p "$SAR/capture"; cp "$W/sa.bin" "$SAR/capture/sa.bin"
for L in C de_DE.UTF-8 ja_JP.UTF-8 en_US.UTF-8; do
    LC_ALL=$L sar $A -f "$W/sa.bin" > "$SAR/capture/sar_$(echo "$L" | cut -d. -f1).txt"
done
LC_ALL=C sar -d -f "$W/sa.bin" > "$SAR/capture/sar_d_nop_C.txt"
LC_ALL=C sar -A -f "$W/sa.bin" > "$SAR/capture/sar_A_C.txt"
LC_ALL=C sadf -d "$W/sa.bin" -- $A > "$SAR/capture/sadf_d.csv"
LC_ALL=C sadf -p "$W/sa.bin" -- $A > "$SAR/capture/sadf_p.txt"
LC_ALL=C sadf -j "$W/sa.bin" -- $A > "$SAR/capture/sadf_j.json"
sh "$HERE/gz_big.sh" "$SAR/capture"
ls -la "$PT/capture" "$SAR/capture"
