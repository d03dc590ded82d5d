#!/usr/bin/env bash
# Starts (or reuses) a throwaway Redis server for the test suite on 127.0.0.1:$REDIS_TEST_PORT:
# daemonized, its own directory under /tmp, no persistence (counters only live for a window).
# Installs Debian's redis-server package when the machine lacks it. Prints the URL on stdout.
# `status` exits 0 when a server already answers on that port (scripts/test.sh then leaves it running).
#   scripts/redis-server.sh start | stop | status
set -euo pipefail
PORT="${REDIS_TEST_PORT:-56379}"
DIR="${REDIS_TEST_DIR:-/tmp/svc-gateway-redis-$PORT}"
action="${1:-start}"

ping() { redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null | grep -q PONG; }

case "$action" in
  start | stop | status) ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac

if [ "$action" = status ]; then
  command -v redis-cli >/dev/null && ping
  exit
fi

if [ "$action" = stop ]; then
  if command -v redis-cli >/dev/null && ping; then
    redis-cli -h 127.0.0.1 -p "$PORT" shutdown nosave >&2 || true
  fi
  exit 0
fi

if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
  echo "redis-server: installing Debian's redis-server package" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 && apt-get install -y -qq redis-server >&2
fi

if ! ping; then
  rm -rf "$DIR"  # made anew: nothing in it outlives a server (no persistence)
  mkdir -p "$DIR"
  redis-server \
    --bind 127.0.0.1 --port "$PORT" --protected-mode yes \
    --daemonize yes --dir "$DIR" --pidfile "$DIR/redis.pid" --logfile "$DIR/redis.log" \
    --save '' --appendonly no >&2
  for _ in $(seq 1 100); do
    ping && break
    sleep 0.1
  done
  if ! ping; then
    echo "redis-server: did not answer on 127.0.0.1:$PORT; see $DIR/redis.log" >&2
    exit 1
  fi
fi
echo "redis://127.0.0.1:$PORT"
