#!/bin/sh
# run_matrix.sh CASE_DIR KEY=VALUE ... : capture one case of the scenario matrix (samples/mx_*) with samples/collect.sh.
#
# Keys (default first):
#   work=mmap|copy|db        workload: tools/mmap_store (2 threads) | buffered dd copy | MariaDB + tools/tiny_trx.py
#        |fsync|msync|sfr|odirect|append   the issuer matrix (samples/ix_*, issue 34): tools/periodic_writer MODE with
#                            mib= and period= (see periodic_writer.c; append = small buffered appends + a file a second)
#        |sync_other         tools/buffered_appender.py at mib= MiB/s (comm `appender`) + tools/sync_loop.sh: `sync`
#                            every period= s
#        |appender           tools/buffered_appender.py alone at mib= MiB/s (comm `appender`), never fsync, no sync: with
#                            dev=loop mntopts=data=journal,commit=N the ext4 journal (jbd2) writes its data at every commit
#        |idle               no workload: the collector alone (system-wide, -n iosift_none -P -T)
#   fs=ext4|xfs              file system holding the workload's file (xfs needs dev=loop)
#   dev=vda|loop             vda: the root ext4 on /dev/vda (plain disk); loop: a fresh file system on
#                            `losetup --direct-io=on` over /var/tmp/iosift_mx/loop.img (a file on vda)
#   folios=2m|order0|mixed   mmap only: 2m = file written with 2 MiB writes; order0 = tools/cache_order0 + MADV_RANDOM;
#                            mixed = tools/cache_mixed.py 0.5 (cache drop, random reader, readahead)
#   load=none|ddirect|buffered  foreign load: none added | `dd bs=4k count=100 oflag=direct` in a loop on vda (~1,000 w/s)
#                            | tools/buffered_appender.py 4 MiB/s on the workload's file system
#   expire=3000              vm.dirty_expire_centisecs for the run
#   dirty_bytes=0            if > 0: vm.dirty_bytes=N and vm.dirty_background_bytes=N/2 for the run (forces throttling)
#   degrade=none|nosysstat|noperf|nosmaps  the collector degraded: PATH without sysstat | PATH without perf |
#                            no process selected (no smaps, no per-process perf)
#   secs=120                 capture duration;  prerun=0: seconds the mmap writer runs before the capture starts
#   rate=20                  mmap stores per second;  copy_mb=1500: size of the dd copy (MiB, bs=10M)
#   payload=0                db: tiny_trx.py --payload;  durable=1: 1 = sync_binlog=1 + trx_commit=1, 0 = 0 + 2
#   window=10                db: collect.sh -W (seconds of binlog decoded)
#   port=3400                db: TCP port of the private MariaDB (127.0.0.1, 3400-3409)
#   slow=0                   dev=loop: 1 = max_sectors_kb=4 on the loop device (every request 4 KiB: a slow device,
#                            tens of MB/s, slower than a buffered writer)
#   mib=64 period=12         issuer matrix: periodic_writer SIZE (MiB per episode; sfr: MiB/s) and PERIOD_S; sync_other:
#                            the appender's MiB/s and the sync period
#   threads=4                db: tiny_trx.py --threads;  trace=0: db: 1 = collect.sh -T as well
#   mntopts=                 dev=loop: mount options of the fresh file system (e.g. commit=15,nodelalloc for ext4)
#   jsize=0                  dev=loop fs=ext4: if > 0, mkfs.ext4 -J size=jsize (journal MiB; the default for 6 GiB is 64 MiB,
#                            whose transactions are capped at a quarter of it, 16 MiB: data=journal at 8 MiB/s would commit
#                            on size every ~2 s instead of on the commit= timer)
#   memcg=0                  copy: if > 0, dd runs in a memory cgroup limited to memcg MiB (cgroup v1
#                            /sys/fs/cgroup/memory/iosift_ix: this host's cgroup v2 has no memory controller), so that
#                            reclaim writes its dirty pages; memory.stat before/after in truth/, the cgroup removed on exit
# The issuer-matrix kinds and idle run the collector as a customer would: `-p PID -P -T` (default -F 99; idle and
# nosmaps: `-n iosift_none`, i.e. no process selected and perf system-wide).
# Every changed sysctl is recorded first (truth/sysctl_before.txt) and restored on exit; loop device, mount, servers
# (by pid) and temporary files are removed on exit.  The tarball is unpacked into CASE_DIR/capture (files > 200 KB
# gzip'd); the workload's own logs go to CASE_DIR/truth.  Ground truth: tools/matrix_truth.py CASE_DIR.
set -eu
CASE=$1; shift
work=mmap fs=ext4 dev=vda folios=2m load=none expire=3000 dirty_bytes=0 degrade=none secs=120 prerun=0 rate=20
copy_mb=1500 payload=0 durable=1 window=10 port=3400 slow=0 mib=64 period=12 threads=4 trace=0 mntopts='' memcg=0 jsize=0
for kv in "$@"; do
    case $kv in
    work=*|fs=*|dev=*|folios=*|load=*|expire=*|dirty_bytes=*|degrade=*|secs=*|prerun=*|rate=*|copy_mb=*|payload=*|durable=*|window=*|port=*|slow=*|mib=*|period=*|threads=*|trace=*|mntopts=*|memcg=*|jsize=*)
        eval "${kv%%=*}=\${kv#*=}" ;;
    *) echo "run_matrix.sh: unknown key $kv" >&2; exit 2 ;;
    esac
