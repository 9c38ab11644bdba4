package dev.stallwatch.operator.decision;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.crd.RolloutStallSpec;
import dev.stallwatch.crd.RolloutStallStatus;
import dev.stallwatch.crd.RolloutStallStatus.Rollback;
import dev.stallwatch.crd.StallName;
import dev.stallwatch.operator.decision.StallPlan.Change;
import dev.stallwatch.rollback.RollbackRecord;
import dev.stallwatch.rollout.Cause;
import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.rollout.ObjectRef;
import dev.stallwatch.rollout.RolloutVerdict;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Decides the RolloutStall lifecycle of one DaemonSet from its verdict and the stalls it already
 * has: create when stalled, update only on change, resolve when the rollout completes, moves on, is
 * rolled back or superseded, or a NodeExcluded stall is acknowledged; record a rollback on the
 * stall of the revision rolled back; delete Resolved stalls after the TTL. Pure: the caller
 * performs the writes.
 */
public final class StallPlanner {

  private final Duration resolvedTtl;

  public StallPlanner(Duration resolvedTtl) {
    this.resolvedTtl = resolvedTtl;
  }

  /**
   * Plans the writes for {@code verdict} given the DaemonSet's {@code existing} stalls.
   *
   * @param rollback the rollback record on the DaemonSet (left by {@code stallwatch undo} or the
   *     auto-rollback), if any: the stall of the revision it rolled back from records it
   * @param rollbackWithheld why the auto-rollback did not act on a due stall, or null
   * @param nodes whether the cluster still has a node, and whether it is down: a stall whose nodes
   *     were all deleted is resolved {@link Resolution#NodeRemoved}; one with a node down is not
   *     resolved
   */
  public StallPlan plan(
      RolloutVerdict verdict,
      Collection<RolloutStall> existing,
      Optional<RollbackRecord> rollback,
      Instant now,
      String rollbackWithheld,
      StallNodes nodes) {
    String currentHash = verdict.newHash();
    String currentName = StallName.of(verdict.daemonSet().name(), currentHash);
    List<Change> changes = new ArrayList<>();
    RolloutStall active = null;
    Instant nextExpiry = null;
    boolean currentSeen = false;
    for (RolloutStall stall : existing) {
      RolloutStallStatus previous = stall.getStatus();
      boolean isCurrent = stall.getMetadata().getName().equals(currentName);
      currentSeen |= isCurrent;
      Rollback rolledBack = StallRecord.rollback(stall.getSpec().revision(), rollback, previous);
      boolean handEdited = StallRecord.vandalised(previous);
      if (previous != null && previous.active()) {
        var resolution = Resolution.of(stall, verdict, nodes);
        if (resolution.isPresent()) {
          Resolution why = resolution.get();
          String message = why.describe(verdict.daemonSet().name(), stall.getSpec().revision());
          if (why == Resolution.RolledBack && rolledBack == null) {
            // Rolled back by another client (kubectl rollout undo, a GitOps revert): recorded
            // all the same, so that the auto-rollback never rolls the restored revision back.
            rolledBack =
                new Rollback(stall.getSpec().revision(), currentHash, now.toString(), null);
          }
          if (why == Resolution.RolledBack && rolledBack.by() != null) {
            message += " by " + rolledBack.by();
          }
          RolloutStall next =
              withStatus(
                  stall,
                  StallRecord.resolved(previous, why, message, now).withRollback(rolledBack));
          changes.add(Change.resolve(next, previous, why, handEdited));
        } else if (!verdict.stalled()) {
          // Held open by an outage (Resolution): nothing is judged now; the record stays as it
          // was, not rewritten from a verdict that sees no stalled node.
          active = stall;
        } else {
          RolloutStall next =
              withStatus(
                  stall,
                  StallRecord.active(verdict, previous, now, rollbackWithheld)
                      .withRollback(rolledBack));
          active = next;
          if (next.getStatus() != previous) {
            changes.add(Change.update(next, previous, StallTransition.STILL_STALLED, handEdited));
          }
        }
        continue;
      }
      if (isCurrent && stallsAgain(stall, verdict)) {
        RolloutStall next =
            withStatus(
                stall,
                StallRecord.active(verdict, previous, now, rollbackWithheld)
                    .withRollback(rolledBack));
        active = next;
        // A status in no phase of ours was edited by hand: the stall goes on, repaired without a
        // second RolloutStalled Event. A resolved stall (or one without status) stalls anew.
        boolean repaired =
            previous != null && !RolloutStallStatus.RESOLVED.equals(previous.phase()) && handEdited;
        changes.add(
            Change.update(
                next,
                previous,
                repaired ? StallTransition.STILL_STALLED : StallTransition.STALLED,
                handEdited));
        continue;
      }
      Instant expiry = expiry(stall);
      boolean keptByAcknowledgement = isCurrent && stall.acknowledged() && verdict.stalled();
      if (!keptByAcknowledgement && expiry != null && !expiry.isAfter(now)) {
        changes.add(Change.delete(stall, previous));
        continue;
      }
      if (!keptByAcknowledgement && expiry != null) {
        nextExpiry = nextExpiry == null || expiry.isBefore(nextExpiry) ? expiry : nextExpiry;
      }
      if (previous != null && !Objects.equals(rolledBack, previous.rollback())) {
        // Already resolved when the rollback was recorded (e.g. `stallwatch undo` after the
        // rollout moved on): the record still belongs on the stall of the revision rolled back.
        changes.add(
            Change.update(
                withStatus(stall, previous.withRollback(rolledBack)),
                previous,
                StallTransition.UNCHANGED,
                handEdited));
      }
    }
    if (verdict.stalled() && !currentSeen) {
      RolloutStall created = newStall(verdict, currentName);
      created.setStatus(StallRecord.active(verdict, null, now, rollbackWithheld));
      active = created;
      changes.add(Change.create(created));
    }
    return new StallPlan(changes, active, nextExpiry, verdict.causeOrUnknown());
  }

