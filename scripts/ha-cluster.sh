#!/usr/bin/env bash
# A throwaway highly available PostgreSQL on loopback, to prove the gateway survives losing its database
# server (docs/operations.md): one etcd (the consensus store), $HA_NODES Patroni-managed PostgreSQL 15
# nodes (Debian's packages) in synchronous mode with synchronous_mode_strict (a commit is acknowledged
# only once a standby has it, so a failover never loses an acknowledged commit), and HAProxy on
# 127.0.0.1:$HA_PROXY_PORT routing to whichever node Patroni's REST API calls the primary (GET /primary).
# Installs Debian's patroni, etcd-server, haproxy and postgresql-15 packages when missing (as root).
#
#   scripts/ha-cluster.sh start          starts (or reuses) the cluster; prints DATABASE_URL through HAProxy
#   scripts/ha-cluster.sh stop           stops every process and removes the directory
#   scripts/ha-cluster.sh status         exits 0 when a writable primary answers through HAProxy; prints the nodes
#   scripts/ha-cluster.sh kill-primary   SIGKILLs the leader's Patroni and postmaster; prints the node's name,
#                                        then starts that node's Patroni again (as a supervisor would), so
#                                        it rejoins as a standby; HA_NO_RESTART=1 leaves it down
#   scripts/ha-cluster.sh leader         prints the current leader's name
#   scripts/ha-cluster.sh bindir         installs the packages when missing; prints PostgreSQL 15's binaries'
#                                        directory (pg_basebackup, pg_ctl: the restore drill uses them too)
#   scripts/ha-cluster.sh healthy        exits 0 when every node runs on the leader's timeline and one of them
#                                        is the synchronous standby: the cluster can fail over again
#
# Ports: HA_PROXY_PORT (default 55600), HA_ETCD_PORT (etcd clients, +1 for its peer port; default 55610),
# node i's PostgreSQL on HA_PG_PORT+i and its REST API on HA_API_PORT+i (defaults 55620, 55630).
# Directory: HA_DIR (default /tmp/svc-gateway-ha-$HA_PROXY_PORT), with WAL archived to $HA_DIR/archive.
# As root, every process runs as the user postgres (PostgreSQL and Patroni refuse root).
set -euo pipefail
PROXY_PORT="${HA_PROXY_PORT:-55600}"
ETCD_PORT="${HA_ETCD_PORT:-55610}"
PG_PORT="${HA_PG_PORT:-55620}"
API_PORT="${HA_API_PORT:-55630}"
NODES="${HA_NODES:-3}"
DIR="${HA_DIR:-/tmp/svc-gateway-ha-$PROXY_PORT}"
SCOPE="svc-gateway-ha-$PROXY_PORT"
URL="postgres://postgres@127.0.0.1:$PROXY_PORT/postgres"
SSD=/sbin/start-stop-daemon
action="${1:-start}"

case "$action" in
  start | stop | status | kill-primary | leader | healthy | bindir) ;;
  *) echo "usage: $0 start|stop|status|kill-primary|leader|healthy|bindir" >&2; exit 2 ;;
esac

