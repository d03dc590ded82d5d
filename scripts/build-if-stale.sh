#!/usr/bin/env bash
# Builds dist/ with tsc unless it is already built from the current sources, so that `npm start`
# with unchanged sources starts at once. "Current" means: no file or folder under src/, sandbox/,
# bench/ (a folder's time changes when a file in it is added, removed or renamed) and none of the
# build's inputs is newer than the stamp of the last successful build. A failed build leaves no
# stamp, so the next start tries again instead of running what an erroneous build emitted.
set -euo pipefail
cd "$(dirname "$0")/.."
STAMP=dist/.build-stamp
INPUTS=(src sandbox bench tsconfig.json package.json package-lock.json)

if [ -f "$STAMP" ] && [ -z "$(find "${INPUTS[@]}" -newer "$STAMP" -print -quit 2>/dev/null)" ]; then
  exit 0
fi
rm -f "$STAMP"
mkdir -p dist
# Marked before compiling: a source saved during the build is newer than the stamp and rebuilds next time.
touch "$STAMP.next"
node_modules/.bin/tsc -p .
mv "$STAMP.next" "$STAMP"
