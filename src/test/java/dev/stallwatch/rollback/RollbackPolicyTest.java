package dev.stallwatch.rollback;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.rollout.Cause;
import dev.stallwatch.rollout.Counts;
import dev.stallwatch.rollout.Evidence;
import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.rollout.ObjectRef;
import dev.stallwatch.rollout.Phase;
import dev.stallwatch.rollout.RevisionSummary;
import dev.stallwatch.rollout.RolloutVerdict;
import dev.stallwatch.rollout.Suspect;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RollbackPolicyTest {

  static final Instant STALLED_SINCE = Instant.parse("2026-12-02T10:00:00Z");
  static final Duration DELAY = Duration.ofMinutes(10);
  static final RevisionSummary OLD = new RevisionSummary("6d5f8b", 1L, List.of("toolkit:v1"));
  static final RevisionSummary NEW = new RevisionSummary("7c9a2e", 2L, List.of("toolkit:v2"));
  static final Map<String, String> OPTED_IN = Map.of(MetadataKeys.AUTO_ROLLBACK, "true");

  final RollbackPolicy policy = new RollbackPolicy(true, DELAY);

  static RolloutVerdict verdict(Phase phase, RevisionSummary old, RevisionSummary current) {
    return verdict(phase, old, current, Suspect.NewRevision);
  }

  static RolloutVerdict verdict(
      Phase phase, RevisionSummary old, RevisionSummary current, Suspect suspect) {
    boolean stalled = phase == Phase.Stalled;
    return new RolloutVerdict(
        new ObjectRef("gpu", "nvidia-container-toolkit", "uid-1"),
        phase,
        stalled ? Cause.ImagePull : null,
        stalled ? "ImagePullBackOff" : phase.name(),
        "message",
        stalled ? List.of("gpu-node-1") : List.of(),
        stalled ? STALLED_SINCE : null,
        old,
        current,
        new Counts(3, 3, 2, 1, 2, 1, 0),
        null,
        1L,
        1L,
        1,
        0,
        List.of(),
        null,
        Evidence.Full,
        List.of(),
        stalled ? suspect : null,
        stalled ? "why" : null);
  }

  static RolloutVerdict stalled() {
    return verdict(Phase.Stalled, OLD, NEW);
  }

  Instant after(Duration d) {
    return STALLED_SINCE.plus(d);
  }

  @Test
  void rollsBackToTheOldRevisionOnceTheStallHasLastedTheDelay() {
    RollbackDecision d = policy.decide(stalled(), OPTED_IN, List.of(), after(DELAY));

    assertThat(d.rollBack()).isTrue();
    assertThat(d.target()).isEqualTo(RollbackTarget.hash("6d5f8b", "7c9a2e"));
    assertThat(d.toRevision()).isEqualTo(1L);
    assertThat(d.reason())
        .isEqualTo(
            "stalled for 10m (ImagePull on gpu-node-1): rolling back from revision 2 (7c9a2e)"
                + " to revision 1 (6d5f8b)");
  }

  @Test
  void waitsUntilTheDelayHasPassedAndSaysWhenToLookAgain() {
    RollbackDecision d =
        policy.decide(stalled(), OPTED_IN, List.of(), after(Duration.ofSeconds(250)));

    assertThat(d.rollBack()).isFalse();
    assertThat(d.recheckAt()).isEqualTo(after(DELAY));
    assertThat(d.reason()).isEqualTo("stalled for 4m10s; rolls back once stalled for 10m");
  }

  @Test
  void doesNothingWhenTheGlobalSwitchIsOff() {
    RollbackDecision d =
        new RollbackPolicy(false, DELAY)
            .decide(stalled(), OPTED_IN, List.of(), after(Duration.ofHours(5)));

    assertThat(d.rollBack()).isFalse();
    assertThat(d.recheckAt()).isNull();
    assertThat(d.reason()).contains("--auto-rollback=false");
  }

  @Test
  void doesNothingWithoutTheOptInAnnotation() {
    for (Map<String, String> annotations :
        List.of(Map.<String, String>of(), Map.of(MetadataKeys.AUTO_ROLLBACK, "false"))) {
      RollbackDecision d =
          policy.decide(stalled(), annotations, List.of(), after(Duration.ofHours(5)));

      assertThat(d.rollBack()).as("annotations %s", annotations).isFalse();
      assertThat(d.reason()).contains("stallwatch.dev/auto-rollback: \"true\"");
    }
  }

  @Test
  void acceptsTheOptInValueInAnyCase() {
    assertThat(RollbackPolicy.optedIn(Map.of(MetadataKeys.AUTO_ROLLBACK, " True "))).isTrue();
    assertThat(RollbackPolicy.optedIn(null)).isFalse();
  }

  @Test
  void doesNothingWhileTheRolloutIsNotStalled() {
    for (Phase phase : List.of(Phase.Progressing, Phase.Complete, Phase.OnDelete)) {
      RollbackDecision d =
          policy.decide(verdict(phase, OLD, NEW), OPTED_IN, List.of(), after(DELAY));

      assertThat(d.rollBack()).as("phase %s", phase).isFalse();
      assertThat(d.reason()).contains(phase.name());
    }
  }

  @Test
  void neverRollsBackARevisionThatIsItselfARollback() {
    Map<String, String> annotations = new HashMap<>(OPTED_IN);
    // Revision 7c9a2e was restored by an earlier rollback away from 9f0e1d.
    annotations.putAll(
        new RollbackRecord("9f0e1d", "7c9a2e", STALLED_SINCE, "stallwatch operator").annotations());

    RollbackDecision d =
        policy.decide(stalled(), annotations, List.of(), after(Duration.ofHours(1)));

    assertThat(d.rollBack()).isFalse();
    assertThat(d.reason()).contains("never rolling back a rollback");
  }

  @Test
  void rollsBackARevisionAtMostOnceSoARepeatedApplyCannotLoop() {
    Map<String, String> annotations = new HashMap<>(OPTED_IN);
    annotations.putAll(
        new RollbackRecord("7c9a2e", "6d5f8b", STALLED_SINCE, "stallwatch operator").annotations());

    RollbackDecision d =
        policy.decide(stalled(), annotations, List.of(), after(Duration.ofHours(1)));

    assertThat(d.rollBack()).isFalse();
    assertThat(d.reason())
        .isEqualTo(
            "revision 7c9a2e was already rolled back once at 2026-12-02T10:00:00Z; not again");
  }

  @Test
  void honoursARollbackRecordedOnTheRolloutStallToo() {
    RollbackRecord other = new RollbackRecord("111111", "222222", null, "stallwatch undo");
    RollbackRecord onStall = new RollbackRecord("7c9a2e", "6d5f8b", null, "stallwatch operator");

    RollbackDecision d =
        policy.decide(stalled(), OPTED_IN, List.of(other, onStall), after(Duration.ofHours(1)));

    assertThat(d.rollBack()).isFalse();
    assertThat(d.reason()).isEqualTo("revision 7c9a2e was already rolled back once; not again");
  }

  @Test
  void anEarlierRollbackOfAnotherRevisionDoesNotBlockThisOne() {
    Map<String, String> annotations = new HashMap<>(OPTED_IN);
    annotations.putAll(
        new RollbackRecord("111111", "222222", null, "stallwatch undo").annotations());

    assertThat(policy.decide(stalled(), annotations, List.of(), after(DELAY)).rollBack()).isTrue();
  }

  @Test
  void refusesWhenThereIsNoEarlierRevision() {
    RolloutVerdict first = verdict(Phase.Stalled, null, NEW);
    RolloutVerdict sameHash = verdict(Phase.Stalled, NEW, NEW);
    RolloutVerdict oldWithoutNumber =
        verdict(Phase.Stalled, new RevisionSummary("6d5f8b", null, List.of()), NEW);

    for (RolloutVerdict v : List.of(first, sameHash, oldWithoutNumber)) {
      RollbackDecision d = policy.decide(v, OPTED_IN, List.of(), after(Duration.ofHours(1)));
      assertThat(d.rollBack()).isFalse();
      assertThat(d.reason()).isEqualTo("there is no earlier revision to roll back to");
    }
  }

  @Test
  void rejectsANegativeDelay() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new RollbackPolicy(true, Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("delay");
  }

  @Test
  void aStallTheNodeIsToBlameForIsNotRolledBackAndSaysWhy() {
    RollbackDecision d =
        policy.decide(
            verdict(Phase.Stalled, OLD, NEW, Suspect.Node), OPTED_IN, List.of(), after(DELAY));

    assertThat(d.rollBack()).isFalse();
    assertThat(d.withheld()).isTrue();
    assertThat(d.reason())
        .isEqualTo("not rolled back: the suspect is Node, not the new revision (why)");
  }

  @Test
  void anUnknownSuspectIsNotRolledBackEither() {
    RollbackDecision d =
        policy.decide(
            verdict(Phase.Stalled, OLD, NEW, Suspect.Unknown), OPTED_IN, List.of(), after(DELAY));

    assertThat(d.rollBack()).isFalse();
    assertThat(d.withheld()).isTrue();
  }
}
