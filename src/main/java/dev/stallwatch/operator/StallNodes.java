package dev.stallwatch.operator;

import dev.stallwatch.rollout.NodeView;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What resolving a stall asks of the cluster's nodes: whether a node the stall held still exists (a
 * stall whose nodes were all deleted is over, {@link Resolution#NodeRemoved}) and whether it is
 * down ({@link NodeView#down}: not Ready, or still tainted not-ready/unreachable): a node outage is
 * not progress, so a stall is not resolved while a node it held is down — after an API-server
 * outage every node may be NotReady for a moment, DESIRED shrinks to nothing, and the rollout would
 * look complete.
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

  /**
   * The cluster's nodes, looked up by name: the map of all nodes (5,000 at 5,000 nodes) is built on
   * the first question, not on every reconcile.
   */
  static StallNodes of(List<NodeView> nodes) {
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
    };
  }
}
