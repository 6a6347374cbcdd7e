#!/bin/sh
# iosift collector: bounded capture of Linux (and optionally MySQL/MariaDB) I/O evidence.
# POSIX sh; run as root on the affected host.  See samples/README.md for the full description.
#
#   collect.sh [-d SECONDS] [-i INTERVAL] [-m MAX_MB] [-o OUT.tar.gz] [-w WORKDIR]
#              [-p PID[,PID..] | -n NAME[,NAME..]] [-S SMAPS_EVERY_S] [-P [-R]] [-T] [-F PERF_HZ]
#              [-M "CLIENT OPTIONS"] [-W BINLOG_WINDOW_S] [-G GDB_EVERY_S] [-k]
#
# Every collector is bounded by a sample count (DURATION / INTERVAL); a watchdog stops them early
# when the output directory grows past MAX_MB, and INT/TERM stop them too.  The result is always
# one .tar.gz (unless -k keeps the directory as well).  Tools that are missing or fail are listed
# in SKIPPED.txt with the reason; nothing else aborts the capture.
#
# The collector watches its own cost: every COST_EVERY seconds the CPU time of each of its processes
# (/proc/PID/stat) goes to collector-cost.txt, and a tool over its budget (table BUDGETS below) is
# stopped, or restarted once in a safer mode (perf record -p of -R -> perf record -a), with an `event`
# line in the same file and on the terminal.  -P profiles system-wide (perf record -a) from the start and
# keeps the selected processes' samples (perf script/report --pid=): perf 6.1's -p spins in poll() as soon
# as one thread of its target exits (samples/README.md, "Why perf 6.1 spins with -p").  Test hook: IOSIFT_COLLECT_BUDGETS="NAME PCT WINDOW ACTION"
# lines are read before the table (first match wins), e.g. "perf-profile 1 10 restart" to make the
# watchdog act on an ordinary perf.

VERSION=1
DURATION=60
INTERVAL=1
MAX_MB=500
OUT=
WORKDIR=/var/tmp
PIDS=
NAMES=
SMAPS_EVERY=0
PERF=0
PERF_PER_PROCESS=0
TRACE=0
PERF_HZ=99
MYSQL=0
MYSQL_OPTS=
BINLOG_WINDOW=0
GDB_EVERY=0
KEEP=0

# The collector's own budgets, per process of collectors.pids (and collect.sh itself): the share of ONE
# CPU it may use, measured over WINDOW seconds, and what the watchdog does past it: restart (once, in the
# safer mode: only perf-profile has one), stop, or note (an event line, once).
#   name                 %CPU  window_s  action
BUDGETS='perf-profile           20  10  restart
perf-profile-a         20  10  stop
perf-trace             20  10  stop
pidstat                20  10  stop
iostat                 10  10  stop
vmstat                 10  10  stop
mysqladmin-ext         10  10  stop
mysqladmin-ts          10  10  stop
proc-loop              10  10  stop
smaps-loop             30  10  note
mysql-threads-loop     10  10  note
mysql-replication-loop 10  10  note
gdb-stacks            100  10  note
collect.sh             10  10  note'
COST_EVERY=5

usage() {
    cat <<'EOF'
usage: collect.sh [options]
  -d SECONDS   capture duration (default 60)
  -i SECONDS   sampling interval (default 1)
  -m MB        stop the collectors when the output directory exceeds MB (default 500)
  -o FILE      output tarball (default WORKDIR/iosift-HOST-YYYYmmdd_HHMMSS.tar.gz)
  -w DIR       work directory for the temporary output directory (default /var/tmp)
  -p PID,..    processes whose smaps / threads to capture (and to profile with -P)
  -n NAME,..   same, by exact process name (default: mysqld,mariadbd if running)
  -S SECONDS   take smaps every SECONDS (default 0: once at the start and once at the end)
  -P           perf profile: perf record -g -k CLOCK_MONOTONIC -F HZ -a (system-wide: ncpu x HZ
               samples/s), then perf script --header -F +pid,+tid and perf report, given --pid= of
               the selected processes (-p/-n) so the files keep only theirs
  -R           with -P and -p/-n: perf record -p PIDS instead of -a (fewer samples on hosts with many
               busy CPUs; perf 6.1 spins in poll() once a thread of the target exits: the watchdog
               then restarts it as -a)
  -T           perf trace: perf record -a -e block:block_rq_issue -e writeback:writeback_start
               (+ -e block:block_bio_queue -e writeback:writeback_written where the kernel has them)
  -F HZ        perf sampling frequency for -P (default 99)
  -M "OPTS"    MySQL/MariaDB: client options passed to mysql/mysqladmin, e.g.
               -M "--defaults-file=/etc/mysql/debian.cnf" or -M "-uroot -S /run/mysqld/mysqld.sock"
  -W SECONDS   decode only the first SECONDS of the binlog window (default 0: the whole capture)
  -G SECONDS   thread stacks of the selected processes every SECONDS with pt-stalk --collect-gdb's command
               (gdb -ex "set pagination 0" -ex "thread apply all bt" --batch -p PID), each snapshot after a
               TS line, into PREFIX-stacktrace; at the end pt-pmp's aggregate of them into PREFIX-pmp (when
               pt-pmp is installed). gdb stops the process while it reads the stacks (about 0.1-1 s each):
               use a few snapshots, not a profile (default 0: none)
  -k           keep the output directory next to the tarball
  -h           this help
The collector's own CPU is recorded every 5 s in collector-cost.txt; a tool over its budget (table
BUDGETS in the script; perf: 20 % of one CPU over 10 s) is stopped, or for -P -R restarted once as
perf record -a. Test hook: IOSIFT_COLLECT_BUDGETS="NAME PCT WINDOW ACTION" overrides a budget.
EOF
}

