#!/usr/bin/env bash
# Runs the built gateway (dist/src/main.js) as `npm start` does. glibc's malloc then returns freed blocks
# of 32 KB and more to the system (MALLOC_MMAP_THRESHOLD_, overridable from the environment): an idle
# gateway keeps less resident after its start-up's allocations (docs/performance.md, "Idle memory").
# Extra arguments go to node (e.g. --cpu-prof).
set -euo pipefail
cd "$(dirname "$0")/.."
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-32768}"
exec "${NODE:-node}" "$@" dist/src/main.js
