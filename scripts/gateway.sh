#!/usr/bin/env bash
# Runs the built gateway (dist/src/main.js) as `npm start` does, for a small idle footprint
# (docs/performance.md, "Idle memory"): glibc's malloc returns freed blocks of 32 KB and more to the
# system (MALLOC_MMAP_THRESHOLD_, overridable from the environment), and --expose-gc lets the gateway
# collect its garbage once it has gone quiet after work (src/lib/idle-gc.ts). Extra arguments go to node
# (e.g. --cpu-prof).
set -euo pipefail
cd "$(dirname "$0")/.."
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-32768}"
exec "${NODE:-node}" --expose-gc "$@" dist/src/main.js
