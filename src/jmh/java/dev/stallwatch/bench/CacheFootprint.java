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