done
[ "$fs" = xfs ] && [ "$dev" != loop ] && { echo "run_matrix.sh: fs=xfs needs dev=loop" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=/var/tmp/iosift_mx
T=$CASE/truth
mkdir -p "$ROOT" "$T"
CASE=$(cd "$CASE" && pwd); T=$CASE/truth
find "$T" -maxdepth 1 -type f ! -name extra.json -delete
ev() { echo "$1 $(date +%s.%N) $(date -u '+%F %T.%N' | cut -c1-23)" >> "$T/events.txt"; }
: > "$T/events.txt"
echo "sh samples/tools/run_matrix.sh samples/$(basename "$CASE") $*" > "$T/command.txt"
{ for kv in work fs dev folios load expire dirty_bytes degrade secs prerun rate copy_mb payload durable window port slow mib period threads trace mntopts memcg jsize; do
    eval "echo $kv=\$$kv"; done; } > "$T/matrix.env"

# ------------------------------------------------------------------ sysctls: record, restore on exit
SYS="dirty_expire_centisecs dirty_writeback_centisecs dirty_bytes dirty_ratio dirty_background_bytes dirty_background_ratio"
for k in $SYS; do echo "vm.$k=$(cat /proc/sys/vm/$k)"; done > "$T/sysctl_before.txt"
orig() { sed -n "s/^vm\.$1=//p" "$T/sysctl_before.txt"; }
PIDS_TO_STOP=
MDPID=
LOOPDEV=
cleanup() {
    set +e
    for p in $PIDS_TO_STOP; do kill "$p" 2>/dev/null; done
    if [ -n "$MDPID" ]; then kill "$MDPID" 2>/dev/null; i=0; while kill -0 "$MDPID" 2>/dev/null && [ $i -lt 60 ]; do sleep 1; i=$((i+1)); done; fi
    sleep 1
    echo "$(orig dirty_expire_centisecs)" > /proc/sys/vm/dirty_expire_centisecs
    # writing a ratio clears the matching *_bytes and vice versa: restore whichever was in force
    if [ "$(orig dirty_bytes)" != 0 ]; then orig dirty_bytes > /proc/sys/vm/dirty_bytes; else orig dirty_ratio > /proc/sys/vm/dirty_ratio; fi
    if [ "$(orig dirty_background_bytes)" != 0 ]; then orig dirty_background_bytes > /proc/sys/vm/dirty_background_bytes
    else orig dirty_background_ratio > /proc/sys/vm/dirty_background_ratio; fi
    for k in $SYS; do echo "vm.$k=$(cat /proc/sys/vm/$k)"; done > "$T/sysctl_after.txt"
    rm -f "$ROOT/ddirect.dat" "$ROOT/gcache.dat" "$ROOT/copy.dat" "$ROOT/appender.dat" "$ROOT/capture.tar.gz" \
        "$ROOT/ckpt.dat" "$ROOT/sfr.dat"
    rm -rf "$ROOT/appenddir"
    if [ -n "$LOOPDEV" ]; then
        umount "$ROOT/mnt" 2>/dev/null; losetup -d "$LOOPDEV" 2>/dev/null; rm -f "$ROOT/loop.img"
        [ -n "${MSK:-}" ] && echo "$MSK_ORIG" > "$MSK"
    fi
    rm -rf "$ROOT/db$port" "$ROOT/nobin"
    if [ -n "${CG:-}" ] && [ -d "$CG" ]; then
        cat "$CG/memory.stat" > "$T/memcg_stat_end.txt" 2>/dev/null; cat "$CG/memory.failcnt" >> "$T/memcg_stat_end.txt" 2>/dev/null
        rmdir "$CG"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------------ storage
if [ "$dev" = loop ]; then
    rm -f "$ROOT/loop.img"; fallocate -l 6G "$ROOT/loop.img"
    LOOPDEV=$(losetup --direct-io=on --find --show "$ROOT/loop.img")
    # no discard at mkfs: a discard through the loop device punches holes in loop.img (its extents would change)
    if [ "$fs" = xfs ]; then mkfs.xfs -q -f -K "$LOOPDEV"; elif [ "$jsize" -gt 0 ]; then mkfs.ext4 -q -F -E nodiscard -J size="$jsize" "$LOOPDEV"
    else mkfs.ext4 -q -F -E nodiscard "$LOOPDEV"; fi
    # the queue limit outlives losetup -d (loopN is reused): record it, set it, restore it on exit
    MSK=/sys/block/${LOOPDEV#/dev/}/queue/max_sectors_kb; MSK_ORIG=$(cat "$MSK")
    if [ "$slow" = 1 ]; then echo 4 > "$MSK"; elif [ "$MSK_ORIG" -lt 1280 ]; then echo 1280 > "$MSK"; fi
    echo "max_sectors_kb of ${LOOPDEV#/dev/}: before $MSK_ORIG, during $(cat "$MSK")" >> "$T/losetup-queue.txt"
    mkdir -p "$ROOT/mnt"
    if [ -n "$mntopts" ]; then mount -o "$mntopts" "$LOOPDEV" "$ROOT/mnt"; else mount "$LOOPDEV" "$ROOT/mnt"; fi
    W=$ROOT/mnt
    filefrag -v "$ROOT/loop.img" > "$T/filefrag-loop.img.txt"
    { losetup -l; echo; cat /sys/block/"${LOOPDEV#/dev/}"/loop/dio 2>/dev/null; } > "$T/losetup.txt"
    [ "$fs" = ext4 ] && { dumpe2fs -h "$LOOPDEV" > "$T/dumpe2fs-h.txt" 2>/dev/null || true; }
else
    W=$ROOT
fi
findmnt -T "$W" > "$T/workload-mount.txt"
echo "dm: $(dmsetup version 2>&1 | tr '\n' ' ')" > "$T/dm-check.txt"

# ------------------------------------------------------------------ collector degradation (PATH shim)
COLPATH=$PATH
case $degrade in
nosysstat|noperf)
    mkdir -p "$ROOT/nobin"
    if [ "$degrade" = nosysstat ]; then hide="iostat pidstat sar sadf mpstat cifsiostat tapestat"; else hide="perf"; fi
    for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
        for f in "$d"/*; do
            b=${f##*/}
            case " $hide " in *" $b "*) continue ;; esac
            [ -e "$ROOT/nobin/$b" ] || ln -s "$f" "$ROOT/nobin/$b"
        done
    done
    COLPATH=$ROOT/nobin
    echo "collector PATH=$COLPATH (symlinks to every tool of the usual PATH except: $hide)" > "$T/degrade.txt" ;;