while getopts d:i:m:o:w:p:n:S:PRTF:M:W:G:kh opt; do
    case $opt in
        d) DURATION=$OPTARG ;;
        i) INTERVAL=$OPTARG ;;
        m) MAX_MB=$OPTARG ;;
        o) OUT=$OPTARG ;;
        w) WORKDIR=$OPTARG ;;
        p) PIDS=$(printf '%s' "$OPTARG" | tr ',' ' ') ;;
        n) NAMES=$(printf '%s' "$OPTARG" | tr ',' ' ') ;;
        S) SMAPS_EVERY=$OPTARG ;;
        P) PERF=1 ;;
        R) PERF_PER_PROCESS=1 ;;
        T) TRACE=1 ;;
        F) PERF_HZ=$OPTARG ;;
        M) MYSQL=1; MYSQL_OPTS=$OPTARG ;;
        W) BINLOG_WINDOW=$OPTARG ;;
        G) GDB_EVERY=$OPTARG ;;
        k) KEEP=1 ;;
        h) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done

is_uint() { case $1 in ''|*[!0-9]*) return 1 ;; *) return 0 ;; esac; }
for v in "$DURATION" "$INTERVAL" "$MAX_MB" "$SMAPS_EVERY" "$PERF_HZ" "$BINLOG_WINDOW" "$GDB_EVERY"; do
    is_uint "$v" || { echo "collect.sh: '$v' is not a whole number" >&2; exit 2; }
done
[ "$INTERVAL" -ge 1 ] || { echo "collect.sh: interval must be >= 1" >&2; exit 2; }
[ "$DURATION" -ge "$INTERVAL" ] || { echo "collect.sh: duration must be >= interval" >&2; exit 2; }
COUNT=$((DURATION / INTERVAL))

# Stable, parseable output: C numbers, ISO dates in sysstat, UTC-independent epoch stamps below.
LC_ALL=C
export LC_ALL
unset LANG LANGUAGE 2>/dev/null

HOST=$(uname -n 2>/dev/null || echo host)
STAMP=$(date +%Y%m%d_%H%M%S)
PREFIX=$(date +%Y_%m_%d_%H_%M_%S)
NAME=iosift-$HOST-$STAMP
[ -n "$OUT" ] || OUT=$WORKDIR/$NAME.tar.gz
D=$WORKDIR/$NAME
mkdir -p "$D" || { echo "collect.sh: cannot create $D" >&2; exit 1; }
SKIPPED=$D/SKIPPED.txt
: > "$SKIPPED"
CHILDREN=
STOPPED=0
FINISHED=0

have() { command -v "$1" >/dev/null 2>&1; }
skip() { echo "$*" >> "$SKIPPED"; }
log() { echo "$*" >> "$D/collect.log"; }
ts() { date +"TS %s.%N %F %T"; }
epoch() { date +%s.%N; }
mark() { echo "$1 $(epoch) $(date -u '+%F %T')" >> "$D/timeline.txt"; }
bg() { CHILDREN="$CHILDREN $1"; echo "$1 $2" >> "$D/collectors.pids"; }
tracepoint_available() {  # SUBSYS:NAME: in tracefs (either mount point) or, if tracefs is not mounted, in perf list
    for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
        [ -d "$t/events/${1%%:*}/${1#*:}" ] && return 0
    done
    perf list "$1" 2>/dev/null | grep -q "^ *$1 "
}

epoch_minus_mono() {
    # prefer python3 (time.time() - time.monotonic(): CLOCK_MONOTONIC exactly, what perf -k uses)
    if have python3 && python3 -c 'import time' >/dev/null 2>&1; then
        python3 -c 'import time; print("epoch_minus_CLOCK_MONOTONIC %.6f method=python3 time.time()-time.monotonic()" % (time.time() - time.monotonic()))'
    else
        # /proc/uptime is CLOCK_BOOTTIME (= MONOTONIC + time suspended), 10 ms resolution
        awk -v now="$(date +%s.%N)" '{ printf "epoch_minus_CLOCK_MONOTONIC %.6f method=proc_uptime date+%%s.%%N-/proc/uptime (CLOCK_BOOTTIME, 10 ms resolution, wrong by suspend time)\n", now - $1 }' /proc/uptime
    fi
}

# ---------------------------------------------------------------- process selection
if [ -z "$PIDS" ]; then
    [ -n "$NAMES" ] || NAMES="mysqld mariadbd"
    for n in $NAMES; do
        if have pgrep; then
            PIDS="$PIDS $(pgrep -x "$n" | tr '\n' ' ')"
        else
            for p in /proc/[0-9]*; do
                [ "$(cat "$p/comm" 2>/dev/null)" = "$n" ] && PIDS="$PIDS ${p#/proc/}"
            done
        fi
    done
fi
GOOD=
for p in $PIDS; do
    if [ -d "/proc/$p" ]; then GOOD="$GOOD $p"; else skip "smaps/perf of pid $p: no such process"; fi
