package dev.stallwatch.operator.decision;

/** The Events the operator writes on a DaemonSet: their reason and type. */
public enum EventReason {
  /** A RolloutStall starts (Warning). */
  STALLED("RolloutStalled", true),
  /** A RolloutStall is resolved (Normal). */
  RESOLVED("RolloutResolved", false),
  /** The DaemonSet cannot be analyzed (Warning), once per generation and problem. */
  INVALID("InvalidDaemonSet", true),
  /** The operator rolled the DaemonSet back (Normal). */
  ROLLED_BACK("RolloutRolledBack", false),
  /** A due auto-rollback could not be done (Warning), once per stalled revision and reason. */
  ROLLBACK_REFUSED("RolloutRollbackRefused", true),
  /** A due auto-rollback not done because the suspect is not the new revision (Normal). */
  ROLLBACK_WITHHELD("RollbackWithheld", false);

  private final String reason;
  private final boolean warning;

  EventReason(String reason, boolean warning) {
    this.reason = reason;
    this.warning = warning;
  }

  /** The Event's {@code reason}. */
  public String reason() {
    return reason;
  }

  /** Whether the Event's type is Warning (else Normal). */
  public boolean warning() {
    return warning;
  }
}
