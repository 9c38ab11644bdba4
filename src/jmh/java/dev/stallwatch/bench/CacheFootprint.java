package dev.stallwatch.bench;

import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.operator.cache.CacheHolding;
import dev.stallwatch.operator.cache.CachePruning;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

/**
 * Heap bytes per cached object. The first rows are what the operator holds per DaemonSet pod and
 * per node ({@link CacheHolding}: the informer's cache with the operator's item store and indexes,
 * the pruned object, its view), each object deserialised from its own JSON as the informer gets it
 * (so with its own strings, nothing shared with the fixture but what the pruning shares); the pods
 * carry the status fields a kubelet (or kwok) writes. The rows after split that up and repeat the
 * earlier figures. Measured as the difference in used heap after full GCs around holding {@code n}
 * of them; run with a fixed heap and the serial collector for steadier figures:
 *
 * <pre>java -Xms2g -Xmx2g -XX:+UseSerialGC -cp … dev.stallwatch.bench.CacheFootprint [n]</pre>
 */
public final class CacheFootprint {
  private static final KubernetesSerialization JSON = new KubernetesSerialization();
  // Everything measured stays reachable until the end, so no row frees an earlier one's objects.
  private static final List<Object> KEPT = new ArrayList<>();

  private CacheFootprint() {}

  public static void main(String[] args) {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    RolloutFixture f = new RolloutFixture(n, RolloutFixture.State.MID_ROLLOUT);
    List<Pod> kubeletPods = new ArrayList<>(n);
    for (int i = 0; i < f.pods.size(); i++) {
      kubeletPods.add(asKubeletWritesIt(f.pods.get(i), i));
    }

    KEPT.add(f);
    KEPT.add(kubeletPods);
    long before = usedAfterGc();
    CacheHolding holding = new CacheHolding();
    for (Pod p : kubeletPods) {
      holding.addPod(deserialised(p));
    }
    holding.viewAll();
    report("pod: all the operator holds", n, before);
    before = usedAfterGc();
    for (Node node : f.nodes) {
      holding.addNode(deserialised(node));
    }
    holding.viewAll();
    report("node: all the operator holds", n, before);
    KEPT.add(holding);
    // The scale run's shape: 10 DaemonSets, so every node has 10 pods (the node index's set per
    // node is shared by them): the pods of n / 10 nodes, once per DaemonSet.
    before = usedAfterGc();
    CacheHolding tenDaemonSets = new CacheHolding();
    for (int ds = 0; ds < 10; ds++) {
      for (int i = 0; i < n / 10; i++) {
        tenDaemonSets.addPod(deserialised(ofDaemonSet(kubeletPods.get(i), ds)));
      }
    }
    tenDaemonSets.viewAll();
    report("pod: the same, 10 DS per node", n / 10 * 10, before);
    KEPT.add(tenDaemonSets);

    measure(
        "cached pod with its view, own str.",
        n,
        kubeletPods,
        p -> CacheHolding.cachedPod(deserialised(p)));
    measure("pruned pod, own strings", n, kubeletPods, p -> CachePruning.pod(deserialised(p)));
    List<Object> pruned =
        measure("pruned pod, shared strings", n, kubeletPods, p -> CachePruning.pod(p));
    measure("its view", n, pruned, p -> KubeViews.pod((Pod) p));
    measure("pruned node, own strings", n, f.nodes, o -> CachePruning.node(deserialised(o)));
    List<Object> nodes = measure("pruned node, shared strings", n, f.nodes, CachePruning::node);
    measure("its view", n, nodes, o -> KubeViews.node((Node) o));
    // Bad input (issue 12): nodes with 200 labels (all kept: node selectors and affinity read
    // them), a DaemonSet with 1 MiB of annotations (only ours and the template generation kept).
    List<Node> labelled = new ArrayList<>();
    for (Node node : f.nodes) {
      Node copy = new NodeBuilder(node).build();
      for (int i = 0; i < 200; i++) {
        copy.getMetadata().getLabels().put("example.com/feature-" + i, "value-" + i);
      }
      labelled.add(copy);
    }
    measure(
        "pruned node, 200 labels, own str.", n, labelled, o -> CachePruning.node(deserialised(o)));
    KEPT.add(labelled);
    DaemonSetBuilder huge = new DaemonSetBuilder(RolloutFixture.daemonSet(2, n));
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
        Collections.nCopies(d, hugeDs),
        o -> CachePruning.daemonSet(deserialised(o)));
    measure("pod as deserialised, unpruned", n, kubeletPods, CacheFootprint::deserialised);
  }

  /**
   * The fixture's pod with what a kubelet (or kwok) also writes into the status and the API server
   * into the metadata: its own pod and host addresses, QoS class, start flags, managed fields.
   */
  static Pod asKubeletWritesIt(Pod pod, int i) {
    String podIp = "10.244." + (i / 250) + "." + (i % 250 + 1);
    String hostIp = "10.0." + (i / 250) + "." + (i % 250 + 1);
    return new PodBuilder(pod)
        .editMetadata()
        .addNewManagedField()
        .withManager("kube-controller-manager")
        .withOperation("Update")
        .withApiVersion("v1")
        .withTime(pod.getMetadata().getCreationTimestamp())
        .withFieldsType("FieldsV1")
        .endManagedField()
        .endMetadata()
        .editStatus()
        .withPodIP(podIp)
        .addNewPodIP(podIp)
        .withHostIP(hostIp)
        .addNewHostIP(hostIp)
        .withQosClass("BestEffort")
        .endStatus()
        .build();
  }

  /** The pod as DaemonSet {@code ds} of ten would have it: its own name, uid and owner. */
  static Pod ofDaemonSet(Pod pod, int ds) {
    String suffix = "-" + ds;
    return new PodBuilder(pod)
        .editMetadata()
        .withName(pod.getMetadata().getName() + suffix)
        .withUid(pod.getMetadata().getUid() + suffix)
        .editFirstOwnerReference()
        .withName(pod.getMetadata().getOwnerReferences().get(0).getName() + suffix)
        .withUid(pod.getMetadata().getOwnerReferences().get(0).getUid() + suffix)
        .endOwnerReference()
        .endMetadata()
        .build();
  }

  @SuppressWarnings("unchecked")
  private static <T> T deserialised(T object) {
    return (T) JSON.unmarshal(JSON.asJson(object), object.getClass());
  }

  private static <T> List<Object> measure(String what, int n, List<T> from, Function<T, ?> make) {
    long before = usedAfterGc();
    List<Object> kept = new ArrayList<>(n);
    for (T t : from) {
      kept.add(make.apply(t));
    }
    KEPT.add(kept);
    report(what, n, before);
    return kept;
  }

  private static void report(String what, int n, long before) {
    System.out.printf("%-34s %8d bytes each (n=%d)%n", what, (usedAfterGc() - before) / n, n);
  }

  private static long usedAfterGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
