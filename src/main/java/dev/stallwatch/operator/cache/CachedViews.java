package dev.stallwatch.operator.cache;

import dev.stallwatch.kube.InvalidObjectException;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
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
public final class CachedViews<R extends HasMetadata, V> implements ItemStore<R> {
  private final ItemStore<R> store;
  private final Function<R, V> toView;
  // Keyed by the cached object itself (identity): a lookup costs one identity hash, where a key
  // ("namespace/name", built and hashed anew for every read) cost a string per object per
  // reconcile. Guarded by its own monitor; the informer's put/remove and the reconciles' reads
  // hold it only for a map operation.
  private final Map<R, V> views = new IdentityHashMap<>();
  // Raised after every put or remove: what a reader derived from the store at one version stays
  // valid while the version does.
  private final AtomicLong version = new AtomicLong();

  private final boolean versionByView;
  private final boolean keep;

  /**
   * Views made on first read and kept beside the objects until they change.
   *
   * @param store where the informer keeps its objects (e.g. pruning them)
   * @param toView the conversion; it may throw {@link InvalidObjectException}, which is not kept
   */
  static <R extends HasMetadata, V> CachedViews<R, V> kept(
      ItemStore<R> store, Function<R, V> toView) {
    return new CachedViews<>(store, toView, false, true);
  }

  /**
   * For a store whose objects carry their views, made as they enter it ({@link CachedPod}): {@code
   * toView} only reads it, so nothing is kept beside them.
   */
  static <R extends HasMetadata, V> CachedViews<R, V> carried(
      ItemStore<R> store, Function<R, V> toView) {
    return new CachedViews<>(store, toView, false, false);
  }

  /**
   * As {@link #kept}, but an update whose view equals the previous object's view leaves the {@link
   * #version} as it is (the new object's view is made at once, on the informer's thread): for
   * nodes, whose status heartbeats change the object but not what the analyzer reads of it.
   */
  static <R extends HasMetadata, V> CachedViews<R, V> versionedByView(
      ItemStore<R> store, Function<R, V> toView) {
    return new CachedViews<>(store, toView, true, true);
  }

  private CachedViews(
      ItemStore<R> store, Function<R, V> toView, boolean versionByView, boolean keep) {
    this.store = store;
    this.toView = toView;
    this.versionByView = versionByView;
    this.keep = keep;
  }

  /** The view of {@code object}, an object this store handed out. */
  V view(R object) {
    if (!keep) {
      return toView.apply(object);
    }
    synchronized (views) {
      V known = views.get(object);
      if (known != null) {
        return known;
      }
    }
    V view = toView.apply(object);
    String key = store.getKey(object);
    synchronized (views) {
      // Kept only while the object is the cached one: the informer's put/remove of a newer
      // version drops the older object's view under this monitor, after replacing it in the store.
      if (store.get(key) == object) {
        views.put(object, view);
      }
    }
    return view;
  }

  /**
   * The store's version: raised after every put or remove. Read it before reading the store; what
   * was derived from the objects then is current while the version stays the same.
   */
  long version() {
    return version.get();
  }

  /** How many views are kept (for tests). */
  int viewCount() {
    synchronized (views) {
      return views.size();
    }
  }

  @Override
  public String getKey(R object) {
    return store.getKey(object);
  }

  @Override
  public R put(String key, R object) {
    R previous = store.put(key, object);
    V before = forget(previous);
    if (versionByView && before != null && unchangedView(key, before)) {
      return previous; // what readers derived from the views still holds
    }
    version.incrementAndGet();
    return previous;
  }

  @Override
  public R remove(String key) {
    R previous = store.remove(key);
    forget(previous);
    version.incrementAndGet();
    return previous;
  }

  /** Drops the view of an object the store no longer holds; returns it, or null. */
  private V forget(R previous) {
    if (previous == null) {
      return null;
    }
    synchronized (views) {
      return views.remove(previous);
    }
  }

  /** Whether the object now stored under {@code key} has a view equal to {@code before}. */
  private boolean unchangedView(String key, V before) {
    R stored = store.get(key);
    if (stored == null) {
      return false;
    }
    V now;
    try {
      now = toView.apply(stored);
    } catch (RuntimeException e) { // InvalidObjectException: a reader reports it
      return false;
    }
    if (!before.equals(now)) {
      return false;
    }
    synchronized (views) {
      if (store.get(key) == stored) {
        views.put(stored, now);
      }
    }
    return true;
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
