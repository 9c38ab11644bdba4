#!/usr/bin/env bash
# The scale run on the real control plane, one cluster per size: N kwok nodes × D
# DaemonSets plus ordinary pods, the operator jar as the chart's ServiceAccount, kube-state-metrics
# beside it; measures sync, memory, a rollout, 20 injected stalls, API requests and heartbeat
# churn (dev.stallwatch.realcluster.ScaleRun), then draws the plots (scale-plot.py).
#
#   src/test/realcluster/scale.sh [--sizes 500,1000] [--daemonsets 10] [--stalls 20]
#                                 [--rollout-daemonsets K] [--stall-after 5m]
#                                 [--memory-limit 640Mi | --operator-heap 1g]
#                                 [--no-ksm] [--jfr]
#                                 [--out docs/scale]
#   src/test/realcluster/scale.sh --plot-only [--out docs/scale]
#
# --jfr: the operator runs under a flight recording, kept as target/scale/run-N/operator*.jfr.
# --rollout-daemonsets K: the rollout measured changes K DaemonSets at once (default: all of them).
# The operator runs as the chart's defaults run it: the image's JVM options in a memory cgroup of
# --memory-limit (default the chart's 640Mi; the JVM takes half for its heap). --operator-heap H
# runs it with -Xmx H and no cgroup instead (as without root, where no cgroup can be made).
# Results: OUT/scale-N.json per size (OUT/scale-NxD.json with D DaemonSets other than 10; a failed
# size leaves OUT/scale-N[xD].failed.log, what it measured before it failed), OUT/../scale-memory.png
# and OUT/../scale-detection.png.
# Heavy (minutes of both cores per size): on a shared machine take its lock around it.
# Default sizes: the two that take minutes; 2,000 and 5,000 take an hour and more (docs/benchmarks.md).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
sizes=500,1000 daemonsets=10 rollout="" stall_after=5m stalls=20 heap="" limit=640Mi ksm=yes jfr=false out="$root/docs/scale" plot_only=no
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) sizes="$2"; shift 2 ;;
    --daemonsets) daemonsets="$2"; shift 2 ;;
    --rollout-daemonsets) rollout="$2"; shift 2 ;;
    --stall-after) stall_after="$2"; shift 2 ;;
    --stalls) stalls="$2"; shift 2 ;;
    --operator-heap) heap="$2"; shift 2 ;;
    --memory-limit) limit="$2"; shift 2 ;;
    --no-ksm) ksm=no; shift ;;
    --jfr) jfr=true; shift ;;
    --out) out="$(mkdir -p "$2" && cd "$2" && pwd)"; shift 2 ;;
    --plot-only) plot_only=yes; shift ;;
    *) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
cd "$root"
mkdir -p "$out"

plot() { "$here/plot.sh" scale-plot.py "$out" "$(dirname "$out")"; }
if [ "$plot_only" = yes ]; then plot; exit 0; fi

bin="$("$here/build.sh" | tail -n 1)"
ksm_args=()
if [ "$ksm" = yes ]; then ksm_args=(--ksm "$("$here/ksm-build.sh" | tail -n 1)"); fi
# the jar (the operator), the test classes (ScaleRun) and their class path
./mvnw -B -q -Pbench package -DskipTests >&2
cp="target/test-classes:target/classes:$(cat target/bench.classpath)"

IFS=, read -r -a each <<<"$sizes"
for n in "${each[@]}"; do
  echo "scale: $n nodes × $daemonsets DaemonSets" >&2
  name="scale-$n"; [ "$daemonsets" = 10 ] || name="scale-${n}x$daemonsets"
  rm -rf "target/scale/run-$n"
  STALLWATCH_REALCLUSTER_BIN="$bin" java -Xmx3g -Dbasedir="$root" -cp "$cp" \
    dev.stallwatch.realcluster.ScaleRun --nodes "$n" --daemonsets "$daemonsets" --stalls "$stalls" \
    --rollout-daemonsets "${rollout:-$daemonsets}" --stall-after "$stall_after" ${heap:+--operator-heap "$heap"} --memory-limit "$limit" --dir "target/scale/run-$n" \
    --out "$out/$name.json" --jfr "$jfr" "${ksm_args[@]}"
  rm -rf "target/scale/run-$n/cluster/etcd" # gigabytes at the larger sizes; the logs stay
done
plot
