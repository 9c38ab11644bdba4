package dev.stallwatch.operator;

import dev.stallwatch.kube.InvalidObjectException;
import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.operator.crd.RolloutStall;
import dev.stallwatch.rollout.NodeEligibility;
import dev.stallwatch.rollout.NodeView;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.Mappers;
import io.javaoperatorsdk.operator.processing.event.source.informer.TransformingItemStore;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The secondary sources of the DaemonSet reconciler: DaemonSet pods (by the label {@value
 * #POD_SELECTOR}, so no other pod is cached), ControllerRevisions, nodes and our RolloutStalls.
 * Every cache stores pruned objects ({@link CachePruning}). A node reaches only the DaemonSets it
 * can affect, and only when something the analyzer reads changed ({@link NodeChange}).
 */
final class RolloutEventSources {
  /** Only DaemonSet pods carry this label (StatefulSet and ReplicaSet pods do not). */
  static final String POD_SELECTOR = "pod-template-generation";

  static final String PODS = "pods";
  static final String REVISIONS = "revisions";
  static final String NODES = "nodes";
  static final String STALLS = "stalls";
  private static final String BY_NODE = "byNode";

  private RolloutEventSources() {}

  static List<EventSource<?, DaemonSet>> create(EventSourceContext<DaemonSet> context) {
    InformerEventSource<Pod, DaemonSet> pods =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(Pod.class, DaemonSet.class)
                .withName(PODS)
                .withNamespacesInheritedFromController()
                .withLabelSelector(POD_SELECTOR)
                .withSecondaryToPrimaryMapper(Mappers.fromOwnerReferences(DaemonSet.class))
                .withItemStore(new TransformingItemStore<>(CachePruning::pod))
                .build(),
            context);
    pods.addIndexers(
        Map.of(
            BY_NODE,
            pod ->
                pod.getSpec() == null || pod.getSpec().getNodeName() == null
                    ? List.of()
                    : List.of(pod.getSpec().getNodeName())));

    InformerEventSource<ControllerRevision, DaemonSet> revisions =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(ControllerRevision.class, DaemonSet.class)
                .withName(REVISIONS)
                .withNamespacesInheritedFromController()
                .withSecondaryToPrimaryMapper(Mappers.fromOwnerReferences(DaemonSet.class))
                .withItemStore(new TransformingItemStore<>(CachePruning::revision))
                .build(),
            context);

    InformerEventSource<Node, DaemonSet> nodes =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(Node.class, DaemonSet.class)
                .withName(NODES)
                .withWatchAllNamespaces()
                .withSecondaryToPrimaryMapper(node -> affected(node, context, pods))
                // The reconciler lists every node itself: no per-primary index to maintain.
                .withPrimaryToSecondaryMapper(ds -> Set.of())
                .withOnUpdateFilter((after, before) -> NodeChange.matters(before, after))
                .withItemStore(new TransformingItemStore<>(CachePruning::node))
                .build(),
            context);

    InformerEventSource<RolloutStall, DaemonSet> stalls =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(RolloutStall.class, DaemonSet.class)
                .withName(STALLS)
                .withNamespacesInheritedFromController()
                .withSecondaryToPrimaryMapper(Mappers.fromOwnerReferences(DaemonSet.class))
                .build(),
            context);
    return List.of(pods, revisions, nodes, stalls);
  }

  /**
   * The DaemonSets a node change can affect: those with a pod on the node, and those whose template
   * would run there now (an eligibility change either adds or removes such a pod).
   */
  static Set<ResourceID> affected(
      Node node, EventSourceContext<DaemonSet> context, InformerEventSource<Pod, DaemonSet> pods) {
    Set<ResourceID> result = new HashSet<>();
    String name = node.getMetadata().getName();
    for (Pod pod : pods.byIndex(BY_NODE, name)) {
      if (pod.getMetadata().getOwnerReferences() == null) {
        continue;
      }
      pod.getMetadata().getOwnerReferences().stream()
          .filter(o -> "DaemonSet".equals(o.getKind()))
          .forEach(o -> result.add(new ResourceID(o.getName(), pod.getMetadata().getNamespace())));
    }
    NodeView view;
    try {
      view = KubeViews.node(node);
    } catch (InvalidObjectException e) {
      return result;
    }
    context
        .getPrimaryCache()
        .list()
        .forEach(
            ds -> {
              try {
                if (NodeEligibility.evaluate(view, KubeViews.daemonSet(ds).template())
                    .shouldRun()) {
                  result.add(ResourceID.fromResource(ds));
                }
              } catch (InvalidObjectException e) {
                // A malformed DaemonSet is reported by its own reconcile.
              }
            });
    return result;
  }
}
