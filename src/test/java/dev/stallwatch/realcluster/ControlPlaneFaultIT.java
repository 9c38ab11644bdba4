package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.deploy.NativeHelm;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Faults of the control plane itself, on a cluster of this class's own: kube-apiserver killed
 * (SIGKILL) and restarted, once and five times in a row, and etcd compacted under the informers so
 * their watches resume from a resourceVersion that is gone (410) and they relist. Each time a stall
 * is in progress and the healthy DaemonSet is broken just before the fault: afterwards the stall in
 * progress is the same object (same {@code stalledSince}, one Event) and the new stall is recorded
 * once — how long after the API server is back is the recovery time reported.
 */
@NativeHelm
class ControlPlaneFaultIT {
  static final String REACHABLE = "stallwatch_api_server_reachable";
  static RealCluster cluster;
  static OperatorProcess operator;

  @BeforeAll
  static void start() {
    cluster =
        RealClusterExtension.separate(
            "controlplane-faults",
            "it kills the API server (five times in a row) and compacts etcd under the"
                + " informers");
    operator = OperatorProcess.asChartServiceAccount(cluster, "controlplane-operator");
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void theApiServerKilledAndRestartedLosesAndDuplicatesNothing() {
    FaultBed bed = FaultBed.stallInProgress(cluster, "apiserver-kill");
    bed.breakHealthy("v2");

    // Down longer than stall-after: the new stall falls due while no API server answers. Meanwhile
    // the operator says so on /metrics (StallwatchApiServerUnreachable pages on it).
    java.util.Set<Double> reachable = java.util.concurrent.ConcurrentHashMap.newKeySet();
    var sampler = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
    sampler.scheduleWithFixedDelay(
        () -> reachable.add(PromText.value(operator.metrics(), REACHABLE)),
        0,
        500,
        java.util.concurrent.TimeUnit.MILLISECONDS);
    try {
      cluster.restart("kube-apiserver", true, Duration.ofSeconds(12));
    } finally {
      sampler.shutdownNow();
    }
    Instant back = Instant.now();
    assertThat(reachable).as(REACHABLE + " while the API server was down").contains(0.0);

    Duration recovery = bed.awaitHealthyStall(back);
    bed.assertIntact();
    bed.assertHealthyStalledOnce();
    assertThat(operator.alive()).as("the operator survives the outage").isTrue();
    org.awaitility.Awaitility.await(REACHABLE + " back to 1")
        .atMost(Scenario.WAIT)
        .until(() -> PromText.value(operator.metrics(), REACHABLE) == 1.0);
    ReliabilityReport.row(
        "kube-apiserver SIGKILL, down 12 s, restarted",
        "informers reconnect; the stall in progress kept (same object, stalledSince, one Event);"
            + " the stall that fell due during the outage recorded once",
        ReliabilityReport.seconds(recovery)
            + " after the API server is back (or the stall fell due)",
        bed.lostAndDuplicated());
  }

  /** The heavier variants run with {@code -Dstallwatch.faults.heavy=true} (not in CI's budget). */
  static final boolean HEAVY = Boolean.getBoolean("stallwatch.faults.heavy");

  @Test
  void theApiServerKilledFiveTimesInARowLosesAndDuplicatesNothing() {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        HEAVY, "five restarts in a row: -Dstallwatch.faults.heavy=true");
    FaultBed bed = FaultBed.stallInProgress(cluster, "apiserver-kill5");
    bed.breakHealthy("v2");

    for (int i = 0; i < 5; i++) {
      cluster.restart("kube-apiserver", true, Duration.ZERO);
    }
    Instant back = Instant.now();

    Duration recovery = bed.awaitHealthyStall(back);
    bed.assertIntact();
    bed.assertHealthyStalledOnce();
    assertThat(operator.alive()).isTrue();
    ReliabilityReport.row(
        "kube-apiserver SIGKILL and restart, 5× in a row (heavy)",
        "as once; the operator keeps running through five outages",
        ReliabilityReport.seconds(recovery) + " after the last restart",
        bed.lostAndDuplicated());
  }

  @Test
  void etcdCompactedUnderTheWatchesMakesTheInformersRelistWithoutLoss() {
    FaultBed bed = FaultBed.stallInProgress(cluster, "compaction");
    bed.breakHealthy("v2");
    // Writes the operator does not watch move etcd's revision past every informer's last one.
    for (int i = 0; i < 30; i++) {
      cluster
          .admin()
          .configMaps()
          .inNamespace(bed.namespace())
          .resource(
              new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                  .withNewMetadata()
                  .withName("churn-" + i)
                  .endMetadata()
                  .addToData("i", String.valueOf(i))
                  .build())
          .create();
    }
    long compacted = cluster.compactEtcd();
    // A restart empties the API server's watch cache: every watch resumes from a revision older
    // than the compaction and is answered 410 Gone; the informers list again.
    cluster.restart("kube-apiserver", false, Duration.ofSeconds(11));
    Instant back = Instant.now();

    Duration recovery = bed.awaitHealthyStall(back);
    bed.assertIntact();
    bed.assertHealthyStalledOnce();
    assertThat(operator.alive()).isTrue();
    ReliabilityReport.row(
        "etcd compacted and kube-apiserver restarted: watches get 410 Gone",
        "informers relist; nothing recreated, no Event repeated; the stall due meanwhile recorded"
            + " once",
        ReliabilityReport.seconds(recovery)
            + " after the API server is back (or the stall fell due)",
        bed.lostAndDuplicated());
    assertThat(compacted).isPositive();
  }
}
