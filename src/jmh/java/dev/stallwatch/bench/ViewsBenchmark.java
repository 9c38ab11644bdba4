package dev.stallwatch.bench;

import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.operator.cache.CachePruning;
import dev.stallwatch.rollout.NodeView;
import dev.stallwatch.rollout.PodView;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Building the analyzer's views from the objects the informer caches hold (already pruned): every
 * node of the cluster and every pod of one DaemonSet, converted from scratch.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx1g"})
public class ViewsBenchmark {
  @Param({"500", "5000"})
  int nodes;

  List<Node> cachedNodes;
  List<Pod> cachedPods;

  @Setup
  public void setUp() {
    RolloutFixture f = new RolloutFixture(nodes, RolloutFixture.State.MID_ROLLOUT);
    cachedNodes = f.nodes.stream().map(CachePruning::node).toList();
    cachedPods = f.pods.stream().map(CachePruning::pod).toList();
  }

  @Benchmark
  public List<NodeView> nodeViews() {
    return cachedNodes.stream().map(KubeViews::node).toList();
  }

  @Benchmark
  public List<PodView> podViews() {
    return cachedPods.stream().map(KubeViews::pod).toList();
  }
}
