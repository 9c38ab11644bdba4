#!/usr/bin/env bash
# The real tier with a CPU hog on one of the machine's cores, run N times in a row: a test that
# passes only on an idle machine fails here instead of on CI.
#
#   src/test/realcluster/hogged-run.sh [--runs N] [--tests PATTERN] [extra maven args]
#
# The hog is a busy loop of this script's own (no package needed), started before each run and
# stopped by its PID when the run ends, also when this script is interrupted. The jar and the
# operator image (ImagePodRealClusterIT) are built once; as on CI, a real-tier test whose tools are
# missing fails instead of skipping. Each run's time and result go to target/hogged-runs/summary.txt,
# its log beside it.
set -euo pipefail
cd "$(dirname "$0")/../../.."

runs=3
tests='dev/stallwatch/realcluster/*IT'
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --tests) tests="$2"; shift 2 ;;
    *) break ;;
  esac
done

out=target/hogged-runs
mkdir -p "$out"
hog=""
stop_hog() { if [ -n "$hog" ]; then kill "$hog" 2>/dev/null || true; wait "$hog" 2>/dev/null || true; hog=""; fi; }
trap stop_hog EXIT INT TERM

export STALLWATCH_REQUIRE_REAL_CLUSTER=true
# The image first, then the jar: the image profile does not write target/stallwatch.jar.
./mvnw -B -q -Pimage -DskipTests package
./mvnw -B -q -DskipTests package
for i in $(seq 1 "$runs"); do
  ( while :; do :; done ) &
  hog=$!
  begun=$(date +%s)
  if ./mvnw -B -Dsurefire.skip=true -Dit.test="$tests" "$@" \
      failsafe:integration-test failsafe:verify > "$out/run-$i.log" 2>&1; then
    result=green
  else
    result="FAILED ($(grep -E '^\[ERROR\]   [A-Za-z]+IT' "$out/run-$i.log" | head -5 | tr -s ' ' | tr '\n' ';'))"
  fi
  stop_hog
  line="run $i: $result in $(( $(date +%s) - begun )) s (hog on 1 core; $(date -u +%FT%TZ))"
  echo "$line" | tee -a "$out/summary.txt"
done