done
PIDS=${GOOD# }
[ -n "$PIDS" ] || skip "smaps: no process selected (-p/-n) and no mysqld/mariadbd running"

# ---------------------------------------------------------------- one-shot context
section() { echo "### $*"; }
sysinfo() {
    {
        section "date"; date; date -u '+%FT%T.%NZ'; echo "epoch $(epoch)"
        section "collector"; echo "iosift collect.sh version $VERSION args: $ARGS"
        section "uname -a"; uname -a
        section "/etc/os-release"; cat /etc/os-release 2>/dev/null
        section "nproc"; nproc 2>/dev/null || grep -c ^processor /proc/cpuinfo
        section "lsblk"; lsblk -o NAME,MAJ:MIN,SIZE,TYPE,ROTA,RA,MOUNTPOINT,FSTYPE 2>/dev/null
        section "/sys/block/*/bdi/read_ahead_kb"; grep -H . /sys/block/*/bdi/read_ahead_kb 2>/dev/null
        section "/proc/mdstat"; cat /proc/mdstat 2>/dev/null
        section "dmsetup table"; dmsetup table 2>/dev/null
        section "/proc/pressure/io"; cat /proc/pressure/io 2>/dev/null
        section "perf_event_paranoid"; cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null
        section "locale (of the collector)"; locale 2>/dev/null
        section "tool versions"
        iostat -V 2>&1 | head -1; vmstat -V 2>&1 | head -1; perf --version 2>&1
        for t in mysqld mariadbd mysql mariadb; do have $t && $t --version 2>&1 | head -1; done
    } > "$D/system-info.txt" 2>&1
    uname -a > "$D/uname-a.txt"
    uname -r > "$D/uname-r.txt"
    cat /proc/mounts > "$D/proc-mounts.txt"
    if have findmnt; then
        findmnt -rno TARGET,SOURCE,FSTYPE,OPTIONS > "$D/findmnt.txt" 2>&1
    else
        skip "findmnt.txt: findmnt not installed (proc-mounts.txt has the same data)"
    fi
    if have sysctl; then sysctl vm > "$D/sysctl-vm.txt" 2>&1; else
        for f in /proc/sys/vm/*; do printf 'vm.%s = %s\n' "${f##*/}" "$(cat "$f" 2>/dev/null)"; done > "$D/sysctl-vm.txt"
        skip "sysctl: not installed, sysctl-vm.txt read from /proc/sys/vm"
    fi
    grep -H . /sys/block/*/queue/* > "$D/sys-block-queue.txt" 2>/dev/null
    # The block stack: each device's major:minor, its partitions, what it is built on
    # (dm/md slaves, holders) and a loop device's backing file.
    grep -H . /sys/block/*/dev /sys/block/*/*/dev /sys/block/*/slaves/*/dev /sys/block/*/holders/*/dev \
        /sys/block/*/loop/backing_file > "$D/sys-block-stack.txt" 2>/dev/null
    {
        for f in /sys/kernel/mm/transparent_hugepage/* /sys/kernel/mm/transparent_hugepage/*/* /sys/kernel/mm/transparent_hugepage/khugepaged/*; do
            [ -f "$f" ] && printf '%s:%s\n' "$f" "$(cat "$f" 2>/dev/null)"
        done
    } > "$D/thp.txt"
    if ls /proc/fs/ext4/*/options >/dev/null 2>&1; then
        grep -H . /proc/fs/ext4/*/options > "$D/ext4-options.txt" 2>&1
    else
        skip "ext4-options.txt: no ext4 file system mounted (/proc/fs/ext4/*/options absent)"
    fi
    ls /proc/fs/xfs >/dev/null 2>&1 && grep -H . /proc/fs/xfs/stat > "$D/xfs-stat.txt" 2>/dev/null
    { ts; cat /proc/meminfo; } > "$D/meminfo-start.txt"
}

# ---------------------------------------------------------------- smaps of the selected processes
smaps_snapshot() {  # smaps_snapshot LABEL
    for p in $PIDS; do
        [ -r "/proc/$p/smaps" ] || { log "smaps $1: /proc/$p/smaps not readable"; continue; }
        c=$(tr ' /' '__' < "/proc/$p/comm" 2>/dev/null)
        { ts; cat "/proc/$p/smaps"; } >> "$D/smaps-$p-$c.txt" 2>/dev/null
        { ts; cat "/proc/$p/smaps_rollup"; } >> "$D/smaps_rollup-$p-$c.txt" 2>/dev/null
        {
            ts
            for t in /proc/"$p"/task/*; do printf '%s %s %s\n' "$p" "${t##*/}" "$(cat "$t/comm" 2>/dev/null)"; done
        } >> "$D/threads-$p-$c.txt"
    done
}

