#!/usr/bin/env bash
# Prints the bin directory of a Node 24 binary, installing it once from the npm registry's
# node-linux-<arch>@24 package into the user's cache (about 190 MB, kept out of the work tree):
# CI and `npm run bench:node24` run on Node 24 where the machine has another Node.
#   PATH="$(scripts/node24.sh):$PATH" node -v
set -euo pipefail
cd "$(dirname "$0")/.."
package="node-linux-$(node -p process.arch)"
prefix="${XDG_CACHE_HOME:-$HOME/.cache}/svc-gateway/node24"
# Where earlier versions of this script put it.
rm -rf .tmp/node24
bin="$prefix/node_modules/$package/bin"
if [ ! -x "$bin/node" ] || [[ "$("$bin/node" -v)" != v24.* ]]; then
  npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$prefix" "$package@24" >&2
fi
echo "$bin"
