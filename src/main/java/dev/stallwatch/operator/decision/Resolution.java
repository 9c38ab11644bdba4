package dev.stallwatch.operator.decision;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.rollout.Cause;
import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.rollout.Phase;
import dev.stallwatch.rollout.RolloutVerdict;
import java.util.Optional;

/** Why a stall stopped being active: the reason of its {@code Stalled=False} condition. */
public enum Resolution {
  /** Every desired node runs an available pod of the stalled revision. */
  RolloutComplete,
  /** Still rolling out the same revision, but no node holds it back any longer. */
  RolloutMovedOn,
  /** The DaemonSet went back to the stall's old revision. */
  RolledBack,
  /** The DaemonSet moved to yet another revision. */
  Superseded,
  /** Someone accepted a NodeExcluded stall with the acknowledge annotation. */
  Acknowledged,
  /** Every node the stall held was deleted from the cluster, and no other node holds it. */
  NodeRemoved;

  /**
   * Decides whether {@code stall} is over given the DaemonSet's latest verdict; empty while the
   * rollout the stall is about is still stalled.
   */
  public static Optional<Resolution> of(RolloutStall stall, RolloutVerdict verdict) {
    return of(stall, verdict, StallNodes.ALL_READY);
  }

  /**
   * Decides whether {@code stall} is over given the DaemonSet's latest verdict and the cluster's
   * nodes; empty while the rollout the stall is about is still stalled, while a node it held is
   * down, and while an outage holds an unready pod of the DaemonSet ({@link
   * StallNodes#outageInProgress}): an outage is not progress, and the verdict may say Complete only
   * because nodes dropped out of DESIRED.
   */
  static Optional<Resolution> of(RolloutStall stall, RolloutVerdict verdict, StallNodes nodes) {
    String stalledHash = stall.getSpec().revision();
    String currentHash = verdict.newHash();
    if (!stalledHash.equals(currentHash)) {
      var status = stall.getStatus();
      boolean backToOld =
          status != null
              && status.oldRevision() != null
              && currentHash.equals(status.oldRevision().hash());
      return Optional.of(backToOld ? RolledBack : Superseded);
    }
    var held = stall.getStatus() == null ? null : stall.getStatus().nodes();
    if (!verdict.stalled()
        && held != null
        && !held.isEmpty()
        && held.stream().noneMatch(n -> nodes.exists(n.name()))) {
      return Optional.of(NodeRemoved);
    }
    if (!verdict.stalled()
        && (nodes.outageInProgress()
            || (held != null && held.stream().anyMatch(n -> nodes.down(n.name()))))) {
      return Optional.empty();
    }
    if (verdict.phase() == Phase.Complete) {
      return Optional.of(RolloutComplete);
    }
    if (!verdict.stalled()) {
      return Optional.of(RolloutMovedOn);
    }
    if (stall.acknowledged() && verdict.cause() == Cause.NodeExcluded) {
      return Optional.of(Acknowledged);
    }
    return Optional.empty();
  }

  /** One sentence for the condition message and the RolloutResolved event. */
  public String describe(String daemonSet, String revision) {
    return switch (this) {
      case RolloutComplete -> "Rollout of " + daemonSet + " to revision " + revision + " completed";
      case RolloutMovedOn ->
          "Rollout of " + daemonSet + " to revision " + revision + " is moving again";
      case RolledBack -> daemonSet + " was rolled back from revision " + revision;
      case Superseded -> daemonSet + " moved past revision " + revision + " to a newer one";
      case Acknowledged ->
          "Node exclusion of "
              + daemonSet
              + " revision "
              + revision
              + " acknowledged with "
              + MetadataKeys.ACKNOWLEDGED;
      case NodeRemoved ->
          "Every node the rollout of "
              + daemonSet
              + " to revision "
              + revision
              + " stalled on was deleted";
    };
  }
}
