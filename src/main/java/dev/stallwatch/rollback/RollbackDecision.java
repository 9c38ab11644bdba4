package dev.stallwatch.rollback;

import java.time.Instant;

/**
 * The auto-rollback policy's answer.
 *
 * @param rollBack true when the operator should roll back now
 * @param target with {@code rollBack}: the revision to restore, guarded by the stalled hash
 * @param toRevision with {@code rollBack}: the target's {@code .revision} (for messages)
 * @param reason one sentence, why or why not (logged, put on the Event and the RolloutStall)
 * @param recheckAt when waiting for the delay to pass: when to decide again; else null
 * @param withheld true when a rollback was due but the suspect says it would not help: recorded
 *     (Event and RolloutStall) so that people know why the operator did not act
 */
public record RollbackDecision(
    boolean rollBack,
    RollbackTarget target,
    Long toRevision,
    String reason,
    Instant recheckAt,
    boolean withheld) {

  static RollbackDecision no(String reason) {
    return new RollbackDecision(false, null, null, reason, null, false);
  }

  static RollbackDecision notYet(String reason, Instant recheckAt) {
    return new RollbackDecision(false, null, null, reason, recheckAt, false);
  }

  static RollbackDecision withheld(String reason) {
    return new RollbackDecision(false, null, null, reason, null, true);
  }
}
