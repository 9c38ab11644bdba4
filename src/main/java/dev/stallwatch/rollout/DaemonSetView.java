package dev.stallwatch.rollout;

import java.time.Instant;
import java.util.Map;

/**
 * What the analyzer reads of a DaemonSet.
 *
 * @param templateGeneration the annotation {@code deprecated.daemonset.template.generation}, or
 *     null when absent (upstream then matches pods by hash only); the reader rejects one that is
 *     not an integer, which would make every pod look old
 * @param status the DaemonSet's own {@code .status} as the API reported it, or null when absent
 * @param advanced what an OpenKruise Advanced DaemonSet adds to the rollout; null for {@code
 *     apps/v1}
 */
public record DaemonSetView(
    ObjectRef ref,
    long generation,
    Long templateGeneration,
    Map<String, String> annotations,
    PodTemplateView template,
    UpdateStrategy strategy,
    int minReadySeconds,
    Status status,
    Instant created,
    AdvancedStrategy advanced) {

  /** An {@code apps/v1} DaemonSet. */
  public DaemonSetView(
      ObjectRef ref,
      long generation,
      Long templateGeneration,
      Map<String, String> annotations,
      PodTemplateView template,
      UpdateStrategy strategy,
      int minReadySeconds,
      Status status,
      Instant created) {
    this(
        ref,
        generation,
        templateGeneration,
        annotations,
        template,
        strategy,
        minReadySeconds,
        status,
        created,
        null);
  }

  public DaemonSetView {
    annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
    strategy = strategy == null ? UpdateStrategy.DEFAULT : strategy;
  }

  public String namespace() {
    return ref.namespace();
  }

  public String name() {
    return ref.name();
  }

  /**
   * How many nodes {@code .status} alone shows an Advanced DaemonSet's partition holding: its
   * partition scaled from {@code desiredNumberScheduled}, at most that; 0 for {@code apps/v1},
   * without a status, and where the status cannot tell (an update selector, or a strategy not
   * judged).
   */
  public int heldPerStatus() {
    if (advanced == null
        || status == null
        || advanced.selector() != null
        || !advanced.notJudged().isEmpty()) {
      return 0;
    }
    int desired = status.desiredNumberScheduled();
    return Math.max(0, Math.min(desired, advanced.partitionCount(desired)));
  }

  /** {@code apps/v1}, or the Advanced DaemonSet's API version. */
  public String apiVersion() {
    return advanced == null ? RolloutVerdict.APPS_V1 : advanced.apiVersion();
  }

  /**
   * True when the DaemonSet opts into narrowing with {@value MetadataKeys#ALLOW_NODE_EXCLUSION}.
   */
  public boolean allowsNodeExclusion() {
    return "true"
        .equalsIgnoreCase(annotations.getOrDefault(MetadataKeys.ALLOW_NODE_EXCLUSION, "").trim());
  }

  /** {@code spec.updateStrategy}: the API defaults RollingUpdate with maxUnavailable 1. */
  public record UpdateStrategy(
      boolean onDelete, IntOrPercent maxUnavailable, IntOrPercent maxSurge) {
    public static final UpdateStrategy DEFAULT =
        new UpdateStrategy(false, new IntOrPercent(1, false), IntOrPercent.ZERO);

    public UpdateStrategy {
      maxUnavailable = maxUnavailable == null ? new IntOrPercent(1, false) : maxUnavailable;
      maxSurge = maxSurge == null ? IntOrPercent.ZERO : maxSurge;
    }
  }

  /**
   * The DaemonSet's {@code .status}; absent numeric fields are 0 (the API omits zeros).
   *
   * @param observedGeneration null when the controller never wrote it
   */
  public record Status(
      Long observedGeneration,
      int desiredNumberScheduled,
      int currentNumberScheduled,
      int numberReady,
      int updatedNumberScheduled,
      int numberAvailable,
      int numberUnavailable,
      int numberMisscheduled) {

    /**
     * Whether {@code .status} itself says the rollout is done: the controller observed {@code
     * generation}, and updated = available = ready = desired = current, with nothing misscheduled.
     * Ready is checked too although available pods are ready: a status that says more pods are
     * available than ready contradicts itself and proves nothing (kstatus's {@code dsLessReady}).
     */
    public boolean reportsComplete(long generation) {
      return reportsComplete(generation, 0);
    }

    /**
     * As {@link #reportsComplete(long)}, with {@code held} nodes kept on the old revision on
     * purpose (an Advanced DaemonSet's partition): updated then needs to reach desired − held.
     */
    public boolean reportsComplete(long generation, int held) {
      return observedGeneration != null
          && observedGeneration >= generation
          && updatedNumberScheduled >= desiredNumberScheduled - held
          && numberAvailable == desiredNumberScheduled
          && numberReady == desiredNumberScheduled
          && currentNumberScheduled == desiredNumberScheduled
          && numberMisscheduled == 0;
    }

    /** The reported numbers in the analyzer's own shape, to put beside the recomputed ones. */
    public Counts counts() {
      return new Counts(
          desiredNumberScheduled,
          currentNumberScheduled,
          numberReady,
          updatedNumberScheduled,
          numberAvailable,
          numberUnavailable,
          numberMisscheduled);
    }
  }
}
