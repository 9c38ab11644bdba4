package dev.stallwatch.operator.decision;

import dev.stallwatch.crd.RolloutStallStatus;
import dev.stallwatch.crd.RolloutStallStatus.NodeSplit;
import dev.stallwatch.crd.RolloutStallStatus.Revision;
import dev.stallwatch.crd.RolloutStallStatus.Rollback;
import dev.stallwatch.crd.RolloutStallStatus.StallCounts;
import dev.stallwatch.crd.RolloutStallStatus.StalledNode;
import dev.stallwatch.rollback.RollbackRecord;
import dev.stallwatch.rollout.Counts;
import dev.stallwatch.rollout.NodeRow;
import dev.stallwatch.rollout.RevisionNodes;
import dev.stallwatch.rollout.RevisionSummary;
import dev.stallwatch.rollout.RolloutVerdict;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Builds the status a RolloutStall should have from the analyzer's verdict and the status it has
 * now. Returns the previous status itself when nothing but the observation time would change, so
 * the caller writes only real changes; keeps {@code stalledSince} of an active stall (also across
 * operator restarts), the {@code lastTransitionTime} of a condition whose status holds, and the
 * record of a rollback for the life of the stall.
 */
public final class StallRecord {
  /** The condition type: True while the rollout is stalled. */
  public static final String STALLED = "Stalled";

  private StallRecord() {}

  /** The status of a stall the verdict reports as ongoing. */
  public static RolloutStallStatus active(
      RolloutVerdict verdict, RolloutStallStatus previous, Instant now) {
    return active(verdict, previous, now, null);
  }

  /**
   * The status of a stall the verdict reports as ongoing.
   *
   * @param rollbackWithheld why a due auto-rollback was not done, or null
   */
  public static RolloutStallStatus active(
      RolloutVerdict verdict, RolloutStallStatus previous, Instant now, String rollbackWithheld) {
    String cause = verdict.causeOrUnknown().name();
    // The stall carries on unless it was resolved; a stalledSince that is no time (edited by
    // hand) is replaced by the verdict's.
    String since =
        carriesOn(previous)
            ? previous.stalledSince()
            : Objects.requireNonNullElse(verdict.stalledSince(), now).toString();
    Counts counts = verdict.counts();
    RevisionNodes split = verdict.split();
    int old = split.oldNodes().size();
    int updated = split.newNodes().size();
    int none = split.noneNodes().size();
    RolloutStallStatus candidate =
        RolloutStallStatus.builder()
            .phase(RolloutStallStatus.ACTIVE)
            .node(verdict.stalledNodes().isEmpty() ? null : verdict.stalledNodes().get(0))
            .nodes(stalledNodes(verdict))
            .stalledNodeCount(verdict.stalledNodes().size())
            .cause(cause)
            .reason(verdict.reason())
            .message(verdict.message())
            .evidence(verdict.evidence().name())
            .suspect(verdict.suspect() == null ? null : verdict.suspect().name())
            .suspectReason(verdict.suspectReason())
            .oldRevision(revision(verdict.oldRevision()))
            .newRevision(revision(verdict.newRevision()))
            .counts(counts == null ? null : stallCounts(counts))
            .ready(counts == null ? null : counts.ready() + "/" + counts.desired())
            .split(
                new NodeSplit(
                    old,
                    updated,
                    none,
                    old + " old / " + updated + " new / " + none + " none",
                    listed(split.oldNodes()),
                    listed(split.newNodes()),
                    listed(split.noneNodes())))
            .stalledSince(since)
            .lastObserved(now.toString())
            .rollback(previous == null ? null : previous.rollback())
            .rollbackWithheld(rollbackWithheld)
            .conditions(List.of(condition(previous, "True", cause, verdict.message(), now)))
            .build();
    return unlessOnlyObservationTimeChanged(previous, candidate);
  }

  /**
   * Whether {@code previous} is a stall that goes on: Active — or in no phase stallwatch writes
   * (edited by hand), which is repaired, not restarted — with a readable {@code stalledSince}.
   */
  static boolean carriesOn(RolloutStallStatus previous) {
    if (previous == null || RolloutStallStatus.RESOLVED.equals(previous.phase())) {
      return false;
    }
    return previous.stalledSinceTime().isPresent();
  }

  /**
   * Whether {@code status} holds what stallwatch did not write: a phase other than Active and
   * Resolved, an unreadable {@code stalledSince}, a negative node count. Such a status was edited
   * by hand; the next reconcile rewrites it.
   */
  public static boolean vandalised(RolloutStallStatus status) {
    if (status == null) {
      return false;
    }
    boolean knownPhase =
        RolloutStallStatus.ACTIVE.equals(status.phase())
            || RolloutStallStatus.RESOLVED.equals(status.phase());
    boolean negative = status.stalledNodeCount() != null && status.stalledNodeCount() < 0;
    boolean unreadableSince = status.stalledSince() != null && status.stalledSinceTime().isEmpty();
    return !knownPhase || negative || unreadableSince;
  }