nosmaps) echo "collector run without -p/-n of the workload (no smaps/threads snapshot, no per-process perf)" > "$T/degrade.txt" ;;
esac

# ------------------------------------------------------------------ foreign-activity ground truth (not capture input)
( i=0; while [ $i -lt $(( (secs + prerun + 30) / 10 )) ]; do echo "TS $(date +%s.%N) $(date -u '+%F %T')";
  ps -eLo pid,tid,pcpu,comm --sort=-pcpu | head -14; ps -eo pid,comm,args | grep -E 'mariadbd|mysqld' | grep -v grep | cut -c1-160;
  sleep 10; i=$((i+1)); done ) > "$T/ps-snapshots.txt" 2>&1 &
PIDS_TO_STOP="$PIDS_TO_STOP $!"

# ------------------------------------------------------------------ sysctls for the run
echo "$expire" > /proc/sys/vm/dirty_expire_centisecs
if [ "$dirty_bytes" -gt 0 ]; then
    echo "$dirty_bytes" > /proc/sys/vm/dirty_bytes
    echo $((dirty_bytes / 2)) > /proc/sys/vm/dirty_background_bytes
fi
for k in $SYS; do echo "vm.$k=$(cat /proc/sys/vm/$k)"; done > "$T/sysctl_during.txt"

