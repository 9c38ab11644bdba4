package dev.stallwatch.rollout;

import java.time.Instant;
import java.util.Map;

/**
 * What a long-running caller remembers between snapshots: since when each node has held back the
 * rollout to {@code revisionHash}. A pod re-created by the controller's backoff looks brand new in
 * a snapshot; the memory keeps the original instant. Empty for one-shot callers.
 */
public record StallMemory(String revisionHash, Map<String, Instant> heldSince) {
  public static final StallMemory NONE = new StallMemory("", Map.of());

  public StallMemory {
    revisionHash = revisionHash == null ? "" : revisionHash;
    heldSince = heldSince == null ? Map.of() : Map.copyOf(heldSince);
  }
}
