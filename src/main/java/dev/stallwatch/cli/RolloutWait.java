package dev.stallwatch.cli;

import dev.stallwatch.rollout.NodeRow;
import dev.stallwatch.rollout.Phase;
import dev.stallwatch.rollout.RolloutVerdict;
import dev.stallwatch.rollout.StallMemory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
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
 */
final class RolloutWait {

  /** Reads the verdict at {@code now}, remembering since when nodes held the rollout back. */
  interface Source {
    RolloutVerdict read(Instant now, StallMemory memory);
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
  record Outcome(End end, RolloutVerdict last, Duration elapsed) {}

  private final Source source;
  private final Clock clock;
  private final Sleeper sleeper;
  private final Duration interval;
  private final Duration timeout;
  private final Consumer<RolloutVerdict> onRead;
  private final Consumer<String> onError;

  /**
   * @param onRead called with every verdict read
   * @param onError called with a read failure after the first success (the wait goes on)
   */
  RolloutWait(
      Source source,
      Clock clock,
      Sleeper sleeper,
      Duration interval,
      Duration timeout,
      Consumer<RolloutVerdict> onRead,
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
      RolloutVerdict last = null;
      StallMemory memory = StallMemory.NONE;
      while (true) {
        Duration remaining = Duration.between(clock.instant(), deadline);
        if (remaining.isNegative() || remaining.isZero()) {
          return new Outcome(End.TIMEOUT, last, Duration.between(start, clock.instant()));
        }
        try {
          RolloutVerdict verdict = readWithin(reader, memory, remaining);
          last = verdict;
          memory = remember(verdict);
          onRead.accept(verdict);
          if (verdict.phase() == Phase.Complete) {
            return new Outcome(End.COMPLETE, verdict, Duration.between(start, clock.instant()));
          }
          if (verdict.phase() == Phase.Stalled) {
            return new Outcome(End.STALLED, verdict, Duration.between(start, clock.instant()));
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

  private RolloutVerdict readWithin(ExecutorService reader, StallMemory memory, Duration remaining)
      throws TimeoutException, InterruptedException {
    Instant now = clock.instant();
    CompletableFuture<RolloutVerdict> read =
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

  /** Since when each node has held back the new revision, for the next read. */
  static StallMemory remember(RolloutVerdict v) {
    if (v.newRevision() == null) {
      return StallMemory.NONE;
    }
    Map<String, Instant> held = new HashMap<>();
    for (NodeRow row : v.nodes()) {
      if (row.since() != null) {
        held.put(row.node(), row.since());
      }
    }
    return new StallMemory(v.newRevision().hash(), held);
  }
}
