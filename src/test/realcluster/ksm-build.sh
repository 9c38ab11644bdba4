#!/usr/bin/env bash
# Builds kube-state-metrics from the Go module proxy at the version pinned in versions.env, for the
# scale run (scale.sh), which runs it beside stallwatch on the same cluster. The binary lands in a
# cache folder keyed by that version; a second run only checks it.
#
#   src/test/realcluster/ksm-build.sh        # prints the binary's path on its last line
#   STALLWATCH_REALCLUSTER_CACHE=/some/dir ksm-build.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=versions.env
. "$here/versions.env"

fail() { echo "ksm build: $*" >&2; exit 1; }
command -v go >/dev/null || fail "go not found on PATH (Go 1.26 is needed to build kube-state-metrics)"

cache="${STALLWATCH_REALCLUSTER_CACHE:-$HOME/.cache/stallwatch/realcluster}"
dir="$cache/kube-state-metrics-${KUBE_STATE_METRICS_VERSION}"
binary="$dir/bin/kube-state-metrics"
if [ -x "$binary" ]; then
  echo "ksm build: cached in $binary" >&2
  echo "$binary"
  exit 0
fi
mkdir -p "$dir/bin.partial" "$dir/logs"
start=$(date +%s)
# A wrapper module that requires it (go install name@version also asks the proxy for the module's
# version list, which it refuses here); its go.mod has no replaces, so its own pins apply.
work="$dir/src"; rm -rf "$work"; mkdir -p "$work"
build() {
  cd "$work"
  go mod init stallwatch.dev/ksm-build
  go mod edit -require "k8s.io/kube-state-metrics/v2@${KUBE_STATE_METRICS_VERSION}"
  cat > tools.go <<'GO'
//go:build tools

package tools

import _ "k8s.io/kube-state-metrics/v2"
GO
  go mod tidy -e
  go build -trimpath -o "$dir/bin.partial/kube-state-metrics" \
    -ldflags "-X github.com/prometheus/common/version.Version=${KUBE_STATE_METRICS_VERSION#v}" \
    k8s.io/kube-state-metrics/v2
}
export CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS="${GOFLAGS:-} -mod=mod"
if ! (build) >"$dir/logs/build.log" 2>&1; then
  tail -n 5 "$dir/logs/build.log" >&2
  fail "building k8s.io/kube-state-metrics/v2@${KUBE_STATE_METRICS_VERSION} failed (log: $dir/logs/build.log)"
fi
rm -rf "$dir/bin"; mv "$dir/bin.partial" "$dir/bin"
echo "ksm build: built in $(( $(date +%s) - start )) s" >&2
echo "$binary"
