package dev.stallwatch.operator;

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

class ResolutionTest {
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
                active, notStalled(Phase.Progressing, NEW), node -> !node.equals("gpu-node-1")))
        .contains(Resolution.NodeRemoved);
    assertThat(Resolution.of(active, notStalled(Phase.Complete, NEW), node -> true))
        .contains(Resolution.RolloutComplete);
    // Still stalled (on another node): not over.
    assertThat(Resolution.of(active, stalled(Cause.ImagePull), node -> false)).isEmpty();
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
}
