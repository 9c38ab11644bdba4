package dev.stallwatch.rollout;

import static dev.stallwatch.rollout.Views.NEW;
import static dev.stallwatch.rollout.Views.NOW;
import static dev.stallwatch.rollout.Views.OLD;
import static dev.stallwatch.rollout.Views.ago;
import static dev.stallwatch.rollout.Views.downNode;
import static dev.stallwatch.rollout.Views.node;
import static dev.stallwatch.rollout.Views.pod;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Nodes in maintenance through the whole analysis (PRODUCT.md, "Nodes in maintenance"): a node that
 * went NotReady after the new pod was created there, which alone points at the new revision, is the
 * node's doing when it carried a maintenance signal from before; the verdict's message counts the
 * unavailable nodes in maintenance.
 */
class MaintenanceTest {
  private static final AnalyzerSettings FIVE_MINUTES = new AnalyzerSettings(Duration.ofMinutes(5));

  /** n1 updated, n2 down since 8 minutes with a new pod never Ready, n3 waiting on its old pod. */
  private static RolloutVerdict analyze(NodeView n2) {
    List<PodView> pods =
        List.of(
            pod("n1", "new").created(ago(30)).ready(ago(29)).build(),
            pod("n2", "new").created(ago(11)).notReady().build(),
            pod("n3", "old").created(ago(600)).ready(ago(599)).build());
    return RolloutAnalyzer.analyze(
        new RolloutSnapshot(
            Views.ds(), pods, List.of(node("n1"), n2, node("n3")), List.of(OLD, NEW)),
        NOW,
        FIVE_MINUTES);
  }

  private static NodeView inMaintenance(NodeView down, String signal, Instant since) {
    return new NodeView(
        down.name(),
        down.labels(),
        down.taints(),
        down.unschedulable(),
        down.ready(),
        down.created(),
        List.of(new Maintenance.Signal(signal, since)));
  }

  @Test
  void withoutASignalTheNodeDownAfterTheNewPodPointsAtTheNewRevision() {
    RolloutVerdict v = analyze(downNode("n2", ago(8)));

    assertThat(v.phase()).isEqualTo(Phase.Stalled);
    assertThat(v.cause()).isEqualTo(Cause.NodeUnavailable);
    assertThat(v.suspect()).isEqualTo(Suspect.NewRevision);
    assertThat(v.message()).doesNotContain("maintenance");
  }

  @Test
  void aDrainFromBeforeTheNewPodMakesTheNodeTheSuspectAndIsCounted() {
    RolloutVerdict v = analyze(inMaintenance(downNode("n2", ago(8)), "DrainInProgress", ago(20)));

    assertThat(v.phase()).isEqualTo(Phase.Stalled);
    assertThat(v.stalledNodes()).containsExactly("n2");
    assertThat(v.suspect()).isEqualTo(Suspect.Node);
    assertThat(v.suspectReason())
        .isEqualTo(
            "node n2 is in maintenance (DrainInProgress) since before the new pod was created"
                + " there");
    assertThat(v.message()).endsWith("; 1 of 1 unavailable node is in maintenance");
  }

  @Test
  void aSignalRaisedAfterTheNewPodLeavesTheNewRevisionSuspectButIsCounted() {
    RolloutVerdict v = analyze(inMaintenance(downNode("n2", ago(8)), "MaintenancePlanned", ago(5)));

    assertThat(v.suspect()).isEqualTo(Suspect.NewRevision);
    assertThat(v.message()).endsWith("; 1 of 1 unavailable node is in maintenance");
  }
}
