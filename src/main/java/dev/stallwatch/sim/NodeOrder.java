package dev.stallwatch.sim;

import java.util.Comparator;
import java.util.List;

/**
 * The order in which the rolling update takes nodes. Upstream ranges over a Go map, so which node
 * it takes first is left to chance; the simulator takes them by name, unless told to take some
 * first (to replay what a real controller happened to pick).
 */
final class NodeOrder {

  private NodeOrder() {}

  /** The nodes in {@code first} in that order, then every other node by name. */
  static Comparator<String> preferring(List<String> first) {
    List<String> given = List.copyOf(first);
    return Comparator.<String>comparingInt(n -> given.contains(n) ? given.indexOf(n) : given.size())
        .thenComparing(Comparator.naturalOrder());
  }
}
