package dev.stallwatch.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.testcluster.TestApiServer;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The scale run: 1,000 nodes × 3 DaemonSets on the embedded mock API server, then a healthy rollout
 * of one of them (maxUnavailable {@value #MAX_UNAVAILABLE}). Prints wall time and heap; it asserts
 * only that the rollout completes. Off by default (minutes of CPU):
 *
 * <pre>
 * ./mvnw -B -o verify -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=ScaleRunIT -Dstallwatch.scale=true
 * </pre>
 */
@EnabledIfSystemProperty(named = "stallwatch.scale", matches = "true")
class ScaleRunIT {

  static final int NODES = Integer.getInteger("stallwatch.scale.nodes", 1000);
  static final String MAX_UNAVAILABLE = "10%";
  static final String NS = "kube-system";

  @Test
  void aThousandNodesWithThreeDaemonSetsCompleteAHealthyRollout() {
    long t0 = System.nanoTime();
    try (TestApiServer api = new TestApiServer()) {
      Scenario.Builder b = Scenario.builder("scale", NODES + " nodes x 3 DaemonSets");
      for (int i = 0; i < NODES; i++) {
        b.node(ScenarioObjects.node(String.format("node-%04d", i), 0));
      }
      for (String name : new String[] {"kube-proxy", "node-exporter", "fluent-bit"}) {
        DaemonSet ds =
            ScenarioObjects.daemonSet(NS, name, "registry.example.com/" + name + ":1.0").build();
        ds.getSpec()
            .getUpdateStrategy()
            .getRollingUpdate()
            .setMaxUnavailable(new IntOrString(MAX_UNAVAILABLE));
        b.daemonSet(ds);
      }
      SimulatedCluster c =
          SimulatedCluster.install(
              api.client(),
              b.build(),
              SimClock.virtual(Instant.now().truncatedTo(ChronoUnit.SECONDS)));
      Duration step = Duration.ofSeconds(10);
      boolean placed =
          c.runUntil(
              () -> allAvailable(api, "fluent-bit", NODES, false), step, Duration.ofHours(1));
      assertThat(placed).isTrue();
      long placedAt = System.nanoTime();
      Instant simStart = c.clock().instant();
      c.setImage(NS, "fluent-bit", "fluent-bit", "registry.example.com/fluent-bit:1.1");
      boolean done =
          c.runUntil(() -> allAvailable(api, "fluent-bit", NODES, true), step, Duration.ofHours(2));
      long doneAt = System.nanoTime();
      assertThat(done).isTrue();
      System.gc();
      long heapAfterGc = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      long peak = 0;
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
        if (pool.getType() == MemoryType.HEAP) {
          peak += pool.getPeakUsage().getUsed();
        }
      }
      System.out.printf(
          "SCALE nodes=%d daemonsets=3 pods=%d setup+initial placement=%.1fs rollout wall=%.1fs"
              + " rollout simulated=%s total wall=%.1fs heap after GC=%d MiB peak heap (sum of pool"
              + " peaks)=%d MiB max heap=%d MiB%n",
          NODES,
          api.client().pods().inNamespace(NS).list().getItems().size(),
          (placedAt - t0) / 1e9,
          (doneAt - placedAt) / 1e9,
          Duration.between(simStart, c.clock().instant()),
          (doneAt - t0) / 1e9,
          heapAfterGc >> 20,
          peak >> 20,
          Runtime.getRuntime().maxMemory() >> 20);
    }
  }

  static boolean allAvailable(TestApiServer api, String name, int nodes, boolean updated) {
    var s = api.client().apps().daemonSets().inNamespace(NS).withName(name).get().getStatus();
    if (s == null || s.getNumberAvailable() == null) {
      return false;
    }
    return s.getNumberAvailable() == nodes
        && (!updated
            || (s.getUpdatedNumberScheduled() != null && s.getUpdatedNumberScheduled() == nodes));
  }
}
