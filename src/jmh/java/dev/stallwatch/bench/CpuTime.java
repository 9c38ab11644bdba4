package dev.stallwatch.bench;

import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.operator.cache.CachePruning;
import dev.stallwatch.rollout.AnalyzerSettings;
import dev.stallwatch.rollout.RolloutAnalyzer;
import dev.stallwatch.rollout.RolloutSnapshot;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * The analyzer's and the views' cost in <em>CPU time</em> of the measuring thread, next to JMH's
 * wall-clock figures: on a machine whose cores other jobs share, wall time per operation swings
 * several-fold while the thread's own CPU time stays put.
 *
 * <pre>java -cp … dev.stallwatch.bench.CpuTime [iterations]</pre>
 */
public final class CpuTime {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final com.sun.management.ThreadMXBean ALLOCATIONS =
      (com.sun.management.ThreadMXBean) THREADS;

  private CpuTime() {}

  public static void main(String[] args) {
    int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    System.out.printf(
        "%-34s %8s %12s %12s %14s %12s%n",
        "what", "nodes", "cpu p50 µs", "cpu p90 µs", "pods/s (p50)", "alloc KB/op");
    for (int nodes : new int[] {500, 5000}) {
      for (RolloutFixture.State state : RolloutFixture.State.values()) {
        RolloutFixture f = new RolloutFixture(nodes, state);
        RolloutSnapshot snapshot = f.snapshot();
        report(
            "analyze " + state,
            nodes,
            iterations,
            () -> RolloutAnalyzer.analyze(snapshot, RolloutFixture.NOW, AnalyzerSettings.DEFAULTS));
        // The snapshot made anew for every analysis (its node index with it): what a caller pays
        // that does not keep its node list.
        report(
            "analyze " + state + ", new snapshot",
            nodes,
            iterations,
            () ->
                RolloutAnalyzer.analyze(
                    new RolloutSnapshot(
                        snapshot.daemonSet(),
                        snapshot.pods(),
                        snapshot.nodes(),
                        snapshot.revisions()),
                    RolloutFixture.NOW,
                    AnalyzerSettings.DEFAULTS));
      }
      RolloutFixture f = new RolloutFixture(nodes, RolloutFixture.State.MID_ROLLOUT);
      if (!Boolean.getBoolean("bench.analyzerOnly")) {
        var path = new dev.stallwatch.operator.cache.ReconcilePath(f);
        report("reconcile path, views cached", nodes, iterations, path::cachedViews);
        report(
            "reconcile path, views rebuilt",
            nodes,
            Math.max(20, iterations / 10),
            path::rebuiltViews);
      }
      var cachedNodes = f.nodes.stream().map(CachePruning::node).toList();
      var cachedPods = f.pods.stream().map(CachePruning::pod).toList();
      report(
          "node views (all nodes)",
          nodes,
          Math.max(20, iterations / 10),
          () -> cachedNodes.stream().map(KubeViews::node).toList());
      report(
          "pod views (one DaemonSet)",
          nodes,
          Math.max(20, iterations / 10),
          () -> cachedPods.stream().map(KubeViews::pod).toList());
    }
  }

  private static void report(String what, int nodes, int iterations, Supplier<Object> op) {
    Object sink = null;
    for (int i = 0; i < iterations; i++) { // warm-up
      sink = op.get();
    }
    long[] cpu = new long[iterations];
    long threadId = Thread.currentThread().getId();
    long allocated = 0;
    for (int i = 0; i < iterations; i++) {
      long a0 = ALLOCATIONS.getThreadAllocatedBytes(threadId);
      long t0 = THREADS.getCurrentThreadCpuTime();
      sink = op.get();
      cpu[i] = THREADS.getCurrentThreadCpuTime() - t0;
      allocated += ALLOCATIONS.getThreadAllocatedBytes(threadId) - a0;
    }
    Arrays.sort(cpu);
    double p50 = cpu[iterations / 2] / 1e3;
    double p90 = cpu[iterations * 9 / 10] / 1e3;
    System.out.printf(
        "%-34s %8d %12.0f %12.0f %14.0f %12.0f%s%n",
        what,
        nodes,
        p50,
        p90,
        nodes / (p50 / 1e6),
        allocated / 1024.0 / iterations,
        sink == null ? "?" : "");
  }
}
