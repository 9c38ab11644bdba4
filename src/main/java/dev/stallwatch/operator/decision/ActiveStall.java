package dev.stallwatch.operator.decision;

import dev.stallwatch.rollout.Cause;
import dev.stallwatch.rollout.Suspect;
import java.time.Instant;

/** An active stall as the gauges show it: cause, suspect, how many nodes, since when. */
public record ActiveStall(Cause cause, Suspect suspect, int nodes, Instant since) {
  public ActiveStall {
    java.util.Objects.requireNonNull(cause, "cause");
    suspect = suspect == null ? Suspect.Unknown : suspect;
  }
}