# ---------------------------------------------------------------- MySQL / MariaDB helpers
MYSQL_CLIENT=; MYSQL_ADMIN=; MYSQL_BINLOG=
mysql_q() {  # mysql_q SQL  (tab separated, with header)
    # shellcheck disable=SC2086   # MYSQL_OPTS is a list of client options on purpose
    $MYSQL_CLIENT $MYSQL_OPTS -B -e "$1"
}
mysql_status_pos() {  # prints "FILE POS" of the current binlog
    mysql_q "SHOW MASTER STATUS" 2>/dev/null | awk 'NR==2 {print $1, $2}'
}
mysqladmin_start() {  # mysqladmin ext -i INTERVAL -c COUNT, each table after a TS line: when it was read
    # (mysqladmin prints no time; a reading's time from the file name's second plus index x interval is off
    # by mysqladmin's start lag and its drift: -i sleeps INTERVAL after each reading). The stamper reads
    # mysqladmin's output through a FIFO, so both are collectors of their own (cost, watchdog):
    # "TS 1796538064.634748665 2026-12-06 06:21:04" before "| Variable_name | Value |".
    fifo=$D/mysqladmin.fifo
    if mkfifo "$fifo" 2>/dev/null; then
        awk '/^\| Variable_name / || /^Variable_name\t/ {
                 fflush(); c = "date +\"%s.%N %F %T\""; c | getline t; close(c); print "TS " t }
             { print }' < "$fifo" > "$D/$PREFIX-mysqladmin" 2>> "$D/mysql.err" &
        bg $! mysqladmin-ts
        # shellcheck disable=SC2086
        $MYSQL_ADMIN $MYSQL_OPTS ext -i"$INTERVAL" -c"$COUNT" > "$fifo" 2>> "$D/mysql.err" &
        bg $! mysqladmin-ext
    else
        skip "PREFIX-mysqladmin: mkfifo failed; readings without TS lines (timed from the file name)"
        # shellcheck disable=SC2086
        $MYSQL_ADMIN $MYSQL_OPTS ext -i"$INTERVAL" -c"$COUNT" > "$D/$PREFIX-mysqladmin" 2>> "$D/mysql.err" &
        bg $! mysqladmin-ext
    fi
}
mysql_start() {
    for c in mysql mariadb; do have $c && { MYSQL_CLIENT=$c; break; }; done
    for c in mysqladmin mariadb-admin; do have $c && { MYSQL_ADMIN=$c; break; }; done
    for c in mysqlbinlog mariadb-binlog; do have $c && { MYSQL_BINLOG=$c; break; }; done
    if [ -z "$MYSQL_CLIENT" ]; then skip "mysql: no mysql/mariadb client installed"; MYSQL=0; return; fi
    if ! mysql_q "SELECT 1" > /dev/null 2> "$D/mysql-connect.err"; then
        skip "mysql: cannot connect with options '$MYSQL_OPTS' ($(head -1 "$D/mysql-connect.err"))"
        MYSQL=0; return
    fi
    rm -f "$D/mysql-connect.err"
    mysql_q "SHOW GLOBAL VARIABLES" > "$D/mysql-variables.tsv" 2>> "$D/mysql.err"
    mysql_q "SELECT THREAD_ID, NAME, TYPE, PROCESSLIST_ID, PROCESSLIST_USER, PROCESSLIST_COMMAND, THREAD_OS_ID FROM performance_schema.threads ORDER BY THREAD_OS_ID" \
        > "$D/mysql-threads.tsv" 2>> "$D/mysql.err" || skip "mysql-threads.tsv: performance_schema.threads not readable (performance_schema=OFF?)"
    mysql_q "SHOW BINARY LOGS" > "$D/mysql-binary-logs-start.tsv" 2>> "$D/mysql.err" || skip "mysql-binary-logs: SHOW BINARY LOGS failed (binary log disabled?)"
    BINLOG_START=$(mysql_status_pos)
    BINLOG_START_TIME=$(date '+%F %T')
    echo "binlog_start ${BINLOG_START:-none} $(epoch) $BINLOG_START_TIME" >> "$D/timeline.txt"
    if [ -n "$MYSQL_ADMIN" ]; then
        mysqladmin_start
    else
        skip "mysqladmin: no mysqladmin/mariadb-admin installed"
    fi
    mysql_threads_loop &
    bg $! mysql-threads-loop
    mysql_repl_probe
    if [ -n "$REPL_Q$SOURCE_Q$HB_TABLE" ]; then
        mysql_repl_loop &
        bg $! mysql-replication-loop
    fi
}
REPL_Q=; SOURCE_Q=; HB_TABLE=
mysql_repl_probe() {  # which replica / source status statements this server answers
    # MariaDB: SHOW ALL SLAVES STATUS (every connection); MySQL >= 8.0.22: SHOW REPLICA STATUS; older: SHOW SLAVE STATUS.
    for q in "SHOW ALL SLAVES STATUS" "SHOW REPLICA STATUS" "SHOW SLAVE STATUS"; do
        out=$(mysql_q "$q" 2>/dev/null) || continue
        [ -n "$out" ] && REPL_Q=$q
        break  # answered: a replica (rows) or not one (empty)
    done
    [ -n "$REPL_Q" ] || skip "PREFIX-slave-status: not a replica (no replication connection configured)"
    # MySQL >= 8.4: SHOW BINARY LOG STATUS; older and MariaDB: SHOW MASTER STATUS. A row when the binary log is on.
    for q in "SHOW MASTER STATUS" "SHOW BINARY LOG STATUS"; do
        out=$(mysql_q "$q" 2>/dev/null) || continue
        [ -n "$out" ] && SOURCE_Q=$q
        break
    done
    [ -n "$SOURCE_Q" ] || skip "PREFIX-master-status: binary log disabled (not a source)"
    # pt-heartbeat's table (any schema, named heartbeat, with its ts/server_id/file/position columns): its rows carry
    # the source's clock; read with this server's clock every interval they measure the lag from the source's side.
    HB_TABLE=$(mysql_q "SELECT CONCAT('\`', TABLE_SCHEMA, '\`.\`', TABLE_NAME, '\`') FROM information_schema.COLUMNS
        WHERE TABLE_NAME = 'heartbeat' AND COLUMN_NAME IN ('ts', 'server_id', 'file', 'position')
        GROUP BY TABLE_SCHEMA, TABLE_NAME HAVING COUNT(*) = 4 ORDER BY TABLE_SCHEMA LIMIT 1" 2>/dev/null | awk 'NR==2')
    [ -n "$HB_TABLE" ] || skip "PREFIX-heartbeat: no pt-heartbeat table (heartbeat with ts, server_id, file, position)"
    log "replication status: '${REPL_Q:-none}', binary log status: '${SOURCE_Q:-none}', heartbeat table: '${HB_TABLE:-none}'"
}
mysql_repl_loop() {  # every interval, pt-stalk style: TS line, then SHOW ... STATUS\G / SHOW MASTER STATUS
    i=0
    while [ "$i" -lt "$COUNT" ]; do
        t=$(ts)
        if [ -n "$REPL_Q" ]; then
            { echo "$t"; mysql_q "$REPL_Q\\G"; } >> "$D/$PREFIX-slave-status" 2>> "$D/mysql.err"
        fi
        if [ -n "$SOURCE_Q" ]; then
            { echo "$t"; mysql_q "$SOURCE_Q"; } >> "$D/$PREFIX-master-status" 2>> "$D/mysql.err"
        fi
        if [ -n "$HB_TABLE" ]; then
            { echo "$t"; mysql_q "SELECT UNIX_TIMESTAMP(NOW(6)) AS server_epoch, NOW(6) AS server_now,
                UTC_TIMESTAMP(6) AS server_utc, hb.* FROM $HB_TABLE hb"; } >> "$D/$PREFIX-heartbeat" 2>> "$D/mysql.err"
        fi
        i=$((i + 1))
        sleep "$INTERVAL"
    done
}
mysql_threads_loop() {  # performance_schema.threads every 15 s: connections come and go
    i=15
    while [ "$i" -lt "$DURATION" ]; do
        sleep 15
        mysql_q "SELECT THREAD_ID, NAME, TYPE, PROCESSLIST_ID, PROCESSLIST_USER, PROCESSLIST_COMMAND, THREAD_OS_ID FROM performance_schema.threads ORDER BY THREAD_OS_ID" \
            > "$D/mysql-threads-t$(printf '%04d' "$i")s.tsv" 2>> "$D/mysql.err"
        i=$((i + 15))
    done
}
mysql_finish() {
    [ "$MYSQL" = 1 ] || return 0
    rm -f "$D/mysqladmin.fifo"
    mysql_q "SELECT THREAD_ID, NAME, TYPE, PROCESSLIST_ID, PROCESSLIST_USER, PROCESSLIST_COMMAND, THREAD_OS_ID FROM performance_schema.threads ORDER BY THREAD_OS_ID" \
        > "$D/mysql-threads-end.tsv" 2>> "$D/mysql.err"
    mysql_q "SHOW BINARY LOGS" > "$D/mysql-binary-logs-end.tsv" 2>> "$D/mysql.err"
    end=$(mysql_status_pos)
    echo "binlog_end ${end:-none} $(epoch) $(date '+%F %T')" >> "$D/timeline.txt"
    if [ -z "$BINLOG_START" ] || [ -z "$end" ]; then skip "binlog decode: no binary log position"; return 0; fi
    if [ -z "$MYSQL_BINLOG" ]; then skip "binlog decode: no mysqlbinlog/mariadb-binlog installed"; return 0; fi
    base=$(awk -F'\t' '$1=="log_bin_basename" {print $2}' "$D/mysql-variables.tsv")
    dir=$(dirname "${base:-/nonexistent/x}")
    sfile=${BINLOG_START% *}; spos=${BINLOG_START#* }
    efile=${end% *}; epos=${end#* }
    stopt=
    if [ "$BINLOG_WINDOW" -gt 0 ]; then
        stop=$(date -d "@$(( $(date -d "$BINLOG_START_TIME" +%s) + BINLOG_WINDOW ))" '+%F %T' 2>/dev/null)
        [ -n "$stop" ] && stopt="--stop-datetime=$stop"
    fi
    # every binlog from the start file to the end file (SHOW BINARY LOGS order)
    files=$(awk -F'\t' -v s="$sfile" -v e="$efile" 'NR>1 { if ($1==s) on=1; if (on) print $1; if ($1==e) on=0 }' "$D/mysql-binary-logs-end.tsv")
    for f in $files; do
        if [ ! -r "$dir/$f" ]; then skip "binlog decode: $dir/$f not readable from this host"; continue; fi
        from=4; to=
        [ "$f" = "$sfile" ] && from=$spos
        [ "$f" = "$efile" ] && to="--stop-position=$epos"
        # shellcheck disable=SC2086
        $MYSQL_BINLOG --base64-output=decode-rows -vv --start-position="$from" $to ${stopt:+"$stopt"} "$dir/$f" 2>> "$D/mysql.err" \
            | gzip -6 > "$D/binlog-$f-decoded.txt.gz"
        echo "binlog_decoded $f from $from ${to:-to_end} ${stopt:-whole_window}" >> "$D/timeline.txt"
    done
}

# ---------------------------------------------------------------- sampling loop for /proc files
proc_loop() {
    i=0
    while [ "$i" -lt "$COUNT" ]; do
        t=$(ts)
        { echo "$t"; cat /proc/meminfo; } >> "$D/$PREFIX-meminfo"
        { echo "$t"; cat /proc/vmstat; } >> "$D/$PREFIX-procvmstat"
        { echo "$t"; cat /proc/diskstats; } >> "$D/$PREFIX-diskstats"
        [ -r /proc/pressure/io ] && { echo "$t"; cat /proc/pressure/io; } >> "$D/$PREFIX-pressure-io"
        i=$((i + 1))
        sleep "$INTERVAL"
    done
}
smaps_loop() {
    i=0
    while [ "$i" -lt "$DURATION" ]; do
        sleep "$SMAPS_EVERY"; i=$((i + SMAPS_EVERY))
        [ "$i" -lt "$DURATION" ] && smaps_snapshot periodic
    done
}

# ---------------------------------------------------------------- thread stacks (gdb, pt-pmp)
gdb_loop() {  # pt-stalk --collect-gdb's command every GDB_EVERY s; no snapshot starts in the last 3 s
    end=$((START_S + DURATION - 3))
    tmo=
    have timeout && tmo="timeout 30"
    while [ "$(date +%s)" -lt "$end" ]; do
        for p in $PIDS; do
            # shellcheck disable=SC2086   # tmo is a command prefix or nothing
            { ts; $tmo gdb -ex "set pagination 0" -ex "thread apply all bt" --batch -p "$p"; } \
                >> "$D/$PREFIX-stacktrace" 2>> "$D/gdb.err"
        done
        sleep "$GDB_EVERY"
    done
}
pmp_finish() {  # pt-pmp's aggregate of the saved snapshots (its own awk: one line per distinct stack)
    [ -s "$D/$PREFIX-stacktrace" ] || return 0
    if have pt-pmp; then
        pt-pmp "$D/$PREFIX-stacktrace" > "$D/$PREFIX-pmp" 2>> "$D/gdb.err"
    else
        skip "PREFIX-pmp: pt-pmp not installed (percona-toolkit); PREFIX-stacktrace has the stacks"
    fi
}

# ---------------------------------------------------------------- perf profile (-P)
perf_profile_start() {  # perf_profile_start TARGET SECONDS NAME: perf record into perf-profile.data
    # (timeline.txt: "perf_profile target -a keep_pids 1234 hz 49 name perf-profile 1796535261.123")
    # shellcheck disable=SC2086   # TARGET is "-a" or "-p PID,PID"
    perf record -g -k CLOCK_MONOTONIC -F "$PERF_HZ" $1 -o "$D/perf-profile.data" -- sleep "$2" \
        > "$D/perf-profile.record.log" 2>&1 &
    bg $! "$3"
    # the pids whose samples perf script/report keep ("all" when none is selected, or for -p which has no others)
    keep=all
    [ "$1" = "-a" ] && [ -n "$PIDS" ] && keep=$(echo "$PIDS" | tr ' ' ',')
    echo "perf_profile target $1 keep_pids $keep hz $PERF_HZ name $3 $(epoch)" >> "$D/timeline.txt"
}
perf_profile_finish() {  # perf script + report of each perf-profile*.data (-a runs filtered to the selected pids)
    for data in "$D"/perf-profile*.data; do
        [ -f "$data" ] || continue
        base=${data%.data}
        filter=
        # the system-wide run (from the start, or the one that replaced a -R run): only the selected
        # processes' samples are kept
        [ "$base" = "$D/perf-profile" ] && [ "$PROFILE_TARGET" = "-a" ] && [ -n "$PIDS" ] \
            && filter="--pid=$(echo "$PIDS" | tr ' ' ',')"
        # shellcheck disable=SC2086   # filter is one option or nothing
        perf script --header -F +pid,+tid $filter -i "$data" 2> "$base.script.err" | gzip -6 > "$base.script.txt.gz"
        # shares relative to the kept samples (as a -p run's): --percentage relative
        # shellcheck disable=SC2086
        perf report -i "$data" $filter --percentage relative --stdio --no-children --sort pid,comm,sym -g none --percent-limit 1 \
            > "$base.report.txt" 2>/dev/null
        rm -f "$data"
    done
}

# ---------------------------------------------------------------- the collector's own cost and budgets
# collector-cost.txt (documented in samples/README.md and docs/formats.md): `cpu` rows, the cumulative CPU
# ticks of each collector process every COST_EVERY s, and `event` rows, what the watchdog did.
COST=
PROFILE_TARGET=
NOTED=
cost_start() {
    COST=$D/collector-cost.txt
    tck=$(getconf CLK_TCK 2>/dev/null) || tck=100
    is_uint "$tck" && [ "$tck" -gt 0 ] || tck=100
    ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc 2>/dev/null || echo 1)
    {
        echo "# iosift collector cost v1"
        echo "# clk_tck $tck ncpu $ncpu every_s $COST_EVERY main_pid $$"
        echo "# cpu EPOCH PID NAME STATE UTIME STIME CUTIME CSTIME"
        echo "# event EPOCH PID NAME ACTION SHARE_PCT BUDGET_PCT WINDOW_S TEXT"
    } > "$COST"
    : >> "$D/collectors.pids"
    CLK_TCK=$tck
}
cost_sample() {  # one cpu row per live collector process (+ collect.sh); prints "PID NAME SHARE BUDGET WINDOW ACTION" past budget
    budgets=$(printf '%s\n%s\n' "${IOSIFT_COLLECT_BUDGETS:-}" "$BUDGETS" | tr '\n' ';')
    awk -v now="$(epoch)" -v tck="$CLK_TCK" -v me="$$" -v kids="$CHILDREN" -v rec="$COST" \
        -v pidsf="$D/collectors.pids" -v budgets="$budgets" '
        BEGIN { n = split(budgets, b, ";")
                for (i = 1; i <= n; i++) if (split(b[i], f, " ") >= 4 && !(f[1] in bud)) {
                    bud[f[1]] = f[2]; win[f[1]] = f[3]; act[f[1]] = f[4] } }
        FILENAME == pidsf { name[$1] = $2; next }
        $1 == "cpu" { hist[$3] = hist[$3] " " $2 ":" ($6 + $7 + ($3 == me ? 0 : $8 + $9)) }
        END {
            name[me] = "collect.sh"
            n = split(kids " " me, p, " ")
            for (i = 1; i <= n; i++) {
                pid = p[i]; sf = "/proc/" pid "/stat"; line = ""
                if ((getline line < sf) <= 0) { close(sf); continue }
                close(sf)
                sub(/^.*\) /, "", line); split(line, s, " ")
                nm = (pid in name) ? name[pid] : "unknown"
                printf "cpu %s %s %s %s %s %s %s %s\n", now, pid, nm, s[1], s[12], s[13], s[14], s[15] >> rec
                ticks = s[12] + s[13] + (pid == me ? 0 : s[14] + s[15])
                if (!(nm in bud)) continue
                # the newest earlier sample at least WINDOW - 1 s old
                t0 = ""; m = split(hist[pid], h, " ")
                for (j = 1; j <= m; j++) { split(h[j], e, ":"); if (e[1] <= now - win[nm] + 1) { t0 = e[1]; k0 = e[2] } }
                if (t0 == "" || now <= t0) continue
                share = (ticks - k0) / tck / (now - t0) * 100
                if (share > bud[nm]) printf "%s %s %.1f %s %s %s\n", pid, nm, share, bud[nm], win[nm], act[nm]
            }
        }' "$D/collectors.pids" "$COST"
}
cost_event() {  # cost_event PID NAME ACTION SHARE BUDGET WINDOW TEXT
    e=$(epoch)
    echo "event $e $1 $2 $3 $4 $5 $6 $7" >> "$COST"
    echo "collector_$3 $e $(date -u '+%F %T') $2 pid $1 at $4 % of one CPU over $6 s (budget $5 %)" >> "$D/timeline.txt"
    log "watchdog: $2 (pid $1) used $4 % of one CPU over $6 s, budget $5 %: $3 ($7)"
}
stop_pid() {  # stop_pid PID: INT (perf writes its data), then TERM after 2 s
    kill -INT "$1" 2>/dev/null
    n=0
    while kill -0 "$1" 2>/dev/null && [ "$n" -lt 20 ]; do sleep 0.1 2>/dev/null || sleep 1; n=$((n + 1)); done
    kill -TERM "$1" 2>/dev/null
    wait "$1" 2>/dev/null
    GOOD=
    for c in $CHILDREN; do [ "$c" = "$1" ] || GOOD="$GOOD $c"; done
    CHILDREN=$GOOD
}
over_budget() {  # over_budget PID NAME SHARE BUDGET WINDOW ACTION
    action=$6
    # a profile that is system-wide already has no safer mode: stopped
    [ "$action" = restart ] && [ "$PROFILE_TARGET" = "-a" ] && action=stop
    case $action in
        restart)
            stop_pid "$1"
            mv "$D/perf-profile.data" "$D/perf-profile-1.data" 2>/dev/null
            mv "$D/perf-profile.record.log" "$D/perf-profile-1.record.log" 2>/dev/null
            left=$((START_S + DURATION - $(date +%s)))
            if [ "$left" -gt 1 ]; then
                PROFILE_TARGET=-a
                perf_profile_start -a "$left" perf-profile-a
                cost_event "$1" "$2" restarted "$3" "$4" "$5" "perf record -g -F $PERF_HZ -p stopped; restarted as perf record -g -F $PERF_HZ -a for ${left} s (samples of pids $PIDS kept)"
            else
                cost_event "$1" "$2" stopped "$3" "$4" "$5" "stopped ${left} s before the end; not restarted"
            fi
            ;;
        stop)
            stop_pid "$1"
            cost_event "$1" "$2" stopped "$3" "$4" "$5" "stopped for the rest of the capture"
            ;;
        *)
            case " $NOTED " in *" $1 "*) return 0 ;; esac
            NOTED="$NOTED $1"
            cost_event "$1" "$2" noted "$3" "$4" "$5" "over budget; left running"
            ;;
    esac
}
cost_watch() {  # cost_watch: one sample, and the budget actions it calls for
    over=$(cost_sample)
    [ -n "$over" ] || return 0
    while read -r pid nm share budget window action; do
        over_budget "$pid" "$nm" "$share" "$budget" "$window" "$action"
    done <<EOF
$over
EOF
}
cost_summary() {  # the collector's cost on the terminal: CPU seconds and share of one CPU per process, events
    [ -s "$COST" ] || return 0
    awk -v me="$$" '
        $1 == "cpu" { k = $3; t = $6 + $7 + ($3 == me ? 0 : $8 + $9)
                      if (!(k in t0)) { t0[k] = $2; k0[k] = t; nm[k] = $4; order[++n] = k }
                      t1[k] = $2; k1[k] = t }
        $1 == "event" { ev[++ne] = $0 }
        $1 == "#" && $2 == "clk_tck" { tck = $3 }
        END {
            if (tck == "") tck = 100
            printf "collect.sh: collector cost (CPU s / share of one CPU between its first and last sample):"
            for (i = 1; i <= n; i++) { k = order[i]; d = t1[k] - t0[k]; share = 0
                if (d > 0) share = (k1[k] - k0[k]) / tck / d * 100
                printf " %s %.2f s / %.1f %%", nm[k], (k1[k] - k0[k]) / tck, share }
            printf "\n"
            for (i = 1; i <= ne; i++) { split(ev[i], f, " ")
                printf "collect.sh: WATCHDOG %s %s (pid %s): %s %% of one CPU over %s s, budget %s %%\n", f[5], f[4], f[3], f[6], f[8], f[7] }
        }' "$COST"
}

