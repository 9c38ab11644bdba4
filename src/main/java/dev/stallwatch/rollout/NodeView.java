package dev.stallwatch.rollout;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What the analyzer reads of a node.
 *
 * @param ready the node's {@code Ready} condition, or null when the node reports none
 * @param maintenance the node's {@link Maintenance} signals: the conditions the caller found True,
 *     and the autoscaler's taint, which is read from {@code taints}
 */
public record NodeView(
    String name,
    Map<String, String> labels,
    List<Taint> taints,
    boolean unschedulable,
    Condition ready,
    Instant created,
    List<Maintenance.Signal> maintenance) {

  /** A node with no maintenance signal. */
  public NodeView(
      String name,
      Map<String, String> labels,
      List<Taint> taints,
      boolean unschedulable,
      Condition ready,
      Instant created) {
    this(name, labels, taints, unschedulable, ready, created, null);
  }

  /** The node lifecycle controller's taint on a node whose Ready condition is False. */
  public static final String NOT_READY_TAINT = "node.kubernetes.io/not-ready";

  /** The node lifecycle controller's taint on a node whose Ready condition is Unknown. */
  public static final String UNREACHABLE_TAINT = "node.kubernetes.io/unreachable";

  public NodeView {
    // One instance per node name, shared with the pods' node names (see PodView): the analysis
    // looks nodes up by their pods' target node and then compares by identity.
    name = name == null ? "" : name.intern();
    labels = labels == null ? Map.of() : Map.copyOf(labels);
    taints = taints == null ? List.of() : List.copyOf(taints);
    // The autoscaler's taint is read from the taints, whatever the caller passed for it.
    maintenance =
        Maintenance.signals(
            maintenance == null
                ? List.of()
                : maintenance.stream()
                    .filter(m -> !Maintenance.AUTOSCALER_TAINT.equals(m.name()))
                    .toList(),
            taints);
  }

  /**
   * Whether the node is down: its Ready condition is not True (or missing), or it still carries the
   * node lifecycle controller's not-ready or unreachable taint. The taint outlives the condition: a
   * node back from an outage reports Ready a moment before the controller lifts the taint, and
   * meanwhile the DaemonSet controller does not count the node as desired.
   */
  public boolean down() {
    return ready == null || NodeOutage.downSince(this) != null;
  }

  /** A node taint; {@code timeAdded} may be null. */
  public record Taint(String key, String value, String effect, Instant timeAdded) {
    public Taint {
      key = key == null ? "" : key;
      value = value == null ? "" : value;
      effect = effect == null ? "" : effect;
    }

    @Override
    public String toString() {
      return key + (value.isEmpty() ? "" : "=" + value) + ":" + effect;
    }
  }

  /** A status condition ({@code True}, {@code False} or {@code Unknown}). */
  public record Condition(String status, String reason, String message, Instant lastTransition) {}
}
