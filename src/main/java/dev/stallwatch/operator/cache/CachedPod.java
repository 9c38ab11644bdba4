package dev.stallwatch.operator.cache;

import dev.stallwatch.kube.InvalidObjectException;
import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.rollout.PodView;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A DaemonSet pod as the pod cache keeps it: the analyzer's view, made once from the whole pod when
 * it enters the cache, and of the pod itself only what the cache's other readers read — name,
 * namespace, uid and resourceVersion (the informer), owner references (JOSDK's mapper, the owner
 * index, {@code NodeRouting}) and the node it is meant for (the node index). Its spec and status
 * are null, its labels and annotations empty: every reader of a cached pod's contents goes through
 * {@link #view(Pod)}. It is never written to (its empty collections are shared and immutable).
 *
 * <p>At 50,000 cached pods the fabric8 model of a pod, even pruned, cost ≈ 3 KB each (every model
 * object carries its own empty lists and maps); the view holds the same facts in ≈ 600 bytes.
 */
public final class CachedPod extends Pod {
  private final transient PodView view; // null when the pod cannot be read
  private final transient String invalid; // why not, naming the object and field
  private final transient String targetNode;

  private CachedPod(PodView view, String invalid, String targetNode) {
    this.view = view;
    this.invalid = invalid;
    this.targetNode = targetNode;
  }

  /** The cache's copy of {@code pod}, its view made from the pruned pod (shared strings). */
  public static CachedPod of(Pod pod) {
    return of(pod, null);
  }

  /**
   * As {@link #of(Pod)}, the view's parts that pods share taken from {@code shared} (null: none).
   */
  public static CachedPod of(Pod pod, SharedParts shared) {
    if (pod instanceof CachedPod cached) {
      return cached;
    }
    Pod pruned = CachePruning.pod(pod);
    PodView view = null;
    String invalid = null;
    try {
      view = KubeViews.pod(pruned);
      if (shared != null) {
        view = shared.pod(view);
      }
    } catch (InvalidObjectException e) {
      invalid = e.getMessage();
    }
    CachedPod cached = new CachedPod(view, invalid, KubeViews.targetNode(pruned));
    cached.setAdditionalProperties(Map.of());
    cached.setApiVersion(pruned.getApiVersion());
    cached.setKind(pruned.getKind());
    cached.setMetadata(identity(pruned.getMetadata(), shared == null ? new SharedParts() : shared));
    return cached;
  }

  /**
   * The analyzer's view of a cached pod (of any other pod, made now).
   *
   * @throws InvalidObjectException when the pod cannot be read, as {@link KubeViews#pod} would
   */
  public static PodView view(Pod pod) {
    if (pod instanceof CachedPod cached) {
      if (cached.invalid != null) {
        throw new InvalidObjectException(cached.invalid);
      }
      return cached.view;
    }
    return KubeViews.pod(pod);
  }

  /** The node the pod is meant for ({@link KubeViews#targetNode(Pod)}), read without a spec. */
  static String targetNode(Pod pod) {
    return pod instanceof CachedPod cached ? cached.targetNode : KubeViews.targetNode(pod);
  }

  private static ObjectMeta identity(ObjectMeta m, SharedParts shared) {
    if (m == null) {
      return null;
    }
    ObjectMeta kept = new ObjectMeta();
    // Shared empty collections where the model would make one of each per object.
    kept.setAdditionalProperties(Map.of());
    kept.setAnnotations(Map.of());
    kept.setLabels(Map.of());
    kept.setFinalizers(List.of());
    kept.setManagedFields(List.of());
    kept.setName(m.getName());
    kept.setNamespace(m.getNamespace());
    kept.setUid(m.getUid());
    kept.setResourceVersion(m.getResourceVersion());
    kept.setOwnerReferences(owners(m.getOwnerReferences(), shared));
    return kept;
  }

  /**
   * The owner references, each one shared instance per owner (the pods of a DaemonSet all name it);
   * a null reference stays in its place ({@code KubeViews.controller} counts them).
   */
  private static List<OwnerReference> owners(List<OwnerReference> refs, SharedParts shared) {
    if (refs == null) {
      return null;
    }
    List<OwnerReference> kept = new ArrayList<>(refs.size());
    for (OwnerReference ref : refs) {
      // anew: the builder that pruned the metadata gave each copy a map of its own
      kept.add(ref == null ? null : shared.of(CachePruning.owner(ref)));
    }
    return kept.contains(null) ? kept : shared.of(List.copyOf(kept));
  }

  // A cached pod is one object version: equal only to itself (the generated equals would compare
  // the fields it no longer has, and its hash walk them).
  @Override
  public boolean equals(Object o) {
    return this == o;
  }

  @Override
  public int hashCode() {
    return System.identityHashCode(this);
  }
}
