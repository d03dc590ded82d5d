#!/usr/bin/env bash
# Starts (or reuses) a throwaway PostgreSQL cluster for the test suite on 127.0.0.1:$PG_TEST_PORT.
# Installs Debian's postgresql package when the machine lacks it. Prints the admin URL on stdout.
# `status` exits 0 when a server already answers on that port (scripts/test.sh then leaves it running).
#   scripts/pg-cluster.sh start | stop | status
set -euo pipefail
PORT="${PG_TEST_PORT:-55432}"
DIR="${PG_TEST_DIR:-/tmp/svc-gateway-pg-$PORT}"
action="${1:-start}"

bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$action" in
  start | stop | status) ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac

if [ "$action" = status ]; then
  BIN="$(bindir)"
  [ -n "$BIN" ] || exit 1
  # 0: accepting connections, 1: starting or shutting down; both mean a server holds the port.
  rc=0; "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT" -t 3 || rc=$?
  [ "$rc" -le 1 ] && exit 0 || exit 1
fi

if [ "$action" = stop ]; then
  BIN="$(bindir)"
  [ -n "$BIN" ] && [ -d "$DIR" ] && as_postgres "$BIN/pg_ctl" -D "$DIR" -m fast stop >&2 || true
  exit 0
fi

if [ -z "$(bindir)" ] || [ ! -x "$(bindir)/initdb" ]; then
  echo "pg-cluster: installing Debian's postgresql package" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 && apt-get install -y -qq postgresql >&2
fi
BIN="$(bindir)"

if [ ! -f "$DIR/PG_VERSION" ]; then
  mkdir -p "$DIR"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$DIR"
  as_postgres "$BIN/initdb" -D "$DIR" -U postgres --auth=trust -E UTF8 --no-locale >/dev/null
  cat >> "$DIR/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$DIR'
max_connections = 300
fsync = on
shared_buffers = 256MB
CONF
fi

if ! as_postgres "$BIN/pg_ctl" -D "$DIR" status >/dev/null 2>&1; then
  as_postgres "$BIN/pg_ctl" -D "$DIR" -l "$DIR/server.log" -w -t 60 start >&2
fi
echo "postgres://postgres@127.0.0.1:$PORT/postgres"
