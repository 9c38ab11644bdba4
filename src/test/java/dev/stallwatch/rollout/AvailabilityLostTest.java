package dev.stallwatch.rollout;

import static dev.stallwatch.rollout.Views.NEW;
import static dev.stallwatch.rollout.Views.NEW_TEMPLATE;
import static dev.stallwatch.rollout.Views.NOW;
import static dev.stallwatch.rollout.Views.OLD;
import static dev.stallwatch.rollout.Views.ago;
import static dev.stallwatch.rollout.Views.node;
import static dev.stallwatch.rollout.Views.pod;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A rollout that completed long ago, then one pod of its revision stops being available for a
 * moment (a failing probe, a kubelet or node restart, the node controller's mark): a stall only
 * once it has held the node back for stall-after, dated from when it stopped being available, not
 * from the pod's creation an hour earlier.
 */
class AvailabilityLostTest {
  private static final AnalyzerSettings FIVE_MINUTES = new AnalyzerSettings(Duration.ofMinutes(5));

  /** The DaemonSet at template generation 2 running revision "new", with {@code status}. */
  private static DaemonSetView ds(int minReadySeconds, DaemonSetView.Status status) {
    return new DaemonSetView(
        new ObjectRef("ns", "ds", "uid-ds"),
        2,
        2L,
        Map.of(),
        NEW_TEMPLATE,
        null,
        minReadySeconds,
        status,
        ago(60 * 24 * 30));
  }

  /** Three nodes, every pod of revision "new" created an hour ago; n1's pod as given. */
  private static RolloutSnapshot completedWith(PodView n1, int minReadySeconds) {
    DaemonSetView ds = ds(minReadySeconds, new DaemonSetView.Status(2L, 3, 3, 3, 3, 2, 1, 0));
    List<PodView> pods =
        List.of(
            n1,
            pod("n2", "new").created(ago(60)).ready(ago(59)).build(),
            pod("n3", "new").created(ago(60)).ready(ago(59)).build());
    return new RolloutSnapshot(
        ds, pods, List.of(node("n1"), node("n2"), node("n3")), List.of(OLD, NEW));
  }

  /** What an operator keeps after its last look at {@code at}: no node held back "new". */
  private static StallMemory sawItComplete(Instant at) {
    return new StallMemory("new", Map.of(), at);
  }

  private static NodeRow n1(RolloutVerdict verdict) {
    return verdict.nodes().stream().filter(r -> r.node().equals("n1")).findFirst().orElseThrow();
  }

  @Test
  void aPodReadyAgainThatWaitsOutMinReadySecondsIsNoStallEvenFromASnapshot() {
    PodView readyAgain = pod("n1", "new").created(ago(60)).ready(NOW.minusSeconds(1)).build();

    RolloutVerdict verdict =
        RolloutAnalyzer.analyze(completedWith(readyAgain, 3), NOW, FIVE_MINUTES);

    // It has held the node back since its creation, as far as a snapshot tells, but is not stuck.
    assertThat(n1(verdict).standing()).isEqualTo(NodeRow.Standing.UPDATING);
    assertThat(n1(verdict).since()).isEqualTo(ago(60));
    assertThat(n1(verdict).reason()).isEqualTo("MinReadySeconds");
    assertThat(verdict.phase()).isNotEqualTo(Phase.Stalled);
    assertThat(verdict.nextCheck()).isEqualTo(NOW.plusSeconds(2).plusMillis(1));
  }

  @Test
  void aPodReadyForLessThanStallAfterIsNotStuckUntilThen() {
    PodView waiting = pod("n1", "new").created(ago(60)).ready(ago(4)).build();

    RolloutVerdict verdict =
        RolloutAnalyzer.analyze(completedWith(waiting, 600), NOW, FIVE_MINUTES);

    assertThat(n1(verdict).standing()).isEqualTo(NodeRow.Standing.UPDATING);
    assertThat(verdict.nextCheck()).isEqualTo(ago(4).plus(Duration.ofMinutes(5)));
  }

  @Test
  void aMinReadySecondsLongerThanStallAfterIsStillAStall() {
    PodView waiting = pod("n1", "new").created(ago(60)).ready(ago(6)).build();

    RolloutVerdict verdict =
        RolloutAnalyzer.analyze(completedWith(waiting, 600), NOW, FIVE_MINUTES);

    assertThat(n1(verdict).standing()).isEqualTo(NodeRow.Standing.STUCK);
    assertThat(n1(verdict).since()).isEqualTo(ago(60));
    assertThat(n1(verdict).reason()).isEqualTo("MinReadySeconds");
    assertThat(verdict.phase()).isEqualTo(Phase.Stalled);
  }

  @Test
  void aWatchingCallerDatesAPodThatStoppedBeingReadyFromItsReadyTransition() {
    PodView blip = pod("n1", "new").created(ago(60)).notReadySince(NOW.minusSeconds(20)).build();

    RolloutVerdict verdict =
        RolloutAnalyzer.analyze(
            completedWith(blip, 0), NOW, FIVE_MINUTES, sawItComplete(NOW.minusSeconds(30)));

    assertThat(n1(verdict).standing()).isEqualTo(NodeRow.Standing.UPDATING);
    assertThat(n1(verdict).since()).isEqualTo(NOW.minusSeconds(20));
    assertThat(verdict.phase()).isNotEqualTo(Phase.Stalled);
    assertThat(verdict.nextCheck()).isEqualTo(NOW.minusSeconds(20).plus(Duration.ofMinutes(5)));
  }

  @Test
  void aPodNotReadyForLongerThanStallAfterSinceTheLastLookIsAStallFromItsTransition() {
    PodView down = pod("n1", "new").created(ago(60)).notReadySince(ago(10)).build();

    RolloutVerdict verdict =
        RolloutAnalyzer.analyze(completedWith(down, 0), NOW, FIVE_MINUTES, sawItComplete(ago(11)));

    assertThat(n1(verdict).standing()).isEqualTo(NodeRow.Standing.STUCK);
    assertThat(n1(verdict).since()).isEqualTo(ago(10));
    assertThat(verdict.phase()).isEqualTo(Phase.Stalled);
  }

  @Test
  void withoutATransitionAfterItsCreationTheHoldDatesFromTheLastLook() {
    // The Ready condition's transition is the pod's first status: it says nothing of when the pod
    // stopped being available, which the last look bounds.
    PodView never = pod("n1", "new").created(ago(60)).notReadySince(ago(60)).build();

    RolloutVerdict verdict =
        RolloutAnalyzer.analyze(
            completedWith(never, 0), NOW, FIVE_MINUTES, sawItComplete(NOW.minusSeconds(30)));

    assertThat(n1(verdict).since()).isEqualTo(NOW.minusSeconds(30));
    assertThat(n1(verdict).standing()).isEqualTo(NodeRow.Standing.UPDATING);
  }

  @Test
  void aSnapshotAloneStillDatesAnUnreadyPodFromItsCreation() {
    PodView blip = pod("n1", "new").created(ago(60)).notReadySince(NOW.minusSeconds(20)).build();

    RolloutVerdict verdict = RolloutAnalyzer.analyze(completedWith(blip, 0), NOW, FIVE_MINUTES);

    assertThat(n1(verdict).since()).isEqualTo(ago(60));
    assertThat(n1(verdict).standing()).isEqualTo(NodeRow.Standing.STUCK);
  }

  @Test
  void aPodCreatedAfterTheLastLookDatesFromItsCreation() {
    PodView fresh = pod("n1", "new").created(NOW.minusSeconds(40)).notReady().build();

    RolloutVerdict verdict =
        RolloutAnalyzer.analyze(
            completedWith(fresh, 0), NOW, FIVE_MINUTES, sawItComplete(NOW.minusSeconds(50)));

    assertThat(n1(verdict).since()).isEqualTo(NOW.minusSeconds(40));
  }

  @Test
  void aHoldTheCallerRememberedStillWins() {
    PodView blip = pod("n1", "new").created(ago(60)).notReadySince(NOW.minusSeconds(20)).build();
    StallMemory held = new StallMemory("new", Map.of("n1", ago(8)), NOW.minusSeconds(30));

    RolloutVerdict verdict =
        RolloutAnalyzer.analyze(completedWith(blip, 0), NOW, FIVE_MINUTES, held);

    assertThat(n1(verdict).since()).isEqualTo(ago(8));
    assertThat(n1(verdict).standing()).isEqualTo(NodeRow.Standing.STUCK);
  }

  @Test
  void aHoldDatedFromAGracefulDeletionsDeadlineGivesWayToTheNewPodsCreation() {
    // First look: the controller has just deleted n1's old pod; its deletionTimestamp is the end
    // of its 30 s grace period, in the future. Second look: the new pod, created a second later.
    DaemonSetView ds = ds(0, new DaemonSetView.Status(2L, 3, 3, 2, 0, 2, 1, 0));
    List<NodeView> nodes = List.of(node("n1"), node("n2"), node("n3"));
    PodView n2 = pod("n2", "old").created(ago(600)).ready(ago(599)).build();
    PodView n3 = pod("n3", "old").created(ago(600)).ready(ago(599)).build();
    PodView deleting =
        pod("n1", "old").created(ago(600)).ready(ago(599)).deleted(NOW.plusSeconds(30)).build();
    RolloutVerdict first =
        RolloutAnalyzer.analyze(
            new RolloutSnapshot(ds, List.of(deleting, n2, n3), nodes, List.of(OLD, NEW)),
            NOW,
            FIVE_MINUTES);
    Instant later = NOW.plusSeconds(2);
    PodView fresh = pod("n1", "new").created(NOW.plusSeconds(1)).waiting("ErrImagePull").build();

    RolloutVerdict second =
        RolloutAnalyzer.analyze(
            new RolloutSnapshot(ds, List.of(fresh, n2, n3), nodes, List.of(OLD, NEW)),
            later,
            FIVE_MINUTES,
            StallMemory.from(first, NOW));

    assertThat(n1(first).since()).isAfter(NOW);
    assertThat(n1(second).since()).isEqualTo(NOW.plusSeconds(1));
    assertThat(second.nextCheck()).isEqualTo(NOW.plusSeconds(1).plus(Duration.ofMinutes(5)));
  }
}
