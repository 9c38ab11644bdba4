package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stallwatch.rollout.Counts;
import dev.stallwatch.rollout.ObjectRef;
import dev.stallwatch.rollout.Phase;
import dev.stallwatch.rollout.RevisionSummary;
import dev.stallwatch.rollout.RolloutVerdict;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The wait state machine on a fake clock: deadline arithmetic, endings, read failures. */
class RolloutWaitTest {

  static final Instant START = Instant.parse("2026-12-02T10:00:00Z");

  /** A clock that only moves when the wait sleeps. */
  static final class FakeClock extends Clock {
    Instant now = START;

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }

  final FakeClock clock = new FakeClock();
  final List<Duration> sleeps = new ArrayList<>();
  final List<String> errors = new ArrayList<>();

  static RolloutVerdict verdict(Phase phase) {
    return verdict(phase, 1L, 1L);
  }

  static RolloutVerdict verdict(Phase phase, Long observedGeneration, long generation) {
    return new RolloutVerdict(
        new ObjectRef("gpu", "toolkit", null),
        phase,
        null,
        phase.name(),
        "",
        List.of(),
        null,
        null,
        new RevisionSummary("abc", 2L, List.of()),
        new Counts(3, 3, 3, 3, 3, 0, 0),
        null,
        observedGeneration,
        generation,
        1,
        0,
        List.of(),
        null);
  }

  RolloutWait.Outcome run(Deque<Object> answers, Duration interval, Duration timeout)
      throws InterruptedException {
    return new RolloutWait(
            (now, memory) -> {
              Object next = answers.isEmpty() ? verdict(Phase.Progressing) : answers.pop();
              if (next instanceof RuntimeException e) {
                throw e;
              }
              if (next instanceof RolloutWait.Reading reading) {
                return reading;
              }
              return RolloutWait.Reading.of((RolloutVerdict) next);
            },
            clock,
            d -> {
              sleeps.add(d);
              clock.now = clock.now.plus(d);
            },
            interval,
            timeout,
            v -> {},
            errors::add)
        .run();
  }

  @Test
  void endsCompleteOrStalledOnTheFirstReadThatSaysSo() throws Exception {
    var complete =
        run(
            new ArrayDeque<>(List.of(verdict(Phase.Progressing), verdict(Phase.Complete))),
            Duration.ofSeconds(2),
            Duration.ofMinutes(10));
    var stalled =
        run(
            new ArrayDeque<>(List.of(verdict(Phase.Stalled))),
            Duration.ofSeconds(2),
            Duration.ofMinutes(10));

    assertThat(complete.end()).isEqualTo(RolloutWait.End.COMPLETE);
    assertThat(complete.elapsed()).isEqualTo(Duration.ofSeconds(2));
    assertThat(stalled.end()).isEqualTo(RolloutWait.End.STALLED);
  }

  /** An Active RolloutStall of revision abc, as the operator writes it. */
  static OperatorRecord activeRecord() {
    var stall = new dev.stallwatch.crd.RolloutStall();
    stall.setMetadata(
        new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
            .withNamespace("ns")
            .withName("ds-abc")
            .build());
    stall.setSpec(new dev.stallwatch.crd.RolloutStallSpec("ds", "abc"));
    stall.setStatus(
        new dev.stallwatch.crd.RolloutStallStatus(
            "Active",
            "n1",
            null,
            1,
            "ImagePull",
            null,
            null,
            null,
            "NewRevision",
            null,
            null,
            null,
            null,
            null,
            null,
            "2026-12-02T09:48:00Z",
            null,
            null,
            null,
            null,
            null));
    return new OperatorRecord(stall);
  }

