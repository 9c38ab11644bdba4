package dev.stallwatch.operator.decision;

import static dev.stallwatch.testing.SeedVerdicts.Operator.NEW;
import static dev.stallwatch.testing.SeedVerdicts.Operator.OLD;
import static dev.stallwatch.testing.SeedVerdicts.Operator.notStalled;
import static dev.stallwatch.testing.SeedVerdicts.Operator.stall;
import static dev.stallwatch.testing.SeedVerdicts.Operator.stalled;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.rollout.Cause;
import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.rollout.Phase;
import dev.stallwatch.rollout.RevisionSummary;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

public class ResolutionTest {
  private final Instant now = Instant.parse("2026-12-02T10:07:00Z");
  private final RolloutStall active =
      stall(StallRecord.active(stalled(Cause.ImagePull), null, now), Map.of());

  @Test
  void aStallThatStillHoldsIsNotResolved() {
    assertThat(Resolution.of(active, stalled(Cause.ImagePull))).isEmpty();
  }

  @Test
  void aStallWhoseNodesWereAllDeletedIsResolvedNodeRemoved() {
    assertThat(
            Resolution.of(
                active,
                notStalled(Phase.Progressing, NEW),
                nodes(n -> !n.equals("gpu-node-1"), false)))
        .contains(Resolution.NodeRemoved);
    assertThat(Resolution.of(active, notStalled(Phase.Complete, NEW), StallNodes.ALL_READY))
        .contains(Resolution.RolloutComplete);
    // Still stalled (on another node): not over.
    assertThat(Resolution.of(active, stalled(Cause.ImagePull), nodes(n -> false, false))).isEmpty();
    assertThat(Resolution.NodeRemoved.describe("toolkit", "7f6c8d9b4"))
        .isEqualTo(
            "Every node the rollout of toolkit to revision 7f6c8d9b4 stalled on was deleted");
  }

  @Test
  void aCompletedRolloutResolvesIt() {
    assertThat(Resolution.of(active, notStalled(Phase.Complete, NEW)))
        .contains(Resolution.RolloutComplete);
  }

  @Test
  void aRolloutThatMovesPastTheNodeResolvesIt() {
    assertThat(Resolution.of(active, notStalled(Phase.Progressing, NEW)))
        .contains(Resolution.RolloutMovedOn);
  }

  @Test
  void goingBackToTheOldRevisionIsARollback() {
    assertThat(Resolution.of(active, notStalled(Phase.Complete, OLD)))
        .contains(Resolution.RolledBack);
  }

  @Test
  void aThirdRevisionSupersedesIt() {
    RevisionSummary third = new RevisionSummary("0a1b2c3d4", 3L, List.of("toolkit:v1.15.0"));
    assertThat(Resolution.of(active, stalled(Cause.ImagePull, third, now)))
        .contains(Resolution.Superseded);
  }

  @Test
  void anAcknowledgedNodeExclusionIsResolved() {
    RolloutStall excluded =
        stall(
            StallRecord.active(stalled(Cause.NodeExcluded), null, now),
            Map.of(MetadataKeys.ACKNOWLEDGED, "true"));
    assertThat(Resolution.of(excluded, stalled(Cause.NodeExcluded)))
        .contains(Resolution.Acknowledged);
  }

  @Test
  void theAcknowledgeAnnotationDoesNotSilenceOtherCauses() {
    RolloutStall pulled =
        stall(
            StallRecord.active(stalled(Cause.ImagePull), null, now),
            Map.of(MetadataKeys.ACKNOWLEDGED, "true"));
    assertThat(Resolution.of(pulled, stalled(Cause.ImagePull))).isEmpty();
  }

  @Test
  void aNodeOutageIsNotProgressWhileANodeTheStallHeldIsDown() {
    // After an API-server outage every node may be NotReady: DESIRED shrinks to nothing and the
    // verdict reads Complete; the stall stays Active until its node is back.
    StallNodes down = nodes(n -> true, true);
    assertThat(Resolution.of(active, notStalled(Phase.Complete, NEW), down)).isEmpty();
    assertThat(Resolution.of(active, notStalled(Phase.Progressing, NEW), down)).isEmpty();
    // Gone for good, or moved to another revision: over all the same.
    assertThat(Resolution.of(active, notStalled(Phase.Progressing, NEW), nodes(n -> false, true)))
        .contains(Resolution.NodeRemoved);
    assertThat(Resolution.of(active, notStalled(Phase.Complete, OLD), down))
        .contains(Resolution.RolledBack);
    // Back and Ready: the completed rollout resolves it.
    assertThat(Resolution.of(active, notStalled(Phase.Complete, NEW), nodes(n -> true, false)))
        .contains(Resolution.RolloutComplete);
  }

  @Test
  void anOutageHoldingAnUnreadyPodKeepsTheStallWhicheverNodesItNames() {
    // The record's nodes are all up (or it names none, edited by hand): a node the outage took
    // still holds an unready pod of the DaemonSet, outside DESIRED — no Complete to believe.
    StallNodes outage = nodes(n -> true, false, true);
    assertThat(Resolution.of(active, notStalled(Phase.Complete, NEW), outage)).isEmpty();
    assertThat(Resolution.of(active, notStalled(Phase.Progressing, NEW), outage)).isEmpty();
    assertThat(Resolution.of(active, notStalled(Phase.Complete, OLD), outage))
        .contains(Resolution.RolledBack);
  }

  private static StallNodes nodes(java.util.function.Predicate<String> exists, boolean down) {
    return nodes(exists, down, false);
  }

  private static StallNodes nodes(
      java.util.function.Predicate<String> exists, boolean down, boolean outage) {
    return new StallNodes() {
      @Override
      public boolean outageInProgress() {
        return outage;
      }

      @Override
      public boolean exists(String node) {
        return exists.test(node);
      }

      @Override
      public boolean down(String node) {
        return down && exists.test(node);
      }
    };
  }
}
