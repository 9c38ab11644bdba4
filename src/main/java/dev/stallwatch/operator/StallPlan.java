package dev.stallwatch.operator;

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
   */
  public record Change(
      Kind kind,
      RolloutStall stall,
      RolloutStallStatus previous,
      StallTransition transition,
      Resolution resolution) {}
}
