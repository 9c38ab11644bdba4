package dev.stallwatch.operator;

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
 * down ({@link NodeView#down}: not Ready, or still tainted not-ready/unreachable; from a snapshot
 * also: outside DESIRED with an unready pod of the DaemonSet left on it): a node outage is not
 * progress, so a stall is not resolved while a node it held is down — after an API-server outage
 * every node may be NotReady for a moment, DESIRED shrinks to nothing, and the rollout would look
 * complete.
 */
interface StallNodes {
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

  /** The node of that name, or null. */
  default NodeView node(String name) {
    return null;
  }

  /**
   * The snapshot's nodes, and its DaemonSet's pods: a node outside DESIRED that still holds a pod
   * of the DaemonSet that is neither Ready nor being deleted counts as down too. The controller
   * leaves such a pod where it is (a NoSchedule taint the pod does not tolerate — which is how a
   * node lost in an outage leaves DESIRED, whatever its Ready condition says by then), so the
   * rollout looks Complete without having reached the node.
   */
  static StallNodes of(RolloutSnapshot snapshot) {
    StallNodes nodes = of(snapshot.nodes());
    PodTemplateView template = snapshot.daemonSet().template();
    return new StallNodes() {
      @Override
      public boolean exists(String node) {
        return nodes.exists(node);
      }

      @Override
      public boolean down(String node) {
        return nodes.down(node) || (nodes.exists(node) && leftWithAPod(node));
      }

      private boolean leftWithAPod(String node) {
        boolean unready = false;
        for (PodView pod : snapshot.pods()) {
          if (node.equals(pod.targetNode()) && !pod.terminating() && !pod.derived().ready()) {
            unready = true;
            break;
          }
        }
        return unready && !NodeEligibility.shouldRun(nodes.node(node), template);
      }
    };
  }

  /**
   * The cluster's nodes, looked up by name: the map of all nodes (5,000 at 5,000 nodes) is built on
   * the first question, not on every reconcile.
   */
  static StallNodes of(List<NodeView> nodes) {
    return new StallNodes() {
      private Map<String, NodeView> byName;

      @Override
      public NodeView node(String name) {
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
    };
  }
}
