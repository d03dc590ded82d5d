#!/usr/bin/env bash
# The whole test suite: type check, architecture, lint and format check, then every integration test on
# a throwaway PostgreSQL cluster started from the same npm binaries the gateway's embedded server runs
# (scripts/pg-cluster.sh), with a throwaway Redis (scripts/redis-server.sh) for the counters instances
# share. Two passes: the machine's Node against the server directly, then Node 24 (the npm package
# node-linux-<arch>@24, installed once into the user's cache by scripts/node24.sh) through PgBouncer in
# transaction pooling mode (scripts/pgbouncer.sh), without the browser and proof suites, which test the
# same on any Node, and without the production install check (scripts/check-production-install.sh). The
# last line sums every pass: "Tests: N passed, M failed, K skipped".
#
# The throwaway servers this script starts are stopped when it ends, whether the tests passed,
# failed or the run was interrupted; a server that was already running when it began is left alone.
# PG_TEST_PORT, PGBOUNCER_TEST_PORT and REDIS_TEST_PORT choose their ports (default 55432, 56432, 56379).
set -euo pipefail
cd "$(dirname "$0")/.."

started=()  # the scripts whose server this run started: "scripts/pg-cluster.sh", …
child=      # the test run in progress, so that a signal can end it before the servers stop
results="$(mktemp -d)"  # each pass's vitest JSON report, summed into one line at the end
passes=0

# One line across every pass, whether the run passed, failed or was interrupted: "N passed, M failed".
summary() {
  [ "$passes" -gt 0 ] || return 0
  node -e '
    const { readdirSync, readFileSync } = require("node:fs");
    const [dir, started] = process.argv.slice(1);
    const reports = readdirSync(dir).map((f) => JSON.parse(readFileSync(`${dir}/${f}`, "utf8")));
    const sum = (key) => reports.reduce((n, r) => n + r[key], 0);
    const unfinished = Number(started) - reports.length;
    console.log(`== ${reports.length} of ${started} test passes finished${unfinished ? " (a pass stopped before its report)" : ""}`);
    console.log(`Tests: ${sum("numPassedTests")} passed, ${sum("numFailedTests")} failed, ${sum("numPendingTests") + sum("numTodoTests")} skipped`);
  ' "$results" "$passes" || true
}

cleanup() {
  local script
  summary
  rm -rf "$results"
  for script in ${started[@]+"${started[@]}"}; do
    "$script" stop || true
  done
}
on_signal() {
  trap - INT TERM
  if [ -n "$child" ]; then
    kill -TERM "$child" 2>/dev/null || true
    wait "$child" 2>/dev/null || true
  fi
  exit "$1"
}
trap cleanup EXIT
trap 'on_signal 130' INT
trap 'on_signal 143' TERM

# Runs a command in the background and waits for it: bash runs a trap only between commands, and
# `wait` is the one command a signal interrupts, so an interrupt stops the tests and then the servers.
run() {
  local rc=0
  "$@" &
  child=$!
  wait "$child" || rc=$?
  child=
  return "$rc"
}

# Called before a server script's `start`: that server is stopped at the end only if it was not
# already answering.
stop_at_end_unless_running() {
  "$1" status || started+=("$1")
}

[ -d node_modules ] || npm ci

# The checks in two lanes, one per core (each tool runs on one): a failure in either fails the run.
lane() {
  local step
  for step in "$@"; do
    echo "== $step" >&2
    bash -c "$step" || return 1
  done
}
lane "node_modules/.bin/tsc --noEmit -p tsconfig.test.json" "node_modules/.bin/tsc -p web" \
  "node_modules/.bin/tsc --noEmit -p sdk" \
  "node_modules/.bin/depcruise src sandbox simulators test bench web sdk scripts --config .dependency-cruiser.cjs" \
  "node_modules/.bin/prettier --check --log-level warn ." "node_modules/.bin/tsx scripts/sdk-types.ts check" &
checks=$!
lane "node_modules/.bin/eslint ." "bash scripts/check-commits.sh" "bash scripts/build-if-stale.sh"
wait "$checks"

echo "== Chromium for the browser tests of the hosted checkout"
run bash scripts/chromium.sh >/dev/null

echo "== throwaway Redis (counters shared by instances), PostgreSQL and PgBouncer"
stop_at_end_unless_running scripts/redis-server.sh
TEST_REDIS_URL="$(scripts/redis-server.sh start)"
export TEST_REDIS_URL
stop_at_end_unless_running scripts/pg-cluster.sh
pg_url="$(scripts/pg-cluster.sh start)"
# The server itself: test databases are made there, and tests that drop connections or read plans use it.
export TEST_POSTGRES_SERVER="$pg_url"
# The second pass reaches the same cluster through PgBouncer in transaction pooling mode, as a large
# deployment would: no session state may be relied on between transactions.
stop_at_end_unless_running scripts/pgbouncer.sh
bouncer_url="$(scripts/pgbouncer.sh start)"

# One pass: vitest's own report on the terminal, and a JSON report for the summary.
vitest_pass() {
  passes=$((passes + 1))
  run "$@" --reporter=default --reporter=json --outputFile.json="$results/pass-$passes.json"
}

echo "== integration tests on PostgreSQL, Node $(node -v)"
TEST_DATABASE_URL="$pg_url" vitest_pass node_modules/.bin/vitest run

[[ "$(node -v)" == v24.* ]] || PATH="$(scripts/node24.sh):$PATH"
echo "== integration tests through PgBouncer (transaction pooling), Node $(node -v), without the browser and proof suites"
# LISTEN (the key cache) needs a session of its own: it goes to the server directly, as in production.
# The production install is a packaging check, proven once by the first pass.
TEST_DATABASE_URL="$bouncer_url" TEST_DATABASE_LISTEN_SERVER="$pg_url" vitest_pass node_modules/.bin/vitest run \
  --exclude 'test/**/*browser.test.ts' --exclude 'test/proof/**' --exclude 'test/foundation/production-install.test.ts'
