package dev.stallwatch.operator;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.crd.RolloutStallStatus;
import dev.stallwatch.rollout.RolloutVerdict;
import dev.stallwatch.rollout.StallMemory;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Since when each node has held back each DaemonSet's rollout, kept between reconciles (a pod
 * re-created by the controller's backoff would otherwise restart the count). After an operator
 * restart the memory is seeded from the active RolloutStall, so stalledSince survives restarts.
 */
final class StallMemories {
  private final Map<String, StallMemory> byDaemonSet = new ConcurrentHashMap<>();

  /** The memory for a DaemonSet, seeded from its active stall when nothing is remembered. */
  StallMemory recall(String key, Collection<RolloutStall> stalls) {
    StallMemory known = byDaemonSet.get(key);
    if (known != null) {
      return known;
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

  /** Remembers the nodes that hold back the verdict's revision now; forgets the others. */
  void remember(String key, RolloutVerdict verdict, Instant observedAt) {
    StallMemory memory = StallMemory.from(verdict, observedAt);
    if (memory == StallMemory.NONE) {
      byDaemonSet.remove(key);
    } else {
      byDaemonSet.put(key, memory);
    }
  }

  void forget(String key) {
    byDaemonSet.remove(key);
  }
}
