#!/bin/sh
# Private MariaDB instance for the samples: datadir, socket and binlogs under /var/tmp/iosift_db,
# TCP only on 127.0.0.1:33307.  usage: mariadb_instance.sh start|stop
# IOSIFT_DB_DIR and IOSIFT_DB_PORT override the directory and the port (the matrix cases use
# /var/tmp/iosift_mx/... and ports 3400-3409).
set -eu
B=${IOSIFT_DB_DIR:-/var/tmp/iosift_db}
PORT=${IOSIFT_DB_PORT:-33307}
CNF=$B/my.cnf
case ${1:-start} in
start)
    mkdir -p "$B/data" "$B/binlog" "$B/tmp"
    cat > "$CNF" <<CNF
[client]
socket=$B/mariadb.sock
user=root
[mariadbd]
user=mysql
datadir=$B/data
socket=$B/mariadb.sock
pid-file=$B/mariadbd.pid
log_error=$B/mariadb-error.log
tmpdir=$B/tmp
bind-address=127.0.0.1
port=$PORT
server_id=1
log_bin=$B/binlog/mariadb-bin
binlog_format=ROW
performance_schema=ON
innodb_buffer_pool_size=256M
innodb_log_file_size=96M
innodb_flush_method=O_DIRECT
sync_binlog=1
innodb_flush_log_at_trx_commit=1
skip-name-resolve
CNF
    chown -R mysql:mysql "$B"
    if [ ! -d "$B/data/mysql" ]; then
        mariadb-install-db --defaults-file="$CNF" --auth-root-authentication-method=socket > "$B/install.log" 2>&1
    fi
    mariadbd --defaults-file="$CNF" > /dev/null 2>&1 &
    i=0
    while ! mariadb --defaults-file="$CNF" -e 'SELECT 1' > /dev/null 2>&1; do
        i=$((i + 1)); [ $i -lt 60 ] || { echo "mariadbd did not start" >&2; exit 1; }; sleep 1
    done
    mariadb --defaults-file="$CNF" < "$(dirname "$0")/bench_schema.sql"
    echo "mariadbd pid $(cat "$B/mariadbd.pid")"
    ;;
stop)
    mariadb-admin --defaults-file="$CNF" shutdown
    ;;
esac
