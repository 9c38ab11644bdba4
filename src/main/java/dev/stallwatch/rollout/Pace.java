package dev.stallwatch.rollout;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * How fast a rollout moves and how long it has left — "slow but moving" told apart from "stuck" at
 * 5,000 nodes, where a healthy rollout with {@code maxUnavailable: 1} takes hours.
 *
 * <p>The pace counts the desired nodes whose pod of the new revision became available (Ready for
 * {@code minReadySeconds}) within the last {@link #WINDOW}: from the first of them to now, so a
 * rollout that just resumed is measured from its first node since, and one that stops moving slows
 * down as time passes. Unknown until two nodes became available in the window.
 *
 * @param perMinute nodes per minute; null when unknown
 * @param remaining desired nodes whose pod of the new revision is not available yet
 * @param eta the time left at that pace; null when the pace is unknown or zero (and zero when
 *     nothing remains)
 */
public record Pace(Double perMinute, int remaining, Duration eta) {

  /** How far back the pace looks. */
  public static final Duration WINDOW = Duration.ofMinutes(10);

  /** Nothing known: no new revision, or the rollout is not progressing. */
  public static final Pace UNKNOWN = new Pace(null, 0, null);

  /** Whether pace and time left are known. */
  public boolean known() {
    return perMinute != null;
  }

  /** The same count of nodes left, without pace or time left (a rollout not progressing). */
  public Pace remainingOnly() {
    return new Pace(null, remaining, null);
  }

  /**
   * The pace of a rollout with {@code desired} nodes whose new pods became available at {@code
   * availableAt} (in any order; only those not after {@code now} count).
   */
  public static Pace of(List<Instant> availableAt, int desired, Instant now) {
    Tally tally = new Tally(now);
    availableAt.forEach(tally::add);
    return tally.pace(desired);
  }

  /**
   * Availability instants counted as they come: one pass over the nodes, no list of 5,000 instants
   * per analysis.
   */
  static final class Tally {
    private final Instant now;
    private final Instant from;
    private int available;
    private int inWindow;
    private Instant first;

    Tally(Instant now) {
      this.now = now;
      this.from = now.minus(WINDOW);
    }

    /** A node whose new pod became available at {@code at} (null, or later than now: not yet). */
    void add(Instant at) {
      if (at == null || at.isAfter(now)) {
        return;
      }
      available++;
      if (at.isAfter(from)) {
        inWindow++;
        if (first == null || at.isBefore(first)) {
          first = at;
        }
      }
    }

    Pace pace(int desired) {
      int remaining = Math.max(0, desired - available);
      long millis = first == null ? 0 : Duration.between(first, now).toMillis();
      if (inWindow < 2 || millis <= 0) {
        return new Pace(null, remaining, remaining == 0 ? Duration.ZERO : null);
      }
      // The first node opens the window; the others are what moved since.
      double perMinute = (inWindow - 1) * 60_000.0 / millis;
      Duration eta =
          remaining == 0
              ? Duration.ZERO
              : Duration.ofSeconds(Math.round(remaining * 60.0 / perMinute));
      return new Pace(perMinute, remaining, eta);
    }
  }

  /**
   * In words, for the table and {@code wait}'s progress: {@code 0.67 nodes/min over the last 10m, 3
   * nodes left, about 4m30s to go}, or while unknown {@code unknown until 2 nodes of the new
   * revision are available, 5 nodes left}.
   */
  public String describe() {
    String left = remaining + (remaining == 1 ? " node" : " nodes") + " left";
    if (perMinute == null) {
      return "unknown until 2 nodes of the new revision are available, " + left;
    }
    return String.format(java.util.Locale.ROOT, "%.2f", perMinute)
        + " nodes/min over the last "
        + Durations.age(WINDOW)
        + ", "
        + left
        + (eta == null ? "" : ", about " + Durations.age(eta) + " to go");
  }
}
