package dev.stallwatch.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How a caller's memory dates a node that holds the rollout back. */
class StallMemoryTest {
  private static final Instant NOW = Instant.parse("2026-12-02T10:00:00Z");
  private static final AnalyzerSettings FIVE_MINUTES = new AnalyzerSettings(Duration.ofMinutes(5));
  private static final OwnerRef OWNER = new OwnerRef("DaemonSet", "ds", "uid-ds");

  private static PodTemplateView template(String image) {
    return new PodTemplateView(
        Map.of(),
        Map.of(),
        null,
        List.of(),
        "",
        false,
        List.of(),
        List.of(new PodTemplateView.Container("c", image, null)),
        "{\"image\":\"" + image + "\"}");
  }

  /** Right after a rollback to revision "good": gpu-node-1 has no pod at all. */
  private static RolloutSnapshot rolledBackWithAnEmptyNode() {
    DaemonSetView ds =
        new DaemonSetView(
            new ObjectRef("ns", "ds", "uid-ds"),
            3,
            3L,
            Map.of(),
            template("good"),
            null,
            0,
            new DaemonSetView.Status(3L, 1, 0, 0, 0, 0, 1, 0),
            null);
    RevisionView good =
        new RevisionView(
            "ds-good", "good", 3, NOW.minus(Duration.ofDays(20)), OWNER, template("good"));
    RevisionView bad =
        new RevisionView("ds-bad", "bad", 2, NOW.minusSeconds(600), OWNER, template("bad"));
    NodeView node = new NodeView("gpu-node-1", Map.of(), List.of(), false, null, null);
    return new RolloutSnapshot(ds, List.of(), List.of(node), List.of(good, bad));
  }

  @Test
  void withoutMemoryAnEmptyNodeDatesFromTheNewestRevisionAfterARollback() {
    RolloutVerdict verdict =
        RolloutAnalyzer.analyze(rolledBackWithAnEmptyNode(), NOW, FIVE_MINUTES);

    NodeRow row = verdict.nodes().get(0);
    assertThat(row.since()).isEqualTo(NOW.minusSeconds(600));
    assertThat(row.standing()).isEqualTo(NodeRow.Standing.STUCK);
  }

  @Test
  void aWatchingCallerDatesAnEmptyNodeFromWhenItFirstSeesIt() {
    // Its last look was before stall-after, during the quiet stall of revision "bad": the hold on
    // "good" cannot have begun before the rollback, which it sees now.
    StallMemory lastLook =
        new StallMemory("bad", Map.of("gpu-node-1", NOW.minusSeconds(590)), NOW.minusSeconds(400));

    RolloutVerdict verdict =
        RolloutAnalyzer.analyze(rolledBackWithAnEmptyNode(), NOW, FIVE_MINUTES, lastLook);

    NodeRow row = verdict.nodes().get(0);
    assertThat(row.since()).isEqualTo(NOW);
    assertThat(row.standing()).isEqualTo(NodeRow.Standing.UPDATING);
    assertThat(verdict.phase()).isEqualTo(Phase.Progressing);
    assertThat(verdict.nextCheck()).isEqualTo(NOW.plus(Duration.ofMinutes(5)));
  }

  @Test
  void aRolloutThatStartedAfterTheLastLookDatesAnEmptyNodeFromItsStart() {
    // The last look predates revision "bad" (created 600 s ago), so the rollout's start is better.
    StallMemory lastLook = new StallMemory("old", Map.of(), NOW.minusSeconds(900));

    RolloutVerdict verdict =
        RolloutAnalyzer.analyze(rolledBackWithAnEmptyNode(), NOW, FIVE_MINUTES, lastLook);

    assertThat(verdict.nodes().get(0).since()).isEqualTo(NOW.minusSeconds(600));
    assertThat(verdict.phase()).isEqualTo(Phase.Stalled);
  }

  @Test
  void aRememberedHoldForTheSameRevisionWinsOverTheLastLook() {
    StallMemory remembered =
        new StallMemory("good", Map.of("gpu-node-1", NOW.minusSeconds(400)), NOW.minusSeconds(5));

    RolloutVerdict verdict =
        RolloutAnalyzer.analyze(rolledBackWithAnEmptyNode(), NOW, FIVE_MINUTES, remembered);

    assertThat(verdict.nodes().get(0).since()).isEqualTo(NOW.minusSeconds(400));
    assertThat(verdict.phase()).isEqualTo(Phase.Stalled);
  }

  @Test
  void fromAVerdictKeepsSinceWhenEachNodeHoldsBackItsNewRevisionAndWhenItWasSeen() {
    RolloutVerdict verdict =
        RolloutAnalyzer.analyze(rolledBackWithAnEmptyNode(), NOW, FIVE_MINUTES);

    StallMemory memory = StallMemory.from(verdict, NOW);

    assertThat(memory.revisionHash()).isEqualTo(verdict.newRevision().hash());
    assertThat(memory.heldSince()).containsExactly(Map.entry("gpu-node-1", NOW.minusSeconds(600)));
    assertThat(memory.observedAt()).isEqualTo(NOW);
  }
}
