#!/usr/bin/env bash
# The whole test suite: type check, then every integration test on embedded PGlite and again on a
# real PostgreSQL server (a throwaway cluster this script installs and starts when needed), both
# with a throwaway Redis (scripts/redis-server.sh) for the tests of counters shared by instances.
set -euo pipefail
cd "$(dirname "$0")/.."

[ -d node_modules ] || npm ci

echo "== type check"
npx tsc --noEmit -p tsconfig.test.json
npm run --silent arch

echo "== build"
npm run --silent build

echo "== Redis for the shared rate-limit counters (both passes)"
TEST_REDIS_URL="$(scripts/redis-server.sh start)"
export TEST_REDIS_URL

echo "== integration tests on embedded PostgreSQL (PGlite)"
npx vitest run

echo "== integration tests on a PostgreSQL server"
TEST_DATABASE_URL="$(scripts/pg-cluster.sh start)"
export TEST_DATABASE_URL
npx vitest run
