package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.deploy.NativeHelm;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The scale run ({@code src/test/realcluster/scale.sh}) at CI size — 100 nodes × 2 DaemonSets, a
 * rollout, 4 injected stalls — on its own cluster, so that every measurement path runs on each
 * build: sync, heap after GC, the heartbeat round, the rollout's reconcile histogram, detection
 * latency, API requests from the audit log. kube-state-metrics takes part when its binary is built
 * ({@code ksm-build.sh}; not in CI: its cold build takes minutes).
 */
@ExtendWith(RealClusterExtension.class)
@NativeHelm
class ScaleSmokeIT {

  @Test
  void theScaleRunMeasuresEveryFigureAtOneHundredNodes(RealCluster shared) throws Exception {
    Path dir = RealCluster.PROJECT.resolve("target/realcluster/scale-smoke");
    Path ksm = KubeStateMetrics.built();
    var options =
        new ScaleRun.Options(
            100,
            2,
            4,
            20,
            Duration.ofSeconds(10),
            Duration.ofSeconds(10),
            null, // as the chart runs it: the image's JVM options, a 640Mi memory cgroup
            ksm,
            dir,
            12,
            false,
            2,
            ScaleRun.CHART_MEMORY_LIMIT);

    ScaleResult r = ScaleRun.run(options);

    assertThat(r.operator().syncSeconds()).isPositive().isLessThan(60);
    assertThat(r.operator().heapAfterGcBytes()).isBetween(1L << 20, 256L << 20);
    assertThat(r.operator().rssBytes()).isGreaterThan(r.operator().heapAfterGcBytes());
    assertThat(r.operator().jvm()).containsAll(ImageJvmFlags.flags());
    // the peak through the list, taken at sync (RSS after sync is read after the first reconciles)
    assertThat(r.operator().peakRssBytes()).isGreaterThan(r.operator().heapAfterGcBytes());
    assertThat(r.operator().heapPeakBeforeGcBytes())
        .isGreaterThanOrEqualTo(r.operator().heapPeakAfterGcBytes())
        .isPositive();
    if (MemoryCgroup.available()) {
      assertThat(r.operator().memoryLimitBytes()).isEqualTo(640L << 20);
      assertThat(r.operator().cgroupPeakBytes()).isBetween(1L << 20, 640L << 20);
    }
    // Every informer listed again after the etcd compaction and the API server's restart.
    assertThat(r.relist().alive()).as(r.relist().toString()).isTrue();
    assertThat(r.relist().relisted()).as(r.relist().toString()).isTrue();
    assertThat(r.relist().podListRequests()).isGreaterThanOrEqualTo(2);
    assertThat(r.relist().peakRssBytes()).isPositive();
    // Heartbeats of all 100 nodes reach no reconcile; at steady state the operator only watches.
    assertThat(r.steady().heartbeatNodesWritten()).isGreaterThan(90);
    assertThat(r.steady().reconciles()).isZero();
    assertThat(r.steady().requestsByVerb().keySet()).allMatch(v -> v.startsWith("watch "));
    assertThat(r.rollout().reconciles()).isPositive();
    assertThat(r.rollout().reconcileP99Millis())
        .isGreaterThanOrEqualTo(r.rollout().reconcileP50Millis());
    assertThat(r.rollout().cpuSeconds()).isPositive();
    // Both DaemonSets rolled at once; the thread's CPU is part of each reconcile's wall time.
    assertThat(r.rollout().daemonSets()).isEqualTo(2);
    assertThat(r.rollout().reconcileCpuP99Millis())
        .isPositive()
        .isGreaterThanOrEqualTo(r.rollout().reconcileCpuP50Millis())
        .isLessThanOrEqualTo(r.rollout().reconcileP99Millis() * 1.05);
    // JOSDK's queue gauge was read; after the settle nothing is left waiting.
    assertThat(r.rollout().queueMax()).isGreaterThanOrEqualTo(0);
    assertThat(r.rollout().queueAtEnd()).isZero();
    // JOSDK's reconciler threads found by name: their CPU time is part of the reconciles' wall.
    assertThat(r.rollout().reconcilerOnCpuSeconds())
        .isPositive()
        .isLessThanOrEqualTo(r.rollout().reconcileWallSeconds() * 1.05 + 0.5);
    assertThat(r.detection().detected()).isEqualTo(4);
    assertThat(r.nodeNotReadyEvents()).as("nodes that lost their lease").isZero();
    assertThat(r.atChartHeap().synced()).as(r.atChartHeap().toString()).isTrue();
    assertThat(r.atChartHeap().peakRssBytes()).isGreaterThan(r.atChartHeap().heapAfterGcBytes());
    assertThat(r.detection().toMetricSeconds()).hasSize(4);
    // No RolloutStall of a revision that was not broken (the relist-order guard, SnapshotLag).
    assertThat(r.detection().otherStalls()).isEmpty();
    // Generous bounds for a shared CI machine; the benchmark reports the real figures.
    assertThat(r.detection().rolloutStall().max()).isBetween(-1.0, 10.0);
    assertThat(r.detection().metric().max()).isBetween(-1.0, 10.0);
    if (ksm != null) {
      assertThat(r.kubeStateMetrics().series()).isPositive();
      assertThat(r.kubeStateMetrics().alertAfterCrossingSeconds())
          .hasSize(4)
          .allMatch(s -> s > 15 * 60);
    }
  }
}
