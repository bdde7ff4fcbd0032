#!/usr/bin/env bash
# Builds FerretDB v1 (SQLite backend) from the Go module proxy into a cache outside the repo.
# Prints the binary's path. Only the first run pays for the build.
#
# A plain `go install .../cmd/ferretdb@v1.24.2` builds a binary that panics at start:
# build/version/version.txt is generated from git and is not part of the module, so we write it.
set -euo pipefail

version="${FERRETDB_VERSION:-v1.24.2}"
cache="${MODEL_ROUTES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nestjs-model-routes}"
bin="$cache/ferretdb-$version"

if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "build-ferretdb: no 'go' on PATH; set MONGODB_URI or install Go" >&2
  exit 1
fi

mkdir -p "$cache"
work=$(mktemp -d "$cache/build.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

echo "build-ferretdb: building FerretDB $version into $cache (first run only)" >&2
dir=$(go mod download -json "github.com/FerretDB/FerretDB@$version" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
  echo "build-ferretdb: 'go mod download' did not return a module directory" >&2
  exit 1
fi

cp -R "$dir" "$work/src"
chmod -R u+w "$work/src"
echo "$version" > "$work/src/build/version/version.txt"

build() {
  (cd "$work/src" && CGO_ENABLED=0 go build -trimpath -o "$work/ferretdb" ./cmd/ferretdb)
}
if ! build; then
  # FerretDB v1.24 pins an older Go; a newer local toolchain may refuse it.
  echo "build-ferretdb: retrying with GOTOOLCHAIN=go1.24.3" >&2
  GOTOOLCHAIN=go1.24.3 build
fi

mv "$work/ferretdb" "$bin"
echo "$bin"
