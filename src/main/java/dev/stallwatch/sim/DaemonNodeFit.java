package dev.stallwatch.sim;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The simulator's own reading of upstream's {@code NodeShouldRunDaemonPod} (pkg/controller/daemon),
 * on the fabric8 objects: written from upstream's behaviour, not shared with the analyzer's {@code
 * NodeEligibility}, so that comparing the simulator's status with the analyzer's recount checks
 * both. Node name, nodeSelector and required node affinity must fit; NoSchedule and NoExecute
 * taints must be tolerated by the template's tolerations plus those the controller adds to every
 * daemon pod. A pod already on a node may continue to run unless a NoExecute taint is not
 * tolerated.
 */
final class DaemonNodeFit {
  private DaemonNodeFit() {}

  /** Whether a daemon pod should run on the node, and whether one there may continue to run. */
  record Fit(boolean shouldRun, boolean shouldContinueRunning) {}

  private static final Fit NO = new Fit(false, false);
  private static final Fit YES = new Fit(true, true);

  /** Upstream {@code AddOrUpdateDaemonPodTolerations}: what every daemon pod tolerates. */
  private static final List<Toleration> DAEMON_TOLERATIONS =
      List.of(
          exists("node.kubernetes.io/not-ready", "NoExecute"),
          exists("node.kubernetes.io/unreachable", "NoExecute"),
          exists("node.kubernetes.io/disk-pressure", "NoSchedule"),
          exists("node.kubernetes.io/memory-pressure", "NoSchedule"),
          exists("node.kubernetes.io/pid-pressure", "NoSchedule"),
          exists("node.kubernetes.io/unschedulable", "NoSchedule"));

  private static final Toleration HOST_NETWORK_TOLERATION =
      exists("node.kubernetes.io/network-unavailable", "NoSchedule");

  private static Toleration exists(String key, String effect) {
    Toleration t = new Toleration();
    t.setKey(key);
    t.setOperator("Exists");
    t.setEffect(effect);
    return t;
  }

  /** The daemon pod of a template with {@code spec} on {@code node}. */
  static Fit of(Node node, PodSpec spec) {
    String nodeName = node.getMetadata().getName();
    String wanted = spec.getNodeName();
    if (wanted != null && !wanted.isEmpty() && !wanted.equals(nodeName)) {
      return NO;
    }
    if (!placementFits(node, spec)) {
      return NO;
    }
    List<Toleration> tolerations = new ArrayList<>();
    if (spec.getTolerations() != null) {
      spec.getTolerations().stream().filter(Objects::nonNull).forEach(tolerations::add);
    }
    tolerations.addAll(DAEMON_TOLERATIONS);
    if (Boolean.TRUE.equals(spec.getHostNetwork())) {
      tolerations.add(HOST_NETWORK_TOLERATION);
    }
    List<Taint> taints = taints(node);
    if (untolerated(taints, tolerations, Set.of("NoSchedule", "NoExecute")) == null) {
      return YES;
    }
    return new Fit(false, untolerated(taints, tolerations, Set.of("NoExecute")) == null);
  }

  /**
   * The scheduler's NodeAffinity filter: {@code spec.nodeSelector} and the required node affinity
   * both match (upstream {@code GetRequiredNodeAffinity(pod).Match(node)}).
   */
  static boolean placementFits(Node node, PodSpec spec) {
    Map<String, String> labels = labels(node);
    if (spec.getNodeSelector() != null) {
      for (var e : spec.getNodeSelector().entrySet()) {
        if (!Objects.equals(e.getValue(), labels.get(e.getKey()))) {
          return false;
        }
      }
    }
    var affinity = spec.getAffinity();
    if (affinity == null
        || affinity.getNodeAffinity() == null
        || affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
      return true;
    }
    List<NodeSelectorTerm> terms =
        affinity
            .getNodeAffinity()
            .getRequiredDuringSchedulingIgnoredDuringExecution()
            .getNodeSelectorTerms();
    if (terms == null) {
      return false;
    }
    // Terms are ORed; within a term everything is ANDed; a term with nothing in it matches nothing.
    for (NodeSelectorTerm term : terms) {
      if (term != null && termMatches(node, labels, term)) {
        return true;
      }
    }
    return false;
  }

  private static boolean termMatches(Node node, Map<String, String> labels, NodeSelectorTerm t) {
    List<NodeSelectorRequirement> expressions = orEmpty(t.getMatchExpressions());
    List<NodeSelectorRequirement> fields = orEmpty(t.getMatchFields());
    if (expressions.isEmpty() && fields.isEmpty()) {
      return false;
    }
    for (NodeSelectorRequirement r : expressions) {
      if (!labelMatches(labels.get(r.getKey()), r)) {
        return false;
      }
    }
    for (NodeSelectorRequirement r : fields) {
      // metadata.name with In / NotIn and exactly one value is the only valid node field selector.
      List<String> values = orEmpty(r.getValues());
      if (!"metadata.name".equals(r.getKey()) || values.size() != 1) {
        return false;
      }
      boolean same = values.get(0).equals(node.getMetadata().getName());
      boolean ok =
          switch (String.valueOf(r.getOperator())) {
            case "In" -> same;
            case "NotIn" -> !same;
            default -> false;
          };
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  private static boolean labelMatches(String value, NodeSelectorRequirement r) {
    List<String> values = orEmpty(r.getValues());
    return switch (String.valueOf(r.getOperator())) {
      case "In" -> value != null && values.contains(value);
      case "NotIn" -> value == null || !values.contains(value);
      case "Exists" -> value != null;
      case "DoesNotExist" -> value == null;
      case "Gt", "Lt" -> {
        if (value == null || values.size() != 1) {
          yield false;
        }
        try {
          long have = Long.parseLong(value);
          long bound = Long.parseLong(values.get(0));
          yield "Gt".equals(r.getOperator()) ? have > bound : have < bound;
        } catch (NumberFormatException e) {
          yield false;
        }
      }
      default -> false;
    };
  }

  /** The first taint with one of {@code effects} none of {@code tolerations} tolerates, or null. */
  static Taint untolerated(List<Taint> taints, List<Toleration> tolerations, Set<String> effects) {
    for (Taint taint : taints) {
      if (!effects.contains(taint.getEffect())) {
        continue;
      }
      if (tolerations.stream().noneMatch(t -> tolerates(t, taint))) {
        return taint;
      }
    }
    return null;
  }

  /** Upstream {@code Toleration.ToleratesTaint}; an empty operator means Equal. */
  private static boolean tolerates(Toleration t, Taint taint) {
    if (!isEmpty(t.getEffect()) && !t.getEffect().equals(taint.getEffect())) {
      return false;
    }
    if (!isEmpty(t.getKey()) && !t.getKey().equals(taint.getKey())) {
      return false;
    }
    String operator = isEmpty(t.getOperator()) ? "Equal" : t.getOperator();
    return switch (operator) {
      case "Exists" -> true;
      case "Equal" -> Objects.equals(nullToEmpty(t.getValue()), nullToEmpty(taint.getValue()));
      default -> false;
    };
  }

  static List<Taint> taints(Node node) {
    return node.getSpec() == null || node.getSpec().getTaints() == null
        ? List.of()
        : node.getSpec().getTaints().stream().filter(Objects::nonNull).toList();
  }

  private static Map<String, String> labels(Node node) {
    return node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
  }

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }

  private static boolean isEmpty(String s) {
    return s == null || s.isEmpty();
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
