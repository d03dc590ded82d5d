#!/usr/bin/env bash
# Starts (or reuses) a throwaway PostgreSQL cluster for the test suite on 127.0.0.1:$PG_TEST_PORT.
# Installs Debian's postgresql package when the machine lacks it. Prints the admin URL on stdout.
# `status` exits 0 when a server already answers on that port (scripts/test.sh then leaves it running).
#
# A server that answers is reused; otherwise the cluster is made anew. A directory left behind by an
# earlier run (a machine restarted, or copied, while the tests ran) holds nothing worth keeping, but a
# stale postmaster.pid (whose process id may now be another process's) and gigabytes of WAL to
# replay: starting it can outlast any wait. `stop` removes the directory once its server has stopped.
#   scripts/pg-cluster.sh start | stop | status
set -euo pipefail
PORT="${PG_TEST_PORT:-55432}"
DIR="${PG_TEST_DIR:-/tmp/svc-gateway-pg-$PORT}"
URL="postgres://postgres@127.0.0.1:$PORT/postgres"
action="${1:-start}"

bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# pg_isready exits 0 when a server accepts connections, 1 when one is starting or shutting down, 2 when none answers.
accepting() { "$(bindir)/pg_isready" -q -h 127.0.0.1 -p "$PORT" -t 3; }
held() {
  local rc=0
  accepting || rc=$?
  [ "$rc" -le 1 ]
}

case "$action" in
  start | stop | status) ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac

if [ "$action" = status ]; then
  [ -n "$(bindir)" ] && held && exit 0 || exit 1
fi

if [ "$action" = stop ]; then
  BIN="$(bindir)"
  [ -n "$BIN" ] && [ -d "$DIR" ] || exit 0
  as_postgres "$BIN/pg_ctl" -D "$DIR" -m fast -w stop >&2 || true
  as_postgres "$BIN/pg_ctl" -D "$DIR" status >/dev/null 2>&1 || rm -rf "$DIR"
  exit 0
fi

if [ -z "$(bindir)" ] || [ ! -x "$(bindir)/initdb" ]; then
  echo "pg-cluster: installing Debian's postgresql package" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 && apt-get install -y -qq postgresql >&2
fi
BIN="$(bindir)"

if held; then
  # Someone's server, starting or ready: wait until it accepts connections, and reuse it.
  for _ in $(seq 60); do accepting && break; sleep 1; done
  accepting || { echo "pg-cluster: the server on 127.0.0.1:$PORT does not accept connections" >&2; exit 1; }
  echo "$URL"
  exit 0
fi

rm -rf "$DIR"
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
as_postgres "$BIN/pg_ctl" -D "$DIR" -l "$DIR/server.log" -w -t 60 start >&2
echo "$URL"
