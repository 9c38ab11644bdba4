package dev.stallwatch.operator;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import java.util.Objects;

/**
 * Decides whether a node update can change a rollout verdict. Kubelets rewrite node status every
 * few seconds (heartbeats, images, volumes); only labels, taints, unschedulable, the Ready
 * condition, allocatable resources and deletion matter to the analyzer.
 */
public final class NodeChange {
  private NodeChange() {}

  /** True when {@code after} differs from {@code before} in something the analyzer reads. */
  public static boolean matters(Node before, Node after) {
    if (before == null || after == null) {
      return true;
    }
    return !Objects.equals(labels(before), labels(after))
        || !Objects.equals(taints(before), taints(after))
        || unschedulable(before) != unschedulable(after)
        || !Objects.equals(ready(before), ready(after))
        || !Objects.equals(allocatable(before), allocatable(after))
        || !Objects.equals(deletion(before), deletion(after));
  }

  private static Object labels(Node n) {
    return n.getMetadata() == null ? null : n.getMetadata().getLabels();
  }

  private static String deletion(Node n) {
    return n.getMetadata() == null ? null : n.getMetadata().getDeletionTimestamp();
  }

  private static Object taints(Node n) {
    return n.getSpec() == null ? null : n.getSpec().getTaints();
  }

  private static boolean unschedulable(Node n) {
    return n.getSpec() != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable());
  }

  private static Object allocatable(Node n) {
    return n.getStatus() == null ? null : n.getStatus().getAllocatable();
  }

  // Status, reason and transition time of Ready; the heartbeat is left out on purpose.
  private static String ready(Node n) {
    if (n.getStatus() == null || n.getStatus().getConditions() == null) {
      return null;
    }
    for (NodeCondition c : n.getStatus().getConditions()) {
      if (c != null && "Ready".equals(c.getType())) {
        return c.getStatus() + "|" + c.getReason() + "|" + c.getLastTransitionTime();
      }
    }
    return null;
  }
}
