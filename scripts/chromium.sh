#!/usr/bin/env bash
# Prints the path of Debian's Chromium for the browser tests (playwright-core drives it), installing
# the chromium package when the machine lacks it. CHROMIUM_PATH overrides the path.
set -euo pipefail
BIN="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$BIN" ]; then
  echo "chromium: installing Debian's chromium package" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 && apt-get install -y -qq chromium >&2
fi
echo "$BIN"
