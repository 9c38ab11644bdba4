package dev.stallwatch.cli;

import dev.stallwatch.rollout.Phase;
import dev.stallwatch.rollout.RolloutVerdict;
import dev.stallwatch.rollout.StallMemory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * {@code wait}'s state machine: reads the rollout every {@code interval} until it is Complete or
 * Stalled, or the deadline passes. Nothing outlasts the deadline — neither a sleep nor a read that
 * hangs on a slow API server.
 *
 * <p>An Active RolloutStall of the operator for the rollout's new revision ends the wait as Stalled
 * at once ({@link Reading#record}): the CLI and the cluster's record never contradict each other.
 *
 * <p>A Stalled verdict ends the wait only once the DaemonSet controller has caught up with the
 * DaemonSet's spec: right after {@code kubectl apply}, until the controller has observed the new
 * generation and recorded its ControllerRevision, the analyzer still judges the previous revision —
 * which may be the stalled one being fixed.
 */
final class RolloutWait {

  /** Reads the rollout at {@code now}, remembering since when nodes held the rollout back. */
  interface Source {
    Reading read(Instant now, StallMemory memory);
  }

  /**
   * One read of the rollout.
   *
   * @param templateRecorded false when the DaemonSet owns ControllerRevisions but none stores its
   *     current template: the analyzer's "new" revision is then an earlier one
   * @param record the operator's Active RolloutStall of the verdict's new revision, or null
   */
  record Reading(RolloutVerdict verdict, boolean templateRecorded, OperatorRecord record) {

    /** A reading without an operator's record. */
    Reading(RolloutVerdict verdict, boolean templateRecorded) {
      this(verdict, templateRecorded, null);
    }

    /** A reading of a DaemonSet whose controller has caught up (tests). */
    static Reading of(RolloutVerdict verdict) {
      return new Reading(verdict, true);
    }

    /**
     * True once the verdict is about the DaemonSet's current spec: the controller has observed its
     * generation and a ControllerRevision stores its template.
     */
    boolean settled() {
      Long observed = verdict.observedGeneration();
      return observed != null && observed >= verdict.generation() && templateRecorded;
    }
  }

  /** Sleeps; tests pass one that advances a fake clock. */
  interface Sleeper {
    void sleep(Duration d) throws InterruptedException;
  }

  /** How the wait ended. */
  enum End {
    COMPLETE,
    STALLED,
    TIMEOUT
  }

  /**
   * @param last the last verdict read; null when none could be read before the deadline
   */
  record Outcome(End end, Reading lastReading, Duration elapsed) {
    /** The last verdict read; null when none could be read before the deadline. */
    RolloutVerdict last() {
      return lastReading == null ? null : lastReading.verdict();
    }
  }

  private final Source source;
  private final Clock clock;
  private final Sleeper sleeper;
  private final Duration interval;
  private final Duration timeout;
  private final Consumer<Reading> onRead;
  private final Consumer<String> onError;

  /**
   * @param onRead called with every reading
   * @param onError called with a read failure after the first success (the wait goes on)
   */
  RolloutWait(
      Source source,
      Clock clock,
      Sleeper sleeper,
      Duration interval,
      Duration timeout,
      Consumer<Reading> onRead,
      Consumer<String> onError) {
    this.source = source;
    this.clock = clock;
    this.sleeper = sleeper;
    this.interval = interval;
    this.timeout = timeout;
    this.onRead = onRead;
    this.onError = onError;
  }

  /**
   * Waits.
   *
   * @throws RuntimeException the first read's failure (no cluster, forbidden, not found)
   */
  Outcome run() throws InterruptedException {
    Instant start = clock.instant();
    Instant deadline = start.plus(timeout);
    ExecutorService reader =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "stallwatch-wait-read");
              t.setDaemon(true); // a read stuck past the deadline must not keep the JVM alive
              return t;
            });
    try {
      Reading last = null;
      StallMemory memory = StallMemory.NONE;
      while (true) {
        Duration remaining = Duration.between(clock.instant(), deadline);
        if (remaining.isNegative() || remaining.isZero()) {
          return new Outcome(End.TIMEOUT, last, Duration.between(start, clock.instant()));
        }
        try {
          Instant readAt = clock.instant();
          Reading reading = readWithin(reader, readAt, memory, remaining);
          RolloutVerdict verdict = reading.verdict();
          last = reading;
          memory = StallMemory.from(verdict, readAt);
          onRead.accept(reading);
          // The cluster's record wins: the operator has recorded this revision as stalled, whatever
          // this machine's clock makes of the nodes' ages. Never Complete while it is Active.
          if (reading.record() != null && reading.settled()) {
            return new Outcome(End.STALLED, reading, Duration.between(start, clock.instant()));
          }
          if (verdict.phase() == Phase.Complete && reading.record() == null) {
            return new Outcome(End.COMPLETE, reading, Duration.between(start, clock.instant()));
          }
          // A stall of the revision before an edit the controller has not taken in yet is not the
          // verdict on this rollout: wait for the controller (the deadline still applies).
          if (verdict.phase() == Phase.Stalled && reading.settled()) {
            return new Outcome(End.STALLED, reading, Duration.between(start, clock.instant()));
          }
        } catch (TimeoutException e) {
          return new Outcome(End.TIMEOUT, last, Duration.between(start, clock.instant()));
        } catch (RuntimeException e) {
          if (last == null) {
            throw e;
          }
          onError.accept(e.getMessage());
        }
        remaining = Duration.between(clock.instant(), deadline);
        if (remaining.isNegative() || remaining.isZero()) {
          return new Outcome(End.TIMEOUT, last, Duration.between(start, clock.instant()));
        }
        sleeper.sleep(interval.compareTo(remaining) < 0 ? interval : remaining);
      }
    } finally {
      reader.shutdownNow();
    }
  }

  private Reading readWithin(
      ExecutorService reader, Instant now, StallMemory memory, Duration remaining)
      throws TimeoutException, InterruptedException {
    CompletableFuture<Reading> read =
        CompletableFuture.supplyAsync(() -> source.read(now, memory), reader);
    try {
      return read.get(Math.max(1, remaining.toMillis()), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    } finally {
      read.cancel(true);
    }
  }
}
