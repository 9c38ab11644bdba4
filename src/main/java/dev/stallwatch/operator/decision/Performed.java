package dev.stallwatch.operator.decision;

import dev.stallwatch.rollback.RollbackOutcome;
import java.time.Instant;
import java.util.Set;

/**
 * What running a decision's effects came to, handed back to {@link RolloutDecider#settle}: the one
 * way the outcome of a write reaches what the operator remembers.
 *
 * @param unannounced RolloutStalls whose write, one that starts them, failed with its outcome
 *     unknown (the answer lost, the read-back too: the status may have landed)
 * @param rollback the outcome of the {@link Effect.RollBack}; null when none ran
 * @param conditionConflict the {@link Effect.SyncCondition} met a conflict
 * @param next the earliest {@link Effect.LookAgain} run; null when none
 * @param failure the write that ended the run early failed so; null when every effect ran
 */
public record Performed(
    Set<String> unannounced,
    RollbackOutcome rollback,
    boolean conditionConflict,
    Instant next,
    RuntimeException failure) {
  public Performed {
    unannounced = Set.copyOf(unannounced);
  }

  /** Throws the failure that ended the run, if one did. */
  public void rethrow() {
    if (failure != null) {
      throw failure;
    }
  }
}
