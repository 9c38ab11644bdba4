package dev.stallwatch.rollout;

import dev.stallwatch.rollout.PodTemplateView.NodeSelectorTerm;
import dev.stallwatch.rollout.PodTemplateView.Requirement;
import dev.stallwatch.rollout.PodTemplateView.Toleration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Decides whether a DaemonSet's pod template should run on a node — upstream's {@code
 * NodeShouldRunDaemonPod}: node name, nodeSelector and required node affinity must fit, and
 * NoSchedule / NoExecute taints must be tolerated, counting the tolerations every DaemonSet pod
 * gets by default.
 */
public final class NodeEligibility {

  /** Tolerations the DaemonSet controller adds to every daemon pod. */
  static final List<Toleration> DEFAULT_TOLERATIONS =
      List.of(
          new Toleration("node.kubernetes.io/not-ready", "Exists", "", "NoExecute", null),
          new Toleration("node.kubernetes.io/unreachable", "Exists", "", "NoExecute", null),
          new Toleration("node.kubernetes.io/disk-pressure", "Exists", "", "NoSchedule", null),
          new Toleration("node.kubernetes.io/memory-pressure", "Exists", "", "NoSchedule", null),
          new Toleration("node.kubernetes.io/pid-pressure", "Exists", "", "NoSchedule", null),
          new Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule", null));

  /** Added as well when the pod uses the host network. */
  static final Toleration NETWORK_UNAVAILABLE =
      new Toleration("node.kubernetes.io/network-unavailable", "Exists", "", "NoSchedule", null);

  private NodeEligibility() {}

  /**
   * The verdict for one node: {@code shouldRun} (the node counts in DESIRED and gets a pod) and
   * {@code shouldContinueRunning} (a pod already there may stay), plus what failed.
   */
  public record Fit(
      boolean shouldRun, boolean shouldContinueRunning, Mismatch mismatch, String reason) {
    static final Fit RUN = new Fit(true, true, null, "");
  }

  /** What keeps a template off a node, as a CamelCase reason for reports. */
  public enum Mismatch {
    NodeNameMismatch,
    NodeSelectorMismatch,
    NodeAffinityMismatch,
    TaintNotTolerated
  }

  /** Upstream {@code NodeShouldRunDaemonPod} for {@code template} on {@code node}. */
  public static Fit evaluate(NodeView node, PodTemplateView template) {
    if (!template.nodeName().isEmpty() && !template.nodeName().equals(node.name())) {
      return new Fit(
          false, false, Mismatch.NodeNameMismatch, "spec.nodeName is " + template.nodeName());
    }
    Optional<String> selectorMiss = nodeSelectorMiss(node, template.nodeSelector());
    if (selectorMiss.isPresent()) {
      return new Fit(false, false, Mismatch.NodeSelectorMismatch, selectorMiss.get());
    }
    if (!matchesRequiredAffinity(node, template.requiredNodeAffinity())) {
      return new Fit(
          false, false, Mismatch.NodeAffinityMismatch, "required node affinity does not match");
    }
    if (node.taints().isEmpty()) {
      return Fit.RUN;
    }
    List<Toleration> tolerations = effectiveTolerations(template);
    Optional<NodeView.Taint> untolerated =
        firstUntolerated(node.taints(), tolerations, "NoSchedule", "NoExecute");
    if (untolerated.isPresent()) {
      boolean noExecute = firstUntolerated(node.taints(), tolerations, "NoExecute").isPresent();
      return new Fit(
          false,
          !noExecute,
          Mismatch.TaintNotTolerated,
          "taint " + untolerated.get() + " is not tolerated");
    }
    return Fit.RUN;
  }

  /** Shorthand for {@code evaluate(node, template).shouldRun()}. */
  public static boolean shouldRun(NodeView node, PodTemplateView template) {
    return evaluate(node, template).shouldRun();
  }

  /** The template's tolerations plus the ones the controller adds to every daemon pod. */
  static List<Toleration> effectiveTolerations(PodTemplateView template) {
    List<Toleration> all = new ArrayList<>(template.tolerations());
    all.addAll(DEFAULT_TOLERATIONS);
    if (template.hostNetwork()) {
      all.add(NETWORK_UNAVAILABLE);
    }
    return all;
  }

  static Optional<String> nodeSelectorMiss(NodeView node, Map<String, String> selector) {
    for (Map.Entry<String, String> e : selector.entrySet()) {
      String actual = node.labels().get(e.getKey());
      if (!e.getValue().equals(actual)) {
        return Optional.of(
            "nodeSelector "
                + e.getKey()
                + "="
                + e.getValue()
                + (actual == null ? " (label absent)" : " (node has " + actual + ")"));
      }
    }
    return Optional.empty();
  }

  /** Terms are ORed; a null list means no required affinity; an empty list matches nothing. */
  static boolean matchesRequiredAffinity(NodeView node, List<NodeSelectorTerm> terms) {
    if (terms == null) {
      return true;
    }
    for (NodeSelectorTerm term : terms) {
      if (matchesTerm(node, term)) {
        return true;
      }
    }
    return false;
  }

  /** An empty term (no expressions, no fields) matches no node, as upstream. */
  static boolean matchesTerm(NodeView node, NodeSelectorTerm term) {
    if (term.matchExpressions().isEmpty() && term.matchFields().isEmpty()) {
      return false;
    }
    for (Requirement r : term.matchExpressions()) {
      if (!matchesLabelRequirement(node.labels(), r)) {
        return false;
      }
    }
    for (Requirement r : term.matchFields()) {
      if (!matchesFieldRequirement(node, r)) {
        return false;
      }
    }
    return true;
  }

  static boolean matchesLabelRequirement(Map<String, String> labels, Requirement r) {
    String actual = labels.get(r.key());
    switch (r.operator()) {
      case "In":
        return actual != null && r.values().contains(actual);
      case "NotIn":
        return actual == null || !r.values().contains(actual);
      case "Exists":
        return actual != null;
      case "DoesNotExist":
        return actual == null;
      case "Gt":
      case "Lt":
        return compareNumeric(actual, r);
      default:
        // An unknown operator is a parse error upstream; the selector then matches nothing.
        return false;
    }
  }

  private static boolean compareNumeric(String actual, Requirement r) {
    if (actual == null || r.values().size() != 1) {
      return false;
    }
    try {
      long have = Long.parseLong(actual.trim());
      long want = Long.parseLong(r.values().get(0).trim());
      return "Gt".equals(r.operator()) ? have > want : have < want;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** Only {@code metadata.name} with In / NotIn is a valid node field selector upstream. */
  static boolean matchesFieldRequirement(NodeView node, Requirement r) {
    if (!"metadata.name".equals(r.key())) {
      return false;
    }
    switch (r.operator()) {
      case "In":
        return r.values().size() == 1 && r.values().contains(node.name());
      case "NotIn":
        return r.values().size() == 1 && !r.values().contains(node.name());
      default:
        return false;
    }
  }

  /** The first taint with one of {@code effects} that no toleration tolerates. */
  static Optional<NodeView.Taint> firstUntolerated(
      List<NodeView.Taint> taints, List<Toleration> tolerations, String... effects) {
    for (NodeView.Taint taint : taints) {
      if (!List.of(effects).contains(taint.effect())) {
        continue;
      }
      boolean tolerated = tolerations.stream().anyMatch(t -> tolerates(t, taint));
      if (!tolerated) {
        return Optional.of(taint);
      }
    }
    return Optional.empty();
  }

  /** Upstream {@code Toleration.ToleratesTaint}. */
  static boolean tolerates(Toleration t, NodeView.Taint taint) {
    if (!t.effect().isEmpty() && !t.effect().equals(taint.effect())) {
      return false;
    }
    if (!t.key().isEmpty() && !t.key().equals(taint.key())) {
      return false;
    }
    switch (t.operator()) {
      case "Exists":
        return true;
      case "Equal":
        return t.value().equals(taint.value());
      default:
        return false;
    }
  }
}