# ------------------------------------------------------------------ workload preparation
CC_OPTS=""
case $work in
mmap)
    cc -O2 -pthread -o "$ROOT/mmap_store" "$HERE/mmap_store.c"
    cc -O2 -o "$ROOT/folio_probe" "$HERE/folio_probe.c"
    cc -O2 -o "$ROOT/cache_order0" "$HERE/cache_order0.c"
    F=$W/gcache.dat
    dd if=/dev/zero of="$F" bs=2M count=512 conv=fsync status=none
    ADV=none
    case $folios in
    order0) "$ROOT/cache_order0" "$F" > "$T/cache_prep.txt"; ADV=random ;;
    mixed) python3 "$HERE/cache_mixed.py" "$F" 0.5 14 > "$T/cache_prep.txt" ;;
    *) echo "written with: dd if=/dev/zero of=$F bs=2M count=512 conv=fsync" > "$T/cache_prep.txt" ;;
    esac
    sync; sleep 2
    { echo "before workload $(date +%s.%N)"; "$ROOT/folio_probe" "$F"; } > "$T/folios.txt"
    filefrag -v "$F" > "$T/filefrag.txt" ;;
db)
    D=$W/db$port
    [ "$dev" = loop ] || D=$ROOT/db$port
    rm -rf "$D"
    IOSIFT_DB_DIR=$D IOSIFT_DB_PORT=$port sh "$HERE/mariadb_instance.sh" start > "$T/mariadb_start.txt" 2>&1
    MDPID=$(cat "$D/mariadbd.pid")
    CNF=$D/my.cnf
    q() { mariadb --defaults-file="$CNF" -N -B -e "$1"; }
    if [ "$durable" = 1 ]; then q "SET GLOBAL sync_binlog=1; SET GLOBAL innodb_flush_log_at_trx_commit=1"
    else q "SET GLOBAL sync_binlog=0; SET GLOBAL innodb_flush_log_at_trx_commit=2"; fi
    q "FLUSH BINARY LOGS"
    q "SHOW MASTER STATUS" > "$T/binlog_before.txt"
    cp "$CNF" "$T/my.cnf"
    echo "mariadbd_pid $MDPID" >> "$T/events.txt" ;;
fsync|msync|sfr|odirect|append)
    cc -O2 -o "$ROOT/periodic_writer" "$HERE/periodic_writer.c"
    case $work in sfr) F=$W/sfr.dat ;; append) F=$W/appenddir; mkdir -p "$F" ;; *) F=$W/ckpt.dat ;; esac ;;
copy)
    rm -f "$W/copy.dat"
    # the dd process is started now, blocked on a fifo, so that its pid can be given to collect.sh -p
    rm -f "$ROOT/go.fifo"; mkfifo "$ROOT/go.fifo"
    JOIN=:
    if [ "$memcg" -gt 0 ]; then
        CG=/sys/fs/cgroup/memory/iosift_ix; mkdir -p "$CG"
        echo $((memcg * 1048576)) > "$CG/memory.limit_in_bytes"
        { echo "cgroup v1 memory $CG limit $(cat "$CG/memory.limit_in_bytes")"; cat "$CG/memory.stat"; } > "$T/memcg_stat_start.txt"
        JOIN="echo \$\$ > $CG/cgroup.procs"
    fi
    sh -c "$JOIN; read x < '$ROOT/go.fifo'; exec dd if=/dev/zero of='$W/copy.dat' bs=10M count=$((copy_mb / 10))" 2> "$T/dd.stderr" &
    DDPID=$!
    echo "dd_pid $DDPID" >> "$T/events.txt" ;;
esac
sync; sleep 3

