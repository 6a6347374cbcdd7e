#!/bin/sh
# sync_loop.sh PERIOD_S SECONDS LOG: another process's whole-system sync (a backup or package manager's habit): runs
# `sync` every PERIOD_S seconds (absolute schedule: start + k * PERIOD_S, so no drift) for SECONDS seconds.
# LOG: a header naming the loop's pid, then one line per sync: k,start_epoch,end_epoch,sync_pid
set -eu
P=$1 SECS=$2 LOG=$3
echo "# pid $$ period_s $P seconds $SECS (k,start_epoch,end_epoch,sync_pid)" > "$LOG"
t0=$(date +%s.%N)
k=1
while awk -v k="$k" -v p="$P" -v s="$SECS" 'BEGIN { exit !(k * p <= s) }'; do
    sleep "$(awk -v t0="$t0" -v k="$k" -v p="$P" -v now="$(date +%s.%N)" 'BEGIN { d = t0 + k * p - now; printf "%.3f", (d > 0 ? d : 0) }')"
    s=$(date +%s.%N)
    sync & sp=$!
    wait "$sp"
    echo "$k,$s,$(date +%s.%N),$sp" >> "$LOG"
    k=$((k + 1))
done
