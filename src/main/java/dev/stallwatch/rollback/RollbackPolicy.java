package dev.stallwatch.rollback;

import dev.stallwatch.rollout.Durations;
import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.rollout.RevisionSummary;
import dev.stallwatch.rollout.RolloutVerdict;
import dev.stallwatch.rollout.Suspect;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Decides whether the operator rolls a stalled DaemonSet back on its own. Off unless both the
 * global switch ({@code --auto-rollback}) and the DaemonSet's annotation {@value
 * MetadataKeys#AUTO_ROLLBACK} say so; then once the stall has lasted {@code delay}, back to the old
 * revision — once per stalled revision, only when the analyzer suspects the new revision (else the
 * rollback is withheld, and says why), and never when the stalled revision is itself the result of
 * a rollback. Pure: the caller passes {@code now} and what was done before.
 */
public final class RollbackPolicy {

  private final boolean enabled;
  private final Duration delay;

  /**
   * @param enabled the global switch
   * @param delay how long a stall lasts before it is rolled back
   */
  public RollbackPolicy(boolean enabled, Duration delay) {
    if (delay == null || delay.isNegative()) {
      throw new IllegalArgumentException("the auto-rollback delay must be a positive duration");
    }
    this.enabled = enabled;
    this.delay = delay;
  }

  /** True when the DaemonSet's annotations opt in. */
  public static boolean optedIn(Map<String, String> annotations) {
    return annotations != null
        && "true".equalsIgnoreCase(annotations.getOrDefault(MetadataKeys.AUTO_ROLLBACK, "").trim());
  }

  /**
   * Decides for one DaemonSet.
   *
   * @param verdict the analyzer's verdict now
   * @param annotations the DaemonSet's annotations (the opt-in and the {@link RollbackRecord})
   * @param prior rollbacks recorded elsewhere (on the RolloutStalls); the DaemonSet's own record is
   *     read from {@code annotations}
   */
  public RollbackDecision decide(
      RolloutVerdict verdict,
      Map<String, String> annotations,
      List<RollbackRecord> prior,
      Instant now) {
    if (!enabled) {
      return RollbackDecision.no("auto-rollback is off (--auto-rollback=false)");
    }
    if (!optedIn(annotations)) {
      return RollbackDecision.no(
          "the DaemonSet does not opt in with the annotation "
              + MetadataKeys.AUTO_ROLLBACK
              + ": \"true\"");
    }
    if (!verdict.stalled()) {
      return RollbackDecision.no("the rollout is " + verdict.phase() + ", not Stalled");
    }
    RevisionSummary stalled = verdict.newRevision();
    if (stalled == null || stalled.hash().isEmpty()) {
      return RollbackDecision.no("the stalled revision is not known");
    }
    String hash = stalled.hash();
    for (RollbackRecord record : records(annotations, prior)) {
      if (record.to().equals(hash)) {
        return RollbackDecision.no(
            "revision "
                + hash
                + " is itself the result of a rollback; never rolling back a rollback");
      }
      if (record.from().equals(hash)) {
        return RollbackDecision.no(
            "revision " + hash + " was already rolled back once" + when(record) + "; not again");
      }
    }
    RevisionSummary old = verdict.oldRevision();
    if (old == null || old.revision() == null || old.hash().isEmpty() || old.hash().equals(hash)) {
      return RollbackDecision.no("there is no earlier revision to roll back to");
    }
    if (verdict.stalledSince() == null) {
      return RollbackDecision.no("the stall has no start time");
    }
    Instant due = verdict.stalledSince().plus(delay);
    if (now.isBefore(due)) {
      return RollbackDecision.notYet(
          "stalled for "
              + Durations.compact(Duration.between(verdict.stalledSince(), now))
              + "; rolls back once stalled for "
              + Durations.compact(delay),
          due);
    }
    if (verdict.suspect() != Suspect.NewRevision) {
      // Rolling back a revision that is not to blame churns every node for nothing.
      return RollbackDecision.withheld(
          "not rolled back: the suspect is "
              + (verdict.suspect() == null ? Suspect.Unknown : verdict.suspect())
              + ", not the new revision"
              + (verdict.suspectReason() == null ? "" : " (" + verdict.suspectReason() + ")"));
    }
    return new RollbackDecision(
        true,
        RollbackTarget.hash(old.hash(), hash),
        old.revision(),
        "stalled for "
            + Durations.compact(Duration.between(verdict.stalledSince(), now))
            + " ("
            + verdict.cause()
            + " on "
            + String.join(", ", verdict.stalledNodes())
            + "): rolling back from revision "
            + label(stalled)
            + " to revision "
            + label(old),
        null,
        false);
  }

  private static Iterable<RollbackRecord> records(
      Map<String, String> annotations, List<RollbackRecord> prior) {
    List<RollbackRecord> all = new ArrayList<>();
    RollbackRecord.fromAnnotations(annotations).ifPresent(all::add);
    all.addAll(prior);
    return all;
  }

  private static String label(RevisionSummary r) {
    return r.revision() == null ? r.hash() : r.revision() + " (" + r.hash() + ")";
  }

  private static String when(RollbackRecord record) {
    return record.at() == null ? "" : " at " + record.at();
  }
}