log() { echo "ha-cluster: $*" >&2; }
as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
node_names() { seq 1 "$NODES" | sed 's/^/node/'; }
node_index() { echo "${1#node}"; }
api() { curl -s -m 1 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$((API_PORT + $1))/$2" 2>/dev/null || true; }

# The node whose Patroni answers 200 on /primary (it holds the leader key and runs a primary).
leader() {
  local name
  for name in $(node_names); do
    [ "$(api "$(node_index "$name")" primary)" = 200 ] && { echo "$name"; return 0; }
  done
  return 1
}

# A write answered through HAProxy: a primary, with a synchronous standby to acknowledge it.
writable() {
  [ -x "$BIN/psql" ] || return 1
  PGCONNECT_TIMEOUT=2 timeout 5 "$BIN/psql" -qAtX "$URL" \
    -c 'create table if not exists ha_probe (at timestamptz); insert into ha_probe values (now())' >/dev/null 2>&1
}

# start-stop-daemon keeps each process's pid file, so stop and kill-primary touch only processes of this cluster.
daemon() { # name, command…
  local name="$1"; shift
  local user=()
  [ "$(id -u)" = 0 ] && user=(--chuid postgres)
  $SSD --start --quiet --background --make-pidfile --pidfile "$DIR/$name.pid" "${user[@]}" \
    --output "$DIR/$name.log" --startas "$1" -- "${@:2}"
}
running() { [ -f "$DIR/$1.pid" ] && kill -0 "$(cat "$DIR/$1.pid")" 2>/dev/null; }
stop_daemon() { # name, signal schedule
  [ -f "$DIR/$1.pid" ] || return 0
  # As root, a pid file the user postgres could write is trusted only with the user to match too.
  local user=()
  [ "$(id -u)" = 0 ] && user=(--user postgres)
  $SSD --stop --quiet --pidfile "$DIR/$1.pid" "${user[@]}" --remove-pidfile --retry "${2:-TERM/15/KILL/5}" >&2 || true
}

BIN=/usr/lib/postgresql/15/bin

if [ "$action" = status ]; then
  for name in $(node_names); do
    echo "$name: $(running "$name" && echo running || echo down), /primary $(api "$(node_index "$name")" primary), /replica $(api "$(node_index "$name")" replica)"
  done
  writable
  exit
fi

if [ "$action" = leader ]; then leader; exit; fi

# Patroni promotes only the standby its synchronous key names: until the leader has named one, a
# second failure leaves the cluster without a primary (safe, but down until an operator acts).
if [ "$action" = healthy ]; then
  for name in $(node_names); do
    # Any live node's REST API tells the whole cluster as the consensus store has it.
    view="$(curl -s -m 2 "http://127.0.0.1:$((API_PORT + $(node_index "$name")))/cluster" 2>/dev/null)" || continue
    [ -n "$view" ] || continue
    echo "$view" | python3 -c '
import json, sys
members = json.load(sys.stdin)["members"]
leader = [m for m in members if m["role"] == "leader"]
ok = (len(members) == int(sys.argv[1]) and len(leader) == 1
      and any(m["role"] == "sync_standby" for m in members)
      and all(m["state"] in ("running", "streaming") and m.get("timeline") == leader[0].get("timeline") for m in members))
sys.exit(0 if ok else 1)' "$NODES"
    exit
  done
  exit 1
fi

if [ "$action" = stop ]; then
  [ -d "$DIR" ] || exit 0
  stop_daemon haproxy
  # All at once: nothing of a throwaway cluster is worth a node waiting for another's shutdown.
  for name in $(node_names); do stop_daemon "$name" TERM/10/KILL/5 & done
  wait
  # A postmaster whose Patroni was killed outlives it: stopped through its own pid file.
  for name in $(node_names); do
    pidfile="$DIR/$name/data/postmaster.pid"
    if [ -f "$pidfile" ]; then
      pid="$(head -1 "$pidfile")"
      if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = postgres ]; then kill -KILL "$pid" 2>/dev/null || true; fi
    fi
  done
  stop_daemon etcd
  rm -rf "$DIR"
  exit 0
fi

if [ "$action" = kill-primary ]; then
  name="$(leader)" || { log "no node answers as the primary"; exit 1; }
  postmaster="$(head -1 "$DIR/$name/data/postmaster.pid")"
  kill -KILL "$(cat "$DIR/$name.pid")" "$postmaster" 2>/dev/null || true
  rm -f "$DIR/$name.pid"
  echo "$name"
  if [ "${HA_NO_RESTART:-}" != 1 ]; then
    # Started again once another node leads (started at once, it would find its own leader key still
    # there and simply carry on as the primary): Patroni then rewinds it to the new timeline and starts
    # it as a standby. In the background, so the caller sees the failover as clients do.
    (
      for _ in $(seq 300); do
        other="$(leader || true)"
        [ -n "$other" ] && [ "$other" != "$name" ] && break
        sleep 0.2
      done
      daemon "$name" /usr/bin/patroni "$DIR/$name.yml"
    ) >/dev/null 2>&1 &
  fi
  exit 0
fi

# start
need=()
command -v patroni >/dev/null || need+=(patroni)
command -v etcd >/dev/null || need+=(etcd-server)
command -v haproxy >/dev/null && [ -x /usr/sbin/haproxy ] || need+=(haproxy)
[ -x "$BIN/pg_ctl" ] || need+=(postgresql-15)
command -v curl >/dev/null || need+=(curl)
if [ "${#need[@]}" -gt 0 ]; then
  log "installing Debian's ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 && apt-get install -y -qq "${need[@]}" >&2
fi
# Debian's postgresql-common makes a cluster of its own on install: it is not this one, and it is left alone.
if [ "$(id -u)" = 0 ]; then
  id -u postgres >/dev/null 2>&1 || useradd --system --user-group --no-create-home --shell /usr/sbin/nologin postgres
