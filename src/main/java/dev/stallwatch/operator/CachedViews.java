package dev.stallwatch.operator;

import dev.stallwatch.kube.InvalidObjectException;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * An informer's item store that also keeps the analyzer's view of each cached object, made at most
 * once per stored object: the first reconcile that reads an object converts it, every later one
 * reuses the view until the informer replaces the object (a new resourceVersion) or removes it,
 * which drops the view. At 5,000 nodes a reconcile would otherwise convert every node of the
 * cluster again — the conversion, not the analysis, was most of a reconcile's time.
 *
 * <p>A view is tied to the very object it was made from (identity), so a reconcile that still holds
 * an object the informer has since replaced gets that object's own view, never a newer one.
 */
final class CachedViews<R extends HasMetadata, V> implements ItemStore<R> {
  private final ItemStore<R> store;
  private final Function<R, V> toView;
  private final Map<String, Viewed<R, V>> views = new ConcurrentHashMap<>();

  private record Viewed<R, V>(R source, V view) {}

  /**
   * @param store where the informer keeps its objects (e.g. pruning them)
   * @param toView the conversion; it may throw {@link InvalidObjectException}, which is not kept
   */
  CachedViews(ItemStore<R> store, Function<R, V> toView) {
    this.store = store;
    this.toView = toView;
  }

  /** The view of {@code object}, an object this store handed out. */
  V view(R object) {
    String key = store.getKey(object);
    Viewed<R, V> known = views.get(key);
    if (known != null && known.source() == object) {
      return known.view();
    }
    V view = toView.apply(object);
    if (store.get(key) != object) {
      return view; // no longer (or never) cached: nothing to keep it for
    }
    Viewed<R, V> made = new Viewed<>(object, view);
    views.put(key, made);
    if (store.get(key) != object) {
      // Replaced or removed between the check and the put: the informer's put/remove may have
      // dropped views before ours landed. Only ours goes; a newer object's view stays.
      views.remove(key, made);
    }
    return view;
  }

  /** How many views are kept (for tests). */
  int viewCount() {
    return views.size();
  }

  @Override
  public String getKey(R object) {
    return store.getKey(object);
  }

  @Override
  public R put(String key, R object) {
    R previous = store.put(key, object);
    views.remove(key);
    return previous;
  }

  @Override
  public R remove(String key) {
    R previous = store.remove(key);
    views.remove(key);
    return previous;
  }

  @Override
  public Stream<String> keySet() {
    return store.keySet();
  }

  @Override
  public Stream<R> values() {
    return store.values();
  }

  @Override
  public int size() {
    return store.size();
  }

  @Override
  public R get(String key) {
    return store.get(key);
  }

  @Override
  public boolean isFullState() {
    return store.isFullState();
  }
}
