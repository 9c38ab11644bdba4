package dev.stallwatch.sim;

import dev.stallwatch.kube.InvalidObjectException;
import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetUpdateStrategy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One DaemonSet as the controller reads it at the start of a sync: the object, every node (by
 * name), and its daemon pods grouped by the node they target (upstream {@code
 * getNodesToDaemonPods}, leaving out pods that are both terminal and being deleted).
 */
final class DaemonSetState {

  final DaemonSet ds;
  final List<Node> nodes;
  final Map<String, Node> nodesByName = new TreeMap<>();
  final Map<String, List<Pod>> podsByNode = new TreeMap<>();
  final Instant now;

  DaemonSetState(DaemonSet ds, List<Node> nodes, List<Pod> namespacePods, Instant now) {
    this.ds = ds;
    this.nodes =
        nodes.stream().sorted(Comparator.comparing(n -> n.getMetadata().getName())).toList();
    this.nodes.forEach(n -> nodesByName.put(n.getMetadata().getName(), n));
    if (ds.getSpec().getTemplate() == null) {
      throw new InvalidObjectException(KubeViews.describe(ds) + ": spec.template: is missing");
    }
    this.now = now;
    for (Pod pod : namespacePods) {
      if (!ownedBy(pod, ds)) {
        continue;
      }
      boolean terminal =
          "Failed".equals(pod.getStatus() == null ? null : pod.getStatus().getPhase())
              || "Succeeded".equals(pod.getStatus() == null ? null : pod.getStatus().getPhase());
      if (terminal && pod.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      podsByNode.computeIfAbsent(PodPlacement.targetNode(pod), k -> new ArrayList<>()).add(pod);
    }
    podsByNode.values().forEach(list -> list.sort(OLDEST_FIRST));
  }

  /** Upstream's {@code podByCreationTimestampAndPhase}. */
  static final Comparator<Pod> OLDEST_FIRST = PodChecks.OLDEST_FIRST;

  static boolean ownedBy(Pod pod, DaemonSet ds) {
    var refs = pod.getMetadata().getOwnerReferences();
    return refs != null
        && refs.stream()
            .anyMatch(
                r ->
                    Boolean.TRUE.equals(r.getController())
                        && Objects.equals(r.getUid(), ds.getMetadata().getUid()));
  }

  String name() {
    return ds.getMetadata().getName();
  }

  String namespace() {
    return ds.getMetadata().getNamespace();
  }

  int minReadySeconds() {
    return ds.getSpec().getMinReadySeconds() == null ? 0 : ds.getSpec().getMinReadySeconds();
  }

  private final Map<String, DaemonNodeFit.Fit> fits = new HashMap<>();

  private PodSpec templateSpec() {
    PodSpec spec = ds.getSpec().getTemplate().getSpec();
    return spec == null ? new PodSpec() : spec;
  }

  DaemonNodeFit.Fit fit(Node node) {
    return fits.computeIfAbsent(
        node.getMetadata().getName(), n -> DaemonNodeFit.of(node, templateSpec()));
  }

  List<Pod> podsOn(String node) {
    return podsByNode.getOrDefault(node, List.of());
  }

  boolean isAvailable(Pod pod) {
    return PodChecks.isAvailable(pod, minReadySeconds(), now);
  }

  boolean isReady(Pod pod) {
    return PodChecks.isReady(pod);
  }

  /** The template generation annotation, or null when absent or unparsable. */
  Long templateGeneration() {
    var annotations = ds.getMetadata().getAnnotations();
    String raw =
        annotations == null ? null : annotations.get(MetadataKeys.TEMPLATE_GENERATION_ANNOTATION);
    if (raw == null) {
      return null;
    }
    try {
      return Long.parseLong(raw.trim());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  boolean isUpdated(Pod pod, String hash) {
    return PodChecks.isUpdated(pod, hash, templateGeneration());
  }

  boolean onDelete() {
    DaemonSetUpdateStrategy s = ds.getSpec().getUpdateStrategy();
    return s != null && "OnDelete".equals(s.getType());
  }
}
