package dev.stallwatch.operator.cache;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.SecondaryToPrimaryMapper;
import io.javaoperatorsdk.operator.processing.event.source.informer.Mappers;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the operator holds per cached pod and node, built from the same parts as its informers: an
 * informer's cache ({@link CacheImpl}, with its default namespace index) over the reconciler's item
 * stores ({@code RolloutEventSources.Stores}: pruning, views), the pod indexes ({@code byNode},
 * {@code byOwner}), and for pods JOSDK's primary-to-secondary index as {@code
 * DefaultPrimaryToSecondaryIndex} keeps it (reproduced: the class is not public). For {@code
 * CacheFootprint}.
 */
public final class CacheHolding {
  private final RolloutEventSources.Stores stores = new RolloutEventSources.Stores();
  private final CacheImpl<Pod> pods = new CacheImpl<>();
  private final CacheImpl<Node> nodes = new CacheImpl<>();
  private final SecondaryToPrimaryMapper<Pod> owners = Mappers.fromOwnerReferences(DaemonSet.class);
  private final Map<ResourceID, Set<ResourceID>> primaryToSecondary = new HashMap<>();

  public CacheHolding() {
    pods.setItemStore(stores.pods);
    pods.addIndexers(
        Map.of(
            RolloutEventSources.BY_NODE,
            RolloutEventSources::targetNode,
            RolloutEventSources.BY_OWNER,
            RolloutEventSources::owners));
    nodes.setItemStore(stores.nodes);
  }

  /** A pod as the informer hands it over (deserialised, unpruned). */
  public void addPod(Pod pod) {
    pods.put(pod);
    for (ResourceID primary : owners.toPrimaryResourceIDs(pod)) {
      primaryToSecondary
          .computeIfAbsent(primary, k -> new HashSet<>())
          .add(ResourceID.fromResource(pod));
    }
  }

  /** A node as the informer hands it over. */
  public void addNode(Node node) {
    nodes.put(node);
  }

  /** Every cached pod's and node's view made, as the first reconciles make them. */
  public void viewAll() {
    stores.pods.values().forEach(stores.pods::view);
    stores.nodeViews(() -> stores.nodes.values().toList());
  }

  /** What the pod cache keeps of one pod: its identity, owners, target node, and its view. */
  public static Object cachedPod(Pod pod) {
    return CachedPod.of(pod);
  }

  /** The cached (pruned) pods. */
  public List<Pod> cachedPods() {
    return stores.pods.values().toList();
  }

  /** The cached (pruned) nodes. */
  public List<Node> cachedNodes() {
    return stores.nodes.values().toList();
  }
}