fi

if [ "$action" = bindir ]; then echo "$BIN"; exit 0; fi

if running etcd && writable; then
  echo "$URL"
  exit 0
fi

# Made anew: what an earlier run left (a machine restarted mid-run) holds nothing worth keeping.
"$0" stop
mkdir -p "$DIR/archive"
[ "$(id -u)" = 0 ] && chown -R postgres:postgres "$DIR"

daemon etcd /usr/bin/etcd --name ha --data-dir "$DIR/etcd" --enable-v2=true \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" \
  --initial-advertise-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" \
  --initial-cluster "ha=http://127.0.0.1:$((ETCD_PORT + 1))"
etcd_up() { curl -s -m 1 "http://127.0.0.1:$ETCD_PORT/health" | grep -q true; }
for _ in $(seq 100); do etcd_up && break; sleep 0.2; done
etcd_up || { log "etcd did not start; see $DIR/etcd.log"; exit 1; }

for name in $(node_names); do
  i="$(node_index "$name")"
  mkdir -p "$DIR/$name"
  chmod 700 "$DIR/$name"
  # ttl 10 s, loop_wait 2 s: a dead leader's key expires within 10 s and a standby takes over at its next loop.
  cat > "$DIR/$name.yml" <<YAML
scope: $SCOPE
name: $name
log:
  level: WARNING
restapi:
  listen: 127.0.0.1:$((API_PORT + i))
  connect_address: 127.0.0.1:$((API_PORT + i))
etcd:
  host: 127.0.0.1:$ETCD_PORT
bootstrap:
  dcs:
    ttl: 10
    loop_wait: 2
    retry_timeout: 4
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    synchronous_mode_strict: true
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        wal_level: replica
        hot_standby: 'on'
        wal_log_hints: 'on'
        max_wal_senders: 10
        max_replication_slots: 10
        max_connections: 300
        archive_mode: 'on'
        archive_command: 'test ! -f $DIR/archive/%f && cp %p $DIR/archive/%f'
        archive_timeout: 10
  initdb:
    - encoding: UTF8
    - locale: C
    - auth: trust
  pg_hba:
    - local all all trust
    - host replication all 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:$((PG_PORT + i))
  connect_address: 127.0.0.1:$((PG_PORT + i))
  data_dir: $DIR/$name/data
  bin_dir: $BIN
  pgpass: $DIR/$name/pgpass
  authentication:
    superuser: {username: postgres, password: postgres}
    replication: {username: postgres, password: postgres}
    rewind: {username: postgres, password: postgres}
  parameters:
    unix_socket_directories: '$DIR/$name'
    shared_buffers: 64MB
tags:
  nofailover: false
  noloadbalance: false
YAML
done
[ "$(id -u)" = 0 ] && chown -R postgres:postgres "$DIR"

# The first node bootstraps the cluster; the others copy it (pg_basebackup) once it leads.
daemon node1 /usr/bin/patroni "$DIR/node1.yml"
for _ in $(seq 120); do [ "$(api 1 primary)" = 200 ] && break; sleep 0.5; done
[ "$(api 1 primary)" = 200 ] || { log "node1 did not become the primary; see $DIR/node1.log"; exit 1; }
for name in $(node_names | tail -n +2); do daemon "$name" /usr/bin/patroni "$DIR/$name.yml"; done

cat > "$DIR/haproxy.cfg" <<CFG
global
  maxconn 2000
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 1s
listen primary
  bind 127.0.0.1:$PROXY_PORT
  option httpchk GET /primary
  http-check expect status 200
  # Connections to a node that stops being the primary are cut, so no client keeps talking to it.
  default-server inter 1s fastinter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
$(for name in $(node_names); do i="$(node_index "$name")"; echo "  server $name 127.0.0.1:$((PG_PORT + i)) maxconn 500 check port $((API_PORT + i))"; done)
CFG
[ "$(id -u)" = 0 ] && chown postgres:postgres "$DIR/haproxy.cfg"
daemon haproxy /usr/sbin/haproxy -db -f "$DIR/haproxy.cfg"

# Ready when a write commits through HAProxy and the cluster could fail over: every node streaming and
# the standby Patroni may promote named (a write commits earlier, acknowledged by any standby).
for _ in $(seq 240); do writable && "$0" healthy && break; sleep 0.5; done
writable && "$0" healthy || { log "the cluster did not become ready; see the logs in $DIR"; exit 1; }
echo "$URL"
