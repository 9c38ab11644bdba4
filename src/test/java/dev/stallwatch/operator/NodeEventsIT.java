package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.testcluster.TestApiServer;
import dev.stallwatch.testing.DaemonSetFixture;
import dev.stallwatch.testing.KubeObjects;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Node events against the embedded API server, counted in reconciles per DaemonSet: kubelet churn
 * reaches no DaemonSet; a meaningful node change reaches exactly the DaemonSets it can affect.
 *
 * <p>Cluster: {@code node-a}, {@code node-b} ({@code pool=gpu}), {@code node-c} ({@code pool=cpu})
 * and {@code probe-node} (tainted {@code probe:NoSchedule}). DaemonSets, all complete on revision 1
 * except where a node is empty:
 *
 * <ul>
 *   <li>{@code agent} — everywhere but the probe node: pods on node-a, node-b, node-c
 *   <li>{@code gpu-driver} — {@code pool=gpu}: a pod on node-a, node-b EMPTY
 *   <li>{@code gpu-tolerant} — {@code pool=gpu}, tolerates {@code maintenance}: a pod on node-a,
 *       node-b EMPTY
 *   <li>{@code cpu-only} — {@code pool=cpu}: a pod on node-c
 *   <li>{@code probe} — only on probe-node, where its pod runs: the positive control. A change of
 *       probe-node reaches it and nothing else; node events are delivered in order, so once it
 *       arrived, every earlier node event has been routed.
 * </ul>
 *
 * Stall-after is an hour, so no RolloutStall, Event or rescheduled reconcile interferes: after
 * start-up, only node events make the operator reconcile.
 */
class NodeEventsIT {
  private static final String NS = "node-events";
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Duration SETTLED = Duration.ofSeconds(1);

  private static final ResourceID AGENT = new ResourceID("agent", NS);
  private static final ResourceID GPU_DRIVER = new ResourceID("gpu-driver", NS);
  private static final ResourceID GPU_TOLERANT = new ResourceID("gpu-tolerant", NS);
  private static final ResourceID CPU_ONLY = new ResourceID("cpu-only", NS);
  private static final ResourceID PROBE = new ResourceID("probe", NS);
  private static final List<ResourceID> ALL =
      List.of(AGENT, GPU_DRIVER, GPU_TOLERANT, CPU_ONLY, PROBE);

  private final Instant created = Instant.now().minusSeconds(86400);
  private final AtomicInteger probes = new AtomicInteger();
  private TestApiServer cluster;
  private StallwatchOperator operator;
  private PrometheusMeterRegistry registry;
  private ReconcileCounter counter;
  private Map<ResourceID, Long> baseline;

