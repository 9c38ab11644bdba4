#!/usr/bin/env bash
# Fetches prometheus-operator's CustomResourceDefinitions for ServiceMonitor and PrometheusRule from
# the Go module proxy (github.com/prometheus-operator/prometheus-operator, its
# example/prometheus-operator-crd/ files) at the version pinned in versions.env, into a cache
# folder keyed by that version; a second run only checks them. ChartRealClusterIT installs them
# into the real API server and the chart's optional monitoring objects against them.
#
#   src/test/realcluster/prometheus-operator-crds.sh   # prints the folder on its last line
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=versions.env
. "$here/versions.env"

fail() { echo "prometheus-operator CRDs: $*" >&2; exit 1; }
command -v go >/dev/null || fail "go not found on PATH (the module is fetched with go mod download)"

cache="${STALLWATCH_REALCLUSTER_CACHE:-$HOME/.cache/stallwatch/realcluster}"
dir="$cache/prometheus-operator-crds-${PROMETHEUS_OPERATOR_VERSION}"
crds=(monitoring.coreos.com_servicemonitors.yaml monitoring.coreos.com_prometheusrules.yaml)
complete() { for f in "${crds[@]}"; do [ -s "$dir/$f" ] || return 1; done; }
if complete; then
  echo "prometheus-operator CRDs: cached in $dir" >&2
  echo "$dir"
  exit 0
fi
module="github.com/prometheus-operator/prometheus-operator@${PROMETHEUS_OPERATOR_VERSION}"
# go mod download works outside a module; -json reports a failure in its Error field.
if ! info=$(cd / && GOTOOLCHAIN=local GOFLAGS=-mod=mod go mod download -json "$module" 2>&1); then
  fail "go mod download $module: $info"
fi
src=$(python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["Dir"])' <<<"$info")
rm -rf "$dir.partial"; mkdir -p "$dir.partial"
for f in "${crds[@]}"; do
  cp "$src/example/prometheus-operator-crd/$f" "$dir.partial/" || fail "$f missing in $module"
done
rm -rf "$dir"; mv "$dir.partial" "$dir"
echo "prometheus-operator CRDs: $module in $dir" >&2
echo "$dir"
