package dev.stallwatch.rollout;

import java.time.Instant;
import java.util.List;

/**
 * Recomputes the DaemonSet status numbers the way upstream's {@code updateDaemonSetStatus} does:
 * for every node that should run the pod, count it as desired; when it has daemon pods, count the
 * oldest (bound first) as current, and as ready, available and up to date by its own state. Pods on
 * nodes that should not run the DaemonSet are misscheduled.
 */
final class StatusCounts {
  private StatusCounts() {}

  /**
   * @param nodes every node with its eligibility and the DaemonSet's pods targeting it, oldest
   *     first, without pods that are both terminal and deleted
   */
  static Counts compute(
      DaemonSetView ds, List<RolloutAnalyzer.PlacedNode> nodes, RevisionSplit split, Instant now) {
    int desired = 0;
    int current = 0;
    int ready = 0;
    int available = 0;
    int upToDate = 0;
    int misscheduled = 0;
    for (RolloutAnalyzer.PlacedNode node : nodes) {
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
      if (PodAvailability.isReady(pod)) {
        ready++;
        if (PodAvailability.isAvailable(pod, ds.minReadySeconds(), now)) {
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
