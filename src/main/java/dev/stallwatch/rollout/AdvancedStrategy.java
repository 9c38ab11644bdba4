package dev.stallwatch.rollout;

import dev.stallwatch.rollout.PodTemplateView.Requirement;
import java.util.List;
import java.util.Map;

/**
 * What an OpenKruise Advanced DaemonSet ({@code apps.kruise.io}) adds to a DaemonSet's rollout, as
 * kruise's DaemonSet controller reads it; an {@code apps/v1} DaemonSet has none.
 *
 * @param apiVersion {@code apps.kruise.io/v1beta1} or {@code apps.kruise.io/v1alpha1}
 * @param rollingUpdateType {@code rollingUpdate.rollingUpdateType} as written; empty when absent
 * @param partition {@code rollingUpdate.partition}; null when absent or not usable (see {@code
 *     partitionNote})
 * @param partitionNote what is wrong with the partition as written, in words; empty when nothing
 * @param partitionReadable false when kruise's controller cannot read the partition at all (a
 *     string that is not a percentage): it then updates no node
 * @param selector {@code rollingUpdate.selector}; null when absent
 * @param paused {@code rollingUpdate.paused}
 * @param preDeleteHook {@code spec.lifecycle.preDelete} is set
 * @param partitionedScaling {@code spec.scaleStrategy.partitionedScaling} (v1beta1) or the
 *     annotation {@value #PROGRESSIVE_CREATE_ANNOTATION} (v1alpha1)
 * @param updateRevision {@code status.updateRevision} (v1beta1) or {@code status.daemonSetHash}
 *     (v1alpha1); empty when absent
 */
public record AdvancedStrategy(
    String apiVersion,
    String rollingUpdateType,
    IntOrPercent partition,
    String partitionNote,
    boolean partitionReadable,
    Selector selector,
    boolean paused,
    boolean preDeleteHook,
    boolean partitionedScaling,
    String updateRevision) {

  /** The API group of the Advanced DaemonSet. */
  public static final String GROUP = "apps.kruise.io";

  /** v1alpha1's way of asking for partitioned scaling. */
  public static final String PROGRESSIVE_CREATE_ANNOTATION =
      "daemonset.kruise.io/progressive-create-pod";

  /**
   * The label kruise's lifecycle hooks write on a pod; {@value #PREPARING_DELETE} before delete.
   */
  public static final String LIFECYCLE_STATE_LABEL = "lifecycle.apps.kruise.io/state";

  public static final String PREPARING_DELETE = "PreparingDelete";

  /** The pod condition of kruise's in-place update readiness gate. */
  public static final String IN_PLACE_UPDATE_READY = "InPlaceUpdateReady";

  /** The rolling types whose per-node behaviour stallwatch knows. */
  public static final List<String> KNOWN_TYPES = List.of("Standard", "InPlaceIfPossible");

  public AdvancedStrategy {
    apiVersion = apiVersion == null ? "" : apiVersion;
    rollingUpdateType = rollingUpdateType == null ? "" : rollingUpdateType.trim();
    partitionNote = partitionNote == null ? "" : partitionNote;
    updateRevision = updateRevision == null ? "" : updateRevision;
  }

  /** Whether an API version is one of the Advanced DaemonSet's. */
  public static boolean isAdvanced(String apiVersion) {
    return apiVersion != null && apiVersion.trim().startsWith(GROUP + "/");
  }

  /**
   * The rolling type as kruise runs it: {@code Standard} for an empty one and for v1alpha1's
   * deprecated alias {@code Surging}.
   */
  public String effectiveType() {
    return rollingUpdateType.isEmpty() || rollingUpdateType.equals("Surging")
        ? "Standard"
        : rollingUpdateType;
  }

  /** {@code InPlaceIfPossible}: an image-only change updates the pod in place. */
  public boolean inPlace() {
    return effectiveType().equals("InPlaceIfPossible");
  }

  /**
   * Why the rollout cannot be judged node by node, in words for the verdict; empty when it can. A
   * rolling type stallwatch does not know is judged from {@code .status} only, as is a partition or
   * selector kruise's controller cannot read (it then updates no node).
   */
  public String notJudged() {
    if (!KNOWN_TYPES.contains(effectiveType())) {
      return "rollingUpdateType \""
          + rollingUpdateType
          + "\" is not one stallwatch judges per node ("
          + String.join(", ", KNOWN_TYPES)
          + ")";
    }
    if (!partitionReadable) {
      return partitionNote;
    }
    if (selector != null && !selector.readable()) {
      return "rollingUpdate.selector has an operator kruise's controller rejects ("
          + selector.unreadableOperator()
          + "): it updates no node";
    }
    return "";
  }

  /**
   * The partition's node count as kruise's controller scales it: a percentage of {@code
   * .status.desiredNumberScheduled} as last written, rounded down; 0 when absent.
   */
  public int partitionCount(int statusDesired) {
    if (partition == null) {
      return 0;
    }
    return partition.percent()
        ? (int) Math.floor(partition.value() * (double) statusDesired / 100.0)
        : partition.value();
  }

  /**
   * A label selector: {@code matchLabels} and {@code matchExpressions} (In, NotIn, Exists,
   * DoesNotExist), all of which must match.
   */
  public record Selector(Map<String, String> matchLabels, List<Requirement> matchExpressions) {
    private static final List<String> OPERATORS = List.of("In", "NotIn", "Exists", "DoesNotExist");

    public Selector {
      matchLabels = matchLabels == null ? Map.of() : Map.copyOf(matchLabels);
      matchExpressions = matchExpressions == null ? List.of() : List.copyOf(matchExpressions);
    }

    /** Whether every expression uses an operator a label selector has. */
    public boolean readable() {
      return unreadableOperator().isEmpty();
    }

    String unreadableOperator() {
      for (Requirement r : matchExpressions) {
        if (!OPERATORS.contains(r.operator())) {
          return r.operator();
        }
      }
      return "";
    }

    /** Whether labels satisfy the selector; an empty selector matches everything. */
    public boolean matches(Map<String, String> labels) {
      for (Map.Entry<String, String> e : matchLabels.entrySet()) {
        if (!e.getValue().equals(labels.get(e.getKey()))) {
          return false;
        }
      }
      for (Requirement r : matchExpressions) {
        if (!NodeEligibility.matchesLabelRequirement(labels, r)) {
          return false;
        }
      }
      return true;
    }

    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder();
      matchLabels.entrySet().stream()
          .sorted(Map.Entry.comparingByKey())
          .forEach(
              e ->
                  sb.append(sb.isEmpty() ? "" : ",")
                      .append(e.getKey())
                      .append('=')
                      .append(e.getValue()));
      for (Requirement r : matchExpressions) {
        sb.append(sb.isEmpty() ? "" : ",").append(r.key()).append(' ').append(r.operator());
        if (!r.values().isEmpty()) {
          sb.append(" (").append(String.join(",", r.values())).append(')');
        }
      }
      return sb.toString();
    }
  }
}