  // A resolved stall of the current revision comes back, unless it was an acknowledged exclusion.
  private static boolean stallsAgain(RolloutStall stall, RolloutVerdict verdict) {
    if (!verdict.stalled()) {
      return false;
    }
    return !(stall.acknowledged() && verdict.cause() == Cause.NodeExcluded);
  }

  private Instant expiry(RolloutStall stall) {
    RolloutStallStatus status = stall.getStatus();
    if (status == null) {
      return null;
    }
    // Without a readable resolvedAt (a hand-edited one), keep the stall rather than guess.
    return status.resolvedAtTime().map(at -> at.plus(resolvedTtl)).orElse(null);
  }

  private static RolloutStall newStall(RolloutVerdict verdict, String name) {
    ObjectRef ds = verdict.daemonSet();
    RolloutStall stall = new RolloutStall();
    stall.setMetadata(
        new ObjectMetaBuilder()
            .withNamespace(ds.namespace())
            .withName(name)
            .withLabels(
                Map.of(
                    MetadataKeys.DAEMONSET_LABEL,
                    labelValue(ds.name()),
                    "app.kubernetes.io/managed-by",
                    "stallwatch"))
            .withOwnerReferences(
                new OwnerReferenceBuilder()
                    .withApiVersion(verdict.apiVersion())
                    .withKind("DaemonSet")
                    .withName(ds.name())
                    .withUid(ds.uid())
                    .build())
            .build());
    stall.setSpec(
        new RolloutStallSpec(ds.name(), verdict.newHash(), verdict.apiVersion(), "DaemonSet"));
    return stall;
  }

  // Label values are at most 63 characters; the spec keeps the full name.
  private static String labelValue(String name) {
    return name.length() <= 63 ? name : name.substring(0, 63).replaceAll("[^a-zA-Z0-9]+$", "");
  }

  private static RolloutStall withStatus(RolloutStall stall, RolloutStallStatus status) {
    RolloutStall copy = new RolloutStall();
    copy.setMetadata(stall.getMetadata());
    copy.setSpec(stall.getSpec());
    copy.setStatus(status);
    return copy;
  }
}
