package dev.stallwatch.sim;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.function.LongSupplier;

/**
 * The simulator's clock: either virtual (moves only on {@link #advance}) so tests are
 * deterministic, or scaled real time for the demo (e.g. one real second is one simulated minute).
 * Everything the simulator stamps (conditions, start times, deletion timestamps) reads this clock.
 */
public final class SimClock extends Clock {

  private final Instant origin;
  private final long scale;
  private final LongSupplier realNanos;
  private final long realOrigin;
  private Instant virtualNow;

  private SimClock(Instant origin, long scale, LongSupplier realNanos) {
    this.origin = origin;
    this.scale = scale;
    this.realNanos = realNanos;
    this.realOrigin = realNanos.getAsLong();
    this.virtualNow = origin;
  }

  /** A virtual clock standing at {@code start}; only {@link #advance} moves it. */
  public static SimClock virtual(Instant start) {
    return new SimClock(start, 0, () -> 0L);
  }

  /**
   * A clock that runs {@code scale} times faster than real time from {@code start} on ({@code
   * scale} 60: one real second is one simulated minute).
   */
  public static SimClock scaled(Instant start, long scale) {
    if (scale < 1) {
      throw new IllegalArgumentException("clock scale must be at least 1, got " + scale);
    }
    return new SimClock(start, scale, System::nanoTime);
  }

  /** True when only {@link #advance} moves this clock. */
  public boolean isVirtual() {
    return scale == 0;
  }

  /** Moves a virtual clock forward; a scaled clock refuses. */
  public synchronized void advance(Duration by) {
    if (!isVirtual()) {
      throw new IllegalStateException("a scaled real-time clock cannot be advanced by hand");
    }
    if (by.isNegative()) {
      throw new IllegalArgumentException("time only moves forward, got " + by);
    }
    virtualNow = virtualNow.plus(by);
  }

  @Override
  public synchronized Instant instant() {
    if (isVirtual()) {
      return virtualNow;
    }
    long elapsed = realNanos.getAsLong() - realOrigin;
    return origin.plusNanos(Math.multiplyExact(elapsed, scale));
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
