package dev.stallwatch.operator;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says in two lines what an outage of the API server did to the operator: one WARN when it is lost
 * (a reconcile cannot reach it, or the informers' watches are down), one INFO when every watch is
 * back (after how long, how many reconciles failed meanwhile). What happens in between is counted
 * ({@code stallwatch_reconcile_errors_total}), not logged.
 */
final class ApiReachability {
  private static final Logger log = LoggerFactory.getLogger(ApiReachability.class);

  private final Clock clock;
  private Instant lostAt; // guarded by this
  private final AtomicInteger failedMeanwhile = new AtomicInteger();

  ApiReachability(Clock clock) {
    this.clock = clock;
  }

  /** A reconcile failed for lack of the API server ({@link ApiTrouble#outage}). */
  void reconcileFailed(ApiTrouble trouble) {
    failedMeanwhile.incrementAndGet();
    lost(trouble.reason() + ": " + trouble.message());
  }

  /** What the informers say, polled: healthy once every watch is established again. */
  void watching(boolean healthy) {
    if (!healthy) {
      lost("the informers' watches are down");
      return;
    }
    Instant since;
    synchronized (this) {
      if (lostAt == null) {
        return;
      }
      since = lostAt;
      lostAt = null;
    }
    log.info(
        "the API server answers again after {} s; every watch is back; {} reconcile(s) failed"
            + " meanwhile",
        Duration.between(since, clock.instant()).toSeconds(),
        failedMeanwhile.getAndSet(0));
  }

  private void lost(String why) {
    synchronized (this) {
      if (lostAt != null) {
        return;
      }
      lostAt = clock.instant();
    }
    log.warn("lost the API server ({}); retrying until it answers", why);
  }

  /** Whether an outage is being reported ({@code stallwatch_api_server_reachable} 0). */
  synchronized boolean lost() {
    return lostAt != null;
  }
}
