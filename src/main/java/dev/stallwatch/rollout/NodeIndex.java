package dev.stallwatch.rollout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The nodes of a snapshot looked up by name and in name order, made once per node list: every
 * DaemonSet of a cluster is analyzed against the same nodes, so a caller that keeps its node list
 * (the operator, per version of its node cache; a dump, for all its DaemonSets) builds this once
 * instead of once per analysis. Immutable; the first of two nodes with one name wins.
 */
public final class NodeIndex {
  private static final Comparator<NodeView> BY_NAME = Comparator.comparing(NodeView::name);

  private final List<NodeView> nodes;
  private final List<NodeView> byName;
  private final Map<String, NodeView> named;
  // Each name's position in byName, by open addressing: one probe of two arrays per pod of every
  // analysis, instead of a HashMap of nodes and lists of pods made anew per analysis.
  private final String[] slotNames;
  private final int[] slotPositions;

  private NodeIndex(List<NodeView> nodes) {
    this.nodes = nodes;
    Map<String, NodeView> map = new HashMap<>((int) Math.min(1L << 30, nodes.size() * 4L / 3 + 1));
    List<NodeView> sorted = new ArrayList<>(nodes.size());
    for (NodeView node : nodes) {
      if (map.putIfAbsent(node.name(), node) == null) {
        sorted.add(node);
      }
    }
    sorted.sort(BY_NAME);
    this.byName = List.copyOf(sorted);
    this.named = Collections.unmodifiableMap(map);
    int slots = Integer.highestOneBit(Math.max(4, byName.size() * 2 - 1)) << 1;
    this.slotNames = new String[slots];
    this.slotPositions = new int[slots];
    for (int i = 0; i < byName.size(); i++) {
      String name = byName.get(i).name();
      int s = slot(name.hashCode());
      while (slotNames[s] != null) {
        s = (s + 1) & (slots - 1);
      }
      slotNames[s] = name;
      slotPositions[s] = i;
    }
  }

  private int slot(int hash) {
    return (hash ^ (hash >>> 16)) & (slotNames.length - 1);
  }

  /** The position in {@link #byName} of the node named {@code name}, or -1 when there is none. */
  int position(String name) {
    return position(name, name.hashCode());
  }

  /**
   * {@link #position(String)} with the name's hash code already known: a name that is the very
   * instance the index holds (node names are interned, see {@link NodeView}) is then found without
   * reading it.
   */
  int position(String name, int hash) {
    int mask = slotNames.length - 1;
    for (int s = slot(hash); ; s = (s + 1) & mask) {
      String k = slotNames[s];
      if (k == null) {
        return -1;
      }
      if (k == name || k.equals(name)) {
        return slotPositions[s];
      }
    }
  }

  /** The index of {@code nodes} (copied). */
  public static NodeIndex of(List<NodeView> nodes) {
    return new NodeIndex(nodes == null ? List.of() : List.copyOf(nodes));
  }

  /** The nodes as given. */
  public List<NodeView> nodes() {
    return nodes;
  }

  /** One node per name, sorted by name. */
  List<NodeView> byName() {
    return byName;
  }

  /** Whether there is no node. */
  boolean isEmpty() {
    return named.isEmpty();
  }

  /** The nodes by name. */
  Map<String, NodeView> named() {
    return named;
  }

  /** Equal when made from equal node lists. */
  @Override
  public boolean equals(Object o) {
    return o instanceof NodeIndex other && nodes.equals(other.nodes);
  }

  @Override
  public int hashCode() {
    return nodes.hashCode();
  }

  @Override
  public String toString() {
    return "NodeIndex" + nodes;
  }
}
