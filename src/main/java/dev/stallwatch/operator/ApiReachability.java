package dev.stallwatch.operator;

import dev.stallwatch.operator.effects.ApiTrouble;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says in two lines what an outage of the API server did to the operator: one WARN when it is lost
 * (a reconcile cannot reach it, or the informers' watches stay down), one INFO when every watch is
 * back (after how long, how many reconciles failed meanwhile). What happens in between is counted
 * ({@code stallwatch_reconcile_errors_total}), not logged.
 *
 * <p>A watch that is down at one look is not yet an outage: an API server that answers a request
 * with a GOAWAY (managed API servers do so routinely, {@code --goaway-chance}) closes the watches
 * on that connection and the informers reconnect within a second or two. Only watches still down at
 * {@link #DOWN_LOOKS} looks in a row, or a reconcile that cannot reach the API server, are lost;
 * the outage is dated from the first look that found them down.
 */
final class ApiReachability {
  private static final Logger log = LoggerFactory.getLogger(ApiReachability.class);

  /**
   * Looks in a row ({@link StallwatchOperator#WATCH_POLL} apart, so about 10 s) the watches must
   * stay down before they count as an outage.
   */
  static final int DOWN_LOOKS = 5;

  private final Clock clock;
  private Instant lostAt; // guarded by this
  private Instant downSince; // guarded by this: the first look of a run that found watches down
  private int downLooks; // guarded by this
  private final AtomicInteger failedMeanwhile = new AtomicInteger();
  private Instant refusedSince; // guarded by this: the first 403 of a run of refused reconciles
  private int refusedMeanwhile; // guarded by this

  ApiReachability(Clock clock) {
    this.clock = clock;
  }

  /** A reconcile failed for lack of the API server ({@link ApiTrouble#outage}). */
  void reconcileFailed(ApiTrouble trouble) {
    failedMeanwhile.incrementAndGet();
    Instant since;
    synchronized (this) {
      since = downSince == null ? clock.instant() : downSince;
    }
    lost(since, trouble.reason() + ": " + trouble.message());
  }

  /**
   * A reconcile was refused (403, {@link ApiTrouble.Reason#forbidden}): one WARN for a run of them,
   * however many DaemonSets and tries it spans, until a reconcile succeeds ({@link #authorized}).
   */
  void reconcileRefused(ApiTrouble trouble) {
    synchronized (this) {
      refusedMeanwhile++;
      if (refusedSince != null) {
        return;
      }
      refusedSince = clock.instant();
    }
    log.warn(
        "the API server refuses a request ({}); retrying. Just after an API server restart this"
            + " is its authorizer catching up; if it lasts, the operator lacks a grant",
        trouble.message());
  }

  /** A reconcile succeeded: ends a run of refused ones with one INFO line. */
  void authorized() {
    Instant since;
    int refused;
    synchronized (this) {
      if (refusedSince == null) {
        return;
      }
      since = refusedSince;
      refused = refusedMeanwhile;
      refusedSince = null;
      refusedMeanwhile = 0;
    }
    log.info(
        "the API server authorizes the operator's requests again after {} s; {} reconcile(s)"
            + " refused meanwhile",
        Duration.between(since, clock.instant()).toSeconds(),
        refused);
  }

  /** What the informers say, polled: healthy once every watch is established again. */
  void watching(boolean healthy) {
    if (!healthy) {
      Instant since;
      synchronized (this) {
        if (downSince == null) {
          downSince = clock.instant();
        }
        downLooks++;
        if (downLooks < DOWN_LOOKS) {
          return;
        }
        since = downSince;
      }
      lost(since, "the informers' watches are down");
      return;
    }
    Instant since;
    synchronized (this) {
      downSince = null;
      downLooks = 0;
      if (lostAt == null) {
        // A reconnect between two looks (a GOAWAY) or before the watches counted as lost.
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

  private void lost(Instant since, String why) {
    synchronized (this) {
      if (lostAt != null) {
        return;
      }
      lostAt = since;
    }
    log.warn("lost the API server ({}); retrying until it answers", why);
  }

  /** Whether an outage is being reported ({@code stallwatch_api_server_reachable} 0). */
  synchronized boolean lost() {
    return lostAt != null;
  }
}
