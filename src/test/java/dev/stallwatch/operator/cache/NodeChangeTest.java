package dev.stallwatch.operator.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.kube.PodTemplates;
import dev.stallwatch.rollout.NodeView;
import dev.stallwatch.rollout.PodTemplateView;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

public class NodeChangeTest {
  private final Node node =
      new NodeBuilder()
          .withNewMetadata()
          .withName("gpu-node-1")
          .withResourceVersion("10")
          .addToLabels("nvidia.com/gpu.present", "true")
          .endMetadata()
          .withNewSpec()
          .endSpec()
          .withNewStatus()
          .addNewCondition()
          .withType("Ready")
          .withStatus("True")
          .withLastHeartbeatTime("2026-12-02T10:00:00Z")
          .withLastTransitionTime("2026-12-01T00:00:00Z")
          .endCondition()
          .addNewCondition()
          .withType("MemoryPressure")
          .withStatus("False")
          .withLastHeartbeatTime("2026-12-02T10:00:00Z")
          .endCondition()
          .addToAllocatable("nvidia.com/gpu", new Quantity("8"))
          .endStatus()
          .build();

  /** The heartbeat of {@link #node}: a new resourceVersion, heartbeat time and image list. */
  private static Node heartbeat(NodeBuilder n) {
    return n.editMetadata()
        .withResourceVersion("11")
        .endMetadata()
        .editStatus()
        .editFirstCondition()
        .withLastHeartbeatTime("2026-12-02T10:00:10Z")
        .endCondition()
        .addNewImage()
        .withNames("registry/cache:1")
        .endImage()
        .endStatus()
        .build();
  }

  /** One row per kind of node update: what changed, and whether a DaemonSet must look again. */
  static Stream<Arguments> updates() {
    return Stream.of(
        Arguments.of(
            "a heartbeat only", (Function<NodeBuilder, Node>) NodeChangeTest::heartbeat, false),
        Arguments.of(
            "a maintenance condition (MaintenanceInProgress=True)",
            (Function<NodeBuilder, Node>)
                n ->
                    n.editStatus()
                        .addNewCondition()
                        .withType("MaintenanceInProgress")
                        .withStatus("True")
                        .endCondition()
                        .endStatus()
                        .build(),
            true),
        Arguments.of(
            "another condition (DiskPressure=True)",
            (Function<NodeBuilder, Node>)
                n ->
                    n.editStatus()
                        .addNewCondition()
                        .withType("DiskPressure")
                        .withStatus("True")
                        .endCondition()
                        .endStatus()
                        .build(),
            false),
        Arguments.of(
            "a label",
            (Function<NodeBuilder, Node>)
                n -> n.editMetadata().addToLabels("x", "y").endMetadata().build(),
            true),
        Arguments.of(
            "a NoSchedule taint",
            (Function<NodeBuilder, Node>)
                n ->
                    n.editSpec()
                        .addNewTaint()
                        .withKey("gpu")
                        .withEffect("NoSchedule")
                        .endTaint()
                        .endSpec()
                        .build(),
            true),
        Arguments.of(
            "cordoned (unschedulable)",
            (Function<NodeBuilder, Node>)
                n -> n.editSpec().withUnschedulable(true).endSpec().build(),
            true),
        Arguments.of(
            "Ready turning False",
            (Function<NodeBuilder, Node>)
                n ->
                    n.editStatus()
                        .editFirstCondition()
                        .withStatus("False")
                        .endCondition()
                        .endStatus()
                        .build(),
            true),
        Arguments.of(
            "allocatable GPUs changed",
            (Function<NodeBuilder, Node>)
                n ->
                    n.editStatus()
                        .addToAllocatable("nvidia.com/gpu", new Quantity("7"))
                        .endStatus()
                        .build(),
            true));
  }

  @ParameterizedTest(name = "{0}: matters {2}")
  @MethodSource("updates")
  void whetherAnUpdateMatters(String what, Function<NodeBuilder, Node> change, boolean matters) {
    assertThat(NodeChange.matters(node, change.apply(new NodeBuilder(node)))).isEqualTo(matters);
  }

  @Test
  void theCachedPrunedNodeComparesAsTheWholeOne() {
    assertThat(NodeChange.matters(CachePruning.node(node), heartbeat(new NodeBuilder(node))))
        .isFalse();
  }

  // --- concernsEmptyNode: a DaemonSet without a pod on the node -------------------------------

  private static final PodTemplateView ON_GPU = template(Map.of("nvidia.com/gpu.present", "true"));
  private static final PodTemplateView ON_CPU = template(Map.of("pool", "cpu"));
  private static final PodTemplateView ANYWHERE = template(Map.of());
  private static final Supplier<List<PodTemplateView>> NO_REVISIONS = List::of;

  /** Fails the test when asked: the current template already decided. */
  private static final Supplier<List<PodTemplateView>> NOT_ASKED =
      () -> {
        throw new AssertionError("earlier revisions read although the current template decides");
      };

  @Test
  void aNodeThatBecomesIneligibleOrEligibleConcernsTheDaemonSetEvenWithoutAPodThere() {
    NodeView tainted = view(taint(node, "maintenance", "NoSchedule"));
    assertThat(NodeChange.concernsEmptyNode(view(node), tainted, ON_GPU, NOT_ASKED)).isTrue();
    assertThat(NodeChange.concernsEmptyNode(tainted, view(node), ON_GPU, NOT_ASKED)).isTrue();
    NodeView unlabelled =
        view(
            new NodeBuilder(node)
                .editMetadata()
                .removeFromLabels("nvidia.com/gpu.present")
                .endMetadata()
                .build());
    assertThat(NodeChange.concernsEmptyNode(view(node), unlabelled, ON_GPU, NOT_ASKED)).isTrue();
  }

