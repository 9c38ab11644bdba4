package dev.stallwatch.bench;

import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.operator.CachePruning;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Heap bytes per cached object: a pruned pod / node as the informer stores it, and the view the
 * reconciler now keeps beside it ({@code CachedViews}). Measured as the difference in used heap
 * after full GCs around holding {@code n} of them. Run with a fixed heap for steadier figures:
 *
 * <pre>java -Xms1g -Xmx1g -cp … dev.stallwatch.bench.CacheFootprint [n]</pre>
 */
public final class CacheFootprint {
  private CacheFootprint() {}

  public static void main(String[] args) {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    RolloutFixture f = new RolloutFixture(n, RolloutFixture.State.MID_ROLLOUT);
    List<Object> pods = measure("pruned pod (informer cache)", n, f.pods, CachePruning::pod);
    measure(
        "pod view (kept beside it)",
        n,
        pods,
        p -> KubeViews.pod((io.fabric8.kubernetes.api.model.Pod) p));
    List<Object> nodes = measure("pruned node (informer cache)", n, f.nodes, CachePruning::node);
    measure(
        "node view (kept beside it)",
        n,
        nodes,
        o -> KubeViews.node((io.fabric8.kubernetes.api.model.Node) o));
    // As the informer holds them: deserialised (own strings, nothing shared with the fixture),
    // then pruned; the rows above share the fixture's strings and so count less.
    var serialization = new io.fabric8.kubernetes.client.utils.KubernetesSerialization();
    measure("pruned pod, own strings", n, f.pods, p -> CachePruning.pod(serialization.clone(p)));
    measure("pruned node, own strings", n, f.nodes, o -> CachePruning.node(serialization.clone(o)));
    // Bad input (issue 12): nodes with 200 labels (all kept: node selectors and affinity read
    // them), a DaemonSet with 1 MiB of annotations (only ours and the template generation kept).
    List<io.fabric8.kubernetes.api.model.Node> labelled = new ArrayList<>();
    for (var node : f.nodes) {
      var copy = new io.fabric8.kubernetes.api.model.NodeBuilder(node).build();
      for (int i = 0; i < 200; i++) {
        copy.getMetadata().getLabels().put("example.com/feature-" + i, "value-" + i);
      }
      labelled.add(copy);
    }
    measure(
        "pruned node, 200 labels, own str.",
        n,
        labelled,
        o -> CachePruning.node(serialization.clone(o)));
    var huge =
        new io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder(RolloutFixture.daemonSet(2, n));
    for (int i = 0; i < 16; i++) {
      huge.editMetadata()
          .addToAnnotations("example.com/blob-" + i, "x".repeat(64 * 1024))
          .endMetadata();
    }
    var hugeDs = huge.build();
    int d = Math.min(n, 2_000);
    measure(
        "pruned DaemonSet, 1 MiB annot.",
        d,
        java.util.Collections.nCopies(d, hugeDs),
        o -> CachePruning.daemonSet(serialization.clone(o)));
    measure(
        "full pod (unpruned, fixture)",
        n,
        f.pods,
        p -> new io.fabric8.kubernetes.api.model.PodBuilder(p).build());
  }

  private static <T> List<Object> measure(String what, int n, List<T> from, Function<T, ?> make) {
    long before = usedAfterGc();
    List<Object> kept = new ArrayList<>(n);
    for (T t : from) {
      kept.add(make.apply(t));
    }
    long after = usedAfterGc();
    System.out.printf("%-32s %8d bytes each (n=%d)%n", what, (after - before) / n, n);
    return kept;
  }

  private static long usedAfterGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
