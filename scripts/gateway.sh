#!/usr/bin/env bash
# Runs the built gateway (dist/src/main.js) as `npm start` does, with two memory settings of the
# process that must be in place before Node starts (docs/performance.md, "Idle memory"):
# - glibc's malloc keeps what V8's optimising compiler frees after compiling the embedded PostgreSQL
#   (WebAssembly, ~60 MB) in its arenas; blocks of 32 KB and more from mmap go back to the system
#   when freed. No measurable cost in payments per second.
# - On the embedded store only, V8's young generation at most 8 MB per semi-space (16 MB by default
#   on 64-bit): ~20 MB less resident when idle, for 5-8 % more gateway CPU per payment (measured).
# Both can be overridden from the environment. Extra arguments go to node (e.g. --cpu-prof).
set -euo pipefail
cd "$(dirname "$0")/.."
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-32768}"
semi_space="${NODE_SEMI_SPACE_MB:-8}"
if ! [[ $semi_space =~ ^[1-9][0-9]{0,3}$ ]]; then
  echo "svc-gateway failed to start: NODE_SEMI_SPACE_MB must be a whole number of MB from 1 to 9999, got '$semi_space'" >&2
  exit 1
fi
young=()
# The embedded store is the one without DATABASE_URL (blank counts as unset, as in src/config.ts).
database_url="${DATABASE_URL:-}"
if [ -z "${database_url//[[:space:]]/}" ]; then young=(--max-semi-space-size="$semi_space"); fi
exec "${NODE:-node}" "${young[@]}" "$@" dist/src/main.js
