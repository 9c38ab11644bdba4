package dev.stallwatch.operator.decision;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.crd.RolloutStallStatus;
import dev.stallwatch.rollout.Cause;
import java.time.Instant;
import java.util.List;

/**
 * What to write for one DaemonSet after one verdict: the RolloutStalls to create, to update and to
 * delete, and when the next resolved stall expires.
 *
 * @param changes the writes, in order
 * @param active the stall the DaemonSet is in now (as it will be written), or null
 * @param nextExpiry when the earliest kept Resolved stall reaches its TTL; null when none
 * @param cause the verdict's cause: what a stall that starts is counted under
 */
public record StallPlan(
    List<Change> changes, RolloutStall active, Instant nextExpiry, Cause cause) {
  public StallPlan {
    changes = List.copyOf(changes);
  }

  /** How a change reaches the API. */
  public enum Kind {
    CREATE,
    UPDATE_STATUS,
    DELETE,
    /**
     * No write: the stall's Event (and counter) only, for a stall whose status write landed while
     * its answer was lost (the operator could not tell, so it did not announce it then).
     */
    ANNOUNCE
  }

  /**
   * One write.
   *
   * @param stall the object as it should be (with its new status; for DELETE as it was)
   * @param previous its status before, null for a new stall
   * @param transition what the write means for events and counters
   * @param resolution why it was resolved; null unless {@code transition} is RESOLVED
   * @param handEdited {@code previous} holds what stallwatch did not write ({@link
   *     StallRecord#vandalised}): the write repairs it
   */
  public record Change(
      Kind kind,
      RolloutStall stall,
      RolloutStallStatus previous,
      StallTransition transition,
      Resolution resolution,
      boolean handEdited) {

    /** A new stall, Active from the start. */
    static Change create(RolloutStall stall) {
      return new Change(Kind.CREATE, stall, null, StallTransition.STALLED, null, false);
    }

    /** A status write that means {@code transition} (not a resolution). */
    static Change update(
        RolloutStall stall,
        RolloutStallStatus previous,
        StallTransition transition,
        boolean handEdited) {
      return new Change(Kind.UPDATE_STATUS, stall, previous, transition, null, handEdited);
    }

    /** The status write that resolves an active stall for {@code why}. */
    static Change resolve(
        RolloutStall stall, RolloutStallStatus previous, Resolution why, boolean handEdited) {
      return new Change(
          Kind.UPDATE_STATUS, stall, previous, StallTransition.RESOLVED, why, handEdited);
    }

    /** The deletion of a stall resolved longer than the TTL. */
    static Change delete(RolloutStall stall, RolloutStallStatus previous) {
      return new Change(Kind.DELETE, stall, previous, StallTransition.UNCHANGED, null, false);
    }

    /** The Event (and counter) of a stall whose write landed while its answer was lost. */
    static Change announce(RolloutStall active) {
      return new Change(
          Kind.ANNOUNCE, active, active.getStatus(), StallTransition.STALLED, null, false);
    }
  }
}
