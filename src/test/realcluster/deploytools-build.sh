#!/usr/bin/env bash
# Builds deploytools (deploytools/main.go): kstatus from sigs.k8s.io/cli-utils and gopher-lua, at
# the versions pinned in versions.env, for the tests of the DaemonSet's Stalled condition. The
# binary lands in a cache folder keyed by those versions and main.go's digest; a second run only
# checks it.
#
#   src/test/realcluster/deploytools-build.sh   # prints the binary's path on its last line
#   STALLWATCH_REALCLUSTER_CACHE=/some/dir deploytools-build.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=versions.env
. "$here/versions.env"

fail() { echo "deploytools build: $*" >&2; exit 1; }
command -v go >/dev/null || fail "go not found on PATH (Go 1.26 is needed to build deploytools)"

cache="${STALLWATCH_REALCLUSTER_CACHE:-$HOME/.cache/stallwatch/realcluster}"
digest="$(sha256sum "$here/deploytools/main.go" | cut -c1-12)"
dir="$cache/deploytools-cli-utils-${CLI_UTILS_VERSION}-gopher-lua-${GOPHER_LUA_VERSION}-$digest"
binary="$dir/bin/deploytools"
if [ -x "$binary" ]; then
  echo "deploytools build: cached in $binary" >&2
  echo "$binary"
  exit 0
fi
mkdir -p "$dir/bin.partial" "$dir/logs"
start=$(date +%s)
work="$dir/src"; rm -rf "$work"; mkdir -p "$work"
build() {
  cd "$work"
  go mod init stallwatch.dev/deploytools
  go mod edit -require "sigs.k8s.io/cli-utils@${CLI_UTILS_VERSION}" \
    -require "github.com/yuin/gopher-lua@${GOPHER_LUA_VERSION}"
  cp "$here/deploytools/main.go" .
  go mod tidy -e
  go build -trimpath -o "$dir/bin.partial/deploytools" .
}
export CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS="${GOFLAGS:-} -mod=mod"
if ! (build) >"$dir/logs/build.log" 2>&1; then
  tail -n 5 "$dir/logs/build.log" >&2
  fail "building deploytools failed (log: $dir/logs/build.log)"
fi
rm -rf "$dir/bin"; mv "$dir/bin.partial" "$dir/bin"
echo "deploytools build: built in $(( $(date +%s) - start )) s" >&2
echo "$binary"
