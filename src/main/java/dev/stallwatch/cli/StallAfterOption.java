package dev.stallwatch.cli;

import dev.stallwatch.rollout.AnalyzerSettings;
import java.time.Duration;
import picocli.CommandLine.Option;

/** {@code --stall-after}, shared by every command that analyzes rollouts. */
public final class StallAfterOption {
  @Option(
      names = "--stall-after",
      paramLabel = "DURATION",
      converter = DurationParser.class,
      defaultValue = "5m",
      description =
          "How long a node may hold a rollout back before it is stuck: 90s, 5m, 1h, PT5M"
              + " (default: ${DEFAULT-VALUE}).")
  Duration stallAfter;

  /** The value given (or the default). */
  public Duration duration() {
    return stallAfter;
  }

  /** The analyzer settings this option stands for. */
  public AnalyzerSettings settings() {
    return new AnalyzerSettings(stallAfter);
  }
}
