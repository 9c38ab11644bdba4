package dev.stallwatch.operator;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * An informer's item store that keeps each object as {@link CachePruning} shrinks it. JOSDK's
 * {@code TransformingItemStore} does the same but then writes the original object's name, namespace
 * and resourceVersion back onto the pruned copy, which replaces the canonical namespace string the
 * pruning chose with one string per cached object; the pruning here keeps all three.
 */
final class PrunedStore<R extends HasMetadata> implements ItemStore<R> {
  private final UnaryOperator<R> prune;
  private final ConcurrentHashMap<String, R> items = new ConcurrentHashMap<>();

  PrunedStore(UnaryOperator<R> prune) {
    this.prune = prune;
  }

  @Override
  public String getKey(R object) {
    return Cache.metaNamespaceKeyFunc(object);
  }

  @Override
  public R put(String key, R object) {
    return items.put(key, prune.apply(object));
  }

  @Override
  public R remove(String key) {
    return items.remove(key);
  }

  @Override
  public Stream<String> keySet() {
    return items.keySet().stream();
  }

  @Override
  public Stream<R> values() {
    return items.values().stream();
  }

  @Override
  public int size() {
    return items.size();
  }

  @Override
  public R get(String key) {
    return items.get(key);
  }

  @Override
  public boolean isFullState() {
    return false;
  }
}
