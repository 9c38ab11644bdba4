package dev.stallwatch.operator.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.javaoperatorsdk.operator.api.config.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.config.ResolvedControllerConfiguration;
import io.javaoperatorsdk.operator.api.config.informer.InformerConfiguration;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Gives every informer of an event source an item store of its own, a {@link Partition} of one
 * shared store.
 *
 * <p>With a list of namespaces JOSDK runs one informer per namespace and hands each the item store
 * of the event source's configuration: they would all share it. A fabric8 informer that lists (when
 * it starts, and again after a 410 or a watch it had to re-open, e.g. across an API-server restart)
 * removes from its store every object the new list lacks, and reports each as deleted: with a
 * shared store, every other namespace's objects. DaemonSets were then seen deleted (their
 * RolloutStalls removed), pods and ControllerRevisions vanished from the cache until they next
 * changed. A partition lists and removes only what its own informer put; the objects, their views
 * and the store's version stay in the shared store, which the reconciler reads.
 */
public final class StorePerInformer {
  private StorePerInformer() {}

  /**
   * The event source's configuration, giving each of its informers a partition of {@code shared}.
   */
  public static <R extends HasMetadata> InformerEventSourceConfiguration<R> of(
      InformerEventSourceConfiguration<R> built, ItemStore<R> shared) {
    return new SourceConfiguration<>(built, partitioned(built.getInformerConfig(), shared));
  }

  /** The controller's configuration, giving each of its informers a partition of {@code shared}. */
  public static <R extends HasMetadata> ControllerConfiguration<R> of(
      ControllerConfiguration<R> built, ItemStore<R> shared) {
    InformerConfiguration<R> informers = partitioned(built.getInformerConfig(), shared);
    return new ResolvedControllerConfiguration<>(built) {
      @Override
      public InformerConfiguration<R> getInformerConfig() {
        return informers;
      }
    };
  }

  private static <R extends HasMetadata> InformerConfiguration<R> partitioned(
      InformerConfiguration<R> c, ItemStore<R> shared) {
    return new Partitioned<>(c, shared);
  }

  /**
   * One informer's part of a shared store: it lists, counts and removes only the keys it put. Keys
   * are {@code namespace/name}, so the informers of different namespaces never share one.
   */
  static final class Partition<R extends HasMetadata> implements ItemStore<R> {
    private final ItemStore<R> shared;
    private final Set<String> keys = ConcurrentHashMap.newKeySet();

    Partition(ItemStore<R> shared) {
      this.shared = Objects.requireNonNull(shared);
    }

    @Override
    public String getKey(R object) {
      return shared.getKey(object);
    }

    @Override
    public R put(String key, R object) {
      keys.add(key);
      return shared.put(key, object);
    }

    @Override
    public R remove(String key) {
      return keys.remove(key) ? shared.remove(key) : null;
    }

    @Override
    public Stream<String> keySet() {
      return keys.stream();
    }

    @Override
    public Stream<R> values() {
      return keys.stream().map(shared::get).filter(Objects::nonNull);
    }

    @Override
    public int size() {
      return keys.size();
    }

    @Override
    public R get(String key) {
      return keys.contains(key) ? shared.get(key) : null;
    }

    @Override
    public boolean isFullState() {
      return shared.isFullState();
    }
  }

  /** An informer configuration whose item store is a new partition each time it is asked for. */
  private static final class Partitioned<R extends HasMetadata> extends InformerConfiguration<R> {
    private final ItemStore<R> shared;

    Partitioned(InformerConfiguration<R> c, ItemStore<R> shared) {
      super(
          c.getResourceClass(),
          c.getName(),
          c.getNamespaces(),
          c.getFollowControllerNamespaceChanges(),
          c.getLabelSelector(),
          c.getOnAddFilter(),
          c.getOnUpdateFilter(),
          c.getOnDeleteFilter(),
          c.getGenericFilter(),
          shared,
          c.getInformerListLimit(),
          c.getFieldSelector());
      this.shared = shared;
    }

    /** JOSDK asks once per informer it creates (one per namespace). */
    @Override
    public ItemStore<R> getItemStore() {
      return new Partition<>(shared);
    }
  }

  private static final class SourceConfiguration<R extends HasMetadata>
      extends InformerEventSourceConfiguration.DefaultInformerEventSourceConfiguration<R> {
    SourceConfiguration(InformerEventSourceConfiguration<R> c, InformerConfiguration<R> informers) {
      super(
          c.getGroupVersionKind().orElse(null),
          c.getPrimaryToSecondaryMapper(),
          c.getSecondaryToPrimaryMapper(),
          informers,
          c.getKubernetesClient().orElse(null));
    }
  }
}
