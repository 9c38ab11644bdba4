#!/usr/bin/env bash
# `stallwatch diagnose` against python's json.load of the same kubectl dump: whole processes,
# paired (each pair runs python, then diagnose, back to back), wall and CPU seconds (user + sys)
# from /usr/bin/time, medians and the ratio of the medians. diagnose runs through the launcher
# (src/main/dist/kubectl-stallwatch: serial GC, client compiler, class-data sharing) with -Xmx256m;
# its archive is written by one unmeasured run first. Also reports the plain `java -jar` run.
#
#   src/jmh/diagnose-ratio.sh [--nodes 5000] [--pairs 7] [--dump FILE]
#
# Needs the jar and the test classes (./mvnw -B -DskipTests package), python3 and /usr/bin/time.
# A quiet machine: the ratio is of two processes that share the cores with everything else.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
nodes=5000 pairs=7 dump=""
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes="$2"; shift 2 ;;
    --pairs) pairs="$2"; shift 2 ;;
    --dump) dump="$2"; shift 2 ;;
    *) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
cd "$root"
[ -f target/stallwatch.jar ] && [ -d target/test-classes ] \
  || { echo "diagnose-ratio: run ./mvnw -B -DskipTests package first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$dump" ]; then
  dump="$work/dump-$nodes.json"
  java -cp target/test-classes dev.stallwatch.kube.dump.LargeDump "$nodes" "$dump" >&2
fi
now=2026-12-03T10:00:00Z
export STALLWATCH_JAR="$root/target/stallwatch.jar" STALLWATCH_CDS_DIR="$work/cds"
launcher="$root/src/main/dist/kubectl-stallwatch"
# wall user sys, one line per run
# (diagnose exits 1 on the dump's stalled rollout; time then adds a line before its figures)
measure() { /usr/bin/time -f '%e %U %S' -o "$work/t" "$@" >/dev/null 2>&1 || true; tail -n 1 "$work/t"; }
STALLWATCH_JAVA_OPTS=-Xmx256m "$launcher" diagnose -f "$dump" --now "$now" >/dev/null || true

: >"$work/python" ; : >"$work/launcher" ; : >"$work/plain"
for ((i = 1; i <= pairs; i++)); do
  measure python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$dump" >>"$work/python"
  STALLWATCH_JAVA_OPTS=-Xmx256m measure "$launcher" diagnose -f "$dump" --now "$now" >>"$work/launcher"
  measure java -Xmx256m -jar target/stallwatch.jar diagnose -f "$dump" --now "$now" >>"$work/plain"
done
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }
summary() {
  local f="$work/$1"
  printf '%s %s %s\n' "$1" \
    "$(awk '{print $1}' "$f" | median)" "$(awk '{print $2 + $3}' "$f" | median)"
}
{
  echo "dump: $dump ($(stat -c %s "$dump") bytes), $pairs pairs, $(date -u +%FT%TZ), load $(cut -d ' ' -f 1-3 /proc/loadavg)"
  echo "run wall_median_s cpu_median_s"
  summary python; summary launcher; summary plain
} | tee "$work/summary"
read -r _ pw pc < <(sed -n 3p "$work/summary")
read -r _ lw lc < <(sed -n 4p "$work/summary")
read -r _ jw jc < <(sed -n 5p "$work/summary")
awk -v pw="$pw" -v pc="$pc" -v lw="$lw" -v lc="$lc" -v jw="$jw" -v jc="$jc" 'BEGIN {
  printf "launcher / python: %.2f× wall, %.2f× CPU\n", lw / pw, lc / pc
  printf "java -jar / python: %.2f× wall, %.2f× CPU\n", jw / pw, jc / pc }'
echo "each run (wall user sys):"
paste -d '|' "$work/python" "$work/launcher" "$work/plain" | sed 's/|/   |   /g'