# ---------------------------------------------------------------- stop / finish
stop_children() {  # stop_children WHY
    [ "$STOPPED" = 1 ] && return 0
    STOPPED=1
    log "stopping collectors: $1"
    mark "collectors_stopped_$1"
    for p in $CHILDREN; do kill -INT "$p" 2>/dev/null; done
    sleep 1
    for p in $CHILDREN; do kill -TERM "$p" 2>/dev/null; done
}
finish() {
    [ "$FINISHED" = 1 ] && return 0
    FINISHED=1
    trap '' INT TERM
    wait 2>/dev/null
    mark collectors_end
    epoch_minus_mono >> "$D/timeline.txt"
    [ -n "$PIDS" ] && smaps_snapshot end
    mysql_finish
    pmp_finish
    perf_profile_finish
    if [ -f "$D/perf-trace.data" ]; then
        perf script --header -F +pid,+tid -i "$D/perf-trace.data" 2> "$D/perf-trace.script.err" | gzip -6 > "$D/perf-trace.script.txt.gz"
        rm -f "$D/perf-trace.data"
    fi
    find "$D" -type f -empty -name '*.err' -exec rm -f {} +
    cost_summary
    [ -s "$SKIPPED" ] || echo "nothing skipped" > "$SKIPPED"
    mark tar_start
    parent=$(dirname "$D")
    if tar -C "$parent" -czf "$OUT" "$(basename "$D")"; then
        [ "$KEEP" = 1 ] || rm -rf "$D"
        echo "collect.sh: wrote $OUT"
    else
        echo "collect.sh: tar failed, output left in $D" >&2
    fi
}
on_signal() {
    skip "capture interrupted by a signal after $(( $(date +%s) - START_S )) s of $DURATION s"
    stop_children signal
    finish
    exit 130
}