  @BeforeEach
  void start() {
    cluster = new TestApiServer();
    node("node-a", Map.of("pool", "gpu"), null);
    node("node-b", Map.of("pool", "gpu"), null);
    node("node-c", Map.of("pool", "cpu"), null);
    node("probe-node", Map.of("role", "probe"), "probe");
    daemonSet("agent", Map.of(), null, "node-a", "node-b", "node-c");
    daemonSet("gpu-driver", Map.of("pool", "gpu"), null, "node-a");
    daemonSet("gpu-tolerant", Map.of("pool", "gpu"), "maintenance", "node-a");
    daemonSet("cpu-only", Map.of("pool", "cpu"), null, "node-c");
    daemonSet("probe", Map.of("role", "probe"), "probe", "probe-node");

    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    counter = new ReconcileCounter();
    operator =
        StallwatchOperator.start(
            cluster.client(),
            new OperatorSettings(
                Set.of(), Duration.ofHours(1), Duration.ofHours(24), 0, false, null),
            registry,
            StallwatchOperator.Timing.REAL,
            counter::wrap);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> ALL.forEach(ds -> assertThat(counter.reconciles(ds)).as("%s", ds).isPositive()));
    // gpu-driver counts node-b as empty: the verdict the taint tests change.
    await().atMost(WAIT).until(() -> nodesGauge("gpu-driver", "none") == 1.0);
    settle();
  }

  @AfterEach
  void stop() {
    if (operator != null) {
      operator.close();
    }
    cluster.close();
  }

  @Test
  void heartbeatsImagesAndOtherStatusChurnReconcileNoDaemonSet() {
    for (int round = 1; round <= 3; round++) {
      for (String name : List.of("node-a", "node-b", "node-c")) {
        String beat = Instant.now().plusSeconds(round).toString();
        String before = resourceVersion(name);
        // The kubelet's heartbeat: every condition's lastHeartbeatTime.
        cluster
            .client()
            .nodes()
            .withName(name)
            .editStatus(
                n -> {
                  n.getStatus().getConditions().forEach(c -> c.setLastHeartbeatTime(beat));
                  return n;
                });
        // Its image list.
        final int r = round;
        cluster
            .client()
            .nodes()
            .withName(name)
            .editStatus(
                n ->
                    new NodeBuilder(n)
                        .editStatus()
                        .addNewImage()
                        .withNames("registry.example/cache:" + r)
                        .withSizeBytes(1000L * r)
                        .endImage()
                        .endStatus()
                        .build());
        // Annotations the analyzer does not read (node controllers write these).
        cluster
            .client()
            .nodes()
            .withName(name)
            .edit(
                n ->
                    new NodeBuilder(n)
                        .editMetadata()
                        .addToAnnotations("node.alpha.kubernetes.io/ttl", String.valueOf(r))
                        .endMetadata()
                        .build());
        // A write that changes nothing but the resourceVersion.
        Node same = cluster.client().nodes().withName(name).get();
        cluster.client().resource(same).update();
        assertThat(resourceVersion(name)).as("the node was written").isNotEqualTo(before);
      }
    }

    probe();

    assertUnchanged(AGENT, GPU_DRIVER, GPU_TOLERANT, CPU_ONLY);
  }

  @Test
  void aTaintReachesThePodsOnTheNodeAndTheDaemonSetThatLosesItNotTheOthers() {
    taint("node-b", "maintenance");

    // agent runs a pod on node-b; gpu-driver does not tolerate the taint: node-b leaves it.
    awaitReconciled(AGENT, GPU_DRIVER);
    probe();
    // cpu-only never runs on node-b; gpu-tolerant keeps node-b (and has no pod there).
    assertUnchanged(CPU_ONLY, GPU_TOLERANT);
  }

  @Test
  void aDaemonSetIsToldWhenItsEmptyNodeBecomesIneligibleAndEligibleAgain() {
    // node-b has no gpu-driver pod: no pod event will ever tell it about node-b.
    taint("node-b", "maintenance");
    awaitReconciled(GPU_DRIVER);
    await().atMost(WAIT).until(() -> nodesGauge("gpu-driver", "none") == 0.0);

    untaint("node-b", "maintenance");
    awaitReconciled(GPU_DRIVER);
    await().atMost(WAIT).until(() -> nodesGauge("gpu-driver", "none") == 1.0);

    cluster
        .client()
        .nodes()
        .withName("node-b")
        .edit(
            n -> new NodeBuilder(n).editMetadata().removeFromLabels("pool").endMetadata().build());
    awaitReconciled(GPU_DRIVER);
    await().atMost(WAIT).until(() -> nodesGauge("gpu-driver", "none") == 0.0);
  }

  @Test
  void aNodeGoingNotReadyReachesTheDaemonSetsThatShouldRunThere() {
    cluster
        .client()
        .nodes()
        .withName("node-b")
        .editStatus(
            n -> {
              for (NodeCondition c : n.getStatus().getConditions()) {
                if ("Ready".equals(c.getType())) {
                  c.setStatus("False");
                  c.setReason("KubeletNotReady");
                  c.setLastTransitionTime(Instant.now().toString());
                }
              }
              return n;
            });

    // agent through its pod; both gpu DaemonSets count node-b as empty: its readiness is the cause.
    awaitReconciled(AGENT, GPU_DRIVER, GPU_TOLERANT);
    probe();
    assertUnchanged(CPU_ONLY);
  }

  // --- counting ----------------------------------------------------------------------------

  /**
   * Waits until nothing has been reconciled or delivered for {@link #SETTLED} (start-up events of
   * every informer), then takes the baseline the tests count from.
   */
  private void settle() {
    long[] last = {-1};
    long[] since = {System.nanoTime()};
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              long now = counter.total();
              if (now != last[0]) {
                last[0] = now;
                since[0] = System.nanoTime();
                return false;
              }
              return Duration.ofNanos(System.nanoTime() - since[0]).compareTo(SETTLED) >= 0;
            });
    rebase();
  }

  private void rebase() {
    baseline = new LinkedHashMap<>();
    ALL.forEach(ds -> baseline.put(ds, counter.reconciles(ds)));
    ALL.forEach(ds -> baseline.put(eventsKey(ds), counter.events(ds)));
  }

  private void awaitReconciled(ResourceID... daemonSets) {
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              for (ResourceID ds : daemonSets) {
                assertThat(counter.reconciles(ds))
                    .as("reconciles of %s", ds.getName())
                    .isGreaterThan(baseline.get(ds));
              }
            });
    rebaseOnly(daemonSets);
  }

  private void rebaseOnly(ResourceID... daemonSets) {
    for (ResourceID ds : daemonSets) {
      baseline.put(ds, counter.reconciles(ds));
      baseline.put(eventsKey(ds), counter.events(ds));
    }
  }

  /**
   * The positive control: a label change on probe-node, which reaches {@code probe} alone. The node
   * informer delivers events in order, so once {@code probe} received its event, every node event
   * written before was routed; a reconcile one of them caused has had that long to start, and a
   * bounded grace covers one still being submitted.
   */
  private void probe() {
    int round = probes.incrementAndGet();
    cluster
        .client()
        .nodes()
        .withName("probe-node")
        .edit(
            n ->
                new NodeBuilder(n)
                    .editMetadata()
                    .addToLabels("stallwatch.dev/probe", String.valueOf(round))
                    .endMetadata()
                    .build());
    awaitReconciled(PROBE);
    await().pollDelay(Duration.ofMillis(300)).until(() -> true);
  }

  private void assertUnchanged(ResourceID... daemonSets) {
    for (ResourceID ds : daemonSets) {
      assertThat(counter.events(ds) - baseline.get(eventsKey(ds)))
          .as("events delivered for %s", ds.getName())
          .isZero();
      assertThat(counter.reconciles(ds) - baseline.get(ds))
          .as("reconciles of %s", ds.getName())
          .isZero();
    }
  }

  private static ResourceID eventsKey(ResourceID ds) {
    return new ResourceID(ds.getName() + "#events", NS);
  }

  private double nodesGauge(String daemonSet, String revision) {
    String prefix =
        "stallwatch_daemonset_nodes{daemonset=\""
            + daemonSet
            + "\",namespace=\""
            + NS
            + "\",revision=\""
            + revision
            + "\"} ";
    return registry
        .scrape()
        .lines()
        .filter(l -> l.startsWith(prefix))
        .map(l -> Double.parseDouble(l.substring(prefix.length()).trim()))
        .findFirst()
        .orElse(-1.0);
  }

  // --- the cluster -------------------------------------------------------------------------

  private String resourceVersion(String node) {
    return cluster.client().nodes().withName(node).get().getMetadata().getResourceVersion();
  }

  private void taint(String node, String key) {
    cluster
        .client()
        .nodes()
        .withName(node)
        .edit(
            n ->
                new NodeBuilder(n)
                    .editSpec()
                    .addNewTaint()
                    .withKey(key)
                    .withValue("true")
                    .withEffect("NoSchedule")
                    .endTaint()
                    .endSpec()
                    .build());
  }

  private void untaint(String node, String key) {
    cluster
        .client()
        .nodes()
        .withName(node)
        .edit(
            n -> {
              n.getSpec().getTaints().removeIf(t -> key.equals(t.getKey()));
              return n;
            });
  }

  private void node(String name, Map<String, String> labels, String taint) {
    NodeBuilder node =
        new NodeBuilder(KubeObjects.readyNode(name, labels, created))
            .editStatus()
            .addNewCondition()
            .withType("MemoryPressure")
            .withStatus("False")
            .withLastHeartbeatTime(created.toString())
            .withLastTransitionTime(created.toString())
            .endCondition()
            .endStatus();
    if (taint != null) {
      node.editSpec()
          .addNewTaint()
          .withKey(taint)
          .withValue("true")
          .withEffect("NoSchedule")
          .endTaint()
          .endSpec();
    }
    cluster.client().nodes().resource(node.build()).create();
  }

  /** A DaemonSet complete on revision 1 with Running, Ready pods on {@code podNodes}. */
  private void daemonSet(
      String name, Map<String, String> nodeSelector, String tolerated, String... podNodes) {
    List<Toleration> tolerations =
        tolerated == null
            ? List.of()
            : List.of(
                new TolerationBuilder()
                    .withKey(tolerated)
                    .withOperator("Exists")
                    .withEffect("NoSchedule")
                    .build());
    DaemonSetFixture ds =
        new DaemonSetFixture(cluster.client(), NS, name).scheduling(nodeSelector, tolerations);
    int pods = podNodes.length;
    ds.daemonSet(1, pods, pods, pods);
    for (String node : podNodes) {
      ds.readyPod(node, 1, created.plusSeconds(60));
    }
  }
}