# ------------------------------------------------------------------ foreign load
case $load in
ddirect)
    ( i=0; while :; do dd if=/dev/zero of="$ROOT/ddirect.dat" bs=4k count=100 seek=$(( (i % 160) * 100 )) oflag=direct conv=notrunc status=none
      echo "$(date +%s.%N) 100"; i=$((i + 1)); sleep 0.06; done ) > "$T/ddirect.log" 2>&1 &
    PIDS_TO_STOP="$PIDS_TO_STOP $!"; ev ddirect_start ;;
buffered)
    python3 "$HERE/buffered_appender.py" "$W/appender.dat" 4 $((secs + prerun + 20)) "$T/appender.log" &
    PIDS_TO_STOP="$PIDS_TO_STOP $!"; ev appender_start ;;
esac

# ------------------------------------------------------------------ run
collect() {  # collect OPTIONS...
    ev collect_start
    echo "sh samples/collect.sh -d $secs -i 1 -m 200 -w $ROOT -o $ROOT/capture.tar.gz $*" > "$T/collect_cmd.txt"
    PATH=$COLPATH sh "$HERE/../collect.sh" -d "$secs" -i 1 -m 200 -w "$ROOT" -o "$ROOT/capture.tar.gz" "$@" > "$T/collect.stdout" 2>&1
    ev collect_end
}
case $work in
mmap)
    "$ROOT/mmap_store" "$F" "$rate" 2 $((secs + prerun + 10)) "$T/mmap_store" "$ADV" > "$T/mmap_store.stdout" 2>&1 &
    MP=$!; PIDS_TO_STOP="$PIDS_TO_STOP $MP"; ev mmap_store_start
    sleep $((2 + prerun))
    if [ "$degrade" = nosmaps ]; then collect -n iosift_none -T; else collect -p "$MP" -S 30 -P -T; fi
    wait "$MP" || true
    { echo "after workload $(date +%s.%N)"; "$ROOT/folio_probe" "$F"; } >> "$T/folios.txt" ;;
