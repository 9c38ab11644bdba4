package dev.stallwatch.operator.cache;

import dev.stallwatch.rollout.PodView;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * One instance of each immutable part that many cached pod views hold alike: the pods of one
 * revision of a DaemonSet carry the same labels, owner, images and — while they run — the same
 * container statuses (a view keeps no start time or container ID). At 50,000 cached pods a copy of
 * each per pod was a third of the cache. Held weakly: a part no cached view holds any more is
 * forgotten.
 *
 * <p>Parts that differ per pod (names, times, conditions) are left as they are: keeping them here
 * would only add an entry per pod.
 */
public final class SharedParts {
  private final Map<Object, WeakReference<Object>> known = new WeakHashMap<>();

  /** {@code view} with its shareable parts replaced by equal ones already held. */
  PodView pod(PodView view) {
    return new PodView(
        view.namespace(),
        view.name(),
        view.uid(),
        of(view.labels()),
        of(view.owner()),
        view.nodeName(),
        view.targetNode(),
        view.created(),
        view.deletionTimestamp(),
        view.phase(),
        view.reason(),
        view.message(),
        view.conditions(),
        of(view.initContainerNames()),
        of(view.images()),
        statuses(view.initContainerStatuses()),
        statuses(view.containerStatuses()),
        view.derived());
  }

  private List<PodView.ContainerStatus> statuses(List<PodView.ContainerStatus> statuses) {
    if (statuses.isEmpty()) {
      return statuses;
    }
    List<PodView.ContainerStatus> shared = new ArrayList<>(statuses.size());
    statuses.forEach(s -> shared.add(of(s)));
    return of(List.copyOf(shared));
  }

  /** The instance equal to {@code value} held already, or {@code value}, now held (null: null). */
  @SuppressWarnings("unchecked")
  synchronized <T> T of(T value) {
    if (value == null) {
      return null;
    }
    WeakReference<Object> ref = known.get(value);
    Object held = ref == null ? null : ref.get();
    if (held != null) {
      return (T) held;
    }
    known.put(value, new WeakReference<>(value));
    return value;
  }

  /** How many distinct parts are held (for tests). */
  synchronized int size() {
    return known.size();
  }
}
