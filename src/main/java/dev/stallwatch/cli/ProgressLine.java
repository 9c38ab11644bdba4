package dev.stallwatch.cli;

import dev.stallwatch.rollout.NodeRow;
import dev.stallwatch.rollout.NodeRow.Standing;
import dev.stallwatch.rollout.RolloutVerdict;
import java.util.ArrayList;
import java.util.List;

/**
 * One line saying where a rollout stands, for {@code wait}'s progress: {@code 2/3 nodes updated;
 * node gpu-node-1 updating (ErrImagePull)}. Equal lines mean nothing moved.
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
    StringBuilder line =
        new StringBuilder()
            .append(updated)
            .append('/')
            .append(v.counts().desired())
            .append(" nodes updated");
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

  /** {@code ; pace 0.67 nodes/min …} while the rollout is Progressing; else nothing. */
  static String pace(RolloutWait.Reading reading) {
    RolloutVerdict v = reading.verdict();
    return reading.templateRecorded() && v.phase() == dev.stallwatch.rollout.Phase.Progressing
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
