package dev.stallwatch.rollout;

import dev.stallwatch.rollout.NodeRow.Revision;
import java.util.ArrayList;
import java.util.List;

/**
 * Which nodes run which revision of a DaemonSet — the split of the cluster a stalled rollout
 * leaves: old, new, or none (no pod). Each list in node-name order.
 */
public record RevisionNodes(List<String> oldNodes, List<String> newNodes, List<String> noneNodes) {

  public RevisionNodes {
    oldNodes = List.copyOf(oldNodes);
    newNodes = List.copyOf(newNodes);
    noneNodes = List.copyOf(noneNodes);
  }

  /**
   * The split of the rows: a node counts when the DaemonSet should run there or a pod still does.
   */
  static RevisionNodes of(List<NodeRow> rows) {
    List<String> old = new ArrayList<>();
    List<String> updated = new ArrayList<>();
    List<String> none = new ArrayList<>();
    for (NodeRow row : rows) {
      if (row.standing() != NodeRow.Standing.NOT_DESIRED || row.pod() != null) {
        switch (row.revision()) {
          case OLD -> old.add(row.node());
          case NEW -> updated.add(row.node());
          case NONE -> none.add(row.node());
        }
      }
    }
    return new RevisionNodes(old, updated, none);
  }

  /** The nodes that run {@code revision}. */
  public List<String> nodes(Revision revision) {
    return switch (revision) {
      case OLD -> oldNodes;
      case NEW -> newNodes;
      case NONE -> noneNodes;
    };
  }

  /** How many nodes run {@code revision}. */
  public int count(Revision revision) {
    return nodes(revision).size();
  }
}
