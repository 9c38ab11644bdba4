package dev.stallwatch.embedded;

import dev.stallwatch.rollout.Durations;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/** The age column of a timestamp in an object, as kubectl prints it ({@link Durations#age}). */
final class HumanAge {

  private HumanAge() {}

  /**
   * The age of an RFC 3339 timestamp at {@code now}; {@code <unknown>} when absent or malformed.
   */
  static String since(String timestamp, Instant now) {
    if (timestamp == null || timestamp.isEmpty()) {
      return "<unknown>";
    }
    try {
      return Durations.age(Duration.between(Instant.parse(timestamp), now));
    } catch (DateTimeParseException e) {
      return "<unknown>";
    }
  }
}
