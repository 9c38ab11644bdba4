package dev.stallwatch.rollout;

import static dev.stallwatch.rollout.Views.NEW;
import static dev.stallwatch.rollout.Views.NOW;
import static dev.stallwatch.rollout.Views.OLD;
import static dev.stallwatch.rollout.Views.ds;
import static dev.stallwatch.rollout.Views.node;
import static dev.stallwatch.rollout.Views.pod;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A stall whose only evidence is a pod deletion first seen past stall-after is looked at again
 * before it is recorded: the held watch event of a hung connection, arriving before the DaemonSet's
 * change, looks exactly like it.
 */
class UnconfirmedStallTest {
  private static final AnalyzerSettings TEN_SECONDS = new AnalyzerSettings(Duration.ofSeconds(10));
  private static final Instant LAST_LOOK = NOW.minusSeconds(13);

  private static PodView settled(String node) {
    return pod(node, "new").created(Views.ago(60)).ready(Views.ago(59)).build();
  }

  private static RolloutSnapshot snapshot(List<PodView> pods) {
    return new RolloutSnapshot(
        ds(), pods, List.of(node("n1"), node("n2"), node("n3")), List.of(OLD, NEW));
  }

  /** What the operator remembers after its last look at the settled rollout, 13 s ago. */
  private static StallMemory settledMemory() {
    RolloutVerdict settled =
        RolloutAnalyzer.analyze(
            snapshot(List.of(settled("n1"), settled("n2"), settled("n3"))), LAST_LOOK, TEN_SECONDS);
    return StallMemory.from(settled, LAST_LOOK);
  }

  private static java.util.Optional<String> judge(List<PodView> pods, StallMemory memory) {
    RolloutSnapshot snapshot = snapshot(pods);
    RolloutVerdict verdict = RolloutAnalyzer.analyze(snapshot, NOW, TEN_SECONDS, memory);
    return UnconfirmedStall.of(snapshot, verdict, memory);
  }

  @Test
  void aSettledPodsDeletionFirstSeenPastStallAfterIsLookedAtAgain() {
    // The hung connection's order: n3's pod deleted 12 s ago, seen only now, the DaemonSet's
    // change (which made the controller delete it) not seen yet.
    Views.Pod deleted =
        pod("n3", "new").created(Views.ago(60)).ready(Views.ago(59)).deleted(NOW.minusSeconds(12));
    List<PodView> pods = List.of(settled("n1"), settled("n2"), deleted.build());
    StallMemory memory = settledMemory();

    RolloutVerdict verdict = RolloutAnalyzer.analyze(snapshot(pods), NOW, TEN_SECONDS, memory);
    assertThat(verdict.phase()).isEqualTo(Phase.Stalled);
    assertThat(verdict.stalledSince()).isEqualTo(NOW.minusSeconds(12));

    assertThat(judge(pods, memory))
        .hasValue(
            "DaemonSet ds looks stalled on revision new only by pod deletions first seen past"
                + " stall-after (node n3)");
  }

  @Test
  void anOldPodStuckTerminatingFirstSeenPastStallAfterIsLookedAtAgain() {
    // The controller waits for n3's old pod to go before it creates the new one.
    List<PodView> pods =
        List.of(
            settled("n1"),
            settled("n2"),
            pod("n3", "old").created(Views.ago(600)).deleted(NOW.minusSeconds(12)).build());

    assertThat(judge(pods, StallMemory.NONE)).isPresent();
  }

  @Test
  void aDeletionTheCallerSawBeforeStallAfterIsRecordedAtOnce() {
    // The same pod, watched while it was terminating: the stall grew under the caller's eyes.
    List<PodView> pods =
        List.of(
            settled("n1"),
            settled("n2"),
            pod("n3", "new").created(Views.ago(60)).deleted(NOW.minusSeconds(12)).build());
    StallMemory sawIt = new StallMemory("new", Map.of("n3", NOW.minusSeconds(12)), LAST_LOOK);

    assertThat(judge(pods, sawIt)).isEmpty();
  }

  @Test
  void aMemoryOfAnotherRevisionConfirmsNothing() {
    List<PodView> pods =
        List.of(
            settled("n1"),
            settled("n2"),
            pod("n3", "new").created(Views.ago(60)).deleted(NOW.minusSeconds(12)).build());
    StallMemory ofOld = new StallMemory("old", Map.of("n3", NOW.minusSeconds(12)), LAST_LOOK);

    assertThat(judge(pods, ofOld)).isPresent();
  }

  @Test
  void aLiveNewPodThatCannotStartIsItsOwnEvidence() {
    // n3: the old pod still terminating beside a new one stuck pulling its image.
    List<PodView> pods =
        List.of(
            settled("n1"),
            settled("n2"),
            pod("n3", "old").created(Views.ago(600)).deleted(NOW.minusSeconds(12)).build(),
            pod("n3", "new").created(Views.ago(1)).waiting("ImagePullBackOff").build());

    RolloutVerdict verdict =
        RolloutAnalyzer.analyze(snapshot(pods), NOW, TEN_SECONDS, StallMemory.NONE);
    assertThat(verdict.phase()).isEqualTo(Phase.Stalled);
    assertThat(judge(pods, StallMemory.NONE)).isEmpty();
  }

  @Test
  void oneStalledNodeWithoutADeletionIsEnough() {
    // n2 has no pod at all since the rollout began (12 min ago): not a deletion's evidence.
    List<PodView> pods =
        List.of(
            settled("n1"),
            pod("n3", "new").created(Views.ago(60)).deleted(NOW.minusSeconds(12)).build());

    RolloutVerdict verdict =
        RolloutAnalyzer.analyze(snapshot(pods), NOW, TEN_SECONDS, StallMemory.NONE);
    assertThat(verdict.stalledNodes()).containsExactlyInAnyOrder("n2", "n3");
    assertThat(judge(pods, StallMemory.NONE)).isEmpty();
  }

  @Test
  void aRolloutThatIsNotStalledNeedsNoSecondLook() {
    // Deleted 1 s ago with the default 30 s grace: not past stall-after.
    List<PodView> pods =
        List.of(
            settled("n1"),
            settled("n2"),
            pod("n3", "new").created(Views.ago(60)).deleted(NOW.plusSeconds(29)).build());

    assertThat(judge(pods, settledMemory())).isEmpty();
  }

  @Test
  void aFinishedPodBeingDeletedIsNoDeletionEvidence() {
    // n3's pod has failed and is being deleted: the analyzer counts no pod there (an empty node,
    // held since the rollout), so neither does the rule.
    List<PodView> pods =
        List.of(
            settled("n1"),
            settled("n2"),
            pod("n3", "new").created(Views.ago(60)).failed("Evicted").deleted(NOW).build());

    RolloutVerdict verdict =
        RolloutAnalyzer.analyze(snapshot(pods), NOW, TEN_SECONDS, StallMemory.NONE);
    assertThat(verdict.phase()).isEqualTo(Phase.Stalled);
    assertThat(judge(pods, StallMemory.NONE)).isEmpty();
  }
}
