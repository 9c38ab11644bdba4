package dev.stallwatch.rollout;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Recomputes the DaemonSet status numbers the way upstream's {@code updateDaemonSetStatus} does:
 * for every node that should run the pod, count it as desired; when it has daemon pods, count the
 * oldest (bound first) as current, and as ready, available and up to date by its own state. Pods on
 * nodes that should not run the DaemonSet are misscheduled.
 */
final class StatusCounts {
  private StatusCounts() {}

  /**
   * @param nodePods the DaemonSet's pods per target node, oldest first, without pods that are both
   *     terminal and deleted
   */
  static Counts compute(
      DaemonSetView ds,
      List<NodeView> nodes,
      Map<String, List<PodView>> nodePods,
      RevisionSplit split,
      Instant now) {
    List<PlacedNode> placed = new ArrayList<>(nodes.size());
    for (NodeView node : nodes) {
      placed.add(PlacedNode.of(node, ds.template(), nodePods.getOrDefault(node.name(), List.of())));
    }
    return compute(ds, placed, split, now);
  }

  /**
   * @param nodes each node with its eligibility and its DaemonSet pods (oldest first, without pods
   *     that are both terminal and deleted)
   */
  static Counts compute(
      DaemonSetView ds, List<PlacedNode> nodes, RevisionSplit split, Instant now) {
    int desired = 0;
    int current = 0;
    int ready = 0;
    int available = 0;
    int upToDate = 0;
    int misscheduled = 0;
    for (PlacedNode node : nodes) {
      List<PodView> pods = node.pods();
      if (!node.fit().shouldRun()) {
        if (!pods.isEmpty()) {
          misscheduled++;
        }
        continue;
      }
      desired++;
      if (pods.isEmpty()) {
        continue;
      }
      current++;
      PodView pod = pods.get(0);
      PodView.Condition readiness = PodAvailability.readyCondition(pod);
      if (PodAvailability.isReady(readiness)) {
        ready++;
        if (PodAvailability.isAvailable(readiness, ds.minReadySeconds(), now)) {
          available++;
        }
      }
      if (split.isNew(pod)) {
        upToDate++;
      }
    }
    return new Counts(
        desired, current, ready, upToDate, available, desired - available, misscheduled);
  }
}
