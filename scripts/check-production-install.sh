#!/usr/bin/env bash
# Proves the production install of docs/operations-install.md: the built gateway with its production
# dependencies only starts with NODE_ENV=production and answers its probes. In a temporary directory it
# puts what a deployment has after `npm ci && npm run build && npm prune --omit=dev` (package.json and
# package-lock.json, dist/, web/dist/, the two scripts `npm start` runs), installs the production
# dependencies from the lock file (`npm ci --omit=dev`, from npm's cache when it holds them), checks no
# build tool came with them, starts `npm start` with NODE_ENV=production, waits for GET /healthz and
# GET /readyz, stops it with SIGTERM and expects a clean exit. Everything it made is removed at the end.
#
# DATABASE_URL: the PostgreSQL database the gateway uses (migrated on start); without it, an embedded
# server in the temporary directory. The build must exist (`npm run build`, or any test run).
#   scripts/check-production-install.sh
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

work="$(mktemp -d "${TMPDIR:-/tmp}/svc-gateway-production.XXXXXX")"
# The embedded server runs as another user when this runs as root: it must reach the data directory.
chmod 755 "$work"
gateway=
cleanup() {
  # The session setsid made for `npm start`: npm, its shell and the gateway.
  if [ -n "$gateway" ]; then kill -KILL -- "-$gateway" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

step() { echo "== $*" >&2; }

for built in dist/src/main.js web/dist/panel/index.html web/dist/checkout/index.html; do
  [ -e "$built" ] || { echo "no $built: run npm run build first" >&2; exit 1; }
done

step "copy the build and the package files to $work"
mkdir -p "$work/app/scripts" "$work/app/web"
cp package.json package-lock.json "$work/app/"
cp -R dist "$work/app/dist"
cp -R web/dist "$work/app/web/dist"
cp scripts/gateway.sh scripts/build-if-stale.sh "$work/app/scripts/"
cd "$work/app"

step "npm ci --omit=dev"
npm ci --omit=dev --prefer-offline --no-audit --no-fund --loglevel=error >&2
for tool in tsc tsx vite vitest eslint; do
  if [ -e "node_modules/.bin/$tool" ]; then
    echo "the production install holds $tool, a development dependency" >&2
    exit 1
  fi
done

step "NODE_ENV=production npm start"
secret() { node -e 'process.stdout.write(require("node:crypto").randomBytes(36).toString("base64url"))'; }
export NODE_ENV=production PORT=0 LOG_LEVEL=warn
JWT_SECRET="$(secret)"
CALLBACK_SIGNING_SECRET="$(secret)"
CARD_ENCRYPTION_KEYS="k1:$(node -e 'process.stdout.write(require("node:crypto").randomBytes(32).toString("base64"))')"
CARD_FINGERPRINT_SECRET="$(secret)"
IDEMPOTENCY_FINGERPRINT_SECRET="$(secret)"
export JWT_SECRET CALLBACK_SIGNING_SECRET CARD_ENCRYPTION_KEYS CARD_FINGERPRINT_SECRET IDEMPOTENCY_FINGERPRINT_SECRET
[ -n "${DATABASE_URL:-}" ] || export DATA_DIR="$work/data"
# In a session of its own, so that everything `npm start` started can be found, and removed at the end.
npm_config_loglevel=silent setsid npm start >"$work/stdout" 2>"$work/stderr" &
gateway=$!

url=
for _ in $(seq 1 120); do
  url="$(cat "$work/stdout" "$work/stderr" | grep -o 'listening on http://[^ ]*' | head -1 | cut -d' ' -f3 || true)"
  [ -n "$url" ] && break
  if ! kill -0 "$gateway" 2>/dev/null; then
    echo "the gateway stopped before it listened:" >&2
    cat "$work/stdout" "$work/stderr" >&2
    exit 1
  fi
  sleep 0.5
done
[ -n "$url" ] || { echo "the gateway did not listen within 60 s" >&2; cat "$work/stderr" >&2; exit 1; }

probe() {
  node -e '
    fetch(process.argv[1]).then(async (res) => {
      const body = await res.text();
      console.log(`${new URL(process.argv[1]).pathname} ${res.status} ${body}`);
      process.exit(res.status === 200 ? 0 : 1);
    }, (error) => { console.error(error.message); process.exit(1); });
  ' "$1"
}
probe "$url/healthz"
probe "$url/readyz"

step "SIGTERM"
# To the gateway itself, as a process manager stops it; npm's exit status is the gateway's.
node_pid="$(pgrep -s "$gateway" -f 'dist/src/main.js' | head -1)"
kill -TERM "$node_pid"
status=0
wait "$gateway" || status=$?
gateway=
if [ "$status" -ne 0 ]; then
  echo "the gateway exited with $status on SIGTERM" >&2
  cat "$work/stderr" >&2
  exit 1
fi
if grep -q '"level":[56]0' "$work/stdout" "$work/stderr"; then
  echo "the gateway logged errors:" >&2
  cat "$work/stdout" "$work/stderr" >&2
  exit 1
fi
echo "production install: started with NODE_ENV=production without development dependencies, probes answered, stopped cleanly"
