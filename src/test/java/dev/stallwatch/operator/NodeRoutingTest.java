package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.operator.cache.RolloutEventSources;
import dev.stallwatch.testing.KubeObjects;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link RolloutEventSources.NodeRouting}: which DaemonSets a node event reaches. */
class NodeRoutingTest {
  private static final String NS = "kube-system";
  private static final KubernetesSerialization JSON = new KubernetesSerialization();

  private final List<DaemonSet> daemonSets = new ArrayList<>();
  private final Map<String, List<Pod>> podsByNode = new HashMap<>();
  private final Map<String, Set<ControllerRevision>> revisions = new HashMap<>();
  private final RolloutEventSources.NodeRouting routing =
      new RolloutEventSources.NodeRouting(
          () -> daemonSets.stream(),
          node -> podsByNode.getOrDefault(node, List.of()),
          ds -> revisions.getOrDefault(ds.getMetadata().getName(), Set.of()));

  private final Node nodeB = node("node-b", Map.of("pool", "gpu"));

  @Test
  void aTaintReachesThePodsOwnersAndTheDaemonSetsThatLoseTheNodeNotTheOthers() {
    daemonSets.add(daemonSet("agent", Map.of()));
    daemonSets.add(daemonSet("driver", Map.of("pool", "gpu")));
    daemonSets.add(daemonSet("cpu-only", Map.of("pool", "cpu")));
    pod("agent", "node-b");

    Node tainted = taint(nodeB, "maintenance");

    assertThat(routing.affected(nodeB, tainted))
        .containsExactlyInAnyOrder(id("agent"), id("driver"));
    assertThat(routing.affected(tainted, nodeB))
        .containsExactlyInAnyOrder(id("agent"), id("driver"));
  }

  @Test
  void anUpdateTheAnalyzerDoesNotReadReachesOnlyThePodsOwners() {
    daemonSets.add(daemonSet("agent", Map.of()));
    daemonSets.add(daemonSet("driver", Map.of("pool", "gpu")));
    pod("agent", "node-b");
    Node relabelled =
        new NodeBuilder(nodeB).editMetadata().addToLabels("zone", "b").endMetadata().build();

    assertThat(routing.affected(nodeB, relabelled)).containsExactly(id("agent"));
  }

  @Test
  void anAddedOrDeletedNodeReachesTheDaemonSetsThatRunThereOrHadPodsThere() {
    daemonSets.add(daemonSet("agent", Map.of()));
    daemonSets.add(daemonSet("driver", Map.of("pool", "gpu")));
    daemonSets.add(daemonSet("cpu-only", Map.of("pool", "cpu")));
    pod("cpu-only", "node-b"); // misscheduled: its node left the pool

    assertThat(routing.affected(null, nodeB))
        .containsExactlyInAnyOrder(id("agent"), id("driver"), id("cpu-only"));
  }

  @Test
  void aPendingPodPinnedByAffinityCountsAsOnItsNode() {
    Pod pending =
        new PodBuilder()
            .withNewMetadata()
            .withName("driver-x")
            .withNamespace(NS)
            .withCreationTimestamp("2026-12-02T10:00:00Z")
            .endMetadata()
            .withNewSpec()
            .withNewAffinity()
            .withNewNodeAffinity()
            .withNewRequiredDuringSchedulingIgnoredDuringExecution()
            .addNewNodeSelectorTerm()
            .withMatchFields(
                new NodeSelectorRequirementBuilder()
                    .withKey("metadata.name")
                    .withOperator("In")
                    .withValues("node-b")
                    .build())
            .endNodeSelectorTerm()
            .endRequiredDuringSchedulingIgnoredDuringExecution()
            .endNodeAffinity()
            .endAffinity()
            .endSpec()
            .build();
    assertThat(RolloutEventSources.targetNode(pending)).containsExactly("node-b");
    pending.getSpec().setNodeName("node-c");
    assertThat(RolloutEventSources.targetNode(pending)).containsExactly("node-c");
    assertThat(RolloutEventSources.targetNode(new PodBuilder().withNewSpec().endSpec().build()))
        .isEmpty();
  }

