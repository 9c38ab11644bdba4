package dev.stallwatch.rollout;

/**
 * Would rolling back help? What a stalled node's cause points at. The names are a contract (JSON,
 * CRD, metrics); auto-rollback acts only on {@link #NewRevision}.
 */
public enum Suspect {
  /** The new revision itself: rolling back should let the node converge. */
  NewRevision,
  /** The node: the old revision would not fare better there. */
  Node,
  /** The evidence does not tell. */
  Unknown;

  /** {@code yes}, {@code no}, {@code unknown}: the answer to "would a rollback help?". */
  public String rollbackHelps() {
    return switch (this) {
      case NewRevision -> "yes";
      case Node -> "no";
      case Unknown -> "unknown";
    };
  }
}
