package dev.stallwatch.cli;

import dev.stallwatch.rollout.NodeRow;
import dev.stallwatch.rollout.NodeRow.Standing;
import dev.stallwatch.rollout.Phase;
import dev.stallwatch.rollout.RolloutVerdict;
import java.util.ArrayList;
import java.util.List;

/**
 * One line saying where a rollout stands, for {@code wait}'s progress: {@code 2/3 nodes updated;
 * node gpu-node-1 updating (ErrImagePull)}; an Advanced DaemonSet's adds the nodes its partition or
 * update selector holds ({@code 3/5 nodes updated, 2 held}) and whether it is paused. Equal lines
 * mean nothing moved.
 */
final class ProgressLine {

  /** More moving nodes than this are summed up as "and N more". */
  static final int NODES_SHOWN = 3;

  private ProgressLine() {}

  /**
   * The line of a reading. While no ControllerRevision stores the DaemonSet's template, the
   * analyzer's split is against an earlier revision, so the line only says what the wait waits for.
   */
  static String of(RolloutWait.Reading reading) {
    RolloutVerdict v = reading.verdict();
    if (reading.templateRecorded()) {
      return of(v);
    }
    Long observed = v.observedGeneration();
    if (observed != null && observed >= v.generation()) {
      return "waiting for the controller to record a ControllerRevision of generation "
          + v.generation();
    }
    return "waiting for the controller to observe generation "
        + v.generation()
        + (observed == null ? " (no status yet)" : " (observed " + observed + ")");
  }

  static String of(RolloutVerdict v) {
    long updated = v.nodes().stream().filter(r -> r.standing() == Standing.UPDATED).count();
    long held = held(v);
    StringBuilder line =
        new StringBuilder()
            .append(updated)
            .append('/')
            .append(v.counts().desired())
            .append(" nodes updated");
    if (held > 0) {
      // An Advanced DaemonSet's partition or update selector keeps them on the old revision.
      line.append(", ").append(held).append(" held");
    }
    if (v.phase() == Phase.Paused) {
      line.append("; paused (rollingUpdate.paused)");
    }
    List<String> moving = new ArrayList<>();
    for (NodeRow row : v.nodes()) {
      String word = word(row.standing());
      if (word != null) {
        moving.add("node " + row.node() + " " + word + " (" + state(row) + ")");
      }
    }
    if (!moving.isEmpty()) {
      line.append("; ")
          .append(String.join(", ", moving.subList(0, Math.min(NODES_SHOWN, moving.size()))));
      if (moving.size() > NODES_SHOWN) {
        line.append(", and ").append(moving.size() - NODES_SHOWN).append(" more");
      }
    }
    if (v.observedGeneration() == null || v.observedGeneration() < v.generation()) {
      line.append("; waiting for the controller to observe generation ").append(v.generation());
    }
    return line.toString();
  }

  /**
   * The nodes an Advanced DaemonSet keeps on their old revision on purpose (partition, update
   * selector, partitioned scaling): {@code held}, never waiting or stuck.
   */
  static long held(RolloutVerdict v) {
    return v.nodes().stream().filter(r -> r.standing() == Standing.HELD).count();
  }

  /** {@code ; pace 0.67 nodes/min …} while the rollout is Progressing; else nothing. */
  static String pace(RolloutWait.Reading reading) {
    RolloutVerdict v = reading.verdict();
    return reading.templateRecorded() && v.phase() == Phase.Progressing
        ? "; pace " + v.pace().describe()
        : "";
  }

  private static String word(Standing standing) {
    return switch (standing) {
      case UPDATING -> "updating";
      case STUCK -> "stuck";
      case EXCLUDED -> "excluded";
      default -> null;
    };
  }

  private static String state(NodeRow row) {
    if (row.reason() != null && !row.reason().isBlank()) {
      return row.reason();
    }
    return row.state() == null || row.state().equals("-") ? "no pod" : row.state();
  }
}
