#!/bin/sh
# A private MariaDB primary + replica pair on one host for the replication samples.
#   primary: datadir /var/tmp/iosift_repl/primary, 127.0.0.1:3310, server_id 1
#   replica: datadir /var/tmp/iosift_repl/replica, 127.0.0.1:3311, server_id 2, log_slave_updates,
#            single-threaded apply (slave_parallel_threads=0), replicating from the primary by file/position
# usage: mariadb_pair.sh start|stop|destroy
# environment (issue 38: a second pair beside the first): IOSIFT_REPL_DIR (default /var/tmp/iosift_repl),
#   IOSIFT_REPL_PRIMARY_PORT (default 3310), IOSIFT_REPL_REPLICA_PORT (default 3311)
#   start    creates the datadirs on first use, starts both servers, sets up the bench schema and replication
#   stop     stops both servers by their pid files (mariadb-admin shutdown)
#   destroy  stop, then remove /var/tmp/iosift_repl
set -eu
B=${IOSIFT_REPL_DIR:-/var/tmp/iosift_repl}
PPORT=${IOSIFT_REPL_PRIMARY_PORT:-3310}
RPORT=${IOSIFT_REPL_REPLICA_PORT:-3311}

cnf() {  # cnf ROLE PORT SERVER_ID EXTRA...
    role=$1; port=$2; id=$3; shift 3
    d=$B/$role
    mkdir -p "$d/data" "$d/binlog" "$d/tmp"
    {
        cat <<CNF
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
port=$port
server_id=$id
log_bin=$d/binlog/$role-bin
binlog_format=ROW
max_binlog_size=1G
performance_schema=ON
innodb_buffer_pool_size=256M
innodb_log_file_size=96M
innodb_flush_method=O_DIRECT
sync_binlog=1
innodb_flush_log_at_trx_commit=1
skip-name-resolve
CNF
        for x in "$@"; do echo "$x"; done
    } > "$d/my.cnf"
}

start_one() {  # start_one ROLE
    d=$B/$1
    chown -R mysql:mysql "$d"
    if [ ! -d "$d/data/mysql" ]; then
        mariadb-install-db --defaults-file="$d/my.cnf" --auth-root-authentication-method=socket > "$d/install.log" 2>&1
    fi
    # fds 3-9 closed: a server left running must not keep the caller's `flock /work/capture.lock` (flock's fd) held
    mariadbd --defaults-file="$d/my.cnf" > /dev/null 2>&1 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
    i=0
    while ! mariadb --defaults-file="$d/my.cnf" -e 'SELECT 1' > /dev/null 2>&1; do
        i=$((i + 1)); [ $i -lt 60 ] || { echo "mariadbd ($1) did not start" >&2; exit 1; }; sleep 1
    done
    echo "$1 mariadbd pid $(cat "$d/mariadbd.pid")"
}

q() {  # q ROLE SQL
    mariadb --defaults-file="$B/$1/my.cnf" -N -B -e "$2"
}

case ${1:-start} in
start)
    fresh=0
    [ -d "$B/primary/data/mysql" ] || fresh=1
    cnf primary "$PPORT" 1
    cnf replica "$RPORT" 2 log_slave_updates=ON slave_parallel_threads=0 relay_log="$B/replica/binlog/replica-relay-bin" \
        skip_slave_start=ON
    start_one primary
    start_one replica
    if [ "$fresh" = 1 ]; then
        # The replica replicates everything from the primary's first binlog, schema included.
        q replica "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=$PPORT, MASTER_USER='repl',
            MASTER_PASSWORD='replpw', MASTER_LOG_FILE='primary-bin.000001', MASTER_LOG_POS=4, MASTER_USE_GTID=no"
        q primary "CREATE USER 'repl'@'127.0.0.1' IDENTIFIED BY 'replpw'; GRANT REPLICATION SLAVE ON *.* TO 'repl'@'127.0.0.1';"
        mariadb --defaults-file="$B/primary/my.cnf" < "$(dirname "$0")/bench_schema.sql"
    fi
    q replica "START SLAVE"
    ;;
stop)
    for r in replica primary; do
        [ -f "$B/$r/mariadbd.pid" ] || continue
        p=$(cat "$B/$r/mariadbd.pid")
        mariadb-admin --defaults-file="$B/$r/my.cnf" shutdown || kill "$p"
        while kill -0 "$p" 2>/dev/null; do sleep 1; done
        echo "$r stopped (pid $p)"
    done
    ;;
destroy)
    sh "$0" stop
    rm -rf "$B"
    ;;
esac
