package dev.stallwatch.operator.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * An informer's item store that keeps each object as {@link CachePruning} shrinks it. JOSDK's
 * {@code TransformingItemStore} does the same but then writes the original object's name, namespace
 * and resourceVersion back onto the pruned copy, which replaces the canonical namespace string the
 * pruning chose with one string per cached object; the pruning here keeps all three.
 */
public final class PrunedStore<R extends HasMetadata> implements ItemStore<R> {
  private final UnaryOperator<R> prune;
  private final ConcurrentHashMap<String, R> items = new ConcurrentHashMap<>();
  // Objects held per namespace (namespaced objects only): what a relist must leave unchanged.
  private final ConcurrentHashMap<String, AtomicInteger> perNamespace = new ConcurrentHashMap<>();
  private final Consumer<String> firstOfNamespace;

  PrunedStore(UnaryOperator<R> prune) {
    this(prune, ns -> {});
  }

  /**
   * @param firstOfNamespace told once per namespace, when its first object is stored
   */
  PrunedStore(UnaryOperator<R> prune, Consumer<String> firstOfNamespace) {
    this.prune = prune;
    this.firstOfNamespace = firstOfNamespace;
  }

  /** How many objects of {@code namespace} are stored. */
  int count(String namespace) {
    AtomicInteger n = perNamespace.get(namespace);
    return n == null ? 0 : n.get();
  }

  private void counted(R object, int delta) {
    String ns = object.getMetadata() == null ? null : object.getMetadata().getNamespace();
    if (ns == null) {
      return;
    }
    AtomicInteger n = perNamespace.get(ns);
    if (n == null) {
      AtomicInteger fresh = new AtomicInteger();
      n = perNamespace.putIfAbsent(ns, fresh);
      if (n == null) {
        n = fresh;
        firstOfNamespace.accept(ns);
      }
    }
    n.addAndGet(delta);
  }

  @Override
  public String getKey(R object) {
    return Cache.metaNamespaceKeyFunc(object);
  }

  @Override
  public R put(String key, R object) {
    R pruned = prune.apply(object);
    R previous = items.put(key, pruned);
    if (previous == null) {
      counted(pruned, 1);
    }
    return previous;
  }

  @Override
  public R remove(String key) {
    R previous = items.remove(key);
    if (previous != null) {
      counted(previous, -1);
    }
    return previous;
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

  /**
   * True, so that fabric8 holds back the add notifications of an informer's first list until the
   * list has ended and then sends the stored (pruned) objects. With false it hands each listener
   * the whole object it read, at once; during the first list JOSDK's event source does not take
   * them (its {@code start()}, which waits for the list, holds the monitor its handler needs), so
   * every object read waited whole in the listener's unbounded queue until the list ended: at
   * 50,000 DaemonSet pods, more than a 1 GiB heap. The store holds every object it is given, so its
   * state after the list is the full state fabric8 asks about.
   */
  @Override
  public boolean isFullState() {
    return true;
  }
}
