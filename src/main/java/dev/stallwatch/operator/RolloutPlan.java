package dev.stallwatch.operator;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.rollback.RollbackDecision;
import dev.stallwatch.rollout.Pace;
import dev.stallwatch.rollout.RevisionNodes;
import io.micrometer.core.instrument.Tag;
import java.time.Instant;
import java.util.List;

/**
 * Every effect of one reconcile of one DaemonSet, as {@link RolloutDecider} decided it; {@link
 * PlanWriter} performs it in this order: log lines, RolloutStall writes (each with its own Event
 * and counter once written), Events on the DaemonSet, metrics, deletions of a deleted DaemonSet's
 * stalls. What is left for the reconciler: the rollback to do, the list of Events to read, when to
 * look again.
 *
 * @param log lines for the operator's log
 * @param stalls the RolloutStall writes; {@link #NO_WRITES} when none
 * @param events Events on the DaemonSet
 * @param metrics the DaemonSet's series as they are now; null to leave them
 * @param forget the DaemonSet is gone: drop its series
 * @param countRollback count one auto-rollback of the DaemonSet
 * @param orphans the RolloutStalls of a deleted DaemonSet, to delete
 * @param rollback an auto-rollback to do now ({@link RolloutDecider#afterRollback} decides what its
 *     outcome means); null when none
 * @param listFailedCreates the verdict needs the controller's FailedCreate Events: list them and
 *     decide again
 * @param next when to look again; null when nothing is due
 */
public record RolloutPlan(
    List<LogLine> log,
    StallPlan stalls,
    List<Notice> events,
    Metrics metrics,
    boolean forget,
    boolean countRollback,
    List<RolloutStall> orphans,
    RollbackDecision rollback,
    boolean listFailedCreates,
    Instant next) {

  static final StallPlan NO_WRITES = new StallPlan(List.of(), null, null, null);

  public RolloutPlan {
    log = List.copyOf(log);
    events = List.copyOf(events);
    orphans = List.copyOf(orphans);
  }

  /** Nothing but these lines, then a look at {@code next} (null: none). */
  static RolloutPlan only(List<LogLine> log, Instant next) {
    return new RolloutPlan(
        log, NO_WRITES, List.of(), null, false, false, List.of(), null, false, next);
  }

  /** Read the controller's FailedCreate Events, then decide again. */
  static RolloutPlan toListFailedCreates() {
    return new RolloutPlan(
        List.of(), NO_WRITES, List.of(), null, false, false, List.of(), null, true, null);
  }

  /** A line for the operator's log. */
  public record LogLine(Level level, String message) {
    public enum Level {
      DEBUG,
      INFO,
      WARN
    }

    static LogLine debug(String message) {
      return new LogLine(Level.DEBUG, message);
    }

    static LogLine info(String message) {
      return new LogLine(Level.INFO, message);
    }

    static LogLine warn(String message) {
      return new LogLine(Level.WARN, message);
    }
  }

  /** An Event on the DaemonSet ({@link StallEvents}' reasons). */
  public record Notice(boolean warning, String reason, String message) {
    static Notice normal(String reason, String message) {
      return new Notice(false, reason, message);
    }

    static Notice warning(String reason, String message) {
      return new Notice(true, reason, message);
    }
  }

  /**
   * The DaemonSet's series: which nodes run which revision, its active stall, routing labels, pace.
   */
  public record Metrics(
      RevisionNodes split,
      StallMetrics.ActiveStall active,
      List<Tag> routing,
      Pace pace,
      boolean paused) {}
}
