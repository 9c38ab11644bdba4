package dev.stallwatch.operator.decision;

/**
 * What happened to a stall between the status it had and the one it gets. Events follow
 * transitions, not reconciles: re-reading an unchanged stall emits nothing, also after a restart.
 */
public enum StallTransition {
  /** A new stall, or a resolved one that stalls again. */
  STALLED,
  /** Still stalled; details may have changed. */
  STILL_STALLED,
  /** Was active, now resolved. */
  RESOLVED,
  /** Still resolved (or never active). */
  UNCHANGED
}
