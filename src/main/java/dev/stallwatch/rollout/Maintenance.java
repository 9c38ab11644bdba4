package dev.stallwatch.rollout;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Signs that a node is being taken out of service on purpose: a node condition of KEP-5683's node
 * lifecycle set ({@code DrainInProgress}, {@code Drained}, {@code MaintenanceInProgress}, {@code
 * MaintenancePlanned}, {@code GracefulNodeShutdownInProgress}) with status True, or the cluster
 * autoscaler's {@code ToBeDeletedByClusterAutoscaler} taint. A node-caused stall on such a node is
 * the node's doing, not the new revision's.
 */
public final class Maintenance {
  /** The node condition types that signal maintenance when True. */
  public static final List<String> CONDITIONS =
      List.of(
          "DrainInProgress",
          "Drained",
          "MaintenanceInProgress",
          "MaintenancePlanned",
          "GracefulNodeShutdownInProgress");

  /** The cluster autoscaler's taint on a node it is about to delete (value: Unix seconds). */
  public static final String AUTOSCALER_TAINT = "ToBeDeletedByClusterAutoscaler";

  /**
   * One signal: the condition type or taint key, and since when (null when the node does not say).
   */
  public record Signal(String name, Instant since) {
    /** Whether it was there before {@code t}; a signal of unknown age counts as earlier. */
    boolean before(Instant t) {
      return since == null || t == null || since.isBefore(t);
    }

    @Override
    public String toString() {
      return name + (since == null ? "" : " since " + since);
    }
  }

  private Maintenance() {}

  /** Whether a node condition of {@code type} is one of {@link #CONDITIONS}. */
  public static boolean isSignalCondition(String type) {
    return CONDITIONS.contains(type);
  }

  /**
   * The signals of a node: {@code trueConditions} (of {@link #CONDITIONS}, status True), then the
   * autoscaler's taint among {@code taints}.
   */
  public static List<Signal> signals(List<Signal> trueConditions, List<NodeView.Taint> taints) {
    if (trueConditions.isEmpty() && taints.isEmpty()) {
      return List.of(); // most nodes, read on every node change: no list made
    }
    List<Signal> out = new ArrayList<>(trueConditions);
    for (NodeView.Taint t : taints) {
      if (AUTOSCALER_TAINT.equals(t.key())) {
        out.add(new Signal(t.key(), t.timeAdded() != null ? t.timeAdded() : unixSeconds(t)));
      }
    }
    return List.copyOf(out);
  }

  /** The autoscaler writes the time it tainted the node as the taint's value, in Unix seconds. */
  private static Instant unixSeconds(NodeView.Taint t) {
    try {
      return Instant.ofEpochSecond(Long.parseLong(t.value()));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** The first signal {@code node} carried before {@code t}, if any. */
  static Optional<Signal> before(NodeView node, Instant t) {
    return node.maintenance().stream().filter(s -> s.before(t)).findFirst();
  }
}
