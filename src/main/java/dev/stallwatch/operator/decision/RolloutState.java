package dev.stallwatch.operator.decision;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.crd.RolloutStallStatus;
import dev.stallwatch.rollback.RollbackRecord;
import dev.stallwatch.rollout.EventView;
import dev.stallwatch.rollout.StallMemory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the operator remembers of one DaemonSet between two reconciles; everything else it reads
 * from the caches afresh. Immutable: {@link RolloutDecider} returns the next one with its plan, and
 * a deleted DaemonSet is forgotten by dropping its record.
 *
 * @param memory since when each node has held back which revision (null: nothing remembered; then
 *     it is seeded from the active RolloutStall, so stalledSince survives an operator restart)
 * @param invalid the generation and problem of the last {@code InvalidDaemonSet} Warning, or null
 * @param lagSince since when the caches lag behind each other ({@link Instant#MAX}: longer than the
 *     limit, said so, analyzed all the same), or null
 * @param confirming a stall being looked at again before it is recorded, or null
 * @param failedCreates the controller's FailedCreate Events as last listed, or null
 * @param refusal the auto-rollback last refused, or null
 * @param ownRollbacks the rollbacks this operator did (its caches may not show them yet)
 * @param unannounced RolloutStalls whose first write failed with its outcome unknown: announced by
 *     the next plan that finds them Active without announcing them itself
 */
public record RolloutState(
    StallMemory memory,
    String invalid,
    Instant lagSince,
    Confirming confirming,
    Listed failedCreates,
    Refusal refusal,
    List<RollbackRecord> ownRollbacks,
    java.util.Set<String> unannounced) {

  /** A DaemonSet seen for the first time. */
  public static final RolloutState NEW =
      new RolloutState(null, null, null, null, null, null, List.of(), java.util.Set.of());

  public RolloutState {
    ownRollbacks = List.copyOf(ownRollbacks);
    unannounced = unannounced == null ? java.util.Set.of() : java.util.Set.copyOf(unannounced);
  }

  /** A stall being confirmed: of which revision, since when. */
  public record Confirming(String hash, Instant since) {}

  /** An auto-rollback that could not be done: of which stalled revision, why, when to retry. */
  public record Refusal(String hash, String reason, Instant retryAt) {}

  /**
   * The controller's FailedCreate Events, listed at {@code at}; {@link #WANTED} (no time): wanted,
   * not listed yet.
   */
  public record Listed(Instant at, List<EventView> events) {
    /** A verdict wants the Events; none were listed yet. */
    public static final Listed WANTED = new Listed(null, List.of());

    public Listed {
      events = List.copyOf(events);
    }
  }

  /**
   * Whether this reconcile is to list the controller's FailedCreate Events before it decides: the
   * last verdict wanted them, and they were never listed or not for {@link
   * RolloutDecider#EVENTS_REFRESH}.
   */
  public boolean failedCreatesDue(Instant now) {
    return failedCreates != null
        && (failedCreates.at() == null
            || !now.isBefore(failedCreates.at().plus(RolloutDecider.EVENTS_REFRESH)));
  }

  /** The memory to analyze with: the one kept, else the one the active stall records. */
  StallMemory recall(Collection<RolloutStall> stalls) {
    if (memory != null) {
      return memory;
    }
    for (RolloutStall stall : stalls) {
      RolloutStallStatus status = stall.getStatus();
      if (status != null && status.active() && status.nodes() != null) {
        Map<String, Instant> held = new HashMap<>();
        for (var node : status.nodes()) {
          Instant since = node.sinceTime().orElse(null);
          if (node.name() != null && since != null) {
            held.put(node.name(), since);
          }
        }
        return new StallMemory(stall.getSpec().revision(), held);
      }
    }
    return StallMemory.NONE;
  }

  RolloutState withMemory(StallMemory m) {
    return new RolloutState(
        m == StallMemory.NONE ? null : m,
        invalid,
        lagSince,
        confirming,
        failedCreates,
        refusal,
        ownRollbacks,
        unannounced);
  }

  RolloutState withInvalid(String i) {
    return new RolloutState(
        memory, i, lagSince, confirming, failedCreates, refusal, ownRollbacks, unannounced);
  }

  RolloutState withLagSince(Instant l) {
    return new RolloutState(
        memory, invalid, l, confirming, failedCreates, refusal, ownRollbacks, unannounced);
  }

  RolloutState withConfirming(Confirming c) {
    return new RolloutState(
        memory, invalid, lagSince, c, failedCreates, refusal, ownRollbacks, unannounced);
  }

  RolloutState withFailedCreates(Listed f) {
    return new RolloutState(
        memory, invalid, lagSince, confirming, f, refusal, ownRollbacks, unannounced);
  }

  RolloutState withRefusal(Refusal r) {
    return new RolloutState(
        memory, invalid, lagSince, confirming, failedCreates, r, ownRollbacks, unannounced);
  }

  RolloutState withUnannounced(java.util.Set<String> names) {
    return new RolloutState(
        memory, invalid, lagSince, confirming, failedCreates, refusal, ownRollbacks, names);
  }

  /** With {@code stall} unannounced as well. */
  RolloutState unannounced(String stall) {
    var names = new java.util.HashSet<>(unannounced);
    names.add(stall);
    return withUnannounced(names);
  }

  RolloutState withRollback(RollbackRecord done) {
    List<RollbackRecord> all = new ArrayList<>(ownRollbacks);
    all.add(done);
    return new RolloutState(
        memory, invalid, lagSince, confirming, failedCreates, null, all, unannounced);
  }
}
