package dev.stallwatch.rollout;

import static dev.stallwatch.rollout.Views.NEW;
import static dev.stallwatch.rollout.Views.NEW_TEMPLATE;
import static dev.stallwatch.rollout.Views.NOW;
import static dev.stallwatch.rollout.Views.OLD;
import static dev.stallwatch.rollout.Views.node;
import static dev.stallwatch.rollout.Views.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Pace and time left: nodes per minute over the last ten minutes, and what is left at that pace.
 */
class PaceTest {
  private static final AnalyzerSettings FIVE_MINUTES = new AnalyzerSettings(Duration.ofMinutes(5));

  private static Instant secondsAgo(long s) {
    return NOW.minusSeconds(s);
  }

  /**
   * Availability instants, in seconds before now ({@code "240 180 120 60"}), the desired nodes; the
   * pace per minute ({@code -} unknown), nodes left, time left in seconds ({@code -} unknown).
   */
  @ParameterizedTest(name = "{0} of {1} → {2}/min, {3} left, {4} s")
  @CsvSource({
    // nothing, then one node available: unknown until two
    "'', 10, -, 10, -",
    "'60', 10, -, 9, -",
    // four nodes a minute apart, the last one just now: three moved in the three minutes since
    // the first
    "'180 120 60 0', 10, 1.0, 6, 360",
    // the same four, the last a minute ago: the pace counts the minute since as well
    "'240 180 120 60', 10, 0.75, 6, 480",
    // just resumed: three nodes half an hour ago (outside the window), two in the last minute
    "'1900 1850 1800 60 30', 10, 1.0, 5, 300",
    // stopped moving: two nodes nine and eight minutes ago
    "'540 480', 10, 0.1111, 8, 4320",
    // a percentage budget: five nodes at once, five more two minutes later
    "'120 120 120 120 120 0 0 0 0 0', 20, 4.5, 10, 133",
    // surge or a fast rollout finished: nothing left
    "'30 20 10', 3, 4.0, 0, 0",
    // in the window but in the future (a clock skew): not counted
    "'-30 60 0', 10, 1.0, 8, 480",
  })
  void paceFromAvailabilityTimes(
      String secondsAgo, int desired, String perMinute, int remaining, String eta) {
    List<Instant> at = new ArrayList<>();
    for (String s : secondsAgo.trim().split("\\s+")) {
      if (!s.isEmpty()) {
        at.add(secondsAgo(Long.parseLong(s)));
      }
    }

    Pace pace = Pace.of(at, desired, NOW);

    if (perMinute.equals("-")) {
      assertThat(pace.known()).isFalse();
      assertThat(pace.perMinute()).isNull();
    } else {
      assertThat(pace.perMinute()).isCloseTo(Double.parseDouble(perMinute), within(0.001));
    }
    assertThat(pace.remaining()).isEqualTo(remaining);
    if (eta.equals("-")) {
      assertThat(pace.eta()).isNull();
    } else {
      assertThat(pace.eta()).isEqualTo(Duration.ofSeconds(Long.parseLong(eta)));
    }
  }

  private static DaemonSetView ds(DaemonSetView.UpdateStrategy strategy, int minReadySeconds) {
    return new DaemonSetView(
        new ObjectRef("ns", "ds", "uid-ds"),
        2,
        2L,
        java.util.Map.of(),
        NEW_TEMPLATE,
        strategy,
        minReadySeconds,
        new DaemonSetView.Status(2L, 6, 6, 5, 4, 5, 1, 0),
        Views.ago(60 * 24 * 30));
  }

