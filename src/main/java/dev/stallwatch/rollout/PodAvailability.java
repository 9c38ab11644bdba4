package dev.stallwatch.rollout;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;

/**
 * Pod predicates of the upstream controller: {@code IsPodReady}, {@code IsPodAvailable}, {@code
 * IsPodUpdated} and the {@code podByCreationTimestampAndPhase} order.
 */
public final class PodAvailability {

  /**
   * Bound pods first, then oldest first, then by name — the order upstream sorts a node's daemon
   * pods in to pick the one it counts.
   */
  public static final Comparator<PodView> OLDEST_FIRST =
      Comparator.comparing((PodView p) -> p.nodeName().isEmpty())
          .thenComparing(PodView::created, Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparing(PodView::name);

  private PodAvailability() {}

  /** The pod's {@code Ready} condition is {@code True}. */
  public static boolean isReady(PodView pod) {
    return pod.derived().ready();
  }

  /** Ready, and for longer than {@code minReadySeconds} (strictly) at {@code now}. */
  public static boolean isAvailable(PodView pod, int minReadySeconds, Instant now) {
    PodView.Derived d = pod.derived();
    if (!d.ready()) {
      return false;
    }
    if (minReadySeconds <= 0) {
      return true;
    }
    Instant since = d.readySince();
    return since != null && since.plusSeconds(minReadySeconds).isBefore(now);
  }

  /**
   * When a ready pod becomes available, or null if it already is or is not ready. Used to plan the
   * next evaluation.
   */
  public static Instant availableAt(PodView pod, int minReadySeconds, Instant now) {
    if (!pod.derived().ready() || isAvailable(pod, minReadySeconds, now)) {
      return null;
    }
    Instant since = pod.derived().readySince();
    return since == null ? null : since.plus(Duration.ofSeconds(minReadySeconds)).plusMillis(1);
  }

  /**
   * Upstream {@code IsPodUpdated}: the pod carries the new revision's hash, or its template
   * generation label equals the DaemonSet's template generation.
   */
  public static boolean isUpdated(PodView pod, String hash, Long templateGeneration) {
    return isUpdated(pod, hash, templateGeneration == null ? null : templateGeneration.toString());
  }

  /** {@link #isUpdated(PodView, String, Long)} with the generation already as its label value. */
  static boolean isUpdated(PodView pod, String hash, String templateGeneration) {
    PodView.Derived d = pod.derived();
    boolean hashMatches = hash != null && !hash.isEmpty() && hash.equals(d.revisionHash());
    return hashMatches
        || (templateGeneration != null && templateGeneration.equals(d.templateGeneration()));
  }

  /** Phase Failed or Succeeded. */
  public static boolean isTerminal(PodView pod) {
    return pod.derived().terminal();
  }
}
