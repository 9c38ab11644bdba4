package dev.stallwatch.demo;

import dev.stallwatch.sim.SimClock;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The demo's clock for the API server and the operator, which start before the story does: wall
 * time until {@link #begin} hands over to the simulator's virtual clock, so the slow start of a JVM
 * does not eat simulated minutes.
 */
final class StoryClock extends Clock {
  private volatile SimClock story;

  /** Starts the story's virtual clock at the current instant; the demo's driver moves it. */
  SimClock begin() {
    story = SimClock.virtual(Instant.now());
    return story;
  }

  @Override
  public Instant instant() {
    SimClock s = story;
    return s == null ? Instant.now() : s.instant();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("the demo's clock is always UTC");
  }
}
