#!/usr/bin/env bash
# Builds dist/ with tsc unless it is already built from the current sources, so that `npm start`
# with unchanged sources starts at once. "Current" means: no file or folder under src/, sandbox/, simulators/,
# bench/ (a folder's time changes when a file in it is added, removed or renamed) and none of the
# build's inputs is newer than the stamp of the last successful build. A failed build leaves no
# stamp, so the next start tries again instead of running what an erroneous build emitted.
# The front ends (web/, built into web/dist by Vite) have their own stamp the same way: a change to
# the page does not recompile the server, and the reverse.
#
# With NODE_ENV=production it builds nothing and only checks that a build is there: the build tools
# (tsc, vite) are development dependencies, which a production install (`npm ci && npm run build &&
# npm prune --omit=dev`, docs/operations-install.md) has removed.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${NODE_ENV:-}" = production ]; then
  for built in dist/src/main.js web/dist/panel/index.html web/dist/checkout; do
    if [ ! -e "$built" ]; then
      echo "NODE_ENV=production runs the built gateway, and $built is missing: run \`npm run build\` first (with the development dependencies), then \`npm prune --omit=dev\`" >&2
      exit 1
    fi
  done
  exit 0
fi

# build_unless_current STAMP "INPUT…" PRUNED COMMAND…: PRUNED is a path under the inputs that is output.
build_unless_current() {
  local stamp=$1 inputs=$2 pruned=$3
  shift 3
  # shellcheck disable=SC2086 # the inputs are a word list
  if [ -f "$stamp" ] && [ -z "$(find $inputs -path "$pruned" -prune -o -newer "$stamp" -print -quit 2>/dev/null)" ]; then
    return 0
  fi
  rm -f "$stamp"
  mkdir -p "$(dirname "$stamp")"
  # Marked before building: a source saved during the build is newer than the stamp and rebuilds next time.
  touch "$stamp.next"
  "$@"
  mkdir -p "$(dirname "$stamp")"
  mv "$stamp.next" "$stamp"
}

build_unless_current dist/.build-stamp "src sandbox simulators bench tsconfig.json package.json package-lock.json" dist \
  node_modules/.bin/tsc -p .
# Vite empties web/dist/checkout, not web/dist, where the stamp lives.
build_unless_current web/dist/.build-stamp "web package.json package-lock.json" web/dist npm run --silent build:web