# ---------------------------------------------------------------- main
ARGS="-d $DURATION -i $INTERVAL -m $MAX_MB -S $SMAPS_EVERY -P=$PERF -T=$TRACE -M=$MYSQL -W $BINLOG_WINDOW -G $GDB_EVERY pids: $PIDS"
trap on_signal INT TERM
START_S=$(date +%s)
mark collect_start
cost_start
epoch_minus_mono >> "$D/timeline.txt"
echo "interval $INTERVAL count $COUNT prefix $PREFIX pids $PIDS" >> "$D/timeline.txt"
sysinfo
[ "$MYSQL" = 1 ] && mysql_start
[ -n "$PIDS" ] && smaps_snapshot start

if have iostat; then
    S_TIME_FORMAT=ISO iostat -x -t -y "$INTERVAL" "$COUNT" > "$D/iostat-x-t.txt" 2> "$D/iostat.err" &
    bg $! iostat
else skip "iostat-x-t.txt: iostat not installed (package sysstat); diskstats snapshots still taken"; fi
if have pidstat; then
    S_TIME_FORMAT=ISO pidstat -d -t -h "$INTERVAL" "$COUNT" > "$D/pidstat-d-t-h.txt" 2> "$D/pidstat.err" &
    bg $! pidstat
else skip "pidstat-d-t-h.txt: pidstat not installed (package sysstat)"; fi
if have vmstat; then
    vmstat -t "$INTERVAL" "$COUNT" > "$D/vmstat-t.txt" 2> "$D/vmstat.err" &
    bg $! vmstat
