package dev.stallwatch.rollout;

import java.util.List;
import java.util.Set;

/**
 * Everything the analyzer looks at for one DaemonSet. {@code pods} and {@code revisions} may hold
 * objects of other owners (they are ignored); {@code nodes} is every node of the cluster.
 *
 * @param unreadableNodes names of nodes the input held but that could not be read: a pod on one of
 *     them makes the verdict {@link Evidence#Partial}, never "not desired"
 * @param podsListed false when the input held no pods at all (not: none of this DaemonSet)
 * @param events Events of the namespace (those about other objects are ignored); empty when the
 *     input held none or the caller did not list them
 * @param nodeIndex {@code nodes} by name and in name order; made from {@code nodes} unless the
 *     caller passes the index of this very list (one index serves every DaemonSet of a cluster)
 */
public record RolloutSnapshot(
    DaemonSetView daemonSet,
    List<PodView> pods,
    List<NodeView> nodes,
    List<RevisionView> revisions,
    Set<String> unreadableNodes,
    boolean podsListed,
    List<EventView> events,
    NodeIndex nodeIndex) {
  public RolloutSnapshot {
    pods = pods == null ? List.of() : List.copyOf(pods);
    nodes = nodes == null ? List.of() : List.copyOf(nodes);
    if (nodeIndex == null || nodeIndex.nodes() != nodes) {
      nodeIndex = NodeIndex.of(nodes);
      nodes = nodeIndex.nodes();
    }
    revisions = revisions == null ? List.of() : List.copyOf(revisions);
    unreadableNodes = unreadableNodes == null ? Set.of() : Set.copyOf(unreadableNodes);
    events = events == null ? List.of() : List.copyOf(events);
  }

  /** A snapshot whose node index is made from {@code nodes}. */
  public RolloutSnapshot(
      DaemonSetView daemonSet,
      List<PodView> pods,
      List<NodeView> nodes,
      List<RevisionView> revisions,
      Set<String> unreadableNodes,
      boolean podsListed,
      List<EventView> events) {
    this(daemonSet, pods, nodes, revisions, unreadableNodes, podsListed, events, null);
  }

  /** A snapshot over the nodes of an index made beforehand (see {@link NodeIndex}). */
  public RolloutSnapshot(
      DaemonSetView daemonSet,
      List<PodView> pods,
      NodeIndex nodes,
      List<RevisionView> revisions,
      Set<String> unreadableNodes,
      boolean podsListed,
      List<EventView> events) {
    this(daemonSet, pods, nodes.nodes(), revisions, unreadableNodes, podsListed, events, nodes);
  }

  /** A snapshot without Events. */
  public RolloutSnapshot(
      DaemonSetView daemonSet,
      List<PodView> pods,
      List<NodeView> nodes,
      List<RevisionView> revisions,
      Set<String> unreadableNodes,
      boolean podsListed) {
    this(daemonSet, pods, nodes, revisions, unreadableNodes, podsListed, List.of());
  }

  /** The same snapshot with {@code more} Events. */
  public RolloutSnapshot withEvents(List<EventView> more) {
    return new RolloutSnapshot(
        daemonSet, pods, nodes, revisions, unreadableNodes, podsListed, more, nodeIndex);
  }

  /** A snapshot whose pods were listed and whose nodes could all be read. */
  public RolloutSnapshot(
      DaemonSetView daemonSet,
      List<PodView> pods,
      List<NodeView> nodes,
      List<RevisionView> revisions) {
    this(daemonSet, pods, nodes, revisions, Set.of(), true, List.of());
  }
}
