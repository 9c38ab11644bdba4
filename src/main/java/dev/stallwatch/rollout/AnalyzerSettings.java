package dev.stallwatch.rollout;

import java.time.Duration;

/** Tunables of the analysis. {@code stallAfter}: how long a node may hold a rollout back. */
public record AnalyzerSettings(Duration stallAfter) {
  public static final Duration DEFAULT_STALL_AFTER = Duration.ofMinutes(5);
  public static final AnalyzerSettings DEFAULTS = new AnalyzerSettings(DEFAULT_STALL_AFTER);

  public AnalyzerSettings {
    if (stallAfter == null || stallAfter.isNegative()) {
      throw new IllegalArgumentException("stall-after must be a positive duration");
    }
  }
}