  /** The status of a stall that is over for {@code why}; unchanged when already resolved. */
  public static RolloutStallStatus resolved(
      RolloutStallStatus previous, Resolution why, String message, Instant now) {
    if (previous != null && !previous.active() && previous.resolvedAt() != null) {
      return previous;
    }
    RolloutStallStatus.Builder base =
        previous != null ? previous.toBuilder() : RolloutStallStatus.builder();
    return base.phase(RolloutStallStatus.RESOLVED)
        .lastObserved(now.toString())
        .resolvedAt(now.toString())
        .conditions(List.of(condition(previous, "False", why.name(), message, now)))
        .build();
  }

  /**
   * The rollback of the stall's revision: the one {@code record} on the DaemonSet describes when it
   * rolled back from {@code revision}, else the one the stall already holds (a later record on the
   * DaemonSet, about another revision, replaces nothing).
   */
  public static Rollback rollback(
      String revision, Optional<RollbackRecord> record, RolloutStallStatus previous) {
    Rollback kept = previous == null ? null : previous.rollback();
    return record
        .filter(r -> r.from().equals(revision))
        .map(r -> new Rollback(r.from(), r.to(), r.at() == null ? null : r.at().toString(), r.by()))
        .orElse(kept);
  }

  /** The rollback a stall records, in the form the auto-rollback policy reads. */
  public static Optional<RollbackRecord> rollbackRecord(RolloutStallStatus status) {
    if (status == null || status.rollback() == null || status.rollback().from() == null) {
      return Optional.empty();
    }
    Rollback r = status.rollback();
    // An unreadable (hand-edited) time is null: the hashes are what matter.
    return Optional.of(new RollbackRecord(r.from(), r.to(), r.atTime().orElse(null), r.by()));
  }

  private static RolloutStallStatus unlessOnlyObservationTimeChanged(
      RolloutStallStatus previous, RolloutStallStatus candidate) {
    if (previous != null && candidate.withLastObserved(previous.lastObserved()).equals(previous)) {
      return previous;
    }
    return candidate;
  }

  private static Condition condition(
      RolloutStallStatus previous, String status, String reason, String message, Instant now) {
    String since = now.toString();
    if (previous != null && previous.conditions() != null) {
      for (Condition c : previous.conditions()) {
        if (STALLED.equals(c.getType()) && status.equals(c.getStatus())) {
          since = c.getLastTransitionTime();
        }
      }
    }
    return new ConditionBuilder()
        .withType(STALLED)
        .withStatus(status)
        .withReason(reason)
        .withMessage(message)
        .withLastTransitionTime(since)
        .build();
  }

  private static List<StalledNode> stalledNodes(RolloutVerdict verdict) {
    Map<String, NodeRow> rows =
        verdict.nodes().stream()
            .collect(Collectors.toMap(NodeRow::node, Function.identity(), (a, b) -> a));
    return verdict.stalledNodes().stream()
        .map(
            name -> {
              NodeRow row = rows.get(name);
              if (row == null) {
                return StalledNode.named(name);
              }
              return new StalledNode(
                  name,
                  row.pod(),
                  row.cause() == null ? null : row.cause().name(),
                  row.reason(),
                  row.message(),
                  row.since() == null ? null : row.since().toString(),
                  row.suspect() == null ? null : row.suspect().name());
            })
        .toList();
  }

  private static List<String> listed(List<String> names) {
    return names.size() <= NodeSplit.MAX_LISTED ? names : names.subList(0, NodeSplit.MAX_LISTED);
  }

  private static Revision revision(RevisionSummary summary) {
    if (summary == null) {
      return null;
    }
    return new Revision(
        summary.hash(), summary.revision(), summary.images(), String.join(", ", summary.images()));
  }

  private static StallCounts stallCounts(Counts c) {
    return new StallCounts(
        c.desired(),
        c.current(),
        c.ready(),
        c.upToDate(),
        c.available(),
        c.unavailable(),
        c.misscheduled());
  }

  /** The message of a RolloutStalled event: node, cause, revisions. */
  public static String stalledMessage(RolloutStallStatus s) {
    return "Rollout stalled on node "
        + s.node()
        + (s.stalledNodeCount() != null && s.stalledNodeCount() > 1
            ? " (+" + (s.stalledNodeCount() - 1) + " more)"
            : "")
        + ": "
        + s.cause()
        + (s.reason() == null ? "" : " (" + s.reason() + ")")
        + suspect(s)
        + "; old revision "
        + revision(s.oldRevision())
        + ", new revision "
        + revision(s.newRevision())
        + "; "
        + s.ready()
        + " ready";
  }

  /** {@code ; suspect NewRevision: rollback would help, because …}. */
  private static String suspect(RolloutStallStatus s) {
    if (s.suspect() == null) {
      return "";
    }
    String helps =
        switch (s.suspect()) {
          case "NewRevision" -> "rollback would help";
          case "Node" -> "rollback would not help";
          default -> "whether rollback would help is unknown";
        };
    return "; suspect "
        + s.suspect()
        + ": "
        + helps
        + (s.suspectReason() == null ? "" : ", because " + s.suspectReason());
  }

  private static String revision(RolloutStallStatus.Revision r) {
    if (r == null) {
      return "-";
    }
    return r.hash() + (r.image() == null || r.image().isEmpty() ? "" : " [" + r.image() + "]");
  }
}
