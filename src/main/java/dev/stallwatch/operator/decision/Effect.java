package dev.stallwatch.operator.decision;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.rollback.RollbackDecision;
import dev.stallwatch.rollout.Cause;
import dev.stallwatch.rollout.Pace;
import dev.stallwatch.rollout.RevisionNodes;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One thing a reconcile does, as {@link RolloutDecider} decided it; the effects of one decision run
 * in their order, each after the one before it has been done ({@link EffectRunner}). A write that
 * fails ends the list there: the Event and counter that follow a stall's write are never sent for a
 * write that did not land.
 */
public sealed interface Effect {

  /** A line for the operator's log. */
  record Log(Level level, String message) implements Effect {
    public enum Level {
      DEBUG,
      INFO,
      WARN
    }

    static Log debug(String message) {
      return new Log(Level.DEBUG, message);
    }

    static Log info(String message) {
      return new Log(Level.INFO, message);
    }

    static Log warn(String message) {
      return new Log(Level.WARN, message);
    }
  }

  /**
   * Creates a RolloutStall, then writes its status (the object as it should be, status included). A
   * stall is only ever created as it starts: a lost answer leaves it unannounced ({@link
   * Performed#unannounced}).
   */
  record CreateStall(RolloutStall stall) implements Effect {}

  /**
   * Writes a RolloutStall's status.
   *
   * @param starts the write makes the stall Active again: a lost answer leaves it unannounced
   */
  record WriteStatus(RolloutStall stall, boolean starts) implements Effect {}

  /**
   * Deletes a RolloutStall.
   *
   * @param expired resolved longer than the TTL (a failure fails the reconcile); otherwise its
   *     DaemonSet is gone (a failure is logged: the garbage collector deletes it too)
   */
  record DeleteStall(RolloutStall stall, boolean expired) implements Effect {}

  /** An Event on the DaemonSet. */
  record Emit(EventReason reason, String message) implements Effect {}

  /** Counts one stall that starts, under its cause. */
  record CountStall(Cause cause) implements Effect {}

  /** Counts one auto-rollback of the DaemonSet. */
  record CountRollback() implements Effect {}

  /**
   * The DaemonSet's series as they are now.
   *
   * @param split which nodes run which revision
   * @param active its active stall; null when none (the stall series are removed)
   * @param routing the routing labels' metric label names and values, in the allowlist's order
   * @param pace the rollout's pace
   * @param paused its owner paused the rollout (an Advanced DaemonSet)
   */
  record SetSeries(
      RevisionNodes split,
      ActiveStall active,
      Map<String, String> routing,
      Pace pace,
      boolean paused)
      implements Effect {
    public SetSeries {
      routing = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(routing));
    }
  }

  /** The DaemonSet is gone: drops its series. */
  record DropSeries() implements Effect {}

  /**
   * Rolls the DaemonSet back as {@code decision} says; its outcome comes back in {@link Performed}.
   */
  record RollBack(RollbackDecision decision) implements Effect {}

  /**
   * Brings the DaemonSet's {@code RolloutStalled} condition in line with its RolloutStalls as the
   * cache shows them after the writes before it ({@code --daemonset-conditions}); a conflict comes
   * back in {@link Performed}.
   *
   * @param revision the hash of the DaemonSet's new revision
   */
  record SyncCondition(String revision) implements Effect {}

  /** Looks at the DaemonSet again at {@code at}, if nothing brings it back sooner. */
  record LookAgain(Instant at) implements Effect {
    public LookAgain {
      Objects.requireNonNull(at, "at");
    }
  }
}
