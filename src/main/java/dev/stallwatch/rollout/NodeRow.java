package dev.stallwatch.rollout;

import java.time.Instant;
import java.util.List;

/**
 * One node of the generation split.
 *
 * @param revision which revision the node runs: {@code old}, {@code new} or {@code none}
 * @param pod the DaemonSet pod that stands for the node (the one upstream would count), or null
 * @param state a kubectl-like pod state ({@code Running}, {@code ImagePullBackOff}, {@code
 *     Init:0/1}, {@code Terminating}, …), or {@code -} without a pod
 * @param standing how the node relates to the rollout
 * @param cause why the node holds the rollout back; null unless it does
 * @param reason the Kubernetes reason behind the cause (e.g. {@code ImagePullBackOff})
 * @param message the Kubernetes message behind the cause
 * @param since since when the node holds the rollout back; null unless it does
 * @param suspect whether the new revision or the node is to blame; null unless the node holds the
 *     rollout back or is excluded
 * @param suspectReason why, in words that finish "rollback would help: yes, because …"
 */
public record NodeRow(
    String node,
    Revision revision,
    String pod,
    List<String> images,
    String state,
    Standing standing,
    Cause cause,
    String reason,
    String message,
    Instant since,
    Suspect suspect,
    String suspectReason) {

  public NodeRow {
    images = images == null ? List.of() : List.copyOf(images);
  }

  /** A row without a suspect: the node does not hold the rollout back. */
  public NodeRow(
      String node,
      Revision revision,
      String pod,
      List<String> images,
      String state,
      Standing standing,
      Cause cause,
      String reason,
      String message,
      Instant since) {
    this(node, revision, pod, images, state, standing, cause, reason, message, since, null, null);
  }

  /** Which revision runs on a node. Lower-case names are the contract. */
  public enum Revision {
    OLD,
    NEW,
    NONE;

    /** {@code old}, {@code new} or {@code none}, as JSON and metrics label it. */
    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** How a node relates to the rollout. */
  public enum Standing {
    /** Runs an available pod of the new revision. */
    UPDATED,
    /** Runs an available old pod and waits for the budget to reach it. */
    WAITING,
    /**
     * Kept on its old revision (or without a pod) on purpose by an Advanced DaemonSet's partition,
     * update selector or partitioned scaling: the rollout may not update it, so it never holds the
     * rollout back.
     */
    HELD,
    /**
     * Runs the new revision, but the node stopped being Ready after its pod was: an outage after
     * the rollout passed the node, not a rollout stall.
     */
    UNAVAILABLE,
    /** Holds the rollout back, for less than stall-after so far. */
    UPDATING,
    /** Has held the rollout back for longer than stall-after. */
    STUCK,
    /** Dropped from DESIRED by the new template although the old one would run there. */
    EXCLUDED,
    /** Outside DESIRED and holds no pod of the DaemonSet (or a pod the rollout does not need). */
    NOT_DESIRED,
    /**
     * Not in the input (or unreadable), yet a pod of the DaemonSet targets it: whether it should
     * run the DaemonSet is unknown. Its pod does not hold the rollout back (else it is
     * updating/stuck).
     */
    UNKNOWN
  }
}
