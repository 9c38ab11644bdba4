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
    List<PodView> pods = new ArrayList<>();
    nodePods.values().forEach(pods::addAll);
    return compute(ds, Placement.of(NodeIndex.of(nodes), ds.template(), pods), split, now);
  }

  /**
   * @param nodes each node with its eligibility and its DaemonSet pods (oldest first, without pods
   *     that are both terminal and deleted)
   */
  static Counts compute(DaemonSetView ds, Placement nodes, RevisionSplit split, Instant now) {
    int desired = 0;
    int current = 0;
    int ready = 0;
    int available = 0;
    int upToDate = 0;
    int misscheduled = 0;
    int minReadySeconds = ds.minReadySeconds();
    for (int i = 0, n = nodes.size(); i < n; i++) {
      PodView pod = nodes.firstPod(i);
      if (!nodes.fit(i).shouldRun()) {
        if (pod != null) {
          misscheduled++;
        }
        continue;
      }
      desired++;
      if (pod == null) {
        continue;
      }
      current++;
      if (pod.derived().ready()) {
        ready++;
        if (PodAvailability.isAvailable(pod, minReadySeconds, now)) {
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
