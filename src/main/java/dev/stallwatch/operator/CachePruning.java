package dev.stallwatch.operator;

import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Shrinks objects before they enter the informer caches: keeps what the analyzer and the node
 * filter read, drops the rest (managedFields, last-applied annotations, env, volumes, probes, node
 * images and heartbeats). A large cluster caches one pod per node per DaemonSet, so bytes per
 * cached pod matter.
 */
public final class CachePruning {
  static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

  private CachePruning() {}

  /** A pod as the analyzer reads it: identity, placement, container images, status. */
  public static Pod pod(Pod pod) {
    PodSpec spec = pod.getSpec();
    PodSpec kept = null;
    if (spec != null) {
      kept =
          new PodSpecBuilder()
              .withNodeName(spec.getNodeName())
              .withAffinity(spec.getAffinity())
              .withInitContainers(containers(spec.getInitContainers()))
              .withContainers(containers(spec.getContainers()))
              .build();
    }
    return new PodBuilder()
        .withApiVersion(pod.getApiVersion())
        .withKind(pod.getKind())
        .withMetadata(meta(pod, false))
        .withSpec(kept)
        .withStatus(pod.getStatus())
        .build();
  }

  /**
   * A node as the analyzer and {@link NodeChange} read it; the Ready condition without heartbeat.
   */
  public static Node node(Node node) {
    NodeBuilder kept =
        new NodeBuilder()
            .withApiVersion(node.getApiVersion())
            .withKind(node.getKind())
            .withMetadata(meta(node, false))
            .withSpec(node.getSpec());
    if (node.getStatus() != null) {
      List<NodeCondition> ready =
          node.getStatus().getConditions() == null
              ? List.of()
              : node.getStatus().getConditions().stream()
                  .filter(c -> c != null && "Ready".equals(c.getType()))
                  .map(
                      c ->
                          new io.fabric8.kubernetes.api.model.NodeConditionBuilder(c)
                              .withLastHeartbeatTime(null)
                              .build())
                  .toList();
      kept.withNewStatus()
          .withConditions(ready)
          .withAllocatable(node.getStatus().getAllocatable())
          .endStatus();
    }
    return kept.build();
  }

  /** A ControllerRevision; one not owned by a DaemonSet keeps only its metadata. */
  public static ControllerRevision revision(ControllerRevision revision) {
    boolean ownedByDaemonSet =
        revision.getMetadata() != null
            && revision.getMetadata().getOwnerReferences() != null
            && revision.getMetadata().getOwnerReferences().stream()
                .anyMatch(o -> "DaemonSet".equals(o.getKind()));
    return new ControllerRevisionBuilder()
        .withApiVersion(revision.getApiVersion())
        .withKind(revision.getKind())
        .withMetadata(meta(revision, true))
        .withRevision(revision.getRevision())
        .withData(ownedByDaemonSet ? revision.getData() : null)
        .build();
  }

  /**
   * A DaemonSet without managedFields, and of its annotations only those the operator reads: the
   * template generation and ours ({@value MetadataKeys#STALLWATCH_PREFIX}…: node exclusion,
   * auto-rollback opt-in and record). Its spec is read whole. Other annotations can be large (up to
   * the API server's 256 KiB) and would be cached for every DaemonSet; the rollback reads the
   * DaemonSet afresh before it writes, so nothing is written back from this copy.
   */
  public static DaemonSet daemonSet(DaemonSet ds) {
    ObjectMeta meta = meta(ds, true);
    if (meta != null && meta.getAnnotations() != null) {
      meta.setAnnotations(
          meta.getAnnotations().entrySet().stream()
              .filter(e -> read(e.getKey()))
              .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
    }
    return new DaemonSetBuilder(ds).withMetadata(meta).build();
  }

  private static boolean read(String annotation) {
    return annotation.startsWith(MetadataKeys.STALLWATCH_PREFIX)
        || MetadataKeys.TEMPLATE_GENERATION_ANNOTATION.equals(annotation);
  }

  private static ObjectMeta meta(HasMetadata obj, boolean keepAnnotations) {
    ObjectMeta m = obj.getMetadata();
    if (m == null) {
      return null;
    }
    Map<String, String> annotations = null;
    if (keepAnnotations && m.getAnnotations() != null) {
      annotations =
          m.getAnnotations().entrySet().stream()
              .filter(e -> !LAST_APPLIED.equals(e.getKey()))
              .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }
    return new ObjectMetaBuilder()
        .withName(m.getName())
        .withNamespace(m.getNamespace())
        .withUid(m.getUid())
        .withResourceVersion(m.getResourceVersion())
        .withGeneration(m.getGeneration())
        .withCreationTimestamp(m.getCreationTimestamp())
        .withDeletionTimestamp(m.getDeletionTimestamp())
        .withLabels(m.getLabels())
        .withAnnotations(annotations)
        .withOwnerReferences(m.getOwnerReferences())
        .build();
  }

  private static List<Container> containers(List<Container> containers) {
    if (containers == null) {
      return null;
    }
    return containers.stream()
        .map(c -> new ContainerBuilder().withName(c.getName()).withImage(c.getImage()).build())
        .toList();
  }
}
