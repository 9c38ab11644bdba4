package dev.stallwatch.rollout;

import dev.stallwatch.rollout.NodeRow.Standing;
import java.util.List;

/** Decides the phase and words it: a CamelCase reason and one sentence a person can act on. */
record PhaseReport(Phase phase, String reason, String message) {

  static PhaseReport of(
      DaemonSetView ds,
      RevisionSplit split,
      Counts counts,
      List<NodeRow> rows,
      List<NodeRow> stalled,
      boolean complete,
      boolean observedCurrent,
      Coverage coverage) {
    String target = describe(split.newSummary());
    long updated =
        rows.stream()
            .filter(r -> r.standing() == Standing.UPDATED || r.standing() == Standing.UNAVAILABLE)
            .count();
    String progress = updated + " of " + counts.desired() + " nodes updated";
    String lacking = String.join("; ", coverage.missing());
    if (complete && !coverage.full()) {
      DaemonSetView.Status st = ds.status();
      return new PhaseReport(
          Phase.Complete,
          "RolloutComplete",
          ".status reports all "
              + st.desiredNumberScheduled()
              + " desired nodes updated and available ("
              + lacking
              + ", so not recounted)");
    }
    if (complete) {
      return new PhaseReport(
          Phase.Complete,
          "RolloutComplete",
          "all " + counts.desired() + " desired nodes run revision " + target + ", available");
    }
    if (ds.strategy().onDelete()) {
      if (coverage.full() || ds.status() == null) {
        return new PhaseReport(
            Phase.OnDelete,
            "OnDelete",
            progress + " to revision " + target + "; old pods are replaced only when deleted");
      }
      DaemonSetView.Status st = ds.status();
      return new PhaseReport(
          Phase.OnDelete,
          "OnDelete",
          ".status reports "
              + st.updatedNumberScheduled()
              + " of "
              + st.desiredNumberScheduled()
              + " desired nodes updated to revision "
              + target
              + "; old pods are replaced only when deleted; "
              + lacking);
    }
    if (!stalled.isEmpty()) {
      NodeRow first = stalled.get(0);
      String more = stalled.size() > 1 ? " (and " + (stalled.size() - 1) + " more)" : "";
      return new PhaseReport(
          Phase.Stalled,
          first.reason(),
          "rollout to revision "
              + target
              + " stopped on node "
              + first.node()
              + more
              + ": "
              + first.cause()
              + ": "
              + first.message());
    }
    if (ds.status() == null || ds.status().observedGeneration() == null) {
      return new PhaseReport(
          Phase.Progressing,
          "StatusNotReported",
          "the DaemonSet controller has not reported status yet; "
              + progress
              + (coverage.full() ? "" : "; " + lacking));
    }
    if (!observedCurrent) {
      return new PhaseReport(
          Phase.Progressing,
          "GenerationNotObserved",
          "generation "
              + ds.generation()
              + " not yet observed by the DaemonSet controller (observed "
              + ds.status().observedGeneration()
              + ")"
              + (coverage.full() ? "" : "; " + lacking));
    }
    NodeRow updating =
        rows.stream().filter(r -> r.standing() == Standing.UPDATING).findFirst().orElse(null);
    if (updating != null) {
      return new PhaseReport(
          Phase.Progressing,
          "Updating",
          progress
              + "; node "
              + updating.node()
              + " updating to revision "
              + target
              + " ("
              + updating.reason()
              + ")"
              + (coverage.full() ? "" : "; " + lacking));
    }
    List<String> down =
        rows.stream().filter(r -> r.standing() == Standing.UNAVAILABLE).map(NodeRow::node).toList();
    if (!down.isEmpty()) {
      return new PhaseReport(
          Phase.Progressing,
          "NodesUnavailable",
          progress
              + "; "
              + (down.size() == 1 ? "node " : "nodes ")
              + String.join(", ", down)
              + (down.size() == 1 ? " is" : " are")
              + " not Ready since after the rollout passed "
              + (down.size() == 1 ? "it" : "them")
              + " (an outage, not a rollout stall)");
    }
    if (!coverage.full()) {
      DaemonSetView.Status st = ds.status();
      return new PhaseReport(
          Phase.Progressing,
          "StatusIncomplete",
          ".status reports "
              + st.updatedNumberScheduled()
              + " of "
              + st.desiredNumberScheduled()
              + " desired nodes updated, "
              + st.numberAvailable()
              + " available"
              + (st.numberReady() < st.numberAvailable()
                  ? " but only " + st.numberReady() + " ready"
                  : "")
              + (st.numberMisscheduled() > 0
                  ? ", " + st.numberMisscheduled() + " misscheduled"
                  : "")
              + "; "
              + lacking
              + ", so stallwatch cannot recount which node holds the rollout");
    }
    return new PhaseReport(
        Phase.Progressing, "WaitingForBudget", progress + "; waiting for the rollout budget");
  }

  static String describe(RevisionSummary revision) {
    return revision == null ? "unknown (not in the input)" : revision.describe();
  }
}
