package dev.stallwatch.realcluster;

import java.util.List;
import java.util.Map;

/**
 * The figures of one scale run (one cluster size), written as JSON by {@link ScaleRun} and read by
 * {@code src/test/realcluster/scale-plot.py}. Times in seconds unless named otherwise; NaN or null
 * where a figure was not measured (e.g. without kube-state-metrics).
 */
record ScaleResult(
    int nodes,
    int daemonSets,
    int ordinaryPods,
    String startedAt,
    double clusterStartSeconds,
    double workloadReadySeconds,
    Operator operator,
    Steady steady,
    Rollout rollout,
    Detection detection,
    Ksm kubeStateMetrics,
    int nodeNotReadyEvents,
    Sized atChartHeap,
    Relist relist) {

  /**
   * A second operator started after the measurements with the heap the chart's defaults give it:
   * whether it synced, in how long, its heap after GC and peak RSS; {@code error} when it did not.
   */
  record Sized(
      String heap,
      boolean synced,
      double syncSeconds,
      long heapAfterGcBytes,
      long peakRssBytes,
      String error) {}

  /**
   * The operator after its initial sync. {@code peakRssBytes}: the largest resident set so far,
   * i.e. through the initial list; {@code cgroupPeakBytes}: the most its memory cgroup held (RSS
   * and page cache, as the kubelet counts a container; -1 without a cgroup); {@code
   * heapPeakBeforeGcBytes} and {@code heapPeakAfterGcBytes}: the largest heap in use before and
   * after a collection through the list (the GC log). {@code jvm}: its JVM options; {@code
   * memoryLimitBytes}: its container limit (0: none, the heap set by -Xmx).
   */
  record Operator(
      double syncSeconds,
      long heapAfterGcBytes,
      long rssBytes,
      long peakRssBytes,
      double cpuSecondsAtSync,
      Map<String, Integer> requestsDuringSync,
      long cgroupPeakBytes,
      long heapPeakBeforeGcBytes,
      long heapPeakAfterGcBytes,
      List<String> jvm,
      long memoryLimitBytes) {}

  /**
   * Every informer listing again: etcd compacted, kube-apiserver killed and restarted, each watch
   * resuming from a revision the compaction removed gets 410 Gone. {@code seconds}: from the
   * compaction (the API server killed, 5 s down) until the operator had listed its pods again and
   * was ready (or 10 minutes); the peaks over that time; the pod pages it asked for, in all and per
   * minute; its list and watch requests by response code; whether it listed every pod again and is
   * still running.
   */
  record Relist(
      double seconds,
      long peakRssBytes,
      long cgroupPeakBytes,
      long heapAfterGcBytes,
      int podListRequests,
      List<Integer> podListRequestsPerMinute,
      Map<String, Integer> requestsByVerbAndCode,
      boolean relisted,
      boolean alive) {}

  /**
   * A steady window: its first half without any write ({@code quietReconciles}), its second half
   * starting with one kubelet heartbeat round over every node ({@code reconciles}).
   */
  record Steady(
      double seconds,
      double quietReconciles,
      int heartbeatNodesWritten,
      double reconciles,
      Map<String, Integer> requestsByVerb,
      double requestsPerSecond,
      double cpuSeconds) {}

  /**
   * {@code daemonSets} DaemonSets rolled out at once over every node (maxUnavailable 10%): wall and
   * thread-CPU quantiles of the reconciles, the largest depth of the work queue seen and its depth
   * at the end; where the reconciles' wall time went: the sum of their wall times, and of JOSDK's
   * reconciler threads the time on a CPU and the time runnable but waiting for one (schedstat).
   */
  record Rollout(
      int daemonSets,
      double seconds,
      double reconciles,
      double reconcileP50Millis,
      double reconcileP99Millis,
      double reconcileCpuP50Millis,
      double reconcileCpuP99Millis,
      double queueMax,
      double queueAtEnd,
      double reconcileWallSeconds,
      double reconcilerOnCpuSeconds,
      double reconcilerWaitingForCpuSeconds,
      double cpuSeconds,
      Map<String, Integer> requestsByVerb,
      double requestsPerSecond) {}

  /**
   * Injected stalls: per stall, seconds from the instant its node crossed stall-after (the
   * RolloutStall's node {@code since} + stall-after) to the RolloutStall's ADDED event seen by a
   * watch, and to {@code stallwatch_rollout_stalled} with its cause first seen on /metrics (polled
   * every 100 ms). {@code otherStalls}: RolloutStalls of anything but the injected revisions
   * ("DaemonSet/stall cause"), i.e. false stalls.
   */
  record Detection(
      int injected,
      int detected,
      double stallAfterSeconds,
      List<Double> toRolloutStallSeconds,
      List<Double> toMetricSeconds,
      Percentiles rolloutStall,
      Percentiles metric,
      Map<String, Integer> requestsByVerb,
      List<String> otherStalls) {}

  record Percentiles(double p50, double p99, double max) {
    static Percentiles of(List<Double> values) {
      if (values.isEmpty()) {
        return new Percentiles(Double.NaN, Double.NaN, Double.NaN);
      }
      List<Double> sorted = values.stream().sorted().toList();
      return new Percentiles(rank(sorted, 0.50), rank(sorted, 0.99), sorted.get(sorted.size() - 1));
    }

    /** Nearest rank. */
    private static double rank(List<Double> sorted, double q) {
      int i = (int) Math.ceil(q * sorted.size()) - 1;
      return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
    }
  }

  /**
   * kube-state-metrics beside us: its RSS and series once it serves every pod, its peak RSS (VmHWM)
   * over the run until the relist, and per injected stall the seconds from crossing stall-after
   * until KubeDaemonSetRolloutStuck would fire.
   */
  record Ksm(
      String version,
      double syncSeconds,
      long rssBytes,
      long peakRssBytes,
      long series,
      double scrapeSeconds,
      List<Double> alertAfterCrossingSeconds) {}
}
