package dev.stallwatch.sim;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The simulator's clock: virtual, it moves only on {@link #advance}, so runs are deterministic (the
 * demo advances it itself, see {@code demo.StoryClock}). Everything the simulator stamps
 * (conditions, start times, deletion timestamps) reads this clock.
 */
public final class SimClock extends Clock {

  private Instant now;

  private SimClock(Instant start) {
    this.now = start;
  }

  /** A clock standing at {@code start}; only {@link #advance} moves it. */
  public static SimClock virtual(Instant start) {
    return new SimClock(start);
  }

  /** Moves the clock forward. */
  public synchronized void advance(Duration by) {
    if (by.isNegative()) {
      throw new IllegalArgumentException("time only moves forward, got " + by);
    }
    now = now.plus(by);
  }

  @Override
  public synchronized Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("the simulator's clock is always UTC");
  }
}
