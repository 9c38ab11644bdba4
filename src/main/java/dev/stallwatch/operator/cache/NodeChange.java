package dev.stallwatch.operator.cache;

import dev.stallwatch.rollout.Maintenance;
import dev.stallwatch.rollout.NodeEligibility;
import dev.stallwatch.rollout.NodeView;
import dev.stallwatch.rollout.PodTemplateView;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Decides whether a node update can change a rollout verdict, and for which DaemonSets. Kubelets
 * rewrite node status every few seconds (heartbeats, images, volumes); only labels, taints,
 * unschedulable, the Ready and maintenance conditions, allocatable resources and deletion matter to
 * the analyzer.
 */
public final class NodeChange {
  /** The taints the analyzer reads as "node unavailable" (see {@code CauseRules}). */
  private static final Set<String> UNAVAILABLE_TAINTS =
      Set.of(NodeView.NOT_READY_TAINT, NodeView.UNREACHABLE_TAINT);

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

  /**
   * Whether a node change can alter the verdict of a DaemonSet that has no pod on the node (one
   * with a pod there is always concerned). Like upstream's {@code updateNode}, it asks whether the
   * node's eligibility for the template differs before and after; beyond that, a node the DaemonSet
   * should run on counts as held back (empty), so its Ready condition and not-ready / unreachable
   * taints name the cause; and a node only an earlier revision's template runs on is {@code
   * NodeExcluded}.
   *
   * @param before the node before the update, null when it was added
   * @param after the node after the update, null when it was deleted
   * @param template the DaemonSet's current pod template
   * @param earlier the templates of the DaemonSet's ControllerRevisions; asked for only when the
   *     current template says nothing (it does not run on the node before nor after)
   */
  public static boolean concernsEmptyNode(
      NodeView before,
      NodeView after,
      PodTemplateView template,
      Supplier<? extends Collection<PodTemplateView>> earlier) {
    if (before == null || after == null) {
      NodeView node = before == null ? after : before;
      return node != null
          && (NodeEligibility.shouldRun(node, template)
              || earlier.get().stream().anyMatch(t -> NodeEligibility.shouldRun(node, t)));
    }
    boolean ranBefore = NodeEligibility.shouldRun(before, template);
    boolean runsAfter = NodeEligibility.shouldRun(after, template);
    if (ranBefore != runsAfter) {
      return true;
    }
    if (runsAfter) {
      return availabilityChanged(before, after);
    }
    return placementChanged(before, after)
        && earlier.get().stream()
            .anyMatch(
                t -> NodeEligibility.shouldRun(before, t) != NodeEligibility.shouldRun(after, t));
  }

  /** Labels or taints: the node's half of {@link NodeEligibility}. */
  static boolean placementChanged(NodeView before, NodeView after) {
    return !before.labels().equals(after.labels()) || !before.taints().equals(after.taints());
  }

  /**
   * What the analyzer reads of an empty node's availability: Ready, not-ready/unreachable taints,
   * maintenance signals (which make the node the suspect).
   */
  static boolean availabilityChanged(NodeView before, NodeView after) {
    return !Objects.equals(before.ready(), after.ready())
        || !unavailableTaints(before).equals(unavailableTaints(after))
        || !before.maintenance().equals(after.maintenance());
  }

  private static List<NodeView.Taint> unavailableTaints(NodeView node) {
    return node.taints().stream().filter(t -> UNAVAILABLE_TAINTS.contains(t.key())).toList();
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
  /** The Ready condition and the maintenance conditions, as the analyzer reads them. */
  private static String ready(Node n) {
    if (n.getStatus() == null || n.getStatus().getConditions() == null) {
      return null;
    }
    StringBuilder read = new StringBuilder();
    for (NodeCondition c : n.getStatus().getConditions()) {
      if (c != null && READ_CONDITIONS.test(c.getType())) {
        read.append(c.getType())
            .append('|')
            .append(c.getStatus())
            .append('|')
            .append(c.getReason())
            .append('|')
            .append(c.getLastTransitionTime())
            .append(';');
      }
    }
    return read.isEmpty() ? null : read.toString();
  }

  /** The node conditions the analyzer reads: Ready and {@link Maintenance}'s. */
  public static final java.util.function.Predicate<String> READ_CONDITIONS =
      type -> "Ready".equals(type) || Maintenance.isSignalCondition(type);
}
