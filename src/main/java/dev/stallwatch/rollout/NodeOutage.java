package dev.stallwatch.rollout;

import java.time.Instant;
import java.util.Optional;

/**
 * When a node stopped being Ready, and whether a pod there was Ready before that: what tells an
 * outage after the rollout passed a node from a rollout that broke it.
 */
final class NodeOutage {
  private static final String NOT_READY_TAINT = "node.kubernetes.io/not-ready";
  private static final String UNREACHABLE_TAINT = "node.kubernetes.io/unreachable";

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
      if (t.key().equals(NOT_READY_TAINT) || t.key().equals(UNREACHABLE_TAINT)) {
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
}
