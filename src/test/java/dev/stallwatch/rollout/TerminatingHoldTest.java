package dev.stallwatch.rollout;

import static dev.stallwatch.rollout.Views.NEW;
import static dev.stallwatch.rollout.Views.NOW;
import static dev.stallwatch.rollout.Views.OLD;
import static dev.stallwatch.rollout.Views.ago;
import static dev.stallwatch.rollout.Views.ds;
import static dev.stallwatch.rollout.Views.node;
import static dev.stallwatch.rollout.Views.pod;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A new-revision pod being deleted holds its node from its deletion on, not its creation. */
class TerminatingHoldTest {
  private static final AnalyzerSettings TEN_SECONDS = new AnalyzerSettings(Duration.ofSeconds(10));

  private static RolloutVerdict verdict(PodView deleted) {
    return RolloutAnalyzer.analyze(
        new RolloutSnapshot(
            ds(),
            List.of(
                pod("n1", "new").created(ago(60)).ready(ago(59)).build(),
                pod("n2", "new").created(ago(60)).ready(ago(59)).build(),
                deleted),
            List.of(node("n1"), node("n2"), node("n3")),
            List.of(OLD, NEW)),
        NOW,
        TEN_SECONDS);
  }

  @Test
  void aSettledPodDeletedAMomentAgoIsNoStall() {
    // Deleted 1 s ago with the default 30 s grace: deletionTimestamp 29 s ahead.
    PodView deleted =
        pod("n3", "new").created(ago(60)).ready(ago(59)).deleted(NOW.plusSeconds(29)).build();

    assertThat(verdict(deleted).phase()).isNotEqualTo(Phase.Stalled);
  }

  @Test
  void aPodStuckTerminatingPastStallAfterStalls() {
    PodView stuck = pod("n3", "new").created(ago(60)).ready(ago(59)).deleted(ago(5)).build();

    RolloutVerdict verdict = verdict(stuck);

    assertThat(verdict.phase()).isEqualTo(Phase.Stalled);
    assertThat(verdict.stalledNodes()).containsExactly("n3");
    assertThat(verdict.stalledSince()).isEqualTo(ago(5));
  }
}
