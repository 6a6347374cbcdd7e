#!/bin/sh
# The pt_stalk_hung_task capture: pt-stalk (Debian percona-toolkit 3.2.1) against a private MariaDB
# started during a hung task, as its trigger would start it, so that its -dmesg (the kernel messages
# of the minute before the collection, bin/pt-stalk `collect`) holds it: a writer (dd) blocks on a
# frozen ext4 (fsfreeze -f) for 25 s, longer than kernel.hung_task_timeout_secs, lowered to 5 s for
# the run: "INFO: task dd:PID blocked for more than 5 seconds."; pt-stalk starts 12 s into the block. (This kernel has no device-mapper,
# so no `error` target for real I/O errors: those are covered by a hand-written fixture.)
# usage (as root): sh samples/tools/run_hung_task.sh OUT_SAMPLE_DIR
# Restores every setting it changes (the two hung_task sysctls), thaws, unmounts, detaches the loop
# device and stops the MariaDB it started, by its pid, whatever happens.
set -eu
OUT=$1
T=$(cd "$(dirname "$0")" && pwd)
W=/var/tmp/iosift_hung
export IOSIFT_DB_DIR="$W/db" IOSIFT_DB_PORT=33317
mkdir -p "$W/mnt" "$OUT/capture" "$OUT/truth"
old_timeout=$(cat /proc/sys/kernel/hung_task_timeout_secs)
old_warnings=$(cat /proc/sys/kernel/hung_task_warnings)
loop=""
dd_pid=""
cleanup() {
    fsfreeze -u "$W/mnt" 2>/dev/null || true
    if [ -n "$dd_pid" ]; then kill "$dd_pid" 2>/dev/null || true; fi
    umount "$W/mnt" 2>/dev/null || true
    if [ -n "$loop" ]; then losetup -d "$loop" 2>/dev/null || true; fi
    echo "$old_timeout" > /proc/sys/kernel/hung_task_timeout_secs
    echo "$old_warnings" > /proc/sys/kernel/hung_task_warnings
    if [ -f "$W/db/mariadbd.pid" ]; then
        pid=$(cat "$W/db/mariadbd.pid")
        kill "$pid" 2>/dev/null || true
        while kill -0 "$pid" 2>/dev/null; do sleep 1; done
    fi
    rm -rf "$W"
}
trap cleanup EXIT INT TERM

sh "$T/mariadb_instance.sh" start > "$OUT/truth/mariadb.stdout"
truncate -s 256M "$W/disk.img"
mkfs.ext4 -q -F "$W/disk.img"
loop=$(losetup --find --show "$W/disk.img")
mount "$loop" "$W/mnt"
echo 5 > /proc/sys/kernel/hung_task_timeout_secs
echo 10 > /proc/sys/kernel/hung_task_warnings

log() { echo "$(date -u +%Y-%m-%dT%H:%M:%S.%N) $*" >> "$OUT/truth/timeline.txt"; }
log "start: loop $loop on $W/mnt, hung_task_timeout_secs 5 (was $old_timeout)"
fsfreeze -f "$W/mnt"
log "fsfreeze -f $W/mnt"
dd if=/dev/zero of="$W/mnt/blocked" bs=1M count=16 conv=fsync 2> "$OUT/truth/dd.stderr" &
dd_pid=$!
log "dd started, pid $dd_pid (blocks on the frozen file system)"
sleep 12
pt-stalk --no-stalk --iterations 1 --run-time 30 --dest "$W/pt" --pid "$W/pt-stalk.pid" \
    --defaults-file "$W/db/my.cnf" > "$OUT/truth/pt-stalk.stdout" 2>&1 &
pt=$!
log "pt-stalk started"
sleep 13
fsfreeze -u "$W/mnt"
log "fsfreeze -u $W/mnt"
wait "$dd_pid" || true
log "dd finished"
dd_pid=""
wait "$pt" || true
log "pt-stalk done"
cat /proc/sys/kernel/hung_task_detect_count > "$OUT/truth/hung_task_detect_count.txt"
cp -r "$W/pt/." "$OUT/capture/"
