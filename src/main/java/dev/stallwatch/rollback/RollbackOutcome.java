package dev.stallwatch.rollback;

/**
 * What an auto-rollback came to.
 *
 * @param decision the policy's decision (its {@code recheckAt} tells when to look again)
 * @param result the rollback done; null when none was
 * @param refusal why the rollback the policy asked for did not happen (the DaemonSet moved on
 *     meanwhile, the revision vanished, the patch was forbidden); null otherwise
 */
public record RollbackOutcome(RollbackDecision decision, RollbackResult result, String refusal) {
  /** True when the DaemonSet was rolled back just now. */
  public boolean rolledBack() {
    return result != null && result.outcome() == RollbackResult.Outcome.ROLLED_BACK;
  }
}
