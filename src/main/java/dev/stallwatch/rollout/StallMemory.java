package dev.stallwatch.rollout;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * What a long-running caller remembers between snapshots: since when each node has held back the
 * rollout to {@code revisionHash}, and when it last looked. A pod re-created by the controller's
 * backoff looks brand new in a snapshot; the memory keeps the original instant. A caller with an
 * {@code observedAt} watches every change (the operator reconciles on each): a node it did not see
 * holding back this revision at its last look, and for which the snapshot offers no better evidence
 * (its pod is gone, right after a rollback), is dated from the moment the caller first sees it —
 * not from the rollout's start, which after a rollback may be long past. Empty for one-shot
 * callers.
 *
 * @param observedAt when the caller last analyzed this DaemonSet; null when it does not watch
 */
public record StallMemory(String revisionHash, Map<String, Instant> heldSince, Instant observedAt) {
  public static final StallMemory NONE = new StallMemory("", Map.of(), null);

  public StallMemory {
    revisionHash = revisionHash == null ? "" : revisionHash;
    heldSince = heldSince == null ? Map.of() : Map.copyOf(heldSince);
  }

  /**
   * What a watching caller keeps after analyzing {@code verdict} at {@code observedAt}: since when
   * each node has held back the verdict's new revision. {@link #NONE} without a new revision. The
   * one way the operator, {@code wait} and {@code status -w} carry a verdict to the next snapshot.
   */
  public static StallMemory from(RolloutVerdict verdict, Instant observedAt) {
    if (verdict.newRevision() == null) {
      return NONE;
    }
    Map<String, Instant> held = new HashMap<>();
    for (NodeRow row : verdict.nodes()) {
      if (row.since() != null) {
        held.put(row.node(), row.since());
      }
    }
    return new StallMemory(verdict.newRevision().hash(), held, observedAt);
  }

  /** A memory without a last observation (seeded from a record, not from watching). */
  public StallMemory(String revisionHash, Map<String, Instant> heldSince) {
    this(revisionHash, heldSince, null);
  }
}
