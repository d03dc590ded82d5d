#!/usr/bin/env bash
# Starts (or reuses) a throwaway PgBouncer in transaction pooling mode on 127.0.0.1:$PGBOUNCER_TEST_PORT,
# in front of the test PostgreSQL cluster on $PG_TEST_PORT (scripts/pg-cluster.sh), with every database
# name routed through. Installs Debian's pgbouncer package when the machine lacks it. Prints the admin
# URL through the bouncer on stdout. `status` exits 0 when something already answers on that port.
#   scripts/pgbouncer.sh start | stop | status
set -euo pipefail
PORT="${PGBOUNCER_TEST_PORT:-56432}"
PG_PORT="${PG_TEST_PORT:-55432}"
DIR="${PGBOUNCER_TEST_DIR:-/tmp/svc-gateway-pgbouncer-$PORT}"
action="${1:-start}"

as_postgres() {
  # PgBouncer refuses to run as root.
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
answers() { (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }

case "$action" in
  status) answers && exit 0 || exit 1 ;;
  stop)
    if [ -f "$DIR/pgbouncer.pid" ]; then
      kill "$(cat "$DIR/pgbouncer.pid")" 2>/dev/null || true
      for _ in $(seq 50); do answers || break; sleep 0.1; done
    fi
    exit 0
    ;;
  start) ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac

if ! command -v pgbouncer >/dev/null && [ ! -x /usr/sbin/pgbouncer ]; then
  echo "pgbouncer: installing Debian's pgbouncer package" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 && apt-get install -y -qq pgbouncer >&2
fi
BIN="$(command -v pgbouncer || echo /usr/sbin/pgbouncer)"

if ! answers; then
  # Made anew: a pid file left by an earlier run (a machine restarted or copied mid-run) may name a
  # process id that is now another process's, and PgBouncer would refuse to start.
  rm -rf "$DIR"
  mkdir -p "$DIR"
  # Trust, as the cluster behind it does; the user must still be listed.
  echo '"postgres" ""' > "$DIR/userlist.txt"
  cat > "$DIR/pgbouncer.ini" <<CONF
[databases]
* = host=127.0.0.1 port=$PG_PORT

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PORT
unix_socket_dir =
auth_type = trust
auth_file = $DIR/userlist.txt
pool_mode = transaction
max_client_conn = 2000
default_pool_size = 10
; the suite makes a database per gateway: let idle server connections go, or the cluster runs out
server_idle_timeout = 5
ignore_startup_parameters = extra_float_digits,options
logfile = $DIR/pgbouncer.log
pidfile = $DIR/pgbouncer.pid
CONF
  [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$DIR"
  as_postgres "$BIN" -d -q "$DIR/pgbouncer.ini" >&2
  for _ in $(seq 100); do answers && break; sleep 0.1; done
  answers || { echo "pgbouncer did not start; see $DIR/pgbouncer.log" >&2; exit 1; }
fi
echo "postgres://postgres@127.0.0.1:$PORT/postgres"
