package dev.stallwatch.operator.decision;

import static dev.stallwatch.testing.SeedVerdicts.Operator.NEW;
import static dev.stallwatch.testing.SeedVerdicts.Operator.notStalled;
import static dev.stallwatch.testing.SeedVerdicts.Operator.stall;
import static dev.stallwatch.testing.SeedVerdicts.Operator.stalled;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.rollout.Cause;
import dev.stallwatch.rollout.NodeView;
import dev.stallwatch.rollout.NodeView.Condition;
import dev.stallwatch.rollout.NodeView.Taint;
import dev.stallwatch.rollout.Phase;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

public class StallNodesTest {
  private static final Instant T = Instant.parse("2026-12-04T15:51:00Z");
  private static final Condition READY = new Condition("True", "KubeletReady", "", T);

  private static NodeView node(String name, Condition ready, Taint... taints) {
    return new NodeView(name, Map.of(), List.of(taints), false, ready, T.minusSeconds(3600));
  }

  private static Taint taint(String key, String effect) {
    return new Taint(key, "", effect, T.minusSeconds(30));
  }

  @Test
  void aReadyNodeWithoutTheLifecycleTaintsIsUp() {
    StallNodes nodes = StallNodes.of(List.of(node("n1", READY, taint("gpu", "NoSchedule"))));
    assertThat(nodes.exists("n1")).isTrue();
    assertThat(nodes.down("n1")).isFalse();
  }

  @Test
  void aNodeNotReadyOrWithoutAReadyConditionIsDown() {
    StallNodes nodes =
        StallNodes.of(
            List.of(
                node("false", new Condition("False", "KubeletNotReady", "", T)),
                node("unknown", new Condition("Unknown", "NodeStatusUnknown", "", T)),
                node("new", null)));
    assertThat(nodes.down("false")).isTrue();
    assertThat(nodes.down("unknown")).isTrue();
    assertThat(nodes.down("new")).isTrue();
  }

  @Test
  void aNodeReadyAgainButStillTaintedByTheLifecycleControllerIsDown() {
    // Back from an API-server outage: the kubelet reports Ready a moment before the node lifecycle
    // controller lifts its taint, and until then the DaemonSet controller counts the node out of
    // DESIRED (the NoSchedule taint is not among the tolerations it adds).
    StallNodes nodes =
        StallNodes.of(
            List.of(
                node("unreachable", READY, taint(NodeView.UNREACHABLE_TAINT, "NoSchedule")),
                node("not-ready", READY, taint(NodeView.NOT_READY_TAINT, "NoExecute"))));
    assertThat(nodes.down("unreachable")).isTrue();
    assertThat(nodes.down("not-ready")).isTrue();
  }

  @Test
  void aMissingNodeIsNeitherThereNorDown() {
    StallNodes nodes = StallNodes.of(List.of(node("n1", READY)));
    assertThat(nodes.exists("gone")).isFalse();
    assertThat(nodes.down("gone")).isFalse();
  }

  @Test
  void theFirstOfTwoNodesWithOneNameCounts() {
    StallNodes nodes =
        StallNodes.of(
            List.of(
                node("n1", READY), node("n1", new Condition("False", "KubeletNotReady", "", T))));
    assertThat(nodes.down("n1")).isFalse();
  }

  @Test
  void aStallIsNotResolvedWhileItsNodeIsStillTainted() {
    // The vacuous Complete of the outage (0 desired nodes) with the node Ready but tainted.
    RolloutStall active = stall(StallRecord.active(stalled(Cause.ImagePull), null, T), Map.of());
    StallNodes tainted =
        StallNodes.of(
            List.of(node("gpu-node-1", READY, taint(NodeView.UNREACHABLE_TAINT, "NoSchedule"))));
    assertThat(Resolution.of(active, notStalled(Phase.Complete, NEW), tainted)).isEmpty();
    StallNodes back = StallNodes.of(List.of(node("gpu-node-1", READY)));
    assertThat(Resolution.of(active, notStalled(Phase.Complete, NEW), back))
        .contains(Resolution.RolloutComplete);
  }
}
