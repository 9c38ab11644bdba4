#!/usr/bin/env bash
# Builds the real control plane from the Go module proxy at the versions pinned in versions.env:
# kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, etcd and kwok.
# Binaries land in a cache folder keyed by those versions; a second run only checks them.
#
#   src/test/realcluster/build.sh            # prints the bin folder on its last line
#   STALLWATCH_REALCLUSTER_CACHE=/some/dir build.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=versions.env
. "$here/versions.env"

fail() { echo "realcluster build: $*" >&2; exit 1; }
command -v go >/dev/null || fail "go not found on PATH (Go 1.26 is needed to build the control plane)"

cache="${STALLWATCH_REALCLUSTER_CACHE:-$HOME/.cache/stallwatch/realcluster}"
key="k8s-${KUBERNETES_VERSION}_etcd-${ETCD_VERSION}_kwok-${KWOK_VERSION}"
bin="$cache/$key/bin"
logs="$cache/$key/logs"
binaries=(kube-apiserver kube-controller-manager kube-scheduler kubectl etcd kwok)

complete() { for b in "${binaries[@]}"; do [ -x "$bin/$b" ] || return 1; done; }
if complete; then
  echo "realcluster build: cached in $bin" >&2
  echo "$bin"
  exit 0
fi
# Build into a side folder and move it into place at the end: an interrupted build is never
# mistaken for a cached one.
final_bin="$bin"
bin="$cache/$key/bin.partial"
rm -rf "$bin"; mkdir -p "$bin" "$logs"
export CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -mod=mod" GOTOOLCHAIN=local
start=$(date +%s)

# step NAME LOGFILE CMD... : runs a step with its output in a log; one line on failure.
step() {
  local name="$1" log="$2"; shift 2
  local t0; t0=$(date +%s)
  echo "realcluster build: $name ..." >&2
  if ! "$@" >"$log" 2>&1; then
    tail -n 5 "$log" >&2
    fail "$name failed (log: $log)"
  fi
  echo "realcluster build: $name done in $(( $(date +%s) - t0 )) s" >&2
}

work="$cache/$key/src"
rm -rf "$work"; mkdir -p "$work/kubernetes" "$work/etcd"

# --- Kubernetes: a wrapper module that requires k8s.io/kubernetes and replaces each staging module
# (required there at v0.0.0 and replaced by ./staging/...) with the published v0.X.Y of the tag.
k8s_minor="${KUBERNETES_VERSION#v1.}"; k8s_minor="${k8s_minor%%.*}"
staging_version="v0.${KUBERNETES_VERSION#v1.}"
kubernetes_wrapper() {
  cd "$work/kubernetes"
  local info gomod
  # go mod download -json reports a failure (no proxy, unknown version) in the JSON's Error field
  if ! info=$(go mod download -json "k8s.io/kubernetes@${KUBERNETES_VERSION}" 2>&1); then
    python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["Error"])' <<<"$info" 2>/dev/null \
      || echo "$info"
    return 1
  fi
  gomod=$(python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["GoMod"])' <<<"$info")
  {
    echo "module stallwatch.dev/realcluster/kubernetes"
    echo
    grep -E '^go [0-9.]+$' "$gomod"
    grep -E '^godebug ' "$gomod" || true
    echo
    echo "require k8s.io/kubernetes ${KUBERNETES_VERSION}"
    echo
    echo "replace ("
    # the staging modules: required at v0.0.0 and replaced by a ./staging path in the tag's go.mod
    python3 - "$gomod" "$staging_version" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
required = set(re.findall(r'^\s*(k8s\.io/[\w.-]+) v0\.0\.0\s*$', text, re.M))
staged = set(re.findall(r'^\s*(k8s\.io/[\w.-]+) => \./staging/', text, re.M))
for m in sorted(required & staged):
    print(f"\t{m} => {m} {sys.argv[2]}")
PY
    echo ")"
  } > go.mod
  cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
  go mod tidy -e
}
step "kubernetes ${KUBERNETES_VERSION}: wrapper module" "$logs/kubernetes-mod.log" kubernetes_wrapper

kubernetes_build() {
  cd "$work/kubernetes"
  local ld="" pkg
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X ${pkg}.gitVersion=${KUBERNETES_VERSION} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${k8s_minor}"
    ld+=" -X ${pkg}.gitTreeState=clean -X ${pkg}.buildDate=1970-01-01T00:00:00Z"
  done
  go build -trimpath -tags selinux,notest -ldflags "-s -w $ld" -o "$bin/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl
}
step "kubernetes ${KUBERNETES_VERSION}: build" "$logs/kubernetes-build.log" kubernetes_build

# --- etcd: the server module replaces its sibling modules by relative paths; pin them instead.
etcd_build() {
  cd "$work/etcd"
  cat > go.mod <<MOD
module stallwatch.dev/realcluster/etcd

go 1.26

require go.etcd.io/etcd/server/v3 ${ETCD_VERSION}

replace (
	go.etcd.io/etcd/api/v3 => go.etcd.io/etcd/api/v3 ${ETCD_VERSION}
	go.etcd.io/etcd/client/pkg/v3 => go.etcd.io/etcd/client/pkg/v3 ${ETCD_VERSION}
	go.etcd.io/etcd/client/v3 => go.etcd.io/etcd/client/v3 ${ETCD_VERSION}
	go.etcd.io/etcd/pkg/v3 => go.etcd.io/etcd/pkg/v3 ${ETCD_VERSION}
)
MOD
  cat > tools.go <<'GO'
//go:build tools

package tools

import _ "go.etcd.io/etcd/server/v3"
GO
  go mod tidy -e
  go build -trimpath -ldflags "-s -w" -o "$bin/etcd" go.etcd.io/etcd/server/v3
}
step "etcd ${ETCD_VERSION}: build" "$logs/etcd-build.log" etcd_build

# --- kwok: no replace directives, so go install works as is.
kwok_build() { GOBIN="$bin" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@${KWOK_VERSION}"; }
step "kwok ${KWOK_VERSION}: build" "$logs/kwok-build.log" kwok_build

complete || fail "some binaries are missing from $bin after the build"
"$bin/kube-apiserver" --version >&2
rm -rf "$final_bin"; mv "$bin" "$final_bin"; bin="$final_bin"
echo "realcluster build: cold build took $(( $(date +%s) - start )) s" >&2
echo "$bin"
