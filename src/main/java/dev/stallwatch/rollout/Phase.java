package dev.stallwatch.rollout;

/** Where a DaemonSet's rollout stands. The names are a contract (JSON, metrics, CRD). */
public enum Phase {
  /** Every desired node runs an available pod of the new revision; generation observed. */
  Complete,
  /** Moving, or waiting for budget, or not yet observed by the controller. */
  Progressing,
  /** At least one node is stuck or excluded. */
  Stalled,
  /**
   * An Advanced DaemonSet whose {@code rollingUpdate.paused} is true: the rollout waits for its
   * owner; never reported stalled.
   */
  Paused,
  /** Strategy OnDelete: pods change only when someone deletes them; never reported stalled. */
  OnDelete
}
