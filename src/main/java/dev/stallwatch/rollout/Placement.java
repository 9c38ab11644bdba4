package dev.stallwatch.rollout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The nodes of one analysis in name order, each with what every later step reads of it, decided
 * once: whether the DaemonSet's template should run there, and the DaemonSet's pods targeting it
 * (oldest first). The status counts and the node assessment both walk it by position.
 *
 * <p>Made without a map keyed by node name: each pod finds its node's position through the
 * snapshot's {@link NodeIndex} (made once per node list), and a node's only pod is kept as it is,
 * not in a list of its own. Only pods whose node the input lacks are kept by name.
 */
final class Placement {
  private final List<NodeView> nodes;
  private final NodeEligibility.Fit[] fits;
  // Per position: null, the node's one pod, or a List<PodView> of two or more, oldest first.
  private final Object[] pods;
  private final Map<String, List<PodView>> elsewhere;

  private Placement(
      List<NodeView> nodes,
      NodeEligibility.Fit[] fits,
      Object[] pods,
      Map<String, List<PodView>> elsewhere) {
    this.nodes = nodes;
    this.fits = fits;
    this.pods = pods;
    this.elsewhere = elsewhere;
  }

  /**
   * @param pods the DaemonSet's pods (those without a target node are left out)
   */
  static Placement of(NodeIndex index, PodTemplateView template, List<PodView> pods) {
    List<NodeView> nodes = index.byName();
    Object[] at = new Object[nodes.size()];
    Map<String, List<PodView>> elsewhere = null;
    boolean shared = false;
    for (int p = 0, n = pods.size(); p < n; p++) {
      PodView pod = pods.get(p);
      String target = pod.targetNode();
      int hash = pod.derived().targetNodeHash();
      if (hash == 0 && target.isEmpty()) {
        continue;
      }
      int i = index.position(target, hash);
      if (i < 0) {
        if (elsewhere == null) {
          elsewhere = new HashMap<>();
        }
        elsewhere.computeIfAbsent(target, k -> new ArrayList<>(1)).add(pod);
        continue;
      }
      Object known = at[i];
      if (known == null) {
        at[i] = pod;
      } else {
        shared = true;
        if (known instanceof PodView first) {
          List<PodView> two = new ArrayList<>(2);
          two.add(first);
          two.add(pod);
          at[i] = two;
        } else {
          @SuppressWarnings("unchecked")
          List<PodView> more = (List<PodView>) known;
          more.add(pod);
        }
      }
    }
    if (shared) {
      for (Object o : at) {
        if (o instanceof List<?> list) {
          @SuppressWarnings("unchecked")
          List<PodView> several = (List<PodView>) list;
          several.sort(PodAvailability.OLDEST_FIRST);
        }
      }
    }
    if (elsewhere != null) {
      for (List<PodView> list : elsewhere.values()) {
        list.sort(PodAvailability.OLDEST_FIRST);
      }
    }
    NodeEligibility.Fit[] fits = new NodeEligibility.Fit[nodes.size()];
    for (int i = 0; i < fits.length; i++) {
      fits[i] = NodeEligibility.evaluate(nodes.get(i), template);
    }
    return new Placement(
        nodes, fits, at, elsewhere == null ? Map.of() : Collections.unmodifiableMap(elsewhere));
  }

  /** How many nodes. */
  int size() {
    return nodes.size();
  }

  NodeView node(int i) {
    return nodes.get(i);
  }

  NodeEligibility.Fit fit(int i) {
    return fits[i];
  }

  /** How many of the DaemonSet's pods target the node. */
  int podCount(int i) {
    Object o = pods[i];
    return o == null ? 0 : o instanceof PodView ? 1 : ((List<?>) o).size();
  }

  /** The node's only pod when it has exactly one, else null. */
  PodView onlyPod(int i) {
    return pods[i] instanceof PodView pod ? pod : null;
  }

  /** The node's oldest pod (the one upstream counts), or null. */
  @SuppressWarnings("unchecked")
  PodView firstPod(int i) {
    Object o = pods[i];
    return o == null ? null : o instanceof PodView pod ? pod : ((List<PodView>) o).get(0);
  }

  /** The node's pods, oldest first. */
  @SuppressWarnings("unchecked")
  List<PodView> pods(int i) {
    Object o = pods[i];
    return o == null
        ? List.of()
        : o instanceof PodView pod ? List.of(pod) : Collections.unmodifiableList((List<PodView>) o);
  }

  /** The pods whose target node the input lacks, by that node's name, each list oldest first. */
  Map<String, List<PodView>> elsewhere() {
    return elsewhere;
  }
}
