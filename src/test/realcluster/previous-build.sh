#!/usr/bin/env bash
# Builds stallwatch as of an earlier commit of this repository, for UpgradeRealClusterIT (the
# release it upgrades from): its jar, its Helm chart and its CRD, in a cache folder keyed by the
# commit; a second run only checks it. Needs the commit in this clone's history (not shallow).
#
#   src/test/realcluster/previous-build.sh COMMIT   # prints the folder on its last line
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(git -C "$here" rev-parse --show-toplevel)"
fail() { echo "previous build: $*" >&2; exit 1; }
[ $# -eq 1 ] || fail "usage: previous-build.sh COMMIT"
commit="$1"

cache="${STALLWATCH_REALCLUSTER_CACHE:-$HOME/.cache/stallwatch/realcluster}"
dir="$cache/stallwatch-$commit"
if [ -f "$dir/stallwatch.jar" ] && [ -f "$dir/chart/Chart.yaml" ] && [ -f "$dir/crd.yml" ]; then
  echo "previous build: cached in $dir" >&2
  echo "$dir"
  exit 0
fi
git -C "$repo" cat-file -e "$commit^{commit}" 2>/dev/null \
  || fail "commit $commit is not in this clone's history (shallow? run: git fetch --unshallow)"
mkdir -p "$dir/logs"
start=$(date +%s)
work="$dir/src"; rm -rf "$work" "$dir/chart"; mkdir -p "$work"
git -C "$repo" archive "$commit" | tar -x -C "$work"
if ! (cd "$work" && ./mvnw -B -DskipTests -Djacoco.skip=true -Dcyclonedx.skip=true \
    -Dspotless.check.skip=true package) >"$dir/logs/build.log" 2>&1; then
  tail -n 5 "$dir/logs/build.log" >&2
  fail "building $commit failed (log: $dir/logs/build.log)"
fi
cp "$work/target/stallwatch.jar" "$dir/stallwatch.jar.partial"
cp -r "$work/deploy/helm/stallwatch" "$dir/chart"
cp "$work/crd/rolloutstalls.stallwatch.dev-v1.yml" "$dir/crd.yml"
mv "$dir/stallwatch.jar.partial" "$dir/stallwatch.jar"
rm -rf "$work"
echo "previous build: built $commit in $(( $(date +%s) - start )) s" >&2
echo "$dir"
