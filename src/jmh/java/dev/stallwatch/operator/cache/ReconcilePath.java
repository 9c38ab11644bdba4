package dev.stallwatch.operator.cache;

import dev.stallwatch.bench.RolloutFixture;
import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.kube.Snapshots;
import dev.stallwatch.rollout.AnalyzerSettings;
import dev.stallwatch.rollout.RolloutAnalyzer;
import dev.stallwatch.rollout.RolloutSnapshot;
import dev.stallwatch.rollout.RolloutVerdict;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.List;

/**
 * The CPU path of one reconcile against warm informer caches, without JOSDK's dispatch and without
 * API writes: the DaemonSet's snapshot from the cached (pruned) objects, then the analysis. With
 * {@link #cachedViews} the views come from the reconciler's item stores ({@link CachedViews}) and
 * the node views from the node cache's version ({@code Stores.nodeViews}), as in the reconciler;
 * with {@link #rebuiltViews} every cached object is converted again, as each reconcile did before
 * {@link CachedViews}.
 */
public final class ReconcilePath {
  private final RolloutEventSources.Stores stores = new RolloutEventSources.Stores();
  private final DaemonSet daemonSet;
  private final List<Pod> pods;
  private final List<Node> nodes;
  private final List<ControllerRevision> revisions;

  public ReconcilePath(RolloutFixture f) {
    daemonSet = CachePruning.daemonSet(f.daemonSet);
    pods = fill(stores.pods, f.pods);
    nodes = fill(stores.nodes, f.nodes);
    revisions = fill(stores.revisions, f.revisions);
    cachedViews(); // warm: every view made once, as the first reconcile does
  }

  private static <T extends HasMetadata> List<T> fill(CachedViews<T, ?> store, List<T> objects) {
    objects.forEach(o -> store.put(store.getKey(o), o));
    return store.values().toList();
  }

  /**
   * A reconcile's snapshot and verdict as the reconciler makes them: {@link Snapshots#live} with
   * the views kept in the item stores and the node views kept per node-cache version.
   */
  public RolloutVerdict cachedViews() {
    return analyze(
        Snapshots.live(
                daemonSet,
                pods,
                stores.nodeViews(() -> nodes),
                revisions,
                new Snapshots.Views(stores.pods::view, stores.nodes::view, stores.revisions::view))
            .snapshot());
  }

  /** The same with every view made again from the cached objects (before the view cache). */
  public RolloutVerdict rebuiltViews() {
    return analyze(
        new RolloutSnapshot(
            KubeViews.daemonSet(daemonSet),
            pods.stream().map(KubeViews::pod).toList(),
            nodes.stream().map(KubeViews::node).toList(),
            revisions.stream().map(KubeViews::revision).toList()));
  }

  private static RolloutVerdict analyze(RolloutSnapshot snapshot) {
    return RolloutAnalyzer.analyze(snapshot, RolloutFixture.NOW, AnalyzerSettings.DEFAULTS);
  }
}
