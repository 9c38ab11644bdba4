package dev.stallwatch.sim;

import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Comparator;
import java.util.Map;

/**
 * The simulator's own pod predicates, on fabric8 pods, written from upstream's {@code
 * podutil.IsPodReady}, {@code IsPodAvailable}, the DaemonSet controller's {@code IsPodUpdated} and
 * {@code podByCreationTimestampAndPhase} — not the analyzer's {@code PodAvailability}, so the
 * simulator-vs-analyzer status check compares two readings of upstream.
 */
final class PodChecks {
  private PodChecks() {}

  /** Scheduled pods first, then by creation time, then by name. */
  static final Comparator<Pod> OLDEST_FIRST =
      Comparator.comparing((Pod p) -> nodeName(p).isEmpty())
          .thenComparing(PodChecks::created, Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparing(p -> p.getMetadata().getName());

  /** The pod's Ready condition is True. */
  static boolean isReady(Pod pod) {
    PodCondition ready = ready(pod);
    return ready != null && "True".equals(ready.getStatus());
  }

  /** Ready, and — with {@code minReadySeconds} — ready since strictly more than that before now. */
  static boolean isAvailable(Pod pod, int minReadySeconds, Instant now) {
    if (!isReady(pod)) {
      return false;
    }
    if (minReadySeconds == 0) {
      return true;
    }
    Instant since = time(ready(pod).getLastTransitionTime());
    return since != null && since.plusSeconds(minReadySeconds).isBefore(now);
  }

  /**
   * The pod runs the DaemonSet's current template: its {@code controller-revision-hash} is {@code
   * hash} (when known), or its {@code pod-template-generation} is the DaemonSet's.
   */
  static boolean isUpdated(Pod pod, String hash, Long templateGeneration) {
    Map<String, String> labels =
        pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
    boolean hashMatches =
        hash != null
            && !hash.isEmpty()
            && hash.equals(labels.get(MetadataKeys.REVISION_HASH_LABEL));
    boolean generationMatches =
        templateGeneration != null
            && String.valueOf(templateGeneration)
                .equals(labels.get(MetadataKeys.TEMPLATE_GENERATION_LABEL));
    return hashMatches || generationMatches;
  }

  private static PodCondition ready(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return null;
    }
    return pod.getStatus().getConditions().stream()
        .filter(c -> c != null && "Ready".equals(c.getType()))
        .findFirst()
        .orElse(null);
  }

  private static String nodeName(Pod pod) {
    return pod.getSpec() == null || pod.getSpec().getNodeName() == null
        ? ""
        : pod.getSpec().getNodeName();
  }

  private static Instant created(Pod pod) {
    return time(pod.getMetadata().getCreationTimestamp());
  }

  private static Instant time(String text) {
    return text == null || text.isEmpty() ? null : OffsetDateTime.parse(text).toInstant();
  }
}
