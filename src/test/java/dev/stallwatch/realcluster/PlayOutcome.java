package dev.stallwatch.realcluster;

import dev.stallwatch.rollout.Cause;
import dev.stallwatch.rollout.NodeRow;
import dev.stallwatch.rollout.Phase;
import dev.stallwatch.rollout.RolloutVerdict;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * What one play of a scenario ended in, in the terms the simulator and the real controllers are
 * compared by: the analyzer's phase, cause and stalled nodes, which revision each node runs, and
 * the numbers the DaemonSet controller wrote to {@code .status}. Node names are the scenario's.
 *
 * @param reason the verdict's Kubernetes reason ({@code ErrImagePull} read as {@code
 *     ImagePullBackOff}: the kubelet alternates them)
 * @param stalledNodes sorted by name (the analyzer lists them earliest first; when two nodes began
 *     holding the rollout back is timing, not behaviour)
 * @param stalledWhy per stalled node its reason and, for a scheduling cause, the scheduler's
 *     message with every number replaced by {@code #} (the real cluster has more nodes)
 * @param split every node the analyzer counts in the generation split, with its revision
 * @param message the analyzer's sentence, logged only
 * @param details per node what the analyzer saw and the revisions, logged only
 */
record PlayOutcome(
    Phase phase,
    Cause cause,
    String reason,
    List<String> stalledNodes,
    SortedMap<String, String> stalledWhy,
    SortedMap<String, NodeRow.Revision> split,
    Status status,
    String message,
    List<String> details) {

  PlayOutcome {
    stalledNodes = stalledNodes.stream().sorted().toList();
    stalledWhy = new TreeMap<>(stalledWhy);
    split = new TreeMap<>(split);
  }

  /** The six numbers of {@code .status} compared: {@code kubectl get ds} plus misscheduled. */
  record Status(
      int desired, int current, int ready, int upToDate, int available, int misscheduled) {

    static Status of(DaemonSetStatus s) {
      if (s == null) {
        return new Status(0, 0, 0, 0, 0, 0);
      }
      return new Status(
          n(s.getDesiredNumberScheduled()),
          n(s.getCurrentNumberScheduled()),
          n(s.getNumberReady()),
          n(s.getUpdatedNumberScheduled()),
          n(s.getNumberAvailable()),
          n(s.getNumberMisscheduled()));
    }

    private static int n(Integer i) {
      return i == null ? 0 : i;
    }

    @Override
    public String toString() {
      return desired
          + "/"
          + current
          + "/"
          + ready
          + "/"
          + upToDate
          + "/"
          + available
          + "/"
          + misscheduled;
    }
  }

  /**
   * The outcome of {@code verdict} on {@code ds} as the controller left it; {@code nodeName} turns
   * the cluster's node names into the scenario's.
   */
  static PlayOutcome of(RolloutVerdict verdict, DaemonSet ds, UnaryOperator<String> nodeName) {
    SortedMap<String, NodeRow.Revision> split = new TreeMap<>();
    for (NodeRow row : verdict.nodes()) {
      if (row.standing() != NodeRow.Standing.NOT_DESIRED || row.pod() != null) {
        split.put(nodeName.apply(row.node()), row.revision());
      }
    }
    SortedMap<String, String> why = new TreeMap<>();
    for (NodeRow row : verdict.nodes()) {
      if (verdict.stalledNodes().contains(row.node())) {
        boolean scheduling =
            row.cause() == Cause.InsufficientResources || row.cause() == Cause.Unschedulable;
        why.put(
            nodeName.apply(row.node()),
            pullReason(row.reason())
                + (scheduling
                    ? ": " + Objects.toString(row.message(), "").replaceAll("\\d+", "#")
                    : ""));
      }
    }
    List<String> details = new ArrayList<>();
    details.add(
        "reason="
            + verdict.reason()
            + " unavailable="
            + verdict.counts().unavailable()
            + " reported="
            + verdict.reported()
            + " old="
            + verdict.oldRevision()
            + " new="
            + verdict.newRevision());
    for (NodeRow row : verdict.nodes()) {
      details.add(
          nodeName.apply(row.node())
              + ": "
              + row.revision().label()
              + " "
              + row.state()
              + " "
              + row.standing()
              + " "
              + row.cause()
              + " "
              + row.reason()
              + " "
              + row.message());
    }
    return new PlayOutcome(
        verdict.phase(),
        verdict.cause(),
        pullReason(verdict.reason()),
        verdict.stalledNodes().stream().map(nodeName).toList(),
        why,
        split,
        Status.of(ds.getStatus()),
        verdict.message(),
        details);
  }

  private static String pullReason(String reason) {
    return "ErrImagePull".equals(reason) ? "ImagePullBackOff" : Objects.toString(reason, "");
  }

  /** Everything compared (all but the message and the details). */
  boolean sameAs(PlayOutcome other) {
    return phase == other.phase
        && cause == other.cause
        && reason.equals(other.reason)
        && stalledNodes.equals(other.stalledNodes)
        && stalledWhy.equals(other.stalledWhy)
        && split.equals(other.split)
        && status.equals(other.status);
  }

  /** This outcome with node names replaced by {@code rename} (names it lacks stay). */
  PlayOutcome renamed(Map<String, String> rename) {
    UnaryOperator<String> r = n -> rename.getOrDefault(n, n);
    SortedMap<String, NodeRow.Revision> renamed = new TreeMap<>();
    split.forEach((n, rev) -> renamed.put(r.apply(n), rev));
    SortedMap<String, String> why = new TreeMap<>();
    stalledWhy.forEach((n, w) -> why.put(r.apply(n), w));
    return new PlayOutcome(
        phase,
        cause,
        reason,
        stalledNodes.stream().map(r).toList(),
        why,
        renamed,
        status,
        message,
        details);
  }

  /** What one node shows: its revision in the split (or none) and whether it stalls. */
  String profile(String node) {
    return Objects.toString(split.get(node), "-") + (stalledNodes.contains(node) ? "!" : "");
  }

  /**
   * {@code new gpu-node-1 · old gpu-node-2, gpu-node-3} (revisions in the order new, old, none).
   */
  String splitText() {
    List<String> parts = new ArrayList<>();
    for (NodeRow.Revision rev :
        List.of(NodeRow.Revision.NEW, NodeRow.Revision.OLD, NodeRow.Revision.NONE)) {
      String nodes =
          split.entrySet().stream()
              .filter(e -> e.getValue() == rev)
              .map(Map.Entry::getKey)
              .collect(Collectors.joining(", "));
      if (!nodes.isEmpty()) {
        parts.add(rev.label() + " " + nodes);
      }
    }
    return parts.isEmpty() ? "–" : String.join(" · ", parts);
  }

  /** {@code ImagePull (ImagePullBackOff)}, or – when nothing stalls. */
  String causeText() {
    return cause == null ? "–" : cause.name() + " (" + reason + ")";
  }

  String stalledText() {
    return stalledNodes.isEmpty() ? "–" : String.join(", ", stalledNodes);
  }

  @Override
  public String toString() {
    return phase
        + " "
        + causeText()
        + " stalled ["
        + stalledText()
        + "] split ["
        + splitText()
        + "] status "
        + status
        + (stalledWhy.isEmpty() ? "" : " why " + stalledWhy);
  }
}