else skip "vmstat-t.txt: vmstat not installed (package procps); procvmstat snapshots still taken"; fi
proc_loop & bg $! proc-loop
if [ -n "$PIDS" ] && [ "$SMAPS_EVERY" -gt 0 ]; then smaps_loop & bg $! smaps-loop; fi

if [ "$PERF" = 1 ] || [ "$TRACE" = 1 ]; then
    if ! have perf; then
        skip "perf: not installed (linux-perf / linux-tools); -P/-T ignored"; PERF=0; TRACE=0
    fi
fi
if [ "$PERF" = 1 ]; then
    # system-wide from the start, filtered to the selected pids at the end; -p only on request (-R)
    target="-a"
    if [ "$PERF_PER_PROCESS" = 1 ]; then
        if [ -n "$PIDS" ]; then target="-p $(echo "$PIDS" | tr ' ' ',')"
        else skip "perf-profile: -R without a selected process (-p/-n); profiled system-wide"; fi
    fi
    PROFILE_TARGET=$target
    perf_profile_start "$target" "$DURATION" perf-profile
fi
if [ "$TRACE" = 1 ]; then
    # block_bio_queue runs in the submitting task's context (who issued the bio); writeback_written carries
    # the flusher's reason= like writeback_start.  Both are optional: a kernel without them records the rest.
    events="-e block:block_rq_issue -e writeback:writeback_start"
    for tp in block:block_bio_queue writeback:writeback_written; do
        if tracepoint_available "$tp"; then events="$events -e $tp"
        else skip "perf-trace: tracepoint $tp not available on this kernel; recorded without it"; fi
    done
    echo "perf_trace events $events" >> "$D/timeline.txt"
    # shellcheck disable=SC2086
    perf record -k CLOCK_MONOTONIC -a $events \
        -o "$D/perf-trace.data" -- sleep "$DURATION" > "$D/perf-trace.record.log" 2>&1 &
    bg $! perf-trace