  @Test
  void aTaintTheTemplateToleratesOrANodeItNeverRunsOnDoesNotConcernIt() {
    NodeView tainted = view(taint(node, "maintenance", "NoSchedule"));
    PodTemplateView tolerant =
        PodTemplates.view(
            new PodTemplateSpecBuilder()
                .withNewSpec()
                .addToNodeSelector("nvidia.com/gpu.present", "true")
                .withTolerations(
                    new TolerationBuilder()
                        .withKey("maintenance")
                        .withOperator("Exists")
                        .withEffect("NoSchedule")
                        .build())
                .endSpec()
                .build(),
            "test",
            "template");
    assertThat(NodeChange.concernsEmptyNode(view(node), tainted, tolerant, NOT_ASKED)).isFalse();
    assertThat(NodeChange.concernsEmptyNode(view(node), tainted, ON_CPU, NO_REVISIONS)).isFalse();
    // Nor does a readiness change on a node the DaemonSet does not run on.
    assertThat(NodeChange.concernsEmptyNode(view(node), view(notReady(node)), ON_CPU, NO_REVISIONS))
        .isFalse();
  }

  @Test
  void readinessConcernsADaemonSetThatShouldRunOnTheEmptyNode() {
    assertThat(NodeChange.concernsEmptyNode(view(node), view(notReady(node)), ANYWHERE, NOT_ASKED))
        .isTrue();
    // Every daemon pod tolerates not-ready:NoExecute, so eligibility stays; the cause changes.
    NodeView notReadyTaint = view(taint(node, "node.kubernetes.io/not-ready", "NoExecute"));
    assertThat(NodeChange.concernsEmptyNode(view(node), notReadyTaint, ANYWHERE, NOT_ASKED))
        .isTrue();
    // Allocatable and unschedulable are not read for a node without a pod (daemon pods tolerate
    // unschedulable); labels that do not decide placement neither.
    Node more =
        new NodeBuilder(node)
            .editMetadata()
            .addToLabels("topology.kubernetes.io/zone", "b")
            .endMetadata()
            .editSpec()
            .withUnschedulable(true)
            .endSpec()
            .editStatus()
            .addToAllocatable("nvidia.com/gpu", new Quantity("7"))
            .endStatus()
            .build();
    assertThat(NodeChange.concernsEmptyNode(view(node), view(more), ANYWHERE, NOT_ASKED)).isFalse();
  }

  @Test
  void aNodeOnlyAnEarlierRevisionRunsOnConcernsTheDaemonSetWhenThatChanges() {
    // The current template runs on GPU nodes only; revision 1 ran on pool=cpu too: such a node is
    // NodeExcluded, and stops being so when it leaves the pool.
    Node cpu =
        new NodeBuilder(node)
            .editMetadata()
            .removeFromLabels("nvidia.com/gpu.present")
            .addToLabels("pool", "cpu")
            .endMetadata()
            .build();
    Node left = new NodeBuilder(cpu).editMetadata().removeFromLabels("pool").endMetadata().build();
    Supplier<List<PodTemplateView>> revisions = () -> List.of(ON_GPU, ON_CPU);
    assertThat(NodeChange.concernsEmptyNode(view(cpu), view(left), ON_GPU, revisions)).isTrue();
    assertThat(NodeChange.concernsEmptyNode(view(cpu), view(left), ON_GPU, NO_REVISIONS)).isFalse();
    // Added or deleted: the current template or an earlier one runs there.
    assertThat(NodeChange.concernsEmptyNode(null, view(cpu), ON_GPU, revisions)).isTrue();
    assertThat(NodeChange.concernsEmptyNode(view(cpu), null, ON_GPU, revisions)).isTrue();
    assertThat(NodeChange.concernsEmptyNode(null, view(left), ON_GPU, revisions)).isFalse();
    assertThat(NodeChange.concernsEmptyNode(null, view(node), ON_GPU, NOT_ASKED)).isTrue();
    // Readiness alone does not touch an excluded row: revisions are not even read.
    assertThat(NodeChange.concernsEmptyNode(view(cpu), view(notReady(cpu)), ON_GPU, NOT_ASKED))
        .isFalse();
  }

  private static PodTemplateView template(Map<String, String> nodeSelector) {
    return PodTemplates.view(
        new PodTemplateSpecBuilder().withNewSpec().withNodeSelector(nodeSelector).endSpec().build(),
        "test",
        "template");
  }

  private static NodeView view(Node n) {
    return KubeViews.node(n);
  }

  private static Node taint(Node n, String key, String effect) {
    return new NodeBuilder(n)
        .editSpec()
        .addNewTaint()
        .withKey(key)
        .withEffect(effect)
        .endTaint()
        .endSpec()
        .build();
  }

  private static Node notReady(Node n) {
    return new NodeBuilder(n)
        .editStatus()
        .editFirstCondition()
        .withStatus("False")
        .withReason("KubeletNotReady")
        .withLastTransitionTime("2026-12-02T10:05:00Z")
        .endCondition()
        .endStatus()
        .build();
  }
}
