#!/usr/bin/env bash
# Builds OpenKruise's kruise-manager from the Go module proxy at the version pinned in
# versions.env, with its CRDs and webhook configurations, for AdvancedDaemonSetRealClusterIT. Lands
# in a cache folder keyed by that version; a second run only checks it.
#
#   src/test/realcluster/kruise-build.sh     # prints the cache folder on its last line
#   STALLWATCH_REALCLUSTER_CACHE=/some/dir kruise-build.sh
#
# The folder holds bin/kruise-manager, crd/ (kruise's config/crd/bases) and webhook/ (its
# config/webhook/manifests.yaml).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=versions.env
. "$here/versions.env"

fail() { echo "kruise build: $*" >&2; exit 1; }
command -v go >/dev/null || fail "go not found on PATH (Go 1.26 is needed to build kruise-manager)"

cache="${STALLWATCH_REALCLUSTER_CACHE:-$HOME/.cache/stallwatch/realcluster}"
dir="$cache/kruise-${KRUISE_VERSION}"
if [ -x "$dir/bin/kruise-manager" ] && [ -d "$dir/crd" ] && [ -d "$dir/webhook" ]; then
  echo "kruise build: cached in $dir" >&2
  echo "$dir"
  exit 0
fi
mkdir -p "$dir/logs"
start=$(date +%s)
module=github.com/openkruise/kruise
work="$dir/src"; rm -rf "$work" "$dir/bin" "$dir/crd" "$dir/webhook" "$dir/out.partial"
mkdir -p "$work" "$dir/out.partial"
build() {
  cd "$work"
  # The module itself, unpacked from the proxy: its go.mod pins k8s.io/* with replace directives,
  # which only apply when it is the main module (a wrapper module would not inherit them).
  go mod download -json "$module@$KRUISE_VERSION" > download.json
  src=$(python3 -c 'import json,sys; print(json.load(open("download.json"))["Dir"])')
  cp -r "$src" module; chmod -R u+w module
  cd module
  go build -trimpath -ldflags "-s -w" -o "$dir/out.partial/kruise-manager" .
  mkdir -p "$dir/out.partial/crd" "$dir/out.partial/webhook"
  cp config/crd/bases/*.yaml "$dir/out.partial/crd/"
  cp config/webhook/manifests.yaml "$dir/out.partial/webhook/"
}
export CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS="${GOFLAGS:-} -mod=mod"
if ! (build) >"$dir/logs/build.log" 2>&1; then
  tail -n 5 "$dir/logs/build.log" >&2
  fail "building $module@$KRUISE_VERSION failed (log: $dir/logs/build.log)"
fi
mkdir -p "$dir/bin"
mv "$dir/out.partial/kruise-manager" "$dir/bin/"
mv "$dir/out.partial/crd" "$dir/out.partial/webhook" "$dir/"
rm -rf "$dir/out.partial" "$work"
echo "kruise build: built in $(( $(date +%s) - start )) s" >&2
echo "$dir"
