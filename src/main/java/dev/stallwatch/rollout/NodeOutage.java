package dev.stallwatch.rollout;

import java.time.Instant;
import java.util.Optional;

/**
 * When a node stopped being Ready, and whether a pod there was Ready before that: what tells an
 * outage after the rollout passed a node from a rollout that broke it.
 */
final class NodeOutage {
  private NodeOutage() {}

  /**
   * Since when the node is not Ready (its Ready condition's last transition, else its earliest
   * not-ready/unreachable taint); null while it is Ready. {@link Instant#MIN} when the time is not
   * recorded.
   */
  static Instant downSince(NodeView node) {
    NodeView.Condition ready = node.ready();
    if (ready != null && !"True".equals(ready.status())) {
      return ready.lastTransition() == null ? Instant.MIN : ready.lastTransition();
    }
    Instant earliest = null; // a loop: asked for most nodes of every analysis
    java.util.List<NodeView.Taint> taints = node.taints();
    for (int i = 0, n = taints.size(); i < n; i++) {
      NodeView.Taint t = taints.get(i);
      if (t.key().equals(NodeView.NOT_READY_TAINT) || t.key().equals(NodeView.UNREACHABLE_TAINT)) {
        Instant added = t.timeAdded() == null ? Instant.MIN : t.timeAdded();
        if (earliest == null || added.compareTo(earliest) < 0) {
          earliest = added;
        }
      }
    }
    return earliest;
  }

  /**
   * Whether the pod was Ready before {@code instant}: its Ready condition turned True before then,
   * or — once the node controller has marked it not Ready at or after {@code instant} — every
   * container was running and ready when the kubelet last reported.
   */
  static boolean readyBefore(PodView pod, Instant instant) {
    Optional<PodView.Condition> ready = pod.condition("Ready");
    if (ready.isEmpty() || ready.get().lastTransition() == null) {
      return false;
    }
    Instant changed = ready.get().lastTransition();
    if ("True".equals(ready.get().status())) {
      return changed.isBefore(instant);
    }
    return !changed.isBefore(instant)
        && !pod.containerStatuses().isEmpty()
        && pod.containerStatuses().stream().allMatch(c -> c.ready() && c.running());
  }

  /**
   * Since when the node is Ready again (its Ready condition's last transition to True), or null.
   */
  static Instant backSince(NodeView node) {
    NodeView.Condition ready = node.ready();
    return ready != null && "True".equals(ready.status()) ? ready.lastTransition() : null;
  }

  /**
   * Whether the pod is still as the node controller left it when its node went NotReady: Ready
   * False without a reason while every container runs and is ready. A kubelet that sets Ready False
   * always gives a reason (ContainersNotReady, ReadinessGatesNotReady); the node controller only
   * flips the status of every pod on a node it lost. The pod ran before its node's outage and no
   * kubelet has reported since — an outage, whatever the node cache says at this moment (after a
   * relist it may be older or newer than the pod cache).
   */
  static boolean markedByNodeController(PodView pod) {
    Optional<PodView.Condition> ready = pod.condition("Ready");
    return ready.isPresent()
        && "False".equals(ready.get().status())
        && (ready.get().reason() == null || ready.get().reason().isEmpty())
        && !pod.containerStatuses().isEmpty()
        && pod.containerStatuses().stream().allMatch(c -> c.ready() && c.running());
  }

  /**
   * Whether the pod outlived its node's outage and only waits out {@code minReadySeconds} counted
   * from the node's return: created before the node turned Ready again at {@code back}, Ready again
   * since then.
   */
  static boolean readyAgainAfter(PodView pod, Instant back) {
    Optional<PodView.Condition> ready = pod.condition("Ready");
    return pod.created() != null
        && pod.created().isBefore(back)
        && ready.isPresent()
        && "True".equals(ready.get().status())
        && ready.get().lastTransition() != null
        && !ready.get().lastTransition().isBefore(back);
  }
}
