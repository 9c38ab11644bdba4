package dev.stallwatch.sim;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * The back-off the controller keeps per DaemonSet and node before deleting yet another failed
 * daemon pod (upstream: {@code flowcontrol.Backoff}, 1 s doubling up to 15 min, forgotten after
 * twice the maximum without a failure), so it does not fight a kubelet that keeps rejecting pods.
 */
final class FailedPodBackoff {

  static final Duration INITIAL = Duration.ofSeconds(1);
  static final Duration MAX = Duration.ofMinutes(15);

  private record Entry(Duration backoff, Instant lastUpdate) {}

  private final Map<String, Entry> entries = new HashMap<>();

  /** True while {@code now} is within the current back-off since the last failure. */
  boolean inBackoff(String key, Instant now) {
    Entry e = entries.get(key);
    return e != null && Duration.between(e.lastUpdate, now).compareTo(e.backoff) < 0;
  }

  /** Records a failure at {@code now}, doubling the back-off. */
  void next(String key, Instant now) {
    Entry e = entries.get(key);
    Duration backoff;
    if (e == null || Duration.between(e.lastUpdate, now).compareTo(MAX.multipliedBy(2)) > 0) {
      backoff = INITIAL;
    } else {
      backoff = e.backoff.multipliedBy(2);
      if (backoff.compareTo(MAX) > 0) {
        backoff = MAX;
      }
    }
    entries.put(key, new Entry(backoff, now));
  }
}
