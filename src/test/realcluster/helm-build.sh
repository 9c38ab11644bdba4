#!/usr/bin/env bash
# Builds the helm CLI from the Go module proxy at the version pinned in versions.env, for
# UpgradeRealClusterIT (helm install, upgrade and rollback of the chart against the real API
# server). The binary lands in a cache folder keyed by that version; a second run only checks it.
#
#   src/test/realcluster/helm-build.sh        # prints the binary's path on its last line
#   STALLWATCH_REALCLUSTER_CACHE=/some/dir helm-build.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=versions.env
. "$here/versions.env"

fail() { echo "helm build: $*" >&2; exit 1; }
command -v go >/dev/null || fail "go not found on PATH (Go 1.26 is needed to build helm)"

cache="${STALLWATCH_REALCLUSTER_CACHE:-$HOME/.cache/stallwatch/realcluster}"
dir="$cache/helm-${HELM_VERSION}"
binary="$dir/bin/helm"
if [ -x "$binary" ]; then
  echo "helm build: cached in $binary" >&2
  echo "$binary"
  exit 0
fi
mkdir -p "$dir/bin.partial" "$dir/logs"
start=$(date +%s)
# A wrapper module that requires it, as ksm-build.sh does (go install name@version would ask the
# proxy for the module's version list).
work="$dir/src"; rm -rf "$work"; mkdir -p "$work"
build() {
  cd "$work"
  go mod init stallwatch.dev/helm-build
  go mod edit -require "helm.sh/helm/v4@${HELM_VERSION}"
  cat > tools.go <<'GO'
//go:build tools

package tools

import _ "helm.sh/helm/v4/cmd/helm"
GO
  go mod tidy -e
  go build -trimpath -o "$dir/bin.partial/helm" \
    -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=${HELM_VERSION}" \
    helm.sh/helm/v4/cmd/helm
}
export CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS="${GOFLAGS:-} -mod=mod"
if ! (build) >"$dir/logs/build.log" 2>&1; then
  tail -n 5 "$dir/logs/build.log" >&2
  fail "building helm.sh/helm/v4@${HELM_VERSION} failed (log: $dir/logs/build.log)"
fi
rm -rf "$dir/bin"; mv "$dir/bin.partial" "$dir/bin"
"$binary" version --short >&2 || fail "the built helm does not run (log: $dir/logs/build.log)"
echo "helm build: built in $(( $(date +%s) - start )) s" >&2
echo "$binary"