fsync|msync|sfr|odirect|append)
    "$ROOT/periodic_writer" "$work" "$F" "$mib" "$period" $((secs + prerun + 10)) "$T/periodic_writer.csv" \
        > "$T/periodic_writer.stdout" 2>&1 &
    WP=$!; PIDS_TO_STOP="$PIDS_TO_STOP $WP"; ev periodic_writer_start; echo "periodic_writer_pid $WP" >> "$T/events.txt"
    sleep $((2 + prerun))
    if [ "$degrade" = nosmaps ]; then collect -n iosift_none -P -T; else collect -p "$WP" -P -T; fi
    wait "$WP" || true
    # after the capture: where the file's blocks are (for attributing requests by sector)
    if [ -d "$F" ]; then filefrag -v "$F"/* > "$T/filefrag-files.txt" 2>&1 || true
    else filefrag -v "$F" > "$T/filefrag.txt" 2>&1 || true; fi ;;
sync_other)
    python3 "$HERE/buffered_appender.py" "$W/appender.dat" "$mib" $((secs + prerun + 10)) "$T/appender.log" appender &
    AP=$!; PIDS_TO_STOP="$PIDS_TO_STOP $AP"; ev appender_start; echo "appender_pid $AP" >> "$T/events.txt"
    sh "$HERE/sync_loop.sh" "$period" $((secs + prerun + 10)) "$T/sync_loop.log" &
    SP=$!; PIDS_TO_STOP="$PIDS_TO_STOP $SP"; ev sync_loop_start; echo "sync_loop_pid $SP" >> "$T/events.txt"
    sleep $((2 + prerun))
    if [ "$degrade" = nosmaps ]; then collect -n iosift_none -P -T; else collect -p "$AP,$SP" -P -T; fi
    wait "$AP" || true; wait "$SP" || true
    filefrag -v "$W/appender.dat" > "$T/filefrag.txt" 2>&1 || true ;;
appender)
    python3 "$HERE/buffered_appender.py" "$W/appender.dat" "$mib" $((secs + prerun + 10)) "$T/appender.log" appender &
    AP=$!; PIDS_TO_STOP="$PIDS_TO_STOP $AP"; ev appender_start; echo "appender_pid $AP" >> "$T/events.txt"
    sleep $((2 + prerun))
    if [ "$degrade" = nosmaps ]; then collect -n iosift_none -P -T; else collect -p "$AP" -P -T; fi
    wait "$AP" || true
    filefrag -v "$W/appender.dat" > "$T/filefrag.txt" 2>&1 || true ;;
idle)
    collect -n iosift_none -P -T ;;
copy)
    PP="-p $DDPID"; [ "$degrade" = nosmaps ] && PP="-n iosift_none"
    # shellcheck disable=SC2086
    collect $PP -P -F 49 -T &
    CP=$!; PIDS_TO_STOP="$PIDS_TO_STOP $CP"
    sleep 5
    # dd's own state while it runs (ground truth of throttling): every 0.1 s the kernel function it sleeps in (wchan)
    # and its state, every 1 s its schedstat (ns on CPU, ns waiting for a CPU, timeslices)
    ( while [ -d /proc/$DDPID ]; do
        printf '%s %s %s\n' "$(date +%s.%N)" "$(cut -d' ' -f3 /proc/$DDPID/stat 2>/dev/null)" "$(cat /proc/$DDPID/wchan 2>/dev/null)"; sleep 0.1; done ) > "$T/dd_wchan.txt" 2>/dev/null &
    ( while [ -d /proc/$DDPID ]; do echo "$(date +%s.%N) $(cat /proc/$DDPID/schedstat 2>/dev/null)"; sleep 1; done ) > "$T/dd_schedstat.txt" 2>/dev/null &
    ev dd_start; echo go > "$ROOT/go.fifo"; wait "$DDPID" || true; ev dd_exit
    grep -E '^(Dirty|Writeback):' /proc/meminfo > "$T/meminfo_at_dd_exit.txt"
    wait "$CP" || true
    # after the capture: with delayed allocation the file has no blocks until writeback allocates them
    filefrag -v "$W/copy.dat" > "$T/filefrag.txt" 2>&1 || true ;;
db)
    PP="-p $MDPID"; [ "$degrade" = nosmaps ] && PP="-n iosift_none"
    [ "$trace" = 1 ] && PP="$PP -T"
    # shellcheck disable=SC2086
    collect $PP -P -F 49 -M "--defaults-file=$CNF" -W "$window" &
    CP=$!; PIDS_TO_STOP="$PIDS_TO_STOP $CP"
    sleep 5
    ev load_start
    /usr/bin/python3 "$HERE/tiny_trx.py" --socket "$D/mariadb.sock" --threads "$threads" --duration $((secs - 15)) --payload "$payload" \
        --out "$T/tiny_trx" > "$T/tiny_trx.stdout" 2>&1
    ev load_end
    wait "$CP" || true
    q "SHOW MASTER STATUS" > "$T/binlog_after.txt"
    q "SHOW GLOBAL STATUS WHERE Variable_name IN ('Binlog_commits','Binlog_group_commits','Innodb_data_fsyncs','Innodb_os_log_written','Com_commit')" > "$T/status_after.txt"
    # where the server's files are (binlog, redo log, system and table spaces), for attributing requests by sector
    filefrag -v "$D"/binlog/mariadb-bin.[0-9]* "$D"/data/ib_logfile0 "$D"/data/ibdata1 "$D"/data/undo* "$D"/data/bench/*.ibd \
        > "$T/filefrag-files.txt" 2>&1 || true ;;
esac
ev workload_done
# ext4 on loop: jbd2's own statistics of the run's transactions (commit interval, blocks per transaction), ground truth
if [ -n "$LOOPDEV" ] && [ "$fs" = ext4 ]; then cat /proc/fs/jbd2/"${LOOPDEV#/dev/}"-8/info > "$T/jbd2-info.txt" 2>&1 || true; fi
# the backing file's extents after the run (the ones the loop device wrote), for attributing vda requests to it
[ -n "$LOOPDEV" ] && filefrag -v "$ROOT/loop.img" > "$T/filefrag-loop.img-end.txt"
rm -rf "$CASE/capture"; mkdir -p "$CASE/capture"
tar -C "$CASE/capture" --strip-components=1 -xzf "$ROOT/capture.tar.gz"
sh "$HERE/gz_big.sh" "$CASE/capture"
for f in "$T"/mmap_store.stores.csv "$T"/periodic_writer.csv "$T"/*.log; do [ -f "$f" ] && [ "$(stat -c %s "$f")" -gt 204800 ] && gzip -9f "$f"; done
ls -la "$CASE/capture"
