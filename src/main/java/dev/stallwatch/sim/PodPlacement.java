package dev.stallwatch.sim;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a daemon pod belongs: the required node affinity that pins it to one node (upstream {@code
 * ReplaceDaemonSetPodNodeNameNodeAffinity}), the node it targets ({@code GetTargetNodeName}) and
 * the tolerations every daemon pod gets ({@code AddOrUpdateDaemonPodTolerations}).
 */
final class PodPlacement {

  private PodPlacement() {}

  /** Replaces all required node selector terms with one that selects {@code node} by name. */
  static Affinity pinnedTo(Affinity affinity, String node) {
    NodeSelector selector =
        new NodeSelector(
            List.of(
                new NodeSelectorTerm(
                    null,
                    List.of(new NodeSelectorRequirement("metadata.name", "In", List.of(node))))));
    Affinity out = affinity == null ? new Affinity() : affinity;
    if (out.getNodeAffinity() == null) {
      out.setNodeAffinity(new NodeAffinity());
    }
    out.getNodeAffinity().setRequiredDuringSchedulingIgnoredDuringExecution(selector);
    return out;
  }

  /** {@code spec.nodeName}, else the node named by a {@code metadata.name In [x]} field term. */
  static String targetNode(Pod pod) {
    String bound = pod.getSpec().getNodeName();
    if (bound != null && !bound.isEmpty()) {
      return bound;
    }
    var affinity = pod.getSpec().getAffinity();
    if (affinity == null
        || affinity.getNodeAffinity() == null
        || affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
      return "";
    }
    for (NodeSelectorTerm term :
        affinity
            .getNodeAffinity()
            .getRequiredDuringSchedulingIgnoredDuringExecution()
            .getNodeSelectorTerms()) {
      if (term.getMatchFields() == null) {
        continue;
      }
      for (NodeSelectorRequirement r : term.getMatchFields()) {
        if ("metadata.name".equals(r.getKey())
            && "In".equals(r.getOperator())
            && r.getValues() != null
            && r.getValues().size() == 1) {
          return r.getValues().get(0);
        }
      }
    }
    return "";
  }

  /** Adds the default daemon pod tolerations that are not there yet. */
  static List<Toleration> withDaemonTolerations(List<Toleration> own, boolean hostNetwork) {
    List<Toleration> out = new ArrayList<>(own == null ? List.of() : own);
    add(out, "node.kubernetes.io/not-ready", "NoExecute");
    add(out, "node.kubernetes.io/unreachable", "NoExecute");
    add(out, "node.kubernetes.io/disk-pressure", "NoSchedule");
    add(out, "node.kubernetes.io/memory-pressure", "NoSchedule");
    add(out, "node.kubernetes.io/pid-pressure", "NoSchedule");
    add(out, "node.kubernetes.io/unschedulable", "NoSchedule");
    if (hostNetwork) {
      add(out, "node.kubernetes.io/network-unavailable", "NoSchedule");
    }
    return out;
  }

  private static void add(List<Toleration> out, String key, String effect) {
    boolean present =
        out.stream()
            .anyMatch(
                t ->
                    key.equals(t.getKey())
                        && effect.equals(t.getEffect())
                        && "Exists".equals(t.getOperator()));
    if (!present) {
      out.add(new Toleration(effect, key, "Exists", null, null));
    }
  }
}
