package dev.stallwatch.operator;

/**
 * What resolving a stall asks of the cluster's nodes: whether a node the stall held still exists (a
 * stall whose nodes were all deleted is over, {@link Resolution#NodeRemoved}) and whether it is
 * down (not Ready): a node outage is not progress, so a stall is not resolved while a node it held
 * is down — after an API-server outage every node may be NotReady for a moment, DESIRED shrinks to
 * nothing, and the rollout would look complete.
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

  /** The node exists and is not Ready (its Ready condition is not True). */
  boolean down(String node);
}
