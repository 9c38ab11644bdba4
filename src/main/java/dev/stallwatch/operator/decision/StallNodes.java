package dev.stallwatch.operator.decision;

import dev.stallwatch.rollout.NodeEligibility;
import dev.stallwatch.rollout.NodeView;
import dev.stallwatch.rollout.PodTemplateView;
import dev.stallwatch.rollout.PodView;
import dev.stallwatch.rollout.RolloutSnapshot;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What resolving a stall asks of the cluster's nodes: whether a node the stall held still exists (a
 * stall whose nodes were all deleted is over, {@link Resolution#NodeRemoved}) and whether it is
 * down ({@link NodeView#down}: not Ready, or still tainted not-ready/unreachable); and, from a
 * snapshot, whether an outage is in progress ({@link #outageInProgress}). A node outage is not
 * progress, so a stall is not resolved while a node it held is down or an outage holds an unready
 * pod of the DaemonSet — after an API-server outage every node may be NotReady for a moment,
 * DESIRED shrinks to nothing, and the rollout would look complete.
 */
public interface StallNodes {
  /** Every node exists and is Ready: nothing to hold a resolution back. */
  StallNodes ALL_READY =
      new StallNodes() {
        @Override
        public boolean exists(String node) {
          return true;
        }

        @Override
        public boolean down(String node) {
          return false;
        }
      };

  boolean exists(String node);

  /** The node exists and is down ({@link NodeView#down}). */
  boolean down(String node);

  /**
   * Whether a node holding an unready pod of the DaemonSet is down or has left DESIRED with it
   * ({@link #of(RolloutSnapshot)}); false where the pods are not known.
   */
  default boolean outageInProgress() {
    return false;
  }

  /**
   * The snapshot's nodes, and whether an outage is in progress among them: some node that holds a
   * pod of the DaemonSet that is neither Ready nor being deleted is down, or has left DESIRED with
   * the pod still on it. The controller leaves such a pod where it is (a NoSchedule taint it does
   * not tolerate is how a node lost in an outage leaves DESIRED, whatever its Ready condition says
   * by then), so the rollout may look Complete without having reached the node. Asked of every
   * unready pod, not only of the stall's nodes: the record may name others than the ones the outage
   * took.
   */
  static StallNodes of(RolloutSnapshot snapshot) {
    return of(snapshot.nodes(), snapshot);
  }

  /** The cluster's nodes, without pods: no outage is ever in progress. */
  static StallNodes of(List<NodeView> nodes) {
    return of(nodes, null);
  }

  /**
   * The nodes looked up by name: the map of all nodes (5,000 at 5,000 nodes) is built on the first
   * question, not on every reconcile.
   *
   * @param snapshot whose pods and template {@link #outageInProgress} asks about, or null
   */
  private static StallNodes of(List<NodeView> nodes, RolloutSnapshot snapshot) {
    return new StallNodes() {
      private Map<String, NodeView> byName;

      private NodeView node(String name) {
        if (byName == null) {
          byName = new HashMap<>();
          nodes.forEach(n -> byName.putIfAbsent(n.name(), n));
        }
        return byName.get(name);
      }

      @Override
      public boolean exists(String node) {
        return node(node) != null;
      }

      @Override
      public boolean down(String node) {
        NodeView n = node(node);
        return n != null && n.down();
      }

      @Override
      public boolean outageInProgress() {
        if (snapshot == null) {
          return false;
        }
        PodTemplateView template = snapshot.daemonSet().template();
        for (PodView pod : snapshot.pods()) {
          if (pod.terminating() || pod.derived().ready()) {
            continue;
          }
          NodeView node = node(pod.targetNode());
          if (node != null && (node.down() || !NodeEligibility.shouldRun(node, template))) {
            return true;
          }
        }
        return false;
      }
    };
  }
}
