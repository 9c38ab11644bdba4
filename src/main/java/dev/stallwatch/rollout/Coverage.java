package dev.stallwatch.rollout;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Decides the {@link Evidence} of a verdict: which of the objects the verdict depends on the input
 * lacked, each named in a short phrase ({@code "node gpu-node-2 could not be read"}).
 *
 * @param missing empty with {@link Evidence#Full}
 */
record Coverage(Evidence evidence, List<String> missing) {

  /** At most this many nodes are named; the rest are counted. */
  private static final int NAMED = 5;

  Coverage {
    missing = List.copyOf(missing);
  }

  /**
   * @param noNodes whether the input holds no readable node
   * @param elsewhere the nodes the DaemonSet's pods target that are not among the readable ones
   */
  static Coverage of(
      boolean noNodes, Set<String> unreadableNodes, boolean podsListed, Set<String> elsewhere) {
    if (noNodes) {
      return new Coverage(
          Evidence.StatusOnly,
          List.of(
              unreadableNodes.isEmpty()
                  ? "the input holds no Node objects"
                  : "no Node in the input could be read"));
    }
    List<String> unreadable = new ArrayList<>();
    List<String> absent = new ArrayList<>();
    for (String name : elsewhere) {
      (unreadableNodes.contains(name) ? unreadable : absent).add(name);
    }
    // Named in name order, whatever order the map keeps.
    unreadable.sort(null);
    absent.sort(null);
    List<String> missing = new ArrayList<>();
    if (!unreadable.isEmpty()) {
      missing.add(phrase(unreadable, "could not be read"));
    }
    if (!absent.isEmpty()) {
      missing.add(
          phrase(absent, absent.size() == 1 ? "is not in the input" : "are not in the input"));
    }
    if (!podsListed) {
      missing.add("the input holds no Pod objects");
    }
    return new Coverage(missing.isEmpty() ? Evidence.Full : Evidence.Partial, missing);
  }

  /** A verdict from {@code .status} only, for the reason given (a strategy not judged per node). */
  static Coverage notJudged(String why) {
    return new Coverage(Evidence.StatusOnly, List.of(why));
  }

  boolean full() {
    return evidence == Evidence.Full;
  }

  private static String phrase(List<String> names, String what) {
    String named = String.join(", ", names.subList(0, Math.min(NAMED, names.size())));
    String more = names.size() > NAMED ? " and " + (names.size() - NAMED) + " more" : "";
    return (names.size() == 1 ? "node " : "nodes ") + named + more + " " + what;
  }
}
