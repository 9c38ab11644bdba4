package dev.stallwatch.rollout;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;

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
    return isReady(readyCondition(pod));
  }

  /** Ready, and for longer than {@code minReadySeconds} (strictly) at {@code now}. */
  public static boolean isAvailable(PodView pod, int minReadySeconds, Instant now) {
    return isAvailable(readyCondition(pod), minReadySeconds, now);
  }

  /**
   * When a ready pod becomes available, or null if it already is or is not ready. Used to plan the
   * next evaluation.
   */
  public static Instant availableAt(PodView pod, int minReadySeconds, Instant now) {
    PodView.Condition ready = readyCondition(pod);
    if (!isReady(ready) || isAvailable(ready, minReadySeconds, now)) {
      return null;
    }
    Instant since = ready.lastTransition();
    return since == null ? null : since.plus(Duration.ofSeconds(minReadySeconds)).plusMillis(1);
  }

  /**
   * The pod's first {@code Ready} condition, or null: looked up once by the predicates above, which
   * run for every pod of every analysis (a loop, no Optional).
   */
  static PodView.Condition readyCondition(PodView pod) {
    List<PodView.Condition> conditions = pod.conditions();
    for (int i = 0, n = conditions.size(); i < n; i++) {
      PodView.Condition c = conditions.get(i);
      if ("Ready".equals(c.type())) {
        return c;
      }
    }
    return null;
  }

  /** {@link #isReady(PodView)} on an already looked-up {@link #readyCondition}. */
  static boolean isReady(PodView.Condition ready) {
    return ready != null && "True".equals(ready.status());
  }

  /**
   * {@link #isAvailable(PodView, int, Instant)} on an already looked-up {@link #readyCondition}.
   */
  static boolean isAvailable(PodView.Condition ready, int minReadySeconds, Instant now) {
    if (!isReady(ready)) {
      return false;
    }
    if (minReadySeconds <= 0) {
      return true;
    }
    Instant since = ready.lastTransition();
    return since != null && since.plusSeconds(minReadySeconds).isBefore(now);
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
    boolean hashMatches =
        hash != null
            && !hash.isEmpty()
            && hash.equals(pod.labels().get(MetadataKeys.REVISION_HASH_LABEL));
    return hashMatches
        || (templateGeneration != null
            && templateGeneration.equals(pod.labels().get(MetadataKeys.TEMPLATE_GENERATION_LABEL)));
  }

  /** Phase Failed or Succeeded. */
  public static boolean isTerminal(PodView pod) {
    return "Failed".equals(pod.phase()) || "Succeeded".equals(pod.phase());
  }
}
