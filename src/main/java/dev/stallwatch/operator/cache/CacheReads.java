package dev.stallwatch.operator.cache;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.kube.Snapshots;
import dev.stallwatch.rollout.RolloutSnapshot;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the operator's caches ({@link RolloutEventSources}) hold of one DaemonSet, read. */
public final class CacheReads {
  private static final Logger log = LoggerFactory.getLogger(CacheReads.class);

  private CacheReads() {}

  /**
   * The DaemonSet's snapshot from its pods, the nodes and its ControllerRevisions in the caches.
   */
  public static RolloutSnapshot snapshot(
      RolloutEventSources.Stores stores, DaemonSet ds, Context<?> context) {
    String ns = ds.getMetadata().getNamespace();
    String name = ds.getMetadata().getName();
    return snapshot(
        stores,
        ds,
        owned(context, Pod.class, RolloutEventSources.PODS, ns, name),
        () -> nodes(context),
        owned(context, ControllerRevision.class, RolloutEventSources.REVISIONS, ns, name));
  }

  /**
   * The snapshot ({@link Snapshots#live}); a malformed DaemonSet throws, a malformed
   * pod/node/revision is left out and logged. Views of cached objects are made once per object
   * version ({@link CachedViews}).
   */
  public static RolloutSnapshot snapshot(
      RolloutEventSources.Stores stores,
      DaemonSet ds,
      Collection<Pod> pods,
      Supplier<Collection<Node>> nodes,
      Collection<ControllerRevision> revisions) {
    Snapshots.Live live =
        Snapshots.live(
            ds,
            pods,
            stores.nodeViews(nodes),
            revisions,
            new Snapshots.Views(stores.pods::view, stores.nodes::view, stores.revisions::view));
    live.errors().forEach(e -> log.warn("left out of the analysis: {}", e));
    return live.snapshot();
  }

  /**
   * The objects of {@code type} that the DaemonSet owns, from their cache's owner index ({@link
   * RolloutEventSources#owners}: complete whenever the cache is).
   */
  @SuppressWarnings("unchecked")
  static <R extends io.fabric8.kubernetes.api.model.HasMetadata> List<R> owned(
      Context<?> context, Class<R> type, String source, String namespace, String name) {
    var cache =
        (InformerEventSource<R, ?>) context.eventSourceRetriever().getEventSourceFor(type, source);
    return cache.byIndex(
        RolloutEventSources.BY_OWNER, RolloutEventSources.ownerKey(namespace, name));
  }

  /**
   * The DaemonSet's RolloutStalls from the stall cache's owner index, each as JOSDK's cache has it:
   * a stall this operator has just written is there in the version it wrote (its temporary cache),
   * while the index may still hold an older one — the bare object of a create whose ADD event came
   * before the status write's, which a reconcile must never take for a stall that starts over (a
   * second RolloutStalled Event).
   */
  public static Set<RolloutStall> stalls(Context<?> context, String ns, String name) {
    InformerEventSource<RolloutStall, ?> cache = stallCache(context);
    Set<RolloutStall> stalls = new java.util.HashSet<>();
    for (RolloutStall s :
        owned(context, RolloutStall.class, RolloutEventSources.STALLS, ns, name)) {
      stalls.add(cache.get(ResourceID.fromResource(s)).orElse(s));
    }
    return Set.copyOf(stalls);
  }

  @SuppressWarnings("unchecked")
  static Collection<Node> nodes(Context<?> context) {
    var source =
        (InformerEventSource<Node, ?>)
            context.eventSourceRetriever().getEventSourceFor(Node.class, RolloutEventSources.NODES);
    return source.list().toList();
  }

  @SuppressWarnings("unchecked")
  public static InformerEventSource<RolloutStall, ?> stallCache(Context<?> context) {
    return (InformerEventSource<RolloutStall, ?>)
        context
            .eventSourceRetriever()
            .getEventSourceFor(RolloutStall.class, RolloutEventSources.STALLS);
  }
}