  private static RolloutVerdict analyze(DaemonSetView ds, List<PodView> pods) {
    List<NodeView> nodes = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      nodes.add(node("n" + i));
    }
    return RolloutAnalyzer.analyze(
        new RolloutSnapshot(ds, pods, nodes, List.of(OLD, NEW)), NOW, FIVE_MINUTES);
  }

  /** Six nodes: three updated a minute apart, one updating, two still on the old revision. */
  private static List<PodView> progressing() {
    return new ArrayList<>(
        List.of(
            pod("n0", "new").created(secondsAgo(200)).ready(secondsAgo(180)).build(),
            pod("n1", "new").created(secondsAgo(140)).ready(secondsAgo(120)).build(),
            pod("n2", "new").created(secondsAgo(80)).ready(secondsAgo(60)).build(),
            pod("n3", "new").created(secondsAgo(20)).waiting("ContainerCreating").build(),
            pod("n4", "old").created(Views.ago(600)).ready(Views.ago(599)).build(),
            pod("n5", "old").created(Views.ago(600)).ready(Views.ago(599)).build()));
  }

  @Test
  void aProgressingRolloutHasItsPaceFromItsNewPodsReadyTimes() {
    RolloutVerdict v = analyze(ds(null, 0), progressing());

    assertThat(v.phase()).isEqualTo(Phase.Progressing);
    // n0 opens the window three minutes ago; n1 and n2 moved since: 2 in 3 minutes.
    assertThat(v.pace().perMinute()).isCloseTo(2.0 / 3, within(0.001));
    assertThat(v.pace().remaining()).isEqualTo(3);
    assertThat(v.pace().eta()).isEqualTo(Duration.ofSeconds(270));
  }

  @Test
  void minReadySecondsDelaysWhenANodeCountsAsDone() {
    // Ready 60 s ago with minReadySeconds 90: n2 is not available yet.
    RolloutVerdict v = analyze(ds(null, 90), progressing());

    assertThat(v.pace().remaining()).isEqualTo(4);
    // n0 available 90 s ago (180 − 90), n1 30 s ago: one moved in 90 s.
    assertThat(v.pace().perMinute()).isCloseTo(60.0 / 90, within(0.001));
  }

  @Test
  void withSurgeTheNewPodBesideTheOldCounts() {
    var surge =
        new DaemonSetView.UpdateStrategy(
            false, new IntOrPercent(0, false), new IntOrPercent(1, false));
    List<PodView> pods = progressing();
    pods.add(pod("n3", "old").created(Views.ago(600)).ready(Views.ago(599)).build());

    RolloutVerdict v = analyze(ds(surge, 0), pods);

    assertThat(v.phase()).isEqualTo(Phase.Progressing);
    assertThat(v.pace().remaining()).isEqualTo(3);
    assertThat(v.pace().known()).isTrue();
  }

  @Test
  void onlyOneNodeDoneIsUnknownPace() {
    List<PodView> pods = progressing();
    pods.set(1, pod("n1", "old").created(Views.ago(600)).ready(Views.ago(599)).build());
    pods.set(2, pod("n2", "old").created(Views.ago(600)).ready(Views.ago(599)).build());

    RolloutVerdict v = analyze(ds(null, 0), pods);

    assertThat(v.pace().known()).isFalse();
    assertThat(v.pace().eta()).isNull();
    assertThat(v.pace().remaining()).isEqualTo(5);
  }

  @Test
  void aStalledRolloutHasNodesLeftButNoPace() {
    List<PodView> pods = progressing();
    pods.set(3, pod("n3", "new").created(Views.ago(12)).waiting("ImagePullBackOff").build());

    RolloutVerdict v = analyze(ds(null, 0), pods);

    assertThat(v.phase()).isEqualTo(Phase.Stalled);
    assertThat(v.pace().known()).isFalse();
    assertThat(v.pace().eta()).isNull();
    assertThat(v.pace().remaining()).isEqualTo(3);
  }

  @Test
  void aCompleteRolloutHasNothingLeft() {
    List<PodView> pods = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      pods.add(pod("n" + i, "new").created(Views.ago(30)).ready(Views.ago(29)).build());
    }
    RolloutVerdict v =
        RolloutAnalyzer.analyze(
            new RolloutSnapshot(
                new DaemonSetView(
                    new ObjectRef("ns", "ds", "uid-ds"),
                    2,
                    2L,
                    java.util.Map.of(),
                    NEW_TEMPLATE,
                    null,
                    0,
                    new DaemonSetView.Status(2L, 6, 6, 6, 6, 6, 0, 0),
                    Views.ago(60 * 24 * 30)),
                pods,
                List.of(node("n0"), node("n1"), node("n2"), node("n3"), node("n4"), node("n5")),
                List.of(OLD, NEW)),
            NOW,
            FIVE_MINUTES);

    assertThat(v.phase()).isEqualTo(Phase.Complete);
    assertThat(v.pace().remaining()).isZero();
    assertThat(v.pace().known()).isFalse();
  }
}
