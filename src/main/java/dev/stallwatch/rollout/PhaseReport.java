package dev.stallwatch.rollout;

import dev.stallwatch.rollout.NodeRow.Standing;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Decides the phase and words it: a CamelCase reason and one sentence a person can act on. An
 * ordered table, as {@link CauseRules} is: the first row whose condition holds gives the phase, the
 * reason ({@link PhaseReason}; for {@link Phase#Stalled} the stalled node's own) and the message.
 */
record PhaseReport(Phase phase, String reason, String message) {

  /**
   * What the rows look at; {@code updating} (the first node updating, or null) and {@code down}
   * (the nodes unavailable after the rollout passed them) come from the one walk over the rows.
   */
  private record Facts(
      DaemonSetView ds,
      Counts counts,
      NodeRow updating,
      List<String> down,
      List<NodeRow> stalled,
      boolean complete,
      boolean observedCurrent,
      Coverage coverage,
      String target,
      String progress,
      int unavailable,
      int inMaintenance,
      UpdateScope scope) {

    /** {@code "; 2 nodes held by partition 2"}, or nothing when no node is held. */
    String andHeld() {
      int n = scope.count();
      return n == 0 ? "" : "; " + n + (n == 1 ? " node" : " nodes") + " held by " + scope.by();
    }

    /** The recount's progress, or with nothing recounted what {@code .status} reports. */
    String progressOrReported() {
      if (full() || ds.status() == null) {
        return progress;
      }
      return ".status reports "
          + ds.status().updatedNumberScheduled()
          + " of "
          + ds.status().desiredNumberScheduled()
          + " nodes updated";
    }

    boolean paused() {
      return ds.advanced() != null && ds.advanced().paused();
    }

    boolean full() {
      return coverage.full();
    }

    /** The input's gaps in words; empty with full coverage. */
    String lacking() {
      return String.join("; ", coverage.missing());
    }

    /** {@code "; "} and the gaps, or nothing with full coverage. */
    String andLacking() {
      return full() ? "" : "; " + lacking();
    }

    boolean statusReported() {
      return ds.status() != null && ds.status().observedGeneration() != null;
    }
  }

  /** One row: when it applies, the phase and reason it gives (null: the stalled node's). */
  private record Row(
      Phase phase, PhaseReason reason, Predicate<Facts> when, Function<Facts, String> message) {}

  private static final List<Row> ROWS =
      List.of(
          new Row(
              Phase.Paused,
              PhaseReason.Paused,
              Facts::paused,
              f ->
                  "rollout paused (rollingUpdate.paused); "
                      + f.progressOrReported()
                      + " to revision "
                      + f.target()
                      + (f.stalled().isEmpty()
                          ? ""
                          : "; node "
                              + f.stalled().get(0).node()
                              + " would hold it back ("
                              + f.stalled().get(0).cause()
                              + ")")
                      + f.andHeld()
                      + f.andLacking()),
          new Row(
              Phase.Complete,
              PhaseReason.RolloutComplete,
              f -> f.complete() && !f.full(),
              PhaseReport::completePerStatus),
          new Row(
              Phase.Complete,
              PhaseReason.RolloutComplete,
              Facts::complete,
              f ->
                  (f.scope().count() == 0
                          ? "all " + f.counts().desired() + " desired nodes run revision "
                          : "all "
                              + (f.counts().desired() - f.scope().count())
                              + " of "
                              + f.counts().desired()
                              + " desired nodes the rollout may update run revision ")
                      + f.target()
                      + ", available"
                      + f.andHeld()),
          new Row(
              Phase.OnDelete,
              PhaseReason.OnDelete,
              f -> f.ds().strategy().onDelete() && (f.full() || f.ds().status() == null),
              f ->
                  f.progress()
                      + " to revision "
                      + f.target()
                      + "; old pods are replaced only when deleted"),
          new Row(
              Phase.OnDelete,
              PhaseReason.OnDelete,
              f -> f.ds().strategy().onDelete(),
              PhaseReport::onDeletePerStatus),
          new Row(Phase.Stalled, null, f -> !f.stalled().isEmpty(), PhaseReport::stalledMessage),
          new Row(
              Phase.Progressing,
              PhaseReason.StatusNotReported,
              f -> !f.statusReported(),
              f ->
                  "the DaemonSet controller has not reported status yet; "
                      + f.progress()
                      + f.andLacking()),
          new Row(
              Phase.Progressing,
              PhaseReason.GenerationNotObserved,
              f -> !f.observedCurrent(),
              f ->
                  "generation "
                      + f.ds().generation()
                      + " not yet observed by the DaemonSet controller (observed "
                      + f.ds().status().observedGeneration()
                      + ")"
                      + f.andLacking()),
          new Row(
              Phase.Progressing,
              PhaseReason.Updating,
              f -> f.updating() != null,
              f ->
                  f.progress()
                      + "; node "
                      + f.updating().node()
                      + " updating to revision "
                      + f.target()
                      + " ("
                      + f.updating().reason()
                      + ")"
                      + f.andHeld()
                      + f.andLacking()),
          new Row(
              Phase.Progressing,
              PhaseReason.NodesUnavailable,
              f -> !f.down().isEmpty(),
              PhaseReport::nodesUnavailable),
          new Row(
              Phase.Progressing,
              PhaseReason.StatusIncomplete,
              f -> !f.full(),
              PhaseReport::statusIncomplete),
          new Row(
              Phase.Progressing,
              PhaseReason.WaitingForBudget,
              f -> true,
              f -> f.progress() + "; waiting for the rollout budget" + f.andHeld()));

  static PhaseReport of(
      DaemonSetView ds,
      RevisionSplit split,
      Counts counts,
      List<NodeRow> rows,
      List<NodeRow> stalled,
      boolean complete,
      boolean observedCurrent,
      Coverage coverage,
      Predicate<String> maintained,
      UpdateScope scope) {
    // One walk over the rows (5,000 at 5,000 nodes) for all the table asks of them.
    long updated = 0;
    NodeRow updating = null;
    List<String> down = new ArrayList<>();
    int unavailable = 0;
    int inMaintenance = 0;
    for (NodeRow r : rows) {
      Standing standing = r.standing();
      if (standing == Standing.UPDATING
          || standing == Standing.STUCK
          || standing == Standing.UNAVAILABLE) {
        unavailable++;
        if (maintained.test(r.node())) {
          inMaintenance++;
        }
      }
      if (standing == Standing.UPDATED || standing == Standing.UNAVAILABLE) {
        updated++;
      }
      if (standing == Standing.UPDATING && updating == null) {
        updating = r;
      }
      if (standing == Standing.UNAVAILABLE) {
        down.add(r.node());
      }
    }
    Facts facts =
        new Facts(
            ds,
            counts,
            updating,
            down,
            stalled,
            complete,
            observedCurrent,
            coverage,
            describe(split.newSummary()),
            updated + " of " + counts.desired() + " nodes updated",
            unavailable,
            inMaintenance,
            scope);
    for (Row row : ROWS) {
      if (row.when().test(facts)) {
        String reason = row.reason() == null ? stalled.get(0).reason() : row.reason().name();
        return new PhaseReport(row.phase(), reason, row.message().apply(facts));
      }
    }
    throw new IllegalStateException("the last row applies to every input");
  }

  private static String completePerStatus(Facts f) {
    DaemonSetView.Status st = f.ds().status();
    int held = f.ds().heldPerStatus();
    if (held > 0) {
      return ".status reports "
          + st.updatedNumberScheduled()
          + " of "
          + st.desiredNumberScheduled()
          + " desired nodes updated and all available; "
          + held
          + (held == 1 ? " node" : " nodes")
          + " held by partition "
          + held
          + " ("
          + f.lacking()
          + ", so not recounted)";
    }
    return ".status reports all "
        + st.desiredNumberScheduled()
        + " desired nodes updated and available ("
        + f.lacking()
        + ", so not recounted)";
  }

  private static String onDeletePerStatus(Facts f) {
    DaemonSetView.Status st = f.ds().status();
    return ".status reports "
        + st.updatedNumberScheduled()
        + " of "
        + st.desiredNumberScheduled()
        + " desired nodes updated to revision "
        + f.target()
        + "; old pods are replaced only when deleted; "
        + f.lacking();
  }

  private static String stalledMessage(Facts f) {
    NodeRow first = f.stalled().get(0);
    String more = f.stalled().size() > 1 ? " (and " + (f.stalled().size() - 1) + " more)" : "";
    return "rollout to revision "
        + f.target()
        + " stopped on node "
        + first.node()
        + more
        + ": "
        + first.cause()
        + ": "
        + first.message()
        + (f.inMaintenance() == 0
            ? ""
            : "; "
                + f.inMaintenance()
                + " of "
                + f.unavailable()
                + " unavailable "
                + (f.unavailable() == 1 ? "node is" : "nodes are")
                + " in maintenance");
  }

  private static String nodesUnavailable(Facts f) {
    List<String> down = f.down();
    boolean one = down.size() == 1;
    return f.progress()
        + "; "
        + (one ? "node " : "nodes ")
        + String.join(", ", down)
        + (one ? " is" : " are")
        + " not Ready since after the rollout passed "
        + (one ? "it" : "them")
        + " (an outage, not a rollout stall)";
  }

  private static String statusIncomplete(Facts f) {
    DaemonSetView.Status st = f.ds().status();
    return ".status reports "
        + st.updatedNumberScheduled()
        + " of "
        + st.desiredNumberScheduled()
        + " desired nodes updated, "
        + st.numberAvailable()
        + " available"
        + (st.numberReady() < st.numberAvailable()
            ? " but only " + st.numberReady() + " ready"
            : "")
        + (st.numberMisscheduled() > 0 ? ", " + st.numberMisscheduled() + " misscheduled" : "")
        + "; "
        + f.lacking()
        + ", so stallwatch cannot recount which node holds the rollout";
  }

  static String describe(RevisionSummary revision) {
    return revision == null ? "unknown (not in the input)" : revision.describe();
  }
}