  @Test
  void aChangedTemplateIsReadAgain() {
    DaemonSet driver = daemonSet("driver", Map.of("pool", "gpu"));
    daemonSets.add(driver);
    Node tainted = taint(nodeB, "maintenance");
    assertThat(routing.affected(nodeB, tainted)).containsExactly(id("driver"));

    daemonSets.set(0, daemonSet("driver", Map.of("pool", "cpu")));

    assertThat(routing.affected(nodeB, tainted)).isEmpty();
  }

  @Test
  void aNodeOnlyAnEarlierRevisionRunsOnReachesTheDaemonSet() {
    // Revision 1 ran everywhere; revision 2 (current) only on GPU nodes: a CPU node is excluded.
    daemonSets.add(daemonSet("driver", Map.of("pool", "gpu")));
    revisions.put(
        "driver",
        Set.of(revision("driver", 1, Map.of()), revision("driver", 2, Map.of("pool", "gpu"))));
    Node cpu = node("node-c", Map.of("pool", "cpu"));

    assertThat(routing.affected(null, cpu)).containsExactly(id("driver"));
    // A taint that revision 1 does not tolerate ends the exclusion.
    assertThat(routing.affected(cpu, taint(cpu, "maintenance"))).containsExactly(id("driver"));
    revisions.remove("driver");
    assertThat(routing.affected(cpu, taint(cpu, "maintenance"))).isEmpty();
  }

  @Test
  void aDaemonSetWithoutATemplateIsLeftToItsOwnReconcile() {
    daemonSets.add(
        new DaemonSetBuilder()
            .withNewMetadata()
            .withName("broken")
            .withNamespace(NS)
            .endMetadata()
            .withNewSpec()
            .endSpec()
            .build());
    daemonSets.add(daemonSet("agent", Map.of()));

    assertThat(routing.affected(null, nodeB)).containsExactly(id("agent"));
  }

  private static ResourceID id(String name) {
    return new ResourceID(name, NS);
  }

  private static Node node(String name, Map<String, String> labels) {
    return KubeObjects.readyNode(name, labels, Instant.parse("2026-12-01T00:00:00Z"));
  }

  private static Node taint(Node n, String key) {
    return new NodeBuilder(n)
        .editSpec()
        .addNewTaint()
        .withKey(key)
        .withEffect("NoSchedule")
        .endTaint()
        .endSpec()
        .build();
  }

  private static DaemonSet daemonSet(String name, Map<String, String> nodeSelector) {
    return new DaemonSetBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NS)
        .endMetadata()
        .withNewSpec()
        .withNewTemplate()
        .withNewSpec()
        .withNodeSelector(nodeSelector)
        .addNewContainer()
        .withName("c")
        .withImage("busybox")
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  private static ControllerRevision revision(
      String ds, long number, Map<String, String> nodeSelector) {
    Map<String, Object> spec = new HashMap<>();
    spec.put(
        "template",
        JSON.convertValue(daemonSet(ds, nodeSelector).getSpec().getTemplate(), Map.class));
    return new ControllerRevisionBuilder()
        .withNewMetadata()
        .withName(ds + "-" + number)
        .withNamespace(NS)
        .withUid(ds + "-uid-" + number)
        .endMetadata()
        .withRevision(number)
        .withData(Map.of("spec", spec))
        .build();
  }

  private void pod(String ds, String node) {
    podsByNode
        .computeIfAbsent(node, n -> new ArrayList<>())
        .add(
            new PodBuilder()
                .withNewMetadata()
                .withName(ds + "-" + node)
                .withNamespace(NS)
                .addNewOwnerReference()
                .withApiVersion("apps/v1")
                .withKind("DaemonSet")
                .withName(ds)
                .withController(true)
                .endOwnerReference()
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .endSpec()
                .build());
  }
}