  @Test
  void theOperatorsRecordEndsTheWaitAsStalledWhateverThisClockMakesOfIt() throws Exception {
    // The local clock is minutes behind the cluster's: its own verdict still says Progressing (or
    // even Complete, a node dropped from DESIRED); the Active record wins at the first read.
    var progressing =
        run(
            new ArrayDeque<>(
                List.of(new RolloutWait.Reading(verdict(Phase.Progressing), true, activeRecord()))),
            Duration.ofSeconds(2),
            Duration.ofMinutes(10));
    var complete =
        run(
            new ArrayDeque<>(
                List.of(new RolloutWait.Reading(verdict(Phase.Complete), true, activeRecord()))),
            Duration.ofSeconds(2),
            Duration.ofMinutes(10));

    assertThat(progressing.end()).isEqualTo(RolloutWait.End.STALLED);
    assertThat(progressing.elapsed()).isZero();
    assertThat(progressing.lastReading().record().withNodes(List.of("n2", "n1")))
        .containsExactly("n1", "n2");
    assertThat(complete.end()).isEqualTo(RolloutWait.End.STALLED);
  }

  @Test
  void aStallIsNoVerdictUntilTheControllerHasCaughtUpWithTheDaemonSet() throws Exception {
    // Right after an apply the analyzer still judges the previous, stalled revision.
    var answers =
        new ArrayDeque<Object>(
            List.of(
                verdict(Phase.Stalled, 2L, 3L),
                verdict(Phase.Stalled, null, 3L),
                new RolloutWait.Reading(verdict(Phase.Stalled, 3L, 3L), false),
                verdict(Phase.Stalled, 3L, 3L)));

    var outcome = run(answers, Duration.ofSeconds(2), Duration.ofMinutes(10));

    assertThat(outcome.end()).isEqualTo(RolloutWait.End.STALLED);
    assertThat(outcome.elapsed()).isEqualTo(Duration.ofSeconds(6));
  }

  @Test
  void aStallTheControllerHasNotCaughtUpWithEndsAtTheTimeout() throws Exception {
    var answers =
        new ArrayDeque<Object>(
            List.of(verdict(Phase.Stalled, 2L, 3L), verdict(Phase.Stalled, 2L, 3L)));

    var outcome = run(answers, Duration.ofSeconds(1), Duration.ofSeconds(2));

    assertThat(outcome.end()).isEqualTo(RolloutWait.End.TIMEOUT);
    assertThat(outcome.lastReading().settled()).isFalse();
  }

  @Test
  void neverSleepsPastTheDeadline() throws Exception {
    var outcome = run(new ArrayDeque<>(), Duration.ofSeconds(2), Duration.ofMillis(4500));

    assertThat(outcome.end()).isEqualTo(RolloutWait.End.TIMEOUT);
    assertThat(outcome.elapsed()).isEqualTo(Duration.ofMillis(4500));
    assertThat(sleeps)
        .containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofMillis(500));
    assertThat(outcome.last().phase()).isEqualTo(Phase.Progressing);
  }

  @Test
  void anOnDeleteRolloutIsWaitedForUntilTheTimeout() throws Exception {
    var outcome =
        run(
            new ArrayDeque<>(List.of(verdict(Phase.OnDelete), verdict(Phase.OnDelete))),
            Duration.ofSeconds(1),
            Duration.ofSeconds(3));

    assertThat(outcome.end()).isEqualTo(RolloutWait.End.TIMEOUT);
  }

  @Test
  void aFailureOfTheFirstReadEndsTheWait() {
    var answers = new ArrayDeque<Object>(List.of(new ExitCodes.AccessException("forbidden", null)));

    assertThatThrownBy(() -> run(answers, Duration.ofSeconds(1), Duration.ofMinutes(1)))
        .isInstanceOf(ExitCodes.AccessException.class)
        .hasMessage("forbidden");
  }

  @Test
  void aLaterReadFailureIsReportedAndTheWaitGoesOn() throws Exception {
    var answers =
        new ArrayDeque<Object>(
            List.of(
                verdict(Phase.Progressing),
                new ExitCodes.AccessException("cannot reach the cluster", null),
                verdict(Phase.Complete)));

    var outcome = run(answers, Duration.ofSeconds(1), Duration.ofMinutes(1));

    assertThat(outcome.end()).isEqualTo(RolloutWait.End.COMPLETE);
    assertThat(errors).containsExactly("cannot reach the cluster");
  }
}