fi
if [ "$GDB_EVERY" -gt 0 ]; then
    if ! have gdb; then skip "PREFIX-stacktrace: gdb not installed; -G ignored"
    elif [ -z "$PIDS" ]; then skip "PREFIX-stacktrace: no process selected (-p/-n); -G ignored"
    else
        gdb_loop & bg $! gdb-stacks
        echo "gdb_stacks every $GDB_EVERY pids $PIDS" >> "$D/timeline.txt"
    fi
fi
mark collectors_started

# watchdog: deadline (+ a grace of 2 intervals for the counted collectors) and size cap
deadline=$((START_S + DURATION + 2 * INTERVAL + 3))
cost_watch
next_cost=$(( $(date +%s) + COST_EVERY ))
while :; do
    alive=0
    for p in $CHILDREN; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 1 ] || { cost_watch; break; }
    now=$(date +%s)
    if [ "$now" -ge "$deadline" ]; then stop_children deadline; break; fi
    if [ "$now" -ge "$next_cost" ]; then cost_watch; next_cost=$((now + COST_EVERY)); fi
    kb=$(du -sk "$D" 2>/dev/null | awk '{print $1}')
    if [ "${kb:-0}" -gt $((MAX_MB * 1024)) ]; then
        skip "size cap: output reached ${kb} KiB > -m $MAX_MB MB after $(( $(date +%s) - START_S )) s; collectors stopped early"
        stop_children size_cap
        break
    fi
    sleep 1
done
finish
