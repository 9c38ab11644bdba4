package dev.stallwatch.operator;

import static org.awaitility.Awaitility.await;

import dev.stallwatch.sim.SimClock;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;

/**
 * The operator's time in a test: a virtual clock that moves only when the test says so, and the
 * operator's reconciles of one DaemonSet counted, so that after each move the test waits for the
 * operator to have looked at the new time (a reconcile that began after the move has ended) instead
 * of sleeping and hoping. Start the operator with {@link #timing()} and {@code counter::wrap}.
 */
final class VirtualTime {
  static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");

  /** How long the operator may take to reconcile once (it re-checks every RESYNC at most). */
  private static final Duration REACTION = Duration.ofSeconds(20);

  private static final Duration RESYNC = Duration.ofMillis(200);

  final SimClock clock = SimClock.virtual(T0);
  final ReconcileCounter counter = new ReconcileCounter();
  private final ResourceID daemonSet;

  VirtualTime(String namespace, String daemonSet) {
    this.daemonSet = new ResourceID(daemonSet, namespace);
  }

  /**
   * The operator on this clock: a delay it asks for on the virtual clock is 100 ms of real time,
   * and it re-checks every DaemonSet every RESYNC of real time, so a move of the clock is seen
   * soon.
   */
  StallwatchOperator.Timing timing() {
    return new StallwatchOperator.Timing(clock, d -> Duration.ofMillis(100), RESYNC);
  }

  Instant now() {
    return clock.instant();
  }

  /** Moves the clock by {@code by}, then waits until the operator has reconciled at that time. */
  void pass(Duration by) {
    clock.advance(by);
    settle();
  }

  /**
   * Waits until a reconcile of the DaemonSet that began after this call has ended. Reconciles of
   * one resource never overlap, so the next one to end after those begun by now has begun later.
   */
  void settle() {
    long begun = counter.reconciles(daemonSet);
    await()
        .atMost(REACTION)
        .pollInterval(Duration.ofMillis(20))
        .until(() -> counter.finished(daemonSet) > begun);
  }

  /**
   * Moves the clock in steps of {@code step}, letting the operator reconcile after each, until
   * {@code done} holds or {@code limit} of virtual time has passed; returns whether it holds.
   */
  boolean until(BooleanSupplier done, Duration step, Duration limit) {
    Instant end = clock.instant().plus(limit);
    while (!done.getAsBoolean()) {
      if (clock.instant().isAfter(end)) {
        return false;
      }
      pass(step);
    }
    return true;
  }

  /**
   * Lets {@code duration} of virtual time pass in steps of {@code step}, reconciling after each.
   */
  void passInSteps(Duration duration, Duration step) {
    until(() -> false, step, duration.minus(step));
  }
}
