package dev.stallwatch.rollout;

import java.util.List;

/**
 * Everything the analyzer looks at for one DaemonSet. {@code pods} and {@code revisions} may hold
 * objects of other owners (they are ignored); {@code nodes} is every node of the cluster.
 */
public record RolloutSnapshot(
    DaemonSetView daemonSet,
    List<PodView> pods,
    List<NodeView> nodes,
    List<RevisionView> revisions) {
  public RolloutSnapshot {
    pods = pods == null ? List.of() : List.copyOf(pods);
    nodes = nodes == null ? List.of() : List.copyOf(nodes);
    revisions = revisions == null ? List.of() : List.copyOf(revisions);
  }
}
