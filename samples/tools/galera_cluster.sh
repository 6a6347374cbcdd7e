#!/bin/sh
# A private three-node MariaDB Galera cluster on 127.0.0.1 for the Galera sample (issue 38, seed 000 reproduced).
#   nodeN (N = 1..3): datadir /var/tmp/iosift_galera/nodeN/data, mysql port 332(N-1), galera port 457N,
#   IST port 458N, SST (rsync) port 459N; the gcache (galera.cache, gcache.size $GCACHE) in
#   /var/tmp/iosift_galera/nodeN/gcache: an XFS file system on its own loop device
#   (`losetup --direct-io=on` over /var/tmp/iosift_galera/loops/nodeN.img, read_ahead_kb $RA_KB).
#   wsrep_provider /usr/lib/galera/libgalera_smm.so, wsrep_sst_method=rsync, binlog off.
# usage: galera_cluster.sh start|stop|destroy|status
#   start    makes the loop devices and file systems on first use (mounts them again otherwise), starts node1
#            (bootstrapping a new cluster: --wsrep-new-cluster), then node2 and node3 (SST/IST from the others),
#            creates the bench schema once.  Galera recovers (reads) the existing gcache at start: read-ahead
#            on XFS fills the page cache of galera.cache with large folios.
#   stop     stops node3, node2, node1 by their pid files (node1 last: it bootstraps the next start)
#   destroy  stop, unmount, detach the loop devices (losetup -d), remove /var/tmp/iosift_galera
#   status   wsrep_cluster_size, wsrep_local_state_comment and the mariadbd pid of each node
set -eu
B=/var/tmp/iosift_galera
GCACHE=${GCACHE:-768M}
LOOP_MB=${LOOP_MB:-1024}
RA_KB=${RA_KB:-4096}
HERE=$(cd "$(dirname "$0")" && pwd)

cnf() {  # cnf N
    n=$1; d=$B/node$n
    mkdir -p "$d/data" "$d/tmp" "$d/gcache"
    cat > "$d/my.cnf" <<CNF
[client]
socket=$d/mariadb.sock
user=root
[mariadbd]
user=mysql
datadir=$d/data
socket=$d/mariadb.sock
pid-file=$d/mariadbd.pid
log_error=$d/mariadb-error.log
tmpdir=$d/tmp
bind-address=127.0.0.1
port=$((3319 + n))
server_id=$((20 + n))
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
innodb_buffer_pool_size=192M
innodb_log_file_size=96M
innodb_flush_method=O_DIRECT
innodb_flush_log_at_trx_commit=2
performance_schema=ON
skip-name-resolve
wsrep_on=ON
wsrep_provider=/usr/lib/galera/libgalera_smm.so
wsrep_cluster_name=iosift_galera
wsrep_cluster_address=gcomm://127.0.0.1:4571,127.0.0.1:4572,127.0.0.1:4573
wsrep_node_name=node$n
wsrep_node_address=127.0.0.1:$((4570 + n))
wsrep_node_incoming_address=127.0.0.1:$((3319 + n))
wsrep_sst_receive_address=127.0.0.1:$((4590 + n))
wsrep_sst_method=rsync
wsrep_slave_threads=4
wsrep_provider_options="base_port=$((4570 + n));gmcast.listen_addr=tcp://127.0.0.1:$((4570 + n));ist.recv_addr=127.0.0.1:$((4580 + n));gcache.dir=$d/gcache;gcache.size=$GCACHE;gcache.recover=yes"
CNF
}

loop() {  # loop N: the gcache file system of node N, made once, mounted at nodeN/gcache
    n=$1; d=$B/node$n; img=$B/loops/node$n.img
    mountpoint -q "$d/gcache" && return 0
    mkdir -p "$B/loops" "$d/gcache"
    dev=$(losetup -j "$img" 2>/dev/null | cut -d: -f1)
    if [ -z "$dev" ]; then
        fresh=0
        [ -f "$img" ] || { truncate -s "${LOOP_MB}M" "$img"; fresh=1; }
        dev=$(losetup --direct-io=on --find --show "$img")
        [ "$fresh" = 0 ] || mkfs.xfs -q -f -K "$dev"
    fi
    echo "$RA_KB" > "/sys/block/${dev#/dev/}/queue/read_ahead_kb"
    mount "$dev" "$d/gcache"
    echo "node$n gcache: $dev (xfs, read_ahead_kb $RA_KB) on $d/gcache"
}

start_one() {  # start_one N [--wsrep-new-cluster]
    n=$1; shift; d=$B/node$n
    chown -R mysql:mysql "$d"
    if [ ! -d "$d/data/mysql" ] && [ "$n" = 1 ]; then
        mariadb-install-db --defaults-file="$d/my.cnf" --auth-root-authentication-method=socket > "$d/install.log" 2>&1
    fi
    # fds 3-9 closed: a server started under `flock /work/capture.lock` must not inherit (and hold) the lock
    mariadbd --defaults-file="$d/my.cnf" "$@" > /dev/null 2>&1 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
    i=0
    while [ "$(q "$n" "SHOW GLOBAL STATUS LIKE 'wsrep_local_state_comment'" 2>/dev/null | cut -f2)" != Synced ]; do
        i=$((i + 1)); [ $i -lt 180 ] || { echo "node$n did not reach Synced" >&2; exit 1; }; sleep 1
    done
    echo "node$n mariadbd pid $(cat "$d/mariadbd.pid") Synced"
}

q() {  # q N SQL
    mariadb --defaults-file="$B/node$1/my.cnf" -N -B -e "$2"
}

case ${1:-start} in
start)
    for n in 1 2 3; do cnf "$n"; loop "$n"; done
    # node1 bootstraps; it must be allowed to (a clean stop of the whole cluster leaves it the last one down)
    [ ! -f "$B/node1/data/grastate.dat" ] || sed -i 's/^safe_to_bootstrap: 0/safe_to_bootstrap: 1/' "$B/node1/data/grastate.dat"
    start_one 1 --wsrep-new-cluster
    q 1 "SELECT 1 FROM mysql.user WHERE user='bench'" | grep -q 1 || mariadb --defaults-file="$B/node1/my.cnf" < "$HERE/bench_schema.sql"
    start_one 2
    start_one 3
    sh "$0" status
    ;;
status)
    for n in 1 2 3; do
        echo "node$n pid $(cat "$B/node$n/mariadbd.pid" 2>/dev/null || echo -) $(q "$n" "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_cluster_size','wsrep_local_state_comment','wsrep_last_committed')" 2>/dev/null | tr '\t\n' '= ')"
    done
    ;;
stop)
    for n in 3 2 1; do
        [ -f "$B/node$n/mariadbd.pid" ] || continue
        p=$(cat "$B/node$n/mariadbd.pid")
        mariadb-admin --defaults-file="$B/node$n/my.cnf" shutdown || kill "$p"
        while kill -0 "$p" 2>/dev/null; do sleep 1; done
        echo "node$n stopped (pid $p)"
    done
    ;;
destroy)
    sh "$0" stop
    for n in 1 2 3; do
        img=$B/loops/node$n.img
        ! mountpoint -q "$B/node$n/gcache" || umount "$B/node$n/gcache"
        for dev in $(losetup -j "$img" 2>/dev/null | cut -d: -f1); do losetup -d "$dev"; echo "node$n: $dev detached"; done
    done
    rm -rf "$B"
    ;;
esac
