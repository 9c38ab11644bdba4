package dev.stallwatch.operator.cache;

import dev.stallwatch.kube.AdvancedDaemonSet;
import dev.stallwatch.rollout.AdvancedStrategy;
import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.rollout.PodView;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.QuantityBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
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

  /**
   * A pod as the operator reads it: identity, owners, labels, placement, container images, and of
   * its status what {@code KubeViews.pod} reads (phase, reason, message, the conditions it reads,
   * and each container's name, image, readiness, restarts and current state). Addresses, QoS class,
   * start times, image and container IDs and the last state are dropped; the node affinity is kept
   * only while the pod is not bound, since it is read only to tell which node an unbound pod is
   * for. Strings that repeat across pods are canonical ({@link #canonical}).
   */
  public static Pod pod(Pod pod) {
    PodSpec spec = pod.getSpec();
    PodSpec kept = null;
    if (spec != null) {
      boolean bound = spec.getNodeName() != null && !spec.getNodeName().isEmpty();
      // Built, not constructed: a builder leaves the lists and maps it was not given null, where
      // a model's constructor makes an empty one of each (a few hundred bytes per pod).
      kept =
          new PodSpecBuilder()
              .withNodeName(canonical(spec.getNodeName()))
              .withAffinity(bound ? null : spec.getAffinity())
              .withInitContainers(containers(spec.getInitContainers()))
              .withContainers(containers(spec.getContainers()))
              .build();
    }
    return new PodBuilder()
        .withApiVersion(canonical(pod.getApiVersion()))
        .withKind(canonical(pod.getKind()))
        .withMetadata(meta(pod, false))
        .withSpec(kept)
        .withStatus(status(pod.getStatus()))
        .build();
  }

  private static PodStatus status(PodStatus s) {
    if (s == null) {
      return null;
    }
    return new PodStatusBuilder()
        .withPhase(canonical(s.getPhase()))
        .withReason(canonical(s.getReason()))
        .withMessage(canonical(s.getMessage()))
        .withConditions(
            each(
                s.getConditions(),
                c -> PodView.readsCondition(c.getType()),
                CachePruning::condition))
        .withInitContainerStatuses(each(s.getInitContainerStatuses(), CachePruning::container))
        .withContainerStatuses(each(s.getContainerStatuses(), CachePruning::container))
        .build();
  }

  private static PodCondition condition(PodCondition c) {
    return new PodConditionBuilder()
        .withType(canonical(c.getType()))
        .withStatus(canonical(c.getStatus()))
        .withReason(canonical(c.getReason()))
        .withMessage(canonical(c.getMessage()))
        .withLastTransitionTime(canonical(c.getLastTransitionTime()))
        .build();
  }

  private static ContainerStatus container(ContainerStatus c) {
    return new ContainerStatusBuilder()
        .withName(canonical(c.getName()))
        .withImage(canonical(c.getImage()))
        .withReady(c.getReady())
        .withRestartCount(c.getRestartCount())
        .withState(state(c.getState()))
        .build();
  }

  private static ContainerState state(ContainerState s) {
    if (s == null) {
      return null;
    }
    ContainerStateBuilder kept = new ContainerStateBuilder();
    if (s.getWaiting() != null) {
      kept.withNewWaiting()
          .withReason(canonical(s.getWaiting().getReason()))
          .withMessage(canonical(s.getWaiting().getMessage()))
          .endWaiting();
    }
    if (s.getRunning() != null) {
      kept.withNewRunning().endRunning(); // only whether it runs is read, not since when
    }
    ContainerStateTerminated t = s.getTerminated();
    if (t != null) {
      kept.withNewTerminated()
          .withReason(canonical(t.getReason()))
          .withMessage(canonical(t.getMessage()))
          .withExitCode(t.getExitCode())
          .withSignal(t.getSignal())
          .endTerminated();
    }
    return kept.build();
  }

  /**
   * A node as the analyzer and {@link NodeChange} read it: metadata, taints, unschedulable, the
   * Ready and maintenance conditions without heartbeat, allocatable. Label keys and values, names
   * and condition strings are canonical ({@link #canonical}): 5,000 nodes repeat most of them.
   */
  public static Node node(Node node) {
    NodeBuilder kept =
        new NodeBuilder()
            .withApiVersion(canonical(node.getApiVersion()))
            .withKind(canonical(node.getKind()))
            .withMetadata(meta(node, false));
    if (node.getSpec() != null) {
      kept.withNewSpec()
          .withUnschedulable(node.getSpec().getUnschedulable())
          .withTaints(each(node.getSpec().getTaints(), CachePruning::taint))
          .endSpec();
    }
    if (node.getStatus() != null) {
      List<NodeCondition> ready =
          node.getStatus().getConditions() == null
              ? List.of()
              : node.getStatus().getConditions().stream()
                  .filter(c -> c != null && NodeChange.READ_CONDITIONS.test(c.getType()))
                  .map(
                      c ->
                          new NodeConditionBuilder()
                              .withType(canonical(c.getType()))
                              .withStatus(canonical(c.getStatus()))
                              .withReason(canonical(c.getReason()))
                              .withMessage(canonical(c.getMessage()))
                              .withLastTransitionTime(canonical(c.getLastTransitionTime()))
                              .build())
                  .toList();
      Map<String, Quantity> allocatable = node.getStatus().getAllocatable();
      if (allocatable != null) {
        Map<String, Quantity> canonicalAllocatable = new LinkedHashMap<>();
        allocatable.forEach(
            (k, q) ->
                canonicalAllocatable.put(
                    canonical(k),
                    q == null
                        ? null
                        : new QuantityBuilder()
                            .withAmount(canonical(q.getAmount()))
                            .withFormat(canonical(q.getFormat()))
                            .build()));
        allocatable = canonicalAllocatable;
      }
      kept.withNewStatus().withConditions(ready).withAllocatable(allocatable).endStatus();
    }
    Node pruned = kept.build();
    if (pruned.getMetadata() != null) {
      pruned.getMetadata().setLabels(compact(pruned.getMetadata().getLabels()));
    }
    return pruned;
  }

  /**
   * A node's labels in an immutable map (two references per label, where a {@code LinkedHashMap}
   * spends an entry object on each): a node may carry hundreds. Their order is not kept; nothing
   * reads it. A map with a null key or value (JSON {@code null}) stays as it is.
   */
  private static Map<String, String> compact(Map<String, String> labels) {
    if (labels == null) {
      return null;
    }
    for (Map.Entry<String, String> e : labels.entrySet()) {
      if (e.getKey() == null || e.getValue() == null) {
        return labels;
      }
    }
    return Map.copyOf(labels);
  }

  private static Taint taint(Taint t) {
    return new TaintBuilder()
        .withKey(canonical(t.getKey()))
        .withValue(canonical(t.getValue()))
        .withEffect(canonical(t.getEffect()))
        .withTimeAdded(canonical(t.getTimeAdded()))
        .build();
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

  /** An Advanced DaemonSet as the cache keeps it: as {@link #daemonSet}, metadata pruned alike. */
  public static AdvancedDaemonSet advancedDaemonSet(AdvancedDaemonSet ds) {
    DaemonSet pruned = daemonSet(ds.toDaemonSet());
    AdvancedDaemonSet kept = new AdvancedDaemonSet();
    kept.setApiVersion(ds.getApiVersion());
    kept.setMetadata(pruned.getMetadata());
    kept.setSpec(ds.getSpec());
    kept.setStatus(ds.getStatus());
    return kept;
  }

  private static boolean read(String annotation) {
    return annotation.startsWith(MetadataKeys.STALLWATCH_PREFIX)
        || MetadataKeys.TEMPLATE_GENERATION_ANNOTATION.equals(annotation)
        || AdvancedStrategy.PROGRESSIVE_CREATE_ANNOTATION.equals(annotation);
  }

  private static ObjectMeta meta(HasMetadata obj, boolean keepAnnotations) {
    ObjectMeta m = obj.getMetadata();
    if (m == null) {
      return null;
    }
    // Never null: JOSDK reads every event's object's annotations (its own "previous" marker), and
    // the objects a cache hands out after its first list are these pruned copies.
    Map<String, String> annotations = Map.of();
    if (keepAnnotations && m.getAnnotations() != null) {
      annotations =
          m.getAnnotations().entrySet().stream()
              .filter(e -> !LAST_APPLIED.equals(e.getKey()))
              .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }
    Map<String, String> labels = null;
    if (m.getLabels() != null) {
      labels = new LinkedHashMap<>();
      for (Map.Entry<String, String> e : m.getLabels().entrySet()) {
        labels.put(canonical(e.getKey()), canonical(e.getValue()));
      }
    }
    return new ObjectMetaBuilder()
        .withName(canonicalName(obj, m.getName()))
        .withNamespace(canonical(m.getNamespace()))
        .withUid(m.getUid())
        .withResourceVersion(m.getResourceVersion())
        .withGeneration(m.getGeneration())
        .withCreationTimestamp(canonical(m.getCreationTimestamp()))
        .withDeletionTimestamp(canonical(m.getDeletionTimestamp()))
        .withLabels(labels)
        .withAnnotations(annotations)
        .withOwnerReferences(owners(m.getOwnerReferences()))
        .build();
  }

  /** A node's name is repeated by every pod bound to it; other objects' names are their own. */
  private static String canonicalName(HasMetadata obj, String name) {
    return obj instanceof Node ? canonical(name) : name;
  }

  static OwnerReference owner(OwnerReference o) {
    OwnerReference kept =
        new OwnerReferenceBuilder()
            .withApiVersion(canonical(o.getApiVersion()))
            .withKind(canonical(o.getKind()))
            .withName(canonical(o.getName()))
            .withUid(canonical(o.getUid()))
            .withController(o.getController())
            .withBlockOwnerDeletion(o.getBlockOwnerDeletion())
            .build();
    kept.setAdditionalProperties(Map.of()); // shared, where the model makes one map per object
    return kept;
  }

  /**
   * The one copy of a string that repeats across cached objects (namespace, label keys and values,
   * owner, node name, image, condition and state strings, timestamps): objects deserialised from
   * the API server's JSON each carry their own copies, ≈ 3 KB per pod. The JVM's string table holds
   * its entries weakly, so a value no cached object uses any more is collected.
   */
  static String canonical(String s) {
    return s == null ? null : s.intern();
  }

  /** Each item pruned; null items (JSON {@code null}) dropped, as the views skip them. */
  private static <T> List<T> each(List<T> items, UnaryOperator<T> f) {
    return each(items, t -> true, f);
  }

  /** Each item that {@code read} accepts, pruned; null items dropped. */
  private static <T> List<T> each(
      List<T> items, java.util.function.Predicate<T> read, UnaryOperator<T> f) {
    if (items == null) {
      return null;
    }
    List<T> kept = new ArrayList<>(items.size());
    for (T item : items) {
      if (item != null && read.test(item)) {
        kept.add(f.apply(item));
      }
    }
    return kept;
  }

  /**
   * Owner references pruned, a null one kept in its place: which owner is the controller depends on
   * how many there are ({@code KubeViews.controller}).
   */
  private static List<OwnerReference> owners(List<OwnerReference> refs) {
    if (refs == null) {
      return null;
    }
    List<OwnerReference> kept = new ArrayList<>(refs.size());
    for (OwnerReference ref : refs) {
      kept.add(ref == null ? null : owner(ref));
    }
    return kept;
  }

  private static List<Container> containers(List<Container> containers) {
    return each(
        containers,
        c -> {
          return new ContainerBuilder()
              .withName(canonical(c.getName()))
              .withImage(canonical(c.getImage()))
              .build();
        });
  }
}
