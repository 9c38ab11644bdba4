package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class NodeChangeTest {
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

  @Test
  void aHeartbeatOnlyUpdateDoesNotMatter() {
    Node beat =
        edit(
            n ->
                new NodeBuilder(n)
                    .editMetadata()
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
                    .build());
    assertThat(NodeChange.matters(node, beat)).isFalse();
    // The cache holds the pruned node; comparing against it must not see a change either.
    assertThat(NodeChange.matters(CachePruning.node(node), beat)).isFalse();
  }

  @Test
  void labelsTaintsUnschedulableReadyAndAllocatableMatter() {
    assertThat(
            NodeChange.matters(
                node,
                edit(
                    n ->
                        new NodeBuilder(n)
                            .editMetadata()
                            .addToLabels("x", "y")
                            .endMetadata()
                            .build())))
        .isTrue();
    assertThat(
            NodeChange.matters(
                node,
                edit(
                    n ->
                        new NodeBuilder(n)
                            .editSpec()
                            .addNewTaint()
                            .withKey("gpu")
                            .withEffect("NoSchedule")
                            .endTaint()
                            .endSpec()
                            .build())))
        .isTrue();
    assertThat(
            NodeChange.matters(
                node,
                edit(n -> new NodeBuilder(n).editSpec().withUnschedulable(true).endSpec().build())))
        .isTrue();
    assertThat(
            NodeChange.matters(
                node,
                edit(
                    n ->
                        new NodeBuilder(n)
                            .editStatus()
                            .editFirstCondition()
                            .withStatus("False")
                            .endCondition()
                            .endStatus()
                            .build())))
        .isTrue();
    assertThat(
            NodeChange.matters(
                node,
                edit(
                    n ->
                        new NodeBuilder(n)
                            .editStatus()
                            .addToAllocatable("nvidia.com/gpu", new Quantity("7"))
                            .endStatus()
                            .build())))
        .isTrue();
  }

  private Node edit(UnaryOperator<Node> change) {
    return change.apply(new NodeBuilder(node).build());
  }
}
